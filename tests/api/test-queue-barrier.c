/* SPDX-License-Identifier: MIT */
/*
 * accel_queue_barrier(): on an out-of-order queue every later command
 * waits for the last barrier (and fails with it); a barrier's own wait list
 * follows the marker's rules; on an in-order queue it is a marker.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "test-common.h"

static int count_fn(void *data)
{
	atomic_fetch_add((atomic_int *)data, 1);
	return 0;
}

static struct accel_queue *ooo_new(struct test_env *env)
{
	struct accel_queue *q = NULL;

	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &q),
			 0);
	return q;
}

/* Empty wait list: waits for all before; everything after waits for it. */
static void test_orders_out_of_order(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = ooo_new(env);
	struct accel_fence *gate = test_user_fence(env), *fa = NULL,
			   *fbar = NULL, *fb = NULL, *fc = NULL;
	atomic_int a, b, c;

	atomic_init(&a, 0);
	atomic_init(&b, 0);
	atomic_init(&c, 0);
	assert_int_equal(accel_queue_host_fn(q, count_fn, &a, NULL, 1, &gate,
					     &fa),
			 0);
	/* Before the barrier: free to run at once (out of order). */
	assert_int_equal(accel_queue_host_fn(q, count_fn, &c, NULL, 0, NULL,
					     &fc),
			 0);
	assert_int_equal(test_wait_unref(fc), 0);
	assert_int_equal(accel_queue_barrier(q, 0, NULL, &fbar), 0);
	assert_int_equal(accel_queue_host_fn(q, count_fn, &b, NULL, 0, NULL,
					     &fb),
			 0);
	assert_int_equal(accel_fence_wait(fb, 50), -ETIME);
	assert_int_equal(atomic_load(&b), 0);

	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(fbar), 0);
	assert_int_equal(test_wait_unref(fb), 0);
	assert_int_equal(test_wait_unref(fa), 0);
	assert_int_equal(atomic_load(&a), 1);
	assert_int_equal(atomic_load(&b), 1);
	assert_int_equal(accel_queue_finish(q), 0);
	accel_queue_unref(q);
	accel_fence_unref(gate);
}

/*
 * With a wait list the barrier waits for it only; a failure of the list
 * fails the barrier and every command after it, which do not run.
 */
static void test_wait_list_and_failure(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = ooo_new(env);
	struct accel_fence *gate = test_user_fence(env),
			   *other = test_user_fence(env), *fo = NULL,
			   *fbar = NULL, *fb = NULL;
	atomic_int o, b;

	atomic_init(&o, 0);
	atomic_init(&b, 0);
	/* Not in the barrier's list: the barrier does not wait for it. */
	assert_int_equal(accel_queue_host_fn(q, count_fn, &o, NULL, 1, &other,
					     &fo),
			 0);
	assert_int_equal(accel_queue_barrier(q, 1, &gate, &fbar), 0);
	assert_int_equal(accel_queue_host_fn(q, count_fn, &b, NULL, 0, NULL,
					     &fb),
			 0);
	assert_int_equal(accel_fence_signal(gate, -EPIPE), 0);
	assert_int_equal(test_wait_unref(fbar), -EPIPE);
	assert_int_equal(test_wait_unref(fb), -EPIPE);
	assert_int_equal(atomic_load(&b), 0);
	/* The command before the barrier still waits for its own fence. */
	assert_int_equal(atomic_load(&o), 0);
	assert_int_equal(accel_fence_signal(other, 0), 0);
	assert_int_equal(test_wait_unref(fo), 0);
	assert_int_equal(atomic_load(&o), 1);
	assert_int_equal(accel_queue_finish(q), -EPIPE);
	accel_queue_unref(q);
	accel_fence_unref(gate);
	accel_fence_unref(other);
}

/* A newer barrier replaces the older one for the commands after it. */
static void test_latest_barrier(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = ooo_new(env);
	struct accel_fence *g1 = test_user_fence(env),
			   *g2 = test_user_fence(env), *b1 = NULL, *b2 = NULL,
			   *f = NULL;
	atomic_int n;

	atomic_init(&n, 0);
	assert_int_equal(accel_queue_barrier(q, 1, &g1, &b1), 0);
	assert_int_equal(accel_queue_barrier(q, 1, &g2, &b2), 0);
	assert_int_equal(accel_queue_host_fn(q, count_fn, &n, NULL, 0, NULL,
					     &f),
			 0);
	/* The second barrier waits for the first: nothing runs on g2 alone. */
	assert_int_equal(accel_fence_signal(g2, 0), 0);
	assert_int_equal(accel_fence_wait(f, 50), -ETIME);
	assert_int_equal(accel_fence_signal(g1, 0), 0);
	assert_int_equal(test_wait_unref(b1), 0);
	assert_int_equal(test_wait_unref(b2), 0);
	assert_int_equal(test_wait_unref(f), 0);
	assert_int_equal(atomic_load(&n), 1);
	accel_queue_unref(q);
	accel_fence_unref(g1);
	accel_fence_unref(g2);
}

/* In order: a marker, the queue's own order already holds. */
static void test_in_order(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *gate = test_user_fence(env), *fa = NULL,
			   *fbar = NULL, *fb = NULL;
	atomic_int a, b;

	atomic_init(&a, 0);
	atomic_init(&b, 0);
	assert_int_equal(accel_queue_host_fn(env->queue, count_fn, &a, NULL, 1,
					     &gate, &fa),
			 0);
	assert_int_equal(accel_queue_barrier(env->queue, 0, NULL, &fbar), 0);
	assert_int_equal(accel_queue_host_fn(env->queue, count_fn, &b, NULL, 0,
					     NULL, &fb),
			 0);
	assert_int_equal(accel_fence_wait(fbar, 20), -ETIME);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(fa), 0);
	assert_int_equal(test_wait_unref(fbar), 0);
	assert_int_equal(test_wait_unref(fb), 0);
	assert_int_equal(atomic_load(&b), 1);
	accel_fence_unref(gate);
}

static void test_bad_calls(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = TEST_SENTINEL_PTR, *none = NULL;

	assert_int_equal(accel_queue_barrier(NULL, 0, NULL, &f), -EINVAL);
	assert_int_equal(accel_queue_barrier(env->queue, 1, NULL, &f), -EINVAL);
	assert_int_equal(accel_queue_barrier(env->queue, 1, &none, &f),
			 -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_orders_out_of_order),
		T(test_wait_list_and_failure),
		T(test_latest_barrier),
		T(test_in_order),
		T(test_bad_calls),
	};

	return TEST_RUN_GROUP("queue-barrier", tests);
}
