#!/bin/bash
# SPDX-License-Identifier: MIT
#
# arm64-tier.sh [build-dir]
#
# The arm64 test tier on an x86-64 machine (README.md here): makes the
# arm64 sysroot (make-sysroot.sh), cross-builds the tree into build-dir
# (default build-arm64/) with tools/arm64-toolchain.cmake, then boots
# Debian's arm64 6.12 kernel under qemu-system-aarch64 once
# (tests/kernel/vm-run.sh --arch arm64) and runs there, in that one boot:
# accel-info (the CPU device must name its NEON/SVE tier) and ctest over
# the default set of tests (below) or, with ACCEL_ARM64_TESTS=all, every
# test but the host-only labels. refaccel.ko, the kernel tier's reference
# driver, is cross-built for the guest's kernel before the boot (a DRM
# render node there: the arm64 kernel has no accel subsystem), and the
# guest gets QEMU's edu PCI device behind the virt machine's SMMUv3 for
# its edu personality. Its last line is the summary tools/run-tests.sh
# prints:
#   arm64: <passed>/<total> tests passed ...; accel-info: <tier>;
#          sysroot Ns, build Ns (refaccel.ko Ns), guest Ns
#
# Environment: ACCEL_ARM64_COMPILER=ON|OFF overrides whether the OpenCL C
# compiler is cross-built (default: ON where compiler-stub/ has an AArch64
# target); ACCEL_ARM64_TIMEOUT (seconds of the whole guest run, default
# 1500: the default set took 422 s idle on one machine, more than 880 s
# on another whose TCG runs at half the speed); ACCEL_ARM64_WERROR=OFF
# builds with warnings not made errors (as the sanitizer tiers do;
# default ON: an arm64-only warning fails here);
# ACCEL_ARM64_TESTS=ci|all (default ci); ACCEL_ARM64_TIMEOUT_SCALE
# (factor on every test's TIMEOUT, default 4); ACCEL_ARM64_JOBS (build
# jobs, default 2).
# Exit codes: 0 passed, 77 cannot run here (reason printed), 1 failed.

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
build=${1:-$root/build-arm64}
prog=arm64-tier
jobs=${ACCEL_ARM64_JOBS:-2}
timeout=${ACCEL_ARM64_TIMEOUT:-1500}

summary() { echo "arm64: $*"; }
skip() {
	echo "$prog: SKIP: $*" >&2
	summary "$*"
	exit 77
}
fail() {
	echo "$prog: $*" >&2
	summary "$*"
	exit 1
}

# Labels of tests that check the host's build, not code that runs: the
# exported symbols and headers (host tools), Debian packaging, benchmarks,
# the Python package (not cross-built) and the fuzzers (clang's
# libFuzzer).
HOST_ONLY='^(abi|packaging|bench|python|fuzz)$'

command -v aarch64-linux-gnu-gcc >/dev/null ||
	skip "aarch64-linux-gnu-gcc not found (crossbuild-essential-arm64)"
command -v qemu-system-aarch64 >/dev/null ||
	skip "qemu-system-aarch64 not found (qemu-system-arm)"

mkdir -p "$build" || fail "cannot create $build"
build=$(cd "$build" && pwd -P)
sysroot=$build/sysroot

# ---- 1. the sysroot (cached) -------------------------------------------------

t=$SECONDS
bash "$root/tests/arm64/make-sysroot.sh" "$sysroot"
rc=$?
[ $rc = 77 ] && skip "no arm64 sysroot (see above)"
[ $rc = 0 ] || fail "the arm64 sysroot could not be made"
t_sysroot=$((SECONDS - t))

# ---- 2. the cross-build -----------------------------------------------------

# The compiler corpus needs the compiler's AArch64 code generation.
compiler=${ACCEL_ARM64_COMPILER:-}
if [ -z "$compiler" ]; then
	if grep -q aarch64 "$root/compiler-stub/CMakeLists.txt"; then
		compiler=ON
	else
		compiler=OFF
		echo "$prog: compiler-stub/ has no AArch64 target: the compiler" \
			"and its corpus are not built" >&2
	fi
fi

# refaccel's edu personality wants QEMU's edu PCI device. Its DMA engine
# reaches 28 bits of bus address and the virt machine's memory starts at
# 1 GiB: only IOVAs from an IOMMU (the SMMUv3) are in its reach.
guest_devices=() guest_dev_names=
if qemu-system-aarch64 -machine virt -device help 2>/dev/null |
   grep -q '^name "edu"'; then
	guest_devices=(--iommu --device edu)
	guest_dev_names=edu
else
	echo "$prog: qemu-system-aarch64 has no edu device: refaccel's edu" \
		"tests are not run" >&2
fi

t=$SECONDS
# Only what the guest runs: no benchmarks; -O2 without -g (a quarter
# less compile time; the x86-64 tiers keep the debug builds). Test
# commands name the guest's own python3 (the sysroot's), not a host
# interpreter elsewhere.
if ! nice cmake -S "$root" -B "$build" \
	-DCMAKE_TOOLCHAIN_FILE="$root/tools/arm64-toolchain.cmake" \
	-DACCEL_ARM64_SYSROOT="$sysroot" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2" \
	-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2" \
	-DACCEL_BUILD_BENCH=OFF \
	-DACCEL_WERROR="${ACCEL_ARM64_WERROR:-ON}" \
	-DACCEL_BUILD_COMPILER="$compiler" \
	-DPython3_EXECUTABLE=/usr/bin/python3 \
	-DACCEL_KERNEL_CACHE="$build/kernel-cache" \
	-DACCEL_KERNEL_GUEST_DEVICES="$guest_dev_names" \
	-DACCEL_KERNEL_GUEST_IOMMU="$([ -n "$guest_dev_names" ] && echo ON || echo OFF)" \
	>"$build/configure.log" 2>&1; then
	tail -n 20 "$build/configure.log" >&2
	fail "cross-configure failed (log: $build/configure.log)"
fi
if ! nice cmake --build "$build" --parallel "$jobs" >"$build/build.log" 2>&1; then
	grep -E 'error|Error' "$build/build.log" | head -n 20 >&2
	fail "cross-build failed ($((SECONDS - t))s; log: $build/build.log)"
fi
t_build=$((SECONDS - t))

# refaccel.ko for the guest's kernel, where tests/kernel/refaccel.cmake
# has the tests load it from (<build>/tests/kernel/refaccel/): on the
# host, against the sysroot's kernel headers. Without it the refaccel
# tests skip, saying so.
t=$SECONDS
bash "$root/tests/kernel/refaccel/build.sh" "$build/kernel-cache" \
	"$build/tests/kernel/refaccel" "$root/libaccel/uapi" \
	--arch arm64 --sysroot "$sysroot"
rc=$?
t_module=$((SECONDS - t))
case $rc in
0) ;;
77) echo "$prog: refaccel.ko cannot be built here (above): its tests skip" >&2 ;;
*) fail "refaccel.ko cross-build failed (${t_module}s)" ;;
esac

# Code runs several times slower under TCG than the timeouts assume:
# every test's TIMEOUT is scaled in the generated test files (ctest 3.25
# has no multiplier of its own).
scale=${ACCEL_ARM64_TIMEOUT_SCALE:-4}
find "$build" -path "$sysroot" -prune -o -name CTestTestfile.cmake -print0 |
	xargs -0 -r perl -pi -e 's/TIMEOUT "(\d+)"/"TIMEOUT \"" . $1 * '"$scale"' . "\""/ge'

# In the guest a kernel test runs its binaries directly; the plain tests
# of the same binaries (which skip on a host without vgem) would only
# run them twice.
twice=$(find "$build" -path "$sysroot" -prune -o -path '*/kernel-batch/*.sh' -print0 |
	xargs -0 -r cat | awk '{ print $1 }' | tr -d "'" |
	xargs -r -n1 basename | sort -u | paste -sd '|')
exclude="^(${twice:+$twice})\$"
# refaccel's long cases, run with ACCEL_ARM64_TESTS=all only: chains on
# edu's DMA engine (100 ms of guest time per command; 50-90 s each), 100
# reloads, and the edu tests' IOMMU variants, which the guest's edu,
# always behind the SMMUv3, makes copies of the plain ones. The default
# set keeps a case of each kind: the software device, edu with jobs on
# the CPU, and edu's DMA engine through the SMMU (kernel-refaccel-cross-
# dma: jobs on it as importer and as exporter of a shared buffer).
slow='kernel-refaccel-(edu-dma|edu-iommu|edu-dma-iommu|reload|cross)'
ci_exclude="^(${twice:+$twice|}$slow)\$"

# ---- 3. one boot of the arm64 guest -----------------------------------------

# What runs. Everything emulated runs 15-30 times slower than on the host
# (accelc's own test: 150 s), and most of that goes into building OpenCL C
# (clang and LLVM under TCG), so the default set is what fits the CI
# budget: the kernel tests (dma-buf, sync_file, vgem, soft-RoCE, the
# zero-copy and fenced pipeline examples, refaccel and the accel-node
# backend but the long cases above), the unit tests, the API suites
# and tools that build no OpenCL C (not labelled compiler or tier), the
# ICD through clinfo and pyopencl, one OpenCL C program built and run
# end to end (example-opencl-c) on the host's tier (SVE under -cpu max)
# and again on the NEON tier, as the x86-64 levels are, and the compiler
# tests of what differs per architecture: the private range and the
# generic address space (generic: the frame's bounds; flat-casts: generic
# pointers under SVE's scalable vectors), denormals (FPCR),
# barriers (regions and fibers), printf (AArch64's va_list) and atomics,
# these beside icd-pyopencl, the longest; and icd-live-programs (2000
# programs alive from binaries, room for 10000 checked: the memory
# mappings each program's code takes, which the architecture's link
# defaults decide).
# ACCEL_ARM64_TESTS=all runs every test. Each run: environment, then
# ctest's selection.
case ${ACCEL_ARM64_TESTS:-ci} in
ci)
	runs=("|-L '^(kernel|unit|api|tools|examples)\$' -LE '^(compiler|tier)\$' -E '$ci_exclude'"
		"|-R '^(icd-clinfo|icd-pyopencl|icd-live-programs|example-opencl-c|compiler-(generic|denorms|workgroup|atomics)|accelc-flat-casts|api-printf)\$'"
		"ACCEL_CPU_TARGET=armv8-a|-R '^example-opencl-c\$'")
	;;
all) runs=("|-LE '$HOST_ONLY' -E '$exclude'") ;;
*) fail "ACCEL_ARM64_TESTS wants ci or all" ;;
esac

# accel-info first: its CPU device must state the AArch64 code tier it
# compiles for ("Code target": armv8-a, NEON, or armv8.2-a+sve, SVE; QEMU's
# -cpu max has SVE); then ctest, once per set. The source tree is seen
# read-only (test scripts, sources), the build tree writable (ctest's
# logs come back); both at their own paths.
tier_re='armv8(-a|\.2-a\+sve)'
batch=$build/arm64-guest.batch
rm -f "$build"/ctest-guest-*.log "$build/accel-info.txt"
{
	echo "$build/tools/accel-info >$build/accel-info.txt 2>&1; cat $build/accel-info.txt; grep -Eq '^ *Code target .*\\b$tier_re( |\\)|\$)' $build/accel-info.txt || { echo 'accel-info: the CPU device names no NEON/SVE tier' >&2; exit 1; }"
	i=0
	for run in "${runs[@]}"; do
		i=$((i + 1))
		echo "${run%%|*} ctest --test-dir $build -j2 --output-on-failure ${run#*|} 2>&1 | tee $build/ctest-guest-$i.log; exit \${PIPESTATUS[0]}"
	done
} >"$batch"

# The compiler's deadline per build step is meant for native speed
# (the ASan tier raises it too): scaled as the test timeouts are.
export ACCEL_COMPILE_TIMEOUT_MS=${ACCEL_COMPILE_TIMEOUT_MS:-$((60000 * scale))}

t=$SECONDS
# Multi-threaded TCG: the two vCPUs run on two host threads (the
# cross-vCPU patching fault seen with the x86 guest is x86's).
bash "$root/tests/kernel/vm-run.sh" \
	--arch arm64 --sysroot "$sysroot" --cache "$build/kernel-cache" \
	--ro "$root" --rw "$build" --tcg-thread multi "${guest_devices[@]}" \
	--timeout "$timeout" --results "$build/guest-results" \
	--batch "$batch" 2>&1 | tee "$build/guest.log"
rc=${PIPESTATUS[0]}
t_guest=$((SECONDS - t))

# ctest's counts over the sets: "N% tests passed, F tests failed out of T".
counts=$(cat "$build"/ctest-guest-*.log 2>/dev/null |
	sed -n 's/^[0-9]*% tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\)$/\1 \2/p' |
	awk '{ f += $1; t += $2; n++ } END { if (n) printf "%d %d %d", f, t, n }')
if [ -n "$counts" ]; then
	read -r failed total nsets <<<"$counts"
	line="$((total - failed))/$total tests passed in the guest (${ACCEL_ARM64_TESTS:-ci} set)"
	[ "$nsets" = "${#runs[@]}" ] || line="$line (only $nsets of ${#runs[@]} ctest runs finished)"
	# ctest counts a skipped test as passed: say how many, and name the
	# failures.
	skipped=$(cat "$build"/ctest-guest-*.log | grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped')
	[ "$skipped" = 0 ] || line="$line ($skipped skipped)"
	names=$(cat "$build"/ctest-guest-*.log |
		sed -n 's/^[[:space:]]*[0-9]\{1,\} - \([^ ]*\) (\(Failed\|Timeout\|.*Exception\|Not Run\))$/\1/p' |
		paste -sd ' ')
	[ -z "$names" ] || line="$line; failed: $names"
else
	line="ctest gave no result"
fi
# The tier accel-info named.
tier=$(grep -m1 -E '^ *Code target' "$build/accel-info.txt" 2>/dev/null |
	grep -oE "$tier_re" | head -n1)
case $tier in
armv8-a) info="accel-info: $tier (NEON)" ;;
armv8.2-a+sve) info="accel-info: $tier (SVE)" ;;
*) info="accel-info: no NEON/SVE tier named" ;;
esac
times="sysroot ${t_sysroot}s, build ${t_build}s (refaccel.ko ${t_module}s), guest ${t_guest}s"
case $rc in
0) summary "$line; $info; $times"; exit 0 ;;
77) skip "the arm64 guest cannot run here (see above)" ;;
*) fail "$line; $info; guest exit $rc; $times; logs: $build/guest.log, $build/guest-results" ;;
esac
