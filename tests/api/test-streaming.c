/* SPDX-License-Identifier: MIT */
/*
 * Variants of work-group functions (accel-wg.h): the CPU device runs a
 * kernel's streaming_fn exactly when the launch meets the contract
 * (64-byte aligned buffers, x local size and offset multiples of 16, ids
 * below ACCEL_WG_IDS32_LIMIT) and binds at least ACCEL_CPU_STREAMING_MIN
 * bytes of buffers (default: the last-level cache), and its ids32_fn when
 * the ids fit; compiled kernels give the same results either way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

enum { PLAIN = 1, STREAMED = 2, BROKEN = 3, IDS32 = 4 };

#define ARG_PTR(args, i, type) (*(type *const *)(args)[i])

/* out[gid - offset] = @v for every work-item of the group */
static void mark(void **args, const struct accel_wg_ctx *c, uint32_t v)
{
	uint32_t *out = ARG_PTR(args, 0, uint32_t);
	uint64_t first = c->group_id[0] * c->enqueued_local_size[0];

	for (uint64_t i = 0; i < c->local_size[0]; i++)
		out[first + i] = v;
}

static void mark_plain(void **args, const struct accel_wg_ctx *c)
{
	mark(args, c, PLAIN);
}

/* Checks the contract it was promised. */
static void mark_streamed(void **args, const struct accel_wg_ctx *c)
{
	uintptr_t out = (uintptr_t)ARG_PTR(args, 0, uint32_t);
	bool ok = out % ACCEL_WG_STREAMING_ADDR_ALIGN == 0 &&
		  c->enqueued_local_size[0] % ACCEL_WG_STREAMING_X_MULTIPLE ==
			  0 &&
		  c->global_offset[0] % ACCEL_WG_STREAMING_X_MULTIPLE == 0;

	mark(args, c, ok ? STREAMED : BROKEN);
}

/* Checks its contract too: every id below the limit. */
static void mark_ids32(void **args, const struct accel_wg_ctx *c)
{
	bool ok = true;

	for (int d = 0; d < 3; d++)
		ok &= c->global_offset[d] + c->global_size[d] <=
		      ACCEL_WG_IDS32_LIMIT;
	mark(args, c, ok ? IDS32 : BROKEN);
}

static const struct accel_kernel_arg_desc mark_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER,
	  .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .name = "out",
	  .type_name = "uint*" },
};

static const struct accel_native_kernel_desc kernels[] = {
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "mark", .fn = mark_plain, .n_args = 1, .args = mark_args,
	  .streaming_fn = mark_streamed },
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "plain_only", .fn = mark_plain, .n_args = 1,
	  .args = mark_args },
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "ids32", .fn = mark_plain, .n_args = 1, .args = mark_args,
	  .streaming_fn = mark_streamed, .ids32_fn = mark_ids32 },
	/* an older caller's struct: streaming_fn is not read */
	{ .struct_size = offsetof(struct accel_native_kernel_desc,
				  streaming_fn),
	  .name = "old_struct", .fn = mark_plain, .n_args = 1,
	  .args = mark_args, .streaming_fn = mark_streamed },
};

/* A context made with ACCEL_CPU_STREAMING_MIN=@min (NULL: unset). */
static void env_open(struct test_env *e, const char *min)
{
	memset(e, 0, sizeof(*e));
	if (min)
		setenv("ACCEL_CPU_STREAMING_MIN", min, 1);
	else
		unsetenv("ACCEL_CPU_STREAMING_MIN");
	test_log_init(&e->log);
	assert_int_equal(test_context_new(&e->log, &e->ctx), 0);
	/* devices are probed on first use */
	assert_int_equal(test_get_cpu_device(e->ctx, &e->dev), 0);
	unsetenv("ACCEL_CPU_STREAMING_MIN");
	assert_int_equal(accel_queue_new(e->dev, 0, &e->queue), 0);
	assert_int_equal(accel_program_new_native(e->dev, kernels,
						  TEST_ARRAY_SIZE(kernels),
						  &e->prog),
			 0);
}

static void env_close(struct test_env *e)
{
	accel_queue_finish(e->queue);
	accel_program_unref(e->prog);
	accel_queue_unref(e->queue);
	accel_device_unref(e->dev);
	accel_context_unref(e->ctx);
	test_log_fini(&e->log);
}

/*
 * Launch @kernel over @n items (local size @ls, 0: picked; offset @off)
 * writing @buf, and return the one mark every item got (0 if mixed).
 */
static uint32_t run(struct test_env *e, const char *kernel, struct accel_buffer *buf,
		    uint64_t n, uint64_t ls, uint64_t off)
{
	struct accel_ndrange r = test_ndrange(1, n, 0, 0, ls, 0, 0);
	struct accel_kernel *k = NULL;
	struct accel_fence *f = NULL;
	uint32_t *got = calloc(n, sizeof(*got)), v;

	assert_non_null(got);
	r.global_offset[0] = off;
	assert_int_equal(accel_kernel_new(e->prog, kernel, &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_queue_launch(e->queue, k, &r, 0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	assert_int_equal(accel_queue_read(e->queue, buf, 0, n * sizeof(*got),
					  got, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	v = got[0];
	for (uint64_t i = 1; i < n; i++)
		if (got[i] != v)
			v = 0;
	free(got);
	accel_kernel_unref(k);
	return v;
}

static void test_contract(void **state)
{
	struct accel_buffer *buf = NULL, *sub = NULL, *user = NULL;
	void *mem = NULL;
	struct test_env e;

	(void)state;
	env_open(&e, "0");
	assert_int_equal(accel_buffer_new(e.dev, 64 << 10, 0, &buf), 0);
	assert_int_equal(run(&e, "mark", buf, 4096, 64, 0), STREAMED);
	assert_int_equal(run(&e, "mark", buf, 4096, 16, 32), STREAMED);
	/* a partial last group is fine: only the enqueued size counts */
	assert_int_equal(run(&e, "mark", buf, 4000, 64, 0), STREAMED);
	/* x local size or offset off the multiple of 16 */
	assert_int_equal(run(&e, "mark", buf, 4096, 8, 0), PLAIN);
	assert_int_equal(run(&e, "mark", buf, 4096, 24, 0), PLAIN);
	assert_int_equal(run(&e, "mark", buf, 4096, 64, 8), PLAIN);
	/* no variant, or a caller that predates the field */
	assert_int_equal(run(&e, "plain_only", buf, 4096, 64, 0), PLAIN);
	assert_int_equal(run(&e, "old_struct", buf, 4096, 64, 0), PLAIN);

	/* sub-buffers start on 128 bytes: aligned */
	assert_int_equal(accel_buffer_new_sub(buf, 128, 16 << 10, 0, &sub), 0);
	assert_int_equal(run(&e, "mark", sub, 1024, 64, 0), STREAMED);
	/* caller memory 4 bytes past a 64-byte boundary */
	assert_int_equal(posix_memalign(&mem, 64, (16 << 10) + 64), 0);
	assert_int_equal(accel_buffer_new_user_ptr(e.dev, (char *)mem + 4,
						   16 << 10, 0, &user),
			 0);
	assert_int_equal(run(&e, "mark", user, 1024, 64, 0), PLAIN);

	accel_buffer_unref(user);
	accel_buffer_unref(sub);
	accel_buffer_unref(buf);
	env_close(&e);
	free(mem);
}

/* ids32_fn when the ids fit; streaming wins over it, and needs them to */
static void test_ids32(void **state)
{
	struct accel_buffer *buf = NULL;
	struct test_env e;

	(void)state;
	env_open(&e, "1048576");
	assert_int_equal(accel_buffer_new(e.dev, 1 << 20, 0, &buf), 0);
	assert_int_equal(run(&e, "ids32", buf, 1024, 64, 0), STREAMED);
	assert_int_equal(run(&e, "ids32", buf, 1024, 8, 0), IDS32);
	/* ids up to 0x7fffffef */
	assert_int_equal(run(&e, "ids32", buf, 1024, 64, 0x7ffffbf0),
			 STREAMED);
	assert_int_equal(run(&e, "ids32", buf, 1024, 8, 0x7ffffbf0), IDS32);
	/* up to 0x7fffffff, not below the limit: neither variant */
	assert_int_equal(run(&e, "ids32", buf, 1024, 64, 0x7ffffc00), PLAIN);
	assert_int_equal(run(&e, "mark", buf, 1024, 64, 0x7ffffc00), PLAIN);
	accel_buffer_unref(buf);
	env_close(&e);
}

static void test_threshold(void **state)
{
	struct accel_buffer *small = NULL, *big = NULL;
	uint64_t cache;
	struct test_env e;

	(void)state;
	/* bytes bound, not bytes touched: a 1 MiB buffer counts whole */
	env_open(&e, "1048576");
	assert_int_equal(accel_buffer_new(e.dev, 4096, 0, &small), 0);
	assert_int_equal(accel_buffer_new(e.dev, 1 << 20, 0, &big), 0);
	assert_int_equal(run(&e, "mark", small, 1024, 64, 0), PLAIN);
	assert_int_equal(run(&e, "mark", big, 1024, 64, 0), STREAMED);
	accel_buffer_unref(small);
	accel_buffer_unref(big);
	env_close(&e);

	/* default: the last-level cache; small launches stay cached */
	env_open(&e, NULL);
	cache = test_dev_u64(e.dev, ACCEL_DEVICE_U64_CACHE_SIZE);
	assert_int_equal(accel_buffer_new(e.dev, 4096, 0, &small), 0);
	if (cache == 0 || cache > 4096)
		assert_int_equal(run(&e, "mark", small, 1024, 64, 0), PLAIN);
	accel_buffer_unref(small);
	env_close(&e);

	/* a malformed value is ignored, with a warning */
	env_open(&e, "lots");
	assert_true(test_log_contains(&e.log, "ACCEL_CPU_STREAMING_MIN"));
	assert_int_equal(accel_buffer_new(e.dev, 4096, 0, &small), 0);
	if (cache == 0 || cache > 4096)
		assert_int_equal(run(&e, "mark", small, 1024, 64, 0), PLAIN);
	accel_buffer_unref(small);
	env_close(&e);
}

static const char vadd_src[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	/* guarded on an int id: the 32-bit ids variant, split loops */
	"kernel void vaddg(global const float *a, global const float *b,\n"
	"		   global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n";

struct compiled_case {
	uint64_t n, ls, off, sub;
};

/* One launch of @k over @cs, checked element by element: inside the
 * range (and below the guard's bound) a + b, elsewhere untouched. */
static void run_case(struct test_env *e, struct accel_kernel *k,
		     const struct compiled_case *cs, bool guarded,
		     struct accel_buffer *const ba[3], const float *a,
		     const float *b, float *c, size_t cap)
{
	struct accel_ndrange r = test_ndrange(1, cs->n, 0, 0, cs->ls, 0, 0);
	size_t bytes = cap * sizeof(float), at = cs->sub / sizeof(float);
	/* the last 37 work-items fail the guard */
	int32_t lim = (int32_t)(cs->off + cs->n - 37);
	struct accel_buffer *bs[3];
	struct accel_fence *f = NULL;

	r.global_offset[0] = cs->off;
	for (int j = 0; j < 3; j++) {
		bs[j] = ba[j];
		if (cs->sub)
			assert_int_equal(accel_buffer_new_sub(ba[j], cs->sub,
							      bytes - cs->sub,
							      0, &bs[j]),
					 0);
		assert_int_equal(accel_kernel_set_arg_buffer(k, (uint32_t)j,
							     bs[j]),
				 0);
	}
	if (guarded)
		assert_int_equal(accel_kernel_set_arg_value(k, 3, sizeof(lim),
							    &lim),
				 0);
	memset(c, 0xff, bytes);
	test_write(e, ba[2], 0, bytes, c);
	assert_int_equal(accel_queue_launch(e->queue, k, &r, 0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	test_read(e, ba[2], 0, bytes, c);
	for (size_t g = 0; g < cap; g++) {
		uint64_t id = g - at;
		bool in = g >= at && id >= cs->off && id < cs->off + cs->n &&
			  (!guarded || id < (uint64_t)lim);
		float want = in ? a[g] + b[g] : 0.0f;

		if (in ? c[g] != want : c[g] == c[g])
			fail_msg("%s n %llu ls %llu off %llu sub %llu: "
				 "element %zu: %g",
				 guarded ? "vaddg" : "vadd",
				 (unsigned long long)cs->n,
				 (unsigned long long)cs->ls,
				 (unsigned long long)cs->off,
				 (unsigned long long)cs->sub, g, (double)c[g]);
	}
	for (int j = 0; j < 3 && cs->sub; j++)
		accel_buffer_unref(bs[j]);
}

/*
 * A context made with ACCEL_CPU_STREAMING_MIN=@min, inputs @a and @b of
 * @cap floats for vadd_src and room for its output @c; false (nothing
 * left open) if the device has no compiler.
 */
static bool vadd_open(struct test_env *e, const char *min, size_t cap,
		      float **a, float **b, float **c)
{
	*a = malloc(cap * sizeof(float));
	*b = malloc(cap * sizeof(float));
	*c = malloc(cap * sizeof(float));
	assert_non_null(*a);
	assert_non_null(*b);
	assert_non_null(*c);
	env_open(e, min);
	if (!(test_dev_u64(e->dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_COMPILER)) {
		env_close(e);
		free(*a);
		free(*b);
		free(*c);
		return false;
	}
	for (size_t i = 0; i < cap; i++) {
		(*a)[i] = (float)(i % 1000) * 0.25f;
		(*b)[i] = (float)(i % 7) - 3.0f;
	}
	return true;
}

/* Same results streaming or not, over sub-buffers, offsets, a partial
 * last group and a picked local size; guarded or not. */
static void test_compiled(void **state)
{
	static const struct compiled_case cases[] = {
		{ 100000, 64, 0, 0 },   { 100003, 64, 16, 0 },
		{ 65536, 0, 0, 0 },     { 50000, 256, 0, 4096 },
		{ 4096, 8, 0, 0 },      { 4096, 64, 3, 0 },
	};
	const size_t cap = 110000, bytes = cap * sizeof(float);
	struct accel_buffer *ba[3] = { NULL };
	struct accel_program *prog = NULL;
	struct test_env e;
	float *a, *b, *c;

	(void)state;
	if (!vadd_open(&e, "0", cap, &a, &b, &c))
		skip();
	assert_int_equal(accel_program_new_source(e.dev, vadd_src, 0, NULL,
						  NULL, &prog),
			 0);
	for (int j = 0; j < 3; j++)
		assert_int_equal(accel_buffer_new(e.dev, bytes, 0, &ba[j]), 0);
	test_write(&e, ba[0], 0, bytes, a);
	test_write(&e, ba[1], 0, bytes, b);
	for (int guarded = 0; guarded < 2; guarded++) {
		struct accel_kernel *k = NULL;

		assert_int_equal(accel_kernel_new(prog,
						  guarded ? "vaddg" : "vadd",
						  &k),
				 0);
		for (size_t i = 0; i < TEST_ARRAY_SIZE(cases); i++)
			run_case(&e, k, &cases[i], guarded, ba, a, b, c, cap);
		accel_kernel_unref(k);
	}
	for (int j = 0; j < 3; j++)
		accel_buffer_unref(ba[j]);
	accel_program_unref(prog);
	env_close(&e);
	free(a);
	free(b);
	free(c);
}

/*
 * Built from source, a program's streaming variants are made later: a
 * launch binding less than ACCEL_CPU_STREAMING_MIN asks for none, the
 * first one binding more builds them, once; results are the same
 * throughout.
 */
static void test_later(void **state)
{
	static const struct compiled_case big = { 100000, 64, 0, 0 };
	const size_t cap = 110000, bytes = cap * sizeof(float);
	struct accel_buffer *ba[3] = { NULL }, *sb[3] = { NULL };
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct test_env e;
	float *a, *b, *c;

	(void)state;
	/* 3 buffers of 440 KB bind more, 3 sub-buffers of 4 KiB less */
	if (!vadd_open(&e, "1048576", cap, &a, &b, &c))
		skip();
	for (int j = 0; j < 3; j++) {
		assert_int_equal(accel_buffer_new(e.dev, bytes, 0, &ba[j]), 0);
		assert_int_equal(accel_buffer_new(e.dev, 4096, 0, &sb[j]), 0);
	}
	test_write(&e, ba[0], 0, bytes, a);
	test_write(&e, ba[1], 0, bytes, b);
	test_write(&e, sb[0], 0, 4096, a);
	test_write(&e, sb[1], 0, 4096, b);
	assert_int_equal(accel_program_new_source(e.dev, vadd_src, 0, NULL,
						  NULL, &prog),
			 0);
	for (int guarded = 0; guarded < 2; guarded++) {
		struct compiled_case small = { 1024, 64, 0, 0 };

		assert_int_equal(accel_kernel_new(prog,
						  guarded ? "vaddg" : "vadd",
						  &k),
				 0);
		test_log_reset(&e.log);
		run_case(&e, k, &small, guarded, sb, a, b, c, 1024);
		assert_false(test_log_contains(&e.log, "streaming variants"));
		run_case(&e, k, &big, guarded, ba, a, b, c, cap);
		/* built by the first kernel's launch, for both */
		assert_true(test_log_contains(&e.log,
					      "streaming variants: built") ==
			    !guarded);
		run_case(&e, k, &big, guarded, ba, a, b, c, cap);
		run_case(&e, k, &small, guarded, sb, a, b, c, 1024);
		accel_kernel_unref(k);
	}
	accel_program_unref(prog);
	for (int j = 0; j < 3; j++) {
		accel_buffer_unref(ba[j]);
		accel_buffer_unref(sb[j]);
	}
	env_close(&e);
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contract),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_ids32),
		cmocka_unit_test(test_compiled),
		cmocka_unit_test(test_later),
	};

	return TEST_RUN_GROUP("streaming", tests);
}
