/* SPDX-License-Identifier: MIT */
/*
 * Image layouts: resolve and DRM format modifiers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-image.h"

/* resolve must fail with @err and touch neither out-parameter */
static void resolve_fails(struct accel_device *dev,
			  const struct accel_image_layout *l, int err)
{
	struct accel_image_layout out;
	uint64_t size = TEST_SENTINEL_U64;

	memset(&out, 0x5e, sizeof(out));
	assert_int_equal(accel_image_layout_resolve(dev, l, &out, &size), err);
	assert_true(size == TEST_SENTINEL_U64);
	for (size_t i = 0; i < sizeof(out); i++)
		assert_int_equal(((uint8_t *)&out)[i], 0x5e);
}

void test_resolve(void **state)
{
	struct test_env *env = *state;
	struct accel_device *dev = env->dev;
	struct accel_image_layout l = layout2d(10, 3), out;
	uint64_t size, max2d;

	/* tight pitches; sizes that do not apply become 1 */
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, &size), 0);
	assert_int_equal(out.row_pitch, 40);
	assert_int_equal(out.slice_pitch, 120);
	assert_int_equal(out.depth, 1);
	assert_int_equal(out.array_size, 1);
	assert_int_equal(size, 120);
	assert_int_equal(out.struct_size, sizeof(out));

	/* given pitch and offset: the span ends at the last texel */
	l.row_pitch = 64;
	l.offset = 1000;
	assert_int_equal(accel_image_layout_resolve(dev, &l, &l, &size), 0);
	assert_int_equal(l.row_pitch, 64);
	assert_int_equal(size, 1000 + 2 * 64 + 40);
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, NULL), 0);

	/* 3D: slices */
	l = layout2d(4, 4);
	l.type = ACCEL_IMAGE_3D;
	l.depth = 5;
	l.channel_type = ACCEL_IMAGE_DATA_FLOAT;
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, &size), 0);
	assert_int_equal(out.row_pitch, 64);
	assert_int_equal(out.slice_pitch, 256);
	assert_int_equal(size, 5 * 256);
	l.slice_pitch = 320; /* whole texels, above the plane */
	l.row_pitch = 64;
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, &size), 0);
	assert_int_equal(size, 4 * 320 + 3 * 64 + 64);
	l.slice_pitch = 300; /* not whole texels */
	resolve_fails(dev, &l, -EINVAL);

	/* 1D array: layers are rows apart */
	l = layout2d(7, 0);
	l.type = ACCEL_IMAGE_1D_ARRAY;
	l.array_size = 3;
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, &size), 0);
	assert_int_equal(out.height, 1);
	assert_int_equal(out.slice_pitch, 28);
	assert_int_equal(size, 84);

	/* 1D buffer: a given row pitch means nothing */
	l = layout2d(100, 1);
	l.type = ACCEL_IMAGE_1D_BUFFER;
	l.row_pitch = 1000;
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, &size), 0);
	assert_int_equal(out.row_pitch, 400);

	/* -EINVAL: pitches */
	l = layout2d(10, 3);
	l.row_pitch = 36;
	resolve_fails(dev, &l, -EINVAL);
	l.row_pitch = 42; /* not whole texels */
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 4);
	l.type = ACCEL_IMAGE_2D_ARRAY;
	l.array_size = 2;
	l.slice_pitch = 60;
	resolve_fails(dev, &l, -EINVAL);
	/* -EINVAL: sizes */
	l = layout2d(0, 4);
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 0);
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 4);
	l.depth = 2; /* a 2D image has no slices */
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 4);
	l.type = ACCEL_IMAGE_1D; /* nor rows a 1D one */
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 1);
	l.type = ACCEL_IMAGE_2D_ARRAY; /* array_size 0 */
	resolve_fails(dev, &l, -EINVAL);
	/* -EINVAL: overflows */
	l = layout2d(4, 4);
	l.row_pitch = UINT64_MAX / 2 + 1;
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 4);
	l.offset = UINT64_MAX - 10;
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(UINT64_MAX / 2, 1);
	resolve_fails(dev, &l, -EINVAL);
	/* -EINVAL: type, format, struct */
	l = layout2d(4, 4);
	l.type = 0x10F0; /* CL_MEM_OBJECT_BUFFER */
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 4);
	l.channel_order = ACCEL_IMAGE_ORDER_RGB;
	resolve_fails(dev, &l, -EINVAL);
	l = layout2d(4, 4);
	l.struct_size = sizeof(l) - 8;
	resolve_fails(dev, &l, -EINVAL);
	assert_int_equal(accel_image_layout_resolve(NULL, &l, &out, NULL),
			 -EINVAL);
	assert_int_equal(accel_image_layout_resolve(dev, NULL, &out, NULL),
			 -EINVAL);
	assert_int_equal(accel_image_layout_resolve(dev, &l, NULL, NULL),
			 -EINVAL);

	/* -EOPNOTSUPP: a depth image that is not 2D */
	l = layout2d(4, 4);
	l.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	l.channel_type = ACCEL_IMAGE_DATA_FLOAT;
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, NULL), 0);
	l.type = ACCEL_IMAGE_3D;
	l.depth = 2;
	resolve_fails(dev, &l, -EOPNOTSUPP);

	/* -E2BIG: the device's limits */
	max2d = test_dev_u64(dev, ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH);
	l = layout2d(max2d, 1);
	assert_int_equal(accel_image_layout_resolve(dev, &l, &out, NULL), 0);
	l.width = max2d + 1;
	resolve_fails(dev, &l, -E2BIG);
	l = layout2d(1, test_dev_u64(dev,
				     ACCEL_DEVICE_U64_IMAGE2D_MAX_HEIGHT) + 1);
	resolve_fails(dev, &l, -E2BIG);
	l = layout2d(1, 1);
	l.type = ACCEL_IMAGE_3D;
	l.depth = test_dev_u64(dev, ACCEL_DEVICE_U64_IMAGE3D_MAX_DEPTH) + 1;
	resolve_fails(dev, &l, -E2BIG);
	l = layout2d(1, 0);
	l.type = ACCEL_IMAGE_1D_ARRAY;
	l.array_size =
		test_dev_u64(dev, ACCEL_DEVICE_U64_IMAGE_MAX_ARRAY_SIZE) + 1;
	resolve_fails(dev, &l, -E2BIG);
	l = layout2d(test_dev_u64(dev, ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE) +
			     1,
		     0);
	l.type = ACCEL_IMAGE_1D_BUFFER;
	l.channel_order = ACCEL_IMAGE_ORDER_R;
	resolve_fails(dev, &l, -E2BIG);
}

void test_drm(void **state)
{
	struct test_env *env = *state;
	static const struct {
		uint32_t fourcc;
		struct accel_image_format f;
		uint32_t texel;
	} cases[] = {
		{ DRM_FORMAT_ABGR8888, F(RGBA, UNORM_INT8), 4 },
		{ DRM_FORMAT_ARGB8888, F(BGRA, UNORM_INT8), 4 },
		{ DRM_FORMAT_R8, F(R, UNORM_INT8), 1 },
		{ DRM_FORMAT_GR88, F(RG, UNORM_INT8), 2 },
		{ DRM_FORMAT_R16, F(R, UNORM_INT16), 2 },
		{ DRM_FORMAT_GR1616, F(RG, UNORM_INT16), 4 },
		{ DRM_FORMAT_RGB565, F(RGB, UNORM_SHORT_565), 2 },
		{ DRM_FORMAT_ABGR16161616, F(RGBA, UNORM_INT16), 8 },
		{ DRM_FORMAT_ABGR16161616F, F(RGBA, HALF_FLOAT), 8 },
	};
	struct accel_image_layout l, out, untouched;
	uint64_t size;

	for (size_t i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		assert_int_equal(accel_image_layout_from_drm(
					 cases[i].fourcc, DRM_FORMAT_MOD_LINEAR,
					 640, 480, 6144, 8192, &l),
				 0);
		assert_int_equal(l.struct_size, sizeof(l));
		assert_int_equal(l.type, ACCEL_IMAGE_2D);
		assert_int_equal(l.channel_order, cases[i].f.channel_order);
		assert_int_equal(l.channel_type, cases[i].f.channel_type);
		assert_int_equal(l.width, 640);
		assert_int_equal(l.height, 480);
		assert_int_equal(l.row_pitch, 6144);
		assert_int_equal(l.offset, 8192);
		assert_int_equal(accel_image_layout_resolve(env->dev, &l,
							    &out, &size),
				 0);
		assert_int_equal(size, 8192 + 479 * 6144 +
					       640 * cases[i].texel);
	}
	/* pitch 0: tight, once resolved */
	assert_int_equal(accel_image_layout_from_drm(DRM_FORMAT_R8,
						     DRM_FORMAT_MOD_LINEAR, 33,
						     2, 0, 0, &l),
			 0);
	assert_int_equal(accel_image_layout_resolve(env->dev, &l, &out, &size),
			 0);
	assert_int_equal(out.row_pitch, 33);

	memset(&l, 0x5e, sizeof(l));
	untouched = l;
	assert_int_equal(accel_image_layout_from_drm(DRM_FORMAT_NV12,
						     DRM_FORMAT_MOD_LINEAR, 64,
						     64, 64, 0, &l),
			 -EOPNOTSUPP);
	assert_int_equal(accel_image_layout_from_drm(
				 DRM_FORMAT_ABGR8888,
				 I915_FORMAT_MOD_X_TILED, 64, 64, 256, 0, &l),
			 -EOPNOTSUPP);
	assert_int_equal(accel_image_layout_from_drm(DRM_FORMAT_ABGR8888,
						     DRM_FORMAT_MOD_INVALID,
						     64, 64, 256, 0, &l),
			 -EOPNOTSUPP);
	assert_int_equal(accel_image_layout_from_drm(DRM_FORMAT_ABGR8888,
						     DRM_FORMAT_MOD_LINEAR, 0,
						     64, 256, 0, &l),
			 -EINVAL);
	assert_int_equal(accel_image_layout_from_drm(DRM_FORMAT_ABGR8888,
						     DRM_FORMAT_MOD_LINEAR, 64,
						     0, 256, 0, &l),
			 -EINVAL);
	assert_memory_equal(&l, &untouched, sizeof(l));
	assert_int_equal(accel_image_layout_from_drm(DRM_FORMAT_ABGR8888,
						     DRM_FORMAT_MOD_LINEAR, 64,
						     64, 256, 0, NULL),
			 -EINVAL);
}
