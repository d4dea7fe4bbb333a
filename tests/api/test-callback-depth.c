/* SPDX-License-Identifier: MIT */
/*
 * Fence callbacks never nest: a callback that adds a callback to a
 * signalled fence, or signals a fence with callbacks, does not call into
 * them on its own stack. Chains of 200k levels once overflowed the stack.
 */
#include <errno.h>
#include <string.h>

#include "test-common.h"

#define LEVELS 200000u

struct chain {
	struct accel_context *ctx;
	unsigned target;   /* links to make */
	unsigned calls;    /* callbacks run */
	unsigned depth;    /* callbacks on the stack now */
	unsigned max_depth;
	unsigned failures; /* libaccel calls that failed inside callbacks */
	int last_status;
};

static void enter(struct chain *c, int status)
{
	c->calls++;
	c->depth++;
	if (c->depth > c->max_depth)
		c->max_depth = c->depth;
	c->last_status = status;
}

/* Adds itself again to the fence it runs for (already signalled). */
static void readd_cb(struct accel_fence *fence, int status, void *data)
{
	struct chain *c = data;

	enter(c, status);
	if (c->calls < c->target &&
	    accel_fence_add_callback(fence, readd_cb, c) < 0)
		c->failures++;
	c->depth--;
}

/* Makes a new user fence, signals it, then adds itself to it. */
static void add_signalled_cb(struct accel_fence *fence, int status,
			     void *data)
{
	struct chain *c = data;
	struct accel_fence *next = NULL;

	(void)fence;
	enter(c, status);
	if (c->calls < c->target) {
		if (accel_fence_new_user(c->ctx, &next) < 0 ||
		    accel_fence_signal(next, -ENOSPC) < 0 ||
		    accel_fence_add_callback(next, add_signalled_cb, c) < 0)
			c->failures++;
		/* The callback's fence lives on while the callback waits. */
		accel_fence_unref(next);
	}
	c->depth--;
}

/* Makes a new user fence, adds itself to it, then signals it. */
static void signal_next_cb(struct accel_fence *fence, int status, void *data)
{
	struct chain *c = data;
	struct accel_fence *next = NULL;

	(void)fence;
	enter(c, status);
	if (c->calls < c->target) {
		if (accel_fence_new_user(c->ctx, &next) < 0 ||
		    accel_fence_add_callback(next, signal_next_cb, c) < 0 ||
		    accel_fence_signal(next, 0) < 0)
			c->failures++;
		accel_fence_unref(next);
	}
	c->depth--;
}

static void run_chain(struct test_env *env, accel_fence_cb cb,
		      unsigned levels, int status)
{
	struct accel_fence *f = test_user_fence(env);
	struct chain c;

	memset(&c, 0, sizeof(c));
	c.ctx = env->ctx;
	c.target = levels;
	c.last_status = 1;
	if (cb == readd_cb)
		assert_int_equal(accel_fence_signal(f, status), 0);
	assert_int_equal(accel_fence_add_callback(f, cb, &c), 0);
	if (cb != readd_cb)
		assert_int_equal(accel_fence_signal(f, status), 0);
	/* All of the chain ran before the first call returned... */
	assert_int_equal(c.calls, levels);
	assert_int_equal(c.failures, 0);
	/* ...one callback at a time. */
	assert_int_equal(c.max_depth, 1);
	accel_fence_unref(f);
}

/* Short chains first: they show nesting without overflowing the stack. */
static void test_readd_short(void **state)
{
	run_chain(*state, readd_cb, 10, -EIO);
}

static void test_readd_deep(void **state)
{
	run_chain(*state, readd_cb, LEVELS, 0);
}

static void test_add_signalled_short(void **state)
{
	run_chain(*state, add_signalled_cb, 10, 0);
}

static void test_add_signalled_deep(void **state)
{
	run_chain(*state, add_signalled_cb, LEVELS, 0);
}

static void test_signal_next_short(void **state)
{
	run_chain(*state, signal_next_cb, 10, 0);
}

static void test_signal_next_deep(void **state)
{
	run_chain(*state, signal_next_cb, LEVELS, 0);
}

/* Queued callbacks run in the order they became due, with their status. */
struct order {
	struct accel_fence *other;
	int statuses[4];
	unsigned n, n_in_root;
};

static void order_leaf(struct accel_fence *fence, int status, void *data)
{
	struct order *o = data;

	(void)fence;
	if (o->n < TEST_ARRAY_SIZE(o->statuses))
		o->statuses[o->n] = status;
	o->n++;
}

static void order_root(struct accel_fence *fence, int status, void *data)
{
	struct order *o = data;

	o->statuses[o->n++] = status;
	/* Due at once (its fence has signalled), then when signalled. */
	accel_fence_add_callback(fence, order_leaf, o);
	accel_fence_add_callback(o->other, order_leaf, o);
	accel_fence_signal(o->other, -EPIPE);
	accel_fence_add_callback(fence, order_leaf, o);
	/* None has run yet. */
	o->n_in_root = o->n;
}

static void test_order(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = test_user_fence(env);
	struct order o;

	memset(&o, 0, sizeof(o));
	o.other = test_user_fence(env);
	assert_int_equal(accel_fence_add_callback(f, order_root, &o), 0);
	assert_int_equal(accel_fence_signal(f, -ENOSPC), 0);
	assert_int_equal(o.n_in_root, 1);
	assert_int_equal(o.n, 4);
	assert_int_equal(o.statuses[0], -ENOSPC);
	assert_int_equal(o.statuses[1], -ENOSPC);
	assert_int_equal(o.statuses[2], -EPIPE);
	assert_int_equal(o.statuses[3], -ENOSPC);
	accel_fence_unref(o.other);
	accel_fence_unref(f);
}

/*
 * A callback that blocks on work a queued callback does (the ICD's
 * host-side commands are fence callbacks: a blocking rect read from an
 * event callback) must not wait forever: waiting runs this thread's
 * queued callbacks first.
 */
struct blocker {
	struct accel_fence *done; /* signalled by the queued callback */
	int wait;
};

static void blocker_leaf(struct accel_fence *fence, int status, void *data)
{
	struct blocker *b = data;

	(void)fence;
	(void)status;
	accel_fence_signal(b->done, 0);
}

static void blocker_root(struct accel_fence *fence, int status, void *data)
{
	struct blocker *b = data;

	(void)status;
	/* due at once: queued behind this callback */
	accel_fence_add_callback(fence, blocker_leaf, b);
	b->wait = accel_fence_wait(b->done, 5 * 1000000000ll);
}

static void test_wait_in_callback(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = test_user_fence(env);
	struct blocker b = { .done = test_user_fence(env), .wait = 1 };

	assert_int_equal(accel_fence_add_callback(f, blocker_root, &b), 0);
	assert_int_equal(accel_fence_signal(f, 0), 0);
	assert_int_equal(b.wait, 0);
	accel_fence_unref(b.done);
	accel_fence_unref(f);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_readd_short),
		T(test_add_signalled_short),
		T(test_signal_next_short),
		T(test_order),
		T(test_wait_in_callback),
		T(test_readd_deep),
		T(test_add_signalled_deep),
		T(test_signal_next_deep),
	};

	return TEST_RUN_GROUP("callback-depth", tests);
}
