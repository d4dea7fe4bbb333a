#!/bin/busybox sh
# SPDX-License-Identifier: MIT
#
# Guest, stage 1: run by the initramfs /init (busybox) from the transfer
# share /xfer, which vm-run.sh filled.  Builds the guest's root: the host's
# / (read-only 9p) under an overlayfs whose upper layer is a tmpfs, so
# host binaries and libraries run unchanged and guest writes are thrown
# away; then runs stage 2 (guest-run.sh) chrooted into it.  Always
# returns: /init powers off afterwards.  Messages go to the kernel
# console (the host's console.log), never to the test's output.

. /xfer/vm.conf

say() { echo "guest-init: $*"; }
# Progress marks in the kernel log, to see where boot time goes.
mark() { echo "guest-init: $*" >/dev/kmsg; }

mark "stage 1"

R=/mnt/root
mkdir -p /mnt/host /mnt/rw "$R"

# cache=loose: the host tree is treated as unchanging while the guest
# runs, which makes every exec and library load far cheaper over 9p.
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro \
	hostroot /mnt/host; then
	say "cannot mount the host root"
	exit 1
fi
mount -t tmpfs -o mode=0755 tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
if ! mount -t overlay -o lowerdir=/mnt/host,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
	overlay "$R"; then
	say "cannot mount the overlay root"
	exit 1
fi

mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount -t debugfs debugfs "$R/sys/kernel/debug" 2>/dev/null
mount -t devtmpfs devtmpfs "$R/dev"
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$R/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
# The host's /run (sockets, pid files) means nothing in here.  /tmp is
# left to the overlay on purpose: it is writable (and discarded) as it
# is, and build trees under the host's /tmp stay visible.
mount -t tmpfs -o mode=0755 tmpfs "$R/run"
mkdir -p "$R/run/vm-xfer"
mount --bind /xfer "$R/run/vm-xfer"

# The guest kernel's own module tree (in the cache, seen through the
# host root) where modprobe looks for it, so tests can modprobe anything
# Debian's package has.
if [ -d "$R$MODROOT/lib/modules/$KVER" ]; then
	mkdir -p "$R/lib/modules/$KVER"
	mount --bind "$R$MODROOT/lib/modules/$KVER" "$R/lib/modules/$KVER"
fi

# Host directories seen read-only at their own path (vm-run.sh --ro: an
# arm64 guest's root is the arm64 sysroot, not the host's /), then those
# the test may write to for real (vm-run.sh --rw), which may lie inside.
i=0
for dir in $RO_DIRS; do
	i=$((i + 1))
	mkdir -p "$R$dir"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro \
		"ro$i" "$R$dir" || say "cannot mount $dir"
done
i=0
for dir in $RW_DIRS; do
	i=$((i + 1))
	mkdir -p "$R$dir"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 \
		"rw$i" "$R$dir" || say "cannot mount $dir writable"
done

# Soft-RoCE on a dummy netdev, for the verbs tests; only where the host
# has iproute2's rdma tool to set it up.  busybox's ip (no 9p) makes the
# netdev.
if [ "$RDMA" = 1 ]; then
	rdma=
	for d in /usr/bin /usr/sbin /bin /sbin; do
		[ -x "$R$d/rdma" ] && rdma=$d/rdma && break
	done
	if [ -z "$rdma" ]; then
		say "no rdma tool on the host: no soft-RoCE device"
	elif ! { ip link add dummy0 type dummy && ip link set dummy0 up &&
		 chroot "$R" "$rdma" link add rxe0 type rxe netdev dummy0; }; then
		say "soft-RoCE (rxe0 on dummy0) setup failed"
	fi
fi

# The time limit, kept here rather than around each command: a
# watchdog from the initramfs costs no exec over 9p, and still saves the
# kernel log when a test hangs.  QEMU started about when the guest's
# clock did; MARGIN leaves time to save the log and power off before
# vm-run.sh kills QEMU.
read -r up _ </proc/uptime
up=${up%.*}
budget=$((TIMEOUT - MARGIN - up))
[ "$budget" -gt 0 ] || budget=1
(
	sleep "$budget"
	mark "watchdog: out of time after ${budget}s"
	echo timeout >/xfer/timed-out
	dmesg >/xfer/dmesg.txt
	sync
	poweroff -f
) &
watchdog=$!

mark "root ready"
chroot "$R" /usr/bin/env -i /bin/bash /run/vm-xfer/guest-run.sh ||
	say "stage 2 failed: $?"
kill "$watchdog" 2>/dev/null

mark "stage 2 done"
dmesg >/xfer/dmesg.txt
sync
