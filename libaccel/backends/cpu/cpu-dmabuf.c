/* SPDX-License-Identifier: MIT */
/*
 * CPU device buffers as dma-bufs: allocation from the system heap, export
 * of memfd-backed buffers through udmabuf (the same pages, no copy), and
 * import of any dma-buf by mapping it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "cpu-private.h"

#define CPU_HEAP "system"

static uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

int cpu_buffer_alloc_heap(struct accel_buffer *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	void *p;
	int r;

	r = accel_dma_heap_alloc(accel_context_env(buf->dev->ctx), CPU_HEAP, len,
				 &fd);
	if (r < 0)
		return r;
	/* The heap hands out zeroed pages, as a new buffer must be. */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	buf->host_ptr = p;
	buf->memfd = -1;
	/* Published before anyone sees @buf; the core closes it. */
	buf->dmabuf_fd = TAKE_FD(fd);
	return 0;
}

int cpu_buffer_export_dmabuf(struct accel_buffer *buf, uint64_t offset,
			     uint64_t size, int *ret_fd)
{
	uint64_t page = page_size();
	size_t len;
	int fd, r;

	r = cpu_buffer_map_length(buf->size, &len);
	if (r < 0)
		return r;

	if (buf->memfd < 0) {
		/*
		 * A heap buffer is one dma-buf: the whole of it can be shared
		 * (dmabuf_fd never changes for buffers without a memfd, so no
		 * lock is needed to read it), a part cannot. Anonymous and
		 * user memory have nothing the kernel can wrap.
		 */
		if (buf->dmabuf_fd >= 0 && !buf->imported && offset == 0 &&
		    size == buf->size) {
			fd = fcntl(buf->dmabuf_fd, F_DUPFD_CLOEXEC, 3);
			if (fd < 0)
				return -errno;
			*ret_fd = fd;
			return 0;
		}
		return -EOPNOTSUPP;
	}

	/*
	 * The memfd holds whole pages, so a range that ends where the
	 * buffer ends may take the rest of the last page with it.
	 */
	if (offset + size == buf->size)
		size = len - offset;
	if (offset % page || size % page)
		return -EINVAL;
	r = accel_udmabuf_create(accel_context_env(buf->dev->ctx), buf->memfd,
				 offset, size, ret_fd);
	if (r == -EOPNOTSUPP || r == -EACCES || r == -EPERM)
		log_gap(buf->dev->ctx, ACCEL_GAP_DMABUF_EXPORT,
			"buffers of the CPU device cannot be shared as "
			"dma-bufs: /dev/udmabuf: %s (modprobe udmabuf, and "
			"give this user read-write access to it)\n",
			r == -EOPNOTSUPP ? "missing" : strerror(-r));
	return r;
}

int cpu_buffer_import_dmabuf(struct accel_buffer *buf)
{
	const uint32_t host_ro = ACCEL_BUFFER_HOST_READ_ONLY |
				 ACCEL_BUFFER_HOST_NO_ACCESS;
	int prot = PROT_READ, fl;
	size_t len;
	void *p;
	int r;

	r = cpu_buffer_map_length(buf->size, &len);
	if (r < 0)
		return r;
	fl = fcntl(buf->dmabuf_fd, F_GETFL);
	if (fl < 0)
		return -errno;
	/*
	 * Write access only where both the fd allows it and someone may
	 * write: with a read-only mapping a stray write faults instead of
	 * corrupting another device's memory.
	 */
	if ((fl & O_ACCMODE) == O_RDWR &&
	    !((buf->flags & ACCEL_BUFFER_READ_ONLY) && (buf->flags & host_ro)))
		prot |= PROT_WRITE;
	/* A write-only fd cannot be mapped at all: mmap says EACCES. */
	p = mmap(NULL, len, prot, MAP_SHARED, buf->dmabuf_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	buf->host_ptr = p;
	buf->memfd = -1;
	buf->readonly_mapping = !(prot & PROT_WRITE);
	return 0;
}
