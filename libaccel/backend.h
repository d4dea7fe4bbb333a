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
	 * NULL means -EOPNOTSUPP.
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
	 * not close dmabuf_fd). Optional: NULL means -EOPNOTSUPP.
	 */
	int (*buffer_import_dmabuf)(struct accel_buffer *buf);

	/*
	 * Built-in kernels of a device: a static table that lives as long as
	 * the backend. Optional.
	 */
	int (*get_built_in_kernels)(struct accel_device *dev,
				    const struct accel_native_kernel_desc **ret,
				    uint32_t *n);

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
	 * Valid from execute() until accel_cmd_complete(). Optional (0).
	 */
	size_t cmd_priv_size;

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
