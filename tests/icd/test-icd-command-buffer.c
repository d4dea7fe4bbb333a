/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_command_buffer 0.9.8 through the ICD loader: the device queries,
 * creation and its property checks, the info queries, every recording
 * entry point and its errors, replays with their results checked, sync
 * points and barriers on out-of-order command-buffers, substitute queues,
 * wait lists, the returned event (type, profiling), a command-buffer
 * released while its enqueue waits, the SVM commands, and sizes that
 * wrap size_t.
 *
 * The functions come from clGetExtensionFunctionAddressForPlatform with
 * the 0.9.8 signatures, declared here: Debian 12's headers have older ones.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-command-buffer.h"

static struct icd_cb_fns cb;

#define N 256

static const char *const src =
	"kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n";

static void load(struct icd_env *env)
{
	icd_cb_load(env->platform, &cb);
}

static cl_mem buffer(struct icd_env *env, size_t size)
{
	cl_int err = CL_SUCCESS;
	cl_mem m;

	m = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, size, NULL, &err);

	CL_OK(err);
	return m;
}

static cl_command_buffer_khr create(cl_command_queue q)
{
	cl_int err = CL_SUCCESS;
	cl_command_buffer_khr b = cb.create(1, &q, NULL, &err);

	CL_OK(err);
	assert_non_null(b);
	return b;
}

static cl_kernel add_kernel(struct icd_env *env, cl_program *p, cl_mem m,
			    cl_int v)
{
	cl_int err = CL_SUCCESS;
	cl_kernel k;

	*p = icd_test_build(env, src, NULL);
	k = clCreateKernel(*p, "add", &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k, 0, sizeof(m), &m));
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	return k;
}

static void expect(cl_command_queue q, cl_mem m, size_t n, cl_int want)
{
	cl_int *got = calloc(n, sizeof(*got));

	assert_non_null(got);
	CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(*got), got, 0,
				  NULL, NULL));
	for (size_t i = 0; i < n; i++)
		if (got[i] != want)
			fail_msg("[%zu] = %d, want %d", i, got[i], want);
	free(got);
}

static cl_uint info_uint(cl_command_buffer_khr b, cl_uint param)
{
	cl_uint v = 0;
	size_t size = 0;

	CL_OK(cb.info(b, param, sizeof(v), &v, &size));
	assert_int_equal(size, sizeof(v));
	return v;
}

static void test_device_queries(void **state)
{
	struct icd_env *env = *state;
	cl_device_command_buffer_capabilities_khr caps = ~0ull;
	cl_command_queue_properties props = ~0ull;
	cl_name_version *nv;
	size_t size = 0;
	char ext[8192];
	bool found = false;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext),
			      ext, NULL));
	assert_non_null(strstr(ext, "cl_khr_command_buffer"));
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
			      0, NULL, &size));
	nv = malloc(size);
	assert_non_null(nv);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
			      size, nv, NULL));
	for (size_t i = 0; i < size / sizeof(*nv); i++)
		if (!strcmp(nv[i].name, "cl_khr_command_buffer")) {
			assert_int_equal(nv[i].version,
					 CL_MAKE_VERSION(0, 9, 8));
			found = true;
		}
	free(nv);
	assert_true(found);
	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR,
			      sizeof(caps), &caps, NULL));
	/* simultaneous use: cl_khr_command_buffer_mutable_dispatch 0.9.4 */
	assert_int_equal(caps,
			 CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
			 CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR);
	/* CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR */
	CL_OK(clGetDeviceInfo(env->device, 0x12AA, sizeof(props), &props,
			      NULL));
	assert_int_equal(props, 0);
	/* CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR (0.9.6) */
	CL_OK(clGetDeviceInfo(env->device, 0x129A, sizeof(props), &props,
			      NULL));
	assert_int_equal(props, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
					CL_QUEUE_PROFILING_ENABLE);
}

static void test_create_and_info(void **state)
{
	struct icd_env *env = *state;
	cl_command_buffer_properties_khr props[] = {
		CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0
	}, got[3] = { 0 };
	cl_command_buffer_properties_khr twice[] = {
		CL_COMMAND_BUFFER_FLAGS_KHR, 0,
		CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0
	};
	/* no such flag (1 and 2: mutable dispatch, icd-mutable-dispatch) */
	cl_command_buffer_properties_khr bad_flag[] = {
		CL_COMMAND_BUFFER_FLAGS_KHR, 1 << 5, 0
	};
	cl_command_buffer_properties_khr unknown[] = { 0x4242, 0, 0 };
	cl_command_queue q2[2] = { env->queue, env->queue };
	cl_command_queue qs = NULL;
	cl_context ctx = NULL;
	cl_int err = CL_SUCCESS;
	cl_command_buffer_khr b;
	size_t size = 0;

	load(env);
	assert_null(cb.create(0, &env->queue, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(cb.create(2, q2, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(cb.create(1, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(cb.create(1, (cl_command_queue *)&env->ctx, NULL, &err));
	assert_int_equal(err, CL_INVALID_COMMAND_QUEUE);
	assert_null(cb.create(1, &env->queue, twice, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(cb.create(1, &env->queue, bad_flag, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(cb.create(1, &env->queue, unknown, &err));
	assert_int_equal(err, CL_INVALID_VALUE);

	b = cb.create(1, &env->queue, props, NULL);
	assert_non_null(b);
	assert_int_equal(info_uint(b, CL_COMMAND_BUFFER_NUM_QUEUES_KHR), 1);
	assert_int_equal(info_uint(b, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR),
			 1);
	assert_int_equal(info_uint(b, CL_COMMAND_BUFFER_STATE_KHR),
			 CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
	CL_OK(cb.info(b, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof(qs), &qs, NULL));
	assert_ptr_equal(qs, env->queue);
	/* CL_COMMAND_BUFFER_CONTEXT_KHR (0.9.2) */
	CL_OK(cb.info(b, 0x1299, sizeof(ctx), &ctx, NULL));
	assert_ptr_equal(ctx, env->ctx);
	CL_OK(cb.info(b, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, sizeof(got),
		      got, &size));
	assert_int_equal(size, sizeof(props));
	assert_memory_equal(got, props, sizeof(props));
	assert_int_equal(cb.info(b, CL_COMMAND_BUFFER_NUM_QUEUES_KHR, 1, &size,
				 NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.info(b, 0x4242, sizeof(size), &size, NULL),
			 CL_INVALID_VALUE);
	CL_OK(cb.retain(b));
	assert_int_equal(info_uint(b, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR),
			 2);
	CL_OK(cb.release(b));
	CL_OK(cb.finalize(b));
	assert_int_equal(info_uint(b, CL_COMMAND_BUFFER_STATE_KHR),
			 CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
	assert_int_equal(cb.finalize(b), CL_INVALID_OPERATION);
	CL_OK(cb.release(b));

	b = create(env->queue);
	/* NULL properties: an empty array */
	CL_OK(cb.info(b, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, 0, NULL,
		      &size));
	assert_int_equal(size, 0);
	CL_OK(cb.release(b));

	/* not a command-buffer */
	assert_int_equal(cb.retain(NULL), CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(cb.release(NULL), CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(cb.finalize(NULL), CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(cb.retain((cl_command_buffer_khr)env->queue),
			 CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(cb.info(NULL, CL_COMMAND_BUFFER_STATE_KHR, 0, NULL,
				 &size), CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(cb.enqueue(0, NULL, NULL, 0, NULL, NULL),
			 CL_INVALID_COMMAND_BUFFER_KHR);
}

/*
 * fill 0, add 1, add 2 (arguments frozen when recorded), a copy and a
 * rectangular copy out: every replay gives 3 in both outputs.
 */
static void test_replay(void **state)
{
	struct icd_env *env = *state;
	cl_mem buf = buffer(env, N * 4), out = buffer(env, N * 4);
	cl_mem rect = buffer(env, N * 4);
	size_t global = N, origin[3] = { 0 }, region[3] = { 64, N / 16, 1 };
	cl_sync_point_khr p[5];
	cl_program prog;
	cl_kernel k = add_kernel(env, &prog, buf, 1);
	cl_command_buffer_khr b;
	cl_int zero = 0, v = 2;
	cl_event ev = NULL;
	cl_command_type type = 0;

	load(env);
	b = create(env->queue);
	CL_OK(cb.fill(b, NULL, NULL, buf, &zero, 4, 0, N * 4, 0, NULL, &p[0],
		      NULL));
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 &p[1], NULL));
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 &p[2], NULL));
	v = 100;   /* after recording: not seen */
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	CL_OK(cb.copy(b, NULL, NULL, buf, out, 0, 0, N * 4, 0, NULL, &p[3],
		      NULL));
	/* the whole buffer as 16 rows of 64 bytes */
	CL_OK(cb.copy_rect(b, NULL, NULL, buf, rect, origin, origin, region,
			   64, 0, 64, 0, 0, NULL, &p[4], NULL));
	for (int i = 1; i < 5; i++)
		assert_true(p[i] != p[i - 1]);
	/* not finalized */
	assert_int_equal(cb.enqueue(0, NULL, b, 0, NULL, NULL),
			 CL_INVALID_OPERATION);
	CL_OK(cb.finalize(b));
	assert_int_equal(cb.fill(b, NULL, NULL, buf, &zero, 4, 0, 4, 0, NULL,
				 NULL, NULL), CL_INVALID_OPERATION);
	for (int i = 0; i < 50; i++) {
		CL_OK(clEnqueueFillBuffer(env->queue, out, &v, 4, 0, N * 4, 0,
					  NULL, NULL));
		CL_OK(clEnqueueFillBuffer(env->queue, rect, &v, 4, 0, N * 4, 0,
					  NULL, NULL));
		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, i == 49 ? &ev : NULL));
		if (i % 10 == 9) {
			expect(env->queue, out, N, 3);
			expect(env->queue, rect, N, 3);
		}
	}
	CL_OK(clWaitForEvents(1, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_COMMAND_BUFFER_KHR);
	CL_OK(clReleaseEvent(ev));
	/* many enqueues in flight at once (no pending state at 0.9.8) */
	for (int i = 0; i < 20; i++)
		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	expect(env->queue, out, N, 3);
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
	CL_OK(clReleaseMemObject(rect));
	CL_OK(clReleaseMemObject(out));
	CL_OK(clReleaseMemObject(buf));
}

static void test_recording_errors(void **state)
{
	struct icd_env *env = *state;
	cl_mem buf = buffer(env, N * 4), other_mem;
	size_t global = N, local = 3, origin[3] = { 0 }, region[3] = { 4, 1,
									1 };
	cl_sync_point_khr p = 0, bad = 7;
	cl_mutable_command_khr handle = NULL;
	cmd_props props[] = { 0x4242, 1, 0 }, none[] = { 0 };
	cl_program prog;
	cl_kernel k = add_kernel(env, &prog, buf, 1), unset;
	cl_command_buffer_khr b;
	cl_context other;
	cl_int err = CL_SUCCESS, zero = 0;

	load(env);
	b = create(env->queue);
	/* sync points: none recorded yet */
	assert_int_equal(cb.fill(b, NULL, NULL, buf, &zero, 4, 0, 4, 1, &p,
				 NULL, NULL),
			 CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
	assert_int_equal(cb.fill(b, NULL, NULL, buf, &zero, 4, 0, 4, 1, NULL,
				 NULL, NULL),
			 CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
	CL_OK(cb.barrier(b, NULL, none, 0, NULL, &p, NULL));
	assert_int_equal(cb.barrier(b, NULL, NULL, 0, &p, NULL, NULL),
			 CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
	assert_int_equal(cb.barrier(b, NULL, NULL, 1, &bad, NULL, NULL),
			 CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
	CL_OK(cb.barrier(b, NULL, NULL, 1, &p, NULL, NULL));
	/* a queue, command properties, command handles */
	assert_int_equal(cb.barrier(b, env->queue, NULL, 0, NULL, NULL, NULL),
			 CL_INVALID_COMMAND_QUEUE);
	/* the command-buffer is checked first */
	assert_int_equal(cb.barrier(NULL, env->queue, NULL, 0, NULL, NULL,
				    NULL), CL_INVALID_COMMAND_BUFFER_KHR);
	assert_int_equal(cb.ndrange(b, NULL, props, k, 1, NULL, &global, NULL,
				    0, NULL, NULL, NULL), CL_INVALID_VALUE);
	/* handles are for ND-range commands only */
	assert_int_equal(cb.barrier(b, NULL, NULL, 0, NULL, NULL, &handle),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, buf, 0, 64, 8, 0, NULL,
				 NULL, &handle), CL_INVALID_VALUE);
	assert_null(handle);
	/* buffers */
	assert_int_equal(cb.copy(b, NULL, NULL, buf, NULL, 0, 0, 4, 0, NULL,
				 NULL, NULL), CL_INVALID_MEM_OBJECT);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, buf, 0, 4, 8, 0, NULL,
				 NULL, NULL), CL_MEM_COPY_OVERLAP);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, buf, 0, N * 4, 4, 0,
				 NULL, NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, buf, 0, 4, 0, 0, NULL,
				 NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.fill(b, NULL, NULL, buf, &zero, 3, 0, 12, 0, NULL,
				 NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.fill(b, NULL, NULL, buf, &zero, 4, 4, N * 4, 0,
				 NULL, NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.copy_rect(b, NULL, NULL, buf, buf, origin, origin,
				      region, 0, 0, 0, 0, 0, NULL, NULL, NULL),
			 CL_MEM_COPY_OVERLAP);
	region[1] = N;
	assert_int_equal(cb.copy_rect(b, NULL, NULL, buf, buf, origin, origin,
				      region, 8, 0, 8, 0, 0, NULL, NULL, NULL),
			 CL_INVALID_VALUE);
	/* images: a buffer is none */
	assert_int_equal(cb.copy_image(b, NULL, NULL, buf, buf, origin, origin,
				       region, 0, NULL, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	/* another context's buffer */
	other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
	CL_OK(err);
	other_mem = clCreateBuffer(other, CL_MEM_READ_WRITE, 16, NULL, &err);
	CL_OK(err);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, other_mem, 0, 0, 4, 0,
				 NULL, NULL, NULL), CL_INVALID_CONTEXT);
	assert_int_equal(cb.fill(b, NULL, NULL, other_mem, &zero, 4, 0, 4, 0,
				 NULL, NULL, NULL), CL_INVALID_CONTEXT);
	/* kernels: geometry, arguments */
	assert_int_equal(cb.ndrange(b, NULL, NULL, NULL, 1, NULL, &global,
				    NULL, 0, NULL, NULL, NULL),
			 CL_INVALID_KERNEL);
	assert_int_equal(cb.ndrange(b, NULL, NULL, k, 0, NULL, &global, NULL,
				    0, NULL, NULL, NULL),
			 CL_INVALID_WORK_DIMENSION);
	assert_int_equal(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, &local,
				    0, NULL, NULL, NULL),
			 CL_INVALID_WORK_GROUP_SIZE);
	unset = clCreateKernel(prog, "add", &err);
	CL_OK(err);
	assert_int_equal(cb.ndrange(b, NULL, NULL, unset, 1, NULL, &global,
				    NULL, 0, NULL, NULL, NULL),
			 CL_INVALID_KERNEL_ARGS);
	/* an empty range records a command that does nothing */
	global = 0;
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL, &p,
			 NULL));
	/* nothing refused was recorded: the buffer still runs */
	CL_OK(cb.finalize(b));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	CL_OK(clReleaseKernel(unset));
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
	CL_OK(clReleaseMemObject(other_mem));
	CL_OK(clReleaseContext(other));
	CL_OK(clReleaseMemObject(buf));
}

/*
 * An out-of-order queue's command-buffer: commands run after the sync
 * points they name; a barrier with none waits for everything before it.
 */
static void test_out_of_order(void **state)
{
	struct icd_env *env = *state;
	cl_command_queue q;
	cl_mem a = buffer(env, N * 4), b2 = buffer(env, N * 4);
	cl_mem out = buffer(env, N * 4), out2 = buffer(env, N * 4);
	size_t global = N;
	cl_sync_point_khr pa, pb, pk, pbar;
	cl_program prog;
	cl_kernel k = add_kernel(env, &prog, a, 5);
	cl_command_buffer_khr b;
	cl_int err = CL_SUCCESS, one = 1, seven = 7;

	load(env);
	q = clCreateCommandQueue(env->ctx, env->device,
				 CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
	CL_OK(err);
	b = create(q);
	CL_OK(cb.fill(b, NULL, NULL, a, &one, 4, 0, N * 4, 0, NULL, &pa,
		      NULL));
	CL_OK(cb.fill(b, NULL, NULL, b2, &seven, 4, 0, N * 4, 0, NULL, &pb,
		      NULL));
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 1, &pa,
			 &pk, NULL));
	CL_OK(cb.barrier(b, NULL, NULL, 0, NULL, &pbar, NULL));
	/* after the barrier: a holds 6 */
	CL_OK(cb.copy(b, NULL, NULL, a, out, 0, 0, N * 4, 0, NULL, NULL,
		      NULL));
	/* unordered with the copy above: a buffer of its own */
	CL_OK(cb.copy(b, NULL, NULL, b2, out2, 0, 0, 64, 1, &pk, NULL, NULL));
	(void)pbar;
	CL_OK(cb.finalize(b));
	for (int i = 0; i < 10; i++) {
		cl_event ev = NULL;

		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, &ev));
		CL_OK(clWaitForEvents(1, &ev));
		CL_OK(clReleaseEvent(ev));
		expect(q, out, N, 6);
		{
			cl_int got[16];

			CL_OK(clEnqueueReadBuffer(q, out2, CL_TRUE, 0,
						  sizeof(got), got, 0, NULL,
						  NULL));
			for (int j = 0; j < 16; j++)
				assert_int_equal(got[j], 7);
		}
	}
	/* substitute queue: the in-order default queue, same device */
	CL_OK(cb.enqueue(1, &env->queue, b, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	expect(env->queue, a, N, 6);
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
	CL_OK(clReleaseCommandQueue(q));
	CL_OK(clReleaseMemObject(out2));
	CL_OK(clReleaseMemObject(out));
	CL_OK(clReleaseMemObject(b2));
	CL_OK(clReleaseMemObject(a));
}

static void test_enqueue_errors(void **state)
{
	struct icd_env *env = *state;
	cl_mem buf = buffer(env, 64);
	cl_command_buffer_khr b;
	cl_command_queue q2[2] = { env->queue, env->queue }, other_q;
	cl_context other;
	cl_event user, other_ev;
	cl_int err = CL_SUCCESS, zero = 0;

	load(env);
	b = create(env->queue);
	CL_OK(cb.fill(b, NULL, NULL, buf, &zero, 4, 0, 64, 0, NULL, NULL,
		      NULL));
	CL_OK(cb.finalize(b));
	assert_int_equal(cb.enqueue(1, NULL, b, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.enqueue(0, q2, b, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.enqueue(2, q2, b, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	q2[0] = (cl_command_queue)buf;
	assert_int_equal(cb.enqueue(1, q2, b, 0, NULL, NULL),
			 CL_INVALID_COMMAND_QUEUE);
	user = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	assert_int_equal(cb.enqueue(0, NULL, b, 1, NULL, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
	assert_int_equal(cb.enqueue(0, NULL, b, 0, &user, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
	other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
	CL_OK(err);
	other_q = clCreateCommandQueue(other, env->device, 0, &err);
	CL_OK(err);
	other_ev = clCreateUserEvent(other, &err);
	CL_OK(err);
	assert_int_equal(cb.enqueue(1, &other_q, b, 0, NULL, NULL),
			 CL_INVALID_CONTEXT);
	assert_int_equal(cb.enqueue(0, NULL, b, 1, &other_ev, NULL),
			 CL_INVALID_CONTEXT);
	CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
	CL_OK(clReleaseEvent(user));
	CL_OK(clSetUserEventStatus(other_ev, CL_COMPLETE));
	CL_OK(clReleaseEvent(other_ev));
	CL_OK(clReleaseCommandQueue(other_q));
	CL_OK(clReleaseContext(other));
	CL_OK(cb.release(b));
	CL_OK(clReleaseMemObject(buf));
}

/*
 * The enqueue waits for its wait list; released (with its kernel, program
 * and buffer objects) before that completes, the work still runs. The
 * returned event has profiling times in order.
 */
static void test_release_pending(void **state)
{
	struct icd_env *env = *state;
	cl_command_queue q;
	cl_mem buf = buffer(env, N * 4), out = buffer(env, N * 4);
	size_t global = N;
	cl_program prog;
	cl_kernel k = add_kernel(env, &prog, buf, 9);
	cl_command_buffer_khr b;
	cl_event gate, ev = NULL;
	cl_ulong t[4];
	cl_int err = CL_SUCCESS, zero = 0, status = 0;

	load(env);
	q = clCreateCommandQueue(env->ctx, env->device,
				 CL_QUEUE_PROFILING_ENABLE, &err);
	CL_OK(err);
	b = create(q);
	CL_OK(cb.fill(b, NULL, NULL, buf, &zero, 4, 0, N * 4, 0, NULL, NULL,
		      NULL));
	CL_OK(cb.ndrange(b, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL,
			 NULL, NULL));
	CL_OK(cb.copy(b, NULL, NULL, buf, out, 0, 0, N * 4, 0, NULL, NULL,
		      NULL));
	CL_OK(cb.finalize(b));
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(cb.enqueue(0, NULL, b, 1, &gate, &ev));
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
	CL_OK(clReleaseMemObject(buf));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
			     sizeof(status), &status, NULL));
	assert_true(status > CL_COMPLETE);
	CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
	CL_OK(clWaitForEvents(1, &ev));
	expect(q, out, N, 9);
	CL_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, 8,
				      &t[0], NULL));
	CL_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_SUBMIT, 8,
				      &t[1], NULL));
	CL_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8,
				      &t[2], NULL));
	CL_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t[3],
				      NULL));
	for (int i = 1; i < 4; i++)
		assert_true(t[i - 1] <= t[i]);
	assert_true(t[3] > 0);
	CL_OK(clReleaseEvent(ev));
	CL_OK(clReleaseEvent(gate));
	CL_OK(clReleaseMemObject(out));
	CL_OK(clReleaseCommandQueue(q));
}

static void test_svm(void **state)
{
	struct icd_env *env = *state;
	cl_device_svm_capabilities caps = 0;
	cl_command_buffer_khr b;
	cl_sync_point_khr p;
	cl_int *x, *y, pat = 42;

	load(env);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES,
			      sizeof(caps), &caps, NULL));
	b = create(env->queue);
	if (!caps) {
		assert_int_equal(cb.svm_fill(b, NULL, NULL, &pat, &pat, 4, 4, 0,
					     NULL, NULL, NULL),
				 CL_INVALID_OPERATION);
		CL_OK(cb.release(b));
		skip();
	}
	x = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, N * 4, 0);
	y = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, N * 4, 0);
	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(cb.svm_fill(b, NULL, NULL, x, &pat, 3, N * 4, 0, NULL,
				     NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.svm_memcpy(b, NULL, NULL, x, x + 1, 8, 0, NULL,
				       NULL, NULL), CL_MEM_COPY_OVERLAP);
	assert_int_equal(cb.svm_memcpy(b, env->queue, NULL, y, x, 8, 0, NULL,
				       NULL, NULL), CL_INVALID_COMMAND_QUEUE);
	CL_OK(cb.svm_fill(b, NULL, NULL, x, &pat, 4, N * 4, 0, NULL, &p,
			  NULL));
	pat = 0;   /* the pattern was copied */
	CL_OK(cb.svm_memcpy(b, NULL, NULL, y, x, N * 4, 1, &p, NULL, NULL));
	CL_OK(cb.finalize(b));
	for (int i = 0; i < 5; i++) {
		memset(y, 0, N * 4);
		CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
		CL_OK(clFinish(env->queue));
		for (int j = 0; j < N; j++)
			assert_int_equal(y[j], 42);
	}
	CL_OK(cb.release(b));
	clSVMFree(env->ctx, y);
	clSVMFree(env->ctx, x);
}

/* Offsets, sizes and pitches that wrap size_t are refused, not recorded. */
static void test_hostile_sizes(void **state)
{
	struct icd_env *env = *state;
	cl_mem buf = buffer(env, N * 4);
	size_t big = SIZE_MAX - 3, origin[3] = { 0 };
	size_t far[3] = { SIZE_MAX, 0, 0 };
	size_t row1[3] = { 0, 1, 0 };
	size_t region[3] = { 4, SIZE_MAX / 2, 3 }, one[3] = { 4, 1, 1 };
	size_t global[2] = { 16, SIZE_MAX }, offset[2] = { 0, 2 };
	cl_program prog;
	cl_kernel k = add_kernel(env, &prog, buf, 1);
	cl_command_buffer_khr b;
	cl_int zero = 0;
	char host[16];

	load(env);
	b = create(env->queue);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, buf, SIZE_MAX, 0, 8, 0,
				 NULL, NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.copy(b, NULL, NULL, buf, buf, 0, 64, big, 0, NULL,
				 NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.fill(b, NULL, NULL, buf, &zero, 4, 4, big - 3, 0,
				 NULL, NULL, NULL), CL_INVALID_VALUE);
	assert_int_equal(cb.copy_rect(b, NULL, NULL, buf, buf, origin, origin,
				      region, 0, 0, 0, 0, 0, NULL, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.copy_rect(b, NULL, NULL, buf, buf, far, origin,
				      one, 0, 0, 0, 0, 0, NULL, NULL, NULL),
			 CL_INVALID_VALUE);
	/* the second row starts SIZE_MAX bytes in */
	assert_int_equal(cb.copy_rect(b, NULL, NULL, buf, buf, row1, origin,
				      one, SIZE_MAX, 0, SIZE_MAX, 0, 0, NULL,
				      NULL, NULL), CL_INVALID_VALUE);
	assert_true(cb.ndrange(b, NULL, NULL, k, 2, offset, global, NULL, 0,
			       NULL, NULL, NULL) != CL_SUCCESS);
	if (cb.svm_memcpy(b, NULL, NULL, host, host, 0, 0, NULL, NULL, NULL) !=
	    CL_INVALID_OPERATION) {
		assert_int_equal(cb.svm_memcpy(b, NULL, NULL, host + 8, host,
					       SIZE_MAX - 1, 0, NULL, NULL,
					       NULL), CL_INVALID_VALUE);
		assert_int_equal(cb.svm_fill(b, NULL, NULL, host, &zero, 4,
					     SIZE_MAX - 3, 0, NULL, NULL,
					     NULL), CL_INVALID_VALUE);
	}
	/* nothing was recorded but the empty SVM copy, if any */
	CL_OK(cb.finalize(b));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(prog));
	CL_OK(clReleaseMemObject(buf));
}

#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_device_queries),
		T(test_create_and_info),
		T(test_replay),
		T(test_recording_errors),
		T(test_out_of_order),
		T(test_enqueue_errors),
		T(test_release_pending),
		T(test_svm),
		T(test_hostile_sizes),
	};

	return ICD_TEST_RUN("icd-command-buffer", tests);
}
