#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build.sh <kernel-cache> <out-dir> <libaccel/uapi dir> [--arch arm64 --sysroot DIR]
#
# Builds refaccel.ko for the guest kernel of the VM tier: the headers
# matching the cached kernel (linux-headers-<ver> + -common and
# linux-kbuild, fetched with apt-get download and unpacked with dpkg -x
# into the cache, never installed) and `make M=<out-dir> modules` on a
# copy of this folder (6.12's kbuild writes objects next to the sources).
#
# --arch arm64 --sysroot DIR: for the arm64 guest (tests/arm64/), whose
# kernel, modules and headers are in the sysroot (vm-prepare.sh's
# options): cross-built with Debian's aarch64-linux-gnu-gcc-12
# (crossbuild-essential-arm64) and the host's linux-kbuild.
#
# Exit codes: 0 built, 77 cannot build here (reason printed), 1 error.

set -euo pipefail

prog=refaccel-build
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
die() { echo "$prog: error: $*" >&2; exit 1; }

usage() {
	echo "usage: $0 <kernel-cache> <out-dir> <uapi-dir> [--arch arm64 --sysroot DIR]" >&2
	exit 2
}
[ $# = 3 ] || [ $# = 7 ] || usage
cache=$1 out=$2 uapi=$3
shift 3
arch=amd64 sysroot=
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2 ;;
	--sysroot) sysroot=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $arch in
amd64) [ -z "$sysroot" ] || usage ;;
arm64) [ -n "$sysroot" ] || usage ;;
*) usage ;;
esac
here=$(cd "$(dirname "$0")" && pwd -P)

command -v make >/dev/null || skip "'make' not found (install 'make')"
# The compiler the kernel was built with: Debian's headers name it.
cross=()
if [ "$arch" = arm64 ]; then
	command -v aarch64-linux-gnu-gcc-12 >/dev/null ||
		skip "'aarch64-linux-gnu-gcc-12' not found (install 'crossbuild-essential-arm64')"
	cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
else
	command -v gcc >/dev/null || skip "'gcc' not found (install 'gcc')"
fi

# The kernel first (a no-op once the cache is complete): the headers
# must be of the very version the guest boots.
prep=()
[ "$arch" = amd64 ] || prep=(--arch "$arch" --sysroot "$sysroot")
rc=0
bash "$here/../vm-prepare.sh" "$cache" "${prep[@]}" || rc=$?
[ "$rc" = 0 ] || exit "$rc"
cache=$(cd "$cache" && pwd -P)
KVER=
# shellcheck disable=SC1091
. "$cache/vm.env"
[ -n "$KVER" ] || die "$cache/vm.env names no kernel"

hdrs=()
[ -z "$sysroot" ] || hdrs=(--sysroot "$(cd "$sysroot" && pwd -P)")
hdr=$(bash "$here/prepare-headers.sh" "$cache" "$KVER" "${hdrs[@]}")

rm -rf "$out"
mkdir -p "$out"
# kbuild takes M= relative to the headers' folder.
out=$(cd "$out" && pwd -P)
cp "$here"/Kbuild "$here"/*.c "$here"/*.h "$out"/
# Module BTF needs pahole (dwarves); a module without it loads all the
# same, only BPF cannot see its types.
nobtf=
command -v pahole >/dev/null || nobtf=CONFIG_DEBUG_INFO_BTF_MODULES=
# The kernel's own flags, not the project's; quiet unless it fails.
if ! make -s -C "$hdr" M="$out" REFACCEL_UAPI="$(cd "$uapi" && pwd -P)" \
	"${cross[@]}" $nobtf modules >"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	die "module build failed"
fi
# Warnings are errors here too.
if grep -E 'warning:' "$out/build.log" >&2; then
	die "module build gave warnings"
fi
[ -s "$out/refaccel.ko" ] || die "no refaccel.ko"
echo "$prog: built $out/refaccel.ko for $KVER" >&2
