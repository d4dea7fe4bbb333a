#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run clinfo (Debian's) with only our ICD loaded (OCL_ICD_VENDORS) in its
# default, raw and JSON modes: it must exit 0, list the libaccel platform
# and print no error. "Error Correction support" / ERROR_CORRECTION_SUPPORT
# is a property name, not an error, and is ignored.
#
# Usage: check-clinfo.sh VENDORS_DIR
# In sanitizer builds, ACCEL_CLINFO_PRELOAD names the sanitizer runtime our
# ICD needs; it is preloaded into clinfo only, with leak detection off
# (clinfo's leaks are not ours). The --raw and --json modes are left out
# then: Debian's clinfo 3.0.23 pads its raw line prefix one byte past its
# allocation (sprintf "%*s" with the buffer's full size), which ASan stops.
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 VENDORS_DIR" >&2
	exit 2
fi
if ! command -v clinfo >/dev/null; then
	echo "clinfo not installed: skipped"
	exit 77
fi
export OCL_ICD_VENDORS=$1
unset OPENCL_VENDOR_PATH OCL_ICD_FILENAMES
out=$(mktemp "${TMPDIR:-/tmp}/accel-clinfo.XXXXXX")
trap 'rm -f "$out"' EXIT
failed=0

modes=("" --raw --json --list)
[ -n "${ACCEL_CLINFO_PRELOAD:-}" ] && modes=("" --human --list)
for mode in "${modes[@]}"; do
	# shellcheck disable=SC2086  # an empty mode is no argument
	if [ -n "${ACCEL_CLINFO_PRELOAD:-}" ]; then
		LD_PRELOAD=$ACCEL_CLINFO_PRELOAD \
			ASAN_OPTIONS=detect_leaks=0 \
			clinfo $mode >"$out" 2>&1
	else
		clinfo $mode >"$out" 2>&1
	fi
	rc=$?
	echo "== clinfo $mode: exit $rc"
	if [ "$rc" -ne 0 ]; then
		cat "$out"
		failed=1
		continue
	fi
	if ! grep -q libaccel "$out"; then
		echo "FAIL: clinfo $mode does not list the libaccel platform"
		cat "$out"
		failed=1
	fi
	errors=$(grep -E 'error|Error|ERROR|CL_INVALID|<' "$out" |
		grep -vE 'Error Correction support|ERROR_CORRECTION_SUPPORT')
	if [ -n "$errors" ]; then
		echo "FAIL: clinfo $mode printed errors:"
		echo "$errors"
		failed=1
	fi
done
[ "$failed" -eq 0 ] && echo "OK: clinfo lists libaccel without errors"
exit "$failed"
