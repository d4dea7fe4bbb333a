/* SPDX-License-Identifier: MIT */
/*
 * Buffers: validation, sub-buffers and host-map bookkeeping. The storage
 * itself is the backend's.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#define DEVICE_ACCESS (ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_WRITE_ONLY)
#define HOST_ACCESS                                                            \
	(ACCEL_BUFFER_HOST_NO_ACCESS | ACCEL_BUFFER_HOST_READ_ONLY |           \
	 ACCEL_BUFFER_HOST_WRITE_ONLY)

static bool flags_valid(uint32_t flags)
{
	if (flags & ~ACCEL_BUFFER_FLAGS_ALL)
		return false;
	if ((flags & DEVICE_ACCESS) == DEVICE_ACCESS)
		return false;
	/* At most one host access flag. */
	return __builtin_popcount(flags & HOST_ACCESS) <= 1;
}

/* The root buffer's dma-buf fd, or -1 (it is published once, under lock). */
int accel_buffer_dmabuf_fd(struct accel_buffer *root)
{
	int fd;

	pthread_mutex_lock(&root->lock);
	fd = root->dmabuf_fd;
	pthread_mutex_unlock(&root->lock);
	return fd;
}

/*
 * Bracket host access to a dma-buf backed buffer with DMA_BUF_IOCTL_SYNC,
 * so caches are kept coherent with other devices (a no-op otherwise).
 */
static int buffer_cpu_access(struct accel_buffer *root, bool start,
			     uint32_t map_flags)
{
	int fd = accel_buffer_dmabuf_fd(root);

	if (fd < 0)
		return 0;
	return accel_dmabuf_sync(fd, start, map_flags & ACCEL_MAP_READ,
				 map_flags & (ACCEL_MAP_WRITE |
					      ACCEL_MAP_WRITE_INVALIDATE));
}

int accel_buffer_create(struct accel_device *dev, uint64_t size,
			uint32_t flags, struct accel_buffer **ret)
{
	struct accel_buffer *buf;

	if (!dev || size == 0 || !flags_valid(flags))
		return -EINVAL;
	if (size > dev->u64[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE])
		return -E2BIG;
	if (accel_device_alive(dev) < 0)
		return -ENODEV;

	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	atomic_init(&buf->refcount, 1);
	atomic_init(&buf->user_data, NULL);
	pthread_mutex_init(&buf->lock, NULL);
	buf->size = size;
	buf->flags = flags;
	buf->memfd = -1;
	buf->dmabuf_fd = -1;
	buf->dev = dev;
	*ret = buf;
	return 0;
}

void accel_buffer_discard(struct accel_buffer *buf)
{
	pthread_mutex_destroy(&buf->lock);
	free(buf);
}

ACCEL_EXPORT int accel_buffer_new(struct accel_device *dev, uint64_t size,
				  uint32_t flags, struct accel_buffer **ret)
{
	struct accel_buffer *buf;
	int r;

	if (!ret)
		return -EINVAL;
	r = accel_buffer_create(dev, size, flags, &buf);
	if (r < 0)
		return r;
	r = dev->ops->buffer_alloc(buf);
	if (r < 0) {
		log_dbg(dev->ctx, "allocating %llu bytes failed: %s\n",
			(unsigned long long)size, strerror(-r));
		accel_buffer_discard(buf);
		return r;
	}
	accel_device_ref(dev);
	accel_stats_buffer(buf, true);
	*ret = buf;
	return 0;
}

ACCEL_EXPORT int accel_buffer_new_user_ptr(struct accel_device *dev, void *ptr,
					   uint64_t size, uint32_t flags,
					   struct accel_buffer **ret)
{
	struct accel_buffer *buf;
	int r;

	if (!ptr || !ret || (flags & ACCEL_BUFFER_DMA_HEAP))
		return -EINVAL;
	r = accel_buffer_create(dev, size, flags, &buf);
	if (r < 0)
		return r;
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_USER_PTR) ||
	    !dev->ops->buffer_wrap_user_ptr) {
		accel_buffer_discard(buf);
		return -EOPNOTSUPP;
	}
	buf->host_ptr = ptr;
	buf->user_ptr = true;
	r = dev->ops->buffer_wrap_user_ptr(buf);
	if (r < 0) {
		accel_buffer_discard(buf);
		return r;
	}
	accel_device_ref(dev);
	accel_stats_buffer(buf, true);
	*ret = buf;
	return 0;
}

/* May a sub-buffer with @sub flags live inside a parent with @parent? */
static bool access_narrows(uint32_t parent, uint32_t sub)
{
	if ((parent & ACCEL_BUFFER_READ_ONLY) && !(sub & ACCEL_BUFFER_READ_ONLY))
		return false;
	if ((parent & ACCEL_BUFFER_WRITE_ONLY) &&
	    !(sub & ACCEL_BUFFER_WRITE_ONLY))
		return false;
	if ((parent & ACCEL_BUFFER_HOST_NO_ACCESS) &&
	    !(sub & ACCEL_BUFFER_HOST_NO_ACCESS))
		return false;
	if ((parent & ACCEL_BUFFER_HOST_READ_ONLY) &&
	    !(sub & (ACCEL_BUFFER_HOST_READ_ONLY | ACCEL_BUFFER_HOST_NO_ACCESS)))
		return false;
	if ((parent & ACCEL_BUFFER_HOST_WRITE_ONLY) &&
	    !(sub & (ACCEL_BUFFER_HOST_WRITE_ONLY | ACCEL_BUFFER_HOST_NO_ACCESS)))
		return false;
	return true;
}

ACCEL_EXPORT int accel_buffer_new_sub(struct accel_buffer *parent,
				      uint64_t offset, uint64_t size,
				      uint32_t flags, struct accel_buffer **ret)
{
	struct accel_buffer *buf;
	uint64_t align;
	int r;

	if (!parent || !ret || size == 0 || parent->parent ||
	    !flags_valid(flags) || (flags & ACCEL_BUFFER_DMA_HEAP))
		return -EINVAL;
	/* Unspecified access inherits the parent's. */
	if (!(flags & DEVICE_ACCESS))
		flags |= parent->flags & DEVICE_ACCESS;
	if (!(flags & HOST_ACCESS))
		flags |= parent->flags & HOST_ACCESS;
	if (!access_narrows(parent->flags, flags))
		return -EINVAL;
	if (offset > parent->size || size > parent->size - offset)
		return -ERANGE;
	align = parent->dev->u64[ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN];
	if (align > 1 && offset % align)
		return -EINVAL;

	r = accel_buffer_create(parent->dev, size, flags, &buf);
	if (r < 0)
		return r;
	buf->parent = accel_buffer_ref(parent);
	buf->offset = offset;
	buf->host_ptr = parent->host_ptr ? (uint8_t *)parent->host_ptr + offset :
					   NULL;
	buf->user_ptr = parent->user_ptr;
	accel_device_ref(buf->dev);
	*ret = buf;
	return 0;
}

ACCEL_EXPORT struct accel_buffer *accel_buffer_ref(struct accel_buffer *buf)
{
	if (buf && buf->owner) {
		accel_buffer_ref(buf->owner); /* an attachment: the owner's */
		return buf;
	}
	if (buf)
		atomic_fetch_add_explicit(&buf->refcount, 1,
					  memory_order_relaxed);
	return buf;
}

ACCEL_EXPORT struct accel_buffer *accel_buffer_unref(struct accel_buffer *buf)
{
	struct accel_buffer_map_rec *m, *next;
	struct accel_device *dev;

	if (!buf)
		return NULL;
	if (buf->owner)
		return accel_buffer_unref(buf->owner); /* an attachment */
	if (atomic_fetch_sub_explicit(&buf->refcount, 1,
				      memory_order_acq_rel) != 1)
		return NULL;

	/* Before the storage they may point into. */
	accel_buffer_detach_all(buf);
	dev = buf->dev;
	for (m = buf->maps; m; m = next) {
		next = m->next;
		if (dev->ops->buffer_unmap)
			dev->ops->buffer_unmap(accel_buffer_root(buf), m->ptr,
					       m->offset, m->size, m->flags);
		buffer_cpu_access(accel_buffer_root(buf), false, m->flags);
		free(m);
	}
	if (buf->parent) {
		accel_buffer_unref(buf->parent);
	} else {
		accel_stats_buffer(buf, false);
		dev->ops->buffer_free(buf);
		if (buf->dmabuf_fd >= 0)
			close(buf->dmabuf_fd);
	}
	accel_buffer_discard(buf);
	accel_device_unref(dev);
	return NULL;
}

ACCEL_EXPORT uint64_t accel_buffer_get_size(struct accel_buffer *buf)
{
	return buf ? buf->size : 0;
}

ACCEL_EXPORT uint32_t accel_buffer_get_flags(struct accel_buffer *buf)
{
	return buf ? buf->flags : 0;
}

ACCEL_EXPORT struct accel_device *accel_buffer_get_device(struct accel_buffer *buf)
{
	return buf ? buf->dev : NULL;
}

ACCEL_EXPORT struct accel_buffer *accel_buffer_get_parent(struct accel_buffer *buf)
{
	return buf ? buf->parent : NULL;
}

ACCEL_EXPORT uint64_t accel_buffer_get_offset(struct accel_buffer *buf)
{
	return buf ? buf->offset : 0;
}

ACCEL_EXPORT int accel_buffer_map(struct accel_buffer *buf, uint64_t offset,
				  uint64_t size, uint32_t flags, void **ret)
{
	struct accel_buffer *root;
	struct accel_buffer_map_rec *rec;
	uint32_t host;
	void *ptr;
	int r;

	if (!buf || !ret || size == 0 || !flags ||
	    (flags & ~ACCEL_MAP_FLAGS_ALL))
		return -EINVAL;
	if (offset > buf->size || size > buf->size - offset)
		return -ERANGE;
	host = buf->flags & HOST_ACCESS;
	if ((accel_buffer_root(buf)->readonly_mapping &&
	     (flags & ~ACCEL_MAP_READ)) ||
	    host == ACCEL_BUFFER_HOST_NO_ACCESS ||
	    (host == ACCEL_BUFFER_HOST_READ_ONLY && (flags & ~ACCEL_MAP_READ)) ||
	    (host == ACCEL_BUFFER_HOST_WRITE_ONLY && (flags & ACCEL_MAP_READ)))
		return -EACCES;
	/* A gone device's memory may fault (SIGBUS) on access: refuse. */
	r = accel_device_alive(buf->dev);
	if (r < 0)
		return r;

	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	root = accel_buffer_root(buf);
	rec->offset = buf->offset + offset;
	rec->size = size;
	rec->flags = flags;

	r = buffer_cpu_access(root, true, flags);
	if (r < 0) {
		free(rec);
		return r;
	}
	if (buf->dev->ops->buffer_map) {
		r = buf->dev->ops->buffer_map(root, rec->offset, size, flags,
					      &ptr);
		if (r < 0) {
			buffer_cpu_access(root, false, flags);
			free(rec);
			return r;
		}
	} else if (root->host_ptr) {
		ptr = (uint8_t *)root->host_ptr + rec->offset;
	} else {
		buffer_cpu_access(root, false, flags);
		free(rec);
		return -EOPNOTSUPP;
	}
	rec->ptr = ptr;

	pthread_mutex_lock(&buf->lock);
	rec->next = buf->maps;
	buf->maps = rec;
	pthread_mutex_unlock(&buf->lock);

	*ret = ptr;
	return 0;
}

ACCEL_EXPORT int accel_buffer_unmap(struct accel_buffer *buf, void *ptr)
{
	struct accel_buffer_map_rec **p, *rec = NULL;
	int r = 0, r2;

	if (!buf || !ptr)
		return -EINVAL;

	pthread_mutex_lock(&buf->lock);
	for (p = &buf->maps; *p; p = &(*p)->next) {
		if ((*p)->ptr == ptr) {
			rec = *p;
			*p = rec->next;
			break;
		}
	}
	pthread_mutex_unlock(&buf->lock);
	if (!rec)
		return -EINVAL;

	if (buf->dev->ops->buffer_unmap)
		r = buf->dev->ops->buffer_unmap(accel_buffer_root(buf), ptr,
						rec->offset, rec->size,
						rec->flags);
	r2 = buffer_cpu_access(accel_buffer_root(buf), false, rec->flags);
	free(rec);
	return r < 0 ? r : r2;
}

static void apply_name(struct accel_buffer *root, int fd)
{
	int r = accel_dmabuf_set_name(fd, root->name[0] ? root->name :
							  "libaccel");

	/* Only a debugging aid: never fail an export over it. */
	if (r < 0)
		log_dbg(root->dev->ctx, "DMA_BUF_SET_NAME failed: %s\n",
			strerror(-r));
}

ACCEL_EXPORT int accel_buffer_export_dmabuf(struct accel_buffer *buf,
					    uint32_t flags, int *ret_fd)
{
	struct accel_buffer *root;
	const struct accel_backend_ops *ops;
	int fd, r = 0;

	if (!buf || !ret_fd || flags)
		return -EINVAL;
	root = accel_buffer_root(buf);
	ops = buf->dev->ops;

	if (buf->parent && !root->imported) {
		/* A range: a dma-buf of its own, not kept. */
		if (!ops->buffer_export_dmabuf)
			return -EOPNOTSUPP;
		r = ops->buffer_export_dmabuf(root, buf->offset, buf->size, &fd);
		if (r < 0)
			return r;
		apply_name(root, fd);
		*ret_fd = fd;
		return 0;
	}
	if (buf->parent)
		return -EOPNOTSUPP; /* a range of a foreign dma-buf */

	pthread_mutex_lock(&root->lock);
	if (root->dmabuf_fd < 0) {
		if (!ops->buffer_export_dmabuf) {
			r = -EOPNOTSUPP;
		} else {
			r = ops->buffer_export_dmabuf(root, 0, root->size, &fd);
			if (r == 0) {
				apply_name(root, fd);
				root->dmabuf_fd = fd;
			}
		}
	}
	if (r == 0) {
		fd = fcntl(root->dmabuf_fd, F_DUPFD_CLOEXEC, 3);
		r = fd < 0 ? -errno : 0;
	}
	pthread_mutex_unlock(&root->lock);
	if (r < 0) {
		log_dbg(buf->dev->ctx, "dma-buf export failed: %s\n",
			strerror(-r));
		return r;
	}
	*ret_fd = fd;
	return 0;
}

ACCEL_EXPORT int accel_buffer_import_dmabuf(struct accel_device *dev, int fd,
					    uint32_t flags,
					    struct accel_buffer **ret)
{
	struct accel_buffer *buf;
	uint64_t size;
	int own, fl, r;

	if (!dev || !ret || (flags & ACCEL_BUFFER_DMA_HEAP) ||
	    !flags_valid(flags))
		return -EINVAL;
	r = accel_device_alive(dev);
	if (r < 0)
		return r;
	r = accel_dmabuf_check(fd);
	if (r < 0)
		return r;
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_DMABUF_IMPORT) ||
	    !dev->ops->buffer_import_dmabuf)
		return -EOPNOTSUPP;

	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	/*
	 * A read-only dma-buf, or one imported read-only: nobody may write
	 * through us, neither kernels nor the host (it is mapped read-only).
	 */
	if ((fl & O_ACCMODE) == O_RDONLY || (flags & ACCEL_BUFFER_READ_ONLY)) {
		if (flags & (ACCEL_BUFFER_WRITE_ONLY |
			     ACCEL_BUFFER_HOST_WRITE_ONLY))
			return -EACCES;
		flags |= ACCEL_BUFFER_READ_ONLY;
		if (!(flags & HOST_ACCESS))
			flags |= ACCEL_BUFFER_HOST_READ_ONLY;
	}
	r = accel_dmabuf_get_size(fd, &size);
	if (r < 0)
		return r;
	if (size == 0)
		return -EINVAL;

	own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (own < 0)
		return -errno;
	/* Bypass the allocation limit: the memory exists already. */
	r = accel_buffer_create(dev, 1, flags, &buf);
	if (r < 0) {
		close(own);
		return r;
	}
	buf->size = size;
	buf->dmabuf_fd = own;
	buf->imported = true;
	r = dev->ops->buffer_import_dmabuf(buf);
	if (r < 0) {
		log_dbg(dev->ctx, "dma-buf import failed: %s\n", strerror(-r));
		close(own);
		accel_buffer_discard(buf);
		return r;
	}
	accel_device_ref(dev);
	accel_stats_buffer(buf, true);
	*ret = buf;
	return 0;
}

ACCEL_EXPORT int accel_buffer_set_name(struct accel_buffer *buf,
				       const char *name)
{
	size_t i, len;
	int fd;

	if (!buf || !name || buf->parent)
		return -EINVAL;
	len = strlen(name);
	if (len >= sizeof(buf->name))
		return -ENAMETOOLONG;
	for (i = 0; i < len; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return -EINVAL;

	pthread_mutex_lock(&buf->lock);
	memcpy(buf->name, name, len + 1);
	fd = buf->dmabuf_fd;
	if (fd >= 0)
		apply_name(buf, fd);
	pthread_mutex_unlock(&buf->lock);
	return 0;
}

ACCEL_EXPORT int accel_buffer_set_user_data(struct accel_buffer *buf,
					    void *user_data)
{
	if (!buf)
		return -EINVAL;
	atomic_store_explicit(&buf->user_data, user_data, memory_order_release);
	return 0;
}

ACCEL_EXPORT void *accel_buffer_get_user_data(struct accel_buffer *buf)
{
	if (!buf)
		return NULL;
	return atomic_load_explicit(&buf->user_data, memory_order_acquire);
}
