/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refaccel: a reference DRM accel driver, a "DMA engine" that copies,
 * fills and maps 32-bit words to their factorials in GEM shmem buffers,
 * in submission order. A test fixture for libaccel's accel backend. Two
 * personalities, one UAPI: a software engine on a platform device, and
 * QEMU's "edu" PCI device.
 */
#ifndef REFACCEL_DRV_H
#define REFACCEL_DRV_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>

/* The typed allocators came to 6.12 in a stable update; older headers. */
#ifndef kzalloc_obj
#define kzalloc_obj(P, gfp) kzalloc(sizeof(P), gfp)
#define kzalloc_objs(P, n, gfp) kcalloc(n, sizeof(P), gfp)
#endif

struct dma_fence;
struct drm_file;
struct pci_dev;
struct pci_driver;

/* The edu personality's hardware (refaccel_edu.c); unused in software. */
struct refaccel_edu {
	struct pci_dev *pdev;
	void __iomem *mmio;
	/* One command on the unit at a time (DMA or factorial). */
	struct mutex lock;
	/* Completed from the IRQ handler; irq_status: the bits it acked. */
	struct completion irq_done;
	spinlock_t irq_lock;	/* the three below, handler against waiter */
	u32 irq_status;
	/*
	 * The fence of the job whose last DMA command runs: the handler
	 * signals it with that command's interrupt (and counts it).
	 */
	struct dma_fence *irq_fence;
	u64 irq_fences;
	/* Jobs go through the DMA engine (else the CPU runs them). */
	bool dma_jobs;
	/* The engine never stopped after a timeout: commands fail. */
	bool wedged;
	/* Device-reachable memory the fill pattern is staged in. */
	void *stage;
	dma_addr_t stage_bus;
};

struct refaccel_device {
	struct drm_device drm;
	/*
	 * Jobs run here one at a time, in the order they were queued. It
	 * lives as long as the drm_device: a file open after removal keeps
	 * both.
	 */
	struct workqueue_struct *wq;
	/*
	 * Fences of one context must signal in seqno order: the seqno is
	 * taken and the job queued under this lock.
	 */
	struct mutex submit_lock;
	u64 fence_context;
	u64 seqno;
	struct refaccel_edu edu;
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

extern const struct drm_driver refaccel_drm_driver;
struct refaccel_device *refaccel_device_create(struct device *dev);
void refaccel_device_unplug(struct refaccel_device *rdev);

/* Finished jobs are released here, off the engine (module lifetime). */
extern struct workqueue_struct *refaccel_free_wq;

/* The edu personality: its PCI driver and how many devices it bound. */
extern struct pci_driver refaccel_edu_driver;
extern atomic_t refaccel_edu_bound;

struct sg_table;
int refaccel_edu_copy(struct refaccel_edu *edu, struct sg_table *dst,
		      u64 dst_offset, struct sg_table *src, u64 src_offset,
		      u64 size, struct dma_fence *done);
int refaccel_edu_fill(struct refaccel_edu *edu, struct sg_table *dst,
		      u64 dst_offset, u64 size, const u8 *pattern,
		      u32 pattern_size, struct dma_fence *done);
/* Runtime PM: a job keeps the device resumed from submit to release. */
int refaccel_edu_pm_get(struct refaccel_edu *edu);
void refaccel_edu_pm_put(struct refaccel_edu *edu);
int refaccel_edu_factorial_words(struct refaccel_edu *edu, u32 *dst,
				 const u32 *src, u64 words);

/* From here on n! modulo 2^32 is 0: 34! holds 2^32 (32 factors of two). */
#define REFACCEL_FACT_ZERO	34

/*
 * n! modulo 2^32, exactly as edu's factorial unit computes it (a 32-bit
 * product of n, n - 1, ..., 1, so 0! = 1): the CPU engine's
 * REFACCEL_OP_FACTORIAL, and edu's for words it does not send to the
 * unit.
 */
static inline u32 refaccel_factorial(u32 n)
{
	u32 r = 1;

	if (n >= REFACCEL_FACT_ZERO)
		return 0;
	for (; n > 1; n--)
		r *= n;
	return r;
}

int refaccel_bo_create_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);
int refaccel_bo_info_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file);
int refaccel_submit_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);

#endif /* REFACCEL_DRV_H */
