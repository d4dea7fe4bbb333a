/* SPDX-License-Identifier: MIT */
/*
 * Accel-node devices: which discovered /dev/accel nodes this backend
 * claims (the drivers of the table below), their properties, and the
 * backend's ops table. A kernel built without the accel subsystem
 * (CONFIG_DRM_ACCEL unset) has no /dev/accel: a driver of the table then
 * registers a DRM render node instead, which this backend claims the
 * same way, by driver name.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "accelnode-private.h"


/* Drivers this backend drives; a new one is a file and a line here. */
static const struct accelnode_driver *const drivers[] = {
	&accelnode_refaccel,
};

/*
 * The node of @info the engine is reached through: the accel node, or
 * the render node of a DRM device (a kernel without the accel
 * subsystem); NULL for anything else (a primary node alone).
 */
static const char *engine_node(const struct accel_udev_info *info)
{
	if (!strcmp(info->subsystem, "accel"))
		return info->devnode;
	if (!strcmp(info->subsystem, "drm") && *info->render_devnode)
		return info->render_devnode;
	return NULL;
}

/* The driver of this backend behind the node, or NULL (gem_node_claim). */
static const void *match_driver(const struct accel_udev_info *info)
{
	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
		if (gem_node_driver_is(info, drivers[i]->name))
			return drivers[i];
	return NULL;
}

static void set_props(struct accel_device *dev,
		      const struct accel_udev_info *info,
		      const struct accelnode_driver *drv, uint32_t prime)
{
	uint64_t *p = dev->u64;

	/* A system-memory engine: OpenCL's quarter-of-RAM rule. */
	gem_node_set_props(dev, info, prime, true);
	p[ACCEL_DEVICE_U64_TYPE] = ACCEL_DEVICE_TYPE_ACCELERATOR;
	p[ACCEL_DEVICE_U64_CAPS] |= ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT |
				    ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT;
	/* No programmable compute: operations are built-in kernels. */
	if (drv->n_built_ins)
		p[ACCEL_DEVICE_U64_CAPS] |= ACCEL_DEVICE_CAP_BUILT_IN_KERNELS;
	p[ACCEL_DEVICE_U64_COMPUTE_UNITS] = 1; /* one engine */

	/*
	 * Built-in kernels are one job over the whole range: any group
	 * shape will do, so the largest the API can describe.
	 */
	p[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE] = 1u << 30;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X] = 1u << 30;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y] = 1;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z] = 1;
	/* OpenCL's minimum for CL_DEVICE_MAX_PARAMETER_SIZE. */
	p[ACCEL_DEVICE_U64_MAX_KERNEL_ARGS] = 8;
	p[ACCEL_DEVICE_U64_MAX_ARG_BYTES] = 1024;
}

/* The built-in kernels' names, ';'-separated, into @out. */
static int built_in_names(const struct accelnode_driver *drv, char *out,
			  size_t size)
{
	size_t i, len = 0;
	int n;

	out[0] = '\0';
	for (i = 0; i < drv->n_built_ins; i++) {
		n = snprintf(out + len, size - len, "%s%s", i ? ";" : "",
			     drv->built_ins[i].name);
		if (n < 0 || (size_t)n >= size - len)
			return -ENAMETOOLONG;
		len += (size_t)n;
	}
	return 0;
}

static int set_strings(struct accel_device *dev,
		       const struct accel_udev_info *info,
		       const struct accelnode_driver *drv,
		       const struct gem_node_version *ver)
{
	const char *v[ACCEL_DEVICE_STRING_COUNT] = { NULL };
	char version[64], names[256];
	int i, r;

	r = built_in_names(drv, names, sizeof(names));
	if (r < 0)
		return r;
	snprintf(version, sizeof(version), "%d.%d.%d", ver->major, ver->minor,
		 ver->patch);
	v[ACCEL_DEVICE_STRING_NAME] = *ver->desc ? ver->desc : ver->name;
	v[ACCEL_DEVICE_STRING_VENDOR] = ver->name;
	v[ACCEL_DEVICE_STRING_DRIVER] = ver->name;
	v[ACCEL_DEVICE_STRING_DRIVER_VERSION] = version;
	v[ACCEL_DEVICE_STRING_BACKEND] = accel_accel_backend.name;
	v[ACCEL_DEVICE_STRING_DEVNODE] = info->devnode;
	v[ACCEL_DEVICE_STRING_SYSPATH] = info->syspath;
	v[ACCEL_DEVICE_STRING_BUILT_IN_KERNELS] = names;
	for (i = 0; i < ACCEL_DEVICE_STRING_COUNT && r == 0; i++)
		if (v[i])
			r = accel_device_set_string(dev, i, v[i]);
	return r;
}

/*
 * The device, owning @fd from here on: whatever fails, device_fini (or
 * this function, before there is a device) closes it.
 */
static int create_device(struct accel_context *ctx,
			 const struct accel_udev_info *info,
			 const struct accelnode_driver *drv,
			 const struct gem_node_version *ver, int fd,
			 uint32_t prime)
{
	struct accelnode_device *an = calloc(1, sizeof(*an));
	struct accel_device *dev = NULL;
	int r = an ? accel_device_alloc(ctx, &accel_accel_backend, &dev) :
		     -ENOMEM;

	if (r < 0) {
		free(an);
		accel_context_close(ctx, fd);
		return r;
	}
	gem_device_init(&an->gem, fd, prime);
	an->drv = drv;
	pthread_mutex_init(&an->engine_lock, NULL);
	dev->backend_data = an;

	set_props(dev, info, drv, prime);
	r = set_strings(dev, info, drv, ver);
	if (r == 0)
		r = accel_context_add_device(ctx, dev);
	if (r < 0)
		accel_device_destroy(dev);
	return r;
}

static int accelnode_probe(struct accel_context *ctx,
			   const struct accel_udev_info *info)
{
	const struct accelnode_driver *drv;
	struct accel_udev_info node;
	struct gem_node_version ver;
	uint64_t prime = 0;
	int fd, r;

	if (!engine_node(info))
		return 0;
	drv = gem_node_claim(ctx, info, info->subsystem, "accel",
			     match_driver);
	if (!drv)
		return 0;
	/*
	 * From here on the node is the one opened (and the device's
	 * DEVNODE): a render node, never its primary node, whose first
	 * opener would become DRM master.
	 */
	node = *info;
	node.devnode = engine_node(info);
	r = gem_node_open(ctx, &node, drv->name, &fd);
	if (r <= 0)
		return r;
	if (!gem_node_identify(ctx, &node, fd, drv->name, &ver))
		return 0;
	/* Without PRIME there is no sharing, but the engine still works. */
	if (gem_node_get_cap(fd, DRM_CAP_PRIME, &prime) < 0)
		prime = 0;
	r = create_device(ctx, &node, drv, &ver, fd, (uint32_t)prime);
	log_dbg(ctx, "%s: %s (PRIME 0x%llx): %s\n", node.devnode, ver.name,
		(unsigned long long)prime, r < 0 ? strerror(-r) : "claimed");
	return r < 0 ? r : 1;
}

static void accelnode_device_fini(struct accel_device *dev)
{
	struct accelnode_device *an = dev->backend_data;

	if (!an)
		return;
	accelnode_engine_destroy(an->engine);
	gem_device_fini(&an->gem);
	pthread_mutex_destroy(&an->engine_lock);
	accel_context_close(dev->ctx, an->gem.fd);
	free(an);
	dev->backend_data = NULL;
}

static int accelnode_built_ins(struct accel_device *dev,
			       const struct accel_kernel_info **ret,
			       uint32_t *n)
{
	struct accelnode_device *an = dev->backend_data;

	*ret = an->drv->built_ins;
	*n = an->drv->n_built_ins;
	return 0;
}

const struct accel_backend_ops accel_accel_backend = {
	.name = "accel",
	.probe = accelnode_probe,
	.device_fini = accelnode_device_fini,
	.buffer_alloc = accelnode_buffer_alloc,
	.buffer_free = gem_buffer_free,
	.buffer_export_dmabuf = gem_buffer_export,
	.buffer_import_dmabuf = accelnode_buffer_import_dmabuf,
	.get_built_in_kernels = accelnode_built_ins,
	.queue_init = accelnode_queue_init,
	.execute = accelnode_execute,
	/* refaccel-style drivers sync on reservation objects. */
	.implicit_sync_in_kernel = true,
	/* Jobs take in-syncobjs; the engine runs jobs in submission order. */
	.sync_file_deps_in_kernel = true,
	.fence_export_sync_file = accelnode_fence_export_sync_file,
};
