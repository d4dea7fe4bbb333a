/* SPDX-License-Identifier: MIT */
/*
 * refaccel removed while a file is open and a job is in flight (a PCI
 * unbind through sysfs, as a hot-unplug does it): the job's fence still
 * signals (done, or -ENODEV), the file's ioctls answer -ENODEV, its
 * mapping stays readable, closing it frees the device, and binding again
 * gives a working device. vm-run.sh fails the batch on any kernel
 * WARNING/BUG/Oops. Runs last in its VM batch (the device comes back
 * under another node number if an old one is still held); elsewhere it
 * exits 77.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "refaccel-ioctl.h"
#include "refaccel-sysfs.h"
#include "test-common.h"
#include "uapi/drm/refaccel_accel.h"

#define SZ 16384u	/* edu's DMA engine: about 1.6 s of guest time */
#define PATTERN 0x5eedf00du

static int bo_new(int fd, uint32_t *handle)
{
	return refaccel_bo_new(fd, SZ, handle);
}

static int fill(int fd, uint32_t bo, uint32_t out)
{
	return refaccel_fill(fd, bo, 0, SZ, PATTERN, 0, out);
}

static uint8_t *bo_map(int fd, uint32_t bo)
{
	uint64_t size;
	uint8_t *p;

	assert_int_equal(refaccel_bo_map(fd, bo, &p, &size), 0);
	assert_int_equal(size, SZ);
	return p;
}

static bool all_pattern(const uint8_t *p)
{
	uint32_t v = PATTERN;

	for (unsigned i = 0; i < SZ; i += 4)
		if (memcmp(p + i, &v, 4))
			return false;
	return true;
}

static void test_unbind_with_open_file(void **state)
{
	struct sync_file_info info = { 0 };
	struct refaccel_sysfs_dev dev;
	struct refaccel_node node;
	uint32_t bo, so, bo2;
	struct pollfd pfd;
	uint8_t *p;
	int fd, sf;

	(void)state;
	assert_int_equal(refaccel_node_find(0, &node), 0);
	assert_int_equal(refaccel_sysfs_get(&node, &dev), 0);
	fd = open(node.node, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(bo_new(fd, &bo), 0);
	p = bo_map(fd, bo);
	assert_int_equal(drmSyncobjCreate(fd, 0, &so), 0);
	/* in flight at the unbind on edu's DMA engine; maybe done on a CPU */
	assert_int_equal(fill(fd, bo, so), 0);
	assert_int_equal(drmSyncobjExportSyncFile(fd, so, &sf), 0);

	assert_int_equal(refaccel_sysfs_unbind(&dev), 0);

	/* the job: its fence signalled, done or failed for the device */
	pfd = (struct pollfd){ .fd = sf, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 60000), 1);
	assert_int_equal(ioctl(sf, SYNC_IOC_FILE_INFO, &info), 0);
	assert_true(info.status == 1 || info.status == -ENODEV);
	printf("the job at the unbind: %s\n",
	       info.status == 1 ? "done" : "failed with -ENODEV");
	if (info.status == 1)
		assert_true(all_pattern(p));
	close(sf);
	/* the file: its ioctls refused, its mapping still memory */
	assert_int_equal(bo_new(fd, &bo2), -ENODEV);
	assert_int_equal(fill(fd, bo, 0), -ENODEV);
	p[0] ^= 1;
	munmap(p, SZ);
	close(fd);

	/* bound again: a device like new */
	assert_int_equal(refaccel_sysfs_bind(&dev), 0);
	fd = refaccel_sysfs_open(&dev, 10000);
	assert_true(fd >= 0);
	assert_int_equal(bo_new(fd, &bo), 0);
	assert_int_equal(drmSyncobjCreate(fd, 0, &so), 0);
	assert_int_equal(fill(fd, bo, so), 0);
	assert_int_equal(drmSyncobjWait(fd, &so, 1, INT64_MAX, 0, NULL), 0);
	p = bo_map(fd, bo);
	assert_true(all_pattern(p));
	munmap(p, SZ);
	close(fd);
	refaccel_sysfs_put(&dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unbind_with_open_file),
	};
	struct refaccel_sysfs_dev dev;
	struct refaccel_node node;

	/* never another driver's device: this one goes away for a moment */
	if (refaccel_node_find(0, &node) || refaccel_sysfs_get(&node, &dev)) {
		printf("SKIP: no refaccel device this process may unbind\n");
		return TEST_EXIT_SKIP;
	}
	refaccel_sysfs_put(&dev);
	return TEST_RUN_GROUP("refaccel-unplug", tests);
}
