/* SPDX-License-Identifier: MIT */
/*
 * Running OpenCL programs through the ICD loader: vector add and a
 * local-memory reduction end to end, launch geometry and its errors, and
 * events (user events, wait lists, callbacks, markers and barriers on
 * out-of-order queues, profiling, failure propagation).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icd-test.h"

static const char src[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	"kernel void reduce(global const uint *in, global uint *out,\n"
	"		    local uint *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	tmp[l] = in[get_global_id(0)];\n"
	"	for (size_t s = n / 2; s > 0; s /= 2) {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (l < s)\n"
	"			tmp[l] += tmp[l + s];\n"
	"	}\n"
	"	if (l == 0)\n"
	"		out[get_group_id(0)] = tmp[0];\n"
	"}\n"
	"kernel void ids(global uint *out)\n"
	"{\n"
	"	size_t i = (get_global_id(1) - get_global_offset(1)) *\n"
	"		   get_global_size(0) +\n"
	"		   get_global_id(0) - get_global_offset(0);\n"
	"	out[i] = (uint)(get_global_id(0) * 1000 + get_global_id(1));\n"
	"}\n"
	"kernel void inc(global uint *p) { p[get_global_id(0)] += 1; }\n";

struct exec {
	cl_program prog;
	cl_kernel vadd, reduce, ids, inc;
};

static void exec_setup(struct icd_env *env, struct exec *x,
		       const char *options)
{
	cl_int err = CL_SUCCESS;

	x->prog = icd_test_build(env, src, options);
	x->vadd = clCreateKernel(x->prog, "vadd", &err);
	CL_OK(err);
	x->reduce = clCreateKernel(x->prog, "reduce", &err);
	CL_OK(err);
	x->ids = clCreateKernel(x->prog, "ids", &err);
	CL_OK(err);
	x->inc = clCreateKernel(x->prog, "inc", &err);
	CL_OK(err);
}

static void exec_teardown(struct exec *x)
{
	CL_OK(clReleaseKernel(x->vadd));
	CL_OK(clReleaseKernel(x->reduce));
	CL_OK(clReleaseKernel(x->ids));
	CL_OK(clReleaseKernel(x->inc));
	CL_OK(clReleaseProgram(x->prog));
}

static cl_mem buffer(struct icd_env *env, cl_mem_flags flags, size_t size,
		     void *host)
{
	cl_int err = CL_SUCCESS;
	cl_mem m = clCreateBuffer(env->ctx, flags, size, host, &err);

	CL_OK(err);
	return m;
}

static void test_vector_add(void **state)
{
	struct icd_env *env = *state;
	enum { N = 100003 }; /* prime: libaccel picks a work-group size */
	float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
	float *c = malloc(N * sizeof(float));
	size_t global = N;
	struct exec x;
	cl_mem ma, mb, mc;
	cl_event ev = NULL;
	cl_command_type type = 0;
	unsigned i;

	if (!icd_test_have_compiler(env))
		skip();
	assert_true(a && b && c);
	for (i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = (float)(2 * i) + 0.5f;
	}
	exec_setup(env, &x, NULL);
	ma = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
		    N * sizeof(float), a);
	mb = buffer(env, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
		    N * sizeof(float), b);
	mc = buffer(env, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL);
	CL_OK(clSetKernelArg(x.vadd, 0, sizeof(ma), &ma));
	CL_OK(clSetKernelArg(x.vadd, 1, sizeof(mb), &mb));
	CL_OK(clSetKernelArg(x.vadd, 2, sizeof(mc), &mc));
	CL_OK(clEnqueueNDRangeKernel(env->queue, x.vadd, 1, NULL, &global,
				     NULL, 0, NULL, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_NDRANGE_KERNEL);
	CL_OK(clEnqueueReadBuffer(env->queue, mc, CL_TRUE, 0,
				  N * sizeof(float), c, 1, &ev, NULL));
	for (i = 0; i < N; i++)
		assert_true(c[i] == (float)(3 * i) + 0.5f);
	CL_OK(clReleaseEvent(ev));
	CL_OK(clReleaseMemObject(ma));
	CL_OK(clReleaseMemObject(mb));
	CL_OK(clReleaseMemObject(mc));
	exec_teardown(&x);
	free(a);
	free(b);
	free(c);
}

static void test_reduction(void **state)
{
	struct icd_env *env = *state;
	enum { N = 1 << 16, L = 256 };
	cl_uint *in = malloc(N * sizeof(cl_uint)), out[N / L];
	size_t global = N, local = L;
	unsigned long long want = 0, got = 0;
	struct exec x;
	cl_mem mi, mo;
	unsigned i;

	if (!icd_test_have_compiler(env))
		skip();
	assert_non_null(in);
	for (i = 0; i < N; i++) {
		in[i] = (i * 2654435761u) >> 20;
		want += in[i];
	}
	exec_setup(env, &x, NULL);
	mi = buffer(env, CL_MEM_COPY_HOST_PTR, N * sizeof(cl_uint), in);
	mo = buffer(env, 0, sizeof(out), NULL);
	CL_OK(clSetKernelArg(x.reduce, 0, sizeof(mi), &mi));
	CL_OK(clSetKernelArg(x.reduce, 1, sizeof(mo), &mo));
	CL_OK(clSetKernelArg(x.reduce, 2, L * sizeof(cl_uint), NULL));
	CL_OK(clEnqueueNDRangeKernel(env->queue, x.reduce, 1, NULL, &global,
				     &local, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, mo, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	for (i = 0; i < N / L; i++)
		got += out[i];
	assert_int_equal(got, want);
	CL_OK(clReleaseMemObject(mi));
	CL_OK(clReleaseMemObject(mo));
	exec_teardown(&x);
	free(in);
}

static void test_geometry(void **state)
{
	struct icd_env *env = *state;
	size_t offset[2] = { 5, 7 }, global[2] = { 8, 3 }, local[2] = { 4, 1 };
	size_t odd[2] = { 7, 3 }, zero[2] = { 0, 3 };
	size_t max_wg = 0, huge[2];
	cl_uint out[24];
	struct exec x;
	cl_mem m;
	cl_event ev = NULL;
	unsigned i, j;

	if (!icd_test_have_compiler(env))
		skip();
	exec_setup(env, &x, NULL);
	m = buffer(env, 0, sizeof(out), NULL);
	CL_OK(clSetKernelArg(x.ids, 0, sizeof(m), &m));
	CL_OK(clEnqueueNDRangeKernel(env->queue, x.ids, 2, offset, global,
				     local, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	for (j = 0; j < 3; j++)
		for (i = 0; i < 8; i++)
			assert_int_equal(out[j * 8 + i],
					 (i + 5) * 1000 + (j + 7));

	/* OpenCL C 1.2: work-groups must divide the global size */
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.ids, 2, NULL,
						odd, local, 0, NULL, NULL),
			 CL_INVALID_WORK_GROUP_SIZE);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			      sizeof(max_wg), &max_wg, NULL));
	huge[0] = max_wg;
	huge[1] = 2;
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.ids, 2, NULL,
						huge, huge, 0, NULL, NULL),
			 CL_INVALID_WORK_GROUP_SIZE);
	huge[0] = max_wg * 2;
	huge[1] = 1;
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.ids, 2, NULL,
						huge, huge, 0, NULL, NULL),
			 CL_INVALID_WORK_ITEM_SIZE);
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.ids, 0, NULL,
						global, NULL, 0, NULL, NULL),
			 CL_INVALID_WORK_DIMENSION);
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.ids, 4, NULL,
						global, NULL, 0, NULL, NULL),
			 CL_INVALID_WORK_DIMENSION);
	/* OpenCL 2.1+: no global size is no work (test-icd-conformance.c) */
	CL_OK(clEnqueueNDRangeKernel(env->queue, x.ids, 2, NULL, NULL, NULL, 0,
				     NULL, NULL));
	huge[0] = SIZE_MAX;
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.ids, 1, huge,
						global, NULL, 0, NULL, NULL),
			 CL_INVALID_GLOBAL_OFFSET);
	/* arguments never set */
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, x.vadd, 1, NULL,
						global, NULL, 0, NULL, NULL),
			 CL_INVALID_KERNEL_ARGS);
	assert_int_equal(clEnqueueNDRangeKernel(env->queue, (cl_kernel)m, 1,
						NULL, global, NULL, 0, NULL,
						NULL),
			 CL_INVALID_KERNEL);
	/* OpenCL 2.1+: an empty range does nothing, successfully */
	CL_OK(clEnqueueNDRangeKernel(env->queue, x.ids, 2, NULL, zero, NULL, 0,
				     NULL, &ev));
	CL_OK(clWaitForEvents(1, &ev));
	CL_OK(clReleaseEvent(ev));
	/* a task is a 1x1x1 range */
	CL_OK(clEnqueueTask(env->queue, x.ids, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	exec_teardown(&x);

	/* OpenCL C 3.0: non-uniform work-groups */
	exec_setup(env, &x, "-cl-std=CL3.0");
	CL_OK(clSetKernelArg(x.ids, 0, sizeof(m), &m));
	CL_OK(clEnqueueNDRangeKernel(env->queue, x.ids, 2, NULL, odd, local, 0,
				     NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	assert_int_equal(out[2 * 7 + 6], 6 * 1000 + 2);
	exec_teardown(&x);
	CL_OK(clReleaseMemObject(m));
}

static atomic_int callback_sum;

static void CL_CALLBACK event_cb(cl_event ev, cl_int status, void *data)
{
	(void)ev;
	/* the state registered for, or the error the command failed with */
	atomic_fetch_add(&callback_sum, status >= CL_COMPLETE ?
						(int)(intptr_t)data : -1000);
}

/*
 * Callbacks run asynchronously, on the thread that completes the command,
 * possibly just after waiters wake: the sum once it reached @p want, or
 * what it is after 5 s.
 */
static int callback_sum_wait(int want)
{
	for (int i = 0; i < 500 && atomic_load(&callback_sum) != want; i++)
		usleep(10 * 1000);
	return atomic_load(&callback_sum);
}

static void test_user_events(void **state)
{
	struct icd_env *env = *state;
	cl_int status = 0, err = CL_SUCCESS;
	cl_uint value = 0;
	cl_event user, ev, evs[2];
	cl_command_queue q = NULL;
	cl_context ctx = NULL;
	cl_mem m;

	user = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(clGetEventInfo(user, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_int_equal(status, CL_SUBMITTED);
	CL_OK(clGetEventInfo(user, CL_EVENT_COMMAND_QUEUE, sizeof(q), &q,
			     NULL));
	assert_null(q);
	CL_OK(clGetEventInfo(user, CL_EVENT_CONTEXT, sizeof(ctx), &ctx, NULL));
	assert_ptr_equal(ctx, env->ctx);

	/* a write held back by the user event */
	m = buffer(env, 0, sizeof(value), NULL);
	value = 42;
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_FALSE, 0, sizeof(value),
				   &value, 1, &user, &ev));
	atomic_store(&callback_sum, 0);
	CL_OK(clSetEventCallback(ev, CL_COMPLETE, event_cb, (void *)1));
	CL_OK(clSetEventCallback(ev, CL_SUBMITTED, event_cb, (void *)10));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_true(status == CL_QUEUED || status == CL_SUBMITTED);
	assert_int_equal(atomic_load(&callback_sum), 0);
	CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
	CL_OK(clWaitForEvents(1, &ev));
	value = 0;
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(value),
				  &value, 0, NULL, NULL));
	assert_int_equal(value, 42);
	CL_OK(clFinish(env->queue));
	assert_int_equal(callback_sum_wait(11), 11);
	/* a callback on a finished event runs at once */
	CL_OK(clSetEventCallback(ev, CL_COMPLETE, event_cb, (void *)100));
	assert_int_equal(atomic_load(&callback_sum), 111);
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_int_equal(status, CL_COMPLETE);

	/* errors */
	assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE),
			 CL_INVALID_OPERATION);
	assert_int_equal(clSetUserEventStatus(ev, CL_COMPLETE),
			 CL_INVALID_EVENT);
	assert_int_equal(clSetEventCallback(ev, CL_QUEUED, event_cb, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clSetEventCallback(ev, CL_COMPLETE, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clWaitForEvents(0, &ev), CL_INVALID_VALUE);
	evs[0] = ev;
	evs[1] = (cl_event)m;
	assert_int_equal(clWaitForEvents(2, evs), CL_INVALID_EVENT);
	assert_int_equal(clRetainEvent((cl_event)m), CL_INVALID_EVENT);
	CL_OK(clReleaseEvent(ev));

	ev = clCreateUserEvent(env->ctx, &err);
	assert_int_equal(clSetUserEventStatus(ev, 5), CL_INVALID_VALUE);
	CL_OK(clSetUserEventStatus(ev, CL_COMPLETE));
	CL_OK(clReleaseEvent(ev));
	CL_OK(clReleaseEvent(user));
	CL_OK(clReleaseMemObject(m));
}

static void test_failed_events(void **state)
{
	struct icd_env *env = *state;
	cl_int status = 0, err = CL_SUCCESS;
	cl_uint value = 7;
	cl_event user, ev, marker, untouched;
	cl_mem m;

	user = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	m = buffer(env, 0, sizeof(value), NULL);
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_FALSE, 0, sizeof(value),
				   &value, 1, &user, &ev));
	CL_OK(clEnqueueMarkerWithWaitList(env->queue, 1, &ev, &marker));
	atomic_store(&callback_sum, 0);
	CL_OK(clSetEventCallback(ev, CL_COMPLETE, event_cb, (void *)1));
	/* a failure: the dependent commands fail without running */
	CL_OK(clSetUserEventStatus(user, -77));
	CL_OK(clGetEventInfo(user, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_int_equal(status, -77);
	assert_int_equal(clWaitForEvents(1, &ev),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_true(status < 0);
	CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_true(status < 0);
	assert_int_equal(callback_sum_wait(-1000), -1000);
	/* a blocking command waiting for a failed event says so, and
	 * returns no event the caller would have to release */
	assert_int_equal(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0,
					     sizeof(value), &value, 1, &ev,
					     NULL),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	untouched = marker;
	assert_int_equal(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0,
					      sizeof(value), &value, 1, &ev,
					      &untouched),
			 CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	assert_ptr_equal(untouched, marker);
	CL_OK(clReleaseEvent(ev));
	CL_OK(clReleaseEvent(marker));
	CL_OK(clReleaseEvent(user));
	CL_OK(clReleaseMemObject(m));
	/* the queue itself is fine afterwards */
	CL_OK(clFinish(env->queue));
}

static void test_out_of_order(void **state)
{
	struct icd_env *env = *state;
	cl_queue_properties props[] = {
		CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0
	};
	enum { N = 1024 };
	cl_uint *data = calloc(N, sizeof(cl_uint));
	size_t global = N;
	cl_event user, barrier, marker;
	cl_command_queue q;
	struct exec x;
	cl_int status = 0, err = CL_SUCCESS;
	cl_mem m;
	unsigned i;

	if (!icd_test_have_compiler(env))
		skip();
	exec_setup(env, &x, NULL);
	q = clCreateCommandQueueWithProperties(env->ctx, env->device, props,
					       &err);
	CL_OK(err);
	m = buffer(env, CL_MEM_COPY_HOST_PTR, N * sizeof(cl_uint), data);
	CL_OK(clSetKernelArg(x.inc, 0, sizeof(m), &m));
	user = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	/* held back by the user event; the barrier orders what follows */
	CL_OK(clEnqueueNDRangeKernel(q, x.inc, 1, NULL, &global, NULL, 1,
				     &user, NULL));
	CL_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &barrier));
	CL_OK(clEnqueueNDRangeKernel(q, x.inc, 1, NULL, &global, NULL, 0, NULL,
				     NULL));
	CL_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker));
	CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_true(status > CL_COMPLETE);
	CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
	CL_OK(clWaitForEvents(1, &marker));
	CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N * sizeof(cl_uint), data,
				  1, &marker, NULL));
	for (i = 0; i < N; i++)
		assert_int_equal(data[i], 2);
	/* 1.1 style markers and barriers */
	CL_OK(clEnqueueBarrier(q));
	CL_OK(clEnqueueWaitForEvents(q, 1, &barrier));
	assert_int_equal(clEnqueueWaitForEvents(q, 0, NULL), CL_INVALID_VALUE);
	assert_int_equal(clEnqueueMarker(q, NULL), CL_INVALID_VALUE);
	CL_OK(clReleaseEvent(marker));
	CL_OK(clEnqueueMarker(q, &marker));
	CL_OK(clFinish(q));
	CL_OK(clReleaseEvent(marker));
	CL_OK(clReleaseEvent(barrier));
	CL_OK(clReleaseEvent(user));
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseCommandQueue(q));
	exec_teardown(&x);
	free(data);
}

static void test_profiling(void **state)
{
	struct icd_env *env = *state;
	cl_command_queue q;
	cl_ulong t[4] = { 0 };
	const cl_profiling_info which[4] = {
		CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
		CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END
	};
	cl_ulong complete = 0;
	char buf[4096] = { 0 };
	cl_event ev, user;
	cl_mem m;
	cl_int err = CL_SUCCESS;
	unsigned i;

	q = clCreateCommandQueue(env->ctx, env->device,
				 CL_QUEUE_PROFILING_ENABLE, &err);
	CL_OK(err);
	m = buffer(env, 0, sizeof(buf), NULL);
	CL_OK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(buf), buf, 0, NULL,
				   &ev));
	for (i = 0; i < 4; i++)
		CL_OK(clGetEventProfilingInfo(ev, which[i], sizeof(t[i]), &t[i],
					      NULL));
	assert_true(t[0] > 0);
	assert_true(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3]);
	CL_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_COMPLETE,
				      sizeof(complete), &complete, NULL));
	assert_true(complete >= t[3]);
	assert_int_equal(clGetEventProfilingInfo(ev, 0x7777, sizeof(t[0]), t,
						 NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseEvent(ev));

	/* queues without profiling, user events: nothing to report */
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, 16, buf, 0, NULL,
				   &ev));
	assert_int_equal(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
						 sizeof(t[0]), t, NULL),
			 CL_PROFILING_INFO_NOT_AVAILABLE);
	CL_OK(clReleaseEvent(ev));
	user = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	assert_int_equal(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_END,
						 sizeof(t[0]), t, NULL),
			 CL_PROFILING_INFO_NOT_AVAILABLE);
	CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
	CL_OK(clReleaseEvent(user));
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseCommandQueue(q));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_vector_add),
		T(test_reduction),
		T(test_geometry),
		T(test_user_events),
		T(test_failed_events),
		T(test_out_of_order),
		T(test_profiling),
	};
#undef T

	return ICD_TEST_RUN("icd-exec", tests);
}
