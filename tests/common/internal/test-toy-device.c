/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "internal/test-toy-device.h"

void test_add_toy_device(struct accel_context *ctx,
			 const struct accel_backend_ops *ops, uint64_t caps)
{
	struct accel_device *dev;
	uint64_t *p;

	assert_int_equal(accel_device_alloc(ctx, ops, &dev), 0);
	p = dev->u64;
	p[ACCEL_DEVICE_U64_TYPE] = ACCEL_DEVICE_TYPE_ACCELERATOR;
	p[ACCEL_DEVICE_U64_CAPS] = ACCEL_DEVICE_CAP_BUILT_IN_KERNELS | caps;
	p[ACCEL_DEVICE_U64_COMPUTE_UNITS] = 1;
	p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE] = 1 << 20;
	p[ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE] = 1 << 20;
	p[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE] = 64;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS] = 3;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X] = 64;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y] = 64;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z] = 64;
	p[ACCEL_DEVICE_U64_MAX_KERNEL_ARGS] = 8;
	p[ACCEL_DEVICE_U64_MAX_ARG_BYTES] = 256;
	assert_int_equal(accel_device_set_string(dev,
		ACCEL_DEVICE_STRING_BACKEND, ops->name), 0);
	assert_int_equal(accel_context_add_device(ctx, dev), 0);
}
