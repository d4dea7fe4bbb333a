/* SPDX-License-Identifier: MIT */
/*
 * Native kernels flagged ACCEL_KERNEL_HAS_BARRIERS: no device has a barrier
 * hook, so program creation refuses them with -EOPNOTSUPP (docs/design.md)
 * instead of accepting them and failing each launch through its fence.
 */
#include <errno.h>

#include "test-common.h"

static void noop(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static struct accel_native_kernel_desc desc(const char *name, uint32_t flags)
{
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.flags = flags,
		.name = name,
		.fn = noop,
	};

	return d;
}

static void test_barriers_refused(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	struct accel_native_kernel_desc d[2] = {
		desc("plain", 0),
		desc("sync", ACCEL_KERNEL_HAS_BARRIERS),
	};

	test_log_reset(&env->log);
	assert_int_equal(accel_program_new_native(env->dev, d, 2, &prog),
			 -EOPNOTSUPP);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	/* The rejection names the description in the log. */
	assert_true(test_log_contains(&env->log, "kernel description 1"));

	/* Alone, and with the other known flag. */
	d[1].flags |= ACCEL_KERNEL_GROUP_INVARIANT;
	assert_int_equal(accel_program_new_native(env->dev, &d[1], 1, &prog),
			 -EOPNOTSUPP);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);

	/* A malformed description is still -EINVAL, whatever its flags. */
	d[1].fn = NULL;
	assert_int_equal(accel_program_new_native(env->dev, &d[1], 1, &prog),
			 -EINVAL);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
}

/* The same kernels without the flag are accepted and run. */
static void test_without_flag_runs(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc d[2] = {
		desc("plain", 0),
		desc("inv", ACCEL_KERNEL_GROUP_INVARIANT),
	};
	struct accel_ndrange range = test_ndrange(1, 64, 1, 1, 8, 1, 1);
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_fence *f = NULL;

	assert_int_equal(accel_program_new_native(env->dev, d, 2, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "plain", &k), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &range, 0, NULL,
					    &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_barriers_refused),
		T(test_without_flag_runs),
	};

	return TEST_RUN_GROUP("native-barriers", tests);
}
