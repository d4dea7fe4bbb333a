/* SPDX-License-Identifier: MIT */
/*
 * Execution on the CPU device: each command becomes a pool job. A launch
 * is split into work-groups, a transfer into ~256 KiB chunks, so every
 * worker helps with large commands. Commands touching dma-bufs bracket
 * the whole of their CPU access with DMA_BUF_IOCTL_SYNC start and end.
 * Chains go to cpu-chain.c, whose steps run on the launch code here.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu-arch.h"
#include "cpu-private.h"
#include "cpu-printf.h"
#include "cpu-program.h"
#include "platform/thread.h"

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

static struct cpu_exec_job *to_exec_job(struct cpu_job *job)
{
	return (struct cpu_exec_job *)((char *)job -
				       offsetof(struct cpu_exec_job, job));
}

static struct cpu_exec_job *sync_to_exec_job(struct cpu_job *job)
{
	return (struct cpu_exec_job *)((char *)job -
				       offsetof(struct cpu_exec_job, sync_job));
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
int cpu_scratch_prepare(const struct accel_launch *l, struct cpu_scratch *s)
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

/* accel_wg_ctx.fail: the launch fails once its work-groups have run. */
static void wg_fail(const struct accel_wg_ctx *ctx, int error)
{
	struct cpu_scratch *s = ctx->runtime;

	cpu_job_fail(s->job, error < 0 ? error : -EIO);
}

/* Run work-groups [b, e) (linear ids, x fastest). */
static void launch_run(const struct accel_launch *l, accel_wg_fn fn,
		       void *printf_buf, struct cpu_scratch *s, uint64_t b,
		       uint64_t e)
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
	wg.printf_buffer = printf_buf;
	wg.local_mem_size = l->local_mem_size;
	wg.fail = wg_fail;

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
		fn(s->args, &wg);
		if (++g[0] == l->num_groups[0]) {
			g[0] = 0;
			if (++g[1] == l->num_groups[1]) {
				g[1] = 0;
				g[2]++;
			}
		}
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
		accel_fill_pattern((uint8_t *)cmd->u.fill.buf->host_ptr +
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
	s->job = job;
	if (ej->cmd->type == ACCEL_CMD_LAUNCH)
		return cpu_scratch_prepare(&ej->cmd->u.launch, s);
	return 0;
}

static void launch_piece(struct cpu_exec_job *ej, struct cpu_scratch *s,
			 uint64_t b, uint64_t e)
{
	const struct accel_launch *l = &ej->cmd->u.launch;

	if (ej->streaming) {
		launch_run(l, ej->launch.streaming_fn, ej->printf_buf, s, b, e);
		/* non-temporal stores are weakly ordered: done before we
		 * report these work-groups finished */
		cpu_arch_streaming_fence();
	} else {
		launch_run(l, ej->launch.fn, ej->printf_buf, s, b, e);
	}
}

/*
 * -cl-denorms-are-zero: the kernel runs with denormal inputs and results
 * of float and double flushed to zero (cpu-arch-<arch>.c: MXCSR's DAZ
 * and FTZ, FPCR.FZ). Set per piece, and the worker's own mode put back
 * after it, as the same worker runs other kernels and transfers next.
 * Fibers (compiler-stub/runtime/fiber.c) start with the mode they are
 * made in.
 */
static void launch_piece_fp(struct cpu_exec_job *ej, struct cpu_scratch *s,
			    uint64_t b, uint64_t e)
{
	if (ej->launch.kernel_flags & CPU_KERNEL_DENORMS_ZERO) {
		uint64_t fp_mode = cpu_arch_flush_denormals();

		launch_piece(ej, s, b, e);
		cpu_arch_restore_fp_mode(fp_mode);
	} else {
		launch_piece(ej, s, b, e);
	}
}

/*
 * The stack a thread needs to run @l's work-groups: theirs, the runtime's
 * frames, and what glibc keeps at the top of every thread's stack.
 */
uint64_t cpu_launch_thread_stack(const struct cpu_launch *l,
				 const struct cpu_pool *pool)
{
	return l->stack_size + CPU_STACK_RESERVE +
	       cpu_pool_get_stack_overhead(pool);
}

struct own_stack_call {
	struct cpu_exec_job *ej;
	struct cpu_scratch *s;
	uint64_t b, e;
};

static void *own_stack_main(void *p)
{
	struct own_stack_call *c = p;

	launch_piece_fp(c->ej, c->s, c->b, c->e);
	return NULL;
}

/*
 * Work-groups whose stack would not fit the worker's run on a thread of
 * their own whose stack fits (glibc keeps recent thread stacks cached).
 * The worker waits for it: the pool's accounting is unchanged.
 */
static int launch_piece_own_stack(struct cpu_exec_job *ej,
				  struct cpu_scratch *s, uint64_t b,
				  uint64_t e)
{
	struct own_stack_call c = { .ej = ej, .s = s, .b = b, .e = e };
	uint64_t size = cpu_launch_thread_stack(&ej->launch, ej->pool);
	struct accel_thread t;
	pthread_attr_t attr;
	int r;

	if (size > SIZE_MAX)
		return -E2BIG;
	r = pthread_attr_init(&attr);
	if (r)
		return -r;
	r = -pthread_attr_setstacksize(&attr, (size_t)size);
	if (r == 0)
		r = accel_thread_start(&t, "accel-cpu-stack", &attr,
				       own_stack_main, &c);
	pthread_attr_destroy(&attr);
	if (r < 0)
		return r;
	/* another thread's: always a join */
	accel_thread_join_or_detach(&t);
	return 0;
}

/* Work-groups [b, e) of the launch of ej->cmd, a command of @dev. */
void cpu_launch_exec(struct cpu_exec_job *ej, struct accel_device *dev,
		     struct cpu_scratch *s, uint64_t b, uint64_t e)
{
	int r;

	if (!ej->own_stack) {
		launch_piece_fp(ej, s, b, e);
		return;
	}
	r = launch_piece_own_stack(ej, s, b, e);
	if (r < 0) {
		log_err(dev->ctx,
			"kernel %s: no thread with a %llu-byte stack "
			"for its work-groups: %s\n",
			ej->cmd->u.launch.kernel->def->name,
			(unsigned long long)cpu_launch_thread_stack(
				&ej->launch, ej->pool),
			strerror(-r));
		cpu_job_fail(&ej->job, r == -EAGAIN ? -ENOMEM : r);
	}
}

static void exec_run(struct cpu_job *job, struct cpu_scratch *s, uint64_t b,
		     uint64_t e)
{
	struct cpu_exec_job *ej = to_exec_job(job);
	struct accel_cmd *cmd = ej->cmd;

	if (cmd->type != ACCEL_CMD_LAUNCH)
		xfer_run(cmd, b, e);
	else
		cpu_launch_exec(ej, cmd->queue->dev, s, b, e);
}

/* End CPU access to the first @n dma-bufs: 0 or the first failure. */
static int syncs_end(struct cpu_exec_job *ej, uint32_t n)
{
	int status = 0;
	uint32_t i;

	/* Every one, even after a failure: each start needs its end. */
	for (i = 0; i < n; i++) {
		const struct cpu_sync *sy = &ej->syncs[i];
		int r = accel_dmabuf_sync(sy->fd, false, sy->read, sy->write);

		if (r < 0 && status == 0)
			status = r;
	}
	return status;
}

static void exec_job_fini(struct cpu_exec_job *ej)
{
	if (ej->syncs != ej->inline_syncs)
		free(ej->syncs);
}

static void exec_done(struct cpu_job *job, int status)
{
	struct cpu_exec_job *ej = to_exec_job(job);
	struct accel_cmd *cmd = ej->cmd;
	int r;

	/* After the last piece, before anyone learns the command is done. */
	r = syncs_end(ej, ej->n_syncs);
	if (status == 0)
		status = r;
	/* printf output, before the fence tells anyone the launch is done */
	accel_printf_buffer_flush(cmd, ej->printf_buf, status == 0);
	exec_job_fini(ej);
	/* Frees @cmd (and @ej) and may drop the last context reference. */
	accel_cmd_complete(cmd, status);
}

static const struct cpu_job_ops exec_ops = {
	.begin = exec_begin,
	.run = exec_run,
	.done = exec_done,
};

/* The one piece of sync_job: start CPU access to every dma-buf. */
static int sync_begin(struct cpu_job *job, struct cpu_scratch *s _unused_)
{
	struct cpu_exec_job *ej = sync_to_exec_job(job);
	uint32_t i;
	int r;

	for (i = 0; i < ej->n_syncs; i++) {
		const struct cpu_sync *sy = &ej->syncs[i];

		r = accel_dmabuf_sync(sy->fd, true, sy->read, sy->write);
		if (r < 0) {
			log_dbg(ej->cmd->queue->dev->ctx,
				"DMA_BUF_IOCTL_SYNC start: %s\n", strerror(-r));
			/* Close what was opened; the first error wins. */
			syncs_end(ej, i);
			return r;
		}
	}
	return 0;
}

static void sync_run(struct cpu_job *job _unused_,
		     struct cpu_scratch *s _unused_, uint64_t b _unused_,
		     uint64_t e _unused_)
{
}

static void sync_done(struct cpu_job *job, int status)
{
	struct cpu_exec_job *ej = sync_to_exec_job(job);
	struct accel_cmd *cmd = ej->cmd;

	if (status < 0) {
		accel_printf_buffer_flush(cmd, ej->printf_buf, false);
		exec_job_fini(ej);
		accel_cmd_complete(cmd, status);
		return;
	}
	/*
	 * The pool is alive: the command is not complete, so its queue holds
	 * the device. Ordering among commands is the core's (fences), not
	 * the FIFO's, so going to the back costs nothing but a little time.
	 */
	cpu_pool_submit(ej->pool, &ej->job);
}

static const struct cpu_job_ops sync_ops = {
	.begin = sync_begin,
	.run = sync_run,
	.done = sync_done,
};

/*
 * Note an access to @buf in ej->syncs (merging accesses to one dma-buf).
 * False if that needs more room than @cap.
 */
static bool add_sync(struct cpu_exec_job *ej, uint32_t cap,
		     struct accel_buffer *buf, bool read, bool write)
{
	struct cpu_sync *syncs = ej->syncs;
	uint32_t i, n = ej->n_syncs;
	int fd;

	if (!buf)
		return true;
	/* Read under the lock: the first export publishes it while we run. */
	fd = accel_buffer_dmabuf_fd(accel_buffer_root(buf));
	if (fd < 0)
		return true;
	for (i = 0; i < n; i++) {
		if (syncs[i].fd == fd) {
			syncs[i].read |= read;
			syncs[i].write |= write;
			return true;
		}
	}
	if (n == cap)
		return false;
	syncs[n].fd = fd;
	syncs[n].read = read;
	syncs[n].write = write;
	ej->n_syncs = n + 1;
	return true;
}

/* Buffers a command may touch: the most syncs it can need. */
static uint32_t max_syncs(const struct accel_cmd *cmd)
{
	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		return cmd->u.launch.n_buffers;
	case ACCEL_CMD_COPY:
		return 2;
	default:
		return 1;
	}
}

/* Note the dma-bufs the command touches, and how; false: out of room. */
static bool collect_syncs_in(struct cpu_exec_job *ej, uint32_t cap)
{
	struct accel_cmd *cmd = ej->cmd;
	bool ok = true;
	uint32_t i;

	ej->n_syncs = 0;
	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		for (i = 0; ok && i < cmd->u.launch.n_buffers; i++) {
			struct accel_buffer *b = cmd->u.launch.buffers[i];

			ok = add_sync(ej, cap, b, true,
				      b && !(b->flags & ACCEL_BUFFER_READ_ONLY));
		}
		return ok;
	case ACCEL_CMD_READ:
		return add_sync(ej, cap, cmd->u.rw.buf, true, false);
	case ACCEL_CMD_WRITE:
		return add_sync(ej, cap, cmd->u.rw.buf, false, true);
	case ACCEL_CMD_COPY:
		return add_sync(ej, cap, cmd->u.copy.src, true, false) &&
		       add_sync(ej, cap, cmd->u.copy.dst, false, true);
	case ACCEL_CMD_FILL:
		return add_sync(ej, cap, cmd->u.fill.buf, false, true);
	default:
		return true;
	}
}

/*
 * Which dma-bufs the command touches: in the job itself, or on the heap
 * for a launch with more of them than that holds.
 */
static int collect_syncs(struct cpu_exec_job *ej)
{
	ej->syncs = ej->inline_syncs;
	if (collect_syncs_in(ej, INLINE_SYNCS))
		return 0;
	ej->syncs = calloc(max_syncs(ej->cmd), sizeof(*ej->syncs));
	if (!ej->syncs) {
		ej->syncs = ej->inline_syncs;
		return -ENOMEM;
	}
	collect_syncs_in(ej, max_syncs(ej->cmd));
	return 0;
}

static bool readonly_root(struct accel_buffer *buf)
{
	return buf && accel_buffer_root(buf)->readonly_mapping;
}

/*
 * Would the command write through a read-only mapping? The core refuses
 * such commands; this keeps a slip from becoming a SIGSEGV on a worker.
 */
bool cpu_cmd_writes_readonly(const struct accel_cmd *cmd)
{
	uint32_t i;

	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		for (i = 0; i < cmd->u.launch.n_buffers; i++) {
			struct accel_buffer *b = cmd->u.launch.buffers[i];

			if (readonly_root(b) &&
			    !(b->flags & ACCEL_BUFFER_READ_ONLY))
				return true;
		}
		return false;
	case ACCEL_CMD_WRITE:
		return readonly_root(cmd->u.rw.buf);
	case ACCEL_CMD_COPY:
		return readonly_root(cmd->u.copy.dst);
	case ACCEL_CMD_FILL:
		return readonly_root(cmd->u.fill.buf);
	default:
		return false;
	}
}

/* Work-groups per claim for a launch of @n_items groups. */
uint64_t cpu_launch_chunk(const struct cpu_pool *pool, uint64_t n_items)
{
	return MAX(n_items / ((uint64_t)cpu_pool_get_n_threads(pool) *
			      CLAIMS_PER_THREAD),
		   1);
}

int cpu_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct accelc_printf_buffer *pbuf = NULL;
	struct cpu_exec_job *ej;
	struct cpu_pool *pool;
	uint64_t n_items, chunk = 1;
	int r;

	switch (cmd->type) {
	case ACCEL_CMD_MARKER:
		/* Nothing to run (the core normally does this itself). */
		accel_cmd_complete(cmd, 0);
		return 0;
	case ACCEL_CMD_CHAIN:
		return cpu_chain_execute(queue, cmd);
	case ACCEL_CMD_LAUNCH:
		if (cmd->u.launch.kernel->def->flags &
		    ACCEL_KERNEL_HAS_BARRIERS) {
			/*
			 * Native kernels needing the runtime's barrier hook
			 * are refused at program creation (program.c); this
			 * device has no such hook, compiled kernels need none.
			 */
			log_dbg(queue->dev->ctx, "no barrier hook for native "
				"kernels on this device\n");
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
	if (cpu_cmd_writes_readonly(cmd))
		return -EACCES;

	r = cpu_device_get_pool(queue->dev, &pool);
	if (r < 0)
		return r;
	/* launches: ej->launch was set by cpu_launch_prepare() */
	ej = accel_cmd_priv(cmd);
	if (cmd->type == ACCEL_CMD_LAUNCH)
		chunk = cpu_launch_chunk(pool, n_items);

	if (cmd->type == ACCEL_CMD_LAUNCH) {
		r = accel_printf_buffer_new(queue->dev,
					    ej->launch.kernel_flags, &pbuf);
		if (r < 0)
			return r;
	}
	ej->printf_buf = pbuf;
	ej->streaming = cmd->type == ACCEL_CMD_LAUNCH &&
			ej->launch.streaming_fn &&
			ej->launch.buffer_bytes >= cpu_streaming_min(queue->dev);
	ej->own_stack = cmd->type == ACCEL_CMD_LAUNCH &&
			cpu_launch_thread_stack(&ej->launch, pool) >
				CPU_WORKER_STACK;
	ej->job.ops = &exec_ops;
	ej->job.n_items = n_items;
	ej->job.chunk = chunk;
	ej->pool = pool;
	ej->cmd = cmd;
	atomic_init(&ej->started, false);
	r = collect_syncs(ej);
	if (r < 0) {
		accel_printf_buffer_flush(cmd, pbuf, false);
		return r;
	}
	if (ej->n_syncs) {
		ej->sync_job.ops = &sync_ops;
		ej->sync_job.n_items = 1;
		ej->sync_job.chunk = 1;
		cpu_pool_submit(pool, &ej->sync_job);
	} else {
		cpu_pool_submit(pool, &ej->job);
	}
	return 0;
}
