/* SPDX-License-Identifier: MIT */
/*
 * The platform layer: the kernel interfaces libaccel speaks (ioctl choke
 * point, dma-buf, sync_file, udev discovery). No libaccel objects here
 * beyond the context (for logging and the open interface).
 *
 * All functions return 0 (or a documented non-negative value) on success
 * and a negative errno on failure; fds returned are O_CLOEXEC and owned by
 * the caller; fds passed in are borrowed.
 */
#ifndef LIBACCEL_PLATFORM_H
#define LIBACCEL_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <libaccel/accel-discovery.h>

struct accel_context;
struct accel_candidates;

/* ---- ioctl.c ---- */

/*
 * The one door for every ioctl libaccel makes: retries EINTR and EAGAIN,
 * returns the ioctl's non-negative result or -errno. Tests can interpose
 * it with -Wl,--wrap=accel_ioctl.
 */
int accel_ioctl(int fd, unsigned long request, void *arg);

/*
 * Is @fd open with O_PATH? Such an fd is open but allows no I/O: ioctl,
 * poll, mmap and lseek fail with EBADF, and libaccel reports -EBADF too.
 */
bool accel_fd_is_o_path(int fd);

/* ---- dmabuf.c ---- */

/*
 * 0 if @fd is a dma-buf; -EBADF if not open or an O_PATH fd of a dma-buf;
 * -ENOTTY if something else.
 */
int accel_dmabuf_check(int fd);

/* Size in bytes of a dma-buf. */
int accel_dmabuf_get_size(int fd, uint64_t *ret);

/* DMA_BUF_IOCTL_SYNC: @start or end of CPU access, reading and/or writing. */
int accel_dmabuf_sync(int fd, bool start, bool read, bool write);

/* DMA_BUF_SET_NAME (the kernel copies up to 32 bytes). */
int accel_dmabuf_set_name(int fd, const char *name);

/*
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE: a sync_file of the fences a new access
 * must wait for (@write: all fences; else only writers').
 */
int accel_dmabuf_export_sync_file(int fd, bool write, int *ret_fd);

/* DMA_BUF_IOCTL_IMPORT_SYNC_FILE: attach @sync_fd's fence as a reader or writer. */
int accel_dmabuf_import_sync_file(int fd, bool write, int sync_fd);

/*
 * udmabuf: a dma-buf over [offset, offset+size) of a sealed memfd (both
 * page aligned). Opens /dev/udmabuf through the context's open interface.
 * -EOPNOTSUPP when the kernel has no udmabuf.
 */
int accel_udmabuf_create(struct accel_context *ctx, int memfd, uint64_t offset,
			 uint64_t size, int *ret_fd);

/*
 * Allocate @size bytes from /dev/dma_heap/<heap> (e.g. "system").
 * -EOPNOTSUPP when the heap does not exist.
 */
int accel_dma_heap_alloc(struct accel_context *ctx, const char *heap,
			 uint64_t size, int *ret_fd);

/* Would accel_udmabuf_create / accel_dma_heap_alloc work here (access(2))? */
bool accel_udmabuf_available(void);
bool accel_dma_heap_available(const char *heap);

/* ---- sync-file.c ---- */

/*
 * 0 if @fd is a sync_file; -EBADF if not open or O_PATH (unless it is a
 * device, directory or FIFO); -EINVAL if something else.
 */
int accel_sync_file_check(int fd);

/* 1 signalled, 0 still active, or the negative error it signalled with. */
int accel_sync_file_status(int fd);

/*
 * poll() until readable, EINTR-safe: 0, -ETIME, or -errno. Any pollable
 * fd: no check that it is a sync_file (accel_sync_file_wait() of
 * accel-fence.h checks, and reports the fence's error).
 */
int accel_sync_file_poll(int fd, int64_t timeout_ns);

/*
 * accel_sync_file_wait(), _merge(), _get_info() and _set_deadline() are
 * public (accel-fence.h), defined by the core's sync-file.c.
 */

/* ---- udev.c ---- */

/*
 * What discovery knows about a candidate device before opening anything:
 * one entry per physical device (a DRM card node and its render node are
 * one entry). Strings are "" when unknown, never NULL.
 */
struct accel_udev_info {
	const char *subsystem;      /* "accel" or "drm" */
	const char *syspath;        /* of the node's device (card0, accel0) */
	const char *sysname;        /* "accel0", "card0" */
	const char *devnode;        /* "/dev/accel/accel0", "/dev/dri/card0" */
	/*
	 * "/dev/dri/renderD128" or "". A render node without a card node is
	 * an entry of its own with devnode == render_devnode.
	 */
	const char *render_devnode;
	const char *driver;         /* bound driver of the parent, "" if none */
	const char *parent_syspath; /* the bus device */
	const char *bus;            /* "pci", "platform", ... */
	uint32_t vendor_id, device_id; /* PCI ids, 0 if none */
	uint32_t subsystem_vendor_id, subsystem_device_id;
	const char *pci_slot;       /* "0000:00:02.0" or "" */
	int numa_node;              /* -1 if none */
	dev_t devnum;
};

/*
 * Enumerate accel and DRM devices and call @fn for each; stops at the
 * first negative return of @fn and returns it. -EOPNOTSUPP without udev.
 */
int accel_udev_enumerate(struct accel_context *ctx,
			 int (*fn)(const struct accel_udev_info *info,
				   void *data),
			 void *data);

/* A udev monitor on subsystems accel and drm (hot-plug). */
struct accel_udev_monitor;

int accel_udev_monitor_new(struct accel_context *ctx,
			   struct accel_udev_monitor **ret);
void accel_udev_monitor_free(struct accel_udev_monitor *mon);

/* The monitor's socket (borrowed). */
int accel_udev_monitor_fd(struct accel_udev_monitor *mon);

/*
 * Receive every pending event and call @fn (if set) for the accel and
 * DRM nodes among them. Returns how many were delivered.
 */
int accel_udev_monitor_dispatch(struct accel_context *ctx,
				struct accel_udev_monitor *mon,
				accel_hotplug_fn fn, void *data);

/* ---- diagnose.c ---- */

/*
 * Record a candidate @info during enumeration or a rescan (under the
 * context's enum_lock): @dev is the context's device made from it, or
 * NULL if no backend claimed it. Failure only loses the record, so it is
 * logged, not returned.
 */
struct accel_device;
void accel_candidate_add(struct accel_context *ctx,
			 const struct accel_udev_info *info,
			 struct accel_device *dev);

/* Forget every record before a rescan (under enum_lock). */
void accel_candidates_clear(struct accel_context *ctx);

/* Free the records, at context teardown. */
void accel_candidates_free(struct accel_candidates *list);

#endif /* LIBACCEL_PLATFORM_H */
