#!/bin/bash
# SPDX-License-Identifier: MIT
#
# reload.sh <refaccel.ko> <cycles> [param=value...]: in the VM tier's
# guest, loads and unloads the module <cycles> times (each load probes
# every personality the parameters ask for; software=1 binds the software
# device beside edu) and checks that the nodes come and go and that the
# kernel's unreclaimable slab did not grow by more than 256 KiB: a
# coarse bound that catches a leaked DRM device, workqueue or IRQ per
# cycle, not a few bytes (Debian's kernel has no kmemleak). The node is
# the first one's (an accel node, or a render node: node.sh), which every
# load must give again.
# Exit codes: 0 fine, 77 not in the VM or no module built, 1 failure.

ko=$1 cycles=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd -P)

if [ "${ACCEL_KERNEL_VM:-}" != 1 ]; then
	echo "reload.sh: SKIP: only loads modules in the test VM" >&2
	exit 77
fi
if [ ! -s "$ko" ]; then
	echo "reload.sh: SKIP: no $ko (the refaccel-build test makes it)" >&2
	exit 77
fi
# The first load as every test's (in a guest that runs other tests too,
# load.sh unloads a module left loaded first); it names the node.
bash "$here/load.sh" "$ko" "$@" || exit 1
node=$(bash "$here/node.sh") || exit 1
rmmod refaccel || exit 1

unreclaim() {
	local k v _
	while read -r k v _; do
		[ "$k" = SUnreclaim: ] && echo "$v"
	done </proc/meminfo
}

cycle() {
	insmod "$ko" "$@" || return 1
	[ -c "$node" ] || { echo "reload.sh: no $node" >&2; return 1; }
	rmmod refaccel || return 1
	if [ -e "$node" ]; then
		echo "reload.sh: $node left behind" >&2
		return 1
	fi
}

# The first cycle warms caches (slabs, DRM's idr) up.
cycle "$@" || exit 1
sync
before=$(unreclaim)
for i in $(seq "$cycles"); do
	cycle "$@" || { echo "reload.sh: cycle $i failed" >&2; exit 1; }
done
sync
after=$(unreclaim)
echo "reload.sh: $cycles cycles, SUnreclaim ${before} kB -> ${after} kB"
if grep -q refaccel /proc/interrupts; then
	echo "reload.sh: the interrupt is still requested" >&2
	exit 1
fi
if [ $((after - before)) -gt 256 ]; then
	echo "reload.sh: unreclaimable slab grew by $((after - before)) kB" >&2
	exit 1
fi
