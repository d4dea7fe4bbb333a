#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libaccel against PoCL on the same OpenCL host programs, in one run:
#
#   bench/perf-compare.sh [REPS]      (default 5)
#
# Each repetition runs bench/ocl-host, bench/blur-host, bench/replay-host,
# bench/framework-kernels, bench/blas-host (CLBlast, with libclblast-dev
# and libopenblas-dev), bench/fft-host (clFFT, with libclfft-dev) and
# bench/opencv-host (OpenCV, with libopencv-{core,imgproc,dnn}-dev) once
# per platform, each in a fresh
# process (only that platform's .icd visible; the order alternates between
# repetitions) and bench/compiler-kernels once (both platforms in one
# process, libaccel-PoCL-PoCL-libaccel). Every result is checked against a
# host reference by the programs themselves; a wrong one stops the run.
# The table gives medians over the repetitions, the ratio libaccel/PoCL of
# the medians, the target of the performance issue and in how many
# repetitions the target held (each repetition's own ratio).
#
# BUILD_DIR  build directory (default: build-bench, configured Release)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build-bench}
reps=${1:-5}

if [ ! -f /etc/OpenCL/vendors/pocl.icd ]; then
	echo "perf-compare: PoCL is not installed (apt-get install pocl-opencl-icd)" >&2
	exit 77
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DACCEL_BUILD_TESTS=OFF -DACCEL_BUILD_BENCH=ON
fi
cmake --build "$build" -j"$(nproc)" --target ocl-host blur-host replay-host \
	framework-kernels compiler-kernels
# the CLBlast rows where the packages are (bench/CMakeLists.txt)
blas=
if pkg-config --exists clblast openblas; then
	cmake --build "$build" -j"$(nproc)" --target blas-host
	blas=1
else
	echo "perf-compare: no CLBlast rows (apt-get install libclblast-dev libopenblas-dev)" >&2
fi
fft=
if pkg-config --exists clFFT; then
	cmake --build "$build" -j"$(nproc)" --target fft-host
	fft=1
else
	echo "perf-compare: no clFFT rows (apt-get install libclfft-dev)" >&2
fi
opencv=
if [ -f /usr/include/opencv4/opencv2/dnn.hpp ]; then
	cmake --build "$build" -j"$(nproc)" --target opencv-host
	opencv=1
else
	echo "perf-compare: no OpenCV rows (apt-get install libopencv-core-dev libopencv-imgproc-dev libopencv-dnn-dev)" >&2
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
b=$build/bench

echo "perf-compare: $reps repetitions; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ "$i" -le "$reps" ]; do
	if [ $((i % 2)) -eq 1 ]; then order="libaccel pocl"; else order="pocl libaccel"; fi
	for p in $order; do
		OCL_ICD_VENDORS=$b/vendors-$p "$b/ocl-host" >"$out/host-$p-$i" ||
			{ cat "$out/host-$p-$i"; exit 1; }
		for prog in blur-host replay-host framework-kernels; do
			OCL_ICD_VENDORS=$b/vendors-$p "$b/$prog" \
				>>"$out/host-$p-$i" ||
				{ cat "$out/host-$p-$i"; exit 1; }
		done
		if [ -n "$blas" ]; then
			OCL_ICD_VENDORS=$b/vendors-$p "$b/blas-host" \
				>>"$out/host-$p-$i" ||
				{ cat "$out/host-$p-$i"; exit 1; }
		fi
		if [ -n "$fft" ]; then
			OCL_ICD_VENDORS=$b/vendors-$p "$b/fft-host" \
				>>"$out/host-$p-$i" ||
				{ cat "$out/host-$p-$i"; exit 1; }
		fi
		# -p: OpenCV must have taken this platform's device
		if [ -n "$opencv" ]; then
			if [ "$p" = pocl ]; then plat="Portable Computing Language"; else plat=libaccel; fi
			OCL_ICD_VENDORS=$b/vendors-$p "$b/opencv-host" -p "$plat" \
				>>"$out/host-$p-$i" ||
				{ cat "$out/host-$p-$i"; exit 1; }
		fi
	done
	OCL_ICD_VENDORS=$b/vendors "$b/compiler-kernels" -r 3 -m 1024 \
		>"$out/kernels-$i" || { cat "$out/kernels-$i"; exit 1; }
	echo "  repetition $i done, load $(cut -d' ' -f1-3 /proc/loadavg)"
	i=$((i + 1))
done

python3 - "$out" "$reps" <<'EOF'
import statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])

def host(p, i):
    r = {}
    for line in open(f"{out}/host-{p}-{i}"):
        f = line.split()
        if f and f[0] == "result":
            r[f[1]] = float(f[2])
    return r

def kernels(i):
    r = {}
    for line in open(f"{out}/kernels-{i}"):
        f = line.split()
        if f and f[0] == "result":
            # "k-": the kernels program's names (its vadd is in ms) stay
            # apart from ocl-host's (whose vadd is in GB/s)
            r["k-" + f[1]] = (float(f[2]), float(f[3]))
    return r

runs = []
for i in range(1, reps + 1):
    a, p, k = host("libaccel", i), host("pocl", i), kernels(i)
    row = {n: (a[n], p[n]) for n in a if n in p}
    row.update(k)
    runs.append(row)

# name, label, unit, lower is better, check(ours, pocl, row) -> bool, target
targets = [
    ("empty-latency", "empty kernel enqueue+finish", "us", True,
     lambda o, q, r: o <= 0.4 * q, "<= 0.4x"),
    ("empty-back-to-back", "back-to-back empty launches", "us", True,
     lambda o, q, r: o <= 0.5 * q, "<= 0.5x"),
    ("vadd", "vector add 16M floats", "GB/s", False,
     lambda o, q, r: o >= q and o >= 0.8 * r["triad"][0],
     ">= 1x, >= 0.8x triad"),
    ("triad", "STREAM triad (host, for scale)", "GB/s", False, None, ""),
    ("k-sgemm_naive", "SGEMM naive N=1024", "ms", True,
     lambda o, q, r: o <= 0.5 * q, "2x faster"),
    ("k-sgemm_tiled", "SGEMM tiled 16x16 N=1024", "ms", True,
     lambda o, q, r: o <= 0.5 * q, "2x faster"),
    ("k-reduce", "work-group reduction", "ms", True,
     lambda o, q, r: o <= 0.5 * q, "2x faster"),
    ("k-sins", "sin()-heavy element-wise", "ms", True,
     lambda o, q, r: o <= 0.1 * q, "10x faster"),
    ("k-vadd", "vector add 16M floats (kernel)", "ms", True, None, ""),
    ("k-vadd_guard", "  ... int-guarded, size rounded up", "ms", True, None, ""),
    ("k-vadd_prime", "  ... 1000003 floats, NULL local", "ms", True, None,
     ""),
    ("k-saxpy", "saxpy 16M floats", "ms", True, None, ""),
    ("k-saxpy4", "  ... as float4 (4M work-items)", "ms", True,
     lambda o, q, r: o <= 1.1 * r["k-saxpy"][0], "<= 1.1x saxpy's"),
    ("k-build-cold", "clBuildProgram, new source", "ms", True,
     lambda o, q, r: o <= q, "<= 1.0x"),
    ("k-build-small", "small kernel: build+1st launch", "ms", True,
     lambda o, q, r: o <= q, "<= 1.0x"),
    ("k-build-warm", "clBuildProgram, cache hit", "ms", True,
     lambda o, q, r: o <= 2.0, "<= 2 ms"),
    ("first-platform-ids", "first clGetPlatformIDs", "ms", True,
     lambda o, q, r: o <= 0.25 * q, "<= 0.25x"),
    ("blur-image", "5x5 blur 2048^2 RGBA8, images", "ms", True,
     lambda o, q, r: o <= q, "<= 1.0x"),
    ("blur-buffer", "  ... through buffers", "ms", True, None, ""),
    ("enqueue-1000", "1,000 small launches enqueued", "ms", True, None, ""),
    ("replay-1000", "  ... as a command buffer replay", "ms", True,
     lambda o, q, r: o < r["enqueue-1000"][0] and o <= q,
     "< enqueued, <= 1.0x"),
    ("map-64m", "map+unmap 64 MiB", "us", True,
     lambda o, q, r: o * 10 <= r["memcpy-64m"][0], "zero-copy"),
    ("blas-first-sgemm", "CLBlast first SGEMM (its build)", "ms", True,
     None, ""),
    ("sgemm-1024", "CLBlast SGEMM N=1024", "GF/s", False, None, ""),
    ("sgemm-2048", "CLBlast SGEMM N=2048", "GF/s", False,
     lambda o, q, r: o >= 3 * q and o >= 0.4 * r["fma-peak"][0],
     ">= 3x, >= 0.4x FMA peak"),
    ("dgemm-1024", "CLBlast DGEMM N=1024", "GF/s", False, None, ""),
    ("dgemm-2048", "CLBlast DGEMM N=2048", "GF/s", False,
     lambda o, q, r: o >= 3 * q, ">= 3x"),
    ("sgemv-4096", "CLBlast SGEMV N=4096", "GB/s", False, None, ""),
    ("saxpy-16m", "CLBlast SAXPY 16M", "GB/s", False, None, ""),
    ("fw-matmul-1024", "matmul 4x4 per work-item, N=1024", "GF/s", False,
     lambda o, q, r: o >= 3 * q and o >= 0.25 * r["fma-peak"][0],
     ">= 3x, >= 0.25x FMA peak"),
    ("fw-matmul-1024-peak", "  ... as a fraction of FMA peak", "x", False,
     None, ""),
    ("fw-matmul-2048", "  ... N=2048", "GF/s", False,
     lambda o, q, r: o >= 3 * q and o >= 0.25 * r["fma-peak"][0],
     ">= 3x, >= 0.25x FMA peak"),
    ("fw-conv", "direct conv 3x3 NCHW 8x64x56^2", "GF/s", False,
     lambda o, q, r: o >= 2 * q, "2x faster"),
    ("fw-softmax", "softmax 4096 rows x 1024", "ms", True,
     lambda o, q, r: o <= 0.5 * q, "2x faster"),
    ("fw-layernorm", "layernorm 4096 rows x 1024", "ms", True,
     lambda o, q, r: o <= 0.5 * q, "2x faster"),
    ("fw-attention", "attention 8 heads, 512 x 64", "ms", True,
     lambda o, q, r: o <= 0.5 * q, "2x faster"),
    ("fw-eltwise", "bias+gelu+residual, NCHW bcast", "GB/s", False, None,
     ""),
    ("openblas-sgemm-2048", "OpenBLAS SGEMM N=2048 (host)", "GF/s", False,
     None, ""),
    ("fma-peak", "FMA peak, all CPUs (host)", "GF/s", False, None, ""),
    ("fft-bake", "clFFT first plan bake", "ms", True, None, ""),
    ("fft-1d-4096x1024-f", "clFFT 1D 4096 x1024 float", "GF/s", False,
     lambda o, q, r: o >= 1.5 * q, ">= 1.5x"),
    ("fft-1d-1m-f", "clFFT 1D 2^20 float", "GF/s", False,
     lambda o, q, r: o >= 1.5 * q, ">= 1.5x"),
    ("fft-2d-2048-f", "clFFT 2D 2048^2 float", "GF/s", False,
     lambda o, q, r: o >= 1.5 * q, ">= 1.5x"),
    ("fft-1d-4096x1024-d", "clFFT 1D 4096 x1024 double", "GF/s", False,
     lambda o, q, r: o >= 1.5 * q, ">= 1.5x"),
    ("fft-1d-1m-d", "clFFT 1D 2^20 double", "GF/s", False,
     lambda o, q, r: o >= 1.5 * q, ">= 1.5x"),
    ("fft-2d-2048-d", "clFFT 2D 2048^2 double", "GF/s", False,
     lambda o, q, r: o >= 1.5 * q, ">= 1.5x"),
    ("cv-gauss5", "OpenCV GaussianBlur 5x5 4K RGBA8", "ms", True,
     lambda o, q, r: o * 1.5 <= q, "1.5x faster"),
    ("cv-gauss11", "  ... 11x11", "ms", True,
     lambda o, q, r: o * 1.5 <= q, "1.5x faster"),
    ("cv-resize-down", "OpenCV resize 4K -> 1080p linear", "ms", True,
     lambda o, q, r: o * 1.5 <= q, "1.5x faster"),
    ("cv-resize-up", "  ... 1080p -> 4K", "ms", True,
     lambda o, q, r: o * 1.5 <= q, "1.5x faster"),
    ("cv-dnn-conv", "OpenCV dnn conv 3x3 64ch 56^2", "ms", True,
     lambda o, q, r: o * 1.5 <= q, "1.5x faster"),
]

print()
print(f"{'benchmark':32} {'unit':5} {'libaccel':>10} {'pocl':>10} "
      f"{'ratio':>7}  {'target':22} held")
failed = 0
for name, label, unit, lower, check, target in targets:
    if any(name not in r for r in runs):
        print(f"{label:32} (missing)")
        continue
    o = statistics.median(r[name][0] for r in runs)
    q = statistics.median(r[name][1] for r in runs)
    held = ""
    if check:
        n = sum(1 for r in runs if check(r[name][0], r[name][1], r))
        held = f"{n}/{len(runs)}"
        if n * 5 < 3 * len(runs):
            held += "  MISSED"
            failed += 1
    print(f"{label:32} {unit:5} {o:10.3f} {q:10.3f} {o / q:7.2f}  "
          f"{target:22} {held}")
print()
print("ratio: libaccel / PoCL of the medians (times: below 1 is faster; "
      "GB/s and GF/s: above 1 is faster)")
print(f"targets missed (held in fewer than 3 of 5 repetitions): {failed}")
EOF
echo "perf-compare: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
