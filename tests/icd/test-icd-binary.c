/* SPDX-License-Identifier: MIT */
/*
 * Program binaries through the ICD loader: an executable's binary carries
 * libaccel's program binary (code, not source), comes back with its
 * kernels (argument kinds, work-group facts) and runs without a compiler
 * pass, but without clGetKernelArgInfo (OpenCL gives it to programs from
 * source only); compiled objects round trip into a link; malformed
 * binaries fail with CL_INVALID_BINARY in binary_status.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

static const char src[] =
	"kernel void scale(global float *x, float f)\n"
	"{\n"
	"	x[get_global_id(0)] *= f;\n"
	"}\n"
	"kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
	"void rev(global int *out, local int *tmp)\n"
	"{\n"
	"	tmp[get_local_id(0)] = (int)get_global_id(0);\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[get_global_id(0)] = tmp[3 - get_local_id(0)];\n"
	"}\n";

/* The ICD's header: magic, format, type, options and payload lengths. */
#define HEADER 32

static unsigned char *get_binary(cl_program p, size_t *size)
{
	unsigned char *bin;

	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size,
			       NULL));
	assert_true(*size > HEADER);
	bin = malloc(*size);
	assert_non_null(bin);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin,
			       NULL));
	return bin;
}

static cl_program from_binary(struct icd_env *env, const unsigned char *bin,
			      size_t size, cl_int *status, cl_int *err)
{
	return clCreateProgramWithBinary(env->ctx, 1, &env->device, &size,
					 &bin, status, err);
}

static void run(struct icd_env *env, cl_program p)
{
	float x[64];
	int out[16];
	float f = 3.0f;
	cl_int err;
	cl_mem bx, bo;
	cl_kernel k;
	size_t g = 64, l = 4, i;

	for (i = 0; i < 64; i++)
		x[i] = (float)i;
	bx = clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, sizeof(x), x,
			    &err);
	CL_OK(err);
	bo = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(out), NULL,
			    &err);
	CL_OK(err);
	k = clCreateKernel(p, "scale", &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(bx), &bx));
	CL_OK(clSetKernelArg(k, 1, sizeof(f), &f));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0,
				     NULL, NULL));
	CL_OK(clReleaseKernel(k));
	k = clCreateKernel(p, "rev", &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(bo), &bo));
	CL_OK(clSetKernelArg(k, 1, 4 * sizeof(int), NULL));
	g = 16;
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &l, 0, NULL,
				     NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, bx, CL_TRUE, 0, sizeof(x), x, 0,
				  NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof(out),
				  out, 0, NULL, NULL));
	for (i = 0; i < 64; i++)
		assert_true(x[i] == 3.0f * (float)i);
	for (i = 0; i < 16; i++)
		assert_int_equal(out[i], (int)((i & ~3u) + 3 - (i & 3)));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseMemObject(bx));
	CL_OK(clReleaseMemObject(bo));
}

static void test_executable(void **state)
{
	struct icd_env *env = *state;
	cl_build_status bs = CL_BUILD_SUCCESS;
	cl_program_binary_type type = 0;
	size_t size, size2, reqd[3], n = 0;
	cl_int status = 1, err = 1;
	unsigned char *bin, *bin2;
	char opts[64], name[32];
	uint32_t opts_len;
	cl_program p, q;
	cl_kernel k;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, "-DUNUSED=1");
	bin = get_binary(p, &size);
	CL_OK(clReleaseProgram(p));
	/* code, not source: libaccel's container after the options */
	memcpy(&opts_len, bin + 16, sizeof(opts_len));
	assert_int_equal(opts_len, strlen("-DUNUSED=1"));
	assert_memory_equal(bin + HEADER + opts_len, "ACCELBIN", 8);
	assert_null(memmem(bin, size, "get_global_id", 13));

	q = from_binary(env, bin, size, &status, &err);
	CL_OK(err);
	CL_OK(status);
	CL_OK(clGetProgramBuildInfo(q, env->device, CL_PROGRAM_BINARY_TYPE,
				    sizeof(type), &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
	CL_OK(clGetProgramBuildInfo(q, env->device, CL_PROGRAM_BUILD_STATUS,
				    sizeof(bs), &bs, NULL));
	assert_int_equal(bs, CL_BUILD_NONE);
	/* the binary is there before the build */
	bin2 = get_binary(q, &size2);
	assert_int_equal(size2, size);
	assert_memory_equal(bin2, bin, size);
	free(bin2);
	assert_null(clCreateKernel(q, "scale", &err));
	assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
	CL_OK(clBuildProgram(q, 0, NULL, NULL, NULL, NULL));
	CL_OK(clGetProgramBuildInfo(q, env->device, CL_PROGRAM_BUILD_OPTIONS,
				    sizeof(opts), opts, NULL));
	assert_string_equal(opts, "-DUNUSED=1");
	CL_OK(clGetProgramInfo(q, CL_PROGRAM_NUM_KERNELS, sizeof(n), &n,
			       NULL));
	assert_int_equal(n, 2);
	run(env, q);

	/* kernel facts came through the binary */
	k = clCreateKernel(q, "rev", &err);
	CL_OK(err);
	CL_OK(clGetKernelWorkGroupInfo(k, env->device,
				       CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
				       sizeof(reqd), reqd, NULL));
	assert_int_equal(reqd[0], 4);
	CL_OK(clSetKernelArg(k, 1, 16, NULL)); /* a local argument */
	assert_int_equal(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME,
					    sizeof(name), name, NULL),
			 CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(q));
	free(bin);
}

/*
 * A binary built with -cl-kernel-arg-info keeps the option, but OpenCL
 * gives argument information to programs from source only.
 */
static void test_executable_arg_info(void **state)
{
	struct icd_env *env = *state;
	cl_kernel_arg_address_qualifier aq = 0;
	cl_int status = 1, err = 1;
	unsigned char *bin;
	char opts[64];
	cl_program p, q;
	cl_kernel k;
	size_t size;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, "-cl-kernel-arg-info");
	k = clCreateKernel(p, "rev", &err);
	CL_OK(err);
	CL_OK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
				 sizeof(aq), &aq, NULL));
	assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_LOCAL);
	CL_OK(clReleaseKernel(k));
	bin = get_binary(p, &size);
	CL_OK(clReleaseProgram(p));

	q = from_binary(env, bin, size, &status, &err);
	CL_OK(err);
	CL_OK(status);
	CL_OK(clBuildProgram(q, 0, NULL, "-cl-kernel-arg-info", NULL, NULL));
	CL_OK(clGetProgramBuildInfo(q, env->device, CL_PROGRAM_BUILD_OPTIONS,
				    sizeof(opts), opts, NULL));
	assert_string_equal(opts, "-cl-kernel-arg-info");
	k = clCreateKernel(q, "rev", &err);
	CL_OK(err);
	assert_int_equal(clGetKernelArgInfo(k, 1,
					    CL_KERNEL_ARG_ADDRESS_QUALIFIER,
					    sizeof(aq), &aq, NULL),
			 CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(q));
	free(bin);
}

static void test_object(void **state)
{
	struct icd_env *env = *state;
	cl_program_binary_type type = 0;
	cl_int status = 1, err = 1;
	unsigned char *bin;
	cl_program p, q, linked;
	size_t size;

	if (!icd_test_have_compiler(env))
		skip();
	p = clCreateProgramWithSource(env->ctx, 1, (const char *[]){ src },
				      NULL, &err);
	CL_OK(err);
	CL_OK(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
	bin = get_binary(p, &size);
	CL_OK(clReleaseProgram(p));
	q = from_binary(env, bin, size, &status, &err);
	CL_OK(err);
	CL_OK(status);
	CL_OK(clGetProgramBuildInfo(q, env->device, CL_PROGRAM_BINARY_TYPE,
				    sizeof(type), &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
	/* an object links; it does not build */
	assert_int_equal(clBuildProgram(q, 0, NULL, NULL, NULL, NULL),
			 CL_INVALID_BINARY);
	linked = clLinkProgram(env->ctx, 0, NULL, NULL, 1, &q, NULL, NULL,
			       &err);
	CL_OK(err);
	run(env, linked);
	CL_OK(clReleaseProgram(linked));
	CL_OK(clReleaseProgram(q));
	free(bin);
}

static void expect_invalid(struct icd_env *env, const unsigned char *bin,
			   size_t size)
{
	cl_int status = CL_SUCCESS, err = CL_SUCCESS;

	assert_null(from_binary(env, bin, size, &status, &err));
	assert_int_equal(err, CL_INVALID_BINARY);
	assert_int_equal(status, CL_INVALID_BINARY);
}

static void test_malformed(void **state)
{
	struct icd_env *env = *state;
	unsigned char *bin, *bad;
	cl_program p;
	size_t size, i;
	cl_int status = 1, err = 1;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, NULL);
	bin = get_binary(p, &size);
	CL_OK(clReleaseProgram(p));
	bad = malloc(size);
	assert_non_null(bad);
	for (i = 1; i < size; i += i < 200 ? 1 : 331)
		expect_invalid(env, bin, i);
	/* the container inside is damaged: its checksum says so */
	memcpy(bad, bin, size);
	bad[size - 200] ^= 0x55;
	expect_invalid(env, bad, size);
	/* the ICD's own header: format, binary type */
	memcpy(bad, bin, size);
	bad[8] = 1;
	expect_invalid(env, bad, size);
	memcpy(bad, bin, size);
	bad[12] = 9;
	expect_invalid(env, bad, size);
	/* the good one still loads */
	p = from_binary(env, bin, size, &status, &err);
	CL_OK(err);
	CL_OK(status);
	CL_OK(clReleaseProgram(p));
	/* NULL and zero-length binaries are CL_INVALID_VALUE */
	size = 0;
	assert_null(from_binary(env, bin, size, &status, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	free(bad);
	free(bin);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_executable),
		T(test_executable_arg_info),
		T(test_object),
		T(test_malformed),
	};
#undef T

	return ICD_TEST_RUN("icd-binary", tests);
}
