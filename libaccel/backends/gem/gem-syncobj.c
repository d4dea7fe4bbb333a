/* SPDX-License-Identifier: MIT */
/*
 * DRM syncobjs (a driver job's fence holder) and their sync_files, over
 * accel_ioctl.
 */
#include "backend.h"
#include "gem.h"

int gem_syncobj_create(int fd, uint32_t flags, uint32_t *ret_handle)
{
	struct drm_syncobj_create arg = { .flags = flags };
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &arg);
	if (r < 0)
		return r;
	*ret_handle = arg.handle;
	return 0;
}

int gem_syncobj_destroy(int fd, uint32_t handle)
{
	struct drm_syncobj_destroy arg = { .handle = handle };

	return accel_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &arg);
}

int gem_syncobj_reset(int fd, const uint32_t *handles, uint32_t n)
{
	struct drm_syncobj_array arg = {
		.handles = (uint64_t)(uintptr_t)handles,
		.count_handles = n,
	};

	return accel_ioctl(fd, DRM_IOCTL_SYNCOBJ_RESET, &arg);
}

int gem_syncobj_export_sync_file(int fd, uint32_t handle, int *ret_fd)
{
	/* The kernel makes the sync_file's fd O_CLOEXEC. */
	struct drm_syncobj_handle arg = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &arg);
	if (r < 0)
		return r;
	*ret_fd = arg.fd;
	return 0;
}

int gem_syncobj_import_sync_file(int fd, uint32_t handle, int sync_fd)
{
	struct drm_syncobj_handle arg = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
		.fd = sync_fd,
	};

	return accel_ioctl(fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &arg);
}
