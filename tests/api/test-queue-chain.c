/* SPDX-License-Identifier: MIT */
/*
 * Long chains of commands on one queue, as the CPU device runs them: the
 * worker finishing a command queues the next one, command records and
 * launch arrays are recycled, and a callback that waits for a later
 * command is not left without a worker to run it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"

/* Long enough for a loaded machine, short of a hang. */
#define WAIT_NS (20 * 1000000000LL)

struct wait_next {
	struct accel_fence *next;
	atomic_int result; /* 1 until the callback ran */
};

static void wait_next_cb(struct accel_fence *fence, int status, void *data)
{
	struct wait_next *w = data;

	(void)fence;
	atomic_store(&w->result,
		     status < 0 ? status : accel_fence_wait(w->next, WAIT_NS));
}

static void launch_add(struct test_env *env, struct accel_kernel *k,
		       uint64_t n, uint32_t n_wait, struct accel_fence **wait,
		       struct accel_fence **ret)
{
	struct accel_ndrange range = test_ndrange(1, n, 0, 0, 0, 0, 0);

	assert_int_equal(accel_queue_launch(env->queue, k, &range, n_wait,
					    wait, ret),
			 0);
}

/*
 * The worker that completes A queues B (in order after A) and then runs
 * A's callback, which waits for B: another worker must be woken for B
 * before the callback runs, or nobody runs it (a pool that left B to the
 * worker queueing it would hang here).
 */
static void test_callback_waits_for_next(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_buffer *buf = test_buffer_new(env, 4096 * 4);
	struct accel_fence *gate = test_user_fence(env), *a = NULL, *b = NULL;
	struct wait_next w = { .result = 1 };
	uint32_t v = 5, out[4096];
	unsigned i;

	memset(out, 0, sizeof(out));
	test_write(env, buf, 0, sizeof(out), out);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(v), &v), 0);
	/*
	 * A waits for the gate, so B and the callback are in place first.
	 * One work-item each: one worker runs each, the other stays asleep.
	 */
	launch_add(env, k, 1, 1, &gate, &a);
	launch_add(env, k, 1, 0, NULL, &b);
	w.next = b;
	assert_int_equal(accel_fence_add_callback(a, wait_next_cb, &w), 0);
	assert_int_equal(accel_fence_signal(gate, 0), 0);

	assert_int_equal(accel_fence_wait(a, WAIT_NS), 0);
	assert_int_equal(accel_fence_wait(b, WAIT_NS), 0);
	/* The callback is done with w once its result is in. */
	for (i = 0; i < 20000 && atomic_load(&w.result) == 1; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&w.result), 0);

	test_read(env, buf, 0, sizeof(out), out);
	assert_int_equal(out[0], 10);
	for (i = 1; i < 4096; i++)
		assert_int_equal(out[i], 0);
	accel_fence_unref(gate);
	accel_fence_unref(a);
	accel_fence_unref(b);
	accel_buffer_unref(buf);
	accel_kernel_unref(k);
}

/*
 * More commands in flight than the queue keeps records for, of kinds with
 * different amounts of state, so that records come back from completion
 * and are reused with stale contents underneath: every result must be
 * exact and every reference dropped.
 */
static void test_recycled_records(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *add = test_kernel_new(env, "add_u32");
	struct accel_kernel *vadd = test_kernel_new(env, "vadd_u32");
	struct accel_kernel *none = test_kernel_new(env, "no_args");
	struct accel_buffer *x = test_buffer_new(env, 256 * 4);
	struct accel_buffer *y = test_buffer_new(env, 256 * 4);
	struct accel_ndrange one = test_ndrange(1, 1, 0, 0, 0, 0, 0);
	uint32_t v = 1, zero[256], back[256], pattern = 0;
	unsigned i, round;

	memset(zero, 0, sizeof(zero));
	test_write(env, x, 0, sizeof(zero), zero);
	test_write(env, y, 0, sizeof(zero), zero);
	assert_int_equal(accel_kernel_set_arg_buffer(add, 0, x), 0);
	assert_int_equal(accel_kernel_set_arg_value(add, 1, sizeof(v), &v), 0);
	/* y = x + y after each increment: y ends as the sum 1 + ... + N */
	assert_int_equal(accel_kernel_set_arg_buffer(vadd, 0, y), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(vadd, 1, x), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(vadd, 2, y), 0);

	for (round = 0; round < 3; round++) {
		for (i = 0; i < 1500; i++) {
			launch_add(env, add, 256, 0, NULL, NULL);
			launch_add(env, vadd, 256, 0, NULL, NULL);
			assert_int_equal(accel_queue_launch(env->queue, none,
							    &one, 0, NULL,
							    NULL),
					 0);
			if (i % 100 == 0)
				assert_int_equal(
					accel_queue_fill(env->queue, x, 1020,
							 4, &pattern, 4, 0,
							 NULL, NULL),
					0);
		}
		assert_int_equal(accel_queue_finish(env->queue), 0);
	}
	/* The last element was reset by the fills; the others ran 4500. */
	test_read(env, x, 0, sizeof(back), back);
	for (i = 0; i < 255; i++)
		assert_int_equal(back[i], 4500);
	test_read(env, y, 0, sizeof(back), back);
	for (i = 0; i < 255; i++)
		assert_int_equal(back[i], 4500u * 4501u / 2);

	accel_buffer_unref(x);
	accel_buffer_unref(y);
	accel_kernel_unref(add);
	accel_kernel_unref(vadd);
	accel_kernel_unref(none);
}

/*
 * More arguments, argument bytes and local arguments than a command holds
 * inline: the launch takes a heap block, between recycled small launches.
 */
static const char many_src[] =
	"kernel void many(global uint *out, uint a0, uint a1, uint a2,\n"
	"		  uint a3, uint a4, uint a5, uint a6, ulong16 big,\n"
	"		  local uint *l0, local uint *l1, local uint *l2,\n"
	"		  local uint *l3, local uint *l4)\n"
	"{\n"
	"	size_t i = get_global_id(0), l = get_local_id(0);\n"
	"	l0[l] = a0; l1[l] = a1; l2[l] = a2; l3[l] = a3; l4[l] = a4;\n"
	"	out[i] += l0[l] + l1[l] + l2[l] + l3[l] + l4[l] + a5 + a6 +\n"
	"		  (uint)big.s0 + (uint)big.sf;\n"
	"}\n";

static void test_heap_launch(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = NULL, *add = test_kernel_new(env, "add_u32");
	struct accel_program *prog = NULL;
	struct accel_buffer *out = test_buffer_new(env, 64 * 4);
	struct accel_ndrange range = test_ndrange(1, 64, 0, 0, 16, 0, 0);
	uint64_t big[16];
	uint32_t v, zero[64], back[64];
	unsigned i;

	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_COMPILER))
		skip();
	assert_int_equal(accel_program_new_source(env->dev, many_src, 0,
						  NULL, NULL, &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "many", &k), 0);
	memset(zero, 0, sizeof(zero));
	test_write(env, out, 0, sizeof(zero), zero);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	for (i = 0; i < 7; i++) {
		v = 1u << i;
		assert_int_equal(accel_kernel_set_arg_value(k, 1 + i, sizeof(v),
							    &v),
				 0);
	}
	memset(big, 0, sizeof(big));
	big[0] = 1u << 7;
	big[15] = 1u << 8;
	assert_int_equal(accel_kernel_set_arg_value(k, 8, sizeof(big), big),
			 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(accel_kernel_set_arg_local(k, 9 + i, 16 * 4),
				 0);
	v = 1u << 9;
	assert_int_equal(accel_kernel_set_arg_buffer(add, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_value(add, 1, sizeof(v), &v),
			 0);

	/* Each round adds 0x1ff (many) and 0x200 (add_u32). */
	for (i = 0; i < 50; i++) {
		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, NULL),
				 0);
		launch_add(env, add, 64, 0, NULL, NULL);
	}
	assert_int_equal(accel_queue_finish(env->queue), 0);
	test_read(env, out, 0, sizeof(back), back);
	for (i = 0; i < 64; i++)
		assert_int_equal(back[i], 50u * 0x3ff);

	accel_buffer_unref(out);
	accel_kernel_unref(add);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_callback_waits_for_next),
		T(test_recycled_records),
		T(test_heap_launch),
	};

	/*
	 * Two workers that sleep at once when idle: the one not running the
	 * chain is asleep when the callback waits.
	 */
	setenv("ACCEL_CPU_THREADS", "2", 1);
	setenv("ACCEL_CPU_SPIN_US", "0", 1);
	return TEST_RUN_GROUP("queue-chain", tests);
}
