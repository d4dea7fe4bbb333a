/* SPDX-License-Identifier: MIT */
/*
 * Kernels: one libaccel kernel per program device, their creation and
 * queries; arguments: cl-kernel-arg.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

static cl_kernel kernel_alloc(cl_program p)
{
	cl_kernel k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->k = calloc(p->n_devices, sizeof(*k->k));
	if (!k->k) {
		free(k);
		return NULL;
	}
	icd_object_init(&k->obj, p->ctx->platform, ICD_MAGIC_KERNEL);
	k->prog = p;
	icd_hold(p);
	atomic_fetch_add(&p->n_kernels, 1);
	return k;
}

void icd_kernel_free(cl_kernel k)
{
	cl_uint i;

	for (i = 0; i < k->prog->n_devices; i++)
		accel_kernel_unref(k->k[i]);
	free(k->k);
	free(k->args);
	atomic_fetch_sub(&k->prog->n_kernels, 1);
	icd_put(k->prog);
	k->obj.magic = ICD_MAGIC_FREED;
	free(k);
}

/* Arguments and work-group facts, from the first device's kernel. */
static cl_int kernel_describe(cl_kernel k, struct accel_kernel *ak)
{
	int n = accel_kernel_get_arg_count(ak);
	cl_uint i;

	if (n < 0)
		return CL_OUT_OF_HOST_MEMORY;
	k->n_args = (cl_uint)n;
	k->args = calloc(k->n_args ? k->n_args : 1, sizeof(*k->args));
	if (!k->args)
		return CL_OUT_OF_HOST_MEMORY;
	for (i = 0; i < k->n_args; i++) {
		k->args[i].desc.struct_size = sizeof(k->args[i].desc);
		if (accel_kernel_get_arg_desc(ak, i, &k->args[i].desc) < 0)
			return CL_OUT_OF_RESOURCES;
	}
	accel_kernel_get_wg_info(ak, &k->static_local, k->reqd, NULL);
	return CL_SUCCESS;
}

static cl_kernel kernel_new(cl_program p, const char *name, cl_int *err)
{
	struct accel_kernel *first = NULL;
	cl_kernel k;
	cl_int r = CL_SUCCESS;
	cl_uint i, first_i = 0;

	k = kernel_alloc(p);
	if (!k)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	for (i = 0; i < p->n_devices && r == CL_SUCCESS; i++) {
		int e;

		if (!p->builds[i].prog)
			continue;
		e = accel_kernel_new(p->builds[i].prog, name, &k->k[i]);
		if (e == -ENOENT)
			r = CL_INVALID_KERNEL_NAME;
		else if (e < 0)
			r = icd_error(e);
		else if (!first) {
			first = k->k[i];
			first_i = i;
		}
	}
	if (r == CL_SUCCESS && !first)
		r = CL_INVALID_PROGRAM_EXECUTABLE;
	if (r == CL_SUCCESS) {
		r = kernel_describe(k, first);
		k->arg_info = p->builds[first_i].arg_info;
	}
	if (r != CL_SUCCESS) {
		icd_put(k);
		ICD_RETURN_ERR(err, r, NULL);
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, k);
}

static bool program_has_executable(cl_program p)
{
	cl_uint i;

	for (i = 0; i < p->n_devices; i++)
		if (p->builds[i].prog)
			return true;
	return false;
}

cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name,
				     cl_int *err)
{
	cl_kernel k;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		ICD_RETURN_ERR(err, CL_INVALID_PROGRAM, NULL);
	pthread_mutex_lock(&p->lock);
	if (!program_has_executable(p)) {
		pthread_mutex_unlock(&p->lock);
		ICD_RETURN_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE, NULL);
	}
	if (!name) {
		pthread_mutex_unlock(&p->lock);
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	}
	k = kernel_new(p, name, err);
	pthread_mutex_unlock(&p->lock);
	return k;
}

cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p, cl_uint num,
					    cl_kernel *kernels,
					    cl_uint *num_ret)
{
	struct accel_program *prog = NULL;
	cl_int r = CL_SUCCESS;
	cl_uint i, n;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n_devices && !prog; i++)
		prog = p->builds[i].prog;
	if (!prog) {
		pthread_mutex_unlock(&p->lock);
		return CL_INVALID_PROGRAM_EXECUTABLE;
	}
	n = (cl_uint)ICD_MAX(accel_program_get_kernel_count(prog), 0);
	if (kernels && num < n) {
		pthread_mutex_unlock(&p->lock);
		return CL_INVALID_VALUE;
	}
	for (i = 0; kernels && i < n && r == CL_SUCCESS; i++) {
		const char *name;

		if (accel_program_get_kernel_name(prog, i, &name) < 0) {
			r = CL_OUT_OF_RESOURCES;
			break;
		}
		kernels[i] = kernel_new(p, name, &r);
	}
	if (r != CL_SUCCESS)
		while (i-- > 0)
			if (kernels[i])
				icd_release(kernels[i], ICD_MAGIC_KERNEL, 0);
	pthread_mutex_unlock(&p->lock);
	if (r == CL_SUCCESS && num_ret)
		*num_ret = n;
	return r;
}

cl_kernel CL_API_CALL clCloneKernel(cl_kernel src, cl_int *err)
{
	cl_kernel k;
	cl_uint i;

	if (!icd_object_valid(src, ICD_MAGIC_KERNEL))
		ICD_RETURN_ERR(err, CL_INVALID_KERNEL, NULL);
	k = kernel_alloc(src->prog);
	if (!k)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	k->args = calloc(src->n_args ? src->n_args : 1, sizeof(*k->args));
	if (!k->args) {
		icd_put(k);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	k->n_args = src->n_args;
	memcpy(k->args, src->args, src->n_args * sizeof(*k->args));
	k->static_local = src->static_local;
	memcpy(k->reqd, src->reqd, sizeof(k->reqd));
	k->arg_info = src->arg_info;
	for (i = 0; i < src->prog->n_devices; i++) {
		int e;

		if (!src->k[i])
			continue;
		e = accel_kernel_clone(src->k[i], &k->k[i]);
		if (e < 0) {
			icd_put(k);
			ICD_RETURN_ERR(err, icd_error(e), NULL);
		}
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, k);
}

cl_int CL_API_CALL clRetainKernel(cl_kernel k)
{
	return icd_retain(k, ICD_MAGIC_KERNEL, CL_INVALID_KERNEL);
}

cl_int CL_API_CALL clReleaseKernel(cl_kernel k)
{
	return icd_release(k, ICD_MAGIC_KERNEL, CL_INVALID_KERNEL);
}

/* ---- queries ------------------------------------------------------------- */

/*
 * CL_KERNEL_ATTRIBUTES: the attributes as the source would write them,
 * space-separated (the spec's form), from any built device's kernel.
 */
static cl_int kernel_attributes(cl_kernel k, size_t size, void *value,
				size_t *size_ret)
{
	char attrs[256] = "";
	const char *vec = "";
	uint64_t hint[3] = { 0 };
	size_t len = 0;

	for (cl_uint i = 0; i < k->prog->n_devices; i++)
		if (k->k[i]) {
			accel_kernel_get_hints(k->k[i], hint, &vec);
			break;
		}
	if (k->reqd[0])
		len += (size_t)snprintf(attrs + len, sizeof(attrs) - len,
			"reqd_work_group_size(%llu,%llu,%llu) ",
			(unsigned long long)k->reqd[0],
			(unsigned long long)k->reqd[1],
			(unsigned long long)k->reqd[2]);
	if (hint[0] && len < sizeof(attrs))
		len += (size_t)snprintf(attrs + len, sizeof(attrs) - len,
			"work_group_size_hint(%llu,%llu,%llu) ",
			(unsigned long long)hint[0],
			(unsigned long long)hint[1],
			(unsigned long long)hint[2]);
	if (*vec && len < sizeof(attrs))
		len += (size_t)snprintf(attrs + len, sizeof(attrs) - len,
					"vec_type_hint(%s) ", vec);
	if (len >= sizeof(attrs))
		len = sizeof(attrs) - 1;
	/* no trailing space */
	if (len)
		attrs[len - 1] = '\0';
	return icd_info_string(size, value, size_ret, attrs);
}

cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param,
				   size_t size, void *value, size_t *size_ret)
{
	cl_uint i;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	switch (param) {
	case CL_KERNEL_FUNCTION_NAME:
		for (i = 0; i < k->prog->n_devices; i++)
			if (k->k[i])
				return icd_info_string(size, value, size_ret,
					accel_kernel_get_name(k->k[i]));
		return icd_info_string(size, value, size_ret, "");
	case CL_KERNEL_NUM_ARGS:
		return icd_info_uint(size, value, size_ret, k->n_args);
	case CL_KERNEL_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(k));
	case CL_KERNEL_CONTEXT:
		return icd_info_ptr(size, value, size_ret, k->prog->ctx);
	case CL_KERNEL_PROGRAM:
		return icd_info_ptr(size, value, size_ret, k->prog);
	case CL_KERNEL_ATTRIBUTES:
		return kernel_attributes(k, size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

/* The device a per-device query is about (NULL: the only one). */
static cl_int kernel_device(cl_kernel k, cl_device_id d, int *idx)
{
	if (!d) {
		if (k->prog->n_devices != 1)
			return CL_INVALID_DEVICE;
		*idx = 0;
		return CL_SUCCESS;
	}
	*idx = icd_object_valid(d, ICD_MAGIC_DEVICE) ?
		       icd_program_device_index(k->prog, d) : -1;
	return *idx < 0 ? CL_INVALID_DEVICE : CL_SUCCESS;
}

/* CL_KERNEL_WORK_GROUP_SIZE on the program's device @p idx */
static uint64_t kernel_max_wg(cl_kernel k, int idx)
{
	cl_device_id dev = k->prog->devices[idx];
	uint64_t max = dev->u64[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE];
	uint64_t limit = dev->u64[ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE];
	uint64_t own = 0, per_item = 0;

	if (k->reqd[0])
		max = ICD_MIN(max, k->reqd[0] * k->reqd[1] * k->reqd[2]);
	/* as many work-items as the group's stack holds, at least 1 */
	if (k->k[idx])
		accel_kernel_get_private_mem(k->k[idx], &own, &per_item, NULL);
	if (limit && per_item)
		max = ICD_MIN(max, own < limit ?
				   ICD_MAX((limit - own) / per_item, 1) : 1);
	return max;
}

uint64_t icd_kernel_local_mem(cl_kernel k)
{
	uint64_t total = k->static_local;
	cl_uint i;

	for (i = 0; i < k->n_args; i++)
		if (k->args[i].desc.kind == ACCEL_KERNEL_ARG_LOCAL)
			total += k->args[i].local_size;
	return total;
}

cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
					    cl_kernel_work_group_info param,
					    size_t size, void *value,
					    size_t *size_ret)
{
	cl_device_id dev;
	cl_int r;
	int idx;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	r = kernel_device(k, d, &idx);
	if (r != CL_SUCCESS)
		return r;
	dev = k->prog->devices[idx];
	switch (param) {
	case CL_KERNEL_WORK_GROUP_SIZE:
		return icd_info_size(size, value, size_ret,
				     kernel_max_wg(k, idx));
	case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
		size_t s[3] = { k->reqd[0], k->reqd[1], k->reqd[2] };

		return icd_info(size, value, size_ret, s, sizeof(s));
	}
	case CL_KERNEL_LOCAL_MEM_SIZE:
		return icd_info_ulong(size, value, size_ret,
				      icd_kernel_local_mem(k));
	case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		return icd_info_size(size, value, size_ret,
			ICD_MAX(dev->u64[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_FLOAT],
				1));
	case CL_KERNEL_PRIVATE_MEM_SIZE: {
		/* a work-item's: the work-group call's stack and its share */
		uint64_t own = 0, per_item = 0;

		if (k->k[idx])
			accel_kernel_get_private_mem(k->k[idx], &own,
						     &per_item, NULL);
		return icd_info_ulong(size, value, size_ret,
				      own > UINT64_MAX - per_item ?
					      UINT64_MAX : own + per_item);
	}
	case CL_KERNEL_SPILL_MEM_SIZE_INTEL:
		/* cl_intel_required_subgroup_size: private memory beyond the
		 * registers is the stack (CL_KERNEL_PRIVATE_MEM_SIZE) */
		return icd_info_ulong(size, value, size_ret, 0);
	case CL_KERNEL_GLOBAL_WORK_SIZE: {
		/* built-in kernels: no limit beyond size_t's */
		size_t s[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };

		if (k->prog->origin != ICD_PROGRAM_BUILT_IN)
			return CL_INVALID_VALUE;
		return icd_info(size, value, size_ret, s, sizeof(s));
	}
	default:
		return CL_INVALID_VALUE;
	}
}

cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel k, cl_uint index,
				      cl_kernel_arg_info param, size_t size,
				      void *value, size_t *size_ret)
{
	const struct accel_kernel_arg_desc *desc;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	if (index >= k->n_args)
		return CL_INVALID_ARG_INDEX;
	desc = &k->args[index].desc;
	/*
	 * OpenCL 3.0: only for programs from source built or compiled with
	 * -cl-kernel-arg-info, for every query (icd/README.md). libaccel
	 * has the descriptions anyway (its binaries carry them).
	 */
	if (!k->arg_info || !desc->name || !desc->type_name)
		return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
	switch (param) {
	case CL_KERNEL_ARG_ADDRESS_QUALIFIER: {
		cl_kernel_arg_address_qualifier q;

		switch (desc->address_space) {
		case ACCEL_KERNEL_ARG_ADDR_GLOBAL:
			q = CL_KERNEL_ARG_ADDRESS_GLOBAL;
			break;
		case ACCEL_KERNEL_ARG_ADDR_CONSTANT:
			q = CL_KERNEL_ARG_ADDRESS_CONSTANT;
			break;
		case ACCEL_KERNEL_ARG_ADDR_LOCAL:
			q = CL_KERNEL_ARG_ADDRESS_LOCAL;
			break;
		default:
			q = CL_KERNEL_ARG_ADDRESS_PRIVATE;
			break;
		}
		return icd_info_uint(size, value, size_ret, q);
	}
	case CL_KERNEL_ARG_ACCESS_QUALIFIER: {
		/* images only (no pipes) */
		cl_kernel_arg_access_qualifier q = CL_KERNEL_ARG_ACCESS_NONE;
		uint32_t a = desc->image_access & (ACCEL_IMAGE_ACCESS_READ |
						   ACCEL_IMAGE_ACCESS_WRITE);

		if (desc->kind == ACCEL_KERNEL_ARG_IMAGE)
			q = a == ACCEL_IMAGE_ACCESS_READ ?
				    CL_KERNEL_ARG_ACCESS_READ_ONLY :
			    a == ACCEL_IMAGE_ACCESS_WRITE ?
				    CL_KERNEL_ARG_ACCESS_WRITE_ONLY :
				    CL_KERNEL_ARG_ACCESS_READ_WRITE;
		return icd_info_uint(size, value, size_ret, q);
	}
	case CL_KERNEL_ARG_TYPE_NAME:
		return icd_info_string(size, value, size_ret, desc->type_name);
	case CL_KERNEL_ARG_TYPE_QUALIFIER: {
		cl_kernel_arg_type_qualifier q = CL_KERNEL_ARG_TYPE_NONE;

		if (desc->type_qualifiers & ACCEL_KERNEL_ARG_TYPE_CONST)
			q |= CL_KERNEL_ARG_TYPE_CONST;
		if (desc->type_qualifiers & ACCEL_KERNEL_ARG_TYPE_RESTRICT)
			q |= CL_KERNEL_ARG_TYPE_RESTRICT;
		if (desc->type_qualifiers & ACCEL_KERNEL_ARG_TYPE_VOLATILE)
			q |= CL_KERNEL_ARG_TYPE_VOLATILE;
		if (desc->type_qualifiers & ACCEL_KERNEL_ARG_TYPE_PIPE)
			q |= CL_KERNEL_ARG_TYPE_PIPE;
		return icd_info_ulong(size, value, size_ret, q);
	}
	case CL_KERNEL_ARG_NAME:
		return icd_info_string(size, value, size_ret, desc->name);
	default:
		return CL_INVALID_VALUE;
	}
}

/* The work-items of the local size @p in (1 to 3 size_t), 0 if bad. */
static uint64_t local_items(size_t in_size, const void *in)
{
	size_t l[3] = { 1, 1, 1 };
	uint64_t n = 1;

	if (!in || !in_size || in_size % sizeof(size_t) ||
	    in_size > sizeof(l))
		return 0;
	memcpy(l, in, in_size);
	for (int d = 0; d < 3; d++)
		if (__builtin_mul_overflow(n, (uint64_t)l[d], &n))
			return 0;
	return n;
}

cl_int CL_API_CALL clGetKernelSubGroupInfo(
	cl_kernel k, cl_device_id d, cl_kernel_sub_group_info param,
	size_t in_size, const void *in, size_t size, void *value,
	size_t *size_ret)
{
	uint32_t sg = 0;
	uint64_t items, max;
	cl_int r;
	int idx;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	r = kernel_device(k, d, &idx);
	if (r != CL_SUCCESS)
		return r;
	if (k->k[idx])
		accel_kernel_get_sub_group_size(k->k[idx], &sg);
	/* native and built-in kernels, devices that compile nothing */
	if (!sg)
		return CL_INVALID_OPERATION;
	max = kernel_max_wg(k, idx);
	switch (param) {
	case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
	case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
		/* sub-groups of consecutive local linear ids, the last one
		 * of a group shorter (compiler-stub/builtins/sub-group.cl) */
		items = local_items(in_size, in);
		if (!items)
			return CL_INVALID_VALUE;
		return icd_info_size(size, value, size_ret,
			param == CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE ?
				ICD_MIN(items, sg) : (items + sg - 1) / sg);
	case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
		size_t count, out[3] = { 0, 0, 0 };

		if (!in || in_size != sizeof(size_t))
			return CL_INVALID_VALUE;
		memcpy(&count, in, sizeof(count));
		/* the dimensions asked for are the size of the answer */
		if (!size || size % sizeof(size_t) || size > sizeof(out)) {
			if (value || !size_ret)
				return CL_INVALID_VALUE;
			size = sizeof(size_t);
		}
		if (k->reqd[0]) {
			/* the one size the kernel takes, if it fits */
			items = k->reqd[0] * k->reqd[1] * k->reqd[2];
			if ((items + sg - 1) / sg == count)
				for (int i = 0; i < 3; i++)
					out[i] = k->reqd[i];
		} else if (count && count <= max / sg &&
			   count * sg <= k->prog->devices[idx]->u64
				   [ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X]) {
			/* count full sub-groups in x; all 0 if too many */
			out[0] = count * sg;
			out[1] = out[2] = 1;
		}
		return icd_info(size, value, size_ret, out, size);
	}
	case CL_KERNEL_MAX_NUM_SUB_GROUPS:
		return icd_info_size(size, value, size_ret,
				     (max + sg - 1) / sg);
	case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
		/* no kernel attribute asks for a number of sub-groups */
		return icd_info_size(size, value, size_ret, 0);
	case CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL:
		/* intel_reqd_sub_group_size, 0 if none */
		sg = 0;
		if (k->k[idx])
			accel_kernel_get_reqd_sub_group_size(k->k[idx], &sg);
		return icd_info_size(size, value, size_ret, sg);
	default:
		return CL_INVALID_VALUE;
	}
}
