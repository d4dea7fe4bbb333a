// SPDX-License-Identifier: GPL-2.0
/*
 * refaccel: module, DRM accel driver and its two personalities.
 *
 * - software: 6.12 has no faux device, so the module registers a
 *   platform device of its own and binds to it; the CPU runs the jobs;
 * - edu: a PCI driver for QEMU's teaching device (refaccel_edu.c).
 *
 * Each bound device is its own DRM accel device (/dev/accel/accelN) with
 * the same UAPI; on a kernel built without the accel subsystem
 * (CONFIG_DRM_ACCEL unset, as in Debian's arm64 config) it is a DRM
 * render node instead (/dev/dri/renderDN, with its primary node). The
 * software device is only registered when no edu device was bound at
 * load, unless the "software" parameter says so.
 */
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>

#include "refaccel_accel.h"
#include "refaccel_drv.h"

static struct platform_device *refaccel_pdev;
struct workqueue_struct *refaccel_free_wq;

/*
 * A render node refuses driver ioctls not marked DRM_RENDER_ALLOW; an
 * accel node ignores the flag.
 */
static const struct drm_ioctl_desc refaccel_ioctls[] = {
	DRM_IOCTL_DEF_DRV(REFACCEL_BO_CREATE, refaccel_bo_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(REFACCEL_BO_INFO, refaccel_bo_info_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(REFACCEL_SUBMIT, refaccel_submit_ioctl,
			  DRM_RENDER_ALLOW),
};

/*
 * DEFINE_DRM_ACCEL_FOPS (or, without the accel subsystem, whose
 * accel_open() then does not exist, DEFINE_DRM_GEM_FOPS) plus fdinfo
 * (drm-usage-stats.rst).
 */
static const struct file_operations refaccel_fops = {
	.owner = THIS_MODULE,
#if IS_ENABLED(CONFIG_DRM_ACCEL)
	DRM_ACCEL_FOPS,
#else
	DRM_GEM_FOPS,
#endif
	.show_fdinfo = drm_show_fdinfo,
};

/*
 * Without the accel subsystem the same device is a render node: what a
 * compute driver is on such a kernel, found by its driver name.
 */
#define REFACCEL_NODE_FEATURE \
	(IS_ENABLED(CONFIG_DRM_ACCEL) ? DRIVER_COMPUTE_ACCEL : DRIVER_RENDER)

static void refaccel_file_release(struct kref *ref)
{
	kfree(container_of(ref, struct refaccel_file, ref));
}

void refaccel_file_put(struct refaccel_file *rfile)
{
	kref_put(&rfile->ref, refaccel_file_release);
}

static int refaccel_open(struct drm_device *drm, struct drm_file *file)
{
	struct refaccel_file *rfile = kzalloc_obj(*rfile, GFP_KERNEL);

	if (!rfile)
		return -ENOMEM;
	kref_init(&rfile->ref);
	spin_lock_init(&rfile->lock);
	file->driver_priv = rfile;
	return 0;
}

static void refaccel_postclose(struct drm_device *drm, struct drm_file *file)
{
	refaccel_file_put(file->driver_priv);
}

/* The one engine ("copy") and the file's GEM objects (drm-total-*). */
static void refaccel_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct refaccel_file *rfile = file->driver_priv;
	u64 busy, now;

	spin_lock(&rfile->lock);
	now = ktime_get_ns();
	busy = rfile->busy_ns;
	/* The running job so far: the value must not stall while it runs. */
	if (rfile->run_start)
		busy += now - rfile->run_start;
	spin_unlock(&rfile->lock);
	drm_printf(p, "drm-engine-copy:\t%llu ns\n", busy);
	drm_show_memory_stats(p, file);
}

const struct drm_driver refaccel_drm_driver = {
	.driver_features = REFACCEL_NODE_FEATURE | DRIVER_GEM |
			   DRIVER_SYNCOBJ,
	.open = refaccel_open,
	.postclose = refaccel_postclose,
	.show_fdinfo = refaccel_show_fdinfo,
	.fops = &refaccel_fops,
	.ioctls = refaccel_ioctls,
	.num_ioctls = ARRAY_SIZE(refaccel_ioctls),
	DRM_GEM_SHMEM_DRIVER_OPS,
	.name = REFACCEL_DRIVER_NAME,
	.desc = "libaccel reference accelerator",
	.major = 1,
	.minor = 0,
};

static void refaccel_device_fini(struct drm_device *drm, void *data)
{
	struct refaccel_device *rdev = data;

	/* The last reference: unplugged (or never registered), wq idle. */
	destroy_workqueue(rdev->wq);
	mutex_destroy(&rdev->submit_lock);
}

/*
 * The DRM device of one personality, not yet registered. Freed with its
 * last reference (devres drops the driver's at unbind, each open file and
 * each job holds one), and the engine with it.
 */
struct refaccel_device *refaccel_device_create(struct device *dev)
{
	struct refaccel_device *rdev;
	int ret;

	rdev = devm_drm_dev_alloc(dev, &refaccel_drm_driver,
				  struct refaccel_device, drm);
	if (IS_ERR(rdev))
		return rdev;
	mutex_init(&rdev->submit_lock);
	rdev->fence_context = dma_fence_context_alloc(1);
	rdev->wq = alloc_ordered_workqueue("refaccel", 0);
	if (!rdev->wq) {
		mutex_destroy(&rdev->submit_lock);
		return ERR_PTR(-ENOMEM);
	}
	ret = drmm_add_action_or_reset(&rdev->drm, refaccel_device_fini,
				       rdev);
	if (ret)
		return ERR_PTR(ret);
	return rdev;
}

/*
 * Removal, with files possibly still open (PCI unbind, hot-unplug):
 * drm_dev_unplug() waits for every drm_dev_enter() section (a submit
 * queueing its job, a job using the device) and makes later ones fail,
 * so once the queued jobs have run (failing with -ENODEV, their fences
 * signalled) nothing touches the device. Files keep the drm_device and
 * their buffers until they close; their ioctls answer -ENODEV.
 */
void refaccel_device_unplug(struct refaccel_device *rdev)
{
	drm_dev_unplug(&rdev->drm);
	flush_workqueue(rdev->wq);
}

/* The software personality: the CPU is the engine. */
static int refaccel_probe(struct platform_device *pdev)
{
	struct refaccel_device *rdev;
	int ret;

	/* PRIME import maps foreign dma-bufs for this device: any address. */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	rdev = refaccel_device_create(&pdev->dev);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	/* On failure devres drops the device, and the engine with it. */
	ret = drm_dev_register(&rdev->drm, 0);
	if (ret)
		return ret;
	platform_set_drvdata(pdev, rdev);
	return 0;
}

static void refaccel_remove(struct platform_device *pdev)
{
	refaccel_device_unplug(platform_get_drvdata(pdev));
}

static struct platform_driver refaccel_platform_driver = {
	.probe = refaccel_probe,
	.remove = refaccel_remove,
	.driver = {
		.name = REFACCEL_DRIVER_NAME,
	},
};

static int software = -1;
module_param(software, int, 0444);
MODULE_PARM_DESC(software,
		 "software personality: 1 always, 0 never, -1 (default) only when no edu device was bound at load");

static int __init refaccel_init(void)
{
	int ret;

	refaccel_free_wq = alloc_workqueue("refaccel-free", WQ_UNBOUND, 0);
	if (!refaccel_free_wq)
		return -ENOMEM;
	/* PCI probes run synchronously here: the count below is final. */
	ret = pci_register_driver(&refaccel_edu_driver);
	if (ret)
		goto err_wq;
	if (software == 0 ||
	    (software < 0 && atomic_read(&refaccel_edu_bound)))
		return 0;

	ret = platform_driver_register(&refaccel_platform_driver);
	if (ret)
		goto err_pci;
	refaccel_pdev = platform_device_register_simple(REFACCEL_DRIVER_NAME,
							-1, NULL, 0);
	if (IS_ERR(refaccel_pdev)) {
		ret = PTR_ERR(refaccel_pdev);
		refaccel_pdev = NULL;
		platform_driver_unregister(&refaccel_platform_driver);
		goto err_pci;
	}
	return 0;

err_pci:
	pci_unregister_driver(&refaccel_edu_driver);
err_wq:
	destroy_workqueue(refaccel_free_wq);
	return ret;
}

static void __exit refaccel_exit(void)
{
	if (refaccel_pdev) {
		platform_device_unregister(refaccel_pdev);
		platform_driver_unregister(&refaccel_platform_driver);
	}
	pci_unregister_driver(&refaccel_edu_driver);
	/*
	 * Jobs being released may have dropped the last module reference
	 * (their fence's): this waits for them to return.
	 */
	destroy_workqueue(refaccel_free_wq);
}

module_init(refaccel_init);
module_exit(refaccel_exit);

MODULE_DESCRIPTION("libaccel reference accel driver (software engine, QEMU edu)");
MODULE_LICENSE("GPL");
