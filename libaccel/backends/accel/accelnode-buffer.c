/* SPDX-License-Identifier: MIT */
/*
 * Accel-node buffers: the driver's GEM objects, mapped for the host
 * unless the buffer says the host never touches it, and shared as
 * dma-bufs with PRIME. Handles, mappings and PRIME are the GEM layer's
 * (backends/gem/); what is the driver's is how an object is made.
 */
#include <stdlib.h>
#include <string.h>

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
	const struct gem_buffer *b = root->backend_data;

	if (buf->parent)
		*offset += buf->offset;
	return b->handle;
}

int accelnode_buffer_alloc(struct accel_buffer *buf)
{
	struct accelnode_device *an = buf_an(buf);
	struct bo_create_arg arg = { .drv = an->drv, .size = buf->size };
	uint64_t size = 0, mmap_offset = 0;
	struct gem_buffer *b;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	r = gem_handle_create(&an->gem, bo_create, &arg, &b->handle);
	if (r < 0) {
		free(b);
		return r;
	}
	r = an->drv->bo_info(an->gem.fd, b->handle, &size, &mmap_offset);
	if (r == 0)
		r = gem_buffer_map_node(buf, b, mmap_offset, size,
					wants_map(buf));
	if (r < 0) {
		log_dbg(buf->dev->ctx, "a %llu-byte %s buffer: %s\n",
			(unsigned long long)buf->size, an->drv->name,
			strerror(-r));
		gem_buffer_discard(&an->gem, b);
		return r;
	}
	buf->backend_data = b;
	return 0;
}

int accelnode_buffer_import_dmabuf(struct accel_buffer *buf)
{
	return gem_buffer_import(buf, wants_map(buf));
}
