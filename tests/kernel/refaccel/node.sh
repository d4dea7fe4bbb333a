#!/bin/bash
# SPDX-License-Identifier: MIT
#
# node.sh [--sysfs] [N]: prints the node of the N-th (default 0) refaccel
# device: its accel node (/dev/accel/accelN) where the kernel has the
# accel subsystem, else the DRM render node refaccel registers instead
# (/dev/dri/renderDN); with --sysfs the node's class folder
# (/sys/class/accel/accel0, /sys/class/drm/renderD129), whose "device"
# is the refaccel device. Nodes of other drivers (vgem's) are passed
# over. The order is ../refaccel-sysfs.c's: accel nodes first, each
# kind by number.
# Exit codes: 0 found, 1 no such node.

sysfs=0
if [ "${1:-}" = --sysfs ]; then
	sysfs=1
	shift
fi
want=${1:-0}

i=0
for kind in accel:accel:/dev/accel drm:renderD:/dev/dri; do
	IFS=: read -r class prefix dev <<<"$kind"
	for n in $(ls "/sys/class/$class" 2>/dev/null |
		sed -n "s/^$prefix\([0-9]\{1,\}\)\$/\1/p" | sort -n); do
		d=/sys/class/$class/$prefix$n
		drv=$(readlink -f "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = refaccel ] || continue
		if [ "$i" = "$want" ]; then
			if [ "$sysfs" = 1 ]; then
				echo "$d"
			else
				echo "$dev/$prefix$n"
			fi
			exit 0
		fi
		i=$((i + 1))
	done
done
exit 1
