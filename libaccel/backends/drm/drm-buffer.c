/* SPDX-License-Identifier: MIT */
/*
 * DRM buffers: dumb buffers mapped through the card node, dma-bufs
 * shared with PRIME. GEM handles go through the device's handle table
 * (backends/gem/), since the kernel does not count their users.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

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
	struct drm_buffer *b;
	void *p;
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
	if (create.size < buf->size || create.size > SIZE_MAX) {
		r = -EIO; /* the driver broke the rules */
		goto fail;
	}

	map.handle = create.handle;
	r = accel_ioctl(drm->gem.fd, DRM_IOCTL_MODE_MAP_DUMB, &map);
	if (r < 0)
		goto fail;
	p = mmap(NULL, (size_t)create.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 drm->gem.fd, (off_t)map.offset);
	if (p == MAP_FAILED) {
		r = -errno;
		goto fail;
	}

	b->handle = create.handle;
	b->map = p;
	b->map_len = (size_t)create.size;
	buf->host_ptr = p;
	buf->backend_data = b;
	return 0;

fail:
	log_dbg(buf->dev->ctx, "mapping a %llu-byte dumb buffer: %s\n",
		(unsigned long long)create.size, strerror(-r));
	gem_handle_put(&drm->gem, create.handle);
	free(b);
	return r;
}

void drm_buffer_free(struct accel_buffer *buf)
{
	struct drm_buffer *b = buf->backend_data;

	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->map_len);
	gem_handle_put(&buf_drm(buf)->gem, b->handle);
	free(b);
	buf->backend_data = NULL;
	buf->host_ptr = NULL;
}

int drm_buffer_export_dmabuf(struct accel_buffer *buf, uint64_t offset,
			     uint64_t size, int *ret_fd)
{
	struct drm_device *drm = buf_drm(buf);
	struct drm_buffer *b = buf->backend_data;

	if (!(drm->gem.prime_caps & DRM_PRIME_CAP_EXPORT))
		return -EOPNOTSUPP;
	/* PRIME exports whole GEM objects only. */
	if (offset != 0 || size != buf->size)
		return -EOPNOTSUPP;
	return gem_prime_handle_to_fd(drm->gem.fd, b->handle,
				      O_CLOEXEC | O_RDWR, ret_fd);
}

int drm_buffer_import_dmabuf(struct accel_buffer *buf)
{
	struct drm_device *drm = buf_drm(buf);
	int fd = buf->dmabuf_fd, fl, prot = PROT_READ, r;
	bool writable;
	struct drm_buffer *b;
	size_t len;
	uint32_t handle;
	void *p;

	if (!(drm->gem.prime_caps & DRM_PRIME_CAP_IMPORT))
		return -EOPNOTSUPP;
	if (buf->size > SIZE_MAX - page_size())
		return -E2BIG;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	writable = (fl & O_ACCMODE) == O_RDWR &&
		   !(buf->flags & ACCEL_BUFFER_READ_ONLY);

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;

	/*
	 * The device must know the buffer as a GEM object. Importing a
	 * dma-buf this file already has (twice, or one of our own exports)
	 * gives the handle it already has: hence the table.
	 */
	r = gem_handle_import(&drm->gem, fd, &handle);
	if (r < 0) {
		log_dbg(buf->dev->ctx, "DRM_IOCTL_PRIME_FD_TO_HANDLE: %s\n",
			strerror(-r));
		free(b);
		return r;
	}
	b->handle = handle;

	/*
	 * Map through the dma-buf itself: it works whoever exported it, and
	 * its mmap is what DMA_BUF_IOCTL_SYNC brackets.
	 */
	len = (buf->size + page_size() - 1) & ~(page_size() - 1);
	if (writable)
		prot |= PROT_WRITE;
	p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		r = -errno;
		log_dbg(buf->dev->ctx, "mmap of a %llu-byte dma-buf: %s\n",
			(unsigned long long)buf->size, strerror(-r));
		gem_handle_put(&drm->gem, handle);
		free(b);
		return r;
	}
	b->map = p;
	b->map_len = len;
	buf->host_ptr = p;
	buf->readonly_mapping = !writable;
	buf->backend_data = b;
	return 0;
}
