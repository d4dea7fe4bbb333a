/* SPDX-License-Identifier: MIT */
/*
 * Private memory through the OpenCL ICD: CL_KERNEL_PRIVATE_MEM_SIZE is
 * what the compiler measured, a kernel whose __private arrays outgrow a
 * worker thread's stack runs (its work-groups get a stack that fits),
 * one beyond the device's limit is refused at enqueue with
 * CL_OUT_OF_RESOURCES, work-items run as fibers get stacks of their
 * size, and recursion fails the build.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

/* 16 MiB of __private int: twice a worker thread's stack */
static const char big_src[] =
	"#define N (4 << 20)\n"
	"kernel void big(global int *out, int seed)\n"
	"{\n"
	"	int a[N];\n"
	"	int i = get_global_id(0);\n"
	"	for (int k = 0; k < N; k++)\n"
	"		a[k] = k ^ seed;\n"
	"	/* read back from far apart, so the array must exist */\n"
	"	out[i] = a[(i * 524287) & (N - 1)] + a[N - 1 - i];\n"
	"}\n"
	"kernel void small(global int *out)\n"
	"{\n"
	"	out[get_global_id(0)] = 1;\n"
	"}\n";

static int big_expect(int i, int seed)
{
	const int n = 4 << 20;

	return (((i * 524287) & (n - 1)) ^ seed) + ((n - 1 - i) ^ seed);
}

static cl_ulong private_mem(struct icd_env *env, cl_kernel k)
{
	cl_ulong v = 0;

	CL_OK(clGetKernelWorkGroupInfo(k, env->device,
				       CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(v),
				       &v, NULL));
	return v;
}

static void test_large_private_array(void **state)
{
	struct icd_env *env = *state;
	const size_t global = 8, local = 1;
	const int seed = 0x5a5;
	cl_program p;
	cl_kernel big, small;
	cl_mem out;
	cl_int err, got[8];

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, big_src, NULL);
	big = clCreateKernel(p, "big", &err);
	CL_OK(err);
	small = clCreateKernel(p, "small", &err);
	CL_OK(err);
	/* the measured frames: the array, and a small kernel's few bytes */
	assert_true(private_mem(env, big) >= (16u << 20));
	assert_true(private_mem(env, big) < (16u << 20) + (64u << 10));
	assert_true(private_mem(env, small) > 0);
	assert_true(private_mem(env, small) < (64u << 10));

	out = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(got), NULL,
			     &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(big, 0, sizeof(out), &out));
	CL_OK(clSetKernelArg(big, 1, sizeof(seed), &seed));
	/* two launches: stacks of that size are made again or reused */
	for (int round = 0; round < 2; round++) {
		memset(got, 0, sizeof(got));
		CL_OK(clEnqueueNDRangeKernel(env->queue, big, 1, NULL, &global,
					     &local, 0, NULL, NULL));
		CL_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0,
					  sizeof(got), got, 0, NULL, NULL));
		for (int i = 0; i < 8; i++)
			assert_int_equal(got[i], big_expect(i, seed));
	}
	clReleaseMemObject(out);
	clReleaseKernel(small);
	clReleaseKernel(big);
	clReleaseProgram(p);
}

/* 2 GiB of __private memory: beyond what the device gives a group */
static const char huge_src[] =
	"kernel void huge(global int *out, int n)\n"
	"{\n"
	"	int a[1 << 29];\n"
	"	for (int k = 0; k < n; k++)\n"
	"		a[k * 4099] = k;\n"
	"	out[0] = a[n * 4099 / 2];\n"
	"}\n";

static void test_beyond_limit(void **state)
{
	struct icd_env *env = *state;
	const size_t global = 1;
	cl_program p;
	cl_kernel k;
	cl_mem out;
	cl_int err, n = 4;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, huge_src, NULL);
	k = clCreateKernel(p, "huge", &err);
	CL_OK(err);
	assert_true(private_mem(env, k) >= (2ull << 30));
	out = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(out), &out));
	CL_OK(clSetKernelArg(k, 1, sizeof(n), &n));
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, k, 1, NULL,
						&global, NULL, 0, NULL, NULL),
			 CL_OUT_OF_RESOURCES);
	CL_OK(clFinish(env->queue));
	clReleaseMemObject(out);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

/*
 * More barriers than the compiler turns into regions: work-items run as
 * fibers, each on a stack of its own, which must hold 512 KiB here (the
 * fibers' default is 128 KiB).
 */
static char *fiber_source(void)
{
	size_t cap = 64 << 10, len = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len,
		"kernel void fib(global int *out, local int *t)\n"
		"{\n"
		"	int a[128 << 10];\n"
		"	int l = get_local_id(0), n = get_local_size(0);\n"
		"	for (int k = 0; k < (128 << 10); k++)\n"
		"		a[k] = k + l;\n"
		"	t[l] = a[l * 1000];\n");
	for (int b = 0; b < 80; b++)
		len += (size_t)snprintf(s + len, cap - len,
			"	barrier(CLK_LOCAL_MEM_FENCE);\n"
			"	a[%d] += t[(l + 1) %% n];\n"
			"	barrier(CLK_LOCAL_MEM_FENCE);\n"
			"	t[l] = a[%d];\n", b * 997, b * 997);
	snprintf(s + len, cap - len,
		 "	out[get_global_id(0)] = t[l] + a[(128 << 10) - 1];\n"
		 "}\n");
	return s;
}

static void test_fiber_stacks(void **state)
{
	struct icd_env *env = *state;
	const size_t global = 8, local = 4;
	char *src;
	cl_program p;
	cl_kernel k;
	cl_mem out;
	cl_int err, got[8], t[4], a[4][80];

	if (!icd_test_have_compiler(env))
		skip();
	src = fiber_source();
	p = icd_test_build(env, src, NULL);
	free(src);
	k = clCreateKernel(p, "fib", &err);
	CL_OK(err);
	assert_true(private_mem(env, k) >= (512u << 10));
	out = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(got), NULL,
			     &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(out), &out));
	CL_OK(clSetKernelArg(k, 1, 4 * sizeof(cl_int), NULL));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
				     0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got),
				  got, 0, NULL, NULL));
	/* the same steps on the host, one group of 4 (both groups agree) */
	for (int l = 0; l < 4; l++)
		t[l] = l * 1000 + l;
	for (int b = 0; b < 80; b++) {
		int nt[4];

		for (int l = 0; l < 4; l++)
			a[l][b] = b * 997 + l + t[(l + 1) % 4];
		for (int l = 0; l < 4; l++)
			nt[l] = a[l][b];
		memcpy(t, nt, sizeof(t));
	}
	for (int i = 0; i < 8; i++)
		assert_int_equal(got[i], t[i % 4] + (128 << 10) - 1 + i % 4);
	clReleaseMemObject(out);
	clReleaseKernel(k);
	clReleaseProgram(p);
}

static void test_recursion_refused(void **state)
{
	static const char *src =
		"int depth(int n) { return n ? depth(n - 1) + 1 : 0; }\n"
		"kernel void k(global int *out, int n) { out[0] = depth(n); }\n";
	struct icd_env *env = *state;
	cl_program p;
	cl_int err;
	char log[4096];

	if (!icd_test_have_compiler(env))
		skip();
	p = clCreateProgramWithSource(env->ctx, 1, &src, NULL, &err);
	CL_OK(err);
	assert_int_equal(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL),
			 CL_BUILD_PROGRAM_FAILURE);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
				    sizeof(log), log, NULL));
	assert_non_null(strstr(log, "'depth' calls itself"));
	assert_non_null(strstr(log, "recursion"));
	clReleaseProgram(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_large_private_array,
						icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_beyond_limit,
						icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_fiber_stacks,
						icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_recursion_refused,
						icd_env_setup,
						icd_env_teardown),
	};

	return ICD_TEST_RUN("icd-private-mem", tests);
}
