/* SPDX-License-Identifier: MIT */
/*
 * libaccel-rdma: a buffer registered with an RDMA protection domain, by
 * dma-buf where the provider supports it, else by host mapping. A client
 * of libaccel's public API only, like the ICD.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <libaccel/libaccel.h>
#include <libaccel/accel-rdma.h>

#define RDMA_EXPORT __attribute__((visibility("default")))

#define ACCESS_ALL                                                           \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                  \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                 \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_RELAXED_ORDERING)
#define FLAGS_ALL (ACCEL_RDMA_DMABUF_ONLY | ACCEL_RDMA_HOST_ONLY)

struct accel_rdma_mr {
	struct ibv_mr *mr;
	struct accel_buffer *buf; /* reference */
	void *map;                /* host path: the mapping, else NULL */
	int path;
	int dmabuf_error;
};

/* The root of @buf and @buf's offset in it. */
static struct accel_buffer *buffer_root(struct accel_buffer *buf,
					uint64_t *offset)
{
	*offset = 0;
	while (accel_buffer_get_parent(buf)) {
		*offset += accel_buffer_get_offset(buf);
		buf = accel_buffer_get_parent(buf);
	}
	return buf;
}

/*
 * The dma-buf path. The MR holds its own reference to the dma-buf (the
 * kernel's umem takes one), so the exported fd is closed right away.
 */
static int register_dmabuf(struct accel_rdma_mr *m, struct ibv_pd *pd,
			   unsigned int access)
{
	uint64_t offset, size = accel_buffer_get_size(m->buf);
	struct accel_buffer *root = buffer_root(m->buf, &offset);
	int fd, r;

	r = accel_buffer_export_dmabuf(root, 0, &fd);
	if (r < 0)
		return r;
	m->mr = ibv_reg_dmabuf_mr(pd, offset, size, 0, fd, (int)access);
	r = m->mr ? 0 : (errno > 0 ? -errno : -EIO);
	close(fd);
	/* Providers without the verb answer either way. */
	if (r == -ENOSYS || r == -EPROTONOSUPPORT)
		r = -EOPNOTSUPP;
	return r;
}

static int register_host(struct accel_rdma_mr *m, struct ibv_pd *pd,
			 unsigned int access)
{
	uint64_t size = accel_buffer_get_size(m->buf);
	uint32_t map = ACCEL_MAP_READ;
	int r;

	/* Anything that lets the NIC write needs a writable mapping. */
	if (access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_ATOMIC))
		map |= ACCEL_MAP_WRITE;
	r = accel_buffer_map(m->buf, 0, size, map, &m->map);
	if (r < 0)
		return r;
	m->mr = ibv_reg_mr(pd, m->map, size, (int)access);
	if (!m->mr) {
		r = errno > 0 ? -errno : -EIO;
		accel_buffer_unmap(m->buf, m->map);
		m->map = NULL;
		return r;
	}
	return 0;
}

RDMA_EXPORT int accel_buffer_register_rdma(struct accel_buffer *buf,
					   struct ibv_pd *pd,
					   unsigned int access, uint32_t flags,
					   struct accel_rdma_mr **ret)
{
	struct accel_rdma_mr *m;
	int r;

	if (!buf || !pd || !ret || (access & ~ACCESS_ALL) ||
	    (flags & ~FLAGS_ALL) || (flags & FLAGS_ALL) == FLAGS_ALL)
		return -EINVAL;
	/* Verbs: remote write and atomics need local write. */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->buf = accel_buffer_ref(buf);

	m->dmabuf_error = -ECANCELED;
	if (!(flags & ACCEL_RDMA_HOST_ONLY)) {
		m->dmabuf_error = register_dmabuf(m, pd, access);
		if (m->dmabuf_error == 0) {
			m->path = ACCEL_RDMA_PATH_DMABUF;
			*ret = m;
			return 0;
		}
		/*
		 * Only "cannot do dma-buf here" falls back; a real failure
		 * (bad access for this device, memlock) would fail the
		 * same way on the host path, so it is reported as is.
		 */
		if (m->dmabuf_error != -EOPNOTSUPP ||
		    (flags & ACCEL_RDMA_DMABUF_ONLY)) {
			r = m->dmabuf_error;
			goto fail;
		}
	}

	r = register_host(m, pd, access);
	if (r < 0) {
		/* Device memory the host cannot reach: no path at all. */
		goto fail;
	}
	m->path = ACCEL_RDMA_PATH_HOST;
	*ret = m;
	return 0;
fail:
	accel_buffer_unref(m->buf);
	free(m);
	return r;
}

RDMA_EXPORT struct ibv_mr *accel_rdma_mr_get_ibv_mr(struct accel_rdma_mr *mr)
{
	return mr ? mr->mr : NULL;
}

RDMA_EXPORT int accel_rdma_mr_get_path(struct accel_rdma_mr *mr)
{
	return mr ? mr->path : -EINVAL;
}

RDMA_EXPORT int accel_rdma_mr_get_dmabuf_error(struct accel_rdma_mr *mr)
{
	return mr ? mr->dmabuf_error : -EINVAL;
}

RDMA_EXPORT struct accel_buffer *
accel_rdma_mr_get_buffer(struct accel_rdma_mr *mr)
{
	return mr ? mr->buf : NULL;
}

RDMA_EXPORT int accel_rdma_mr_release(struct accel_rdma_mr *mr)
{
	int r;

	if (!mr)
		return -EINVAL;
	/* ibv_dereg_mr() returns the errno itself. */
	r = ibv_dereg_mr(mr->mr);
	if (r)
		return r > 0 ? -r : r;
	if (mr->map)
		accel_buffer_unmap(mr->buf, mr->map);
	accel_buffer_unref(mr->buf);
	free(mr);
	return 0;
}
