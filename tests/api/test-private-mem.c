/* SPDX-License-Identifier: MIT */
/*
 * Private memory in the C API: accel_kernel_get_private_mem() for native
 * kernels that give a stack size and ones that do not, work-groups whose
 * stack outgrows a worker thread's running on one that fits, and launches
 * beyond the device's ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE refused with
 * -E2BIG and a log line.
 */
#include <errno.h>
#include <string.h>

#include "test-common.h"

/* Twice and a half a worker's 8 MiB: only a larger stack holds it. */
#define BIG_FRAME (20u << 20)

/*
 * One buffer argument; each work-item writes a sum over a large local
 * array, touched from the top down so that a stack too small ends on
 * its guard page rather than below it.
 */
static void big_frame(void **args, const struct accel_wg_ctx *c)
{
	volatile unsigned char buf[BIG_FRAME];
	uint32_t *out = *(uint32_t **)args[0];

	for (uint64_t i = BIG_FRAME; i >= 4096; i -= 4096)
		buf[i - 1] = (unsigned char)(i >> 12);
	for (uint64_t l = 0; l < c->local_size[0]; l++) {
		uint64_t g = c->group_id[0] * c->enqueued_local_size[0] + l;
		uint32_t sum = 0;

		for (uint64_t i = BIG_FRAME; i >= 4096; i -= 4096)
			sum += buf[i - 1];
		out[g] = sum + (uint32_t)g;
	}
}

static void noop(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static const struct accel_kernel_arg_desc out_arg = {
	.struct_size = sizeof(out_arg),
	.kind = ACCEL_KERNEL_ARG_BUFFER,
	.size = sizeof(void *),
	.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
};

static struct accel_native_kernel_desc desc(const char *name, accel_wg_fn fn,
					    uint64_t private_size)
{
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = name,
		.fn = fn,
		.n_args = 1,
		.args = &out_arg,
		.private_size = private_size,
	};

	return d;
}

static void test_query(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc d[2] = {
		desc("sized", noop, 12345),
		desc("unsized", noop, 0),
	};
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	uint64_t size = 7, per_item = 7;
	bool known = false;

	assert_int_equal(accel_program_new_native(env->dev, d, 2, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "sized", &k), 0);
	assert_int_equal(accel_kernel_get_private_mem(k, &size, &per_item,
						      &known), 0);
	assert_int_equal(size, 12345);
	assert_int_equal(per_item, 0);
	assert_true(known);
	/* any out-pointer may be NULL */
	assert_int_equal(accel_kernel_get_private_mem(k, NULL, NULL, NULL), 0);
	accel_kernel_unref(k);

	assert_int_equal(accel_kernel_new(prog, "unsized", &k), 0);
	assert_int_equal(accel_kernel_get_private_mem(k, &size, NULL, &known),
			 0);
	assert_int_equal(size, 0);
	assert_false(known);
	accel_kernel_unref(k);
	accel_program_unref(prog);

	size = 7;
	assert_int_equal(accel_kernel_get_private_mem(NULL, &size, NULL, NULL),
			 -EINVAL);
	assert_int_equal(size, 7);
	/* a device with compiled or native kernels says how much it gives */
	assert_true(test_dev_u64(env->dev, ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE) >=
		    (8u << 20));
}

static void test_large_stack_runs(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc d =
		desc("big", big_frame, BIG_FRAME + 4096);
	struct accel_ndrange range = test_ndrange(1, 12, 1, 1, 3, 1, 1);
	struct accel_buffer *out = test_buffer_new(env, 12 * sizeof(uint32_t));
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	uint32_t got[12], expect = 0;

	for (uint64_t i = BIG_FRAME; i >= 4096; i -= 4096)
		expect += (unsigned char)(i >> 12);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "big", &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	/* twice: the second may reuse the stacks of the first */
	for (int round = 0; round < 2; round++) {
		memset(got, 0, sizeof(got));
		test_write(env, out, 0, sizeof(got), got);
		test_launch_wait(env, k, &range);
		test_read(env, out, 0, sizeof(got), got);
		for (uint32_t g = 0; g < 12; g++)
			assert_int_equal(got[g], expect + g);
	}
	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(out);
}

static void test_beyond_limit_refused(void **state)
{
	struct test_env *env = *state;
	uint64_t max = test_dev_u64(env->dev, ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE);
	struct accel_native_kernel_desc d[2] = {
		desc("over", noop, max + 1),
		desc("wraps", noop, UINT64_MAX),
	};
	struct accel_ndrange range = test_ndrange(1, 4, 1, 1, 1, 1, 1);
	struct accel_buffer *out = test_buffer_new(env, 64);
	struct accel_program *prog = NULL;
	struct accel_fence *f = TEST_SENTINEL_PTR;

	assert_int_equal(accel_program_new_native(env->dev, d, 2, &prog), 0);
	for (int i = 0; i < 2; i++) {
		struct accel_kernel *k = NULL;

		assert_int_equal(accel_kernel_new(prog, d[i].name, &k), 0);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
		test_log_reset(&env->log);
		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, &f),
				 -E2BIG);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
		assert_true(test_log_contains(&env->log, "bytes of stack"));
		accel_kernel_unref(k);
	}
	assert_int_equal(accel_queue_finish(env->queue), 0);
	accel_program_unref(prog);
	accel_buffer_unref(out);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_query),
		T(test_large_stack_runs),
		T(test_beyond_limit_refused),
	};

	return TEST_RUN_GROUP("private-mem", tests);
}
