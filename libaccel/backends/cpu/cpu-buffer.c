/* SPDX-License-Identifier: MIT */
/*
 * CPU device buffers: a sealed memfd mapped once, so host maps are
 * zero-copy and the same pages can later become a dma-buf (udmabuf) without
 * a copy.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "cpu-private.h"

/* Bytes actually mapped for a buffer of @size: whole pages. */
int cpu_buffer_map_length(uint64_t size, size_t *ret)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t p = page > 0 ? (size_t)page : 4096;

	if (size > SIZE_MAX - (p - 1))
		return -ENOMEM;
	*ret = ALIGN_UP((size_t)size, p);
	return 0;
}

/* Without a memfd (out of fds): memory that just can't be exported. */
static int alloc_anonymous(struct accel_buffer *buf, size_t len, int why)
{
	void *p;

	log_warn(buf->dev->ctx,
		 "memfd_create: %s; a %llu-byte buffer uses anonymous memory and cannot be exported\n",
		 strerror(-why), (unsigned long long)buf->size);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	buf->host_ptr = p;
	buf->memfd = -1;
	return 0;
}

int cpu_buffer_alloc(struct accel_buffer *buf)
{
	_cleanup_close_ int fd = -1;
	size_t len;
	void *p;
	int r;

	r = cpu_buffer_map_length(buf->size, &len);
	if (r < 0)
		return r;
	if (buf->flags & ACCEL_BUFFER_DMA_HEAP)
		return cpu_buffer_alloc_heap(buf, len);

	fd = memfd_create("accel-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		r = -errno;
		if (r == -EMFILE || r == -ENFILE)
			return alloc_anonymous(buf, len, r);
		return r;
	}
	if (ftruncate(fd, (off_t)len) < 0)
		return -errno;
	/*
	 * Fix the size for good. udmabuf requires F_SEAL_SHRINK and refuses
	 * F_SEAL_WRITE, so writes stay allowed.
	 */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return -errno;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;

	buf->host_ptr = p;
	buf->memfd = TAKE_FD(fd);
	return 0;
}

int cpu_buffer_wrap_user_ptr(struct accel_buffer *buf _unused_)
{
	/* The core set host_ptr; the CPU reaches it as it is. */
	return 0;
}

/*
 * Undoes every kind of buffer: memfd, anonymous, heap and imported dma-buf
 * mappings alike. dmabuf_fd is the core's to close, after this.
 */
void cpu_buffer_free(struct accel_buffer *buf)
{
	size_t len;

	/* User memory belongs to the caller. */
	if (buf->user_ptr || !buf->host_ptr)
		return;
	if (cpu_buffer_map_length(buf->size, &len) == 0)
		munmap(buf->host_ptr, len);
	if (buf->memfd >= 0)
		close(buf->memfd);
	buf->host_ptr = NULL;
	buf->memfd = -1;
}
