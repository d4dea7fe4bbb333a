/* SPDX-License-Identifier: MIT */
/*
 * Regression cases for what the Khronos OpenCL-CTS found wrong in the ICD
 * (icd/README.md, "Conformance"): one case per fix, named after the CTS
 * test that found it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

/* A one-kernel program and a zeroed buffer of @p size set as argument 0. */
struct one_kernel {
	cl_program prog;
	cl_kernel k;
	cl_mem buf;
};

static void one_kernel_setup(struct icd_env *env, struct one_kernel *o,
			     const char *src, const char *options, size_t size)
{
	cl_int zero = 0, err = CL_SUCCESS;

	o->prog = icd_test_build(env, src, options);
	o->k = clCreateKernel(o->prog, "k", &err);
	CL_OK(err);
	o->buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, size, NULL, &err);
	CL_OK(err);
	CL_OK(clEnqueueFillBuffer(env->queue, o->buf, &zero, sizeof(zero), 0,
				  size, 0, NULL, NULL));
	CL_OK(clSetKernelArg(o->k, 0, sizeof(o->buf), &o->buf));
}

static void one_kernel_teardown(struct one_kernel *o)
{
	CL_OK(clReleaseMemObject(o->buf));
	CL_OK(clReleaseKernel(o->k));
	CL_OK(clReleaseProgram(o->prog));
}

/* api/negative_get_device_ids, negative_create_context_from_type */
static void device_type_zero(void **state)
{
	struct icd_env *env = *state;
	cl_device_id dev;
	cl_uint n = 0;
	cl_int err = CL_SUCCESS;
	cl_context ctx;

	assert_int_equal(clGetDeviceIDs(env->platform, 0, 1, &dev, &n),
			 CL_INVALID_DEVICE_TYPE);
	ctx = clCreateContextFromType(NULL, 0, NULL, NULL, &err);
	assert_null(ctx);
	assert_int_equal(err, CL_INVALID_DEVICE_TYPE);
	/* every valid type still works */
	CL_OK(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &dev, &n));
	CL_OK(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_DEFAULT, 1, &dev,
			     &n));
}

/*
 * api/min_max_parameter_size: the parameter size promised must be
 * reachable with 8-byte arguments (libaccel limits the argument count).
 */
static void max_parameter_size_reachable(void **state)
{
	struct icd_env *env = *state;
	size_t max = 0, i, n_longs;
	size_t len, pos = 0;
	cl_long expect = 0, got = 0;
	cl_program prog;
	cl_kernel k;
	cl_mem out;
	cl_int err = CL_SUCCESS;
	char *src;

	if (!icd_test_have_compiler(env))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_PARAMETER_SIZE,
			      sizeof(max), &max, NULL));
	assert_true(max >= 1024); /* full profile minimum */
	n_longs = (max - sizeof(cl_mem)) / sizeof(cl_long);
	len = 128 + n_longs * 48;
	src = malloc(len);
	assert_non_null(src);
	pos += (size_t)snprintf(src + pos, len - pos, "kernel void k(");
	for (i = 0; i < n_longs; i++)
		pos += (size_t)snprintf(src + pos, len - pos, "long a%zu, ", i);
	pos += (size_t)snprintf(src + pos, len - pos,
				"global long *r)\n{\n\tr[0] = 0");
	for (i = 0; i < n_longs; i++)
		pos += (size_t)snprintf(src + pos, len - pos, " + a%zu", i);
	snprintf(src + pos, len - pos, ";\n}\n");
	prog = icd_test_build(env, src, NULL);
	free(src);
	k = clCreateKernel(prog, "k", &err);
	CL_OK(err);
	for (i = 0; i < n_longs; i++) {
		cl_long v = (cl_long)i * 3 + 1;

		CL_OK(clSetKernelArg(k, (cl_uint)i, sizeof(v), &v));
		expect += v;
	}
	out = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(got), NULL,
			     &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, (cl_uint)n_longs, sizeof(out), &out));
	CL_OK(clEnqueueTask(env->queue, k, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got),
				  &got, 0, NULL, NULL));
	assert_int_equal(got, expect);
	CL_OK(clReleaseMemObject(out));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
}

/* api/zero_sized_enqueue: OpenCL 2.1+, a NULL global size is no work */
static void null_global_size_is_no_work(void **state)
{
	static const char src[] =
		"kernel void k(global int *p) { p[get_global_id(0)] = 1; }\n";
	struct icd_env *env = *state;
	cl_int got[4] = { 7, 7, 7, 7 }, status = 0;
	struct one_kernel o;
	cl_event ev;
	int i;

	if (!icd_test_have_compiler(env))
		skip();
	one_kernel_setup(env, &o, src, NULL, sizeof(got));
	for (i = 1; i <= 3; i++) {
		CL_OK(clEnqueueNDRangeKernel(env->queue, o.k, (cl_uint)i, NULL,
					     NULL, NULL, 0, NULL, &ev));
		CL_OK(clWaitForEvents(1, &ev));
		CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
				     sizeof(status), &status, NULL));
		assert_int_equal(status, CL_COMPLETE);
		CL_OK(clReleaseEvent(ev));
	}
	CL_OK(clEnqueueReadBuffer(env->queue, o.buf, CL_TRUE, 0, sizeof(got),
				  got, 0, NULL, NULL));
	for (i = 0; i < 4; i++)
		assert_int_equal(got[i], 0);
	one_kernel_teardown(&o);
}

/*
 * compiler/features_macro: what the device reports of the atomics
 * (CL_DEVICE_OPENCL_C_FEATURES, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES) is
 * what an OpenCL C 3.0 kernel sees as feature macros.
 */
static const struct {
	const char *name;
	cl_device_atomic_capabilities cap;
} atomic_features[] = {
	{ "__opencl_c_atomic_order_acq_rel", CL_DEVICE_ATOMIC_ORDER_ACQ_REL },
	{ "__opencl_c_atomic_order_seq_cst", CL_DEVICE_ATOMIC_ORDER_SEQ_CST },
	{ "__opencl_c_atomic_scope_device", CL_DEVICE_ATOMIC_SCOPE_DEVICE },
	{ "__opencl_c_atomic_scope_all_devices",
	  CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES },
};

static bool has_feature(const cl_name_version *nv, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(nv[i].name, name))
			return true;
	return false;
}

static void atomic_features_match_macros(void **state)
{
	static const char src[] =
		"kernel void k(global int *out)\n"
		"{\n"
		"#ifdef __opencl_c_atomic_order_acq_rel\n"
		"	out[0] = 1;\n"
		"#endif\n"
		"#ifdef __opencl_c_atomic_order_seq_cst\n"
		"	out[1] = 1;\n"
		"#endif\n"
		"#ifdef __opencl_c_atomic_scope_device\n"
		"	out[2] = 1;\n"
		"#endif\n"
		"#ifdef __opencl_c_atomic_scope_all_devices\n"
		"	out[3] = 1;\n"
		"#endif\n"
		"}\n";
	struct icd_env *env = *state;
	cl_device_atomic_capabilities caps = 0, fence = 0;
	cl_name_version nv[64];
	cl_int got[4];
	struct one_kernel o;
	size_t i, n = 0;

	if (!icd_test_have_compiler(env))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES,
			      sizeof(nv), nv, &n));
	n /= sizeof(nv[0]);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
			      sizeof(caps), &caps, NULL));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
			      sizeof(fence), &fence, NULL));
	/* OpenCL 3.0's minimum */
	assert_true(caps & CL_DEVICE_ATOMIC_ORDER_RELAXED);
	assert_true(caps & CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
	assert_true(fence & CL_DEVICE_ATOMIC_ORDER_ACQ_REL);

	one_kernel_setup(env, &o, src, "-cl-std=CL3.0", sizeof(got));
	CL_OK(clEnqueueTask(env->queue, o.k, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, o.buf, CL_TRUE, 0, sizeof(got),
				  got, 0, NULL, NULL));
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(atomic_features); i++) {
		bool listed = has_feature(nv, n, atomic_features[i].name);
		bool cap = (caps & atomic_features[i].cap) != 0;

		if (listed != cap || listed != (got[i] == 1))
			fail_msg("%s: features list %d, capability %d, "
				 "macro %d", atomic_features[i].name, listed,
				 cap, got[i]);
	}
	one_kernel_teardown(&o);
}

/* api/kernel_attributes: every attribute the source gives, in its form */
static void kernel_attributes(void **state)
{
	static const char src[] =
		"__kernel __attribute__((vec_type_hint(uchar2)))\n"
		"__attribute__((work_group_size_hint(8, 2, 1)))\n"
		"__attribute__((reqd_work_group_size(4, 1, 1)))\n"
		"void k(global int *out) { out[get_global_id(0)] = 1; }\n";
	struct icd_env *env = *state;
	char attrs[256] = "";
	struct one_kernel o;

	if (!icd_test_have_compiler(env))
		skip();
	one_kernel_setup(env, &o, src, "", 64);
	CL_OK(clGetKernelInfo(o.k, CL_KERNEL_ATTRIBUTES, sizeof(attrs), attrs,
			      NULL));
	assert_non_null(strstr(attrs, "vec_type_hint(uchar2)"));
	assert_non_null(strstr(attrs, "work_group_size_hint(8,2,1)"));
	assert_non_null(strstr(attrs, "reqd_work_group_size(4,1,1)"));
	assert_true(attrs[strlen(attrs) - 1] != ' ');
	one_kernel_teardown(&o);
}

/*
 * api/consistency_il_programs: without IL support, specialization
 * constants are an invalid operation (not an invalid program); with it,
 * a program from source is an invalid program for them.
 */
static void spec_constant_without_il(void **state)
{
	static const char src[] = "kernel void k(void) { }\n";
	struct icd_env *env = *state;
	cl_int value = 1, err;
	char il[128] = "";
	size_t il_size = 1;
	cl_program p;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, sizeof(il), il,
			      &il_size));
	assert_int_equal(il_size, strlen(il) + 1);
	if (il_size > 1)
		assert_non_null(strstr(il, "SPIR-V_1.0"));
	assert_int_equal(clSetProgramSpecializationConstant(NULL, 0,
							    sizeof(value),
							    &value),
			 CL_INVALID_PROGRAM);
	if (!icd_test_have_compiler(env))
		skip();
	p = clCreateProgramWithSource(env->ctx, 1, (const char *[]){ src },
				      NULL, &err);
	CL_OK(err);
	assert_int_equal(clSetProgramSpecializationConstant(p, 0,
							    sizeof(value),
							    &value),
			 il_size > 1 ? CL_INVALID_PROGRAM :
				       CL_INVALID_OPERATION);
	CL_OK(clReleaseProgram(p));
}

/*
 * clCreateProgramWithIL: no input, or input that cannot be SPIR-V (not
 * whole words, no magic), is CL_INVALID_VALUE at creation; a module with
 * the magic that is not SPIR-V is a build failure with a log, and its
 * bytes come back as CL_PROGRAM_IL.
 */
static void il_program_bad_module(void **state)
{
	static const unsigned char junk[24] = { 0x03, 0x02, 0x23, 0x07, 9, 9 };
	struct icd_env *env = *state;
	unsigned char back[sizeof(junk)];
	cl_int value = 1, err;
	size_t n = 0;
	char log[4096];
	cl_program p;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, 0, NULL, &n));
	if (n <= 1)
		skip();
	assert_null(clCreateProgramWithIL(env->ctx, NULL, 4, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateProgramWithIL(env->ctx, junk, 0, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateProgramWithIL(env->ctx, junk, 22, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateProgramWithIL(env->ctx, junk + 4, 20, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	p = clCreateProgramWithIL(env->ctx, junk, sizeof(junk), &err);
	CL_OK(err);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_IL, sizeof(back), back, &n));
	assert_int_equal(n, sizeof(junk));
	assert_memory_equal(back, junk, sizeof(junk));
	assert_int_equal(clSetProgramSpecializationConstant(p, 3,
							    sizeof(value),
							    &value),
			 CL_INVALID_SPEC_ID);
	assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL),
			 CL_BUILD_PROGRAM_FAILURE);
	CL_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
				    sizeof(log), log, NULL));
	assert_true(strlen(log) > 0);
	CL_OK(clReleaseProgram(p));
}

/*
 * compiler/features_macro: CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, the
 * features list and the OpenCL C 3.0 macro agree, and the builtins the
 * feature brings tell global, local and private pointers apart.
 */
static void generic_address_space_matches_macro(void **state)
{
	static const char src[] =
		"kernel void k(global int *out, local int *l)\n"
		"{\n"
		"#ifdef __opencl_c_generic_address_space\n"
		"	int x = 0;\n"
		"	int *p[3] = { out + 1, l, &x };\n"
		"	out[0] = 1;\n"
		"	for (int i = 0; i < 3; i++)\n"
		"		out[1 + i] = (to_global(p[i]) ? 1 : 0) |\n"
		"			     (to_local(p[i]) ? 2 : 0) |\n"
		"			     (to_private(p[i]) ? 4 : 0) |\n"
		"			     get_fence(p[i]) << 4;\n"
		"#endif\n"
		"}\n";
	/* OpenCL C's CLK_LOCAL_MEM_FENCE is 1, CLK_GLOBAL_MEM_FENCE 2 */
	static const cl_int want[4] = { 1, 1 | 2 << 4, 2 | 1 << 4,
					4 | 2 << 4 };
	struct icd_env *env = *state;
	cl_bool support = CL_TRUE;
	cl_name_version nv[64];
	cl_int got[4];
	struct one_kernel o;
	size_t n = 0;

	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
			      sizeof(support), &support, NULL));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES,
			      sizeof(nv), nv, &n));
	n /= sizeof(nv[0]);
	assert_int_equal(support == CL_TRUE,
			 has_feature(nv, n,
				     "__opencl_c_generic_address_space"));
	if (!icd_test_have_compiler(env)) {
		assert_false(support);
		skip();
	}
	assert_true(support);
	one_kernel_setup(env, &o, src, "-cl-std=CL3.0", sizeof(got));
	CL_OK(clSetKernelArg(o.k, 1, 64, NULL));
	CL_OK(clEnqueueTask(env->queue, o.k, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, o.buf, CL_TRUE, 0, sizeof(got),
				  got, 0, NULL, NULL));
	for (size_t i = 0; i < 4; i++)
		if (got[i] != want[i])
			fail_msg("out[%zu] = %#x, want %#x", i, got[i],
				 want[i]);
	one_kernel_teardown(&o);
}

/* ---- cl_khr_semaphore --------------------------------------------------- */

/* cl_khr_semaphore 1.0's name (newer than Debian 12's headers). */
#ifndef CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR
#define CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR 0x2053
#endif

static struct {
	clCreateSemaphoreWithPropertiesKHR_fn create;
	clEnqueueWaitSemaphoresKHR_fn wait;
	clEnqueueSignalSemaphoresKHR_fn signal;
	clGetSemaphoreInfoKHR_fn info;
	clReleaseSemaphoreKHR_fn release;
} sema;

static void *sema_fn(struct icd_env *env, const char *name)
{
	void *p = clGetExtensionFunctionAddressForPlatform(env->platform,
							   name);

	assert_non_null(p);
	return p;
}

/* The entry points, as an application finds them. */
static void sema_load(struct icd_env *env)
{
	sema.create = sema_fn(env, "clCreateSemaphoreWithPropertiesKHR");
	sema.wait = sema_fn(env, "clEnqueueWaitSemaphoresKHR");
	sema.signal = sema_fn(env, "clEnqueueSignalSemaphoresKHR");
	sema.info = sema_fn(env, "clGetSemaphoreInfoKHR");
	sema.release = sema_fn(env, "clReleaseSemaphoreKHR");
}

/* A binary semaphore of @p ctx (no device list, no export). */
static cl_semaphore_khr sema_binary(cl_context ctx, cl_int *err)
{
	static const cl_semaphore_properties_khr props[] = {
		CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0
	};

	return sema.create(ctx, props, err);
}

/*
 * cl_khr_semaphore/semaphores_negative_{wait,signal}_invalid_event_status:
 * an event of the wait list that has failed fails the call, which then
 * enqueues nothing (the semaphore keeps its state).
 */
static void semaphore_failed_wait_list(void **state)
{
	struct icd_env *env = *state;
	cl_semaphore_payload_khr payload = 7;
	cl_event failed, cmd, pending, ev = NULL;
	cl_semaphore_khr s;
	cl_int err = CL_SUCCESS;

	sema_load(env);
	s = sema_binary(env->ctx, &err);
	CL_OK(err);
	failed = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(clSetUserEventStatus(failed, -1));

	/* signal: a failed user event */
	assert_int_equal(sema.signal(env->queue, 1, &s, NULL, 1, &failed,
				     &ev),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	assert_null(ev);
	/* nothing signalled: there is nothing to wait for */
	assert_int_equal(sema.wait(env->queue, 1, &s, NULL, 0, NULL, NULL),
			 CL_INVALID_OPERATION);

	/* wait: the semaphore is signalled, the wait list has failed */
	CL_OK(sema.signal(env->queue, 1, &s, NULL, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	assert_int_equal(sema.wait(env->queue, 1, &s, NULL, 1, &failed, &ev),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	assert_null(ev);
	CL_OK(sema.info(s, CL_SEMAPHORE_PAYLOAD_KHR, sizeof(payload), &payload,
			NULL));
	assert_int_equal(payload, 1); /* still signalled: not consumed */

	/* a command that failed with it counts the same */
	CL_OK(clEnqueueMarkerWithWaitList(env->queue, 1, &failed, &cmd));
	assert_int_equal(clWaitForEvents(1, &cmd),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	assert_int_equal(sema.wait(env->queue, 1, &s, NULL, 1, &cmd, NULL),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);

	/* an event still pending is no error */
	pending = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(sema.wait(env->queue, 1, &s, NULL, 1, &pending, &ev));
	CL_OK(clSetUserEventStatus(pending, CL_COMPLETE));
	CL_OK(clWaitForEvents(1, &ev));
	CL_OK(sema.info(s, CL_SEMAPHORE_PAYLOAD_KHR, sizeof(payload), &payload,
			NULL));
	assert_int_equal(payload, 0);

	CL_OK(clReleaseEvent(ev));
	CL_OK(clReleaseEvent(pending));
	CL_OK(clReleaseEvent(cmd));
	CL_OK(clReleaseEvent(failed));
	CL_OK(sema.release(s));
}

/*
 * cl_khr_semaphore/semaphores_no_device_list_queries: without
 * CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR a semaphore is associated with every
 * device of its context, which must then have only one.
 */
static void semaphore_no_device_list(void **state)
{
	struct icd_env *env = *state;
	cl_device_id devs[2], got[2] = { NULL, NULL };
	cl_semaphore_khr s;
	cl_context ctx;
	cl_uint n = 0;
	cl_int err = CL_SUCCESS;
	size_t size = 0;

	sema_load(env);
	s = sema_binary(env->ctx, &err);
	CL_OK(err);
	CL_OK(sema.info(s, CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR, sizeof(got),
			got, &size));
	assert_int_equal(size, sizeof(cl_device_id));
	assert_ptr_equal(got[0], env->device);
	CL_OK(sema.release(s));

	/* A context of several devices needs the list (where there are). */
	CL_OK(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 2, devs, &n));
	if (n < 2)
		return;
	ctx = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
	CL_OK(err);
	assert_null(sema_binary(ctx, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	CL_OK(clReleaseContext(ctx));
}

/*
 * piglit api@clsetkernelarg: a kernel may declare a sampler_t argument on
 * a device without images; the program builds, and every value set for
 * the sampler is refused (no cl_sampler can be made), with
 * CL_INVALID_ARG_SIZE for a wrong size.
 */
static void sampler_argument_without_images(void **state)
{
	static const char src[] =
		"kernel void k(global int *out, sampler_t s, int v)\n"
		"{ out[get_global_id(0)] = v; }\n";
	struct icd_env *env = *state;
	cl_sampler sampler = NULL;
	cl_kernel k;
	cl_program p;
	cl_int err, v = 7;
	cl_bool images = CL_TRUE;

	if (!icd_test_have_compiler(env))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT,
			      sizeof(images), &images, NULL));
	if (images)
		skip();
	p = icd_test_build(env, src, NULL);
	k = clCreateKernel(p, "k", &err);
	CL_OK(err);
	assert_int_equal(clSetKernelArg(k, 1, sizeof(cl_sampler), NULL),
			 CL_INVALID_SAMPLER);
	assert_int_equal(clSetKernelArg(k, 1, sizeof(cl_sampler), &sampler),
			 CL_INVALID_SAMPLER);
	assert_int_equal(clSetKernelArg(k, 1, sizeof(cl_sampler) + 1,
					&sampler), CL_INVALID_ARG_SIZE);
	/* the other arguments are as usual */
	CL_OK(clSetKernelArg(k, 2, sizeof(v), &v));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(device_type_zero),
		T(max_parameter_size_reachable),
		T(null_global_size_is_no_work),
		T(atomic_features_match_macros),
		T(kernel_attributes),
		T(spec_constant_without_il),
		T(il_program_bad_module),
		T(generic_address_space_matches_macro),
		T(semaphore_failed_wait_list),
		T(semaphore_no_device_list),
		T(sampler_argument_without_images),
	};
#undef T

	return ICD_TEST_RUN("icd-conformance", tests);
}
