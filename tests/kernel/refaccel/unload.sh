#!/bin/bash
# SPDX-License-Identifier: MIT
#
# unload.sh: the last command of a refaccel test where one guest runs
# many tests (the arm64 tier): unloads the module, so that the tests
# after it (the rest of the suite too) see the machine as it was. A
# fence of the test's holds a module reference until its release has
# run, so rmmod is tried for up to 10 s.
# Exit codes: 0 unloaded, 77 nothing loaded (the test's load skipped, or
# it failed, which its own exit code says), 1 still loaded.

[ -d /sys/module/refaccel ] || exit 77
for _ in $(seq 100); do
	rmmod refaccel 2>/dev/null && exit 0
	sleep 0.1
done
echo "unload.sh: refaccel is still in use after 10 s" >&2
exit 1
