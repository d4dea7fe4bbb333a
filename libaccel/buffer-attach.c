/* SPDX-License-Identifier: MIT */
/*
 * A buffer on every device of its context. A buffer keeps the device it
 * was made on (its home); another device D of the context uses it through
 * an attachment: a buffer record of D over the same memory, made on first
 * use, cached in the buffer and freed with it. Sub-buffers get a view of
 * their root's attachment at their offset.
 *
 * A root's attachment is made, in this order:
 * - by dma-buf: the root's dma-buf (exported once, as for
 *   accel_buffer_export_dmabuf()) imported on D, where D imports dma-bufs
 *   (a GEM device: PRIME; the CPU: a mapping, bracketed by
 *   DMA_BUF_IOCTL_SYNC);
 * - by address: the root's host mapping wrapped as user memory of D,
 *   where D takes user pointers (the CPU).
 * Otherwise D cannot reach the memory: -EXDEV. Ordering between devices
 * is the caller's (fences), as for any two queues.
 */
#include <string.h>
#include <unistd.h>

#include "backend.h"

static bool dev_has(const struct accel_device *dev, uint64_t cap)
{
	return dev->u64[ACCEL_DEVICE_U64_CAPS] & cap;
}

static struct accel_buffer *find(struct accel_buffer *buf,
				 const struct accel_device *dev)
{
	struct accel_buffer *a;

	for (a = buf->attached; a; a = a->attach_next)
		if (a->dev == dev)
			return a;
	return NULL;
}

/* Back @att (a record of D) with @root's dma-buf; false if D cannot. */
static bool by_dmabuf(struct accel_buffer *root, struct accel_buffer *att)
{
	const struct accel_backend_ops *ops = att->dev->ops;
	int fd, r;

	if (!dev_has(att->dev, ACCEL_DEVICE_CAP_DMABUF_IMPORT) ||
	    !ops->buffer_import_dmabuf)
		return false;
	r = accel_buffer_export_dmabuf(root, 0, &fd);
	if (r == 0) {
		att->dmabuf_fd = fd;
		att->imported = true;
		r = ops->buffer_import_dmabuf(att);
		if (r < 0) {
			close(fd);
			att->dmabuf_fd = -1;
			att->imported = false;
		}
	}
	if (r < 0)
		log_dbg(att->dev->ctx,
			"%s: no dma-buf attachment of a %s buffer: %s\n",
			att->dev->ops->name, root->dev->ops->name,
			strerror(-r));
	return r == 0;
}

/* Back @att with @root's host mapping, as user memory of D. */
static bool by_address(struct accel_buffer *root, struct accel_buffer *att)
{
	const struct accel_backend_ops *ops = att->dev->ops;

	if (!root->host_ptr || !dev_has(att->dev, ACCEL_DEVICE_CAP_USER_PTR) ||
	    !ops->buffer_wrap_user_ptr)
		return false;
	att->host_ptr = root->host_ptr;
	att->user_ptr = true;
	if (ops->buffer_wrap_user_ptr(att) == 0)
		return true;
	att->host_ptr = NULL;
	att->user_ptr = false;
	return false;
}

/* A new record of @dev standing for @owner; no storage yet. */
static int record_new(struct accel_buffer *owner, struct accel_device *dev,
		      struct accel_buffer **ret)
{
	struct accel_buffer *att;
	int r;

	/* The memory exists already: no allocation limit (size set below). */
	r = accel_buffer_create(dev, 1, owner->flags & ~ACCEL_BUFFER_DMA_HEAP,
				&att);
	if (r < 0)
		return r;
	att->size = owner->size;
	att->owner = owner;
	*ret = att;
	return 0;
}

static int attach_root(struct accel_buffer *root, struct accel_device *dev,
		       struct accel_buffer **ret)
{
	struct accel_buffer *att;
	int r;

	r = record_new(root, dev, &att);
	if (r < 0)
		return r;
	if (!by_dmabuf(root, att) && !by_address(root, att)) {
		log_dbg(dev->ctx, "a %s buffer cannot be reached by %s\n",
			root->dev->ops->name, dev->ops->name);
		accel_buffer_discard(att);
		return -EXDEV;
	}
	/* What the home mapping refuses, the attachment refuses too. */
	att->readonly_mapping |= root->readonly_mapping;
	accel_device_ref(dev);
	*ret = att;
	return 0;
}

/* A sub-buffer's view of its root's attachment @ratt. */
static int attach_sub(struct accel_buffer *sub, struct accel_buffer *ratt,
		      struct accel_buffer **ret)
{
	struct accel_buffer *att;
	int r;

	r = record_new(sub, ratt->dev, &att);
	if (r < 0)
		return r;
	att->flags = sub->flags;
	att->parent = ratt; /* no reference: sub holds its root */
	att->offset = sub->offset;
	if (ratt->host_ptr)
		att->host_ptr = (uint8_t *)ratt->host_ptr + sub->offset;
	att->user_ptr = ratt->user_ptr;
	accel_device_ref(ratt->dev);
	*ret = att;
	return 0;
}

/* Free one attachment: storage for a root's, the record for both. */
static void attachment_free(struct accel_buffer *att)
{
	struct accel_device *dev = att->dev;

	if (!att->parent) {
		dev->ops->buffer_free(att);
		if (att->dmabuf_fd >= 0)
			close(att->dmabuf_fd);
	}
	accel_buffer_discard(att);
	accel_device_unref(dev);
}

void accel_buffer_detach_all(struct accel_buffer *buf)
{
	struct accel_buffer *a, *next;

	for (a = buf->attached; a; a = next) {
		next = a->attach_next;
		attachment_free(a);
	}
	buf->attached = NULL;
}

int accel_buffer_on_device(struct accel_buffer *buf, struct accel_device *dev,
			   struct accel_buffer **ret)
{
	struct accel_buffer *att = NULL, *have, *ratt = NULL;
	int r;

	if (buf->owner)
		buf = buf->owner;
	if (buf->dev == dev) {
		*ret = buf;
		return 0;
	}
	if (buf->dev->ctx != dev->ctx)
		return -EXDEV;

	pthread_mutex_lock(&buf->lock);
	have = find(buf, dev);
	pthread_mutex_unlock(&buf->lock);
	if (have) {
		*ret = have;
		return 0;
	}

	/*
	 * Made without the lock (export and import may block and take the
	 * root's lock); a racing caller's attachment wins, ours goes.
	 */
	if (buf->parent) {
		r = accel_buffer_on_device(buf->parent, dev, &ratt);
		if (r == 0)
			r = attach_sub(buf, ratt, &att);
	} else {
		r = accel_device_alive(dev);
		if (r == 0)
			r = attach_root(buf, dev, &att);
	}
	if (r < 0)
		return r;

	pthread_mutex_lock(&buf->lock);
	have = find(buf, dev);
	if (!have) {
		att->attach_next = buf->attached;
		buf->attached = att;
	}
	pthread_mutex_unlock(&buf->lock);
	if (have) {
		attachment_free(att);
		att = have;
	}
	*ret = att;
	return 0;
}
