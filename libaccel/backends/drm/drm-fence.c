/* SPDX-License-Identifier: MIT */
/*
 * Kernel fences for libaccel fences, made by vgem: a vgem fence attached
 * to a small private buffer, read back as a sync_file through the
 * buffer's dma-buf (DMA_BUF_IOCTL_EXPORT_SYNC_FILE), and signalled with
 * VGEM_FENCE_SIGNAL from a waiter on the libaccel fence. No thread waits.
 *
 * One buffer per fence in flight: EXPORT_SYNC_FILE returns every fence of
 * a buffer, so sharing one would make each sync_file wait for all earlier
 * exports too. Idle buffers are kept for reuse, a few at most.
 *
 * vgem signals a fence by itself 10 s after attaching it (its guard
 * against hung user space); the exported sync_file then signals early.
 * That is documented at accel_fence_export_sync_file(): a fence once
 * exported cannot be extended.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "drm-private.h"
#include "uapi/drm/vgem_drm.h"

/* Idle buffers kept for the next exports. */
#define POOL_MAX 8

struct drm_fence_bo {
	struct drm_fence_bo *next;
	uint32_t handle;
	int dmabuf;
};

/* A waiter on the libaccel fence that signals the vgem fence. */
struct export_waiter {
	struct accel_fence_waiter waiter; /* first: the callback casts */
	struct accel_fence *fence;        /* reference until signalled */
	struct accel_device *dev;         /* lives as long as the fence */
	struct drm_fence_bo *bo;
	uint32_t vgem_fence;
};

static void bo_destroy(struct drm_device *drm, struct drm_fence_bo *bo)
{
	close(bo->dmabuf);
	/* Private handles: never in the shared handle table. */
	gem_close(drm->gem.fd, bo->handle);
	free(bo);
}

static int bo_new(struct drm_device *drm, struct drm_fence_bo **ret)
{
	struct drm_mode_create_dumb create = {
		.width = 4096,
		.height = 1,
		.bpp = 8,
	};
	struct drm_fence_bo *bo;
	int r;

	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	r = accel_ioctl(drm->gem.fd, DRM_IOCTL_MODE_CREATE_DUMB, &create);
	if (r < 0) {
		free(bo);
		return r;
	}
	r = gem_prime_handle_to_fd(drm->gem.fd, create.handle,
				   O_CLOEXEC | O_RDWR, &bo->dmabuf);
	if (r < 0) {
		gem_close(drm->gem.fd, create.handle);
		free(bo);
		return r;
	}
	bo->handle = create.handle;
	*ret = bo;
	return 0;
}

static int bo_get(struct drm_device *drm, struct drm_fence_bo **ret)
{
	struct drm_fence_bo *bo;

	pthread_mutex_lock(&drm->fence_lock);
	bo = drm->fence_pool;
	if (bo) {
		drm->fence_pool = bo->next;
		drm->fence_pool_len--;
	}
	pthread_mutex_unlock(&drm->fence_lock);
	if (bo) {
		bo->next = NULL;
		*ret = bo;
		return 0;
	}
	return bo_new(drm, ret);
}

static void bo_put(struct drm_device *drm, struct drm_fence_bo *bo)
{
	pthread_mutex_lock(&drm->fence_lock);
	if (drm->fence_pool_len < POOL_MAX) {
		bo->next = drm->fence_pool;
		drm->fence_pool = bo;
		drm->fence_pool_len++;
		bo = NULL;
	}
	pthread_mutex_unlock(&drm->fence_lock);
	if (bo)
		bo_destroy(drm, bo);
}

static int vgem_attach(struct drm_device *drm, struct drm_fence_bo *bo,
		       uint32_t *ret_fence)
{
	struct drm_vgem_fence_attach arg = {
		.handle = bo->handle,
		.flags = VGEM_FENCE_WRITE,
	};
	int r;

	r = accel_ioctl(drm->gem.fd, DRM_IOCTL_VGEM_FENCE_ATTACH, &arg);
	if (r < 0)
		return r;
	*ret_fence = arg.out_fence;
	return 0;
}

static int vgem_signal(struct drm_device *drm, uint32_t fence)
{
	struct drm_vgem_fence_signal arg = { .fence = fence };

	return accel_ioctl(drm->gem.fd, DRM_IOCTL_VGEM_FENCE_SIGNAL, &arg);
}

static void export_done(struct accel_fence_waiter *w, int status)
{
	struct export_waiter *e = (struct export_waiter *)w;
	struct drm_device *drm = e->dev->backend_data;
	struct accel_fence *fence = e->fence;
	int r;

	(void)status; /* a kernel fence signalled by vgem carries no error */
	r = vgem_signal(drm, e->vgem_fence);
	/* ETIMEDOUT: vgem's 10 s guard signalled it first. */
	if (r == -ETIMEDOUT)
		log_info(e->dev->ctx,
			 "an exported fence outlived vgem's 10 s limit and signalled early\n");
	else if (r < 0)
		log_err(e->dev->ctx, "VGEM_FENCE_SIGNAL failed: %s\n",
			strerror(-r));
	bo_put(drm, e->bo);
	free(e);
	/* Last: may drop the last reference to the context and to us. */
	accel_fence_unref(fence);
}

int drm_fence_export_sync_file(struct accel_device *dev,
			       struct accel_fence *fence, int *ret_fd)
{
	struct drm_device *drm = dev->backend_data;
	struct export_waiter *e;
	int r, status, fd = -1;

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	r = bo_get(drm, &e->bo);
	if (r < 0) {
		free(e);
		return r;
	}
	/* Signalled already: an idle buffer gives a signalled sync_file. */
	if (accel_fence_get_status(fence) != 0) {
		r = accel_dmabuf_export_sync_file(e->bo->dmabuf, false, &fd);
		bo_put(drm, e->bo);
		free(e);
		if (r == 0)
			*ret_fd = fd;
		return r;
	}

	r = vgem_attach(drm, e->bo, &e->vgem_fence);
	if (r < 0) {
		bo_put(drm, e->bo);
		free(e);
		return r;
	}
	/* Readers wait for writers: the write fence just attached. */
	r = accel_dmabuf_export_sync_file(e->bo->dmabuf, false, &fd);
	if (r < 0) {
		vgem_signal(drm, e->vgem_fence);
		bo_put(drm, e->bo);
		free(e);
		return r;
	}

	e->waiter.fn = export_done;
	e->dev = dev;
	e->fence = accel_fence_ref(fence);
	if (accel_fence_add_waiter(fence, &e->waiter, &status) == 1)
		export_done(&e->waiter, status);
	*ret_fd = fd;
	return 0;
}

int drm_fence_init(struct accel_context *ctx, struct drm_device *drm)
{
	struct drm_fence_bo *bo;
	uint32_t fence;
	int r;

	/* Try the whole round once: the first buffer stays in the pool. */
	r = bo_new(drm, &bo);
	if (r < 0)
		return r;
	r = vgem_attach(drm, bo, &fence);
	if (r == 0) {
		r = vgem_signal(drm, fence);
		if (r < 0)
			log_err(ctx, "VGEM_FENCE_SIGNAL of a test fence: %s\n",
				strerror(-r));
	}
	if (r < 0) {
		bo_destroy(drm, bo);
		return r;
	}
	bo_put(drm, bo);
	return 0;
}

void drm_fence_fini(struct drm_device *drm)
{
	struct drm_fence_bo *bo, *next;

	/* Exports in flight hold the context: none is left here. */
	for (bo = drm->fence_pool; bo; bo = next) {
		next = bo->next;
		bo_destroy(drm, bo);
	}
	drm->fence_pool = NULL;
	pthread_mutex_destroy(&drm->fence_lock);
}
