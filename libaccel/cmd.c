/* SPDX-License-Identifier: MIT */
/*
 * The life of a command: dependencies (fence waiters), hand-over to the
 * backend, completion, and release of what it held.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/*
 * Completing a command can make others ready, whose completion can make
 * more ready (chains of markers or of failed dependencies). Beyond a small
 * depth, ready commands are queued here and run by the outermost call, so
 * the stack stays bounded. Thread-local, not shared: each thread drains its
 * own list before returning.
 */
#define READY_MAX_DEPTH 8

static ACCEL_TLS struct {
	struct accel_cmd *head, *tail;
	unsigned depth;
} ready_list;

/* What a new command must find zeroed: all but the launch's arrays. */
#define CMD_CLEAR_SIZE \
	(offsetof(struct accel_cmd, u) + offsetof(struct accel_launch, inline_args))

struct accel_cmd *accel_cmd_alloc(struct accel_queue *queue,
				  enum accel_cmd_type type)
{
	struct accel_recycle_link *cached;
	struct accel_cmd *cmd;

	cached = accel_recycle_take(&queue->cmd_cache);
	if (cached) {
		cmd = container_of(cached, struct accel_cmd, cached);
	} else {
		cmd = malloc(ALIGN_UP(sizeof(*cmd), (size_t)16) +
			     queue->dev->ops->cmd_priv_size);
		if (!cmd)
			return NULL;
	}
	memset(cmd, 0, CMD_CLEAR_SIZE);
	cmd->type = type;
	cmd->queue = queue;
	atomic_init(&cmd->pending, 1);
	atomic_init(&cmd->dep_error, 0);
	cmd->deps = cmd->inline_deps;
	return cmd;
}

/* Free the records cached by @queue (it is going away). */
void accel_cmd_cache_drain(struct accel_queue *queue)
{
	struct accel_recycle_link *l = accel_recycle_drain(&queue->cmd_cache);

	while (l) {
		struct accel_cmd *cmd = container_of(l, struct accel_cmd, cached);

		l = l->next;
		free(cmd);
	}
}

void accel_launch_release(struct accel_launch *l)
{
	uint32_t i;

	for (i = 0; i < l->n_buffers; i++)
		accel_buffer_unref(l->buffers[i]);
	free(l->heap);
	accel_kernel_unref(l->kernel);
}

/* Drop what the command held for its work. */
static void cmd_release(struct accel_cmd *cmd)
{
	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		accel_launch_release(&cmd->u.launch);
		break;
	case ACCEL_CMD_CHAIN:
		accel_chain_unref(cmd->u.chain.chain);
		break;
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_READ:
		accel_buffer_unref(cmd->u.rw.buf);
		break;
	case ACCEL_CMD_COPY:
		accel_buffer_unref(cmd->u.copy.src);
		accel_buffer_unref(cmd->u.copy.dst);
		break;
	case ACCEL_CMD_FILL:
		accel_buffer_unref(cmd->u.fill.buf);
		break;
	case ACCEL_CMD_MARKER:
		break;
	case ACCEL_CMD_HOST:
		if (cmd->u.host.free_fn)
			cmd->u.host.free_fn(cmd->u.host.data);
		break;
	}
	/* Nothing may use what was released (alloc clears the rest). */
	memset(&cmd->u, 0, offsetof(struct accel_launch, inline_args));
}

/*
 * Back to the queue's cache; the queue is alive (a reference of the
 * caller's or of the commands still listed).
 */
static void cmd_free(struct accel_cmd *cmd)
{
	struct accel_queue *queue = cmd->queue;

	if (cmd->deps != cmd->inline_deps)
		free(cmd->deps);
	if (!accel_recycle_put(&queue->cmd_cache, &cmd->cached))
		free(cmd);
}

void accel_cmd_discard(struct accel_cmd *cmd)
{
	cmd_release(cmd);
	accel_fence_unref(cmd->fence);
	cmd_free(cmd);
}

void accel_cmd_started(struct accel_cmd *cmd)
{
	accel_fence_set_time(cmd->fence, ACCEL_FENCE_TIME_STARTED);
	accel_stats_cmd_started(cmd);
}

void accel_cmd_complete(struct accel_cmd *cmd, int status)
{
	struct accel_queue *queue = cmd->queue;
	struct accel_fence *fence = cmd->fence;
	int expected = 0;
	bool idle;

	if (status < 0) {
		atomic_compare_exchange_strong(&queue->error, &expected, status);
		log_dbg(queue->dev->ctx, "command %p (type %d) failed: %s\n",
			(void *)cmd, cmd->type, strerror(-status));
	}

	accel_stats_cmd_completed(cmd, status);
	cmd_release(cmd);
	/* A started time also for commands that never ran (failed deps). */
	accel_fence_set_time(fence, ACCEL_FENCE_TIME_STARTED);
	accel_fence_do_signal(fence, status);

	/*
	 * Leave the queue only once the fence has signalled: a finish that
	 * finds the queue empty returns at once, and every fence of the
	 * commands before it must then read as signalled. The fence stays
	 * referenced while listed: a submit may take it as a dependency.
	 * The record goes back to the cache before the lock is dropped:
	 * from then on, the queue lives only by the commands still listed,
	 * and the completion that empties the list drops their reference.
	 */
	pthread_mutex_lock(&queue->lock);
	if (cmd->prev)
		cmd->prev->next = cmd->next;
	else
		queue->head = cmd->next;
	if (cmd->next)
		cmd->next->prev = cmd->prev;
	else
		queue->tail = cmd->prev;
	idle = !queue->head;
	cmd_free(cmd);
	pthread_mutex_unlock(&queue->lock);
	accel_fence_unref(fence);
	/* May drop the last context reference, even on a worker thread. */
	if (idle)
		accel_queue_unref(queue);
}

static void cmd_run(struct accel_cmd *cmd)
{
	int err, r;

	accel_fence_set_time(cmd->fence, ACCEL_FENCE_TIME_SUBMITTED);
	err = atomic_load_explicit(&cmd->dep_error, memory_order_acquire);
	if (err < 0) {
		accel_cmd_close_in_syncs(cmd);
		accel_cmd_complete(cmd, err);
		return;
	}
	if (cmd->type == ACCEL_CMD_MARKER) {
		accel_cmd_complete(cmd, 0);
		return;
	}
	if (cmd->type == ACCEL_CMD_HOST) {
		accel_cmd_started(cmd);
		r = cmd->u.host.fn(cmd->u.host.data);
		accel_cmd_complete(cmd, r >= 0 ? 0 : r >= -4095 ? r : -EIO);
		return;
	}
	r = cmd->queue->dev->ops->execute(cmd->queue, cmd);
	if (r < 0) {
		/* Not taken: the in-fences are still ours. */
		accel_cmd_close_in_syncs(cmd);
		accel_cmd_complete(cmd, r);
	}
}

static void cmd_ready(struct accel_cmd *cmd)
{
	if (ready_list.depth >= READY_MAX_DEPTH) {
		cmd->ready_next = NULL;
		if (ready_list.tail)
			ready_list.tail->ready_next = cmd;
		else
			ready_list.head = cmd;
		ready_list.tail = cmd;
		return;
	}

	ready_list.depth++;
	cmd_run(cmd);
	while (ready_list.depth == 1 && (cmd = ready_list.head)) {
		ready_list.head = cmd->ready_next;
		if (!ready_list.head)
			ready_list.tail = NULL;
		cmd_run(cmd);
	}
	ready_list.depth--;
}

static void dep_done(struct accel_cmd_dep *dep, int status)
{
	struct accel_cmd *cmd = dep->cmd;
	int expected = 0;

	if (dep->propagate_error && status < 0)
		atomic_compare_exchange_strong(&cmd->dep_error, &expected,
					       status);
	accel_fence_unref(dep->fence);
	dep->fence = NULL;
	if (atomic_fetch_sub_explicit(&cmd->pending, 1, memory_order_acq_rel) ==
	    1)
		cmd_ready(cmd);
}

static void dep_fired(struct accel_fence_waiter *w, int status)
{
	dep_done((struct accel_cmd_dep *)w, status);
}

/* The buffers a command touches, and whether it writes them. */
static uint32_t cmd_buffers(struct accel_cmd *cmd, struct accel_buffer ***ret,
			    struct accel_buffer *pair[2], bool *write)
{
	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		*ret = cmd->u.launch.buffers;
		return cmd->u.launch.n_buffers;
	case ACCEL_CMD_CHAIN:
		*ret = cmd->u.chain.chain->buffers;
		return cmd->u.chain.chain->n_buffers;
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_READ:
		pair[0] = cmd->u.rw.buf;
		write[0] = cmd->type == ACCEL_CMD_WRITE;
		break;
	case ACCEL_CMD_COPY:
		pair[0] = cmd->u.copy.src;
		pair[1] = cmd->u.copy.dst;
		write[0] = false;
		write[1] = true;
		*ret = pair;
		return 2;
	case ACCEL_CMD_FILL:
		pair[0] = cmd->u.fill.buf;
		write[0] = true;
		break;
	case ACCEL_CMD_MARKER:
	case ACCEL_CMD_HOST:
		return 0;
	}
	*ret = pair;
	return 1;
}

/*
 * Implicit synchronisation: before touching a dma-buf, wait for the
 * fences other devices attached to it (readers wait for writers, writers
 * for everyone), as the kernel's reservation object says at submission.
 * Appends the pending ones to @fences (one slot per buffer available).
 */
static int cmd_implicit_fences(struct accel_cmd *cmd,
			       struct accel_fence ***ret, uint32_t *n_ret)
{
	struct accel_buffer *pair[2], **bufs = NULL;
	struct accel_fence **fences = NULL, *f;
	bool write[2] = { false, false };
	uint32_t n, i, count = 0;
	int r = 0;

	/* Done by the kernel driver for this device's jobs. */
	if (cmd->queue->dev->ops->implicit_sync_in_kernel) {
		*ret = NULL;
		*n_ret = 0;
		return 0;
	}
	n = cmd_buffers(cmd, &bufs, pair, write);
	for (i = 0; i < n; i++) {
		struct accel_buffer *root = accel_buffer_root(bufs[i]);
		bool w = cmd->type == ACCEL_CMD_LAUNCH ||
				 cmd->type == ACCEL_CMD_CHAIN ?
				 !(bufs[i]->flags & ACCEL_BUFFER_READ_ONLY) :
				 write[i];
		int fd = accel_buffer_dmabuf_fd(root), sync_fd;

		if (fd < 0)
			continue;
		r = accel_dmabuf_export_sync_file(fd, w, &sync_fd);
		if (r < 0)
			break;
		r = accel_fence_from_sync_file(cmd->queue->dev->ctx, sync_fd,
					       &f);
		if (r < 0)
			break;
		if (accel_fence_get_status(f) == 1) {
			accel_fence_unref(f);
			continue;
		}
		if (!fences) {
			fences = calloc(n, sizeof(*fences));
			if (!fences) {
				accel_fence_unref(f);
				r = -ENOMEM;
				break;
			}
		}
		fences[count++] = f;
	}
	if (r < 0) {
		log_dbg(cmd->queue->dev->ctx, "implicit sync failed: %s\n",
			strerror(-r));
		while (count)
			accel_fence_unref(fences[--count]);
		free(fences);
		return r;
	}
	*ret = fences;
	*n_ret = count;
	return 0;
}

void accel_cmd_close_in_syncs(struct accel_cmd *cmd)
{
	while (cmd->n_in_sync)
		close(cmd->in_sync_fds[--cmd->n_in_sync]);
}

/*
 * For a backend whose work waits for kernel fences itself: can @dep, a
 * dependency of @cmd, be left to it? A wait-list or implicit-sync fence
 * with a kernel fence becomes one of the command's in-fences; an in-order
 * predecessor with one needs nothing (the device runs our work after
 * it). Everything else is waited for here.
 */
static bool dep_to_kernel(struct accel_cmd *cmd, struct accel_cmd_dep *dep)
{
	int fd;

	if (!cmd->queue->dev->ops->sync_file_deps_in_kernel ||
	    cmd->type == ACCEL_CMD_MARKER || cmd->type == ACCEL_CMD_HOST)
		return false;
	if (!dep->propagate_error)
		return accel_fence_has_sync_file(dep->fence);
	if (cmd->n_in_sync == ARRAY_SIZE(cmd->in_sync_fds) ||
	    accel_fence_dup_sync_file(dep->fence, &fd) < 0)
		return false;
	cmd->in_sync_fds[cmd->n_in_sync++] = fd;
	log_dbg(cmd->queue->dev->ctx,
		"command %p: in-fence %p left to the kernel\n", (void *)cmd,
		(void *)dep->fence);
	return true;
}

int accel_cmd_submit(struct accel_cmd *cmd, uint32_t n_wait,
		     struct accel_fence *const *wait,
		     struct accel_fence **ret_fence)
{
	struct accel_queue *queue = cmd->queue;
	struct accel_fence **implicit = NULL;
	struct accel_fence *barrier = NULL;
	struct accel_cmd *c;
	uint32_t n_implicit = 0, n_sync = 0, n_total, i;
	bool all = false;
	int r;

	cmd->n_in_sync = 0;
	/*
	 * Markers and host functions do no device work: finish() still
	 * drains a gone device.
	 */
	r = cmd->type == ACCEL_CMD_MARKER || cmd->type == ACCEL_CMD_HOST ?
		    0 :
		    accel_device_alive(queue->dev);
	if (r < 0) {
		accel_cmd_discard(cmd);
		return r;
	}
	r = cmd_implicit_fences(cmd, &implicit, &n_sync);
	if (r < 0) {
		accel_cmd_discard(cmd);
		return r;
	}
	r = accel_fence_create(queue->dev->ctx, false,
			       queue->flags & ACCEL_QUEUE_PROFILING,
			       &cmd->fence);
	if (r < 0)
		goto fail;
	accel_fence_set_time(cmd->fence, ACCEL_FENCE_TIME_QUEUED);

	pthread_mutex_lock(&queue->lock);
	if (!(queue->flags & ACCEL_QUEUE_OUT_OF_ORDER)) {
		n_implicit = queue->tail ? 1 : 0;
	} else if (cmd->type == ACCEL_CMD_MARKER && n_wait == 0) {
		/* An out-of-order marker without a wait list waits for all. */
		all = true;
		for (c = queue->head; c; c = c->next)
			n_implicit++;
	} else if (queue->barrier) {
		barrier = accel_fence_ref(queue->barrier);
		n_implicit = 1;
	}
	/* n_wait is the caller's: the sum must not wrap. */
	if (__builtin_add_overflow(n_wait, n_sync, &n_total) ||
	    __builtin_add_overflow(n_total, n_implicit, &n_total))
		n_total = UINT32_MAX; /* fails the allocation below */
	if (n_total > ARRAY_SIZE(cmd->inline_deps)) {
		cmd->deps = n_total == UINT32_MAX ?
				    NULL :
				    calloc(n_total, sizeof(*cmd->deps));
		if (!cmd->deps) {
			pthread_mutex_unlock(&queue->lock);
			cmd->deps = cmd->inline_deps;
			r = -ENOMEM;
			goto fail;
		}
	}
	for (i = 0; i < n_wait; i++) {
		cmd->deps[i].fence = accel_fence_ref(wait[i]);
		cmd->deps[i].propagate_error = true;
	}
	/* The implicit-sync fences' references move into the deps. */
	for (; i < n_wait + n_sync; i++) {
		cmd->deps[i].fence = implicit[i - n_wait];
		cmd->deps[i].propagate_error = true;
	}
	free(implicit);
	implicit = NULL;
	if (all) {
		for (c = queue->head; c; c = c->next)
			cmd->deps[i++].fence = accel_fence_ref(c->fence);
	} else if (barrier) {
		/* Its failure is the command's, as for the wait list. */
		cmd->deps[i].fence = barrier;
		cmd->deps[i++].propagate_error = true;
		barrier = NULL;
	} else if (n_implicit) {
		cmd->deps[i++].fence = accel_fence_ref(queue->tail->fence);
	}
	cmd->n_deps = n_total;
	if (cmd->barrier && (queue->flags & ACCEL_QUEUE_OUT_OF_ORDER)) {
		barrier = queue->barrier;
		queue->barrier = accel_fence_ref(cmd->fence);
	}
	/* Append: the queue is the command's until it completes. */
	if (!queue->head)
		accel_queue_ref(queue); /* busy: see struct accel_queue */
	cmd->prev = queue->tail;
	cmd->next = NULL;
	if (queue->tail)
		queue->tail->next = cmd;
	else
		queue->head = cmd;
	queue->tail = cmd;
	pthread_mutex_unlock(&queue->lock);
	accel_stats_cmd_submitted(cmd);
	/* The barrier this one replaced (a fence unref may run callbacks). */
	accel_fence_unref(barrier);

	if (ret_fence)
		*ret_fence = accel_fence_ref(cmd->fence);

	/* pending starts at 1 (this call), so nothing runs before we finish. */
	atomic_fetch_add_explicit(&cmd->pending, (int)cmd->n_deps,
				  memory_order_relaxed);
	for (i = 0; i < cmd->n_deps; i++) {
		struct accel_cmd_dep *dep = &cmd->deps[i];
		int status;

		dep->cmd = cmd;
		dep->waiter.fn = dep_fired;
		if (dep_to_kernel(cmd, dep))
			dep_done(dep, 0);
		else if (accel_fence_add_waiter(dep->fence, &dep->waiter,
						&status))
			dep_done(dep, status);
	}
	if (atomic_fetch_sub_explicit(&cmd->pending, 1, memory_order_acq_rel) ==
	    1)
		cmd_ready(cmd);
	return 0;

fail:
	accel_fence_unref(barrier);
	while (n_sync)
		accel_fence_unref(implicit[--n_sync]);
	free(implicit);
	accel_cmd_discard(cmd);
	return r;
}
