/* SPDX-License-Identifier: MIT */
/*
 * Images where the public API cannot reach on this machine: a device
 * without ACCEL_DEVICE_CAP_IMAGES (a toy backend), and buffers whose host
 * mapping is read-only (what importing a read-only dma-buf gives, which
 * needs the VM tier's dma-bufs; here the flag is set as the import sets
 * it).
 */
#include <errno.h>
#include <string.h>

#include "test-common.h"
#include "internal/test-toy-device.h"

static int toy_buffer_alloc(struct accel_buffer *buf)
{
	(void)buf;
	return 0;
}

static void toy_buffer_free(struct accel_buffer *buf)
{
	(void)buf;
}

static int toy_execute(struct accel_queue *q, struct accel_cmd *cmd)
{
	(void)q;
	accel_cmd_complete(cmd, 0);
	return 0;
}

static const struct accel_backend_ops plain_ops = {
	.name = "plain",
	.buffer_alloc = toy_buffer_alloc,
	.buffer_free = toy_buffer_free,
	.execute = toy_execute,
};

static void test_device_without_images(void **state)
{
	struct test_env *env = *state;
	struct accel_device *devs[8], *dev = NULL;
	struct accel_image_format f;
	struct accel_image_layout l = {
		.struct_size = sizeof(l),
		.type = ACCEL_IMAGE_2D,
		.channel_order = ACCEL_IMAGE_ORDER_RGBA,
		.channel_type = ACCEL_IMAGE_DATA_UNORM_INT8,
		.width = 4,
		.height = 4,
	}, out;
	uint64_t v;
	int n;

	test_add_toy_device(env->ctx, &plain_ops, 0);
	n = accel_context_get_devices(env->ctx, devs, TEST_ARRAY_SIZE(devs));
	assert_true(n > 1 && n <= (int)TEST_ARRAY_SIZE(devs));
	for (int i = 0; i < n; i++) {
		if (devs[i]->ops == &plain_ops)
			dev = devs[i];
		else
			accel_device_unref(devs[i]);
	}
	assert_non_null(dev);

	assert_int_equal(accel_device_get_image_formats(dev, ACCEL_IMAGE_2D,
							ACCEL_IMAGE_ACCESS_READ,
							1, &f),
			 0);
	/* argument checks come first */
	assert_int_equal(accel_device_get_image_formats(dev, 0x10F0, 1, 0,
							NULL),
			 -EINVAL);
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, NULL),
			 -EOPNOTSUPP);
	for (int p = ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH;
	     p <= ACCEL_DEVICE_U64_MAX_SAMPLERS; p++) {
		assert_int_equal(accel_device_query_u64(dev, p, &v), 0);
		assert_int_equal(v, 0);
	}
	accel_device_unref(dev);
}

/* read_only: 0, write_only: 1, read_write: 2 */
static void ro_kernel(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static void test_readonly_mapping(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel_arg_desc a[3];
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "ro",
		.fn = ro_kernel,
		.n_args = 3,
		.args = a,
	};
	static const uint32_t access[3] = {
		ACCEL_IMAGE_ACCESS_READ,
		ACCEL_IMAGE_ACCESS_WRITE,
		ACCEL_IMAGE_ACCESS_READ | ACCEL_IMAGE_ACCESS_WRITE,
	};
	struct accel_image_layout l = {
		.struct_size = sizeof(l),
		.type = ACCEL_IMAGE_2D,
		.channel_order = ACCEL_IMAGE_ORDER_R,
		.channel_type = ACCEL_IMAGE_DATA_FLOAT,
		.width = 8,
		.height = 8,
	};
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 1, 0, 0);
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	struct accel_buffer *ro = NULL;
	struct accel_buffer *rw = test_buffer_new(env, 4096);
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;

	for (int i = 0; i < 3; i++)
		a[i] = (struct accel_kernel_arg_desc){
			.struct_size = sizeof(a[i]),
			.kind = ACCEL_KERNEL_ARG_IMAGE,
			.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
			.image_type = ACCEL_IMAGE_2D,
			.image_access = access[i],
		};
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "ro", &k), 0);
	/*
	 * As accel_buffer_import_dmabuf() makes a read-only dma-buf: a
	 * read-only buffer with a read-only mapping.
	 */
	assert_int_equal(accel_buffer_new(env->dev, 4096,
					  ACCEL_BUFFER_READ_ONLY, &ro),
			 0);
	ro->readonly_mapping = true;

	/* a read_only image may live there */
	assert_int_equal(accel_kernel_set_arg_image(k, 0, ro, &l), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 1, rw, &l), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 2, rw, &l), 0);
	assert_int_equal(accel_kernel_check_launch(k, &r, &c), 0);
	assert_int_equal(c.error, 0);
	test_launch_wait(env, k, &r);

	/* write_only and read_write images may not */
	for (uint32_t i = 1; i < 3; i++) {
		assert_int_equal(accel_kernel_set_arg_image(k, i, ro, &l), 0);
		assert_int_equal(accel_kernel_check_launch(k, &r, &c), 0);
		assert_int_equal(c.error, -EACCES);
		assert_int_equal(c.reason, ACCEL_LAUNCH_ARG_READ_ONLY);
		assert_int_equal(c.arg_index, i);
		assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL,
						    NULL),
				 -EACCES);
		assert_int_equal(accel_kernel_set_arg_image(k, i, rw, &l), 0);
	}

	ro->readonly_mapping = false;
	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(ro);
	accel_buffer_unref(rw);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_device_without_images),
		T(test_readonly_mapping),
	};

	return TEST_RUN_GROUP("image-internal", tests);
}
