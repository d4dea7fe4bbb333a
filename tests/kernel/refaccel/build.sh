#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build.sh <kernel-cache> <out-dir> <libaccel/uapi dir>
#
# Builds refaccel.ko for the guest kernel of the VM tier: the headers
# matching the cached kernel (linux-headers-<ver> + -common and
# linux-kbuild, fetched with apt-get download and unpacked with dpkg -x
# into the cache, never installed) and `make M=<out-dir> modules` on a
# copy of this folder (6.12's kbuild writes objects next to the sources).
#
# Exit codes: 0 built, 77 cannot build here (reason printed), 1 error.

set -euo pipefail

prog=refaccel-build
skip() { echo "$prog: SKIP: $*" >&2; exit 77; }
die() { echo "$prog: error: $*" >&2; exit 1; }

[ $# = 3 ] || { echo "usage: $0 <kernel-cache> <out-dir> <uapi-dir>" >&2; exit 2; }
cache=$1 out=$2 uapi=$3
here=$(cd "$(dirname "$0")" && pwd -P)

# The kernel first (a no-op once the cache is complete): the headers
# must be of the very version the guest boots.
rc=0
bash "$here/../vm-prepare.sh" "$cache" || rc=$?
[ "$rc" = 0 ] || exit "$rc"
cache=$(cd "$cache" && pwd -P)
KVER=
# shellcheck disable=SC1091
. "$cache/vm.env"
[ -n "$KVER" ] || die "$cache/vm.env names no kernel"

hdr=$(bash "$here/prepare-headers.sh" "$cache" "$KVER")

command -v make >/dev/null || skip "'make' not found (install 'make')"
command -v gcc >/dev/null || skip "'gcc' not found (install 'gcc')"

rm -rf "$out"
mkdir -p "$out"
cp "$here"/Kbuild "$here"/*.c "$here"/*.h "$out"/
# Module BTF needs pahole (dwarves); a module without it loads all the
# same, only BPF cannot see its types.
nobtf=
command -v pahole >/dev/null || nobtf=CONFIG_DEBUG_INFO_BTF_MODULES=
# The kernel's own flags, not the project's; quiet unless it fails.
if ! make -s -C "$hdr" M="$out" REFACCEL_UAPI="$(cd "$uapi" && pwd -P)" \
	$nobtf modules >"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	die "module build failed"
fi
# Warnings are errors here too.
if grep -E 'warning:' "$out/build.log" >&2; then
	die "module build gave warnings"
fi
[ -s "$out/refaccel.ko" ] || die "no refaccel.ko"
echo "$prog: built $out/refaccel.ko for $KVER" >&2
