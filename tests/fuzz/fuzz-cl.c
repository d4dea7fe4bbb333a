/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: sequences of OpenCL calls into the ICD's entry points
 * (compiled into this program), on the CPU device.
 *
 * An input is a byte-coded program over small tables of objects (queues,
 * buffers and sub-buffers, programs, kernels, events, user events, maps);
 * operands are fuzzed, including huge and near-SIZE_MAX sizes, offsets,
 * pitches and geometry. Only calls whose outcome the specification defines
 * are made: no released object is used, host memory handed over is as
 * large as the call may touch (or the call is one that must fail), blocking
 * calls first complete every user event (else they would wait forever),
 * and work that would really run is kept tiny. Every object is released at
 * the end of the input, so LeakSanitizer and the fd check see leaks.
 *
 * Programs are built once (LLVMFuzzerInitialize); inputs make programs
 * from that binary and kernels from it, never compile.
 *
 * This file holds the set-up, the operand and event helpers, the teardown
 * and the dispatch; the operations live in fuzz-cl-<what>.c (fuzz-cl.h).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-cl.h"
#include "fuzz-fds.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fcl_state fcl_g;

_Atomic unsigned long fcl_callbacks_run;

/* ---- initialisation ----------------------------------------------------- */

static void die(const char *what, cl_int err)
{
	fprintf(stderr, "fuzz-cl: %s failed: %d\n", what, err);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = fcl_kernel_source;
	cl_uint n = 0;
	cl_int err;
	int i;

	(void)argc;
	(void)argv;
	err = clIcdGetPlatformIDsKHR(1, &fcl_g.platform, &n);
	if (err != CL_SUCCESS || !n)
		die("clIcdGetPlatformIDsKHR", err);
	err = clGetDeviceIDs(fcl_g.platform, CL_DEVICE_TYPE_CPU, 1,
			     &fcl_g.device, NULL);
	if (err != CL_SUCCESS)
		die("clGetDeviceIDs(CPU)", err);
	for (i = 0; i < 2; i++) {
		fcl_g.ctx[i] = clCreateContext(NULL, 1, &fcl_g.device, NULL,
					       NULL, &err);
		if (err != CL_SUCCESS)
			die("clCreateContext", err);
		fcl_g.cleanup_queue[i] = clCreateCommandQueueWithProperties(
			fcl_g.ctx[i], fcl_g.device, NULL, &err);
		if (err != CL_SUCCESS)
			die("clCreateCommandQueueWithProperties", err);
	}
	fcl_g.built = clCreateProgramWithSource(fcl_g.ctx[0], 1, &src, NULL,
						&err);
	if (err != CL_SUCCESS)
		die("clCreateProgramWithSource", err);
	err = clBuildProgram(fcl_g.built, 1, &fcl_g.device, NULL, NULL, NULL);
	if (err != CL_SUCCESS)
		die("clBuildProgram", err);
	err = clGetProgramInfo(fcl_g.built, CL_PROGRAM_BINARY_SIZES,
			       sizeof(fcl_g.binary_size), &fcl_g.binary_size,
			       NULL);
	if (err != CL_SUCCESS || !fcl_g.binary_size)
		die("CL_PROGRAM_BINARY_SIZES", err);
	fcl_g.binary = malloc(fcl_g.binary_size);
	if (!fcl_g.binary)
		die("malloc", 0);
	err = clGetProgramInfo(fcl_g.built, CL_PROGRAM_BINARIES,
			       sizeof(fcl_g.binary), &fcl_g.binary, NULL);
	if (err != CL_SUCCESS)
		die("CL_PROGRAM_BINARIES", err);
	if (clGetDeviceInfo(fcl_g.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
			    sizeof(fcl_g.max_alloc), &fcl_g.max_alloc, NULL) ||
	    clGetDeviceInfo(fcl_g.device, CL_DEVICE_LOCAL_MEM_SIZE,
			    sizeof(fcl_g.local_mem), &fcl_g.local_mem, NULL) ||
	    clGetDeviceInfo(fcl_g.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			    sizeof(fcl_g.max_wg), &fcl_g.max_wg, NULL))
		die("clGetDeviceInfo", 0);
	fcl_g.ok = true;
	return 0;
}

/* ---- operands ---------------------------------------------------------- */

cl_command_queue fcl_pick_queue(struct run *r, int *ctx)
{
	unsigned i = fz_pick(&r->in, N_QUEUE + 1);

	if (i == N_QUEUE) {
		*ctx = -1;
		return NULL;
	}
	*ctx = r->q_ctx[i];
	return r->q[i];
}

struct mem_slot *fcl_pick_mem(struct run *r)
{
	return &r->mem[fz_pick(&r->in, N_MEM)];
}

/* A wait list of up to 4 event slots (empty slots give NULL entries). */
cl_uint fcl_pick_wait(struct run *r, cl_event *list, const cl_event **ret)
{
	uint8_t sel = fz_u8(&r->in);
	cl_uint n = sel & 7, i;

	*ret = list;
	if (n > 4) {
		/* a count without a list, or a list without a count */
		*ret = NULL;
		return n == 7 ? 0 : n;
	}
	for (i = 0; i < n; i++)
		list[i] = r->ev[fz_pick(&r->in, N_EVENT)].e;
	if (!n && (sel & 8))
		*ret = NULL;
	return n;
}

/* Where a returned event goes: an event slot, or nowhere. */
cl_event *fcl_pick_event_out(struct run *r, cl_event *tmp)
{
	unsigned i = fz_pick(&r->in, N_EVENT + 2);

	if (i >= N_EVENT)
		return NULL;
	*tmp = NULL;
	return tmp;
}

void fcl_pick3(struct fz *f, size_t v[3])
{
	int i;

	for (i = 0; i < 3; i++)
		v[i] = fz_size(f);
}

/*
 * Drop a slot's event. A user event is completed first: commands waiting
 * on it could never run otherwise.
 */
void fcl_drop_event(struct event_slot *s)
{
	if (!s->e)
		return;
	if (s->user && !s->set && clSetUserEventStatus(s->e, CL_COMPLETE))
		abort();
	if (clReleaseEvent(s->e))
		abort();
	memset(s, 0, sizeof(*s));
}

static void store_event(struct run *r, cl_event e)
{
	struct event_slot *s = &r->ev[fz_pick(&r->in, N_EVENT)];

	if (!e)
		return;
	fcl_drop_event(s);
	s->e = e;
}

/*
 * After a call with an event out-parameter: an event on success, none on
 * failure, also for a blocking call whose wait list failed
 * (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST): the caller could not
 * know to release it.
 */
void fcl_take_event(struct run *r, cl_event *out, cl_int err, cl_event e)
{
	if (!out)
		return;
	if (err == CL_SUCCESS) {
		if (!e)
			abort();
		store_event(r, e);
	} else if (e) {
		abort(); /* an event from a failed call */
	}
}

/* ---- blocking calls ---------------------------------------------------- */

/*
 * A blocking call may wait on a user event nothing will ever complete:
 * complete them all first (with a fuzzed status: success or an error).
 */
void fcl_settle(struct run *r)
{
	int i;

	for (i = 0; i < N_EVENT; i++) {
		struct event_slot *s = &r->ev[i];

		if (s->e && s->user && !s->set) {
			cl_int st = (fz_u8(&r->in) & 1) ? CL_COMPLETE : -5;

			if (clSetUserEventStatus(s->e, st) != CL_SUCCESS)
				abort();
			s->set = true;
		}
	}
}

/* ---- releasing --------------------------------------------------------- */

static void unmap_all_of(struct run *r, cl_mem m)
{
	int i;

	for (i = 0; i < N_MAP; i++) {
		struct map_slot *s = &r->map[i];

		if (!s->ptr || (m && s->m != m))
			continue;
		if (clEnqueueUnmapMemObject(fcl_g.cleanup_queue[s->ctx], s->m,
					    s->ptr, 0, NULL, NULL))
			abort();
		memset(s, 0, sizeof(*s));
	}
}

void fcl_release_mem(struct run *r, struct mem_slot *s)
{
	int i, j;

	if (!s->m)
		return;
	unmap_all_of(r, s->m);
	/* a kernel must not be launched with a released buffer bound */
	for (i = 0; i < N_KERN; i++) {
		for (j = 0; j < N_ARGS; j++) {
			cl_mem none = NULL;

			if (r->kern[i].bound[j] != s->m)
				continue;
			if (clSetKernelArg(r->kern[i].k, j, sizeof(none),
					   &none))
				abort();
			r->kern[i].bound[j] = NULL;
		}
	}
	if (clReleaseMemObject(s->m))
		abort();
	memset(s, 0, sizeof(*s));
}

static void release_all(struct run *r)
{
	int i;

	fcl_settle(r);
	unmap_all_of(r, NULL);
	for (i = 0; i < N_QUEUE; i++) {
		if (r->q[i] && clFinish(r->q[i]))
			abort();
	}
	for (i = 0; i < 2; i++) {
		if (clFinish(fcl_g.cleanup_queue[i]))
			abort();
	}
	for (i = 0; i < N_KERN; i++) {
		if (r->kern[i].k && clReleaseKernel(r->kern[i].k))
			abort();
		memset(&r->kern[i], 0, sizeof(r->kern[i]));
	}
	for (i = 0; i < N_MEM; i++)
		fcl_release_mem(r, &r->mem[i]);
	for (i = 0; i < N_SVM; i++)
		fcl_release_svm(r, &r->svm[i]);
	for (i = 0; i < N_PROG; i++) {
		if (r->prog[i].p && clReleaseProgram(r->prog[i].p))
			abort();
	}
	for (i = 0; i < N_EVENT; i++)
		fcl_drop_event(&r->ev[i]);
	for (i = 0; i < N_QUEUE; i++) {
		if (r->q[i] && clReleaseCommandQueue(r->q[i]))
			abort();
	}
}

/* ---- dispatch ---------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r = { .in = { data, size } };

	if (!fcl_g.ok)
		abort();
	while (fz_more(&r.in)) {
		switch (fz_u8(&r.in) % 20) {
		case 0: fcl_op_queue_new(&r); break;
		case 1: fcl_op_buffer_new(&r); break;
		case 2: fcl_op_sub_buffer(&r); break;
		case 3: fcl_op_read_write(&r, false); break;
		case 4: fcl_op_read_write(&r, true); break;
		case 5: fcl_op_rect(&r, fz_u8(&r.in) % 3); break;
		case 6: fcl_op_copy(&r); break;
		case 7: fcl_op_fill(&r); break;
		case 8: fcl_op_map(&r); break;
		case 9: fcl_op_unmap(&r); break;
		case 10: fcl_op_program_new(&r); break;
		case 11: fcl_op_program_build(&r); break;
		case 12: fcl_op_kernel_new(&r); break;
		case 13: fcl_op_kernel_arg(&r); break;
		case 14: fcl_op_ndrange(&r); break;
		case 15: fcl_op_marker(&r); break;
		case 16: fcl_op_sync(&r); break;
		case 17: fcl_op_event(&r); break;
		case 19: fcl_op_svm(&r); break;
		default:
			switch (fz_u8(&r.in) % 3) {
			case 0: fcl_op_info(&r); break;
			case 1: fcl_op_release(&r); break;
			default: fcl_op_context(&r); break;
			}
			break;
		}
	}
	release_all(&r);
	fz_check_fds("fuzz-cl");
	return 0;
}
