/* SPDX-License-Identifier: MIT */
/*
 * Execution on the CPU device: each command becomes a pool job. A launch
 * is split into work-groups, a transfer into ~256 KiB chunks, so every
 * worker helps with large commands.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu-private.h"

/* Local memory blocks are aligned like this (see accel-wg.h). */
#define LOCAL_ALIGN 128u
/*
 * Transfers are cut into pieces of this size: large enough that the
 * claim costs nothing next to the copy, small enough to spread a few MiB
 * over all workers.
 */
#define XFER_CHUNK (256u << 10)
/* Work-groups per claim: about this many claims per worker per launch. */
#define CLAIMS_PER_THREAD 8u

struct cpu_exec_job {
	struct cpu_job job;
	struct accel_cmd *cmd;
	atomic_bool started;
};

static struct cpu_exec_job *to_exec_job(struct cpu_job *job)
{
	return (struct cpu_exec_job *)((char *)job -
				       offsetof(struct cpu_exec_job, job));
}

/* Make sure *@p holds at least @n pointers. */
static int grow_ptrs(void ***p, uint32_t *cap, uint32_t n)
{
	void **np;

	if (n <= *cap)
		return 0;
	np = realloc(*p, (size_t)n * sizeof(void *));
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = n;
	return 0;
}

/* This worker's copy of the arguments, with its own local memory. */
static int launch_prepare(const struct accel_launch *l, struct cpu_scratch *s)
{
	uint32_t j;
	int r;

	if (l->local_mem_size > s->local_size) {
		uint64_t size = ALIGN_UP(l->local_mem_size, (uint64_t)LOCAL_ALIGN);
		void *mem = aligned_alloc(LOCAL_ALIGN, size);

		if (!mem)
			return -ENOMEM;
		free(s->local_mem);
		s->local_mem = mem;
		s->local_size = size;
	}
	r = grow_ptrs(&s->args, &s->args_cap, l->n_args);
	if (r == 0)
		r = grow_ptrs(&s->local_ptrs, &s->local_ptrs_cap,
			      l->n_local_args);
	if (r < 0)
		return r;

	if (l->n_args)
		memcpy(s->args, l->args, l->n_args * sizeof(void *));
	for (j = 0; j < l->n_local_args; j++) {
		s->local_ptrs[j] = (uint8_t *)s->local_mem +
				   l->local_arg_offset[j];
		s->args[l->local_arg_index[j]] = &s->local_ptrs[j];
	}
	return 0;
}

/* Run work-groups [b, e) (linear ids, x fastest). */
static void launch_run(const struct accel_launch *l, struct cpu_scratch *s,
		       uint64_t b, uint64_t e)
{
	struct accel_wg_ctx wg;
	uint64_t g[3], idx;
	int d;

	memset(&wg, 0, sizeof(wg));
	wg.abi_version = ACCEL_WG_ABI_VERSION;
	wg.work_dim = l->work_dim;
	for (d = 0; d < 3; d++) {
		wg.num_groups[d] = l->num_groups[d];
		wg.enqueued_local_size[d] = l->local_size[d];
		wg.global_size[d] = l->global_size[d];
		wg.global_offset[d] = l->global_offset[d];
	}
	wg.local_mem = s->local_mem;
	wg.static_local_size = l->static_local_size;
	wg.barrier = NULL;
	wg.runtime = s;

	g[0] = b % l->num_groups[0];
	g[1] = b / l->num_groups[0] % l->num_groups[1];
	g[2] = b / l->num_groups[0] / l->num_groups[1];
	for (idx = b; idx < e; idx++) {
		for (d = 0; d < 3; d++) {
			uint64_t first = g[d] * l->local_size[d];

			wg.group_id[d] = g[d];
			/* Trailing groups hold what is left. */
			wg.local_size[d] = MIN(l->local_size[d],
					       l->global_size[d] - first);
		}
		l->fn(s->args, &wg);
		if (++g[0] == l->num_groups[0]) {
			g[0] = 0;
			if (++g[1] == l->num_groups[1]) {
				g[1] = 0;
				g[2]++;
			}
		}
	}
}

/* Repeat a @psize-byte pattern over @len bytes (a multiple of @psize). */
static void fill_pattern(uint8_t *dst, uint64_t len, const uint8_t *pattern,
			 uint32_t psize)
{
	uint64_t done;

	if (psize == 1) {
		memset(dst, pattern[0], len);
		return;
	}
	memcpy(dst, pattern, psize);
	/* Double what is there: few, growing memcpy calls. */
	for (done = psize; done < len;) {
		uint64_t n = MIN(done, len - done);

		memcpy(dst + done, dst, n);
		done += n;
	}
}

static uint64_t xfer_size(const struct accel_cmd *cmd)
{
	switch (cmd->type) {
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_READ:
		return cmd->u.rw.size;
	case ACCEL_CMD_COPY:
		return cmd->u.copy.size;
	case ACCEL_CMD_FILL:
		return cmd->u.fill.size;
	default:
		return 0;
	}
}

/* Bytes [b, e) * XFER_CHUNK of a transfer. */
static void xfer_run(struct accel_cmd *cmd, uint64_t b, uint64_t e)
{
	uint64_t start = b * XFER_CHUNK;
	uint64_t len = MIN(e * XFER_CHUNK, xfer_size(cmd)) - start;
	uint8_t *dev, *host;

	switch (cmd->type) {
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_READ:
		dev = (uint8_t *)cmd->u.rw.buf->host_ptr + cmd->u.rw.offset +
		      start;
		host = (uint8_t *)cmd->u.rw.host + start;
		if (cmd->type == ACCEL_CMD_WRITE)
			memcpy(dev, host, len);
		else
			memcpy(host, dev, len);
		break;
	case ACCEL_CMD_COPY:
		memcpy((uint8_t *)cmd->u.copy.dst->host_ptr +
			       cmd->u.copy.dst_offset + start,
		       (const uint8_t *)cmd->u.copy.src->host_ptr +
			       cmd->u.copy.src_offset + start,
		       len);
		break;
	case ACCEL_CMD_FILL:
		/* start is a multiple of XFER_CHUNK, so of the pattern size. */
		fill_pattern((uint8_t *)cmd->u.fill.buf->host_ptr +
				     cmd->u.fill.offset + start,
			     len, cmd->u.fill.pattern,
			     cmd->u.fill.pattern_size);
		break;
	default:
		break;
	}
}

static int exec_begin(struct cpu_job *job, struct cpu_scratch *s)
{
	struct cpu_exec_job *ej = to_exec_job(job);

	if (!atomic_load_explicit(&ej->started, memory_order_relaxed) &&
	    !atomic_exchange_explicit(&ej->started, true, memory_order_relaxed))
		accel_cmd_started(ej->cmd);
	if (ej->cmd->type == ACCEL_CMD_LAUNCH)
		return launch_prepare(&ej->cmd->u.launch, s);
	return 0;
}

static void exec_run(struct cpu_job *job, struct cpu_scratch *s, uint64_t b,
		     uint64_t e)
{
	struct accel_cmd *cmd = to_exec_job(job)->cmd;

	if (cmd->type == ACCEL_CMD_LAUNCH)
		launch_run(&cmd->u.launch, s, b, e);
	else
		xfer_run(cmd, b, e);
}

static void exec_done(struct cpu_job *job, int status)
{
	struct cpu_exec_job *ej = to_exec_job(job);
	struct accel_cmd *cmd = ej->cmd;

	free(ej);
	/* Frees @cmd and may drop the last context reference. */
	accel_cmd_complete(cmd, status);
}

static const struct cpu_job_ops exec_ops = {
	.begin = exec_begin,
	.run = exec_run,
	.done = exec_done,
};

int cpu_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct cpu_exec_job *ej;
	struct cpu_pool *pool;
	uint64_t n_items, chunk = 1;
	int r;

	switch (cmd->type) {
	case ACCEL_CMD_MARKER:
		/* Nothing to run (the core normally does this itself). */
		accel_cmd_complete(cmd, 0);
		return 0;
	case ACCEL_CMD_LAUNCH:
		if (cmd->u.launch.kernel_flags & ACCEL_KERNEL_HAS_BARRIERS) {
			/* Needs fibers, which this device does not have yet. */
			log_dbg(queue->dev->ctx,
				"kernels with barriers are not supported yet\n");
			return -EOPNOTSUPP;
		}
		n_items = cmd->u.launch.total_groups;
		break;
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_READ:
	case ACCEL_CMD_COPY:
	case ACCEL_CMD_FILL:
		n_items = xfer_size(cmd) / XFER_CHUNK +
			  (xfer_size(cmd) % XFER_CHUNK != 0);
		break;
	default:
		return -EINVAL;
	}
	if (n_items == 0) {
		accel_cmd_complete(cmd, 0);
		return 0;
	}

	r = cpu_device_get_pool(queue->dev, &pool);
	if (r < 0)
		return r;
	if (cmd->type == ACCEL_CMD_LAUNCH)
		chunk = MAX(n_items / ((uint64_t)cpu_pool_get_n_threads(pool) *
				       CLAIMS_PER_THREAD),
			    1);

	ej = malloc(sizeof(*ej));
	if (!ej)
		return -ENOMEM;
	ej->job.ops = &exec_ops;
	ej->job.n_items = n_items;
	ej->job.chunk = chunk;
	ej->cmd = cmd;
	atomic_init(&ej->started, false);
	cpu_pool_submit(pool, &ej->job);
	return 0;
}
