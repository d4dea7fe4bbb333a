/* SPDX-License-Identifier: MIT */
/*
 * Sub-groups through the loader: what the device reports (the OpenCL C
 * 3.0 feature and extensions, cl_khr_subgroups with independent forward
 * progress), clGetKernelSubGroupInfo and clGetKernelSubGroupInfoKHR
 * against what kernels see at run time for 1-, 2- and 3-D groups, and
 * their errors; cl_intel_required_subgroup_size's sizes and queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

static const char src[] =
	"kernel void info(global uint *o)\n"
	"{\n"
	"	if (get_local_linear_id() == 0 && get_group_id(0) == 0 &&\n"
	"	    get_group_id(1) == 0 && get_group_id(2) == 0) {\n"
	"		o[0] = get_max_sub_group_size();\n"
	"		o[1] = get_num_sub_groups();\n"
	"	}\n"
	"}\n";

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static cl_kernel info_kernel(struct icd_env *env, cl_program *prog)
{
	cl_kernel k;
	cl_int e;

	if (!icd_test_have_compiler(env))
		skip();
	*prog = icd_test_build(env, src, "-cl-std=CL3.0");
	k = clCreateKernel(*prog, "info", &e);
	CL_OK(e);
	return k;
}

static void test_device(void **state)
{
	struct icd_env *env = *state;
	char ext[8192] = "";
	cl_name_version feats[64];
	size_t size = 0;
	cl_uint nsg = 0;
	cl_bool ifp = CL_FALSE;
	bool feature = false;

	if (!icd_test_have_compiler(env))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS,
			      sizeof(ext) - 1, ext, NULL));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_NUM_SUB_GROUPS,
			      sizeof(nsg), &nsg, NULL));
	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
			      sizeof(ifp), &ifp, NULL));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES,
			      sizeof(feats), feats, &size));
	for (size_t i = 0; i < size / sizeof(feats[0]); i++)
		feature |= !strcmp(feats[i].name, "__opencl_c_subgroups");
	assert_true(nsg > 0);
	assert_true(feature);
	assert_int_equal(ifp, CL_TRUE);
	assert_true(has_word(ext, "cl_khr_subgroups"));
	assert_true(has_word(ext, "cl_khr_subgroup_shuffle"));
	assert_true(has_word(ext, "cl_khr_subgroup_shuffle_relative"));
	assert_true(has_word(ext, "cl_khr_subgroup_extended_types"));
	assert_true(has_word(ext, "cl_khr_subgroup_clustered_reduce"));
	assert_true(has_word(ext, "cl_khr_subgroup_rotate"));
	assert_true(has_word(ext, "cl_khr_subgroup_ballot"));
	assert_true(has_word(ext, "cl_khr_subgroup_non_uniform_vote"));
	assert_true(has_word(ext, "cl_khr_subgroup_non_uniform_arithmetic"));
	assert_true(has_word(ext, "cl_intel_required_subgroup_size"));
}

/*
 * Every size CL_DEVICE_SUB_GROUP_SIZES_INTEL lists, asked for with
 * intel_reqd_sub_group_size: the kernel's queries say it, the kernel
 * sees it, and CL_DEVICE_MAX_NUM_SUB_GROUPS holds for the smallest.
 */
static void test_intel_sizes(void **state)
{
	struct icd_env *env = *state;
	size_t sizes[64], ret = 0, wg = 0;
	cl_uint nsg = 0;
	cl_int e;

	if (!icd_test_have_compiler(env))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_SUB_GROUP_SIZES_INTEL,
			      sizeof(sizes), sizes, &ret));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_NUM_SUB_GROUPS,
			      sizeof(nsg), &nsg, NULL));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			      sizeof(wg), &wg, NULL));
	assert_true(ret >= sizeof(size_t) && ret % sizeof(size_t) == 0);
	for (size_t i = 0; i < ret / sizeof(size_t); i++) {
		char src_k[256], name[16];
		const char *p = src_k;
		size_t compile = 0, max = 0, local = 100;
		cl_uint seen[2] = { 0, 0 };
		cl_program prog;
		cl_kernel k;
		cl_mem out;

		assert_true(sizes[i] && !(sizes[i] & (sizes[i] - 1)));
		assert_true(nsg >= (wg + sizes[i] - 1) / sizes[i]);
		snprintf(name, sizeof(name), "k%zu", sizes[i]);
		snprintf(src_k, sizeof(src_k),
			 "__attribute__((intel_reqd_sub_group_size(%zu)))\n"
			 "kernel void %s(global uint *o)\n"
			 "{ if (get_global_id(0) == 0) {\n"
			 "  o[0] = get_max_sub_group_size();\n"
			 "  o[1] = get_num_sub_groups(); } }\n",
			 sizes[i], name);
		prog = clCreateProgramWithSource(env->ctx, 1, &p, NULL, &e);
		CL_OK(e);
		CL_OK(clBuildProgram(prog, 1, &env->device, "-cl-std=CL3.0",
				     NULL, NULL));
		k = clCreateKernel(prog, name, &e);
		CL_OK(e);
		CL_OK(clGetKernelSubGroupInfo(
			k, env->device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL,
			0, NULL, sizeof(compile), &compile, NULL));
		assert_int_equal(compile, sizes[i]);
		CL_OK(clGetKernelSubGroupInfo(
			k, env->device,
			CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
			sizeof(local), &local, sizeof(max), &max, NULL));
		assert_int_equal(max, sizes[i] < local ? sizes[i] : local);
		out = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE,
				     sizeof(seen), NULL, &e);
		CL_OK(e);
		CL_OK(clSetKernelArg(k, 0, sizeof(out), &out));
		CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &local,
					     &local, 0, NULL, NULL));
		CL_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0,
					  sizeof(seen), seen, 0, NULL, NULL));
		assert_int_equal(seen[0], max);
		assert_int_equal(seen[1], (local + sizes[i] - 1) / sizes[i]);
		CL_OK(clReleaseMemObject(out));
		CL_OK(clReleaseKernel(k));
		CL_OK(clReleaseProgram(prog));
	}
}

/* The query against the kernel's own view, for each local size. */
static void test_ndrange(void **state)
{
	struct icd_env *env = *state;
	static const size_t locals[][3] = {
		{ 1, 1, 1 }, { 7, 1, 1 }, { 16, 1, 1 }, { 64, 1, 1 },
		{ 100, 1, 1 }, { 8, 8, 1 }, { 5, 3, 1 }, { 4, 4, 4 },
		{ 3, 5, 7 },
	};
	cl_program prog;
	cl_kernel k = info_kernel(env, &prog);
	cl_int e;
	cl_mem out = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE,
				    2 * sizeof(cl_uint), NULL, &e);

	CL_OK(e);
	CL_OK(clSetKernelArg(k, 0, sizeof(out), &out));
	for (size_t i = 0; i < ICD_TEST_ARRAY_SIZE(locals); i++) {
		for (cl_uint dim = 1; dim <= 3; dim++) {
			size_t max = 0, count = 0, global[3];
			cl_uint seen[2];

			if (dim < 3 && locals[i][dim] != 1)
				continue;
			for (cl_uint d = 0; d < 3; d++)
				global[d] = 2 * locals[i][d];
			CL_OK(clGetKernelSubGroupInfo(
				k, env->device,
				CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
				dim * sizeof(size_t), locals[i], sizeof(max),
				&max, NULL));
			CL_OK(clGetKernelSubGroupInfo(
				k, NULL, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
				dim * sizeof(size_t), locals[i], sizeof(count),
				&count, NULL));
			CL_OK(clEnqueueNDRangeKernel(env->queue, k, dim, NULL,
						     global, locals[i], 0, NULL,
						     NULL));
			CL_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0,
						  sizeof(seen), seen, 0, NULL,
						  NULL));
			if (seen[0] != max || seen[1] != count)
				print_error("local %zux%zux%zu (%u-D): query "
					    "%zu/%zu, kernel %u/%u\n",
					    locals[i][0], locals[i][1],
					    locals[i][2], dim, max, count,
					    seen[0], seen[1]);
			assert_int_equal(seen[0], max);
			assert_int_equal(seen[1], count);
		}
	}
	CL_OK(clReleaseMemObject(out));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
}

static void test_counts(void **state)
{
	struct icd_env *env = *state;
	cl_program prog;
	cl_kernel k = info_kernel(env, &prog);
	size_t w, big = 4096, wg, maxn, compile, count, l[3];
	size_t ret = 0;

	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
				      sizeof(big), &big, sizeof(w), &w, NULL));
	CL_OK(clGetKernelWorkGroupInfo(k, env->device,
				       CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
				       &wg, NULL));
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
				      sizeof(maxn), &maxn, &ret));
	assert_int_equal(ret, sizeof(size_t));
	assert_int_equal(maxn, (wg + w - 1) / w);
	/* cl_khr_subgroups' entry point, as clients find it */
	{
		clGetKernelSubGroupInfoKHR_fn khr =
			(clGetKernelSubGroupInfoKHR_fn)
				clGetExtensionFunctionAddressForPlatform(
					env->platform,
					"clGetKernelSubGroupInfoKHR");
		size_t kw = 0;

		assert_non_null(khr);
		CL_OK(khr(k, env->device,
			  CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR,
			  sizeof(big), &big, sizeof(kw), &kw, NULL));
		assert_int_equal(kw, w);
	}
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL,
				      sizeof(compile), &compile, NULL));
	assert_int_equal(compile, 0);
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0,
				      NULL, sizeof(compile), &compile, NULL));
	assert_int_equal(compile, 0);
	/* a local size for 3 sub-groups, in 1 and in 3 dimensions */
	count = 3;
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
				      sizeof(count), &count, sizeof(size_t), l,
				      &ret));
	assert_int_equal(ret, sizeof(size_t));
	assert_int_equal(l[0], 3 * w);
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
				      sizeof(count), &count, sizeof(l), l,
				      &ret));
	assert_int_equal(ret, sizeof(l));
	assert_int_equal(l[0] * l[1] * l[2], 3 * w);
	/* more than a group holds, and none: all zeros */
	count = maxn + 1;
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
				      sizeof(count), &count, sizeof(l), l,
				      NULL));
	assert_true(!l[0] && !l[1] && !l[2]);
	count = 0;
	CL_OK(clGetKernelSubGroupInfo(k, env->device,
				      CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
				      sizeof(count), &count, sizeof(l), l,
				      NULL));
	assert_true(!l[0] && !l[1] && !l[2]);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
}

static void test_errors(void **state)
{
	struct icd_env *env = *state;
	cl_program prog;
	cl_kernel k = info_kernel(env, &prog);
	size_t four[4] = { 4, 4, 4, 4 }, v = 0, zero = 0;
	char small;
	cl_int e;
	const char *src12 = "#pragma OPENCL EXTENSION cl_khr_subgroups : "
			    "enable\n"
			    "kernel void k(global uint *o)\n"
			    "{ o[0] = get_sub_group_size(); }\n";
	cl_program p12;

	assert_int_equal(clGetKernelSubGroupInfo(
				 NULL, env->device,
				 CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
				 sizeof(v), &v, NULL),
			 CL_INVALID_KERNEL);
	assert_int_equal(clGetKernelSubGroupInfo(k, env->device, 0x7fff, 0,
						 NULL, sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	/* the local size: missing, empty, 4-D, ragged, with a 0 */
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
				 sizeof(size_t), NULL, sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 0, four,
				 sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
				 sizeof(four), four, sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 5, four,
				 sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
				 sizeof(zero), &zero, sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 0,
				 NULL, sizeof(v), &v, NULL),
			 CL_INVALID_VALUE);
	/* an answer that does not fit */
	assert_int_equal(clGetKernelSubGroupInfo(
				 k, env->device,
				 CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
				 sizeof(small), &small, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
	/* cl_khr_subgroups brings them to OpenCL C 1.2 */
	p12 = clCreateProgramWithSource(env->ctx, 1, &src12, NULL, &e);
	CL_OK(e);
	CL_OK(clBuildProgram(p12, 1, &env->device, "-cl-std=CL1.2", NULL,
			     NULL));
	CL_OK(clReleaseProgram(p12));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_device, icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_intel_sizes,
						icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_ndrange, icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_counts, icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_errors, icd_env_setup,
						icd_env_teardown),
	};

	return ICD_TEST_RUN("icd-subgroups", tests);
}
