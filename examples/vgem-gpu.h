/* SPDX-License-Identifier: MIT */
/*
 * vgem-gpu: the "GPU" of the pipeline examples. vgem, driven through
 * libdrm as any GPU's buffers would be, draws a frame into a dumb buffer
 * and shares it as a dma-buf (PRIME).
 */
#ifndef VGEM_GPU_H
#define VGEM_GPU_H

#include <stdint.h>

struct gpu {
	int card;         /* vgem's primary node: dumb buffers need it */
	uint32_t handle;  /* the frame's GEM handle, 0 before gpu_frame() */
	uint32_t *map;    /* the frame, mapped */
	uint64_t size;    /* the dumb buffer's size (>= the frame's) */
	int dmabuf;       /* the frame as a dma-buf (PRIME) */
	uint32_t width, height;
};

#define GPU_INIT { .card = -1, .dmabuf = -1 }

/* The pixel the GPU draws at (x, y) in frame @n. */
static inline uint32_t gpu_pixel(uint32_t x, uint32_t y, uint32_t n)
{
	return (x * 7u) ^ (y << 12) ^ (n << 24);
}

/* Open vgem: 0, or -ENODEV where there is none. */
int gpu_open(struct gpu *g);
/*
 * A @width x @height frame of 32-bit pixels in tightly packed rows: a
 * dumb buffer, its mapping and its dma-buf. 0 or -errno.
 */
int gpu_frame(struct gpu *g, uint32_t width, uint32_t height);
/* Draw frame @n (gpu_pixel()) over the whole frame. */
void gpu_draw(struct gpu *g, uint32_t n);
/* Undo gpu_frame() and gpu_open(), whatever of them was done. */
void gpu_close(struct gpu *g);

#endif
