/* SPDX-License-Identifier: MIT */
/*
 * The CPU reference device: what its files share. The pool (cpu-pool.c)
 * knows nothing of commands; execution (cpu-exec.c, chains in
 * cpu-chain.c) turns commands into pool jobs.
 */
#ifndef LIBACCEL_CPU_PRIVATE_H
#define LIBACCEL_CPU_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu-program.h"

struct accel_buffer;
struct accel_cmd;
struct accel_device;
struct accel_kernel_info;
struct accel_launch;
struct accel_queue;
struct cpu_compiler;
struct accelc_printf_buffer;

/* ---- thread pool (cpu-pool.c) ---- */

/* Default time an idle worker spins before it sleeps. */
#define CPU_SPIN_NS_DEFAULT 30000u
/*
 * Stack of each worker thread, set rather than inherited from
 * RLIMIT_STACK so that what fits is known. A launch needing more than
 * fits beside CPU_STACK_RESERVE (the runtime's own frames) and the
 * thread's TLS (cpu_pool_get_stack_overhead()) runs its work-groups on a
 * thread with a stack of their size (cpu-exec.c), up to the device's
 * ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE.
 */
#define CPU_WORKER_STACK (8ull << 20)
#define CPU_STACK_RESERVE (128ull << 10)

/* Streaming threshold when the cache size is unknown. */
#define CPU_STREAMING_MIN_DEFAULT (64ull << 20)
/* ACCEL_BUILD_REPORT_MS: a build this slow logs its steps at info */
#define CPU_BUILD_REPORT_MS_DEFAULT 1000

struct cpu_job;

/*
 * Per-worker scratch, owned by one worker thread and filled by the job
 * ops (cpu-exec.c); the pool frees it when the worker exits.
 */
struct cpu_scratch {
	struct cpu_job *job;  /* what the worker runs (accel_wg_ctx.fail) */
	void *local_mem;      /* 128-aligned work-group local memory */
	uint64_t local_size;
	void **args;          /* this worker's copy of a launch's args */
	uint32_t args_cap;
	void **local_ptrs;    /* what local-memory argument slots point at */
	uint32_t local_ptrs_cap;
};

static inline void cpu_scratch_fini(struct cpu_scratch *s)
{
	free(s->local_mem);
	free(s->args);
	free(s->local_ptrs);
}


struct cpu_job_ops {
	/*
	 * A worker is about to run its first piece of @job. A negative errno
	 * fails the job; the worker then skips the pieces it claims.
	 */
	int (*begin)(struct cpu_job *job, struct cpu_scratch *s);
	/* Run pieces [begin, end). */
	void (*run)(struct cpu_job *job, struct cpu_scratch *s, uint64_t begin,
		    uint64_t end);
	/*
	 * Every piece has run and no worker touches @job any more; called
	 * once, with no pool lock held. Owns @job (frees it). May destroy the
	 * pool, even from one of its own workers.
	 */
	void (*done)(struct cpu_job *job, int status);
};

/*
 * A unit of work split into n_items pieces, claimed chunk at a time. Set
 * ops, n_items (> 0) and chunk (> 0); cpu_pool_submit() does the rest.
 */
struct cpu_job {
	const struct cpu_job_ops *ops;
	uint64_t n_items;
	uint64_t chunk;

	/* Private to the pool. */
	struct cpu_job *next;         /* FIFO link, under the pool lock */
	bool queued;                  /* in the FIFO, under the pool lock */
	uint32_t want;                /* workers worth waking */
	atomic_bool need_wake;        /* helpers not woken yet */
	_Atomic uint64_t next_item;   /* claim counter */
	atomic_int refs;              /* FIFO + workers holding it */
	atomic_int status;            /* first failure */
};

struct cpu_pool;

/* Fail @job with @status (the first failure counts) from a piece. */
void cpu_job_fail(struct cpu_job *job, int status);

/*
 * Start @n_threads workers that spin @spin_ns before sleeping.
 * Returns 0, -EINVAL, -ENOMEM or -EAGAIN (threads).
 */
int cpu_pool_new(unsigned n_threads, uint64_t spin_ns, struct cpu_pool **ret);

/*
 * Stop and free the pool; no job may be pending. Safe to call from one of
 * the pool's own workers (that one is detached and frees the pool when
 * it leaves its loop).
 */
void cpu_pool_destroy(struct cpu_pool *pool);

/*
 * Queue @job (FIFO). Never blocks; no system call when a worker spins.
 * The caller keeps the pool alive during the call (in libaccel, whoever
 * reaches execute holds a reference that leads to the context), even if
 * the job completes before this returns.
 */
void cpu_pool_submit(struct cpu_pool *pool, struct cpu_job *job);

/*
 * From a done() running on one of @pool's workers: that worker runs @job,
 * a job of one piece, as soon as done() returns, without the FIFO, the
 * pool lock or a wake-up (a chain's next small launch). False when
 * called elsewhere, for a job of more pieces, or after a run of such
 * continuations (so that FIFO jobs get their turn): then submit it.
 */
bool cpu_pool_continue(struct cpu_pool *pool, struct cpu_job *job);

unsigned cpu_pool_get_n_threads(const struct cpu_pool *pool);
/*
 * Bytes of a thread's stack that are not its own: the static TLS block
 * and thread descriptor glibc keeps at its top. A thread made with a
 * stack of N bytes has N minus this for its frames.
 */
uint64_t cpu_pool_get_stack_overhead(const struct cpu_pool *pool);

/* ---- device (cpu-device.c) ---- */

struct cpu_device {
	/* The pool is started on first use: listing devices makes no threads. */
	pthread_mutex_t lock;
	_Atomic(struct cpu_pool *) pool;
	unsigned n_threads;
	uint64_t spin_ns;
	/* launches binding this many bytes of buffers run streaming variants */
	uint64_t streaming_min;
	/* builds taking this long log where the time went (cpu-compiler.c) */
	uint64_t build_report_ns;
	/* The compiler module, loaded on the first build (cpu-compiler.c). */
	_Atomic(struct cpu_compiler *) compiler;
};

/* Launches binding at least this many bytes of buffers stream. */
uint64_t cpu_streaming_min(const struct accel_device *dev);

/* The pool of @dev, started if needed. */
int cpu_device_get_pool(struct accel_device *dev, struct cpu_pool **ret);

/* ---- buffers (cpu-buffer.c) ---- */

/* Bytes mapped (and held by the memfd) for a @size-byte buffer: whole pages. */
int cpu_buffer_map_length(uint64_t size, size_t *ret);
int cpu_buffer_alloc(struct accel_buffer *buf);
int cpu_buffer_wrap_user_ptr(struct accel_buffer *buf);
void cpu_buffer_free(struct accel_buffer *buf);

/* ---- buffers as dma-bufs (cpu-dmabuf.c) ---- */

/* ACCEL_BUFFER_DMA_HEAP: @len bytes from the system heap, mapped. */
int cpu_buffer_alloc_heap(struct accel_buffer *buf, size_t len);
int cpu_buffer_export_dmabuf(struct accel_buffer *buf, uint64_t offset,
			     uint64_t size, int *ret_fd);
int cpu_buffer_import_dmabuf(struct accel_buffer *buf);

/* ---- execution (cpu-exec.c) ---- */

/* A dma-buf the command touches and how (DMA_BUF_IOCTL_SYNC flags). */
struct cpu_sync {
	int fd;
	bool read, write;
};

/* dma-bufs a command can note without an allocation. */
#define INLINE_SYNCS 4

/*
 * A command's pool jobs. It lives in the command's backend scratch
 * (accel_cmd_priv()), so running a command allocates nothing.
 */
struct cpu_exec_job {
	struct cpu_job job;       /* the command's pieces */
	/*
	 * Before them, when the command touches dma-bufs: one piece that
	 * starts CPU access (the ioctl may wait, so it runs on a worker).
	 */
	struct cpu_job sync_job;
	struct cpu_pool *pool;
	struct accel_cmd *cmd;
	struct cpu_launch launch; /* launches: set by cpu_launch_prepare() */
	struct accelc_printf_buffer *printf_buf; /* kernels that print */
	atomic_bool started;
	bool streaming;           /* runs launch.streaming_fn */
	bool own_stack;           /* work-groups run on a larger stack */
	uint32_t n_syncs;
	struct cpu_sync *syncs;   /* one per distinct dma-buf */
	struct cpu_sync inline_syncs[INLINE_SYNCS];
};

int cpu_execute(struct accel_queue *queue, struct accel_cmd *cmd);

/* What a chain's steps share with launches (cpu-chain.c): */
/* This worker's copy of @l's arguments, with its own local memory. */
int cpu_scratch_prepare(const struct accel_launch *l, struct cpu_scratch *s);
/* Work-groups [b, e) of the launch of ej->cmd, a command of @dev. */
void cpu_launch_exec(struct cpu_exec_job *ej, struct accel_device *dev,
		     struct cpu_scratch *s, uint64_t b, uint64_t e);
/* Would @cmd write through a read-only mapping? */
bool cpu_cmd_writes_readonly(const struct accel_cmd *cmd);
/* Work-groups per claim for a launch of @n_items groups. */
uint64_t cpu_launch_chunk(const struct cpu_pool *pool, uint64_t n_items);
/* The stack a thread needs to run @l's work-groups. */
uint64_t cpu_launch_thread_stack(const struct cpu_launch *l,
				 const struct cpu_pool *pool);

/* ---- chains (cpu-chain.c) ---- */

/*
 * An ACCEL_CMD_CHAIN command's scratch: ej.cmd is the running step's
 * template, shared with other replays and read only; what changes per
 * run is here.
 */
struct cpu_chain_job {
	struct cpu_exec_job ej;    /* first: also a command's scratch */
	struct accel_cmd *chain;   /* the ACCEL_CMD_CHAIN command */
	uint32_t step;             /* the one running */
};

/* Run an ACCEL_CMD_CHAIN command's steps as one pool job. */
int cpu_chain_execute(struct accel_queue *queue, struct accel_cmd *cmd);

/* ---- built-in kernels (cpu-builtins.c) ---- */

/*
 * cpu-target.c: what compiled code targets, "host (<tier>)" or the
 * value of ACCEL_CPU_TARGET (ACCEL_DEVICE_STRING_CODE_TARGET).
 */
void cpu_code_target(char *buf, size_t size);
/*
 * The code tier (cpu-arch.h) code runs at: the host's, or lower if
 * ACCEL_CPU_TARGET narrows it.
 */
unsigned cpu_code_level(void);

int cpu_get_built_in_kernels(struct accel_device *dev,
			     const struct accel_kernel_info **ret,
			     uint32_t *n);

#endif /* LIBACCEL_CPU_PRIVATE_H */
