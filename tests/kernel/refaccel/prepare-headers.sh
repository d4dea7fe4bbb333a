#!/bin/bash
# SPDX-License-Identifier: MIT
#
# prepare-headers.sh <kernel-cache> <kernel-version> [--sysroot DIR]
#
# Unpacks the kernel headers matching <kernel-version> (as in the cache's
# vm.env) into <kernel-cache>/headers-<version> and prints the folder to
# build external modules against (make -C <it> M=...). Idempotent.
# The three packages are fetched with apt-get download and unpacked with
# dpkg -x, never installed: installing them would drag the kernel image
# into the host's /boot.
#
# --sysroot DIR: a kernel of another architecture (arm64), whose headers
# (linux-headers-<version> and -common) the sysroot has unpacked already
# (tests/arm64/make-sysroot.sh): they are copied from there, and only
# linux-kbuild, the build programs (fixdep, modpost), is fetched: the
# host's, of the same version, which builds modules for any architecture.
#
# Exit codes: 0 ready, 77 cannot fetch (reason printed), 1 error.

set -euo pipefail

prog=prepare-headers
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
die() { echo "$prog: error: $*" >&2; exit 1; }

usage() {
	echo "usage: $0 <kernel-cache> <kernel-version> [--sysroot DIR]" >&2
	exit 2
}
[ $# = 2 ] || [ $# = 4 ] || usage
cache=$(cd "$1" && pwd -P)
kver=$2
sysroot=
if [ $# = 4 ]; then
	[ "$3" = --sysroot ] || usage
	sysroot=$4
fi
# 6.12.117+deb12-amd64 -> 6.12.117+deb12 (-common, kbuild), amd64
base=${kver%-*}
top="$cache/headers-$kver"
dir="$top/usr/src/linux-headers-$kver"

if [ -f "$top/.ready" ]; then
	echo "$dir"
	exit 0
fi

exec 9>"$cache/.headers-lock"
command -v flock >/dev/null && flock 9
if [ -f "$top/.ready" ]; then
	echo "$dir"
	exit 0
fi

command -v apt-get >/dev/null || skip "no apt-get"
command -v dpkg >/dev/null || skip "no dpkg"

rm -rf "$top"
dl="$top.download"
rm -rf "$dl"
mkdir -p "$dl"
pkgs="linux-headers-$kver linux-headers-$base-common linux-kbuild-$base"
if [ -n "$sysroot" ]; then
	src=$sysroot/usr/src
	for d in "linux-headers-$kver" "linux-headers-$base-common"; do
		[ -f "$src/$d/Makefile" ] ||
			skip "$sysroot has no usr/src/$d (linux-headers-$kver in its package list?)"
	done
	pkgs="linux-kbuild-$base"
fi
# Once per cache: say what the wait is for (stdout is the answer).
echo "$prog: downloading and unpacking $pkgs into $top (once per kernel cache)" >&2
# shellcheck disable=SC2086
if ! (cd "$dl" && apt-get download -q $pkgs) >"$dl/apt.log" 2>&1; then
	tail -n 3 "$dl/apt.log" >&2
	rm -rf "$dl"
	skip "cannot download $pkgs (no network to the Debian mirror?)"
fi
for deb in "$dl"/*.deb; do
	dpkg -x "$deb" "$top" || die "dpkg -x $deb failed"
done
rm -rf "$dl"
if [ -n "$sysroot" ]; then
	# Their scripts/ and tools/ links are relative: in the copy they
	# reach the host's linux-kbuild unpacked above.
	mkdir -p "$top/usr/src"
	cp -a "$src/linux-headers-$kver" "$src/linux-headers-$base-common" \
		"$top/usr/src/" || die "cannot copy the headers from $src"
fi

[ -f "$dir/Makefile" ] || die "no $dir/Makefile"
# The flavour's Makefile includes the -common one by absolute path.
sed -i "s#^include /usr/src/#include $top/usr/src/#" "$dir/Makefile"
[ -d "$top/usr/src/linux-headers-$base-common" ] ||
	die "no linux-headers-$base-common in the packages"
touch "$top/.ready"
echo "$dir"
