/* SPDX-License-Identifier: MIT */
/*
 * The only door to hardware: one table of operations per backend.
 *
 * Rules:
 * - The core validates arguments, refcounts and logs; ops do device work
 *   and may assume valid input.
 * - Ops are called with no core lock held. They may block only where
 *   noted.
 * - Optional ops may be NULL; the core then returns -EOPNOTSUPP (or uses the
 *   documented fallback).
 * - Backends see libaccel's internal types only, never OpenCL types.
 */
#ifndef LIBACCEL_BACKEND_H
#define LIBACCEL_BACKEND_H

#include "accel-private.h"
#include "platform/platform.h"

/* One kernel as a backend describes it to the core (which copies it). */
struct accel_kernel_info {
	const char *name;
	uint32_t flags;                     /* ACCEL_KERNEL_PUBLIC_FLAGS */
	uint32_t n_args;
	const struct accel_kernel_arg_desc *args;
	uint64_t static_local_size;
	uint64_t reqd_wg_size[3];           /* 0: none */
	uint64_t wg_size_hint[3];
	const char *vec_type_hint;          /* NULL: none */
	uint64_t private_size;              /* stack of one work-group call */
	uint64_t private_per_item;          /* and more per work-item */
	bool private_size_known;            /* else private_size is a bound */
	uint32_t sub_group_size;            /* 0: no sub-groups */
	uint32_t reqd_sub_group_size;       /* 0: none asked for */
	/*
	 * The backend's own handle of the kernel: the core keeps it in
	 * accel_kernel_def.handle and gives it back in kernel_free().
	 */
	void *handle;
};

/* What a new program holds. */
struct accel_program_desc {
	uint32_t kind;                      /* enum accel_program_kind */
	uint32_t n_kernels;
	const struct accel_kernel_info *kernels;
	/* accel_program_get_binary() (copied), or NULL */
	const void *binary;
	size_t binary_size;
	uint64_t global_size;               /* program-scope __global bytes */
	/* The handles are static (built-ins): no kernel_free(). */
	bool static_handles;
	void *backend_data;                 /* released by program_fini() */
};

/*
 * Check the kernel descriptions (as for native kernels: names, arguments,
 * the device's limits) and make a program of them. On failure the kernel
 * handles are released through kernel_free() (unless static);
 * backend_data stays the caller's.
 */
int accel_program_create(struct accel_device *dev,
			 const struct accel_program_desc *desc,
			 struct accel_program **ret);

enum accel_build_kind {
	ACCEL_BUILD_SOURCE = 1, /* accel_program_new_source() */
	ACCEL_BUILD_OBJECT,     /* accel_program_compile() */
	ACCEL_BUILD_LINK,       /* accel_program_link() */
	ACCEL_BUILD_IL,         /* accel_program_new_il() */
};

/* One build request, checked by the core (program.c). */
struct accel_build_request {
	enum accel_build_kind kind;
	const char *options;                /* may be NULL */
	const char *source;                 /* SOURCE, OBJECT */
	size_t length;                      /* bytes of source (not 0) */
	uint32_t n_headers;                 /* OBJECT */
	const char *const *header_names;
	const char *const *header_sources;
	/*
	 * LINK: programs of this device, objects or libraries, each with a
	 * binary (accel_program.binary).
	 */
	uint32_t n_inputs;
	struct accel_program *const *inputs;
	uint32_t link_flags;                /* ACCEL_LINK_* */
	/* IL: a SPIR-V module, its specialization constants, ACCEL_IL_* */
	const void *il;
	size_t il_size;
	uint32_t n_spec;
	const struct accel_spec_constant *spec;
	uint32_t il_flags;
};

struct accel_backend_ops {
	/* Short name, e.g. "cpu"; shown as ACCEL_DEVICE_STRING_BACKEND. */
	const char *name;

	/*
	 * Create the devices this backend always offers (the CPU reference
	 * device) and append them with accel_context_add_device(). Optional.
	 * Called once per context, under no lock, before the context is
	 * shared. Returns 0 or a negative errno (enumeration goes on without
	 * this backend's devices).
	 */
	int (*enumerate_builtin)(struct accel_context *ctx);

	/*
	 * Claim a device found by discovery: create it with
	 * accel_device_alloc() and add it with accel_context_add_device().
	 * Returns 1 if claimed, 0 if not this backend's, or a negative errno
	 * (the device is then skipped with a log message). Optional.
	 */
	int (*probe)(struct accel_context *ctx,
		     const struct accel_udev_info *info);

	/* Release dev->backend_data. Called when the context is freed. */
	void (*device_fini)(struct accel_device *dev);

	/*
	 * Allocate backing storage for @buf (size, flags and device set by the
	 * core; parent is NULL). Sets buf->host_ptr when the host can reach
	 * the memory, buf->memfd when it is a memfd, buf->backend_data as it
	 * likes. Required.
	 */
	int (*buffer_alloc)(struct accel_buffer *buf);

	/*
	 * Wrap caller memory (buf->host_ptr already set by the core). Optional:
	 * NULL means -EOPNOTSUPP. Also how a device that sets
	 * ACCEL_DEVICE_CAP_USER_PTR reaches another device's buffer by its
	 * host address (an attachment, buffer-attach.c: buf->owner is set).
	 */
	int (*buffer_wrap_user_ptr)(struct accel_buffer *buf);

	/* Free what buffer_alloc/buffer_wrap_user_ptr set up. Required. */
	void (*buffer_free)(struct accel_buffer *buf);

	/*
	 * Host access to [offset, offset+size) of a (root) buffer. Optional:
	 * when NULL the core maps through buf->host_ptr and unmap is a no-op.
	 * May block (e.g. DMA_BUF_IOCTL_SYNC).
	 */
	int (*buffer_map)(struct accel_buffer *buf, uint64_t offset,
			  uint64_t size, uint32_t flags, void **ret);
	int (*buffer_unmap)(struct accel_buffer *buf, void *ptr, uint64_t offset,
			    uint64_t size, uint32_t flags);

	/*
	 * Export [offset, offset+size) of a root buffer as a new dma-buf fd
	 * (O_CLOEXEC|O_RDWR, owned by the caller). The core calls it for
	 * buffers that have no dma-buf yet (dmabuf_fd < 0) and for
	 * sub-ranges; naming and bookkeeping are the core's. Optional:
	 * NULL means -EOPNOTSUPP.
	 */
	int (*buffer_export_dmabuf)(struct accel_buffer *buf, uint64_t offset,
				    uint64_t size, int *ret_fd);

	/*
	 * Make an imported dma-buf usable: buf->dmabuf_fd (owned by the
	 * core), size and flags are set. Sets host_ptr (e.g. mmap) and
	 * readonly_mapping as appropriate. buffer_free undoes it (but does
	 * not close dmabuf_fd). Optional: NULL means -EOPNOTSUPP. Also how a
	 * device that sets ACCEL_DEVICE_CAP_DMABUF_IMPORT reaches another
	 * device's buffer (an attachment, buffer-attach.c: buf->owner is set).
	 */
	int (*buffer_import_dmabuf)(struct accel_buffer *buf);

	/* ---- programs and kernels (see accel_program_create()) ---- */

	/*
	 * Build from source, compile to an object or link (@req, checked by
	 * the core). Devices with ACCEL_DEVICE_CAP_COMPILER. *@ret_log (may
	 * be NULL) as for accel_program_new_source(): the backend sets it,
	 * build failures included. May block (runs a compiler). Optional.
	 */
	int (*program_build)(struct accel_device *dev,
			     const struct accel_build_request *req,
			     char **ret_log, struct accel_program **ret);
	/*
	 * Load what accel_program_get_binary() gave: -ENOEXEC for another
	 * format, ABI or CPU, -EINVAL when malformed. Devices with
	 * ACCEL_DEVICE_CAP_COMPILER. May block. Optional.
	 */
	int (*program_load_binary)(struct accel_device *dev, const void *data,
				   size_t size, struct accel_program **ret);
	/*
	 * A handle for a caller's native kernel (the core checked @desc).
	 * Devices with ACCEL_DEVICE_CAP_NATIVE_KERNELS. Optional.
	 */
	int (*kernel_from_native)(struct accel_device *dev,
				  const struct accel_native_kernel_desc *desc,
				  void **ret_handle);
	/*
	 * Built-in kernels: a static table that lives as long as the
	 * backend; each .handle names its kernel to the backend (an id or a
	 * static object, never freed). Optional.
	 */
	int (*get_built_in_kernels)(struct accel_device *dev,
				    const struct accel_kernel_info **ret,
				    uint32_t *n);
	/*
	 * Release a kernel handle of a built or loaded program, or of
	 * kernel_from_native(); never called for built-ins. Called before
	 * program_fini(). Optional.
	 */
	void (*kernel_free)(struct accel_device *dev, void *handle);
	/*
	 * Release prog->backend_data, after every kernel handle of the
	 * program (no kernel, launch or command uses it any more).
	 * Optional.
	 */
	void (*program_fini)(struct accel_program *prog);
	/*
	 * Launch policy, at submission, with no lock held, after the core
	 * checked the range, the arguments and local memory and took its
	 * snapshot (cmd->u.launch, kernel set): write the buffers' addresses
	 * into their argument slots (buffer_arg_index; an image's slot is a
	 * struct accel_wg_image whose data gets the address added to the
	 * offset it holds, see struct accel_launch), pick the code to
	 * run, change the local size where the kernel cannot tell
	 * (accel_launch_count_groups() after), check what only the backend
	 * knows (e.g. the stack). A negative errno refuses the launch
	 * synchronously. Optional (buffer slots then stay zero).
	 */
	int (*launch_prepare)(struct accel_queue *queue, struct accel_cmd *cmd);

	/* Per-queue state (queue->backend_data). Optional. */
	int (*queue_init)(struct accel_queue *queue);
	void (*queue_fini)(struct accel_queue *queue);

	/*
	 * Run a command whose dependencies are all met. Must not block on
	 * device work: queue it and return. When the work is done (on any
	 * thread) the backend calls accel_cmd_started() (optional, for
	 * profiling) and then exactly once accel_cmd_complete(cmd, status).
	 * Returning a negative errno instead means the command was not taken;
	 * the core then completes it with that error. Required.
	 */
	int (*execute)(struct accel_queue *queue, struct accel_cmd *cmd);
	/*
	 * Bytes of per-command scratch the backend wants next to each command
	 * (accel_cmd_priv()), 16-aligned, recycled with the command record:
	 * a backend that tracks commands in it allocates nothing per command.
	 * Valid from launch_prepare() (launches) or execute() until
	 * accel_cmd_complete(); not zeroed. Optional (0).
	 */
	size_t cmd_priv_size;

	/*
	 * execute() takes ACCEL_CMD_CHAIN commands (struct accel_chain):
	 * the launches of a recorded in-order list, prepared once by
	 * launch_prepare() and run back to back as one command, as many
	 * times and on as many queues of the device as the list is
	 * submitted. A backend sets it when what launch_prepare() decides
	 * (bound addresses included) holds for every queue of the device
	 * and for as long as the launch's buffers live. It runs the steps
	 * in order, each after the previous one's work, stops at the first
	 * that fails, sets cmd->u.chain.n_failed and completes the command
	 * once, with that error. Chains never touch dma-bufs (the core
	 * submits such lists launch by launch).
	 */
	bool runs_chains;

	/*
	 * The kernel driver waits for the fences on a job's dma-bufs itself
	 * (reservation objects): the core adds no implicit-sync waits.
	 */
	bool implicit_sync_in_kernel;

	/*
	 * The device's work waits for kernel fences itself. The core then
	 * waits for no pending dependency that has a sync_file (see
	 * accel_fence_dup_sync_file(); up to ACCEL_CMD_MAX_IN_SYNC of them,
	 * markers excepted): a wait-list or implicit-sync one is handed to
	 * execute() in cmd->in_sync_fds, and the command must not run before
	 * they signal and must fail with the error of one that failed. If
	 * execute() returns 0 the fds are the backend's to close (ideally as
	 * soon as the kernel has the fences), else the core closes them.
	 * The device must also run whatever execute() gets after a command
	 * of its got a kernel fence after that fence: an in-order queue's
	 * previous command is then no dependency at all (its error is not
	 * the next command's, so it is not handed on either).
	 */
	bool sync_file_deps_in_kernel;

	/*
	 * Make a sync_file (a kernel dma-fence) that signals when @fence, a
	 * pending fence of any device of the context, signals. For backends
	 * whose driver can make kernel fences; such a device sets
	 * ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT in its own caps, and every device
	 * of its context then reports it too (fence-export.c). Must not
	 * block on device work. Optional.
	 */
	int (*fence_export_sync_file)(struct accel_device *dev,
				      struct accel_fence *fence, int *ret_fd);
};

/*
 * Text a kernel printed, to the context's printf handler or, without one,
 * to stdout (printf-sink.c). One launch's output goes between one begin
 * and its end, so that it is not interleaved with other output: the
 * handler is read once, or stdout stays locked until the end.
 */
struct accel_printf_sink {
	/* the core's */
	struct accel_context *ctx;
	accel_printf_fn fn;
	void *data;
};

void accel_printf_begin(struct accel_context *ctx, struct accel_printf_sink *s);
void accel_printf_emit(struct accel_printf_sink *s, const char *text,
		       size_t len);
void accel_printf_end(struct accel_printf_sink *s);

/* The static table of backends, in probe order (context.c). */
extern const struct accel_backend_ops accel_cpu_backend;
extern const struct accel_backend_ops accel_drm_backend;
extern const struct accel_backend_ops accel_accel_backend;

/*
 * Offer a discovered device to the backends in table order and record it
 * as a candidate, claimed or not (under the context's enum_lock; context.c).
 */
int accel_context_probe(struct accel_context *ctx,
			const struct accel_udev_info *info);

/* Append a device to a context during enumeration (takes ownership). */
int accel_context_add_device(struct accel_context *ctx,
			     struct accel_device *dev);

/*
 * Allocate a device object for a backend; the backend fills props/strings
 * and backend_data, then calls accel_context_add_device().
 */
int accel_device_alloc(struct accel_context *ctx,
		       const struct accel_backend_ops *ops,
		       struct accel_device **ret);

/* Set a string property of a device under construction (copied). */
int accel_device_set_string(struct accel_device *dev,
			    enum accel_device_string prop, const char *value);

/*
 * fence-export.c: ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT if a device of @ctx
 * exports fences for the whole context, else 0.
 */
uint64_t accel_fence_export_caps(struct accel_context *ctx);

/* Close the command's kernel in-fences (sync_file_deps_in_kernel). */
void accel_cmd_close_in_syncs(struct accel_cmd *cmd);

/*
 * Recount @l's work-groups after launch_prepare changed its local size.
 * @return 0, or -EOVERFLOW if there are more than 2^64.
 */
int accel_launch_count_groups(struct accel_launch *l);

/* The backend's per-command scratch (cmd_priv_size bytes). */
static inline void *accel_cmd_priv(struct accel_cmd *cmd)
{
	return (char *)cmd + ALIGN_UP(sizeof(*cmd), (size_t)16);
}

/* Profiling: the device started the command (first call wins). */
void accel_cmd_started(struct accel_cmd *cmd);

/*
 * The command is finished: 0 or a negative errno. Signals its fence,
 * releases what it held and makes dependent commands ready. Must be
 * called exactly once, with no backend lock held. May free @cmd.
 */
void accel_cmd_complete(struct accel_cmd *cmd, int status);

#endif /* LIBACCEL_BACKEND_H */
