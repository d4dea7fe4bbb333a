/* SPDX-License-Identifier: MIT */
/*
 * The ICD contract, platform and device queries, contexts and command
 * queues, through the ICD loader.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

static bool il_supported(struct icd_env *env)
{
	size_t n = 0;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, 0, NULL, &n));
	return n > 1;
}

static void test_platform_ids(void **state)
{
	cl_platform_id p = icd_test_platform();
	cl_int (*get_ids)(cl_uint, cl_platform_id *, cl_uint *);
	cl_platform_id mine = NULL;
	cl_uint n = 0;

	(void)state;
	assert_non_null(p);
	/* The loader routes this one to us: cl_khr_icd's own function. */
	get_ids = (cl_int(*)(cl_uint, cl_platform_id *, cl_uint *))
		clGetExtensionFunctionAddressForPlatform(p,
							 "clIcdGetPlatformIDsKHR");
	assert_non_null(get_ids);
	CL_OK(get_ids(0, NULL, &n));
	assert_int_equal(n, 1);
	CL_OK(get_ids(1, &mine, NULL));
	assert_ptr_equal(mine, p);
	assert_int_equal(get_ids(0, &mine, NULL), CL_INVALID_VALUE);
	assert_int_equal(get_ids(0, NULL, NULL), CL_INVALID_VALUE);
	/* cl_khr_icd 2.0.0 entry points are there for new loaders */
	assert_non_null(clGetExtensionFunctionAddressForPlatform(
		p, "clIcdGetFunctionAddressForPlatformKHR"));
	assert_non_null(clGetExtensionFunctionAddressForPlatform(
		p, "clIcdSetPlatformDispatchDataKHR"));
	/* core functions are not extensions */
	assert_null(clGetExtensionFunctionAddressForPlatform(p, "clFinish"));
	assert_null(clGetExtensionFunctionAddressForPlatform(
		p, "clNoSuchFunctionACCEL"));
}

static void test_platform_info(void **state)
{
	cl_platform_id p = icd_test_platform();
	char buf[4096];
	size_t size = 0;
	cl_version v = 0;
	cl_ulong res = 0;

	(void)state;
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(buf), buf,
				&size));
	assert_int_equal(size, strlen(buf) + 1);
	assert_true(!strncmp(buf, "OpenCL 3.0 libaccel", 19));
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof(v), &v,
				NULL));
	assert_int_equal(v, CL_MAKE_VERSION(3, 0, 0));
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_PROFILE, sizeof(buf), buf,
				NULL));
	assert_string_equal(buf, "FULL_PROFILE");
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_ICD_SUFFIX_KHR, sizeof(buf),
				buf, NULL));
	assert_string_equal(buf, "ACCEL");
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS, sizeof(buf), buf,
				NULL));
	assert_non_null(strstr(buf, "cl_khr_icd"));
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0,
				NULL, &size));
	assert_true(size >= sizeof(cl_name_version));
	assert_int_equal(size % sizeof(cl_name_version), 0);
	CL_OK(clGetPlatformInfo(p, CL_PLATFORM_HOST_TIMER_RESOLUTION,
				sizeof(res), &res, NULL));
	assert_true(res > 0);

	/* too small, unknown parameter */
	assert_int_equal(clGetPlatformInfo(p, CL_PLATFORM_NAME, 2, buf, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetPlatformInfo(p, 0x7fff, sizeof(buf), buf, NULL),
			 CL_INVALID_VALUE);
}

static void test_device_ids(void **state)
{
	cl_platform_id p = icd_test_platform();
	cl_device_id dev = NULL, devs[8];
	cl_device_type type = 0;
	cl_uint n = 0, n_cpu = 0;

	(void)state;
	CL_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n));
	assert_true(n >= 1);
	CL_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 1, &dev, NULL));
	assert_non_null(dev);
	/* the reference device is a CPU */
	CL_OK(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 8, devs, &n_cpu));
	assert_true(n_cpu >= 1);
	CL_OK(clGetDeviceInfo(devs[0], CL_DEVICE_TYPE, sizeof(type), &type,
			      NULL));
	assert_int_equal(type, CL_DEVICE_TYPE_CPU);

	assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_CUSTOM, 1, &dev, &n),
			 CL_DEVICE_NOT_FOUND);
	assert_int_equal(n, 0);
	assert_int_equal(clGetDeviceIDs(p, (cl_device_type)1 << 40, 1, &dev,
					NULL),
			 CL_INVALID_DEVICE_TYPE);
	assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &dev, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	/* root devices: retain and release are accepted no-ops */
	CL_OK(clRetainDevice(dev));
	CL_OK(clReleaseDevice(dev));
}

/* Every OpenCL 3.0 device query must answer. */
static void test_device_info_all(void **state)
{
	static const cl_device_info params[] = {
		CL_DEVICE_TYPE, CL_DEVICE_VENDOR_ID,
		CL_DEVICE_MAX_COMPUTE_UNITS, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
		CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
		CL_DEVICE_MAX_CLOCK_FREQUENCY, CL_DEVICE_ADDRESS_BITS,
		CL_DEVICE_MAX_READ_IMAGE_ARGS, CL_DEVICE_MAX_WRITE_IMAGE_ARGS,
		CL_DEVICE_MAX_MEM_ALLOC_SIZE, CL_DEVICE_IMAGE2D_MAX_WIDTH,
		CL_DEVICE_IMAGE2D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_WIDTH,
		CL_DEVICE_IMAGE3D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_DEPTH,
		CL_DEVICE_IMAGE_SUPPORT, CL_DEVICE_MAX_PARAMETER_SIZE,
		CL_DEVICE_MAX_SAMPLERS, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
		CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, CL_DEVICE_SINGLE_FP_CONFIG,
		CL_DEVICE_GLOBAL_MEM_CACHE_TYPE,
		CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE,
		CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, CL_DEVICE_GLOBAL_MEM_SIZE,
		CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, CL_DEVICE_MAX_CONSTANT_ARGS,
		CL_DEVICE_LOCAL_MEM_TYPE, CL_DEVICE_LOCAL_MEM_SIZE,
		CL_DEVICE_ERROR_CORRECTION_SUPPORT,
		CL_DEVICE_PROFILING_TIMER_RESOLUTION, CL_DEVICE_ENDIAN_LITTLE,
		CL_DEVICE_AVAILABLE, CL_DEVICE_COMPILER_AVAILABLE,
		CL_DEVICE_EXECUTION_CAPABILITIES,
		CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, CL_DEVICE_NAME,
		CL_DEVICE_VENDOR, CL_DRIVER_VERSION, CL_DEVICE_PROFILE,
		CL_DEVICE_VERSION, CL_DEVICE_EXTENSIONS, CL_DEVICE_PLATFORM,
		CL_DEVICE_DOUBLE_FP_CONFIG,
		CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
		CL_DEVICE_HOST_UNIFIED_MEMORY,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
		CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, CL_DEVICE_OPENCL_C_VERSION,
		CL_DEVICE_LINKER_AVAILABLE, CL_DEVICE_BUILT_IN_KERNELS,
		CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE,
		CL_DEVICE_PARENT_DEVICE, CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
		CL_DEVICE_PARTITION_PROPERTIES,
		CL_DEVICE_PARTITION_AFFINITY_DOMAIN, CL_DEVICE_PARTITION_TYPE,
		CL_DEVICE_REFERENCE_COUNT, CL_DEVICE_PREFERRED_INTEROP_USER_SYNC,
		CL_DEVICE_PRINTF_BUFFER_SIZE, CL_DEVICE_IMAGE_PITCH_ALIGNMENT,
		CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT,
		CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS,
		CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE,
		CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES,
		CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE,
		CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
		CL_DEVICE_MAX_ON_DEVICE_QUEUES, CL_DEVICE_MAX_ON_DEVICE_EVENTS,
		CL_DEVICE_SVM_CAPABILITIES,
		CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
		CL_DEVICE_MAX_PIPE_ARGS, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS,
		CL_DEVICE_PIPE_MAX_PACKET_SIZE,
		CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT,
		CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT,
		CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, CL_DEVICE_IL_VERSION,
		CL_DEVICE_MAX_NUM_SUB_GROUPS,
		CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
		CL_DEVICE_NUMERIC_VERSION, CL_DEVICE_EXTENSIONS_WITH_VERSION,
		CL_DEVICE_ILS_WITH_VERSION,
		CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION,
		CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
		CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
		CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
		CL_DEVICE_OPENCL_C_ALL_VERSIONS,
		CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
		CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
		CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
		CL_DEVICE_OPENCL_C_FEATURES,
		CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, CL_DEVICE_PIPE_SUPPORT,
		CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED,
		CL_DEVICE_HALF_FP_CONFIG,
		CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR,
	};
	struct icd_env *env = *state;
	size_t i;

	for (i = 0; i < ICD_TEST_ARRAY_SIZE(params); i++) {
		size_t size = 0;
		void *buf;
		cl_int r;

		r = clGetDeviceInfo(env->device, params[i], 0, NULL, &size);
		if (r != CL_SUCCESS)
			fail_msg("param 0x%x: %d", (unsigned)params[i], r);
		buf = malloc(size ? size : 1);
		assert_non_null(buf);
		r = clGetDeviceInfo(env->device, params[i], size, buf, NULL);
		if (r != CL_SUCCESS)
			fail_msg("param 0x%x: %d", (unsigned)params[i], r);
		free(buf);
	}
	assert_int_equal(clGetDeviceInfo(env->device, 0x7fff, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	/* another object type where a device is expected */
	assert_int_equal(clGetDeviceInfo((cl_device_id)env->ctx,
					 CL_DEVICE_NAME, 0, NULL, NULL),
			 CL_INVALID_DEVICE);
}

static void test_device_info_values(void **state)
{
	struct icd_env *env = *state;
	char buf[4096];
	cl_bool b = CL_TRUE;
	cl_uint align = 0;
	cl_device_svm_capabilities svm = 1;
	cl_name_version nv[8];
	size_t size = 0, sizes[3];
	cl_platform_id p = NULL;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof(buf),
			      buf, NULL));
	assert_string_equal(buf, "OpenCL 3.0 libaccel");
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_VERSION,
			      sizeof(buf), buf, NULL));
	assert_true(!strncmp(buf, "OpenCL C 1.2", 12));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS,
			      sizeof(nv), nv, &size));
	assert_int_equal(size, 4 * sizeof(cl_name_version));
	assert_int_equal(nv[2].version, CL_MAKE_VERSION(1, 2, 0));
	assert_int_equal(nv[3].version, CL_MAKE_VERSION(3, 0, 0));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_PLATFORM, sizeof(p), &p,
			      NULL));
	assert_ptr_equal(p, env->platform);
	/* pipes are reported absent */
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT, sizeof(b),
			      &b, NULL));
	assert_false(b);
	/* the CPU device works on host memory: every kind of SVM */
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES,
			      sizeof(svm), &svm, NULL));
	assert_int_equal(svm, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
				      CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
				      CL_DEVICE_SVM_FINE_GRAIN_SYSTEM |
				      CL_DEVICE_SVM_ATOMICS);
	b = CL_TRUE;
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT, sizeof(b),
			      &b, NULL));
	assert_false(b);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
			      sizeof(align), &align, NULL));
	assert_true(align >= 8 * 16 && (align & (align - 1)) == 0);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
			      sizeof(sizes), sizes, NULL));
	assert_true(sizes[0] >= 1 && sizes[1] >= 1 && sizes[2] >= 1);
	/* platform extensions are a subset of... the device's plus ICD */
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(buf),
			      buf, NULL));
	assert_null(strstr(buf, "cl_khr_icd"));
}

static void test_host_timer(void **state)
{
	struct icd_env *env = *state;
	cl_ulong d = 0, h = 0, h2 = 0;

	CL_OK(clGetDeviceAndHostTimer(env->device, &d, &h));
	CL_OK(clGetHostTimer(env->device, &h2));
	assert_true(d > 0 && h2 >= h);
	assert_int_equal(clGetHostTimer(env->device, NULL), CL_INVALID_VALUE);
}

static unsigned destructor_calls;

static void CL_CALLBACK context_destructor(cl_context ctx, void *data)
{
	(void)ctx;
	destructor_calls = destructor_calls * 10 + (unsigned)(uintptr_t)data;
}

static void test_context(void **state)
{
	struct icd_env *env = *state;
	cl_context_properties props[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0
	};
	cl_context_properties got[8];
	cl_device_id devs[2];
	cl_uint refs = 0, n = 0;
	cl_context ctx;
	size_t size = 0;
	cl_int err = CL_SUCCESS;

	ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
	CL_OK(err);
	CL_OK(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, sizeof(got), got,
			       &size));
	assert_int_equal(size, sizeof(props));
	assert_memory_equal(got, props, sizeof(props));
	CL_OK(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof(n), &n,
			       NULL));
	assert_int_equal(n, 1);
	CL_OK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof(devs), devs,
			       &size));
	assert_int_equal(size, sizeof(cl_device_id));
	assert_ptr_equal(devs[0], env->device);
	CL_OK(clRetainContext(ctx));
	CL_OK(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs),
			       &refs, NULL));
	assert_int_equal(refs, 2);
	CL_OK(clReleaseContext(ctx));

	/* destructor callbacks: newest first, when the context goes */
	destructor_calls = 0;
	CL_OK(clSetContextDestructorCallback(ctx, context_destructor,
					     (void *)1));
	CL_OK(clSetContextDestructorCallback(ctx, context_destructor,
					     (void *)2));
	assert_int_equal(clSetContextDestructorCallback(ctx, NULL, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseContext(ctx));
	assert_int_equal(destructor_calls, 21);

	ctx = clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL,
				      &err);
	CL_OK(err);
	CL_OK(clReleaseContext(ctx));
}

static void test_context_errors(void **state)
{
	struct icd_env *env = *state;
	cl_context_properties bad[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
		0x7777, 1, 0
	};
	cl_context_properties twice[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
		CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0
	};
	cl_device_id not_a_device = (cl_device_id)env->queue;
	cl_int err = CL_SUCCESS;

	assert_null(clCreateContext(NULL, 0, &env->device, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateContext(NULL, 1, NULL, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateContext(NULL, 1, &env->device, NULL, (void *)1,
				    &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateContext(NULL, 1, &not_a_device, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_DEVICE);
	assert_null(clCreateContext(bad, 1, &env->device, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_null(clCreateContext(twice, 1, &env->device, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_null(clCreateContextFromType(NULL, CL_DEVICE_TYPE_CUSTOM, NULL,
					    NULL, &err));
	assert_int_equal(err, CL_DEVICE_NOT_FOUND);
	assert_null(clCreateContextFromType(NULL, (cl_device_type)1 << 40,
					    NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_DEVICE_TYPE);
	/* a queue is not a context */
	assert_int_equal(clRetainContext((cl_context)env->queue),
			 CL_INVALID_CONTEXT);
	assert_int_equal(clGetContextInfo(env->ctx, 0x7777, 0, NULL, NULL),
			 CL_INVALID_VALUE);
}

static void test_queue(void **state)
{
	struct icd_env *env = *state;
	cl_queue_properties props[] = {
		CL_QUEUE_PROPERTIES,
		CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
		0
	};
	cl_queue_properties got[4];
	cl_command_queue_properties qp = 0;
	cl_command_queue q;
	cl_context ctx = NULL;
	cl_device_id dev = NULL;
	cl_uint refs = 0;
	size_t size = 0;
	cl_int err = CL_SUCCESS;

	q = clCreateCommandQueueWithProperties(env->ctx, env->device, props,
					       &err);
	CL_OK(err);
	CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(qp), &qp,
				    NULL));
	assert_int_equal(qp, props[1]);
	CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof(got),
				    got, &size));
	assert_int_equal(size, sizeof(props));
	assert_memory_equal(got, props, sizeof(props));
	CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(ctx), &ctx,
				    NULL));
	assert_ptr_equal(ctx, env->ctx);
	CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev,
				    NULL));
	assert_ptr_equal(dev, env->device);
	CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(refs),
				    &refs, NULL));
	assert_int_equal(refs, 1);
	assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_SIZE, 0, NULL,
					       NULL),
			 CL_INVALID_COMMAND_QUEUE);
	CL_OK(clFlush(q));
	CL_OK(clFinish(q));
	CL_OK(clReleaseCommandQueue(q));

	/* the OpenCL 1.x constructor */
	q = clCreateCommandQueue(env->ctx, env->device,
				 CL_QUEUE_PROFILING_ENABLE, &err);
	CL_OK(err);
	CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL,
				    &size));
	assert_int_equal(size, 0);
	CL_OK(clReleaseCommandQueue(q));
}

static void test_queue_errors(void **state)
{
	struct icd_env *env = *state;
	cl_queue_properties bad_key[] = { 0x7777, 0, 0 };
	cl_queue_properties device_queue[] = {
		CL_QUEUE_PROPERTIES,
		CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0
	};
	cl_queue_properties bad_bits[] = { CL_QUEUE_PROPERTIES, 1 << 20, 0 };
	cl_queue_properties host_size[] = { CL_QUEUE_SIZE, 1024, 0 };
	cl_int err = CL_SUCCESS;

	assert_null(clCreateCommandQueueWithProperties(env->ctx, env->device,
						       bad_key, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateCommandQueueWithProperties(env->ctx, env->device,
						       bad_bits, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateCommandQueueWithProperties(env->ctx, env->device,
						       host_size, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	/* valid, but no device-side enqueue */
	assert_null(clCreateCommandQueueWithProperties(env->ctx, env->device,
						       device_queue, &err));
	assert_int_equal(err, CL_INVALID_QUEUE_PROPERTIES);
	assert_null(clCreateCommandQueue(env->ctx, (cl_device_id)env->ctx, 0,
					 &err));
	assert_int_equal(err, CL_INVALID_DEVICE);
	assert_int_equal(clFinish((cl_command_queue)env->ctx),
			 CL_INVALID_COMMAND_QUEUE);
	assert_int_equal(clRetainCommandQueue((cl_command_queue)env->ctx),
			 CL_INVALID_COMMAND_QUEUE);
	assert_int_equal(clSetDefaultDeviceCommandQueue(env->ctx, env->device,
							env->queue),
			 CL_INVALID_OPERATION);
}

static void test_unsupported(void **state)
{
	struct icd_env *env = *state;
	cl_image_format fmt = { CL_RGBA, CL_UNORM_INT8 };
	cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D,
			       .image_width = 4,
			       .image_height = 4 };
	cl_bool images = CL_TRUE;
	cl_uint n = 7;
	cl_int err = CL_SUCCESS;

	/* images where the device has them (test-icd-image.c), else none */
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT,
			      sizeof(images), &images, NULL));
	if (!images) {
		assert_null(clCreateImage(env->ctx, CL_MEM_READ_WRITE, &fmt,
					  &desc, NULL, &err));
		assert_int_equal(err, CL_INVALID_OPERATION);
		CL_OK(clGetSupportedImageFormats(env->ctx, CL_MEM_READ_WRITE,
						 CL_MEM_OBJECT_IMAGE2D, 0,
						 NULL, &n));
		assert_int_equal(n, 0);
		assert_null(clCreateSamplerWithProperties(env->ctx, NULL,
							  &err));
		assert_int_equal(err, CL_INVALID_OPERATION);
	}
	assert_null(clCreatePipe(env->ctx, 0, 4, 4, NULL, &err));
	assert_int_equal(err, CL_INVALID_OPERATION);
	/* IL only where the device takes it (llvm-spirv-15 installed) */
	if (!il_supported(env)) {
		assert_null(clCreateProgramWithIL(env->ctx, "x", 1, &err));
		assert_int_equal(err, CL_INVALID_OPERATION);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_platform_ids),
		cmocka_unit_test(test_platform_info),
		cmocka_unit_test(test_device_ids),
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
		T(test_device_info_all),
		T(test_device_info_values),
		T(test_host_timer),
		T(test_context),
		T(test_context_errors),
		T(test_queue),
		T(test_queue_errors),
		T(test_unsupported),
#undef T
	};

	return ICD_TEST_RUN("icd-platform", tests);
}
