/* SPDX-License-Identifier: MIT */
/*
 * OpenCL's conversion rules in pack/unpack: normalized, integer, half,
 * float and packed types, channel orders, sRGB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-image.h"

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

void test_normalized(void **state)
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

void test_integers(void **state)
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

void test_half(void **state)
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

void test_float_and_packed(void **state)
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

void test_orders(void **state)
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

void test_srgb(void **state)
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
void test_roundtrip_all(void **state)
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
