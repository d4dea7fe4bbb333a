/* SPDX-License-Identifier: MIT */
/*
 * The public sync_file API (accel_sync_file_* and fence export) on any
 * host: bad fds and arguments give the documented errors and leave
 * out-parameters alone, and ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT tells the
 * truth about accel_fence_export_sync_file(). Where the kernel has a
 * dma-buf heap or udmabuf (the VM tier), real (signalled) sync_files are
 * inspected too; vgem's unsignalled ones are tests/kernel/test-fence-vgem.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "test-common.h"

static int closed_fd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

static void test_not_sync_files(void **state)
{
	struct accel_sync_file_info info;
	int p[2], memfd, ev, null, dir, out = 99;
	int fds[5];
	size_t i;
	(void)state;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	memfd = memfd_create("x", MFD_CLOEXEC);
	/* Readable: poll alone would call it "signalled". */
	ev = eventfd(1, EFD_CLOEXEC);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fds[0] = p[0];
	fds[1] = memfd;
	fds[2] = ev;
	fds[3] = null;
	fds[4] = dir;
	for (i = 0; i < TEST_ARRAY_SIZE(fds); i++) {
		assert_true(fds[i] >= 0);
		assert_int_equal(accel_sync_file_wait(fds[i], 0), -EINVAL);
		assert_int_equal(accel_sync_file_get_info(fds[i], &info, NULL,
							  0), -EINVAL);
		assert_int_equal(accel_sync_file_set_deadline(fds[i], 1),
				 -EINVAL);
		assert_int_equal(accel_sync_file_merge("m", fds[i], fds[i],
						       &out), -EINVAL);
	}
	for (i = 0; i < 2; i++) {
		int bad = i ? -1 : closed_fd();

		assert_int_equal(accel_sync_file_wait(bad, 0), -EBADF);
		assert_int_equal(accel_sync_file_get_info(bad, &info, NULL, 0),
				 -EBADF);
		assert_int_equal(accel_sync_file_set_deadline(bad, 1), -EBADF);
		assert_int_equal(accel_sync_file_merge("m", bad, ev, &out),
				 -EBADF);
	}
	assert_int_equal(out, 99);
	close(p[0]);
	close(p[1]);
	close(memfd);
	close(ev);
	close(null);
	close(dir);
}

static void test_export_truthful(void **state)
{
	struct accel_context *ctx = NULL;
	struct accel_device *devs[16];
	struct accel_fence *fence = NULL;
	struct test_log log;
	int n, i, r, fd = 1234;
	bool claimed = false;
	(void)state;

	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	n = accel_context_get_devices(ctx, devs, 16);
	assert_true(n >= 1);
	for (i = 0; i < n && i < 16; i++) {
		uint64_t caps = test_dev_u64(devs[i], ACCEL_DEVICE_U64_CAPS);

		/* Any fence of the context exports the same way. */
		if (i == 0)
			claimed = caps & ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT;
		else
			assert_int_equal(!!(caps &
					    ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT),
					 claimed);
		accel_device_unref(devs[i]);
	}

	assert_int_equal(accel_fence_new_user(ctx, &fence), 0);
	r = accel_fence_export_sync_file(fence, &fd);
	if (claimed) {
		assert_int_equal(r, 0);
		assert_int_equal(accel_sync_file_wait(fd, 0), -ETIME);
		assert_int_equal(accel_fence_signal(fence, 0), 0);
		assert_int_equal(accel_sync_file_wait(fd, 5000000000ll), 0);
		close(fd);
	} else {
		assert_int_equal(r, -EOPNOTSUPP);
		assert_int_equal(fd, 1234);
		assert_int_equal(accel_fence_signal(fence, 0), 0);
	}
	assert_int_equal(accel_fence_export_sync_file(NULL, &fd), -EINVAL);
	assert_int_equal(accel_fence_export_sync_file(fence, NULL), -EINVAL);
	accel_fence_unref(fence);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

/* A signalled sync_file from a fresh dma-buf of the system heap. */
static int heap_sync_file(int *ret_buf)
{
	struct dma_heap_allocation_data alloc = {
		.len = 4096,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	struct dma_buf_export_sync_file exp = { .flags = DMA_BUF_SYNC_RW };
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);

	if (heap < 0)
		return -errno;
	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &alloc) < 0) {
		close(heap);
		return -errno;
	}
	close(heap);
	exp.fd = -1;
	if (ioctl((int)alloc.fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp) < 0) {
		close((int)alloc.fd);
		return -errno;
	}
	*ret_buf = (int)alloc.fd;
	return exp.fd;
}

static void test_real_signalled(void **state)
{
	struct accel_sync_file_info info;
	struct accel_sync_fence_info fi[2];
	int a, b, m, buf_a, buf_b, r;
	(void)state;

	a = heap_sync_file(&buf_a);
	if (a < 0)
		skip();
	b = heap_sync_file(&buf_b);
	assert_true(b >= 0);

	assert_int_equal(accel_sync_file_wait(a, 0), 0);
	assert_int_equal(accel_sync_file_wait(a, ACCEL_TIMEOUT_INFINITE), 0);
	r = accel_sync_file_get_info(a, &info, fi, 2);
	assert_true(r >= 1 && r <= 2);
	assert_int_equal(info.status, 1);
	assert_int_equal(info.n_fences, (uint32_t)r);
	assert_int_equal(fi[0].status, 1);
	/* Name strings are NUL-terminated whatever the kernel sends. */
	assert_true(memchr(info.name, 0, sizeof(info.name)) != NULL);
	assert_true(memchr(fi[0].driver, 0, sizeof(fi[0].driver)) != NULL);

	assert_int_equal(accel_sync_file_merge(
				 "a-name-longer-than-thirty-two-bytes-for-sure",
				 a, b, &m), 0);
	assert_int_equal(accel_sync_file_get_info(m, &info, NULL, 0),
			 (int)info.n_fences);
	assert_int_equal(strlen(info.name), 31);
	assert_int_equal(info.status, 1);
	assert_int_equal(accel_sync_file_wait(m, 0), 0);
	r = accel_sync_file_set_deadline(m, 1);
	assert_true(r == 0 || r == -EOPNOTSUPP);
	close(m);
	close(a);
	close(b);
	close(buf_a);
	close(buf_b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_sync_files),
		cmocka_unit_test(test_export_truthful),
		cmocka_unit_test(test_real_signalled),
	};

	return TEST_RUN_GROUP("sync-file-api", tests);
}
