/* SPDX-License-Identifier: MIT */
/*
 * Events are libaccel fences: a command's completion fence, or a user fence
 * for user events. A failed fence carries a negative errno; the event
 * reports it as a negative CL error code.
 */
#include <errno.h>
#include <stdlib.h>

#include "icd.h"

/*
 * What a user event set to a negative status signals its fence with:
 * commands waiting for it then fail the same way, without running.
 */
#define USER_EVENT_FAILED (-ECANCELED)

cl_int icd_fence_cl_status(int status)
{
	cl_int r;

	if (status > 0)
		return CL_COMPLETE;
	if (status == 0)
		return CL_SUBMITTED;
	r = icd_error(status);
	/* an execution status must be negative */
	return r < 0 ? r : CL_OUT_OF_RESOURCES;
}

static cl_event event_alloc(cl_context ctx, cl_command_queue q,
			    cl_command_type type, struct accel_fence *fence)
{
	cl_event e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	icd_object_init(&e->obj, ctx->platform, ICD_MAGIC_EVENT);
	e->ctx = ctx;
	icd_hold(ctx);
	e->queue = q;
	if (q) {
		icd_hold(q);
		e->profiling = q->props & CL_QUEUE_PROFILING_ENABLE;
	}
	e->type = type;
	e->fence = accel_fence_ref(fence);
	atomic_init(&e->user_status, CL_SUBMITTED);
	return e;
}

cl_int icd_event_new(cl_command_queue q, cl_command_type type,
		     struct accel_fence *fence, cl_event *ret)
{
	cl_event e = event_alloc(q->ctx, q, type, fence);

	if (!e)
		return CL_OUT_OF_HOST_MEMORY;
	*ret = e;
	return CL_SUCCESS;
}

void icd_event_free(cl_event e)
{
	accel_fence_unref(e->fence);
	accel_fence_unref(e->start);
	if (e->queue)
		icd_put(e->queue);
	icd_put(e->ctx);
	e->obj.magic = ICD_MAGIC_FREED;
	free(e);
}

cl_int icd_event_status(cl_event e)
{
	int s;

	if (!e->queue) {
		s = atomic_load(&e->user_status);
		return s;
	}
	s = accel_fence_get_status(e->fence);
	if (s == 0 && e->profiling) {
		uint64_t t;

		if (accel_fence_get_time(e->fence, ACCEL_FENCE_TIME_STARTED,
					 &t) == 0)
			return CL_RUNNING;
	}
	return icd_fence_cl_status(s);
}

cl_event CL_API_CALL clCreateUserEvent(cl_context ctx, cl_int *err)
{
	struct accel_fence *fence = NULL;
	cl_event e;
	int r;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	r = accel_fence_new_user(ctx->platform->actx, &fence);
	if (r < 0)
		ICD_RETURN_ERR(err, icd_error(r), NULL);
	e = event_alloc(ctx, NULL, CL_COMMAND_USER, fence);
	accel_fence_unref(fence);
	if (!e)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	ICD_RETURN_ERR(err, CL_SUCCESS, e);
}

cl_int CL_API_CALL clSetUserEventStatus(cl_event e, cl_int status)
{
	int expected = CL_SUBMITTED;

	if (!icd_object_valid(e, ICD_MAGIC_EVENT) || e->queue)
		return CL_INVALID_EVENT;
	if (status != CL_COMPLETE && status >= 0)
		return CL_INVALID_VALUE;
	if (!atomic_compare_exchange_strong(&e->user_status, &expected,
					    status))
		return CL_INVALID_OPERATION;
	accel_fence_signal(e->fence, status == CL_COMPLETE ? 0 :
							     USER_EVENT_FAILED);
	return CL_SUCCESS;
}

cl_int CL_API_CALL clRetainEvent(cl_event e)
{
	return icd_retain(e, ICD_MAGIC_EVENT, CL_INVALID_EVENT);
}

cl_int CL_API_CALL clReleaseEvent(cl_event e)
{
	return icd_release(e, ICD_MAGIC_EVENT, CL_INVALID_EVENT);
}

cl_int CL_API_CALL clWaitForEvents(cl_uint n, const cl_event *list)
{
	bool failed = false;
	cl_uint i;

	if (n == 0 || !list)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		if (!icd_object_valid(list[i], ICD_MAGIC_EVENT))
			return CL_INVALID_EVENT;
		if (list[i]->ctx != list[0]->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < n; i++) {
		/* commands are never held back: waiting implies a flush */
		if (accel_fence_wait(list[i]->fence, ACCEL_TIMEOUT_INFINITE) < 0)
			failed = true;
	}
	return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST :
			CL_SUCCESS;
}

cl_int CL_API_CALL clGetEventInfo(cl_event e, cl_event_info param,
				  size_t size, void *value, size_t *size_ret)
{
	if (!icd_object_valid(e, ICD_MAGIC_EVENT))
		return CL_INVALID_EVENT;
	switch (param) {
	case CL_EVENT_COMMAND_QUEUE:
		return icd_info_ptr(size, value, size_ret, e->queue);
	case CL_EVENT_CONTEXT:
		return icd_info_ptr(size, value, size_ret, e->ctx);
	case CL_EVENT_COMMAND_TYPE:
		return icd_info_uint(size, value, size_ret, e->type);
	case CL_EVENT_COMMAND_EXECUTION_STATUS: {
		cl_int s = icd_event_status(e);

		return icd_info(size, value, size_ret, &s, sizeof(s));
	}
	case CL_EVENT_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(e));
	default:
		return CL_INVALID_VALUE;
	}
}

cl_int CL_API_CALL clGetEventProfilingInfo(cl_event e,
					   cl_profiling_info param,
					   size_t size, void *value,
					   size_t *size_ret)
{
	enum accel_fence_time which;
	uint64_t t;
	int r;

	if (!icd_object_valid(e, ICD_MAGIC_EVENT))
		return CL_INVALID_EVENT;
	switch (param) {
	case CL_PROFILING_COMMAND_QUEUED:
		which = ACCEL_FENCE_TIME_QUEUED;
		break;
	case CL_PROFILING_COMMAND_SUBMIT:
		which = ACCEL_FENCE_TIME_SUBMITTED;
		break;
	case CL_PROFILING_COMMAND_START:
		which = ACCEL_FENCE_TIME_STARTED;
		break;
	case CL_PROFILING_COMMAND_END:
	case CL_PROFILING_COMMAND_COMPLETE:
		/* no child commands: complete is end */
		which = ACCEL_FENCE_TIME_ENDED;
		break;
	default:
		return CL_INVALID_VALUE;
	}
	/* user events, queues without profiling, unfinished commands */
	if (!e->queue || !e->profiling ||
	    accel_fence_get_status(e->fence) != 1)
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	r = accel_fence_get_time(e->start && which != ACCEL_FENCE_TIME_ENDED ?
					 e->start : e->fence,
				 which, &t);
	if (r < 0)
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	return icd_info_ulong(size, value, size_ret, t);
}

struct event_callback {
	cl_event event;
	cl_int type;
	void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
	void *user_data;
};

static void event_callback_run(struct accel_fence *fence _unused_,
			       int status, void *data)
{
	struct event_callback *cb = data;
	cl_int s = cb->type;

	if (status < 0)
		s = cb->event->queue ? icd_fence_cl_status(status) :
				       atomic_load(&cb->event->user_status);
	cb->fn(cb->event, s, cb->user_data);
	icd_put(cb->event);
	free(cb);
}

cl_int CL_API_CALL clSetEventCallback(
	cl_event e, cl_int type,
	void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user_data)
{
	struct event_callback *cb;
	int r;

	if (!icd_object_valid(e, ICD_MAGIC_EVENT))
		return CL_INVALID_EVENT;
	if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING &&
		    type != CL_COMPLETE))
		return CL_INVALID_VALUE;
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return CL_OUT_OF_HOST_MEMORY;
	cb->event = e;
	cb->type = type;
	cb->fn = fn;
	cb->user_data = user_data;
	icd_hold(e);
	/*
	 * Every state is reached at the latest when the fence signals;
	 * commands are submitted at once, so calling the CL_SUBMITTED and
	 * CL_RUNNING callbacks then is within what the specification allows.
	 */
	r = accel_fence_add_callback(e->fence, event_callback_run, cb);
	if (r < 0) {
		icd_put(e);
		free(cb);
		return icd_error(r);
	}
	return CL_SUCCESS;
}
