/* SPDX-License-Identifier: MIT */
/* Command queues: a libaccel queue each. */
#include <stdlib.h>
#include <string.h>

#include "icd.h"

#define HOST_PROPS                                                             \
	(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)
#define DEVICE_PROPS (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)

static cl_command_queue queue_new(cl_context ctx, cl_device_id dev,
				  cl_command_queue_properties props,
				  const cl_queue_properties *array,
				  size_t n_array, cl_int *err)
{
	cl_command_queue q;
	uint32_t flags = 0;
	int r;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	if (!icd_object_valid(dev, ICD_MAGIC_DEVICE) ||
	    !icd_context_has_device(ctx, dev))
		ICD_RETURN_ERR(err, CL_INVALID_DEVICE, NULL);
	if (props & ~(cl_command_queue_properties)(HOST_PROPS | DEVICE_PROPS))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	/* ON_DEVICE_DEFAULT needs ON_DEVICE, which needs out-of-order. */
	if (((props & CL_QUEUE_ON_DEVICE_DEFAULT) &&
	     !(props & CL_QUEUE_ON_DEVICE)) ||
	    ((props & CL_QUEUE_ON_DEVICE) &&
	     !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	/* Valid, but no device-side enqueue here. */
	if (props & DEVICE_PROPS)
		ICD_RETURN_ERR(err, CL_INVALID_QUEUE_PROPERTIES, NULL);

	if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
		flags |= ACCEL_QUEUE_OUT_OF_ORDER;
	if (props & CL_QUEUE_PROFILING_ENABLE)
		flags |= ACCEL_QUEUE_PROFILING;

	q = calloc(1, sizeof(*q));
	if (!q)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	if (n_array) {
		q->props_array = calloc(n_array, sizeof(*array));
		if (!q->props_array) {
			free(q);
			ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
		}
		memcpy(q->props_array, array, n_array * sizeof(*array));
		q->n_props_array = n_array;
	}
	r = accel_queue_new(dev->dev, flags, &q->q);
	if (r < 0) {
		free(q->props_array);
		free(q);
		ICD_RETURN_ERR(err, icd_error(r), NULL);
	}
	icd_object_init(&q->obj, ctx->platform, ICD_MAGIC_QUEUE);
	q->ctx = ctx;
	icd_hold(ctx);
	q->dev = dev;
	q->props = props;
	ICD_RETURN_ERR(err, CL_SUCCESS, q);
}

cl_command_queue CL_API_CALL clCreateCommandQueue(
	cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
	cl_int *err)
{
	/* OpenCL 1.x: device-queue bits did not exist. */
	if (props & DEVICE_PROPS) {
		if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
			ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	}
	return queue_new(ctx, dev, props, NULL, 0, err);
}

cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
	cl_context ctx, cl_device_id dev, const cl_queue_properties *props,
	cl_int *err)
{
	cl_command_queue_properties bits = 0;
	bool have_props = false, have_size = false;
	size_t i = 0;

	for (i = 0; props && props[i]; i += 2) {
		switch (props[i]) {
		case CL_QUEUE_PROPERTIES:
			if (have_props)
				ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
			have_props = true;
			bits = props[i + 1];
			break;
		case CL_QUEUE_SIZE:
			if (have_size)
				ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
			have_size = true;
			break;
		default:
			if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
				ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
		}
	}
	/* A size only makes sense for a device queue. */
	if (have_size && !(bits & CL_QUEUE_ON_DEVICE)) {
		if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
			ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	}
	return queue_new(ctx, dev, bits, props, props ? i + 1 : 0, err);
}

cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q)
{
	return icd_retain(q, ICD_MAGIC_QUEUE, CL_INVALID_COMMAND_QUEUE);
}

cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q)
{
	return icd_release(q, ICD_MAGIC_QUEUE, CL_INVALID_COMMAND_QUEUE);
}

void icd_queue_free(cl_command_queue q)
{
	/* Submitted commands still run; libaccel keeps what they need. */
	accel_queue_unref(q->q);
	icd_put(q->ctx);
	free(q->props_array);
	q->obj.magic = ICD_MAGIC_FREED;
	free(q);
}

cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q,
					 cl_command_queue_info param,
					 size_t size, void *value,
					 size_t *size_ret)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	switch (param) {
	case CL_QUEUE_CONTEXT:
		return icd_info_ptr(size, value, size_ret, q->ctx);
	case CL_QUEUE_DEVICE:
		return icd_info_ptr(size, value, size_ret, q->dev);
	case CL_QUEUE_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(q));
	case CL_QUEUE_PROPERTIES:
		return icd_info_ulong(size, value, size_ret, q->props);
	case CL_QUEUE_PROPERTIES_ARRAY:
		return icd_info(size, value, size_ret, q->props_array,
				q->n_props_array * sizeof(*q->props_array));
	case CL_QUEUE_DEVICE_DEFAULT:
		return icd_info_ptr(size, value, size_ret, NULL);
	case CL_QUEUE_SIZE:
		/* only device queues have a size */
		return CL_INVALID_COMMAND_QUEUE;
	default:
		return CL_INVALID_VALUE;
	}
}

cl_int CL_API_CALL clSetCommandQueueProperty(
	cl_command_queue q, cl_command_queue_properties props _unused_,
	cl_bool enable _unused_, cl_command_queue_properties *old _unused_)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	/* Removed after OpenCL 1.0; properties are fixed at creation. */
	return CL_INVALID_OPERATION;
}

cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context ctx,
						  cl_device_id dev,
						  cl_command_queue q _unused_)
{
	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		return CL_INVALID_CONTEXT;
	if (!icd_object_valid(dev, ICD_MAGIC_DEVICE) ||
	    !icd_context_has_device(ctx, dev))
		return CL_INVALID_DEVICE;
	/* No device supports device-side enqueue. */
	return CL_INVALID_OPERATION;
}

cl_int CL_API_CALL clFlush(cl_command_queue q)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	return icd_error(accel_queue_flush(q->q));
}

cl_int CL_API_CALL clFinish(cl_command_queue q)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	/*
	 * A failed command is reported through its event, not here: the
	 * queue itself finished.
	 */
	accel_queue_finish(q->q);
	return CL_SUCCESS;
}
