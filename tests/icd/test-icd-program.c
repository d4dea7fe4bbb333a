/* SPDX-License-Identifier: MIT */
/*
 * Programs and kernels through the ICD loader: building from source (logs,
 * status, options, function-like -D macros, failures), binaries round trip, built-in kernels,
 * compile + link, kernel objects, arguments and their errors, argument and
 * work-group info.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

static const char src[] =
	"typedef struct { int a; float b; } pair;\n"
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *restrict c, float scale)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = (a[i] + b[i]) * scale;\n"
	"}\n"
	"kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
	"void fixed(global int *out, local int *tmp, constant int *k,\n"
	"	    pair p)\n"
	"{\n"
	"	tmp[get_local_id(0)] = k[0] + p.a;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[get_global_id(0)] = tmp[7 - get_local_id(0)];\n"
	"}\n";

static void test_build(void **state)
{
	struct icd_env *env = *state;
	cl_build_status status = CL_BUILD_NONE;
	cl_program_binary_type type = 0;
	cl_program p;
	char buf[4096];
	size_t n = 0, size = 0;
	cl_uint refs = 0;
	cl_context ctx = NULL;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, "-cl-std=CL1.2 -DUNUSED=1");
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS,
				    sizeof(status), &status, NULL));
	assert_int_equal(status, CL_BUILD_SUCCESS);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_OPTIONS,
				    sizeof(buf), buf, NULL));
	assert_string_equal(buf, "-cl-std=CL1.2 -DUNUSED=1");
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BINARY_TYPE,
				    sizeof(type), &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0,
				    NULL, &size));
	assert_true(size >= 1);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(n), &n,
			       NULL));
	assert_int_equal(n, 2);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(buf), buf,
			       NULL));
	assert_true(!strcmp(buf, "vadd;fixed") || !strcmp(buf, "fixed;vadd"));
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof(buf), buf, NULL));
	assert_string_equal(buf, src);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof(ctx), &ctx,
			       NULL));
	assert_ptr_equal(ctx, env->ctx);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs),
			       &refs, NULL));
	assert_int_equal(refs, 1);
	/* a rebuild is fine while no kernel exists */
	CL_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
	CL_OK(clReleaseProgram(p));
}

static void test_build_failures(void **state)
{
	struct icd_env *env = *state;
	const char *bad = "kernel void k(global int *p) { p[0] = undefined; }";
	const char *strings[2] = { "kernel void a(global int *p)", " { }" };
	cl_build_status status = CL_BUILD_NONE;
	cl_program p;
	char log[8192];
	size_t n = 0;
	cl_int err = CL_SUCCESS;

	if (!icd_test_have_compiler(env))
		skip();
	p = clCreateProgramWithSource(env->ctx, 1, &bad, NULL, &err);
	CL_OK(err);
	/* not built yet */
	assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(n),
					  &n, NULL),
			 CL_INVALID_PROGRAM_EXECUTABLE);
	assert_null(clCreateKernel(p, "k", &err));
	assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
	assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL),
			 CL_BUILD_PROGRAM_FAILURE);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS,
				    sizeof(status), &status, NULL));
	assert_int_equal(status, CL_BUILD_ERROR);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
				    sizeof(log), log, NULL));
	assert_non_null(strstr(log, "undefined"));
	assert_int_equal(clBuildProgram(p, 0, NULL, "-no-such-option", NULL,
					NULL),
			 CL_INVALID_BUILD_OPTIONS);
	assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, (void *)1),
			 CL_INVALID_VALUE);
	assert_int_equal(clBuildProgram(p, 1, NULL, NULL, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clBuildProgram(p, 1, (cl_device_id *)&env->ctx, NULL,
					NULL, NULL),
			 CL_INVALID_DEVICE);
	assert_int_equal(clGetProgramBuildInfo(p, (cl_device_id)env->ctx,
					       CL_PROGRAM_BUILD_STATUS, 0,
					       NULL, NULL),
			 CL_INVALID_DEVICE);
	CL_OK(clReleaseProgram(p));

	/* several strings, lengths of 0 meaning NUL-terminated */
	p = clCreateProgramWithSource(env->ctx, 2, strings, NULL, &err);
	CL_OK(err);
	icd_test_build_ok(env, p, NULL);
	CL_OK(clReleaseProgram(p));

	assert_null(clCreateProgramWithSource(env->ctx, 0, strings, NULL,
					      &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateProgramWithSource(env->ctx, 1, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_int_equal(clRetainProgram((cl_program)env->ctx),
			 CL_INVALID_PROGRAM);
}

/* hashcat builds with -DXM2S(x)=#x and friends: function-like macros */
static void test_macro_options(void **state)
{
	struct icd_env *env = *state;
	const char *msrc = "kernel void m(global char *out)\n"
			   "{\n"
			   "	constant char *s = XM2S(hash cat);\n"
			   "	for (int i = 0; i < 9; i++)\n"
			   "		out[i] = s[i];\n"
			   "	out[9] = CAT(4, 2);\n"
			   "}\n";
	const char *opts = "-DXM2S(x)=#x -D \"CAT(a, b)=a##b\"";
	cl_program p, linked;
	char out[10], buf[64];
	size_t g = 1;
	cl_int err;
	cl_mem b;
	cl_kernel k;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, msrc, opts);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_OPTIONS,
				    sizeof(buf), buf, NULL));
	assert_string_equal(buf, opts);
	/* compiled and linked separately too */
	linked = clCreateProgramWithSource(env->ctx, 1, &msrc, NULL, &err);
	CL_OK(err);
	CL_OK(clCompileProgram(linked, 0, NULL, opts, 0, NULL, NULL, NULL,
			       NULL));
	CL_OK(clReleaseProgram(p));
	p = clLinkProgram(env->ctx, 0, NULL, NULL, 1, &linked, NULL, NULL,
			  &err);
	CL_OK(err);
	CL_OK(clReleaseProgram(linked));

	b = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, sizeof(out), NULL,
			   &err);
	CL_OK(err);
	k = clCreateKernel(p, "m", &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(b), &b));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0,
				     NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	assert_string_equal(out, "hash cat");
	assert_int_equal(out[9], 42);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseMemObject(b));
	CL_OK(clReleaseProgram(p));

	/* malformed, or trying to be more than a macro */
	p = clCreateProgramWithSource(env->ctx, 1, &msrc, NULL, &err);
	CL_OK(err);
	assert_int_equal(clBuildProgram(p, 0, NULL, "-DXM2S(x=#x", NULL,
					NULL),
			 CL_INVALID_BUILD_OPTIONS);
	assert_int_equal(clCompileProgram(p, 0, NULL, "-D @file", 0, NULL,
					  NULL, NULL, NULL),
			 CL_INVALID_COMPILER_OPTIONS);
	CL_OK(clReleaseProgram(p));
}

static unsigned notified;

static void CL_CALLBACK build_notify(cl_program p, void *data)
{
	(void)p;
	notified += (unsigned)(uintptr_t)data;
}

static void test_binaries(void **state)
{
	struct icd_env *env = *state;
	cl_program p, q;
	size_t size = 0;
	unsigned char *bin;
	const unsigned char *cbin;
	cl_kernel k;
	cl_int status = 1, err = CL_SUCCESS;
	const unsigned char junk[] = "not a binary";
	const unsigned char *cjunk = junk;
	size_t junk_size = sizeof(junk);

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, "-DX=1");
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size,
			       NULL));
	assert_true(size > 0);
	bin = malloc(size);
	assert_non_null(bin);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin,
			       NULL));
	CL_OK(clReleaseProgram(p));

	cbin = bin;
	q = clCreateProgramWithBinary(env->ctx, 1, &env->device, &size, &cbin,
				      &status, &err);
	CL_OK(err);
	CL_OK(status);
	/* a binary still needs a build */
	assert_null(clCreateKernel(q, "vadd", &err));
	assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
	notified = 0;
	CL_OK(clBuildProgram(q, 0, NULL, NULL, build_notify, (void *)5));
	assert_int_equal(notified, 5);
	k = clCreateKernel(q, "vadd", &err);
	CL_OK(err);
	/* no rebuild while a kernel is attached */
	assert_int_equal(clBuildProgram(q, 0, NULL, NULL, NULL, NULL),
			 CL_INVALID_OPERATION);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(q));
	free(bin);

	assert_null(clCreateProgramWithBinary(env->ctx, 1, &env->device,
					      &junk_size, &cjunk, &status,
					      &err));
	assert_int_equal(err, CL_INVALID_BINARY);
	assert_int_equal(status, CL_INVALID_BINARY);
}

static void test_built_in(void **state)
{
	struct icd_env *env = *state;
	char names[256];
	cl_program p;
	cl_kernel k;
	cl_mem m;
	cl_uint value = 0x1234, out[64], n_args = 0;
	size_t global = 64;
	cl_int err = CL_SUCCESS;
	unsigned i;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_BUILT_IN_KERNELS,
			      sizeof(names), names, NULL));
	if (!strstr(names, "fill_u32"))
		skip();
	p = clCreateProgramWithBuiltInKernels(env->ctx, 1, &env->device,
					      "fill_u32", &err);
	CL_OK(err);
	k = clCreateKernel(p, "fill_u32", &err);
	CL_OK(err);
	CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(n_args), &n_args,
			      NULL));
	assert_int_equal(n_args, 2);
	m = clCreateBuffer(env->ctx, 0, sizeof(out), NULL, &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clSetKernelArg(k, 1, sizeof(value), &value));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0,
				     NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	for (i = 0; i < 64; i++)
		assert_int_equal(out[i], value);
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));

	assert_null(clCreateProgramWithBuiltInKernels(env->ctx, 1, &env->device,
						      "no_such_kernel", &err));
	assert_int_equal(err, CL_INVALID_VALUE);
}

static void test_compile_link(void **state)
{
	struct icd_env *env = *state;
	const char *hdr_src = "#define SCALE 3\nint helper(int x);\n";
	const char *lib_src = "int helper(int x) { return x * 2; }\n";
	const char *main_src = "#include \"scale.h\"\n"
			       "kernel void k(global int *p)\n"
			       "{ p[get_global_id(0)] = helper(SCALE); }\n";
	const char *hdr_name = "scale.h";
	cl_program hdr, lib, main_p, linked, inputs[2];
	cl_program_binary_type type = 0;
	cl_kernel k;
	cl_mem m;
	int out[4] = { 0 };
	size_t global = 4;
	cl_int err = CL_SUCCESS;

	if (!icd_test_have_compiler(env))
		skip();
	hdr = clCreateProgramWithSource(env->ctx, 1, &hdr_src, NULL, &err);
	CL_OK(err);
	lib = clCreateProgramWithSource(env->ctx, 1, &lib_src, NULL, &err);
	CL_OK(err);
	main_p = clCreateProgramWithSource(env->ctx, 1, &main_src, NULL, &err);
	CL_OK(err);
	CL_OK(clCompileProgram(lib, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
	CL_OK(clCompileProgram(main_p, 1, &env->device, NULL, 1, &hdr,
			       &hdr_name, NULL, NULL));
	CL_OK(clGetProgramBuildInfo(main_p, env->device,
				    CL_PROGRAM_BINARY_TYPE, sizeof(type),
				    &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
	inputs[0] = lib;
	inputs[1] = main_p;
	linked = clLinkProgram(env->ctx, 1, &env->device, NULL, 2, inputs,
			       NULL, NULL, &err);
	CL_OK(err);
	k = clCreateKernel(linked, "k", &err);
	CL_OK(err);
	m = clCreateBuffer(env->ctx, 0, sizeof(out), NULL, &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0,
				     NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	assert_int_equal(out[3], 6);

	/* a library, then errors */
	CL_OK(clReleaseProgram(linked));
	linked = clLinkProgram(env->ctx, 0, NULL, "-create-library", 1, &lib,
			       NULL, NULL, &err);
	CL_OK(err);
	CL_OK(clGetProgramBuildInfo(linked, env->device,
				    CL_PROGRAM_BINARY_TYPE, sizeof(type),
				    &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_LIBRARY);
	CL_OK(clReleaseProgram(linked));
	assert_null(clLinkProgram(env->ctx, 0, NULL, "-bogus", 1, &lib, NULL,
				  NULL, &err));
	assert_int_equal(err, CL_INVALID_LINKER_OPTIONS);
	assert_null(clLinkProgram(env->ctx, 0, NULL, NULL, 1, &hdr, NULL, NULL,
				  &err));
	assert_int_equal(err, CL_INVALID_OPERATION);
	assert_null(clLinkProgram(env->ctx, 0, NULL, NULL, 0, NULL, NULL, NULL,
				  &err));
	assert_int_equal(err, CL_INVALID_VALUE);

	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(hdr));
	CL_OK(clReleaseProgram(lib));
	CL_OK(clReleaseProgram(main_p));
}

static void test_kernels(void **state)
{
	struct icd_env *env = *state;
	cl_program p, prog = NULL;
	cl_kernel ks[4], k, clone;
	cl_uint n = 0, refs = 0;
	char name[64], buf[256];
	cl_int err = CL_SUCCESS;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, NULL);
	CL_OK(clCreateKernelsInProgram(p, 0, NULL, &n));
	assert_int_equal(n, 2);
	assert_int_equal(clCreateKernelsInProgram(p, 1, ks, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clCreateKernelsInProgram(p, 4, ks, &n));
	CL_OK(clReleaseKernel(ks[0]));
	CL_OK(clReleaseKernel(ks[1]));

	k = clCreateKernel(p, "vadd", &err);
	CL_OK(err);
	CL_OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name,
			      NULL));
	assert_string_equal(name, "vadd");
	CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(n), &n, NULL));
	assert_int_equal(n, 4);
	CL_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(prog), &prog,
			      NULL));
	assert_ptr_equal(prog, p);
	CL_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs),
			      &refs, NULL));
	assert_int_equal(refs, 1);
	CL_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof(buf), buf,
			      NULL));
	clone = clCloneKernel(k, &err);
	CL_OK(err);
	CL_OK(clGetKernelInfo(clone, CL_KERNEL_FUNCTION_NAME, sizeof(name),
			      name, NULL));
	assert_string_equal(name, "vadd");
	CL_OK(clReleaseKernel(clone));

	assert_null(clCreateKernel(p, "nope", &err));
	assert_int_equal(err, CL_INVALID_KERNEL_NAME);
	assert_null(clCreateKernel(p, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateKernel((cl_program)env->ctx, "vadd", &err));
	assert_int_equal(err, CL_INVALID_PROGRAM);
	assert_int_equal(clRetainKernel((cl_kernel)p), CL_INVALID_KERNEL);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

static void test_kernel_args(void **state)
{
	struct icd_env *env = *state;
	struct {
		cl_int a;
		cl_float b;
	} pair = { 1, 2.0f };
	cl_program p;
	cl_kernel k;
	cl_mem m, bad = (cl_mem)env->ctx;
	float f = 1.0f;
	double d = 1.0;
	cl_int err = CL_SUCCESS;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, NULL);
	k = clCreateKernel(p, "fixed", &err);
	CL_OK(err);
	m = clCreateBuffer(env->ctx, 0, 64, NULL, &err);
	CL_OK(err);

	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clSetKernelArg(k, 0, sizeof(m), NULL)); /* NULL buffer */
	CL_OK(clSetKernelArg(k, 1, 32, NULL));         /* local */
	CL_OK(clSetKernelArg(k, 2, sizeof(m), &m));    /* constant */
	CL_OK(clSetKernelArg(k, 3, sizeof(pair), &pair));

	assert_int_equal(clSetKernelArg(k, 4, sizeof(m), &m),
			 CL_INVALID_ARG_INDEX);
	assert_int_equal(clSetKernelArg(k, 0, 4, &m), CL_INVALID_ARG_SIZE);
	assert_int_equal(clSetKernelArg(k, 0, sizeof(bad), &bad),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(clSetKernelArg(k, 1, 0, NULL), CL_INVALID_ARG_SIZE);
	assert_int_equal(clSetKernelArg(k, 1, 32, &m), CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArg(k, 3, sizeof(pair), NULL),
			 CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArg(k, 3, sizeof(f), &f),
			 CL_INVALID_ARG_SIZE);
	assert_int_equal(clSetKernelArg(k, 3, sizeof(d) + 8, &d),
			 CL_INVALID_ARG_SIZE);
	assert_int_equal(clSetKernelArg((cl_kernel)m, 0, sizeof(m), &m),
			 CL_INVALID_KERNEL);
	/* SVM pointers: buffer arguments only (the CPU device has SVM) */
	CL_OK(clSetKernelArgSVMPointer(k, 0, NULL));
	CL_OK(clSetKernelArgSVMPointer(k, 2, &pair));
	assert_int_equal(clSetKernelArgSVMPointer(k, 1, &pair),
			 CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArgSVMPointer(k, 3, &pair),
			 CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArgSVMPointer(k, 4, &pair),
			 CL_INVALID_ARG_INDEX);
	assert_int_equal(clSetKernelArgSVMPointer((cl_kernel)m, 0, NULL),
			 CL_INVALID_KERNEL);
	CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
	assert_int_equal(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS,
					     3, &pair),
			 CL_INVALID_VALUE);
	assert_int_equal(clSetKernelExecInfo(k, 0x7fff, 0, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

static void test_kernel_info(void **state)
{
	struct icd_env *env = *state;
	cl_kernel_arg_address_qualifier aq = 0;
	cl_kernel_arg_access_qualifier acc = 0;
	cl_kernel_arg_type_qualifier tq = 0;
	size_t wg = 0, reqd[3] = { 0 }, mult = 0;
	cl_ulong local = 0, priv = 1;
	char buf[64];
	cl_program p;
	cl_kernel k, v;
	cl_int err = CL_SUCCESS;

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, "-cl-kernel-arg-info");
	k = clCreateKernel(p, "fixed", &err);
	CL_OK(err);
	v = clCreateKernel(p, "vadd", &err);
	CL_OK(err);

	CL_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
				 sizeof(aq), &aq, NULL));
	assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_GLOBAL);
	CL_OK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
				 sizeof(aq), &aq, NULL));
	assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_LOCAL);
	CL_OK(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
				 sizeof(aq), &aq, NULL));
	assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_CONSTANT);
	CL_OK(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
				 sizeof(aq), &aq, NULL));
	assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_PRIVATE);
	CL_OK(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_ACCESS_QUALIFIER,
				 sizeof(acc), &acc, NULL));
	assert_int_equal(acc, CL_KERNEL_ARG_ACCESS_NONE);
	CL_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof(buf), buf,
				 NULL));
	assert_string_equal(buf, "out");
	CL_OK(clGetKernelArgInfo(v, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(buf),
				 buf, NULL));
	assert_string_equal(buf, "float*");
	CL_OK(clGetKernelArgInfo(v, 0, CL_KERNEL_ARG_TYPE_QUALIFIER,
				 sizeof(tq), &tq, NULL));
	assert_int_equal(tq, CL_KERNEL_ARG_TYPE_CONST);
	CL_OK(clGetKernelArgInfo(v, 2, CL_KERNEL_ARG_TYPE_QUALIFIER,
				 sizeof(tq), &tq, NULL));
	assert_int_equal(tq, CL_KERNEL_ARG_TYPE_RESTRICT);
	assert_int_equal(clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME,
					    sizeof(buf), buf, NULL),
			 CL_INVALID_ARG_INDEX);

	CL_OK(clGetKernelWorkGroupInfo(k, env->device,
				       CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
				       sizeof(reqd), reqd, NULL));
	assert_int_equal(reqd[0], 8);
	assert_int_equal(reqd[1], 1);
	CL_OK(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE,
				       sizeof(wg), &wg, NULL));
	assert_int_equal(wg, 8);
	CL_OK(clSetKernelArg(k, 1, 100, NULL));
	CL_OK(clGetKernelWorkGroupInfo(k, env->device,
				       CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local),
				       &local, NULL));
	assert_true(local >= 100);
	CL_OK(clGetKernelWorkGroupInfo(
		v, env->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
		sizeof(mult), &mult, NULL));
	assert_true(mult >= 1);
	CL_OK(clGetKernelWorkGroupInfo(v, env->device,
				       CL_KERNEL_PRIVATE_MEM_SIZE,
				       sizeof(priv), &priv, NULL));
	CL_OK(clGetKernelWorkGroupInfo(v, env->device,
				       CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
				       &wg, NULL));
	assert_true(wg >= 1);
	assert_int_equal(clGetKernelWorkGroupInfo(v, env->device,
						  CL_KERNEL_GLOBAL_WORK_SIZE,
						  sizeof(reqd), reqd, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetKernelWorkGroupInfo(v, (cl_device_id)p,
						  CL_KERNEL_WORK_GROUP_SIZE,
						  sizeof(wg), &wg, NULL),
			 CL_INVALID_DEVICE);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseKernel(v));
	CL_OK(clReleaseProgram(p));
}

/* Every clGetKernelArgInfo query of argument @p i is unavailable. */
static void assert_no_arg_info(cl_kernel k, cl_uint i)
{
	static const cl_kernel_arg_info params[] = {
		CL_KERNEL_ARG_ADDRESS_QUALIFIER, CL_KERNEL_ARG_ACCESS_QUALIFIER,
		CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_TYPE_QUALIFIER,
		CL_KERNEL_ARG_NAME,
	};
	char buf[64];
	size_t j, size = 0;

	for (j = 0; j < ICD_TEST_ARRAY_SIZE(params); j++) {
		assert_int_equal(clGetKernelArgInfo(k, i, params[j],
						    sizeof(buf), buf, NULL),
				 CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
		assert_int_equal(clGetKernelArgInfo(k, i, params[j], 0, NULL,
						    &size),
				 CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
	}
}

/*
 * Argument information only with -cl-kernel-arg-info (OpenCL 3.0,
 * clGetKernelArgInfo), for every query, and from the last build.
 */
static void test_kernel_arg_info_option(void **state)
{
	struct icd_env *env = *state;
	cl_kernel_arg_address_qualifier aq = 0;
	cl_program p;
	cl_kernel k, clone;
	cl_int err = CL_SUCCESS;
	char buf[64];

	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, src, "-DUNUSED=1");
	k = clCreateKernel(p, "fixed", &err);
	CL_OK(err);
	assert_no_arg_info(k, 0);
	assert_no_arg_info(k, 1);
	/* the index is checked first */
	assert_int_equal(clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME,
					    sizeof(buf), buf, NULL),
			 CL_INVALID_ARG_INDEX);
	CL_OK(clReleaseKernel(k));

	/* the option among others */
	icd_test_build_ok(env, p, "-DUNUSED=1 -cl-kernel-arg-info -w");
	k = clCreateKernel(p, "fixed", &err);
	CL_OK(err);
	CL_OK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
				 sizeof(aq), &aq, NULL));
	assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_LOCAL);
	clone = clCloneKernel(k, &err);
	CL_OK(err);
	CL_OK(clGetKernelArgInfo(clone, 0, CL_KERNEL_ARG_NAME, sizeof(buf),
				 buf, NULL));
	assert_string_equal(buf, "out");
	CL_OK(clReleaseKernel(clone));
	CL_OK(clReleaseKernel(k));

	/* built again without it: gone */
	icd_test_build_ok(env, p, "-cl-std=CL1.2");
	k = clCreateKernel(p, "vadd", &err);
	CL_OK(err);
	assert_no_arg_info(k, 0);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_build),
		T(test_build_failures),
		T(test_macro_options),
		T(test_binaries),
		T(test_built_in),
		T(test_compile_link),
		T(test_kernels),
		T(test_kernel_args),
		T(test_kernel_info),
		T(test_kernel_arg_info_option),
	};
#undef T

	return ICD_TEST_RUN("icd-program", tests);
}
