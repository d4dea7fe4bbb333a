/* SPDX-License-Identifier: MIT */
/*
 * The DRM backend: devices behind a DRM primary node whose driver gives
 * dumb buffers and PRIME (vgem for now). Such a device has no engine
 * libaccel can drive: it stores buffers and shares them as dma-bufs, and
 * transfers run on the CPU through the buffers' mappings, on one worker
 * thread per device.
 */
#ifndef LIBACCEL_DRM_PRIVATE_H
#define LIBACCEL_DRM_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/gem/gem.h"

struct accel_buffer;
struct accel_cmd;
struct accel_device;
struct accel_queue;

/* ---- device (drm-device.c) ---- */

struct drm_device {
	/* The primary (card) node and its GEM handle table; first (gem.h). */
	struct gem_device gem;

	/* Transfers run here; started on first use. */
	pthread_mutex_t worker_lock;
	_Atomic(struct gem_worker *) worker;

	/* Fence export (drm-fence.c): idle private buffers for vgem fences. */
	pthread_mutex_t fence_lock;   /* guards the pool */
	struct drm_fence_bo *fence_pool;
	unsigned fence_pool_len;
};

/* ---- buffers (drm-buffer.c) ---- */

/* buf->backend_data: a struct gem_buffer. */
int drm_buffer_alloc(struct accel_buffer *buf);
int drm_buffer_import_dmabuf(struct accel_buffer *buf);
/* buffer_free, buffer_export_dmabuf: gem_buffer_free, gem_buffer_export. */

/* ---- fence export (drm-fence.c) ---- */

struct accel_context;
struct accel_fence;
struct drm_fence_bo;

/*
 * Try fence export once (attach and signal a vgem fence); 0 if it works.
 * fence_lock is set up by the device; drm_fence_fini() frees the pool
 * and the lock.
 */
int drm_fence_init(struct accel_context *ctx, struct drm_device *drm);
void drm_fence_fini(struct drm_device *drm);
/* The backend op fence_export_sync_file. */
int drm_fence_export_sync_file(struct accel_device *dev,
			       struct accel_fence *fence, int *ret_fd);

/* ---- execution (drm-queue.c) ---- */

int drm_execute(struct accel_queue *queue, struct accel_cmd *cmd);

#endif /* LIBACCEL_DRM_PRIVATE_H */
