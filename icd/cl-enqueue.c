/* SPDX-License-Identifier: MIT */
/*
 * The enqueue machinery shared by every command (wait lists, events,
 * blocking, host-side commands), markers and barriers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

cl_int icd_wait_init(cl_command_queue q, cl_uint n, const cl_event *list,
		     struct icd_wait *w)
{
	struct accel_fence *barrier = NULL;
	uint32_t total;
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

	/* Only out-of-order queues ever get one (queue_set_barrier()). */
	if (q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
		pthread_mutex_lock(&q->lock);
		barrier = accel_fence_ref(q->barrier);
		pthread_mutex_unlock(&q->lock);
	}

	/* libaccel counts the wait list in 32 bits, the barrier included */
	if (__builtin_add_overflow(n, barrier ? 1u : 0u, &total)) {
		accel_fence_unref(barrier);
		return CL_OUT_OF_RESOURCES;
	}
	if (total > ICD_ARRAY_SIZE(w->inline_fences)) {
		w->fences = calloc(total, sizeof(*w->fences));
		if (!w->fences) {
			w->fences = w->inline_fences;
			accel_fence_unref(barrier);
			return CL_OUT_OF_HOST_MEMORY;
		}
	}
	/* References: the events are the caller's for this call's length. */
	for (i = 0; i < n; i++)
		w->fences[w->n++] = accel_fence_ref(list[i]->fence);
	if (barrier)
		w->fences[w->n++] = barrier;
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

/* ---- host-side commands -------------------------------------------------- */

struct host_cmd {
	icd_host_fn fn;
	void *data;
	void (*free_data)(void *);
	struct accel_fence *done; /* user fence: signalled after fn */
};

static void host_cmd_run(struct accel_fence *fence _unused_, int status,
			 void *p)
{
	struct host_cmd *c = p;

	/* The wait list failed: skip the work, fail the same way. */
	if (status == 0)
		status = c->fn(c->data);
	accel_fence_signal(c->done, status > 0 ? 0 : status);
	accel_fence_unref(c->done);
	if (c->free_data)
		c->free_data(c->data);
	free(c);
}

/*
 * libaccel has no host-function command, so one is built from public
 * parts: a marker (the command's dependencies), a callback on it doing the
 * work and signalling a user fence, and a second marker waiting for that
 * fence, which is the command's fence: later commands of an in-order queue
 * wait for it, so they see the work done.
 */
cl_int icd_enqueue_host(cl_command_queue q, struct icd_wait *w,
			icd_host_fn fn, void *data, void (*free_data)(void *),
			struct accel_fence **ret_fence)
{
	struct accel_fence *start = NULL, *end = NULL;
	struct host_cmd *c = calloc(1, sizeof(*c));
	int r;

	if (!c) {
		if (free_data)
			free_data(data);
		return CL_OUT_OF_HOST_MEMORY;
	}
	c->fn = fn;
	c->data = data;
	c->free_data = free_data;
	r = accel_fence_new_user(q->ctx->platform->actx, &c->done);
	if (r == 0)
		r = accel_queue_marker(q->q, w->n, w->fences, &start);
	if (r == 0)
		r = accel_queue_marker(q->q, 1, &c->done, &end);
	if (r < 0) {
		/* Nothing waits for `done` unless `end` exists. */
		if (c->done)
			accel_fence_signal(c->done, -ECANCELED);
		accel_fence_unref(c->done);
		accel_fence_unref(start);
		if (free_data)
			free_data(data);
		free(c);
		return icd_error(r);
	}
	r = accel_fence_add_callback(start, host_cmd_run, c);
	accel_fence_unref(start);
	if (r < 0) {
		accel_fence_signal(c->done, r);
		accel_fence_unref(c->done);
		if (free_data)
			free_data(data);
		free(c);
	}
	*ret_fence = end;
	return CL_SUCCESS;
}

/* ---- markers and barriers ------------------------------------------------ */

static void queue_set_barrier(cl_command_queue q, struct accel_fence *fence)
{
	struct accel_fence *old;

	if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
		return; /* in order: every command waits anyway */
	pthread_mutex_lock(&q->lock);
	old = q->barrier;
	q->barrier = accel_fence_ref(fence);
	pthread_mutex_unlock(&q->lock);
	accel_fence_unref(old);
}

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
	e = accel_queue_marker(q->q, w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return icd_error(e);
	if (type == CL_COMMAND_BARRIER)
		queue_set_barrier(q, fence);
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
