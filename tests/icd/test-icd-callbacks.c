/* SPDX-License-Identifier: MIT */
/*
 * OpenCL callbacks never nest: event callbacks set on complete events or
 * made due by clSetUserEventStatus() inside a callback, and destructor
 * callbacks of objects released inside a destructor callback, run after
 * the running callback returns. Chains of 200k levels once overflowed the
 * stack.
 */
#include <string.h>

#include "icd-test.h"

#define LEVELS 200000u

struct chain {
	struct icd_env *env;
	cl_mem parent;
	unsigned target;  /* callbacks to run */
	unsigned calls;
	unsigned depth;   /* callbacks on the stack now */
	unsigned max_depth;
	unsigned failures; /* CL calls that failed inside callbacks */
};

static bool enter(struct chain *c)
{
	c->calls++;
	c->depth++;
	if (c->depth > c->max_depth)
		c->max_depth = c->depth;
	return c->calls < c->target;
}

static void check(struct chain *c, unsigned levels)
{
	assert_int_equal(c->failures, 0);
	assert_int_equal(c->calls, levels);
	assert_int_equal(c->max_depth, 1);
}

/* Sets itself again on its event, which is complete. */
static void CL_CALLBACK readd_cb(cl_event e, cl_int status, void *data)
{
	struct chain *c = data;

	if (status != CL_COMPLETE)
		c->failures++;
	if (enter(c) &&
	    clSetEventCallback(e, CL_COMPLETE, readd_cb, c) != CL_SUCCESS)
		c->failures++;
	c->depth--;
}

/* A new user event with this callback, completed and released. */
static void CL_CALLBACK user_next_cb(cl_event e, cl_int status, void *data)
{
	struct chain *c = data;
	cl_int err = CL_SUCCESS;
	cl_event next;

	(void)e;
	if (status != CL_COMPLETE)
		c->failures++;
	if (enter(c)) {
		next = clCreateUserEvent(c->env->ctx, &err);
		if (!next || err != CL_SUCCESS ||
		    clSetEventCallback(next, CL_COMPLETE, user_next_cb, c) ||
		    clSetUserEventStatus(next, CL_COMPLETE) ||
		    clReleaseEvent(next))
			c->failures++;
	}
	c->depth--;
}

static void run_event_chain(struct icd_env *env,
			    void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
			    unsigned levels)
{
	struct chain c;
	cl_int err = CL_SUCCESS;
	cl_event e = clCreateUserEvent(env->ctx, &err);

	CL_OK(err);
	memset(&c, 0, sizeof(c));
	c.env = env;
	c.target = levels;
	CL_OK(clSetEventCallback(e, CL_COMPLETE, fn, &c));
	CL_OK(clSetUserEventStatus(e, CL_COMPLETE));
	check(&c, levels);
	CL_OK(clReleaseEvent(e));
}

static void test_event_readd_short(void **state)
{
	run_event_chain(*state, readd_cb, 10);
}

static void test_event_readd_deep(void **state)
{
	run_event_chain(*state, readd_cb, LEVELS);
}

static void test_user_event_short(void **state)
{
	run_event_chain(*state, user_next_cb, 10);
}

static void test_user_event_deep(void **state)
{
	run_event_chain(*state, user_next_cb, LEVELS);
}

/* A new sub-buffer with this destructor, released (so destroyed). */
static void CL_CALLBACK mem_next_cb(cl_mem m, void *data)
{
	struct chain *c = data;
	cl_buffer_region region = { .origin = 0, .size = 64 };
	cl_int err = CL_SUCCESS;
	cl_mem next;

	(void)m;
	if (enter(c)) {
		next = clCreateSubBuffer(c->parent, CL_MEM_READ_WRITE,
					 CL_BUFFER_CREATE_TYPE_REGION, &region,
					 &err);
		if (!next || err != CL_SUCCESS ||
		    clSetMemObjectDestructorCallback(next, mem_next_cb, c) ||
		    clReleaseMemObject(next))
			c->failures++;
	}
	c->depth--;
}

static void run_mem_chain(struct icd_env *env, unsigned levels)
{
	struct chain c;
	cl_int err = CL_SUCCESS;
	cl_mem m;

	memset(&c, 0, sizeof(c));
	c.env = env;
	c.target = levels;
	c.parent = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 4096, NULL,
				  &err);
	CL_OK(err);
	m = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
	CL_OK(err);
	CL_OK(clSetMemObjectDestructorCallback(m, mem_next_cb, &c));
	CL_OK(clReleaseMemObject(m));
	check(&c, levels);
	CL_OK(clReleaseMemObject(c.parent));
}

static void test_mem_short(void **state)
{
	run_mem_chain(*state, 10);
}

static void test_mem_deep(void **state)
{
	run_mem_chain(*state, LEVELS);
}

/* A new context with this destructor, released (so destroyed). */
static void CL_CALLBACK ctx_next_cb(cl_context ctx, void *data)
{
	struct chain *c = data;
	cl_int err = CL_SUCCESS;
	cl_context next;

	(void)ctx;
	if (enter(c)) {
		next = clCreateContext(NULL, 1, &c->env->device, NULL, NULL,
				       &err);
		if (!next || err != CL_SUCCESS ||
		    clSetContextDestructorCallback(next, ctx_next_cb, c) ||
		    clReleaseContext(next))
			c->failures++;
	}
	c->depth--;
}

static void run_ctx_chain(struct icd_env *env, unsigned levels)
{
	struct chain c;
	cl_int err = CL_SUCCESS;
	cl_context ctx;

	memset(&c, 0, sizeof(c));
	c.env = env;
	c.target = levels;
	ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
	CL_OK(err);
	CL_OK(clSetContextDestructorCallback(ctx, ctx_next_cb, &c));
	CL_OK(clReleaseContext(ctx));
	check(&c, levels);
}

static void test_ctx_short(void **state)
{
	run_ctx_chain(*state, 10);
}

static void test_ctx_deep(void **state)
{
	run_ctx_chain(*state, LEVELS);
}

/*
 * A blocking rect read from inside an event callback: its work is itself
 * a callback, queued behind this one; the blocking wait runs it first.
 */
struct blocking {
	struct icd_env *env;
	cl_mem buf;
	cl_int err;
	unsigned char out[16];
};

static void CL_CALLBACK blocking_read_cb(cl_event e, cl_int status,
					 void *data)
{
	struct blocking *b = data;
	size_t origin[3] = { 0, 0, 0 }, region[3] = { 4, 4, 1 };

	(void)e;
	(void)status;
	b->err = clEnqueueReadBufferRect(b->env->queue, b->buf, CL_TRUE,
					 origin, origin, region, 4, 0, 4, 0,
					 b->out, 0, NULL, NULL);
}

static void test_blocking_read_in_callback(void **state)
{
	struct icd_env *env = *state;
	unsigned char in[16];
	struct blocking b = { .env = env, .err = 1 };
	cl_int err = CL_SUCCESS;
	cl_event e = clCreateUserEvent(env->ctx, &err);

	CL_OK(err);
	for (unsigned i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 1);
	b.buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE |
			       CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
	CL_OK(err);
	CL_OK(clSetEventCallback(e, CL_COMPLETE, blocking_read_cb, &b));
	CL_OK(clSetUserEventStatus(e, CL_COMPLETE));
	CL_OK(clFinish(env->queue));
	assert_int_equal(b.err, CL_SUCCESS);
	assert_memory_equal(b.out, in, sizeof(in));
	CL_OK(clReleaseMemObject(b.buf));
	CL_OK(clReleaseEvent(e));
}

#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_event_readd_short),
		T(test_user_event_short),
		T(test_mem_short),
		T(test_ctx_short),
		T(test_blocking_read_in_callback),
		T(test_event_readd_deep),
		T(test_user_event_deep),
		T(test_mem_deep),
		T(test_ctx_deep),
	};

	return ICD_TEST_RUN("callbacks", tests);
}
