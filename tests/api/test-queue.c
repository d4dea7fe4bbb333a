/* SPDX-License-Identifier: MIT */
/*
 * accel_queue_*: creation, transfers (write/read/copy/fill) and the errors
 * common to every submission, when host memory is read, and releasing
 * objects with work pending. Wait lists, ordering, finish and profiling
 * are in test-queue-order.c; kernel launch geometry in test-launch.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test-common.h"

/* A second context with its own CPU device, for cross-object errors. */
struct other {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_buffer *buf;
	struct accel_fence *fence;
};

static void other_init(struct other *o)
{
	test_log_init(&o->log);
	assert_int_equal(test_context_new(&o->log, &o->ctx), 0);
	assert_int_equal(test_get_cpu_device(o->ctx, &o->dev), 0);
	assert_int_equal(accel_buffer_new(o->dev, 4096, 0, &o->buf), 0);
	assert_int_equal(accel_fence_new_user(o->ctx, &o->fence), 0);
	assert_int_equal(accel_fence_signal(o->fence, 0), 0);
}

static void other_fini(struct other *o)
{
	accel_fence_unref(o->fence);
	accel_buffer_unref(o->buf);
	accel_device_unref(o->dev);
	accel_context_unref(o->ctx);
	test_log_fini(&o->log);
}

static void test_new(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = TEST_SENTINEL_PTR;
	uint32_t flags;

	assert_int_equal(accel_queue_new(NULL, 0, &q), -EINVAL);
	assert_int_equal(accel_queue_new(env->dev, 0, NULL), -EINVAL);
	assert_int_equal(accel_queue_new(env->dev, 1u << 2, &q), -EINVAL);
	assert_int_equal(accel_queue_new(env->dev, ~ACCEL_QUEUE_FLAGS_ALL, &q),
			 -EINVAL);
	assert_ptr_equal(q, TEST_SENTINEL_PTR);

	for (flags = 0; flags <= ACCEL_QUEUE_FLAGS_ALL; flags++) {
		q = NULL;
		assert_int_equal(accel_queue_new(env->dev, flags, &q), 0);
		assert_non_null(q);
		assert_int_equal(accel_queue_get_flags(q), flags);
		assert_ptr_equal(accel_queue_get_device(q), env->dev);
		assert_int_equal(accel_queue_flush(q), 0);
		assert_int_equal(accel_queue_finish(q), 0);
		assert_ptr_equal(accel_queue_ref(q), q);
		assert_null(accel_queue_unref(q));
		assert_null(accel_queue_unref(q));
	}
	assert_int_equal(accel_queue_get_flags(NULL), 0);
	assert_null(accel_queue_get_device(NULL));
	assert_null(accel_queue_ref(NULL));
	assert_null(accel_queue_unref(NULL));
	assert_int_equal(accel_queue_flush(NULL), -EINVAL);
	assert_int_equal(accel_queue_finish(NULL), -EINVAL);
}

/* Errors common to every submission, checked on each of them. */
enum sub_kind { SUB_WRITE, SUB_READ, SUB_COPY, SUB_FILL, SUB_MARKER };

static int submit(enum sub_kind kind, struct accel_queue *q,
		  struct accel_buffer *buf, uint32_t n_wait,
		  struct accel_fence *const *wait, struct accel_fence **ret)
{
	static uint8_t host[64];
	static const uint32_t pattern = 0x01020304;

	switch (kind) {
	case SUB_WRITE:
		return accel_queue_write(q, buf, 0, 16, host, n_wait, wait,
					 ret);
	case SUB_READ:
		return accel_queue_read(q, buf, 0, 16, host, n_wait, wait, ret);
	case SUB_COPY:
		return accel_queue_copy(q, buf, 0, buf, 32, 16, n_wait, wait,
					ret);
	case SUB_FILL:
		return accel_queue_fill(q, buf, 0, 16, &pattern,
					sizeof(pattern), n_wait, wait, ret);
	case SUB_MARKER:
		return accel_queue_marker(q, n_wait, wait, ret);
	}
	return -1;
}

static void test_common_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_fence *done = test_user_fence(env);
	struct other o;
	int kind;

	other_init(&o);
	assert_int_equal(accel_fence_signal(done, 0), 0);
	for (kind = SUB_WRITE; kind <= SUB_MARKER; kind++) {
		struct accel_fence *f = TEST_SENTINEL_PTR;
		struct accel_fence *with_null[2] = { done, NULL };
		struct accel_fence *foreign[2] = { done, o.fence };

		assert_int_equal(submit(kind, NULL, buf, 0, NULL, &f), -EINVAL);
		assert_int_equal(submit(kind, env->queue, buf, 1, NULL, &f),
				 -EINVAL);
		assert_int_equal(submit(kind, env->queue, buf, 2, with_null,
					&f),
				 -EINVAL);
		assert_int_equal(submit(kind, env->queue, buf, 2, foreign, &f),
				 -EINVAL);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
		if (kind != SUB_MARKER) {
			assert_int_equal(submit(kind, env->queue, NULL, 0, NULL,
						&f),
					 -EINVAL);
			assert_int_equal(submit(kind, env->queue, o.buf, 0,
						NULL, &f),
					 -EXDEV);
			assert_ptr_equal(f, TEST_SENTINEL_PTR);
		}

		/* The valid forms work, with and without a fence. */
		assert_int_equal(submit(kind, env->queue, buf, 1, &done, &f),
				 0);
		assert_ptr_not_equal(f, TEST_SENTINEL_PTR);
		assert_ptr_equal(accel_fence_get_context(f), env->ctx);
		assert_int_equal(test_wait_unref(f), 0);
		assert_int_equal(submit(kind, env->queue, buf, 0, NULL, NULL),
				 0);
	}
	assert_int_equal(accel_queue_finish(env->queue), 0);
	other_fini(&o);
	accel_fence_unref(done);
	accel_buffer_unref(buf);
}

static int rw_op(int rw, struct accel_queue *q, struct accel_buffer *buf,
		 uint64_t offset, uint64_t size, void *host,
		 struct accel_fence **f)
{
	if (rw)
		return accel_queue_read(q, buf, offset, size, host, 0, NULL, f);
	return accel_queue_write(q, buf, offset, size, host, 0, NULL, f);
}

static void test_write_read_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct accel_queue *q = env->queue;
	uint8_t host[64];
	int rw;

	for (rw = 0; rw < 2; rw++) {
		assert_int_equal(rw_op(rw, q, buf, 0, 16, NULL, &f), -EINVAL);
		assert_int_equal(rw_op(rw, q, buf, 0, 0, host, &f), -EINVAL);
		assert_int_equal(rw_op(rw, q, buf, 4090, 7, host, &f), -ERANGE);
		assert_int_equal(rw_op(rw, q, buf, 4096, 1, host, &f), -ERANGE);
		assert_int_equal(rw_op(rw, q, buf, 0, 4097, host, &f), -ERANGE);
		assert_int_equal(rw_op(rw, q, buf, UINT64_MAX, 1, host, &f),
				 -ERANGE);
		/* offset + size wraps around to 8. */
		assert_int_equal(rw_op(rw, q, buf, 16, UINT64_MAX - 7, host,
				       &f),
				 -ERANGE);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
	}
	accel_buffer_unref(buf);
}

static void test_write_read(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 10007);
	uint8_t *src = malloc(10007), *dst = malloc(10007);
	unsigned i;

	assert_non_null(src);
	assert_non_null(dst);
	for (i = 0; i < 10007; i++)
		src[i] = (uint8_t)(i * 31 + 7);
	test_write(env, buf, 0, 10007, src);
	memset(dst, 0, 10007);
	test_read(env, buf, 0, 10007, dst);
	assert_memory_equal(src, dst, 10007);

	/* Odd offsets and sizes. */
	test_write(env, buf, 3, 5, "abcde");
	test_read(env, buf, 1, 9, dst);
	assert_int_equal(dst[0], src[1]);
	assert_int_equal(dst[1], src[2]);
	assert_memory_equal(dst + 2, "abcde", 5);
	assert_int_equal(dst[7], src[8]);
	/* The last byte. */
	test_write(env, buf, 10006, 1, "z");
	test_read(env, buf, 10006, 1, dst);
	assert_int_equal(dst[0], 'z');

	free(src);
	free(dst);
	accel_buffer_unref(buf);
}

static void test_copy(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = test_buffer_new(env, 4096);
	struct accel_buffer *b = test_buffer_new(env, 1000);
	struct accel_fence *f = TEST_SENTINEL_PTR;
	uint8_t data[4096], back[4096];
	unsigned i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i ^ 0x5a);
	test_write(env, a, 0, sizeof(data), data);

	assert_int_equal(accel_queue_copy(env->queue, NULL, 0, b, 0, 1, 0, NULL,
					  &f),
			 -EINVAL);
	assert_int_equal(accel_queue_copy(env->queue, a, 0, NULL, 0, 1, 0, NULL,
					  &f),
			 -EINVAL);
	assert_int_equal(accel_queue_copy(env->queue, a, 0, b, 0, 0, 0, NULL,
					  &f),
			 -EINVAL);
	assert_int_equal(accel_queue_copy(env->queue, a, 0, b, 0, 1001, 0,
					  NULL, &f),
			 -ERANGE);
	assert_int_equal(accel_queue_copy(env->queue, a, 4000, b, 0, 100, 0,
					  NULL, &f),
			 -ERANGE);
	assert_int_equal(accel_queue_copy(env->queue, a, 0, b, 999, 2, 0, NULL,
					  &f),
			 -ERANGE);
	assert_int_equal(accel_queue_copy(env->queue, a, 16, b, 0,
					  UINT64_MAX - 7, 0, NULL, &f),
			 -ERANGE);
	assert_int_equal(accel_queue_copy(env->queue, a, 0, b, 16,
					  UINT64_MAX - 7, 0, NULL, &f),
			 -ERANGE);
	/* Overlapping ranges of one buffer, either direction. */
	assert_int_equal(accel_queue_copy(env->queue, a, 0, a, 100, 101, 0,
					  NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_copy(env->queue, a, 100, a, 0, 101, 0,
					  NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_copy(env->queue, a, 0, a, 0, 1, 0, NULL,
					  &f),
			 -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	/* Between buffers. */
	assert_int_equal(accel_queue_copy(env->queue, a, 1000, b, 1, 999, 0,
					  NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	test_read(env, b, 0, 1000, back);
	assert_int_equal(back[0], 0);
	assert_memory_equal(back + 1, data + 1000, 999);

	/* Within one buffer, adjacent ranges. */
	f = NULL;
	assert_int_equal(accel_queue_copy(env->queue, a, 0, a, 100, 100, 0,
					  NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	test_read(env, a, 0, 300, back);
	assert_memory_equal(back, data, 100);
	assert_memory_equal(back + 100, data, 100);
	assert_memory_equal(back + 200, data + 200, 100);

	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

static void test_fill(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 1024);
	struct accel_fence *f = TEST_SENTINEL_PTR;
	uint8_t pattern[128], back[1024];
	size_t ps;
	unsigned i;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i + 1);

	assert_int_equal(accel_queue_fill(env->queue, buf, 0, 16, NULL, 4, 0,
					  NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_fill(env->queue, NULL, 0, 16, pattern, 4,
					  0, NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_fill(env->queue, buf, 0, 0, pattern, 4, 0,
					  NULL, &f),
			 -EINVAL);
	{
		static const size_t bad[] = { 0, 3, 5, 12, 48, 127, 129, 256 };

		for (i = 0; i < TEST_ARRAY_SIZE(bad); i++)
			assert_int_equal(accel_queue_fill(env->queue, buf, 0,
							  768, pattern, bad[i],
							  0, NULL, &f),
					 -EINVAL);
	}
	/* Misaligned offset or size. */
	assert_int_equal(accel_queue_fill(env->queue, buf, 2, 16, pattern, 4, 0,
					  NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_fill(env->queue, buf, 0, 18, pattern, 4, 0,
					  NULL, &f),
			 -EINVAL);
	assert_int_equal(accel_queue_fill(env->queue, buf, 1020, 8, pattern, 4,
					  0, NULL, &f),
			 -ERANGE);
	assert_int_equal(accel_queue_fill(env->queue, buf, 16,
					  UINT64_MAX - 15, pattern, 16, 0,
					  NULL, &f),
			 -ERANGE);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	/* Every pattern size, over a range that leaves both ends alone. */
	for (ps = 1; ps <= 128; ps *= 2) {
		uint64_t off = 2 * ps, size = 3 * ps;

		memset(back, 0xee, sizeof(back));
		test_write(env, buf, 0, sizeof(back), back);
		f = NULL;
		assert_int_equal(accel_queue_fill(env->queue, buf, off, size,
						  pattern, ps, 0, NULL, &f),
				 0);
		assert_int_equal(test_wait_unref(f), 0);
		test_read(env, buf, 0, sizeof(back), back);
		for (i = 0; i < sizeof(back); i++) {
			uint8_t expect = i >= off && i < off + size ?
						 pattern[(i - off) % ps] :
						 0xee;

			if (back[i] != expect)
				fail_msg("pattern size %zu: byte %u is %#x, "
					 "expected %#x",
					 ps, i, back[i], expect);
		}
	}
	accel_buffer_unref(buf);
}

/* The pattern is copied at the call, not when the command runs. */
static void test_fill_pattern_copied(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 64);
	struct accel_fence *gate = test_user_fence(env), *f = NULL;
	uint32_t pattern = 0x11223344, back[16];
	unsigned i;

	assert_int_equal(accel_queue_fill(env->queue, buf, 0, 64, &pattern,
					  sizeof(pattern), 1, &gate, &f),
			 0);
	pattern = 0xdeadbeef;
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	test_read(env, buf, 0, sizeof(back), back);
	for (i = 0; i < 16; i++)
		assert_int_equal(back[i], 0x11223344);
	accel_fence_unref(gate);
	accel_buffer_unref(buf);
}

/* Host memory of a write is read when the command runs, not at the call. */
static void test_write_deferred(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 4);
	struct accel_fence *gate = test_user_fence(env), *f = NULL;
	uint32_t v = 1, back = 0;

	assert_int_equal(accel_queue_write(env->queue, buf, 0, 4, &v, 1, &gate,
					   &f),
			 0);
	/* Still ours until the fence signals. */
	v = 2;
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	test_read(env, buf, 0, 4, &back);
	assert_int_equal(back, 2);
	accel_fence_unref(gate);
	accel_buffer_unref(buf);
}

/* Dropping the queue and buffer with work pending: the work completes. */
static void test_release_with_pending_work(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 64), *keep;
	struct accel_fence *gate = test_user_fence(env), *f = NULL;
	uint32_t pattern = 0xabababab, back[16];
	unsigned i;

	keep = accel_buffer_ref(buf);
	assert_int_equal(accel_queue_new(env->dev, 0, &q), 0);
	assert_int_equal(accel_queue_fill(q, buf, 0, 64, &pattern, 4, 1, &gate,
					  &f),
			 0);
	accel_buffer_unref(buf);
	accel_queue_unref(q);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	test_read(env, keep, 0, sizeof(back), back);
	for (i = 0; i < 16; i++)
		assert_int_equal(back[i], 0xabababab);
	accel_buffer_unref(keep);
	accel_fence_unref(gate);
}

/*
 * Release orders: with a launch and a write still pending, drop the
 * context, device, queue, buffer, program and kernel in every order; the
 * work still completes and the results are right.
 */
enum { OBJ_CTX, OBJ_DEV, OBJ_QUEUE, OBJ_BUF, OBJ_PROG, OBJ_KERNEL, N_OBJ };

static void release_obj(int which, struct accel_context *ctx,
			struct accel_device *dev, struct accel_queue *q,
			struct accel_buffer *buf, struct accel_program *prog,
			struct accel_kernel *k)
{
	switch (which) {
	case OBJ_CTX:
		assert_null(accel_context_unref(ctx));
		break;
	case OBJ_DEV:
		assert_null(accel_device_unref(dev));
		break;
	case OBJ_QUEUE:
		assert_null(accel_queue_unref(q));
		break;
	case OBJ_BUF:
		assert_null(accel_buffer_unref(buf));
		break;
	case OBJ_PROG:
		assert_null(accel_program_unref(prog));
		break;
	default:
		assert_null(accel_kernel_unref(k));
		break;
	}
}

static void test_release_orders(void **state)
{
	/* Outlives every context made here, whatever thread frees them. */
	static struct test_log log;
	unsigned perm;

	(void)state;
	test_log_init(&log);
	for (perm = 0; perm < 720; perm++) {
		struct accel_context *ctx = NULL;
		struct accel_device *dev = NULL;
		struct accel_queue *q = NULL;
		struct accel_buffer *buf = NULL;
		struct accel_program *prog = NULL;
		struct accel_kernel *k = NULL;
		struct accel_fence *gate = NULL, *fl = NULL, *fr = NULL;
		struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
		uint32_t v = 5 + perm, back[4] = { 0 };
		int order[N_OBJ], avail[N_OBJ], i, n = N_OBJ;
		unsigned code = perm;

		/* perm -> a permutation of the objects (factorial base). */
		for (i = 0; i < N_OBJ; i++)
			avail[i] = i;
		for (i = 0; i < N_OBJ; i++) {
			int pick = (int)(code % (unsigned)n), j;

			code /= (unsigned)n;
			order[i] = avail[pick];
			for (j = pick; j < n - 1; j++)
				avail[j] = avail[j + 1];
			n--;
		}

		assert_int_equal(test_context_new(&log, &ctx), 0);
		assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
		assert_int_equal(accel_queue_new(dev, perm & 1 ?
						 ACCEL_QUEUE_PROFILING : 0,
						 &q),
				 0);
		assert_int_equal(accel_buffer_new(dev, 16, 0, &buf), 0);
		assert_int_equal(accel_program_new_native(dev, test_kernels,
							  test_n_kernels,
							  &prog),
				 0);
		assert_int_equal(accel_kernel_new(prog, "add_u32", &k), 0);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
		assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
		assert_int_equal(accel_fence_new_user(ctx, &gate), 0);
		assert_int_equal(accel_queue_launch(q, k, &r, 1, &gate, &fl),
				 0);
		assert_int_equal(accel_queue_read(q, buf, 0, sizeof(back), back,
						  0, NULL, &fr),
				 0);

		for (i = 0; i < N_OBJ; i++)
			release_obj(order[i], ctx, dev, q, buf, prog, k);

		assert_int_equal(accel_fence_signal(gate, 0), 0);
		accel_fence_unref(gate);
		assert_int_equal(test_wait_unref(fl), 0);
		assert_int_equal(test_wait_unref(fr), 0);
		for (i = 0; i < 4; i++)
			assert_int_equal(back[i], 5 + perm);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_new),
		T(test_common_errors),
		T(test_write_read_errors),
		T(test_write_read),
		T(test_copy),
		T(test_fill),
		T(test_fill_pattern_copied),
		T(test_write_deferred),
		T(test_release_with_pending_work),
		T(test_release_orders),
	};

	return TEST_RUN_GROUP("queue", tests);
}
