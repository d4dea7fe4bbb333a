/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

cl_platform_id icd_test_platform(void)
{
	cl_platform_id platforms[16];
	cl_uint n = 0, i;
	char name[64];

	CL_OK(clGetPlatformIDs(16, platforms, &n));
	for (i = 0; i < n && i < 16; i++) {
		CL_OK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME,
					sizeof(name), name, NULL));
		if (!strcmp(name, "libaccel"))
			return platforms[i];
	}
	fail_msg("no libaccel platform (is OCL_ICD_VENDORS set?)");
	return NULL;
}

int icd_env_setup(void **state)
{
	struct icd_env *env = calloc(1, sizeof(*env));
	cl_int err = CL_SUCCESS;

	if (!env)
		return -1;
	env->platform = icd_test_platform();
	if (clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device,
			   NULL) != CL_SUCCESS)
		goto fail;
	env->ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
	if (err != CL_SUCCESS)
		goto fail;
	env->queue = clCreateCommandQueueWithProperties(env->ctx, env->device,
							NULL, &err);
	if (err != CL_SUCCESS)
		goto fail;
	*state = env;
	return 0;
fail:
	fprintf(stderr, "icd_env_setup: error %d\n", err);
	if (env->ctx)
		clReleaseContext(env->ctx);
	free(env);
	return -1;
}

int icd_env_teardown(void **state)
{
	struct icd_env *env = *state;

	if (!env)
		return 0;
	if (clFinish(env->queue) != CL_SUCCESS ||
	    clReleaseCommandQueue(env->queue) != CL_SUCCESS ||
	    clReleaseContext(env->ctx) != CL_SUCCESS)
		return -1;
	free(env);
	return 0;
}

bool icd_test_have_compiler(struct icd_env *env)
{
	cl_bool have = CL_FALSE;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_COMPILER_AVAILABLE,
			      sizeof(have), &have, NULL));
	return have;
}

cl_program icd_test_build(struct icd_env *env, const char *src,
			  const char *options)
{
	cl_int err = CL_SUCCESS;
	cl_program p;

	p = clCreateProgramWithSource(env->ctx, 1, &src, NULL, &err);
	CL_OK(err);
	icd_test_build_ok(env, p, options);
	return p;
}

void icd_test_build_ok(struct icd_env *env, cl_program p, const char *options)
{
	cl_int err = clBuildProgram(p, 1, &env->device, options, NULL, NULL);

	if (err != CL_SUCCESS) {
		char log[8192] = "";

		clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
				      sizeof(log), log, NULL);
		fail_msg("build failed (%d):\n%s", err, log);
	}
}

int icd_test_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	/* skipped as a whole when the loader finds no platform at all */
	cl_uint count = 0;

	if (clGetPlatformIDs(0, NULL, &count) != CL_SUCCESS || count == 0) {
		printf("no OpenCL platform: skipped\n");
		exit(77);
	}
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}
