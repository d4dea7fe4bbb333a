/* SPDX-License-Identifier: MIT */
/*
 * vgem-gpu: the pipeline examples' "GPU" (see vgem-gpu.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "vgem-gpu.h"

int gpu_open(struct gpu *g)
{
	drmDevicePtr devs[16];
	int n, i;

	g->card = -1;
	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n && g->card < 0; i++) {
		drmVersionPtr v;
		int fd;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_PRIMARY)))
			continue;
		fd = open(devs[i]->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, "vgem"))
			g->card = fd;
		else
			close(fd);
		drmFreeVersion(v);
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	return g->card < 0 ? -ENODEV : 0;
}

int gpu_frame(struct gpu *g, uint32_t width, uint32_t height)
{
	struct drm_mode_create_dumb create = {
		.width = width, .height = height, .bpp = 32,
	};
	struct drm_mode_map_dumb map = { 0 };
	void *p;

	if (!width || !height || width > UINT32_MAX / 4 / height)
		return -EINVAL;
	if (drmIoctl(g->card, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		return -errno;
	g->handle = create.handle;
	g->size = create.size;
	if (create.pitch != width * 4)
		return -EINVAL; /* the examples draw tightly packed rows */
	g->width = width;
	g->height = height;
	map.handle = create.handle;
	if (drmIoctl(g->card, DRM_IOCTL_MODE_MAP_DUMB, &map))
		return -errno;
	p = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_SHARED, g->card,
		 (off_t)map.offset);
	if (p == MAP_FAILED)
		return -errno;
	g->map = p;
	if (drmPrimeHandleToFD(g->card, g->handle, DRM_CLOEXEC | DRM_RDWR,
			       &g->dmabuf))
		return -errno;
	return 0;
}

void gpu_draw(struct gpu *g, uint32_t n)
{
	uint32_t x, y;

	for (y = 0; y < g->height; y++)
		for (x = 0; x < g->width; x++)
			g->map[y * g->width + x] = gpu_pixel(x, y, n);
}

void gpu_close(struct gpu *g)
{
	if (g->map)
		munmap(g->map, g->size);
	if (g->dmabuf >= 0)
		close(g->dmabuf);
	if (g->handle) {
		struct drm_gem_close c = { .handle = g->handle };

		drmIoctl(g->card, DRM_IOCTL_GEM_CLOSE, &c);
	}
	if (g->card >= 0)
		close(g->card);
	*g = (struct gpu)GPU_INIT;
}
