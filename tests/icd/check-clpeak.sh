#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run clpeak (Debian's) with only our ICD loaded (OCL_ICD_VENDORS) on its
# short tests: kernel launch latency and integer compute timed with
# profiling events (--use-event-timer, so that path runs too), then host
# transfers timed by clpeak's clock (it counts whole microseconds, and a
# zero-copy map or unmap of the CPU device takes less: their bandwidth may
# be "inf", the only figures allowed to be).
# clpeak exits 0 even when it finds no platform or a build fails, so the
# output is checked: the libaccel platform, every section and every figure,
# each a positive number, and no error line.
#
# Usage: check-clpeak.sh VENDORS_DIR
set -uo pipefail

command -v clpeak >/dev/null || { echo "no clpeak: skipped"; exit 77; }
export OCL_ICD_VENDORS=${1:?usage: $0 VENDORS_DIR}
unset OPENCL_VENDOR_PATH OCL_ICD_FILENAMES
out=$(mktemp "${TMPDIR:-/tmp}/accel-clpeak.XXXXXX")
trap 'rm -f "$out"' EXIT

for args in "--use-event-timer --kernel-latency --compute-integer" \
	"--transfer-bandwidth"; do
	# shellcheck disable=SC2086  # one word per option
	clpeak $args >>"$out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$out"
		echo "FAIL: clpeak $args exited $rc"
		exit 1
	fi
done
cat "$out"

failed=0
for want in 'Platform: libaccel' 'Integer compute' 'int16' \
	'Transfer bandwidth' 'enqueueWriteBuffer non-blocking' \
	'enqueueReadBuffer non-blocking' 'enqueueMapBuffer' \
	'enqueueUnmap' 'Kernel launch latency'; do
	if ! grep -qF "$want" "$out"; then
		echo "FAIL: no '$want' in clpeak's output"
		failed=1
	fi
done
# Every figure ("name : value"), except the device header's own lines.
figures=$(grep -E '^ +[^:]+: *[-0-9.einfa]+( us)?$' "$out" |
	grep -vE 'Compute units|Clock frequency')
count=$(printf '%s\n' "$figures" | grep -c .)
if [ "$count" -lt 14 ]; then
	echo "FAIL: only $count figures in clpeak's output"
	failed=1
fi
bad=$(printf '%s\n' "$figures" |
	awk -F: '{ v = $2; sub(/ us$/, "", v);
		if ($1 ~ /enqueue(Map|Unmap)/ && v ~ /^ *inf$/) next;
		if (!(v + 0 > 0) || v ~ /nan|inf/) print }')
if [ -n "$bad" ]; then
	echo "FAIL: figures that are not positive numbers:"
	echo "$bad"
	failed=1
fi
errors=$(grep -iE 'error|fail|build log|\(-[0-9]+\)' "$out")
if [ -n "$errors" ]; then
	echo "FAIL: clpeak printed errors:"
	echo "$errors"
	failed=1
fi
[ "$failed" -eq 0 ] && echo "OK: clpeak's short tests ran on libaccel"
exit "$failed"
