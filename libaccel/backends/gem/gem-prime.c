/* SPDX-License-Identifier: MIT */
/*
 * PRIME (GEM objects as dma-bufs and back) and GEM_CLOSE, over
 * accel_ioctl.
 */
#include "backend.h"
#include "gem.h"

int gem_prime_fd_to_handle(int fd, int dmabuf, uint32_t *ret_handle)
{
	struct drm_prime_handle arg = { .fd = dmabuf };
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &arg);
	if (r < 0)
		return r;
	*ret_handle = arg.handle;
	return 0;
}

int gem_prime_handle_to_fd(int fd, uint32_t handle, uint32_t flags,
			   int *ret_fd)
{
	struct drm_prime_handle arg = {
		.handle = handle,
		.flags = flags,
		.fd = -1,
	};
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &arg);
	if (r < 0)
		return r;
	*ret_fd = arg.fd;
	return 0;
}

int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close arg = { .handle = handle };

	return accel_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &arg);
}
