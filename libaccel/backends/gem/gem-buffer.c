/* SPDX-License-Identifier: MIT */
/*
 * The buffer side both GEM backends share: a counted handle and the
 * whole-object mapping. Own objects are mapped through the node (the
 * driver says where), imported dma-bufs through the dma-buf itself: that
 * works whoever exported it, and its mmap is what DMA_BUF_IOCTL_SYNC
 * brackets.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "gem.h"

/* The device's backend_data begins with it (gem.h). */
static struct gem_device *gem_of(const struct accel_buffer *buf)
{
	return buf->dev->backend_data;
}

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

int gem_buffer_map_node(struct accel_buffer *buf, struct gem_buffer *b,
			uint64_t mmap_offset, uint64_t size, bool map)
{
	void *p;

	if (size < buf->size || size > SIZE_MAX)
		return -EIO; /* the driver broke the rules */
	if (!map)
		return 0;
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 gem_of(buf)->fd, (off_t)mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	b->map = p;
	b->map_len = (size_t)size;
	buf->host_ptr = p;
	return 0;
}

void gem_buffer_discard(struct gem_device *g, struct gem_buffer *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	gem_handle_put(g, b->handle);
	free(b);
}

void gem_buffer_free(struct accel_buffer *buf)
{
	struct gem_buffer *b = buf->backend_data;

	if (!b)
		return;
	gem_buffer_discard(gem_of(buf), b);
	buf->backend_data = NULL;
	buf->host_ptr = NULL;
}

int gem_buffer_export(struct accel_buffer *buf, uint64_t offset,
		      uint64_t size, int *ret_fd)
{
	const struct gem_device *g = gem_of(buf);
	const struct gem_buffer *b = buf->backend_data;

	if (!(g->prime_caps & DRM_PRIME_CAP_EXPORT))
		return -EOPNOTSUPP;
	/* PRIME exports whole GEM objects only. */
	if (offset != 0 || size != buf->size)
		return -EOPNOTSUPP;
	return gem_prime_handle_to_fd(g->fd, b->handle, O_CLOEXEC | O_RDWR,
				      ret_fd);
}

int gem_buffer_import(struct accel_buffer *buf, bool map)
{
	struct gem_device *g = gem_of(buf);
	int fd = buf->dmabuf_fd, fl, prot = PROT_READ, r;
	size_t page = page_size(), len;
	struct gem_buffer *b;
	void *p;

	if (!(g->prime_caps & DRM_PRIME_CAP_IMPORT))
		return -EOPNOTSUPP;
	if (buf->size > SIZE_MAX - page)
		return -E2BIG;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	/* Writable only if both the fd and the caller allow it. */
	if ((fl & O_ACCMODE) == O_RDWR &&
	    !(buf->flags & ACCEL_BUFFER_READ_ONLY))
		prot |= PROT_WRITE;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	/*
	 * The device must know the buffer as a GEM object. Importing a
	 * dma-buf this file already has (twice, or one of our own exports)
	 * gives the handle it already has: hence the table.
	 */
	r = gem_handle_import(g, fd, &b->handle);
	if (r < 0) {
		log_dbg(buf->dev->ctx, "DRM_IOCTL_PRIME_FD_TO_HANDLE: %s\n",
			strerror(-r));
		free(b);
		return r;
	}
	if (map) {
		len = (size_t)((buf->size + page - 1) & ~(uint64_t)(page - 1));
		p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			r = -errno;
			log_dbg(buf->dev->ctx,
				"mmap of a %llu-byte dma-buf: %s\n",
				(unsigned long long)buf->size, strerror(-r));
			gem_buffer_discard(g, b);
			return r;
		}
		b->map = p;
		b->map_len = len;
		buf->host_ptr = p;
	}
	buf->readonly_mapping = !(prot & PROT_WRITE);
	buf->backend_data = b;
	return 0;
}
