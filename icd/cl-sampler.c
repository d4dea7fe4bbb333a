/* SPDX-License-Identifier: MIT */
/*
 * Samplers: three settings kept as given and as the ACCEL_SAMPLER_* bits
 * (OpenCL C's CLK_* values, accel-wg.h) a kernel argument takes
 * (accel_kernel_set_arg_sampler()). Nothing of libaccel's is made.
 */
#include <stdlib.h>
#include <string.h>

#include "icd.h"

static bool address_bits(cl_addressing_mode a, uint32_t *bits)
{
	switch (a) {
	case CL_ADDRESS_NONE:
		*bits = ACCEL_SAMPLER_ADDRESS_NONE;
		return true;
	case CL_ADDRESS_CLAMP_TO_EDGE:
		*bits = ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE;
		return true;
	case CL_ADDRESS_CLAMP:
		*bits = ACCEL_SAMPLER_ADDRESS_CLAMP;
		return true;
	case CL_ADDRESS_REPEAT:
		*bits = ACCEL_SAMPLER_ADDRESS_REPEAT;
		return true;
	case CL_ADDRESS_MIRRORED_REPEAT:
		*bits = ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT;
		return true;
	default:
		return false;
	}
}

static bool filter_bits(cl_filter_mode f, uint32_t *bits)
{
	switch (f) {
	case CL_FILTER_NEAREST:
		*bits = ACCEL_SAMPLER_FILTER_NEAREST;
		return true;
	case CL_FILTER_LINEAR:
		*bits = ACCEL_SAMPLER_FILTER_LINEAR;
		return true;
	default:
		return false;
	}
}

static cl_sampler sampler_new(cl_context ctx, cl_bool normalized,
			      cl_addressing_mode addressing,
			      cl_filter_mode filter,
			      const cl_sampler_properties *props,
			      size_t n_props, cl_int *err)
{
	uint32_t a, f;
	cl_sampler s;

	if (!address_bits(addressing, &a) || !filter_bits(filter, &f) ||
	    (normalized != CL_TRUE && normalized != CL_FALSE))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	if (!icd_context_has_images(ctx))
		ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
	s = calloc(1, sizeof(*s));
	if (!s)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	if (props) {
		s->props = calloc(n_props, sizeof(*props));
		if (!s->props) {
			free(s);
			ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
		}
		memcpy(s->props, props, n_props * sizeof(*props));
		s->n_props = n_props;
	}
	icd_object_init(&s->obj, ctx->platform, ICD_MAGIC_SAMPLER);
	s->ctx = ctx;
	icd_hold(ctx);
	s->normalized = normalized;
	s->addressing = addressing;
	s->filter = filter;
	s->bits = a | f | (normalized ? ACCEL_SAMPLER_NORMALIZED_COORDS : 0);
	ICD_RETURN_ERR(err, CL_SUCCESS, s);
}

cl_sampler CL_API_CALL clCreateSampler(cl_context ctx, cl_bool normalized,
				       cl_addressing_mode addressing,
				       cl_filter_mode filter, cl_int *err)
{
	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	return sampler_new(ctx, normalized, addressing, filter, NULL, 0, err);
}

/* Defaults: normalized coordinates, CLAMP, NEAREST (the specification's). */
cl_sampler CL_API_CALL clCreateSamplerWithProperties(
	cl_context ctx, const cl_sampler_properties *props, cl_int *err)
{
	cl_bool normalized = CL_TRUE;
	cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
	cl_filter_mode filter = CL_FILTER_NEAREST;
	bool seen[3] = { false, false, false };
	size_t i = 0;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	for (; props && props[i]; i += 2) {
		int k;

		switch (props[i]) {
		case CL_SAMPLER_NORMALIZED_COORDS:
			k = 0;
			normalized = (cl_bool)props[i + 1];
			if (props[i + 1] != CL_TRUE && props[i + 1] != CL_FALSE)
				ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
			break;
		case CL_SAMPLER_ADDRESSING_MODE:
			k = 1;
			addressing = (cl_addressing_mode)props[i + 1];
			break;
		case CL_SAMPLER_FILTER_MODE:
			k = 2;
			filter = (cl_filter_mode)props[i + 1];
			break;
		default:
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
		}
		if (seen[k])
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
		seen[k] = true;
	}
	return sampler_new(ctx, normalized, addressing, filter, props,
			   props ? i + 1 : 0, err);
}

cl_int CL_API_CALL clRetainSampler(cl_sampler s)
{
	return icd_retain(s, ICD_MAGIC_SAMPLER, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler s)
{
	return icd_release(s, ICD_MAGIC_SAMPLER, CL_INVALID_SAMPLER);
}

void icd_sampler_free(cl_sampler s)
{
	icd_put(s->ctx);
	free(s->props);
	s->obj.magic = ICD_MAGIC_FREED;
	free(s);
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler s, cl_sampler_info param,
				    size_t size, void *value, size_t *size_ret)
{
	if (!icd_object_valid(s, ICD_MAGIC_SAMPLER))
		return CL_INVALID_SAMPLER;
	switch (param) {
	case CL_SAMPLER_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(s));
	case CL_SAMPLER_CONTEXT:
		return icd_info_ptr(size, value, size_ret, s->ctx);
	case CL_SAMPLER_NORMALIZED_COORDS:
		return icd_info_uint(size, value, size_ret, s->normalized);
	case CL_SAMPLER_ADDRESSING_MODE:
		return icd_info_uint(size, value, size_ret, s->addressing);
	case CL_SAMPLER_FILTER_MODE:
		return icd_info_uint(size, value, size_ret, s->filter);
	case CL_SAMPLER_PROPERTIES:
		return icd_info(size, value, size_ret, s->props,
				s->n_props * sizeof(*s->props));
	default:
		return CL_INVALID_VALUE;
	}
}
