/* SPDX-License-Identifier: MIT */
/*
 * The cl_khr_icd contract, checked by playing the loader: dlopen() the ICD
 * directly (argv[1]), look up only what a loader may look up, and check
 * the dispatch table and object layout, including cl_khr_icd 2.0.0
 * (loader-managed dispatch data copied into every object).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

#include <CL/cl_icd.h>

#define ICD2_TAG ((intptr_t)0x4F50454E434C3331)

/* What every ICD object starts with (cl_khr_icd 2.0.0). */
struct icd_head {
	const struct _cl_icd_dispatch *dispatch;
	void *dispatch_data;
};

typedef void *(*get_ext_fn)(const char *);
typedef cl_int (*get_ids_fn)(cl_uint, cl_platform_id *, cl_uint *);
typedef void *(*get_fn_for_platform_fn)(cl_platform_id, const char *);
typedef cl_int (*set_data_fn)(cl_platform_id, void *);

static const char *icd_path;
static void *handle;
static get_ext_fn get_ext;
static cl_platform_id platform;

static int contract_setup(void **state)
{
	get_ids_fn get_ids;

	(void)state;
	handle = dlopen(icd_path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		fprintf(stderr, "dlopen %s: %s\n", icd_path, dlerror());
		return -1;
	}
	get_ext = (get_ext_fn)dlsym(handle, "clGetExtensionFunctionAddress");
	if (!get_ext)
		return -1;
	get_ids = (get_ids_fn)get_ext("clIcdGetPlatformIDsKHR");
	if (!get_ids || get_ids(1, &platform, NULL) != CL_SUCCESS)
		return -1;
	return 0;
}

static int contract_teardown(void **state)
{
	(void)state;
	/* An ICD is never unloaded by ocl-icd either; keep it mapped. */
	return 0;
}

static void test_exports(void **state)
{
	static const char *const hidden[] = {
		"clGetPlatformIDs", "clCreateContext", "clGetDeviceIDs",
		"clEnqueueNDRangeKernel", "clFinish", "icd_dispatch",
		"accel_context_new",
	};
	size_t i;

	(void)state;
	assert_non_null(dlsym(handle, "clGetExtensionFunctionAddress"));
	assert_non_null(dlsym(handle, "clIcdGetPlatformIDsKHR"));
	assert_non_null(dlsym(handle, "clGetPlatformInfo"));
	/* nothing else: the application's calls go through the loader */
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(hidden); i++) {
		void *sym = dlsym(handle, hidden[i]);

		/* libaccel's own symbols come from libaccel.so, not us */
		if (sym && strncmp(hidden[i], "accel_", 6) != 0)
			fail_msg("%s is exported", hidden[i]);
	}
	assert_ptr_equal(get_ext("clIcdGetPlatformIDsKHR"),
			 dlsym(handle, "clIcdGetPlatformIDsKHR"));
	assert_null(get_ext("clCreateContext"));
	assert_null(get_ext(NULL));
}

static bool is_windows_slot(size_t off)
{
	/* D3D10/D3D11/DX9 sharing: plain void pointers outside Windows */
	return (off >= offsetof(struct _cl_icd_dispatch,
				clGetDeviceIDsFromD3D10KHR) &&
		off <= offsetof(struct _cl_icd_dispatch,
				clEnqueueReleaseD3D10ObjectsKHR)) ||
	       (off >= offsetof(struct _cl_icd_dispatch,
				clGetDeviceIDsFromD3D11KHR) &&
		off <= offsetof(struct _cl_icd_dispatch,
				clEnqueueReleaseDX9MediaSurfacesKHR));
}

static void test_dispatch_table(void **state)
{
	const struct icd_head *head = (const void *)platform;
	const struct _cl_icd_dispatch *d = head->dispatch;
	void *const *slot = (void *const *)d;
	size_t i, n = sizeof(*d) / sizeof(void *);

	(void)state;
	/* 2.0.0: the tag marks objects that carry dispatch data */
	assert_int_equal((intptr_t)d->clGetPlatformIDs, ICD2_TAG);
	for (i = 1; i < n; i++)
		if (!is_windows_slot(i * sizeof(void *)) && !slot[i])
			fail_msg("dispatch slot %zu is empty", i);
	/* the exported clGetPlatformInfo is the table's */
	assert_ptr_equal((void *)d->clGetPlatformInfo,
			 dlsym(handle, "clGetPlatformInfo"));
}

static void test_icd2(void **state)
{
	get_fn_for_platform_fn get_fn;
	set_data_fn set_data;
	const struct icd_head *ph = (const void *)platform;
	const struct _cl_icd_dispatch *d = ph->dispatch;
	static int cookie;
	cl_device_id dev = NULL;
	cl_context ctx;
	cl_command_queue q;
	cl_mem m;
	cl_program p;
	cl_kernel k;
	cl_event ev;
	char names[256];
	cl_int err = CL_SUCCESS;

	(void)state;
	get_fn = (get_fn_for_platform_fn)get_ext(
		"clIcdGetFunctionAddressForPlatformKHR");
	set_data = (set_data_fn)get_ext("clIcdSetPlatformDispatchDataKHR");
	assert_non_null(get_fn);
	assert_non_null(set_data);
	/* every core function by name, matching the table */
	assert_ptr_equal(get_fn(platform, "clCreateContext"),
			 (void *)d->clCreateContext);
	assert_ptr_equal(get_fn(platform, "clEnqueueNDRangeKernel"),
			 (void *)d->clEnqueueNDRangeKernel);
	assert_ptr_equal(get_fn(platform, "clSetContextDestructorCallback"),
			 (void *)d->clSetContextDestructorCallback);
	assert_non_null(get_fn(platform, "clGetPlatformIDs"));
	assert_null(get_fn(platform, "clNoSuchFunction"));
	assert_null(get_fn(NULL, "clCreateContext"));
	assert_int_equal(set_data(NULL, &cookie), CL_INVALID_PLATFORM);

	CL_OK(set_data(platform, &cookie));
	assert_ptr_equal(ph->dispatch_data, &cookie);
	CL_OK(d->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
	ctx = d->clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CL_OK(err);
	q = d->clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
	CL_OK(err);
	m = d->clCreateBuffer(ctx, 0, 64, NULL, &err);
	CL_OK(err);
	ev = d->clCreateUserEvent(ctx, &err);
	CL_OK(err);
	CL_OK(d->clGetDeviceInfo(dev, CL_DEVICE_BUILT_IN_KERNELS, sizeof(names),
				 names, NULL));
	p = d->clCreateProgramWithBuiltInKernels(ctx, 1, &dev, "fill_u32",
						 &err);
	CL_OK(err);
	k = d->clCreateKernel(p, "fill_u32", &err);
	CL_OK(err);

	{
		const void *objs[] = { dev, ctx, q, m, ev, p, k };
		size_t i;

		for (i = 0; i < ICD_TEST_ARRAY_SIZE(objs); i++) {
			const struct icd_head *h = objs[i];

			assert_ptr_equal(h->dispatch, d);
			assert_ptr_equal(h->dispatch_data, &cookie);
		}
	}
	CL_OK(d->clSetUserEventStatus(ev, CL_COMPLETE));
	CL_OK(d->clReleaseEvent(ev));
	CL_OK(d->clReleaseKernel(k));
	CL_OK(d->clReleaseProgram(p));
	CL_OK(d->clReleaseMemObject(m));
	CL_OK(d->clReleaseCommandQueue(q));
	CL_OK(d->clReleaseContext(ctx));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exports),
		cmocka_unit_test(test_dispatch_table),
		cmocka_unit_test(test_icd2),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s ICD_LIBRARY\n", argv[0]);
		return 2;
	}
	icd_path = argv[1];
	return cmocka_run_group_tests_name("icd-contract", tests,
					   contract_setup, contract_teardown);
}
