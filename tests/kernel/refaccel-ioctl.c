/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/sync_file.h>

#include <xf86drm.h>

#include "refaccel-ioctl.h"
#include "refaccel-sysfs.h"
#include "uapi/drm/refaccel_accel.h"

int refaccel_open(struct refaccel_node *ret_node)
{
	struct refaccel_node node;
	int fd;

	if (refaccel_node_find(0, &node)) {
		printf("SKIP: no accel or render node of refaccel's (refaccel not loaded)\n");
		return -1;
	}
	fd = open(node.node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("SKIP: cannot open %s: %s\n", node.node,
		       strerror(errno));
		return -1;
	}
	if (ret_node) {
		*ret_node = node;
		ret_node->name = strrchr(ret_node->sysfs, '/') + 1;
	}
	return fd;
}

int refaccel_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r < 0 ? -errno : 0;
}

int refaccel_bo_new(int fd, uint64_t size, uint32_t *ret_handle)
{
	struct drm_refaccel_bo_create c = { .size = size };
	int r = refaccel_ioctl(fd, DRM_IOCTL_REFACCEL_BO_CREATE, &c);

	if (!r)
		*ret_handle = c.handle;
	return r;
}

int refaccel_bo_map(int fd, uint32_t handle, uint8_t **ret_ptr,
		    uint64_t *ret_size)
{
	struct drm_refaccel_bo_info i = { .handle = handle };
	void *p;
	int r;

	r = refaccel_ioctl(fd, DRM_IOCTL_REFACCEL_BO_INFO, &i);
	if (r)
		return r;
	p = mmap(NULL, i.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)i.mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	*ret_ptr = p;
	*ret_size = i.size;
	return 0;
}

int refaccel_bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return refaccel_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

int refaccel_fill(int fd, uint32_t dst, uint64_t offset, uint64_t size,
		  uint32_t pattern, uint32_t in, uint32_t out)
{
	struct drm_refaccel_submit s = {
		.op = REFACCEL_OP_FILL, .dst_handle = dst,
		.dst_offset = offset, .size = size, .pattern_size = 4,
		.in_syncobjs = (uintptr_t)&in, .in_syncobj_count = in ? 1 : 0,
		.out_syncobj = out,
	};

	memcpy(s.pattern, &pattern, 4);
	return refaccel_ioctl(fd, DRM_IOCTL_REFACCEL_SUBMIT, &s);
}

static int submit2(int fd, uint32_t op, uint32_t dst, uint64_t dst_offset,
		   uint32_t src, uint64_t src_offset, uint64_t size,
		   uint32_t out)
{
	struct drm_refaccel_submit s = {
		.op = op, .dst_handle = dst, .src_handle = src,
		.dst_offset = dst_offset, .src_offset = src_offset,
		.size = size, .out_syncobj = out,
	};

	return refaccel_ioctl(fd, DRM_IOCTL_REFACCEL_SUBMIT, &s);
}

int refaccel_copy(int fd, uint32_t dst, uint64_t dst_offset, uint32_t src,
		  uint64_t src_offset, uint64_t size, uint32_t out)
{
	return submit2(fd, REFACCEL_OP_COPY, dst, dst_offset, src, src_offset,
		       size, out);
}

int refaccel_factorial(int fd, uint32_t dst, uint64_t dst_offset,
		       uint32_t src, uint64_t src_offset, uint64_t size,
		       uint32_t out)
{
	return submit2(fd, REFACCEL_OP_FACTORIAL, dst, dst_offset, src,
		       src_offset, size, out);
}

int refaccel_syncobj_result(int fd, uint32_t h)
{
	struct sync_file_info info;
	int sf = -1, r;

	r = drmSyncobjWait(fd, &h, 1, INT64_MAX, 0, NULL);
	if (r)
		return r;
	r = drmSyncobjExportSyncFile(fd, h, &sf);
	if (r)
		return r;
	memset(&info, 0, sizeof(info));
	r = refaccel_ioctl(sf, SYNC_IOC_FILE_INFO, &info);
	close(sf);
	return r ? r : info.status;
}

uint64_t refaccel_first_other_u32(const uint8_t *p, uint64_t n, uint32_t v)
{
	uint64_t i;

	for (i = 0; i < n; i += 4)
		if (memcmp(p + i, &v, 4))
			return i;
	return n;
}

int refaccel_edu_drop_irqs(unsigned int n)
{
	int knob = open("/sys/module/refaccel/parameters/edu_drop_irqs",
			O_WRONLY | O_CLOEXEC);
	char buf[16];
	int len, r = 0;

	if (knob < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%u", n);
	if (write(knob, buf, (size_t)len) != len)
		r = -errno;
	close(knob);
	return r;
}
