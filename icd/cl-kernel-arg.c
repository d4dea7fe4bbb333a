/* SPDX-License-Identifier: MIT */
/*
 * Kernel arguments (clSetKernelArg, SVM pointers, execution info): set on
 * the libaccel kernel of every program device after the checks OpenCL asks
 * for; the same checks and setting serve mutable-dispatch updates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

static cl_int set_arg_error(int e, enum accel_kernel_arg_kind kind)
{
	switch (e) {
	case -ERANGE:
		return CL_INVALID_ARG_INDEX;
	case -E2BIG:
		return CL_INVALID_ARG_SIZE;
	case -EINVAL:
		return kind == ACCEL_KERNEL_ARG_BUFFER ? CL_INVALID_MEM_OBJECT :
							 CL_INVALID_ARG_VALUE;
	case -EXDEV: /* a device of the program cannot reach the buffer */
		return CL_INVALID_MEM_OBJECT;
	default:
		return icd_error(e);
	}
}

/* What a checked argument value names besides its bytes. */
struct arg_value {
	struct accel_buffer *buf; /* buffer arguments */
	cl_mem image;             /* image arguments */
	uint32_t sampler;         /* sampler arguments: ACCEL_SAMPLER_* */
};

/* The image type an image argument of @p desc takes. */
static bool image_fits(const struct accel_kernel_arg_desc *desc, cl_mem m)
{
	bool depth = m->format.image_channel_order == CL_DEPTH;

	return m->type == desc->image_type &&
	       depth == !!(desc->image_access & ACCEL_KERNEL_ARG_IMAGE_DEPTH);
}

static cl_int image_arg_check(cl_kernel k, const struct icd_arg *arg,
			      size_t size, const void *value,
			      struct arg_value *v)
{
	uint32_t access = arg->desc.image_access &
			  (ACCEL_IMAGE_ACCESS_READ | ACCEL_IMAGE_ACCESS_WRITE);
	cl_mem m;

	if (size != sizeof(cl_mem))
		return CL_INVALID_ARG_SIZE;
	if (!value)
		return CL_INVALID_ARG_VALUE;
	m = *(const cl_mem *)value;
	if (!icd_object_valid(m, ICD_MAGIC_MEM) || m->ctx != k->prog->ctx ||
	    !icd_mem_is_image(m) || !image_fits(&arg->desc, m))
		return CL_INVALID_MEM_OBJECT;
	/* read_only arguments take no write-only image, and the reverse */
	if ((access == ACCEL_IMAGE_ACCESS_READ &&
	     (m->flags & CL_MEM_WRITE_ONLY)) ||
	    (access == ACCEL_IMAGE_ACCESS_WRITE &&
	     (m->flags & CL_MEM_READ_ONLY)))
		return CL_INVALID_ARG_VALUE;
	v->image = m;
	return CL_SUCCESS;
}

/*
 * clSetKernelArg()'s checks of @p size and @p value for argument @p index;
 * what a buffer, image or sampler argument names in @p v.
 */
static cl_int arg_check(cl_kernel k, cl_uint index, size_t size,
			const void *value, struct arg_value *v)
{
	struct icd_arg *arg;

	if (index >= k->n_args)
		return CL_INVALID_ARG_INDEX;
	arg = &k->args[index];
	memset(v, 0, sizeof(*v));
	switch (arg->desc.kind) {
	case ACCEL_KERNEL_ARG_LOCAL:
		if (value)
			return CL_INVALID_ARG_VALUE;
		if (size == 0)
			return CL_INVALID_ARG_SIZE;
		break;
	case ACCEL_KERNEL_ARG_BUFFER: {
		cl_mem m = value ? *(const cl_mem *)value : NULL;

		if (size != sizeof(cl_mem))
			return CL_INVALID_ARG_SIZE;
		/* NULL (or a pointer to NULL) is a NULL buffer argument. */
		if (m) {
			if (!icd_object_valid(m, ICD_MAGIC_MEM) ||
			    m->ctx != k->prog->ctx || icd_mem_is_image(m))
				return CL_INVALID_MEM_OBJECT;
			v->buf = m->buf;
		}
		break;
	}
	case ACCEL_KERNEL_ARG_IMAGE:
		return image_arg_check(k, arg, size, value, v);
	case ACCEL_KERNEL_ARG_SAMPLER: {
		cl_sampler s;

		if (size != sizeof(cl_sampler))
			return CL_INVALID_ARG_SIZE;
		s = value ? *(const cl_sampler *)value : NULL;
		if (!icd_object_valid(s, ICD_MAGIC_SAMPLER) ||
		    s->ctx != k->prog->ctx)
			return CL_INVALID_SAMPLER;
		v->sampler = s->bits;
		break;
	}
	default:
		if (size != arg->desc.size)
			return CL_INVALID_ARG_SIZE;
		/* a program from a binary without sampler arguments' kind */
		if (arg->desc.type_name &&
		    !strcmp(arg->desc.type_name, "sampler_t"))
			return CL_INVALID_SAMPLER;
		if (!value)
			return CL_INVALID_ARG_VALUE;
		break;
	}
	return CL_SUCCESS;
}

/* Set a checked argument on one of the kernel's libaccel kernels. */
static cl_int arg_set(const struct icd_arg *arg, struct accel_kernel *ak,
		      cl_uint index, size_t size, const void *value,
		      const struct arg_value *v)
{
	int e;

	switch (arg->desc.kind) {
	case ACCEL_KERNEL_ARG_LOCAL:
		e = accel_kernel_set_arg_local(ak, index, size);
		break;
	case ACCEL_KERNEL_ARG_BUFFER:
		e = accel_kernel_set_arg_buffer(ak, index, v->buf);
		break;
	case ACCEL_KERNEL_ARG_IMAGE:
		e = accel_kernel_set_arg_image(ak, index, v->image->buf,
					       &v->image->layout);
		/* the image does not fit this kernel's device */
		if (e == -EOPNOTSUPP || e == -E2BIG || e == -EINVAL)
			return CL_INVALID_MEM_OBJECT;
		break;
	case ACCEL_KERNEL_ARG_SAMPLER:
		e = accel_kernel_set_arg_sampler(ak, index, v->sampler);
		if (e == -EINVAL)
			return CL_INVALID_SAMPLER;
		break;
	default:
		e = accel_kernel_set_arg_value(ak, index, size, value);
		break;
	}
	return e < 0 ? set_arg_error(e, arg->desc.kind) : CL_SUCCESS;
}

cl_int icd_kernel_arg_apply(cl_kernel k, struct accel_kernel *ak,
			    cl_uint index, size_t size, const void *value)
{
	struct arg_value v;
	cl_int r;

	r = arg_check(k, index, size, value, &v);
	if (r == CL_SUCCESS)
		r = arg_set(&k->args[index], ak, index, size, value, &v);
	return r;
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint index, size_t size,
				  const void *value)
{
	struct arg_value v;
	struct icd_arg *arg;
	cl_uint i;
	cl_int r;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	r = arg_check(k, index, size, value, &v);
	if (r != CL_SUCCESS)
		return r;
	arg = &k->args[index];
	for (i = 0; i < k->prog->n_devices; i++) {
		if (!k->k[i])
			continue;
		r = arg_set(arg, k->k[i], index, size, value, &v);
		if (r != CL_SUCCESS)
			return r;
	}
	arg->set = true;
	if (arg->desc.kind == ACCEL_KERNEL_ARG_LOCAL)
		arg->local_size = size;
	return CL_SUCCESS;
}

/* An SVM pointer argument on one device kernel (see below). */
static cl_int svm_arg_set(cl_kernel k, cl_uint i, struct accel_kernel *ak,
			  cl_uint index, const void *value)
{
	int e;

	if (icd_device_svm_caps(k->prog->devices[i]))
		e = accel_kernel_set_arg_host_ptr(ak, index, (void *)value);
	else
		e = accel_kernel_set_arg_buffer(ak, index, NULL);
	return e < 0 ? set_arg_error(e, k->args[index].desc.kind) :
		       CL_SUCCESS;
}

static cl_int svm_arg_check(cl_kernel k, cl_uint index)
{
	if (!icd_context_svm_caps(k->prog->ctx))
		return CL_INVALID_OPERATION;
	if (index >= k->n_args)
		return CL_INVALID_ARG_INDEX;
	if (k->args[index].desc.kind != ACCEL_KERNEL_ARG_BUFFER)
		return CL_INVALID_ARG_VALUE;
	return CL_SUCCESS;
}

cl_int icd_kernel_svm_arg_apply(cl_kernel k, cl_device_id dev,
				struct accel_kernel *ak, cl_uint index,
				const void *value)
{
	int i = icd_program_device_index(k->prog, dev);
	cl_int r = svm_arg_check(k, index);

	if (r == CL_SUCCESS && i < 0)
		r = CL_INVALID_DEVICE;
	if (r == CL_SUCCESS)
		r = svm_arg_set(k, (cl_uint)i, ak, index, value);
	return r;
}

/*
 * The address itself is the argument on devices that reach host memory
 * (cl-svm.c); a device of the program that does not gets a NULL buffer,
 * which a kernel launched there would see.
 */
cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel k, cl_uint index,
					    const void *value)
{
	cl_uint i;
	cl_int r;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	r = svm_arg_check(k, index);
	if (r != CL_SUCCESS)
		return r;
	for (i = 0; i < k->prog->n_devices; i++) {
		if (!k->k[i])
			continue;
		r = svm_arg_set(k, i, k->k[i], index, value);
		if (r != CL_SUCCESS)
			return r;
	}
	k->args[index].set = true;
	return CL_SUCCESS;
}

/*
 * The SVM pointers a kernel reaches besides its arguments: on host-memory
 * devices every address is reachable, so the lists need no action.
 */
cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel k,
				       cl_kernel_exec_info param, size_t size,
				       const void *value)
{
	cl_device_svm_capabilities caps;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	caps = icd_context_svm_caps(k->prog->ctx);
	switch (param) {
	case CL_KERNEL_EXEC_INFO_SVM_PTRS:
		if (!caps)
			return CL_INVALID_OPERATION;
		if ((size && !value) || size % sizeof(void *))
			return CL_INVALID_VALUE;
		return CL_SUCCESS;
	case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
		if (!caps)
			return CL_INVALID_OPERATION;
		if (size != sizeof(cl_bool) || !value)
			return CL_INVALID_VALUE;
		if (*(const cl_bool *)value &&
		    !(caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM))
			return CL_INVALID_OPERATION;
		return CL_SUCCESS;
	default:
		return CL_INVALID_VALUE;
	}
}
