/* SPDX-License-Identifier: MIT */
/**
 * @file accel-buffer.h
 * @brief Device buffers: allocation, sub-ranges, host mapping.
 *
 * On the CPU reference device a buffer is a sealed memfd mapped once, so
 * host maps are zero-copy and the buffer can later become a dma-buf without
 * a copy.
 *
 * A buffer is made on one device, its home (accel_buffer_get_device()),
 * and is usable by every device of that context: the queues and kernels
 * of another device reach the same memory, shared through its dma-buf
 * (exported on first use) or, for a device that takes host pointers
 * (the CPU), through its host mapping. Where neither works (e.g. user
 * memory for a device that can only import dma-bufs) those calls return
 * -EXDEV. Ordering the work of different devices on one buffer is the
 * caller's (fences), as for two queues of one device.
 *
 * Thread-safety: buffers may be used from any thread. Concurrent maps of
 * the same buffer are allowed; keeping the contents coherent between
 * host writes and kernels is the caller's business (fences).
 */
#ifndef LIBACCEL_ACCEL_BUFFER_H
#define LIBACCEL_ACCEL_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_device;
struct accel_buffer;

/** Kernels only read the buffer. */
#define ACCEL_BUFFER_READ_ONLY (1u << 0)
/** Kernels only write the buffer. */
#define ACCEL_BUFFER_WRITE_ONLY (1u << 1)
/** The host never maps the buffer (lets a device keep it off the CPU). */
#define ACCEL_BUFFER_HOST_NO_ACCESS (1u << 2)
/** The host only maps the buffer for reading. */
#define ACCEL_BUFFER_HOST_READ_ONLY (1u << 3)
/** The host only maps the buffer for writing. */
#define ACCEL_BUFFER_HOST_WRITE_ONLY (1u << 4)
/**
 * Allocate the buffer from the kernel's system dma-buf heap
 * (/dev/dma_heap/system) instead of a memfd, so it is a dma-buf from the
 * start. -EOPNOTSUPP where the heap is missing.
 */
#define ACCEL_BUFFER_DMA_HEAP (1u << 5)
/** All buffer flags defined by this version. */
#define ACCEL_BUFFER_FLAGS_ALL 0x3fu

/** Map for reading. */
#define ACCEL_MAP_READ (1u << 0)
/** Map for writing. */
#define ACCEL_MAP_WRITE (1u << 1)
/** Map for writing; the previous contents of the range need not be kept. */
#define ACCEL_MAP_WRITE_INVALIDATE (1u << 2)
/** All map flags defined by this version. */
#define ACCEL_MAP_FLAGS_ALL 0x7u

/** Implicit sync: the access reads the buffer (DMA_BUF_SYNC_READ). */
#define ACCEL_BUFFER_SYNC_READ (1u << 0)
/** Implicit sync: the access writes the buffer (DMA_BUF_SYNC_WRITE). */
#define ACCEL_BUFFER_SYNC_WRITE (1u << 1)
/** All implicit-sync flags defined by this version. */
#define ACCEL_BUFFER_SYNC_FLAGS_ALL 0x3u

/**
 * Allocate a buffer on a device. The contents start zeroed.
 *
 * @param dev the device
 * @param size bytes, > 0
 * @param flags ACCEL_BUFFER_* (READ_ONLY and WRITE_ONLY exclude each other,
 *        as do the three HOST_* flags)
 * @param[out] ret the buffer, one reference; it holds a device reference
 * On the CPU device a buffer normally costs one file descriptor (its
 * memfd). When the process is out of descriptors the buffer is made from
 * anonymous memory instead, which works the same but can never be exported.
 *
 * @return 0, -EINVAL (NULL argument, size 0, bad flags), -E2BIG (size above
 *         ACCEL_DEVICE_U64_MAX_ALLOC_SIZE), -EOPNOTSUPP
 *         (ACCEL_BUFFER_DMA_HEAP where the kernel has no such heap),
 *         -ENODEV (the device was unplugged), -ENOMEM, -EMFILE (out of
 *         fds, on devices that need one per buffer), -EIO (the device's
 *         driver failed)
 */
int accel_buffer_new(struct accel_device *dev, uint64_t size, uint32_t flags,
		     struct accel_buffer **ret);

/**
 * Wrap caller memory as a buffer without copying (OpenCL's
 * CL_MEM_USE_HOST_PTR). The memory must stay valid until the buffer is
 * freed. Such buffers cannot be exported as dma-bufs.
 *
 * @return 0, -EINVAL (NULL argument, size 0, bad flags), -E2BIG,
 *         -EOPNOTSUPP (the device has no ACCEL_DEVICE_CAP_USER_PTR),
 *         -ENODEV (the device was unplugged), -ENOMEM
 */
int accel_buffer_new_user_ptr(struct accel_device *dev, void *ptr,
			      uint64_t size, uint32_t flags,
			      struct accel_buffer **ret);

/**
 * Create a buffer that aliases a range of @p parent (it holds a reference
 * on the parent). Sub-buffers of sub-buffers are not allowed.
 *
 * @param offset byte offset, a multiple of ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN
 * @param size bytes, > 0, offset + size within the parent
 * @param flags ACCEL_BUFFER_* or 0 to inherit the parent's; must not grant
 *        access the parent forbids
 * @return 0, -EINVAL (NULL argument, size 0, bad flags, parent is a
 *         sub-buffer, access wider than the parent's, misaligned offset),
 *         -ERANGE (range outside the parent), -ENODEV (the device was
 *         unplugged), -ENOMEM
 */
int accel_buffer_new_sub(struct accel_buffer *parent, uint64_t offset,
			 uint64_t size, uint32_t flags,
			 struct accel_buffer **ret);

/** Take a reference. Returns @p buf (NULL stays NULL). */
struct accel_buffer *accel_buffer_ref(struct accel_buffer *buf);

/** Drop a reference. Returns NULL. Queued work keeps its own references. */
struct accel_buffer *accel_buffer_unref(struct accel_buffer *buf);

/** @return the size in bytes, 0 for NULL */
uint64_t accel_buffer_get_size(struct accel_buffer *buf);

/** @return the ACCEL_BUFFER_* flags, 0 for NULL */
uint32_t accel_buffer_get_flags(struct accel_buffer *buf);

/** @return the device (no new reference), NULL for NULL */
struct accel_device *accel_buffer_get_device(struct accel_buffer *buf);

/** @return the parent of a sub-buffer (no new reference), else NULL */
struct accel_buffer *accel_buffer_get_parent(struct accel_buffer *buf);

/** @return the offset of a sub-buffer in its parent, else 0 */
uint64_t accel_buffer_get_offset(struct accel_buffer *buf);

/**
 * Map a range of the buffer into the host address space. Maps nest: each
 * successful map needs one accel_buffer_unmap() with the returned pointer.
 * The map does not wait for queued work: wait on its fences first.
 *
 * @param offset, size the range (size > 0)
 * @param flags ACCEL_MAP_* (at least one)
 * @param[out] ret host address of byte @p offset
 * @return 0, -EINVAL (NULL argument, size 0, bad flags), -ERANGE (range
 *         outside the buffer), -EACCES (map direction forbidden by the
 *         buffer's HOST_* flags), -EOPNOTSUPP (device memory the host
 *         cannot reach), -ENODEV (the device was unplugged), -ENOMEM
 */
int accel_buffer_map(struct accel_buffer *buf, uint64_t offset, uint64_t size,
		     uint32_t flags, void **ret);

/**
 * Release a mapping made by accel_buffer_map().
 * @return 0, -EINVAL (NULL @p buf, @p ptr is not a live mapping of @p buf)
 */
int accel_buffer_unmap(struct accel_buffer *buf, void *ptr);

/**
 * Export the buffer as a dma-buf file descriptor, without copying. On the
 * CPU device a memfd-backed buffer becomes a dma-buf through /dev/udmabuf;
 * a heap buffer's own dma-buf is duplicated. A sub-buffer exports its range
 * of the parent, which must then start and end on page boundaries.
 *
 * From the first export on, the buffer keeps its own reference to the
 * dma-buf: host maps are bracketed with DMA_BUF_IOCTL_SYNC and commands
 * wait for fences other devices attached to it (implicit sync).
 *
 * The dma-buf is named (DMA_BUF_SET_NAME) after accel_buffer_set_name(),
 * "libaccel" by default.
 *
 * @param flags 0 (none defined yet)
 * @param[out] ret_fd the new fd (O_CLOEXEC, read/write), owned by the caller
 * @return 0, -EINVAL (NULL argument, unknown flags, sub-buffer range not
 *         page aligned), -EOPNOTSUPP (the kernel offers neither udmabuf nor
 *         dma-buf heaps; user-pointer or anonymous-memory buffers), -EMFILE,
 *         -ENOMEM, -EIO (the device's driver failed), or the kernel's
 *         errno. An imported buffer exports a
 *         duplicate of the fd it was imported from (same access mode).
 */
int accel_buffer_export_dmabuf(struct accel_buffer *buf, uint32_t flags,
			       int *ret_fd);

/**
 * Import a dma-buf (from a GPU driver, a dma-buf heap, udmabuf, another
 * libaccel) as a buffer of @p dev without copying. The fd is borrowed: the
 * buffer keeps its own duplicate. The size is the dma-buf's. Use
 * accel_buffer_new_sub() for a range of it.
 *
 * Every host map and, on the CPU device, every command touching the buffer
 * is bracketed with DMA_BUF_IOCTL_SYNC; commands first wait for the fences
 * already attached to the dma-buf (implicit sync).
 *
 * @param fd a dma-buf file descriptor
 * @param flags ACCEL_BUFFER_* access flags (not DMA_HEAP); with
 *        ACCEL_BUFFER_READ_ONLY (or an fd opened read-only) the buffer is
 *        mapped read-only, gets ACCEL_BUFFER_HOST_READ_ONLY unless another
 *        host flag is given, and every write through libaccel (host maps,
 *        queue writes, kernels) is refused with -EACCES
 * @return 0, -EBADF (@p fd is not open, or is a dma-buf opened with O_PATH,
 *         which allows no I/O), -ENOTTY (@p fd is not a dma-buf),
 *         -EINVAL (NULL argument, bad flags), -EACCES (WRITE_ONLY or
 *         HOST_WRITE_ONLY on a read-only import), -EOPNOTSUPP (the device
 *         cannot import dma-bufs), -E2BIG, -ENODEV (the device was
 *         unplugged), -ENOMEM, -EIO (the device's driver failed), or the
 *         kernel's errno
 */
int accel_buffer_import_dmabuf(struct accel_device *dev, int fd,
			       uint32_t flags, struct accel_buffer **ret);

/**
 * Name the buffer (shown in /sys/kernel/debug/dma_buf/bufinfo once it is
 * exported). Applied to an already exported dma-buf too.
 * @param name up to 31 bytes, printable
 * @return 0, -EINVAL (NULL argument, sub-buffer), -ENAMETOOLONG
 */
int accel_buffer_set_name(struct accel_buffer *buf, const char *name);

/**
 * Export the implicit fences of a dma-buf-backed buffer as a sync_file
 * (DMA_BUF_IOCTL_EXPORT_SYNC_FILE, Linux 6.0): a snapshot of the fences
 * that an access of the given kind must wait for, attached by any device
 * or process using the dma-buf. For ACCEL_BUFFER_SYNC_READ those are the
 * writers' fences; with ACCEL_BUFFER_SYNC_WRITE, every fence (readers
 * too). A sync_file with no fences is already signalled.
 *
 * The buffer must be a dma-buf: exported once (accel_buffer_export_dmabuf())
 * or imported (accel_buffer_import_dmabuf()). A sub-buffer uses its
 * parent's dma-buf. Thread safe.
 *
 * @param flags ACCEL_BUFFER_SYNC_READ and/or ACCEL_BUFFER_SYNC_WRITE (at
 *        least one; both act as WRITE)
 * @param[out] ret_fd the sync_file (O_CLOEXEC), owned by the caller
 * @return 0, -EINVAL (NULL argument, no or unknown flags), -EOPNOTSUPP
 *         (the buffer is not a dma-buf; the kernel is older than 6.0),
 *         -EMFILE, -ENOMEM, or the kernel's errno
 */
int accel_buffer_export_sync_file(struct accel_buffer *buf, uint32_t flags,
				  int *ret_fd);

/**
 * Attach a sync_file's fence to a dma-buf-backed buffer as an implicit
 * fence (DMA_BUF_IOCTL_IMPORT_SYNC_FILE, Linux 6.0): accesses that
 * implicit sync orders after it (libaccel's commands on the buffer, other
 * devices' and processes' jobs on the dma-buf) wait for it. As
 * ACCEL_BUFFER_SYNC_WRITE every later access waits for it; as
 * ACCEL_BUFFER_SYNC_READ only later writers do.
 *
 * The fd is borrowed: the kernel takes a reference to its fence, not to
 * the fd, which the caller still owns and closes. The buffer must be a
 * dma-buf, as for accel_buffer_export_sync_file(). Thread safe.
 *
 * @param sync_fd a sync_file
 * @param flags ACCEL_BUFFER_SYNC_READ or ACCEL_BUFFER_SYNC_WRITE (at least
 *        one; both act as WRITE)
 * @return 0, -EINVAL (NULL @p buf, no or unknown flags, @p sync_fd is not
 *         a sync_file), -EBADF (@p sync_fd is not open, or opened O_PATH),
 *         -EOPNOTSUPP (the buffer is not a dma-buf; the kernel is older
 *         than 6.0), -ENOMEM, or the kernel's errno
 */
int accel_buffer_import_sync_file(struct accel_buffer *buf, int sync_fd,
				  uint32_t flags);

/** Attach an opaque pointer. @return 0 or -EINVAL (NULL @p buf) */
int accel_buffer_set_user_data(struct accel_buffer *buf, void *user_data);

/** @return the opaque pointer, NULL if none or @p buf is NULL */
void *accel_buffer_get_user_data(struct accel_buffer *buf);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_BUFFER_H */
