#!/bin/bash
# SPDX-License-Identifier: MIT
#
# load.sh <refaccel.ko> [param=value...]: in the VM tier's guest, loads
# the module (after the DRM helpers it needs, from Debian's tree) with
# the given module parameters and waits for its first node (an accel
# node, or the render node of a kernel without the accel subsystem:
# node.sh).
# Exit codes: 0 loaded, 77 not in the VM or no module built, 1 failure.

ko=$1
shift
here=$(cd "$(dirname "$0")" && pwd -P)

if node=$(bash "$here/node.sh") && [ -c "$node" ]; then
	exit 0
fi
if [ "${ACCEL_KERNEL_VM:-}" != 1 ]; then
	echo "load.sh: SKIP: only loads modules in the test VM" >&2
	exit 77
fi
if [ ! -s "$ko" ]; then
	echo "load.sh: SKIP: no $ko (the refaccel-build test makes it)" >&2
	exit 77
fi
modprobe drm_shmem_helper || exit 1
insmod "$ko" "$@" || exit 1
for _ in $(seq 50); do
	node=$(bash "$here/node.sh") && [ -c "$node" ] && exit 0
	sleep 0.1
done
echo "load.sh: no refaccel node appeared" >&2
exit 1
