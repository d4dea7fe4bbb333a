/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refaccel: a reference DRM accel driver, a software "DMA engine" that
 * copies and fills GEM shmem buffers in submission order. A test fixture
 * for libaccel's accel backend.
 */
#ifndef REFACCEL_DRV_H
#define REFACCEL_DRV_H

#include <linux/spinlock.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>

struct drm_file;

struct refaccel_device {
	struct drm_device drm;
	/* Jobs run here one at a time, in the order they were queued. */
	struct workqueue_struct *wq;
	/* Finished jobs are released here, off the engine. */
	struct workqueue_struct *free_wq;
	/*
	 * Fences of one context must signal in seqno order: the seqno is
	 * taken and the job queued under this lock.
	 */
	struct mutex submit_lock;
	u64 fence_context;
	u64 seqno;
};

static inline struct refaccel_device *to_refaccel(struct drm_device *drm)
{
	return container_of(drm, struct refaccel_device, drm);
}

/*
 * Per open file: the engine time of its jobs, for fdinfo. Jobs hold a
 * reference: they may finish after the file is closed.
 */
struct refaccel_file {
	struct kref ref;
	spinlock_t lock;	/* both below, read together */
	u64 busy_ns;		/* jobs finished */
	u64 run_start;		/* ktime of the job running now, 0 if none */
};

void refaccel_file_put(struct refaccel_file *rfile);

int refaccel_bo_create_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);
int refaccel_bo_info_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file);
int refaccel_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);

#endif /* REFACCEL_DRV_H */
