/* SPDX-License-Identifier: MIT */
/*
 * Execution on a DRM device: the device has no engine libaccel can drive,
 * so transfers (read, write, copy, fill) run on the CPU through the
 * buffers' mappings, in order, on one worker thread per device — never on
 * the submitting thread, which must not block on device work.
 *
 * Accesses to a buffer that is (or was exported as) a dma-buf are
 * bracketed with DMA_BUF_IOCTL_SYNC; its start also waits for the fences
 * other devices attached to the buffer (implicit sync), on the worker.
 *
 * The worker may be destroyed from inside a completion it runs (the last
 * context reference dropped there): platform/thread.h's rule then has it
 * free itself when it leaves its loop.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "drm-private.h"
#include "platform/thread.h"

struct drm_worker {
	struct accel_thread thread;
	pthread_mutex_t lock;    /* guards everything below */
	pthread_cond_t cond;
	/* FIFO of commands, linked through backend_priv[0]. */
	struct accel_cmd *head, *tail;
	bool stop;
};

/* One buffer a transfer touches. */
struct access {
	struct accel_buffer *root;
	int dmabuf_fd;           /* snapshot, -1 if none */
	bool read, write;
	bool synced;
};

static struct accel_cmd **cmd_next(struct accel_cmd *cmd)
{
	return (struct accel_cmd **)&cmd->backend_priv[0];
}

static void access_add(struct access *a, unsigned *n, struct accel_buffer *buf,
		       bool read, bool write)
{
	struct accel_buffer *root = accel_buffer_root(buf);
	unsigned i;

	for (i = 0; i < *n; i++) {
		if (a[i].root == root) {
			a[i].read |= read;
			a[i].write |= write;
			return;
		}
	}
	a[*n] = (struct access){ .root = root, .read = read, .write = write };
	(*n)++;
}

static int access_begin(struct access *a, unsigned n)
{
	unsigned i;
	int r;

	for (i = 0; i < n; i++) {
		struct accel_buffer *root = a[i].root;

		if (!root->host_ptr)
			return -EOPNOTSUPP;
		if (a[i].write && root->readonly_mapping)
			return -EACCES;
		pthread_mutex_lock(&root->lock);
		a[i].dmabuf_fd = root->dmabuf_fd;
		pthread_mutex_unlock(&root->lock);
	}
	for (i = 0; i < n; i++) {
		if (a[i].dmabuf_fd < 0)
			continue;
		r = accel_dmabuf_sync(a[i].dmabuf_fd, true, a[i].read,
				      a[i].write);
		if (r < 0)
			return r;
		a[i].synced = true;
	}
	return 0;
}

static void access_end(struct access *a, unsigned n)
{
	while (n--)
		if (a[n].synced)
			accel_dmabuf_sync(a[n].dmabuf_fd, false, a[n].read,
					  a[n].write);
}

static uint8_t *host(struct accel_buffer *buf, uint64_t offset)
{
	/* Sub-buffers' host_ptr already includes their offset. */
	return (uint8_t *)buf->host_ptr + offset;
}

static int transfer(struct accel_cmd *cmd)
{
	struct access a[2];
	unsigned n = 0;
	int r;

	switch (cmd->type) {
	case ACCEL_CMD_READ:
		access_add(a, &n, cmd->u.rw.buf, true, false);
		break;
	case ACCEL_CMD_WRITE:
		access_add(a, &n, cmd->u.rw.buf, false, true);
		break;
	case ACCEL_CMD_COPY:
		access_add(a, &n, cmd->u.copy.src, true, false);
		access_add(a, &n, cmd->u.copy.dst, false, true);
		break;
	case ACCEL_CMD_FILL:
		access_add(a, &n, cmd->u.fill.buf, false, true);
		break;
	default:
		return -EINVAL;
	}

	r = access_begin(a, n);
	if (r == 0) {
		/* After the implicit-sync wait: the copy starts now. */
		accel_cmd_started(cmd);
		switch (cmd->type) {
		case ACCEL_CMD_READ:
			memcpy(cmd->u.rw.host,
			       host(cmd->u.rw.buf, cmd->u.rw.offset),
			       cmd->u.rw.size);
			break;
		case ACCEL_CMD_WRITE:
			memcpy(host(cmd->u.rw.buf, cmd->u.rw.offset),
			       cmd->u.rw.host, cmd->u.rw.size);
			break;
		case ACCEL_CMD_COPY:
			/* Ranges of one buffer may overlap. */
			memmove(host(cmd->u.copy.dst, cmd->u.copy.dst_offset),
				host(cmd->u.copy.src, cmd->u.copy.src_offset),
				cmd->u.copy.size);
			break;
		case ACCEL_CMD_FILL:
			accel_fill_pattern(host(cmd->u.fill.buf, cmd->u.fill.offset),
				     cmd->u.fill.size, cmd->u.fill.pattern,
				     cmd->u.fill.pattern_size);
			break;
		default:
			break;
		}
	}
	access_end(a, n);
	return r;
}

static void worker_free(struct drm_worker *w)
{
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

static void *worker_main(void *arg)
{
	struct drm_worker *w = arg;
	struct accel_cmd *cmd;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		cmd = w->head;
		if (!cmd)
			break; /* stopped, and nothing is left */
		w->head = *cmd_next(cmd);
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);

		/* May free the device, and stop this worker. */
		accel_cmd_complete(cmd, transfer(cmd));

		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	if (accel_thread_exiting_self(&w->thread))
		worker_free(w);
	return NULL;
}

static int worker_new(struct drm_worker **ret)
{
	struct drm_worker *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	r = accel_thread_start(&w->thread, "accel-drm", NULL, worker_main, w);
	if (r < 0) {
		worker_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

void drm_worker_destroy(struct drm_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	/* On the worker itself: worker_main frees @w on its way out. */
	if (accel_thread_join_or_detach(&w->thread))
		worker_free(w);
}

/* The device's worker, started on first use: listing devices makes none. */
static int get_worker(struct accel_device *dev, struct drm_worker **ret)
{
	struct drm_device *drm = dev->backend_data;
	struct drm_worker *w;
	int r = 0;

	w = atomic_load_explicit(&drm->worker, memory_order_acquire);
	if (_likely_(w)) {
		*ret = w;
		return 0;
	}
	pthread_mutex_lock(&drm->worker_lock);
	w = atomic_load_explicit(&drm->worker, memory_order_relaxed);
	if (!w) {
		r = worker_new(&w);
		if (r == 0)
			atomic_store_explicit(&drm->worker, w,
					      memory_order_release);
	}
	pthread_mutex_unlock(&drm->worker_lock);
	if (r < 0) {
		log_err(dev->ctx, "cannot start the DRM worker thread: %s\n",
			strerror(-r));
		return r;
	}
	*ret = w;
	return 0;
}

int drm_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct drm_worker *w;
	int r;

	switch (cmd->type) {
	case ACCEL_CMD_MARKER:
		/* Nothing to run (the core normally does this itself). */
		accel_cmd_complete(cmd, 0);
		return 0;
	case ACCEL_CMD_READ:
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_COPY:
	case ACCEL_CMD_FILL:
		break;
	default:
		/* No program can be built for this device: no launches. */
		return -EOPNOTSUPP;
	}

	r = get_worker(queue->dev, &w);
	if (r < 0)
		return r;
	*cmd_next(cmd) = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		*cmd_next(w->tail) = cmd;
	else
		w->head = cmd;
	w->tail = cmd;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}
