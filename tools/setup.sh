#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One-step set-up for a Debian 12 machine:
#   tools/setup.sh demo   install build deps, build, run accel-info and an example
#   tools/setup.sh test   install build deps, build, run tools/run-tests.sh
#
# Both install the packages listed in tools/debian-packages.txt when they are
# missing (as root; otherwise the apt-get line to run is printed) and build
# into ./build (-O2 -g) with all cores.
set -euo pipefail

usage() {
	echo "usage: $0 demo|test" >&2
	exit 2
}

[ $# -eq 1 ] || usage
mode=$1
case $mode in demo | test) ;; *) usage ;; esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# ---- 1. Debian packages ----------------------------------------------------

install_packages() {
	local list=tools/debian-packages.txt pkg status
	local -a wanted=() missing=()

	mapfile -t wanted < <(sed -e 's/#.*//' "$list" | awk 'NF { print $1 }')
	for pkg in "${wanted[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) ||
			status=
		[ "$status" = "install ok installed" ] || missing+=("$pkg")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "setup: all ${#wanted[@]} packages from $list are installed"
		return
	fi

	echo "setup: missing packages: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: not root; install them with:" >&2
		echo "  sudo apt-get install -y --no-install-recommends" \
			"${missing[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	apt-get install -y --no-install-recommends "${missing[@]}"
}

# ---- 2. configure and build ------------------------------------------------

build() {
	local jobs
	jobs=$(nproc)

	# RelWithDebInfo with its flags spelled out: -O2 -g, asserts kept.
	cmake -S . -B build \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g"
	cmake --build build --parallel "$jobs"
}

install_packages
build

# ---- 3. the mode -------------------------------------------------------------

case $mode in
demo)
	ran=0
	for prog in build/tools/accel-info build/examples/vector-add; do
		if [ -x "$prog" ]; then
			echo
			echo "==> $prog"
			"$prog"
			ran=1
		else
			echo "setup: $prog is not built (yet); skipping"
		fi
	done
	[ $ran -eq 1 ] || echo "setup: nothing to demo yet; the library is built in build/"
	# The OpenCL view: clinfo through the system's ICD loader, with only
	# libaccel's ICD from the build tree (nothing installed).
	if [ -d build/icd/vendors ] && command -v clinfo >/dev/null; then
		echo
		echo "==> clinfo (OCL_ICD_VENDORS=build/icd/vendors)"
		OCL_ICD_VENDORS=$PWD/build/icd/vendors clinfo -l
		OCL_ICD_VENDORS=$PWD/build/icd/vendors clinfo |
			grep -E "Platform Name|Device Name|Device Type|Max compute units|Device OpenCL C Version|Device Version" |
			awk '!seen[$0]++'
	fi
	;;
test)
	exec tools/run-tests.sh
	;;
esac
