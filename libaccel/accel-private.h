/* SPDX-License-Identifier: MIT */
/*
 * Internal object layouts of libaccel's core, shared with the backends.
 */
#ifndef LIBACCEL_ACCEL_PRIVATE_H
#define LIBACCEL_ACCEL_PRIVATE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libaccel/libaccel.h>

#include "platform/macros.h"
#include "platform/platform.h"
#include "recycle.h"

struct accel_backend_ops;
struct accel_candidates;
struct accel_device;

/*
 * Objects every command touches keep what a submitting thread and a worker
 * both write apart from what they only read, a cache line each: a line
 * written on one CPU and read on another moves between them every time.
 * Such objects come from aligned_alloc().
 */
#define ACCEL_CACHE_LINE 64

/* ---- logging (log.c) ---- */

void accel_log(struct accel_context *ctx, int priority, const char *file,
	       int line, const char *fn, const char *format, ...)
	_printf_(6, 7);
void accel_logv(struct accel_context *ctx, int priority, const char *file,
		int line, const char *fn, const char *format, va_list args);

static inline bool accel_log_enabled(struct accel_context *ctx, int priority);

#define accel_log_cond(ctx, prio, ...)                                         \
	do {                                                                   \
		if (accel_log_enabled((ctx), (prio)))                           \
			accel_log((ctx), (prio), __FILE__, __LINE__, __func__,  \
				  __VA_ARGS__);                                 \
	} while (0)

#define log_err(ctx, ...) accel_log_cond(ctx, ACCEL_LOG_ERR, __VA_ARGS__)
#define log_warn(ctx, ...) accel_log_cond(ctx, ACCEL_LOG_WARNING, __VA_ARGS__)
#define log_info(ctx, ...) accel_log_cond(ctx, ACCEL_LOG_INFO, __VA_ARGS__)
#define log_dbg(ctx, ...) accel_log_cond(ctx, ACCEL_LOG_DEBUG, __VA_ARGS__)

/* Capability gaps a context explains once (accel_context.explained). */
enum accel_gap {
	ACCEL_GAP_DMABUF_EXPORT = 1u << 0,  /* no udmabuf, no dma-buf heap */
	ACCEL_GAP_FENCE_EXPORT = 1u << 1,   /* no device makes kernel fences */
	ACCEL_GAP_COMPILER = 1u << 2,       /* the compiler module is missing */
	ACCEL_GAP_DMABUF_SYNC_FILE = 1u << 3, /* no DMA_BUF_IOCTL_*_SYNC_FILE */
};

/*
 * Say why @gap stands in the way, at the error priority (the default, so
 * users see it without ACCEL_LOG), the first time it does in @ctx: a
 * failed call then explains itself once, not on every retry.
 */
#define log_gap(ctx, gap, ...)                                                 \
	do {                                                                   \
		if (!(atomic_fetch_or_explicit(&(ctx)->explained,              \
					       (unsigned)(gap),                \
					       memory_order_relaxed) &         \
		      (unsigned)(gap)))                                        \
			log_err(ctx, __VA_ARGS__);                             \
	} while (0)

/* ---- context (context.c) ---- */

struct accel_context {
	/* Taken and dropped by every fence (ACCEL_CACHE_LINE). */
	atomic_int refcount;

	_Alignas(ACCEL_CACHE_LINE) atomic_int log_priority;
	atomic_uint explained; /* enum accel_gap bits said already */

	pthread_mutex_t lock; /* guards everything below */
	accel_log_fn log_fn;
	void *log_data;
	struct accel_open_interface open_iface;
	void *open_data;
	/* The platform's view: open_iface and the log (set once, no lock). */
	struct accel_platform_env penv;
	void *user_data;
	accel_printf_fn printf_fn; /* NULL: stdout (printf-sink.c) */
	void *printf_data;

	pthread_mutex_t enum_lock; /* serialises enumeration and rescans */
	struct accel_poller *poller; /* sync_file poll thread, made on demand */
	atomic_bool enumerated;
	struct accel_device **devices;
	size_t n_devices;
	/*
	 * Unplugged devices, out of the list but alive until the context
	 * goes: objects made on them still point at them.
	 */
	struct accel_device **gone;
	size_t n_gone;
	/* Discovery state: candidates, hot-plug monitor (discovery.c). */
	struct accel_candidates *candidates;
	/* The usage page (stats.c), made with the first device. */
	struct accel_stats *stats;
	bool stats_failed;

	/*
	 * Freed fences kept for the next ones (fence.c), as the queues keep
	 * command records: ACCEL_FENCE_CACHE_MAX at most.
	 */
	struct accel_recycle fence_cache;
};

/*
 * Bounds of the fences a context and the command records a queue keep
 * (about 1 MiB of records in all: this many returned, as many more taken
 * but not yet used), so that a burst of commands does not pin its memory
 * until the queue or the context goes.
 */
#define ACCEL_FENCE_CACHE_MAX 512
#define ACCEL_CMD_CACHE_MAX 512

/* Free the fences @ctx keeps (it is going away). */
void accel_fence_cache_drain(struct accel_context *ctx);

static inline bool accel_log_enabled(struct accel_context *ctx, int priority)
{
	return ctx &&
	       priority <= atomic_load_explicit(&ctx->log_priority,
						memory_order_relaxed);
}

/*
 * Receive pending hot-plug events from @mon, bring the device list and the
 * candidates up to date, then run @fn for each event (hotplug.c). Returns
 * the number of events or a negative errno.
 */
struct accel_udev_monitor;
int accel_hotplug_dispatch(struct accel_context *ctx,
			   struct accel_udev_monitor *mon, accel_hotplug_fn fn,
			   void *data);

/* Open/close a device node through the context's open interface. */
int accel_context_open(struct accel_context *ctx, const char *path, int flags);
void accel_context_close(struct accel_context *ctx, int fd);

/* What the platform layer gets to open nodes and log for @ctx. */
static inline const struct accel_platform_env *
accel_context_env(struct accel_context *ctx)
{
	return &ctx->penv;
}

/* ---- candidates (discovery.c) ---- */

/*
 * Record a candidate @info during enumeration or a rescan (under the
 * context's enum_lock): @dev is the context's device made from it, or
 * NULL if no backend claimed it. Failure only loses the record, so it is
 * logged, not returned.
 */
void accel_candidate_add(struct accel_context *ctx,
			 const struct accel_udev_info *info,
			 struct accel_device *dev);

/* Forget every record before a rescan (under enum_lock). */
void accel_candidates_clear(struct accel_context *ctx);

/* Free the records, at context teardown. */
void accel_candidates_free(struct accel_candidates *list);

/* ---- usage page (stats.c, include/libaccel/accel-stats.h) ---- */

struct accel_stats;
struct accel_cmd;

/* Give @dev a slot, making the page first; failures only lose usage. */
void accel_stats_add_device(struct accel_context *ctx,
			    struct accel_device *dev);
void accel_stats_free(struct accel_stats *stats);
/* A command was queued (for good), started running, completed. */
void accel_stats_cmd_submitted(struct accel_cmd *cmd);
void accel_stats_cmd_started(struct accel_cmd *cmd);
void accel_stats_cmd_completed(struct accel_cmd *cmd, int status);
/* A root buffer came (@alive) or went. */
void accel_stats_buffer(struct accel_buffer *buf, bool alive);

/* ---- device (device.c) ---- */

struct accel_device {
	/*
	 * External references. The context owns the device object; every
	 * external device reference also holds a context reference, so the
	 * device lives while anyone can reach it (no ownership cycle).
	 */
	atomic_int refcount;
	struct accel_context *ctx;
	const struct accel_backend_ops *ops;
	void *backend_data;
	_Atomic(void *) user_data;

	uint64_t u64[ACCEL_DEVICE_U64_COUNT];
	char *strings[ACCEL_DEVICE_STRING_COUNT];
	/* Set once when hot-plug finds the device gone (hotplug.c). */
	atomic_bool removed;
	/* Its slot in the context's usage page, -1 if none (stats.c). */
	int stats_slot;
};

/* Free a device: at context teardown, or one never added to a context. */
void accel_device_destroy(struct accel_device *dev);

/* 0, or -ENODEV once the device was unplugged: new work is refused. */
static inline int accel_device_alive(struct accel_device *dev)
{
	return atomic_load_explicit(&dev->removed, memory_order_acquire) ?
		       -ENODEV :
		       0;
}

/* ---- buffer (buffer.c) ---- */

struct accel_buffer_map_rec {
	struct accel_buffer_map_rec *next;
	void *ptr;
	uint64_t offset; /* in the root buffer */
	uint64_t size;
	uint32_t flags;
};

struct accel_buffer {
	atomic_int refcount;
	struct accel_device *dev;     /* reference */
	struct accel_buffer *parent;  /* reference, sub-buffers only */
	uint64_t offset;              /* in the parent */
	uint64_t size;
	uint32_t flags;
	/* Host address of byte 0 (sub-buffers: parent's + offset), or NULL. */
	void *host_ptr;
	int memfd;                    /* -1 if not memfd-backed */
	/*
	 * Root buffers: the dma-buf this buffer is (imported, heap) or was
	 * exported as; owned, -1 if none. Guarded by lock once published.
	 */
	int dmabuf_fd;
	bool imported;                /* dmabuf_fd came from the caller */
	/* The host mapping is read-only: refuse commands that write. */
	bool readonly_mapping;
	bool user_ptr;
	char name[32];                /* DMA_BUF_SET_NAME, root buffers */
	void *backend_data;
	_Atomic(void *) user_data;

	pthread_mutex_t lock;         /* guards maps, dmabuf_fd, name, attached */
	struct accel_buffer_map_rec *maps;

	/*
	 * Attachments (buffer-attach.c): this buffer as another device of the
	 * context reaches it, made on first use, listed in attached (linked
	 * through attach_next) and freed with this buffer. An attachment has
	 * owner set: its references are the owner's (accel_buffer_ref/unref
	 * forward them), and it is never handed to the caller.
	 */
	struct accel_buffer *owner;
	struct accel_buffer *attached;
	struct accel_buffer *attach_next;
};

static inline struct accel_buffer *accel_buffer_root(struct accel_buffer *buf)
{
	return buf->parent ? buf->parent : buf;
}

/* The root buffer's dma-buf fd or -1 (read under its lock). */
int accel_buffer_dmabuf_fd(struct accel_buffer *root);

/* A buffer record of @dev, not yet backed by storage (buffer.c). */
int accel_buffer_create(struct accel_device *dev, uint64_t size,
			uint32_t flags, struct accel_buffer **ret);
/* Free a record of accel_buffer_create() (no storage, no reference). */
void accel_buffer_discard(struct accel_buffer *buf);

/*
 * @buf as @dev reaches it (buffer-attach.c): @buf itself on its own
 * device, else its attachment for @dev, made on first use. The result is
 * valid as long as @buf; references to it are references to @buf.
 * -EXDEV: @dev is of another context or cannot reach the memory. May
 * block (dma-buf export and import).
 */
int accel_buffer_on_device(struct accel_buffer *buf, struct accel_device *dev,
			   struct accel_buffer **ret);
/* Free @buf's attachments (its last reference is gone). */
void accel_buffer_detach_all(struct accel_buffer *buf);

/* ---- fence (fence.c) ---- */

/* fence->status while the fence is pending. */
#define ACCEL_FENCE_PENDING 1

/*
 * An internal waiter embedded in its owner (no allocation on the hot
 * path). fn runs once, on the signalling thread, with no lock held.
 */
struct accel_fence_waiter {
	struct accel_fence_waiter *next;
	void (*fn)(struct accel_fence_waiter *w, int status);
};

struct accel_fence {
	atomic_int refcount;
	/* ACCEL_FENCE_PENDING, 0 or a negative errno; also the futex word. */
	atomic_int status;
	atomic_int n_sleepers;        /* threads in futex wait */
	struct accel_context *ctx;    /* reference */
	bool user;                    /* signalled by accel_fence_signal() */
	bool profiling;
	_Atomic uint64_t times[4];    /* enum accel_fence_time; 0 = not yet */

	pthread_mutex_t lock;         /* guards waiters and eventfd */
	struct accel_fence_waiter *waiters;
	int eventfd;                  /* -1 until exported */
	/*
	 * The kernel fence this fence stands for (an imported sync_file, a
	 * driver job's out-fence), owned; -1 if none. Closed when the fence
	 * signals, so it is there exactly while the fence is pending.
	 * Guarded by lock too.
	 */
	int sync_file;
	struct accel_recycle_link cached; /* in the context's fence cache */
};

int accel_fence_create(struct accel_context *ctx, bool user, bool profiling,
		       struct accel_fence **ret);

/*
 * Signal a pending fence; runs waiters and callbacks on this thread.
 * Returns -EALREADY if it was already signalled.
 */
int accel_fence_do_signal(struct accel_fence *fence, int status);

/*
 * Add an internal waiter. Returns 0 if it will be called later; 1 if the
 * fence has already signalled (the waiter is NOT called and *ret_status
 * holds the final status, 0 or a negative errno).
 */
int accel_fence_add_waiter(struct accel_fence *fence,
			   struct accel_fence_waiter *w, int *ret_status);

void accel_fence_set_time(struct accel_fence *fence,
			  enum accel_fence_time which);

/*
 * Record @fd (a sync_file, taken over) as @fence's kernel fence: it must
 * signal when @fence does, with its error. Closed at once if @fence has
 * signalled already or has one.
 */
void accel_fence_set_sync_file(struct accel_fence *fence, int fd);
/*
 * A duplicate (O_CLOEXEC) of @fence's kernel fence: 0, -ENOENT if it has
 * none (not backed by one, or signalled), or -errno.
 */
int accel_fence_dup_sync_file(struct accel_fence *fence, int *ret_fd);
/* Whether @fence is pending with a kernel fence (a snapshot). */
bool accel_fence_has_sync_file(struct accel_fence *fence);

uint64_t accel_now_ns(void);

/* ---- program and kernel (program.c, kernel.c) ---- */

/* The flags a kernel description may carry (the rest are internal). */
#define ACCEL_KERNEL_PUBLIC_FLAGS                                              \
	(ACCEL_KERNEL_HAS_BARRIERS | ACCEL_KERNEL_GROUP_INVARIANT)

/*
 * Internal kernel flag: the kernel's stack need is not known (a native
 * kernel that gave no private_size, a built-in, a compiled kernel whose
 * compiler could not tell): private_size is a lower bound.
 */
#define ACCEL_KERNEL_DEF_STACK_UNKNOWN (1u << 29)

struct accel_kernel_def {
	char *name;
	/* the backend's (accel_kernel_info.handle) */
	void *handle;
	uint32_t flags;
	uint32_t n_args;
	struct accel_kernel_arg_desc *args; /* strings owned */
	uint64_t static_local_size;
	uint64_t reqd_wg_size[3];
	uint64_t wg_size_hint[3];
	char *vec_type_hint;                /* "" if none */
	/* stack of one work-group call, and more per work-item */
	uint64_t private_size;
	uint64_t private_per_item;
	uint32_t sub_group_size;            /* 0: none */
	uint32_t reqd_sub_group_size;       /* 0: none asked for */
};

struct accel_program {
	atomic_int refcount;
	struct accel_device *dev; /* reference */
	uint32_t n_kernels;
	struct accel_kernel_def *kernels;
	/* the backend's, released by its program_fini() */
	void *backend_data;
	bool static_handles;      /* built-ins: no kernel_free() */
	/* compiled programs: their binary container (accel_program_get_binary) */
	void *binary;
	size_t binary_size;
	/* enum accel_program_kind: objects and libraries have no kernels */
	uint32_t kind;
	/* program-scope __global variables' bytes (compiled programs) */
	uint64_t global_size;
};

/* One argument's value as set on a kernel. */
struct accel_kernel_arg {
	bool set;
	struct accel_buffer *buf; /* BUFFER, IMAGE: reference or NULL */
	bool is_host_ptr;         /* BUFFER: host_ptr, not buf */
	void *host_ptr;
	uint64_t local_size;      /* LOCAL */
	uint32_t value_offset;    /* VALUE: offset in kernel->values */
	uint32_t sampler;         /* SAMPLER: ACCEL_SAMPLER_* bits */
	/*
	 * IMAGE: the resolved layout as kernels see it, data NULL (the
	 * launch's backend sets it), and where texel 0 is in buf.
	 */
	struct accel_wg_image image;
	uint64_t image_offset;
};

struct accel_kernel {
	/* Taken by every launch, dropped by its worker (ACCEL_CACHE_LINE). */
	atomic_int refcount;
	_Alignas(ACCEL_CACHE_LINE) struct accel_program *prog; /* reference */
	const struct accel_kernel_def *def;
	struct accel_kernel_arg *args;
	uint8_t *values;            /* by-value bytes, each at a 16-aligned offset */
	uint32_t values_size;
};

/* ---- images (image-format.c, image-layout.c) ---- */

/* Bytes per texel of a valid order and data type, or -EINVAL. */
int accel_image_texel_size(uint32_t order, uint32_t type);
/* @type is an enum accel_image_type. */
bool accel_image_type_valid(uint32_t type);
/* Images of @image_type may have channel order @order (DEPTH: 2D only). */
bool accel_image_format_for_type(uint32_t image_type, uint32_t order);

/* ---- queue and commands (queue.c, cmd.c) ---- */

/*
 * A queue's fields are grouped by who writes them, a cache line each: a
 * submitting thread and a worker completing commands touch it for every
 * command, and a line both write moves between their CPUs each time.
 */
struct accel_queue {
	/* Written rarely: references, the first error. */
	atomic_int refcount;
	struct accel_device *dev; /* reference */
	uint32_t flags;
	void *backend_data;
	/* First failure since the last accel_queue_finish(). */
	atomic_int error;

	/* Written by submitters and completions alike. */
	_Alignas(ACCEL_CACHE_LINE) pthread_mutex_t lock; /* guards below */
	/*
	 * Incomplete commands, oldest first (for in-order chaining/markers).
	 * While the list is not empty the queue holds a reference on itself
	 * (taken by the command that makes it non-empty, dropped by the
	 * completion that empties it): not one per command.
	 */
	struct accel_cmd *head, *tail;
	/*
	 * Out-of-order queues: the fence of the last accel_queue_barrier()
	 * (reference, under lock); every later command waits for it.
	 */
	struct accel_fence *barrier;

	/*
	 * Finished command records kept for the next submissions (cmd.c): a
	 * steady stream of launches allocates nothing, and no record travels
	 * from the thread that completes it to malloc's lists of another.
	 */
	struct accel_recycle cmd_cache;
};

enum accel_cmd_type {
	ACCEL_CMD_LAUNCH = 1,
	ACCEL_CMD_WRITE,
	ACCEL_CMD_READ,
	ACCEL_CMD_COPY,
	ACCEL_CMD_FILL,
	ACCEL_CMD_MARKER,
	ACCEL_CMD_HOST,   /* accel_queue_host_fn(): run by the core */
	ACCEL_CMD_CHAIN,  /* launches of a command list, back to back */
};

/*
 * A recorded in-order list's launches, prepared once for replays
 * (cmdlist-chain.c): each step is a launch command built and
 * launch_prepare()d like a submitted one, never submitted itself; its
 * arguments are bound (buffers do not move on a backend that runs
 * chains) and it holds its kernel and buffers. Read-only once made, so
 * replays on any number of queues share it; an ACCEL_CMD_CHAIN command
 * runs steps [begin, end) of it, one after the other, and stops at the
 * first that fails.
 */
struct accel_chain_step {
	atomic_int refcount;      /* chains sharing it (an update copies) */
	struct accel_cmd *cmd;    /* the template, with backend scratch */
};

struct accel_chain {
	atomic_int refcount;      /* the list, and each command running it */
	struct accel_device *dev; /* reference */
	uint32_t n_steps;
	struct accel_chain_step **steps;
	/* the distinct buffers the steps bind (borrowed from the steps) */
	uint32_t n_buffers;
	struct accel_buffer **buffers;
};

void accel_chain_unref(struct accel_chain *chain);

/* Kernel in-fences a command can carry; more are waited for as usual. */
#define ACCEL_CMD_MAX_IN_SYNC 8

/* One dependency of a command: a waiter on a fence. */
struct accel_cmd_dep {
	struct accel_fence_waiter waiter;
	struct accel_cmd *cmd;
	struct accel_fence *fence; /* reference until signalled */
	bool propagate_error;      /* explicit wait list entry */
};

/* Launch arrays up to these sizes are kept in the command (launch.c). */
#define ACCEL_LAUNCH_INLINE_ARGS 8
#define ACCEL_LAUNCH_INLINE_LOCAL 4
#define ACCEL_LAUNCH_INLINE_STORAGE (ACCEL_LAUNCH_INLINE_ARGS * 16)

/* A kernel launch, as handed to a backend. */
struct accel_launch {
	uint32_t work_dim;
	uint64_t global_offset[3];
	uint64_t global_size[3];
	uint64_t local_size[3];   /* enqueued local size */
	uint64_t num_groups[3];
	uint64_t total_groups;

	uint32_t n_args;
	/*
	 * args[i] points at argument i's value inside arg_storage. Buffer
	 * arguments hold zeroes: the backend's launch_prepare writes the
	 * address of buffers[j] (its own kind of address) into the slot of
	 * argument buffer_arg_index[j]; a NULL buffer stays zero. An image
	 * argument's slot is its struct accel_wg_image, whose data holds the
	 * offset of texel 0 in buffers[j] (as an integer): launch_prepare
	 * adds the buffer's address. A sampler's slot holds its
	 * ACCEL_SAMPLER_* bits as a uintptr_t. For local
	 * arguments the slot holds nothing useful: the CPU backend gives each
	 * thread its own copy of args with those slots pointing at a
	 * per-thread pointer to local_mem + local_offset[j].
	 */
	void **args;
	uint8_t *arg_storage;
	uint32_t n_local_args;
	uint32_t *local_arg_index;     /* which args are local */
	uint64_t *local_arg_offset;    /* their offset in the local block */
	uint64_t static_local_size;
	uint64_t local_mem_size;       /* whole block, static + arguments */

	uint32_t n_buffers;
	struct accel_buffer **buffers; /* references held for the launch */
	uint32_t *buffer_arg_index;    /* the argument each one is bound to */
	struct accel_kernel *kernel;   /* reference */

	/*
	 * Where the arrays above live for small launches, so that a launch
	 * allocates nothing; larger ones get one heap block (heap).
	 */
	void *heap;
	void *inline_args[ACCEL_LAUNCH_INLINE_ARGS];
	struct accel_buffer *inline_buffers[ACCEL_LAUNCH_INLINE_ARGS];
	uint32_t inline_buffer_index[ACCEL_LAUNCH_INLINE_ARGS];
	uint32_t inline_local_index[ACCEL_LAUNCH_INLINE_LOCAL];
	uint64_t inline_local_offset[ACCEL_LAUNCH_INLINE_LOCAL];
	_Alignas(16) uint8_t inline_storage[ACCEL_LAUNCH_INLINE_STORAGE];
};

struct accel_cmd {
	enum accel_cmd_type type;
	/* A barrier: later commands of an out-of-order queue wait for it. */
	bool barrier;
	struct accel_queue *queue;    /* reference */
	struct accel_fence *fence;    /* reference; always present */

	/* Dependencies not yet signalled, plus one while submitting. */
	atomic_int pending;
	/* First failure among the wait list (propagated, command skipped). */
	atomic_int dep_error;
	uint32_t n_deps;
	struct accel_cmd_dep *deps;   /* inline_deps or a heap array */
	struct accel_cmd_dep inline_deps[2];
	/* Thread-local trampoline of ready commands (cmd.c). */
	struct accel_cmd *ready_next;
	struct accel_recycle_link cached; /* in the queue's record cache */
	/* Counted as running / in busy time in the usage page (stats.c). */
	bool stats_started, stats_timed;

	/* queue list of incomplete commands, under queue->lock */
	struct accel_cmd *prev, *next;

	/* Scratch for the backend (e.g. pool linkage). */
	void *backend_priv[4];

	/*
	 * Dependencies a backend with sync_file_deps_in_kernel waits for
	 * itself, as sync_files (owned; see backend.h). Set by submit.
	 */
	uint32_t n_in_sync;
	int in_sync_fds[ACCEL_CMD_MAX_IN_SYNC];

	union {
		struct accel_launch launch;
		struct {
			struct accel_buffer *buf; /* reference */
			uint64_t offset, size;
			void *host;
		} rw;
		struct {
			struct accel_buffer *src, *dst; /* references */
			uint64_t src_offset, dst_offset, size;
		} copy;
		struct {
			struct accel_buffer *buf; /* reference */
			uint64_t offset, size;
			uint32_t pattern_size;
			uint8_t pattern[128];
		} fill;
		struct {
			accel_host_fn fn;
			void *data;
			void (*free_fn)(void *data); /* once, may be NULL */
		} host;
		struct {
			struct accel_chain *chain; /* reference */
			uint32_t begin, end;       /* the steps it runs */
			/*
			 * Set by the backend before it completes a failed
			 * chain: the steps that failed or were skipped
			 * (stats.c counts each step as a command).
			 */
			uint32_t n_failed;
		} chain;
	} u;
};

/* fill.c: repeat a @psize-byte pattern over @len bytes (a multiple of it). */
void accel_fill_pattern(uint8_t *dst, uint64_t len, const uint8_t *pattern,
			uint32_t psize);

/* queue.c: common checks of a submission (queue and wait list). */
/*
 * What accel_queue_copy() and accel_queue_fill() check of their
 * arguments on @dev (command lists record the same); the buffers become
 * their views on @dev.
 */
int accel_check_copy(struct accel_device *dev, struct accel_buffer **src,
		     uint64_t src_offset, struct accel_buffer **dst,
		     uint64_t dst_offset, uint64_t size);
int accel_check_fill(struct accel_device *dev, struct accel_buffer **buf,
		     uint64_t offset, uint64_t size, const void *pattern,
		     size_t pattern_size);
int accel_queue_check_wait(struct accel_queue *queue, uint32_t n_wait,
			   struct accel_fence *const *wait);

/* fence-poller.c: sync_file fds watched by one thread per context. */
/* Import a sync_file: takes ownership of @fd in every case. */
int accel_fence_from_sync_file(struct accel_context *ctx, int fd,
			       struct accel_fence **ret);
/* Stop the thread (context teardown). */
void accel_poller_destroy(struct accel_poller *poller);

/* cmd.c: command life cycle */
struct accel_cmd *accel_cmd_alloc(struct accel_queue *queue,
				  enum accel_cmd_type type);
/* Free a command that was never submitted. */
void accel_cmd_discard(struct accel_cmd *cmd);
/* Drop what a launch holds (its buffers, heap block and kernel). */
void accel_launch_release(struct accel_launch *l);
/*
 * A launch of @kernel over @range as accel_queue_launch() builds it
 * (checked, arguments snapshotted, launch_prepare()d for @queue's
 * device), in a command record of its own that is never submitted: a
 * chain step. Free it with accel_launch_template_free().
 */
int accel_launch_template(struct accel_queue *queue,
			  struct accel_kernel *kernel,
			  const struct accel_ndrange *range,
			  struct accel_cmd **ret);
void accel_launch_template_free(struct accel_cmd *cmd);
/* Free the command records a queue kept for reuse (queue teardown). */
void accel_cmd_cache_drain(struct accel_queue *queue);
/*
 * Submit a command built by the caller: adds its dependencies (the wait
 * list, plus the queue's implicit ordering) and runs it when they are met.
 * Consumes @cmd in every case.
 */
int accel_cmd_submit(struct accel_cmd *cmd, uint32_t n_wait,
		     struct accel_fence *const *wait,
		     struct accel_fence **ret_fence);

#endif /* LIBACCEL_ACCEL_PRIVATE_H */
