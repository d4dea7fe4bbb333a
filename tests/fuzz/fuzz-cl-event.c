/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's operations that order work and wait for it: markers, barriers,
 * flushes, finishes and waits, and events: user events, their status and
 * callbacks. A blocking call first completes every user event.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-cl.h"

void fcl_op_marker(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	uint8_t sel = fz_u8(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	switch (sel & 3) {
	case 0:
		err = clEnqueueMarkerWithWaitList(q, n, wait, out);
		break;
	case 1:
		err = clEnqueueBarrierWithWaitList(q, n, wait, out);
		break;
	case 2:
		err = clEnqueueWaitForEvents(q, n, wait);
		out = NULL; /* it returns no event */
		break;
	default:
		err = clEnqueueMarker(q, out);
		break;
	}
	fcl_take_event(r, out, err, tmp);
}

void fcl_op_sync(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	uint8_t sel = fz_u8(&r->in);
	cl_event list[4];
	const cl_event *wait;
	cl_uint n;

	switch (sel & 3) {
	case 0:
		clFlush(q);
		break;
	case 1:
		fcl_settle(r);
		clFinish(q);
		break;
	default:
		n = fcl_pick_wait(r, list, &wait);
		fcl_settle(r);
		clWaitForEvents(n, wait);
		break;
	}
}

static void CL_CALLBACK event_cb(cl_event e, cl_int status, void *data)
{
	(void)e;
	(void)status;
	(void)data;
	atomic_fetch_add(&fcl_callbacks_run, 1);
}

void fcl_op_event(struct run *r)
{
	struct event_slot *s = &r->ev[fz_pick(&r->in, N_EVENT)];
	uint8_t sel = fz_u8(&r->in);
	cl_int err, st;

	switch (sel & 3) {
	case 0: { /* a user event, in either context */
		cl_event e = clCreateUserEvent(fcl_g.ctx[(sel >> 2) & 1], &err);

		if ((err == CL_SUCCESS) != (e != NULL))
			abort();
		if (!e)
			return;
		fcl_drop_event(s);
		*s = (struct event_slot){ .e = e, .user = true };
		return;
	}
	case 1: /* set its status: CL_COMPLETE, an error, or invalid */
		st = (sel & 4) ? CL_COMPLETE : (sel & 8) ? -(int)(sel >> 4) - 1
							 : (cl_int)fz_u32(&r->in);
		err = clSetUserEventStatus(s->e, st);
		if (err == CL_SUCCESS) {
			if (!s->user || s->set || st > 0)
				abort();
			s->set = true;
		}
		return;
	case 2:
		clSetEventCallback(s->e, (sel & 4) ? CL_COMPLETE
				   : (sel & 8) ? CL_SUBMITTED
				   : (cl_int)fz_u32(&r->in),
				   (sel & 0x10) ? NULL : event_cb, NULL);
		return;
	default:
		if (s->e) {
			clRetainEvent(s->e);
			clReleaseEvent(s->e);
			if (sel & 4)
				fcl_drop_event(s);
		}
		return;
	}
}
