/* SPDX-License-Identifier: MIT */
/*
 * sync_file: a kernel dma-fence as an fd. Recognise one, read its state
 * and its fences, wait for it with poll(), merge two and pass a deadline
 * hint on. The accel_sync_file_* functions of accel-fence.h live here.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "accel-private.h"
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

ACCEL_EXPORT int accel_sync_file_wait(int fd, int64_t timeout_ns)
{
	int r;

	if (timeout_ns < 0)
		return -EINVAL;
	r = accel_sync_file_check(fd);
	if (r == 0)
		r = accel_sync_file_poll(fd, timeout_ns);
	if (r < 0)
		return r;
	/* Readable: signalled, perhaps with an error worth reporting. */
	r = accel_sync_file_status(fd);
	return r > 0 ? 0 : r < 0 ? r : -EIO;
}

ACCEL_EXPORT int accel_sync_file_merge(const char *name, int fd1, int fd2,
				       int *ret_fd)
{
	struct sync_merge_data data;
	size_t len;
	int r;

	if (!ret_fd)
		return -EINVAL;
	/* The kernel answers a bad fd2 with ENOENT; say what is wrong. */
	r = accel_sync_file_check(fd1);
	if (r == 0)
		r = accel_sync_file_check(fd2);
	if (r < 0)
		return r;

	memset(&data, 0, sizeof(data));
	if (!name)
		name = "libaccel";
	/* Truncated to what the kernel keeps, NUL included. */
	len = strnlen(name, sizeof(data.name) - 1);
	memcpy(data.name, name, len);
	data.fd2 = fd2;
	data.fence = -1;
	r = accel_ioctl(fd1, SYNC_IOC_MERGE, &data);
	if (r < 0)
		return r;
	/* The kernel made it O_CLOEXEC. */
	*ret_fd = data.fence;
	return 0;
}

static void copy_name(char *dst, const char *src, size_t size)
{
	/* The kernel's names are NUL-padded, not always NUL-terminated. */
	size_t len = strnlen(src, size);

	memcpy(dst, src, len);
	memset(dst + len, 0, size - len);
	dst[size - 1] = '\0';
}

ACCEL_EXPORT int accel_sync_file_get_info(int fd,
					  struct accel_sync_file_info *info,
					  struct accel_sync_fence_info *fences,
					  uint32_t max_fences)
{
	struct sync_fence_info *raw = NULL;
	struct sync_file_info fi;
	uint32_t i, n;
	int r;

	if (!info || (!fences && max_fences))
		return -EINVAL;
	r = accel_sync_file_check(fd);
	if (r < 0)
		return r;
	r = file_info(fd, &fi);
	if (r < 0)
		return r;
	/*
	 * The kernel fills all fences or none (EINVAL when the array is too
	 * small), and the count is fixed for the life of the sync_file.
	 */
	n = fi.num_fences;
	if (n > INT32_MAX)
		return -EOVERFLOW;
	if (max_fences && n) {
		raw = calloc(n, sizeof(*raw));
		if (!raw)
			return -ENOMEM;
		memset(&fi, 0, sizeof(fi));
		fi.num_fences = n;
		fi.sync_fence_info = (uintptr_t)raw;
		r = accel_ioctl(fd, SYNC_IOC_FILE_INFO, &fi);
		if (r < 0) {
			free(raw);
			return r;
		}
	}

	memset(info, 0, sizeof(*info));
	copy_name(info->name, fi.name, sizeof(info->name));
	info->status = fi.status > 0 ? 1 : fi.status;
	info->n_fences = n;
	for (i = 0; raw && i < n && i < max_fences; i++) {
		struct accel_sync_fence_info *f = &fences[i];

		memset(f, 0, sizeof(*f));
		copy_name(f->driver, raw[i].driver_name, sizeof(f->driver));
		copy_name(f->timeline, raw[i].obj_name, sizeof(f->timeline));
		f->status = raw[i].status > 0 ? 1 : raw[i].status;
		/* Only meaningful once signalled; 0 otherwise. */
		f->timestamp_ns = f->status ? raw[i].timestamp_ns : 0;
	}
	free(raw);
	return (int)n;
}

ACCEL_EXPORT int accel_sync_file_set_deadline(int fd, uint64_t deadline_ns)
{
	struct sync_set_deadline arg = { .deadline_ns = deadline_ns };
	int r;

	r = accel_sync_file_check(fd);
	if (r < 0)
		return r;
	r = accel_ioctl(fd, SYNC_IOC_SET_DEADLINE, &arg);
	/* Before Linux 6.5 there is no such request: a hint nobody takes. */
	if (r == -ENOTTY)
		return -EOPNOTSUPP;
	return r < 0 ? r : 0;
}
