/* SPDX-License-Identifier: MIT */
/*
 * refaccel's devices in sysfs: their nodes, for every test of the driver,
 * and for the tests that unbind and bind them (test-refaccel-unplug.c,
 * test-refaccel-cross.c) which node is whose, unbind and bind through the
 * driver's sysfs files, and the node of a device bound again (which may
 * come back under another number).
 *
 * A device's node is an accel node (/dev/accel/accelN) where the kernel
 * has the accel subsystem, else the DRM render node refaccel registers
 * instead (/dev/dri/renderDN, Debian's arm64 kernel); the tests find it
 * by the driver behind it, whichever it is.
 *
 * Only devices whose driver is refaccel are ever unbound: the driver's
 * realpath must end in /refaccel when the device is looked up and again
 * at each unbind.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef ACCEL_TEST_REFACCEL_SYSFS_H
#define ACCEL_TEST_REFACCEL_SYSFS_H

#include <stdbool.h>

/*
 * A refaccel node: @node, its device file; @sysfs, its class folder, whose
 * "device" is the refaccel device.
 */
struct refaccel_node {
	char node[64];		/* "/dev/accel/accel0", "/dev/dri/renderD129" */
	char sysfs[96];		/* "/sys/class/accel/accel0", ".../drm/renderD129" */
	const char *name;	/* "accel0", "renderD129": the end of both */
};

/*
 * The @index-th node whose device's driver is refaccel (accel nodes first,
 * each kind by number): -ENODEV if there are not that many.
 */
int refaccel_node_find(int index, struct refaccel_node *ret);

/*
 * @dev: realpath of the device of a refaccel node
 *       (/sys/class/accel/accelN/device, /sys/class/drm/renderDN/device)
 * @drv: realpath of its driver, ending in /refaccel
 * @name: the device's name, the last part of @dev
 * @bus: its subsystem ("pci", "platform", ...), in @busbuf
 */
struct refaccel_sysfs_dev {
	char *dev;
	char *drv;
	const char *name;
	const char *bus;
	char busbuf[32];
};

/*
 * The device of the refaccel node @node: -ENODEV if its driver is no
 * longer refaccel, -EACCES if this process may not unbind it.
 */
int refaccel_sysfs_get(const struct refaccel_node *node,
		       struct refaccel_sysfs_dev *d);
void refaccel_sysfs_put(struct refaccel_sysfs_dev *d);

/*
 * The devices of the refaccel nodes (at most @max, in the order of
 * refaccel_node_find()) into @d; returns how many (the caller puts each).
 */
int refaccel_sysfs_list(struct refaccel_sysfs_dev *d, int max);

bool refaccel_sysfs_bound(const struct refaccel_sysfs_dev *d);
/* Writes the device's name to the driver's unbind / bind file. */
int refaccel_sysfs_unbind(const struct refaccel_sysfs_dev *d);
int refaccel_sysfs_bind(const struct refaccel_sysfs_dev *d);

/*
 * Opens (O_RDWR | O_CLOEXEC) the node (accel or render) of the bound
 * device, waiting up to @timeout_ms for it to appear; returns the fd or a
 * negative errno.
 */
int refaccel_sysfs_open(const struct refaccel_sysfs_dev *d, int timeout_ms);

#endif /* ACCEL_TEST_REFACCEL_SYSFS_H */
