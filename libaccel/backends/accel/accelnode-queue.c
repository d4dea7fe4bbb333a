/* SPDX-License-Identifier: MIT */
/*
 * Execution on an accel node. Copies, fills and built-in kernels become
 * kernel jobs, submitted at once from the calling thread; their fence is
 * read back from the device's syncobj as a sync_file right after the
 * submit, before the job has run, and given to the command's fence
 * (accel_fence_set_sync_file): exports hand out duplicates, later
 * commands pass it to the kernel as an in-fence, and the engine's worker
 * thread (gem_worker) waits on it to complete the command (borrowed: the
 * fence closes it when it signals, which only that thread makes it do).
 * A command's sync_file dependencies (cmd->in_sync_fds) become the job's
 * in-syncobjs: the kernel waits for them, not us.
 * Host reads and writes (memcpy through the buffer's mapping) go through
 * the same FIFO, so they run after every job submitted before them; the
 * engine thread waits for their in-fences first.
 *
 * The driver runs its jobs in submission order, so the FIFO is kept in
 * that order (submit and append under one lock) and the thread only ever
 * waits for its head. Accesses to dma-buf-shared buffers from the host are
 * bracketed with DMA_BUF_IOCTL_SYNC, which also waits for the fences
 * other devices left on them (implicit sync); jobs get the same from the
 * kernel driver through the buffers' reservation objects.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "accelnode-private.h"

struct accelnode_engine {
	/* Completes commands in submission order; its lock guards below. */
	struct gem_worker *worker;
	int fd;                       /* the device's, borrowed */
	uint32_t syncobj;             /* receives each job's fence */
	/* A job's in-fences, made on first need; 0: not made yet. */
	uint32_t in_syncobjs[ACCEL_CMD_MAX_IN_SYNC];
};

/*
 * backend_priv: [0] the worker's FIFO link, [1] the job's sync_file + 1
 * (0: host transfer), borrowed from the command's fence.
 */
static int sync_fd_of(struct accel_cmd *cmd)
{
	return (int)(intptr_t)cmd->backend_priv[1] - 1;
}

static void set_sync_fd(struct accel_cmd *cmd, int fd)
{
	cmd->backend_priv[1] = (void *)(intptr_t)(fd + 1);
}

/* A host transfer's in-fences: 0 or the first error among them. */
static int wait_in_syncs(struct accel_cmd *cmd)
{
	uint32_t i;
	int r = 0, s;

	for (i = 0; i < cmd->n_in_sync; i++) {
		s = accel_sync_file_wait(cmd->in_sync_fds[i],
					 ACCEL_TIMEOUT_INFINITE);
		if (s < 0 && !r)
			r = s;
	}
	accel_cmd_close_in_syncs(cmd);
	return r;
}

/*
 * On the worker, at the FIFO's head (so still exportable): wait for the
 * job's fence, or run a host read or write through the buffer's mapping
 * once its in-fences have signalled. Completing the command signals the
 * fence, which closes the sync_file.
 */
static int engine_run(struct accel_cmd *cmd)
{
	int fd = sync_fd_of(cmd), r;

	if (fd >= 0)
		return accel_sync_file_wait(fd, ACCEL_TIMEOUT_INFINITE);
	r = wait_in_syncs(cmd);
	return r < 0 ? r : gem_host_transfer(cmd);
}

static int engine_new(int fd, struct accelnode_engine **ret)
{
	struct accelnode_engine *e;
	int r;

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fd = fd;
	r = gem_syncobj_create(fd, 0, &e->syncobj);
	if (r < 0) {
		free(e);
		return r;
	}
	r = gem_worker_new("accel-node", engine_run, &e->worker);
	if (r < 0) {
		gem_syncobj_destroy(fd, e->syncobj);
		free(e);
		return r;
	}
	*ret = e;
	return 0;
}

void accelnode_engine_destroy(struct accelnode_engine *e)
{
	size_t i;

	if (!e)
		return;
	/*
	 * Now, while the device's fd is open: the caller closes it next,
	 * even when the worker lives on a little (destroyed from itself).
	 * Every command has completed, so no submit uses the syncobjs, and
	 * the worker touches nothing of @e.
	 */
	gem_syncobj_destroy(e->fd, e->syncobj);
	for (i = 0; i < ARRAY_SIZE(e->in_syncobjs); i++)
		if (e->in_syncobjs[i])
			gem_syncobj_destroy(e->fd, e->in_syncobjs[i]);
	gem_worker_destroy(e->worker);
	free(e);
}

int accelnode_queue_init(struct accel_queue *queue)
{
	struct accelnode_device *an = queue->dev->backend_data;
	int r = 0;

	pthread_mutex_lock(&an->engine_lock);
	if (!an->engine)
		r = engine_new(an->gem.fd, &an->engine);
	pthread_mutex_unlock(&an->engine_lock);
	if (r < 0)
		log_err(queue->dev->ctx, "cannot start the accel engine: %s\n",
			strerror(-r));
	return r;
}

/* Is [offset, offset + size) inside @buf? */
static bool in_range(const struct accel_buffer *buf, uint64_t offset,
		     uint64_t size)
{
	return offset <= buf->size && size <= buf->size - offset;
}

/* The job a command describes; dst/src hold the buffers it touches. */
static int build_job(struct accelnode_device *an, struct accel_cmd *cmd,
		     struct accelnode_job *job)
{
	struct accel_buffer *dst = NULL, *src = NULL;
	int r;

	memset(job, 0, sizeof(*job));
	switch (cmd->type) {
	case ACCEL_CMD_COPY:
		job->op = ACCELNODE_OP_COPY;
		dst = cmd->u.copy.dst;
		src = cmd->u.copy.src;
		job->dst_offset = cmd->u.copy.dst_offset;
		job->src_offset = cmd->u.copy.src_offset;
		job->size = cmd->u.copy.size;
		break;
	case ACCEL_CMD_FILL:
		if (cmd->u.fill.pattern_size > an->drv->max_pattern)
			return -EOPNOTSUPP;
		job->op = ACCELNODE_OP_FILL;
		dst = cmd->u.fill.buf;
		job->dst_offset = cmd->u.fill.offset;
		job->size = cmd->u.fill.size;
		job->pattern = cmd->u.fill.pattern;
		job->pattern_size = cmd->u.fill.pattern_size;
		break;
	case ACCEL_CMD_LAUNCH:
		r = an->drv->launch_job(cmd, job, &dst, &src);
		if (r < 0)
			return r;
		if (!in_range(dst, job->dst_offset, job->size) ||
		    (src && !in_range(src, job->src_offset, job->size)))
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	job->dst = accelnode_buffer_handle(dst, &job->dst_offset);
	if (src)
		job->src = accelnode_buffer_handle(src, &job->src_offset);
	return 0;
}

/* The command's in-fences into the engine's in-syncobjs (worker locked). */
static int import_in_syncs(int fd, struct accelnode_engine *e,
			   struct accel_cmd *cmd)
{
	uint32_t i;
	int r;

	for (i = 0; i < cmd->n_in_sync; i++) {
		if (!e->in_syncobjs[i]) {
			r = gem_syncobj_create(fd, 0, &e->in_syncobjs[i]);
			if (r < 0)
				return r;
		}
		r = gem_syncobj_import_sync_file(fd, e->in_syncobjs[i],
						 cmd->in_sync_fds[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Submit and append under the engine lock: the FIFO's order is the
 * kernel's. The sync_file is taken before anyone else can submit, and
 * the fence has it before anyone can see the command in the FIFO.
 */
static int submit_job(struct accelnode_device *an,
		      struct accelnode_engine *e, struct accel_cmd *cmd,
		      struct accelnode_job *job)
{
	uint32_t n_in = cmd->n_in_sync;
	int fd = -1, r;

	job->out_syncobj = e->syncobj;
	job->in_syncobjs = e->in_syncobjs;
	job->n_in_syncobjs = n_in;
	gem_worker_lock(e->worker);
	r = import_in_syncs(an->gem.fd, e, cmd);
	if (r == 0)
		r = an->drv->submit(an->gem.fd, job);
	/* The job holds its in-fences now: ours can go. */
	accel_cmd_close_in_syncs(cmd);
	if (n_in)
		gem_syncobj_reset(an->gem.fd, e->in_syncobjs, n_in);
	if (r == 0)
		r = gem_syncobj_export_sync_file(an->gem.fd, e->syncobj, &fd);
	if (r == 0) {
		set_sync_fd(cmd, fd);
		/* Pending and without one: the fence keeps @fd open. */
		accel_fence_set_sync_file(cmd->fence, fd);
		gem_worker_append_locked(e->worker, cmd);
	}
	gem_worker_unlock(e->worker);
	return r;
}

int accelnode_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct accelnode_device *an = queue->dev->backend_data;
	/* Set by queue_init before the queue existed. */
	struct accelnode_engine *e = an->engine;
	struct accelnode_job job;
	int r;

	if (cmd->type == ACCEL_CMD_MARKER) {
		accel_cmd_complete(cmd, 0);
		return 0;
	}
	if (cmd->type == ACCEL_CMD_READ || cmd->type == ACCEL_CMD_WRITE) {
		set_sync_fd(cmd, -1);
		gem_worker_append(e->worker, cmd);
		return 0;
	}

	r = build_job(an, cmd, &job);
	if (r == 0) {
		/* The engine has it from here (a job waits in the kernel). */
		accel_cmd_started(cmd);
		r = submit_job(an, e, cmd, &job);
	}
	if (r < 0)
		log_dbg(queue->dev->ctx, "%s job not submitted: %s\n",
			an->drv->name, strerror(-r));
	return r;
}
