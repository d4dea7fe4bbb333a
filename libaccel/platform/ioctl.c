/* SPDX-License-Identifier: MIT */
/*
 * The one door for every ioctl libaccel makes, so retries and error
 * conventions live in one place and tests have one seam to interpose
 * (-Wl,--wrap=accel_ioctl); and whether an fd allows ioctls at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>

#include "platform/platform.h"

int accel_ioctl(int fd, unsigned long request, void *arg)
{
	int r;

	/*
	 * EINTR: a signal arrived while the driver waited. EAGAIN: DRM
	 * drivers use it for "try again" (a GPU reset, a busy ring), as
	 * libdrm's drmIoctl() knows. Both mean the same call again.
	 */
	do {
		r = ioctl(fd, request, arg);
	} while (r == -1 && (errno == EINTR || errno == EAGAIN));

	return r < 0 ? -errno : r;
}

bool accel_fd_is_o_path(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_PATH);
}
