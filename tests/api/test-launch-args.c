/* SPDX-License-Identifier: MIT */
/*
 * accel_queue_launch() and kernel arguments: local memory (sizes, limits,
 * layout) and argument capture at launch (values, buffers and their
 * lifetime, NULL and sub-buffers, kernels without arguments).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

/* Local memory: static block, local arguments, per-group privacy. */
static void run_local_sum(struct test_env *env, uint64_t n, uint64_t local,
			  uint64_t scratch_bytes)
{
	struct accel_kernel *k = test_kernel_new(env, "local_sum");
	struct accel_buffer *in = test_buffer_new(env, n * 4);
	struct accel_buffer *sums = test_buffer_new(env, n * 4);
	struct accel_buffer *errs = test_buffer_new(env, n * 4);
	struct accel_ndrange r = test_ndrange(1, n, 0, 0, local, 0, 0);
	uint32_t *hin = malloc(n * 4), *hs = malloc(n * 4), *he = malloc(n * 4);
	uint64_t i, g, n_groups, enq = local;

	assert_non_null(hin);
	assert_non_null(hs);
	assert_non_null(he);
	for (i = 0; i < n; i++)
		hin[i] = (uint32_t)(i * i + 1);
	test_write(env, in, 0, n * 4, hin);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, sums), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, in), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, scratch_bytes), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 3, errs), 0);
	test_launch_wait(env, k, &r);
	test_read(env, sums, 0, n * 4, hs);
	test_read(env, errs, 0, n * 4, he);

	if (!enq) {
		/* Picked: find it from the sums (group 0 covers [0, enq)). */
		uint32_t s = 0;

		for (enq = 1; enq <= n; enq++) {
			s += hin[enq - 1];
			if (s == hs[0])
				break;
		}
		assert_true(enq <= n);
	}
	n_groups = (n + enq - 1) / enq;
	for (g = 0; g < n_groups; g++) {
		uint32_t expect = 0;

		for (i = g * enq; i < n && i < (g + 1) * enq; i++)
			expect += hin[i];
		if (he[g] != 0)
			fail_msg("group %llu: local memory errors %#x",
				 (unsigned long long)g, he[g]);
		if (hs[g] != expect)
			fail_msg("group %llu: sum %u, expected %u",
				 (unsigned long long)g, hs[g], expect);
	}
	free(hin);
	free(hs);
	free(he);
	accel_buffer_unref(in);
	accel_buffer_unref(sums);
	accel_buffer_unref(errs);
	accel_kernel_unref(k);
}

static void test_local_memory(void **state)
{
	struct test_env *env = *state;
	uint64_t max_wg = test_dev_u64(env->dev,
				       ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE);
	uint64_t local_mem = test_dev_u64(env->dev,
					  ACCEL_DEVICE_U64_LOCAL_MEM_SIZE);
	uint64_t static_local = 0;

	assert_int_equal(accel_kernel_get_wg_info(NULL, &static_local, NULL,
						  NULL),
			 -EINVAL);
	{
		struct accel_kernel *k = test_kernel_new(env, "local_sum");

		assert_int_equal(accel_kernel_get_wg_info(k, &static_local,
							  NULL, NULL),
				 0);
		assert_int_equal(static_local, TEST_STATIC_LOCAL);
		accel_kernel_unref(k);
	}

	run_local_sum(env, 1024, 64, 64 * 4);
	run_local_sum(env, 1000, 64, 64 * 4);     /* partial last group */
	run_local_sum(env, 997, 1, 4);
	run_local_sum(env, 4099, 128, 128 * 4 + 1);
	/* Picked size: the scratch fits the largest possible group. */
	if (max_wg * 4 + TEST_STATIC_LOCAL + 128 <= local_mem)
		run_local_sum(env, 3001, 0, max_wg * 4);
}

static void test_local_memory_too_big(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "local_sum");
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	uint64_t local_mem = test_dev_u64(env->dev,
					  ACCEL_DEVICE_U64_LOCAL_MEM_SIZE);
	struct accel_ndrange r = test_ndrange(1, 64, 0, 0, 64, 0, 0);
	struct accel_fence *f = TEST_SENTINEL_PTR;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, buf), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 3, buf), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, local_mem + 1),
			 -E2BIG);
	/* Fits alone, but not with the kernel's static local memory. */
	assert_int_equal(accel_kernel_set_arg_local(k, 2, local_mem), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL, &f), -E2BIG);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, local_mem -
							      TEST_STATIC_LOCAL -
							      128),
			 0);
	r = test_ndrange(1, 64, 0, 0, 64, 0, 0);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	f = NULL;
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

/* Arguments are captured at launch: later changes do not leak back. */
static void test_args_captured(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_buffer *a = test_buffer_new(env, 16);
	struct accel_buffer *b = test_buffer_new(env, 16), *keep_b;
	struct accel_fence *gate = test_user_fence(env), *f1 = NULL, *f2 = NULL,
			   *f3 = NULL;
	struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	uint32_t v, ha[4], hb[4];
	unsigned i;

	v = 1;
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 1, &gate, &f1),
			 0);
	v = 10;
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 1, &gate, &f2),
			 0);
	v = 100;
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, b), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 1, &gate, &f3),
			 0);
	/* Launches keep what they need: drop ours before they run. */
	keep_b = accel_buffer_ref(b);
	accel_kernel_unref(k);
	accel_buffer_unref(b);

	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f1), 0);
	assert_int_equal(test_wait_unref(f2), 0);
	assert_int_equal(accel_fence_wait(f3, ACCEL_TIMEOUT_INFINITE), 0);
	test_read(env, a, 0, sizeof(ha), ha);
	test_read(env, keep_b, 0, sizeof(hb), hb);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ha[i], 11);
		assert_int_equal(hb[i], 100);
	}
	accel_buffer_unref(keep_b);
	accel_fence_unref(f3);
	accel_fence_unref(gate);
	accel_buffer_unref(a);
}

/* Kernel buffers are referenced: replacing and dropping them is safe. */
static void test_args_buffer_lifetime(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_buffer *a = test_buffer_new(env, 16), *keep;
	struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	uint32_t v = 3, back[4];
	unsigned i;

	keep = accel_buffer_ref(a);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	/* The kernel holds its own reference. */
	accel_buffer_unref(a);
	test_launch_wait(env, k, &r);
	test_read(env, keep, 0, sizeof(back), back);
	for (i = 0; i < 4; i++)
		assert_int_equal(back[i], 3);
	/* Replace with NULL, then with the buffer again. */
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, NULL), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, keep), 0);
	test_launch_wait(env, k, &r);
	test_read(env, keep, 0, sizeof(back), back);
	for (i = 0; i < 4; i++)
		assert_int_equal(back[i], 6);
	accel_kernel_unref(k);
	accel_buffer_unref(keep);
}

/* NULL buffer arguments reach the kernel as NULL (noop_args ignores them). */
static void test_null_buffer_arg(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "noop_args");
	struct accel_ndrange r = test_ndrange(1, 8, 0, 0, 0, 0, 0);
	uint32_t n = 8;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, NULL), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &n), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, 32), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 3, NULL), 0);
	test_launch_wait(env, k, &r);
	accel_kernel_unref(k);
}

/* Sub-buffers as kernel arguments see the parent's bytes at their offset. */
static void test_sub_buffer_arg(void **state)
{
	struct test_env *env = *state;
	uint64_t align = test_dev_u64(env->dev,
				      ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN);
	struct accel_buffer *parent = test_buffer_new(env, 2 * align + 64);
	struct accel_buffer *sub = NULL;
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange r = test_ndrange(1, 16, 0, 0, 0, 0, 0);
	uint32_t v = 9, *back;
	uint64_t i, n = (2 * align + 64) / 4;

	back = calloc(n, 4);
	assert_non_null(back);
	assert_int_equal(accel_buffer_new_sub(parent, align, 64, 0, &sub), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, sub), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	test_launch_wait(env, k, &r);
	test_read(env, parent, 0, n * 4, back);
	for (i = 0; i < n; i++)
		assert_int_equal(back[i], i >= align / 4 && i < align / 4 + 16 ?
						  9 :
						  0);
	free(back);
	accel_kernel_unref(k);
	accel_buffer_unref(sub);
	accel_buffer_unref(parent);
}

/*
 * A host address as a buffer argument (ACCEL_DEVICE_CAP_HOST_SVM): the
 * kernel works on the caller's memory at any offset, a clone keeps the
 * address, and a buffer set afterwards replaces it.
 */
static void test_host_ptr_arg(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "add_u32"), *c = NULL;
	struct accel_buffer *a = test_buffer_new(env, 16);
	struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	uint32_t v = 5, *mem = calloc(8, 4), back[4];
	unsigned i;

	assert_non_null(mem);
	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_HOST_SVM)) {
		assert_int_equal(accel_kernel_set_arg_host_ptr(k, 0, mem),
				 -EOPNOTSUPP);
		goto out;
	}
	assert_int_equal(accel_kernel_set_arg_host_ptr(NULL, 0, mem), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_host_ptr(k, 99, mem), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_host_ptr(k, 1, mem), -ENOTTY);

	/* one element in: any address, not a buffer's base */
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	assert_int_equal(accel_kernel_set_arg_host_ptr(k, 0, mem + 1), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	test_launch_wait(env, k, &r);
	for (i = 0; i < 8; i++)
		assert_int_equal(mem[i], i >= 1 && i < 5 ? 5 : 0);

	assert_int_equal(accel_kernel_clone(k, &c), 0);
	test_launch_wait(env, c, &r);
	for (i = 0; i < 8; i++)
		assert_int_equal(mem[i], i >= 1 && i < 5 ? 10 : 0);

	/* a buffer replaces the address; the buffer was not written */
	test_read(env, a, 0, sizeof(back), back);
	for (i = 0; i < 4; i++)
		assert_int_equal(back[i], 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	test_launch_wait(env, k, &r);
	test_read(env, a, 0, sizeof(back), back);
	for (i = 0; i < 4; i++)
		assert_int_equal(back[i], 5);
	assert_int_equal(mem[1], 10);
	accel_kernel_unref(c);
out:
	free(mem);
	accel_kernel_unref(k);
	accel_buffer_unref(a);
}

static void test_no_args(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "no_args");
	struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };
	struct accel_ndrange r = test_ndrange(3, 3, 5, 7, 0, 0, 0);

	assert_int_equal(accel_kernel_get_arg_count(k), 0);
	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &d), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, NULL), -ERANGE);
	test_launch_wait(env, k, &r);
	accel_kernel_unref(k);
}

/* By-value arguments of odd sizes arrive intact and 16-byte aligned. */
static void test_value_args(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "value_args");
	struct accel_buffer *out = test_buffer_new(env,
						   TEST_VALUE_ARGS_N * 8);
	struct accel_ndrange r = test_ndrange(1, 3, 0, 0, 0, 0, 0);
	struct test_val3 s3 = { 1, 2, 0xffffffffu };
	uint64_t u = UINT64_C(0x123456789abcdef0), back[TEST_VALUE_ARGS_N];
	uint8_t c = 0xab;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 1, &c), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 2, sizeof(s3), &s3), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 3, 8, &u), 0);
	/* Values are copied at set time. */
	c = 0;
	memset(&s3, 0, sizeof(s3));
	u = 0;
	test_launch_wait(env, k, &r);
	test_read(env, out, 0, sizeof(back), back);
	assert_int_equal(back[8], 0x600d);
	assert_int_equal(back[0], 0xab);
	assert_int_equal(back[1], 1);
	assert_int_equal(back[2], 2);
	assert_int_equal(back[3], 0xffffffffu);
	assert_true(back[4] == UINT64_C(0x123456789abcdef0));
	assert_int_equal(back[5], 0);
	assert_int_equal(back[6], 0);
	assert_int_equal(back[7], 0);
	accel_kernel_unref(k);
	accel_buffer_unref(out);
}

/* Static local memory first, then each local argument, 128-aligned. */
static void test_local_layout(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "local_layout");
	enum { GROUPS = 5 };
	struct accel_buffer *out = test_buffer_new(env, GROUPS * 4 * 8);
	struct accel_ndrange r = test_ndrange(1, 2 * GROUPS, 0, 0, 2, 0, 0);
	uint64_t local_mem = test_dev_u64(env->dev,
					  ACCEL_DEVICE_U64_LOCAL_MEM_SIZE);
	uint64_t back[GROUPS * 4];
	unsigned g;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 1, 7), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, 300), 0);
	test_launch_wait(env, k, &r);
	test_read(env, out, 0, sizeof(back), back);
	for (g = 0; g < GROUPS; g++) {
		uint64_t a = back[4 * g], b = back[4 * g + 1];

		assert_int_equal(back[4 * g + 2], 0);
		assert_int_equal(back[4 * g + 3], TEST_LAYOUT_STATIC);
		assert_true(a >= TEST_LAYOUT_STATIC);
		assert_int_equal(a % 128, 0);
		assert_true(b >= a + 7);
		assert_int_equal(b % 128, 0);
		assert_true(b + 300 <= local_mem);
	}
	accel_kernel_unref(k);
	accel_buffer_unref(out);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_local_memory),
		T(test_local_memory_too_big),
		T(test_args_captured),
		T(test_args_buffer_lifetime),
		T(test_null_buffer_arg),
		T(test_sub_buffer_arg),
		T(test_host_ptr_arg),
		T(test_no_args),
		T(test_value_args),
		T(test_local_layout),
	};

	return TEST_RUN_GROUP("launch-args", tests);
}
