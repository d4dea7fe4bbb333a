/* SPDX-License-Identifier: MIT */
/*
 * accel_queue_host_fn(): ordering with the queue and the wait list, the
 * function's result as the command's status, a failed dependency skipping
 * the function, free_fn called exactly once on every path, and a function
 * that submits to its own queue (no lock held while it runs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

struct probe {
	atomic_int calls;
	atomic_int frees;
	atomic_int seq;        /* global order of calls (shared counter) */
	atomic_int *counter;
	int ret;               /* what fn returns */
	uint32_t *poke;        /* fn writes poke_value there, if set */
	uint32_t poke_value;
	struct accel_queue *submit_to; /* fn submits a marker here, if set */
	int submit_status;
	struct accel_fence *submitted;
};

static int probe_fn(void *data)
{
	struct probe *p = data;

	atomic_fetch_add(&p->calls, 1);
	if (p->counter)
		atomic_store(&p->seq, atomic_fetch_add(p->counter, 1) + 1);
	if (p->poke)
		*p->poke = p->poke_value;
	if (p->submit_to)
		p->submit_status = accel_queue_marker(p->submit_to, 0, NULL,
						      &p->submitted);
	return p->ret;
}

static void probe_free(void *data)
{
	struct probe *p = data;

	atomic_fetch_add(&p->frees, 1);
}

static void probe_init(struct probe *p, atomic_int *counter)
{
	memset(p, 0, sizeof(*p));
	atomic_init(&p->calls, 0);
	atomic_init(&p->frees, 0);
	atomic_init(&p->seq, 0);
	p->counter = counter;
}

/* Runs after its wait list, once; later in-order commands wait for it. */
static void test_order_in_queue(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 16);
	struct accel_fence *gate = test_user_fence(env), *fa = NULL,
			   *fb = NULL, *fw = NULL;
	struct probe a, b;
	atomic_int counter;
	uint32_t src[4] = { 1, 1, 1, 1 }, back[4];

	atomic_init(&counter, 0);
	probe_init(&a, &counter);
	probe_init(&b, &counter);
	/* a changes the memory the write after it reads. */
	a.poke = &src[2];
	a.poke_value = 42;
	assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &a,
					     probe_free, 1, &gate, &fa),
			 0);
	assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &b,
					     probe_free, 0, NULL, &fb),
			 0);
	assert_int_equal(accel_queue_write(env->queue, buf, 0, sizeof(src),
					   src, 0, NULL, &fw),
			 0);
	/* Nothing ran while the gate is closed. */
	assert_int_equal(accel_fence_wait(fb, 50), -ETIME);
	assert_int_equal(atomic_load(&a.calls), 0);
	assert_int_equal(atomic_load(&b.calls), 0);

	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(fa), 0);
	assert_int_equal(test_wait_unref(fb), 0);
	assert_int_equal(test_wait_unref(fw), 0);
	assert_int_equal(atomic_load(&a.calls), 1);
	assert_int_equal(atomic_load(&b.calls), 1);
	assert_int_equal(atomic_load(&a.frees), 1);
	assert_int_equal(atomic_load(&b.frees), 1);
	assert_int_equal(atomic_load(&a.seq), 1);
	assert_int_equal(atomic_load(&b.seq), 2);
	test_read(env, buf, 0, sizeof(back), back);
	assert_int_equal(back[2], 42);
	assert_int_equal(back[0], 1);

	accel_fence_unref(gate);
	accel_buffer_unref(buf);
}

/* fn's result is the fence's status; errnos out of range become -EIO. */
static void test_result(void **state)
{
	struct test_env *env = *state;
	static const int rets[][2] = {
		{ 0, 0 },       { 7, 0 },          { -ENOSPC, -ENOSPC },
		{ -4095, -4095 }, { -4096, -EIO }, { -100000, -EIO },
	};
	struct accel_fence *f = NULL;
	struct probe p;
	size_t i;

	for (i = 0; i < TEST_ARRAY_SIZE(rets); i++) {
		probe_init(&p, NULL);
		p.ret = rets[i][0];
		assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &p,
						     probe_free, 0, NULL, &f),
				 0);
		assert_int_equal(test_wait_unref(f), rets[i][1]);
		assert_int_equal(atomic_load(&p.calls), 1);
		assert_int_equal(atomic_load(&p.frees), 1);
	}
	/* finish reports the first failure, as for any command. */
	assert_int_equal(accel_queue_finish(env->queue), -ENOSPC);
}

/* A failed wait-list fence: fn is skipped, free_fn still runs once. */
static void test_failed_dependency(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *gate = test_user_fence(env), *f = NULL, *g = NULL;
	struct probe p, q;

	probe_init(&p, NULL);
	probe_init(&q, NULL);
	assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &p,
					     probe_free, 1, &gate, &f),
			 0);
	/* Without a wait list the in-order predecessor's failure is not q's. */
	assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &q, NULL, 0,
					     NULL, &g),
			 0);
	assert_int_equal(accel_fence_signal(gate, -EPIPE), 0);
	assert_int_equal(test_wait_unref(f), -EPIPE);
	assert_int_equal(test_wait_unref(g), 0);
	assert_int_equal(atomic_load(&p.calls), 0);
	assert_int_equal(atomic_load(&p.frees), 1);
	assert_int_equal(atomic_load(&q.calls), 1);
	assert_int_equal(atomic_load(&q.frees), 0);
	assert_int_equal(accel_queue_finish(env->queue), -EPIPE);
	accel_fence_unref(gate);
}

/* Every refused call frees the data too, and leaves ret_fence alone. */
static void test_bad_calls(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = TEST_SENTINEL_PTR, *none = NULL;
	struct probe p;

	probe_init(&p, NULL);
	assert_int_equal(accel_queue_host_fn(env->queue, NULL, &p, probe_free,
					     0, NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_host_fn(NULL, probe_fn, &p, probe_free, 0,
					     NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &p,
					     probe_free, 1, NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_host_fn(env->queue, probe_fn, &p,
					     probe_free, 1, &none, &f),
			 -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	assert_int_equal(atomic_load(&p.calls), 0);
	assert_int_equal(atomic_load(&p.frees), 4);
	/* No free_fn is fine too. */
	assert_int_equal(accel_queue_host_fn(env->queue, NULL, &p, NULL, 0,
					     NULL, NULL),
			 -EINVAL);
}

/* fn may submit to its own queue: no lock is held while it runs. */
static void test_submit_from_fn(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *ooo = NULL;
	struct accel_fence *gate = test_user_fence(env), *f = NULL;
	struct probe p;

	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &ooo),
			 0);
	probe_init(&p, NULL);
	p.submit_to = ooo;
	assert_int_equal(accel_queue_host_fn(ooo, probe_fn, &p, probe_free, 1,
					     &gate, &f),
			 0);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	assert_int_equal(p.submit_status, 0);
	assert_non_null(p.submitted);
	assert_int_equal(test_wait_unref(p.submitted), 0);
	assert_int_equal(accel_queue_finish(ooo), 0);
	accel_queue_unref(ooo);
	accel_fence_unref(gate);
}

/* Commands still pending when the queue's last reference goes: freed. */
static void test_pending_at_unref(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = NULL;
	struct accel_fence *gate = test_user_fence(env);
	struct probe p;

	assert_int_equal(accel_queue_new(env->dev, 0, &q), 0);
	probe_init(&p, NULL);
	assert_int_equal(accel_queue_host_fn(q, probe_fn, &p, probe_free, 1,
					     &gate, NULL),
			 0);
	accel_queue_unref(q);
	assert_int_equal(atomic_load(&p.frees), 0);
	assert_int_equal(accel_fence_signal(gate, -ECANCELED), 0);
	assert_int_equal(atomic_load(&p.calls), 0);
	assert_int_equal(atomic_load(&p.frees), 1);
	accel_fence_unref(gate);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_order_in_queue),  T(test_result),
		T(test_failed_dependency), T(test_bad_calls),
		T(test_submit_from_fn),  T(test_pending_at_unref),
	};

	return TEST_RUN_GROUP("host-fn", tests);
}
