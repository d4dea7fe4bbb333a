/* SPDX-License-Identifier: MIT */
/*
 * Fences of an accel node as sync_files. A command of this device has a
 * real kernel fence from the moment it is submitted; the fence itself
 * keeps it and fence-export.c hands out a duplicate before asking any
 * device. What reaches us: a fence that has signalled becomes an
 * already-signalled sync_file; any other pending fence of the context
 * (CPU work, say) has no kernel fence here (the driver has no fence user
 * space signals): it is handed on to another device of the context that
 * can make one.
 */
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "accelnode-private.h"

/* A sync_file that is signalled already: a signalled syncobj's. */
static int signalled_sync_file(int fd, int *ret_fd)
{
	uint32_t h;
	int r;

	r = gem_syncobj_create(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &h);
	if (r < 0)
		return r;
	r = gem_syncobj_export_sync_file(fd, h, ret_fd);
	gem_syncobj_destroy(fd, h);
	return r;
}

/* Another device of the context that exports fences, or NULL. */
static struct accel_device *other_exporter(struct accel_device *dev)
{
	struct accel_context *ctx = dev->ctx;
	struct accel_device *found = NULL;
	size_t i;

	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < ctx->n_devices && !found; i++) {
		struct accel_device *d = ctx->devices[i];

		if (d->ops != dev->ops && d->ops->fence_export_sync_file &&
		    (d->u64[ACCEL_DEVICE_U64_CAPS] &
		     ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT))
			found = d;
	}
	pthread_mutex_unlock(&ctx->lock);
	return found;
}

int accelnode_fence_export_sync_file(struct accel_device *dev,
				     struct accel_fence *fence, int *ret_fd)
{
	struct accelnode_device *an = dev->backend_data;
	struct accel_device *other;
	int status;

	status = atomic_load_explicit(&fence->status, memory_order_acquire);
	if (status < 0)
		return status;
	if (status != ACCEL_FENCE_PENDING)
		return signalled_sync_file(an->gem.fd, ret_fd);
	other = other_exporter(dev);
	if (!other) {
		log_dbg(dev->ctx,
			"a fence of another device has no kernel fence here\n");
		return -EOPNOTSUPP;
	}
	return other->ops->fence_export_sync_file(other, fence, ret_fd);
}
