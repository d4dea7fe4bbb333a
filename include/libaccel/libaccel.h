/* SPDX-License-Identifier: MIT */
/**
 * @file libaccel.h
 * @brief Umbrella header of libaccel, the open user-space accelerator runtime.
 *
 * Conventions used by every function in this API:
 * - Fallible functions return an int: >= 0 on success, a negative errno value
 *   on failure. Every function documents the errno values it returns.
 * - Constructors are `accel_x_new(..., struct accel_x **ret)`: out-parameters
 *   come last and are left untouched on failure.
 * - Objects are reference counted; they start with one reference.
 *   `accel_x_unref()` accepts NULL and always returns NULL. A child holds a
 *   reference on its parent, so objects may be released in any order.
 * - Unknown flag bits are rejected with -EINVAL so that flags can be added.
 * - File descriptors passed in are borrowed (libaccel duplicates them when
 *   it needs to keep them); file descriptors returned are owned by the caller.
 * - There is no global state: everything hangs off a struct accel_context.
 */
#ifndef LIBACCEL_H
#define LIBACCEL_H

#include <libaccel/accel-version.h>
#include <libaccel/accel-context.h>
#include <libaccel/accel-error.h>
#include <libaccel/accel-device.h>
#include <libaccel/accel-discovery.h>
#include <libaccel/accel-buffer.h>
#include <libaccel/accel-fence.h>
#include <libaccel/accel-program.h>
#include <libaccel/accel-image.h>
#include <libaccel/accel-queue.h>
#include <libaccel/accel-cmdlist.h>
#include <libaccel/accel-stats.h>

#endif /* LIBACCEL_H */
