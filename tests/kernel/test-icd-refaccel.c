/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL view of refaccel, through the real loader with only our ICD
 * (OCL_ICD_VENDORS): one platform with two devices, the CPU reference
 * device and refaccel as CL_DEVICE_TYPE_ACCELERATOR; its engine runs the
 * built-in kernels copy_u8 and fill_u32 and buffer copies and fills; a
 * source program cannot be built for it. Exits 77 where refaccel is not
 * loaded (outside the VM tier).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <CL/cl.h>

#define N 4096u /* words */

#define CL_OK(call) assert_int_equal((call), CL_SUCCESS)

static cl_platform_id platform;
static cl_device_id acc;

/* The accelerator of the only platform, or 0 if there is none. */
static cl_uint find_devices(void)
{
	cl_uint n = 0;

	if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0)
		return 0;
	if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ACCELERATOR, 1, &acc,
			   &n) != CL_SUCCESS)
		return 0;
	return n;
}

static void test_devices(void **state)
{
	cl_device_id devs[4];
	cl_device_type types = 0, t;
	cl_uint n = 0, i, nplat = 0;
	cl_bool compiler = CL_TRUE;
	char s[256];

	(void)state;
	CL_OK(clGetPlatformIDs(0, NULL, &nplat));
	assert_int_equal(nplat, 1);
	CL_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 4, devs, &n));
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		CL_OK(clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof(t), &t,
				      NULL));
		types |= t;
	}
	assert_true(types & CL_DEVICE_TYPE_CPU);
	assert_true(types & CL_DEVICE_TYPE_ACCELERATOR);
	CL_OK(clGetDeviceInfo(acc, CL_DEVICE_BUILT_IN_KERNELS, sizeof(s), s,
			      NULL));
	assert_string_equal(s, "copy_u8;fill_u32");
	CL_OK(clGetDeviceInfo(acc, CL_DEVICE_COMPILER_AVAILABLE,
			      sizeof(compiler), &compiler, NULL));
	assert_int_equal(compiler, CL_FALSE);
}

static void expect(cl_command_queue q, cl_mem m, size_t first, size_t n,
		   cl_uint v)
{
	static cl_uint tmp[N];
	size_t i;

	CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(tmp), tmp, 0, NULL,
				  NULL));
	for (i = first; i < first + n; i++)
		if (tmp[i] != v)
			fail_msg("word %zu: 0x%08x, want 0x%08x", i, tmp[i], v);
}

static void test_built_ins(void **state)
{
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &acc, NULL, NULL, &err);
	cl_command_queue q;
	cl_program prog, src;
	cl_kernel fill, copy;
	cl_mem a, b;
	cl_uint v = 0xfeedf00d, z = 0;
	size_t off = 100, size = 1000, bytes = N * 4;
	const char *text = "kernel void k(global int *p) { p[0] = 1; }";

	(void)state;
	CL_OK(err);
	q = clCreateCommandQueueWithProperties(ctx, acc, NULL, &err);
	CL_OK(err);
	a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CL_OK(err);
	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CL_OK(err);
	CL_OK(clEnqueueFillBuffer(q, a, &z, 4, 0, bytes, 0, NULL, NULL));

	prog = clCreateProgramWithBuiltInKernels(ctx, 1, &acc,
						 "fill_u32;copy_u8", &err);
	CL_OK(err);
	fill = clCreateKernel(prog, "fill_u32", &err);
	CL_OK(err);
	copy = clCreateKernel(prog, "copy_u8", &err);
	CL_OK(err);

	CL_OK(clSetKernelArg(fill, 0, sizeof(a), &a));
	CL_OK(clSetKernelArg(fill, 1, sizeof(v), &v));
	CL_OK(clEnqueueNDRangeKernel(q, fill, 1, &off, &size, NULL, 0, NULL,
				     NULL));
	CL_OK(clSetKernelArg(copy, 0, sizeof(b), &b));
	CL_OK(clSetKernelArg(copy, 1, sizeof(a), &a));
	CL_OK(clEnqueueNDRangeKernel(q, copy, 1, NULL, &bytes, NULL, 0, NULL,
				     NULL));
	expect(q, b, 0, off, 0);
	expect(q, b, off, size, v);
	expect(q, b, off + size, N - off - size, 0);

	/* Buffer commands run on the engine too. */
	CL_OK(clEnqueueCopyBuffer(q, b, a, 400, 0, 400, 0, NULL, NULL));
	expect(q, a, 0, 100, v);
	CL_OK(clFinish(q));

	/* No compiler: the build fails as the specification says. */
	src = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
	CL_OK(err);
	assert_int_equal(clBuildProgram(src, 1, &acc, NULL, NULL, NULL),
			 CL_COMPILER_NOT_AVAILABLE);

	clReleaseProgram(src);
	clReleaseKernel(fill);
	clReleaseKernel(copy);
	clReleaseProgram(prog);
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_built_ins),
	};

	if (!find_devices()) {
		printf("SKIP: no OpenCL accelerator (refaccel not loaded)\n");
		return 77;
	}
	return cmocka_run_group_tests_name("icd-refaccel", tests, NULL, NULL);
}
