/* SPDX-License-Identifier: MIT */
/*
 * accel_buffer_export_sync_file() and accel_buffer_import_sync_file():
 * argument checks, the request and flags the kernel gets, which fd goes
 * where, ownership, and errors (old kernels, injected failures), with
 * out-parameters untouched on failure.
 *
 * This host cannot make dma-bufs, so a buffer gets a memfd as its
 * "dma-buf" and the test is linked with -Wl,--wrap=accel_ioctl: the
 * wrapper plays the kernel for that fd, and describes eventfds as
 * sync_files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test-common.h"

#include "accel-private.h"
#include "platform/platform.h"
#include "uapi/linux/dma-buf.h"
#include "uapi/linux/sync_file.h"

int __real_accel_ioctl(int fd, unsigned long request, void *arg);
int __wrap_accel_ioctl(int fd, unsigned long request, void *arg);

/* What the fake kernel saw and will answer (one thread at a time). */
static struct {
	int dmabuf;             /* the fake dma-buf, -1: none */
	unsigned long request;  /* last request on it */
	uint32_t flags;         /* its flags */
	int import_fd;          /* the fd an import got */
	int fail;               /* errno to answer, 0: succeed */
	unsigned n_calls;
} fake;

static bool is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

int __wrap_accel_ioctl(int fd, unsigned long request, void *arg)
{
	if (fd >= 0 && fd == fake.dmabuf) {
		fake.request = request;
		fake.n_calls++;
		if (fake.fail)
			return -fake.fail;
		if (request == DMA_BUF_IOCTL_EXPORT_SYNC_FILE) {
			struct dma_buf_export_sync_file *e = arg;

			fake.flags = e->flags;
			e->fd = eventfd(1, EFD_CLOEXEC);
			return e->fd < 0 ? -errno : 0;
		}
		if (request == DMA_BUF_IOCTL_IMPORT_SYNC_FILE) {
			struct dma_buf_import_sync_file *i = arg;

			fake.flags = i->flags;
			fake.import_fd = i->fd;
			return 0;
		}
		return -ENOTTY;
	}
	/* Eventfds stand for sync_files (signalled once readable). */
	if (request == SYNC_IOC_FILE_INFO && is_eventfd(fd)) {
		struct sync_file_info *info = arg;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		info->status = poll(&pfd, 1, 0) > 0 ? 1 : 0;
		return 0;
	}
	return __real_accel_ioctl(fd, request, arg);
}

static struct accel_buffer *new_buf(struct test_env *env, bool dmabuf)
{
	struct accel_buffer *buf = NULL;
	int fd;

	assert_int_equal(accel_buffer_new(env->dev, 8192, 0, &buf), 0);
	if (!dmabuf)
		return buf;
	fd = memfd_create("fake-dmabuf", MFD_CLOEXEC);
	assert_true(fd >= 0);
	fake.dmabuf = fd;
	/* As the core publishes an export: under the buffer's lock. */
	pthread_mutex_lock(&buf->lock);
	buf->dmabuf_fd = fd;
	pthread_mutex_unlock(&buf->lock);
	return buf;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int setup(void **state)
{
	memset(&fake, 0, sizeof(fake));
	fake.dmabuf = -1;
	fake.import_fd = -1;
	return test_env_setup(state);
}

static void test_export(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = new_buf(env, true), *sub = NULL;
	int fd = -1, fd2 = -1;

	assert_int_equal(accel_buffer_export_sync_file(NULL, 1, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_sync_file(buf, 1, NULL), -EINVAL);
	assert_int_equal(accel_buffer_export_sync_file(buf, 0, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_sync_file(buf, 4, &fd), -EINVAL);
	assert_int_equal(fd, -1);
	assert_int_equal(fake.n_calls, 0);

	assert_int_equal(accel_buffer_export_sync_file(
				 buf, ACCEL_BUFFER_SYNC_READ, &fd), 0);
	assert_int_equal(fake.request, DMA_BUF_IOCTL_EXPORT_SYNC_FILE);
	assert_int_equal(fake.flags, DMA_BUF_SYNC_READ);
	assert_true(fd >= 0 && is_eventfd(fd));
	/* The caller's, O_CLOEXEC as the kernel makes it. */
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(accel_sync_file_wait(fd, 0), 0);

	/* READ|WRITE is a writer's wait: all fences. */
	assert_int_equal(accel_buffer_export_sync_file(
				 buf, ACCEL_BUFFER_SYNC_READ |
					      ACCEL_BUFFER_SYNC_WRITE,
				 &fd2), 0);
	assert_int_equal(fake.flags, DMA_BUF_SYNC_WRITE);
	assert_int_not_equal(fd2, fd);
	close(fd2);

	/* A sub-buffer asks its parent's dma-buf. */
	assert_int_equal(accel_buffer_new_sub(buf, 4096, 4096, 0, &sub), 0);
	fake.n_calls = 0;
	fd2 = -1;
	assert_int_equal(accel_buffer_export_sync_file(
				 sub, ACCEL_BUFFER_SYNC_WRITE, &fd2), 0);
	assert_int_equal(fake.n_calls, 1);
	assert_int_equal(fake.flags, DMA_BUF_SYNC_WRITE);
	close(fd2);

	close(fd);
	accel_buffer_unref(sub);
	accel_buffer_unref(buf);
}

static void test_import(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = new_buf(env, true);
	int sync_fd = eventfd(0, EFD_CLOEXEC), pipefd[2], memfd, closed;

	assert_true(sync_fd >= 0);
	assert_int_equal(accel_buffer_import_sync_file(NULL, sync_fd, 1),
			 -EINVAL);
	assert_int_equal(accel_buffer_import_sync_file(buf, sync_fd, 0),
			 -EINVAL);
	assert_int_equal(accel_buffer_import_sync_file(buf, sync_fd, 8),
			 -EINVAL);
	/* Not a sync_file: a FIFO, a plain file, a closed fd. */
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, pipefd[0], ACCEL_BUFFER_SYNC_WRITE),
			 -EINVAL);
	memfd = memfd_create("not-a-sync-file", MFD_CLOEXEC);
	assert_true(memfd >= 0);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, memfd, ACCEL_BUFFER_SYNC_WRITE), -EINVAL);
	closed = dup(memfd);
	close(closed);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, closed, ACCEL_BUFFER_SYNC_WRITE), -EBADF);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, -1, ACCEL_BUFFER_SYNC_WRITE), -EBADF);
	assert_int_equal(fake.n_calls, 0);

	assert_int_equal(accel_buffer_import_sync_file(
				 buf, sync_fd, ACCEL_BUFFER_SYNC_WRITE), 0);
	assert_int_equal(fake.request, DMA_BUF_IOCTL_IMPORT_SYNC_FILE);
	assert_int_equal(fake.flags, DMA_BUF_SYNC_WRITE);
	/* The kernel gets the caller's fd, which stays the caller's. */
	assert_int_equal(fake.import_fd, sync_fd);
	assert_true(fd_open(sync_fd));

	assert_int_equal(accel_buffer_import_sync_file(
				 buf, sync_fd, ACCEL_BUFFER_SYNC_READ), 0);
	assert_int_equal(fake.flags, DMA_BUF_SYNC_READ);
	assert_true(fd_open(sync_fd));

	close(pipefd[0]);
	close(pipefd[1]);
	close(memfd);
	close(sync_fd);
	accel_buffer_unref(buf);
}

/* A buffer that is no dma-buf: refused, without asking the kernel. */
static void test_not_dmabuf(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = new_buf(env, false);
	int fd = -7, sync_fd = eventfd(1, EFD_CLOEXEC);

	assert_int_equal(accel_buffer_export_sync_file(
				 buf, ACCEL_BUFFER_SYNC_READ, &fd),
			 -EOPNOTSUPP);
	assert_int_equal(fd, -7);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, sync_fd, ACCEL_BUFFER_SYNC_WRITE),
			 -EOPNOTSUPP);
	assert_int_equal(fake.n_calls, 0);
	close(sync_fd);
	accel_buffer_unref(buf);
}

/* A kernel before 6.0 (ENOTTY) and a failing one (ENOMEM). */
static void test_kernel_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = new_buf(env, true);
	int fd = -7, sync_fd = eventfd(1, EFD_CLOEXEC);

	fake.fail = ENOTTY;
	assert_int_equal(accel_buffer_export_sync_file(
				 buf, ACCEL_BUFFER_SYNC_READ, &fd),
			 -EOPNOTSUPP);
	assert_int_equal(fd, -7);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, sync_fd, ACCEL_BUFFER_SYNC_WRITE),
			 -EOPNOTSUPP);
	fake.fail = ENOMEM;
	assert_int_equal(accel_buffer_export_sync_file(
				 buf, ACCEL_BUFFER_SYNC_WRITE, &fd), -ENOMEM);
	assert_int_equal(fd, -7);
	assert_int_equal(accel_buffer_import_sync_file(
				 buf, sync_fd, ACCEL_BUFFER_SYNC_READ), -ENOMEM);
	assert_true(fd_open(sync_fd));
	close(sync_fd);
	accel_buffer_unref(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_export, setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_import, setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_not_dmabuf, setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_errors, setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("buffer-sync-file", tests) ? 1 : 0;
}
