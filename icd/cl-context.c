/* SPDX-License-Identifier: MIT */
/* Contexts: a set of our devices, properties, callbacks. */
#include <stdlib.h>
#include <string.h>

#include "icd.h"

bool icd_context_has_device(cl_context ctx, cl_device_id dev)
{
	cl_uint i;

	for (i = 0; i < ctx->n_devices; i++)
		if (ctx->devices[i] == dev)
			return true;
	return false;
}

/* Check the property list; returns the number of entries with the 0. */
static cl_int check_properties(const cl_context_properties *props,
			       size_t *n_ret)
{
	bool have_platform = false, have_sync = false;
	size_t i;

	if (!props) {
		*n_ret = 0;
		return CL_SUCCESS;
	}
	for (i = 0; props[i]; i += 2) {
		switch (props[i]) {
		case CL_CONTEXT_PLATFORM:
			if (have_platform)
				return CL_INVALID_PROPERTY;
			have_platform = true;
			if (!icd_platform_valid((cl_platform_id)props[i + 1]))
				return CL_INVALID_PLATFORM;
			break;
		case CL_CONTEXT_INTEROP_USER_SYNC:
			if (have_sync)
				return CL_INVALID_PROPERTY;
			have_sync = true;
			if (props[i + 1] != CL_TRUE && props[i + 1] != CL_FALSE)
				return CL_INVALID_PROPERTY;
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
	}
	*n_ret = i + 1;
	return CL_SUCCESS;
}

static cl_context context_new(const cl_context_properties *props,
			      cl_uint n_devices, const cl_device_id *devices,
			      void(CL_CALLBACK *notify)(const char *,
							const void *, size_t,
							void *),
			      void *notify_data, cl_int *err)
{
	cl_platform_id p = icd_platform_get();
	cl_context ctx;
	size_t n_props;
	cl_int r;
	cl_uint i;

	r = check_properties(props, &n_props);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!p)
		ICD_RETURN_ERR(err, CL_INVALID_PLATFORM, NULL);

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	ctx->devices = calloc(n_devices, sizeof(*ctx->devices));
	ctx->props = calloc(ICD_MAX(n_props, 1), sizeof(*ctx->props));
	if (!ctx->devices || !ctx->props) {
		free(ctx->devices);
		free(ctx->props);
		free(ctx);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	icd_object_init(&ctx->obj, p, ICD_MAGIC_CONTEXT);
	ctx->platform = p;
	/* A device listed twice counts once. */
	for (i = 0; i < n_devices; i++)
		if (!icd_context_has_device(ctx, devices[i]))
			ctx->devices[ctx->n_devices++] = devices[i];
	if (n_props)
		memcpy(ctx->props, props, n_props * sizeof(*props));
	ctx->n_props = n_props;
	ctx->notify = notify;
	ctx->notify_data = notify_data;
	pthread_mutex_init(&ctx->lock, NULL);
	ICD_RETURN_ERR(err, CL_SUCCESS, ctx);
}

cl_context CL_API_CALL clCreateContext(
	const cl_context_properties *props, cl_uint num_devices,
	const cl_device_id *devices,
	void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
	void *user_data, cl_int *err)
{
	cl_uint i;

	if (!devices || num_devices == 0 || (!notify && user_data))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < num_devices; i++)
		if (!icd_object_valid(devices[i], ICD_MAGIC_DEVICE))
			ICD_RETURN_ERR(err, CL_INVALID_DEVICE, NULL);
	return context_new(props, num_devices, devices, notify, user_data,
			   err);
}

cl_context CL_API_CALL clCreateContextFromType(
	const cl_context_properties *props, cl_device_type type,
	void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
	void *user_data, cl_int *err)
{
	cl_platform_id p = icd_platform_get();
	cl_device_id *devices;
	cl_uint n = 0;
	cl_context ctx;
	size_t n_props;
	cl_int r;

	if (!notify && user_data)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	r = check_properties(props, &n_props);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!p)
		ICD_RETURN_ERR(err, CL_INVALID_PLATFORM, NULL);
	r = clGetDeviceIDs(p, type, 0, NULL, &n);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	devices = calloc(n, sizeof(*devices));
	if (!devices)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	r = clGetDeviceIDs(p, type, n, devices, NULL);
	if (r != CL_SUCCESS) {
		free(devices);
		ICD_RETURN_ERR(err, r, NULL);
	}
	ctx = context_new(props, n, devices, notify, user_data, err);
	free(devices);
	return ctx;
}

cl_int CL_API_CALL clRetainContext(cl_context ctx)
{
	return icd_retain(ctx, ICD_MAGIC_CONTEXT, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL clReleaseContext(cl_context ctx)
{
	return icd_release(ctx, ICD_MAGIC_CONTEXT, CL_INVALID_CONTEXT);
}

void icd_context_free(cl_context ctx)
{
	struct icd_callback *cb, *next;

	/* Destructor callbacks, newest first, as the specification says. */
	for (cb = ctx->destructors; cb; cb = next) {
		next = cb->next;
		((void(CL_CALLBACK *)(cl_context, void *))cb->fn)(
			ctx, cb->user_data);
		free(cb);
	}
	icd_svm_free_all(ctx);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx->devices);
	free(ctx->props);
	ctx->obj.magic = ICD_MAGIC_FREED;
	free(ctx);
}

cl_int CL_API_CALL clSetContextDestructorCallback(
	cl_context ctx, void(CL_CALLBACK *fn)(cl_context, void *),
	void *user_data)
{
	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		return CL_INVALID_CONTEXT;
	if (!fn)
		return CL_INVALID_VALUE;
	return icd_callback_push(&ctx->destructors, &ctx->lock,
				 (void (*)(void))fn, user_data);
}

cl_int CL_API_CALL clGetContextInfo(cl_context ctx, cl_context_info param,
				    size_t size, void *value,
				    size_t *size_ret)
{
	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		return CL_INVALID_CONTEXT;
	switch (param) {
	case CL_CONTEXT_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret,
				     icd_refcount(ctx));
	case CL_CONTEXT_NUM_DEVICES:
		return icd_info_uint(size, value, size_ret, ctx->n_devices);
	case CL_CONTEXT_DEVICES:
		return icd_info(size, value, size_ret, ctx->devices,
				ctx->n_devices * sizeof(*ctx->devices));
	case CL_CONTEXT_PROPERTIES:
		return icd_info(size, value, size_ret, ctx->props,
				ctx->n_props * sizeof(*ctx->props));
	default:
		return CL_INVALID_VALUE;
	}
}
