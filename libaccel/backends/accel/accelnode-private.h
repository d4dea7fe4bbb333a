/* SPDX-License-Identifier: MIT */
/*
 * The accel-node backend: devices behind /dev/accel/accelN whose kernel
 * driver runs the work (or behind the render node such a driver registers
 * where the kernel has no accel subsystem). Buffers are the driver's GEM
 * objects (shared with PRIME), commands become kernel jobs with a syncobj
 * out-fence each, and completion is seen by waiting on those syncobjs in
 * order on one thread per device.
 *
 * What differs between drivers (their ioctls, limits, built-in kernels)
 * sits behind struct accelnode_driver: one small file per driver
 * (accelnode-refaccel.c), one line in the table of accelnode-device.c.
 */
#ifndef LIBACCEL_ACCELNODE_PRIVATE_H
#define LIBACCEL_ACCELNODE_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/gem/gem.h"

struct accel_buffer;
struct accel_cmd;
struct accel_device;
struct accel_fence;
struct accel_kernel_info;
struct accel_queue;

/* ---- what a driver file provides ---- */

enum accelnode_op {
	ACCELNODE_OP_COPY = 1,
	ACCELNODE_OP_FILL,
	/*
	 * From here on a driver's own operations (its built-in kernels),
	 * made by its launch_job and read by its submit only. They are
	 * shaped like a COPY: dst, src, offsets, size.
	 */
	ACCELNODE_OP_DRIVER = 0x100,
};

/* One engine job, as the generic code describes it to a driver. */
struct accelnode_job {
	enum accelnode_op op;         /* or ACCELNODE_OP_DRIVER + n */
	uint32_t dst, src;            /* GEM handles (src: not FILL) */
	uint64_t dst_offset, src_offset, size;
	const uint8_t *pattern;       /* FILL */
	uint32_t pattern_size;
	uint32_t out_syncobj;         /* receives the job's fence */
	const uint32_t *in_syncobjs;  /* fences to wait for first */
	uint32_t n_in_syncobjs;       /* at most ACCEL_CMD_MAX_IN_SYNC */
};

struct accelnode_driver {
	const char *name;             /* DRM_IOCTL_VERSION's and sysfs' */
	uint32_t max_pattern;         /* largest FILL pattern, bytes */

	/* A zeroed buffer of at least @size bytes; its GEM handle. */
	int (*bo_create)(int fd, uint64_t size, uint32_t *ret_handle);
	/* Size and mmap(2) offset of a buffer (own or imported). */
	int (*bo_info)(int fd, uint32_t handle, uint64_t *ret_size,
		       uint64_t *ret_mmap_offset);
	/* Queue a job; its fence goes into job->out_syncobj. */
	int (*submit)(int fd, const struct accelnode_job *job);

	/* Engine operations offered as built-in kernels. */
	const struct accel_kernel_info *built_ins;
	uint32_t n_built_ins;
	/* Turn a launch of one of them into a job (dst/src/range). */
	int (*launch_job)(struct accel_cmd *cmd, struct accelnode_job *job,
			  struct accel_buffer **ret_dst,
			  struct accel_buffer **ret_src);
};

extern const struct accelnode_driver accelnode_refaccel;

/* ---- device (accelnode-device.c) ---- */

struct accelnode_engine;

struct accelnode_device {
	struct gem_device gem;        /* the node etc.; first (gem.h) */
	const struct accelnode_driver *drv;

	/*
	 * Completion thread, started with the first queue (queue_init):
	 * listing devices starts none. Set under engine_lock; a queue's
	 * commands see it set.
	 */
	pthread_mutex_t engine_lock;
	struct accelnode_engine *engine;
};

/* ---- buffers (accelnode-buffer.c) ---- */

/* buf->backend_data: a struct gem_buffer. */
int accelnode_buffer_alloc(struct accel_buffer *buf);
int accelnode_buffer_import_dmabuf(struct accel_buffer *buf);
/* buffer_free, buffer_export_dmabuf: gem_buffer_free, gem_buffer_export. */
/* GEM handle and byte offset of @buf (a sub-buffer's: its root's). */
uint32_t accelnode_buffer_handle(struct accel_buffer *buf, uint64_t *offset);

/* ---- execution (accelnode-queue.c) ---- */

int accelnode_queue_init(struct accel_queue *queue);
int accelnode_execute(struct accel_queue *queue, struct accel_cmd *cmd);
void accelnode_engine_destroy(struct accelnode_engine *e);

/* ---- fences (accelnode-fence.c) ---- */

int accelnode_fence_export_sync_file(struct accel_device *dev,
				     struct accel_fence *fence, int *ret_fd);

#endif /* LIBACCEL_ACCELNODE_PRIVATE_H */
