# SPDX-License-Identifier: MIT
#
# Cross-building libaccel for arm64 (aarch64-linux-gnu) on a Debian x86-64
# host: Debian's cross gcc (crossbuild-essential-arm64) against a sysroot of
# unpacked arm64 Debian packages (tools/arm64-tier.sh makes one with
# mmdebstrap --variant=extract).
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=tools/arm64-toolchain.cmake \
#         -DACCEL_ARM64_SYSROOT=/path/to/sysroot
#
# The sysroot may also come from the environment (ACCEL_ARM64_SYSROOT).

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

if(NOT ACCEL_ARM64_SYSROOT AND DEFINED ENV{ACCEL_ARM64_SYSROOT})
	set(ACCEL_ARM64_SYSROOT "$ENV{ACCEL_ARM64_SYSROOT}")
endif()
if(NOT ACCEL_ARM64_SYSROOT OR NOT EXISTS "${ACCEL_ARM64_SYSROOT}/usr/include")
	message(FATAL_ERROR "arm64-toolchain: ACCEL_ARM64_SYSROOT "
		"('${ACCEL_ARM64_SYSROOT}') is not an arm64 sysroot")
endif()
# try_compile() projects see the toolchain file again, not the cache.
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ACCEL_ARM64_SYSROOT)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_SYSROOT "${ACCEL_ARM64_SYSROOT}")
# Debian's libraries live in the multiarch folder; gcc finds them there by
# itself, but a library's own dependencies (libLLVM's, libOpenCL's) are
# found through -rpath-link only.
set(_accel_ml "${ACCEL_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu")
foreach(kind EXE SHARED MODULE)
	set(CMAKE_${kind}_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_accel_ml}")
endforeach()
unset(_accel_ml)

# Programs (clang-16 for the builtins, python3, bash) are the host's;
# libraries, headers and CMake packages the sysroot's.
set(CMAKE_FIND_ROOT_PATH "${ACCEL_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the sysroot's .pc files and prefixes their paths.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${ACCEL_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
	"${ACCEL_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${ACCEL_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
