/* SPDX-License-Identifier: MIT */
/*
 * Private memory: each kernel's stack need as the code generator laid it
 * out (stack-size.c), calls out of the program included; context arrays
 * counted per work-item; a dynamic alloca flags the need unknown;
 * recursion fails the build; and the frame-size lines LLVM prints stay
 * out of the log.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accelc.h"

/* Build @p text uncached with @p opts; the error, the result, the log. */
static int build(const char *text, const char *opts,
		 struct accelc_result **res)
{
	struct accelc_options o = { .struct_size = sizeof(o) };

	o.flags = ACCELC_FLAG_NO_CACHE;
	o.build_options = opts;
	return accelc_compile(&o, text, strlen(text), res);
}

static const struct accelc_kernel_info *kernel(struct accelc_result *res,
					       const char *name)
{
	const struct accelc_kernel_info *k =
		accelc_result_find_kernel(res, name);

	assert_non_null(k);
	return k;
}

static const char frames_src[] =
	/* user functions are inlined: their arrays join the kernel's frame */
	"int pick(volatile int *a, int i) { return a[(i * 7) % 30000]; }\n"
	"kernel void two(global int *o)\n"
	"{\n"
	"	volatile int a[30000], b[20000];\n"
	"	int i = get_global_id(0);\n"
	"	a[i % 30000] = i;\n"
	"	b[i % 20000] = pick(a, i);\n"
	"	o[i] = a[(i * 3) % 30000] + b[(i * 5) % 20000];\n"
	"}\n"
	"kernel void one(global int *o)\n"
	"{\n"
	"	volatile int a[30000];\n"
	"	int i = get_global_id(0);\n"
	"	a[i % 30000] = i;\n"
	"	o[i] = pick(a, i);\n"
	"}\n"
	"kernel void none(global int *o)\n"
	"{\n"
	"	o[get_global_id(0)] = 1;\n"
	"}\n"
	"kernel void libm(global float *o)\n"
	"{\n"
	"	o[get_global_id(0)] = pow(o[get_global_id(0)], 1.7f);\n"
	"}\n";

static void test_frames(void **state)
{
	struct accelc_result *res = NULL;
	const struct accelc_kernel_info *two, *one, *none, *libm;

	(void)state;
	assert_int_equal(build(frames_src, NULL, &res), 0);
	two = kernel(res, "two");
	one = kernel(res, "one");
	none = kernel(res, "none");
	libm = kernel(res, "libm");
	/* the arrays as laid out, and little more */
	assert_true(two->private_size >= 50000 * 4);
	assert_true(two->private_size < 50000 * 4 + 4096);
	assert_true(one->private_size >= 30000 * 4);
	assert_true(one->private_size < 30000 * 4 + 4096);
	/* a few bytes, never 0: the return address at least */
	assert_true(none->private_size > 0);
	assert_true(none->private_size < 1024);
	/* a call into libm counts its allowance */
	assert_true(libm->private_size > none->private_size + 4096);
	for (uint32_t i = 0; i < accelc_result_get_kernel_count(res); i++) {
		const struct accelc_kernel_info *k =
			accelc_result_get_kernel(res, i);

		assert_false(k->flags & ACCELC_KERNEL_STACK_UNKNOWN);
		assert_int_equal(k->private_per_item, 0);
	}
	/* LLVM prints a line per frame size it reports: not in the log */
	assert_null(strstr(accelc_result_get_log(res), "spills"));
	accelc_result_free(res);
}

/* A value live across a barrier: one context array entry per work-item */
static const char barrier_src[] =
	"kernel void k(global float4 *o, local float *t)\n"
	"{\n"
	"	size_t l = get_local_id(0);\n"
	"	float4 v = o[get_global_id(0)] * 3.0f;\n"
	"	t[l] = v.x;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	o[get_global_id(0)] = v + t[(l + 1) % get_local_size(0)];\n"
	"}\n";

static void test_per_work_item(void **state)
{
	struct accelc_result *res = NULL;
	const struct accelc_kernel_info *k;

	(void)state;
	assert_int_equal(build(barrier_src, NULL, &res), 0);
	k = kernel(res, "k");
	assert_true(k->private_per_item >= 16);
	assert_true(k->private_per_item <= 256);
	assert_false(k->flags & ACCELC_KERNEL_STACK_UNKNOWN);
	accelc_result_free(res);
}

static void test_dynamic_alloca(void **state)
{
	static const char src[] =
		"kernel void k(global int *o, int n)\n"
		"{\n"
		"	char *p = __builtin_alloca(n);\n"
		"	p[n - 1] = 1;\n"
		"	o[0] = p[n / 2];\n"
		"}\n";
	struct accelc_result *res = NULL;

	(void)state;
	assert_int_equal(build(src, "-cl-std=CL2.0", &res), 0);
	assert_true(kernel(res, "k")->flags & ACCELC_KERNEL_STACK_UNKNOWN);
	accelc_result_free(res);
}

static void test_recursion(void **state)
{
	static const char direct[] =
		"int f(int n) { return n ? f(n - 1) + 1 : 0; }\n"
		"kernel void k(global int *o) { o[0] = f(o[1]); }\n";
	static const char mutual[] =
		"int odd(int n);\n"
		"int even(int n) { return n ? odd(n - 1) : 1; }\n"
		"int odd(int n) { return n ? even(n - 1) : 0; }\n"
		"kernel void k(global int *o) { o[0] = even(o[1]); }\n";
	struct accelc_result *res = NULL;
	const char *log;

	(void)state;
	assert_int_equal(build(direct, NULL, &res), -ENOEXEC);
	log = accelc_result_get_log(res);
	assert_non_null(strstr(log, "'f' calls itself"));
	assert_non_null(strstr(log, "does not allow recursion"));
	accelc_result_free(res);
	res = NULL;
	/* through another function, and whatever the optimiser would do */
	assert_int_equal(build(mutual, "-cl-opt-disable", &res), -ENOEXEC);
	assert_non_null(strstr(accelc_result_get_log(res), "calls itself"));
	accelc_result_free(res);
}

/* The container carries the sizes: a binary gives what the build gave. */
static void test_binary_round_trip(void **state)
{
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL, *back = NULL;
	const void *bin = NULL;
	size_t size = 0;

	(void)state;
	assert_int_equal(build(frames_src, NULL, &res), 0);
	assert_int_equal(accelc_result_get_container(res, &bin, &size), 0);
	assert_int_equal(accelc_load_binary(&o, bin, size, &back), 0);
	assert_int_equal(kernel(back, "two")->private_size,
			 kernel(res, "two")->private_size);
	accelc_result_free(back);
	accelc_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_per_work_item),
		cmocka_unit_test(test_dynamic_alloca),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_binary_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
