/* SPDX-License-Identifier: MIT */
/*
 * IL programs through the loader: the SPIR-V modules tests/compiler makes
 * (clang-15 + llvm-spirv-15, spirv-as; CT_SPV_DIR) created with
 * clCreateProgramWithIL and clCreateProgramWithILKHR, built, compiled and
 * linked, specialised with clSetProgramSpecializationConstant, run and
 * checked against the host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

#define N 128u

static void need_il(struct icd_env *env)
{
	size_t n = 0;

#ifdef CT_SPV_MISSING
	(void)env;
	print_message("skipped: %s\n", CT_SPV_MISSING);
	skip();
#endif
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, 0, NULL, &n));
	if (n <= 1) {
		print_message("skipped: the device takes no IL (no "
			      "llvm-spirv-15)\n");
		skip();
	}
}

static void *load(const char *name, size_t *size)
{
	void *data = NULL;
#ifdef CT_SPV_DIR
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", CT_SPV_DIR, name);
	f = fopen(path, "rbe");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 20);
	rewind(f);
	data = malloc((size_t)n);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
#else
	(void)name;
	*size = 0;
#endif
	return data;
}

static void build_ok(struct icd_env *env, cl_program p)
{
	char log[8192] = "";
	cl_int r = clBuildProgram(p, 1, &env->device, NULL, NULL, NULL);

	if (r != CL_SUCCESS) {
		clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
				      sizeof(log), log, NULL);
		print_error("build: %d\n%s\n", r, log);
		fail();
	}
}

/* "scale" of spec.spv: out[i] = in[i] * K + (B ? 1000 : 0) + (uint)L,
 * L left at 0 */
static void run_scale(struct icd_env *env, cl_program p, int k, bool b)
{
	cl_int in[N], out[N], err;
	size_t global = N;
	cl_mem bi, bo;
	cl_kernel kern;

	for (unsigned i = 0; i < N; i++)
		in[i] = (cl_int)i * 3 - 50;
	kern = clCreateKernel(p, "scale", &err);
	CL_OK(err);
	bi = clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, sizeof(in), in,
			    &err);
	CL_OK(err);
	bo = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(out), NULL,
			    &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(kern, 0, sizeof(bo), &bo));
	CL_OK(clSetKernelArg(kern, 1, sizeof(bi), &bi));
	CL_OK(clEnqueueNDRangeKernel(env->queue, kern, 1, NULL, &global, NULL,
				     0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(out[i], in[i] * k + (b ? 1000 : 0));
	CL_OK(clReleaseMemObject(bi));
	CL_OK(clReleaseMemObject(bo));
	CL_OK(clReleaseKernel(kern));
}

static void il_spec_constants(void **state)
{
	struct icd_env *env = *state;
	cl_int k = 9, err;
	cl_uchar b = 1;
	cl_long wrong = 0;
	size_t size, got;
	unsigned char *back;
	void *il;
	cl_program p;

	need_il(env);
	il = load("spec.spv", &size);
	p = clCreateProgramWithIL(env->ctx, il, size, &err);
	CL_OK(err);
	/* the bytes back */
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &got));
	assert_int_equal(got, size);
	back = malloc(size);
	assert_non_null(back);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_IL, size, back, NULL));
	assert_memory_equal(back, il, size);
	free(back);
	/* defaults */
	build_ok(env, p);
	run_scale(env, p, 3, false);
	/* ids and sizes checked before the build */
	assert_int_equal(clSetProgramSpecializationConstant(p, 5, sizeof(k),
							    &k),
			 CL_INVALID_SPEC_ID);
	assert_int_equal(clSetProgramSpecializationConstant(p, 7,
							    sizeof(wrong),
							    &wrong),
			 CL_INVALID_VALUE);
	assert_int_equal(clSetProgramSpecializationConstant(p, 7, sizeof(k),
							    NULL),
			 CL_INVALID_VALUE);
	CL_OK(clSetProgramSpecializationConstant(p, 7, sizeof(k), &k));
	CL_OK(clSetProgramSpecializationConstant(p, 8, sizeof(b), &b));
	build_ok(env, p);
	run_scale(env, p, 9, true);
	CL_OK(clReleaseProgram(p));
	free(il);
}

/* clCompileProgram of an IL program, then clLinkProgram; the KHR entry */
static void il_compile_link(void **state)
{
	struct icd_env *env = *state;
	clCreateProgramWithILKHR_fn create;
	cl_program p, exe;
	size_t size;
	cl_int err;
	void *il;

	need_il(env);
	*(void **)&create = clGetExtensionFunctionAddressForPlatform(
		env->platform, "clCreateProgramWithILKHR");
	assert_non_null(create);
	il = load("spec.spv", &size);
	p = create(env->ctx, il, size, &err);
	CL_OK(err);
	CL_OK(clCompileProgram(p, 1, &env->device, NULL, 0, NULL, NULL, NULL,
			       NULL));
	exe = clLinkProgram(env->ctx, 1, &env->device, NULL, 1, &p, NULL, NULL,
			    &err);
	CL_OK(err);
	run_scale(env, exe, 3, false);
	CL_OK(clReleaseProgram(exe));
	CL_OK(clReleaseProgram(p));
	free(il);
}

/* clang's module: kernel names and argument counts through the ICD */
static void il_clang_module(void **state)
{
	struct icd_env *env = *state;
	char names[256];
	size_t size;
	cl_uint n_args;
	cl_kernel k;
	cl_int err;
	void *il;
	cl_program p;

	need_il(env);
	il = load("kernels-O2.spv", &size);
	p = clCreateProgramWithIL(env->ctx, il, size, &err);
	CL_OK(err);
	build_ok(env, p);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(names),
			       names, NULL));
	assert_non_null(strstr(names, "vec"));
	assert_non_null(strstr(names, "lsum"));
	k = clCreateKernel(p, "args", &err);
	CL_OK(err);
	CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(n_args), &n_args,
			      NULL));
	assert_int_equal(n_args, 8);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	free(il);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(il_spec_constants),
		T(il_compile_link),
		T(il_clang_module),
	};
#undef T

	return ICD_TEST_RUN("icd-il", tests);
}
