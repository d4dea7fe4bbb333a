#!/bin/bash
# SPDX-License-Identifier: MIT
#
# load.sh <refaccel.ko> [param=value...]: in the VM tier's guest, loads
# the module (after the DRM helpers it needs, from Debian's tree) with
# the given module parameters and waits for its first node (an accel
# node, or the render node of a kernel without the accel subsystem:
# node.sh).
#
# Where one guest runs many tests (the arm64 tier: ACCEL_KERNEL_DEVICES
# is set, to the QEMU devices the test asked for), each refaccel test
# ends with unload.sh; a module still loaded (a test cut short) is
# unloaded first. There edu devices are kept from the driver
# (driver_override) unless the test asked for "edu": a test without it
# runs on the software personality, as in a VM of its own.
# Exit codes: 0 loaded, 77 not in the VM or no module built, 1 failure.

ko=$1
shift
here=$(cd "$(dirname "$0")" && pwd -P)

if [ -z "${ACCEL_KERNEL_DEVICES+set}" ] && node=$(bash "$here/node.sh") &&
   [ -c "$node" ]; then
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
if [ -n "${ACCEL_KERNEL_DEVICES+set}" ]; then
	bash "$here/unload.sh"
	[ $? != 1 ] || exit 1
	# No driver is named "none": an edu device it names stays unbound.
	case " $ACCEL_KERNEL_DEVICES " in
	*" edu "*) override= ;;
	*) override=none ;;
	esac
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1234:0x11e8 ] ||
			continue
		echo "$override" >"$d/driver_override" || exit 1
	done
fi
modprobe drm_shmem_helper || exit 1
insmod "$ko" "$@" || exit 1
for _ in $(seq 50); do
	node=$(bash "$here/node.sh") && [ -c "$node" ] && exit 0
	sleep 0.1
done
echo "load.sh: no refaccel node appeared" >&2
exit 1
