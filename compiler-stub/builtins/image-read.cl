/* SPDX-License-Identifier: MIT */
/*
 * read_imagef, read_imagei, read_imageui and read_imageh of every image
 * type: through a sampler (integer coordinates: unnormalized, nearest;
 * float ones: image-sample.cl) and sampler-less (read-only and
 * read-write images), and read_imagef of depth images.
 */
#include "image.h"

/* coordinates as int4/float4 x, y, z (a 1D array's layer in y) */
#define I1(c) (int4)((c), 0, 0, 0)
#define I2(c) (int4)((c), 0, 0)
#define I4(c) (c)
#define F1(c) (float4)((c), 0.0f, 0.0f, 0.0f)
#define F2(c) (float4)((c), 0.0f, 0.0f)
#define F4(c) (c)

static inline float4 load_float(global const struct img *d, int4 c)
{
	return img_read_f(d, c);
}

static inline int4 load_int(global const struct img *d, int4 c)
{
	return __accelc_img_load_i(d, img_texel(d, c.x, c.y, c.z));
}

static inline uint4 load_uint(global const struct img *d, int4 c)
{
	return __accelc_img_load_ui(d, img_texel(d, c.x, c.y, c.z));
}

/*
 * Integer coordinates, @p smp unnormalized: the texel, or with CLAMP
 * outside the image the border colour. Layers are clamped to the array.
 */
#define READ_INT(T)                                                            \
	static inline T##4 rd_##T(global const struct img *d, uint smp,        \
				  int4 c, int ld)                              \
	{                                                                      \
		c = img_xyz(d, c, ld);                                         \
		if (ld)                                                        \
			c.z = clamp(c.z, 0, (int)d->array_size - 1);           \
		if ((smp & S_ADDR_MASK) == S_CLAMP && !img_in(d, c))           \
			return convert_##T##4(__accelc_img_border_f(d));       \
		return load_##T(d, img_clamp(d, c));                           \
	}
READ_INT(float)
READ_INT(int)
READ_INT(uint)

/* sampler-less reads: as with CLK_ADDRESS_NONE, nearest */
#define PLAIN(ACC, IT, CI, P, LD)                                              \
	float4 OVL read_imagef(ACC IT i, CI c)                                 \
	{                                                                      \
		return rd_float(IMG(i), S_NONE, P(c), LD);                     \
	}                                                                      \
	int4 OVL read_imagei(ACC IT i, CI c)                                   \
	{                                                                      \
		return rd_int(IMG(i), S_NONE, P(c), LD);                       \
	}                                                                      \
	uint4 OVL read_imageui(ACC IT i, CI c)                                 \
	{                                                                      \
		return rd_uint(IMG(i), S_NONE, P(c), LD);                      \
	}                                                                      \
	half4 OVL read_imageh(ACC IT i, CI c)                                  \
	{                                                                      \
		return convert_half4(rd_float(IMG(i), S_NONE, P(c), LD));      \
	}

#define SAMPLED(IT, CI, CF, P, F, DIMS, LD)                                    \
	float4 OVL read_imagef(read_only IT i, sampler_t s, CI c)              \
	{                                                                      \
		return rd_float(IMG(i), SMP(s), P(c), LD);                     \
	}                                                                      \
	int4 OVL read_imagei(read_only IT i, sampler_t s, CI c)                \
	{                                                                      \
		return rd_int(IMG(i), SMP(s), P(c), LD);                       \
	}                                                                      \
	uint4 OVL read_imageui(read_only IT i, sampler_t s, CI c)              \
	{                                                                      \
		return rd_uint(IMG(i), SMP(s), P(c), LD);                      \
	}                                                                      \
	half4 OVL read_imageh(read_only IT i, sampler_t s, CI c)               \
	{                                                                      \
		return convert_half4(rd_float(IMG(i), SMP(s), P(c), LD));      \
	}                                                                      \
	float4 OVL read_imagef(read_only IT i, sampler_t s, CF c)              \
	{                                                                      \
		return __accelc_img_sample_f(IMG(i), SMP(s), F(c), DIMS, LD);  \
	}                                                                      \
	int4 OVL read_imagei(read_only IT i, sampler_t s, CF c)                \
	{                                                                      \
		return __accelc_img_sample_int(IMG(i), SMP(s), F(c), DIMS,     \
					       LD);                            \
	}                                                                      \
	uint4 OVL read_imageui(read_only IT i, sampler_t s, CF c)              \
	{                                                                      \
		return __accelc_img_sample_uint(IMG(i), SMP(s), F(c), DIMS,    \
						LD);                           \
	}                                                                      \
	half4 OVL read_imageh(read_only IT i, sampler_t s, CF c)               \
	{                                                                      \
		return convert_half4(__accelc_img_sample_f(IMG(i), SMP(s),     \
							   F(c), DIMS, LD));   \
	}

#define TYPE(IT, CI, CF, P, F, DIMS, LD)                                       \
	SAMPLED(IT, CI, CF, P, F, DIMS, LD)                                    \
	PLAIN(read_only, IT, CI, P, LD)                                        \
	PLAIN(read_write, IT, CI, P, LD)

TYPE(image1d_t, int, float, I1, F1, 1, 0)
TYPE(image1d_array_t, int2, float2, I2, F2, 1, 1)
TYPE(image2d_t, int2, float2, I2, F2, 2, 0)
TYPE(image2d_array_t, int4, float4, I4, F4, 2, 2)
TYPE(image3d_t, int4, float4, I4, F4, 3, 0)
PLAIN(read_only, image1d_buffer_t, int, I1, 0)
PLAIN(read_write, image1d_buffer_t, int, I1, 0)

/* depth images: the one channel */
#define DEPTH(IT, CI, CF, P, F, LD)                                            \
	float OVL read_imagef(read_only IT i, sampler_t s, CI c)               \
	{                                                                      \
		return rd_float(IMG(i), SMP(s), P(c), LD).x;                   \
	}                                                                      \
	float OVL read_imagef(read_only IT i, sampler_t s, CF c)               \
	{                                                                      \
		return __accelc_img_sample_f(IMG(i), SMP(s), F(c), 2, LD).x;   \
	}                                                                      \
	float OVL read_imagef(read_only IT i, CI c)                            \
	{                                                                      \
		return rd_float(IMG(i), S_NONE, P(c), LD).x;                   \
	}                                                                      \
	float OVL read_imagef(read_write IT i, CI c)                           \
	{                                                                      \
		return rd_float(IMG(i), S_NONE, P(c), LD).x;                   \
	}
DEPTH(image2d_depth_t, int2, float2, I2, F2, 0)
DEPTH(image2d_array_depth_t, int4, float4, I4, F4, 2)
