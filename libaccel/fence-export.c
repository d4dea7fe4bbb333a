/* SPDX-License-Identifier: MIT */
/*
 * Fences exported as sync_files. A fence that stands for a kernel fence
 * (an imported sync_file, a driver job's out-fence) exports a duplicate
 * of it: the same dma-fence, no detour. Software work cannot make a
 * kernel dma-fence, so for it a context lends the job to a device whose
 * kernel driver can (backend op fence_export_sync_file, vgem today); any
 * fence of the context can be exported through it.
 */
#include <string.h>

#include "backend.h"

/*
 * The first device of @ctx that exports fences (no reference), or NULL.
 * Does not enumerate: a device query may come from inside enumeration.
 */
static struct accel_device *find_exporter(struct accel_context *ctx)
{
	struct accel_device *found = NULL;
	size_t i;

	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < ctx->n_devices && !found; i++) {
		struct accel_device *dev = ctx->devices[i];

		if (dev->ops->fence_export_sync_file &&
		    (dev->u64[ACCEL_DEVICE_U64_CAPS] &
		     ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT))
			found = dev;
	}
	pthread_mutex_unlock(&ctx->lock);
	return found;
}

uint64_t accel_fence_export_caps(struct accel_context *ctx)
{
	return find_exporter(ctx) ? ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT : 0;
}

ACCEL_EXPORT int accel_fence_export_sync_file(struct accel_fence *fence,
					      int *ret_fd)
{
	struct accel_device *dev;
	int status, r, fd = -1;

	if (!fence || !ret_fd)
		return -EINVAL;
	/* Failed work: a sync_file could not say so (see accel-fence.h). */
	status = atomic_load_explicit(&fence->status, memory_order_acquire);
	if (status < 0)
		return status;
	r = accel_fence_dup_sync_file(fence, &fd);
	if (r != -ENOENT) {
		if (r == 0)
			*ret_fd = fd;
		return r;
	}
	/*
	 * Devices come with the first enumeration (which only fails for a
	 * count past INT32_MAX: the devices are there all the same).
	 */
	accel_context_get_devices(fence->ctx, NULL, 0);
	dev = find_exporter(fence->ctx);
	if (!dev) {
		log_gap(fence->ctx, ACCEL_GAP_FENCE_EXPORT,
			"fences cannot be exported as sync_files: no device "
			"of this context makes kernel fences (a DRM render "
			"node with syncobjs or an accel node does: "
			"accel-info lists them)\n");
		return -EOPNOTSUPP;
	}
	/* The context (and so @dev) lives as long as @fence. */
	r = dev->ops->fence_export_sync_file(dev, fence, &fd);
	if (r < 0) {
		log_err(fence->ctx, "exporting a fence through %s failed: %s\n",
			dev->strings[ACCEL_DEVICE_STRING_DEVNODE],
			strerror(-r));
		return r;
	}
	*ret_fd = fd;
	return 0;
}
