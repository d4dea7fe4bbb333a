/* SPDX-License-Identifier: MIT */
/* clGetProgramInfo, clGetProgramBuildInfo and the program calls no device
 * supports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-program.h"

static bool program_built(cl_program p)
{
	cl_uint i;

	for (i = 0; i < p->n_devices; i++)
		if (p->builds[i].prog)
			return true;
	return false;
}

cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param,
				    size_t size, void *value,
				    size_t *size_ret)
{
	cl_int r;
	cl_uint i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	switch (param) {
	case CL_PROGRAM_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(p));
	case CL_PROGRAM_CONTEXT:
		return icd_info_ptr(size, value, size_ret, p->ctx);
	case CL_PROGRAM_NUM_DEVICES:
		return icd_info_uint(size, value, size_ret, p->n_devices);
	case CL_PROGRAM_DEVICES:
		return icd_info(size, value, size_ret, p->devices,
				p->n_devices * sizeof(*p->devices));
	case CL_PROGRAM_SOURCE:
		return icd_info_string(size, value, size_ret,
				       p->origin == ICD_PROGRAM_SOURCE ?
					       p->source : "");
	case CL_PROGRAM_IL:
		return icd_info(size, value, size_ret, p->il, p->il_size);
	case CL_PROGRAM_BINARY_SIZES: {
		size_t sizes[p->n_devices];

		pthread_mutex_lock(&p->lock);
		for (i = 0; i < p->n_devices; i++)
			sizes[i] = icd_program_binary_size(p, i);
		pthread_mutex_unlock(&p->lock);
		return icd_info(size, value, size_ret, sizes, sizeof(sizes));
	}
	case CL_PROGRAM_BINARIES: {
		unsigned char **out = value;

		if (size_ret)
			*size_ret = p->n_devices * sizeof(*out);
		if (!value)
			return CL_SUCCESS;
		if (size < p->n_devices * sizeof(*out))
			return CL_INVALID_VALUE;
		pthread_mutex_lock(&p->lock);
		for (i = 0; i < p->n_devices; i++)
			if (out[i] && icd_program_binary_size(p, i))
				icd_program_binary_write(p, i, out[i]);
		pthread_mutex_unlock(&p->lock);
		return CL_SUCCESS;
	}
	case CL_PROGRAM_NUM_KERNELS:
	case CL_PROGRAM_KERNEL_NAMES:
		pthread_mutex_lock(&p->lock);
		if (!program_built(p)) {
			r = CL_INVALID_PROGRAM_EXECUTABLE;
		} else if (param == CL_PROGRAM_NUM_KERNELS) {
			r = icd_info_size(size, value, size_ret,
					  p->n_kernel_names);
		} else {
			r = icd_info_string(size, value, size_ret,
					    p->kernel_names);
		}
		pthread_mutex_unlock(&p->lock);
		return r;
	case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
	case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
		return icd_info_bool(size, value, size_ret, false);
	default:
		return CL_INVALID_VALUE;
	}
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id d,
					 cl_program_build_info param,
					 size_t size, void *value,
					 size_t *size_ret)
{
	struct icd_build *b;
	cl_int r;
	int i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	i = icd_object_valid(d, ICD_MAGIC_DEVICE) ?
		    icd_program_device_index(p, d) : -1;
	if (i < 0)
		return CL_INVALID_DEVICE;
	b = &p->builds[i];
	pthread_mutex_lock(&p->lock);
	switch (param) {
	case CL_PROGRAM_BUILD_STATUS:
		r = icd_info(size, value, size_ret, &b->status,
			     sizeof(b->status));
		break;
	case CL_PROGRAM_BUILD_OPTIONS:
		r = icd_info_string(size, value, size_ret, b->options);
		break;
	case CL_PROGRAM_BUILD_LOG:
		r = icd_info_string(size, value, size_ret, b->log);
		break;
	case CL_PROGRAM_BINARY_TYPE:
		r = icd_info_uint(size, value, size_ret, b->binary_type);
		break;
	case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: {
		uint64_t bytes = 0;

		if (b->prog)
			accel_program_get_global_variable_size(b->prog, &bytes);
		r = icd_info_size(size, value, size_ret, (size_t)bytes);
		break;
	}
	default:
		r = CL_INVALID_VALUE;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

cl_int CL_API_CALL clSetProgramReleaseCallback(
	cl_program p, void(CL_CALLBACK *fn)(cl_program, void *) _unused_,
	void *user_data _unused_)
{
	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	/* No device has program-scope global destructors. */
	return CL_INVALID_OPERATION;
}
