/* SPDX-License-Identifier: MIT */
/**
 * @file accel-queue.h
 * @brief Command queues: kernel launches and buffer transfers.
 *
 * Every submission takes a wait list of fences (the command starts after all
 * of them signalled successfully; if one failed, the command fails with its
 * status without running) and may return its own completion fence. On an
 * in-order queue each command also waits for the previous one.
 *
 * Submissions never block on device work. Host memory given to a read or a
 * write must stay valid until the command's fence signals.
 *
 * Thread-safety: a queue may be shared by any number of submitting threads;
 * the order of commands submitted concurrently is the order the calls
 * were serialised in.
 */
#ifndef LIBACCEL_ACCEL_QUEUE_H
#define LIBACCEL_ACCEL_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_device;
struct accel_buffer;
struct accel_kernel;
struct accel_fence;
struct accel_queue;

/** Record profiling timestamps in the fences of this queue. */
#define ACCEL_QUEUE_PROFILING (1u << 0)
/** Commands do not wait for their predecessors, only for their wait lists. */
#define ACCEL_QUEUE_OUT_OF_ORDER (1u << 1)
/** All queue flags defined by this version. */
#define ACCEL_QUEUE_FLAGS_ALL 0x3u

/** Geometry of a kernel launch. */
struct accel_ndrange {
	/** sizeof(struct accel_ndrange) as the caller knows it */
	uint32_t struct_size;
	/** 1, 2 or 3 */
	uint32_t work_dim;
	/** global offset (OpenCL's global_work_offset), unused dimensions 0 */
	uint64_t global_offset[3];
	/** global size; each used dimension > 0; unused dimensions 0 or 1 */
	uint64_t global_size[3];
	/**
	 * work-group size; all 0 lets libaccel pick one. The global size need
	 * not be a multiple of it (the trailing groups are smaller) unless
	 * flags has ACCEL_NDRANGE_UNIFORM.
	 */
	uint64_t local_size[3];
	/**
	 * ACCEL_NDRANGE_*; read only when struct_size covers it (a caller
	 * built against the struct without it passes 0).
	 */
	uint32_t flags;
};

/**
 * Every work-group has the same size: the global size is a multiple of
 * the local size in each dimension (OpenCL 1.2 programs, and
 * -cl-uniform-work-group-size).
 */
#define ACCEL_NDRANGE_UNIFORM (1u << 0)
#define ACCEL_NDRANGE_FLAGS_ALL 0x1u

/** Why a launch is refused (struct accel_launch_check). */
enum accel_launch_reason {
	ACCEL_LAUNCH_OK = 0,
	/** work_dim not 1, 2 or 3 */
	ACCEL_LAUNCH_WORK_DIM,
	/** global offset + global size above 2^64 - 1 (an unused dimension's offset not 0) */
	ACCEL_LAUNCH_GLOBAL_OFFSET,
	/** a global size of 0 (above 1 in an unused dimension), or more than 2^64 - 1 work-items */
	ACCEL_LAUNCH_GLOBAL_SIZE,
	/** a local size above the device's ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_* (above 1 in an unused dimension) */
	ACCEL_LAUNCH_WORK_ITEM_SIZE,
	/** a local size of 0, or work-items per group above ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE */
	ACCEL_LAUNCH_WORK_GROUP_SIZE,
	/** the local size differs from the kernel's reqd_work_group_size */
	ACCEL_LAUNCH_REQD_WORK_GROUP_SIZE,
	/** ACCEL_NDRANGE_UNIFORM and a global size that is no multiple of the local size */
	ACCEL_LAUNCH_NON_UNIFORM,
	/** argument arg_index was never set */
	ACCEL_LAUNCH_ARG_NOT_SET,
	/** argument arg_index may be written but its buffer is mapped read-only */
	ACCEL_LAUNCH_ARG_READ_ONLY,
	/** local memory (static and arguments) above ACCEL_DEVICE_U64_LOCAL_MEM_SIZE */
	ACCEL_LAUNCH_LOCAL_MEM,
};

/** What accel_kernel_check_launch() found. */
struct accel_launch_check {
	/** sizeof(struct accel_launch_check) as the caller knows it */
	uint32_t struct_size;
	/**
	 * 0, or the negative errno accel_queue_launch() returns for this
	 * kernel and range (-EINVAL, -EOVERFLOW, -ENOEXEC, -EACCES, -E2BIG)
	 */
	int32_t error;
	/** enum accel_launch_reason: why, or ACCEL_LAUNCH_OK */
	uint32_t reason;
	/** the dimension (0-2) a geometry reason is about */
	uint32_t dim;
	/** the argument an ARG_* reason is about */
	uint32_t arg_index;
};

/**
 * Create a queue on a device.
 * @param flags ACCEL_QUEUE_*
 * @return 0, -EINVAL (NULL argument, unknown flags), -ENODEV (the device
 *         was unplugged), -ENOMEM, -EIO (the device's driver failed)
 */
int accel_queue_new(struct accel_device *dev, uint32_t flags,
		    struct accel_queue **ret);

/** Take a reference. Returns @p queue (NULL stays NULL). */
struct accel_queue *accel_queue_ref(struct accel_queue *queue);

/**
 * Drop a reference. Commands already submitted still run to completion
 * (they keep what they need alive). Returns NULL.
 */
struct accel_queue *accel_queue_unref(struct accel_queue *queue);

/** @return the queue's device (no new reference), NULL for NULL */
struct accel_device *accel_queue_get_device(struct accel_queue *queue);

/** @return the ACCEL_QUEUE_* flags, 0 for NULL */
uint32_t accel_queue_get_flags(struct accel_queue *queue);

/*
 * Common parameters of all submissions:
 * @param n_wait number of fences in @p wait
 * @param wait fences to wait for (NULL when n_wait is 0); referenced, not consumed
 * @param[out] ret_fence the command's completion fence, or NULL if not wanted
 * Common errors: -EINVAL (NULL queue, NULL wait with n_wait > 0, a NULL
 * entry in wait, a fence of another context), -ENOMEM, -ENODEV (the
 * device was unplugged), -EACCES (the
 * command would write a buffer imported read-only: a write, a fill, a
 * copy's destination, or a kernel argument that is not const or
 * __constant), and for dma-buf backed buffers the errno of querying their
 * implicit fences.
 *
 * Implicit synchronisation: a command touching a buffer that is a dma-buf
 * (imported, exported or heap-allocated) also waits for the fences other
 * devices attached to it at submission time.
 */

/**
 * Launch a kernel with its current arguments (captured at this call).
 * accel_kernel_check_launch() says why a launch is refused.
 * @return 0, the common errors, -EINVAL (NULL @p kernel or @p range, bad
 *         struct_size, work_dim or flags, zero global size, local size
 *         not fitting the device limits or the kernel's required size, a
 *         non-uniform range with ACCEL_NDRANGE_UNIFORM, global offset +
 *         size overflowing), -ENOEXEC (an argument was never set),
 *         -EACCES (a writable argument over a buffer mapped read-only),
 *         -E2BIG (local memory of the launch, or the stack a work-group
 *         needs, above the device's: ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE),
 *         -EXDEV (the kernel belongs to another device), -EOVERFLOW (more
 *         than 2^64 work-items)
 */
int accel_queue_launch(struct accel_queue *queue, struct accel_kernel *kernel,
		       const struct accel_ndrange *range, uint32_t n_wait,
		       struct accel_fence *const *wait,
		       struct accel_fence **ret_fence);

/**
 * Check @p range and the current arguments of @p kernel as
 * accel_queue_launch() does on the kernel's device, without launching:
 * the error a launch gets, and why. The device may refuse more when the
 * launch is made (-E2BIG: the stack a work-group needs).
 * @param ret struct_size set by the caller; filled up to it
 * @return 0 (the verdict is in @p ret), -EINVAL (NULL argument, a
 *         struct_size of @p range or @p ret too small)
 */
int accel_kernel_check_launch(struct accel_kernel *kernel,
			      const struct accel_ndrange *range,
			      struct accel_launch_check *ret);

/**
 * Write host memory into a buffer.
 * @return 0, the common errors, -EINVAL (NULL @p buf or @p src, size 0),
 *         -ERANGE (range outside the buffer), -EXDEV (buffer of another
 *         context, or one this queue's device cannot reach: see
 *         accel-buffer.h)
 */
int accel_queue_write(struct accel_queue *queue, struct accel_buffer *buf,
		      uint64_t offset, uint64_t size, const void *src,
		      uint32_t n_wait, struct accel_fence *const *wait,
		      struct accel_fence **ret_fence);

/**
 * Read a buffer into host memory.
 * @return as accel_queue_write()
 */
int accel_queue_read(struct accel_queue *queue, struct accel_buffer *buf,
		     uint64_t offset, uint64_t size, void *dst, uint32_t n_wait,
		     struct accel_fence *const *wait,
		     struct accel_fence **ret_fence);

/**
 * Copy between buffers (the same buffer is fine if the ranges do not overlap).
 * @return 0, the common errors, -EINVAL (NULL buffer, size 0, overlapping
 *         ranges of one buffer), -ERANGE, -EXDEV
 */
int accel_queue_copy(struct accel_queue *queue, struct accel_buffer *src,
		     uint64_t src_offset, struct accel_buffer *dst,
		     uint64_t dst_offset, uint64_t size, uint32_t n_wait,
		     struct accel_fence *const *wait,
		     struct accel_fence **ret_fence);

/**
 * Fill a range with a repeated pattern (copied at this call).
 * @param pattern_size 1, 2, 4, 8, 16, 32, 64 or 128; @p offset and @p size
 *        must be multiples of it
 * @return 0, the common errors, -EINVAL (NULL argument, bad pattern size,
 *         size 0, misaligned range), -ERANGE, -EXDEV
 */
int accel_queue_fill(struct accel_queue *queue, struct accel_buffer *buf,
		     uint64_t offset, uint64_t size, const void *pattern,
		     size_t pattern_size, uint32_t n_wait,
		     struct accel_fence *const *wait,
		     struct accel_fence **ret_fence);

/**
 * A command that does nothing: its fence signals when its wait list (and,
 * on an in-order queue, all earlier commands) completed. On an out-of-order
 * queue with an empty wait list it waits for every earlier command.
 * @return 0 or the common errors
 */
int accel_queue_marker(struct accel_queue *queue, uint32_t n_wait,
		       struct accel_fence *const *wait,
		       struct accel_fence **ret_fence);

/**
 * A barrier: a marker (same wait list rules) that every command submitted
 * to @p queue after it also waits for, failing with its error if it fails.
 * On an in-order queue the same as accel_queue_marker().
 * @return 0 or the common errors
 */
int accel_queue_barrier(struct accel_queue *queue, uint32_t n_wait,
			struct accel_fence *const *wait,
			struct accel_fence **ret_fence);

/**
 * A host function run as a command.
 * @return >= 0 for success; a negative errno fails the command with it
 *         (values below -4095 become -EIO)
 */
typedef int (*accel_host_fn)(void *user_data);

/**
 * Run @p fn(@p user_data) as a command: once its wait list (and, on an
 * in-order queue, every earlier command) completed, on a libaccel thread
 * (the one that completed the last dependency, or the calling one if none
 * is pending), with no libaccel lock held. The command's fence signals
 * with fn's result after fn returned. If a wait-list fence failed, fn is
 * not called and the command fails with that status. fn must not wait for
 * fences of commands submitted after this one.
 *
 * @param free_fn called with @p user_data exactly once, after fn or
 *        instead of it, also when this call fails; may be NULL
 * @return 0, the common errors, -EINVAL (NULL @p fn)
 */
int accel_queue_host_fn(struct accel_queue *queue, accel_host_fn fn,
			void *user_data, void (*free_fn)(void *user_data),
			uint32_t n_wait, struct accel_fence *const *wait,
			struct accel_fence **ret_fence);

/**
 * Make sure submitted commands will make progress without further calls.
 * libaccel's queues never hold work back, so this only validates.
 * @return 0 or -EINVAL (NULL @p queue)
 */
int accel_queue_flush(struct accel_queue *queue);

/**
 * Wait until every command submitted before this call completed.
 * @return 0, -EINVAL (NULL @p queue), -ENOMEM, -ENODEV (the device was
 *         unplugged: no marker could be queued), or the negative errno of
 *         the first failed command among them
 */
int accel_queue_finish(struct accel_queue *queue);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_QUEUE_H */
