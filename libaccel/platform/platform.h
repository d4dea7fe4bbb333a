/* SPDX-License-Identifier: MIT */
/*
 * The platform layer: the kernel interfaces libaccel speaks (ioctl choke
 * point, dma-buf, sync_file, udev discovery). No libaccel objects here:
 * what needs to open a node or log gets a struct accel_platform_env.
 *
 * All functions return 0 (or a documented non-negative value) on success
 * and a negative errno on failure; fds returned are O_CLOEXEC and owned by
 * the caller; fds passed in are borrowed.
 */
#ifndef LIBACCEL_PLATFORM_H
#define LIBACCEL_PLATFORM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "platform/macros.h"

/* ---- the caller's environment ---- */

/*
 * How the platform opens device nodes and logs, supplied by its user (the
 * core fills one per context from its open interface and log handler).
 * Every member but data is required.
 */

/* Log priorities: syslog's levels (so the core's ACCEL_LOG_* too). */
#define PLAT_LOG_INFO 6
#define PLAT_LOG_DEBUG 7

struct accel_platform_env {
	/* An O_CLOEXEC fd or -errno. */
	int (*open)(void *data, const char *path, int flags);
	void (*close)(void *data, int fd);
	bool (*log_enabled)(void *data, int priority);
	void (*log)(void *data, int priority, const char *file, int line,
		    const char *fn, const char *format, va_list ap);
	void *data;
};

static inline bool plat_log_enabled(const struct accel_platform_env *env,
				    int priority)
{
	return env && env->log_enabled(env->data, priority);
}

static inline _printf_(6, 7) void
plat_log(const struct accel_platform_env *env, int priority,
	 const char *file, int line, const char *fn, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	env->log(env->data, priority, file, line, fn, format, ap);
	va_end(ap);
}

#define plat_log_cond(env, prio, ...)                                          \
	do {                                                                   \
		if (plat_log_enabled((env), (prio)))                            \
			plat_log((env), (prio), __FILE__, __LINE__, __func__,   \
				 __VA_ARGS__);                                  \
	} while (0)

#define plat_info(env, ...) plat_log_cond(env, PLAT_LOG_INFO, __VA_ARGS__)
#define plat_dbg(env, ...) plat_log_cond(env, PLAT_LOG_DEBUG, __VA_ARGS__)

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
 * page aligned). Opens /dev/udmabuf through @env.
 * -EOPNOTSUPP when the kernel has no udmabuf.
 */
int accel_udmabuf_create(const struct accel_platform_env *env, int memfd,
			 uint64_t offset, uint64_t size, int *ret_fd);

/*
 * Allocate @size bytes from /dev/dma_heap/<heap> (e.g. "system").
 * -EOPNOTSUPP when the heap does not exist.
 */
int accel_dma_heap_alloc(const struct accel_platform_env *env,
			 const char *heap, uint64_t size, int *ret_fd);

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

/* ---- node-check.c ---- */

enum accel_node_reason {
	ACCEL_NODE_OPENS = 0,          /* stat and open work */
	ACCEL_NODE_MISSING,            /* no such node (or it vanished) */
	ACCEL_NODE_PERMISSION_DENIED,  /* EACCES, or EPERM the mode explains */
	ACCEL_NODE_CGROUP_DENIED,      /* EPERM the mode bits do not explain */
	ACCEL_NODE_NO_DRIVER,          /* @driver is "" */
	ACCEL_NODE_OPEN_FAILED,        /* stat or open failed otherwise */
};

struct accel_node_verdict {
	int reason;             /* enum accel_node_reason */
	int open_errno;         /* errno of the failed stat or open, else 0 */
	const char *path;       /* @render if not "", else @devnode */
	bool has_group;         /* the node was stat'ed with a driver bound */
	char *group;            /* its group's name (malloc'ed, may be NULL) */
	char *message;          /* why, for people (malloc'ed; NULL without
				 * memory and for ACCEL_NODE_OPENS) */
};

/*
 * Check the node of a device (the render node when @render is not "",
 * since opening a primary node may make us DRM master) with stat and an
 * open through @env (closed again at once); @driver is the bound kernel
 * driver or "". The caller frees @v->group and @v->message.
 */
void accel_node_check(const struct accel_platform_env *env,
		      const char *devnode, const char *render,
		      const char *driver, struct accel_node_verdict *v);

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
int accel_udev_enumerate(const struct accel_platform_env *env,
			 int (*fn)(const struct accel_udev_info *info,
				   void *data),
			 void *data);

/* A udev monitor on subsystems accel and drm (hot-plug). */
struct accel_udev_monitor;

int accel_udev_monitor_new(const struct accel_platform_env *env,
			   struct accel_udev_monitor **ret);
void accel_udev_monitor_free(struct accel_udev_monitor *mon);

/* The monitor's socket (borrowed). */
int accel_udev_monitor_fd(struct accel_udev_monitor *mon);

/* One hot-plug event: a node added (@add) or removed. */
typedef void (*accel_udev_event_fn)(bool add, const char *subsystem,
				    const char *sysname, const char *devnode,
				    void *data);

/*
 * Receive every pending event and call @fn (if set) for the accel and
 * DRM nodes among them. Returns how many were delivered.
 */
int accel_udev_monitor_dispatch(const struct accel_platform_env *env,
				struct accel_udev_monitor *mon,
				accel_udev_event_fn fn, void *data);

#endif /* LIBACCEL_PLATFORM_H */
