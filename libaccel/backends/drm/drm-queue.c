/* SPDX-License-Identifier: MIT */
/*
 * Execution on a DRM device: the device has no engine libaccel can drive,
 * so transfers (read, write, copy, fill) run on the CPU through the
 * buffers' mappings (gem_host_transfer), in order, on one worker thread
 * per device (gem_worker) — never on the submitting thread, which must not
 * block on device work.
 */
#include <string.h>

#include "backend.h"
#include "drm-private.h"

/* The device's worker, started on first use: listing devices makes none. */
static int get_worker(struct accel_device *dev, struct gem_worker **ret)
{
	struct drm_device *drm = dev->backend_data;
	struct gem_worker *w;
	int r = 0;

	w = atomic_load_explicit(&drm->worker, memory_order_acquire);
	if (_likely_(w)) {
		*ret = w;
		return 0;
	}
	pthread_mutex_lock(&drm->worker_lock);
	w = atomic_load_explicit(&drm->worker, memory_order_relaxed);
	if (!w) {
		r = gem_worker_new("accel-drm", gem_host_transfer, &w);
		if (r == 0)
			atomic_store_explicit(&drm->worker, w,
					      memory_order_release);
	}
	pthread_mutex_unlock(&drm->worker_lock);
	if (r < 0) {
		log_err(dev->ctx, "cannot start the DRM worker thread: %s\n",
			strerror(-r));
		return r;
	}
	*ret = w;
	return 0;
}

int drm_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct gem_worker *w;
	int r;

	switch (cmd->type) {
	case ACCEL_CMD_MARKER:
		/* Nothing to run (the core normally does this itself). */
		accel_cmd_complete(cmd, 0);
		return 0;
	case ACCEL_CMD_READ:
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_COPY:
	case ACCEL_CMD_FILL:
		break;
	default:
		/* No program can be built for this device: no launches. */
		return -EOPNOTSUPP;
	}

	r = get_worker(queue->dev, &w);
	if (r < 0)
		return r;
	gem_worker_append(w, cmd);
	return 0;
}
