/* SPDX-License-Identifier: MIT */
/*
 * accel_queue_*: wait lists and error propagation, in-order and
 * out-of-order semantics, waits across queues, finish, and profiling
 * timestamps. Creation and transfers are in test-queue.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test-common.h"

/*
 * A failed wait-list entry fails the command with its status and the
 * command does not run; the failure propagates through explicit waits.
 */
static void test_wait_error_propagation(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *ooo = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 64);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_fence *gate = test_user_fence(env), *fl = NULL, *fw = NULL,
			   *fc = NULL, *ff = NULL, *fm = NULL, *fr = NULL,
			   *chained = NULL;
	struct accel_ndrange range = test_ndrange(1, 16, 0, 0, 0, 0, 0);
	uint32_t one = 1, pattern = 7, host[16], back[16];
	uint8_t rd[16];
	unsigned i;

	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &ooo),
			 0);
	for (i = 0; i < 16; i++)
		host[i] = 100 + i;
	memset(rd, 0x99, sizeof(rd));

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(one), &one),
			 0);
	assert_int_equal(accel_queue_launch(ooo, k, &range, 1, &gate, &fl), 0);
	assert_int_equal(accel_queue_write(ooo, buf, 0, 64, host, 1, &gate,
					   &fw),
			 0);
	assert_int_equal(accel_queue_copy(ooo, buf, 0, buf, 32, 32, 1, &gate,
					  &fc),
			 0);
	assert_int_equal(accel_queue_fill(ooo, buf, 0, 64, &pattern, 4, 1,
					  &gate, &ff),
			 0);
	assert_int_equal(accel_queue_read(ooo, buf, 0, 16, rd, 1, &gate, &fr),
			 0);
	assert_int_equal(accel_queue_marker(ooo, 1, &gate, &fm), 0);
	/* Explicitly waits on a command that will fail. */
	assert_int_equal(accel_queue_marker(env->queue, 1, &fl, &chained), 0);

	test_log_reset(&env->log);
	assert_int_equal(accel_fence_signal(gate, -EIO), 0);
	assert_int_equal(test_wait_unref(fl), -EIO);
	assert_int_equal(test_wait_unref(fw), -EIO);
	assert_int_equal(test_wait_unref(fc), -EIO);
	assert_int_equal(test_wait_unref(ff), -EIO);
	assert_int_equal(test_wait_unref(fr), -EIO);
	assert_int_equal(test_wait_unref(fm), -EIO);
	assert_int_equal(test_wait_unref(chained), -EIO);
	/* The failures were reported in the log. */
	assert_true(test_log_count(&env->log, ACCEL_LOG_DEBUG) > 0);

	/* Nothing ran: the buffer is still zero, the host memory untouched. */
	test_read(env, buf, 0, sizeof(back), back);
	for (i = 0; i < 16; i++)
		assert_int_equal(back[i], 0);
	for (i = 0; i < sizeof(rd); i++)
		assert_int_equal(rd[i], 0x99);

	/* finish reports the first failure of the queue. */
	assert_int_equal(accel_queue_finish(ooo), -EIO);
	assert_int_equal(accel_queue_finish(env->queue), -EIO);
	accel_queue_unref(ooo);
	accel_fence_unref(gate);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

/* A failure among several waits wins over successes. */
static void test_wait_mixed_statuses(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *w[3], *f = NULL;
	unsigned i;

	for (i = 0; i < 3; i++)
		w[i] = test_user_fence(env);
	assert_int_equal(accel_queue_marker(env->queue, 3, w, &f), 0);
	assert_int_equal(accel_fence_signal(w[0], 0), 0);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(accel_fence_signal(w[2], -ENOMEM), 0);
	assert_int_equal(accel_fence_signal(w[1], 0), 0);
	assert_int_equal(test_wait_unref(f), -ENOMEM);
	for (i = 0; i < 3; i++)
		accel_fence_unref(w[i]);
	/* The in-order queue still works after a failure. */
	assert_int_equal(accel_queue_finish(env->queue), -ENOMEM);
	assert_int_equal(accel_queue_marker(env->queue, 0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
}

/* Long wait lists, with the same fence several times. */
static void test_wait_many(void **state)
{
	struct test_env *env = *state;
	enum { N = 64 };
	struct accel_fence *w[2 * N], *f = NULL, *ready = test_user_fence(env);
	unsigned i;

	assert_int_equal(accel_fence_signal(ready, 0), 0);
	for (i = 0; i < N; i++) {
		w[i] = test_user_fence(env);
		w[N + i] = w[i];
	}
	/* An already signalled entry counts as met. */
	w[N] = ready;
	assert_int_equal(accel_queue_marker(env->queue, 2 * N, w, &f), 0);
	for (i = N; i-- > 1;) {
		assert_int_equal(accel_fence_signal(w[i], 0), 0);
		assert_int_equal(accel_fence_get_status(f), 0);
	}
	assert_int_equal(accel_fence_signal(w[0], 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	for (i = 0; i < N; i++)
		accel_fence_unref(w[i]);
	accel_fence_unref(ready);
}

/* In-order: a later command waits for an earlier one even without a wait list. */
static void test_in_order(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 4);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_fence *gate = test_user_fence(env), *fl = NULL, *fw = NULL,
			   *fr = NULL;
	struct accel_ndrange range = test_ndrange(1, 1, 0, 0, 0, 0, 0);
	uint32_t one = 1, five = 5, back = 0;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &one), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &range, 1, &gate,
					    &fl),
			 0);
	assert_int_equal(accel_queue_write(env->queue, buf, 0, 4, &five, 0,
					   NULL, &fw),
			 0);
	assert_int_equal(accel_queue_read(env->queue, buf, 0, 4, &back, 0,
					  NULL, &fr),
			 0);
	/* Held back by the gate through the launch. */
	assert_int_equal(accel_fence_get_status(fw), 0);
	assert_int_equal(accel_fence_wait(fr, 0), -ETIME);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(fr), 0);
	assert_int_equal(accel_fence_get_status(fl), 1);
	assert_int_equal(accel_fence_get_status(fw), 1);
	/* The launch ran first (0 + 1), then the write (5). */
	assert_int_equal(back, 5);
	accel_fence_unref(fl);
	accel_fence_unref(fw);
	accel_fence_unref(gate);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

/* A long chain of dependent writes, launches and copies, no fences. */
static void test_in_order_chain(void **state)
{
	struct test_env *env = *state;
	enum { N = 64, STEPS = 2000 };
	struct accel_buffer *a = test_buffer_new(env, N * 4);
	struct accel_buffer *b = test_buffer_new(env, N * 4);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange range = test_ndrange(1, N, 0, 0, 0, 0, 0);
	uint32_t (*writes)[N], back_a[N], back_b[N], expect = 0;
	uint32_t one = 1;
	unsigned i, j, n_writes = 0;

	writes = calloc(STEPS / 100 + 1, sizeof(*writes));
	assert_non_null(writes);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	for (i = 0; i < STEPS; i++) {
		if (i % 100 == 0) {
			/* Host memory stays valid until finish below. */
			for (j = 0; j < N; j++)
				writes[n_writes][j] = i * 1000;
			assert_int_equal(accel_queue_write(env->queue, a, 0,
							   sizeof(writes[0]),
							   writes[n_writes], 0,
							   NULL, NULL),
					 0);
			n_writes++;
			expect = i * 1000;
		}
		/* A new value each step: arguments are captured at launch. */
		one = 1 + (i % 3);
		assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &one), 0);
		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, NULL),
				 0);
		expect += 1 + (i % 3);
		if (i % 250 == 249)
			assert_int_equal(accel_queue_copy(env->queue, a, 0, b,
							  0, N * 4, 0, NULL,
							  NULL),
					 0);
	}
	assert_int_equal(accel_queue_read(env->queue, a, 0, sizeof(back_a),
					  back_a, 0, NULL, NULL),
			 0);
	assert_int_equal(accel_queue_read(env->queue, b, 0, sizeof(back_b),
					  back_b, 0, NULL, NULL),
			 0);
	assert_int_equal(accel_queue_finish(env->queue), 0);
	for (j = 0; j < N; j++) {
		assert_int_equal(back_a[j], expect);
		/* b was copied right after the last launch. */
		assert_int_equal(back_b[j], expect);
	}
	free(writes);
	accel_kernel_unref(k);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

/* Out-of-order: no implicit ordering, markers collect everything. */
static void test_out_of_order(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 64);
	struct accel_fence *gate = test_user_fence(env), *fw1 = NULL, *fw2 = NULL,
			   *fm = NULL, *fm2 = NULL, *fafter = NULL;
	uint32_t v1 = 11, v2 = 22, back[2];

	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &q),
			 0);
	assert_int_equal(accel_queue_write(q, buf, 0, 4, &v1, 1, &gate, &fw1),
			 0);
	/* Independent of the gated command: completes while it waits. */
	assert_int_equal(accel_queue_write(q, buf, 4, 4, &v2, 0, NULL, &fw2),
			 0);
	assert_int_equal(accel_fence_wait(fw2, ACCEL_TIMEOUT_INFINITE), 0);
	assert_int_equal(accel_fence_get_status(fw1), 0);

	/* A marker with an explicit list waits only for that list. */
	assert_int_equal(accel_queue_marker(q, 1, &fw2, &fm2), 0);
	assert_int_equal(accel_fence_wait(fm2, ACCEL_TIMEOUT_INFINITE), 0);

	/* An empty-list marker waits for every earlier command. */
	assert_int_equal(accel_queue_marker(q, 0, NULL, &fm), 0);
	assert_int_equal(accel_fence_wait(fm, 0), -ETIME);
	/* Later commands do not wait for the marker unless asked. */
	assert_int_equal(accel_queue_marker(q, 1, &fm, &fafter), 0);
	assert_int_equal(accel_fence_get_status(fafter), 0);

	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(accel_fence_wait(fm, ACCEL_TIMEOUT_INFINITE), 0);
	assert_int_equal(accel_fence_get_status(fw1), 1);
	assert_int_equal(test_wait_unref(fafter), 0);
	assert_int_equal(accel_queue_finish(q), 0);
	test_read(env, buf, 0, sizeof(back), back);
	assert_int_equal(back[0], 11);
	assert_int_equal(back[1], 22);

	accel_fence_unref(fw1);
	accel_fence_unref(fw2);
	accel_fence_unref(fm);
	accel_fence_unref(fm2);
	accel_fence_unref(gate);
	accel_queue_unref(q);
	accel_buffer_unref(buf);
}

/* Fences of one queue order commands of another queue. */
static void test_cross_queue_wait(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q2 = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 4);
	struct accel_fence *gate = test_user_fence(env), *fw = NULL, *fr = NULL;
	uint32_t v = 77, back = 0;

	assert_int_equal(accel_queue_new(env->dev, 0, &q2), 0);
	assert_int_equal(accel_queue_write(env->queue, buf, 0, 4, &v, 1, &gate,
					   &fw),
			 0);
	assert_int_equal(accel_queue_read(q2, buf, 0, 4, &back, 1, &fw, &fr),
			 0);
	assert_int_equal(accel_fence_wait(fr, 0), -ETIME);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(fr), 0);
	assert_int_equal(back, 77);
	accel_fence_unref(fw);
	accel_fence_unref(gate);
	accel_queue_unref(q2);
	accel_buffer_unref(buf);
}

/* finish waits for everything submitted before it. */
static void test_finish(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange range = test_ndrange(1, 1024, 0, 0, 0, 0, 0);
	uint32_t one = 1, *back;
	unsigned i, flags;

	back = calloc(1024, 4);
	assert_non_null(back);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &one), 0);
	for (flags = 0; flags <= ACCEL_QUEUE_FLAGS_ALL; flags++) {
		assert_int_equal(accel_queue_new(env->dev, flags, &q), 0);
		assert_int_equal(accel_queue_finish(q), 0);
		for (i = 0; i < 50; i++) {
			struct accel_fence *prev = NULL;

			/* Ordered explicitly so that OOO queues count too. */
			assert_int_equal(accel_queue_marker(q, 0, NULL, &prev),
					 0);
			assert_int_equal(accel_queue_launch(q, k, &range, 1,
							    &prev, NULL),
					 0);
			accel_fence_unref(prev);
		}
		if (flags & ACCEL_QUEUE_OUT_OF_ORDER) {
			struct accel_fence *all = NULL;

			/* Out of order, the read must wait explicitly. */
			assert_int_equal(accel_queue_marker(q, 0, NULL, &all),
					 0);
			assert_int_equal(accel_queue_read(q, buf, 0, 4096, back,
							  1, &all, NULL),
					 0);
			accel_fence_unref(all);
		} else {
			assert_int_equal(accel_queue_read(q, buf, 0, 4096, back,
							  0, NULL, NULL),
					 0);
		}
		assert_int_equal(accel_queue_finish(q), 0);
		for (i = 0; i < 1024; i++)
			assert_int_equal(back[i], 50 * (flags + 1));
		assert_int_equal(accel_queue_finish(q), 0);
		accel_queue_unref(q);
		test_read(env, buf, 0, 4096, back);
		for (i = 0; i < 1024; i++)
			assert_int_equal(back[i], 50 * (flags + 1));
	}
	free(back);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

/*
 * After finish, the fence of every command before it reads signalled
 * (clFinish then profiling info: clpeak's launch latency). Launches of
 * various sizes, for a worker to complete one while finish looks.
 */
static void test_finish_fences_signalled(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 64 * 1024);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	uint32_t one = 1;
	unsigned i;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &one), 0);
	for (i = 0; i < 5000; i++) {
		/* Sizes around the time finish takes to look at the queue. */
		uint64_t wg = 64u << (i % 5);
		struct accel_ndrange range =
			test_ndrange(1, 2 * wg, 0, 0, wg, 0, 0);
		struct accel_fence *f = NULL;

		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, &f),
				 0);
		assert_int_equal(accel_queue_finish(env->queue), 0);
		assert_int_equal(accel_fence_get_status(f), 1);
		accel_fence_unref(f);
	}
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void check_times(struct accel_fence *f, uint64_t before,
			uint64_t after)
{
	uint64_t t[4];
	int w;

	for (w = ACCEL_FENCE_TIME_QUEUED; w <= ACCEL_FENCE_TIME_ENDED; w++) {
		t[w] = 0;
		assert_int_equal(accel_fence_get_time(
					 f, (enum accel_fence_time)w, &t[w]),
				 0);
	}
	if (!(before <= t[0] && t[0] <= t[1] && t[1] <= t[2] &&
	      t[2] <= t[3] && t[3] <= after))
		fail_msg("timestamps out of order: before %llu queued %llu "
			 "submitted %llu started %llu ended %llu after %llu",
			 (unsigned long long)before, (unsigned long long)t[0],
			 (unsigned long long)t[1], (unsigned long long)t[2],
			 (unsigned long long)t[3], (unsigned long long)after);
}

static void test_profiling(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange range = test_ndrange(1, 1024, 0, 0, 0, 0, 0);
	struct accel_fence *gate = test_user_fence(env), *f = NULL, *fw = NULL;
	uint32_t one = 1, data[16] = { 0 };
	uint64_t before, after, t = TEST_SENTINEL_U64;

	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_PROFILING, &q),
			 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &one), 0);

	before = mono_ns();
	assert_int_equal(accel_queue_launch(q, k, &range, 0, NULL, &f), 0);
	assert_int_equal(accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE), 0);
	after = mono_ns();
	check_times(f, before, after);
	accel_fence_unref(f);

	/* Transfers and markers have timestamps too. */
	before = mono_ns();
	assert_int_equal(accel_queue_write(q, buf, 0, sizeof(data), data, 0,
					   NULL, &fw),
			 0);
	assert_int_equal(accel_queue_marker(q, 0, NULL, &f), 0);
	assert_int_equal(accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE), 0);
	after = mono_ns();
	check_times(fw, before, after);
	check_times(f, before, after);
	accel_fence_unref(fw);
	accel_fence_unref(f);

	/* A pending command has been queued but not ended. */
	before = mono_ns();
	assert_int_equal(accel_queue_launch(q, k, &range, 1, &gate, &f), 0);
	assert_int_equal(accel_fence_get_time(f, ACCEL_FENCE_TIME_QUEUED, &t),
			 0);
	assert_true(t >= before);
	t = TEST_SENTINEL_U64;
	assert_int_equal(accel_fence_get_time(f, ACCEL_FENCE_TIME_STARTED, &t),
			 -EAGAIN);
	assert_int_equal(accel_fence_get_time(f, ACCEL_FENCE_TIME_ENDED, &t),
			 -EAGAIN);
	assert_true(t == TEST_SENTINEL_U64);
	{
		uint64_t signalled = mono_ns();

		assert_int_equal(accel_fence_signal(gate, 0), 0);
		assert_int_equal(accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE),
				 0);
		after = mono_ns();
		check_times(f, before, after);
		/* Submitted means "dependencies met": after the signal. */
		assert_int_equal(accel_fence_get_time(
					 f, ACCEL_FENCE_TIME_SUBMITTED, &t),
				 0);
		assert_true(t >= signalled);
	}
	accel_fence_unref(f);

	/* Without PROFILING: no data, pending or done. */
	f = NULL;
	t = TEST_SENTINEL_U64;
	assert_int_equal(accel_queue_launch(env->queue, k, &range, 0, NULL, &f),
			 0);
	assert_int_equal(accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE), 0);
	for (int w = ACCEL_FENCE_TIME_QUEUED; w <= ACCEL_FENCE_TIME_ENDED; w++)
		assert_int_equal(accel_fence_get_time(
					 f, (enum accel_fence_time)w, &t),
				 -ENODATA);
	assert_true(t == TEST_SENTINEL_U64);
	accel_fence_unref(f);

	accel_fence_unref(gate);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_queue_unref(q);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_wait_error_propagation),
		T(test_wait_mixed_statuses),
		T(test_wait_many),
		T(test_in_order),
		T(test_in_order_chain),
		T(test_out_of_order),
		T(test_cross_queue_wait),
		T(test_finish),
		T(test_finish_fences_signalled),
		T(test_profiling),
	};

	return TEST_RUN_GROUP("queue-order", tests);
}
