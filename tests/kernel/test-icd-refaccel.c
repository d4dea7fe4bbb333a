/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL view of refaccel, through the real loader with only our ICD
 * (OCL_ICD_VENDORS): one platform with two devices, the CPU reference
 * device and refaccel as CL_DEVICE_TYPE_ACCELERATOR; its engine runs the
 * built-in kernels copy_u8, fill_u32 and factorial_u32 and buffer copies
 * and fills; a
 * source program cannot be built for it. A context with both devices
 * shares its buffers: an OpenCL C kernel on the CPU and refaccel's
 * built-ins work on one cl_mem, whichever device the context lists first.
 * Exits 77 where refaccel is not loaded (outside the VM tier).
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
static cl_device_id acc, cpu;

/* The accelerator of the only platform, or 0 if there is none. */
static cl_uint find_devices(void)
{
	cl_uint n = 0;

	if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0)
		return 0;
	if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ACCELERATOR, 1, &acc,
			   &n) != CL_SUCCESS)
		return 0;
	if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &cpu, NULL) !=
	    CL_SUCCESS)
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
	assert_string_equal(s, "copy_u8;fill_u32;factorial_u32");
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

/*
 * factorial_u32(dst, src): each word's factorial modulo 2^32 (0! = 1,
 * 13! wrapped, 0 from 34 on), out of place over part of the ids, then in
 * place with one cl_mem as both arguments.
 */
static void test_built_in_factorial(void **state)
{
	static const cl_uint w[] = { 0, 1, 12, 13, 33, 34, 0xffffffff };
	static const cl_uint f[] = { 1, 1, 479001600, 1932053504, 0x80000000,
				     0, 0 };
	const size_t n = sizeof(w) / sizeof(w[0]), off = 8;
	cl_uint got[sizeof(w) / sizeof(w[0])], v = 0x5a5a5a5a;
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &acc, NULL, NULL, &err);
	cl_command_queue q;
	cl_program prog;
	cl_kernel k;
	cl_mem a, b;
	size_t i;

	(void)state;
	CL_OK(err);
	q = clCreateCommandQueueWithProperties(ctx, acc, NULL, &err);
	CL_OK(err);
	a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
	CL_OK(err);
	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
	CL_OK(err);
	CL_OK(clEnqueueFillBuffer(q, b, &v, 4, 0, N * 4, 0, NULL, NULL));
	CL_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, off * 4, sizeof(w), w, 0,
				   NULL, NULL));
	prog = clCreateProgramWithBuiltInKernels(ctx, 1, &acc,
						 "factorial_u32", &err);
	CL_OK(err);
	k = clCreateKernel(prog, "factorial_u32", &err);
	CL_OK(err);

	CL_OK(clSetKernelArg(k, 0, sizeof(b), &b));
	CL_OK(clSetKernelArg(k, 1, sizeof(a), &a));
	CL_OK(clEnqueueNDRangeKernel(q, k, 1, &off, &n, NULL, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(q, b, CL_TRUE, off * 4, sizeof(got), got, 0,
				  NULL, NULL));
	for (i = 0; i < n; i++)
		if (got[i] != f[i])
			fail_msg("b[%zu] (%u!): 0x%08x, want 0x%08x", off + i,
				 w[i], got[i], f[i]);
	expect(q, b, 0, off, v);
	expect(q, b, off + n, N - off - n, v);

	CL_OK(clSetKernelArg(k, 0, sizeof(a), &a));
	CL_OK(clEnqueueNDRangeKernel(q, k, 1, &off, &n, NULL, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(q, a, CL_TRUE, off * 4, sizeof(got), got, 0,
				  NULL, NULL));
	for (i = 0; i < n; i++)
		if (got[i] != f[i])
			fail_msg("a[%zu] (%u!): 0x%08x, want 0x%08x", off + i,
				 w[i], got[i], f[i]);

	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
}

/*
 * One cl_mem on both devices of a context made with @devs (the first is
 * the buffer's home): the CPU writes it with an OpenCL C kernel, refaccel
 * fills part of it and of a sub-buffer and copies it, each device reads
 * what the other wrote. Events order the two queues.
 */
static void shared_buffer(const cl_device_id devs[2])
{
	static const char *text =
		"kernel void iota(global uint *p)\n"
		"{ size_t i = get_global_id(0); p[i] = (uint)i * 3u; }\n";
	static cl_uint out[N];
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
	cl_command_queue qc, qa;
	cl_program src, bi;
	cl_kernel iota, fill, copy;
	cl_mem a, b, sub;
	cl_event e[4];
	cl_buffer_region region = { .origin = 1024, .size = 256 };
	cl_uint v = 0xa5a5f00d, w = 0x12345678;
	size_t off = 100, size = 200, words = N, bytes = N * 4, i;

	CL_OK(err);
	qc = clCreateCommandQueueWithProperties(ctx, cpu, NULL, &err);
	CL_OK(err);
	qa = clCreateCommandQueueWithProperties(ctx, acc, NULL, &err);
	CL_OK(err);
	a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CL_OK(err);
	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CL_OK(err);
	sub = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &region,
				&err);
	CL_OK(err);

	src = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
	CL_OK(err);
	CL_OK(clBuildProgram(src, 1, &cpu, NULL, NULL, NULL));
	iota = clCreateKernel(src, "iota", &err);
	CL_OK(err);
	bi = clCreateProgramWithBuiltInKernels(ctx, 1, &acc,
					       "fill_u32;copy_u8", &err);
	CL_OK(err);
	fill = clCreateKernel(bi, "fill_u32", &err);
	CL_OK(err);
	copy = clCreateKernel(bi, "copy_u8", &err);
	CL_OK(err);

	/* CPU: a[i] = 3i; refaccel: a[off, off + size) = v, then b = a */
	CL_OK(clSetKernelArg(iota, 0, sizeof(a), &a));
	CL_OK(clEnqueueNDRangeKernel(qc, iota, 1, NULL, &words, NULL, 0, NULL,
				     &e[0]));
	CL_OK(clSetKernelArg(fill, 0, sizeof(a), &a));
	CL_OK(clSetKernelArg(fill, 1, sizeof(v), &v));
	CL_OK(clEnqueueNDRangeKernel(qa, fill, 1, &off, &size, NULL, 1, &e[0],
				     &e[1]));
	CL_OK(clSetKernelArg(copy, 0, sizeof(b), &b));
	CL_OK(clSetKernelArg(copy, 1, sizeof(a), &a));
	CL_OK(clEnqueueNDRangeKernel(qa, copy, 1, NULL, &bytes, NULL, 1, &e[1],
				     &e[2]));
	CL_OK(clEnqueueReadBuffer(qc, b, CL_TRUE, 0, bytes, out, 1, &e[2],
				  NULL));
	for (i = 0; i < N; i++) {
		cl_uint want = i >= off && i < off + size ? v : (cl_uint)i * 3;

		if (out[i] != want)
			fail_msg("b[%zu]: %08x, want %08x", i, out[i], want);
	}

	/* refaccel fills the sub-buffer; the CPU copies a to b and reads */
	words = region.size / 4;
	CL_OK(clSetKernelArg(fill, 0, sizeof(sub), &sub));
	CL_OK(clSetKernelArg(fill, 1, sizeof(w), &w));
	CL_OK(clEnqueueNDRangeKernel(qa, fill, 1, NULL, &words, NULL, 0, NULL,
				     &e[3]));
	CL_OK(clEnqueueCopyBuffer(qc, a, b, 0, 0, bytes, 1, &e[3], NULL));
	CL_OK(clEnqueueReadBuffer(qc, b, CL_TRUE, 0, bytes, out, 0, NULL,
				  NULL));
	for (i = 0; i < N; i++) {
		cl_uint want = i >= off && i < off + size ? v : (cl_uint)i * 3;

		if (i >= region.origin / 4 &&
		    i < (region.origin + region.size) / 4)
			want = w;
		if (out[i] != want)
			fail_msg("a[%zu]: %08x, want %08x", i, out[i], want);
	}
	/* and refaccel's queue reads what the CPU's wrote */
	expect(qa, b, region.origin / 4, region.size / 4, w);
	CL_OK(clFinish(qa));
	CL_OK(clFinish(qc));

	for (i = 0; i < 4; i++)
		clReleaseEvent(e[i]);
	clReleaseKernel(iota);
	clReleaseKernel(fill);
	clReleaseKernel(copy);
	clReleaseProgram(src);
	clReleaseProgram(bi);
	clReleaseMemObject(sub);
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseCommandQueue(qc);
	clReleaseCommandQueue(qa);
	clReleaseContext(ctx);
}

static void test_shared_cpu_home(void **state)
{
	const cl_device_id devs[2] = { cpu, acc };

	(void)state;
	shared_buffer(devs);
}

static void test_shared_acc_home(void **state)
{
	const cl_device_id devs[2] = { acc, cpu };

	(void)state;
	shared_buffer(devs);
}

/* Host memory of the CPU's: refaccel cannot reach it. */
static void test_unshared_host_ptr(void **state)
{
	static cl_uint host[1024];
	const cl_device_id devs[2] = { cpu, acc };
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
	cl_command_queue qa;
	cl_program bi;
	cl_kernel fill;
	cl_mem m;
	cl_uint v = 1;

	(void)state;
	CL_OK(err);
	qa = clCreateCommandQueueWithProperties(ctx, acc, NULL, &err);
	CL_OK(err);
	m = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(host), host, &err);
	CL_OK(err);
	bi = clCreateProgramWithBuiltInKernels(ctx, 1, &acc, "fill_u32", &err);
	CL_OK(err);
	fill = clCreateKernel(bi, "fill_u32", &err);
	CL_OK(err);
	assert_int_equal(clEnqueueWriteBuffer(qa, m, CL_TRUE, 0, 4, &v, 0,
					      NULL, NULL),
			 CL_MEM_OBJECT_ALLOCATION_FAILURE);
	assert_int_equal(clSetKernelArg(fill, 0, sizeof(m), &m),
			 CL_INVALID_MEM_OBJECT);
	clReleaseKernel(fill);
	clReleaseProgram(bi);
	clReleaseMemObject(m);
	clReleaseCommandQueue(qa);
	clReleaseContext(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_built_ins),
		cmocka_unit_test(test_built_in_factorial),
		cmocka_unit_test(test_shared_cpu_home),
		cmocka_unit_test(test_shared_acc_home),
		cmocka_unit_test(test_unshared_host_ptr),
	};

	if (!find_devices()) {
		printf("SKIP: no OpenCL accelerator (refaccel not loaded)\n");
		return 77;
	}
	return cmocka_run_group_tests_name("icd-refaccel", tests, NULL, NULL);
}
