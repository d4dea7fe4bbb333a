/* SPDX-License-Identifier: MIT */
/*
 * The accel_sync_file_* functions of accel-fence.h: wait, merge, read the
 * fences of and pass a deadline hint to a sync_file, over the platform's
 * sync_file checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accel-private.h"
#include "platform/platform.h"
#include "uapi/linux/sync_file.h"

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
	memset(&fi, 0, sizeof(fi));
	r = accel_ioctl(fd, SYNC_IOC_FILE_INFO, &fi);
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
