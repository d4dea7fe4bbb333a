/* SPDX-License-Identifier: MIT */
/*
 * Accel-node buffers: the driver's GEM objects, mapped for the host
 * unless the buffer says the host never touches it, and shared as
 * dma-bufs with PRIME. Handles go through the device's handle table
 * (backends/gem/).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "accelnode-private.h"

static struct accelnode_device *buf_an(struct accel_buffer *buf)
{
	return buf->dev->backend_data;
}

struct bo_create_arg {
	const struct accelnode_driver *drv;
	uint64_t size;
};

static int bo_create(int fd, void *arg, uint32_t *ret_handle)
{
	const struct bo_create_arg *a = arg;

	return a->drv->bo_create(fd, a->size, ret_handle);
}

/* Host access only where the buffer's flags allow any. */
static bool wants_map(const struct accel_buffer *buf)
{
	return !(buf->flags & ACCEL_BUFFER_HOST_NO_ACCESS);
}

uint32_t accelnode_buffer_handle(struct accel_buffer *buf, uint64_t *offset)
{
	struct accel_buffer *root = accel_buffer_root(buf);
	const struct accelnode_buffer *b = root->backend_data;

	if (buf->parent)
		*offset += buf->offset;
	return b->handle;
}

int accelnode_buffer_alloc(struct accel_buffer *buf)
{
	struct accelnode_device *an = buf_an(buf);
	struct bo_create_arg arg = { .drv = an->drv, .size = buf->size };
	struct accelnode_buffer *b;
	uint64_t size = 0;
	void *p;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	r = gem_handle_create(&an->gem, bo_create, &arg, &b->handle);
	if (r < 0) {
		free(b);
		return r;
	}
	r = an->drv->bo_info(an->gem.fd, b->handle, &size, &b->mmap_offset);
	if (r == 0 && (size < buf->size || size > SIZE_MAX))
		r = -EIO; /* the driver broke its promise */
	if (r == 0 && wants_map(buf)) {
		p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, an->gem.fd, (off_t)b->mmap_offset);
		if (p == MAP_FAILED) {
			r = -errno;
		} else {
			b->map = p;
			b->map_len = (size_t)size;
			buf->host_ptr = p;
		}
	}
	if (r < 0) {
		log_dbg(buf->dev->ctx, "a %llu-byte %s buffer: %s\n",
			(unsigned long long)buf->size, an->drv->name,
			strerror(-r));
		gem_handle_put(&an->gem, b->handle);
		free(b);
		return r;
	}
	buf->backend_data = b;
	return 0;
}

void accelnode_buffer_free(struct accel_buffer *buf)
{
	struct accelnode_buffer *b = buf->backend_data;

	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->map_len);
	gem_handle_put(&buf_an(buf)->gem, b->handle);
	free(b);
	buf->backend_data = NULL;
	buf->host_ptr = NULL;
}

int accelnode_buffer_export_dmabuf(struct accel_buffer *buf, uint64_t offset,
				   uint64_t size, int *ret_fd)
{
	struct accelnode_buffer *b = buf->backend_data;

	/* PRIME exports whole GEM objects. */
	if (offset != 0 || size != buf->size)
		return -EOPNOTSUPP;
	return gem_prime_handle_to_fd(buf_an(buf)->gem.fd, b->handle,
				      O_CLOEXEC | O_RDWR, ret_fd);
}

int accelnode_buffer_import_dmabuf(struct accel_buffer *buf)
{
	struct accelnode_device *an = buf_an(buf);
	int fl = fcntl(buf->dmabuf_fd, F_GETFL), prot = PROT_READ, r;
	struct accelnode_buffer *b;
	void *p;

	if (fl < 0)
		return -errno;
	/* Writable only if both the fd and the caller allow it. */
	if ((fl & O_ACCMODE) == O_RDWR && !(buf->flags & ACCEL_BUFFER_READ_ONLY))
		prot |= PROT_WRITE;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	r = gem_handle_import(&an->gem, buf->dmabuf_fd, &b->handle);
	if (r < 0) {
		log_dbg(buf->dev->ctx, "PRIME import into %s: %s\n",
			an->drv->name, strerror(-r));
		free(b);
		return r;
	}
	/* Through the dma-buf itself: it works whoever exported it. */
	if (wants_map(buf)) {
		b->map_len = (size_t)buf->size;
		p = mmap(NULL, b->map_len, prot, MAP_SHARED, buf->dmabuf_fd,
			 0);
		if (p == MAP_FAILED) {
			r = -errno;
			gem_handle_put(&an->gem, b->handle);
			free(b);
			return r;
		}
		b->map = p;
		buf->host_ptr = p;
	}
	buf->readonly_mapping = !(prot & PROT_WRITE);
	buf->backend_data = b;
	return 0;
}
