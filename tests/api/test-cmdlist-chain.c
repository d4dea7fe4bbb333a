/* SPDX-License-Identifier: MIT */
/*
 * Command lists replayed as chains: in-order lists of launches, prepared
 * once and run back to back (libaccel/cmdlist-chain.c and the CPU
 * device's cpu-chain.c). Long chains of small and large launches,
 * failures that stop the rest, failures among other commands, one list
 * replayed on two queues at once, updates between and during replays,
 * and a replay that outlives its list, kernels and buffers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cmdlist-util.h"

#define CN 256u   /* words the chain kernels work on */

/* buf[gid] = buf[gid] * 3 + k: the order of launches shows */
static void muladd_u32(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *buf = *(uint32_t **)args[0];
	uint32_t k = *(const uint32_t *)args[1];
	uint64_t base = c->group_id[0] * c->enqueued_local_size[0] +
			c->global_offset[0];

	for (uint64_t i = base; i < base + c->local_size[0]; i++)
		buf[i] = buf[i] * 3u + k;
}

/* atomically buf[gid] += k: submissions of one list may overlap */
static void atomic_add_u32(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *buf = *(uint32_t **)args[0];
	uint32_t k = *(const uint32_t *)args[1];
	uint64_t base = c->group_id[0] * c->enqueued_local_size[0] +
			c->global_offset[0];

	for (uint64_t i = base; i < base + c->local_size[0]; i++)
		__atomic_fetch_add(&buf[i], k, __ATOMIC_RELAXED);
}

/* fails with -k (its work-groups write nothing) */
static void fail_with(void **args, const struct accel_wg_ctx *c)
{
	uint32_t k = *(const uint32_t *)args[1];

	(c->fail)(c, -(int)k);
}

/* dst[gid] = src[gid] */
static void copy_u32(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *dst = *(uint32_t **)args[0];
	const uint32_t *src = *(const uint32_t **)args[1];
	uint64_t base = c->group_id[0] * c->enqueued_local_size[0] +
			c->global_offset[0];

	for (uint64_t i = base; i < base + c->local_size[0]; i++)
		dst[i] = src[i];
}

#define CARG(k, sz, as, tq, n, t)                                             \
	{                                                                      \
		.struct_size = sizeof(struct accel_kernel_arg_desc),           \
		.kind = (k), .size = (sz), .address_space = (as),              \
		.type_qualifiers = (tq), .name = (n), .type_name = (t),        \
	}
#define CBUF(n) CARG(ACCEL_KERNEL_ARG_BUFFER, sizeof(void *),                  \
		     ACCEL_KERNEL_ARG_ADDR_GLOBAL, 0, n, "uint*")

static const struct accel_kernel_arg_desc chain_args[] = {
	CBUF("buf"),
	CARG(ACCEL_KERNEL_ARG_VALUE, 4, 0, 0, "k", "uint"),
};

static const struct accel_kernel_arg_desc copy_args[] = {
	CBUF("dst"),
	CBUF("src"),
};

#define CKERNEL(n, f, a)                                                       \
	{                                                                      \
		.struct_size = sizeof(struct accel_native_kernel_desc),        \
		.name = (n), .fn = (f), .n_args = TEST_ARRAY_SIZE(a),          \
		.args = (a),                                                   \
	}

static const struct accel_native_kernel_desc chain_kernels[] = {
	CKERNEL("muladd", muladd_u32, chain_args),
	CKERNEL("atomic_add", atomic_add_u32, chain_args),
	CKERNEL("fail_with", fail_with, chain_args),
	CKERNEL("copy", copy_u32, copy_args),
};

static struct accel_kernel *chain_kernel(struct test_env *env,
					 struct accel_program **prog,
					 const char *name,
					 struct accel_buffer *buf, uint32_t k)
{
	struct accel_kernel *kern = NULL;

	if (!*prog)
		assert_int_equal(accel_program_new_native(env->dev,
				 chain_kernels, TEST_ARRAY_SIZE(chain_kernels),
				 prog), 0);
	assert_int_equal(accel_kernel_new(*prog, name, &kern), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(kern, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(kern, 1, 4, &k), 0);
	return kern;
}

/* Record @n muladd launches of k = ks(i) over @items words of @buf. */
static struct accel_cmdlist *record_muladd(struct test_env *env,
					   struct accel_program **prog,
					   struct accel_buffer *buf,
					   uint32_t n, uint64_t items)
{
	struct accel_ndrange r = test_ndrange(1, items, 1, 1, 0, 0, 0);
	struct accel_cmdlist *l = list_new(env, 0);
	struct accel_kernel *k = chain_kernel(env, prog, "muladd", buf, 0);

	for (uint32_t i = 0; i < n; i++) {
		set_value(k, i % 7u);
		assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL),
				 0);
	}
	accel_kernel_unref(k);
	return l;
}

/* What muladd launches k = 0..n-1 (mod 7) make of @v. */
static uint32_t muladd_ref(uint32_t v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		v = v * 3u + i % 7u;
	return v;
}

static void expect_words(struct test_env *env, struct accel_buffer *buf,
			 uint64_t n, uint32_t want)
{
	uint32_t *got = malloc(n * sizeof(*got));

	assert_non_null(got);
	test_read(env, buf, 0, n * sizeof(*got), got);
	for (uint64_t i = 0; i < n; i++)
		if (got[i] != want)
			fail_msg("[%llu] = %u, want %u", (unsigned long long)i,
				 got[i], want);
	free(got);
}

static void zero_words(struct test_env *env, struct accel_buffer *buf,
		       uint64_t n)
{
	uint32_t zero = 0;
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_fill(env->queue, buf, 0, n * 4, &zero, 4,
					  0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
}

/*
 * 10,000 launches replayed in order, small ones (one worker each) and
 * large ones (split over the workers), again and again: every launch runs
 * once, after the one before it.
 */
static void test_long_chain(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 65536 * 4);
	struct accel_cmdlist *l = record_muladd(env, &prog, buf, 10000, CN);
	uint32_t want = 0;

	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, buf, CN);
	for (int i = 0; i < 3; i++) {
		submit_wait(env, l);
		want = muladd_ref(want, 10000);
		expect_words(env, buf, CN, want);
	}
	/* back to back, one wait */
	for (int i = 0; i < 5; i++) {
		assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL,
							 NULL), 0);
		want = muladd_ref(want, 10000);
	}
	assert_int_equal(accel_queue_finish(env->queue), 0);
	expect_words(env, buf, CN, want);
	accel_cmdlist_unref(l);

	/* launches of 64 Ki work-items: pieces on every worker */
	l = record_muladd(env, &prog, buf, 200, 65536);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, buf, 65536);
	submit_wait(env, l);
	submit_wait(env, l);
	expect_words(env, buf, 65536, muladd_ref(muladd_ref(0, 200), 200));
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
}

/*
 * A launch that fails stops the chain: the later ones do not run, the
 * list's fence has the error, the queue goes on with the next command.
 */
static void test_chain_failure(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_buffer *buf = test_buffer_new(env, CN * 4);
	struct accel_ndrange r = test_ndrange(1, CN, 1, 1, 0, 0, 0);
	struct accel_ndrange big = test_ndrange(1, 2048, 1, 1, 1, 0, 0);
	struct accel_kernel *k = chain_kernel(env, &prog, "muladd", buf, 1);
	struct accel_kernel *bad = chain_kernel(env, &prog, "fail_with", buf,
						EDOM);
	struct accel_cmdlist *l = list_new(env, 0);
	struct accel_fence *f = NULL;
	uint32_t want;

	for (int i = 0; i < 3; i++)
		assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL),
				 0);
	/* one work-item per group: the failure is one of many pieces */
	assert_int_equal(accel_cmdlist_launch(l, bad, &big, 0, NULL, NULL), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL),
				 0);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, buf, CN);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), -EDOM);
	want = 13;   /* three of 1 * 3 + 1 from 0, and no more */
	expect_words(env, buf, CN, want);
	/* the queue's error is the list's; it goes on */
	assert_int_equal(accel_queue_finish(env->queue), -EDOM);
	test_launch_wait(env, k, &r);
	expect_words(env, buf, CN, want * 3 + 1);

	/* the first launch failing: none runs */
	accel_cmdlist_unref(l);
	l = list_new(env, 0);
	assert_int_equal(accel_cmdlist_launch(l, bad, &r, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, buf, CN);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), -EDOM);
	expect_words(env, buf, CN, 0);
	assert_int_equal(accel_queue_finish(env->queue), -EDOM);

	accel_kernel_unref(bad);
	accel_kernel_unref(k);
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
}

static int host_fail(void *p)
{
	(void)p;
	return -EPIPE;
}

/* In order with other commands: a failure stops the commands after it. */
static void test_in_order_failure(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_buffer *buf = test_buffer_new(env, CN * 4);
	struct accel_ndrange r = test_ndrange(1, CN, 1, 1, 0, 0, 0);
	struct accel_kernel *k = chain_kernel(env, &prog, "muladd", buf, 1);
	struct accel_cmdlist *l = list_new(env, 0);
	struct accel_fence *f = NULL;
	uint32_t zero = 0;

	assert_int_equal(accel_cmdlist_fill(l, buf, 0, CN * 4, &zero, 4, 0,
					    NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_host_fn(l, host_fail, NULL, NULL, 0,
					       NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_launch(l, k, &r, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_barrier(l, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(accel_queue_submit_list(env->queue, l, 0,
							 NULL, &f), 0);
		assert_int_equal(test_wait_unref(f), -EPIPE);
		expect_words(env, buf, CN, 4);
		assert_int_equal(accel_queue_finish(env->queue), -EPIPE);
	}
	accel_kernel_unref(k);
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
}

struct replayer {
	struct test_env *env;
	struct accel_cmdlist *list;
	int rounds;
	int status;
};

static void *replay_many(void *arg)
{
	struct replayer *s = arg;
	struct accel_queue *q = NULL;

	s->status = accel_queue_new(s->env->dev, 0, &q);
	for (int i = 0; i < s->rounds && s->status == 0; i++)
		s->status = accel_queue_submit_list(q, s->list, 0, NULL, NULL);
	if (s->status == 0)
		s->status = accel_queue_finish(q);
	accel_queue_unref(q);
	return NULL;
}

/* One list replayed on two queues at once: each replay runs whole. */
static void test_chain_two_queues(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 4096 * 4);
	struct accel_ndrange small = test_ndrange(1, CN, 1, 1, 0, 0, 0);
	struct accel_ndrange large = test_ndrange(1, 4096, 1, 1, 0, 0, 0);
	struct accel_kernel *k = chain_kernel(env, &prog, "atomic_add", buf,
					      1);
	struct accel_cmdlist *l = list_new(env, 0);
	struct replayer s[2];
	pthread_t t[2];

	/* per replay: small launches add 1..100 to the first CN words,
	 * large ones 1 to all 4096 */
	for (uint32_t i = 1; i <= 100; i++) {
		set_value(k, i);
		assert_int_equal(accel_cmdlist_launch(l, k, &small, 0, NULL,
						      NULL), 0);
		if (i % 25 == 0) {
			set_value(k, 1);
			assert_int_equal(accel_cmdlist_launch(l, k, &large, 0,
							      NULL, NULL), 0);
		}
	}
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, buf, 4096);
	for (int i = 0; i < 2; i++) {
		s[i] = (struct replayer){ .env = env, .list = l, .rounds = 40 };
		assert_int_equal(pthread_create(&t[i], NULL, replay_many,
						&s[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(s[i].status, 0);
	}
	expect_words(env, buf, CN, 80 * (5050 + 4));
	assert_int_equal(count_equal(env, buf, 1000, 80 * 4), 1000 - CN);
	accel_kernel_unref(k);
	accel_cmdlist_unref(l);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
}

/*
 * Updates between replays of a chain: the changed launch (value, range)
 * is prepared again, the others kept; a pending replay keeps what it had.
 */
static void test_chain_update(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_buffer *buf = test_buffer_new(env, N * 4);
	struct accel_buffer *other = test_buffer_new(env, N * 4);
	struct accel_cmdlist *l = record_muladd(env, &prog, buf, 100, CN);
	struct accel_ndrange half = test_ndrange(1, CN / 2, 1, 1, 0, 0, 0);
	struct accel_ndrange r = { .struct_size = sizeof(r) };
	struct accel_fence *gate = test_user_fence(env), *f = NULL;
	struct accel_kernel *k = NULL;
	uint32_t v, lo, hi;

	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, buf, CN);
	submit_wait(env, l);
	expect_words(env, buf, CN, muladd_ref(0, 100));

	/* launch 50 adds 100 instead of 50 % 7 = 1 */
	assert_int_equal(accel_cmdlist_get_launch(l, 50, &k, &r), 0);
	set_value(k, 100);
	assert_int_equal(accel_cmdlist_update_launch(l, 50, k, NULL), 0);
	accel_kernel_unref(k);
	zero_words(env, buf, CN);
	submit_wait(env, l);
	v = muladd_ref(0, 50) * 3u + 100u;
	for (uint32_t i = 51; i < 100; i++)
		v = v * 3u + i % 7u;
	expect_words(env, buf, CN, v);

	/* launch 99 over half the words, and onto another buffer */
	assert_int_equal(accel_cmdlist_get_launch(l, 99, &k, &r), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, other), 0);
	assert_int_equal(accel_cmdlist_update_launch(l, 99, k, &half), 0);
	accel_kernel_unref(k);
	zero_words(env, buf, CN);
	zero_words(env, other, CN);
	submit_wait(env, l);
	hi = 0;                       /* buf stops before launch 99 */
	for (uint32_t i = 0; i < 99; i++)
		hi = hi * 3u + (i == 50 ? 100u : i % 7u);
	expect_words(env, buf, CN, hi);
	lo = 99u % 7u;                /* other: 0 * 3 + 1, the first half */
	assert_int_equal(count_equal(env, other, CN / 2, lo), CN / 2);
	assert_int_equal(count_equal(env, other, CN, 0), CN / 2);

	/* pending when launch 0 changes: it keeps the old one */
	zero_words(env, buf, CN);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 1, &gate, &f),
			 0);
	assert_int_equal(accel_cmdlist_get_launch(l, 0, &k, &r), 0);
	set_value(k, 5);
	assert_int_equal(accel_cmdlist_update_launch(l, 0, k, NULL), 0);
	accel_kernel_unref(k);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	expect_words(env, buf, CN, hi);
	zero_words(env, buf, CN);
	submit_wait(env, l);
	v = 5;
	for (uint32_t i = 1; i < 99; i++)
		v = v * 3u + (i == 50 ? 100u : i % 7u);
	expect_words(env, buf, CN, v);

	accel_fence_unref(gate);
	accel_cmdlist_unref(l);
	accel_buffer_unref(other);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
}

/*
 * The list, its kernels and a buffer it binds let go of while a replay
 * waits: the replay holds what it runs.
 */
static void test_chain_unref_during_replay(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_buffer *a = test_buffer_new(env, CN * 4);
	struct accel_buffer *out = test_buffer_new(env, CN * 4);
	struct accel_ndrange r = test_ndrange(1, CN, 1, 1, 0, 0, 0);
	struct accel_cmdlist *l = record_muladd(env, &prog, a, 500, CN);
	struct accel_kernel *copy = NULL;
	struct accel_fence *gate = test_user_fence(env), *f = NULL;

	assert_int_equal(accel_kernel_new(prog, "copy", &copy), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(copy, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(copy, 1, a), 0);
	assert_int_equal(accel_cmdlist_launch(l, copy, &r, 0, NULL, NULL), 0);
	assert_int_equal(accel_cmdlist_finalize(l), 0);
	zero_words(env, a, CN);
	submit_wait(env, l);   /* prepared */
	zero_words(env, a, CN);
	assert_int_equal(accel_queue_submit_list(env->queue, l, 1, &gate, &f),
			 0);
	accel_cmdlist_unref(l);
	accel_kernel_unref(copy);
	accel_buffer_unref(a);
	accel_program_unref(prog);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	expect_words(env, out, CN, muladd_ref(0, 500));
	accel_fence_unref(gate);
	accel_buffer_unref(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_long_chain, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_chain_failure,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_in_order_failure,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_chain_two_queues,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_chain_update,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_chain_unref_during_replay,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("cmdlist-chain", tests);
}
