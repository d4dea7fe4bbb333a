/* SPDX-License-Identifier: MIT */
/*
 * Queues and their transfer commands. Launches are in launch.c, the
 * command life cycle in cmd.c.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

ACCEL_EXPORT int accel_queue_new(struct accel_device *dev, uint32_t flags,
				 struct accel_queue **ret)
{
	struct accel_queue *q;
	int r;

	if (!dev || !ret || (flags & ~ACCEL_QUEUE_FLAGS_ALL))
		return -EINVAL;
	r = accel_device_alive(dev);
	if (r < 0)
		return r;
	/* over-aligned: its groups keep to their own cache lines */
	q = aligned_alloc(_Alignof(struct accel_queue), sizeof(*q));
	if (!q)
		return -ENOMEM;
	memset(q, 0, sizeof(*q));
	atomic_init(&q->refcount, 1);
	atomic_init(&q->error, 0);
	pthread_mutex_init(&q->lock, NULL);
	accel_recycle_init(&q->cmd_cache, ACCEL_CMD_CACHE_MAX);
	q->flags = flags;
	q->dev = dev;
	if (dev->ops->queue_init) {
		r = dev->ops->queue_init(q);
		if (r < 0) {
			accel_recycle_fini(&q->cmd_cache);
			pthread_mutex_destroy(&q->lock);
			free(q);
			return r;
		}
	}
	accel_device_ref(dev);
	*ret = q;
	return 0;
}

ACCEL_EXPORT struct accel_queue *accel_queue_ref(struct accel_queue *queue)
{
	if (queue)
		atomic_fetch_add_explicit(&queue->refcount, 1,
					  memory_order_relaxed);
	return queue;
}

ACCEL_EXPORT struct accel_queue *accel_queue_unref(struct accel_queue *queue)
{
	struct accel_device *dev;

	if (!queue)
		return NULL;
	if (atomic_fetch_sub_explicit(&queue->refcount, 1,
				      memory_order_acq_rel) != 1)
		return NULL;
	/* A queue with commands holds a reference: it is idle now. */
	dev = queue->dev;
	if (dev->ops->queue_fini)
		dev->ops->queue_fini(queue);
	accel_cmd_cache_drain(queue);
	accel_fence_unref(queue->barrier);
	accel_recycle_fini(&queue->cmd_cache);
	pthread_mutex_destroy(&queue->lock);
	free(queue);
	accel_device_unref(dev);
	return NULL;
}

ACCEL_EXPORT struct accel_device *accel_queue_get_device(struct accel_queue *queue)
{
	return queue ? queue->dev : NULL;
}

ACCEL_EXPORT uint32_t accel_queue_get_flags(struct accel_queue *queue)
{
	return queue ? queue->flags : 0;
}

int accel_queue_check_wait(struct accel_queue *queue, uint32_t n_wait,
			   struct accel_fence *const *wait)
{
	uint32_t i;

	if (!queue || (n_wait && !wait))
		return -EINVAL;
	for (i = 0; i < n_wait; i++)
		if (!wait[i] || wait[i]->ctx != queue->dev->ctx)
			return -EINVAL;
	return 0;
}

/*
 * Checks shared by the buffer commands (the queue's and the command
 * lists'); *@view is @buf as @dev reaches it (itself, or its attachment:
 * buffer-attach.c).
 */
static int check_buffer_range(struct accel_device *dev,
			      struct accel_buffer *buf, uint64_t offset,
			      uint64_t size, struct accel_buffer **view)
{
	if (!buf || size == 0)
		return -EINVAL;
	if (buf->dev->ctx != dev->ctx)
		return -EXDEV;
	if (offset > buf->size || size > buf->size - offset)
		return -ERANGE;
	return accel_buffer_on_device(buf, dev, view);
}

int accel_check_copy(struct accel_device *dev, struct accel_buffer **src,
		     uint64_t src_offset, struct accel_buffer **dst,
		     uint64_t dst_offset, uint64_t size)
{
	uint64_t s, d;
	int r;

	r = check_buffer_range(dev, *src, src_offset, size, src);
	if (r == 0)
		r = check_buffer_range(dev, *dst, dst_offset, size, dst);
	if (r < 0)
		return r;
	if (accel_buffer_root(*dst)->readonly_mapping)
		return -EACCES;
	/*
	 * Overlap within one root buffer (sub-buffers alias their parent;
	 * the views of one buffer on this device share one root).
	 */
	if (accel_buffer_root(*src) == accel_buffer_root(*dst)) {
		s = (*src)->offset + src_offset;
		d = (*dst)->offset + dst_offset;
		if (s < d + size && d < s + size)
			return -EINVAL;
	}
	return 0;
}

int accel_check_fill(struct accel_device *dev, struct accel_buffer **buf,
		     uint64_t offset, uint64_t size, const void *pattern,
		     size_t pattern_size)
{
	int r;

	if (!pattern || pattern_size == 0 || pattern_size > 128 ||
	    (pattern_size & (pattern_size - 1)))
		return -EINVAL;
	r = check_buffer_range(dev, *buf, offset, size, buf);
	if (r < 0)
		return r;
	if (offset % pattern_size || size % pattern_size)
		return -EINVAL;
	if (accel_buffer_root(*buf)->readonly_mapping)
		return -EACCES;
	return 0;
}

static int submit_rw(struct accel_queue *queue, enum accel_cmd_type type,
		     struct accel_buffer *buf, uint64_t offset, uint64_t size,
		     void *host, uint32_t n_wait, struct accel_fence *const *wait,
		     struct accel_fence **ret_fence)
{
	struct accel_cmd *cmd;
	int r;

	r = accel_queue_check_wait(queue, n_wait, wait);
	if (r < 0)
		return r;
	if (!host)
		return -EINVAL;
	r = check_buffer_range(queue->dev, buf, offset, size, &buf);
	if (r < 0)
		return r;
	if (type == ACCEL_CMD_WRITE && accel_buffer_root(buf)->readonly_mapping)
		return -EACCES;

	cmd = accel_cmd_alloc(queue, type);
	if (!cmd)
		return -ENOMEM;
	cmd->u.rw.buf = accel_buffer_ref(buf);
	cmd->u.rw.offset = offset;
	cmd->u.rw.size = size;
	cmd->u.rw.host = host;
	return accel_cmd_submit(cmd, n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_write(struct accel_queue *queue,
				   struct accel_buffer *buf, uint64_t offset,
				   uint64_t size, const void *src,
				   uint32_t n_wait,
				   struct accel_fence *const *wait,
				   struct accel_fence **ret_fence)
{
	return submit_rw(queue, ACCEL_CMD_WRITE, buf, offset, size, (void *)src,
			 n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_read(struct accel_queue *queue,
				  struct accel_buffer *buf, uint64_t offset,
				  uint64_t size, void *dst, uint32_t n_wait,
				  struct accel_fence *const *wait,
				  struct accel_fence **ret_fence)
{
	return submit_rw(queue, ACCEL_CMD_READ, buf, offset, size, dst, n_wait,
			 wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_copy(struct accel_queue *queue,
				  struct accel_buffer *src, uint64_t src_offset,
				  struct accel_buffer *dst, uint64_t dst_offset,
				  uint64_t size, uint32_t n_wait,
				  struct accel_fence *const *wait,
				  struct accel_fence **ret_fence)
{
	struct accel_cmd *cmd;
	int r;

	r = accel_queue_check_wait(queue, n_wait, wait);
	if (r == 0)
		r = accel_check_copy(queue->dev, &src, src_offset, &dst,
				     dst_offset, size);
	if (r < 0)
		return r;

	cmd = accel_cmd_alloc(queue, ACCEL_CMD_COPY);
	if (!cmd)
		return -ENOMEM;
	cmd->u.copy.src = accel_buffer_ref(src);
	cmd->u.copy.dst = accel_buffer_ref(dst);
	cmd->u.copy.src_offset = src_offset;
	cmd->u.copy.dst_offset = dst_offset;
	cmd->u.copy.size = size;
	return accel_cmd_submit(cmd, n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_fill(struct accel_queue *queue,
				  struct accel_buffer *buf, uint64_t offset,
				  uint64_t size, const void *pattern,
				  size_t pattern_size, uint32_t n_wait,
				  struct accel_fence *const *wait,
				  struct accel_fence **ret_fence)
{
	struct accel_cmd *cmd;
	int r;

	r = accel_queue_check_wait(queue, n_wait, wait);
	if (r == 0)
		r = accel_check_fill(queue->dev, &buf, offset, size, pattern,
				     pattern_size);
	if (r < 0)
		return r;

	cmd = accel_cmd_alloc(queue, ACCEL_CMD_FILL);
	if (!cmd)
		return -ENOMEM;
	cmd->u.fill.buf = accel_buffer_ref(buf);
	cmd->u.fill.offset = offset;
	cmd->u.fill.size = size;
	cmd->u.fill.pattern_size = (uint32_t)pattern_size;
	memcpy(cmd->u.fill.pattern, pattern, pattern_size);
	return accel_cmd_submit(cmd, n_wait, wait, ret_fence);
}

/* A marker; a barrier also holds back what is submitted after it. */
static int submit_marker(struct accel_queue *queue, bool barrier,
			 uint32_t n_wait, struct accel_fence *const *wait,
			 struct accel_fence **ret_fence)
{
	struct accel_cmd *cmd;
	int r;

	r = accel_queue_check_wait(queue, n_wait, wait);
	if (r < 0)
		return r;
	cmd = accel_cmd_alloc(queue, ACCEL_CMD_MARKER);
	if (!cmd)
		return -ENOMEM;
	cmd->barrier = barrier;
	return accel_cmd_submit(cmd, n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_marker(struct accel_queue *queue, uint32_t n_wait,
				    struct accel_fence *const *wait,
				    struct accel_fence **ret_fence)
{
	return submit_marker(queue, false, n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_barrier(struct accel_queue *queue, uint32_t n_wait,
				     struct accel_fence *const *wait,
				     struct accel_fence **ret_fence)
{
	return submit_marker(queue, true, n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_host_fn(struct accel_queue *queue,
				     accel_host_fn fn, void *user_data,
				     void (*free_fn)(void *user_data),
				     uint32_t n_wait,
				     struct accel_fence *const *wait,
				     struct accel_fence **ret_fence)
{
	struct accel_cmd *cmd = NULL;
	int r;

	r = fn ? accel_queue_check_wait(queue, n_wait, wait) : -EINVAL;
	if (r == 0) {
		cmd = accel_cmd_alloc(queue, ACCEL_CMD_HOST);
		if (!cmd)
			r = -ENOMEM;
	}
	if (r < 0) {
		if (free_fn)
			free_fn(user_data);
		return r;
	}
	cmd->u.host.fn = fn;
	cmd->u.host.data = user_data;
	cmd->u.host.free_fn = free_fn;
	/* From here every path (failure included) releases through free_fn. */
	return accel_cmd_submit(cmd, n_wait, wait, ret_fence);
}

ACCEL_EXPORT int accel_queue_flush(struct accel_queue *queue)
{
	return queue ? 0 : -EINVAL;
}

ACCEL_EXPORT int accel_queue_finish(struct accel_queue *queue)
{
	struct accel_fence *fence = NULL;
	bool idle;
	int r;

	if (!queue)
		return -EINVAL;

	pthread_mutex_lock(&queue->lock);
	idle = queue->head == NULL;
	pthread_mutex_unlock(&queue->lock);

	if (!idle) {
		/* A marker on an empty wait list waits for everything before. */
		r = accel_queue_marker(queue, 0, NULL, &fence);
		if (r < 0)
			return r;
		r = accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);
		accel_fence_unref(fence);
		if (r < 0)
			return r;
	}
	return atomic_exchange(&queue->error, 0);
}
