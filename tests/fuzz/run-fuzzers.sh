#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the libFuzzer targets with clang (ASan + UBSan, every library
# instrumented) and run each for a bounded time over its corpus in the
# tree plus the inputs that once crashed it (tests/fuzz/README.md).
#
# usage: run-fuzzers.sh [-b BUILD_DIR] [-t SECONDS] [-j JOBS] [-o DIR] [FUZZER...]
#   -b  build directory (default: build-fuzz in the source tree)
#   -t  seconds per fuzzer (default 30); the binary-container fuzzer gets
#       a third of it
#   -j  parallel libFuzzer jobs per fuzzer (default 1)
#   -o  keep the inputs each API fuzzer finds in DIR/<name> (for a merge
#       into the corpus); by default they are dropped
#   FUZZER: fuzz-cl, fuzz-accel, fuzz-binary (default: all three)
# Environment: CLANG (default clang-16), FUZZ_ARGS (more libFuzzer flags).
# Prints one line per fuzzer ("NAME: N runs, ..."), then "fuzz: ...".
# Exit 0 if no fuzzer crashed, 1 if one did (its input is kept under
# BUILD_DIR/fuzz-artifacts/), 77 if clang cannot build libFuzzer programs.
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$src/build-fuzz
secs=30
jobs=1
keep=
while getopts b:t:j:o: opt; do
	case $opt in
	b) build=$(realpath -m "$OPTARG") ;;
	t) secs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	o) keep=$(realpath -m "$OPTARG") ;;
	*) sed -n '8,16p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
fuzzers=("$@")
[ ${#fuzzers[@]} -gt 0 ] || fuzzers=(fuzz-cl fuzz-accel fuzz-binary)
clang=${CLANG:-clang-16}

# ---- can clang link a libFuzzer program at all? ----------------------------

tmp=$(mktemp -d "${TMPDIR:-/tmp}/accel-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' >"$tmp/probe.c"
if ! command -v "$clang" >/dev/null ||
   ! "$clang" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" \
	-o "$tmp/probe" 2>"$tmp/probe.log"; then
	cat "$tmp/probe.log" 2>/dev/null
	echo "fuzz: skipped: $clang cannot build libFuzzer programs" \
	     "(clang-16 and libclang-rt-16-dev needed)"
	exit 77
fi
# Sanitizer runtimes may not start with a large vm.mmap_rnd_bits; then
# without ASLR (as tools/run-tests.sh does for its sanitizer tiers).
declare -a wrapper=()
if ! "$tmp/probe" -runs=1 >"$tmp/probe.log" 2>&1; then
	wrapper=(setarch "$(uname -m)" -R)
	if ! "${wrapper[@]}" "$tmp/probe" -runs=1 >/dev/null 2>&1; then
		head -n 5 "$tmp/probe.log"
		echo "fuzz: FAILED: a libFuzzer program does not start here"
		exit 1
	fi
fi

# ---- the instrumented tree ---------------------------------------------------
#
# -Wno-error=string-concatenation: clang flags the deliberate "a," "b"
# concatenation in compiler-stub/frontend/options.c; the warnings gate is the
# plain build.

echo "fuzz: building $build"
if ! CC=$clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
	-DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link -Wno-error=string-concatenation" \
	-DACCEL_SANITIZE="address;undefined" -DACCEL_WERROR=OFF \
	-DACCEL_BUILD_BENCH=OFF -DACCEL_BUILD_FUZZERS=ON >"$tmp/cmake.log" ||
   ! cmake --build "$build" --parallel "$(nproc)" \
	--target fuzz-cl fuzz-accel accelc-cli >>"$tmp/cmake.log" 2>&1; then
	tail -n 40 "$tmp/cmake.log"
	echo "fuzz: FAILED: the fuzzers do not build"
	exit 1
fi

export ACCEL_COMPILER=$build/tests/fuzz/compiler/accel-compiler.so
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
cd "$tmp" || exit 1 # libFuzzer's -jobs logs land in the working directory

failed=0
declare -a lines=()

# run_api NAME: the corpus is copied, so the tree is never written to.
run_api() {
	local name=$1 exe=$build/tests/fuzz/$1 log=$build/$1.log dirs
	local corpus=${keep:-$tmp}/${1#fuzz-} rc runs
	mkdir -p "$corpus"
	dirs=("$corpus" "$src/tests/fuzz/corpus/${name#fuzz-}")
	[ -d "$src/tests/fuzz/crashes/${name#fuzz-}" ] &&
		dirs+=("$src/tests/fuzz/crashes/${name#fuzz-}")
	# shellcheck disable=SC2086  # FUZZ_ARGS may hold several flags
	"${wrapper[@]}" "$exe" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 \
		-max_len=1024 -print_final_stats=1 -jobs="$jobs" \
		-workers="$jobs" -artifact_prefix="$artifacts/$name-" \
		${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1
	rc=$?
	[ "$jobs" -gt 1 ] && cat fuzz-*.log >>"$log" 2>/dev/null &&
		rm -f fuzz-*.log
	runs=$(grep -h '^stat::number_of_executed_units' "$log" |
		awk '{ s += $2 } END { print s + 0 }')
	if [ "$rc" -eq 0 ]; then
		lines+=("$name: $runs runs, no crash (${secs}s)")
	else
		grep -E 'ERROR|SUMMARY|runtime error|fuzz-(cl|accel):' "$log" |
			head -n 5
		lines+=("$name: CRASH after $runs runs; log $log")
		failed=1
	fi
}

run_binary() {
	local log=$build/fuzz-binary.log bsecs=$(( (secs + 2) / 3 )) runs
	FUZZ_SECONDS=$bsecs "${wrapper[@]}" \
		sh "$src/compiler-stub/fuzz/run-fuzz.sh" \
		"$clang" "$src" "$build" "$build/compiler-stub/accelc" \
		>"$log" 2>&1
	case $? in
	0)
		runs=$(grep '^stat::number_of_executed_units' "$log" |
			awk '{ print $2 }')
		lines+=("fuzz-binary: $runs runs, no crash (${bsecs}s)") ;;
	77)
		lines+=("fuzz-binary: skipped ($(tail -n1 "$log"))") ;;
	*)
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 5
		lines+=("fuzz-binary: FAILED; log $log")
		failed=1 ;;
	esac
}

for f in "${fuzzers[@]}"; do
	case $f in
	fuzz-cl|fuzz-accel) run_api "$f" ;;
	fuzz-binary) run_binary ;;
	*) echo "fuzz: no fuzzer $f" >&2; exit 2 ;;
	esac
done
printf '%s\n' "${lines[@]}"
summary=$(printf '%s; ' "${lines[@]}")
if [ "$failed" -ne 0 ]; then
	echo "fuzz: FAILED: ${summary%; }"
	exit 1
fi
echo "fuzz: ${summary%; }"
