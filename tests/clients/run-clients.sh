#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run real OpenCL clients from Debian against libaccel's ICD in a build
# tree and compare them with PoCL on the same machine:
#   piglit-cl  piglit's `cl` profile
#   clblast    CLBlast's correctness tests (clblast_test_<routine>)
# A failure (or crash, or timeout) counts against libaccel only when PoCL
# does not fail the same test: many failures are the test's or the
# profile's, and PoCL, a mature CPU implementation, shows which.
#
# libaccel runs everything. PoCL runs only what failed on libaccel (the
# piglit tests, the CLBlast programs): on two cores it takes three times
# as long as libaccel on piglit, and its verdict is only needed there.
# --full-pocl runs everything on PoCL too, for its own counts.
#
# Logs and results go to BUILD_DIR/clients/ (README.md there says what is
# where). Prints one summary line per client, then the libaccel-only
# failures. Exits 1 on any libaccel-only failure, 77 (with the reason) if
# a client or PoCL is missing.
#
# Usage: run-clients.sh [--full-pocl] BUILD_DIR
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
full_pocl=0
if [ "${1:-}" = --full-pocl ]; then
	full_pocl=1
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--full-pocl] BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2

routines=(xaxpy xdot xnrm2 xgemv xgemm)
jobs=$(nproc)
# Caps, far above a normal run (on two busy cores piglit-cl took 13 min,
# the slowest CLBlast program 3 min) so that a hang cannot eat CI's time.
piglit_cap=${CLIENTS_PIGLIT_TIMEOUT:-2400}
clblast_cap=${CLIENTS_CLBLAST_TIMEOUT:-900}

skip() {
	echo "run-clients: skipped: $*"
	exit 77
}

# ---- what is needed ----------------------------------------------------------

command -v python3 >/dev/null || skip "no python3"
command -v clinfo >/dev/null || skip "no clinfo (package clinfo)"
command -v piglit >/dev/null || skip "no piglit (package piglit)"
for r in "${routines[@]}"; do
	command -v "clblast_test_$r" >/dev/null ||
		skip "no clblast_test_$r (package clblast-tests)"
done
accel_vendors=$build/icd/vendors
[ -f "$accel_vendors/libaccel.icd" ] ||
	skip "no $accel_vendors/libaccel.icd (the ICD is not built)"
pocl_icd=/etc/OpenCL/vendors/pocl.icd
[ -f "$pocl_icd" ] || skip "no $pocl_icd (package pocl-opencl-icd)"

out=$build/clients
rm -rf "$out"
mkdir -p "$out/vendors-pocl" || exit 1
# The loader reads every .icd in the directory: PoCL alone.
cp "$pocl_icd" "$out/vendors-pocl/"
pocl_vendors=$out/vendors-pocl

# Nothing from the environment picks another platform; fresh compiler
# caches, so every kernel is compiled in this run; no core files.
unset OCL_ICD_FILENAMES PIGLIT_CL_PLATFORM PIGLIT_CL_DEVICE PIGLIT_CL_VERSION
unset CLBLAST_PLATFORM CLBLAST_DEVICE CLBLAST_ARGUMENTS CLBLAST_BUILD_OPTIONS
export ACCEL_CACHE_DIR=$out/cache-accel POCL_CACHE_DIR=$out/cache-pocl
ulimit -c 0

# on SIDE CMD...: run CMD with only SIDE's (accel or pocl) ICD.
on() {
	local vendors=$accel_vendors
	[ "$1" = pocl ] && vendors=$pocl_vendors
	shift
	OCL_ICD_VENDORS=$vendors OPENCL_VENDOR_PATH=$vendors "$@"
}

# Each side must show exactly its one platform.
on accel clinfo -l >"$out/clinfo-accel.log" 2>&1
if ! grep -q '^Platform #0: libaccel$' "$out/clinfo-accel.log" ||
	grep -q '^Platform #1' "$out/clinfo-accel.log"; then
	cat "$out/clinfo-accel.log"
	echo "piglit-cl: not run"
	echo "clblast: not run"
	echo "run-clients: FAIL: libaccel's ICD is not the one platform loaded"
	exit 1
fi
on pocl clinfo -l >"$out/clinfo-pocl.log" 2>&1
grep -q '^Platform #0: Portable Computing Language$' "$out/clinfo-pocl.log" ||
	skip "PoCL does not load: $(head -n1 "$out/clinfo-pocl.log")"

# status_of RC: how a program ended, for the report.
status_of() {
	case $1 in
	124) echo timeout ;;
	0) echo "exit 0" ;;
	*) if [ "$1" -gt 128 ]; then echo "signal $(($1 - 128))"
	   else echo "exit $1"; fi ;;
	esac
}

# ---- piglit: the cl profile ------------------------------------------------
#
# The cl tests run one at a time unless a DRM render node exists
# (piglit's CL_CONCURRENT), hence -c. Each test has piglit's 60 s timeout.

start=$SECONDS
# piglit_run SIDE [piglit options...]
piglit_run() {
	local side=$1 t0=$SECONDS rc
	shift
	on "$side" timeout -k 30 "$piglit_cap" piglit run -c -j "$jobs" \
		-l dummy -o "$@" cl "$out/piglit-$side" \
		>"$out/piglit-$side.log" 2>&1
	rc=$?
	echo "piglit-cl on $side: $(status_of $rc), $((SECONDS - t0)) s" |
		tee -a "$out/times.txt"
}

piglit_run accel
if [ "$full_pocl" -eq 1 ]; then
	piglit_run pocl
else
	python3 "$here/clients-report.py" failed-piglit "$out/piglit-accel" \
		>"$out/piglit-accel-failed.txt"
	# An empty list would make piglit run the whole profile.
	if [ -s "$out/piglit-accel-failed.txt" ]; then
		piglit_run pocl --test-list "$out/piglit-accel-failed.txt"
	fi
fi

# ---- CLBlast: correctness tests, default (not -full_test) -------------------
#
# Each program tests its routine in every precision (half skips where the
# device lacks cl_khr_fp16) against the reference BLAS.

# clblast_run SIDE ROUTINE: log and .status (how the program ended).
clblast_run() {
	local side=$1 r=$2 base=$out/clblast-$2-$1 t0=$SECONDS rc
	on "$side" timeout -k 10 "$clblast_cap" "clblast_test_$r" \
		-platform 0 -device 0 >"$base.log" 2>&1 </dev/null
	rc=$?
	status_of $rc >"$base.status"
	echo "clblast_test_$r on $side: $(status_of $rc), $((SECONDS - t0)) s" |
		tee -a "$out/times.txt"
	return $rc
}

for r in "${routines[@]}"; do
	if ! clblast_run accel "$r" || [ "$full_pocl" -eq 1 ]; then
		clblast_run pocl "$r"
	fi
done

# ---- report ------------------------------------------------------------------

echo
python3 "$here/clients-report.py" report "$out" | tee "$out/report.txt"
rc=${PIPESTATUS[0]}
echo "run-clients: $((SECONDS - start)) s; logs in $out"
exit "$rc"
