/* SPDX-License-Identifier: MIT */
/*
 * accel_strerror(): libaccel's meaning of each errno it returns; capability
 * gaps explained once per context at the default log priority.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

/* Every errno the public headers document, and a word its text must hold. */
static const struct {
	int error;
	const char *word;
} documented[] = {
	{ -EINVAL, "invalid" },   { -ERANGE, "outside" },
	{ -E2BIG, "limit" },      { -EXDEV, "another" },
	{ -ENOEXEC, "build" },    { -ENODEV, "unplugged" },
	{ -ETIMEDOUT, "deadline" }, { -ENOTTY, "kind" },
	{ -EACCES, "read-only" }, { -EOPNOTSUPP, "capability" },
	{ -ETIME, "timed out" },  { -EALREADY, "signalled" },
	{ -ENODATA, "nothing" },  { -EAGAIN, "not yet" },
	{ -EMFILE, "file descriptors" }, { -EIO, "driver" },
	{ -ENOMEM, "memory" },
};

static void test_libaccel_meanings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]);
	     i++) {
		const char *s = accel_strerror(documented[i].error);

		assert_non_null(s);
		if (!strstr(s, documented[i].word))
			fail_msg("accel_strerror(%d) = \"%s\" lacks \"%s\"",
				 documented[i].error, s, documented[i].word);
		/* the sign does not matter */
		assert_ptr_equal(accel_strerror(-documented[i].error), s);
	}
	/* not the C library's "Exec format error" */
	assert_null(strstr(accel_strerror(-ENOEXEC), "Exec format"));
}

static void test_other_values(void **state)
{
	(void)state;
	assert_string_equal(accel_strerror(0), "success");
	/* errno values libaccel gives no meaning of its own: the C library's */
	assert_string_equal(accel_strerror(-ENOSPC), strerrordesc_np(ENOSPC));
	assert_string_equal(accel_strerror(-EBADF), strerrordesc_np(EBADF));
	/* nonsense stays printable */
	assert_string_equal(accel_strerror(INT_MIN), "unknown error");
	assert_string_equal(accel_strerror(INT_MAX), "unknown error");
	assert_string_equal(accel_strerror(-100000), "unknown error");
}

/* No device node and no udmabuf: the CPU device alone, exporting nothing. */
static int deny_open(const char *path, int flags, void *user_data)
{
	int err = *(int *)user_data;

	(void)flags;
	return strcmp(path, "/dev/udmabuf") ? -ENOENT : err;
}

static void close_fd(int fd, void *user_data)
{
	(void)user_data;
	close(fd);
}

/* @udmabuf_err: what opening /dev/udmabuf gives */
static struct accel_context *context_without_exports(struct test_log *log,
						     int *udmabuf_err)
{
	const struct accel_open_interface iface = {
		.struct_size = sizeof(iface),
		.open_restricted = deny_open,
		.close_restricted = close_fd,
	};
	struct accel_context *ctx = NULL;

	assert_int_equal(test_context_new(log, &ctx), 0);
	assert_int_equal(accel_context_set_open_interface(ctx, &iface,
							  udmabuf_err), 0);
	/* the default priority: what users see without ACCEL_LOG */
	assert_int_equal(accel_context_set_log_priority(ctx, ACCEL_LOG_ERR),
			 0);
	return ctx;
}

static void check_dmabuf_gap(int udmabuf_err, const char *why)
{
	struct accel_context *ctx;
	struct accel_device *dev = NULL;
	struct accel_buffer *buf = NULL;
	struct test_log log;
	int fd = -1;

	test_log_init(&log);
	ctx = context_without_exports(&log, &udmabuf_err);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(accel_buffer_new(dev, 4096, 0, &buf), 0);
	for (int i = 0; i < 3; i++) {
		int r = accel_buffer_export_dmabuf(buf, 0, &fd);

		assert_int_equal(r, udmabuf_err == -ENOENT ? -EOPNOTSUPP :
							     udmabuf_err);
		assert_int_equal(fd, -1);
	}
	/* once, naming the node and why */
	assert_int_equal(test_log_count(&log, ACCEL_LOG_ERR), 1);
	assert_true(test_log_contains(&log, "/dev/udmabuf"));
	assert_true(test_log_contains(&log, why));
	accel_buffer_unref(buf);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

static void test_dmabuf_export_gap(void **state)
{
	(void)state;
	check_dmabuf_gap(-ENOENT, "missing");
	check_dmabuf_gap(-EACCES, strerror(EACCES));
}

static void test_fence_export_gap(void **state)
{
	struct accel_context *ctx;
	struct accel_fence *fence = NULL;
	struct test_log log;
	int err = -ENOENT, fd = -1;

	(void)state;
	test_log_init(&log);
	ctx = context_without_exports(&log, &err);
	assert_int_equal(accel_fence_new_user(ctx, &fence), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(accel_fence_export_sync_file(fence, &fd),
				 -EOPNOTSUPP);
	assert_int_equal(fd, -1);
	assert_int_equal(test_log_count(&log, ACCEL_LOG_ERR), 1);
	assert_true(test_log_contains(&log, "sync_file"));
	assert_true(test_log_contains(&log, "kernel fences"));
	assert_int_equal(accel_fence_signal(fence, 0), 0);
	accel_fence_unref(fence);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

static void test_compiler_gap(void **state)
{
	struct accel_context *ctx = NULL;
	struct accel_program *prog = NULL;
	struct accel_device *dev = NULL;
	const char *why = NULL;
	struct test_log log;

	(void)state;
	/* read when the context lists its devices */
	assert_int_equal(setenv("ACCEL_COMPILER", "/nonexistent/cc.so", 1), 0);
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(accel_context_set_log_priority(ctx, ACCEL_LOG_ERR),
			 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(unsetenv("ACCEL_COMPILER"), 0);

	assert_false(test_dev_u64(dev, ACCEL_DEVICE_U64_CAPS) &
		     ACCEL_DEVICE_CAP_COMPILER);
	assert_int_equal(accel_device_query_string(dev,
			 ACCEL_DEVICE_STRING_COMPILER, &why), 0);
	assert_string_equal(why, "/nonexistent/cc.so: No such file or directory");
	for (int i = 0; i < 3; i++)
		assert_int_equal(accel_program_new_source(dev,
				 "kernel void k(void) {}", 0, NULL, NULL, &prog),
				 -EOPNOTSUPP);
	assert_null(prog);
	assert_int_equal(test_log_count(&log, ACCEL_LOG_ERR), 1);
	assert_true(test_log_contains(&log, "/nonexistent/cc.so"));
	accel_device_unref(dev);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

/* A slow build says at info where its time went (here: every build). */
static void test_slow_build_steps(void **state)
{
	struct accel_context *ctx = NULL;
	struct accel_program *prog = NULL;
	struct accel_device *dev = NULL;
	struct test_log log;
	char src[128];

	(void)state;
	/* read when the context lists its devices */
	assert_int_equal(setenv("ACCEL_BUILD_REPORT_MS", "0", 1), 0);
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(accel_context_set_log_priority(ctx, ACCEL_LOG_INFO),
			 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(unsetenv("ACCEL_BUILD_REPORT_MS"), 0);
	if (!(test_dev_u64(dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_COMPILER)) {
		accel_device_unref(dev);
		accel_context_unref(ctx);
		test_log_fini(&log);
		skip();
	}
	/* not in the program cache: something is built */
	snprintf(src, sizeof(src),
		 "/* %ld %d */ kernel void k(global int *p) { p[0] = 1; }",
		 (long)time(NULL), (int)getpid());
	assert_int_equal(accel_program_new_source(dev, src, 0, NULL, NULL,
						  &prog), 0);
	assert_true(test_log_contains(&log, "building the program took"));
	assert_true(test_log_contains(&log, " clang "));
	accel_program_unref(prog);
	/* the same again comes from the cache: no steps to report */
	test_log_reset(&log);
	assert_int_equal(accel_program_new_source(dev, src, 0, NULL, NULL,
						  &prog), 0);
	assert_false(test_log_contains(&log, "building the program took"));
	accel_program_unref(prog);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libaccel_meanings),
		cmocka_unit_test(test_other_values),
		cmocka_unit_test(test_dmabuf_export_gap),
		cmocka_unit_test(test_fence_export_gap),
		cmocka_unit_test(test_compiler_gap),
		cmocka_unit_test(test_slow_build_steps),
	};

	return TEST_RUN_GROUP("error", tests);
}
