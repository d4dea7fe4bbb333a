/* SPDX-License-Identifier: MIT */
/*
 * The host reference of the image tests, written from the OpenCL
 * specification (conversions, sRGB), and images in host memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image-test.h"

/* ---- the host reference ------------------------------------------------ */


bool is_int_type(uint32_t t)
{
	return t >= ACCEL_IMAGE_DATA_SIGNED_INT8 &&
	       t <= ACCEL_IMAGE_DATA_UNSIGNED_INT32;
}

bool is_signed_int(uint32_t t)
{
	return t >= ACCEL_IMAGE_DATA_SIGNED_INT8 &&
	       t <= ACCEL_IMAGE_DATA_SIGNED_INT32;
}

/* which RGBA component each stored channel holds, -1 ends */
const int *slots(uint32_t order)
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

unsigned n_slots(uint32_t order)
{
	const int *s = slots(order);
	unsigned n = 0;

	while (n < 4 && s[n] >= 0)
		n++;
	return n;
}

unsigned chan_size(uint32_t t)
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

unsigned texel_size(const struct fmt *f)
{
	if (f->type == ACCEL_IMAGE_DATA_UNORM_SHORT_565 ||
	    f->type == ACCEL_IMAGE_DATA_UNORM_SHORT_555)
		return 2;
	if (f->type == ACCEL_IMAGE_DATA_UNORM_INT_101010 ||
	    f->type == ACCEL_IMAGE_DATA_UNORM_INT_101010_2)
		return 4;
	return n_slots(f->order) * chan_size(f->type);
}

bool is_srgb(uint32_t order)
{
	return order == ACCEL_IMAGE_ORDER_sRGBA ||
	       order == ACCEL_IMAGE_ORDER_sBGRA;
}

/* round to nearest even and saturate, NaN to 0 */
long to_int_sat(float v, float lo, float hi)
{
	if (isnan(v))
		return 0;
	v = fminf(fmaxf(v, lo), hi);
	return lrintf(v);
}

double srgb_encode(double l)
{
	if (!(l > 0))
		return 0;
	if (l <= 0.0031308)
		return 12.92 * l;
	return l >= 1 ? 1 : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

double srgb_decode(double c)
{
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* Encode colour (float[4], int32_t[4] or uint32_t[4]) as a texel. */
void pack(const struct fmt *f, const void *color, uint8_t *t)
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
void unpack(const struct fmt *f, const uint8_t *t, void *color)
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

void himg_init(struct himg *h, uint32_t type, struct fmt f,
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

uint8_t *himg_at(struct himg *h, int x, int y, int z)
{
	return h->mem + (uint64_t)z * h->d.slice_pitch +
	       (uint64_t)y * h->d.row_pitch + (uint64_t)x * h->d.texel_size;
}

void himg_fill_random(struct himg *h, uint64_t *seed)
{
	for (size_t i = 0; i < h->size; i++) {
		*seed ^= *seed << 13;
		*seed ^= *seed >> 7;
		*seed ^= *seed << 17;
		h->mem[i] = (uint8_t)(*seed >> 24);
	}
}

uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

float frand(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd(s) >> 40) / (float)(1 << 24);
}
