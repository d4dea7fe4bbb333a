// SPDX-License-Identifier: GPL-2.0
/*
 * refaccel jobs: the submit ioctl, the engine's fences and the ordered
 * workqueue that runs copy, fill and factorial jobs.
 *
 * Fence rules kept here (Debian's kernel has no lockdep to catch them):
 * - everything that can fail, allocate or take a reservation lock is done
 *   in the ioctl before the job's fence is published (added to a
 *   reservation object or a syncobj); the worker then only waits for
 *   fences, copies and signals;
 * - seqnos are taken and jobs queued under one lock, and one ordered
 *   workqueue runs them, so fences signal in seqno order;
 * - a fence may outlive the file and the module (a sync_file holds it):
 *   each fence holds a module reference, dropped in its release;
 * - a job holds the drm_device and enters it (drm_dev_enter()) only
 *   after its waits, to run: a removed device fails its jobs with
 *   -ENODEV instead of touching hardware that is gone, and removal never
 *   waits for a foreign fence;
 * - from the end of the waits to the signal is the fence's signalling
 *   critical section (annotated): it takes edu->lock and sleeps for the
 *   device, but does not allocate; on edu's DMA engine the interrupt
 *   handler signals the fence of a copy or fill (refaccel_edu.c);
 * - the device is resumed (runtime PM) in the ioctl, never on the
 *   signalling path, and may suspend again once the job is released.
 */
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_syncobj.h>

#include "refaccel_accel.h"
#include "refaccel_drv.h"

/* Work in slices this big, giving the CPU back in between. */
#define REFACCEL_CHUNK (1024 * 1024)

struct refaccel_fence {
	struct dma_fence base; /* first: dma_fence_free() frees this */
	spinlock_t lock;
};

/* Fences to wait for: one array per source (syncobjs, each buffer). */
struct refaccel_deps {
	struct dma_fence **fences;
	unsigned int count;
};

struct refaccel_job {
	struct work_struct work;
	struct refaccel_device *rdev;
	struct refaccel_file *rfile;	/* reference: engine time for fdinfo */
	struct dma_fence *done;
	struct drm_gem_object *bo[2]; /* dst, src (NULL: none or same) */
	struct iosys_map map[2];
	/* DMA engine: the buffers' bus addresses (the objects own them). */
	struct sg_table *sgt[2];
	struct refaccel_deps deps[3]; /* in-syncobjs, dst resv, src resv */
	bool pm;		/* holds a runtime PM usage count */
	u32 op;
	u64 dst_offset;
	u64 src_offset;
	u64 size;
	u32 pattern_size;
	u8 pattern[REFACCEL_MAX_PATTERN];
};

static const char *refaccel_fence_driver_name(struct dma_fence *fence)
{
	return REFACCEL_DRIVER_NAME;
}

static const char *refaccel_fence_timeline_name(struct dma_fence *fence)
{
	return "engine";
}

static void refaccel_fence_release(struct dma_fence *fence)
{
	dma_fence_free(fence);
	/* Taken in refaccel_fence_create(): the ops live in this module. */
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops refaccel_fence_ops = {
	.get_driver_name = refaccel_fence_driver_name,
	.get_timeline_name = refaccel_fence_timeline_name,
	.release = refaccel_fence_release,
};

/* Allocated early; initialised (given its seqno) at publication. */
static struct refaccel_fence *refaccel_fence_alloc(void)
{
	struct refaccel_fence *f = kzalloc_obj(*f, GFP_KERNEL);

	if (f)
		spin_lock_init(&f->lock);
	return f;
}

static void refaccel_deps_put(struct refaccel_deps *deps)
{
	unsigned int i;

	for (i = 0; i < deps->count; i++)
		dma_fence_put(deps->fences[i]);
	kfree(deps->fences);
	deps->fences = NULL;
	deps->count = 0;
}

/* Drops what the job held; never on the engine (it locks resvs). */
static void refaccel_job_free(struct refaccel_job *job)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(job->deps); i++)
		refaccel_deps_put(&job->deps[i]);
	for (i = 0; i < ARRAY_SIZE(job->bo); i++) {
		if (!job->bo[i])
			continue;
		if (!iosys_map_is_null(&job->map[i]))
			drm_gem_vunmap_unlocked(job->bo[i], &job->map[i]);
		drm_gem_object_put(job->bo[i]);
	}
	dma_fence_put(job->done);
	if (job->rfile)
		refaccel_file_put(job->rfile);
	if (job->pm)
		refaccel_edu_pm_put(&job->rdev->edu);
	/* Last: may free the device (removed, its files closed). */
	drm_dev_put(&job->rdev->drm);
	kfree(job);
}

static void refaccel_job_free_work(struct work_struct *work)
{
	refaccel_job_free(container_of(work, struct refaccel_job, work));
}

/* 0, or the first error an in-fence signalled with. */
static int refaccel_job_wait(struct refaccel_job *job)
{
	int ret = 0, i;
	unsigned int j;

	for (i = 0; i < ARRAY_SIZE(job->deps); i++) {
		for (j = 0; j < job->deps[i].count; j++) {
			struct dma_fence *f = job->deps[i].fences[j];
			long r = dma_fence_wait(f, false);

			if (r < 0 && !ret)
				ret = r;
			if (dma_fence_get_status(f) < 0 && !ret)
				ret = dma_fence_get_status(f);
		}
	}
	return ret;
}

static void refaccel_job_fill(struct refaccel_job *job, u8 *dst)
{
	u64 done = 0;

	/* size is a multiple of pattern_size: whole patterns only. */
	while (done < job->size) {
		u64 end = min_t(u64, job->size, done + REFACCEL_CHUNK);

		for (; done < end; done += job->pattern_size)
			memcpy(dst + done, job->pattern, job->pattern_size);
		cond_resched();
	}
}

/* The source's bytes: the second object's mapping, or the first's. */
static const u8 *refaccel_job_src(struct refaccel_job *job)
{
	const struct iosys_map *sm = job->bo[1] ? &job->map[1] : &job->map[0];

	return (const u8 *)sm->vaddr + job->src_offset;
}

static void refaccel_job_copy(struct refaccel_job *job, u8 *dst,
			      const u8 *src)
{
	u64 done = 0, n;

	/* One memmove when ranges may overlap: chunks could clobber. */
	if (dst + job->size > src && src + job->size > dst) {
		memmove(dst, src, job->size);
		return;
	}
	while (done < job->size) {
		n = min_t(u64, job->size - done, REFACCEL_CHUNK);
		memcpy(dst + done, src + done, n);
		done += n;
		cond_resched();
	}
}

/*
 * Word by word, backwards when the destination overlaps the source from
 * above: each source word is read before its place can be written (the
 * copy's memmove semantics). Offsets are 4-aligned, mappings page-aligned.
 */
static void refaccel_job_factorial(struct refaccel_job *job, u32 *dst,
				   const u32 *src)
{
	u64 words = job->size / 4, done = 0, end, i;
	bool back = dst > src && dst < src + words;

	while (done < words) {
		end = min_t(u64, words, done + REFACCEL_CHUNK / 4);
		for (; done < end; done++) {
			i = back ? words - 1 - done : done;
			dst[i] = refaccel_factorial(src[i]);
		}
		cond_resched();
	}
}

/* The work proper, on edu's device (edu_dma=1) or on the CPU. */
static int refaccel_job_do(struct refaccel_job *job)
{
	struct refaccel_edu *edu = &job->rdev->edu;
	u8 *dst = (u8 *)job->map[0].vaddr + job->dst_offset;
	const u32 *wsrc;
	u32 *wdst;

	switch (job->op) {
	case REFACCEL_OP_FILL:
		if (edu->dma_jobs)
			return refaccel_edu_fill(edu, job->sgt[0],
						 job->dst_offset, job->size,
						 job->pattern,
						 job->pattern_size, job->done);
		refaccel_job_fill(job, dst);
		return 0;
	case REFACCEL_OP_FACTORIAL:
		wdst = (u32 *)dst;
		wsrc = (const u32 *)refaccel_job_src(job);
		/* edu's unit takes its words from the CPU, not by DMA. */
		if (edu->dma_jobs)
			return refaccel_edu_factorial_words(edu, wdst, wsrc,
							    job->size / 4);
		refaccel_job_factorial(job, wdst, wsrc);
		return 0;
	default:
		if (edu->dma_jobs)
			return refaccel_edu_copy(edu, job->sgt[0],
						 job->dst_offset,
						 job->sgt[1] ?: job->sgt[0],
						 job->src_offset, job->size,
						 job->done);
		refaccel_job_copy(job, dst, refaccel_job_src(job));
		return 0;
	}
}

/* The job on the engine, the device entered: 0 or an error. */
static int refaccel_job_exec(struct refaccel_job *job)
{
	struct refaccel_file *rfile = job->rfile;
	int ret;

	/* Engine time: from the end of the wait; jobs run one at a time. */
	spin_lock(&rfile->lock);
	rfile->run_start = ktime_get_ns();
	spin_unlock(&rfile->lock);
	ret = refaccel_job_do(job);
	spin_lock(&rfile->lock);
	rfile->busy_ns += ktime_get_ns() - rfile->run_start;
	rfile->run_start = 0;
	spin_unlock(&rfile->lock);
	return ret;
}

static void refaccel_job_run(struct work_struct *work)
{
	struct refaccel_job *job = container_of(work, struct refaccel_job,
						work);
	bool fence_cookie;
	int ret, idx;

	ret = refaccel_job_wait(job);
	fence_cookie = dma_fence_begin_signalling();
	if (!ret) {
		if (drm_dev_enter(&job->rdev->drm, &idx)) {
			ret = refaccel_job_exec(job);
			drm_dev_exit(idx);
		} else {
			ret = -ENODEV;
		}
	}
	/* Already signalled (no-op) if edu's interrupt handler did it. */
	if (ret)
		dma_fence_set_error(job->done, ret);
	dma_fence_signal(job->done);
	dma_fence_end_signalling(fence_cookie);

	/* Unmapping takes reservation locks: not on the engine. */
	INIT_WORK(&job->work, refaccel_job_free_work);
	queue_work(refaccel_free_wq, &job->work);
}

static int refaccel_range_ok(struct drm_gem_object *obj, u64 offset,
			     u64 size)
{
	u64 end;

	if (check_add_overflow(offset, size, &end) || end > obj->size)
		return -EINVAL;
	return 0;
}

static int refaccel_job_in_syncobjs(struct refaccel_job *job,
				    struct drm_file *file,
				    const struct drm_refaccel_submit *args)
{
	struct refaccel_deps *deps = &job->deps[0];
	u32 __user *uhandles = u64_to_user_ptr(args->in_syncobjs);
	unsigned int i;
	u32 handle;
	int ret;

	if (!args->in_syncobj_count)
		return 0;
	if (args->in_syncobj_count > REFACCEL_MAX_IN_SYNCOBJS)
		return -E2BIG;
	deps->fences = kzalloc_objs(*deps->fences, args->in_syncobj_count,
				    GFP_KERNEL);
	if (!deps->fences)
		return -ENOMEM;
	for (i = 0; i < args->in_syncobj_count; i++) {
		if (get_user(handle, &uhandles[i]))
			return -EFAULT;
		/* A syncobj without a fence is an error (-EINVAL). */
		ret = drm_syncobj_find_fence(file, handle, 0, 0,
					     &deps->fences[deps->count]);
		if (ret)
			return ret;
		deps->count++;
	}
	return 0;
}

static int refaccel_job_lookup(struct refaccel_job *job,
			       struct drm_file *file,
			       const struct drm_refaccel_submit *args)
{
	struct drm_gem_shmem_object *shmem;
	int ret, i;

	job->bo[0] = drm_gem_object_lookup(file, args->dst_handle);
	if (!job->bo[0])
		return -ENOENT;
	ret = refaccel_range_ok(job->bo[0], args->dst_offset, args->size);
	if (ret)
		return ret;
	if (args->op != REFACCEL_OP_FILL) {
		job->bo[1] = drm_gem_object_lookup(file, args->src_handle);
		if (!job->bo[1])
			return -ENOENT;
		ret = refaccel_range_ok(job->bo[1], args->src_offset,
					args->size);
		if (ret)
			return ret;
		/* One object, one mapping and one reservation. */
		if (job->bo[1] == job->bo[0]) {
			drm_gem_object_put(job->bo[1]);
			job->bo[1] = NULL;
		}
	}
	/* Pages pinned and mapped now: the engine may not allocate. */
	for (i = 0; i < ARRAY_SIZE(job->bo); i++) {
		if (!job->bo[i])
			continue;
		ret = drm_gem_vmap_unlocked(job->bo[i], &job->map[i]);
		if (ret) {
			iosys_map_clear(&job->map[i]);
			return ret;
		}
		if (job->map[i].is_iomem)
			return -EOPNOTSUPP;
		if (!job->rdev->edu.dma_jobs)
			continue;
		/*
		 * Mapped for this device once, kept until the object goes
		 * (an imported one's is its attachment's).
		 */
		shmem = to_drm_gem_shmem_obj(job->bo[i]);
		job->sgt[i] = drm_gem_shmem_get_pages_sgt(shmem);
		if (IS_ERR(job->sgt[i])) {
			ret = PTR_ERR(job->sgt[i]);
			job->sgt[i] = NULL;
			return ret;
		}
	}
	return 0;
}

static int refaccel_check_args(const struct drm_refaccel_submit *args)
{
	if (args->flags || args->pad || !args->size)
		return -EINVAL;
	switch (args->op) {
	case REFACCEL_OP_COPY:
		return 0;
	case REFACCEL_OP_FILL:
		if (!args->pattern_size ||
		    args->pattern_size > REFACCEL_MAX_PATTERN ||
		    args->size % args->pattern_size)
			return -EINVAL;
		return 0;
	case REFACCEL_OP_FACTORIAL:
		/* Whole, aligned words: the engines access them as u32. */
		if ((args->size | args->dst_offset | args->src_offset) % 4)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Under the buffers' reservation locks: make room for our fence and
 * collect the fences the job must wait for (implicit sync).
 */
static int refaccel_job_resv_prepare(struct refaccel_job *job)
{
	int ret, i;

	for (i = 0; i < ARRAY_SIZE(job->bo); i++) {
		struct refaccel_deps *deps = &job->deps[1 + i];

		if (!job->bo[i])
			continue;
		ret = dma_resv_reserve_fences(job->bo[i]->resv, 1);
		if (ret)
			return ret;
		/* Writing waits for everyone, reading for writers. */
		ret = dma_resv_get_fences(job->bo[i]->resv,
					  dma_resv_usage_rw(i == 0),
					  &deps->count, &deps->fences);
		if (ret)
			return ret;
	}
	return 0;
}

/* Under submit_lock and the reservation locks: cannot fail. */
static void refaccel_job_publish(struct refaccel_device *rdev,
				 struct refaccel_job *job,
				 struct refaccel_fence *f)
{
	int i;

	/* Freed by refaccel_fence_release(), which drops this again. */
	__module_get(THIS_MODULE);
	dma_fence_init(&f->base, &refaccel_fence_ops, &f->lock,
		       rdev->fence_context, ++rdev->seqno);
	job->done = &f->base;
	for (i = 0; i < ARRAY_SIZE(job->bo); i++)
		if (job->bo[i])
			dma_resv_add_fence(job->bo[i]->resv, job->done,
					   i == 0 ? DMA_RESV_USAGE_WRITE :
						    DMA_RESV_USAGE_READ);
}

int refaccel_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct refaccel_device *rdev = to_refaccel(drm);
	struct drm_refaccel_submit *args = data;
	struct drm_syncobj *out = NULL;
	struct drm_gem_object *objs[2];
	struct ww_acquire_ctx ticket;
	struct refaccel_fence *f = NULL;
	struct refaccel_job *job;
	int ret, n = 0, idx;

	ret = refaccel_check_args(args);
	if (ret)
		return ret;
	/*
	 * Removal waits for this section, then flushes the engine: a job
	 * is either queued before, or never (the buffers are not mapped
	 * for a device that is gone either).
	 */
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	job = kzalloc_obj(*job, GFP_KERNEL);
	if (!job) {
		drm_dev_exit(idx);
		return -ENOMEM;
	}
	job->rdev = rdev;
	drm_dev_get(drm);
	job->rfile = file->driver_priv;
	kref_get(&job->rfile->ref);
	ret = refaccel_edu_pm_get(&rdev->edu);
	if (ret)
		goto out_free;
	job->pm = true;
	job->op = args->op;
	job->dst_offset = args->dst_offset;
	job->src_offset = args->src_offset;
	job->size = args->size;
	job->pattern_size = args->pattern_size;
	memcpy(job->pattern, args->pattern, sizeof(job->pattern));

	ret = refaccel_job_lookup(job, file, args);
	if (ret)
		goto out_free;
	ret = refaccel_job_in_syncobjs(job, file, args);
	if (ret)
		goto out_free;
	if (args->out_syncobj) {
		out = drm_syncobj_find(file, args->out_syncobj);
		if (!out) {
			ret = -ENOENT;
			goto out_free;
		}
	}
	f = refaccel_fence_alloc();
	if (!f) {
		ret = -ENOMEM;
		goto out_free;
	}

	objs[n++] = job->bo[0];
	if (job->bo[1])
		objs[n++] = job->bo[1];

	mutex_lock(&rdev->submit_lock);
	ret = drm_gem_lock_reservations(objs, n, &ticket);
	if (ret) {
		mutex_unlock(&rdev->submit_lock);
		goto out_free;
	}
	ret = refaccel_job_resv_prepare(job);
	if (ret) {
		drm_gem_unlock_reservations(objs, n, &ticket);
		mutex_unlock(&rdev->submit_lock);
		goto out_free;
	}
	refaccel_job_publish(rdev, job, f);
	drm_gem_unlock_reservations(objs, n, &ticket);
	if (out)
		drm_syncobj_replace_fence(out, job->done);
	INIT_WORK(&job->work, refaccel_job_run);
	queue_work(rdev->wq, &job->work);
	mutex_unlock(&rdev->submit_lock);

	if (out)
		drm_syncobj_put(out);
	drm_dev_exit(idx);
	return 0;

out_free:
	kfree(f);
	if (out)
		drm_syncobj_put(out);
	refaccel_job_free(job);
	drm_dev_exit(idx);
	return ret;
}
