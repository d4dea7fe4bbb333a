// SPDX-License-Identifier: GPL-2.0
/*
 * refaccel's edu personality: QEMU's teaching PCI device (-device edu,
 * vendor 0x1234, device 0x11e8; registers in QEMU's docs/specs/edu.rst).
 *
 * BAR0 (1 MiB of MMIO) holds an identification word, a liveness
 * register, a factorial unit, an interrupt status/raise/ack trio and a
 * DMA engine that moves up to 4 KiB between system memory and a buffer
 * inside the device. The device reaches 28 bits of bus address.
 *
 * Probe enables the device, maps BAR0, checks the identification word,
 * sets the 28-bit DMA mask, takes one MSI vector (INTx otherwise) and
 * proves the unit answers: liveness, a factorial finished by interrupt,
 * a DMA round trip through the device buffer.
 *
 * With the module parameter edu_dma=1 jobs run on the DMA engine: each
 * step moves one piece of at most EDU_DMA_MAX bytes (and within one page
 * on either side) from system memory into the device buffer and out
 * again, waiting for the interrupt of each command; a fill stages its
 * pattern in the device buffer once and copies out of it. A factorial
 * job sends each word through the factorial unit, one interrupt per
 * word. Otherwise the CPU runs them (refaccel_job.c), as in the software
 * personality: one DMA command takes 100 ms of guest time, too slow for
 * long test runs.
 *
 * A copy or fill job's fence is signalled by the interrupt handler, with
 * the interrupt of the job's last DMA command (the data is in memory by
 * then); the worker signals it only when that command failed, and a
 * factorial job's, whose last word the CPU stores.
 *
 * Runtime PM: each job holds a usage count from its submit ioctl (where
 * resuming may sleep and fail, before the fence is published) to its
 * release, off the fence's signalling path; an idle device suspends after
 * EDU_AUTOSUSPEND_MS. edu has no PCI power-management capability, so it
 * stays in D0: suspend only checks that no command runs, resume that the
 * device answers again. A device with D-states would save and restore
 * its context there.
 */
#include <linux/dma-mapping.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "refaccel_accel.h"
#include "refaccel_drv.h"

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8

/* 32-bit registers */
#define EDU_IDENT		0x00	/* 0xRRrr00ed: major, minor, 0xed */
#define EDU_IDENT_MAGIC		0xed
#define EDU_LIVENESS		0x04	/* reads back the inverse */
#define EDU_FACT		0x08	/* write n, read n! (32 bits) */
#define EDU_STATUS		0x20
#define EDU_STATUS_COMPUTING	BIT(0)
#define EDU_STATUS_FACT_IRQ	BIT(7)	/* interrupt when n! is done */
#define EDU_IRQ_STATUS		0x24
#define EDU_IRQ_RAISE		0x60
#define EDU_IRQ_ACK		0x64
#define EDU_IRQ_FACT		BIT(0)
#define EDU_IRQ_DMA		BIT(8)
/* 64-bit registers */
#define EDU_DMA_SRC		0x80
#define EDU_DMA_DST		0x88
#define EDU_DMA_COUNT		0x90
#define EDU_DMA_CMD		0x98
#define EDU_DMA_RUN		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)	/* 0: RAM to the device buffer */
#define EDU_DMA_IRQ		BIT(2)	/* interrupt when done */
/* The device buffer, as the DMA engine addresses it. */
#define EDU_BUF_ADDR		0x40000
#define EDU_BUF_SIZE		4096
#define EDU_DMA_BITS		28
/*
 * The most one command moves. QEMU 7.2 (Debian 12) takes a transfer that
 * ends at the buffer's last byte for out of bounds and stops the whole
 * machine (hw_error), so a command never reaches it; half the buffer
 * keeps steps page-friendly.
 */
#define EDU_DMA_MAX		(EDU_BUF_SIZE / 2)
/* A fill's pattern, repeated over one step plus one pattern's phase. */
#define EDU_STAGE_SIZE		(EDU_DMA_MAX + REFACCEL_MAX_PATTERN)

/*
 * A DMA command completes 100 ms of guest time after it was issued; a
 * loaded host running the guest under TCG stretches that.
 */
#define EDU_TIMEOUT_MS		2000

/* Idle this long, the device suspends. */
#define EDU_AUTOSUSPEND_MS	200

atomic_t refaccel_edu_bound = ATOMIC_INIT(0);

static bool edu_dma;
module_param(edu_dma, bool, 0444);
MODULE_PARM_DESC(edu_dma,
		 "edu: run jobs on the device's DMA engine (default: on the CPU)");

/* Fault injection for tests: a device that does not answer. */
static atomic_t edu_drop_irqs = ATOMIC_INIT(0);
module_param_named(edu_drop_irqs, edu_drop_irqs.counter, int, 0644);
MODULE_PARM_DESC(edu_drop_irqs,
		 "edu, tests: issue the next N commands without their interrupt");

/* Whether the liveness register answers: the device is there and works. */
static bool refaccel_edu_alive(struct refaccel_edu *edu)
{
	writel(0x5a5aa5a5, edu->mmio + EDU_LIVENESS);
	return readl(edu->mmio + EDU_LIVENESS) == ~0x5a5aa5a5u;
}

/* Whether the DMA engine or the factorial unit still works. */
static bool refaccel_edu_busy(struct refaccel_edu *edu)
{
	return (lo_hi_readq(edu->mmio + EDU_DMA_CMD) & EDU_DMA_RUN) ||
	       (readl(edu->mmio + EDU_STATUS) & EDU_STATUS_COMPUTING);
}

/*
 * After a command timed out. The device has no reset register and
 * ignores commands while one runs: wait for both units to stop and ack
 * whatever they raised. A device that never stops is given up (wedged):
 * later commands fail at once.
 */
static void refaccel_edu_recover(struct refaccel_edu *edu)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!refaccel_edu_busy(edu))
			break;
		msleep(20);
	}
	if (i == 100) {
		pci_err(edu->pdev, "device does not stop: wedged\n");
		edu->wedged = true;
		return;
	}
	writel(~0u, edu->mmio + EDU_IRQ_ACK);
	pci_warn(edu->pdev, "command timed out, device idle again\n");
}

static irqreturn_t refaccel_edu_irq(int irq, void *arg)
{
	struct refaccel_edu *edu = arg;
	u32 status = readl(edu->mmio + EDU_IRQ_STATUS);

	/* INTx may be shared. */
	if (!status)
		return IRQ_NONE;
	writel(status, edu->mmio + EDU_IRQ_ACK);
	spin_lock(&edu->irq_lock);
	edu->irq_status |= status;
	/* Under irq_lock: a waiter that timed out cannot race us for it. */
	if ((status & EDU_IRQ_DMA) && edu->irq_fence) {
		dma_fence_signal(edu->irq_fence);
		edu->irq_fence = NULL;
		edu->irq_fences++;
	}
	spin_unlock(&edu->irq_lock);
	complete(&edu->irq_done);
	return IRQ_HANDLED;
}

/*
 * Under edu->lock, before the command that will interrupt; @fence (or
 * NULL) is signalled by the handler with a DMA command's interrupt.
 */
static void refaccel_edu_arm(struct refaccel_edu *edu,
			     struct dma_fence *fence)
{
	spin_lock_irq(&edu->irq_lock);
	edu->irq_status = 0;
	edu->irq_fence = fence;
	reinit_completion(&edu->irq_done);
	spin_unlock_irq(&edu->irq_lock);
}

/*
 * Under edu->lock: waits for the interrupt @bit; -ETIMEDOUT if none, and
 * then the armed fence is the caller's again, not signalled.
 */
static int refaccel_edu_wait(struct refaccel_edu *edu, u32 bit)
{
	unsigned long left = msecs_to_jiffies(EDU_TIMEOUT_MS);
	bool done;

	for (;;) {
		left = wait_for_completion_timeout(&edu->irq_done, left);
		spin_lock_irq(&edu->irq_lock);
		done = edu->irq_status & bit;
		if (!done && !left)
			edu->irq_fence = NULL;
		spin_unlock_irq(&edu->irq_lock);
		if (done)
			return 0;
		if (!left)
			return -ETIMEDOUT;
	}
}

/*
 * One DMA command of at most EDU_DMA_MAX bytes between @ram (a bus
 * address of this device) and the device buffer at @offset, waited for;
 * its interrupt signals @fence unless NULL (on success only). Sleeps;
 * under edu->lock.
 */
static int refaccel_edu_dma(struct refaccel_edu *edu, dma_addr_t ram,
			    u32 offset, u32 count, bool to_ram,
			    struct dma_fence *fence)
{
	u64 dev = EDU_BUF_ADDR + offset;
	u64 cmd = EDU_DMA_RUN | EDU_DMA_IRQ | (to_ram ? EDU_DMA_TO_RAM : 0);
	int ret;

	/* Never up to the buffer's last byte (see EDU_DMA_MAX). */
	if (!count || count >= EDU_BUF_SIZE || offset >= EDU_BUF_SIZE - count)
		return -EINVAL;
	if (edu->wedged)
		return -EIO;
	if (atomic_add_unless(&edu_drop_irqs, -1, 0))
		cmd &= ~EDU_DMA_IRQ;
	refaccel_edu_arm(edu, fence);
	lo_hi_writeq(to_ram ? dev : ram, edu->mmio + EDU_DMA_SRC);
	lo_hi_writeq(to_ram ? ram : dev, edu->mmio + EDU_DMA_DST);
	lo_hi_writeq(count, edu->mmio + EDU_DMA_COUNT);
	lo_hi_writeq(cmd, edu->mmio + EDU_DMA_CMD);
	ret = refaccel_edu_wait(edu, EDU_IRQ_DMA);
	if (ret)
		refaccel_edu_recover(edu);
	return ret;
}

/*
 * n! on the factorial unit (32 bits, wrapping), finished by interrupt.
 * Sleeps; under edu->lock.
 */
static int refaccel_edu_factorial(struct refaccel_edu *edu, u32 n, u32 *out)
{
	u32 status = EDU_STATUS_FACT_IRQ;
	int ret;

	if (edu->wedged)
		return -EIO;
	if (atomic_add_unless(&edu_drop_irqs, -1, 0))
		status = 0;
	refaccel_edu_arm(edu, NULL);
	writel(status, edu->mmio + EDU_STATUS);
	/* The unit ignores n while it computes: it must be idle. */
	if (readl(edu->mmio + EDU_STATUS) & EDU_STATUS_COMPUTING)
		return -EBUSY;
	writel(n, edu->mmio + EDU_FACT);
	ret = refaccel_edu_wait(edu, EDU_IRQ_FACT);
	if (ret) {
		refaccel_edu_recover(edu);
		return ret;
	}
	*out = readl(edu->mmio + EDU_FACT);
	return 0;
}

/* Bus address of byte @off of @sgt and the bytes contiguous from there. */
static dma_addr_t refaccel_sg_addr(struct sg_table *sgt, u64 off, u64 *len)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (off < sg_dma_len(sg)) {
			*len = sg_dma_len(sg) - off;
			return sg_dma_address(sg) + off;
		}
		off -= sg_dma_len(sg);
	}
	*len = 0;
	return DMA_MAPPING_ERROR;
}

/* Bytes from @off to the end of its page, at most @n. */
static u64 refaccel_page_rest(u64 off, u64 n)
{
	return min_t(u64, n, PAGE_SIZE - offset_in_page(off));
}

/* Bytes from the start of the page holding byte @end - 1, at most @n. */
static u64 refaccel_page_before(u64 end, u64 n)
{
	return min_t(u64, n, offset_in_page(end - 1) + 1);
}

/*
 * One step: @n bytes from @src into the device buffer and out to @dst;
 * the second command's interrupt signals @fence unless NULL.
 */
static int refaccel_edu_step(struct refaccel_edu *edu, struct sg_table *dst,
			     u64 doff, struct sg_table *src, u64 soff, u64 n,
			     struct dma_fence *fence)
{
	dma_addr_t s, d;
	u64 slen, dlen;
	int ret;

	s = refaccel_sg_addr(src, soff, &slen);
	d = refaccel_sg_addr(dst, doff, &dlen);
	if (s == DMA_MAPPING_ERROR || d == DMA_MAPPING_ERROR || slen < n ||
	    dlen < n)
		return -EIO;
	ret = refaccel_edu_dma(edu, s, 0, n, false, NULL);
	if (ret)
		return ret;
	return refaccel_edu_dma(edu, d, 0, n, true, fence);
}

/*
 * Copies on the DMA engine (the job's memmove semantics: backwards when
 * the destination overlaps the source from above); the last command's
 * interrupt signals @fence. Sleeps.
 */
int refaccel_edu_copy(struct refaccel_edu *edu, struct sg_table *dst,
		      u64 dst_offset, struct sg_table *src, u64 src_offset,
		      u64 size, struct dma_fence *fence)
{
	bool back = src == dst && dst_offset > src_offset &&
		    dst_offset < src_offset + size;
	u64 done = 0, n, at;
	int ret = 0;

	mutex_lock(&edu->lock);
	while (done < size && !ret) {
		n = min_t(u64, size - done, EDU_DMA_MAX);
		if (back) {
			at = size - done;
			n = refaccel_page_before(src_offset + at, n);
			n = refaccel_page_before(dst_offset + at, n);
			at -= n;
		} else {
			at = done;
			n = refaccel_page_rest(src_offset + at, n);
			n = refaccel_page_rest(dst_offset + at, n);
		}
		ret = refaccel_edu_step(edu, dst, dst_offset + at, src,
					src_offset + at, n,
					done + n == size ? fence : NULL);
		done += n;
	}
	mutex_unlock(&edu->lock);
	return ret;
}

/*
 * Fills on the DMA engine: the pattern, repeated, goes into the device
 * buffer once; each step copies out of it from the pattern's phase, the
 * last step's interrupt signals @fence. @size is a multiple of
 * @pattern_size. Sleeps.
 */
int refaccel_edu_fill(struct refaccel_edu *edu, struct sg_table *dst,
		      u64 dst_offset, u64 size, const u8 *pattern,
		      u32 pattern_size, struct dma_fence *fence)
{
	u8 *stage = edu->stage;
	u64 done = 0, n, len;
	dma_addr_t d;
	u32 i;
	int ret;

	mutex_lock(&edu->lock);
	for (i = 0; i < EDU_STAGE_SIZE; i += pattern_size)
		memcpy(stage + i, pattern,
		       min_t(u32, pattern_size, EDU_STAGE_SIZE - i));
	ret = refaccel_edu_dma(edu, edu->stage_bus, 0, EDU_STAGE_SIZE, false,
			       NULL);
	while (done < size && !ret) {
		n = min_t(u64, size - done, EDU_DMA_MAX);
		n = refaccel_page_rest(dst_offset + done, n);
		d = refaccel_sg_addr(dst, dst_offset + done, &len);
		if (d == DMA_MAPPING_ERROR || len < n) {
			ret = -EIO;
			break;
		}
		ret = refaccel_edu_dma(edu, d, done % pattern_size, n, true,
				       done + n == size ? fence : NULL);
		done += n;
	}
	mutex_unlock(&edu->lock);
	return ret;
}

/*
 * A factorial job: each of @words words of @src (the job's CPU mapping)
 * through the factorial unit into @dst, backwards when @dst overlaps @src
 * from above (the copy's memmove semantics). The unit multiplies n times,
 * so a word near 2^32 would keep it busy for seconds, past the timeout;
 * from REFACCEL_FACT_ZERO on its result is 0 anyway, written without it.
 * Sleeps; allocates nothing (a fence signalling path).
 */
int refaccel_edu_factorial_words(struct refaccel_edu *edu, u32 *dst,
				 const u32 *src, u64 words)
{
	bool back = dst > src && dst < src + words;
	u64 done, i;
	int ret = 0;
	u32 n, r;

	mutex_lock(&edu->lock);
	for (done = 0; done < words; done++) {
		i = back ? words - 1 - done : done;
		n = READ_ONCE(src[i]);
		if (n < REFACCEL_FACT_ZERO) {
			ret = refaccel_edu_factorial(edu, n, &r);
			if (ret)
				break;
		} else {
			r = refaccel_factorial(n);
			/* Words not sent to the unit: no sleep in between. */
			if (!(done % 4096))
				cond_resched();
		}
		WRITE_ONCE(dst[i], r);
	}
	mutex_unlock(&edu->lock);
	return ret;
}

/*
 * Proves the unit answers before user space sees it: liveness, 10! by
 * interrupt, and one step of data through the device buffer and back.
 * Under edu->lock, with @buf (2 * EDU_DMA_MAX bytes at bus address @bus)
 * allocated before: jobs take the lock on their way to signalling a
 * fence, so nothing under it may allocate (reclaim can wait for fences).
 */
static int refaccel_edu_selftest(struct refaccel_edu *edu, u32 *buf,
				 dma_addr_t bus)
{
	u32 fact;
	int ret, i;

	if (!refaccel_edu_alive(edu)) {
		pci_err(edu->pdev, "liveness register does not answer\n");
		return -EIO;
	}

	ret = refaccel_edu_factorial(edu, 10, &fact);
	if (ret || fact != 3628800) {
		pci_err(edu->pdev, "factorial unit: %d, 10! = %u\n", ret,
			fact);
		return ret ?: -EIO;
	}

	/* Memory the device can reach: one step out, then back. */
	for (i = 0; i < EDU_DMA_MAX / 4; i++)
		buf[i] = 0x9e3779b9u * (i + 1);
	memset(buf + EDU_DMA_MAX / 4, 0, EDU_DMA_MAX);
	ret = refaccel_edu_dma(edu, bus, 0, EDU_DMA_MAX, false, NULL);
	if (!ret)
		ret = refaccel_edu_dma(edu, bus + EDU_DMA_MAX, 0, EDU_DMA_MAX,
				       true, NULL);
	if (!ret && memcmp(buf, buf + EDU_DMA_MAX / 4, EDU_DMA_MAX)) {
		pci_err(edu->pdev, "DMA round trip gave other data\n");
		ret = -EIO;
	}
	return ret;
}

int refaccel_edu_pm_get(struct refaccel_edu *edu)
{
	if (!edu->pdev)
		return 0;
	return pm_runtime_resume_and_get(&edu->pdev->dev);
}

void refaccel_edu_pm_put(struct refaccel_edu *edu)
{
	if (!edu->pdev)
		return;
	pm_runtime_mark_last_busy(&edu->pdev->dev);
	pm_runtime_put_autosuspend(&edu->pdev->dev);
}

/* No job holds a usage count, so no command should run. */
static int refaccel_edu_runtime_suspend(struct device *dev)
{
	struct refaccel_device *rdev = dev_get_drvdata(dev);

	return refaccel_edu_busy(&rdev->edu) ? -EBUSY : 0;
}

static int refaccel_edu_runtime_resume(struct device *dev)
{
	struct refaccel_device *rdev = dev_get_drvdata(dev);

	if (!refaccel_edu_alive(&rdev->edu)) {
		dev_err(dev, "liveness register does not answer on resume\n");
		return -EIO;
	}
	return 0;
}

static DEFINE_RUNTIME_DEV_PM_OPS(refaccel_edu_pm, refaccel_edu_runtime_suspend,
				 refaccel_edu_runtime_resume, NULL);

/* How many fences the interrupt handler signalled, for tests. */
static ssize_t irq_fences_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct refaccel_device *rdev = dev_get_drvdata(dev);
	u64 n;

	spin_lock_irq(&rdev->edu.irq_lock);
	n = rdev->edu.irq_fences;
	spin_unlock_irq(&rdev->edu.irq_lock);
	return sysfs_emit(buf, "%llu\n", n);
}
static DEVICE_ATTR_RO(irq_fences);

static struct attribute *refaccel_edu_attrs[] = {
	&dev_attr_irq_fences.attr,
	NULL
};
ATTRIBUTE_GROUPS(refaccel_edu);

static int refaccel_edu_probe(struct pci_dev *pdev,
			      const struct pci_device_id *id)
{
	struct refaccel_device *rdev;
	struct refaccel_edu *edu;
	void __iomem *mmio;
	dma_addr_t bus;
	u32 ident, *buf;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	mmio = pcim_iomap_region(pdev, 0, REFACCEL_DRIVER_NAME);
	if (IS_ERR(mmio))
		return PTR_ERR(mmio);
	ident = readl(mmio + EDU_IDENT);
	if ((ident & 0xff) != EDU_IDENT_MAGIC) {
		pci_err(pdev, "not an edu device (ident %#x)\n", ident);
		return -ENODEV;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return ret;
	pci_set_master(pdev);
	/* Released with the device (pcim_enable_device). */
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_INTX);
	if (ret < 0)
		return ret;

	rdev = refaccel_device_create(&pdev->dev);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	edu = &rdev->edu;
	edu->pdev = pdev;
	edu->mmio = mmio;
	mutex_init(&edu->lock);
	init_completion(&edu->irq_done);
	spin_lock_init(&edu->irq_lock);
	/* From here on, devres drops the device (and its engine) on failure. */
	edu->stage = dmam_alloc_coherent(&pdev->dev, EDU_STAGE_SIZE,
					 &edu->stage_bus, GFP_KERNEL);
	if (!edu->stage)
		return -ENOMEM;
	edu->dma_jobs = edu_dma;
	ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, 0),
			       refaccel_edu_irq, IRQF_SHARED,
			       REFACCEL_DRIVER_NAME, edu);
	if (ret)
		return ret;

	buf = dma_alloc_coherent(&pdev->dev, 2 * EDU_DMA_MAX, &bus,
				 GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&edu->lock);
	ret = refaccel_edu_selftest(edu, buf, bus);
	mutex_unlock(&edu->lock);
	dma_free_coherent(&pdev->dev, 2 * EDU_DMA_MAX, buf, bus);
	if (ret)
		return ret;

	ret = drm_dev_register(&rdev->drm, 0);
	if (ret)
		return ret;
	pci_set_drvdata(pdev, rdev);
	atomic_inc(&refaccel_edu_bound);
	/*
	 * The PCI core holds a usage count over probe and forbids runtime
	 * PM by default: drop the one, allow the other (remove undoes both).
	 */
	pm_runtime_set_autosuspend_delay(&pdev->dev, EDU_AUTOSUSPEND_MS);
	pm_runtime_use_autosuspend(&pdev->dev);
	pm_runtime_mark_last_busy(&pdev->dev);
	pm_runtime_put_noidle(&pdev->dev);
	pm_runtime_allow(&pdev->dev);
	drm_info(&rdev->drm,
		 "edu %u.%u, %s, %d-bit DMA, self-test passed, jobs on the %s\n",
		 ident >> 24, (ident >> 16) & 0xff,
		 pdev->msi_enabled ? "MSI" : "INTx", EDU_DMA_BITS,
		 edu_dma ? "DMA engine" : "CPU");
	return 0;
}

static void refaccel_edu_remove(struct pci_dev *pdev)
{
	struct refaccel_device *rdev = pci_get_drvdata(pdev);

	/* The PCI core resumed the device for us; keep it so. */
	pm_runtime_forbid(&pdev->dev);
	pm_runtime_get_noresume(&pdev->dev);
	pm_runtime_dont_use_autosuspend(&pdev->dev);
	/* No job touches the device after this, open files or not. */
	refaccel_device_unplug(rdev);
	/* The interrupt, vectors and BAR go after us (devres). */
	writel(0, rdev->edu.mmio + EDU_STATUS);
	atomic_dec(&refaccel_edu_bound);
}

static const struct pci_device_id refaccel_edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, refaccel_edu_ids);

struct pci_driver refaccel_edu_driver = {
	.name = REFACCEL_DRIVER_NAME,
	.id_table = refaccel_edu_ids,
	.probe = refaccel_edu_probe,
	.remove = refaccel_edu_remove,
	.dev_groups = refaccel_edu_groups,
	.driver.pm = pm_ptr(&refaccel_edu_pm),
};
