/* SPDX-License-Identifier: MIT */
/*
 * Image formats: which channel order and data type combinations exist,
 * texel sizes, the formats a device offers, and OpenCL's conversion rules
 * between colours and texels (pack: write_image*(), unpack: read_image*()
 * without filtering).
 */
#include <math.h>
#include <string.h>

#include "accel-private.h"

/* How a data type's channels hold values. */
enum elem_class {
	EC_UNORM,  /* unsigned normalized: float colours */
	EC_SNORM,  /* signed normalized: float colours */
	EC_SINT,   /* int32_t colours */
	EC_UINT,   /* uint32_t colours */
	EC_HALF,
	EC_FLOAT,
	EC_PACKED, /* several channels in one 16- or 32-bit word */
};

struct data_type {
	uint32_t type;
	uint8_t cls;
	uint8_t bytes; /* per channel, or per texel for EC_PACKED */
};

static const struct data_type data_types[] = {
	{ ACCEL_IMAGE_DATA_SNORM_INT8, EC_SNORM, 1 },
	{ ACCEL_IMAGE_DATA_SNORM_INT16, EC_SNORM, 2 },
	{ ACCEL_IMAGE_DATA_UNORM_INT8, EC_UNORM, 1 },
	{ ACCEL_IMAGE_DATA_UNORM_INT16, EC_UNORM, 2 },
	{ ACCEL_IMAGE_DATA_UNORM_SHORT_565, EC_PACKED, 2 },
	{ ACCEL_IMAGE_DATA_UNORM_SHORT_555, EC_PACKED, 2 },
	{ ACCEL_IMAGE_DATA_UNORM_INT_101010, EC_PACKED, 4 },
	{ ACCEL_IMAGE_DATA_SIGNED_INT8, EC_SINT, 1 },
	{ ACCEL_IMAGE_DATA_SIGNED_INT16, EC_SINT, 2 },
	{ ACCEL_IMAGE_DATA_SIGNED_INT32, EC_SINT, 4 },
	{ ACCEL_IMAGE_DATA_UNSIGNED_INT8, EC_UINT, 1 },
	{ ACCEL_IMAGE_DATA_UNSIGNED_INT16, EC_UINT, 2 },
	{ ACCEL_IMAGE_DATA_UNSIGNED_INT32, EC_UINT, 4 },
	{ ACCEL_IMAGE_DATA_HALF_FLOAT, EC_HALF, 2 },
	{ ACCEL_IMAGE_DATA_FLOAT, EC_FLOAT, 4 },
	{ ACCEL_IMAGE_DATA_UNORM_INT_101010_2, EC_PACKED, 4 },
};

/*
 * Channel orders: the colour component (0 R, 1 G, 2 B, 3 A) each stored
 * channel holds, in memory order. INTENSITY, LUMINANCE and DEPTH store
 * one value that reads spread (unpack_texel()). RGB exists only packed.
 */
struct channel_order {
	uint32_t order;
	uint8_t n;
	uint8_t comp[4];
	bool srgb;
};

static const struct channel_order orders[] = {
	{ ACCEL_IMAGE_ORDER_R, 1, { 0 }, false },
	{ ACCEL_IMAGE_ORDER_A, 1, { 3 }, false },
	{ ACCEL_IMAGE_ORDER_RG, 2, { 0, 1 }, false },
	{ ACCEL_IMAGE_ORDER_RA, 2, { 0, 3 }, false },
	{ ACCEL_IMAGE_ORDER_RGB, 3, { 0, 1, 2 }, false },
	{ ACCEL_IMAGE_ORDER_RGBA, 4, { 0, 1, 2, 3 }, false },
	{ ACCEL_IMAGE_ORDER_BGRA, 4, { 2, 1, 0, 3 }, false },
	{ ACCEL_IMAGE_ORDER_ARGB, 4, { 3, 0, 1, 2 }, false },
	{ ACCEL_IMAGE_ORDER_INTENSITY, 1, { 0 }, false },
	{ ACCEL_IMAGE_ORDER_LUMINANCE, 1, { 0 }, false },
	{ ACCEL_IMAGE_ORDER_DEPTH, 1, { 0 }, false },
	{ ACCEL_IMAGE_ORDER_sRGBA, 4, { 0, 1, 2, 3 }, true },
	{ ACCEL_IMAGE_ORDER_sBGRA, 4, { 2, 1, 0, 3 }, true },
	{ ACCEL_IMAGE_ORDER_ABGR, 4, { 3, 2, 1, 0 }, false },
};

static const struct data_type *find_type(uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(data_types); i++)
		if (data_types[i].type == type)
			return &data_types[i];
	return NULL;
}

static const struct channel_order *find_order(uint32_t order)
{
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		if (orders[i].order == order)
			return &orders[i];
	return NULL;
}

/* The combinations accel-image.h (and OpenCL) allow. */
static bool combination_valid(const struct channel_order *o,
			      const struct data_type *t)
{
	switch (o->order) {
	case ACCEL_IMAGE_ORDER_RGB:
		return t->type == ACCEL_IMAGE_DATA_UNORM_SHORT_565 ||
		       t->type == ACCEL_IMAGE_DATA_UNORM_SHORT_555 ||
		       t->type == ACCEL_IMAGE_DATA_UNORM_INT_101010;
	case ACCEL_IMAGE_ORDER_RGBA:
		return t->cls != EC_PACKED ||
		       t->type == ACCEL_IMAGE_DATA_UNORM_INT_101010_2;
	case ACCEL_IMAGE_ORDER_BGRA:
	case ACCEL_IMAGE_ORDER_ARGB:
	case ACCEL_IMAGE_ORDER_ABGR:
		return t->cls != EC_PACKED && t->cls != EC_HALF &&
		       t->bytes == 1;
	case ACCEL_IMAGE_ORDER_INTENSITY:
	case ACCEL_IMAGE_ORDER_LUMINANCE:
		return ((t->cls == EC_UNORM || t->cls == EC_SNORM) &&
			t->bytes <= 2) ||
		       t->cls == EC_HALF || t->cls == EC_FLOAT;
	case ACCEL_IMAGE_ORDER_DEPTH:
		return t->type == ACCEL_IMAGE_DATA_UNORM_INT16 ||
		       t->type == ACCEL_IMAGE_DATA_FLOAT;
	case ACCEL_IMAGE_ORDER_sRGBA:
	case ACCEL_IMAGE_ORDER_sBGRA:
		return t->type == ACCEL_IMAGE_DATA_UNORM_INT8;
	default: /* R, A, RG, RA */
		return t->cls != EC_PACKED;
	}
}

/* Look up a valid format: 0 or -EINVAL. */
static int lookup(uint32_t order, uint32_t type,
		  const struct channel_order **ro, const struct data_type **rt)
{
	const struct channel_order *o = find_order(order);
	const struct data_type *t = find_type(type);

	if (!o || !t || !combination_valid(o, t))
		return -EINVAL;
	*ro = o;
	*rt = t;
	return 0;
}

int accel_image_texel_size(uint32_t order, uint32_t type)
{
	const struct channel_order *o;
	const struct data_type *t;
	int r;

	r = lookup(order, type, &o, &t);
	if (r < 0)
		return r;
	return t->cls == EC_PACKED ? t->bytes : o->n * t->bytes;
}

bool accel_image_type_valid(uint32_t type)
{
	return type >= ACCEL_IMAGE_2D && type <= ACCEL_IMAGE_1D_BUFFER;
}

bool accel_image_format_for_type(uint32_t image_type, uint32_t order)
{
	/* depth images are 2D (OpenCL's image2d_depth_t and its arrays) */
	if (order == ACCEL_IMAGE_ORDER_DEPTH)
		return image_type == ACCEL_IMAGE_2D ||
		       image_type == ACCEL_IMAGE_2D_ARRAY;
	return accel_image_type_valid(image_type);
}

ACCEL_EXPORT int
accel_image_format_get_texel_size(const struct accel_image_format *format,
				  uint32_t *ret)
{
	int r;

	if (!format || !ret)
		return -EINVAL;
	r = accel_image_texel_size(format->channel_order, format->channel_type);
	if (r < 0)
		return r;
	*ret = (uint32_t)r;
	return 0;
}

ACCEL_EXPORT int accel_device_get_image_formats(struct accel_device *dev,
						uint32_t type, uint32_t access,
						uint32_t n,
						struct accel_image_format *formats)
{
	uint32_t count = 0;

	if (!dev || !accel_image_type_valid(type) || access == 0 ||
	    (access & ~(ACCEL_IMAGE_ACCESS_READ | ACCEL_IMAGE_ACCESS_WRITE)) ||
	    (n && !formats))
		return -EINVAL;
	/*
	 * A device with images takes every format: the conversions are the
	 * core's (this file), run by the kernel's code on the host's memory
	 * layout, so no format is harder for one access than another.
	 */
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IMAGES))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++) {
		if (!accel_image_format_for_type(type, orders[i].order))
			continue;
		for (size_t j = 0; j < ARRAY_SIZE(data_types); j++) {
			if (!combination_valid(&orders[i], &data_types[j]))
				continue;
			if (count < n) {
				formats[count].channel_order = orders[i].order;
				formats[count].channel_type =
					data_types[j].type;
			}
			count++;
		}
	}
	return (int)count;
}

/* ---- conversions ---------------------------------------------------- */

/*
 * Round to nearest, ties to even, and saturate to [lo, hi]; NaN gives 0
 * (OpenCL's convert_<type>_sat_rte(), which image writes use). In double,
 * where every float and every 32-bit integer is exact, and without the
 * floating-point environment's rounding mode.
 */
static int64_t rte_sat(double x, int64_t lo, int64_t hi)
{
	int64_t t;
	double frac;

	if (isnan(x))
		return 0;
	if (x <= (double)lo)
		return lo;
	if (x >= (double)hi)
		return hi;
	t = (int64_t)x; /* toward zero */
	frac = x - (double)t;
	if (frac > 0.5 || (frac == 0.5 && (t & 1)))
		t++;
	else if (frac < -0.5 || (frac == -0.5 && (t & 1)))
		t--;
	return t;
}

/* write_imagef() to a normalized channel of @bits bits */
static uint32_t unorm_from_float(float f, unsigned bits)
{
	uint32_t max = (1u << bits) - 1;

	return (uint32_t)rte_sat((double)(f * (float)max), 0, max);
}

static int32_t snorm_from_float(float f, unsigned bits)
{
	int32_t max = (1 << (bits - 1)) - 1;

	/* convert_char_sat_rte(f * 127.0f): -128 is reachable */
	return (int32_t)rte_sat((double)(f * (float)max), -max - 1, max);
}

static float unorm_to_float(uint32_t v, unsigned bits)
{
	return (float)v / (float)((1u << bits) - 1);
}

static float snorm_to_float(int32_t v, unsigned bits)
{
	float f = (float)v / (float)((1 << (bits - 1)) - 1);

	return f < -1.0f ? -1.0f : f;
}

/* float to IEEE half, round to nearest even (as vstore_half does). */
static uint16_t half_from_float(float f)
{
	uint32_t x, abs, sign, h, rem;

	memcpy(&x, &f, sizeof(x));
	sign = (x >> 16) & 0x8000u;
	abs = x & 0x7fffffffu;
	if (abs > 0x7f800000u) /* NaN: keep it quiet and a NaN */
		return (uint16_t)(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
	if (abs >= 0x477ff000u) /* 65520 and up round to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (abs < 0x38800000u) {
		/* below 2^-14: a subnormal half, f * 2^24 rounded */
		uint32_t e = abs >> 23, m = (abs & 0x7fffffu) | 0x800000u;
		uint32_t shift, half, q;

		if (e == 0 || 126 - e > 24)
			return (uint16_t)sign; /* below 2^-25 */
		shift = 126 - e;
		q = m >> shift;
		rem = m & ((1u << shift) - 1);
		half = 1u << (shift - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++; /* may carry into the smallest normal: right */
		return (uint16_t)(sign | q);
	}
	/* normal: rebias the exponent (127 - 15), round 13 bits away */
	h = (abs - 0x38000000u) >> 13;
	rem = abs & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
	float f;

	if (e == 0x1f)
		x = sign | 0x7f800000u | (m << 13);
	else if (e)
		x = sign | ((e + 112) << 23) | (m << 13);
	else {
		f = (float)m * 0x1p-24f; /* exact */
		return sign ? -f : f;
	}
	memcpy(&f, &x, sizeof(f));
	return f;
}

/* sRGB transfer functions (OpenCL's, from the sRGB standard). */
static float srgb_encode(float c)
{
	double d = c;

	if (isnan(d) || d <= 0.0)
		return 0.0f;
	if (d >= 1.0)
		return 1.0f;
	if (d < 0.0031308)
		return (float)(12.92 * d);
	return (float)(1.055 * pow(d, 1.0 / 2.4) - 0.055);
}

static float srgb_decode(float s)
{
	double d = s;

	if (d <= 0.04045)
		return (float)(d / 12.92);
	return (float)pow((d + 0.055) / 1.055, 2.4);
}

static void store_elem(uint8_t *p, unsigned bytes, uint32_t v)
{
	uint8_t b8 = (uint8_t)v;
	uint16_t b16 = (uint16_t)v;

	if (bytes == 1)
		memcpy(p, &b8, 1);
	else if (bytes == 2)
		memcpy(p, &b16, 2);
	else
		memcpy(p, &v, 4);
}

static uint32_t load_elem(const uint8_t *p, unsigned bytes)
{
	uint8_t b8;
	uint16_t b16;
	uint32_t v;

	if (bytes == 1) {
		memcpy(&b8, p, 1);
		return b8;
	}
	if (bytes == 2) {
		memcpy(&b16, p, 2);
		return b16;
	}
	memcpy(&v, p, 4);
	return v;
}

/* One channel of a non-packed type from component @c of @color. */
static uint32_t encode_elem(const struct data_type *t, const void *color,
			    unsigned c, bool srgb)
{
	unsigned bits = t->bytes * 8;
	float f;
	int32_t i;
	uint32_t u;

	switch (t->cls) {
	case EC_SINT:
		memcpy(&i, (const int32_t *)color + c, sizeof(i));
		/* convert_char_sat() and convert_short_sat() */
		if (bits < 32)
			i = (int32_t)rte_sat(i, -(1 << (bits - 1)),
					     (1 << (bits - 1)) - 1);
		return (uint32_t)i;
	case EC_UINT:
		memcpy(&u, (const uint32_t *)color + c, sizeof(u));
		if (bits < 32 && u > (1u << bits) - 1)
			u = (1u << bits) - 1;
		return u;
	default:
		break;
	}
	memcpy(&f, (const float *)color + c, sizeof(f));
	switch (t->cls) {
	case EC_UNORM:
		/* alpha stays linear in sRGB formats */
		return unorm_from_float(srgb && c != 3 ? srgb_encode(f) : f,
					bits);
	case EC_SNORM:
		return (uint32_t)snorm_from_float(f, bits);
	case EC_HALF:
		return half_from_float(f);
	default: /* EC_FLOAT: stored as it is, NaN and all */
		memcpy(&u, &f, sizeof(u));
		return u;
	}
}

/* The colour value of a stored non-packed channel, as 32 bits. */
static uint32_t decode_elem(const struct data_type *t, uint32_t v,
			    bool srgb_channel)
{
	unsigned bits = t->bytes * 8;
	int32_t i;
	float f;
	uint32_t u;

	switch (t->cls) {
	case EC_SINT:
		/* sign-extend */
		i = bits == 32 ? (int32_t)v :
		    bits == 16 ? (int16_t)v : (int8_t)v;
		return (uint32_t)i;
	case EC_UINT:
		return v;
	case EC_UNORM:
		f = unorm_to_float(v, bits);
		if (srgb_channel)
			f = srgb_decode(f);
		break;
	case EC_SNORM:
		f = snorm_to_float(bits == 16 ? (int16_t)v : (int8_t)v, bits);
		break;
	case EC_HALF:
		f = half_to_float((uint16_t)v);
		break;
	default:
		memcpy(&f, &v, sizeof(f));
		break;
	}
	memcpy(&u, &f, sizeof(u));
	return u;
}

/* The packed formats: bit offsets and widths of R, G, B, A. */
struct packing {
	uint8_t shift[4];
	uint8_t bits[4]; /* 0: no such channel */
};

static const struct packing *packing_of(uint32_t type)
{
	static const struct packing p565 = { { 11, 5, 0, 0 }, { 5, 6, 5, 0 } };
	static const struct packing p555 = { { 10, 5, 0, 0 }, { 5, 5, 5, 0 } };
	static const struct packing p101010 = { { 20, 10, 0, 0 },
						{ 10, 10, 10, 0 } };
	static const struct packing p1010102 = { { 22, 12, 2, 0 },
						 { 10, 10, 10, 2 } };

	switch (type) {
	case ACCEL_IMAGE_DATA_UNORM_SHORT_565:
		return &p565;
	case ACCEL_IMAGE_DATA_UNORM_SHORT_555:
		return &p555;
	case ACCEL_IMAGE_DATA_UNORM_INT_101010:
		return &p101010;
	default:
		return &p1010102;
	}
}

ACCEL_EXPORT int accel_image_pack_texel(const struct accel_image_format *format,
					const void *color, void *texel)
{
	const struct channel_order *o;
	const struct data_type *t;
	uint8_t *out = texel;
	int r;

	if (!format || !color || !texel)
		return -EINVAL;
	r = lookup(format->channel_order, format->channel_type, &o, &t);
	if (r < 0)
		return r;
	if (t->cls == EC_PACKED) {
		const struct packing *p = packing_of(t->type);
		uint32_t word = 0;
		float f;

		for (unsigned c = 0; c < 4; c++) {
			if (!p->bits[c])
				continue;
			memcpy(&f, (const float *)color + c, sizeof(f));
			word |= unorm_from_float(f, p->bits[c]) << p->shift[c];
		}
		store_elem(out, t->bytes, word);
		return 0;
	}
	/* one stored channel per component; INTENSITY etc. store R */
	for (unsigned i = 0; i < o->n; i++)
		store_elem(out + i * t->bytes, t->bytes,
			   encode_elem(t, color, o->comp[i], o->srgb));
	return 0;
}

ACCEL_EXPORT int
accel_image_unpack_texel(const struct accel_image_format *format,
			 const void *texel, void *color)
{
	const struct channel_order *o;
	const struct data_type *t;
	const uint8_t *in = texel;
	uint32_t out[4], one;
	float f1 = 1.0f;
	int r;

	if (!format || !texel || !color)
		return -EINVAL;
	r = lookup(format->channel_order, format->channel_type, &o, &t);
	if (r < 0)
		return r;
	/* missing channels: 0, and alpha 1 (1.0f or the integer 1) */
	if (t->cls == EC_SINT || t->cls == EC_UINT)
		one = 1;
	else
		memcpy(&one, &f1, sizeof(one));
	out[0] = out[1] = out[2] = 0;
	out[3] = one;

	if (t->cls == EC_PACKED) {
		const struct packing *p = packing_of(t->type);
		uint32_t word = load_elem(in, t->bytes);
		float f;

		for (unsigned c = 0; c < 4; c++) {
			if (!p->bits[c])
				continue;
			f = unorm_to_float((word >> p->shift[c]) &
						   ((1u << p->bits[c]) - 1),
					   p->bits[c]);
			memcpy(&out[c], &f, sizeof(f));
		}
	} else {
		for (unsigned i = 0; i < o->n; i++)
			out[o->comp[i]] = decode_elem(
				t, load_elem(in + i * t->bytes, t->bytes),
				o->srgb && o->comp[i] != 3);
		if (o->order == ACCEL_IMAGE_ORDER_INTENSITY)
			out[1] = out[2] = out[3] = out[0];
		else if (o->order == ACCEL_IMAGE_ORDER_LUMINANCE)
			out[1] = out[2] = out[0];
	}
	memcpy(color, out, sizeof(out));
	return 0;
}
