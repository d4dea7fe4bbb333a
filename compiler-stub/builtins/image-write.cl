/* SPDX-License-Identifier: MIT */
/*
 * write_imagef, write_imagei, write_imageui and write_imageh of every
 * image type, write-only and read-write (3D ones: cl_khr_3d_image_writes),
 * and write_imagef of depth images. Writes outside the image, undefined
 * by OpenCL, are dropped.
 */
#include "image.h"

static inline void wr_float(global const struct img *d, int4 c, int ld,
			    float4 v)
{
	c = img_xyz(d, c, ld);
	if (img_in(d, c))
		img_write_f(d, c, v);
}

static inline void wr_int(global const struct img *d, int4 c, int ld, int4 v)
{
	c = img_xyz(d, c, ld);
	if (img_in(d, c))
		__accelc_img_store_i(d, img_texel(d, c.x, c.y, c.z), v);
}

static inline void wr_uint(global const struct img *d, int4 c, int ld,
			   uint4 v)
{
	c = img_xyz(d, c, ld);
	if (img_in(d, c))
		__accelc_img_store_ui(d, img_texel(d, c.x, c.y, c.z), v);
}

#define I1(c) (int4)((c), 0, 0, 0)
#define I2(c) (int4)((c), 0, 0)
#define I4(c) (c)

#define WRITE(ACC, IT, CI, P, LD)                                              \
	void OVL write_imagef(ACC IT i, CI c, float4 v)                        \
	{                                                                      \
		wr_float(IMG(i), P(c), LD, v);                                 \
	}                                                                      \
	void OVL write_imagei(ACC IT i, CI c, int4 v)                          \
	{                                                                      \
		wr_int(IMG(i), P(c), LD, v);                                   \
	}                                                                      \
	void OVL write_imageui(ACC IT i, CI c, uint4 v)                        \
	{                                                                      \
		wr_uint(IMG(i), P(c), LD, v);                                  \
	}                                                                      \
	void OVL write_imageh(ACC IT i, CI c, half4 v)                         \
	{                                                                      \
		wr_float(IMG(i), P(c), LD, convert_float4(v));                 \
	}
#define TYPE(IT, CI, P, LD)                                                    \
	WRITE(write_only, IT, CI, P, LD)                                       \
	WRITE(read_write, IT, CI, P, LD)

TYPE(image1d_t, int, I1, 0)
TYPE(image1d_buffer_t, int, I1, 0)
TYPE(image1d_array_t, int2, I2, 1)
TYPE(image2d_t, int2, I2, 0)
TYPE(image2d_array_t, int4, I4, 2)
TYPE(image3d_t, int4, I4, 0)

#define DEPTH(ACC, IT, CI, P, LD)                                              \
	void OVL write_imagef(ACC IT i, CI c, float v)                         \
	{                                                                      \
		wr_float(IMG(i), P(c), LD, (float4)(v, 0.0f, 0.0f, 1.0f));     \
	}
DEPTH(write_only, image2d_depth_t, int2, I2, 0)
DEPTH(read_write, image2d_depth_t, int2, I2, 0)
DEPTH(write_only, image2d_array_depth_t, int4, I4, 2)
DEPTH(read_write, image2d_array_depth_t, int4, I4, 2)
