/* SPDX-License-Identifier: MIT */
/*
 * refaccel's devices in sysfs, for the tests that unbind and bind them
 * (test-refaccel-unplug.c, test-refaccel-cross.c): which accel node is
 * whose, unbind and bind through the driver's sysfs files, and the node
 * of a device bound again (which may come back under another number).
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
 * @dev: realpath of /sys/class/accel/accelN/device
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
 * The device behind /sys/class/accel/@minor (e.g. "accel0"): -ENODEV if
 * there is none or its driver is not refaccel, -EACCES if this process
 * may not unbind it.
 */
int refaccel_sysfs_get(const char *minor, struct refaccel_sysfs_dev *d);
void refaccel_sysfs_put(struct refaccel_sysfs_dev *d);

/*
 * The refaccel devices behind accel0, accel1, ... (at most @max, in
 * minor order) into @d; returns how many (the caller puts each).
 */
int refaccel_sysfs_list(struct refaccel_sysfs_dev *d, int max);

bool refaccel_sysfs_bound(const struct refaccel_sysfs_dev *d);
/* Writes the device's name to the driver's unbind / bind file. */
int refaccel_sysfs_unbind(const struct refaccel_sysfs_dev *d);
int refaccel_sysfs_bind(const struct refaccel_sysfs_dev *d);

/*
 * Opens (O_RDWR | O_CLOEXEC) the accel node of the bound device, waiting
 * up to @timeout_ms for it to appear; returns the fd or a negative errno.
 */
int refaccel_sysfs_open(const struct refaccel_sysfs_dev *d, int timeout_ms);

#endif /* ACCEL_TEST_REFACCEL_SYSFS_H */
