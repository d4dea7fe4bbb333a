/* SPDX-License-Identifier: MIT */
/*
 * find-device: see find-device.h.
 */
#include "find-device.h"

struct accel_device *find_device(struct accel_context *ctx,
				 enum accel_device_type type)
{
	struct accel_device *devs[16], *found = NULL;
	uint64_t t;
	int n, i;

	n = accel_context_get_devices(ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		if (!found &&
		    accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &t) == 0 && t == type)
			found = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return found;
}
