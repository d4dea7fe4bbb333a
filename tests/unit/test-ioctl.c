/* SPDX-License-Identifier: MIT */
/*
 * platform/ioctl.c: results and errno passed on, EINTR and EAGAIN retried
 * and nothing else. Linked with -Wl,--wrap=ioctl, so the test decides what
 * the "kernel" answers before the real ioctl(2) is reached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "test-common.h"

#include "platform/platform.h"

int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);

/* Failures to inject before the real ioctl runs; one thread only. */
static struct {
	unsigned fail_left;
	int fail_errno;
	bool fake_result;
	int result;
	unsigned calls;
} inject;

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	inject.calls++;
	if (inject.fail_left) {
		inject.fail_left--;
		errno = inject.fail_errno;
		return -1;
	}
	if (inject.fake_result)
		return inject.result;
	return __real_ioctl(fd, request, arg);
}

static int reset(void **state)
{
	(void)state;
	memset(&inject, 0, sizeof(inject));
	return 0;
}

/* A pipe with @n bytes waiting: FIONREAD has something to say. */
static void pipe_with(int p[2], int n)
{
	char buf[16] = { 0 };

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], buf, (size_t)n), n);
}

static void test_real_call(void **state)
{
	int p[2], avail = -1;
	(void)state;

	pipe_with(p, 5);
	assert_int_equal(accel_ioctl(p[0], FIONREAD, &avail), 0);
	assert_int_equal(avail, 5);
	assert_int_equal(inject.calls, 1);
	close(p[0]);
	close(p[1]);

	/* The real kernel's errno, negated. */
	assert_int_equal(accel_ioctl(p[0], FIONREAD, &avail), -EBADF);
}

static void test_retry(void **state)
{
	static const int retried[] = { EINTR, EAGAIN };
	int p[2], avail;
	size_t i;
	(void)state;

	pipe_with(p, 3);
	for (i = 0; i < TEST_ARRAY_SIZE(retried); i++) {
		inject.calls = 0;
		inject.fail_left = 3;
		inject.fail_errno = retried[i];
		avail = -1;
		assert_int_equal(accel_ioctl(p[0], FIONREAD, &avail), 0);
		assert_int_equal(inject.calls, 4);
		assert_int_equal(avail, 3);
	}
	close(p[0]);
	close(p[1]);
}

static void test_no_retry(void **state)
{
	static const int errors[] = { EIO, ENOTTY, EINVAL, EBUSY, ETIME,
				      EFAULT };
	int avail;
	size_t i;
	(void)state;

	for (i = 0; i < TEST_ARRAY_SIZE(errors); i++) {
		inject.calls = 0;
		inject.fail_left = 1;
		inject.fail_errno = errors[i];
		assert_int_equal(accel_ioctl(0, FIONREAD, &avail), -errors[i]);
		assert_int_equal(inject.calls, 1);
	}
}

static void test_positive_result(void **state)
{
	(void)state;
	/* Some ioctls return an fd (UDMABUF_CREATE): passed on as is. */
	inject.fake_result = true;
	inject.result = 42;
	assert_int_equal(accel_ioctl(0, 0, NULL), 42);
	inject.fail_left = 2;
	inject.fail_errno = EINTR;
	inject.calls = 0;
	assert_int_equal(accel_ioctl(0, 0, NULL), 42);
	assert_int_equal(inject.calls, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_real_call, reset),
		cmocka_unit_test_setup(test_retry, reset),
		cmocka_unit_test_setup(test_no_retry, reset),
		cmocka_unit_test_setup(test_positive_result, reset),
	};

	return TEST_RUN_GROUP("platform-ioctl", tests) ? 1 : 0;
}
