/* SPDX-License-Identifier: MIT */
/*
 * Independent forward progress of sub-groups (cl_khr_subgroups): the
 * first lane of each sub-group waits in a loop until the sub-groups after
 * it have gone, the last one first, spinning on an atomic add, a C11
 * atomic load, a volatile load and helper functions' results (a load,
 * a comparison with a branch in it), in groups of 1 to 64 work-items and
 * 256, while the other lanes wait for it in a sub-group function. A
 * compare-exchange loop that computes what it stores (an atomic float
 * add) keeps its work-item loops.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_WAITS 5

static const char src[] =
	"#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"
	"int flag_of(local atomic_int *f)\n"
	"{\n"
	"	return atomic_load_explicit(f, memory_order_acquire);\n"
	"}\n"
	"bool reached(local atomic_int *f, int want)\n"
	"{\n"
	"	if (flag_of(f) == want)\n"
	"		return true;\n"
	"	return false;\n"
	"}\n"
	/* the sub-group s goes once the flag reaches n - 1 - s */
	"#define RELAY(NAME, WAIT) \\\n"
	"kernel void NAME(global int *order, global int *size) \\\n"
	"{ \\\n"
	"	local atomic_int flag, ticket; \\\n"
	"	uint n = get_num_sub_groups(), s = get_sub_group_id(); \\\n"
	"	int want = (int)(n - 1 - s); \\\n"
	"	if (get_local_id(0) == 0) { \\\n"
	"		atomic_init(&flag, 0); \\\n"
	"		atomic_init(&ticket, 0); \\\n"
	"	} \\\n"
	"	barrier(CLK_LOCAL_MEM_FENCE); \\\n"
	"	if (get_sub_group_local_id() == 0) { \\\n"
	"		WAIT; \\\n"
	"		order[get_group_id(0) * n + s] = \\\n"
	"			atomic_fetch_add(&ticket, 1); \\\n"
	"		atomic_fetch_add(&flag, 1); \\\n"
	"	} \\\n"
	"	size[get_global_id(0)] = sub_group_reduce_add(1); \\\n"
	"}\n"
	"RELAY(relay_rmw, while (atomic_fetch_add(&flag, 0) != want))\n"
	"RELAY(relay_load, while (atomic_load_explicit(&flag, \\\n"
	"	memory_order_acquire) != want))\n"
	"RELAY(relay_volatile, while (*(volatile local int *)&flag != want))\n"
	"RELAY(relay_helper, while (flag_of(&flag) != want))\n"
	"RELAY(relay_helper_bool, while (!reached(&flag, want)))\n"
	"kernel void cas_add(global const float *x, global float *sum)\n"
	"{\n"
	"	float v = x[get_global_id(0)];\n"
	"	volatile global uint *p = (volatile global uint *)sum;\n"
	"	uint old, new;\n"
	"	do {\n"
	"		old = *p;\n"
	"		new = as_uint(as_float(old) + v);\n"
	"	} while (atomic_cmpxchg(p, old, new) != old);\n"
	"}\n";

static const char *const names[N_WAITS] = {
	"relay_rmw", "relay_load", "relay_volatile", "relay_helper",
	"relay_helper_bool",
};

static uint64_t per_item(struct accel_program *prog, const char *name)
{
	struct accel_kernel *k;
	uint64_t per = 0;

	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	assert_int_equal(accel_kernel_get_private_mem(k, NULL, &per, NULL),
			 0);
	accel_kernel_unref(k);
	return per;
}

static void test_relay(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	uint32_t w = ct_sub_group_width(prog, "relay_rmw");
	unsigned bad = 0;

	for (int kn = 0; kn < N_WAITS; kn++)
		for (unsigned li = 0; li <= 64; li++) {
			uint64_t l = li < 64 ? li + 1 : 256, groups = 3;
			uint64_t n = (l + w - 1) / w;
			int32_t *order = malloc(groups * n * 4);
			int32_t *size = malloc(groups * l * 4);
			struct accel_buffer *bo, *bs;

			assert_non_null(order);
			assert_non_null(size);
			bo = ct_buffer(env, groups * n * 4, NULL);
			bs = ct_buffer(env, groups * l * 4, NULL);
			CT_RUN(env, prog, names[kn], groups * l, l,
			       CT_BUF(bo), CT_BUF(bs));
			test_read(env, bo, 0, groups * n * 4, order);
			test_read(env, bs, 0, groups * l * 4, size);
			for (uint64_t i = 0; i < groups * l; i++) {
				struct ct_sub_group sg =
					ct_sub_group_of(i, groups * l, l, w);
				int32_t want = (int32_t)sg.size;

				if (size[i] != want && bad++ < 5)
					print_error("%s, group of %llu, item "
						    "%llu: sub-group of %d, "
						    "want %d\n", names[kn],
						    (unsigned long long)l,
						    (unsigned long long)i,
						    size[i], want);
			}
			for (uint64_t i = 0; i < groups * n; i++) {
				int32_t want = (int32_t)(n - 1 - i % n);

				if (order[i] != want && bad++ < 5)
					print_error("%s, group of %llu, "
						    "sub-group %llu: %d, want "
						    "%d\n", names[kn],
						    (unsigned long long)l,
						    (unsigned long long)(i % n),
						    order[i], want);
			}
			accel_buffer_unref(bo);
			accel_buffer_unref(bs);
			free(order);
			free(size);
		}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* An atomic update's loop is not a wait: no fibers, and right. */
static void test_cas_loop(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	uint64_t n = 4096;
	float *x = malloc(n * sizeof(float)), sum = 0, want = 0;
	struct accel_buffer *bx, *bs;

	assert_non_null(x);
	for (uint64_t i = 0; i < n; i++) {
		x[i] = (float)(i % 7);
		want += x[i];
	}
	bx = ct_buffer(env, n * sizeof(float), x);
	bs = ct_buffer(env, sizeof(float), &sum);
	CT_RUN(env, prog, "cas_add", n, 64, CT_BUF(bx), CT_BUF(bs));
	test_read(env, bs, 0, sizeof(float), &sum);
	assert_true(sum == want);
	/* fibers keep a stack per work-item, work-item loops do not */
	assert_true(per_item(prog, "cas_add") < per_item(prog, "relay_rmw"));
	accel_buffer_unref(bx);
	accel_buffer_unref(bs);
	free(x);
	accel_program_unref(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_relay, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_cas_loop, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-subgroup-ifp", tests);
}
