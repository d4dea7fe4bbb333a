/* SPDX-License-Identifier: MIT */
/**
 * @file accel-cmdlist.h
 * @brief Command lists: commands recorded once, submitted many times.
 *
 * A list records kernel launches, copies, fills and barriers for one
 * device, checked when they are recorded; accel_queue_submit_list() then
 * submits them all to a queue of that device in one call, as a model's
 * layers or a frame's filters are replayed (OpenCL's
 * cl_khr_command_buffer). A launch takes the kernel's arguments as they
 * are when it is recorded (the list keeps a clone of the kernel); the
 * buffers and kernels a list records stay referenced until it is freed.
 *
 * Order inside a list: an in-order list (flags 0) runs each command after
 * the one recorded before it; an ACCEL_CMDLIST_OUT_OF_ORDER list runs a
 * command after the commands it names as dependencies only. A dependency
 * is a sync point: the index of an earlier command of the list, which
 * every recording call returns.
 *
 * Thread-safety: recording calls on one list must not run concurrently;
 * a finalized list may be submitted from any number of threads at once.
 */
#ifndef LIBACCEL_ACCEL_CMDLIST_H
#define LIBACCEL_ACCEL_CMDLIST_H

#include <stddef.h>
#include <stdint.h>

#include <libaccel/accel-queue.h> /* accel_host_fn */

#ifdef __cplusplus
extern "C" {
#endif

struct accel_device;
struct accel_buffer;
struct accel_kernel;
struct accel_fence;
struct accel_queue;
struct accel_ndrange;
struct accel_cmdlist;

/** Commands run in the order their sync points give, not as recorded. */
#define ACCEL_CMDLIST_OUT_OF_ORDER (1u << 0)
/** All list flags defined by this version. */
#define ACCEL_CMDLIST_FLAGS_ALL 0x1u

/**
 * Create an empty list for @p dev.
 * @param flags ACCEL_CMDLIST_*
 * @return 0, -EINVAL (NULL argument, unknown flags), -ENOMEM
 */
int accel_cmdlist_new(struct accel_device *dev, uint32_t flags,
		      struct accel_cmdlist **ret);

/** Take a reference. Returns @p list (NULL stays NULL). */
struct accel_cmdlist *accel_cmdlist_ref(struct accel_cmdlist *list);

/**
 * Drop a reference. Submitted commands keep what they need: a list may
 * go while its commands still run. Returns NULL.
 */
struct accel_cmdlist *accel_cmdlist_unref(struct accel_cmdlist *list);

/** @return the number of commands recorded, 0 for NULL */
uint32_t accel_cmdlist_get_count(struct accel_cmdlist *list);

/** @return the ACCEL_CMDLIST_* flags, 0 for NULL */
uint32_t accel_cmdlist_get_flags(struct accel_cmdlist *list);

/*
 * Common parameters of the recording calls:
 * @param n_deps number of sync points in @p deps
 * @param deps sync points of commands recorded earlier in this list
 *        (NULL when n_deps is 0); on an in-order list they add nothing
 * @param[out] ret_point the new command's sync point, or NULL
 * Common errors: -EINVAL (NULL list, NULL deps with n_deps > 0, a sync
 * point not recorded yet), -EBUSY (the list is finalized), -EOVERFLOW
 * (more than 2^32 - 1 commands), -ENOMEM.
 */

/**
 * Record a launch of @p kernel over @p range with the kernel's current
 * arguments, checked as accel_queue_launch() checks them (the range is
 * copied; later accel_kernel_set_arg_*() calls do not change it).
 * @return 0, the common errors, the errors of accel_queue_launch() for
 *         the kernel and range (-EINVAL, -ENOEXEC, -EACCES, -E2BIG,
 *         -EOVERFLOW), -EXDEV (the kernel belongs to another device)
 */
int accel_cmdlist_launch(struct accel_cmdlist *list,
			 struct accel_kernel *kernel,
			 const struct accel_ndrange *range, uint32_t n_deps,
			 const uint32_t *deps, uint32_t *ret_point);

/**
 * Record a copy between buffers, as accel_queue_copy().
 * @return 0, the common errors, -EINVAL (NULL buffer, size 0, overlapping
 *         ranges of one buffer), -ERANGE, -EXDEV (a buffer of another
 *         context, or one the device cannot reach), -EACCES (the
 *         destination is imported read-only), -ENODEV (the device was
 *         unplugged), -E2BIG (the buffer of another device, reached
 *         through an attachment, is above this device's limits:
 *         accel-buffer.h)
 */
int accel_cmdlist_copy(struct accel_cmdlist *list, struct accel_buffer *src,
		       uint64_t src_offset, struct accel_buffer *dst,
		       uint64_t dst_offset, uint64_t size, uint32_t n_deps,
		       const uint32_t *deps, uint32_t *ret_point);

/**
 * Record a fill, as accel_queue_fill() (the pattern is copied).
 * @return 0, the common errors, -EINVAL (NULL argument, bad pattern size,
 *         size 0, misaligned range), -ERANGE, -EXDEV, -EACCES, -ENODEV,
 *         -E2BIG (as for accel_cmdlist_copy())
 */
int accel_cmdlist_fill(struct accel_cmdlist *list, struct accel_buffer *buf,
		       uint64_t offset, uint64_t size, const void *pattern,
		       size_t pattern_size, uint32_t n_deps,
		       const uint32_t *deps, uint32_t *ret_point);

/**
 * Record a barrier: a command that does nothing, after its dependencies
 * or, with none on an out-of-order list, after every command recorded
 * before it; every command recorded after it also runs after it.
 * @return 0 or the common errors
 */
int accel_cmdlist_barrier(struct accel_cmdlist *list, uint32_t n_deps,
			  const uint32_t *deps, uint32_t *ret_point);

/**
 * Record a host function: each submission of the list runs
 * @p fn(@p user_data) as accel_queue_host_fn() does (on a libaccel
 * thread, after the command's dependencies, its result the command's
 * status). Work the device's commands cannot express (strided copies,
 * host memory) goes here. @p fn may run concurrently with itself when the
 * list is submitted again before an earlier submission completed.
 * @param free_fn called with @p user_data once the list and every
 *        submission of it are gone, or at once when this call fails; may
 *        be NULL
 * @return 0, the common errors, -EINVAL (NULL @p fn)
 */
int accel_cmdlist_host_fn(struct accel_cmdlist *list, accel_host_fn fn,
			  void *user_data, void (*free_fn)(void *user_data),
			  uint32_t n_deps, const uint32_t *deps,
			  uint32_t *ret_point);

/**
 * What the launch recorded at @p point does now: a new clone of its
 * kernel, with the arguments recorded (or set by the last
 * accel_cmdlist_update_launch()), which the caller owns and may change,
 * and its range.
 * @param[out] ret_kernel the clone
 * @param[out] ret_range the range; its struct_size says how much of it the
 *        caller has (at least up to flags), the rest is left alone
 * @return 0, -EINVAL (NULL argument, @p point not a launch of the list, a
 *         range struct too small), -ENOMEM
 */
int accel_cmdlist_get_launch(struct accel_cmdlist *list, uint32_t point,
			     struct accel_kernel **ret_kernel,
			     struct accel_ndrange *ret_range);

/**
 * Change a recorded launch: submissions from now on launch @p kernel with
 * the arguments it has now (cloned, as at recording) over @p range (NULL:
 * the range recorded), checked as accel_cmdlist_launch() checks. The
 * kernel must be of the program and function recorded at @p point (as a
 * clone from accel_cmdlist_get_launch() is). The list may be finalized;
 * submissions made before keep the launch they had. On failure the
 * recorded launch is unchanged. OpenCL's
 * cl_khr_command_buffer_mutable_dispatch.
 *
 * Thread-safety: may run while other threads submit the list (each
 * submission sees the launch before or after the change, whole), not
 * concurrently with recording calls or another change of the list.
 *
 * @return 0, -EINVAL (NULL list or kernel, @p point not a launch of the
 *         list, another program or function), the errors of
 *         accel_queue_launch() for the kernel and range (-EINVAL, -ENOEXEC,
 *         -EACCES, -E2BIG, -EOVERFLOW), -ENOMEM
 */
int accel_cmdlist_update_launch(struct accel_cmdlist *list, uint32_t point,
				struct accel_kernel *kernel,
				const struct accel_ndrange *range);

/**
 * End recording: the list can now be submitted, and no longer recorded
 * into.
 * @return 0, -EINVAL (NULL list), -EBUSY (finalized already)
 */
int accel_cmdlist_finalize(struct accel_cmdlist *list);

/**
 * Submit every command of a finalized list to @p queue, a queue of the
 * list's device. The commands wait for @p wait (if one of its fences
 * fails, none of them runs and they fail with its error) and follow the
 * queue's order as any command does (on an in-order queue: after the
 * commands submitted before, in recorded order). @p ret_fence signals
 * when all of them completed, with the first error among them. A command
 * that fails stops the commands that follow it in the list: on an
 * in-order list submitted to an in-order queue every later one, otherwise
 * those that depend on it (directly or not); they fail with its error
 * without running. The queue's error (accel_queue_finish()) is the
 * failed command's.
 *
 * Replays are cheap: on an in-order list submitted to an in-order queue,
 * the launches are prepared (checked, arguments bound) on the first
 * submission and after an accel_cmdlist_update_launch() of them, and
 * each run of consecutive launches goes to the device as one command,
 * where the device supports it (the CPU device does, for lists binding no
 * dma-buf). The usage page (accel-stats.h) counts such a run as the
 * launches it holds.
 *
 * A list may be submitted again before its previous submission
 * completed. On an out-of-order queue the two submissions are then
 * unordered, as any two commands without a wait list are.
 *
 * @param n_wait, wait, ret_fence as for every submission (accel-queue.h)
 * @return 0, the common errors of submissions, -EINVAL (NULL @p list),
 *         -EBUSY (the list is not finalized), -EXDEV (the queue is of
 *         another device), the errors of the recorded commands'
 *         submission (-EACCES, -E2BIG, -ENODEV, -ENOEXEC; the last
 *         only in theory: launches are checked when recorded). On an
 *         error after the first command was submitted, the commands
 *         submitted still run and @p ret_fence is untouched.
 */
int accel_queue_submit_list(struct accel_queue *queue,
			    struct accel_cmdlist *list, uint32_t n_wait,
			    struct accel_fence *const *wait,
			    struct accel_fence **ret_fence);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_CMDLIST_H */
