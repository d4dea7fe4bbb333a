/* SPDX-License-Identifier: MIT */
/*
 * Command lists: recorded commands (arguments frozen at recording),
 * in-order and out-of-order lists on in-order and out-of-order queues,
 * wait lists, errors, lists that outlive their submission, concurrent
 * submissions of one list, host functions, launches changed after
 * recording. Replays of in-order lists of launches (chains) are tested
 * in test-cmdlist-chain.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cmdlist-util.h"

static struct accel_kernel *add_kernel(struct test_env *env,
				       struct accel_buffer *buf, uint32_t v)
{
	struct accel_kernel *k = test_kernel_new(env, "add_u32");

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(v), &v), 0);
	return k;
}

static void expect_all(struct test_env *env, struct accel_buffer *buf,
		       uint32_t want)
{
	uint32_t *got = malloc(N * sizeof(*got));

	assert_non_null(got);
	test_read(env, buf, 0, N * sizeof(*got), got);
	for (uint32_t i = 0; i < N; i++)
		if (got[i] != want)
			fail_msg("[%u] = %u, want %u", i, got[i], want);
	free(got);
}

/*
 * fill 0, += 1, += 2, copy out: each submission gives 3 whatever the
 * kernel's arguments became after recording.
 */
static struct accel_cmdlist *record_sum(struct test_env *env, uint32_t flags,
					struct accel_buffer *buf,
					struct accel_buffer *out)
{
	struct accel_ndrange r = test_ndrange(1, N, 1, 1, 0, 0, 0);
	struct accel_cmdlist *l = list_new(env, flags);
	struct accel_kernel *k = add_kernel(env, buf, 1);
	uint32_t zero = 0, p[4];

	assert_int_equal(accel_cmdlist_fill(l, buf, 0, N * 4, &zero, 4, 0,
					    NULL, &p[0]), 0);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 1, &p[0], &p[1]), 0);
	set_value(k, 2);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 1, &p[1], &p[2]), 0);
	set_value(k, 100);   /* recorded launches keep 1 and 2 */
	assert_int_equal(accel_cmdlist_copy(l, buf, 0, out, 0, N * 4, 1,
					    &p[2], &p[3]), 0);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(p[i], i);
	assert_int_equal(accel_cmdlist_get_count(l), 4);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	accel_kernel_unref(k);
	return l;
}

static void run_sum(struct test_env *env, uint32_t list_flags,
		    uint32_t queue_flags)
{
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_buffer *out = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = record_sum(env, list_flags, buf, out);
	struct accel_queue *q = NULL;
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_new(env->dev, queue_flags, &q), 0);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(accel_queue_submit_list(q, l, 0, NULL, &f), 0);
		assert_int_equal(test_wait_unref(f), 0);
		expect_all(env, out, 3);
	}
	f = NULL;
	/*
	 * Back to back, one wait at the end; an out-of-order queue orders
	 * submissions only through their wait lists.
	 */
	for (int i = 0; i < 20; i++) {
		struct accel_fence *prev = f;
		bool ooo = queue_flags & ACCEL_QUEUE_OUT_OF_ORDER;

		f = NULL;
		assert_int_equal(accel_queue_submit_list(q, l, prev ? 1 : 0,
				 prev ? &prev : NULL, ooo ? &f : NULL), 0);
		accel_fence_unref(prev);
	}
	if (f)
		assert_int_equal(test_wait_unref(f), 0);
	assert_int_equal(accel_queue_finish(q), 0);
	expect_all(env, out, 3);
	accel_queue_unref(q);
	accel_cmdlist_unref(l);
	accel_buffer_unref(out);
	accel_buffer_unref(buf);
}

static void test_in_order(void **state)
{
	run_sum(*state, 0, 0);
	run_sum(*state, 0, ACCEL_QUEUE_OUT_OF_ORDER);
}

static void test_out_of_order_chain(void **state)
{
	run_sum(*state, ACCEL_CMDLIST_OUT_OF_ORDER, 0);
	run_sum(*state, ACCEL_CMDLIST_OUT_OF_ORDER, ACCEL_QUEUE_OUT_OF_ORDER);
}

/*
 * Two independent chains joined by a barrier: a = 1 + 10, b = 2 + 20,
 * then c = a (copied after the barrier, with no sync point of its own).
 */
static void test_out_of_order_barrier(void **state)
{
	struct test_env *env = *state;
	struct accel_ndrange r = test_ndrange(1, N, 1, 1, 0, 0, 0);
	struct accel_buffer *a = test_buffer_new(env, N * 4);
	struct accel_buffer *b = test_buffer_new(env, N * 4);
	struct accel_buffer *c = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = list_new(env, ACCEL_CMDLIST_OUT_OF_ORDER);
	struct accel_kernel *ka = add_kernel(env, a, 10);
	struct accel_kernel *kb = add_kernel(env, b, 20);
	struct accel_queue *q = NULL;
	uint32_t one = 1, two = 2, pa, pb, bar;

	assert_int_equal(accel_cmdlist_fill(l, a, 0, N * 4, &one, 4, 0, NULL,
					    &pa), 0);
	assert_int_equal(accel_cmdlist_fill(l, b, 0, N * 4, &two, 4, 0, NULL,
					    &pb), 0);
	assert_int_equal(accel_cmdlist_launch(l, ka, &r, 1, &pa, NULL), 0);
	assert_int_equal(accel_cmdlist_launch(l, kb, &r, 1, &pb, NULL), 0);
	assert_int_equal(accel_cmdlist_barrier(l, 0, NULL, &bar), 0);
	assert_int_equal(bar, 4);
	assert_int_equal(accel_cmdlist_copy(l, a, 0, c, 0, N * 4, 0, NULL,
					    NULL), 0);
	assert_int_equal(accel_cmdlist_finalize(l), 0);

	for (int oq = 0; oq < 2; oq++) {
		struct accel_fence *f = NULL;

		assert_int_equal(accel_queue_new(env->dev,
				 oq ? ACCEL_QUEUE_OUT_OF_ORDER : 0, &q), 0);
		assert_int_equal(accel_queue_submit_list(q, l, 0, NULL, &f), 0);
		assert_int_equal(test_wait_unref(f), 0);
		expect_all(env, a, 11);
		expect_all(env, b, 22);
		expect_all(env, c, 11);
		accel_queue_unref(q);
	}
	accel_kernel_unref(kb);
	accel_kernel_unref(ka);
	accel_cmdlist_unref(l);
	accel_buffer_unref(c);
	accel_buffer_unref(b);
	accel_buffer_unref(a);
}

/* The wait list holds the commands back; its failure is theirs. */
static void test_wait_list(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_buffer *out = test_buffer_new(env, N * 4);
	struct accel_fence *gate, *f = NULL;
	uint32_t seven = 7;

	for (int ooo = 0; ooo < 2; ooo++) {
		struct accel_cmdlist *l = record_sum(env,
			ooo ? ACCEL_CMDLIST_OUT_OF_ORDER : 0, buf, out);

		struct accel_queue *q = NULL;

		/* a queue of its own: its finish() reports the failure */
		assert_int_equal(accel_queue_new(env->dev,
				 ooo ? ACCEL_QUEUE_OUT_OF_ORDER : 0, &q), 0);
		test_write(env, out, 0, 4, &seven);
		gate = test_user_fence(env);
		assert_int_equal(accel_queue_submit_list(q, l, 1, &gate, &f), 0);
		assert_int_equal(accel_fence_wait(f, 30 * 1000000ll), -ETIME);
		assert_int_equal(accel_fence_signal(gate, -ECANCELED), 0);
		assert_int_equal(test_wait_unref(f), -ECANCELED);
		accel_fence_unref(gate);
		f = NULL;
		/* nothing ran: out still holds what was written */
		assert_int_equal(accel_queue_finish(q), -ECANCELED);
		{
			uint32_t v = 0;

			test_read(env, out, 0, 4, &v);
			assert_int_equal(v, 7);
		}
		accel_queue_unref(q);
		accel_cmdlist_unref(l);
	}
	accel_buffer_unref(out);
	accel_buffer_unref(buf);
}

static void test_recording_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_ndrange r = test_ndrange(1, N, 1, 1, 0, 0, 0);
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_cmdlist *l = TEST_SENTINEL_PTR;
	uint32_t p = 0x5e57, v = 0, dep = 5;

	assert_int_equal(accel_cmdlist_new(NULL, 0, &l), -EINVAL);
	assert_int_equal(accel_cmdlist_new(env->dev, 1u << 5, &l), -EINVAL);
	assert_int_equal(accel_cmdlist_new(env->dev, 0, NULL), -EINVAL);
	assert_ptr_equal(l, TEST_SENTINEL_PTR);
	l = list_new(env, ACCEL_CMDLIST_OUT_OF_ORDER);
	assert_int_equal(accel_cmdlist_get_flags(l),
			 ACCEL_CMDLIST_OUT_OF_ORDER);

	/* arguments never set, bad ranges, sizes and sync points */
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, &p),
			 -ENOEXEC);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	r.work_dim = 4;
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, &p), -EINVAL);
	r.work_dim = 1;
	assert_int_equal(accel_cmdlist_launch(NULL, k, &r, 0, NULL, &p),
			 -EINVAL);
	assert_int_equal(accel_cmdlist_launch(l, NULL, &r, 0, NULL, &p),
			 -EINVAL);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 1, NULL, &p), -EINVAL);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 1, &dep, &p), -EINVAL);
	assert_int_equal(accel_cmdlist_fill(l, buf, 0, N * 4 + 4, &v, 4, 0,
					    NULL, &p), -ERANGE);
	assert_int_equal(accel_cmdlist_fill(l, buf, 2, 8, &v, 4, 0, NULL, &p),
			 -EINVAL);
	assert_int_equal(accel_cmdlist_fill(l, buf, 0, 8, &v, 3, 0, NULL, &p),
			 -EINVAL);
	assert_int_equal(accel_cmdlist_copy(l, buf, 0, buf, 8, 16, 0, NULL,
					    &p), -EINVAL);   /* overlap */
	assert_int_equal(accel_cmdlist_copy(l, buf, 0, buf, 8, 0, 0, NULL,
					    &p), -EINVAL);
	assert_int_equal(accel_cmdlist_copy(l, buf, UINT64_MAX, buf, 0, 16, 0,
					    NULL, &p), -ERANGE);
	assert_int_equal(p, 0x5e57);   /* untouched by every failure */
	assert_int_equal(accel_cmdlist_get_count(l), 0);

	/* not finalized: no submission; finalized: no recording */
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, &p), 0);
	assert_int_equal(p, 0);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL, NULL),
			 -EBUSY);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	assert_int_equal(accel_cmdlist_finalize(l), -EBUSY);
	assert_int_equal(accel_cmdlist_barrier(l, 0, NULL, NULL), -EBUSY);
	assert_int_equal(accel_queue_submit_list(env->queue, NULL, 0, NULL,
						 NULL), -EINVAL);
	assert_int_equal(accel_queue_submit_list(NULL, l, 0, NULL, NULL),
			 -EINVAL);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 1, NULL, NULL),
			 -EINVAL);
	assert_int_equal(accel_queue_finish(env->queue), 0);

	assert_null(accel_cmdlist_unref(NULL));
	assert_null(accel_cmdlist_ref(NULL));
	assert_int_equal(accel_cmdlist_get_count(NULL), 0);
	accel_cmdlist_unref(l);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

/* An empty list's fence still means "what came before is done". */
static void test_empty_list(void **state)
{
	struct test_env *env = *state;
	struct accel_cmdlist *l = list_new(env, 0);
	struct accel_fence *f = NULL;

	assert_int_equal(accel_cmdlist_finalize(l), 0);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	accel_cmdlist_unref(l);
}

/* The list, its kernels and buffers may all go while the work runs. */
static void test_list_outlives_nothing(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_buffer *out = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = record_sum(env, 0, buf, out);
	struct accel_fence *gate = test_user_fence(env), *f = NULL;

	assert_int_equal(accel_queue_submit_list(env->queue, l, 1, &gate, &f),
			 0);
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	accel_fence_unref(gate);
	assert_int_equal(test_wait_unref(f), 0);
	expect_all(env, out, 3);
	accel_buffer_unref(out);
}

struct submitter {
	struct test_env *env;
	struct accel_cmdlist *list;
	int status;
};

static void *submit_many(void *arg)
{
	struct submitter *s = arg;
	struct accel_queue *q = NULL;

	s->status = accel_queue_new(s->env->dev, 0, &q);
	for (int i = 0; i < 50 && s->status == 0; i++)
		s->status = accel_queue_submit_list(q, s->list, 0, NULL, NULL);
	if (s->status == 0)
		s->status = accel_queue_finish(q);
	accel_queue_unref(q);
	return NULL;
}

/* One finalized list, submitted from two threads at once. */
static void test_concurrent_submit(void **state)
{
	struct test_env *env = *state;
	struct accel_ndrange r = test_ndrange(1, 64, 1, 1, 0, 0, 0);
	struct accel_buffer *in = test_buffer_new(env, 256);
	struct accel_buffer *c = test_buffer_new(env, 256);
	struct accel_kernel *k = test_kernel_new(env, "noop_args");
	struct accel_cmdlist *l = list_new(env, ACCEL_CMDLIST_OUT_OF_ORDER);
	struct submitter s[2];
	pthread_t t[2];
	uint32_t n = 64, p;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, in), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &n), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, 256), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 3, c), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(accel_cmdlist_launch(l, k, &r, i ? 1 : 0, &p,
						      &p), 0);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	for (int i = 0; i < 2; i++) {
		s[i] = (struct submitter){ .env = env, .list = l };
		assert_int_equal(pthread_create(&t[i], NULL, submit_many, &s[i]),
				 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(s[i].status, 0);
	}
	accel_cmdlist_unref(l);
	accel_kernel_unref(k);
	accel_buffer_unref(c);
	accel_buffer_unref(in);
}

struct host_step {
	atomic_int runs;
	atomic_int freed;
	uint32_t seen;            /* out[0] when the function ran */
	struct accel_buffer *out;
	int status;               /* what the function returns */
};

static int host_step_run(void *p)
{
	struct host_step *h = p;
	void *m = NULL;

	if (accel_buffer_map(h->out, 0, 4, ACCEL_MAP_READ, &m) == 0) {
		memcpy(&h->seen, m, 4);
		accel_buffer_unmap(h->out, m);
	}
	atomic_fetch_add(&h->runs, 1);
	return h->status;
}

static void host_step_free(void *p)
{
	struct host_step *h = p;

	atomic_fetch_add(&h->freed, 1);
}

/*
 * A host function runs once per submission after its dependency, its
 * user data is freed once, after the list and the last submission went,
 * and its error is the list's; refused calls free the data at once.
 */
static void test_host_fn(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_buffer *out = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = list_new(env, ACCEL_CMDLIST_OUT_OF_ORDER);
	struct host_step h = { .out = out };
	struct accel_fence *gate = test_user_fence(env), *f = NULL;
	uint32_t one = 1, p, q, bad = 7;

	atomic_init(&h.runs, 0);
	atomic_init(&h.freed, 0);
	assert_int_equal(accel_cmdlist_fill(l, out, 0, N * 4, &one, 4, 0, NULL,
					    &p), 0);
	assert_int_equal(accel_cmdlist_host_fn(l, NULL, &h, host_step_free, 0,
					       NULL, NULL), -EINVAL);
	assert_int_equal(atomic_load(&h.freed), 1);
	assert_int_equal(accel_cmdlist_host_fn(l, host_step_run, &h,
					       host_step_free, 1, &bad, NULL),
			 -EINVAL);
	assert_int_equal(atomic_load(&h.freed), 2);
	atomic_store(&h.freed, 0);
	assert_int_equal(accel_cmdlist_host_fn(l, host_step_run, &h,
					       host_step_free, 1, &p, &q), 0);
	assert_int_equal(q, 1);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	assert_int_equal(accel_cmdlist_host_fn(l, host_step_run, &h,
					       host_step_free, 0, NULL, NULL),
			 -EBUSY);
	assert_int_equal(atomic_load(&h.freed), 1);
	atomic_store(&h.freed, 0);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL,
							 &f), 0);
		assert_int_equal(test_wait_unref(f), 0);
		assert_int_equal(h.seen, 1);
	}
	assert_int_equal(atomic_load(&h.runs), 10);
	/* pending when the list goes: the data stays until it ran */
	assert_int_equal(accel_queue_submit_list(env->queue, l, 1, &gate, &f),
			 0);
	accel_cmdlist_unref(l);
	assert_int_equal(atomic_load(&h.freed), 0);
	h.status = -EIO;
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	accel_fence_unref(gate);
	assert_int_equal(test_wait_unref(f), -EIO);
	assert_int_equal(atomic_load(&h.runs), 11);
	assert_int_equal(atomic_load(&h.freed), 1);
	accel_buffer_unref(out);
	accel_buffer_unref(buf);
}

/* fill 0, then add_u32(buf, v) over the range: the list of point 1. */
static struct accel_cmdlist *record_fill_add(struct test_env *env,
					     struct accel_buffer *buf,
					     uint32_t v)
{
	struct accel_ndrange r = test_ndrange(1, N, 1, 1, 0, 0, 0);
	struct accel_cmdlist *l = list_new(env, 0);
	struct accel_kernel *k = add_kernel(env, buf, v);
	uint32_t zero = 0, p;

	assert_int_equal(accel_cmdlist_fill(l, buf, 0, N * 4, &zero, 4, 0,
					    NULL, &p), 0);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 1, &p, &p), 0);
	assert_int_equal(p, 1);
	accel_kernel_unref(k);
	return l;
}

/*
 * A recorded launch read back and changed: new arguments, a new range,
 * refused changes that leave it alone, a pending submission that keeps
 * the launch it was given.
 */
static void test_update_launch(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = record_fill_add(env, buf, 1);
	struct accel_ndrange got = { .struct_size = sizeof(got) };
	struct accel_ndrange half = test_ndrange(1, N / 2, 1, 1, 0, 0, 0);
	struct accel_ndrange bad = test_ndrange(1, N, 1, 1, 0, 0, 0);
	struct accel_kernel *other = test_kernel_new(env, "noop_args");
	struct accel_kernel *k = NULL;
	struct accel_fence *gate = test_user_fence(env), *f = NULL;

	assert_int_equal(accel_cmdlist_finalize(l), 0);
	submit_wait(env, l);
	expect_all(env, buf, 1);

	assert_int_equal(accel_cmdlist_get_launch(l, 0, &k, &got), -EINVAL);
	assert_int_equal(accel_cmdlist_get_launch(l, 2, &k, &got), -EINVAL);
	assert_null(k);
	assert_int_equal(accel_cmdlist_get_launch(l, 1, &k, &got), 0);
	assert_non_null(k);
	assert_int_equal(got.work_dim, 1);
	assert_int_equal(got.global_size[0], N);

	set_value(k, 5);
	assert_int_equal(accel_cmdlist_update_launch(l, 1, k, NULL), 0);
	set_value(k, 6);   /* the list took a clone */
	submit_wait(env, l);
	expect_all(env, buf, 5);

	assert_int_equal(accel_cmdlist_update_launch(l, 1, k, &half), 0);
	submit_wait(env, l);
	assert_int_equal(count_equal(env, buf, N / 2, 6), N / 2);
	assert_int_equal(count_equal(env, buf, N, 0), N / 2);

	/* refused: another function, a fill, a bad range; nothing changes */
	assert_int_equal(accel_cmdlist_update_launch(l, 1, other, NULL),
			 -EINVAL);
	assert_int_equal(accel_cmdlist_update_launch(l, 0, k, NULL), -EINVAL);
	assert_int_equal(accel_cmdlist_update_launch(NULL, 1, k, NULL),
			 -EINVAL);
	bad.work_dim = 0;
	assert_true(accel_cmdlist_update_launch(l, 1, k, &bad) < 0);
	submit_wait(env, l);
	assert_int_equal(count_equal(env, buf, N / 2, 6), N / 2);

	/* a pending submission keeps its launch; the next one sees 7 */
	assert_int_equal(accel_queue_submit_list(env->queue, l, 1, &gate, &f),
			 0);
	set_value(k, 7);
	assert_int_equal(accel_cmdlist_update_launch(l, 1, k, NULL), 0);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	assert_int_equal(count_equal(env, buf, N / 2, 6), N / 2);
	submit_wait(env, l);
	assert_int_equal(count_equal(env, buf, N / 2, 7), N / 2);

	accel_fence_unref(gate);
	accel_kernel_unref(other);
	accel_kernel_unref(k);
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
}

struct updater {
	struct accel_cmdlist *list;
	struct accel_kernel *k;
	int status;
};

static void *update_many(void *arg)
{
	struct updater *u = arg;

	for (uint32_t v = 1; v <= 100 && u->status == 0; v++) {
		u->status = accel_kernel_set_arg_value(u->k, 1, 4, &v);
		if (u->status == 0)
			u->status = accel_cmdlist_update_launch(u->list, 1,
								u->k, NULL);
	}
	return NULL;
}

/* Changes while another thread submits: each submission is whole. */
static void test_update_while_submitting(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = record_fill_add(env, buf, 1);
	struct accel_ndrange r = { .struct_size = sizeof(r) };
	struct updater u = { .list = l };
	pthread_t t;

	assert_int_equal(accel_cmdlist_finalize(l), 0);
	assert_int_equal(accel_cmdlist_get_launch(l, 1, &u.k, &r), 0);
	assert_int_equal(pthread_create(&t, NULL, update_many, &u), 0);
	for (int i = 0; i < 50; i++)
		assert_int_equal(accel_queue_submit_list(env->queue, l, 0,
							 NULL, NULL), 0);
	pthread_join(t, NULL);
	assert_int_equal(u.status, 0);
	assert_int_equal(accel_queue_finish(env->queue), 0);
	submit_wait(env, l);
	expect_all(env, buf, 100);
	accel_kernel_unref(u.k);
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_order, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order_chain,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order_barrier,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_wait_list, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_recording_errors,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_empty_list, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_list_outlives_nothing,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_submit,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_host_fn, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_update_launch,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_update_while_submitting,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("cmdlist", tests);
}
