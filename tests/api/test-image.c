/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers (accel-image.h): the format table and texel sizes,
 * OpenCL's conversion rules in pack/unpack, layouts (resolve, DRM), and
 * image and sampler arguments through a native kernel that looks at the
 * struct accel_wg_image it is given.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include "test-common.h"

#define F(o, t)                                                                \
	((struct accel_image_format){ ACCEL_IMAGE_ORDER_##o,                   \
				      ACCEL_IMAGE_DATA_##t })

static const uint32_t all_types[] = {
	ACCEL_IMAGE_1D, ACCEL_IMAGE_1D_BUFFER, ACCEL_IMAGE_1D_ARRAY,
	ACCEL_IMAGE_2D, ACCEL_IMAGE_2D_ARRAY,   ACCEL_IMAGE_3D,
};

/* ---- formats ---------------------------------------------------------- */

static void test_texel_sizes(void **state)
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

static void test_device_formats(void **state)
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

static void test_device_limits(void **state)
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

/* ---- conversions ------------------------------------------------------ */

static void pack(struct accel_image_format f, const void *color, void *texel)
{
	assert_int_equal(accel_image_pack_texel(&f, color, texel), 0);
}

static void unpack(struct accel_image_format f, const void *texel,
		   void *color)
{
	assert_int_equal(accel_image_unpack_texel(&f, texel, color), 0);
}

static void assert_floats(const float *got, const float *want, float tol)
{
	for (int i = 0; i < 4; i++)
		if (!(fabsf(got[i] - want[i]) <= tol))
			fail_msg("channel %d: %.9g, expected %.9g", i,
				 (double)got[i], (double)want[i]);
}

static void test_normalized(void **state)
{
	uint8_t t8[4];
	int8_t s8[4];
	uint16_t t16[4];
	int16_t s16[4];
	float out[4];

	(void)state;
	/* UNORM_INT8: 0.5 * 255 = 127.5 rounds to even: 128 */
	pack(F(RGBA, UNORM_INT8), (float[]){ 0.5f, 1.0f, 0.0f, 2.0f }, t8);
	assert_memory_equal(t8, ((uint8_t[]){ 128, 255, 0, 255 }), 4);
	/* saturation below, NaN to 0, ties to even (2.5/255 -> 2) */
	pack(F(RGBA, UNORM_INT8),
	     (float[]){ -1.0f, NAN, 2.5f / 255.0f, 3.5f / 255.0f }, t8);
	assert_memory_equal(t8, ((uint8_t[]){ 0, 0, 2, 4 }), 4);
	unpack(F(RGBA, UNORM_INT8), (uint8_t[]){ 0, 255, 128, 51 }, out);
	assert_floats(out, (float[]){ 0.0f, 1.0f, 128.0f / 255.0f, 0.2f }, 0);

	/* SNORM_INT8: -1.0 -> -127 (not -128), -2.0 saturates to -128 */
	pack(F(RGBA, SNORM_INT8), (float[]){ -1.0f, 1.0f, -2.0f, 0.5f }, s8);
	assert_memory_equal(s8, ((int8_t[]){ -127, 127, -128, 64 }), 4);
	/* -128 reads as -1.0, not below */
	unpack(F(RGBA, SNORM_INT8), (int8_t[]){ -128, -127, 127, 0 }, out);
	assert_floats(out, (float[]){ -1.0f, -1.0f, 1.0f, 0.0f }, 0);
	pack(F(R, SNORM_INT8), (float[]){ NAN, 0, 0, 0 }, s8);
	assert_int_equal(s8[0], 0);

	pack(F(RGBA, UNORM_INT16), (float[]){ 0.5f, 1.5f, -0.1f, 1.0f },
	     t16);
	/* 32767.5 ties to even 32768 */
	assert_memory_equal(t16, ((uint16_t[]){ 32768, 65535, 0, 65535 }),
			    8);
	unpack(F(RG, UNORM_INT16), (uint16_t[]){ 65535, 0 }, out);
	assert_floats(out, (float[]){ 1.0f, 0.0f, 0.0f, 1.0f }, 0);
	pack(F(RGBA, SNORM_INT16), (float[]){ -1.0f, 1.0f, 0.25f, -5.0f },
	     s16);
	assert_memory_equal(s16, ((int16_t[]){ -32767, 32767, 8192, -32768 }),
			    8);
	unpack(F(R, SNORM_INT16), (int16_t[]){ -32768 }, out);
	assert_floats(out, (float[]){ -1.0f, 0.0f, 0.0f, 1.0f }, 0);
}

static void test_integers(void **state)
{
	int8_t s8[4];
	uint8_t u8[4];
	int16_t s16[2];
	uint16_t u16[2];
	int32_t s32[4], iout[4];
	uint32_t u32[4], uout[4];

	(void)state;
	/* write_imagei/ui saturate to the channel's range */
	pack(F(RGBA, SIGNED_INT8), (int32_t[]){ -200, 200, -5, 127 }, s8);
	assert_memory_equal(s8, ((int8_t[]){ -128, 127, -5, 127 }), 4);
	pack(F(RGBA, UNSIGNED_INT8), (uint32_t[]){ 300, 255, 7, 0 }, u8);
	assert_memory_equal(u8, ((uint8_t[]){ 255, 255, 7, 0 }), 4);
	pack(F(RG, SIGNED_INT16), (int32_t[]){ -40000, 40000, 0, 0 }, s16);
	assert_memory_equal(s16, ((int16_t[]){ -32768, 32767 }), 4);
	pack(F(RG, UNSIGNED_INT16), (uint32_t[]){ 70000, 65535, 0, 0 }, u16);
	assert_memory_equal(u16, ((uint16_t[]){ 65535, 65535 }), 4);
	pack(F(RGBA, SIGNED_INT32),
	     (int32_t[]){ INT32_MIN, INT32_MAX, -1, 0 }, s32);
	assert_memory_equal(s32, ((int32_t[]){ INT32_MIN, INT32_MAX, -1, 0 }),
			    16);
	pack(F(RGBA, UNSIGNED_INT32), (uint32_t[]){ UINT32_MAX, 1, 2, 3 },
	     u32);
	assert_memory_equal(u32, ((uint32_t[]){ UINT32_MAX, 1, 2, 3 }), 16);

	/* reads sign-extend; missing channels 0 and alpha the integer 1 */
	unpack(F(R, SIGNED_INT8), (int8_t[]){ -3 }, iout);
	assert_memory_equal(iout, ((int32_t[]){ -3, 0, 0, 1 }), 16);
	unpack(F(RG, SIGNED_INT16), (int16_t[]){ -32768, 5 }, iout);
	assert_memory_equal(iout, ((int32_t[]){ -32768, 5, 0, 1 }), 16);
	unpack(F(A, UNSIGNED_INT16), (uint16_t[]){ 65535 }, uout);
	assert_memory_equal(uout, ((uint32_t[]){ 0, 0, 0, 65535 }), 16);
	unpack(F(RA, UNSIGNED_INT8), (uint8_t[]){ 200, 9 }, uout);
	assert_memory_equal(uout, ((uint32_t[]){ 200, 0, 0, 9 }), 16);
}

static uint16_t half_of(float f)
{
	uint16_t h;

	pack(F(R, HALF_FLOAT), (float[]){ f, 0, 0, 0 }, &h);
	return h;
}

static float float_of_half(uint16_t h)
{
	float out[4];

	unpack(F(R, HALF_FLOAT), &h, out);
	return out[0];
}

static void test_half(void **state)
{
	float nan_out;

	(void)state;
	assert_int_equal(half_of(1.0f), 0x3c00);
	assert_int_equal(half_of(-2.0f), 0xc000);
	assert_int_equal(half_of(0.0f), 0x0000);
	assert_int_equal(half_of(-0.0f), 0x8000);
	assert_int_equal(half_of(65504.0f), 0x7bff);
	/* halfway between 65504 and 65536 (infinity) rounds up to it */
	assert_int_equal(half_of(65520.0f), 0x7c00);
	assert_int_equal(half_of(65519.0f), 0x7bff);
	assert_int_equal(half_of(INFINITY), 0x7c00);
	assert_int_equal(half_of(-1e10f), 0xfc00);
	assert_int_equal(half_of(NAN) & 0x7c00, 0x7c00);
	assert_int_not_equal(half_of(NAN) & 0x3ff, 0);
	/* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1) */
	assert_int_equal(half_of(1.0f + 0x1p-11f), 0x3c00);
	/* 1 + 3 * 2^-11 is halfway between odd and even: to even (up) */
	assert_int_equal(half_of(1.0f + 3 * 0x1p-11f), 0x3c02);
	assert_int_equal(half_of(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
	/* subnormals: 2^-24 is the smallest, 2^-25 ties to even 0 */
	assert_int_equal(half_of(0x1p-24f), 0x0001);
	assert_int_equal(half_of(0x1p-25f), 0x0000);
	assert_int_equal(half_of(0x1.8p-24f), 0x0002); /* 1.5 -> 2 */
	assert_int_equal(half_of(0x1p-14f), 0x0400);  /* smallest normal */
	assert_int_equal(half_of(0x1.ff8p-15f), 0x03ff); /* largest subnormal */
	/* rounding a subnormal up into the smallest normal: a tie to even */
	assert_int_equal(half_of(0x1.ffcp-15f), 0x0400);
	assert_int_equal(half_of(0x1.ffap-15f), 0x03ff);

	assert_true(float_of_half(0x3c00) == 1.0f);
	assert_true(float_of_half(0x7bff) == 65504.0f);
	assert_true(float_of_half(0x0001) == 0x1p-24f);
	assert_true(float_of_half(0x83ff) == -0x1.ff8p-15f);
	assert_true(float_of_half(0xfc00) == -INFINITY);
	nan_out = float_of_half(0x7e00);
	assert_true(isnan(nan_out));
	/* every finite half survives the round trip */
	for (uint32_t h = 0; h < 0x10000; h++)
		if ((h & 0x7c00) != 0x7c00)
			assert_int_equal(half_of(float_of_half((uint16_t)h)),
					 h);
}

static void test_float_and_packed(void **state)
{
	float f[4], out[4];
	uint16_t w16;
	uint32_t w32;

	(void)state;
	/* FLOAT stores the bits as they are, NaN included */
	pack(F(RGBA, FLOAT), (float[]){ -1.5f, 1e30f, NAN, 0.0f }, f);
	assert_true(f[0] == -1.5f && f[1] == 1e30f && isnan(f[2]));

	/* 565: R 15:11, G 10:5, B 4:0 */
	pack(F(RGB, UNORM_SHORT_565), (float[]){ 1.0f, 0.0f, 1.0f, 0.3f },
	     &w16);
	assert_int_equal(w16, 0xf81f);
	pack(F(RGB, UNORM_SHORT_565), (float[]){ 0.0f, 1.0f, 0.5f, 0.0f },
	     &w16);
	/* 0.5 * 31 = 15.5 ties to 16 */
	assert_int_equal(w16, (63 << 5) | 16);
	unpack(F(RGB, UNORM_SHORT_565), &(uint16_t){ 0x07e0 }, out);
	assert_floats(out, (float[]){ 0.0f, 1.0f, 0.0f, 1.0f }, 0);
	unpack(F(RGB, UNORM_SHORT_565), &(uint16_t){ 1u << 11 }, out);
	assert_floats(out, (float[]){ 1.0f / 31, 0.0f, 0.0f, 1.0f }, 0);

	/* 555: R 14:10, bit 15 unused */
	pack(F(RGB, UNORM_SHORT_555), (float[]){ 1.0f, 0.0f, 0.0f, 1.0f },
	     &w16);
	assert_int_equal(w16, 0x7c00);
	unpack(F(RGB, UNORM_SHORT_555), &(uint16_t){ 0x801f }, out);
	assert_floats(out, (float[]){ 0.0f, 0.0f, 1.0f, 1.0f }, 0);

	/* 101010: R 29:20, G 19:10, B 9:0 */
	pack(F(RGB, UNORM_INT_101010), (float[]){ 1.0f, 0.5f, 0.0f, 0.0f },
	     &w32);
	assert_int_equal(w32, (1023u << 20) | (512u << 10));
	unpack(F(RGB, UNORM_INT_101010), &(uint32_t){ 1023u }, out);
	assert_floats(out, (float[]){ 0.0f, 0.0f, 1.0f, 1.0f }, 0);

	/* 101010_2: R 31:22, G 21:12, B 11:2, A 1:0 */
	pack(F(RGBA, UNORM_INT_101010_2),
	     (float[]){ 1.0f, 0.0f, 1.0f, 1.0f / 3 }, &w32);
	assert_int_equal(w32, (1023u << 22) | (1023u << 2) | 1u);
	unpack(F(RGBA, UNORM_INT_101010_2), &(uint32_t){ 2u | (1u << 12) },
	       out);
	assert_floats(out, (float[]){ 0.0f, 1.0f / 1023, 0.0f, 2.0f / 3 },
		      0);
}

static void test_orders(void **state)
{
	uint8_t t[4];
	float out[4];

	(void)state;
	/* memory order follows the channel order */
	pack(F(BGRA, UNORM_INT8), (float[]){ 1.0f, 0.0f, 0.2f, 0.6f }, t);
	assert_memory_equal(t, ((uint8_t[]){ 51, 0, 255, 153 }), 4);
	pack(F(ARGB, UNORM_INT8), (float[]){ 1.0f, 0.0f, 0.2f, 0.6f }, t);
	assert_memory_equal(t, ((uint8_t[]){ 153, 255, 0, 51 }), 4);
	pack(F(ABGR, UNORM_INT8), (float[]){ 1.0f, 0.0f, 0.2f, 0.6f }, t);
	assert_memory_equal(t, ((uint8_t[]){ 153, 51, 0, 255 }), 4);
	unpack(F(ABGR, UNORM_INT8), (uint8_t[]){ 153, 51, 0, 255 }, out);
	assert_floats(out, (float[]){ 1.0f, 0.0f, 0.2f, 0.6f }, 0);
	/* A alone: writes alpha; R, G, B read 0 */
	pack(F(A, UNORM_INT8), (float[]){ 1.0f, 1.0f, 1.0f, 0.2f }, t);
	assert_int_equal(t[0], 51);
	unpack(F(A, UNORM_INT8), t, out);
	assert_floats(out, (float[]){ 0.0f, 0.0f, 0.0f, 0.2f }, 0);
	unpack(F(RA, UNORM_INT8), (uint8_t[]){ 255, 51 }, out);
	assert_floats(out, (float[]){ 1.0f, 0.0f, 0.0f, 0.2f }, 0);
	/* INTENSITY replicates to all four; LUMINANCE to RGB, A = 1 */
	unpack(F(INTENSITY, UNORM_INT8), (uint8_t[]){ 51 }, out);
	assert_floats(out, (float[]){ 0.2f, 0.2f, 0.2f, 0.2f }, 0);
	unpack(F(LUMINANCE, UNORM_INT8), (uint8_t[]){ 51 }, out);
	assert_floats(out, (float[]){ 0.2f, 0.2f, 0.2f, 1.0f }, 0);
	pack(F(INTENSITY, UNORM_INT8), (float[]){ 0.2f, 1.0f, 1.0f, 1.0f }, t);
	assert_int_equal(t[0], 51);
	/* DEPTH: the first component */
	pack(F(DEPTH, UNORM_INT16), (float[]){ 1.0f, 0.0f, 0.0f, 0.0f }, t);
	assert_int_equal(*(uint16_t *)t, 65535);
	unpack(F(DEPTH, FLOAT), &(float){ 0.25f }, out);
	assert_floats(out, (float[]){ 0.25f, 0.0f, 0.0f, 1.0f }, 0);

	assert_int_equal(accel_image_pack_texel(&F(RGB, UNORM_INT8),
						(float[4]){ 0 }, t),
			 -EINVAL);
	assert_int_equal(accel_image_unpack_texel(&F(RGBA, UNORM_INT8), NULL,
						  out),
			 -EINVAL);
	assert_int_equal(accel_image_pack_texel(NULL, out, t), -EINVAL);
}

static void test_srgb(void **state)
{
	uint8_t t[4];
	float out[4];

	(void)state;
	/* reads decode R, G, B; alpha stays linear */
	unpack(F(sRGBA, UNORM_INT8), (uint8_t[]){ 0, 255, 128, 128 }, out);
	assert_floats(out, (float[]){ 0.0f, 1.0f, 0.2158605f,
				      128.0f / 255.0f },
		      1e-6f);
	unpack(F(sRGBA, UNORM_INT8), (uint8_t[]){ 10, 1, 188, 0 }, out);
	/* 10/255 is on the linear segment: /12.92 */
	assert_floats(out, (float[]){ 10.0f / 255 / 12.92f,
				      1.0f / 255 / 12.92f, 0.5028864f, 0.0f },
		      1e-6f);
	/* writes encode: linear 0.5 is sRGB 0.7353570 -> 187.52 -> 188 */
	pack(F(sRGBA, UNORM_INT8), (float[]){ 0.5f, 0.2158605f, 1.0f, 0.5f },
	     t);
	assert_memory_equal(t, ((uint8_t[]){ 188, 128, 255, 128 }), 4);
	pack(F(sBGRA, UNORM_INT8), (float[]){ 0.5f, -1.0f, 2.0f, NAN }, t);
	assert_memory_equal(t, ((uint8_t[]){ 255, 0, 188, 0 }), 4);
	/* every code survives decode then encode */
	for (unsigned v = 0; v < 256; v++) {
		uint8_t in[4] = { (uint8_t)v, (uint8_t)v, (uint8_t)v,
				  (uint8_t)v };

		unpack(F(sRGBA, UNORM_INT8), in, out);
		pack(F(sRGBA, UNORM_INT8), out, t);
		assert_memory_equal(in, t, 4);
	}
}

/* Every format of the device: what is written reads back. */
static void test_roundtrip_all(void **state)
{
	struct test_env *env = *state;
	struct accel_image_format fmts[256];
	int n = accel_device_get_image_formats(env->dev, ACCEL_IMAGE_2D, 3,
					       TEST_ARRAY_SIZE(fmts), fmts);

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		uint32_t ui[4] = { 1, 2, 3, 1 }, uo[4];
		float fi[4] = { 0.0f, 1.0f, 0.0f, 1.0f }, fo[4];
		uint8_t texel[16], again[16];
		uint32_t size;
		const void *in;
		void *out;
		uint32_t t = fmts[i].channel_type;
		bool ints = t >= ACCEL_IMAGE_DATA_SIGNED_INT8 &&
			    t <= ACCEL_IMAGE_DATA_UNSIGNED_INT32;

		in = ints ? (const void *)ui : (const void *)fi;
		out = ints ? (void *)uo : (void *)fo;
		assert_int_equal(accel_image_format_get_texel_size(&fmts[i],
								   &size),
				 0);
		memset(texel, 0xa5, sizeof(texel));
		pack(fmts[i], in, texel);
		/* exactly texel-size bytes written */
		for (uint32_t b = size; b < sizeof(texel); b++)
			assert_int_equal(texel[b], 0xa5);
		unpack(fmts[i], texel, out);
		/* and written again, the same bytes */
		memset(again, 0xa5, sizeof(again));
		pack(fmts[i], out, again);
		if (memcmp(texel, again, size))
			fail_msg("format %#x/%#x: not stable",
				 fmts[i].channel_order, t);
	}
}

/* ---- layouts ---------------------------------------------------------- */

static struct accel_image_layout layout2d(uint64_t w, uint64_t h)
{
	return (struct accel_image_layout){
		.struct_size = sizeof(struct accel_image_layout),
		.type = ACCEL_IMAGE_2D,
		.channel_order = ACCEL_IMAGE_ORDER_RGBA,
		.channel_type = ACCEL_IMAGE_DATA_UNORM_INT8,
		.width = w,
		.height = h,
	};
}

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

static void test_resolve(void **state)
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

static void test_drm(void **state)
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

/* ---- kernel arguments -------------------------------------------------- */

/* What the kernel saw, written by work-item (0, 0) of group 0. */
struct seen {
	uint64_t data;
	uint64_t row_pitch, slice_pitch;
	uint32_t width, height, depth, array_size;
	uint32_t type, channel_order, channel_type, texel_size;
	uint64_t sampler;
	uint32_t texel; /* the texel at (1, 2) */
	uint32_t calls;
};

/* look_image(image2d_t img, sampler_t s, global struct seen *out) */
static void look_image(void **args, const struct accel_wg_ctx *c)
{
	const struct accel_wg_image *img = args[0];
	uintptr_t sampler = *(const uintptr_t *)args[1];
	struct seen *out = *(struct seen *const *)args[2];

	if (c->group_id[0] || c->group_id[1] || c->group_id[2])
		return;
	out->data = (uint64_t)(uintptr_t)img->data;
	out->row_pitch = img->row_pitch;
	out->slice_pitch = img->slice_pitch;
	out->width = img->width;
	out->height = img->height;
	out->depth = img->depth;
	out->array_size = img->array_size;
	out->type = img->type;
	out->channel_order = img->channel_order;
	out->channel_type = img->channel_type;
	out->texel_size = img->texel_size;
	out->sampler = sampler;
	memcpy(&out->texel,
	       (const uint8_t *)img->data + 2 * img->row_pitch +
		       1 * img->texel_size,
	       sizeof(out->texel));
	out->calls++;
}

static struct accel_kernel_arg_desc image_arg(uint32_t type, uint32_t access)
{
	return (struct accel_kernel_arg_desc){
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_IMAGE,
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.image_type = type,
		.image_access = access,
	};
}

static const struct accel_kernel_arg_desc look_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_IMAGE,
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .image_type = ACCEL_IMAGE_2D,
	  .image_access = ACCEL_IMAGE_ACCESS_READ },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_SAMPLER },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER,
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_IMAGE,
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .image_type = ACCEL_IMAGE_2D,
	  .image_access = ACCEL_IMAGE_ACCESS_WRITE |
			  ACCEL_KERNEL_ARG_IMAGE_DEPTH },
};

static struct accel_kernel *look_kernel(struct test_env *env,
					struct accel_program **ret_prog)
{
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "look_image",
		.fn = look_image,
		.n_args = TEST_ARRAY_SIZE(look_args),
		.args = look_args,
	};
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_program_new_native(env->dev, &d, 1, ret_prog),
			 0);
	assert_int_equal(accel_kernel_new(*ret_prog, "look_image", &k), 0);
	return k;
}

static void test_arg_desc(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog);
	struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };

	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_IMAGE);
	assert_int_equal(d.size, sizeof(struct accel_wg_image));
	assert_int_equal(d.image_type, ACCEL_IMAGE_2D);
	assert_int_equal(d.image_access, ACCEL_IMAGE_ACCESS_READ);
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_SAMPLER);
	assert_int_equal(d.size, sizeof(void *));
	assert_int_equal(d.image_type, 0);
	assert_int_equal(accel_kernel_get_arg_desc(k, 3, &d), 0);
	assert_int_equal(d.image_access, ACCEL_IMAGE_ACCESS_WRITE |
						 ACCEL_KERNEL_ARG_IMAGE_DEPTH);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* Native descriptions of image arguments the core refuses. */
static void test_native_refused(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel_arg_desc a;
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "k",
		.fn = look_image,
		.n_args = 1,
		.args = &a,
	};
	struct accel_program *prog = TEST_SENTINEL_PTR;
	struct accel_kernel_arg_desc many[20];

	a = image_arg(0x10F0, ACCEL_IMAGE_ACCESS_READ); /* not an image */
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_2D, 0); /* no access */
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_2D, 1u << 4);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_3D,
		      ACCEL_IMAGE_ACCESS_READ | ACCEL_KERNEL_ARG_IMAGE_DEPTH);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_2D, ACCEL_IMAGE_ACCESS_READ);
	a.size = 8;
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	/* an older description without image_type cannot be an image */
	a = image_arg(ACCEL_IMAGE_2D, ACCEL_IMAGE_ACCESS_READ);
	a.struct_size = offsetof(struct accel_kernel_arg_desc, image_type);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = (struct accel_kernel_arg_desc){
		.struct_size = sizeof(a),
		.kind = ACCEL_KERNEL_ARG_SAMPLER,
		.size = 4,
	};
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	/* more samplers than the device's 16 */
	for (size_t i = 0; i < TEST_ARRAY_SIZE(many); i++)
		many[i] = (struct accel_kernel_arg_desc){
			.struct_size = sizeof(many[i]),
			.kind = ACCEL_KERNEL_ARG_SAMPLER,
		};
	d.args = many;
	d.n_args = TEST_ARRAY_SIZE(many);
	assert_true(test_dev_u64(env->dev, ACCEL_DEVICE_U64_MAX_SAMPLERS) <
		    TEST_ARRAY_SIZE(many));
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -E2BIG);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
}

/* As many read images as the device allows fit in the argument bytes. */
static void test_max_read_images(void **state)
{
	struct test_env *env = *state;
	uint64_t n = test_dev_u64(env->dev,
				  ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS);
	struct accel_kernel_arg_desc *a = calloc(n + 1, sizeof(*a));
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "k",
		.fn = look_image,
		.n_args = (uint32_t)n,
		.args = a,
	};
	struct accel_program *prog = NULL;

	assert_non_null(a);
	for (uint64_t i = 0; i <= n; i++)
		a[i] = image_arg(ACCEL_IMAGE_2D, ACCEL_IMAGE_ACCESS_READ);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog), 0);
	accel_program_unref(prog);
	d.n_args = (uint32_t)n + 1;
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -E2BIG);
	free(a);
}

static void test_set_arg_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog);
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_image_layout l = layout2d(16, 16), dl;
	struct accel_context *ctx2 = NULL;
	struct accel_device *dev2 = NULL;
	struct accel_buffer *buf2 = NULL;
	struct test_log log2;

	/* kinds and indices */
	assert_int_equal(accel_kernel_set_arg_image(k, 4, buf, &l), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_image(k, 1, buf, &l), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_image(k, 2, buf, &l), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_image(NULL, 0, buf, &l),
			 -EINVAL);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, NULL, &l), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, NULL), -EINVAL);
	/* 16 x 16 x 4 = 1024 bytes: fits, at 3072 just, at 3073 not */
	l.offset = 3072;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), 0);
	l.offset = 3073;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	l.offset = 0;
	l.row_pitch = 300;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	/* resolve's refusals */
	l = layout2d(16, 16);
	l.row_pitch = 8;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	l = layout2d(test_dev_u64(env->dev,
				  ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH) + 1, 1);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -E2BIG);
	/* the argument's type: image2d_t takes no 3D image, no depth one */
	l = layout2d(4, 4);
	l.type = ACCEL_IMAGE_3D;
	l.depth = 2;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	dl = layout2d(4, 4);
	dl.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	dl.channel_type = ACCEL_IMAGE_DATA_FLOAT;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &dl), -EINVAL);
	/* ... and image2d_depth_t only a depth one */
	assert_int_equal(accel_kernel_set_arg_image(k, 3, buf, &dl), 0);
	l = layout2d(4, 4);
	assert_int_equal(accel_kernel_set_arg_image(k, 3, buf, &l), -EINVAL);
	dl.type = ACCEL_IMAGE_2D_ARRAY;
	dl.array_size = 2;
	assert_int_equal(accel_kernel_set_arg_image(k, 3, buf, &dl), -EINVAL);

	/* a buffer of another context */
	test_log_init(&log2);
	assert_int_equal(test_context_new(&log2, &ctx2), 0);
	assert_int_equal(test_get_cpu_device(ctx2, &dev2), 0);
	assert_int_equal(accel_buffer_new(dev2, 4096, 0, &buf2), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf2, &l), -EINVAL);
	accel_buffer_unref(buf2);
	accel_device_unref(dev2);
	accel_context_unref(ctx2);
	test_log_fini(&log2);

	/* samplers */
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_FILTER_NEAREST), 0);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_NORMALIZED_COORDS |
			ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT |
			ACCEL_SAMPLER_FILTER_LINEAR), 0);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_ADDRESS_CLAMP), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_FILTER_MASK), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			0x0a | ACCEL_SAMPLER_FILTER_NEAREST), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			0x40 | ACCEL_SAMPLER_FILTER_NEAREST), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 0,
			ACCEL_SAMPLER_FILTER_NEAREST), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 9,
			ACCEL_SAMPLER_FILTER_NEAREST), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_sampler(NULL, 1,
			ACCEL_SAMPLER_FILTER_NEAREST), -EINVAL);

	accel_buffer_unref(buf);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* Fill @buf's image (@l resolved) with texel (x, y) = x | y << 8 | tag. */
static void fill_image(struct test_env *env, struct accel_buffer *buf,
		       const struct accel_image_layout *l, uint32_t tag)
{
	uint64_t size = l->offset + l->height * l->row_pitch;
	uint8_t *host = calloc(1, size);

	assert_non_null(host);
	for (uint64_t y = 0; y < l->height; y++)
		for (uint64_t x = 0; x < l->width; x++) {
			uint32_t v = (uint32_t)(x | y << 8) | tag;

			memcpy(host + l->offset + y * l->row_pitch + x * 4, &v,
			       4);
		}
	test_write(env, buf, 0, size, host);
	free(host);
}

static void *buffer_address(struct accel_buffer *buf)
{
	void *p = NULL;

	/* the CPU device maps its buffers where they are */
	assert_int_equal(accel_buffer_map(buf, 0, accel_buffer_get_size(buf),
					  ACCEL_MAP_READ, &p),
			 0);
	assert_int_equal(accel_buffer_unmap(buf, p), 0);
	return p;
}

static void check_seen(struct test_env *env, struct accel_buffer *out,
		       struct accel_buffer *img,
		       const struct accel_image_layout *l, uint32_t sampler,
		       uint32_t tag)
{
	struct seen s;

	test_read(env, out, 0, sizeof(s), &s);
	assert_int_equal(s.calls, 1);
	assert_true(s.data == (uint64_t)(uintptr_t)buffer_address(img) +
				      l->offset);
	assert_int_equal(s.row_pitch, l->row_pitch);
	assert_int_equal(s.slice_pitch, l->row_pitch * l->height);
	assert_int_equal(s.width, l->width);
	assert_int_equal(s.height, l->height);
	assert_int_equal(s.depth, 1);
	assert_int_equal(s.array_size, 1);
	assert_int_equal(s.type, ACCEL_IMAGE_2D);
	assert_int_equal(s.channel_order, l->channel_order);
	assert_int_equal(s.channel_type, l->channel_type);
	assert_int_equal(s.texel_size, 4);
	assert_int_equal(s.sampler, sampler);
	assert_int_equal(s.texel, 1u | 2u << 8 | tag);
}

static void test_native_launch(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog), *clone = NULL;
	struct accel_buffer *img = test_buffer_new(env, 8192);
	struct accel_buffer *depth = test_buffer_new(env, 64);
	struct accel_buffer *out = test_buffer_new(env, sizeof(struct seen));
	struct accel_image_layout l = layout2d(5, 3);
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 1, 0, 0);
	struct accel_image_layout dl = layout2d(2, 2);
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	uint32_t sampler = ACCEL_SAMPLER_NORMALIZED_COORDS |
			   ACCEL_SAMPLER_ADDRESS_REPEAT |
			   ACCEL_SAMPLER_FILTER_LINEAR;
	struct seen zero = { 0 };

	l.row_pitch = 24; /* 5 texels and 4 bytes of padding */
	l.offset = 256;
	dl.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	dl.channel_type = ACCEL_IMAGE_DATA_FLOAT;
	fill_image(env, img, &l, 0xab000000u);
	test_write(env, out, 0, sizeof(zero), &zero);

	/* unset image and sampler arguments stop the launch */
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, out), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 3, depth, &dl), 0);
	assert_int_equal(accel_kernel_check_launch(k, &r, &c), 0);
	assert_int_equal(c.error, -ENOEXEC);
	assert_int_equal(c.reason, ACCEL_LAUNCH_ARG_NOT_SET);
	assert_int_equal(c.arg_index, 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, img, &l), 0);
	assert_int_equal(accel_kernel_check_launch(k, &r, &c), 0);
	assert_int_equal(c.arg_index, 1);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1, sampler), 0);

	test_launch_wait(env, k, &r);
	check_seen(env, out, img, &l, sampler, 0xab000000u);

	/*
	 * A clone holds its own reference on the image's buffer: the
	 * kernel's changes and the caller's unref do not reach it.
	 */
	assert_int_equal(accel_kernel_clone(k, &clone), 0);
	{
		struct accel_image_layout other = layout2d(3, 3);
		struct accel_buffer *img2 = test_buffer_new(env, 4096);

		assert_int_equal(accel_kernel_set_arg_image(k, 0, img2,
							    &other),
				 0);
		accel_buffer_unref(img2);
	}
	test_write(env, out, 0, sizeof(zero), &zero);
	test_launch_wait(env, clone, &r);
	check_seen(env, out, img, &l, sampler, 0xab000000u);

	/* a sub-buffer: data is the sub-buffer's address + the offset */
	{
		struct accel_buffer *sub = NULL;
		struct accel_image_layout sl = l;

		assert_int_equal(accel_buffer_new_sub(img, 128, 4096, 0, &sub),
				 0);
		sl.offset = 128; /* the same texels, from the sub-buffer */
		assert_int_equal(accel_kernel_set_arg_image(k, 0, sub, &sl),
				 0);
		test_write(env, out, 0, sizeof(zero), &zero);
		test_launch_wait(env, k, &r);
		check_seen(env, out, sub, &sl, sampler, 0xab000000u);
		accel_buffer_unref(sub);
	}

	accel_kernel_unref(clone);
	accel_buffer_unref(img);
	accel_buffer_unref(depth);
	accel_buffer_unref(out);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* A recorded launch keeps its image; an update replaces it. */
static void test_cmdlist(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog);
	struct accel_buffer *img = test_buffer_new(env, 4096);
	struct accel_buffer *img2 = test_buffer_new(env, 4096);
	struct accel_buffer *depth = test_buffer_new(env, 64);
	struct accel_buffer *out = test_buffer_new(env, sizeof(struct seen));
	struct accel_image_layout l = layout2d(4, 4), dl = layout2d(2, 2);
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 1, 0, 0);
	struct accel_cmdlist *list = NULL;
	struct accel_fence *f = NULL;
	struct seen zero = { 0 };
	uint32_t point;

	assert_int_equal(accel_image_layout_resolve(env->dev, &l, &l, NULL),
			 0);
	dl.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	dl.channel_type = ACCEL_IMAGE_DATA_UNORM_INT16;
	fill_image(env, img, &l, 0x11000000u);
	fill_image(env, img2, &l, 0x22000000u);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, img, &l), 0);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_FILTER_NEAREST), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, out), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 3, depth, &dl), 0);

	assert_int_equal(accel_cmdlist_new(env->dev, 0, &list), 0);
	assert_int_equal(accel_cmdlist_launch(list, k, &r, 0, NULL, &point),
			 0);
	assert_int_equal(accel_cmdlist_finalize(list), 0);
	/* changing the kernel after recording changes nothing recorded */
	assert_int_equal(accel_kernel_set_arg_image(k, 0, img2, &l), 0);
	test_write(env, out, 0, sizeof(zero), &zero);
	assert_int_equal(accel_queue_submit_list(env->queue, list, 0, NULL,
						 &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	check_seen(env, out, img, &l, ACCEL_SAMPLER_FILTER_NEAREST,
		   0x11000000u);

	assert_int_equal(accel_cmdlist_update_launch(list, point, k, NULL),
			 0);
	test_write(env, out, 0, sizeof(zero), &zero);
	assert_int_equal(accel_queue_submit_list(env->queue, list, 0, NULL,
						 &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	check_seen(env, out, img2, &l, ACCEL_SAMPLER_FILTER_NEAREST,
		   0x22000000u);

	accel_cmdlist_unref(list);
	accel_buffer_unref(img);
	accel_buffer_unref(img2);
	accel_buffer_unref(depth);
	accel_buffer_unref(out);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texel_sizes),
		T(test_device_formats),
		T(test_device_limits),
		cmocka_unit_test(test_normalized),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_float_and_packed),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_srgb),
		T(test_roundtrip_all),
		T(test_resolve),
		T(test_drm),
		T(test_arg_desc),
		T(test_native_refused),
		T(test_max_read_images),
		T(test_set_arg_errors),
		T(test_native_launch),
		T(test_cmdlist),
	};

	return TEST_RUN_GROUP("image", tests);
}
