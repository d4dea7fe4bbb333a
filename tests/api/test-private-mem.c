/* SPDX-License-Identifier: MIT */
/*
 * Private memory in the C API: accel_kernel_get_private_mem() for native
 * kernels that give a stack size and ones that do not, work-groups whose
 * stack outgrows a worker thread's running on one that fits, and launches
 * beyond the device's ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE refused with
 * -E2BIG and a log line, and a compiled kernel whose fiber stacks cannot
 * be mapped failing its command through accel_wg_ctx.fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "test-common.h"

/* Twice and a half a worker's 8 MiB: only a larger stack holds it. */
#define BIG_FRAME (20u << 20)

/*
 * One buffer argument; each work-item writes a sum over a large local
 * array, touched from the top down so that a stack too small ends on
 * its guard page rather than below it.
 */
static void big_frame(void **args, const struct accel_wg_ctx *c)
{
	volatile unsigned char buf[BIG_FRAME];
	uint32_t *out = *(uint32_t **)args[0];

	for (uint64_t i = BIG_FRAME; i >= 4096; i -= 4096)
		buf[i - 1] = (unsigned char)(i >> 12);
	for (uint64_t l = 0; l < c->local_size[0]; l++) {
		uint64_t g = c->group_id[0] * c->enqueued_local_size[0] + l;
		uint32_t sum = 0;

		for (uint64_t i = BIG_FRAME; i >= 4096; i -= 4096)
			sum += buf[i - 1];
		out[g] = sum + (uint32_t)g;
	}
}

/* Fails its second work-group the way a generated function does. */
static void fails(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *out = *(uint32_t **)args[0];

	if (c->group_id[0] == 1) {
		(c->fail)(c, -ENOSPC); /* cmocka has a fail() macro */
		return;
	}
	out[c->group_id[0]] = 1;
}

static void noop(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static const struct accel_kernel_arg_desc out_arg = {
	.struct_size = sizeof(out_arg),
	.kind = ACCEL_KERNEL_ARG_BUFFER,
	.size = sizeof(void *),
	.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
};

static struct accel_native_kernel_desc desc(const char *name, accel_wg_fn fn,
					    uint64_t private_size)
{
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = name,
		.fn = fn,
		.n_args = 1,
		.args = &out_arg,
		.private_size = private_size,
	};

	return d;
}

static void test_query(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc d[2] = {
		desc("sized", noop, 12345),
		desc("unsized", noop, 0),
	};
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	uint64_t size = 7, per_item = 7;
	bool known = false;

	assert_int_equal(accel_program_new_native(env->dev, d, 2, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "sized", &k), 0);
	assert_int_equal(accel_kernel_get_private_mem(k, &size, &per_item,
						      &known), 0);
	assert_int_equal(size, 12345);
	assert_int_equal(per_item, 0);
	assert_true(known);
	/* any out-pointer may be NULL */
	assert_int_equal(accel_kernel_get_private_mem(k, NULL, NULL, NULL), 0);
	accel_kernel_unref(k);

	assert_int_equal(accel_kernel_new(prog, "unsized", &k), 0);
	assert_int_equal(accel_kernel_get_private_mem(k, &size, NULL, &known),
			 0);
	assert_int_equal(size, 0);
	assert_false(known);
	accel_kernel_unref(k);
	accel_program_unref(prog);

	size = 7;
	assert_int_equal(accel_kernel_get_private_mem(NULL, &size, NULL, NULL),
			 -EINVAL);
	assert_int_equal(size, 7);
	/* a device with compiled or native kernels says how much it gives */
	assert_true(test_dev_u64(env->dev, ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE) >=
		    (8u << 20));
}

static void test_large_stack_runs(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc d =
		desc("big", big_frame, BIG_FRAME + 4096);
	struct accel_ndrange range = test_ndrange(1, 12, 1, 1, 3, 1, 1);
	struct accel_buffer *out = test_buffer_new(env, 12 * sizeof(uint32_t));
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	uint32_t got[12], expect = 0;

	for (uint64_t i = BIG_FRAME; i >= 4096; i -= 4096)
		expect += (unsigned char)(i >> 12);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "big", &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	/* twice: the second may reuse the stacks of the first */
	for (int round = 0; round < 2; round++) {
		memset(got, 0, sizeof(got));
		test_write(env, out, 0, sizeof(got), got);
		test_launch_wait(env, k, &range);
		test_read(env, out, 0, sizeof(got), got);
		for (uint32_t g = 0; g < 12; g++)
			assert_int_equal(got[g], expect + g);
	}
	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(out);
}

static void test_beyond_limit_refused(void **state)
{
	struct test_env *env = *state;
	uint64_t max = test_dev_u64(env->dev, ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE);
	struct accel_native_kernel_desc d[2] = {
		desc("over", noop, max + 1),
		desc("wraps", noop, UINT64_MAX),
	};
	struct accel_ndrange range = test_ndrange(1, 4, 1, 1, 1, 1, 1);
	struct accel_buffer *out = test_buffer_new(env, 64);
	struct accel_program *prog = NULL;
	struct accel_fence *f = TEST_SENTINEL_PTR;

	assert_int_equal(accel_program_new_native(env->dev, d, 2, &prog), 0);
	for (int i = 0; i < 2; i++) {
		struct accel_kernel *k = NULL;

		assert_int_equal(accel_kernel_new(prog, d[i].name, &k), 0);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
		test_log_reset(&env->log);
		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, &f),
				 -E2BIG);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
		assert_true(test_log_contains(&env->log, "bytes of stack"));
		accel_kernel_unref(k);
	}
	assert_int_equal(accel_queue_finish(env->queue), 0);
	accel_program_unref(prog);
	accel_buffer_unref(out);
}

/* accel_wg_ctx.fail: the command fails, the other work-groups ran. */
static void test_work_group_fails(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc d = desc("fails", fails, 64);
	struct accel_ndrange range = test_ndrange(1, 4, 1, 1, 1, 1, 1);
	struct accel_buffer *out = test_buffer_new(env, 4 * sizeof(uint32_t));
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_fence *f = NULL;
	uint32_t got[4] = { 0 };

	test_write(env, out, 0, sizeof(got), got);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "fails", &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &range, 0, NULL,
					    &f), 0);
	assert_int_equal(test_wait_unref(f), -ENOSPC);
	assert_int_equal(accel_queue_finish(env->queue), -ENOSPC);
	test_read(env, out, 0, sizeof(got), got);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[3], 1);
	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(out);
}

/*
 * More barriers than become regions: work-items run as fibers, each on a
 * stack that holds 8 MiB of __private int.
 */
static char *fiber_source(void)
{
	size_t cap = 32 << 10, len = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len,
		"kernel void fib(global int *out, local int *t)\n"
		"{\n"
		"	int a[2 << 20];\n"
		"	int l = get_local_id(0);\n"
		"	for (int k = 0; k < (2 << 20); k += 1024)\n"
		"		a[k] = k + l;\n"
		"	t[l] = a[l * 1024];\n");
	for (int b = 0; b < 70; b++)
		len += (size_t)snprintf(s + len, cap - len,
			"	barrier(CLK_LOCAL_MEM_FENCE);\n"
			"	a[%d] += t[(l + 1) %% get_local_size(0)];\n",
			b * 1024);
	snprintf(s + len, cap - len,
		 "	out[get_global_id(0)] = a[69 * 1024];\n}\n");
	return s;
}

/* Exit status of the child: 0 passed, 77 skipped, else the failed step. */
static int fiber_child(void)
{
	struct test_log log;
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct accel_queue *q = NULL;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *out = NULL;
	struct accel_fence *f = NULL;
	struct accel_ndrange one = test_ndrange(1, 1, 1, 1, 1, 1, 1);
	struct accel_ndrange wide;
	uint64_t per_item = 0, group = 0, max, items, room;
	struct rlimit rl;
	char *src = fiber_source(), *blog = NULL;
	long pages, vm;
	FILE *statm;

	test_log_init(&log);
	if (test_context_new(&log, &ctx) || test_get_cpu_device(ctx, &dev) ||
	    accel_queue_new(dev, 0, &q) ||
	    accel_buffer_new(dev, 4096, 0, &out))
		return 1;
	if (!(test_dev_u64(dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_COMPILER))
		return 77;
	if (accel_program_new_source(dev, src, strlen(src), NULL, &blog,
				     &prog)) {
		fprintf(stderr, "%s\n", blog ? blog : "");
		return 2;
	}
	free(blog);
	free(src);
	if (accel_kernel_new(prog, "fib", &k) ||
	    accel_kernel_set_arg_buffer(k, 0, out) ||
	    accel_kernel_set_arg_local(k, 1, 32 * sizeof(int)) ||
	    accel_kernel_get_private_mem(k, &group, &per_item, NULL) ||
	    per_item < (8u << 20))
		return 3;
	/*
	 * 32 work-items, or as many as the device's stack limit allows (an
	 * eighth of the RAM: 128 MiB in a 1 GiB VM); their fiber stacks must
	 * not fit in the address space left under the limit below.
	 */
	max = test_dev_u64(dev, ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE);
	items = max > group ? (max - group) / per_item : 0;
	if (items > 32)
		items = 32;
	if (items < 4) {
		fprintf(stderr, "private-mem: a group of 4 work-items with "
			"%llu bytes of stack each exceeds the device's limit\n",
			(unsigned long long)per_item);
		return 77;
	}
	room = items * per_item / 2;
	if (room > (128u << 20))
		room = 128u << 20;
	wide = test_ndrange(1, items, 1, 1, items, 1, 1);
	/* one work-item runs without fiber stacks: workers start */
	if (accel_queue_launch(q, k, &one, 0, NULL, &f) ||
	    test_wait_unref(f) != 0)
		return 4;
	/* now at most 128 MiB more address space: half the fiber stacks */
	statm = fopen("/proc/self/statm", "re");
	if (!statm || fscanf(statm, "%ld", &pages) != 1)
		return 5;
	fclose(statm);
	vm = pages * sysconf(_SC_PAGESIZE);
	rl.rlim_cur = rl.rlim_max = (rlim_t)vm + room;
	if (setrlimit(RLIMIT_AS, &rl))
		return 6;
	f = NULL;
	if (accel_queue_launch(q, k, &wide, 0, NULL, &f))
		return 7;
	if (test_wait_unref(f) != -ENOMEM)
		return 8;
	/* the queue goes on */
	if (accel_queue_launch(q, k, &one, 0, NULL, &f) ||
	    test_wait_unref(f) != 0)
		return 9;
	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(out);
	accel_queue_unref(q);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	test_log_fini(&log);
	return 0;
}

static void test_fiber_stacks_unavailable(void **state)
{
	pid_t pid;
	int st;

	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* their shadow memory does not live under an address-space limit */
	skip();
#endif
	/* a child of its own: the limit, and no worker threads forked */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fiber_child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_query),
		T(test_large_stack_runs),
		T(test_beyond_limit_refused),
		T(test_work_group_fails),
		cmocka_unit_test(test_fiber_stacks_unavailable),
	};

	return TEST_RUN_GROUP("private-mem", tests);
}
