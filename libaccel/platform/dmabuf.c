/* SPDX-License-Identifier: MIT */
/*
 * dma-buf: recognising one, its size, CPU-access bracketing, names,
 * implicit fences, and the two ways the kernel makes one from plain memory
 * (udmabuf over a memfd, dma-buf heaps).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "platform/platform.h"
#include "uapi/linux/dma-buf.h"
#include "uapi/linux/dma-heap.h"
#include "uapi/linux/magic.h"
#include "uapi/linux/udmabuf.h"

#define UDMABUF_PATH "/dev/udmabuf"
#define DMA_HEAP_DIR "/dev/dma_heap/"

/* 0 or -errno: these ioctls have no meaningful positive result. */
static int ioctl_status(int r)
{
	return r < 0 ? r : 0;
}

int accel_dmabuf_check(int fd)
{
	struct statfs sfs;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	/*
	 * Every dma-buf lives on the kernel's internal dmabuf file system;
	 * nothing else does. Asking the file system, not an ioctl, sends no
	 * unknown request to whatever driver is behind @fd.
	 */
	if (fstatfs(fd, &sfs) < 0)
		return errno == EBADF ? -EBADF : -ENOTTY;
	if ((unsigned long)sfs.f_type != DMA_BUF_MAGIC)
		return -ENOTTY;
	/* A dma-buf, but opened O_PATH: it can be neither mapped nor sized. */
	return accel_fd_is_o_path(fd) ? -EBADF : 0;
}

int accel_dmabuf_get_size(int fd, uint64_t *ret)
{
	off_t end;

	/*
	 * dma-buf's llseek answers SEEK_END with the size (and accepts
	 * nothing but offset 0). A dma-buf has no read/write, so moving the
	 * position of a borrowed fd changes nothing for its owner.
	 */
	end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return -errno;
	*ret = (uint64_t)end;
	return 0;
}

int accel_dmabuf_sync(int fd, bool start, bool read, bool write)
{
	struct dma_buf_sync sync = { 0 };

	if (!read && !write)
		return -EINVAL;
	sync.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
		     (read ? DMA_BUF_SYNC_READ : 0) |
		     (write ? DMA_BUF_SYNC_WRITE : 0);
	return ioctl_status(accel_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync));
}

int accel_dmabuf_set_name(int fd, const char *name)
{
	if (!name)
		return -EINVAL;
	/* The kernel takes up to DMA_BUF_NAME_LEN bytes, NUL included. */
	if (strnlen(name, DMA_BUF_NAME_LEN) >= DMA_BUF_NAME_LEN)
		return -ENAMETOOLONG;
	/* The argument is the string itself, not a struct. */
	return ioctl_status(accel_ioctl(fd, DMA_BUF_SET_NAME, (void *)name));
}

int accel_dmabuf_export_sync_file(int fd, bool write, int *ret_fd)
{
	struct dma_buf_export_sync_file arg = {
		.flags = write ? DMA_BUF_SYNC_WRITE : DMA_BUF_SYNC_READ,
		.fd = -1,
	};
	int r;

	r = accel_ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &arg);
	if (r < 0)
		return r;
	/* The kernel made it O_CLOEXEC. */
	*ret_fd = arg.fd;
	return 0;
}

int accel_dmabuf_import_sync_file(int fd, bool write, int sync_fd)
{
	struct dma_buf_import_sync_file arg = {
		.flags = write ? DMA_BUF_SYNC_WRITE : DMA_BUF_SYNC_READ,
		.fd = sync_fd,
	};

	return ioctl_status(accel_ioctl(fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE,
					&arg));
}

/* Errors of opening a device node that mean "the kernel has none". */
static int absent_to_eopnotsupp(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -ENXIO ? -EOPNOTSUPP : r;
}

static uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

int accel_udmabuf_create(const struct accel_platform_env *env, int memfd,
			 uint64_t offset, uint64_t size, int *ret_fd)
{
	struct udmabuf_create arg = { 0 };
	uint64_t page = page_size();
	int dev, r;

	if (!env || memfd < 0 || !ret_fd)
		return -EINVAL;
	if (size == 0 || offset % page || size % page ||
	    offset > UINT64_MAX - size)
		return -EINVAL;

	/*
	 * Opened per export, not kept: exports are rare next to the use of
	 * what they make, and a context then holds no fd it does not need.
	 */
	dev = env->open(env->data, UDMABUF_PATH, O_RDWR);
	if (dev < 0) {
		r = absent_to_eopnotsupp(dev);
		plat_dbg(env, "%s: %s\n", UDMABUF_PATH, strerror(-dev));
		return r;
	}
	arg.memfd = (uint32_t)memfd;
	arg.flags = UDMABUF_FLAGS_CLOEXEC;
	arg.offset = offset;
	arg.size = size;
	/* The result is the new dma-buf fd (O_RDWR, O_CLOEXEC by the flag). */
	r = accel_ioctl(dev, UDMABUF_CREATE, &arg);
	env->close(env->data, dev);
	if (r < 0) {
		/*
		 * udmabuf refuses buffers above its size_limit_mb module
		 * parameter (64 MiB by default) with a bare EINVAL.
		 */
		plat_dbg(env,
			"UDMABUF_CREATE of %llu bytes at %llu: %s%s\n",
			(unsigned long long)size, (unsigned long long)offset,
			strerror(-r),
			r == -EINVAL ? " (above udmabuf.size_limit_mb?)" : "");
		return r;
	}
	*ret_fd = r;
	return 0;
}

/* "/dev/dma_heap/<heap>" for a plain name; -EINVAL for anything else. */
static int heap_path(const char *heap, char *path, size_t len)
{
	size_t n;

	if (!heap || !*heap || strchr(heap, '/') || !strcmp(heap, ".") ||
	    !strcmp(heap, ".."))
		return -EINVAL;
	n = strlen(DMA_HEAP_DIR) + strlen(heap);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(path, DMA_HEAP_DIR, strlen(DMA_HEAP_DIR));
	memcpy(path + strlen(DMA_HEAP_DIR), heap, strlen(heap) + 1);
	return 0;
}

int accel_dma_heap_alloc(const struct accel_platform_env *env,
			 const char *heap, uint64_t size, int *ret_fd)
{
	struct dma_heap_allocation_data arg = { 0 };
	char path[128];
	int dev, r;

	if (!env || size == 0 || !ret_fd)
		return -EINVAL;
	r = heap_path(heap, path, sizeof(path));
	if (r < 0)
		return r;

	/* Allocation needs no write access to the heap node. */
	dev = env->open(env->data, path, O_RDONLY);
	if (dev < 0) {
		r = absent_to_eopnotsupp(dev);
		plat_dbg(env, "%s: %s\n", path, strerror(-dev));
		return r;
	}
	/* The heap rounds the length up to whole pages. */
	arg.len = size;
	arg.fd_flags = O_RDWR | O_CLOEXEC;
	r = accel_ioctl(dev, DMA_HEAP_IOCTL_ALLOC, &arg);
	env->close(env->data, dev);
	if (r < 0) {
		plat_dbg(env, "DMA_HEAP_IOCTL_ALLOC of %llu bytes from %s: %s\n",
			(unsigned long long)size, path, strerror(-r));
		return r;
	}
	*ret_fd = (int)arg.fd;
	return 0;
}

bool accel_udmabuf_available(void)
{
	/* Creating needs the node opened read-write. */
	return access(UDMABUF_PATH, R_OK | W_OK) == 0;
}

bool accel_dma_heap_available(const char *heap)
{
	char path[128];

	if (heap_path(heap, path, sizeof(path)) < 0)
		return false;
	return access(path, R_OK) == 0;
}
