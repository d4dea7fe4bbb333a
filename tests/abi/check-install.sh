#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Installs the build tree as a user or a package build would, and uses what
# was installed:
#
# 1. `cmake --install BUILD --prefix P`, P given only now (the build keeps
#    its configured prefix): nothing is installed outside P; the .pc files,
#    the CMake package and libaccel.icd name P, never the configured
#    prefix; a program built with `pkg-config libaccel` and one built by a
#    CMake project with find_package(libaccel CONFIG) run from P, list the
#    devices, find the CPU device and build a kernel with P's compiler;
#    libaccel.icd names the ICD's SONAME file in P, through which clinfo
#    lists the platform; P/bin/accelc compiles a kernel, with
#    P's accelc-codegen and no LD_LIBRARY_PATH.
# 2. DESTDIR=D `cmake --install BUILD`: the configured prefix under D, and
#    the pkg-config program built against it (PKG_CONFIG_SYSROOT_DIR).
# 3. DESTDIR=D `cmake --install BUILD --prefix /usr`: Debian's layout, the
#    vendor file in D/etc/OpenCL/vendors naming /usr/LIBDIR/libaccel-icd.so.N.
#
# Each checks the files: soname links, no internal headers, no development
# link of the ICD. Steps 1 and 3 need the install directories relative to
# the prefix (GNUInstallDirs' defaults); absolute ones are in no prefix.
#
# Usage: check-install.sh BUILD PREFIX LIBDIR INCLUDEDIR BINDIR SYSCONFDIR
#                         LIBEXECDIR VERSION CC CMAKE [icd] [compiler] [rdma]
# PREFIX and the directories as configured; the last words name the parts
# the build has. Exits 77 without pkg-config.
set -euo pipefail

if [ $# -lt 10 ]; then
	echo "usage: $0 BUILD PREFIX LIBDIR INCLUDEDIR BINDIR SYSCONFDIR" \
		"LIBEXECDIR VERSION CC CMAKE [icd] [compiler] [rdma]" >&2
	exit 2
fi
build=$1 cfg_prefix=$2 libdir=$3 includedir=$4 bindir=$5 sysconfdir=$6
libexecdir=$7 version=$8 cc=$9 cmake=${10}
shift 10
major=${version%%.*}
has_icd=0 has_compiler=0 has_rdma=0
for part in "$@"; do
	case $part in
	icd) has_icd=1 ;;
	compiler) has_compiler=1 ;;
	rdma) has_rdma=1 ;;
	*) echo "$0: unknown part $part" >&2; exit 2 ;;
	esac
done

command -v pkg-config >/dev/null || {
	echo "SKIP: pkg-config is not installed"
	exit 77
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/accel-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tmp=$(cd "$tmp" && pwd -P)
# The kernels built below must be built, not taken from a cache.
export ACCEL_CACHE=0
unset LD_LIBRARY_PATH DESTDIR

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Where a directory lands for a prefix, as GNUInstallDirs and the install
# step have it: SYSCONFDIR is /etc for / and /usr, /etc/opt/X for /opt/X.
full_dir() { # PREFIX DIR [sysconf]
	local p=${1%/} d=$2
	case $d in /*) echo "$d"; return ;; esac
	if [ "${3:-}" = sysconf ]; then
		case $1 in
		/ | /usr | /usr/) echo "/$d"; return ;;
		/opt/homebrew/*) ;;
		/opt/*) echo "/$d$p"; return ;;
		esac
	fi
	echo "$p/$d"
}

relocatable=1
for d in "$libdir" "$includedir" "$bindir" "$sysconfdir" "$libexecdir"; do
	case $d in /*) relocatable=0 ;; esac
done

# install LOG [DESTDIR] [--prefix P]: install_manifest.txt, which the
# install writes into the build tree, lists the files without DESTDIR.
install_tree() {
	local log=$1 dest=$2
	shift 2
	if [ -n "$dest" ]; then
		DESTDIR=$dest "$cmake" --install "$build" "$@" >"$log" 2>&1
	else
		"$cmake" --install "$build" "$@" >"$log" 2>&1
	fi || { cat "$log"; fail "cmake --install $*"; }
	cp "$build/install_manifest.txt" "$log.manifest"
}

# Every installed file is under one of the given directories.
check_manifest() { # MANIFEST DIR...
	local manifest=$1 f d ok
	shift
	while IFS= read -r f; do
		ok=0
		for d in "$@"; do
			[[ $f == "${d%/}/"* ]] && ok=1
		done
		[ $ok = 1 ] || fail "$f installed outside ${*}"
	done <"$manifest"
}

# check_files ROOT PREFIX: the files of an install for PREFIX under ROOT
# (ROOT the DESTDIR, or empty).
check_files() {
	local root=$1 prefix=$2 lib inc libexec
	lib=$root$(full_dir "$prefix" "$libdir")
	inc=$root$(full_dir "$prefix" "$includedir")/libaccel
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
	[ -f "$lib/pkgconfig/libaccel.pc" ] || fail "no libaccel.pc"
	for f in libaccelConfig.cmake libaccelConfigVersion.cmake \
		libaccelTargets.cmake; do
		[ -f "$lib/cmake/libaccel/$f" ] || fail "no $f"
	done
	if [ $has_icd = 1 ]; then
		[ -f "$lib/libaccel-icd.so.$version" ] ||
			fail "no libaccel-icd.so.$version"
		[ "$(readlink "$lib/libaccel-icd.so.$major")" = \
			"libaccel-icd.so.$version" ] ||
			fail "libaccel-icd.so.$major does not point to .$version"
		[ ! -e "$lib/libaccel-icd.so" ] ||
			fail "the ICD has a development link"
	fi
	if [ $has_compiler = 1 ]; then
		[ -f "$lib/libaccel-0/accel-compiler.so" ] ||
			fail "no compiler module"
		libexec=$root$(full_dir "$prefix" "$libexecdir")
		[ -x "$libexec/libaccel-0/accelc-codegen" ] ||
			fail "no accelc-codegen"
		[ -x "$root$(full_dir "$prefix" "$bindir")/accelc" ] ||
			fail "no accelc"
	fi
	if [ $has_rdma = 1 ]; then
		[ -f "$lib/pkgconfig/libaccel-rdma.pc" ] ||
			fail "no libaccel-rdma.pc"
	fi
}

# The vendor file of an install for PREFIX under ROOT names the ICD's
# SONAME file in PREFIX, and that file is there.
check_icd() { # ROOT PREFIX
	local root=$1 prefix=$2 vendors want have
	vendors=$root$(full_dir "$prefix" "$sysconfdir" sysconf)/OpenCL/vendors
	want=$(full_dir "$prefix" "$libdir")/libaccel-icd.so.$major
	[ -f "$vendors/libaccel.icd" ] || fail "no $vendors/libaccel.icd"
	have=$(cat "$vendors/libaccel.icd")
	[ "$have" = "$want" ] ||
		fail "libaccel.icd names '$have', not '$want'"
	[ -e "$root$have" ] || fail "libaccel.icd names a missing file"
}

cat >"$tmp/user.c" <<'EOF'
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libaccel/libaccel.h>

#if !ACCEL_CHECK_VERSION(0, 1, 0)
#error "accel-version.h is wrong"
#endif

/* "compile": build a kernel on the CPU device and print its log too */
int main(int argc, char **argv)
{
	static const char src[] =
		"kernel void k(global int *p) { p[get_global_id(0)] = 1; }";
	struct accel_device *devs[32], *cpu = NULL;
	struct accel_context *ctx = NULL;
	struct accel_program *prog = NULL;
	char *log = NULL;
	int n, r, i;

	r = accel_context_new(0, &ctx);
	if (r < 0) {
		fprintf(stderr, "accel_context_new: %d\n", r);
		return 1;
	}
	n = accel_context_get_devices(ctx, devs, 32);
	if (n < 0) {
		fprintf(stderr, "accel_context_get_devices: %d\n", n);
		return 1;
	}
	for (i = 0; i < n && i < 32; i++) {
		const char *name = "?";
		uint64_t type = 0;

		accel_device_query_string(devs[i], ACCEL_DEVICE_STRING_NAME,
					  &name);
		accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE, &type);
		printf("device %d: %s (type %" PRIu64 ")\n", i, name, type);
		if (type == ACCEL_DEVICE_TYPE_CPU && !cpu)
			cpu = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!cpu) {
		fprintf(stderr, "no CPU reference device\n");
		return 1;
	}
	printf("CPU reference device found\n");
	if (argc > 1 && !strcmp(argv[1], "compile")) {
		r = accel_program_new_source(cpu, src, 0, NULL, &log, &prog);
		printf("build: %d, log:\n%s\n", r, log ? log : "");
		free(log);
		if (r < 0)
			return 1;
		accel_program_unref(prog);
	}
	accel_device_unref(cpu);
	ctx = accel_context_unref(ctx);
	printf("linked against libaccel %s\n", ACCEL_VERSION_STRING);
	return ctx == NULL ? 0 : 1;
}
EOF
user_args=()
[ $has_compiler = 1 ] && user_args=(compile)

# Where the compiler looked before the install-time prefix: if it is there,
# finding the prefix's accelc-codegen is not shown by the build's log.
cfg_codegen=$(full_dir "$cfg_prefix" "$libexecdir")/libaccel-0/accelc-codegen
check_codegen_log() { # LOG WHAT
	[ $has_compiler = 1 ] || return 0
	if grep -q "not found: code generation runs in this process" "$1"; then
		cat "$1" >&2
		fail "$2 did not find the installed accelc-codegen"
	fi
	if [ -x "$cfg_codegen" ]; then
		echo "note: $cfg_codegen exists: $2 may have run it"
	fi
}

# run_user PROGRAM LIBDIR WHAT: runs, finds the CPU device, resolves the
# installed libaccel (by its RUNPATH, no LD_LIBRARY_PATH).
run_user() {
	local prog=$1 lib=$2 what=$3 resolved
	resolved=$(ldd "$prog")
	grep -qF "$lib/libaccel.so.$major" <<<"$resolved" || {
		echo "$resolved" >&2
		fail "$what does not resolve the installed libaccel"
	}
	"$prog" "${user_args[@]}" >"$prog.out" 2>&1 ||
		{ cat "$prog.out"; fail "running $what"; }
	grep -q "^CPU reference device found" "$prog.out" ||
		{ cat "$prog.out"; fail "$what: no CPU device"; }
	check_codegen_log "$prog.out" "$what"
}

# build_pc_user NAME LIBDIR: compiles user.c with pkg-config's flags (the
# environment says where the .pc files are).
build_pc_user() {
	local out=$tmp/$1 lib=$2 static_libs have
	have=$(pkg-config --modversion libaccel) || fail "pkg-config libaccel"
	[ "$have" = "$version" ] ||
		fail "pkg-config version $have, want $version"
	# (No `| grep -q` under pipefail: grep exiting early fails the pipe.)
	static_libs=$(pkg-config --static --libs libaccel)
	[[ " $static_libs " == *" -pthread "* ]] ||
		fail "Libs.private lacks -pthread: $static_libs"
	# shellcheck disable=SC2046  # word splitting of pkg-config output
	"$cc" -Wall -Wextra -Werror -o "$out" "$tmp/user.c" \
		$(pkg-config --cflags libaccel) $(pkg-config --libs libaccel) \
		-Wl,-rpath,"$lib" || fail "compiling $1 with pkg-config"
	run_user "$out" "$lib" "$1"
}

system_pc=$(pkg-config --variable pc_path pkg-config)

# ---- 1. cmake --install --prefix P -------------------------------------------

if [ $relocatable = 1 ]; then
	p=$tmp/prefix
	install_tree "$tmp/install-prefix.log" "" --prefix "$p"
	check_manifest "$tmp/install-prefix.log.manifest" "$p"
	check_files "" "$p"
	lib=$(full_dir "$p" "$libdir")

	# Nothing names the configured prefix, once P's own paths are taken
	# out (in case one contains the other), and comments and CMake's
	# blocks for a package loaded through /lib -> /usr/lib, which name
	# the configured location to apply there only.
	named=("$lib/pkgconfig" "$lib/cmake")
	[ $has_icd = 0 ] ||
		named+=("$(full_dir "$p" "$sysconfdir" sysconf)/OpenCL")
	if [ "${cfg_prefix%/}" != "" ]; then
		while IFS= read -r f; do
			if sed -e "s|$p||g" -e '/^[[:space:]]*#/d' \
				-e '/_realOrig/,/endif()/d' "$f" |
				grep -qF "$cfg_prefix"; then
				fail "$f names the configured prefix $cfg_prefix"
			fi
		done < <(find "${named[@]}" -type f)
	fi

	export PKG_CONFIG_PATH=$lib/pkgconfig
	export PKG_CONFIG_LIBDIR=$lib/pkgconfig:$system_pc
	unset PKG_CONFIG_SYSROOT_DIR
	[ "$(pkg-config --variable=prefix libaccel)" = "$p" ] ||
		fail "libaccel.pc: prefix is not $p"
	[ "$(pkg-config --variable=libdir libaccel)" = "$lib" ] ||
		fail "libaccel.pc: libdir is not $lib"
	if [ $has_rdma = 1 ]; then
		[ "$(pkg-config --variable=prefix libaccel-rdma)" = "$p" ] ||
			fail "libaccel-rdma.pc: prefix is not $p"
	fi
	build_pc_user user-pc "$lib"
	echo "OK: pkg-config user of $p"

	# A CMake project, as its README says.
	components=""
	[ $has_rdma = 1 ] && components="COMPONENTS rdma"
	mkdir "$tmp/cmake-user"
	cp "$tmp/user.c" "$tmp/cmake-user/"
	cat >"$tmp/cmake-user/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(accel_user LANGUAGES C)
find_package(libaccel $version CONFIG REQUIRED $components)
add_executable(user user.c)
target_compile_options(user PRIVATE -Wall -Wextra -Werror)
target_link_libraries(user PRIVATE libaccel::libaccel)
get_target_property(loc libaccel::libaccel LOCATION)
message(STATUS "libaccel::libaccel: \${loc}")
if(TARGET libaccel::rdma)
	get_target_property(loc libaccel::rdma LOCATION)
	message(STATUS "libaccel::rdma: \${loc}")
endif()
EOF
	if ! { "$cmake" -S "$tmp/cmake-user" -B "$tmp/cmake-user/build" \
		-DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_PREFIX_PATH="$p" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF &&
		"$cmake" --build "$tmp/cmake-user/build"; } \
		>"$tmp/cmake-user.log" 2>&1; then
		cat "$tmp/cmake-user.log"
		fail "CMake project on $p"
	fi
	grep -qF -- "-- libaccel::libaccel: $lib/libaccel.so.$version" \
		"$tmp/cmake-user.log" ||
		{ cat "$tmp/cmake-user.log"; fail "libaccel::libaccel not in $p"; }
	if [ $has_rdma = 1 ]; then
		grep -qF -- "-- libaccel::rdma: $lib/libaccel-rdma.so.$version" \
			"$tmp/cmake-user.log" ||
			{ cat "$tmp/cmake-user.log"; fail "no libaccel::rdma"; }
	fi
	run_user "$tmp/cmake-user/build/user" "$lib" "CMake user"
	echo "OK: find_package(libaccel) user of $p"

	if [ $has_icd = 1 ]; then
		check_icd "" "$p"
		vendors=$(full_dir "$p" "$sysconfdir" sysconf)/OpenCL/vendors
		if command -v clinfo >/dev/null; then
			OCL_ICD_VENDORS=$vendors clinfo -l >"$tmp/clinfo.out" 2>&1 ||
				{ cat "$tmp/clinfo.out"; fail "clinfo -l"; }
			grep -q "Platform #[0-9]*: libaccel" "$tmp/clinfo.out" ||
				{ cat "$tmp/clinfo.out"; fail "clinfo: no libaccel"; }
			echo "OK: clinfo lists libaccel through $vendors"
		else
			echo "note: clinfo is not installed: the ICD is not loaded"
		fi
	fi

	if [ $has_compiler = 1 ]; then
		accelc=$(full_dir "$p" "$bindir")/accelc
		"$accelc" --help >"$tmp/accelc-help.out" 2>&1 ||
			{ cat "$tmp/accelc-help.out"; fail "accelc --help"; }
		grep -q "^usage: accelc" "$tmp/accelc-help.out" ||
			{ cat "$tmp/accelc-help.out"; fail "accelc --help"; }
		echo 'kernel void k(global int *p) { p[get_global_id(0)] = 1; }' \
			>"$tmp/k.cl"
		"$accelc" --no-cache -l -o "$tmp/k.bin" "$tmp/k.cl" \
			>"$tmp/accelc.out" 2>&1 ||
			{ cat "$tmp/accelc.out"; fail "accelc on a kernel"; }
		grep -q "^kernel k " "$tmp/accelc.out" ||
			{ cat "$tmp/accelc.out"; fail "accelc: kernel k not listed"; }
		check_codegen_log "$tmp/accelc.out" "accelc"
		echo "OK: $accelc compiles a kernel"
	fi
	rm -rf "$p" "$tmp/cmake-user"
else
	echo "note: absolute install directories: the install with --prefix" \
		"is not checked"
fi

# ---- 2. DESTDIR, the configured prefix ---------------------------------------

dest=$tmp/dest
install_tree "$tmp/install-dest.log" "$dest"
check_manifest "$tmp/install-dest.log.manifest" "$cfg_prefix" \
	"$(full_dir "$cfg_prefix" "$sysconfdir" sysconf)"
check_files "$dest" "$cfg_prefix"
[ $has_icd = 0 ] || check_icd "$dest" "$cfg_prefix"
lib=$dest$(full_dir "$cfg_prefix" "$libdir")
# Our .pc files first, paths rebased into the DESTDIR; the system's for
# what ours requires (libudev, libdrm).
export PKG_CONFIG_PATH=$lib/pkgconfig
export PKG_CONFIG_LIBDIR=$lib/pkgconfig:$system_pc
export PKG_CONFIG_SYSROOT_DIR=$dest
build_pc_user user-dest "$lib"
unset PKG_CONFIG_SYSROOT_DIR
echo "OK: DESTDIR install builds and runs a pkg-config user"
rm -rf "$dest"

# ---- 3. DESTDIR, --prefix /usr: Debian's layout ------------------------------

if [ $relocatable = 1 ]; then
	dest=$tmp/usr-dest
	install_tree "$tmp/install-usr.log" "$dest" --prefix /usr
	check_manifest "$tmp/install-usr.log.manifest" /usr \
		"$(full_dir /usr "$sysconfdir" sysconf)"
	check_files "$dest" /usr
	[ $has_icd = 0 ] || check_icd "$dest" /usr
	grep -qx "prefix=/usr" "$dest/usr/$libdir/pkgconfig/libaccel.pc" ||
		fail "libaccel.pc for /usr: prefix is not /usr"
	echo "OK: DESTDIR install with prefix /usr: libraries in /usr/$libdir"
fi
