/* SPDX-License-Identifier: MIT */
/*
 * Implicit sync by hand: the fences attached to a buffer's dma-buf out as
 * a sync_file, and a sync_file's fence in as one of them, over the
 * platform's DMA_BUF_IOCTL_EXPORT/IMPORT_SYNC_FILE wrappers.
 */
#include <errno.h>
#include <string.h>

#include "accel-private.h"
#include "platform/platform.h"

/*
 * The dma-buf fd of @buf's root (kept by the buffer: it stays open while
 * @buf holds its parent), or -EOPNOTSUPP, saying why, if it has none.
 */
static int buffer_sync_fd(struct accel_buffer *buf, const char *what)
{
	int fd = accel_buffer_dmabuf_fd(accel_buffer_root(buf));

	if (fd < 0) {
		log_dbg(buf->dev->ctx,
			"%s: the buffer is not a dma-buf (export or import "
			"it first)\n", what);
		return -EOPNOTSUPP;
	}
	return fd;
}

/* Kernels before 6.0 do not know the request. */
static int explain_enotty(struct accel_buffer *buf, int r)
{
	if (r != -ENOTTY)
		return r;
	log_gap(buf->dev->ctx, ACCEL_GAP_DMABUF_SYNC_FILE,
		"this kernel cannot export or import the implicit fences of "
		"dma-bufs (DMA_BUF_IOCTL_EXPORT_SYNC_FILE needs Linux 6.0)\n");
	return -EOPNOTSUPP;
}

static bool sync_flags_valid(uint32_t flags)
{
	return flags && !(flags & ~ACCEL_BUFFER_SYNC_FLAGS_ALL);
}

ACCEL_EXPORT int accel_buffer_export_sync_file(struct accel_buffer *buf,
					       uint32_t flags, int *ret_fd)
{
	int fd, sync_fd, r;

	if (!buf || !ret_fd || !sync_flags_valid(flags))
		return -EINVAL;
	fd = buffer_sync_fd(buf, "sync_file export");
	if (fd < 0)
		return fd;
	r = accel_dmabuf_export_sync_file(fd, flags & ACCEL_BUFFER_SYNC_WRITE,
					  &sync_fd);
	if (r < 0)
		return explain_enotty(buf, r);
	*ret_fd = sync_fd;
	return 0;
}

ACCEL_EXPORT int accel_buffer_import_sync_file(struct accel_buffer *buf,
					       int sync_fd, uint32_t flags)
{
	int fd, r;

	if (!buf || !sync_flags_valid(flags))
		return -EINVAL;
	/* Say which fd is wrong before the kernel answers EINVAL for both. */
	r = accel_sync_file_check(sync_fd);
	if (r < 0)
		return r;
	fd = buffer_sync_fd(buf, "sync_file import");
	if (fd < 0)
		return fd;
	r = accel_dmabuf_import_sync_file(fd, flags & ACCEL_BUFFER_SYNC_WRITE,
					  sync_fd);
	return r < 0 ? explain_enotty(buf, r) : 0;
}
