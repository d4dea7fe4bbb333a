/* SPDX-License-Identifier: MIT */
/*
 * Atomics under contention: many work-groups (run by several worker
 * threads) hit the same global words with the OpenCL 1.x atomic_* and
 * atom_* (64-bit) functions and the OpenCL 2.0/3.0 atomic_*_explicit,
 * compare-exchange loops and an atomic_flag spin lock around a plain
 * counter; __local atomics per group. The totals are exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_ITEMS (64 * 1024)
#define LOCAL 64

static const char src1[] =
	"#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
	"kernel void a1(volatile global int *g, volatile global long *g64,\n"
	"		volatile local int *l, global int *out)\n"
	"{\n"
	"	int i = (int)get_global_id(0), old, seen;\n"
	"	if (get_local_id(0) == 0)\n"
	"		l[0] = l[1] = 0;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	atomic_add(&g[0], 1);\n"
	"	atomic_inc(&g[1]);\n"
	"	atomic_sub(&g[2], 1);\n"
	"	atomic_max(&g[3], i);\n"
	"	atomic_min(&g[4], -i);\n"
	"	atomic_or(&g[5], 1 << (i % 32));\n"
	"	atomic_xor(&g[6], i);\n"
	"	atomic_and(&g[7], ~(1 << (i % 32)));\n"
	"	old = g[8];\n"
	"	while ((seen = atomic_cmpxchg(&g[8], old, old + 1)) != old)\n"
	"		old = seen;\n"
	"	atomic_dec(&g[9]);\n"
	"	atomic_xchg(&g[10], i);\n"
	"	atom_add(&g64[0], 1L << 33);\n"
	"	atom_max(&g64[1], (long)i << 32);\n"
	"	atom_inc(&g64[2]);\n"
	"	atom_xor(&g64[3], (long)i << 20);\n"
	"	atom_cmpxchg(&g64[4], 0, (long)i + 1);\n"
	"	atomic_add(&l[0], 2);\n"
	"	atom_inc(&l[1]);\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (get_local_id(0) == 0)\n"
	"		out[get_group_id(0)] = l[0] + (l[1] << 16);\n"
	"}\n";

static const char src2[] =
	"kernel void a2(global atomic_int *g, global atomic_long *g64,\n"
	"		global atomic_flag *flag, global int *plain,\n"
	"		global atomic_float *gf, global int *out)\n"
	"{\n"
	"	local atomic_int l;\n"
	"	int i = (int)get_global_id(0), e;\n"
	"	long e64;\n"
	"	if (get_local_id(0) == 0)\n"
	"		atomic_init(&l, 0);\n"
	"	work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	atomic_fetch_add(&g[0], 1);\n"
	"	atomic_fetch_add_explicit(&g[1], 3, memory_order_relaxed,\n"
	"				  memory_scope_device);\n"
	"	atomic_fetch_sub_explicit(&g[2], 1, memory_order_acq_rel);\n"
	"	atomic_fetch_max(&g[3], i);\n"
	"	atomic_fetch_min_explicit(&g[4], -i, memory_order_seq_cst,\n"
	"				  memory_scope_all_devices);\n"
	"	atomic_fetch_or(&g[5], 1 << (i % 32));\n"
	"	atomic_fetch_xor(&g[6], i);\n"
	"	atomic_fetch_and(&g[7], ~(1 << (i % 32)));\n"
	"	e = atomic_load(&g[8]);\n"
	"	while (!atomic_compare_exchange_weak(&g[8], &e, e + 1))\n"
	"		;\n"
	"	e = atomic_load_explicit(&g[9], memory_order_acquire);\n"
	"	while (!atomic_compare_exchange_strong_explicit(&g[9], &e,\n"
	"			e + 2, memory_order_acq_rel,\n"
	"			memory_order_relaxed, memory_scope_device))\n"
	"		;\n"
	"	atomic_exchange(&g[10], i);\n"
	"	atomic_fetch_add(&g64[0], 1L << 33);\n"
	"	atomic_fetch_max_explicit(&g64[1], (long)i << 32,\n"
	"				  memory_order_relaxed);\n"
	"	e64 = atomic_load(&g64[2]);\n"
	"	while (!atomic_compare_exchange_strong(&g64[2], &e64, e64 - 1))\n"
	"		;\n"
	"	/* a spin lock around a plain read-modify-write */\n"
	"	while (atomic_flag_test_and_set_explicit(flag,\n"
	"			memory_order_acquire, memory_scope_device))\n"
	"		;\n"
	"	plain[0] = plain[0] + 1;\n"
	"	atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE,\n"
	"			       memory_order_release, memory_scope_device);\n"
	"	atomic_flag_clear_explicit(flag, memory_order_release);\n"
	"	{\n"
	"		float f = atomic_load(gf);\n"
	"		while (!atomic_compare_exchange_weak(gf, &f, f + 1.0f))\n"
	"			;\n"
	"	}\n"
	"	atomic_fetch_add_explicit(&l, 1, memory_order_relaxed,\n"
	"				  memory_scope_work_group);\n"
	"	work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (get_local_id(0) == 0) {\n"
	"		out[get_group_id(0)] = atomic_load(&l);\n"
	"		atomic_store(&l, 0);\n"
	"	}\n"
	"}\n";

static void check_common(const int32_t *g, const int64_t *g64, int n,
			 int add1)
{
	int32_t x = 0;

	for (int i = 0; i < n; i++)
		x ^= i;
	assert_int_equal(g[0], n);
	assert_int_equal(g[1], n * add1);
	assert_int_equal(g[2], -n);
	assert_int_equal(g[3], n - 1);
	assert_int_equal(g[4], -(n - 1));
	assert_int_equal((uint32_t)g[5], 0xffffffffu);
	assert_int_equal(g[6], x);
	assert_int_equal(g[7], 0);
	assert_int_equal(g[8], n);
	assert_true(g[10] >= 0 && g[10] < n);
	assert_true(g64[0] == (int64_t)n << 33);
	assert_true(g64[1] == (int64_t)(n - 1) << 32);
}

static void test_atomics_1x(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src1, "-cl-std=CL1.2");
	int32_t g[11] = { 0, 0, 0, -1, 1, 0, 0, -1, 0, 0, -1 };
	int64_t g64[5] = { 0, -1, 0, 0, 0 }, x64 = 0;
	int32_t out[N_ITEMS / LOCAL];
	struct accel_buffer *bg = ct_buffer(env, sizeof(g), g);
	struct accel_buffer *bg64 = ct_buffer(env, sizeof(g64), g64);
	struct accel_buffer *bo = ct_buffer(env, sizeof(out), NULL);

	CT_RUN(env, prog, "a1", N_ITEMS, LOCAL, CT_BUF(bg), CT_BUF(bg64),
	       CT_LOCAL(8), CT_BUF(bo));
	test_read(env, bg, 0, sizeof(g), g);
	test_read(env, bg64, 0, sizeof(g64), g64);
	test_read(env, bo, 0, sizeof(out), out);
	check_common(g, g64, N_ITEMS, 1);
	assert_int_equal(g[9], -N_ITEMS);
	assert_true(g64[2] == N_ITEMS);
	for (int i = 0; i < N_ITEMS; i++)
		x64 ^= (int64_t)i << 20;
	assert_true(g64[3] == x64);
	assert_true(g64[4] >= 1 && g64[4] <= N_ITEMS);
	for (unsigned i = 0; i < N_ITEMS / LOCAL; i++)
		assert_int_equal(out[i], 2 * LOCAL + (LOCAL << 16));
	accel_buffer_unref(bg);
	accel_buffer_unref(bg64);
	accel_buffer_unref(bo);
	accel_program_unref(prog);
}

static void test_atomics_20(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src2, "-cl-std=CL3.0");
	int32_t g[11] = { 0, 0, 0, -1, 1, 0, 0, -1, 0, 0, -1 };
	int64_t g64[3] = { 0, -1, 0 };
	int32_t flag = 0, plain = 0, out[N_ITEMS / LOCAL];
	float gf = 0;
	struct accel_buffer *bg = ct_buffer(env, sizeof(g), g);
	struct accel_buffer *bg64 = ct_buffer(env, sizeof(g64), g64);
	struct accel_buffer *bfl = ct_buffer(env, 4, &flag);
	struct accel_buffer *bp = ct_buffer(env, 4, &plain);
	struct accel_buffer *bf = ct_buffer(env, 4, &gf);
	struct accel_buffer *bo = ct_buffer(env, sizeof(out), NULL);

	CT_RUN(env, prog, "a2", N_ITEMS, LOCAL, CT_BUF(bg), CT_BUF(bg64),
	       CT_BUF(bfl), CT_BUF(bp), CT_BUF(bf), CT_BUF(bo));
	test_read(env, bg, 0, sizeof(g), g);
	test_read(env, bg64, 0, sizeof(g64), g64);
	test_read(env, bp, 0, 4, &plain);
	test_read(env, bfl, 0, 4, &flag);
	test_read(env, bf, 0, 4, &gf);
	test_read(env, bo, 0, sizeof(out), out);
	check_common(g, g64, N_ITEMS, 3);
	assert_int_equal(g[9], 2 * N_ITEMS);
	assert_true(g64[2] == -N_ITEMS);
	assert_int_equal(plain, N_ITEMS);
	assert_int_equal(flag, 0);
	assert_true(gf == (float)N_ITEMS); /* exact: below 2^24 */
	for (unsigned i = 0; i < N_ITEMS / LOCAL; i++)
		assert_int_equal(out[i], LOCAL);
	accel_buffer_unref(bg);
	accel_buffer_unref(bg64);
	accel_buffer_unref(bfl);
	accel_buffer_unref(bp);
	accel_buffer_unref(bf);
	accel_buffer_unref(bo);
	accel_program_unref(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_atomics_1x, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_atomics_20, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-atomics", tests);
}
