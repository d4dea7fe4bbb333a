/* SPDX-License-Identifier: MIT */
/*
 * A DRM node's identity: DRM_IOCTL_VERSION and DRM_IOCTL_GET_CAP over
 * accel_ioctl, and opening a discovered node for a known driver.
 */
#include <fcntl.h>
#include <string.h>

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
