/* SPDX-License-Identifier: MIT */
/*
 * Raw kernel peers of libaccel (see peer.h). Plain system UAPI headers and
 * libdrm only: nothing here may share code with the library under test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>

#include <xf86drm.h>

#include "peer.h"

/* vgem's fence ioctls: the kernel UAPI header libaccel vendors. */
#include "../../libaccel/uapi/drm/vgem_drm.h"

#define PAGE 4096u

/* ioctl() retried on EINTR/EAGAIN; -errno on failure. */
static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r < 0 ? -errno : 0;
}

bool peer_have_udmabuf(void)
{
	int fd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool peer_have_heap(void)
{
	int fd = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int peer_heap_alloc(uint64_t size, int fd_flags, int *ret_fd)
{
	struct dma_heap_allocation_data data = {
		.len = size,
		.fd_flags = (uint32_t)(fd_flags | O_CLOEXEC),
	};
	int heap, r;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return -errno;
	r = xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
	close(heap);
	if (r < 0)
		return r;
	*ret_fd = (int)data.fd;
	return 0;
}

int peer_memfd(uint64_t size, int *ret_fd)
{
	int fd = memfd_create("peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int peer_udmabuf(int memfd, uint64_t offset, uint64_t size, int *ret_fd)
{
	struct udmabuf_create create = {
		.memfd = (uint32_t)memfd,
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.offset = offset,
		.size = size,
	};
	int dev, r;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	do {
		r = ioctl(dev, UDMABUF_CREATE, &create);
	} while (r < 0 && (errno == EINTR || errno == EAGAIN));
	if (r < 0)
		r = -errno;
	close(dev);
	if (r < 0)
		return r;
	/* UDMABUF_CREATE returns the new fd. */
	*ret_fd = r;
	return 0;
}

int peer_dmabuf_sync(int fd, bool start, bool read, bool write)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 (read ? DMA_BUF_SYNC_READ : 0) |
			 (write ? DMA_BUF_SYNC_WRITE : 0),
	};

	return xioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

int peer_export_sync_file(int dmabuf, bool write, int *ret_fd)
{
	struct dma_buf_export_sync_file exp = {
		.flags = write ? DMA_BUF_SYNC_RW : DMA_BUF_SYNC_READ,
		.fd = -1,
	};
	int r = xioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp);

	if (r < 0)
		return r;
	*ret_fd = exp.fd;
	return 0;
}

void *peer_mmap(int fd, uint64_t size, bool writable)
{
	void *p = mmap(NULL, size, PROT_READ | (writable ? PROT_WRITE : 0),
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int64_t peer_dmabuf_size(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0)
		return -errno;
	lseek(fd, 0, SEEK_SET);
	return end;
}

int peer_vgem_open(int *ret_fd)
{
	char path[32];
	int i;

	for (i = 0; i < 16; i++) {
		drmVersionPtr v;
		bool vgem;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		vgem = v && v->name && !strcmp(v->name, "vgem");
		drmFreeVersion(v);
		if (vgem) {
			*ret_fd = fd;
			return 0;
		}
		close(fd);
	}
	return -ENODEV;
}

int peer_vgem_create(int card, uint64_t size, uint32_t *ret_handle,
		     uint64_t *ret_size)
{
	/* Rows of one page: 1024 pixels of 32 bits. */
	struct drm_mode_create_dumb create = {
		.width = PAGE / 4,
		.height = (uint32_t)((size + PAGE - 1) / PAGE),
		.bpp = 32,
	};
	int r = xioctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &create);

	if (r < 0)
		return r;
	*ret_handle = create.handle;
	*ret_size = create.size;
	return 0;
}

int peer_vgem_create_frame(int card, uint32_t width, uint32_t height,
			   uint32_t bpp, uint32_t *ret_handle,
			   uint32_t *ret_pitch, uint64_t *ret_size)
{
	struct drm_mode_create_dumb create = {
		.width = width,
		.height = height,
		.bpp = bpp,
	};
	int r = xioctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &create);

	if (r < 0)
		return r;
	*ret_handle = create.handle;
	*ret_pitch = create.pitch;
	*ret_size = create.size;
	return 0;
}

void *peer_vgem_map(int card, uint32_t handle, uint64_t size)
{
	struct drm_mode_map_dumb map = { .handle = handle };
	void *p;
	int r;

	r = xioctl(card, DRM_IOCTL_MODE_MAP_DUMB, &map);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, card,
		 (off_t)map.offset);
	return p == MAP_FAILED ? NULL : p;
}

int peer_vgem_export(int card, uint32_t handle, bool writable, int *ret_fd)
{
	int fd;

	if (drmPrimeHandleToFD(card, handle,
			       DRM_CLOEXEC | (writable ? DRM_RDWR : 0), &fd))
		return errno ? -errno : -EIO;
	*ret_fd = fd;
	return 0;
}

int peer_vgem_import(int card, int fd, uint32_t *ret_handle)
{
	uint32_t handle;

	if (drmPrimeFDToHandle(card, fd, &handle))
		return errno ? -errno : -EIO;
	*ret_handle = handle;
	return 0;
}

void peer_vgem_close(int card, uint32_t handle)
{
	struct drm_gem_close close_arg = { .handle = handle };

	xioctl(card, DRM_IOCTL_GEM_CLOSE, &close_arg);
}

int peer_vgem_attach(int card, uint32_t handle, bool write,
		     uint32_t *ret_fence)
{
	struct drm_vgem_fence_attach attach = {
		.handle = handle,
		.flags = write ? VGEM_FENCE_WRITE : 0,
	};
	int r = xioctl(card, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach);

	if (r < 0)
		return r;
	*ret_fence = attach.out_fence;
	return 0;
}

int peer_vgem_signal(int card, uint32_t fence)
{
	struct drm_vgem_fence_signal sig = { .fence = fence };

	return xioctl(card, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig);
}
