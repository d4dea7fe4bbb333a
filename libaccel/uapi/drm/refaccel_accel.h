/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * refaccel: the user-space API of libaccel's reference accel driver
 * (tests/kernel/refaccel/), a software "DMA engine" behind
 * /dev/accel/accelN. This is the one copy: the driver and libaccel's
 * accel backend both include it.
 *
 * The device has buffers (GEM objects in system memory, shared with
 * PRIME) and one engine that runs copy, fill and factorial jobs in
 * submission order.
 * Generic DRM ioctls work as usual: DRM_IOCTL_VERSION, GEM_CLOSE,
 * PRIME_HANDLE_TO_FD / PRIME_FD_TO_HANDLE and the SYNCOBJ_* family.
 *
 * Synchronisation:
 * - explicit: a job waits for the fences in its in-syncobjs and puts its
 *   own fence into its out-syncobj at submit time, so a sync_file can be
 *   exported from it (DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD with
 *   EXPORT_SYNC_FILE) before the job has run;
 * - implicit: a job also waits for the fences in its buffers' reservation
 *   objects (all of them for the destination, writers' for the source)
 *   and adds its own fence there (as writer of the destination, reader of
 *   the source), so other devices sharing the dma-buf see it.
 *
 * Errors (negative errno from ioctl(2), errno in user space):
 * - EINVAL: unknown flags or op, non-zero padding, zero size, bad fill
 *   pattern, a factorial job on partial or unaligned words, a range
 *   outside its buffer, an in-syncobj with no fence;
 * - ENOENT: a buffer or syncobj handle this file does not have;
 * - E2BIG: a buffer larger than the device's memory, or too many
 *   in-syncobjs;
 * - EFAULT: an unreadable in_syncobjs array;
 * - ENOMEM: out of memory.
 * A job whose in-fence signalled an error does not run; its own fence
 * signals with that error (visible as the sync_file's status).
 */
#ifndef _UAPI_REFACCEL_ACCEL_H_
#define _UAPI_REFACCEL_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* DRM_IOCTL_VERSION's name */
#define REFACCEL_DRIVER_NAME "refaccel"

#define DRM_REFACCEL_BO_CREATE 0x00
#define DRM_REFACCEL_BO_INFO 0x01
#define DRM_REFACCEL_SUBMIT 0x02

#define DRM_IOCTL_REFACCEL_BO_CREATE                                      \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_REFACCEL_BO_CREATE,               \
		 struct drm_refaccel_bo_create)
#define DRM_IOCTL_REFACCEL_BO_INFO                                        \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_REFACCEL_BO_INFO,                 \
		 struct drm_refaccel_bo_info)
#define DRM_IOCTL_REFACCEL_SUBMIT                                         \
	DRM_IOW(DRM_COMMAND_BASE + DRM_REFACCEL_SUBMIT,                   \
		struct drm_refaccel_submit)

/**
 * struct drm_refaccel_bo_create - make a zeroed buffer
 * @size: in: bytes, 1 to the device's memory; rounded up to pages
 * @flags: in: must be 0
 * @handle: out: GEM handle, released with DRM_IOCTL_GEM_CLOSE
 * @pad: must be 0
 */
struct drm_refaccel_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u32 pad2;
};

/**
 * struct drm_refaccel_bo_info - what a buffer is and how to map it
 * @handle: in: a GEM handle of this file (own or imported)
 * @flags: in: must be 0
 * @size: out: bytes (whole pages)
 * @mmap_offset: out: the offset to pass to mmap(2) on the accel node
 */
struct drm_refaccel_bo_info {
	__u32 handle;
	__u32 flags;
	__u64 size;
	__u64 mmap_offset;
};

/* drm_refaccel_submit.op */
#define REFACCEL_OP_COPY 1 /* src[src_offset..] to dst[dst_offset..] */
#define REFACCEL_OP_FILL 2 /* pattern repeated over dst[dst_offset..] */
/*
 * Each 32-bit word w (CPU byte order) of src[src_offset..] gives the word
 * w! modulo 2^32 at the same place of dst[dst_offset..]: the wrapping
 * 32-bit product edu's factorial unit computes, so 0! = 1 and every
 * w >= 34 gives 0 (34! is a multiple of 2^32).
 */
#define REFACCEL_OP_FACTORIAL 3

#define REFACCEL_MAX_PATTERN 128
#define REFACCEL_MAX_IN_SYNCOBJS 64

/**
 * struct drm_refaccel_submit - queue one job on the engine
 * @op: REFACCEL_OP_*
 * @flags: must be 0
 * @dst_handle: buffer written
 * @src_handle: buffer read (COPY, FACTORIAL; ignored for FILL); may be
 *	@dst_handle, the ranges may then overlap (memmove semantics: the
 *	result is as if the whole source were read first)
 * @dst_offset: byte offset of the range in the destination; FACTORIAL:
 *	a multiple of 4
 * @src_offset: byte offset of the range in the source (COPY, FACTORIAL);
 *	FACTORIAL: a multiple of 4
 * @size: bytes, > 0; FILL: a multiple of @pattern_size; FACTORIAL: a
 *	multiple of 4
 * @in_syncobjs: user pointer to an array of __u32 syncobj handles whose
 *	current fences the job waits for
 * @in_syncobj_count: entries in @in_syncobjs, at most
 *	REFACCEL_MAX_IN_SYNCOBJS
 * @out_syncobj: syncobj that receives the job's fence, 0 for none
 * @pattern_size: FILL: 1 to REFACCEL_MAX_PATTERN bytes
 * @pad: must be 0
 * @pattern: FILL: the pattern's bytes
 *
 * Jobs run in the order they were submitted, one at a time, whichever
 * file submitted them.
 */
struct drm_refaccel_submit {
	__u32 op;
	__u32 flags;
	__u32 dst_handle;
	__u32 src_handle;
	__u64 dst_offset;
	__u64 src_offset;
	__u64 size;
	__u64 in_syncobjs;
	__u32 in_syncobj_count;
	__u32 out_syncobj;
	__u32 pattern_size;
	__u32 pad;
	__u8 pattern[REFACCEL_MAX_PATTERN];
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_REFACCEL_ACCEL_H_ */
