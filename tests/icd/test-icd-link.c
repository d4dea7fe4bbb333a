/* SPDX-License-Identifier: MIT */
/*
 * Separate compilation through the ICD loader: clCompileProgram keeps
 * each input's options and embedded headers, clLinkProgram joins units
 * that share type names and call each other, libraries link again, object
 * and library binaries round trip, and compile and link errors come from
 * the call that finds them, with a log.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

static const char a_src[] =
	"#include \"inc/scale.h\"\n"
	"typedef struct pair { int a, b; } pair;\n"
	"global int counter = 5;\n"
	"int helper(pair p) { return p.a + p.b * SCALE + FROM_A; }\n";
static const char b_src[] =
	"typedef struct pair { int a, b; } pair;\n"
	"extern int helper(pair p);\n"
	"kernel void k(global int *out)\n"
	"{\n"
	"	int i = (int)get_global_id(0);\n"
	"	out[i] = helper((pair){ i, 1 }) * 100 + FROM_B;\n"
	"}\n";

static cl_program source(struct icd_env *env, const char *src)
{
	cl_int err = CL_SUCCESS;
	cl_program p = clCreateProgramWithSource(env->ctx, 1, &src, NULL,
						 &err);

	CL_OK(err);
	return p;
}

static cl_program compile(struct icd_env *env, const char *src,
			  const char *options)
{
	static const char *hdr_src = "#define SCALE 10\n";
	const char *hdr_name = "inc/scale.h";
	cl_program p = source(env, src), hdr = source(env, hdr_src);
	cl_program_binary_type type = 0;
	cl_build_status status = CL_BUILD_NONE;
	char buf[256];

	CL_OK(clCompileProgram(p, 1, &env->device, options, 1, &hdr,
			       &hdr_name, NULL, NULL));
	CL_OK(clReleaseProgram(hdr));
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BINARY_TYPE,
				    sizeof(type), &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS,
				    sizeof(status), &status, NULL));
	assert_int_equal(status, CL_BUILD_SUCCESS);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_OPTIONS,
				    sizeof(buf), buf, NULL));
	assert_string_equal(buf, options);
	return p;
}

/* Kernel k of @p p over 4 items: out[i] = (i + SCALE + FROM_A) * 100 +
 * FROM_B. */
static void run_and_check(struct icd_env *env, cl_program p)
{
	cl_int err = CL_SUCCESS;
	cl_kernel k = clCreateKernel(p, "k", &err);
	cl_mem m;
	size_t global = 4;
	int out[4] = { 0 };

	CL_OK(err);
	m = clCreateBuffer(env->ctx, 0, sizeof(out), NULL, &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0,
				     NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i], (i + 10 + 1) * 100 + 2);
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseKernel(k));
}

static void notify(cl_program p, void *data)
{
	(void)p;
	++*(int *)data;
}

static void test_link_run(void **state)
{
	struct icd_env *env = *state;
	cl_program in[2], linked;
	cl_program_binary_type type = 0;
	size_t n = 0, global_size = 0;
	cl_int err = CL_SUCCESS;
	int calls = 0;

	if (!icd_test_have_compiler(env))
		skip();
	/* each input keeps its own -D; one is OpenCL C 2.0 for its global */
	in[0] = compile(env, a_src, "-DFROM_A=1 -cl-std=CL2.0");
	in[1] = compile(env, b_src, "-DFROM_B=2");
	linked = clLinkProgram(env->ctx, 1, &env->device, NULL, 2, in, notify,
			       &calls, &err);
	CL_OK(err);
	assert_int_equal(calls, 1);
	CL_OK(clGetProgramBuildInfo(linked, env->device,
				    CL_PROGRAM_BINARY_TYPE, sizeof(type),
				    &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
	CL_OK(clGetProgramInfo(linked, CL_PROGRAM_NUM_KERNELS, sizeof(n), &n,
			       NULL));
	assert_int_equal(n, 1);
	CL_OK(clGetProgramBuildInfo(linked, env->device,
				    CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
				    sizeof(global_size), &global_size, NULL));
	assert_int_equal(global_size, sizeof(int));
	run_and_check(env, linked);
	/* a linked program is built already */
	assert_int_equal(clBuildProgram(linked, 0, NULL, NULL, NULL, NULL),
			 CL_INVALID_OPERATION);
	CL_OK(clReleaseProgram(linked));
	CL_OK(clReleaseProgram(in[0]));
	CL_OK(clReleaseProgram(in[1]));
}

static unsigned char *get_binary(cl_program p, size_t *size)
{
	unsigned char *bin;

	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size,
			       NULL));
	assert_true(*size > 0);
	bin = malloc(*size);
	assert_non_null(bin);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin,
			       NULL));
	return bin;
}

/* A library, through its binary, linked with an object. */
static void test_library(void **state)
{
	struct icd_env *env = *state;
	cl_program a, b, lib, lib2, linked, in[2];
	cl_program_binary_type type = 0;
	const unsigned char *cbin;
	cl_int err = CL_SUCCESS, status = CL_SUCCESS;
	unsigned char *bin;
	size_t size;

	if (!icd_test_have_compiler(env))
		skip();
	a = compile(env, a_src, "-DFROM_A=1 -cl-std=CL3.0");
	b = compile(env, b_src, "-DFROM_B=2");
	lib = clLinkProgram(env->ctx, 0, NULL,
			    "-create-library -enable-link-options", 1, &a,
			    NULL, NULL, &err);
	CL_OK(err);
	CL_OK(clGetProgramBuildInfo(lib, env->device, CL_PROGRAM_BINARY_TYPE,
				    sizeof(type), &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_LIBRARY);
	bin = get_binary(lib, &size);
	cbin = bin;
	lib2 = clCreateProgramWithBinary(env->ctx, 1, &env->device, &size,
					 &cbin, &status, &err);
	CL_OK(err);
	CL_OK(status);
	CL_OK(clGetProgramBuildInfo(lib2, env->device, CL_PROGRAM_BINARY_TYPE,
				    sizeof(type), &type, NULL));
	assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_LIBRARY);
	in[0] = b;
	in[1] = lib2;
	linked = clLinkProgram(env->ctx, 0, NULL, "-cl-fast-relaxed-math", 2,
			       in, NULL, NULL, &err);
	CL_OK(err);
	run_and_check(env, linked);
	CL_OK(clReleaseProgram(linked));
	CL_OK(clReleaseProgram(lib2));
	CL_OK(clReleaseProgram(lib));
	CL_OK(clReleaseProgram(a));
	CL_OK(clReleaseProgram(b));
	free(bin);
}

/* Is argument information there for kernel k of @p p? */
static bool has_arg_info(cl_program p)
{
	cl_int err = CL_SUCCESS, r;
	cl_kernel k = clCreateKernel(p, "k", &err);
	char name[16] = "";

	CL_OK(err);
	r = clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof(name), name,
			       NULL);
	CL_OK(clReleaseKernel(k));
	if (r == CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
		return false;
	CL_OK(r);
	assert_string_equal(name, "out");
	return true;
}

/*
 * Argument information of linked programs: there when the kernel's
 * object was compiled with -cl-kernel-arg-info (also through a library),
 * not otherwise, nor through a binary.
 */
static void test_arg_info(void **state)
{
	struct icd_env *env = *state;
	cl_program a, b, b_info, lib, lib2, linked, in[2];
	const unsigned char *cbin;
	cl_int err = CL_SUCCESS, status = CL_SUCCESS;
	unsigned char *bin;
	size_t size;

	if (!icd_test_have_compiler(env))
		skip();
	a = compile(env, a_src, "-DFROM_A=1 -cl-std=CL2.0");
	b = compile(env, b_src, "-DFROM_B=2");
	b_info = compile(env, b_src, "-DFROM_B=2 -cl-kernel-arg-info");

	in[0] = a;
	in[1] = b;
	linked = clLinkProgram(env->ctx, 0, NULL, NULL, 2, in, NULL, NULL,
			       &err);
	CL_OK(err);
	assert_false(has_arg_info(linked));
	CL_OK(clReleaseProgram(linked));

	in[1] = b_info;
	linked = clLinkProgram(env->ctx, 0, NULL, NULL, 2, in, NULL, NULL,
			       &err);
	CL_OK(err);
	assert_true(has_arg_info(linked));
	run_and_check(env, linked);
	CL_OK(clReleaseProgram(linked));

	/* the kernel's object in a library */
	lib = clLinkProgram(env->ctx, 0, NULL, "-create-library", 1, &b_info,
			    NULL, NULL, &err);
	CL_OK(err);
	in[1] = lib;
	linked = clLinkProgram(env->ctx, 0, NULL, NULL, 2, in, NULL, NULL,
			       &err);
	CL_OK(err);
	assert_true(has_arg_info(linked));
	CL_OK(clReleaseProgram(linked));

	/* that library from its binary */
	bin = get_binary(lib, &size);
	cbin = bin;
	lib2 = clCreateProgramWithBinary(env->ctx, 1, &env->device, &size,
					 &cbin, &status, &err);
	CL_OK(err);
	CL_OK(status);
	in[1] = lib2;
	linked = clLinkProgram(env->ctx, 0, NULL, NULL, 2, in, NULL, NULL,
			       &err);
	CL_OK(err);
	assert_false(has_arg_info(linked));
	CL_OK(clReleaseProgram(linked));

	CL_OK(clReleaseProgram(lib2));
	CL_OK(clReleaseProgram(lib));
	CL_OK(clReleaseProgram(a));
	CL_OK(clReleaseProgram(b));
	CL_OK(clReleaseProgram(b_info));
	free(bin);
}

static void test_errors(void **state)
{
	struct icd_env *env = *state;
	cl_program bad, obj, plain, linked, in[2];
	cl_build_status status = CL_BUILD_NONE;
	cl_kernel k;
	cl_int err = CL_SUCCESS;
	char log[4096];
	int calls = 0;

	if (!icd_test_have_compiler(env))
		skip();
	/* compile errors: at compile time, with the log */
	bad = source(env, "int f(void) { return nope; }\n");
	assert_int_equal(clCompileProgram(bad, 0, NULL, NULL, 0, NULL, NULL,
					  notify, &calls),
			 CL_COMPILE_PROGRAM_FAILURE);
	assert_int_equal(calls, 1);
	CL_OK(clGetProgramBuildInfo(bad, env->device, CL_PROGRAM_BUILD_STATUS,
				    sizeof(status), &status, NULL));
	assert_int_equal(status, CL_BUILD_ERROR);
	CL_OK(clGetProgramBuildInfo(bad, env->device, CL_PROGRAM_BUILD_LOG,
				    sizeof(log), log, NULL));
	assert_non_null(strstr(log, "nope"));
	assert_int_equal(clCompileProgram(bad, 0, NULL, "-bogus", 0, NULL,
					  NULL, NULL, NULL),
			 CL_INVALID_COMPILER_OPTIONS);

	/* link errors: the program comes back with its log */
	obj = compile(env, "int g(void);\n"
		      "kernel void k(global int *o) { o[0] = g(); }\n", "");
	linked = clLinkProgram(env->ctx, 0, NULL, NULL, 1, &obj, NULL, NULL,
			       &err);
	assert_int_equal(err, CL_LINK_PROGRAM_FAILURE);
	assert_non_null(linked);
	CL_OK(clGetProgramBuildInfo(linked, env->device,
				    CL_PROGRAM_BUILD_STATUS, sizeof(status),
				    &status, NULL));
	assert_int_equal(status, CL_BUILD_ERROR);
	CL_OK(clGetProgramBuildInfo(linked, env->device, CL_PROGRAM_BUILD_LOG,
				    sizeof(log), log, NULL));
	assert_non_null(strstr(log, "'g'"));
	CL_OK(clReleaseProgram(linked));

	/* inputs: an uncompiled one, mixed with an object; bad options */
	plain = source(env, "kernel void k2(global int *o) { o[0] = 1; }\n");
	in[0] = obj;
	in[1] = plain;
	assert_null(clLinkProgram(env->ctx, 0, NULL, NULL, 2, in, NULL, NULL,
				  &err));
	assert_int_equal(err, CL_INVALID_OPERATION);
	assert_null(clLinkProgram(env->ctx, 0, NULL, "-enable-link-options", 1,
				  &obj, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_LINKER_OPTIONS);
	assert_null(clLinkProgram(env->ctx, 0, NULL, "-DX=1", 1, &obj, NULL,
				  NULL, &err));
	assert_int_equal(err, CL_INVALID_LINKER_OPTIONS);

	/* no compile while kernels are attached */
	CL_OK(clBuildProgram(plain, 0, NULL, NULL, NULL, NULL));
	k = clCreateKernel(plain, "k2", &err);
	CL_OK(err);
	assert_int_equal(clCompileProgram(plain, 0, NULL, NULL, 0, NULL, NULL,
					  NULL, NULL),
			 CL_INVALID_OPERATION);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(plain));
	CL_OK(clReleaseProgram(obj));
	CL_OK(clReleaseProgram(bad));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_link_run),
		T(test_library),
		T(test_arg_info),
		T(test_errors),
	};

	return ICD_TEST_RUN("icd-link", tests);
}
