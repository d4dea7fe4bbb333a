/* SPDX-License-Identifier: MIT */
/*
 * The enqueue machinery shared by every command (wait lists, events,
 * blocking), markers and barriers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

cl_int icd_wait_init(cl_command_queue q, cl_uint n, const cl_event *list,
		     struct icd_wait *w)
{
	cl_uint i;

	w->fences = w->inline_fences;
	w->n = 0;
	if ((n && !list) || (!n && list))
		return CL_INVALID_EVENT_WAIT_LIST;
	for (i = 0; i < n; i++) {
		if (!icd_object_valid(list[i], ICD_MAGIC_EVENT))
			return CL_INVALID_EVENT_WAIT_LIST;
		if (list[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	if (n > ICD_ARRAY_SIZE(w->inline_fences)) {
		w->fences = calloc(n, sizeof(*w->fences));
		if (!w->fences) {
			w->fences = w->inline_fences;
			return CL_OUT_OF_HOST_MEMORY;
		}
	}
	/* References: the events are the caller's for this call's length. */
	for (i = 0; i < n; i++)
		w->fences[w->n++] = accel_fence_ref(list[i]->fence);
	return CL_SUCCESS;
}

void icd_wait_fini(struct icd_wait *w)
{
	uint32_t i;

	for (i = 0; i < w->n; i++)
		accel_fence_unref(w->fences[i]);
	if (w->fences != w->inline_fences)
		free(w->fences);
	w->fences = w->inline_fences;
	w->n = 0;
}

cl_int icd_enqueue_host_fn(cl_command_queue q, cl_command_type type,
			   int (*run)(void *), void *c,
			   void (*free_fn)(void *), cl_bool blocking,
			   cl_uint n, const cl_event *list, cl_event *event)
{
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	cl_int r;
	int e;

	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS) {
		free_fn(c);
		return r;
	}
	e = accel_queue_host_fn(q->q, run, c, free_fn, w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return icd_error(e);
	return icd_enqueue_done(q, type, fence, blocking, event);
}

cl_int icd_enqueue_done(cl_command_queue q, cl_command_type type,
			struct accel_fence *fence, bool blocking,
			cl_event *event)
{
	cl_event ev = NULL;
	cl_int r = CL_SUCCESS;

	if (event)
		r = icd_event_new(q, type, fence, &ev);
	if (blocking && accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE) < 0 &&
	    r == CL_SUCCESS)
		r = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	accel_fence_unref(fence);
	/* a failed call hands out no event: the caller would never release
	 * it (found by fuzz-cl) */
	if (r == CL_SUCCESS && event)
		*event = ev;
	else if (ev)
		clReleaseEvent(ev);
	return r;
}

/* ---- markers and barriers ------------------------------------------------ */

cl_int icd_enqueue_marker(cl_command_queue q, cl_uint n,
			  const cl_event *list, cl_event *event,
			  cl_command_type type)
{
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	cl_int r;
	int e;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (n == 0 && !list) {
		/* libaccel's empty-list marker waits for every command */
		w.fences = w.inline_fences;
		w.n = 0;
	} else {
		r = icd_wait_init(q, n, list, &w);
		if (r != CL_SUCCESS)
			return r;
	}
	/* A barrier also holds back every later command of the queue. */
	e = type == CL_COMMAND_BARRIER ?
		    accel_queue_barrier(q->q, w.n, w.fences, &fence) :
		    accel_queue_marker(q->q, w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return icd_error(e);
	return icd_enqueue_done(q, type, fence, false, event);
}

cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n,
					       const cl_event *list,
					       cl_event *event)
{
	return icd_enqueue_marker(q, n, list, event, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue q,
						cl_uint n, const cl_event *list,
						cl_event *event)
{
	return icd_enqueue_marker(q, n, list, event, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL clEnqueueMarker(cl_command_queue q, cl_event *event)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!event)
		return CL_INVALID_VALUE;
	return icd_enqueue_marker(q, 0, NULL, event, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue q)
{
	return icd_enqueue_marker(q, 0, NULL, NULL, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue q, cl_uint n,
					  const cl_event *list)
{
	cl_uint i;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (n == 0 || !list)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		if (!icd_object_valid(list[i], ICD_MAGIC_EVENT))
			return CL_INVALID_EVENT;
		if (list[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	return icd_enqueue_marker(q, n, list, NULL, CL_COMMAND_BARRIER);
}
