#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build and run every test tier, then print one summary line per part:
#   plain   build/       all tests (ctest -j2), with the Debian package build
#                        (label packaging; as root it also installs and
#                        purges the packages: ACCEL_TEST_INSTALL_PACKAGES)
#   v2..v4  build/       per x86-64 level this CPU runs: tests labelled
#                        compiler or tier, ACCEL_CPU_TARGET=x86-64-vN; a
#                        level it cannot run: accelc-targets for it, and
#                        the compiler-* corpus built for it (CT_BUILD_TARGET)
#   asan    build-asan/  ASan+UBSan (+LeakSanitizer), all but labels abi, bench,
#                        packaging
#   tsan    build-tsan/  TSan, tests labelled `threads`
#   arm64   build-arm64/ cross-built for arm64, run in one boot of Debian's
#                        arm64 kernel under qemu-system-aarch64: accel-info
#                        and the tests that fit the CI budget, 7-17 min
#                        (tests/arm64/arm64-tier.sh); SKIP without the
#                        cross toolchain, QEMU or the Debian mirror
#   fuzz    build-fuzz/  libFuzzer (clang-16): ICD, C API, binary container,
#                        bounded (tests/fuzz/run-fuzzers.sh)
#   clients build/       piglit's cl profile and CLBlast's tests, vs PoCL
#                        (tests/clients/run-clients.sh)
# Exits non-zero if any part fails to build or has a failing test. A test
# whose only failure is a crash of LeakSanitizer's own runtime is rerun once
# and named in the summary line (lsan_runtime_failures below).
#
# Sanitizer builds use -O1 -g and ACCEL_WERROR=OFF: the warnings gate is the
# plain build, and gcc's sanitizer instrumentation is known to produce
# false-positive warnings. They skip the benchmarks.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

jobs=$(nproc)
cc=${CC:-cc}
declare -a summary=()
failed=0

say() {
	printf '\n===== %s =====\n' "$*"
}

# configure_build DIR [cmake args...]: (re)configure, then build.
configure_build() {
	local dir=$1
	shift
	cmake -S . -B "$dir" "$@" && cmake --build "$dir" --parallel "$jobs"
}

# record PART STATUS DETAIL
record() {
	summary+=("$(printf '%-6s %-5s %s' "$1" "$2" "$3")")
	[ "$2" = PASS ] || failed=1
}

# run_ctest PART DIR [ctest args...]; honours the global `wrapper` array
# and the environment. Records the result.
run_ctest() {
	local part=$1 dir=$2 log rc line
	shift 2
	log=$dir/ctest-$part.log
	"${wrapper[@]}" ctest --test-dir "$dir" --output-on-failure -j2 \
		--no-tests=ignore "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n1)
	[ -n "$line" ] || line="no tests matched ($*)"
	line="$line ($((SECONDS - start))s)"
	if [ "$rc" -ne 0 ] && lsan_runtime_failures "$dir" &&
		"${wrapper[@]}" ctest --test-dir "$dir" --output-on-failure \
			--rerun-failed 2>&1 | tee -a "$log" &&
		[ "${PIPESTATUS[0]}" -eq 0 ]; then
		rc=0
		line="$line; passed on rerun after a LeakSanitizer runtime crash: $rerun_names"
	fi
	if [ "$rc" -eq 0 ]; then
		record "$part" PASS "$line"
	else
		record "$part" FAIL "$line; log: $log"
	fi
}

# run_script PART LOG COMMAND...: run a part's own script, its output also
# into LOG, and record its last "PART: ..." line (exit 77: SKIP).
run_script() {
	local part=$1 log=$2 rc line
	shift 2
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep "^$part: " "$log" | tail -n1)
	line="${line#"$part": } ($((SECONDS - start))s)"
	if [ "$rc" -eq 0 ]; then
		record "$part" PASS "$line"
	elif [ "$rc" -eq 77 ]; then
		summary+=("$(printf '%-6s %-5s %s' "$part" SKIP "$line")")
	else
		record "$part" FAIL "$line; log: $log"
	fi
}

# lsan_runtime_failures DIR: true if every test that failed in DIR's last
# ctest run failed only because LeakSanitizer's own runtime died ("Tracer
# caught signal 11 ... LeakSanitizer has encountered a fatal error", an
# intermittent crash of gcc-12's LSan while it suspends the process at exit,
# seen about once in 50 runs of a test that passed). Such tests get one
# rerun; a leak report ("detected memory leaks") or any other failure never
# does. Sets rerun_names.
rerun_names=
lsan_runtime_failures() {
	local dir=$1 list=$1/Testing/Temporary/LastTestsFailed.log
	local all=$1/Testing/Temporary/LastTest.log name out
	rerun_names=
	[ -s "$list" ] && [ -f "$all" ] || return 1
	while IFS=: read -r _ name; do
		# the test's own section of ctest's full log
		out=$(awk -v t="$name" '
			/^[0-9]+\/[0-9]+ Testing: / { on = ($3 == t) }
			on' "$all")
		grep -q 'LeakSanitizer has encountered a fatal error' \
			<<<"$out" || return 1
		grep -q 'detected memory leaks' <<<"$out" && return 1
		rerun_names="${rerun_names:+$rerun_names }$name"
	done <"$list"
	[ -n "$rerun_names" ]
}

# ---- sanitizer runtime quirks ----------------------------------------------
#
# gcc-12's TSan (and older ASan) abort at start-up with "unexpected memory
# mapping" on kernels with vm.mmap_rnd_bits above 28 (default 32 on recent
# distributions). A probe binary tells whether that bites here; if so the
# tests run under `setarch -R` (no ASLR for that process tree), or, as root
# and if that is not enough, with mmap_rnd_bits lowered to 28 for the run.

declare -a wrapper=()
saved_rnd_bits=

restore_rnd_bits() {
	if [ -n "$saved_rnd_bits" ]; then
		sysctl -q -w vm.mmap_rnd_bits="$saved_rnd_bits" || true
		saved_rnd_bits=
	fi
}
trap restore_rnd_bits EXIT

# sanitizer_wrapper FLAGS: sets `wrapper`; returns 1 if nothing helps.
sanitizer_wrapper() {
	local flags=$1 tmp out arch
	wrapper=()
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/accel-probe.XXXXXX")
	cat >"$tmp/probe.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
static void *run(void *p) { return p; }
int main(void)
{
	pthread_t t;
	void *m = malloc(16);
	if (pthread_create(&t, NULL, run, m) || pthread_join(t, NULL))
		return 1;
	free(m);
	return 0;
}
EOF
	# shellcheck disable=SC2086  # $flags may hold several options
	if ! "$cc" $flags -g "$tmp/probe.c" -o "$tmp/probe" -pthread; then
		echo "run-tests: cannot build a $flags probe with $cc" >&2
		rm -rf "$tmp"
		return 1
	fi
	if out=$("$tmp/probe" 2>&1); then
		rm -rf "$tmp"
		return 0
	fi
	echo "run-tests: $flags probe fails: $(echo "$out" | head -n2)" >&2
	arch=$(uname -m)
	if setarch "$arch" -R "$tmp/probe" >/dev/null 2>&1; then
		echo "run-tests: running these tests under 'setarch $arch -R'" >&2
		wrapper=(setarch "$arch" -R)
		rm -rf "$tmp"
		return 0
	fi
	if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/mmap_rnd_bits ]; then
		[ -n "$saved_rnd_bits" ] ||
			saved_rnd_bits=$(cat /proc/sys/vm/mmap_rnd_bits)
		sysctl -q -w vm.mmap_rnd_bits=28
		if "$tmp/probe" >/dev/null 2>&1; then
			echo "run-tests: vm.mmap_rnd_bits lowered to 28" \
				"(was $saved_rnd_bits) for this run" >&2
			rm -rf "$tmp"
			return 0
		fi
		restore_rnd_bits
	fi
	rm -rf "$tmp"
	return 1
}

san_cmake_args=(
	-DCMAKE_BUILD_TYPE=RelWithDebInfo
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g"
	-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g"
	-DACCEL_WERROR=OFF
	-DACCEL_BUILD_BENCH=OFF
	# One downloaded test kernel for all tiers (tests/kernel/).
	-DACCEL_KERNEL_CACHE="$PWD/build/kernel-cache"
)

# ---- plain -------------------------------------------------------------------

say "plain build (build/)"
if [ -f build/CMakeCache.txt ]; then
	plain_args=()   # keep whatever tools/setup.sh or the user configured
else
	plain_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
		-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g"
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g")
fi
start=$SECONDS
# The packaging test (tests/packaging/) installs the packages it built and
# purges them again when ACCEL_TEST_INSTALL_PACKAGES=1 and it runs as root,
# as CI does on its throwaway machine; so as root by default here (the
# test leaves alone a machine where libaccel is installed already).
# ACCEL_TEST_INSTALL_PACKAGES=0 keeps it to the extracted packages.
if [ "$(id -u)" -eq 0 ]; then
	install_packages=${ACCEL_TEST_INSTALL_PACKAGES:-1}
else
	install_packages=${ACCEL_TEST_INSTALL_PACKAGES:-0}
fi
if configure_build build "${plain_args[@]}"; then
	wrapper=()
	ACCEL_TEST_INSTALL_PACKAGES=$install_packages run_ctest plain build
else
	record plain FAIL "build failed ($((SECONDS - start))s)"
fi

# ---- CPU tiers -------------------------------------------------------------------
#
# Generated code differs per x86-64 level (vector width, libmvec variants,
# tuning), and the plain run covers only this CPU's own. Every level this
# CPU runs gets the tests labelled `compiler` or `tier` again with
# ACCEL_CPU_TARGET set; a level it cannot run is built and checked
# (accelc-targets: code generation of every builtin, the libmvec variant
# table and its call ABI; the compiler-* corpus with CT_BUILD_TARGET: each
# program built for the level too) and reported as not run.

say "CPU tiers (ACCEL_CPU_TARGET)"
accelc=build/compiler-stub/accelc
if [ -x "$accelc" ] && targets=$("$accelc" --list-targets); then
	for level in x86-64-v2 x86-64-v3 x86-64-v4; do
		part=${level#x86-64-}
		start=$SECONDS
		if echo "$targets" | grep -q "^$level  *runs "; then
			wrapper=()
			ACCEL_CPU_TARGET=$level run_ctest "$part" build \
				-L '^(compiler|tier)$'
			summary[-1]="${summary[-1]} [$level: run]"
		else
			CT_BUILD_TARGET=$level run_ctest "$part" build \
				-R '^(accelc-targets|compiler-.*)$'
			summary[-1]="${summary[-1]} [$level: built and checked, not run: this CPU cannot]"
		fi
	done
else
	record tiers FAIL "build/compiler-stub/accelc --list-targets failed"
fi

# ---- ASan + UBSan --------------------------------------------------------------

say "ASan+UBSan build (build-asan/)"
start=$SECONDS
if ! configure_build build-asan "${san_cmake_args[@]}" \
	-DACCEL_SANITIZE="address;undefined"; then
	record asan FAIL "build failed ($((SECONDS - start))s)"
elif ! sanitizer_wrapper "-fsanitize=address,undefined"; then
	record asan FAIL "ASan runtime does not start on this machine"
else
	# the instrumented compiler's steps run several times slower than
	# the 60 s default deadline of each is meant for
	ACCEL_COMPILE_TIMEOUT_MS="${ACCEL_COMPILE_TIMEOUT_MS:-180000}" \
	ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
		run_ctest asan build-asan -LE '^(abi|bench|packaging)$'
fi
restore_rnd_bits

# ---- TSan ------------------------------------------------------------------------

say "TSan build (build-tsan/), tests labelled 'threads'"
start=$SECONDS
if ! configure_build build-tsan "${san_cmake_args[@]}" \
	-DACCEL_SANITIZE=thread; then
	record tsan FAIL "build failed ($((SECONDS - start))s)"
elif ! sanitizer_wrapper "-fsanitize=thread"; then
	record tsan FAIL "TSan runtime does not start on this machine"
else
	ACCEL_COMPILE_TIMEOUT_MS="${ACCEL_COMPILE_TIMEOUT_MS:-180000}" \
	TSAN_OPTIONS="second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
		run_ctest tsan build-tsan -L '^threads$'
fi
restore_rnd_bits

# ---- arm64 -----------------------------------------------------------------------
#
# The tree cross-built for arm64 against a sysroot of Debian's arm64
# packages (cached in build-arm64/sysroot), then one boot of Debian's arm64
# kernel under TCG running accel-info and ctest (tests/arm64/README.md).
# Exit 77 (no cross compiler, QEMU or mirror) is reported, not failed.

say "arm64 tier (build-arm64/, tests/arm64/arm64-tier.sh)"
start=$SECONDS
mkdir -p build-arm64
run_script arm64 "$PWD/build-arm64/arm64-tier.log" \
	tests/arm64/arm64-tier.sh "$PWD/build-arm64"

# ---- fuzz ------------------------------------------------------------------------
#
# libFuzzer over the OpenCL ICD's entry points, the C API and the program
# binary container (tests/fuzz/README.md): about 40 + 40 + 14 s in a clang
# build of its own, over the corpus in the tree. SKIP (not failed) when
# clang-16 cannot build libFuzzer programs.

say "fuzzers (build-fuzz/, tests/fuzz/run-fuzzers.sh)"
start=$SECONDS
mkdir -p build-fuzz
run_script fuzz "$PWD/build-fuzz/fuzz.log" \
	tests/fuzz/run-fuzzers.sh -b build-fuzz -t 40

# ---- clients ---------------------------------------------------------------------
#
# Real OpenCL clients from Debian (piglit's cl profile, CLBlast's tests) on
# build/'s ICD, compared with PoCL (tests/clients/README.md); fails on a
# libaccel-only failure. Exit 77 (a package missing) is reported, not failed.

say "OpenCL clients on build/ (tests/clients/run-clients.sh)"
start=$SECONDS
clients_log=$PWD/build/clients.log
if ! cmake --build build --parallel "$jobs" >/dev/null 2>&1; then
	record clients FAIL "not run: build/ does not build"
else
	tests/clients/run-clients.sh build 2>&1 | tee "$clients_log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^(piglit-cl|clblast): ' "$clients_log" |
		paste -sd '|' | sed 's/|/; /g')
	only=$(grep -E '^libaccel-only failures: ' "$clients_log")
	line="$line${only:+; $only} ($((SECONDS - start))s)"
	if [ "$rc" -eq 0 ]; then
		record clients PASS "$line"
	elif [ "$rc" -eq 77 ]; then
		summary+=("$(printf '%-6s %-5s %s' clients SKIP \
			"$(grep '^run-clients: skipped' "$clients_log")")")
	else
		record clients FAIL "$line; log: $clients_log"
	fi
fi

# ---- summary -----------------------------------------------------------------------

say "summary"
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
	echo "run-tests: FAILED"
	exit 1
fi
echo "run-tests: all parts passed"
