/* SPDX-License-Identifier: MIT */
/*
 * Concurrency stress: many threads submitting small launches to one shared
 * queue and to their own queues; user fences signalled on some threads
 * while others wait, add callbacks or gate launches on them.
 *
 * Worker threads never call cmocka asserts (they longjmp); they record
 * what went wrong and the main thread asserts after joining.
 *
 * ACCEL_TEST_STRESS_ITERATIONS overrides the launches per thread (default
 * 10000), e.g. for slow sanitizer builds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#define N_THREADS 8
#define DEFAULT_ITERATIONS 10000

static unsigned iterations(void)
{
	const char *s = getenv("ACCEL_TEST_STRESS_ITERATIONS");
	unsigned long v;
	char *end;

	if (!s || !*s)
		return DEFAULT_ITERATIONS;
	v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > 1000000)
		return DEFAULT_ITERATIONS;
	return (unsigned)v;
}

struct worker {
	struct accel_device *dev;
	struct accel_queue *queue; /* shared, or NULL for an own queue */
	struct accel_kernel *kernel; /* this thread's own (a clone) */
	unsigned idx, n_iter;
	struct accel_fence **fences;
	/* Results, read by the main thread after join. */
	int err;
	char msg[160];
};

static void worker_fail(struct worker *w, int err, const char *what,
			unsigned i)
{
	if (w->err)
		return;
	w->err = err ? err : -1;
	snprintf(w->msg, sizeof(w->msg), "thread %u, iteration %u: %s: %d",
		 w->idx, i, what, err);
}

static void *launch_worker(void *p)
{
	struct worker *w = p;
	struct accel_queue *q = w->queue;
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 1, 0, 0);
	unsigned i, submitted = 0;
	int ret;

	if (!q) {
		ret = accel_queue_new(w->dev, 0, &q);
		if (ret < 0) {
			worker_fail(w, ret, "queue_new", 0);
			return NULL;
		}
	}
	for (i = 0; i < w->n_iter; i++) {
		uint32_t slot = w->idx * w->n_iter + i;

		ret = accel_kernel_set_arg_value(w->kernel, 1, sizeof(slot),
						 &slot);
		if (ret == 0)
			ret = accel_queue_launch(q, w->kernel, &r, 0, NULL,
						 &w->fences[i]);
		if (ret < 0) {
			worker_fail(w, ret, "launch", i);
			break;
		}
		submitted++;
	}
	for (i = 0; i < submitted; i++) {
		ret = accel_fence_wait(w->fences[i], ACCEL_TIMEOUT_INFINITE);
		if (ret != 0)
			worker_fail(w, ret, "fence wait", i);
		else if (accel_fence_get_status(w->fences[i]) != 1)
			worker_fail(w, accel_fence_get_status(w->fences[i]),
				    "fence status", i);
		w->fences[i] = accel_fence_unref(w->fences[i]);
	}
	if (!w->queue) {
		ret = accel_queue_finish(q);
		if (ret != 0)
			worker_fail(w, ret, "queue_finish", 0);
		accel_queue_unref(q);
	}
	return NULL;
}

static void run_launch_stress(struct test_env *env, bool shared)
{
	int fds_before = test_count_fds();
	unsigned n_iter = iterations(), t;
	uint64_t total = (uint64_t)N_THREADS * n_iter, i, bad = 0;
	struct accel_buffer *counters = test_buffer_new(env, total * 4);
	struct accel_kernel *proto = test_kernel_new(env, "inc_slot");
	struct worker w[N_THREADS];
	pthread_t th[N_THREADS];
	uint32_t *c = NULL, zero = 0;

	assert_int_equal(accel_kernel_set_arg_buffer(proto, 0, counters), 0);
	assert_int_equal(accel_kernel_set_arg_value(proto, 1, 4, &zero), 0);
	memset(w, 0, sizeof(w));
	for (t = 0; t < N_THREADS; t++) {
		w[t].dev = env->dev;
		w[t].queue = shared ? env->queue : NULL;
		w[t].idx = t;
		w[t].n_iter = n_iter;
		w[t].fences = calloc(n_iter, sizeof(*w[t].fences));
		assert_non_null(w[t].fences);
		assert_int_equal(accel_kernel_clone(proto, &w[t].kernel), 0);
	}
	for (t = 0; t < N_THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, launch_worker,
						&w[t]),
				 0);
	for (t = 0; t < N_THREADS; t++)
		pthread_join(th[t], NULL);

	for (t = 0; t < N_THREADS; t++) {
		if (w[t].err)
			fail_msg("%s", w[t].msg);
		accel_kernel_unref(w[t].kernel);
		free(w[t].fences);
	}
	assert_int_equal(accel_queue_finish(env->queue), 0);

	/* Every launch incremented its own slot exactly once. */
	assert_int_equal(accel_buffer_map(counters, 0, total * 4,
					  ACCEL_MAP_READ, (void **)&c),
			 0);
	for (i = 0; i < total; i++)
		if (c[i] != 1) {
			if (!bad)
				print_error("slot %llu is %u\n",
					    (unsigned long long)i, c[i]);
			bad++;
		}
	assert_int_equal(accel_buffer_unmap(counters, c), 0);
	if (bad)
		fail_msg("%llu of %llu slots are not 1",
			 (unsigned long long)bad, (unsigned long long)total);

	accel_kernel_unref(proto);
	accel_buffer_unref(counters);
	/* Own queues and fences are gone: nothing kept an fd. */
	assert_int_equal(test_count_fds(), fds_before);
}

static void test_shared_queue(void **state)
{
	run_launch_stress(*state, true);
}

static void test_own_queues(void **state)
{
	run_launch_stress(*state, false);
}

/* ---- user fences across threads ------------------------------------- */

#define N_FENCES 2000
#define N_ROLES 2 /* threads per role */

struct fence_stress {
	struct accel_fence *fences[N_FENCES];
	atomic_int signal_ok;        /* successful accel_fence_signal() calls */
	atomic_int signal_bad;       /* unexpected return values */
	atomic_int wait_bad;
	atomic_int cb_bad;
	atomic_int add_bad;
	atomic_int calls[N_FENCES];  /* callback invocations per fence */
};

static int expected_status(unsigned i)
{
	return i % 3 == 0 ? -EIO : 0;
}

static void *signaller(void *p)
{
	struct fence_stress *s = p;
	unsigned i;

	for (i = 0; i < N_FENCES; i++) {
		int r = accel_fence_signal(s->fences[i], expected_status(i));

		if (r == 0)
			atomic_fetch_add(&s->signal_ok, 1);
		else if (r != -EALREADY)
			atomic_fetch_add(&s->signal_bad, 1);
	}
	return NULL;
}

static void *waiter(void *p)
{
	struct fence_stress *s = p;
	unsigned i;

	/* Backwards, so that many waits start before the signal. */
	for (i = N_FENCES; i-- > 0;)
		if (accel_fence_wait(s->fences[i], ACCEL_TIMEOUT_INFINITE) !=
		    expected_status(i))
			atomic_fetch_add(&s->wait_bad, 1);
	return NULL;
}

struct cb_ctx {
	struct fence_stress *s;
	unsigned i;
};

static struct cb_ctx cb_ctxs[N_FENCES];

static void count_cb(struct accel_fence *fence, int status, void *data)
{
	struct cb_ctx *c = data;

	if (fence != c->s->fences[c->i] || status != expected_status(c->i))
		atomic_fetch_add(&c->s->cb_bad, 1);
	atomic_fetch_add(&c->s->calls[c->i], 1);
}

static void *cb_adder(void *p)
{
	struct fence_stress *s = p;
	unsigned i;

	for (i = 0; i < N_FENCES; i++)
		if (accel_fence_add_callback(s->fences[i], count_cb,
					     &cb_ctxs[i]) != 0)
			atomic_fetch_add(&s->add_bad, 1);
	return NULL;
}

static void test_fences_across_threads(void **state)
{
	struct test_env *env = *state;
	struct fence_stress *s = calloc(1, sizeof(*s));
	pthread_t th[3 * N_ROLES];
	unsigned i, t = 0;

	assert_non_null(s);
	for (i = 0; i < N_FENCES; i++) {
		assert_int_equal(accel_fence_new_user(env->ctx, &s->fences[i]),
				 0);
		cb_ctxs[i].s = s;
		cb_ctxs[i].i = i;
	}
	for (i = 0; i < N_ROLES; i++) {
		assert_int_equal(pthread_create(&th[t++], NULL, waiter, s), 0);
		assert_int_equal(pthread_create(&th[t++], NULL, cb_adder, s),
				 0);
		assert_int_equal(pthread_create(&th[t++], NULL, signaller, s),
				 0);
	}
	for (i = 0; i < t; i++)
		pthread_join(th[i], NULL);

	/* Exactly one signal per fence won. */
	assert_int_equal(atomic_load(&s->signal_ok), N_FENCES);
	assert_int_equal(atomic_load(&s->signal_bad), 0);
	assert_int_equal(atomic_load(&s->wait_bad), 0);
	assert_int_equal(atomic_load(&s->add_bad), 0);
	assert_int_equal(atomic_load(&s->cb_bad), 0);
	/* Each callback ran once: after both the adder and signaller joined. */
	for (i = 0; i < N_FENCES; i++) {
		if (atomic_load(&s->calls[i]) != N_ROLES)
			fail_msg("fence %u: %d callback calls, expected %d", i,
				 atomic_load(&s->calls[i]), N_ROLES);
		assert_int_equal(accel_fence_get_status(s->fences[i]),
				 expected_status(i) ? expected_status(i) : 1);
		accel_fence_unref(s->fences[i]);
	}
	free(s);
}

/* Launches gated on user fences that another thread signals. */
struct gate_stress {
	struct accel_fence *gates[N_FENCES];
	atomic_int ready; /* gates created */
};

static void *gate_signaller(void *p)
{
	struct gate_stress *g = p;
	unsigned i;

	for (i = 0; i < N_FENCES; i++) {
		/* Spin until the main thread made the gate. */
		while (atomic_load(&g->ready) <= (int)i)
			sched_yield();
		accel_fence_signal(g->gates[i], expected_status(i));
	}
	return NULL;
}

static void test_gated_launches(void **state)
{
	struct test_env *env = *state;
	struct gate_stress *g = calloc(1, sizeof(*g));
	struct accel_fence **done = calloc(N_FENCES, sizeof(*done));
	struct accel_buffer *counters = test_buffer_new(env, N_FENCES * 4);
	struct accel_kernel *k = test_kernel_new(env, "inc_slot");
	struct accel_queue *ooo = NULL;
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 0, 0, 0);
	uint32_t *c = NULL;
	pthread_t th;
	unsigned i;

	assert_non_null(g);
	assert_non_null(done);
	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &ooo),
			 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, counters), 0);
	assert_int_equal(pthread_create(&th, NULL, gate_signaller, g), 0);
	for (i = 0; i < N_FENCES; i++) {
		uint32_t slot = i;

		assert_int_equal(accel_fence_new_user(env->ctx, &g->gates[i]),
				 0);
		atomic_store(&g->ready, (int)i + 1);
		assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &slot), 0);
		/* Half on the in-order queue, half on the out-of-order one. */
		assert_int_equal(accel_queue_launch(i % 2 ? ooo : env->queue, k,
						    &r, 1, &g->gates[i],
						    &done[i]),
				 0);
	}
	pthread_join(th, NULL);

	for (i = 0; i < N_FENCES; i++) {
		int r2 = accel_fence_wait(done[i], ACCEL_TIMEOUT_INFINITE);

		if (r2 != expected_status(i))
			fail_msg("launch %u: status %d, expected %d", i, r2,
				 expected_status(i));
		accel_fence_unref(done[i]);
		accel_fence_unref(g->gates[i]);
	}
	assert_int_equal(accel_queue_finish(ooo), -EIO);
	assert_int_equal(accel_queue_finish(env->queue), -EIO);
	/* Launches behind failed gates did not run. */
	assert_int_equal(accel_buffer_map(counters, 0, N_FENCES * 4,
					  ACCEL_MAP_READ, (void **)&c),
			 0);
	for (i = 0; i < N_FENCES; i++)
		if (c[i] != (expected_status(i) ? 0u : 1u))
			fail_msg("slot %u is %u", i, c[i]);
	assert_int_equal(accel_buffer_unmap(counters, c), 0);

	accel_queue_unref(ooo);
	accel_kernel_unref(k);
	accel_buffer_unref(counters);
	free(done);
	free(g);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_shared_queue),
		T(test_own_queues),
		T(test_fences_across_threads),
		T(test_gated_launches),
	};

	return TEST_RUN_GROUP("stress", tests);
}
