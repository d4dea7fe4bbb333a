/* SPDX-License-Identifier: MIT */
/*
 * The GEM layer the DRM-facing backends share (backends/drm/ and
 * backends/accel/): the per-file handle table, PRIME and syncobj over
 * accel_ioctl (0 or a negative errno, like the rest of libaccel, and
 * one seam for tests that fake a node with -Wl,--wrap=accel_ioctl).
 */
#ifndef LIBACCEL_GEM_H
#define LIBACCEL_GEM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm.h>

/*
 * What a backend's device embeds, as the first member of its
 * dev->backend_data: the buffer ops below find it from the buffer.
 */
struct gem_device {
	int fd;                       /* the node; the backend owns it */
	uint32_t prime_caps;          /* DRM_PRIME_CAP_* */
	/*
	 * GEM handles are per open file and not counted by the kernel:
	 * importing a dma-buf this file already knows (twice the same fd,
	 * or our own export) returns the same handle, and one GEM_CLOSE
	 * would pull it from under every buffer using it. So each handle
	 * has a count of its users here.
	 */
	pthread_mutex_t handles_lock;
	void *handles;                /* tsearch(3) tree */
	size_t n_handles;             /* in the tree (tests check it) */
};

void gem_device_init(struct gem_device *g, int fd, uint32_t prime_caps);
/* Every handle must be put by now. Does not close the fd. */
void gem_device_fini(struct gem_device *g);

/* ---- handle table (gem-handle.c) ---- */

/*
 * A new object: create(fd, arg, &handle) is the driver's create ioctl,
 * run under the table's lock so that the handle is counted before any
 * other thread can close it. 0 or a negative errno.
 */
int gem_handle_create(struct gem_device *g,
		      int (*create)(int fd, void *arg, uint32_t *ret_handle),
		      void *arg, uint32_t *ret_handle);
/* The handle of @dmabuf (PRIME import), one more user of it. */
int gem_handle_import(struct gem_device *g, int dmabuf, uint32_t *ret_handle);
/* One user less; GEM_CLOSE after the last. */
void gem_handle_put(struct gem_device *g, uint32_t handle);

/* ---- PRIME (gem-prime.c) ---- */

int gem_prime_fd_to_handle(int fd, int dmabuf, uint32_t *ret_handle);
/* @flags: O_CLOEXEC, O_RDWR. */
int gem_prime_handle_to_fd(int fd, uint32_t handle, uint32_t flags,
			   int *ret_fd);
int gem_close(int fd, uint32_t handle);

/* ---- syncobjs (gem-syncobj.c) ---- */

int gem_syncobj_create(int fd, uint32_t flags, uint32_t *ret_handle);
int gem_syncobj_destroy(int fd, uint32_t handle);
int gem_syncobj_reset(int fd, const uint32_t *handles, uint32_t n);
/* The fence the syncobj holds now, as a new sync_file (O_CLOEXEC). */
int gem_syncobj_export_sync_file(int fd, uint32_t handle, int *ret_fd);
/* Replace the syncobj's fence by @sync_fd's (not taken over). */
int gem_syncobj_import_sync_file(int fd, uint32_t handle, int sync_fd);

/* ---- buffers (gem-buffer.c) ---- */

struct accel_buffer;

/* buf->backend_data of both backends. */
struct gem_buffer {
	uint32_t handle;              /* counted in the handle table */
	void *map;                    /* whole-object mapping or NULL */
	size_t map_len;
};

/*
 * An own object of @size bytes (the kernel's word; less than buf->size
 * is -EIO), @b->handle counted already: if @map, map it through the node
 * at @mmap_offset as buf->host_ptr.
 */
int gem_buffer_map_node(struct accel_buffer *buf, struct gem_buffer *b,
			uint64_t mmap_offset, uint64_t size, bool map);
/* Unmap, put the handle and free @b (a buffer that is not set up). */
void gem_buffer_discard(struct gem_device *g, struct gem_buffer *b);
/* The backend op buffer_free. */
void gem_buffer_free(struct accel_buffer *buf);
/*
 * The backend op buffer_export_dmabuf: PRIME export of the whole object
 * (-EOPNOTSUPP for a part of it).
 */
int gem_buffer_export(struct accel_buffer *buf, uint64_t offset,
		      uint64_t size, int *ret_fd);
/*
 * buf->dmabuf_fd as a GEM object of the device; if @map, mapped through
 * the dma-buf (read-only unless the fd and the buffer's flags allow
 * writes). Sets buf->backend_data.
 */
int gem_buffer_import(struct accel_buffer *buf, bool map);

/* ---- the node (gem-node.c) ---- */

struct accel_context;
struct accel_udev_info;

struct gem_node_version {
	int major, minor, patch;
	char name[64];                /* the driver's */
	char desc[256];
};

/* DRM_IOCTL_VERSION (strings cut to the arrays above). */
int gem_node_version(int fd, struct gem_node_version *ret);
int gem_node_get_cap(int fd, uint64_t cap, uint64_t *ret);
/*
 * Is @driver behind the node of @info: bound to the node's device, or,
 * with no driver bound, named by a bare platform device (@driver or
 * @driver.N: vgem registers one and binds nothing; gem_node_identify()
 * confirms it once the node is open)?
 */
bool gem_node_driver_is(const struct accel_udev_info *info,
			const char *driver);
/*
 * The properties every GEM node's device has alike: PRIME as dma-buf
 * caps (@prime_caps, DRM_PRIME_CAP_*; other caps bits are the backend's
 * to add), ids and NUMA node from @info, no local memory, 128-byte
 * alignment, 3 dimensions, 1 ns timer; with @system_memory the RAM as
 * global memory and OpenCL's quarter-of-it rule (at least 128 MiB) for
 * one allocation, otherwise both unknown (0). The backend sets the rest.
 */
void gem_node_set_props(struct accel_device *dev,
			const struct accel_udev_info *info,
			uint32_t prime_caps, bool system_memory);
/*
 * A probe's first step: a node of @subsystem with a driver the backend
 * @backend knows (@match, its table lookup by gem_node_driver_is())?
 * Returns what @match returned, or NULL: not this backend's node (logged
 * at debug level when only the driver is unknown).
 */
const void *gem_node_claim(struct accel_context *ctx,
			   const struct accel_udev_info *info,
			   const char *subsystem, const char *backend,
			   const void *(*match)(const struct accel_udev_info *));
/*
 * Open a discovered node (for @driver) through the context: 1 with the
 * fd, 0 if it cannot be used (logged at info level), or -ENOMEM.
 */
int gem_node_open(struct accel_context *ctx,
		  const struct accel_udev_info *info, const char *driver,
		  int *ret_fd);
/*
 * Make sure @driver is behind the open node @fd: 1 with its version, or
 * 0 when it is not (logged at info level; @fd closed).
 */
int gem_node_identify(struct accel_context *ctx,
		      const struct accel_udev_info *info, int fd,
		      const char *driver, struct gem_node_version *ret);

/* ---- execution (gem-transfer.c, gem-worker.c) ---- */

struct accel_cmd;
struct gem_worker;

/*
 * A read, write, copy or fill run by the host through the buffers'
 * mappings, DMA_BUF_IOCTL_SYNC around accesses to dma-bufs; marks the
 * command started. 0 or a negative errno (-EACCES: a buffer without
 * host access, or a write through a read-only mapping).
 */
int gem_host_transfer(struct accel_cmd *cmd);

/*
 * A completion thread named @name: appended commands are run by
 * run(cmd) one at a time, in order, then completed with its status.
 * The command stays at the FIFO's head while it runs. It uses
 * cmd->backend_priv[0].
 */
int gem_worker_new(const char *name, int (*run)(struct accel_cmd *cmd),
		   struct gem_worker **ret);
/*
 * Stop and free the worker once the FIFO is empty. Safe on the worker
 * itself (a completion dropped the last context reference): it then
 * frees itself on its way out, touching nothing of the backend's.
 */
void gem_worker_destroy(struct gem_worker *w);
void gem_worker_append(struct gem_worker *w, struct accel_cmd *cmd);
/* For a backend that must order something else with the FIFO. */
void gem_worker_lock(struct gem_worker *w);
void gem_worker_unlock(struct gem_worker *w);
void gem_worker_append_locked(struct gem_worker *w, struct accel_cmd *cmd);

#endif /* LIBACCEL_GEM_H */
