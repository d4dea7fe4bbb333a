/* SPDX-License-Identifier: MIT */
/*
 * DRM devices: which discovered nodes this backend claims, what it learns
 * by opening them, their properties, and the backend's ops table.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "drm-private.h"

/*
 * The largest dumb buffer: the kernel computes its size in 32 bits and
 * page-aligns it (drm_mode_create_dumb), so 4 GiB less a page.
 */
#define DUMB_MAX_SIZE (0x100000000ull - 4096)

/* Buffers are pages of system RAM (shmem), not device memory. */
#define DRIVER_SYSTEM_MEMORY (1u << 0)
/* VGEM_FENCE_ATTACH/SIGNAL: fences of libaccel work export through it. */
#define DRIVER_VGEM_FENCES (1u << 1)

struct drm_driver_desc {
	const char *name; /* as DRM_IOCTL_VERSION and sysfs name it */
	uint32_t flags;   /* DRIVER_* */
};

/*
 * Drivers known to give dumb buffers and PRIME, and so usable as buffer
 * stores and dma-buf peers. Their dumb buffers must start zeroed (GEM
 * never hands out old contents). Adding a driver is one line.
 */
static const struct drm_driver_desc known_drivers[] = {
	/* Virtual GEM: shmem buffers, no engine; the tests' GPU peer. */
	{ "vgem", DRIVER_SYSTEM_MEMORY | DRIVER_VGEM_FENCES },
};

static const char *pci_vendor_name(uint32_t id)
{
	static const struct {
		uint32_t id;
		const char *name;
	} vendors[] = {
		{ 0x1002, "AMD" },
		{ 0x1022, "AMD" },
		{ 0x10de, "NVIDIA" },
		{ 0x1234, "QEMU" },
		{ 0x13b5, "Arm" },
		{ 0x15ad, "VMware" },
		{ 0x17cb, "Qualcomm" },
		{ 0x1af4, "Red Hat (virtio)" },
		{ 0x1b36, "Red Hat (QEMU)" },
		{ 0x8086, "Intel" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vendors); i++)
		if (vendors[i].id == id)
			return vendors[i].name;
	return NULL;
}

static const void *match_driver(const struct accel_udev_info *info)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_drivers); i++)
		if (gem_node_driver_is(info, known_drivers[i].name))
			return &known_drivers[i];
	return NULL;
}

/*
 * The kernel answers DRM_CAP_DUMB_BUFFER for modesetting drivers only
 * (render-only ones like vgem get EOPNOTSUPP though they have dumb
 * buffers): ask by making one page and dropping it.
 */
static int try_dumb(int fd, uint64_t *ret)
{
	struct drm_mode_create_dumb arg = {
		.width = 4096,
		.height = 1,
		.bpp = 8,
	};
	struct drm_gem_close gem_close = { 0 };
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &arg);
	if (r < 0)
		return r;
	gem_close.handle = arg.handle;
	accel_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gem_close);
	*ret = 1;
	return 0;
}

/*
 * The first opener of a primary node becomes DRM master. We need no
 * modesetting rights, and holding them would lock a compositor out: give
 * them back at once. Not being master (-EINVAL) is the normal case.
 */
static void drop_master(struct accel_context *ctx, int fd, const char *node)
{
	if (accel_ioctl(fd, DRM_IOCTL_DROP_MASTER, NULL) == 0)
		log_dbg(ctx, "%s: dropped the DRM master role opening gave us\n",
			node);
}

static void set_props(struct accel_device *dev,
		      const struct accel_udev_info *info,
		      const struct drm_driver_desc *desc, uint32_t prime_caps)
{
	uint64_t *p = dev->u64;

	/*
	 * Memory: a system-memory driver shares the RAM (and OpenCL's
	 * quarter-of-it rule for one allocation); for others DRM says
	 * nothing generic, so the size is unknown (0). Either way a dumb
	 * buffer cannot pass DUMB_MAX_SIZE.
	 */
	gem_node_set_props(dev, info, prime_caps,
			   desc->flags & DRIVER_SYSTEM_MEMORY);
	p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE] =
		p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE] ?
			MIN(p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE], DUMB_MAX_SIZE) :
			DUMB_MAX_SIZE;
	/*
	 * Buffers are host-mappable, but nothing here is "unified": the
	 * device runs no kernels, so none of the kernel capabilities either.
	 */
	p[ACCEL_DEVICE_U64_TYPE] = ACCEL_DEVICE_TYPE_GPU;
	p[ACCEL_DEVICE_U64_COMPUTE_UNITS] = 0;

	/* No kernels run here: the smallest shape, no arguments. */
	p[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE] = 1;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X] = 1;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y] = 1;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z] = 1;
	p[ACCEL_DEVICE_U64_MAX_KERNEL_ARGS] = 0;
	p[ACCEL_DEVICE_U64_MAX_ARG_BYTES] = 0;
	/* Vector widths stay 0: no type is usable in a kernel here. */
}

static int set_strings(struct accel_device *dev,
		       const struct accel_udev_info *info,
		       const struct gem_node_version *ver)
{
	const char *vendor = pci_vendor_name(info->vendor_id);
	char version[64];
	const struct {
		enum accel_device_string prop;
		const char *value;
	} strings[] = {
		{ ACCEL_DEVICE_STRING_NAME,
		  *ver->desc ? ver->desc : ver->name },
		{ ACCEL_DEVICE_STRING_VENDOR, vendor ? vendor : ver->name },
		{ ACCEL_DEVICE_STRING_DRIVER, ver->name },
		{ ACCEL_DEVICE_STRING_DRIVER_VERSION, version },
		{ ACCEL_DEVICE_STRING_BACKEND, accel_drm_backend.name },
		{ ACCEL_DEVICE_STRING_DEVNODE, info->devnode },
		{ ACCEL_DEVICE_STRING_SYSPATH, info->syspath },
	};
	size_t i;
	int r;

	snprintf(version, sizeof(version), "%d.%d.%d", ver->major, ver->minor,
		 ver->patch);
	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		r = accel_device_set_string(dev, strings[i].prop,
					    strings[i].value);
		if (r < 0)
			return r;
	}
	return 0;
}

static int create_device(struct accel_context *ctx,
			 const struct accel_udev_info *info,
			 const struct drm_driver_desc *desc,
			 const struct gem_node_version *ver, int fd,
			 uint32_t prime_caps)
{
	struct accel_device *dev;
	struct drm_device *drm;
	int r;

	r = accel_device_alloc(ctx, &accel_drm_backend, &dev);
	if (r < 0)
		return r;
	drm = calloc(1, sizeof(*drm));
	if (!drm) {
		accel_device_destroy(dev);
		return -ENOMEM;
	}
	gem_device_init(&drm->gem, fd, prime_caps);
	pthread_mutex_init(&drm->worker_lock, NULL);
	atomic_init(&drm->worker, NULL);
	pthread_mutex_init(&drm->fence_lock, NULL);
	dev->backend_data = drm;

	set_props(dev, info, desc, prime_caps);
	/* Export fences only if a test round of attach + signal works. */
	if (desc->flags & DRIVER_VGEM_FENCES) {
		r = drm_fence_init(ctx, drm);
		if (r == 0)
			dev->u64[ACCEL_DEVICE_U64_CAPS] |=
				ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT;
		else
			log_info(ctx, "%s: vgem fences do not work (%s): no fence export\n",
				 info->devnode, strerror(-r));
	}
	r = set_strings(dev, info, ver);
	if (r == 0)
		r = accel_context_add_device(ctx, dev);
	if (r < 0) {
		/* Closes @fd too (device_fini). */
		accel_device_destroy(dev);
		return r;
	}
	return 0;
}

static int drm_probe(struct accel_context *ctx,
		     const struct accel_udev_info *info)
{
	const struct drm_driver_desc *desc;
	uint64_t dumb = 0, prime = 0;
	struct gem_node_version ver;
	int fd, r;

	/* Accel nodes are another backend's. */
	desc = gem_node_claim(ctx, info, "drm", "drm", match_driver);
	if (!desc)
		return 0;
	if (strncmp(info->sysname, "card", 4)) {
		log_info(ctx, "%s (%s): no primary node, which dumb buffers need; not used\n",
			 info->sysname, desc->name);
		return 0;
	}

	r = gem_node_open(ctx, info, desc->name, &fd);
	if (r <= 0)
		return r;
	drop_master(ctx, fd, info->devnode);

	r = gem_node_get_cap(fd, DRM_CAP_DUMB_BUFFER, &dumb);
	if (r == -EOPNOTSUPP)
		r = try_dumb(fd, &dumb);
	if (r < 0 || !dumb) {
		log_info(ctx, "%s (%s): %s offers no dumb buffers (%s); not used\n",
			 info->sysname, desc->name, info->devnode,
			 r < 0 ? strerror(-r) : "capability is 0");
		accel_context_close(ctx, fd);
		return 0;
	}
	/* Without PRIME the device still stores buffers; just no sharing. */
	if (gem_node_get_cap(fd, DRM_CAP_PRIME, &prime) < 0)
		prime = 0;
	if (!gem_node_identify(ctx, info, fd, desc->name, &ver))
		return 0;

	/* From here on the device owns @fd. */
	r = create_device(ctx, info, desc, &ver, fd, (uint32_t)prime);
	if (r == 0)
		log_dbg(ctx, "%s: %s %d.%d.%d, prime caps 0x%llx\n",
			info->devnode, ver.name, ver.major, ver.minor,
			ver.patch, (unsigned long long)prime);
	return r < 0 ? r : 1;
}

static void drm_device_fini(struct accel_device *dev)
{
	struct drm_device *drm = dev->backend_data;

	if (!drm)
		return;
	/* May run on the worker itself; it copes. */
	gem_worker_destroy(atomic_load_explicit(&drm->worker,
						memory_order_acquire));
	drm_fence_fini(drm);
	gem_device_fini(&drm->gem);
	pthread_mutex_destroy(&drm->worker_lock);
	accel_context_close(dev->ctx, drm->gem.fd);
	free(drm);
	dev->backend_data = NULL;
}

const struct accel_backend_ops accel_drm_backend = {
	.name = "drm",
	.probe = drm_probe,
	.device_fini = drm_device_fini,
	.buffer_alloc = drm_buffer_alloc,
	.buffer_free = gem_buffer_free,
	/* buffer_map/unmap: NULL, the core maps through host_ptr. */
	.buffer_export_dmabuf = gem_buffer_export,
	.buffer_import_dmabuf = drm_buffer_import_dmabuf,
	.execute = drm_execute,
	.fence_export_sync_file = drm_fence_export_sync_file,
};
