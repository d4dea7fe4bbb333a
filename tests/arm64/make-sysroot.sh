#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make-sysroot.sh <dir>
#
# Makes <dir>, an arm64 Debian 12 tree that is both the cross-build's
# sysroot (tools/arm64-toolchain.cmake) and the root of the arm64 test
# guest (tests/kernel/vm-run.sh --arch arm64): the packages below unpacked
# with mmdebstrap --variant=extract, which runs no maintainer script and
# so needs no emulation, then the few things those scripts would have
# done. Cached: a tree made from the same package list is kept.
#
# Environment: ACCEL_DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Exit codes: 0 ready, 77 cannot be made here (reason printed), 1 error.

set -uo pipefail

prog=make-sysroot
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
die() { echo "$prog: error: $*" >&2; exit 1; }

# What the cross-build links against, and what the guest runs.
PACKAGES=(
	# the C library, gcc's and C++'s (the headers' C++ check)
	libc6-dev libgcc-12-dev libstdc++-12-dev
	# the library's and tests' dependencies (tools/debian-packages.txt)
	libcmocka-dev libudev-dev libdrm-dev libibverbs-dev libzstd-dev
	libssl-dev opencl-c-headers ocl-icd-opencl-dev
	# the compiler module links libLLVM and runs clang and GNU ld (binutils,
	# a dependency of clang-16)
	clang-16 llvm-16-dev libclang-rt-16-dev
	# the guest: the kernel and its modules, busybox for the initramfs,
	# a shell and the tools tests and ctest use, soft-RoCE (rdma tool
	# and the rxe provider)
	linux-image-6.12-arm64 busybox-static bash dash coreutils grep sed
	mawk findutils diffutils util-linux procps kmod iproute2 ibverbs-providers
	cmake
	# the kernel's headers, for refaccel.ko (tests/kernel/refaccel/:
	# cross-built with the host's linux-kbuild of the same version)
	linux-headers-6.12-arm64
	# the ICD tests' clients
	clinfo python3 python3-pyopencl python3-numpy
)

[ $# -eq 1 ] || { echo "usage: $0 <dir>" >&2; exit 2; }
dir=$1
mirror=${ACCEL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Bump when the fix-ups below change, so that a cached tree is remade.
FIXUPS=3
stamp_text="${PACKAGES[*]} $mirror fixups=$FIXUPS"

if [ -f "$dir/.accel-sysroot" ] &&
   [ "$(cat "$dir/.accel-sysroot")" = "$stamp_text" ]; then
	exit 0
fi

PATH=$PATH:/usr/sbin:/sbin
command -v mmdebstrap >/dev/null ||
	skip "mmdebstrap not found (install the Debian package 'mmdebstrap')"
if [ "$(id -u)" != 0 ] && ! unshare --user --map-root-user true 2>/dev/null; then
	skip "mmdebstrap needs root or user namespaces"
fi

mkdir -p "$(dirname "$dir")" || die "cannot create $(dirname "$dir")"
tmp=$dir.tmp
rm -rf "$tmp" "$dir"
# bookworm-security has the newest 6.12 kernel (and its point releases
# vanish from the main suite's view first).
includes=$(IFS=,; echo "${PACKAGES[*]}")
echo "$prog: unpacking ${#PACKAGES[@]} arm64 packages and their dependencies" >&2
if ! mmdebstrap --quiet --variant=extract --arch=arm64 --include="$includes" \
	bookworm "$tmp" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb ${mirror%/debian}/debian-security bookworm-security main" \
	>"$tmp.log" 2>&1; then
	tail -n 5 "$tmp.log" >&2
	rm -rf "$tmp"
	# Failing to read the mirror's indices is the mirror's failure
	# (mmdebstrap --quiet says no more than "apt-get update ... failed").
	if grep -qE 'apt-get update .*failed|Could not resolve|Failed to fetch|Temporary failure|Unable to connect' \
		"$tmp.log"; then
		skip "the Debian mirror ($mirror) cannot be reached"
	fi
	die "mmdebstrap failed (log: $tmp.log)"
fi
rm -f "$tmp.log"

# Absolute symlinks point into the host's / when the tree is a sysroot
# (libm.so -> /lib/aarch64-linux-gnu/libm.so.6): make them relative, which
# reads the same in the guest.
while IFS= read -r -d '' link; do
	target=$(readlink "$link")
	ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$tmp$target")" \
		"$link" || die "cannot rewrite the symlink $link"
done < <(find "$tmp" -path "$tmp/dev" -prune -o -type l -lname '/*' -print0)

# /bin/sh is made by dash's maintainer script, awk (an alternative) by
# mawk's.
[ -e "$tmp/bin/sh" ] || ln -s dash "$tmp/bin/sh"
[ -e "$tmp/usr/bin/awk" ] || ln -s mawk "$tmp/usr/bin/awk"

# BLAS and LAPACK are reached through update-alternatives links, made by
# their maintainer scripts: numpy (pyopencl's) cannot load without them.
ml=$tmp/usr/lib/aarch64-linux-gnu
for lib in blas/libblas.so.3 lapack/liblapack.so.3; do
	[ -e "$ml/$lib" ] && [ ! -e "$ml/${lib#*/}" ] && ln -s "$lib" "$ml/${lib#*/}"
done

echo "$stamp_text" >"$tmp/.accel-sysroot"
mv "$tmp" "$dir" || die "cannot move $tmp to $dir"
echo "$prog: ready: $dir ($(du -sh "$dir" | cut -f1))" >&2
exit 0
