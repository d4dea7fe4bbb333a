#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Install the build tree into a temporary DESTDIR and build a small program
# against it using only `pkg-config libaccel`, as a user of the package
# would. Also checks what gets installed (no internal headers, soname links).
#
# Usage: check-install.sh BUILD_DIR PREFIX LIBDIR INCLUDEDIR VERSION CC
set -euo pipefail

if [ $# -ne 6 ]; then
	echo "usage: $0 BUILD_DIR PREFIX LIBDIR INCLUDEDIR VERSION CC" >&2
	exit 2
fi
build=$1 prefix=$2 libdir=$3 includedir=$4 version=$5 cc=$6
major=${version%%.*}

case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
case $includedir in /*) ;; *) includedir=$prefix/$includedir ;; esac

dest=$(mktemp -d "${TMPDIR:-/tmp}/accel-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

DESTDIR=$dest cmake --install "$build" >"$dest/install.log" ||
	{ cat "$dest/install.log"; fail "cmake --install"; }

lib=$dest$libdir
inc=$dest$includedir/libaccel

# Installed files.
[ -f "$lib/libaccel.so.$version" ] || fail "no libaccel.so.$version"
[ "$(readlink "$lib/libaccel.so.$major")" = "libaccel.so.$version" ] ||
	fail "libaccel.so.$major does not point to libaccel.so.$version"
[ "$(readlink "$lib/libaccel.so")" = "libaccel.so.$major" ] ||
	fail "libaccel.so does not point to libaccel.so.$major"
for h in libaccel.h accel-version.h; do
	[ -f "$inc/$h" ] || fail "header $h not installed"
done
for h in accel-private.h backend.h macros.h; do
	[ ! -e "$inc/$h" ] || fail "internal header $h installed"
done

# Our .pc file first, paths rebased into the DESTDIR; the system's for
# what ours requires (libudev, libdrm).
system_pc=$(pkg-config --variable pc_path pkg-config)
export PKG_CONFIG_PATH=$lib/pkgconfig
export PKG_CONFIG_LIBDIR=$lib/pkgconfig:$system_pc
export PKG_CONFIG_SYSROOT_DIR=$dest

have=$(pkg-config --modversion libaccel) || fail "pkg-config libaccel"
[ "$have" = "$version" ] || fail "pkg-config version $have, want $version"
# (No `| grep -q` under pipefail: grep exiting early fails the pipe.)
static_libs=$(pkg-config --static --libs libaccel)
[[ " $static_libs " == *" -pthread "* ]] ||
	fail "Libs.private lacks -pthread: $static_libs"

cat >"$dest/user.c" <<'EOF'
#include <stdio.h>
#include <libaccel/libaccel.h>

#if !ACCEL_CHECK_VERSION(0, 1, 0)
#error "accel-version.h is wrong"
#endif

int main(void)
{
	struct accel_context *ctx = NULL;
	int r = accel_context_new(0, &ctx);

	if (r < 0) {
		fprintf(stderr, "accel_context_new: %d\n", r);
		return 1;
	}
	ctx = accel_context_unref(ctx);
	printf("linked against libaccel %s\n", ACCEL_VERSION_STRING);
	return ctx == NULL ? 0 : 1;
}
EOF

# shellcheck disable=SC2046  # word splitting of pkg-config output wanted
"$cc" -Wall -Wextra -Werror -o "$dest/user" "$dest/user.c" \
	$(pkg-config --cflags libaccel) $(pkg-config --libs libaccel) ||
	fail "compiling against the installed tree"

# The program must resolve the installed library, not the build tree's.
resolved=$(LD_LIBRARY_PATH=$lib ldd "$dest/user")
grep -qF "$lib/libaccel.so.$major" <<<"$resolved" || {
	echo "$resolved" >&2
	fail "user program does not resolve the installed libaccel"
}
LD_LIBRARY_PATH=$lib "$dest/user" || fail "running the user program"
echo "OK: installed tree builds and runs a pkg-config user"
