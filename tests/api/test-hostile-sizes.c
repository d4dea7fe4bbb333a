/* SPDX-License-Identifier: MIT */
/*
 * Hostile sizes through the C API: offsets, sizes and NDRange geometries
 * chosen so that a sum or product of them wraps 64 bits. Each call must
 * fail with the documented errno, leave its out-parameter alone and
 * submit nothing.
 *
 * Launches that could be accepted by mistake wait for a user fence that
 * is then failed, so an accepted one never runs: a wrong answer shows as
 * a wrong return code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#define N 4096
#define HALF (UINT64_C(1) << 63)

/* (offset, size) pairs out of a 4096-byte buffer, most by wrapping. */
static const uint64_t bad_ranges[][2] = {
	{ UINT64_MAX, 1 },
	{ UINT64_MAX - 3, 8 },
	{ 8, UINT64_MAX - 3 },
	{ 1, UINT64_MAX },
	{ N, 4 },
	{ N - 4, 8 },
	{ 0, UINT64_MAX },
	{ HALF, HALF },
};

static void fill_check(struct test_env *env, struct accel_buffer *buf,
		       uint8_t v)
{
	uint8_t out[N];
	size_t i;

	test_read(env, buf, 0, N, out);
	for (i = 0; i < N; i++)
		if (out[i] != v)
			fail_msg("byte %zu is %u, not %u", i, out[i], v);
}

static void test_transfers(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = test_buffer_new(env, N);
	struct accel_buffer *b = test_buffer_new(env, N);
	static uint8_t host[N];
	const uint8_t pattern[4] = { 0x77, 0x77, 0x77, 0x77 };
	size_t i;

	memset(host, 0x11, sizeof(host));
	test_write(env, a, 0, N, host);
	memset(host, 0x22, sizeof(host));
	test_write(env, b, 0, N, host);
	for (i = 0; i < TEST_ARRAY_SIZE(bad_ranges); i++) {
		uint64_t off = bad_ranges[i][0], size = bad_ranges[i][1];
		size_t psize = off % 4 || size % 4 ? 1 : 4;
		struct accel_fence *f = TEST_SENTINEL_PTR;
		struct accel_queue *q = env->queue;

		assert_int_equal(accel_queue_write(q, a, off, size, host, 0,
						   NULL, &f),
				 -ERANGE);
		assert_int_equal(accel_queue_read(q, a, off, size, host, 0,
						  NULL, &f),
				 -ERANGE);
		assert_int_equal(accel_queue_copy(q, a, off, b, 0, size, 0,
						  NULL, &f),
				 -ERANGE);
		assert_int_equal(accel_queue_copy(q, a, 0, b, off, size, 0,
						  NULL, &f),
				 -ERANGE);
		assert_int_equal(accel_queue_fill(q, a, off, size, pattern,
						  psize, 0, NULL, &f),
				 -ERANGE);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
	}
	/* pattern sizes above 128 or not a power of two */
	assert_int_equal(accel_queue_fill(env->queue, a, 0, N, pattern,
					  SIZE_MAX, 0, NULL, NULL),
			 -EINVAL);
	assert_int_equal(accel_queue_fill(env->queue, a, 0, N, pattern,
					  (size_t)HALF, 0, NULL, NULL),
			 -EINVAL);
	assert_int_equal(accel_queue_fill(env->queue, a, 0, 12, pattern, 3,
					  0, NULL, NULL),
			 -EINVAL);
	assert_int_equal(accel_queue_finish(env->queue), 0);
	fill_check(env, a, 0x11);
	fill_check(env, b, 0x22);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

static void test_buffers(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *parent = test_buffer_new(env, N);
	struct accel_buffer *sub = TEST_SENTINEL_PTR;
	static uint8_t host[N];
	size_t i;

	assert_int_equal(accel_buffer_new(env->dev, UINT64_MAX, 0, &sub),
			 -E2BIG);
	assert_int_equal(accel_buffer_new(env->dev, HALF, 0, &sub), -E2BIG);
	assert_int_equal(accel_buffer_new_user_ptr(env->dev, host, UINT64_MAX,
						   0, &sub),
			 -E2BIG);
	assert_ptr_equal(sub, TEST_SENTINEL_PTR);

	for (i = 0; i < TEST_ARRAY_SIZE(bad_ranges); i++) {
		uint64_t off = bad_ranges[i][0], size = bad_ranges[i][1];
		void *p = TEST_SENTINEL_PTR;

		assert_int_equal(accel_buffer_new_sub(parent, off, size, 0,
						      &sub),
				 -ERANGE);
		assert_ptr_equal(sub, TEST_SENTINEL_PTR);
		assert_int_equal(accel_buffer_map(parent, off, size,
						  ACCEL_MAP_READ, &p),
				 -ERANGE);
		assert_ptr_equal(p, TEST_SENTINEL_PTR);
	}
	accel_buffer_unref(parent);
}

/* ---- NDRange geometry ----------------------------------------------- */

static void noop(void **args, const struct accel_wg_ctx *ctx)
{
	(void)args;
	(void)ctx;
}

/* A kernel whose launches are re-cut into wider groups (widen_groups). */
static const struct accel_native_kernel_desc invariant_desc = {
	.struct_size = sizeof(struct accel_native_kernel_desc),
	.flags = ACCEL_KERNEL_GROUP_INVARIANT,
	.name = "invariant",
	.fn = noop,
};

struct nd_case {
	const char *what;
	uint32_t dim;
	uint64_t global[3], local[3], offset[3];
	int expect;
};

#define G(x) (UINT64_C(1) << (x))

static const struct nd_case bad_nd[] = {
	/* 2^80 work-items: the work-group count wrapped to 0 */
	{ "2^40 x 2^40", 2, { G(40), G(40), 1 }, { 0 }, { 0 }, -EOVERFLOW },
	{ "2^40 x 2^40 in 1 x 1", 2, { G(40), G(40), 1 }, { 1, 1, 1 }, { 0 },
	  -EOVERFLOW },
	/* exactly 2^64 */
	{ "2^32 x 2^32", 2, { G(32), G(32), 1 }, { 0 }, { 0 }, -EOVERFLOW },
	{ "2^22 x 2^22 x 2^22", 3, { G(22), G(22), G(22) }, { 0 }, { 0 },
	  -EOVERFLOW },
	{ "max x 2", 2, { UINT64_MAX, 2, 1 }, { 0 }, { 0 }, -EOVERFLOW },
	{ "max x 2 in 1 x 1", 2, { UINT64_MAX, 2, 1 }, { 1, 1, 1 }, { 0 },
	  -EOVERFLOW },
	/* global offset + global size beyond 64 bits */
	{ "offset max", 1, { 2, 1, 1 }, { 0 }, { UINT64_MAX }, -EINVAL },
	{ "offset in y", 2, { 4, 4, 1 }, { 0 }, { 0, UINT64_MAX - 1 },
	  -EINVAL },
};

static void launch_cases(struct test_env *env, struct accel_kernel *k,
			 const char *name)
{
	size_t i;

	for (i = 0; i < TEST_ARRAY_SIZE(bad_nd); i++) {
		const struct nd_case *c = &bad_nd[i];
		struct accel_ndrange r = test_ndrange(c->dim, c->global[0],
						      c->global[1],
						      c->global[2],
						      c->local[0],
						      c->local[1],
						      c->local[2]);
		struct accel_fence *gate = test_user_fence(env);
		struct accel_fence *f = TEST_SENTINEL_PTR;
		int ret;

		memcpy(r.global_offset, c->offset, sizeof(r.global_offset));
		ret = accel_queue_launch(env->queue, k, &r, 1, &gate, &f);
		/* an accepted launch must not run: fail what it waits for */
		assert_int_equal(accel_fence_signal(gate, -ECANCELED), 0);
		accel_fence_unref(gate);
		accel_queue_finish(env->queue);
		if (ret == 0 && f != TEST_SENTINEL_PTR)
			accel_fence_unref(f);
		if (ret != c->expect)
			fail_msg("%s, \"%s\": %d, not %d", name, c->what, ret,
				 c->expect);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
	}
}

static void test_launch(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *ids = test_buffer_new(env, N);
	struct accel_buffer *hits = test_buffer_new(env, N);
	struct accel_kernel *k = test_kernel_new(env, "write_gid");
	struct accel_program *prog = NULL;
	struct accel_kernel *inv = NULL;
	struct accel_ndrange one = test_ndrange(1, 1, 0, 0, 0, 0, 0);

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, ids), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, hits), 0);
	launch_cases(env, k, "write_gid");

	assert_int_equal(accel_program_new_native(env->dev, &invariant_desc, 1,
						  &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "invariant", &inv), 0);
	launch_cases(env, inv, "group-invariant");

	/* The checks refuse only what wraps: small launches run. */
	test_launch_wait(env, k, &one);
	test_launch_wait(env, inv, &one);

	accel_kernel_unref(inv);
	accel_program_unref(prog);
	accel_kernel_unref(k);
	accel_buffer_unref(ids);
	accel_buffer_unref(hits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_transfers, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_buffers, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_launch, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("hostile-sizes", tests);
}
