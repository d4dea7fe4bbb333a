#!/bin/bash
# SPDX-License-Identifier: MIT
#
# run-commands.sh <batch-file>
#
# Runs each line of a batch file of accel_add_kernel_test() (bash syntax,
# blank lines and # comments skipped) in order, where ctest itself runs
# inside the test guest (the arm64 tier, tests/arm64/): the same verdict
# as vm-run.sh --batch gives on the host. Exit code: 0 if all passed, 77
# if all were skipped, else the first failure's.

set -uo pipefail

[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: $0 <batch-file>" >&2; exit 2; }
if [ "${ACCEL_KERNEL_VM:-}" != 1 ]; then
	echo "run-commands: SKIP: runs in the test VM only" >&2
	exit 77
fi

cmds=()
while IFS= read -r line || [ -n "$line" ]; do
	[[ $line =~ ^[[:space:]]*(#|$) ]] || cmds+=("$line")
done <"$1"

n=0 skipped=0 first_fail=
for line in "${cmds[@]}"; do
	n=$((n + 1))
	echo "run-commands: [$n/${#cmds[@]}] $line"
	(eval "$line") </dev/null
	rc=$?
	echo "run-commands: [$n/${#cmds[@]}] exit $rc"
	case $rc in
	0) ;;
	77) skipped=$((skipped + 1)) ;;
	*) [ -n "$first_fail" ] || first_fail=$rc ;;
	esac
done
[ -z "$first_fail" ] || exit "$first_fail"
[ "$skipped" -lt "$n" ] || exit 77
exit 0
