/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the ICD tests. They use OpenCL only, through the system's ICD
 * loader (ocl-icd), which ctest points at our ICD with OCL_ICD_VENDORS: the
 * tests see exactly what an OpenCL application sees.
 */
#ifndef ACCEL_ICD_TEST_H
#define ACCEL_ICD_TEST_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <CL/cl.h>
#include <CL/cl_ext.h>

#define ICD_TEST_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A CL call that must succeed; prints the code when it does not. */
#define CL_OK(call) assert_int_equal((call), CL_SUCCESS)

/* One platform, its first device, a context and an in-order queue. */
struct icd_env {
	cl_platform_id platform;
	cl_device_id device;
	cl_context ctx;
	cl_command_queue queue;
};

/* Group fixtures: make / release an icd_env (the state). */
int icd_env_setup(void **state);
int icd_env_teardown(void **state);

/* The libaccel platform among the loader's, or fail the test. */
cl_platform_id icd_test_platform(void);

/*
 * Build @p src with @p options for the env's device; fails the test with
 * the build log printed if the build fails.
 */
cl_program icd_test_build(struct icd_env *env, const char *src,
			  const char *options);

/* Build @p for env->device, or fail the test with the build log. */
void icd_test_build_ok(struct icd_env *env, cl_program p, const char *options);

/* Does the device have an OpenCL C compiler? */
bool icd_test_have_compiler(struct icd_env *env);

/* Run a group; non-zero on failure. */
int icd_test_run(const char *name, const struct CMUnitTest *tests, size_t n);
#define ICD_TEST_RUN(name, tests)                                              \
	icd_test_run((name), (tests), ICD_TEST_ARRAY_SIZE(tests))

#endif /* ACCEL_ICD_TEST_H */
