/* SPDX-License-Identifier: MIT */
/*
 * Transfers the host runs through the buffers' mappings (read, write,
 * copy, fill). Accesses to a buffer that is (or was exported as) a
 * dma-buf are bracketed with DMA_BUF_IOCTL_SYNC, whose start also waits
 * for the fences other devices attached to it (implicit sync).
 */
#include <string.h>

#include "backend.h"
#include "gem.h"

/* One buffer a transfer touches. */
struct access {
	struct accel_buffer *root;
	int dmabuf_fd;           /* snapshot, -1 if none */
	bool read, write;
	bool synced;
};

static void access_add(struct access *a, unsigned *n, struct accel_buffer *buf,
		       bool read, bool write)
{
	struct accel_buffer *root = accel_buffer_root(buf);
	unsigned i;

	for (i = 0; i < *n; i++) {
		if (a[i].root == root) {
			a[i].read |= read;
			a[i].write |= write;
			return;
		}
	}
	a[*n] = (struct access){ .root = root, .read = read, .write = write };
	(*n)++;
}

static int access_begin(struct access *a, unsigned n)
{
	unsigned i;
	int r;

	for (i = 0; i < n; i++) {
		struct accel_buffer *root = a[i].root;

		/* Not mapped: ACCEL_BUFFER_HOST_NO_ACCESS. */
		if (!root->host_ptr)
			return -EACCES;
		if (a[i].write && root->readonly_mapping)
			return -EACCES;
		a[i].dmabuf_fd = accel_buffer_dmabuf_fd(root);
	}
	for (i = 0; i < n; i++) {
		if (a[i].dmabuf_fd < 0)
			continue;
		r = accel_dmabuf_sync(a[i].dmabuf_fd, true, a[i].read,
				      a[i].write);
		if (r < 0)
			return r;
		a[i].synced = true;
	}
	return 0;
}

static void access_end(struct access *a, unsigned n)
{
	while (n--)
		if (a[n].synced)
			accel_dmabuf_sync(a[n].dmabuf_fd, false, a[n].read,
					  a[n].write);
}

static uint8_t *host(struct accel_buffer *buf, uint64_t offset)
{
	/* Sub-buffers' host_ptr already includes their offset. */
	return (uint8_t *)buf->host_ptr + offset;
}

int gem_host_transfer(struct accel_cmd *cmd)
{
	struct access a[2];
	unsigned n = 0;
	int r;

	switch (cmd->type) {
	case ACCEL_CMD_READ:
		access_add(a, &n, cmd->u.rw.buf, true, false);
		break;
	case ACCEL_CMD_WRITE:
		access_add(a, &n, cmd->u.rw.buf, false, true);
		break;
	case ACCEL_CMD_COPY:
		access_add(a, &n, cmd->u.copy.src, true, false);
		access_add(a, &n, cmd->u.copy.dst, false, true);
		break;
	case ACCEL_CMD_FILL:
		access_add(a, &n, cmd->u.fill.buf, false, true);
		break;
	default:
		return -EINVAL;
	}

	r = access_begin(a, n);
	if (r == 0) {
		/* After the implicit-sync wait: the copy starts now. */
		accel_cmd_started(cmd);
		switch (cmd->type) {
		case ACCEL_CMD_READ:
			memcpy(cmd->u.rw.host,
			       host(cmd->u.rw.buf, cmd->u.rw.offset),
			       cmd->u.rw.size);
			break;
		case ACCEL_CMD_WRITE:
			memcpy(host(cmd->u.rw.buf, cmd->u.rw.offset),
			       cmd->u.rw.host, cmd->u.rw.size);
			break;
		case ACCEL_CMD_COPY:
			/* Ranges of one buffer may overlap. */
			memmove(host(cmd->u.copy.dst, cmd->u.copy.dst_offset),
				host(cmd->u.copy.src, cmd->u.copy.src_offset),
				cmd->u.copy.size);
			break;
		case ACCEL_CMD_FILL:
			accel_fill_pattern(host(cmd->u.fill.buf,
						cmd->u.fill.offset),
					   cmd->u.fill.size,
					   cmd->u.fill.pattern,
					   cmd->u.fill.pattern_size);
			break;
		default:
			break;
		}
	}
	access_end(a, n);
	return r;
}
