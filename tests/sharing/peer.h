/* SPDX-License-Identifier: MIT */
/*
 * The other side of a dma-buf share, done the way another program would
 * do it, without libaccel: dma-buf heap allocations, udmabufs made from
 * memfds, and vgem (the "GPU") through libdrm on its primary node.
 *
 * All functions return 0 or a negative errno; out-parameters are written
 * only on success. Every fd they make is O_CLOEXEC and owned by the caller.
 */
#ifndef ACCEL_TEST_PEER_H
#define ACCEL_TEST_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- what the kernel offers ----------------------------------------- */

bool peer_have_udmabuf(void);
bool peer_have_heap(void);

/* ---- plain dma-bufs --------------------------------------------------- */

/* A buffer of the system heap; @fd_flags O_RDWR or O_RDONLY. */
int peer_heap_alloc(uint64_t size, int fd_flags, int *ret_fd);

/* A memfd of @size bytes sealed against shrinking, as udmabuf wants. */
int peer_memfd(uint64_t size, int *ret_fd);

/* A udmabuf of pages [offset, offset + size) of @memfd. */
int peer_udmabuf(int memfd, uint64_t offset, uint64_t size, int *ret_fd);

/* DMA_BUF_IOCTL_SYNC around CPU access through a mapping. */
int peer_dmabuf_sync(int fd, bool start, bool read, bool write);

/*
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE: the fences a reader (@write false) or
 * a writer (@write true) would have to wait for.
 */
int peer_export_sync_file(int dmabuf, bool write, int *ret_fd);

/* MAP_SHARED mapping of a whole dma-buf; NULL with errno set on failure. */
void *peer_mmap(int fd, uint64_t size, bool writable);

/* Size of a dma-buf (lseek SEEK_END), or a negative errno. */
int64_t peer_dmabuf_size(int fd);

/* ---- vgem ------------------------------------------------------------ */

/* The primary node of vgem (the render node refuses dumb buffers). */
int peer_vgem_open(int *ret_fd);

/* A dumb buffer of at least @size bytes (whole pages); its real size. */
int peer_vgem_create(int card, uint64_t size, uint32_t *ret_handle,
		     uint64_t *ret_size);

/*
 * A dumb buffer for a frame of @width x @height pixels of @bpp bits, as a
 * GPU would allocate a scan-out or render target: the driver chooses the
 * pitch.
 */
int peer_vgem_create_frame(int card, uint32_t width, uint32_t height,
			   uint32_t bpp, uint32_t *ret_handle,
			   uint32_t *ret_pitch, uint64_t *ret_size);

/* The buffer's own mapping (MAP_DUMB); NULL with errno set on failure. */
void *peer_vgem_map(int card, uint32_t handle, uint64_t size);

/* PRIME export; read-only unless @writable. */
int peer_vgem_export(int card, uint32_t handle, bool writable, int *ret_fd);

/* PRIME import of any dma-buf. */
int peer_vgem_import(int card, int fd, uint32_t *ret_handle);

void peer_vgem_close(int card, uint32_t handle);

/*
 * VGEM_FENCE_ATTACH: an unsignalled fence on the buffer, as a GPU job
 * reading (@write false) or writing it would leave. It signals on
 * peer_vgem_signal(), or by itself after 10 s.
 */
int peer_vgem_attach(int card, uint32_t handle, bool write,
		     uint32_t *ret_fence);
int peer_vgem_signal(int card, uint32_t fence);

#endif /* ACCEL_TEST_PEER_H */
