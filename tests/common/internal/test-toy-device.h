/* SPDX-License-Identifier: MIT */
/*
 * A device of a toy backend added to a context as a backend's probe
 * would. INTERNAL tests only (it uses libaccel/backend.h), so it sits
 * outside the tests/common helpers every test links; a test lists it
 * in its SOURCES.
 */
#ifndef ACCEL_TEST_TOY_DEVICE_H
#define ACCEL_TEST_TOY_DEVICE_H

#include "backend.h"

/*
 * Add a device of @ops to @ctx: an accelerator with built-in kernels and
 * @caps, 1 MiB of memory, work-groups of up to 64 in each dimension, 8
 * arguments of 256 bytes. Fails the test on error.
 */
void test_add_toy_device(struct accel_context *ctx,
			 const struct accel_backend_ops *ops, uint64_t caps);

#endif /* ACCEL_TEST_TOY_DEVICE_H */
