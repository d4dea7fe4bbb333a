/* SPDX-License-Identifier: MIT */
/*
 * get_image_width/height/depth/array_size/dim/channel_data_type/
 * channel_order of every image type, and the sampler values of samplers
 * declared in the source: clang calls __translate_sampler_initializer()
 * with their CLK_* bits, which are the sampler's value (image.h), so
 * that the bits fold into the reads after inlining.
 */
#include "image.h"

constant void *__translate_sampler_initializer(int bits)
{
	return (constant void *)(ulong)(uint)bits;
}

#define ALL(ACC, IT)                                                           \
	int OVL get_image_width(ACC IT i) { return (int)IMG(i)->width; }       \
	int OVL get_image_channel_data_type(ACC IT i)                          \
	{                                                                      \
		return (int)IMG(i)->dtype;                                     \
	}                                                                      \
	int OVL get_image_channel_order(ACC IT i)                              \
	{                                                                      \
		return (int)IMG(i)->order;                                     \
	}
#define HEIGHT(ACC, IT)                                                        \
	int OVL get_image_height(ACC IT i) { return (int)IMG(i)->height; }
#define DIM2(ACC, IT)                                                          \
	int2 OVL get_image_dim(ACC IT i)                                       \
	{                                                                      \
		return (int2)((int)IMG(i)->width, (int)IMG(i)->height);        \
	}
#define ARRAY(ACC, IT)                                                         \
	size_t OVL get_image_array_size(ACC IT i)                              \
	{                                                                      \
		return IMG(i)->array_size;                                     \
	}
#define THREED(ACC)                                                            \
	int OVL get_image_depth(ACC image3d_t i) { return (int)IMG(i)->depth; } \
	int4 OVL get_image_dim(ACC image3d_t i)                                \
	{                                                                      \
		global struct img *d = IMG(i);                                 \
		return (int4)((int)d->width, (int)d->height, (int)d->depth,    \
			      0);                                              \
	}

#define QUERIES(ACC)                                                           \
	ALL(ACC, image1d_t)                                                    \
	ALL(ACC, image1d_buffer_t)                                             \
	ALL(ACC, image1d_array_t)                                              \
	ALL(ACC, image2d_t)                                                    \
	ALL(ACC, image2d_array_t)                                              \
	ALL(ACC, image3d_t)                                                    \
	ALL(ACC, image2d_depth_t)                                              \
	ALL(ACC, image2d_array_depth_t)                                        \
	HEIGHT(ACC, image2d_t)                                                 \
	HEIGHT(ACC, image2d_array_t)                                           \
	HEIGHT(ACC, image3d_t)                                                 \
	HEIGHT(ACC, image2d_depth_t)                                           \
	HEIGHT(ACC, image2d_array_depth_t)                                     \
	DIM2(ACC, image2d_t)                                                   \
	DIM2(ACC, image2d_array_t)                                             \
	DIM2(ACC, image2d_depth_t)                                             \
	DIM2(ACC, image2d_array_depth_t)                                       \
	ARRAY(ACC, image1d_array_t)                                            \
	ARRAY(ACC, image2d_array_t)                                            \
	ARRAY(ACC, image2d_array_depth_t)                                      \
	THREED(ACC)

QUERIES(read_only)
QUERIES(write_only)
QUERIES(read_write)
