/* SPDX-License-Identifier: MIT */
/*
 * The format table, texel sizes and the device's formats and limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-image.h"

static const uint32_t all_types[] = {
	ACCEL_IMAGE_1D, ACCEL_IMAGE_1D_BUFFER, ACCEL_IMAGE_1D_ARRAY,
	ACCEL_IMAGE_2D, ACCEL_IMAGE_2D_ARRAY,   ACCEL_IMAGE_3D,
};

/* ---- formats ---------------------------------------------------------- */

void test_texel_sizes(void **state)
{
	static const struct {
		struct accel_image_format f;
		uint32_t size; /* 0: invalid */
	} cases[] = {
		{ F(R, UNORM_INT8), 1 },
		{ F(A, FLOAT), 4 },
		{ F(RG, HALF_FLOAT), 4 },
		{ F(RA, SIGNED_INT16), 4 },
		{ F(RGBA, UNORM_INT8), 4 },
		{ F(RGBA, FLOAT), 16 },
		{ F(RGBA, UNSIGNED_INT32), 16 },
		{ F(RGBA, UNORM_INT_101010_2), 4 },
		{ F(BGRA, UNORM_INT8), 4 },
		{ F(ARGB, SIGNED_INT8), 4 },
		{ F(ABGR, SNORM_INT8), 4 },
		{ F(RGB, UNORM_SHORT_565), 2 },
		{ F(RGB, UNORM_SHORT_555), 2 },
		{ F(RGB, UNORM_INT_101010), 4 },
		{ F(INTENSITY, UNORM_INT16), 2 },
		{ F(LUMINANCE, FLOAT), 4 },
		{ F(DEPTH, UNORM_INT16), 2 },
		{ F(DEPTH, FLOAT), 4 },
		{ F(sRGBA, UNORM_INT8), 4 },
		{ F(sBGRA, UNORM_INT8), 4 },
		/* combinations the spec does not allow */
		{ F(RGB, UNORM_INT8), 0 },
		{ F(RGBA, UNORM_SHORT_565), 0 },
		{ F(R, UNORM_INT_101010_2), 0 },
		{ F(BGRA, FLOAT), 0 },
		{ F(BGRA, UNORM_INT16), 0 },
		{ F(ABGR, HALF_FLOAT), 0 },
		{ F(INTENSITY, SIGNED_INT8), 0 },
		{ F(LUMINANCE, UNSIGNED_INT32), 0 },
		{ F(DEPTH, UNORM_INT8), 0 },
		{ F(DEPTH, HALF_FLOAT), 0 },
		{ F(sRGBA, UNORM_INT16), 0 },
		{ { 0x10BA, ACCEL_IMAGE_DATA_FLOAT }, 0 }, /* CL_Rx: not ours */
		{ { ACCEL_IMAGE_ORDER_R, 0x10DF }, 0 },    /* CL_UNORM_INT24 */
		{ { 0, 0 }, 0 },
	};
	uint32_t size;

	(void)state;
	for (size_t i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		size = 0xdead;
		if (!cases[i].size) {
			assert_int_equal(accel_image_format_get_texel_size(
						 &cases[i].f, &size),
					 -EINVAL);
			assert_int_equal(size, 0xdead);
			continue;
		}
		assert_int_equal(accel_image_format_get_texel_size(&cases[i].f,
								   &size),
				 0);
		if (size != cases[i].size)
			fail_msg("case %zu: %u bytes, expected %u", i, size,
				 cases[i].size);
	}
	assert_int_equal(accel_image_format_get_texel_size(NULL, &size),
			 -EINVAL);
	assert_int_equal(accel_image_format_get_texel_size(&cases[0].f, NULL),
			 -EINVAL);
}

/* Every (order, type) pair of the enums that accel-image.h allows. */
static const uint32_t all_orders[] = {
	0x10B0, 0x10B1, 0x10B2, 0x10B3, 0x10B4, 0x10B5, 0x10B6,
	0x10B7, 0x10B8, 0x10B9, 0x10BD, 0x10C1, 0x10C2, 0x10C3,
};
static const uint32_t all_data[] = {
	0x10D0, 0x10D1, 0x10D2, 0x10D3, 0x10D4, 0x10D5, 0x10D6, 0x10D7,
	0x10D8, 0x10D9, 0x10DA, 0x10DB, 0x10DC, 0x10DD, 0x10DE, 0x10E0,
};

static unsigned count_valid(bool depth)
{
	unsigned n = 0;
	uint32_t s;

	for (size_t i = 0; i < TEST_ARRAY_SIZE(all_orders); i++)
		for (size_t j = 0; j < TEST_ARRAY_SIZE(all_data); j++) {
			struct accel_image_format f = { all_orders[i],
							all_data[j] };

			if (!depth && f.channel_order == ACCEL_IMAGE_ORDER_DEPTH)
				continue;
			n += accel_image_format_get_texel_size(&f, &s) == 0;
		}
	return n;
}

void test_device_formats(void **state)
{
	struct test_env *env = *state;
	struct accel_image_format fmts[256], one = { 0x5e57, 0x5e57 };
	unsigned all = count_valid(true), plain = count_valid(false);
	uint32_t access, s;
	int n;

	assert_true(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
		    ACCEL_DEVICE_CAP_IMAGES);
	/* 5 plain orders x 12 types + 101010_2, RGB x 3, 3 x 8-bit x 4,
	 * INTENSITY/LUMINANCE x 6, sRGBA/sBGRA, DEPTH x 2 */
	assert_int_equal(all, 5 * 12 + 1 + 3 + 3 * 4 + 2 * 6 + 2 + 2);
	for (size_t t = 0; t < TEST_ARRAY_SIZE(all_types); t++) {
		bool depth = all_types[t] == ACCEL_IMAGE_2D ||
			     all_types[t] == ACCEL_IMAGE_2D_ARRAY;

		for (access = 1; access <= 3; access++) {
			n = accel_device_get_image_formats(
				env->dev, all_types[t], access,
				TEST_ARRAY_SIZE(fmts), fmts);
			assert_int_equal(n, depth ? all : plain);
			for (int i = 0; i < n; i++) {
				assert_int_equal(
					accel_image_format_get_texel_size(
						&fmts[i], &s),
					0);
				for (int j = 0; j < i; j++)
					assert_false(
						fmts[i].channel_order ==
							fmts[j].channel_order &&
						fmts[i].channel_type ==
							fmts[j].channel_type);
			}
		}
	}
	/* counting only, and a short array */
	assert_int_equal(accel_device_get_image_formats(env->dev,
							ACCEL_IMAGE_3D, 1, 0,
							NULL),
			 (int)plain);
	assert_int_equal(accel_device_get_image_formats(
				 env->dev, ACCEL_IMAGE_3D, 1, 1, &one),
			 (int)plain);
	assert_int_equal(one.channel_order, fmts[0].channel_order);

	assert_int_equal(accel_device_get_image_formats(NULL, ACCEL_IMAGE_2D,
							1, 0, NULL),
			 -EINVAL);
	assert_int_equal(accel_device_get_image_formats(env->dev, 0x10F0, 1,
							0, NULL),
			 -EINVAL);
	assert_int_equal(accel_device_get_image_formats(env->dev,
							ACCEL_IMAGE_2D, 0, 0,
							NULL),
			 -EINVAL);
	assert_int_equal(accel_device_get_image_formats(env->dev,
							ACCEL_IMAGE_2D, 4, 0,
							NULL),
			 -EINVAL);
	assert_int_equal(accel_device_get_image_formats(env->dev,
							ACCEL_IMAGE_2D, 1, 1,
							NULL),
			 -EINVAL);
}

void test_device_limits(void **state)
{
	struct test_env *env = *state;
	struct accel_device *d = env->dev;

	/* OpenCL 3.0's minimums for a device with images */
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH) >=
		    16384);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE2D_MAX_HEIGHT) >=
		    16384);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE3D_MAX_WIDTH) >=
		    2048);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE3D_MAX_HEIGHT) >=
		    2048);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE3D_MAX_DEPTH) >=
		    2048);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE) >=
		    65536);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE) <=
		    INT32_MAX);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE_MAX_ARRAY_SIZE) >=
		    2048);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_IMAGE_PITCH_ALIGNMENT) >=
		    1);
	assert_true(test_dev_u64(d,
				 ACCEL_DEVICE_U64_IMAGE_BASE_ADDRESS_ALIGNMENT) >=
		    1);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS) >=
		    128);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_MAX_WRITE_IMAGE_ARGS) >=
		    64);
	assert_true(test_dev_u64(d, ACCEL_DEVICE_U64_MAX_SAMPLERS) >= 16);
}
