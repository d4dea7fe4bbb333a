/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_command_buffer_mutable_dispatch 0.9.5 through the ICD loader: the
 * device queries and extension version, the flags and properties of
 * command-buffers and ND-range commands, clGetMutableCommandInfoKHR,
 * clUpdateMutableCommandsKHR and each of its errors (nothing changes when
 * one config of a call fails), argument, offset, global and local size
 * updates checked by the results of several enqueues, an update while an
 * earlier enqueue still waits, arguments left unset at recording, and SVM
 * pointer arguments with execution info.
 *
 * The functions come from clGetExtensionFunctionAddressForPlatform with
 * the 0.9.5 signatures, declared here: Debian 12's headers have 0.9.0's.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-command-buffer.h"

/* values of 0.9.5 Debian's headers lack or have otherwise */
#define CONFIG_TYPE 0 /* CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR */
#define PROPERTIES_ARRAY 0x12A2 /* CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR */
#define STATE_FINALIZED 2       /* CL_COMMAND_BUFFER_STATE_FINALIZED_KHR */
#define CB_ASSERTS 0x12B7       /* CL_COMMAND_BUFFER_MUTABLE_DISPATCH_... */
#define CMD_ASSERTS 0x12B8      /* CL_MUTABLE_DISPATCH_ASSERTS_KHR */
#define NO_MORE_GROUPS 1        /* ..._ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR */

static struct icd_cb_fns cb;

#define N 64

static const char *const src =
	"kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
	"kernel void where(global int *p) {\n"
	"	size_t i = get_global_id(0);\n"
	"	p[i - get_global_offset(0)] = (int)(i * 1000 +\n"
	"		get_local_size(0) * 10 + get_num_groups(0) % 10);\n"
	"}\n"
	"kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
	"void fixed(global int *p) { p[get_global_id(0)] = 1; }\n";

static void load(struct icd_env *env)
{
	icd_cb_load(env->platform, &cb);
}

static cl_mem buffer(struct icd_env *env)
{
	cl_int err = CL_SUCCESS, zero = 0;
	cl_mem m;

	m = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
	CL_OK(err);
	CL_OK(clEnqueueFillBuffer(env->queue, m, &zero, 4, 0, N * 4, 0, NULL,
				  NULL));
	return m;
}

static cl_command_buffer_khr create(cl_command_queue q,
				    cl_command_buffer_flags_khr flags)
{
	cl_command_buffer_properties_khr props[] = {
		CL_COMMAND_BUFFER_FLAGS_KHR, flags, 0
	};
	cl_int err = CL_SUCCESS;
	cl_command_buffer_khr b = cb.create(1, &q, props, &err);

	CL_OK(err);
	assert_non_null(b);
	return b;
}

static cl_kernel kernel(cl_program p, const char *name)
{
	cl_int err = CL_SUCCESS;
	cl_kernel k = clCreateKernel(p, name, &err);

	CL_OK(err);
	return k;
}

static void expect(cl_command_queue q, cl_mem m, size_t n, cl_int want)
{
	cl_int got[N];

	CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * 4, got, 0, NULL,
				  NULL));
	for (size_t i = 0; i < n; i++)
		if (got[i] != want)
			fail_msg("[%zu] = %d, want %d", i, got[i], want);
}

/* One config of one update call. */
static cl_int update1(cl_command_buffer_khr b,
		      const struct icd_mutable_config *c)
{
	cl_uint type = CONFIG_TYPE;
	const void *configs[1] = { c };

	return cb.update(b, 1, &type, configs);
}

static cl_uint cb_state(cl_command_buffer_khr b)
{
	cl_uint v = ~0u;

	CL_OK(cb.info(b, CL_COMMAND_BUFFER_STATE_KHR, sizeof(v), &v, NULL));
	return v;
}

static void test_device_queries(void **state)
{
	struct icd_env *env = *state;
	cl_mutable_dispatch_fields_khr caps = 0, want;
	cl_device_svm_capabilities svm = 0;
	cl_name_version *nv;
	size_t size = 0;
	char ext[8192];
	bool found = false;

	load(env);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext),
			      ext, NULL));
	assert_non_null(strstr(ext, "cl_khr_command_buffer_mutable_dispatch"));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
			      0, NULL, &size));
	nv = malloc(size);
	assert_non_null(nv);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
			      size, nv, NULL));
	for (size_t i = 0; i < size / sizeof(*nv); i++)
		if (!strcmp(nv[i].name,
			    "cl_khr_command_buffer_mutable_dispatch")) {
			assert_int_equal(nv[i].version,
					 CL_MAKE_VERSION(0, 9, 5));
			found = true;
		}
	free(nv);
	assert_true(found);
	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR,
			      sizeof(caps), &caps, NULL));
	clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof(svm),
			&svm, NULL);
	want = CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR |
	       CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |
	       CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR |
	       CL_MUTABLE_DISPATCH_ARGUMENTS_KHR;
	if (svm)
		want |= CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;
	assert_int_equal(caps, want);
}

static void test_create_and_record(void **state)
{
	struct icd_env *env = *state;
	cl_command_buffer_properties_khr asserts[] = {
		CL_COMMAND_BUFFER_FLAGS_KHR,
		CL_COMMAND_BUFFER_MUTABLE_KHR |
			CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
		CB_ASSERTS, NO_MORE_GROUPS, 0
	};
	cl_command_buffer_properties_khr bad_assert[] = { CB_ASSERTS, 2, 0 };
	cl_command_buffer_properties_khr twice[] = {
		CB_ASSERTS, 0, CB_ASSERTS, 0, 0
	};
	cmd_props unknown[] = { 0x4242, 0, 0 };
	cmd_props bad_field[] = { CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
				  1 << 5, 0 };
	cmd_props fields_twice[] = {
		CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0,
		CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0, 0
	};
	cmd_props cmd_assert[] = { CMD_ASSERTS, NO_MORE_GROUPS, 0 };
	cmd_props exec_info[] = { CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
				  CL_MUTABLE_DISPATCH_EXEC_INFO_KHR, 0 };
	cl_mutable_dispatch_fields_khr caps = 0;
	size_t global = N, local = 8;
	cl_mutable_command_khr h = NULL;
	cl_mem buf = buffer(env);
	cl_program p = icd_test_build(env, src, NULL);
	cl_kernel k = kernel(p, "where");
	cl_command_buffer_khr b;
	cl_int err = CL_SUCCESS;

	load(env);
	CL_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
	assert_null(cb.create(1, &env->queue, bad_assert, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(cb.create(1, &env->queue, twice, &err));
	assert_int_equal(err, CL_INVALID_VALUE);

	b = cb.create(1, &env->queue, asserts, &err);
	CL_OK(err);
	assert_int_equal(cb.ndrange(b, NULL, unknown, k, 1, NULL, &global,
				    &local, 0, NULL, NULL, &h),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.ndrange(b, NULL, bad_field, k, 1, NULL, &global,
				    &local, 0, NULL, NULL, &h),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.ndrange(b, NULL, fields_twice, k, 1, NULL, &global,
				    &local, 0, NULL, NULL, &h),
			 CL_INVALID_VALUE);
	/* the command-buffer's assertion needs a local size */
	assert_int_equal(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL,
				    0, NULL, NULL, &h),
			 CL_INVALID_VALUE);
	assert_null(h);
	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR,
			      sizeof(caps), &caps, NULL));
	if (!(caps & CL_MUTABLE_DISPATCH_EXEC_INFO_KHR))
		assert_int_equal(cb.ndrange(b, NULL, exec_info, k, 1, NULL,
					    &global, &local, 0, NULL, NULL,
					    &h),
				 CL_INVALID_OPERATION);
	CL_OK(cb.ndrange(b, NULL, cmd_assert, k, 1, NULL, &global, &local, 0,
			 NULL, NULL, &h));
	assert_non_null(h);
	CL_OK(cb.finalize(b));
	CL_OK(cb.release(b));

	/* the command's assertion too */
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	assert_int_equal(cb.ndrange(b, NULL, cmd_assert, k, 1, NULL, &global,
				    NULL, 0, NULL, NULL, NULL),
			 CL_INVALID_VALUE);
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(buf));
}

static void test_info(void **state)
{
	struct icd_env *env = *state;
	cmd_props props[] = { CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
			      CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR, 0 };
	cmd_props got[4] = { 0 };
	size_t global[2] = { 8, 4 }, offset[2] = { 2, 3 }, local[2] = { 4, 2 };
	size_t dims[3] = { 0 }, size = 0, bigger[2] = { 16, 4 };
	cl_mutable_command_khr h = NULL, h2 = NULL;
	cl_mem buf = buffer(env);
	cl_program p = icd_test_build(env, src, NULL);
	cl_kernel k = kernel(p, "add"), kk = NULL;
	cl_command_buffer_khr b, bb = NULL;
	cl_command_queue q = NULL;
	cl_command_type type = 0;
	cl_uint dim = 0;
	cl_int one = 1;
	struct icd_mutable_config c = { 0 };

	load(env);
	CL_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
	CL_OK(clSetKernelArg(k, 1, sizeof(one), &one));
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	CL_OK(cb.ndrange(b, NULL, props, k, 2, offset, global, local, 0, NULL,
			 NULL, &h));
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, global, NULL, 0, NULL,
			 NULL, &h2));
	/* the handle holds the kernel */
	CL_OK(clReleaseKernel(k));

	CL_OK(cb.cmd_info(h, CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR, sizeof(q),
			  &q, NULL));
	assert_ptr_equal(q, env->queue);
	CL_OK(cb.cmd_info(h, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, sizeof(bb),
			  &bb, NULL));
	assert_ptr_equal(bb, b);
	CL_OK(cb.cmd_info(h, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR, sizeof(type),
			  &type, NULL));
	assert_int_equal(type, CL_COMMAND_NDRANGE_KERNEL);
	CL_OK(cb.cmd_info(h, CL_MUTABLE_DISPATCH_KERNEL_KHR, sizeof(kk), &kk,
			  NULL));
	assert_ptr_equal(kk, k);
	CL_OK(cb.cmd_info(h, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof(dim),
			  &dim, NULL));
	assert_int_equal(dim, 2);
	CL_OK(cb.cmd_info(h, PROPERTIES_ARRAY, sizeof(got), got, &size));
	assert_int_equal(size, sizeof(props));
	assert_memory_equal(got, props, sizeof(props));
	CL_OK(cb.cmd_info(h, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR,
			  sizeof(dims), dims, &size));
	assert_int_equal(size, 2 * sizeof(size_t));
	assert_memory_equal(dims, offset, sizeof(offset));
	CL_OK(cb.cmd_info(h, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR,
			  sizeof(dims), dims, NULL));
	assert_memory_equal(dims, local, sizeof(local));
	/* NULL properties: none; no local size: zeros */
	CL_OK(cb.cmd_info(h2, PROPERTIES_ARRAY, 0, NULL, &size));
	assert_int_equal(size, 0);
	CL_OK(cb.cmd_info(h2, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR,
			  sizeof(dims), dims, &size));
	assert_int_equal(size, sizeof(size_t));
	assert_int_equal(dims[0], 0);
	/* errors */
	assert_int_equal(cb.cmd_info(NULL, CL_MUTABLE_DISPATCH_KERNEL_KHR,
				     sizeof(kk), &kk, NULL),
			 CL_INVALID_MUTABLE_COMMAND_KHR);
	assert_int_equal(cb.cmd_info((cl_mutable_command_khr)b,
				     CL_MUTABLE_DISPATCH_KERNEL_KHR,
				     sizeof(kk), &kk, NULL),
			 CL_INVALID_MUTABLE_COMMAND_KHR);
	assert_int_equal(cb.cmd_info(h, 0x4242, sizeof(kk), &kk, NULL),
			 CL_INVALID_VALUE);
	/* two dimensions, room for one */
	assert_int_equal(cb.cmd_info(h,
				     CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR,
				     sizeof(size_t), dims, NULL),
			 CL_INVALID_VALUE);

	/* an update shows in the queries */
	CL_OK(cb.finalize(b));
	c.command = h;
	c.global_work_size = bigger;
	CL_OK(update1(b, &c));
	CL_OK(cb.cmd_info(h, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR,
			  sizeof(dims), dims, NULL));
	assert_memory_equal(dims, bigger, sizeof(bigger));
	CL_OK(cb.release(b));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(buf));
}

static void test_update_errors(void **state)
{
	struct icd_env *env = *state;
	cmd_props args_only[] = { CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
				  CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, 0 };
	cmd_props sizes_only[] = { CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
				   CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |
					   CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR,
				   0 };
	size_t global = N, local = 8, zero_size = 0, two[2] = { 8, 8 };
	size_t odd = 12, four = 4, eight = 8;
	cl_mutable_command_khr h = NULL, hs = NULL, hf = NULL, other_h = NULL;
	cl_mem buf = buffer(env), ones = buffer(env);
	cl_program p = icd_test_build(env, src, NULL);
	cl_kernel k = kernel(p, "add"), fixed = kernel(p, "fixed");
	cl_command_buffer_khr b, plain;
	cl_int v = 5, one = 1;
	cl_mutable_dispatch_arg_khr arg = { 1, sizeof(v), &v };
	cl_mutable_dispatch_arg_khr bad_index = { 7, sizeof(v), &v };
	cl_mutable_dispatch_arg_khr bad_size = { 1, 2, &v };
	cl_mutable_dispatch_arg_khr bad_mem = { 0, sizeof(cl_mem), &k };
	cl_mutable_dispatch_exec_info_khr info = { 0x4242, 0, NULL };
	cl_uint type = CONFIG_TYPE, bad_type = 1;
	struct icd_mutable_config c = { 0 }, good = { 0 };
	const void *configs[2] = { &c, &c };

	load(env);
	CL_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
	CL_OK(clSetKernelArg(k, 1, sizeof(one), &one));
	CL_OK(clSetKernelArg(fixed, 0, sizeof(ones), &ones));
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	CL_OK(cb.ndrange(b, NULL, args_only, k, 1, NULL, &global, &local, 0,
			 NULL, NULL, &h));
	CL_OK(cb.ndrange(b, NULL, sizes_only, k, 1, NULL, &global, &local, 0,
			 NULL, NULL, &hs));
	CL_OK(cb.ndrange(b, NULL, NULL, fixed, 1, NULL, &global, &four, 0,
			 NULL, NULL, &hf));
	c.command = h;

	/* the command-buffer: valid, finalized, mutable */
	assert_int_equal(update1(NULL, &c), CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	CL_OK(cb.finalize(b));
	plain = create(env->queue, 0);
	CL_OK(cb.ndrange(plain, NULL, NULL, k, 1, NULL, &global, NULL, 0,
			 NULL, NULL, &other_h));
	CL_OK(cb.finalize(plain));
	c.command = other_h;
	assert_int_equal(update1(plain, &c), CL_INVALID_OPERATION);
	c.command = h;

	/* the arrays */
	assert_int_equal(cb.update(b, 1, NULL, configs), CL_INVALID_VALUE);
	assert_int_equal(cb.update(b, 1, &type, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.update(b, 0, &type, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.update(b, 0, NULL, configs), CL_INVALID_VALUE);
	CL_OK(cb.update(b, 0, NULL, NULL));
	assert_int_equal(cb.update(b, 1, &bad_type, configs),
			 CL_INVALID_VALUE);
	configs[0] = NULL;
	assert_int_equal(cb.update(b, 1, &type, configs), CL_INVALID_VALUE);
	configs[0] = &c;

	/* the command: one of this command-buffer's */
	c.command = NULL;
	assert_int_equal(update1(b, &c), CL_INVALID_MUTABLE_COMMAND_KHR);
	c.command = other_h;
	assert_int_equal(update1(b, &c), CL_INVALID_MUTABLE_COMMAND_KHR);
	c.command = (cl_mutable_command_khr)b;
	assert_int_equal(update1(b, &c), CL_INVALID_MUTABLE_COMMAND_KHR);

	/* fields not recorded as updatable */
	c.command = h;
	c.work_dim = 2;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.work_dim = 1;
	CL_OK(update1(b, &c));
	c.global_work_size = &global;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.global_work_size = NULL;
	c.global_work_offset = &global;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.global_work_offset = NULL;
	c.local_work_size = &local;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.local_work_size = NULL;
	c.num_exec_infos = 1;
	c.exec_info_list = &info;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.num_exec_infos = 0;
	c.exec_info_list = NULL;
	c.command = hs;
	c.num_args = 1;
	c.arg_list = &arg;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);

	/* lists and counts */
	c.command = h;
	c.num_args = 0;
	assert_int_equal(update1(b, &c), CL_INVALID_VALUE);
	c.num_args = 1;
	c.arg_list = NULL;
	assert_int_equal(update1(b, &c), CL_INVALID_VALUE);
	c.num_args = 0;
	c.num_svm_args = 1;
	assert_int_equal(update1(b, &c), CL_INVALID_VALUE);
	c.num_svm_args = 0;

	/* clSetKernelArg's errors */
	c.num_args = 1;
	c.arg_list = &bad_index;
	assert_int_equal(update1(b, &c), CL_INVALID_ARG_INDEX);
	c.arg_list = &bad_size;
	assert_int_equal(update1(b, &c), CL_INVALID_ARG_SIZE);
	c.arg_list = &bad_mem;
	assert_int_equal(update1(b, &c), CL_INVALID_MEM_OBJECT);

	/* clEnqueueNDRangeKernel's errors, and the spec's own */
	memset(&c, 0, sizeof(c));
	c.command = hf;
	c.local_work_size = &eight; /* reqd_work_group_size(4, 1, 1) */
	assert_int_equal(update1(b, &c), CL_INVALID_WORK_GROUP_SIZE);
	c.command = hs;
	c.local_work_size = NULL;
	c.global_work_size = &odd; /* 64 / 8 was uniform, 12 / 8 is not */
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.global_work_size = &zero_size; /* a launch stays one */
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);
	c.global_work_size = two;
	c.work_dim = 2;
	assert_int_equal(update1(b, &c), CL_INVALID_OPERATION);

	/*
	 * one bad config: the good one before it is not applied either
	 * (the geometry is checked last, after the arguments)
	 */
	c.work_dim = 0;
	c.global_work_size = &odd;
	good.command = h;
	good.num_args = 1;
	good.arg_list = &arg;
	configs[0] = &good;
	configs[1] = &c;
	{
		cl_uint types[2] = { CONFIG_TYPE, CONFIG_TYPE };

		assert_int_equal(cb.update(b, 2, types, configs),
				 CL_INVALID_OPERATION);
	}
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	/* add 1 twice: not 5 */
	expect(env->queue, buf, N, 1 + 1);
	expect(env->queue, ones, N, 1);

	CL_OK(cb.release(b));
	CL_OK(cb.release(plain));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseKernel(fixed));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(buf));
	CL_OK(clReleaseMemObject(ones));
}

/* Arguments, then sizes, changed between enqueues; results each time. */
static void test_updates_over_enqueues(void **state)
{
	struct icd_env *env = *state;
	size_t global = N, local = 8;
	cl_mutable_command_khr h = NULL, hw = NULL;
	cl_mem a = buffer(env), b2 = buffer(env), out = buffer(env);
	cl_program p = icd_test_build(env, src, NULL);
	cl_kernel k = kernel(p, "add"), w = kernel(p, "where");
	cl_command_buffer_khr b;
	cl_int v = 1, got[N];
	cl_mutable_dispatch_arg_khr args[2] = {
		{ 0, sizeof(cl_mem), &b2 }, { 1, sizeof(v), &v }
	};
	struct icd_mutable_config c = { 0 }, cw = { 0 };
	const void *configs[2] = { &c, &cw };
	cl_uint types[2] = { CONFIG_TYPE, CONFIG_TYPE };
	size_t new_global = 16, new_offset = 4, new_local = 2;

	load(env);
	CL_OK(clSetKernelArg(k, 0, sizeof(a), &a));
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	CL_OK(clSetKernelArg(w, 0, sizeof(out), &out));
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 NULL, &h));
	CL_OK(cb.ndrange(b, NULL, NULL, w, 1, NULL, &global, &local, 0, NULL,
			 NULL, &hw));
	CL_OK(cb.finalize(b));

	/* 1 into a, three times */
	for (int i = 0; i < 3; i++)
		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	expect(env->queue, a, N, 3);
	/* the kernel object is not the command's: no change */
	v = 50;
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	expect(env->queue, a, N, 4);
	/* 10 into b2, twice; a stays */
	v = 10;
	c.command = h;
	c.num_args = 2;
	c.arg_list = args;
	/* both commands in one call */
	cw.command = hw;
	cw.global_work_offset = &new_offset;
	cw.global_work_size = &new_global;
	cw.local_work_size = &new_local;
	CL_OK(cb.update(b, 2, types, configs));
	v = 99; /* copied by the update */
	for (int i = 0; i < 2; i++)
		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	expect(env->queue, a, N, 4);
	expect(env->queue, b2, N, 20);
	/* where: ids 4..19 at 0..15, local size 2, 8 groups */
	CL_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got),
				  got, 0, NULL, NULL));
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[i], (i + 4) * 1000 + 2 * 10 + 8);
	/* the rest from the first enqueues: local size 8, 8 groups */
	for (int i = 16; i < N; i++)
		assert_int_equal(got[i], i * 1000 + 8 * 10 + 8);

	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseKernel(w));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(a));
	CL_OK(clReleaseMemObject(b2));
	CL_OK(clReleaseMemObject(out));
}

/* An update while the enqueue before it waits: each keeps its launch. */
static void test_update_while_pending(void **state)
{
	struct icd_env *env = *state;
	size_t global = N;
	cl_mutable_command_khr h = NULL;
	cl_mem a = buffer(env), b2 = buffer(env);
	cl_program p = icd_test_build(env, src, NULL);
	cl_kernel k = kernel(p, "add");
	cl_command_buffer_khr b;
	cl_int v = 3, err = CL_SUCCESS;
	cl_event gate, done[2];
	cl_mutable_dispatch_arg_khr args[2] = {
		{ 0, sizeof(cl_mem), &b2 }, { 1, sizeof(v), &v }
	};
	struct icd_mutable_config c = { 0 };

	load(env);
	CL_OK(clFinish(env->queue));
	CL_OK(clSetKernelArg(k, 0, sizeof(a), &a));
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR |
				       CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 NULL, &h));
	CL_OK(cb.finalize(b));
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(cb.enqueue(0, NULL, b, 1, &gate, &done[0]));
	v = 7;
	c.command = h;
	c.num_args = 2;
	c.arg_list = args;
	CL_OK(update1(b, &c));
	CL_OK(cb.enqueue(0, NULL, b, 1, &gate, &done[1]));
	CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
	CL_OK(clWaitForEvents(2, done));
	expect(env->queue, a, N, 3);
	expect(env->queue, b2, N, 7);
	/* the command-buffer goes with its handles */
	CL_OK(cb.release(b));
	CL_OK(clReleaseEvent(gate));
	CL_OK(clReleaseEvent(done[0]));
	CL_OK(clReleaseEvent(done[1]));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(a));
	CL_OK(clReleaseMemObject(b2));
}

/* 0.9.5: arguments set by the first update; Finalized until then. */
static void test_deferred_arguments(void **state)
{
	struct icd_env *env = *state;
	cmd_props sizes_only[] = { CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
				   CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR, 0 };
	size_t global = N;
	cl_mutable_command_khr h = NULL;
	cl_mem a = buffer(env);
	cl_program p = icd_test_build(env, src, NULL);
	cl_kernel k = kernel(p, "add");
	cl_command_buffer_khr b;
	cl_int v = 6;
	cl_mutable_dispatch_arg_khr mem = { 0, sizeof(cl_mem), &a };
	cl_mutable_dispatch_arg_khr val = { 1, sizeof(v), &v };
	struct icd_mutable_config c = { 0 };

	load(env);
	/* not mutable, or arguments not updatable: they must be set */
	b = create(env->queue, 0);
	assert_int_equal(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL,
				    0, NULL, NULL, NULL),
			 CL_INVALID_KERNEL_ARGS);
	CL_OK(cb.release(b));
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	assert_int_equal(cb.ndrange(b, NULL, sizes_only, k, 1, NULL, &global,
				    NULL, 0, NULL, NULL, NULL),
			 CL_INVALID_KERNEL_ARGS);

	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 NULL, &h));
	assert_int_equal(cb_state(b), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
	CL_OK(cb.finalize(b));
	assert_int_equal(cb_state(b), STATE_FINALIZED);
	assert_int_equal(cb.enqueue(0, NULL, b, 0, NULL, NULL),
			 CL_INVALID_OPERATION);
	/* one of two: still Finalized */
	c.command = h;
	c.num_args = 1;
	c.arg_list = &mem;
	CL_OK(update1(b, &c));
	assert_int_equal(cb_state(b), STATE_FINALIZED);
	assert_int_equal(cb.enqueue(0, NULL, b, 0, NULL, NULL),
			 CL_INVALID_OPERATION);
	/* a failed update sets nothing */
	val.arg_size = 2;
	c.arg_list = &val;
	assert_int_equal(update1(b, &c), CL_INVALID_ARG_SIZE);
	assert_int_equal(cb_state(b), STATE_FINALIZED);
	val.arg_size = sizeof(v);
	CL_OK(update1(b, &c));
	assert_int_equal(cb_state(b), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	expect(env->queue, a, N, 12);
	CL_OK(cb.release(b));

	/* never set: released in the Finalized state */
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 NULL, NULL));
	CL_OK(cb.finalize(b));
	assert_int_equal(cb_state(b), STATE_FINALIZED);
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(a));
}

/* SVM pointer arguments and execution info (devices with SVM). */
static void test_svm_arguments(void **state)
{
	struct icd_env *env = *state;
	cl_device_svm_capabilities svm = 0;
	size_t global = N;
	cl_mutable_command_khr h = NULL;
	cl_program p;
	cl_kernel k;
	cl_command_buffer_khr b;
	cl_int v = 1, *a, *c;
	cl_mutable_dispatch_arg_khr to_c = { 0, 0, NULL };
	cl_mutable_dispatch_arg_khr not_ptr = { 1, 0, NULL };
	cl_mutable_dispatch_exec_info_khr ptrs = {
		CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *), NULL
	};
	cl_mutable_dispatch_exec_info_khr bad = { 0x4242, 0, NULL };
	struct icd_mutable_config cfg = { 0 };

	clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof(svm),
			&svm, NULL);
	if (!(svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER))
		skip();
	load(env);
	a = clSVMAlloc(env->ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, N * 4, 0);
	c = clSVMAlloc(env->ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER, N * 4, 0);
	assert_non_null(a);
	assert_non_null(c);
	memset(a, 0, N * 4);
	memset(c, 0, N * 4);
	p = icd_test_build(env, src, NULL);
	k = kernel(p, "add");
	CL_OK(clSetKernelArgSVMPointer(k, 0, a));
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	b = create(env->queue, CL_COMMAND_BUFFER_MUTABLE_KHR);
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 NULL, &h));
	CL_OK(cb.finalize(b));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));

	cfg.command = h;
	cfg.num_svm_args = 1;
	cfg.arg_svm_list = &not_ptr; /* a by-value argument */
	assert_int_equal(update1(b, &cfg), CL_INVALID_ARG_VALUE);
	to_c.arg_value = c;
	cfg.arg_svm_list = &to_c;
	cfg.num_exec_infos = 1;
	cfg.exec_info_list = &bad;
	assert_int_equal(update1(b, &cfg), CL_INVALID_VALUE);
	ptrs.param_value = &c;
	cfg.exec_info_list = &ptrs;
	CL_OK(update1(b, &cfg));
	for (int i = 0; i < 2; i++)
		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	for (int i = 0; i < N; i++) {
		assert_int_equal(a[i], 1);
		assert_int_equal(c[i], 2);
	}
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	clSVMFree(env->ctx, a);
	clSVMFree(env->ctx, c);
}

#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_device_queries),
		T(test_create_and_record),
		T(test_info),
		T(test_update_errors),
		T(test_updates_over_enqueues),
		T(test_update_while_pending),
		T(test_deferred_arguments),
		T(test_svm_arguments),
	};

	return ICD_TEST_RUN("icd-mutable-dispatch", tests);
}
