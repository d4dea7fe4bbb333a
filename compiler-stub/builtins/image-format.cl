/* SPDX-License-Identifier: MIT */
/*
 * Texels to colours and back, for every channel order and data type of
 * include/libaccel/accel-image.h, by OpenCL's conversion rules:
 * normalized integers to float exactly (c / 255.0f, SNORM clamped at -1),
 * float to normalized integers rounded to nearest even and saturated,
 * half rounded to nearest even, sRGB decoded on read and encoded on
 * write, missing channels read as 0 and alpha as 1.
 */
#include "image.h"

/* Channels a texel stores (packed types: one, holding R, G, B, A). */
static inline uint channels(uint order)
{
	switch (order) {
	case O_RG:
	case O_RA:
		return 2;
	case O_RGBA:
	case O_BGRA:
	case O_ARGB:
	case O_ABGR:
	case O_sRGBA:
	case O_sBGRA:
		return 4;
	default:
		return 1;
	}
}

/* Stored channels in memory order to (R, G, B, A). */
#define ORDER(T, one)                                                          \
	static inline T##4 order_##T(uint order, T##4 s)                      \
	{                                                                      \
		switch (order) {                                               \
		case O_A:                                                      \
			return (T##4)(0, 0, 0, s.x);                           \
		case O_RG:                                                     \
			return (T##4)(s.x, s.y, 0, one);                       \
		case O_RA:                                                     \
			return (T##4)(s.x, 0, 0, s.y);                         \
		case O_RGB:                                                    \
			return (T##4)(s.x, s.y, s.z, one);                     \
		case O_RGBA:                                                   \
		case O_sRGBA:                                                  \
			return s;                                              \
		case O_BGRA:                                                   \
		case O_sBGRA:                                                  \
			return s.zyxw;                                         \
		case O_ARGB:                                                   \
			return s.yzwx;                                         \
		case O_ABGR:                                                   \
			return s.wzyx;                                         \
		case O_INTENSITY:                                              \
			return s.xxxx;                                         \
		case O_LUMINANCE:                                              \
			return (T##4)(s.x, s.x, s.x, one);                     \
		default: /* R, DEPTH */                                        \
			return (T##4)(s.x, 0, 0, one);                         \
		}                                                              \
	}                                                                      \
	/* (R, G, B, A) to stored channels in memory order */                 \
	static inline T##4 unorder_##T(uint order, T##4 c)                    \
	{                                                                      \
		switch (order) {                                               \
		case O_A:                                                      \
			return c.wwww;                                         \
		case O_RA:                                                     \
			return c.xwxw;                                         \
		case O_BGRA:                                                   \
		case O_sBGRA:                                                  \
			return c.zyxw;                                         \
		case O_ARGB:                                                   \
			return c.wxyz;                                         \
		case O_ABGR:                                                   \
			return c.wzyx;                                         \
		default:                                                       \
			return c;                                              \
		}                                                              \
	}
ORDER(float, 1.0f)
ORDER(int, 1)
ORDER(uint, 1u)

static inline float srgb_to_linear(float c)
{
	return c <= 0.04045f ? c / 12.92f : powr((c + 0.055f) / 1.055f, 2.4f);
}

static inline float linear_to_srgb(float l)
{
	if (!(l > 0.0f))
		return 0.0f;
	if (l <= 0.0031308f)
		return 12.92f * l;
	return l >= 1.0f ? 1.0f : 1.055f * powr(l, 1.0f / 2.4f) - 0.055f;
}

static inline bool is_srgb(uint order)
{
	return order == O_sRGBA || order == O_sBGRA;
}

/* Channel i (< n) of the texel at p as a float, i as a selector. */
#define GET(T, i) ((global const T *)p)[i]
#define EACH(n, E)                                                             \
	(float4)(E(0), n > 1 ? E(1) : 0.0f, n > 2 ? E(2) : 0.0f,             \
		 n > 3 ? E(3) : 0.0f)
#define UN8(i) ((float)GET(uchar, i) / 255.0f)
#define SN8(i) fmax((float)GET(char, i) / 127.0f, -1.0f)
#define UN16(i) ((float)GET(ushort, i) / 65535.0f)
#define SN16(i) fmax((float)GET(short, i) / 32767.0f, -1.0f)
#define HF(i) ((float)GET(half, i))
#define FL(i) GET(float, i)
#define I8(i) ((float)GET(char, i))
#define U8(i) ((float)GET(uchar, i))
#define I16(i) ((float)GET(short, i))
#define U16(i) ((float)GET(ushort, i))
#define I32(i) ((float)GET(int, i))
#define U32(i) ((float)GET(uint, i))

float4 __accelc_img_load_f(global const struct img *d, global const uchar *p)
{
	uint n = channels(d->order), v;
	float4 s;

	switch (d->dtype) {
	case D_UNORM_INT8:
		s = EACH(n, UN8);
		if (is_srgb(d->order))
			s = (float4)(srgb_to_linear(s.x), srgb_to_linear(s.y),
				     srgb_to_linear(s.z), s.w);
		break;
	case D_SNORM_INT8:
		s = EACH(n, SN8);
		break;
	case D_UNORM_INT16:
		s = EACH(n, UN16);
		break;
	case D_SNORM_INT16:
		s = EACH(n, SN16);
		break;
	case D_HALF_FLOAT:
		s = EACH(n, HF);
		break;
	case D_FLOAT:
		s = EACH(n, FL);
		break;
	case D_UNORM_SHORT_565:
		v = *(global const ushort *)p;
		s = (float4)((float)(v >> 11) / 31.0f,
			     (float)((v >> 5) & 63) / 63.0f,
			     (float)(v & 31) / 31.0f, 1.0f);
		break;
	case D_UNORM_SHORT_555:
		v = *(global const ushort *)p;
		s = (float4)((float)((v >> 10) & 31) / 31.0f,
			     (float)((v >> 5) & 31) / 31.0f,
			     (float)(v & 31) / 31.0f, 1.0f);
		break;
	case D_UNORM_INT_101010:
		v = *(global const uint *)p;
		s = (float4)((float)((v >> 20) & 1023) / 1023.0f,
			     (float)((v >> 10) & 1023) / 1023.0f,
			     (float)(v & 1023) / 1023.0f, 1.0f);
		break;
	case D_UNORM_INT_101010_2:
		v = *(global const uint *)p;
		/* four channels (R, G, B, A), whatever the order says */
		return (float4)((float)(v >> 22) / 1023.0f,
				(float)((v >> 12) & 1023) / 1023.0f,
				(float)((v >> 2) & 1023) / 1023.0f,
				(float)(v & 3) / 3.0f);
	/* integer types through read_imagef: undefined, the values */
	case D_SIGNED_INT8:
		s = EACH(n, I8);
		break;
	case D_UNSIGNED_INT8:
		s = EACH(n, U8);
		break;
	case D_SIGNED_INT16:
		s = EACH(n, I16);
		break;
	case D_UNSIGNED_INT16:
		s = EACH(n, U16);
		break;
	case D_SIGNED_INT32:
		s = EACH(n, I32);
		break;
	default:
		s = EACH(n, U32);
		break;
	}
	return order_float(d->order, s);
}

#define EACHI(T, n, E)                                                         \
	(T##4)(E(0), n > 1 ? E(1) : 0, n > 2 ? E(2) : 0, n > 3 ? E(3) : 0)
#define RAW(T, i) ((uint)GET(T, i))

/* The stored integers, as uint bits (signed ones sign-extended). */
static inline uint4 load_bits(global const struct img *d,
			      global const uchar *p)
{
	uint n = channels(d->order);

	switch (d->dtype) {
	case D_SIGNED_INT8:
#define E(i) RAW(char, i)
		return EACHI(uint, n, E);
#undef E
	case D_UNSIGNED_INT8:
#define E(i) RAW(uchar, i)
		return EACHI(uint, n, E);
#undef E
	case D_SIGNED_INT16:
#define E(i) RAW(short, i)
		return EACHI(uint, n, E);
#undef E
	case D_UNSIGNED_INT16:
#define E(i) RAW(ushort, i)
		return EACHI(uint, n, E);
#undef E
	default:
#define E(i) RAW(uint, i)
		return EACHI(uint, n, E);
#undef E
	}
}

int4 __accelc_img_load_i(global const struct img *d, global const uchar *p)
{
	return order_int(d->order, as_int4(load_bits(d, p)));
}

uint4 __accelc_img_load_ui(global const struct img *d, global const uchar *p)
{
	return order_uint(d->order, load_bits(d, p));
}

#define PUT(T, i, v) (((global T *)p)[i] = (v))
#define STORE(T, n, E)                                                         \
	do {                                                                   \
		PUT(T, 0, E(s.x));                                             \
		if (n > 1)                                                     \
			PUT(T, 1, E(s.y));                                     \
		if (n > 2) {                                                   \
			PUT(T, 2, E(s.z));                                     \
			PUT(T, 3, E(s.w));                                     \
		}                                                              \
	} while (0)
#define TO_UN8(x) convert_uchar_sat_rte((x) * 255.0f)
#define TO_SN8(x) convert_char_sat_rte((x) * 127.0f)
#define TO_UN16(x) convert_ushort_sat_rte((x) * 65535.0f)
#define TO_SN16(x) convert_short_sat_rte((x) * 32767.0f)
#define TO_HF(x) ((half)(x))
#define TO_FL(x) (x)
#define TO_UNBITS(x, max) min(convert_uint_sat_rte((x) * (float)(max)), max##u)

void __accelc_img_store_f(global const struct img *d, global uchar *p,
			  float4 c)
{
	uint n = channels(d->order);
	float4 s = unorder_float(d->order, c);

	switch (d->dtype) {
	case D_UNORM_INT8:
		if (is_srgb(d->order))
			s = (float4)(linear_to_srgb(s.x), linear_to_srgb(s.y),
				     linear_to_srgb(s.z), s.w);
		STORE(uchar, n, TO_UN8);
		break;
	case D_SNORM_INT8:
		STORE(char, n, TO_SN8);
		break;
	case D_UNORM_INT16:
		STORE(ushort, n, TO_UN16);
		break;
	case D_SNORM_INT16:
		STORE(short, n, TO_SN16);
		break;
	case D_HALF_FLOAT:
		STORE(half, n, TO_HF);
		break;
	case D_FLOAT:
		STORE(float, n, TO_FL);
		break;
	case D_UNORM_SHORT_565:
		*(global ushort *)p = (ushort)(TO_UNBITS(c.x, 31) << 11 |
					       TO_UNBITS(c.y, 63) << 5 |
					       TO_UNBITS(c.z, 31));
		break;
	case D_UNORM_SHORT_555:
		*(global ushort *)p = (ushort)(TO_UNBITS(c.x, 31) << 10 |
					       TO_UNBITS(c.y, 31) << 5 |
					       TO_UNBITS(c.z, 31));
		break;
	case D_UNORM_INT_101010:
		*(global uint *)p = TO_UNBITS(c.x, 1023) << 20 |
				    TO_UNBITS(c.y, 1023) << 10 |
				    TO_UNBITS(c.z, 1023);
		break;
	case D_UNORM_INT_101010_2:
		*(global uint *)p = TO_UNBITS(c.x, 1023) << 22 |
				    TO_UNBITS(c.y, 1023) << 12 |
				    TO_UNBITS(c.z, 1023) << 2 |
				    TO_UNBITS(c.w, 3);
		break;
	default:
		/* an integer type through write_imagef: undefined */
		break;
	}
}

#define ID(x) (x)
void __accelc_img_store_i(global const struct img *d, global uchar *p,
			  int4 c)
{
	uint n = channels(d->order);
	int4 s = unorder_int(d->order, c);

	switch (d->dtype) {
	case D_SIGNED_INT8:
		STORE(char, n, convert_char_sat);
		break;
	case D_SIGNED_INT16:
		STORE(short, n, convert_short_sat);
		break;
	case D_SIGNED_INT32:
		STORE(int, n, ID);
		break;
	default:
		/* write_imagei of another type: undefined */
		break;
	}
}

void __accelc_img_store_ui(global const struct img *d, global uchar *p,
			   uint4 c)
{
	uint n = channels(d->order);
	uint4 s = unorder_uint(d->order, c);

	switch (d->dtype) {
	case D_UNSIGNED_INT8:
		STORE(uchar, n, convert_uchar_sat);
		break;
	case D_UNSIGNED_INT16:
		STORE(ushort, n, convert_ushort_sat);
		break;
	case D_UNSIGNED_INT32:
		STORE(uint, n, ID);
		break;
	default:
		/* write_imageui of another type: undefined */
		break;
	}
}

float4 __accelc_img_border_f(global const struct img *d)
{
	switch (d->order) {
	case O_R:
	case O_RG:
	case O_RGB:
	case O_LUMINANCE:
	case O_DEPTH:
		return (float4)(0.0f, 0.0f, 0.0f, 1.0f);
	default:
		return (float4)(0.0f);
	}
}
