#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Build libaccel (optimised, no tests) if needed and run the benchmarks.
#
#   bench/run.sh [BENCH ARGS...]
#
# BUILD_DIR   build directory (default: build-bench in the source tree)
# BENCHES     benchmarks to run (default: launch-latency)
# Arguments are passed to every benchmark, e.g. bench/run.sh -n 5000.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build-bench}
benches=${BENCHES:-launch-latency}
# compiler-kernels (libaccel against PoCL) sees both OpenCL platforms
# through the build tree's bench/vendors/: libaccel.icd and pocl.icd
export OCL_ICD_VENDORS="${OCL_ICD_VENDORS:-$build/bench/vendors}"

if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DACCEL_BUILD_TESTS=OFF -DACCEL_BUILD_BENCH=ON
fi
# Always run the build: it is a no-op when nothing changed.
cmake --build "$build" -j"$(nproc)" --target $benches

for b in $benches; do
	echo "=== $b"
	"$build/bench/$b" "$@"
done
