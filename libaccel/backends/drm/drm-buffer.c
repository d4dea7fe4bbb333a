/* SPDX-License-Identifier: MIT */
/*
 * DRM buffers: dumb buffers mapped through the card node, dma-bufs
 * shared with PRIME. Handles, mappings and PRIME are the GEM layer's
 * (backends/gem/); what is the DRM backend's is the dumb buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "drm-private.h"

/*
 * Dumb buffers are images: width x height pixels of bpp bits, and the
 * driver picks the pitch (bytes per row, width * bpp / 8 rounded up to its
 * own alignment). To get a plain byte array of at least N bytes we ask for
 * 8-bit pixels in rows of one 4 KiB page and ceil(N / 4096) rows: every
 * pitch alignment in use divides 4096 (and a larger pitch would only add
 * slack), and libaccel addresses the object linearly from byte 0, so rows
 * mean nothing afterwards. The kernel reports the real size, which is
 * what gets mapped.
 */
#define DUMB_WIDTH 4096u

static struct drm_device *buf_drm(struct accel_buffer *buf)
{
	return buf->dev->backend_data;
}

static int create_dumb_ioctl(int fd, void *arg, uint32_t *ret_handle)
{
	struct drm_mode_create_dumb *create = arg;
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, create);
	if (r == 0)
		*ret_handle = create->handle;
	return r;
}

/* A dumb buffer of at least @size bytes, its handle counted. */
static int create_dumb(struct drm_device *drm, uint64_t size,
		       struct drm_mode_create_dumb *ret)
{
	struct drm_mode_create_dumb arg = { 0 };
	uint64_t height = size / DUMB_WIDTH + (size % DUMB_WIDTH != 0);
	uint32_t handle;
	int r;

	/* The kernel's own limit (32-bit size); max_alloc keeps below it. */
	if (height > UINT32_MAX / DUMB_WIDTH)
		return -E2BIG;
	arg.width = DUMB_WIDTH;
	arg.height = (uint32_t)height;
	arg.bpp = 8;

	r = gem_handle_create(&drm->gem, create_dumb_ioctl, &arg, &handle);
	if (r < 0)
		return r;
	*ret = arg;
	return 0;
}

int drm_buffer_alloc(struct accel_buffer *buf)
{
	struct drm_device *drm = buf_drm(buf);
	struct drm_mode_create_dumb create;
	struct drm_mode_map_dumb map = { 0 };
	struct gem_buffer *b;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	r = create_dumb(drm, buf->size, &create);
	if (r < 0) {
		log_dbg(buf->dev->ctx, "a %llu-byte dumb buffer: %s\n",
			(unsigned long long)buf->size, strerror(-r));
		free(b);
		return r;
	}
	b->handle = create.handle;
	map.handle = create.handle;
	r = accel_ioctl(drm->gem.fd, DRM_IOCTL_MODE_MAP_DUMB, &map);
	/* Always mapped: transfers run on the CPU through the mapping. */
	if (r == 0)
		r = gem_buffer_map_node(buf, b, map.offset, create.size,
					true);
	if (r < 0) {
		log_dbg(buf->dev->ctx, "mapping a %llu-byte dumb buffer: %s\n",
			(unsigned long long)create.size, strerror(-r));
		gem_buffer_discard(&drm->gem, b);
		return r;
	}
	buf->backend_data = b;
	return 0;
}

int drm_buffer_import_dmabuf(struct accel_buffer *buf)
{
	/* Always mapped, like own buffers. */
	return gem_buffer_import(buf, true);
}
