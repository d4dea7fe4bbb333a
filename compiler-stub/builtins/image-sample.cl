/* SPDX-License-Identifier: MIT */
/*
 * Reads through a sampler with float coordinates: OpenCL's "Image
 * Addressing and Filtering" (normalized or not; CLAMP_TO_EDGE, CLAMP,
 * REPEAT, MIRRORED_REPEAT, NONE; nearest, or linear over 2, 2x2 or 2x2x2
 * texels with floor(u - 0.5) weights). Layers are rint(coordinate)
 * clamped to the array. Integer formats read nearest, whatever the
 * filter. Where OpenCL leaves a result undefined (NONE outside the
 * image, REPEAT without normalized coordinates) the texel is clamped to
 * the edge, so that no read leaves the image.
 */
#include "image.h"

/* floor(u) as an int, NaN as 0, saturated (fptosi would be poison) */
static inline int ifloor(float u)
{
	return convert_int_sat_rtn(u);
}

/*
 * Texels i0, i1 and weight a of coordinate @p s along an axis of @p n
 * texels (i1 and a only when linear). Indices end in [0, n - 1], or in
 * [-1, n] with CLAMP, where those outside mean the border colour.
 */
static inline void axis(uint smp, float s, int n, bool linear, int *i0,
			int *i1, float *a)
{
	uint am = smp & S_ADDR_MASK;
	bool norm = smp & S_NORMALIZED;
	float u, t;
	int j;

	if (norm && am == S_REPEAT) {
		u = (s - floor(s)) * (float)n;
		if (!linear) {
			j = ifloor(u);
			*i0 = j > n - 1 ? j - n : j;
			return;
		}
		t = u - 0.5f;
		j = ifloor(t);
		*a = t - floor(t);
		*i0 = j < 0 ? n + j : j;
		*i1 = j + 1 > n - 1 ? j + 1 - n : j + 1;
		/* guard against what NaN and infinities leave */
		*i0 = clamp(*i0, 0, n - 1);
		*i1 = clamp(*i1, 0, n - 1);
		return;
	}
	if (norm && am == S_MIRRORED_REPEAT) {
		float m = fabs(s - 2.0f * rint(0.5f * s));

		u = m * (float)n;
		if (!linear) {
			*i0 = clamp(ifloor(u), 0, n - 1);
			return;
		}
		t = u - 0.5f;
		j = ifloor(t);
		*a = t - floor(t);
		*i0 = clamp(j, 0, n - 1);
		*i1 = clamp(j + 1, 0, n - 1);
		return;
	}
	u = norm ? s * (float)n : s;
	if (linear) {
		t = u - 0.5f;
		j = ifloor(t);
		*a = t - floor(t);
	} else {
		j = ifloor(u);
	}
	if (am == S_CLAMP) {
		*i0 = clamp(j, -1, n);
		*i1 = clamp(j + 1, -1, n);
	} else {
		*i0 = clamp(j, 0, n - 1);
		*i1 = clamp(j + 1, 0, n - 1);
	}
}

static inline int layer(global const struct img *d, float l)
{
	return clamp(convert_int_sat_rte(l), 0, (int)d->array_size - 1);
}

/* Texel (x, y, z) or, outside the image (CLAMP), the border colour. */
static inline float4 tap(global const struct img *d, int x, int y, int z,
			 bool clamp_mode, float4 border)
{
	if (clamp_mode && !img_in(d, (int4)(x, y, z, 0)))
		return border;
	return img_read_f(d, (int4)(x, y, z, 0));
}

float4 __accelc_img_sample_f(global const struct img *d, uint smp, float4 c,
			     int dims, int layer_dim)
{
	bool linear = smp & S_LINEAR;
	bool cm = (smp & S_ADDR_MASK) == S_CLAMP;
	float4 border = cm ? __accelc_img_border_f(d) : (float4)(0.0f);
	int x0, x1 = 0, y0 = 0, y1 = 0, z0 = 0, z1 = 0;
	float a = 0.0f, b = 0.0f, g = 0.0f;

	axis(smp, c.x, (int)d->width, linear, &x0, &x1, &a);
	if (dims > 1)
		axis(smp, c.y, (int)d->height, linear, &y0, &y1, &b);
	if (dims > 2)
		axis(smp, c.z, (int)d->depth, linear, &z0, &z1, &g);
	if (layer_dim == 1)
		z0 = z1 = layer(d, c.y);
	else if (layer_dim == 2)
		z0 = z1 = layer(d, c.z);
	if (!linear)
		return tap(d, x0, y0, z0, cm, border);
	if (dims == 1)
		return (1.0f - a) * tap(d, x0, 0, z0, cm, border) +
		       a * tap(d, x1, 0, z0, cm, border);
	float4 r = (1.0f - a) * (1.0f - b) * tap(d, x0, y0, z0, cm, border) +
		   a * (1.0f - b) * tap(d, x1, y0, z0, cm, border) +
		   (1.0f - a) * b * tap(d, x0, y1, z0, cm, border) +
		   a * b * tap(d, x1, y1, z0, cm, border);
	if (dims == 2)
		return r;
	return (1.0f - g) * r +
	       g * ((1.0f - a) * (1.0f - b) * tap(d, x0, y0, z1, cm, border) +
		    a * (1.0f - b) * tap(d, x1, y0, z1, cm, border) +
		    (1.0f - a) * b * tap(d, x0, y1, z1, cm, border) +
		    a * b * tap(d, x1, y1, z1, cm, border));
}

/* Integer formats: nearest; the border as integers. */
#define SAMPLE_INT(T, LOAD)                                                    \
	T##4 __accelc_img_sample_##T(global const struct img *d, uint smp,     \
				     float4 c, int dims, int layer_dim)        \
	{                                                                      \
		int x, y = 0, z = 0, unused;                                   \
		float w;                                                       \
                                                                               \
		smp &= ~S_LINEAR;                                              \
		axis(smp, c.x, (int)d->width, false, &x, &unused, &w);         \
		if (dims > 1)                                                  \
			axis(smp, c.y, (int)d->height, false, &y, &unused,     \
			     &w);                                              \
		if (dims > 2)                                                  \
			axis(smp, c.z, (int)d->depth, false, &z, &unused,      \
			     &w);                                              \
		if (layer_dim == 1)                                            \
			z = layer(d, c.y);                                     \
		else if (layer_dim == 2)                                       \
			z = layer(d, c.z);                                     \
		if ((smp & S_ADDR_MASK) == S_CLAMP &&                          \
		    !img_in(d, (int4)(x, y, z, 0)))                            \
			return convert_##T##4(__accelc_img_border_f(d));       \
		return LOAD(d, img_texel(d, x, y, z));                         \
	}
SAMPLE_INT(int, __accelc_img_load_i)
SAMPLE_INT(uint, __accelc_img_load_ui)
