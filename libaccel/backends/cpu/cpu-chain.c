/* SPDX-License-Identifier: MIT */
/*
 * Chains (ACCEL_CMD_CHAIN) on the CPU device: a recorded list's launches
 * back to back. One pool job runs them all: when the last piece of step i
 * has run, done() sets the job up for step i + 1 and queues it again, on
 * the worker that finished step i, with no command, fence, queue lock or
 * check between them (struct cpu_chain_job). Each step's work-groups run
 * as a launch's do (cpu-exec.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-printf.h"

/*
 * A chain's launch of up to this many work-items runs as one piece, on
 * the worker that ran the launch before it: waking and coordinating
 * another worker costs more than such a launch.
 */
#define CHAIN_ONE_PIECE_ITEMS 1024u

static struct cpu_chain_job *to_chain_job(struct cpu_job *job)
{
	return (struct cpu_chain_job *)((char *)job -
					offsetof(struct cpu_chain_job, ej.job));
}

/*
 * Set cj up for the first step from cj->step that has work-groups.
 * @return 1 when one is ready, 0 when none is left, or the step's error.
 */
static int chain_setup(struct cpu_chain_job *cj)
{
	struct accel_cmd *cmd = cj->chain;
	const struct accel_chain *c = cmd->u.chain.chain;
	struct accel_device *dev = cmd->queue->dev;
	struct cpu_exec_job *ej = &cj->ej;
	int r;

	for (; cj->step < cmd->u.chain.end; cj->step++) {
		struct accel_cmd *t = c->steps[cj->step]->cmd;
		const struct accel_launch *l = &t->u.launch;
		const struct cpu_exec_job *tj = accel_cmd_priv(t);

		/* as cpu_execute() refuses such launches */
		if (l->kernel->def->flags & ACCEL_KERNEL_HAS_BARRIERS)
			return -EOPNOTSUPP;
		if (l->total_groups == 0)
			continue;
		if (cpu_cmd_writes_readonly(t))
			return -EACCES;
		ej->cmd = t;
		ej->launch = tj->launch;
		r = accel_printf_buffer_new(dev, ej->launch.kernel_flags,
					    &ej->printf_buf);
		if (r < 0)
			return r;
		ej->streaming = ej->launch.streaming_fn &&
				ej->launch.buffer_bytes >=
					cpu_streaming_min(dev);
		ej->own_stack = cpu_launch_thread_stack(&ej->launch,
							ej->pool) >
				CPU_WORKER_STACK;
		ej->job.n_items = l->total_groups;
		ej->job.chunk = l->global_size[0] * l->global_size[1] *
						l->global_size[2] <=
					CHAIN_ONE_PIECE_ITEMS ?
					l->total_groups :
					cpu_launch_chunk(ej->pool,
							 l->total_groups);
		return 1;
	}
	return 0;
}

static int chain_begin(struct cpu_job *job, struct cpu_scratch *s)
{
	struct cpu_chain_job *cj = to_chain_job(job);

	/* once per run of the chain: its fence's start */
	if (!atomic_load_explicit(&cj->ej.started, memory_order_relaxed) &&
	    !atomic_exchange_explicit(&cj->ej.started, true,
				      memory_order_relaxed))
		accel_cmd_started(cj->chain);
	s->job = job;
	return cpu_scratch_prepare(&cj->ej.cmd->u.launch, s);
}

static void chain_run(struct cpu_job *job, struct cpu_scratch *s, uint64_t b,
		      uint64_t e)
{
	struct cpu_chain_job *cj = to_chain_job(job);

	cpu_launch_exec(&cj->ej, cj->chain->queue->dev, s, b, e);
}

static const struct cpu_job_ops chain_ops;

/* The chain's end: the first failure stops it. */
static void chain_finish(struct cpu_chain_job *cj, int status)
{
	struct accel_cmd *cmd = cj->chain;

	if (status < 0)
		cmd->u.chain.n_failed = cmd->u.chain.end - cj->step;
	/* Frees @cj and may drop the last context reference. */
	accel_cmd_complete(cmd, status);
}

static void chain_done(struct cpu_job *job, int status)
{
	struct cpu_chain_job *cj = to_chain_job(job);
	struct cpu_exec_job *ej = &cj->ej;
	int r;

	accel_printf_buffer_flush_launch(cj->chain->queue->dev->ctx,
					 ej->cmd->u.launch.kernel,
					 ej->printf_buf, status == 0);
	ej->printf_buf = NULL;
	if (status == 0) {
		cj->step++;
		r = chain_setup(cj);
		if (r > 0) {
			/*
			 * No worker touches the job any more: it goes round
			 * again, on this worker if it is one piece. The pool
			 * is alive (the command is not complete: its queue
			 * holds the device).
			 */
			if (!cpu_pool_continue(ej->pool, &ej->job))
				cpu_pool_submit(ej->pool, &ej->job);
			return;
		}
		status = r;
	}
	chain_finish(cj, status);
}

static const struct cpu_job_ops chain_ops = {
	.begin = chain_begin,
	.run = chain_run,
	.done = chain_done,
};

int cpu_chain_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct cpu_chain_job *cj = accel_cmd_priv(cmd);
	struct cpu_pool *pool;
	int r;

	r = cpu_device_get_pool(queue->dev, &pool);
	if (r < 0)
		return r;
	memset(cj, 0, sizeof(*cj));
	cj->chain = cmd;
	cj->step = cmd->u.chain.begin;
	cj->ej.pool = pool;
	cj->ej.syncs = cj->ej.inline_syncs;  /* none: no dma-bufs */
	cj->ej.job.ops = &chain_ops;
	atomic_init(&cj->ej.started, false);
	r = chain_setup(cj);
	if (r > 0) {
		cpu_pool_submit(pool, &cj->ej.job);
		return 0;
	}
	/* nothing to run, or the first step's error */
	chain_finish(cj, r);
	return 0;
}
