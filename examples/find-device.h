/* SPDX-License-Identifier: MIT */
/*
 * find-device: the examples' way to pick a libaccel device by type.
 */
#ifndef FIND_DEVICE_H
#define FIND_DEVICE_H

#include <libaccel/libaccel.h>

/* The context's first device of @type (a new reference), or NULL. */
struct accel_device *find_device(struct accel_context *ctx,
				 enum accel_device_type type);

#endif
