/* SPDX-License-Identifier: MIT */
/**
 * @file accel-fence.h
 * @brief Fences: completion of submitted work.
 *
 * A fence signals exactly once, either with success (status 0) or with an
 * error (a negative errno that says why the work failed). Every queue
 * submission can return one; user fences are signalled by the caller.
 *
 * Thread-safety: fences may be used, waited on and signalled from any
 * thread. Callbacks run on the thread that signals the fence (often a
 * libaccel worker) or, when added to an already signalled fence, on the
 * caller's thread; never with an internal lock held. They never nest: a
 * callback that becomes due while another runs on the same thread (added
 * to a signalled fence, or its fence signalled, from inside a callback)
 * runs on that thread right after the running one returns. So chains of
 * any length use constant stack. A callback that blocks in
 * accel_fence_wait() first runs the callbacks queued behind it.
 */
#ifndef LIBACCEL_ACCEL_FENCE_H
#define LIBACCEL_ACCEL_FENCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_context;
struct accel_fence;

/** Profiling timestamps, CLOCK_MONOTONIC nanoseconds. */
enum accel_fence_time {
	ACCEL_FENCE_TIME_QUEUED = 0, /**< the submission call was made */
	ACCEL_FENCE_TIME_SUBMITTED,  /**< dependencies met, handed to the device */
	ACCEL_FENCE_TIME_STARTED,    /**< the device started the work */
	ACCEL_FENCE_TIME_ENDED,      /**< the work ended */
};

/** Infinite timeout for accel_fence_wait(). */
#define ACCEL_TIMEOUT_INFINITE INT64_MAX

/**
 * Fence callback.
 * @param fence the fence (valid during the call; take a reference to keep it)
 * @param status 0 or the negative errno the work failed with
 * @param user_data as given to accel_fence_add_callback()
 */
typedef void (*accel_fence_cb)(struct accel_fence *fence, int status,
			       void *user_data);

/**
 * Create a user fence, signalled with accel_fence_signal() (OpenCL's user
 * events).
 * @return 0, -EINVAL (NULL argument), -ENOMEM
 */
int accel_fence_new_user(struct accel_context *ctx, struct accel_fence **ret);

/**
 * Signal a user fence.
 * @param status 0 for success or a negative errno (-4095 to -1) for failure
 * @return 0, -EINVAL (NULL @p fence, @p status neither 0 nor a negative
 *         errno, not a user fence), -EALREADY (already signalled)
 */
int accel_fence_signal(struct accel_fence *fence, int status);

/**
 * Import a sync_file (a kernel dma-fence from a GPU, a camera, another
 * process) as a fence that signals when the sync_file does. Queue commands
 * can wait on it without blocking any thread: the context polls such fds
 * from one helper thread. The fd is borrowed (duplicated).
 *
 * @return 0, -EBADF (@p fd is not open, or is open with O_PATH, which
 *         allows no I/O), -EINVAL (NULL argument, @p fd is not a
 *         sync_file), -EMFILE, -ENOMEM
 */
int accel_fence_import_sync_file(struct accel_context *ctx, int fd,
				 struct accel_fence **ret);

/** Take a reference. Returns @p fence (NULL stays NULL). */
struct accel_fence *accel_fence_ref(struct accel_fence *fence);

/** Drop a reference. Returns NULL. Pending work keeps its own reference. */
struct accel_fence *accel_fence_unref(struct accel_fence *fence);

/**
 * @return 1 if signalled successfully, 0 if still pending, the negative
 *         errno of the failed work, or -EINVAL for a NULL @p fence
 */
int accel_fence_get_status(struct accel_fence *fence);

/**
 * Wait until the fence signals.
 * @param timeout_ns relative timeout; 0 polls; ACCEL_TIMEOUT_INFINITE waits forever
 * @return 0 (signalled successfully), -ETIME (timed out), -EINVAL (NULL
 *         @p fence, negative timeout), or the negative errno of the failed work
 */
int accel_fence_wait(struct accel_fence *fence, int64_t timeout_ns);

/**
 * Export a pollable file descriptor that becomes readable (POLLIN) when the
 * fence signals, for event loops. The fd is an eventfd owned by the caller;
 * do not read from it (that would consume the readiness of all duplicates).
 * @param[out] ret_fd the new fd (O_CLOEXEC)
 * @return 0, -EINVAL (NULL argument), -EMFILE, -ENOMEM
 */
int accel_fence_export_poll_fd(struct accel_fence *fence, int *ret_fd);

/**
 * Call @p cb once when the fence signals. If it has already signalled,
 * @p cb is called before this function returns; from inside a callback,
 * after that callback returns (callbacks never nest, see above).
 * @return 0, -EINVAL (NULL @p fence or @p cb), -ENOMEM
 */
int accel_fence_add_callback(struct accel_fence *fence, accel_fence_cb cb,
			     void *user_data);

/**
 * Read a profiling timestamp.
 * @param[out] ret_ns CLOCK_MONOTONIC nanoseconds
 * @return 0, -EINVAL (NULL argument, unknown @p which), -ENODATA (the
 *         queue was made without ACCEL_QUEUE_PROFILING, or a user fence),
 *         -EAGAIN (the point has not been reached yet)
 */
int accel_fence_get_time(struct accel_fence *fence, enum accel_fence_time which,
			 uint64_t *ret_ns);

/** @return the fence's context (no new reference), NULL for NULL */
struct accel_context *accel_fence_get_context(struct accel_fence *fence);

/**
 * Export a fence as a sync_file: a kernel dma-fence that signals when the
 * fence does, for a GPU, a display or another process to wait on.
 *
 * A software device cannot make a kernel fence by itself: the export goes
 * through a kernel driver of the same context that can (vgem today), and
 * the devices of a context say whether it has one with
 * ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT. Limits of the vgem route:
 * - the sync_file carries completion, not errors: it signals when the
 *   work ends, whether or not it failed (check the fence's status);
 * - vgem signals its fences by itself 10 s after the export: a sync_file
 *   of work that may run longer can signal early. Export late (e.g. from
 *   the fence of the last command) or keep such work under 10 s.
 * A fence that has already signalled exports as a signalled sync_file.
 *
 * @param[out] ret_fd the new sync_file (O_CLOEXEC), owned by the caller
 * @return 0, -EINVAL (NULL argument), -EOPNOTSUPP (no device of the
 *         context can make kernel fences), the negative errno of the
 *         failed work (a fence that has already failed), -EMFILE, -ENOMEM,
 *         -EIO, or the driver's error
 */
int accel_fence_export_sync_file(struct accel_fence *fence, int *ret_fd);

/* ---- sync_files: Linux kernel dma-fences as fds ------------------------ */

/*
 * These work on any sync_file, from libaccel or elsewhere. The fd
 * arguments are borrowed; -EBADF means "not open, or open with O_PATH"
 * (such an fd allows no ioctl or poll), -EINVAL "not a sync_file" (a
 * device, directory or FIFO is that even when opened with O_PATH).
 */

/**
 * Wait until a sync_file signals (poll(2), restarted after signal
 * handlers with the time left).
 * @param timeout_ns relative; 0 polls; ACCEL_TIMEOUT_INFINITE waits forever
 * @return 0 (signalled), -ETIME (timed out), -EBADF, -EINVAL (not a
 *         sync_file, negative timeout), -EIO (readable, yet the kernel
 *         reports it active), or the negative error the kernel fence
 *         signalled with
 */
int accel_sync_file_wait(int fd, int64_t timeout_ns);

/**
 * Merge two sync_files (SYNC_IOC_MERGE) into a new one that signals when
 * both have.
 * @param name the new sync_file's name (NULL: "libaccel"), cut to 31 bytes
 * @param[out] ret_fd the new sync_file (O_CLOEXEC), owned by the caller
 * @return 0, -EBADF, -EINVAL (NULL @p ret_fd, not sync_files), -EMFILE,
 *         -ENOMEM
 */
int accel_sync_file_merge(const char *name, int fd1, int fd2, int *ret_fd);

/** One kernel fence inside a sync_file. */
struct accel_sync_fence_info {
	char driver[32];       /**< the driver that made it, e.g. "vgem" */
	char timeline[32];     /**< its timeline's name */
	int32_t status;        /**< 1 signalled, 0 active, < 0 failed */
	uint32_t reserved;     /**< 0 */
	uint64_t timestamp_ns; /**< when it signalled (CLOCK_MONOTONIC), or 0 */
};

/** A sync_file as SYNC_IOC_FILE_INFO describes it. */
struct accel_sync_file_info {
	char name[32];         /**< given at creation or merge */
	int32_t status;        /**< 1 all signalled, 0 active, < 0 failed */
	uint32_t n_fences;     /**< fences it holds (a merge holds several) */
};

/**
 * Describe a sync_file and the kernel fences in it. Fills @p info and up
 * to @p max_fences entries of @p fences (pass 0 and NULL for the summary
 * only; no allocation is made for the caller) and returns the total number
 * of fences, which may be larger than @p max_fences.
 * @return the number of fences (>= 0), -EBADF, -EINVAL (NULL @p info,
 *         NULL @p fences with @p max_fences > 0, not a sync_file), -ENOMEM,
 *         -EOVERFLOW (more fences than an int counts)
 */
int accel_sync_file_get_info(int fd, struct accel_sync_file_info *info,
			     struct accel_sync_fence_info *fences,
			     uint32_t max_fences);

/**
 * Tell the drivers behind a sync_file when its result is needed
 * (SYNC_IOC_SET_DEADLINE, a hint: they may clock up to meet it).
 * @param deadline_ns absolute CLOCK_MONOTONIC time
 * @return 0, -EBADF, -EINVAL (not a sync_file), -EOPNOTSUPP (the kernel,
 *         before Linux 6.5, has no deadlines: safe to ignore)
 */
int accel_sync_file_set_deadline(int fd, uint64_t deadline_ns);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_FENCE_H */
