/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers (builtins/image-*.cl, the image and sampler
 * arguments of kernel-info.c and wg-lower.c): work-group functions run
 * directly on hand-made struct accel_wg_image descriptors with pitches
 * larger than tight, checked against a host reference written here from
 * the OpenCL specification: every format written and read back, sampling
 * in every addressing and filter mode, every image type's addressing,
 * the queries, and the arguments' descriptions.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libaccel/accel-image.h>
#include <libaccel/accel-wg.h>

#include "wg-test.h"

static const char source[] =
	"int2 xy(int w) { int g = get_global_id(0);"
	" return (int2)(g % w, g / w); }\n"
	"kernel void wf(write_only image2d_t im, global const float4 *in,"
	" int w) { write_imagef(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void wi(write_only image2d_t im, global const int4 *in,"
	" int w) { write_imagei(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void wu(write_only image2d_t im, global const uint4 *in,"
	" int w) { write_imageui(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void rf(read_only image2d_t im, global float4 *out, int w)"
	" { out[get_global_id(0)] = read_imagef(im, xy(w)); }\n"
	"kernel void ri(read_only image2d_t im, global int4 *out, int w)"
	" { out[get_global_id(0)] = read_imagei(im, xy(w)); }\n"
	"kernel void ru(read_only image2d_t im, global uint4 *out, int w)"
	" { out[get_global_id(0)] = read_imageui(im, xy(w)); }\n"
	"kernel void rh(read_only image2d_t im, sampler_t s,"
	" global float4 *out, int w) {"
	" out[get_global_id(0)] = convert_float4(read_imageh(im, s, xy(w)));"
	" }\n"
	"kernel void wh(write_only image2d_t im, global const float4 *in,"
	" int w) { write_imageh(im, xy(w),"
	" convert_half4(in[get_global_id(0)])); }\n"
	/* depth images */
	"kernel void wd(write_only image2d_depth_t im, global const float *in,"
	" int w) { write_imagef(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void rd(read_only image2d_depth_t im, sampler_t s,"
	" global float *out, int w) {"
	" out[get_global_id(0)] = read_imagef(im, s, xy(w)); }\n"
	/* sampled reads of each type, float coordinates */
	"kernel void s1(read_only image1d_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].x); }\n"
	"kernel void s1a(read_only image1d_array_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].xy); }\n"
	"kernel void s2(read_only image2d_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].xy); }\n"
	"kernel void s2a(read_only image2d_array_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g]); }\n"
	"kernel void s3(read_only image3d_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g]); }\n"
	"kernel void s2u(read_only image2d_t im, sampler_t s,"
	" global const float4 *c, global uint4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imageui(im, s, c[g].xy); }\n"
	/* integer coordinates through a sampler */
	"kernel void i2(read_only image2d_t im, sampler_t s,"
	" global const int4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].xy); }\n"
	/* sampler-less reads and writes of each type */
	"kernel void c1(read_only image1d_t a, write_only image1d_t b,"
	" global const int4 *c) { int4 p = c[get_global_id(0)];"
	" write_imagef(b, p.x, read_imagef(a, p.x)); }\n"
	"kernel void c1b(read_only image1d_buffer_t a,"
	" write_only image1d_buffer_t b, global const int4 *c) {"
	" int4 p = c[get_global_id(0)];"
	" write_imageui(b, p.x, read_imageui(a, p.x)); }\n"
	"kernel void c1a(read_only image1d_array_t a,"
	" write_only image1d_array_t b, global const int4 *c) {"
	" int4 p = c[get_global_id(0)];"
	" write_imagef(b, p.xy, read_imagef(a, p.xy)); }\n"
	"kernel void c2a(read_only image2d_array_t a,"
	" write_only image2d_array_t b, global const int4 *c) {"
	" int4 p = c[get_global_id(0)];"
	" write_imagei(b, p, read_imagei(a, p)); }\n"
	"kernel void c3(read_only image3d_t a, write_only image3d_t b,"
	" global const int4 *c) { int4 p = c[get_global_id(0)];"
	" write_imagef(b, p, read_imagef(a, p)); }\n"
	/* read_write: in place */
	"kernel void rw(read_write image2d_t a, int w) {"
	" float4 v = read_imagef(a, xy(w));"
	" write_imagef(a, xy(w), v * 0.5f); }\n"
	/* samplers of the source: program scope and kernel scope */
	"constant sampler_t ps = CLK_NORMALIZED_COORDS_TRUE |"
	" CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
	"kernel void sp(read_only image2d_t im, global const float4 *c,"
	" global float4 *o) { size_t g = get_global_id(0);"
	" const sampler_t ks = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;"
	" o[2 * g] = read_imagef(im, ps, c[g].xy);"
	" o[2 * g + 1] = read_imagef(im, ks, c[g].xy); }\n"
	/* through local memory across a barrier: the regions wrapper */
	"kernel void rev(read_only image1d_t a, write_only image1d_t b,"
	" local float4 *t) { int l = get_local_id(0), n = get_local_size(0);"
	" int g0 = get_group_id(0) * n; t[l] = read_imagef(a, g0 + l);"
	" barrier(CLK_LOCAL_MEM_FENCE);"
	" write_imagef(b, g0 + l, t[n - 1 - l]); }\n"
	/* queries */
	"kernel void q(read_only image1d_array_t a, write_only image2d_t b,"
	" read_write image2d_array_depth_t c, read_only image3d_t d,"
	" write_only image1d_buffer_t e, global int *o) {"
	" o[0] = get_image_width(a); o[1] = get_image_array_size(a);"
	" o[2] = get_image_dim(b).x; o[3] = get_image_dim(b).y;"
	" o[4] = get_image_height(c); o[5] = get_image_array_size(c);"
	" o[6] = get_image_channel_order(c);"
	" o[7] = get_image_channel_data_type(c);"
	" o[8] = get_image_dim(d).z; o[9] = get_image_depth(d);"
	" o[10] = get_image_width(e);"
	" o[11] = get_image_channel_order(b);"
	" o[12] = get_image_channel_data_type(b);"
	" o[13] = get_image_dim(c).y; }\n";

/* ---- the host reference ------------------------------------------------ */

struct fmt {
	uint32_t order, type;
};

static bool is_int_type(uint32_t t)
{
	return t >= ACCEL_IMAGE_DATA_SIGNED_INT8 &&
	       t <= ACCEL_IMAGE_DATA_UNSIGNED_INT32;
}

static bool is_signed_int(uint32_t t)
{
	return t >= ACCEL_IMAGE_DATA_SIGNED_INT8 &&
	       t <= ACCEL_IMAGE_DATA_SIGNED_INT32;
}

/* which RGBA component each stored channel holds, -1 ends */
static const int *slots(uint32_t order)
{
	static const int r[] = { 0, -1 }, a[] = { 3, -1 }, rg[] = { 0, 1, -1 },
			 ra[] = { 0, 3, -1 }, rgba[] = { 0, 1, 2, 3 },
			 bgra[] = { 2, 1, 0, 3 }, argb[] = { 3, 0, 1, 2 },
			 abgr[] = { 3, 2, 1, 0 };

	switch (order) {
	case ACCEL_IMAGE_ORDER_A:
		return a;
	case ACCEL_IMAGE_ORDER_RG:
		return rg;
	case ACCEL_IMAGE_ORDER_RA:
		return ra;
	case ACCEL_IMAGE_ORDER_RGBA:
	case ACCEL_IMAGE_ORDER_sRGBA:
		return rgba;
	case ACCEL_IMAGE_ORDER_BGRA:
	case ACCEL_IMAGE_ORDER_sBGRA:
		return bgra;
	case ACCEL_IMAGE_ORDER_ARGB:
		return argb;
	case ACCEL_IMAGE_ORDER_ABGR:
		return abgr;
	default:
		return r;
	}
}

static unsigned n_slots(uint32_t order)
{
	const int *s = slots(order);
	unsigned n = 0;

	while (n < 4 && s[n] >= 0)
		n++;
	return n;
}

static unsigned chan_size(uint32_t t)
{
	switch (t) {
	case ACCEL_IMAGE_DATA_SNORM_INT8:
	case ACCEL_IMAGE_DATA_UNORM_INT8:
	case ACCEL_IMAGE_DATA_SIGNED_INT8:
	case ACCEL_IMAGE_DATA_UNSIGNED_INT8:
		return 1;
	case ACCEL_IMAGE_DATA_SIGNED_INT32:
	case ACCEL_IMAGE_DATA_UNSIGNED_INT32:
	case ACCEL_IMAGE_DATA_FLOAT:
		return 4;
	default:
		return 2;
	}
}

static unsigned texel_size(const struct fmt *f)
{
	if (f->type == ACCEL_IMAGE_DATA_UNORM_SHORT_565 ||
	    f->type == ACCEL_IMAGE_DATA_UNORM_SHORT_555)
		return 2;
	if (f->type == ACCEL_IMAGE_DATA_UNORM_INT_101010 ||
	    f->type == ACCEL_IMAGE_DATA_UNORM_INT_101010_2)
		return 4;
	return n_slots(f->order) * chan_size(f->type);
}

static bool is_srgb(uint32_t order)
{
	return order == ACCEL_IMAGE_ORDER_sRGBA ||
	       order == ACCEL_IMAGE_ORDER_sBGRA;
}

/* round to nearest even and saturate, NaN to 0 */
static long to_int_sat(float v, float lo, float hi)
{
	if (isnan(v))
		return 0;
	v = fminf(fmaxf(v, lo), hi);
	return lrintf(v);
}

static double srgb_encode(double l)
{
	if (!(l > 0))
		return 0;
	if (l <= 0.0031308)
		return 12.92 * l;
	return l >= 1 ? 1 : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

static double srgb_decode(double c)
{
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* Encode colour (float[4], int32_t[4] or uint32_t[4]) as a texel. */
static void pack(const struct fmt *f, const void *color, uint8_t *t)
{
	const float *cf = color;
	const int32_t *ci = color;
	const uint32_t *cu = color;
	const int *s = slots(f->order);
	unsigned n = n_slots(f->order);
	uint32_t v;

	memset(t, 0, texel_size(f));
	switch (f->type) {
	case ACCEL_IMAGE_DATA_UNORM_SHORT_565:
		v = to_int_sat(cf[0] * 31.0f, 0, 31) << 11 |
		    to_int_sat(cf[1] * 63.0f, 0, 63) << 5 |
		    to_int_sat(cf[2] * 31.0f, 0, 31);
		memcpy(t, &v, 2);
		return;
	case ACCEL_IMAGE_DATA_UNORM_SHORT_555:
		v = to_int_sat(cf[0] * 31.0f, 0, 31) << 10 |
		    to_int_sat(cf[1] * 31.0f, 0, 31) << 5 |
		    to_int_sat(cf[2] * 31.0f, 0, 31);
		memcpy(t, &v, 2);
		return;
	case ACCEL_IMAGE_DATA_UNORM_INT_101010:
		v = to_int_sat(cf[0] * 1023.0f, 0, 1023) << 20 |
		    to_int_sat(cf[1] * 1023.0f, 0, 1023) << 10 |
		    to_int_sat(cf[2] * 1023.0f, 0, 1023);
		memcpy(t, &v, 4);
		return;
	case ACCEL_IMAGE_DATA_UNORM_INT_101010_2:
		v = (uint32_t)to_int_sat(cf[0] * 1023.0f, 0, 1023) << 22 |
		    to_int_sat(cf[1] * 1023.0f, 0, 1023) << 12 |
		    to_int_sat(cf[2] * 1023.0f, 0, 1023) << 2 |
		    to_int_sat(cf[3] * 3.0f, 0, 3);
		memcpy(t, &v, 4);
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		int c = s[k];
		float x = cf[c];
		uint8_t *p = t + k * chan_size(f->type);
		int16_t i16;
		uint16_t u16;
		int8_t i8;
		_Float16 h;

		switch (f->type) {
		case ACCEL_IMAGE_DATA_UNORM_INT8:
			if (is_srgb(f->order) && c < 3)
				x = (float)srgb_encode(x);
			*p = (uint8_t)to_int_sat(x * 255.0f, 0, 255);
			break;
		case ACCEL_IMAGE_DATA_SNORM_INT8:
			i8 = (int8_t)to_int_sat(x * 127.0f, -128, 127);
			memcpy(p, &i8, 1);
			break;
		case ACCEL_IMAGE_DATA_UNORM_INT16:
			u16 = (uint16_t)to_int_sat(x * 65535.0f, 0, 65535);
			memcpy(p, &u16, 2);
			break;
		case ACCEL_IMAGE_DATA_SNORM_INT16:
			i16 = (int16_t)to_int_sat(x * 32767.0f, -32768,
						  32767);
			memcpy(p, &i16, 2);
			break;
		case ACCEL_IMAGE_DATA_HALF_FLOAT:
			h = (_Float16)x;
			memcpy(p, &h, 2);
			break;
		case ACCEL_IMAGE_DATA_FLOAT:
			memcpy(p, &x, 4);
			break;
		case ACCEL_IMAGE_DATA_SIGNED_INT8:
			i8 = (int8_t)(ci[c] < -128 ? -128 :
				      ci[c] > 127 ? 127 : ci[c]);
			memcpy(p, &i8, 1);
			break;
		case ACCEL_IMAGE_DATA_SIGNED_INT16:
			i16 = (int16_t)(ci[c] < -32768 ? -32768 :
					ci[c] > 32767 ? 32767 : ci[c]);
			memcpy(p, &i16, 2);
			break;
		case ACCEL_IMAGE_DATA_SIGNED_INT32:
			memcpy(p, &ci[c], 4);
			break;
		case ACCEL_IMAGE_DATA_UNSIGNED_INT8:
			*p = (uint8_t)(cu[c] > 255 ? 255 : cu[c]);
			break;
		case ACCEL_IMAGE_DATA_UNSIGNED_INT16:
			u16 = (uint16_t)(cu[c] > 65535 ? 65535 : cu[c]);
			memcpy(p, &u16, 2);
			break;
		case ACCEL_IMAGE_DATA_UNSIGNED_INT32:
			memcpy(p, &cu[c], 4);
			break;
		}
	}
}

/* Decode a texel into float[4] (or int32_t[4]/uint32_t[4] bits). */
static void unpack(const struct fmt *f, const uint8_t *t, void *color)
{
	float *cf = color;
	uint32_t *cu = color;
	const int *s = slots(f->order);
	unsigned n = n_slots(f->order);
	bool ints = is_int_type(f->type);
	uint32_t v = 0;
	float val[4] = { 0 };
	uint32_t ival[4] = { 0 };

	if (ints) {
		cu[0] = cu[1] = cu[2] = 0;
		cu[3] = 1;
	} else {
		cf[0] = cf[1] = cf[2] = 0;
		cf[3] = 1;
	}
	switch (f->type) {
	case ACCEL_IMAGE_DATA_UNORM_SHORT_565:
		memcpy(&v, t, 2);
		cf[0] = (float)(v >> 11) / 31.0f;
		cf[1] = (float)(v >> 5 & 63) / 63.0f;
		cf[2] = (float)(v & 31) / 31.0f;
		return;
	case ACCEL_IMAGE_DATA_UNORM_SHORT_555:
		memcpy(&v, t, 2);
		cf[0] = (float)(v >> 10 & 31) / 31.0f;
		cf[1] = (float)(v >> 5 & 31) / 31.0f;
		cf[2] = (float)(v & 31) / 31.0f;
		return;
	case ACCEL_IMAGE_DATA_UNORM_INT_101010:
		memcpy(&v, t, 4);
		cf[0] = (float)(v >> 20 & 1023) / 1023.0f;
		cf[1] = (float)(v >> 10 & 1023) / 1023.0f;
		cf[2] = (float)(v & 1023) / 1023.0f;
		return;
	case ACCEL_IMAGE_DATA_UNORM_INT_101010_2:
		memcpy(&v, t, 4);
		cf[0] = (float)(v >> 22) / 1023.0f;
		cf[1] = (float)(v >> 12 & 1023) / 1023.0f;
		cf[2] = (float)(v >> 2 & 1023) / 1023.0f;
		cf[3] = (float)(v & 3) / 3.0f;
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		const uint8_t *p = t + k * chan_size(f->type);
		int16_t i16;
		uint16_t u16;
		int32_t i32;
		_Float16 h;

		switch (f->type) {
		case ACCEL_IMAGE_DATA_UNORM_INT8:
			val[k] = (float)*p / 255.0f;
			if (is_srgb(f->order) && s[k] < 3)
				val[k] = (float)srgb_decode(val[k]);
			break;
		case ACCEL_IMAGE_DATA_SNORM_INT8:
			val[k] = fmaxf((float)(int8_t)*p / 127.0f, -1.0f);
			break;
		case ACCEL_IMAGE_DATA_UNORM_INT16:
			memcpy(&u16, p, 2);
			val[k] = (float)u16 / 65535.0f;
			break;
		case ACCEL_IMAGE_DATA_SNORM_INT16:
			memcpy(&i16, p, 2);
			val[k] = fmaxf((float)i16 / 32767.0f, -1.0f);
			break;
		case ACCEL_IMAGE_DATA_HALF_FLOAT:
			memcpy(&h, p, 2);
			val[k] = (float)h;
			break;
		case ACCEL_IMAGE_DATA_FLOAT:
			memcpy(&val[k], p, 4);
			break;
		case ACCEL_IMAGE_DATA_SIGNED_INT8:
			ival[k] = (uint32_t)(int32_t)(int8_t)*p;
			break;
		case ACCEL_IMAGE_DATA_UNSIGNED_INT8:
			ival[k] = *p;
			break;
		case ACCEL_IMAGE_DATA_SIGNED_INT16:
			memcpy(&i16, p, 2);
			ival[k] = (uint32_t)(int32_t)i16;
			break;
		case ACCEL_IMAGE_DATA_UNSIGNED_INT16:
			memcpy(&u16, p, 2);
			ival[k] = u16;
			break;
		default:
			memcpy(&i32, p, 4);
			ival[k] = (uint32_t)i32;
			break;
		}
	}
	for (unsigned k = 0; k < n; k++) {
		if (ints)
			cu[s[k]] = ival[k];
		else
			cf[s[k]] = val[k];
	}
	if (f->order == ACCEL_IMAGE_ORDER_INTENSITY ||
	    f->order == ACCEL_IMAGE_ORDER_LUMINANCE) {
		cf[1] = cf[2] = cf[0];
		if (f->order == ACCEL_IMAGE_ORDER_INTENSITY)
			cf[3] = cf[0];
	}
}

/* ---- images in host memory ------------------------------------------- */

/* An image with padded rows and slices, its descriptor and its bytes. */
struct himg {
	struct accel_wg_image d;
	struct fmt f;
	uint8_t *mem;
	size_t size;
};

static void himg_init(struct himg *h, uint32_t type, struct fmt f,
		      uint32_t w, uint32_t ht, uint32_t dp, uint32_t layers)
{
	unsigned ts = texel_size(&f);
	uint64_t rows = type == ACCEL_IMAGE_3D ? dp :
			type == ACCEL_IMAGE_2D_ARRAY ||
			type == ACCEL_IMAGE_1D_ARRAY ? layers : 1;

	memset(h, 0, sizeof(*h));
	h->f = f;
	h->d.width = w;
	h->d.height = ht;
	h->d.depth = dp;
	h->d.array_size = layers;
	h->d.type = type;
	h->d.channel_order = f.order;
	h->d.channel_type = f.type;
	h->d.texel_size = ts;
	/* pitches beyond tight, multiples of the texel size */
	h->d.row_pitch = (uint64_t)(w + 3) * ts;
	h->d.slice_pitch = h->d.row_pitch * ht + 5 * ts;
	h->size = h->d.slice_pitch * rows;
	h->mem = calloc(1, h->size + 64);
	assert_non_null(h->mem);
	h->d.data = h->mem;
}

static uint8_t *himg_at(struct himg *h, int x, int y, int z)
{
	return h->mem + (uint64_t)z * h->d.slice_pitch +
	       (uint64_t)y * h->d.row_pitch + (uint64_t)x * h->d.texel_size;
}

static void himg_fill_random(struct himg *h, uint64_t *seed)
{
	for (size_t i = 0; i < h->size; i++) {
		*seed ^= *seed << 13;
		*seed ^= *seed >> 7;
		*seed ^= *seed << 17;
		h->mem[i] = (uint8_t)(*seed >> 24);
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static float frand(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd(s) >> 40) / (float)(1 << 24);
}

/* ---- running kernels -------------------------------------------------- */

static struct wg_prog prog;

static int setup(void **state)
{
	(void)state;
	wg_build(&prog, source, "-cl-std=CL3.0");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	wg_unbuild(&prog);
	return 0;
}

static void run(const char *kernel, void **args, uint64_t n)
{
	wg_run_1d(wg_find(&prog, kernel, ""), args, 0, n, 16);
}

/* every (order, type) of OpenCL's list */
static size_t all_formats(struct fmt *out)
{
	static const uint32_t all[] = {
		ACCEL_IMAGE_DATA_SNORM_INT8, ACCEL_IMAGE_DATA_SNORM_INT16,
		ACCEL_IMAGE_DATA_UNORM_INT8, ACCEL_IMAGE_DATA_UNORM_INT16,
		ACCEL_IMAGE_DATA_SIGNED_INT8, ACCEL_IMAGE_DATA_SIGNED_INT16,
		ACCEL_IMAGE_DATA_SIGNED_INT32, ACCEL_IMAGE_DATA_UNSIGNED_INT8,
		ACCEL_IMAGE_DATA_UNSIGNED_INT16,
		ACCEL_IMAGE_DATA_UNSIGNED_INT32, ACCEL_IMAGE_DATA_HALF_FLOAT,
		ACCEL_IMAGE_DATA_FLOAT,
	};
	static const uint32_t any[] = {
		ACCEL_IMAGE_ORDER_R, ACCEL_IMAGE_ORDER_A, ACCEL_IMAGE_ORDER_RG,
		ACCEL_IMAGE_ORDER_RA, ACCEL_IMAGE_ORDER_RGBA,
	};
	static const uint32_t b8[] = {
		ACCEL_IMAGE_DATA_SNORM_INT8, ACCEL_IMAGE_DATA_UNORM_INT8,
		ACCEL_IMAGE_DATA_SIGNED_INT8, ACCEL_IMAGE_DATA_UNSIGNED_INT8,
	};
	static const uint32_t o8[] = {
		ACCEL_IMAGE_ORDER_BGRA, ACCEL_IMAGE_ORDER_ARGB,
		ACCEL_IMAGE_ORDER_ABGR,
	};
	static const uint32_t il[] = {
		ACCEL_IMAGE_DATA_SNORM_INT8, ACCEL_IMAGE_DATA_SNORM_INT16,
		ACCEL_IMAGE_DATA_UNORM_INT8, ACCEL_IMAGE_DATA_UNORM_INT16,
		ACCEL_IMAGE_DATA_HALF_FLOAT, ACCEL_IMAGE_DATA_FLOAT,
	};
	size_t n = 0;

	for (size_t o = 0; o < 5; o++)
		for (size_t t = 0; t < 12; t++)
			out[n++] = (struct fmt){ any[o], all[t] };
	for (size_t o = 0; o < 3; o++)
		for (size_t t = 0; t < 4; t++)
			out[n++] = (struct fmt){ o8[o], b8[t] };
	for (size_t t = 0; t < 6; t++) {
		out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_INTENSITY, il[t] };
		out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_LUMINANCE, il[t] };
	}
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGB,
				 ACCEL_IMAGE_DATA_UNORM_SHORT_565 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGB,
				 ACCEL_IMAGE_DATA_UNORM_SHORT_555 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGB,
				 ACCEL_IMAGE_DATA_UNORM_INT_101010 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGBA,
				 ACCEL_IMAGE_DATA_UNORM_INT_101010_2 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_sRGBA,
				 ACCEL_IMAGE_DATA_UNORM_INT8 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_sBGRA,
				 ACCEL_IMAGE_DATA_UNORM_INT8 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_DEPTH,
				 ACCEL_IMAGE_DATA_UNORM_INT16 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_DEPTH,
				 ACCEL_IMAGE_DATA_FLOAT };
	return n;
}

static bool feq(float a, float b, float tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (a == b)
		return true;
	return fabsf(a - b) <= tol * fmaxf(1.0f, fabsf(b));
}

/*
 * Every format: the kernel writes colours, the stored bytes must be the
 * host's encoding (sRGB within one step: the encoding's pow is not
 * exact), and the kernel's reads must decode what is stored.
 */
static void test_formats(void **state)
{
	enum { W = 7, H = 3, N = W * H };
	struct fmt fmts[128];
	size_t nf = all_formats(fmts);
	uint64_t seed = 0x1234567;
	int w = W;

	(void)state;
	for (size_t i = 0; i < nf; i++) {
		const struct fmt *f = &fmts[i];
		bool ints = is_int_type(f->type);
		bool depth = f->order == ACCEL_IMAGE_ORDER_DEPTH;
		float in[N][4], out[N][4], dep[N], dout[N];
		uint32_t iin[N][4], iout[N][4];
		struct himg h;
		void *inp = ints ? (void *)iin : depth ? (void *)dep : in;
		void *outp = ints ? (void *)iout : depth ? (void *)dout : out;
		void *smp = (void *)(uintptr_t)(ACCEL_SAMPLER_FILTER_NEAREST |
				ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE);
		void *wargs[] = { &h.d, &inp, &w };
		void *rargs[] = { &h.d, &outp, &w };
		void *dargs[] = { &h.d, &smp, &outp, &w };

		himg_init(&h, ACCEL_IMAGE_2D, *f, W, H, 1, 1);
		for (int k = 0; k < N; k++)
			for (int c = 0; c < 4; c++) {
				in[k][c] = frand(&seed, -0.25f, 1.25f);
				iin[k][c] = (uint32_t)rnd(&seed);
				/* small values too, which do not saturate */
				if (k & 1)
					iin[k][c] = (uint32_t)(int32_t)
						((int)(rnd(&seed) % 301) - 150);
			}
		in[0][0] = NAN;
		in[1][1] = 0.5f / 255.0f; /* ties of the rounding */
		in[2][2] = 1.5f / 255.0f;
		for (int k = 0; k < N; k++)
			dep[k] = in[k][0];
		dep[0] = 0.5f;
		if (ints)
			run(is_signed_int(f->type) ? "wi" : "wu", wargs, N);
		else
			run(depth ? "wd" : "wf", wargs, N);
		for (int k = 0; k < N; k++) {
			uint8_t want[16];
			const uint8_t *have = himg_at(&h, k % W, k / W, 0);
			float dc[4] = { dep[k] };

			pack(f, ints ? (void *)iin[k] : depth ? dc : in[k],
			     want);
			for (unsigned b = 0; b < texel_size(f); b++) {
				int diff = have[b] - want[b];

				if (diff && !(is_srgb(f->order) &&
					      abs(diff) == 1)) {
					fprintf(stderr, "format %#x/%#x texel"
						" %d byte %u: %#x, want %#x\n",
						f->order, f->type, k, b,
						have[b], want[b]);
					fail();
				}
			}
		}
		/* a texel with every bit pattern the writes may miss */
		himg_fill_random(&h, &seed);
		if (ints)
			run(is_signed_int(f->type) ? "ri" : "ru", rargs, N);
		else if (depth)
			run("rd", dargs, N);
		else
			run("rf", rargs, N);
		for (int k = 0; k < N; k++) {
			float want[4];
			uint32_t *iw = (uint32_t *)want;

			unpack(f, himg_at(&h, k % W, k / W, 0), want);
			for (int c = 0; c < (depth ? 1 : 4); c++) {
				bool ok = ints ? iout[k][c] == iw[c] :
					  feq(depth ? dout[k] : out[k][c],
					      want[c], is_srgb(f->order) ?
					      1e-5f : 0.0f);

				if (!ok) {
					fprintf(stderr, "format %#x/%#x read"
						" %d.%d: %a, want %a\n",
						f->order, f->type, k, c,
						ints ? (double)iout[k][c] :
						(double)out[k][c],
						ints ? (double)iw[c] :
						(double)want[c]);
					fail();
				}
			}
		}
		free(h.mem);
	}
}

/* read_imageh and write_imageh: through half, rounded to nearest even */
static void test_half(void **state)
{
	enum { W = 5, H = 2, N = W * H };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg h;
	float in[N][4], out[N][4];
	uint64_t seed = 99;
	int w = W;
	void *inp = in, *outp = out;
	void *smp = (void *)(uintptr_t)ACCEL_SAMPLER_FILTER_NEAREST;
	void *wargs[] = { &h.d, &inp, &w };
	void *rargs[] = { &h.d, &smp, &outp, &w };

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, W, H, 1, 1);
	for (int k = 0; k < N; k++)
		for (int c = 0; c < 4; c++)
			in[k][c] = frand(&seed, -70000.0f, 70000.0f) /
				   (float)(1 << (k % 16));
	run("wh", wargs, N);
	for (int k = 0; k < N; k++)
		for (int c = 0; c < 4; c++) {
			float v;

			memcpy(&v, himg_at(&h, k % W, k / W, 0) + 4 * c, 4);
			assert_true(v == (float)(_Float16)in[k][c] ||
				    (isinf(v) && isinf((float)(_Float16)
							in[k][c])));
		}
	himg_fill_random(&h, &seed);
	run("rh", rargs, N);
	for (int k = 0; k < N; k++)
		for (int c = 0; c < 4; c++) {
			float v;

			memcpy(&v, himg_at(&h, k % W, k / W, 0) + 4 * c, 4);
			if (!feq(out[k][c], (float)(_Float16)v, 0.0f)) {
				fprintf(stderr, "read_imageh %a: %a, want %a\n",
					(double)v, (double)out[k][c],
					(double)(float)(_Float16)v);
				fail();
			}
		}
	free(h.mem);
}

/* ---- sampling --------------------------------------------------------- */

struct axis_r {
	int i0, i1;
	float a;
};

/* OpenCL's addressing of one coordinate (the specification's steps). */
static struct axis_r ref_axis(uint32_t smp, float s, int n, bool linear)
{
	uint32_t am = smp & ACCEL_SAMPLER_ADDRESS_MASK;
	bool norm = smp & ACCEL_SAMPLER_NORMALIZED_COORDS;
	struct axis_r r = { 0, 0, 0 };
	float u;

	if (norm && am == ACCEL_SAMPLER_ADDRESS_REPEAT) {
		u = (s - floorf(s)) * (float)n;
		if (!linear) {
			r.i0 = (int)floorf(u);
			if (r.i0 > n - 1)
				r.i0 -= n;
			return r;
		}
		r.i0 = (int)floorf(u - 0.5f);
		r.i1 = r.i0 + 1;
		if (r.i0 < 0)
			r.i0 += n;
		if (r.i1 > n - 1)
			r.i1 -= n;
		r.a = (u - 0.5f) - floorf(u - 0.5f);
		return r;
	}
	if (norm && am == ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT) {
		float sp = 2.0f * rintf(0.5f * s);

		sp = fabsf(s - sp);
		u = sp * (float)n;
		if (!linear) {
			r.i0 = (int)floorf(u);
			if (r.i0 > n - 1)
				r.i0 = n - 1;
			return r;
		}
		r.i0 = (int)floorf(u - 0.5f);
		r.i1 = r.i0 + 1;
		r.a = (u - 0.5f) - floorf(u - 0.5f);
		if (r.i0 < 0)
			r.i0 = 0;
		if (r.i1 > n - 1)
			r.i1 = n - 1;
		return r;
	}
	u = norm ? s * (float)n : s;
	if (linear) {
		r.i0 = (int)floorf(u - 0.5f);
		r.i1 = r.i0 + 1;
		r.a = (u - 0.5f) - floorf(u - 0.5f);
	} else {
		r.i0 = (int)floorf(u);
	}
	int lo = am == ACCEL_SAMPLER_ADDRESS_CLAMP ? -1 : 0;
	int hi = am == ACCEL_SAMPLER_ADDRESS_CLAMP ? n : n - 1;

	r.i0 = r.i0 < lo ? lo : r.i0 > hi ? hi : r.i0;
	r.i1 = r.i1 < lo ? lo : r.i1 > hi ? hi : r.i1;
	return r;
}

static void ref_tap(struct himg *h, uint32_t smp, int x, int y, int z,
		    float *c)
{
	uint32_t zmax = h->d.type == ACCEL_IMAGE_3D ? h->d.depth :
			h->d.array_size;

	if (x < 0 || y < 0 || z < 0 || (uint32_t)x >= h->d.width ||
	    (uint32_t)y >= h->d.height || (uint32_t)z >= zmax) {
		/* only CLAMP leaves the image: the border colour */
		assert_int_equal(smp & ACCEL_SAMPLER_ADDRESS_MASK,
				 ACCEL_SAMPLER_ADDRESS_CLAMP);
		bool no_alpha = h->f.order == ACCEL_IMAGE_ORDER_R ||
				h->f.order == ACCEL_IMAGE_ORDER_RG ||
				h->f.order == ACCEL_IMAGE_ORDER_RGB ||
				h->f.order == ACCEL_IMAGE_ORDER_LUMINANCE;

		c[0] = c[1] = c[2] = 0;
		c[3] = no_alpha ? 1.0f : 0.0f;
		return;
	}
	unpack(&h->f, himg_at(h, x, y, z), c);
}

/* read_imagef(h, smp, coord): dims spatial ones, a layer at @p ld */
static void ref_sample(struct himg *h, uint32_t smp, const float *co,
		       int dims, int ld, float *out)
{
	bool linear = smp & ACCEL_SAMPLER_FILTER_LINEAR;
	struct axis_r ax[3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
	uint32_t n[3] = { h->d.width, h->d.height, h->d.depth };
	int layer = 0;

	for (int d = 0; d < dims; d++)
		ax[d] = ref_axis(smp, co[d], (int)n[d], linear);
	if (ld) {
		float l = rintf(co[ld]);

		layer = l < 0 ? 0 : l > (float)h->d.array_size - 1 ?
			(int)h->d.array_size - 1 : (int)l;
		ax[2].i0 = ax[2].i1 = layer;
	}
	if (!linear) {
		ref_tap(h, smp, ax[0].i0, ax[1].i0, ax[2].i0, out);
		return;
	}
	memset(out, 0, 4 * sizeof(float));
	for (int k = 0; k < 8; k++) {
		int bx = k & 1, by = k >> 1 & 1, bz = k >> 2 & 1;
		float wgt = (bx ? ax[0].a : 1 - ax[0].a), t[4];

		if ((dims < 2 && by) || (dims < 3 && bz))
			continue;
		if (dims >= 2)
			wgt *= by ? ax[1].a : 1 - ax[1].a;
		if (dims >= 3)
			wgt *= bz ? ax[2].a : 1 - ax[2].a;
		ref_tap(h, smp, bx ? ax[0].i1 : ax[0].i0,
			by ? ax[1].i1 : ax[1].i0,
			bz ? ax[2].i1 : ax[2].i0, t);
		for (int c = 0; c < 4; c++)
			out[c] += wgt * t[c];
	}
}

/*
 * Every addressing mode, filter and coordinate normalization on every
 * image type that takes a sampler, for a float and a UNORM_INT8 format
 * (its fast path), coordinates reaching well outside the image.
 */
static void test_sampling(void **state)
{
	static const struct {
		const char *kernel;
		uint32_t type;
		int dims, ld;
	} types[] = {
		{ "s1", ACCEL_IMAGE_1D, 1, 0 },
		{ "s1a", ACCEL_IMAGE_1D_ARRAY, 1, 1 },
		{ "s2", ACCEL_IMAGE_2D, 2, 0 },
		{ "s2a", ACCEL_IMAGE_2D_ARRAY, 2, 2 },
		{ "s3", ACCEL_IMAGE_3D, 3, 0 },
	};
	static const struct fmt fmts[] = {
		{ ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT },
		{ ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_UNORM_INT8 },
		{ ACCEL_IMAGE_ORDER_RG, ACCEL_IMAGE_DATA_UNORM_INT16 },
		{ ACCEL_IMAGE_ORDER_sBGRA, ACCEL_IMAGE_DATA_UNORM_INT8 },
	};
	static const uint32_t modes[] = {
		ACCEL_SAMPLER_ADDRESS_NONE, ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE,
		ACCEL_SAMPLER_ADDRESS_CLAMP, ACCEL_SAMPLER_ADDRESS_REPEAT,
		ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT,
	};
	enum { N = 256 };
	float co[N][4], out[N][4];
	uint64_t seed = 42;

	(void)state;
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
	for (size_t fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++)
	for (size_t m = 0; m < 5; m++)
	for (int norm = 0; norm < 2; norm++)
	for (int lin = 0; lin < 2; lin++) {
		uint32_t smp = modes[m] | (norm ? ACCEL_SAMPLER_NORMALIZED_COORDS :
					   0) |
			(lin ? ACCEL_SAMPLER_FILTER_LINEAR :
			 ACCEL_SAMPLER_FILTER_NEAREST);
		uint32_t w = 5, ht = types[t].dims > 1 ? 4 : 1;
		uint32_t dp = types[t].dims > 2 ? 3 : 1;
		uint32_t layers = types[t].ld ? 3 : 1;
		bool none = modes[m] == ACCEL_SAMPLER_ADDRESS_NONE;
		struct himg h;
		void *smpp = (void *)(uintptr_t)smp, *cop = co, *outp = out;
		void *args[] = { &h.d, &smpp, &cop, &outp };

		/* REPEAT and MIRRORED_REPEAT need normalized coordinates */
		if (!norm && modes[m] >= ACCEL_SAMPLER_ADDRESS_REPEAT)
			continue;
		himg_init(&h, types[t].type, fmts[fi], w, ht, dp, layers);
		himg_fill_random(&h, &seed);
		if (fmts[fi].type == ACCEL_IMAGE_DATA_FLOAT)
			for (size_t b = 0; b < h.size; b += 4) {
				float v = frand(&seed, 0.0f, 1.0f);

				memcpy(h.mem + b, &v, 4);
			}
		for (int k = 0; k < N; k++) {
			uint32_t n[3] = { w, ht, dp };

			for (int d = 0; d < 3; d++) {
				/* NONE: inside only (else undefined) */
				float lo = none ? 0.0f : -1.5f;
				float hi = none ? 1.0f : 2.5f;

				co[k][d] = frand(&seed, lo, hi);
				if (!norm)
					co[k][d] *= (float)n[d];
				/* exact texel edges and centres too */
				if (k % 4 == 1)
					co[k][d] = norm ? (float)(k % 9) / 4 :
						   (float)(k % 11) / 2;
			}
			if (none && !lin)
				; /* nearest stays inside */
			else if (none)
				/* linear NONE reads the texel beyond too */
				for (int d = 0; d < types[t].dims; d++) {
					float c0 = norm ? 0.5f / (float)n[d] :
						   0.5f;
					float c1 = norm ? 1 - c0 :
						   (float)n[d] - 0.5f;

					co[k][d] = c0 + (c1 - c0) *
						   frand(&seed, 0, 1);
				}
			if (types[t].ld)
				co[k][types[t].ld] = frand(&seed, -1.0f, 4.0f);
			co[k][3] = 0;
		}
		run(types[t].kernel, args, N);
		for (int k = 0; k < N; k++) {
			float want[4];

			ref_sample(&h, smp, co[k], types[t].dims, types[t].ld,
				   want);
			for (int c = 0; c < 4; c++)
				if (!feq(out[k][c], want[c], 1e-5f)) {
					fprintf(stderr, "%s fmt %zu sampler "
						"%#x coord (%a %a %a) ch %d:"
						" %a, want %a\n",
						types[t].kernel, fi, smp,
						(double)co[k][0],
						(double)co[k][1],
						(double)co[k][2], c,
						(double)out[k][c],
						(double)want[c]);
					fail();
				}
		}
		free(h.mem);
	}
}

/* Integer formats sample nearest; integer coordinates with CLAMP. */
static void test_sampling_int(void **state)
{
	enum { N = 128 };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA,
			 ACCEL_IMAGE_DATA_UNSIGNED_INT16 };
	struct fmt g = { ACCEL_IMAGE_ORDER_R, ACCEL_IMAGE_DATA_UNORM_INT8 };
	struct himg h;
	float co[N][4], out[N][4];
	int32_t ico[N][4];
	uint32_t uo[N][4];
	uint64_t seed = 7;
	void *cop = co, *icop = ico, *outp = out, *uop = uo;

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, 6, 5, 1, 1);
	himg_fill_random(&h, &seed);
	for (uint32_t smp = 0; smp < 0x40; smp++) {
		uint32_t am = smp & ACCEL_SAMPLER_ADDRESS_MASK;
		void *smpp = (void *)(uintptr_t)smp;
		void *args[] = { &h.d, &smpp, &cop, &uop };

		if ((smp & ~0x3fu) || am > ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT ||
		    (smp & ACCEL_SAMPLER_FILTER_MASK) != ACCEL_SAMPLER_FILTER_NEAREST ||
		    (!(smp & 1) && am >= ACCEL_SAMPLER_ADDRESS_REPEAT) ||
		    am == ACCEL_SAMPLER_ADDRESS_NONE)
			continue;
		for (int k = 0; k < N; k++) {
			co[k][0] = frand(&seed, -2, 8);
			co[k][1] = frand(&seed, -2, 7);
			if (smp & 1) {
				co[k][0] /= 6;
				co[k][1] /= 5;
			}
		}
		run("s2u", args, N);
		for (int k = 0; k < N; k++) {
			struct axis_r x = ref_axis(smp, co[k][0], 6, false);
			struct axis_r y = ref_axis(smp, co[k][1], 5, false);
			uint32_t want[4] = { 0, 0, 0, 0 };

			if (x.i0 >= 0 && x.i0 < 6 && y.i0 >= 0 && y.i0 < 5)
				unpack(&f, himg_at(&h, x.i0, y.i0, 0), want);
			assert_memory_equal(uo[k], want, sizeof(want));
		}
	}
	free(h.mem);

	/* integer coordinates: CLAMP gives R's border (0, 0, 0, 1) */
	himg_init(&h, ACCEL_IMAGE_2D, g, 4, 3, 1, 1);
	himg_fill_random(&h, &seed);
	for (int k = 0; k < N; k++) {
		ico[k][0] = (int)(rnd(&seed) % 8) - 2;
		ico[k][1] = (int)(rnd(&seed) % 7) - 2;
	}
	for (int mode = 0; mode < 2; mode++) {
		uint32_t smp = ACCEL_SAMPLER_FILTER_NEAREST |
			(mode ? ACCEL_SAMPLER_ADDRESS_CLAMP :
			 ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE);
		void *smpp = (void *)(uintptr_t)smp;
		void *args[] = { &h.d, &smpp, &icop, &outp };

		run("i2", args, N);
		for (int k = 0; k < N; k++) {
			int x = ico[k][0], y = ico[k][1];
			float want[4] = { 0, 0, 0, 1 };

			if (!mode || (x >= 0 && x < 4 && y >= 0 && y < 3))
				unpack(&g, himg_at(&h, x < 0 ? 0 : x > 3 ? 3 : x,
						   y < 0 ? 0 : y > 2 ? 2 : y, 0),
				       want);
			assert_memory_equal(out[k], want, sizeof(want));
		}
	}
	free(h.mem);
}

/* Samplers declared in the source mean what the same bits as an
 * argument mean. */
static void test_source_samplers(void **state)
{
	enum { N = 64 };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg h;
	float co[N][4], out[2 * N][4];
	uint64_t seed = 5;
	void *cop = co, *outp = out;
	void *args[] = { &h.d, &cop, &outp };

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, 5, 4, 1, 1);
	for (size_t b = 0; b < h.size; b += 4) {
		float v = frand(&seed, 0.0f, 1.0f);

		memcpy(h.mem + b, &v, 4);
	}
	for (int k = 0; k < N; k++) {
		co[k][0] = frand(&seed, -1.0f, 2.0f);
		co[k][1] = frand(&seed, -1.0f, 2.0f);
	}
	run("sp", args, N);
	for (int k = 0; k < N; k++) {
		float want[4], unnorm[2] = { co[k][0] * 5, co[k][1] * 4 };

		ref_sample(&h, ACCEL_SAMPLER_NORMALIZED_COORDS |
			   ACCEL_SAMPLER_ADDRESS_REPEAT |
			   ACCEL_SAMPLER_FILTER_LINEAR, co[k], 2, 0, want);
		for (int c = 0; c < 4; c++)
			assert_true(feq(out[2 * k][c], want[c], 1e-5f));
		(void)unnorm;
		ref_sample(&h, ACCEL_SAMPLER_ADDRESS_CLAMP |
			   ACCEL_SAMPLER_FILTER_NEAREST, co[k], 2, 0, want);
		assert_memory_equal(out[2 * k + 1], want, sizeof(want));
	}
	free(h.mem);
}

/*
 * Sampler-less reads and writes of every type find their texels through
 * the pitches: each texel is copied from one image to another of the
 * same shape; the padding stays untouched, writes outside are dropped.
 */
static void test_addressing(void **state)
{
	static const struct {
		const char *kernel;
		uint32_t type;
		struct fmt f;
		uint32_t w, h, d, layers;
	} t[] = {
		{ "c1", ACCEL_IMAGE_1D,
		  { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_UNORM_INT8 },
		  9, 1, 1, 1 },
		{ "c1b", ACCEL_IMAGE_1D_BUFFER,
		  { ACCEL_IMAGE_ORDER_RG, ACCEL_IMAGE_DATA_UNSIGNED_INT16 },
		  13, 1, 1, 1 },
		{ "c1a", ACCEL_IMAGE_1D_ARRAY,
		  { ACCEL_IMAGE_ORDER_BGRA, ACCEL_IMAGE_DATA_UNORM_INT8 },
		  6, 1, 1, 4 },
		{ "c2a", ACCEL_IMAGE_2D_ARRAY,
		  { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_SIGNED_INT32 },
		  5, 3, 1, 3 },
		{ "c3", ACCEL_IMAGE_3D,
		  { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT },
		  4, 3, 5, 1 },
	};
	uint64_t seed = 11;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct himg a, b;
		uint32_t rows = t[i].type == ACCEL_IMAGE_1D_ARRAY ?
				t[i].layers : t[i].h;
		uint32_t slices = t[i].type == ACCEL_IMAGE_3D ? t[i].d :
				  t[i].type == ACCEL_IMAGE_2D_ARRAY ?
				  t[i].layers : 1;
		uint32_t n = t[i].w * rows * slices + 3;
		int32_t (*co)[4] = calloc(n, sizeof(*co));
		uint8_t *before;
		void *cop = co;
		void *args[] = { &a.d, &b.d, &cop };

		assert_non_null(co);
		himg_init(&a, t[i].type, t[i].f, t[i].w, t[i].h, t[i].d,
			  t[i].layers);
		himg_init(&b, t[i].type, t[i].f, t[i].w, t[i].h, t[i].d,
			  t[i].layers);
		himg_fill_random(&a, &seed);
		himg_fill_random(&b, &seed);
		before = malloc(b.size);
		assert_non_null(before);
		memcpy(before, b.mem, b.size);
		for (uint32_t k = 0; k < n - 3; k++) {
			uint32_t x = k % t[i].w, r = k / t[i].w % rows,
				 s = k / t[i].w / rows;

			co[k][0] = (int32_t)x;
			if (t[i].type == ACCEL_IMAGE_1D_ARRAY) {
				co[k][1] = (int32_t)r; /* the layer */
			} else {
				co[k][1] = (int32_t)r;
				co[k][2] = (int32_t)s;
			}
		}
		/* outside: reads clamp, writes are dropped */
		co[n - 3][0] = -1;
		co[n - 2][0] = (int32_t)t[i].w;
		co[n - 1][1] = 1000;
		run(t[i].kernel, args, n);
		for (size_t off = 0; off < b.size; off++) {
			uint64_t z = off / b.d.slice_pitch;
			uint64_t y = off % b.d.slice_pitch / b.d.row_pitch;
			uint64_t x = off % b.d.slice_pitch % b.d.row_pitch /
				     b.d.texel_size;
			bool texel = y < (t[i].type == ACCEL_IMAGE_1D_ARRAY ?
					  1 : t[i].h) &&
				     x < t[i].w &&
				     off % b.d.slice_pitch < b.d.row_pitch *
					     b.d.height;

			assert_int_equal(b.mem[off],
					 texel ? a.mem[off] : before[off]);
			(void)z;
		}
		free(before);
		free(co);
		free(a.mem);
		free(b.mem);
	}
}

/* A read_write image read and written in place. */
static void test_read_write(void **state)
{
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg h;
	int w = 6;
	void *args[] = { &h.d, &w };
	float *copy;
	uint64_t seed = 3;

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, 6, 4, 1, 1);
	for (size_t b = 0; b < h.size; b += 4) {
		float v = frand(&seed, -10.0f, 10.0f);

		memcpy(h.mem + b, &v, 4);
	}
	copy = malloc(h.size);
	assert_non_null(copy);
	memcpy(copy, h.mem, h.size);
	run("rw", args, 24);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 6; x++)
			for (int c = 0; c < 4; c++) {
				size_t off = (size_t)(himg_at(&h, x, y, 0) -
						      h.mem) / 4 + c;

				assert_true(((float *)h.mem)[off] ==
					    copy[off] * 0.5f);
			}
	free(copy);
	free(h.mem);
}

/* Images in a kernel with a barrier (work-item loops over regions). */
static void test_barrier(void **state)
{
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg a, b;
	float tmem[16][4] __attribute__((aligned(128)));
	void *tp = tmem;
	void *args[] = { &a.d, &b.d, &tp };
	uint64_t seed = 8;

	(void)state;
	himg_init(&a, ACCEL_IMAGE_1D, f, 64, 1, 1, 1);
	himg_init(&b, ACCEL_IMAGE_1D, f, 64, 1, 1, 1);
	for (size_t i = 0; i < a.size; i += 4) {
		float v = frand(&seed, 0.0f, 1.0f);

		memcpy(a.mem + i, &v, 4);
	}
	wg_run_1d(wg_find(&prog, "rev", ""), args, 0, 64, 16);
	for (int x = 0; x < 64; x++)
		assert_memory_equal(himg_at(&b, x, 0, 0),
				    himg_at(&a, x / 16 * 16 + 15 - x % 16, 0,
					    0), 16);
	free(a.mem);
	free(b.mem);
}

static void test_queries(void **state)
{
	struct himg a, b, c, d, e;
	int out[14];
	void *outp = out;
	void *args[] = { &a.d, &b.d, &c.d, &d.d, &e.d, &outp };
	struct fmt f = { ACCEL_IMAGE_ORDER_sBGRA, ACCEL_IMAGE_DATA_UNORM_INT8 };
	struct fmt df = { ACCEL_IMAGE_ORDER_DEPTH, ACCEL_IMAGE_DATA_FLOAT };

	(void)state;
	himg_init(&a, ACCEL_IMAGE_1D_ARRAY, f, 17, 1, 1, 6);
	himg_init(&b, ACCEL_IMAGE_2D, f, 11, 7, 1, 1);
	himg_init(&c, ACCEL_IMAGE_2D_ARRAY, df, 3, 9, 1, 2);
	himg_init(&d, ACCEL_IMAGE_3D, f, 2, 3, 4, 1);
	himg_init(&e, ACCEL_IMAGE_1D_BUFFER, f, 100, 1, 1, 1);
	run("q", args, 1);
	assert_int_equal(out[0], 17);
	assert_int_equal(out[1], 6);
	assert_int_equal(out[2], 11);
	assert_int_equal(out[3], 7);
	assert_int_equal(out[4], 9);
	assert_int_equal(out[5], 2);
	assert_int_equal(out[6], ACCEL_IMAGE_ORDER_DEPTH);
	assert_int_equal(out[7], ACCEL_IMAGE_DATA_FLOAT);
	assert_int_equal(out[8], 4);
	assert_int_equal(out[9], 4);
	assert_int_equal(out[10], 100);
	assert_int_equal(out[11], ACCEL_IMAGE_ORDER_sBGRA);
	assert_int_equal(out[12], ACCEL_IMAGE_DATA_UNORM_INT8);
	assert_int_equal(out[13], 9);
	free(a.mem);
	free(b.mem);
	free(c.mem);
	free(d.mem);
	free(e.mem);
}

/* ---- kernel information, hostile sources -------------------------------- */

static const char every_type[] =
	"kernel void all(read_only image1d_t a, write_only image1d_buffer_t b,"
	" read_write image1d_array_t c, read_only image2d_t d,"
	" write_only image2d_array_t e, read_write image3d_t f,"
	" read_only image2d_depth_t g, write_only image2d_array_depth_t h,"
	" sampler_t s, global int *o) {"
	" o[0] = get_image_width(a) + get_image_width(b) +"
	" get_image_width(c) + get_image_width(d) + get_image_width(e) +"
	" get_image_width(f) + get_image_width(g) + get_image_width(h);"
	" o[1] = read_imagei(d, s, (int2)(0)).x; }\n";

static void test_arguments(void **state)
{
	static const struct {
		uint32_t type, flags, access;
	} want[] = {
		{ ACCEL_IMAGE_1D, 0, ACCELC_ACCESS_READ_ONLY },
		{ ACCEL_IMAGE_1D_BUFFER, 0, ACCELC_ACCESS_WRITE_ONLY },
		{ ACCEL_IMAGE_1D_ARRAY, 0, ACCELC_ACCESS_READ_WRITE },
		{ ACCEL_IMAGE_2D, 0, ACCELC_ACCESS_READ_ONLY },
		{ ACCEL_IMAGE_2D_ARRAY, 0, ACCELC_ACCESS_WRITE_ONLY },
		{ ACCEL_IMAGE_3D, 0, ACCELC_ACCESS_READ_WRITE },
		{ ACCEL_IMAGE_2D, ACCELC_IMAGE_DEPTH,
		  ACCELC_ACCESS_READ_ONLY },
		{ ACCEL_IMAGE_2D_ARRAY, ACCELC_IMAGE_DEPTH,
		  ACCELC_ACCESS_WRITE_ONLY },
	};
	const char *stds[] = { "-cl-std=CL2.0", "-cl-std=CL3.0" };

	(void)state;
	for (int s = 0; s < 2; s++) {
		struct wg_prog p;
		const struct accelc_kernel_info *k;

		wg_build(&p, every_type, stds[s]);
		k = accelc_result_find_kernel(p.res, "all");
		assert_non_null(k);
		assert_int_equal(k->n_args, 10);
		for (int i = 0; i < 8; i++) {
			const struct accelc_arg_info *a = &k->args[i];

			assert_int_equal(a->kind, ACCELC_ARG_IMAGE);
			assert_int_equal(a->size,
					 sizeof(struct accel_wg_image));
			assert_int_equal(a->alignment, 8);
			assert_int_equal(a->image_type, want[i].type);
			assert_int_equal(a->image_flags, want[i].flags);
			assert_int_equal(a->access, want[i].access);
		}
		assert_int_equal(k->args[8].kind, ACCELC_ARG_SAMPLER);
		assert_int_equal(k->args[8].size, 8);
		assert_int_equal(k->args[8].image_type, 0);
		assert_int_equal(k->args[9].kind, ACCELC_ARG_BUFFER);
		wg_unbuild(&p);
	}
}

/* OpenCL C 1.2 image code builds (3D writes: cl_khr_3d_image_writes),
 * and __IMAGE_SUPPORT__ says so. */
static void test_cl12(void **state)
{
	struct wg_prog p;

	(void)state;
	wg_build(&p,
		 "#ifndef __IMAGE_SUPPORT__\n#error no images\n#endif\n"
		 "#ifndef cl_khr_3d_image_writes\n#error no 3D writes\n#endif\n"
		 "#ifndef cl_khr_depth_images\n#error no depth\n#endif\n"
		 "__constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE |"
		 " CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;\n"
		 "kernel void k(read_only image2d_t a, write_only image3d_t b,"
		 " image2d_array_depth_t d) { write_imagef(b, (int4)(0),"
		 " read_imagef(a, s, (float2)(0.5f)) +"
		 " read_imagef(d, s, (float4)(0.5f))); }\n",
		 "-cl-std=CL1.2");
	wg_unbuild(&p);
}

/*
 * A SPIR-V module's images, sampler argument and literal samplers read
 * as the same kernels of OpenCL C do (test_source_samplers, s2).
 */
static void test_spirv(void **state)
{
#ifdef IMAGE_SPV
	enum { N = 64 };
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_UNORM_INT8 };
	struct accelc_result *res = NULL;
	struct himg h;
	float co[N][4], out[2 * N][4], ref[2 * N][4];
	uint64_t seed = 17;
	void *cop = co, *outp = out, *refp = ref;
	void *smp = (void *)(uintptr_t)(ACCEL_SAMPLER_NORMALIZED_COORDS |
					ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT |
					ACCEL_SAMPLER_FILTER_LINEAR);
	void *args[] = { &h.d, &cop, &outp }, *rargs[] = { &h.d, &cop, &refp };
	void *sargs[] = { &h.d, &smp, &cop, &outp };
	void *srargs[] = { &h.d, &smp, &cop, &refp };
	FILE *fp = fopen(IMAGE_SPV, "rb");
	char il[65536];
	size_t n;
	void *dl;

	(void)state;
	assert_non_null(fp);
	n = fread(il, 1, sizeof(il), fp);
	fclose(fp);
	if (!accelc_il_available())
		skip();
	if (accelc_compile_il(&o, il, n, 0, NULL, 0, &res) < 0) {
		fprintf(stderr, "%s\n", res ? accelc_result_get_log(res) : "");
		fail();
	}
	dl = dlopen(accelc_result_get_path(res), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(dl);
	himg_init(&h, ACCEL_IMAGE_2D, f, 7, 5, 1, 1);
	himg_fill_random(&h, &seed);
	for (int k = 0; k < N; k++) {
		co[k][0] = frand(&seed, -1.0f, 2.0f);
		co[k][1] = frand(&seed, -1.0f, 2.0f);
	}
	wg_run_1d((accel_wg_fn)dlsym(dl, "sp__wg"), args, 0, N, 16);
	run("sp", rargs, N);
	assert_memory_equal(out, ref, sizeof(out));
	wg_run_1d((accel_wg_fn)dlsym(dl, "s2__wg"), sargs, 0, N, 16);
	run("s2", srargs, N);
	assert_memory_equal(out, ref, N * sizeof(out[0]));
	dlclose(dl);
	accelc_result_free(res);
	free(h.mem);
#else
	(void)state;
	skip();
#endif
}

static void test_refused(void **state)
{
	static const char pipe_src[] =
		"kernel void p(read_only pipe int x, global int *o) {"
		" o[0] = 1; }\n";
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE,
				    .build_options = "-cl-std=CL2.0" };
	struct accelc_result *res = NULL;

	(void)state;
	assert_int_equal(accelc_compile(&o, pipe_src, strlen(pipe_src), &res),
			 -ENOEXEC);
	assert_non_null(res);
	assert_non_null(strstr(accelc_result_get_log(res),
			       "'x': pipes are not supported"));
	accelc_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_sampling),
		cmocka_unit_test(test_sampling_int),
		cmocka_unit_test(test_source_samplers),
		cmocka_unit_test(test_addressing),
		cmocka_unit_test(test_read_write),
		cmocka_unit_test(test_barrier),
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_cl12),
		cmocka_unit_test(test_spirv),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
