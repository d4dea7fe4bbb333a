/* SPDX-License-Identifier: MIT */
/*
 * sync_file: a kernel dma-fence as an fd. Recognise one, read its state
 * and its fences, wait for it with poll(), merge two and pass a deadline
 * hint on. The public accel_sync_file_* functions of accel-fence.h are
 * the core's (sync-file.c beside the core), built on these.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "platform/platform.h"
#include "uapi/linux/sync_file.h"

#define NSEC_PER_SEC 1000000000ll

/* SYNC_IOC_FILE_INFO without the per-fence array: name and status only. */
static int file_info(int fd, struct sync_file_info *info)
{
	memset(info, 0, sizeof(*info));
	return accel_ioctl(fd, SYNC_IOC_FILE_INFO, info);
}

int accel_sync_file_check(int fd)
{
	struct sync_file_info info;
	struct stat st;
	int r;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -EBADF;
	/*
	 * A sync_file is never a device node, directory or FIFO: do not send
	 * a request number some driver might take for one of its own.
	 */
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
	    S_ISDIR(st.st_mode) || S_ISFIFO(st.st_mode))
		return -EINVAL;
	/* Open, but O_PATH: no ioctl or poll works (the kernel says EBADF). */
	if (accel_fd_is_o_path(fd))
		return -EBADF;
	r = file_info(fd, &info);
	if (r == -EBADF)
		return r;
	/* ENOTTY, EINVAL or whatever another file makes of it. */
	return r < 0 ? -EINVAL : 0;
}

int accel_sync_file_status(int fd)
{
	struct sync_file_info info;
	int r;

	r = file_info(fd, &info);
	if (r < 0)
		return r;
	/* dma_fence_get_status(): 1 signalled, 0 active, < 0 failed. */
	return info.status > 0 ? 1 : info.status;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int accel_sync_file_poll(int fd, int64_t timeout_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	bool infinite = timeout_ns == INT64_MAX;
	int64_t deadline = 0, left = timeout_ns;
	struct timespec ts;
	int r;

	if (fd < 0)
		return -EBADF;
	if (timeout_ns < 0)
		return -EINVAL;
	if (!infinite) {
		int64_t now = now_ns();

		/* So far in the future that it is forever. */
		if (timeout_ns > INT64_MAX - now)
			infinite = true;
		else
			deadline = now + timeout_ns;
	}

	for (;;) {
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		r = ppoll(&pfd, 1, infinite ? NULL : &ts, NULL);
		if (r > 0)
			break;
		if (r == 0)
			return -ETIME;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
		/* Interrupted: wait only for what is left. */
		if (!infinite) {
			left = deadline - now_ns();
			if (left < 0)
				left = 0;
		}
	}
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	if (pfd.revents & POLLIN)
		return 0;
	/* POLLERR/POLLHUP without POLLIN: not something that signals. */
	return -EINVAL;
}
