/* SPDX-License-Identifier: MIT */
/*
 * accel_context_*: creation, references, logging, open interface, user data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"

static void test_new_bad_args(void **state)
{
	struct accel_context *ctx = TEST_SENTINEL_PTR;

	(void)state;
	assert_int_equal(accel_context_new(0, NULL), -EINVAL);
	assert_int_equal(accel_context_new(1u << 0, &ctx), -EINVAL);
	assert_ptr_equal(ctx, TEST_SENTINEL_PTR);
	assert_int_equal(accel_context_new(1u << 31, &ctx), -EINVAL);
	assert_ptr_equal(ctx, TEST_SENTINEL_PTR);
	assert_int_equal(accel_context_new(~ACCEL_CONTEXT_FLAGS_ALL, &ctx),
			 -EINVAL);
	assert_ptr_equal(ctx, TEST_SENTINEL_PTR);
}

static void test_new_ref_unref(void **state)
{
	struct accel_context *ctx = NULL;

	(void)state;
	assert_int_equal(accel_context_new(0, &ctx), 0);
	assert_non_null(ctx);
	assert_ptr_equal(accel_context_ref(ctx), ctx);
	assert_null(accel_context_unref(ctx));
	/* Still alive with the second reference. */
	assert_int_equal(accel_context_set_user_data(ctx, ctx), 0);
	assert_ptr_equal(accel_context_get_user_data(ctx), ctx);
	assert_null(accel_context_unref(ctx));

	assert_null(accel_context_ref(NULL));
	assert_null(accel_context_unref(NULL));
}

/* Many contexts are independent: no shared global state. */
static void test_many_contexts(void **state)
{
	struct accel_context *ctx[8];
	unsigned i;

	(void)state;
	for (i = 0; i < TEST_ARRAY_SIZE(ctx); i++) {
		assert_int_equal(accel_context_new(0, &ctx[i]), 0);
		assert_int_equal(accel_context_set_log_priority(ctx[i],
								(int)i % 8),
				 0);
		assert_int_equal(accel_context_set_user_data(ctx[i], &ctx[i]),
				 0);
	}
	for (i = 0; i < TEST_ARRAY_SIZE(ctx); i++) {
		assert_int_equal(accel_context_get_log_priority(ctx[i]),
				 (int)i % 8);
		assert_ptr_equal(accel_context_get_user_data(ctx[i]), &ctx[i]);
	}
	for (i = 0; i < TEST_ARRAY_SIZE(ctx); i++)
		assert_null(accel_context_unref(ctx[i]));
}

static int prio_with_env(const char *value)
{
	struct accel_context *ctx = NULL;
	int prio;

	int saved_stderr, devnull, r;

	if (value)
		setenv("ACCEL_LOG", value, 1);
	else
		unsetenv("ACCEL_LOG");
	/*
	 * The default handler may log the creation itself to stderr before
	 * we can replace it: keep the test output quiet.
	 */
	fflush(stderr);
	saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(saved_stderr >= 0 && devnull >= 0);
	dup2(devnull, STDERR_FILENO);
	r = accel_context_new(0, &ctx);
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	close(devnull);
	assert_int_equal(r, 0);
	assert_int_equal(accel_context_set_log_fn(ctx, NULL, NULL), 0);
	prio = accel_context_get_log_priority(ctx);
	accel_context_unref(ctx);
	return prio;
}

static void test_log_priority_env(void **state)
{
	char *saved = getenv("ACCEL_LOG") ? strdup(getenv("ACCEL_LOG")) : NULL;

	(void)state;
	assert_int_equal(prio_with_env(NULL), ACCEL_LOG_ERR);
	assert_int_equal(prio_with_env("debug"), ACCEL_LOG_DEBUG);
	assert_int_equal(prio_with_env("info"), ACCEL_LOG_INFO);
	assert_int_equal(prio_with_env("warning"), ACCEL_LOG_WARNING);
	assert_int_equal(prio_with_env("err"), ACCEL_LOG_ERR);
	assert_int_equal(prio_with_env("5"), 5);
	assert_int_equal(prio_with_env("0"), 0);

	if (saved)
		setenv("ACCEL_LOG", saved, 1);
	else
		unsetenv("ACCEL_LOG");
	free(saved);
}

static void test_log_priority(void **state)
{
	struct accel_context *ctx = NULL;
	int p;

	(void)state;
	assert_int_equal(accel_context_new(0, &ctx), 0);
	for (p = 0; p <= 7; p++) {
		assert_int_equal(accel_context_set_log_priority(ctx, p), 0);
		assert_int_equal(accel_context_get_log_priority(ctx), p);
	}
	assert_int_equal(accel_context_set_log_priority(ctx, ACCEL_LOG_INFO),
			 0);
	assert_int_equal(accel_context_set_log_priority(ctx, -1), -EINVAL);
	assert_int_equal(accel_context_set_log_priority(ctx, 8), -EINVAL);
	assert_int_equal(accel_context_set_log_priority(ctx, 1000), -EINVAL);
	assert_int_equal(accel_context_get_log_priority(ctx), ACCEL_LOG_INFO);

	assert_int_equal(accel_context_set_log_priority(NULL, 3), -EINVAL);
	assert_int_equal(accel_context_get_log_priority(NULL), -EINVAL);
	accel_context_unref(ctx);
}

struct log_seen {
	struct test_log log;
	struct accel_context *ctx;
	bool wrong_ctx, null_loc;
};

static void checking_handler(struct accel_context *ctx, int priority,
			     const char *file, int line, const char *fn,
			     const char *format, va_list args, void *user_data)
{
	struct log_seen *seen = user_data;

	/* No asserts here: this may run on a libaccel worker thread. */
	if (ctx != seen->ctx)
		seen->wrong_ctx = true;
	if (!file || !fn || !format || line <= 0)
		seen->null_loc = true;
	test_log_handler(ctx, priority, file, line, fn, format, args,
			 &seen->log);
}

/*
 * Make the library log something: a command whose wait list failed fails
 * itself, and the core reports failed commands at DEBUG.
 */
static void provoke_failed_command(struct accel_context *ctx)
{
	struct accel_device *dev = NULL;
	struct accel_queue *q = NULL;
	struct accel_fence *user = NULL, *f = NULL;

	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(accel_queue_new(dev, 0, &q), 0);
	assert_int_equal(accel_fence_new_user(ctx, &user), 0);
	assert_int_equal(accel_queue_marker(q, 1, &user, &f), 0);
	assert_int_equal(accel_fence_signal(user, -EIO), 0);
	assert_int_equal(accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE), -EIO);
	accel_fence_unref(f);
	accel_fence_unref(user);
	accel_queue_unref(q);
	accel_device_unref(dev);
}

static void test_log_handler_called(void **state)
{
	struct log_seen seen = { 0 };
	struct accel_context *ctx = NULL;

	(void)state;
	test_log_init(&seen.log);
	assert_int_equal(accel_context_new(0, &ctx), 0);
	seen.ctx = ctx;
	assert_int_equal(accel_context_set_log_fn(ctx, checking_handler, &seen),
			 0);

	/* At ERR, debug messages are filtered before the handler. */
	assert_int_equal(accel_context_set_log_priority(ctx, ACCEL_LOG_ERR), 0);
	provoke_failed_command(ctx);
	assert_int_equal(test_log_count(&seen.log, ACCEL_LOG_DEBUG) -
				 test_log_count(&seen.log, ACCEL_LOG_ERR),
			 0);

	/* At DEBUG the failure is reported. */
	assert_int_equal(accel_context_set_log_priority(ctx, ACCEL_LOG_DEBUG),
			 0);
	provoke_failed_command(ctx);
	assert_true(test_log_count(&seen.log, ACCEL_LOG_DEBUG) > 0);
	assert_false(seen.wrong_ctx);
	assert_false(seen.null_loc);

	/* A NULL handler silences everything. */
	test_log_reset(&seen.log);
	assert_int_equal(accel_context_set_log_fn(ctx, NULL, NULL), 0);
	provoke_failed_command(ctx);
	assert_int_equal(test_log_count(&seen.log, 7), 0);

	assert_int_equal(accel_context_set_log_fn(NULL, checking_handler,
						  &seen),
			 -EINVAL);
	accel_context_unref(ctx);
	test_log_fini(&seen.log);
}

static void test_log_helper(void **state)
{
	struct test_log log;
	struct accel_context *ctx = NULL;

	(void)state;
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(accel_context_get_log_priority(ctx), ACCEL_LOG_DEBUG);
	provoke_failed_command(ctx);
	assert_true(test_log_count(&log, ACCEL_LOG_DEBUG) > 0);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

static int fake_open(const char *path, int flags, void *user_data)
{
	(void)path;
	(void)flags;
	(void)user_data;
	return -ENOENT;
}

static void fake_close(int fd, void *user_data)
{
	(void)fd;
	(void)user_data;
}

static void test_open_interface(void **state)
{
	struct accel_context *ctx = NULL;
	struct accel_open_interface iface = {
		.struct_size = sizeof(iface),
		.open_restricted = fake_open,
		.close_restricted = fake_close,
	};
	struct accel_open_interface bad;
	struct accel_device *dev = NULL;

	(void)state;
	assert_int_equal(accel_context_new(0, &ctx), 0);
	assert_int_equal(accel_context_set_open_interface(NULL, &iface, NULL),
			 -EINVAL);

	bad = iface;
	bad.struct_size = 0;
	assert_int_equal(accel_context_set_open_interface(ctx, &bad, NULL),
			 -EINVAL);
	bad.struct_size = sizeof(uint32_t);
	assert_int_equal(accel_context_set_open_interface(ctx, &bad, NULL),
			 -EINVAL);
	bad = iface;
	bad.close_restricted = NULL;
	assert_int_equal(accel_context_set_open_interface(ctx, &bad, NULL),
			 -EINVAL);
	bad = iface;
	bad.open_restricted = NULL;
	assert_int_equal(accel_context_set_open_interface(ctx, &bad, NULL),
			 -EINVAL);

	assert_int_equal(accel_context_set_open_interface(ctx, &iface, ctx), 0);
	/* The structure is copied: clobbering ours must not matter. */
	memset(&iface, 0xff, sizeof(iface));
	/* Enumeration still works (the CPU device needs no node). */
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	accel_device_unref(dev);

	assert_int_equal(accel_context_set_open_interface(ctx, NULL, NULL), 0);
	bad.struct_size = sizeof(bad);
	bad.open_restricted = NULL;
	bad.close_restricted = NULL;
	assert_int_equal(accel_context_set_open_interface(ctx, &bad, NULL), 0);
	accel_context_unref(ctx);
}

static void test_user_data(void **state)
{
	struct accel_context *ctx = NULL;
	int x;

	(void)state;
	assert_int_equal(accel_context_new(0, &ctx), 0);
	assert_null(accel_context_get_user_data(ctx));
	assert_int_equal(accel_context_set_user_data(ctx, &x), 0);
	assert_ptr_equal(accel_context_get_user_data(ctx), &x);
	assert_int_equal(accel_context_set_user_data(ctx, NULL), 0);
	assert_null(accel_context_get_user_data(ctx));
	assert_int_equal(accel_context_set_user_data(NULL, &x), -EINVAL);
	assert_null(accel_context_get_user_data(NULL));
	accel_context_unref(ctx);
}

/* Objects hold their context: dropping it first must be safe. */
static void test_unref_context_first(void **state)
{
	struct test_log log;
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	uint64_t type = 0;

	(void)state;
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_null(accel_context_unref(ctx));
	assert_ptr_equal(accel_device_get_context(dev), ctx);
	assert_int_equal(accel_device_query_u64(dev, ACCEL_DEVICE_U64_TYPE,
						&type),
			 0);
	assert_int_equal(type, ACCEL_DEVICE_TYPE_CPU);
	assert_int_equal(accel_context_get_log_priority(
				 accel_device_get_context(dev)),
			 ACCEL_LOG_DEBUG);
	accel_device_unref(dev);
	test_log_fini(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_bad_args),
		cmocka_unit_test(test_new_ref_unref),
		cmocka_unit_test(test_many_contexts),
		cmocka_unit_test(test_log_priority_env),
		cmocka_unit_test(test_log_priority),
		cmocka_unit_test(test_log_handler_called),
		cmocka_unit_test(test_log_helper),
		cmocka_unit_test(test_open_interface),
		cmocka_unit_test(test_user_data),
		cmocka_unit_test(test_unref_context_first),
	};

	return TEST_RUN_GROUP("context", tests);
}
