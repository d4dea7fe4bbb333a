/* SPDX-License-Identifier: MIT */
/*
 * Shared by the image builtins (image-*.cl): the image descriptor as
 * kernels see it, and the texel and addressing helpers. An image value
 * (image2d_t, ...) is the address of the launch's struct accel_wg_image
 * (include/libaccel/accel-wg.h, whose layout struct img repeats); a
 * sampler value is its ACCEL_SAMPLER_* bits (OpenCL C's CLK_* values)
 * as a pointer. The helpers are static inline: every piece that uses
 * them is inlined into the kernels anyway.
 */
#ifndef ACCELC_IMAGE_H
#define ACCELC_IMAGE_H

#include "builtins.h"

/* struct accel_wg_image, field for field */
struct img {
	global uchar *data;
	ulong row_pitch;
	ulong slice_pitch;
	uint width, height, depth, array_size;
	uint type, order, dtype, texel_size;
};

#define IMG(i) __builtin_astype((i), global struct img *)
#define SMP(s) ((uint)(ulong)__builtin_astype((s), global void *))

/* enum accel_image_type */
#define T_2D 0x10F1u
#define T_3D 0x10F2u
#define T_2D_ARRAY 0x10F3u
#define T_1D 0x10F4u
#define T_1D_ARRAY 0x10F5u
#define T_1D_BUFFER 0x10F6u

/* enum accel_image_order */
#define O_R 0x10B0u
#define O_A 0x10B1u
#define O_RG 0x10B2u
#define O_RA 0x10B3u
#define O_RGB 0x10B4u
#define O_RGBA 0x10B5u
#define O_BGRA 0x10B6u
#define O_ARGB 0x10B7u
#define O_INTENSITY 0x10B8u
#define O_LUMINANCE 0x10B9u
#define O_DEPTH 0x10BDu
#define O_sRGBA 0x10C1u
#define O_sBGRA 0x10C2u
#define O_ABGR 0x10C3u

/* enum accel_image_data */
#define D_SNORM_INT8 0x10D0u
#define D_SNORM_INT16 0x10D1u
#define D_UNORM_INT8 0x10D2u
#define D_UNORM_INT16 0x10D3u
#define D_UNORM_SHORT_565 0x10D4u
#define D_UNORM_SHORT_555 0x10D5u
#define D_UNORM_INT_101010 0x10D6u
#define D_SIGNED_INT8 0x10D7u
#define D_SIGNED_INT16 0x10D8u
#define D_SIGNED_INT32 0x10D9u
#define D_UNSIGNED_INT8 0x10DAu
#define D_UNSIGNED_INT16 0x10DBu
#define D_UNSIGNED_INT32 0x10DCu
#define D_HALF_FLOAT 0x10DDu
#define D_FLOAT 0x10DEu
#define D_UNORM_INT_101010_2 0x10E0u

/* sampler bits */
#define S_NORMALIZED 0x01u
#define S_ADDR_MASK 0x0eu
#define S_NONE 0x00u
#define S_CLAMP_TO_EDGE 0x02u
#define S_CLAMP 0x04u
#define S_REPEAT 0x06u
#define S_MIRRORED_REPEAT 0x08u
#define S_LINEAR 0x20u

/* Texel decoding and encoding (image-format.cl). */
float4 __accelc_img_load_f(global const struct img *d,
			   global const uchar *p);
int4 __accelc_img_load_i(global const struct img *d, global const uchar *p);
uint4 __accelc_img_load_ui(global const struct img *d,
			   global const uchar *p);
void __accelc_img_store_f(global const struct img *d, global uchar *p,
			  float4 c);
void __accelc_img_store_i(global const struct img *d, global uchar *p,
			  int4 c);
void __accelc_img_store_ui(global const struct img *d, global uchar *p,
			   uint4 c);
/* The border colour of CLK_ADDRESS_CLAMP: alpha 1 for orders without. */
float4 __accelc_img_border_f(global const struct img *d);

/* Sampled reads (image-sample.cl): coordinates x, y, z where z is the
 * layer of 2D arrays, y that of 1D arrays; @p dims 1, 2 or 3 spatial
 * dimensions, @p layer_dim the coordinate holding a layer (0: none). */
float4 __accelc_img_sample_f(global const struct img *d, uint smp,
			     float4 c, int dims, int layer_dim);
int4 __accelc_img_sample_int(global const struct img *d, uint smp, float4 c,
			   int dims, int layer_dim);
uint4 __accelc_img_sample_uint(global const struct img *d, uint smp,
			     float4 c, int dims, int layer_dim);

/*
 * Address of texel (x, y, z), the coordinates already in range; y and z
 * are 0 where they do not apply (the layer of a 1D array is z).
 */
static inline global uchar *img_texel(global const struct img *d, int x,
				      int y, int z)
{
	return d->data + (ulong)(uint)z * d->slice_pitch +
	       (ulong)(uint)y * d->row_pitch + (ulong)(uint)x * d->texel_size;
}

/*
 * Integer coordinates of a sampler-less access or a write, as x, y, z of
 * img_texel() (a 1D array's layer moved to z). Outside the image the
 * result is undefined by OpenCL; reads clamp so as to stay inside the
 * image's memory, writes are dropped (img_in()).
 */
static inline int4 img_xyz(global const struct img *d, int4 c, int layer_dim)
{
	if (layer_dim == 1)
		c = (int4)(c.x, 0, c.y, 0);
	return c;
}

static inline bool img_in(global const struct img *d, int4 c)
{
	uint zmax = d->type == T_3D ? d->depth : d->array_size;

	return (uint)c.x < d->width && (uint)c.y < d->height &&
	       (uint)c.z < zmax;
}

static inline int4 img_clamp(global const struct img *d, int4 c)
{
	uint zmax = d->type == T_3D ? d->depth : d->array_size;

	return (int4)(clamp(c.x, 0, (int)d->width - 1),
		      clamp(c.y, 0, (int)d->height - 1),
		      clamp(c.z, 0, (int)zmax - 1), 0);
}

/* Fast paths of the common formats, tried before the general decoder. */
static inline float4 img_read_f(global const struct img *d, int4 c)
{
	global const uchar *p = img_texel(d, c.x, c.y, c.z);

	/* four channels only: a smaller texel may end the buffer */
	if (d->dtype == D_UNORM_INT8 &&
	    (d->order == O_RGBA || d->order == O_BGRA)) {
		float4 v = convert_float4(*(global const uchar4 *)p) / 255.0f;

		return d->order == O_RGBA ? v : v.zyxw;
	}
	if (d->dtype == D_FLOAT && d->order == O_RGBA)
		return *(global const float4 *)p;
	return __accelc_img_load_f(d, p);
}

static inline void img_write_f(global const struct img *d, int4 c,
			       float4 v)
{
	global uchar *p = img_texel(d, c.x, c.y, c.z);

	if (d->dtype == D_FLOAT && d->order == O_RGBA)
		*(global float4 *)p = v;
	else if (d->dtype == D_UNORM_INT8 && d->order == O_RGBA)
		*(global uchar4 *)p = convert_uchar4_sat_rte(v * 255.0f);
	else if (d->dtype == D_UNORM_INT8 && d->order == O_BGRA)
		*(global uchar4 *)p = convert_uchar4_sat_rte(v.zyxw * 255.0f);
	else
		__accelc_img_store_f(d, p, v);
}

#endif
