/* SPDX-License-Identifier: MIT */
/*
 * A DRM node's identity: the driver behind a discovered node,
 * DRM_IOCTL_VERSION and DRM_IOCTL_GET_CAP over accel_ioctl, and opening
 * the node for a known driver.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "backend.h"
#include "gem.h"

int gem_node_version(int fd, struct gem_node_version *ret)
{
	struct gem_node_version v = { 0 };
	/* The kernel copies at most these lengths: the strings stay ended. */
	struct drm_version arg = {
		.name = v.name,
		.name_len = sizeof(v.name) - 1,
		.desc = v.desc,
		.desc_len = sizeof(v.desc) - 1,
	};
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_VERSION, &arg);
	if (r < 0)
		return r;
	v.major = arg.version_major;
	v.minor = arg.version_minor;
	v.patch = arg.version_patchlevel;
	*ret = v;
	return 0;
}

/* @name is @driver, or @driver.N (a numbered platform device). */
static bool platform_name_matches(const char *name, const char *driver)
{
	size_t len = strlen(driver);

	if (strncmp(name, driver, len))
		return false;
	name += len;
	if (!*name)
		return true;
	return name[0] == '.' && name[1] &&
	       strspn(name + 1, "0123456789") == strlen(name + 1);
}

bool gem_node_driver_is(const struct accel_udev_info *info,
			const char *driver)
{
	const char *slash;

	if (*info->driver)
		return !strcmp(info->driver, driver);
	if (strcmp(info->bus, "platform"))
		return false;
	slash = strrchr(info->parent_syspath, '/');
	return platform_name_matches(slash ? slash + 1 : info->parent_syspath,
				     driver);
}

void gem_node_set_props(struct accel_device *dev,
			const struct accel_udev_info *info,
			uint32_t prime_caps, bool system_memory)
{
	const uint64_t mib = 1024 * 1024;
	uint64_t *p = dev->u64, caps = 0, ram = 0;
	struct sysinfo si;

	if (prime_caps & DRM_PRIME_CAP_EXPORT)
		caps |= ACCEL_DEVICE_CAP_DMABUF_EXPORT;
	if (prime_caps & DRM_PRIME_CAP_IMPORT)
		caps |= ACCEL_DEVICE_CAP_DMABUF_IMPORT;
	p[ACCEL_DEVICE_U64_CAPS] = caps;
	p[ACCEL_DEVICE_U64_VENDOR_ID] = info->vendor_id;
	p[ACCEL_DEVICE_U64_DEVICE_ID] = info->device_id;
	p[ACCEL_DEVICE_U64_CLOCK_MHZ] = 0;
	if (system_memory && sysinfo(&si) == 0)
		ram = (uint64_t)si.totalram * si.mem_unit;
	p[ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE] = ram;
	p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE] =
		ram ? MIN(MAX(ram / 4, 128 * mib), ram) :
		system_memory ? 128 * mib : 0;
	p[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE] = 0;
	/* Mappings are linear; 128 keeps any vector type aligned. */
	p[ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN] = 128;
	p[ACCEL_DEVICE_U64_CACHE_LINE_SIZE] = 0;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS] = 3;
	/* Fence times come from CLOCK_MONOTONIC on the worker. */
	p[ACCEL_DEVICE_U64_TIMER_RESOLUTION_NS] = 1;
	p[ACCEL_DEVICE_U64_NUMA_NODE] =
		info->numa_node >= 0 ? (uint64_t)info->numa_node : UINT64_MAX;
}

const void *gem_node_claim(struct accel_context *ctx,
			   const struct accel_udev_info *info,
			   const char *subsystem, const char *backend,
			   const void *(*match)(const struct accel_udev_info *))
{
	const void *found;

	if (strcmp(info->subsystem, subsystem))
		return NULL;
	found = match(info);
	if (!found)
		log_dbg(ctx, "%s: driver '%s' is not one the %s backend knows\n",
			info->sysname, info->driver, backend);
	return found;
}

int gem_node_get_cap(int fd, uint64_t cap, uint64_t *ret)
{
	struct drm_get_cap arg = { .capability = cap };
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_GET_CAP, &arg);
	if (r < 0)
		return r;
	*ret = arg.value;
	return 0;
}

int gem_node_open(struct accel_context *ctx,
		  const struct accel_udev_info *info, const char *driver,
		  int *ret_fd)
{
	int fd = accel_context_open(ctx, info->devnode, O_RDWR);

	if (fd < 0) {
		log_info(ctx, "%s (%s): cannot open %s: %s%s; not used\n",
			 info->sysname, driver, info->devnode, strerror(-fd),
			 fd == -EACCES || fd == -EPERM ?
				 " (not in the group that owns the node?)" :
				 "");
		return fd == -ENOMEM ? fd : 0;
	}
	*ret_fd = fd;
	return 1;
}

int gem_node_identify(struct accel_context *ctx,
		      const struct accel_udev_info *info, int fd,
		      const char *driver, struct gem_node_version *ret)
{
	struct gem_node_version v;
	int r;

	/* sysfs names only the bound driver: the node says who it is. */
	r = gem_node_version(fd, &v);
	if (r == 0 && !strcmp(v.name, driver)) {
		*ret = v;
		return 1;
	}
	log_info(ctx, "%s: %s reports driver '%s', not '%s'; not used\n",
		 info->sysname, info->devnode, r == 0 ? v.name : strerror(-r),
		 driver);
	accel_context_close(ctx, fd);
	return 0;
}
