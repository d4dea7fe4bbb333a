/* SPDX-License-Identifier: MIT */
/*
 * O_PATH fds: open, but allowing no I/O. The sync_file functions answer
 * -EBADF for them (documented as "not open, or open with O_PATH"), and the
 * import says in the context's log that the fd is open but O_PATH, instead
 * of leaving the caller to believe it was not open at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "test-common.h"

/* An O_PATH fd for what /proc/self/fd/@fd names (the file itself). */
static int o_path_of(int fd)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = open(path, O_PATH | O_CLOEXEC);
	assert_true(r >= 0);
	return r;
}

static void check_o_path(struct test_env *env, int fd, const char *what)
{
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct accel_sync_file_info info;
	int out = -7;

	assert_int_equal(accel_sync_file_wait(fd, 0), -EBADF);
	assert_int_equal(accel_sync_file_get_info(fd, &info, NULL, 0),
			 -EBADF);
	assert_int_equal(accel_sync_file_merge(NULL, fd, fd, &out), -EBADF);
	assert_int_equal(out, -7);
	assert_int_equal(accel_sync_file_set_deadline(fd, 0), -EBADF);

	test_log_reset(&env->log);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, fd, &f),
			 -EBADF);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	/* The log says what is true: open, but O_PATH. */
	if (!test_log_contains(&env->log, "O_PATH"))
		fail_msg("import of an O_PATH fd of %s: the log does not say "
			 "O_PATH", what);
	/* And it is open: the caller still owns it. */
	assert_true(fcntl(fd, F_GETFD) >= 0);
}

/* A regular file opened with O_PATH. */
static void test_o_path_file(void **state)
{
	int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);

	assert_true(fd >= 0);
	check_o_path(*state, fd, "a regular file");
	close(fd);
}

/* An anonymous inode (as a sync_file is one) reopened with O_PATH. */
static void test_o_path_anon(void **state)
{
	int efd = eventfd(0, EFD_CLOEXEC);
	int fd;

	assert_true(efd >= 0);
	fd = o_path_of(efd);
	check_o_path(*state, fd, "an eventfd");
	close(fd);
	close(efd);
}

/*
 * A dma-buf of the system heap and a (signalled) sync_file exported from
 * it, or a negative errno where the kernel has no heap (outside the VM).
 */
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

/* A real sync_file and dma-buf reopened with O_PATH (the VM tier). */
static void test_o_path_real(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *b = TEST_SENTINEL_PTR;
	int buf = -1, sf, sf_path, buf_path;

	sf = heap_sync_file(&buf);
	if (sf < 0)
		skip();
	/* The real ones work... */
	assert_int_equal(accel_sync_file_wait(sf, 0), 0);
	sf_path = o_path_of(sf);
	buf_path = o_path_of(buf);
	/* ...their O_PATH doubles are open, but usable for nothing. */
	check_o_path(env, sf_path, "a sync_file");
	assert_int_equal(accel_buffer_import_dmabuf(env->dev, buf_path, 0, &b),
			 -EBADF);
	assert_ptr_equal(b, TEST_SENTINEL_PTR);
	assert_int_equal(accel_buffer_import_dmabuf(env->dev, buf, 0, &b), 0);
	accel_buffer_unref(b);
	close(buf_path);
	close(sf_path);
	close(buf);
	close(sf);
}

/* A closed fd is still "not open", with nothing about O_PATH. */
static void test_closed(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	int fd = eventfd(0, EFD_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	test_log_reset(&env->log);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, fd, &f),
			 -EBADF);
	assert_false(test_log_contains(&env->log, "O_PATH"));
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_o_path_file),
		T(test_o_path_anon),
		T(test_o_path_real),
		T(test_closed),
	};

	return TEST_RUN_GROUP("o-path", tests);
}
