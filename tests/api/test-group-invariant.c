/* SPDX-License-Identifier: MIT */
/*
 * ACCEL_KERNEL_GROUP_INVARIANT: the compiler flags exactly the kernels
 * that cannot see their work-groups, and the runtime runs those in wider
 * groups than tiny enqueued (or picked) ones, covering every work-item
 * once; kernels without the flag run as enqueued.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#define ARG_PTR(args, i, type) (*(type *const *)(args)[i])

/* hits[gid - offset] += 1; sizes[gid - offset] = enqueued local x */
static void count(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *hits = ARG_PTR(args, 0, uint32_t);
	uint32_t *sizes = ARG_PTR(args, 1, uint32_t);
	uint64_t first = c->group_id[0] * c->enqueued_local_size[0];

	for (uint64_t i = 0; i < c->local_size[0]; i++) {
		hits[first + i]++;
		sizes[first + i] = (uint32_t)c->enqueued_local_size[0];
	}
}

static const struct accel_kernel_arg_desc count_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL, .name = "hits",
	  .type_name = "uint*" },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL, .name = "sizes",
	  .type_name = "uint*" },
};

static const struct accel_native_kernel_desc kernels[] = {
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .flags = ACCEL_KERNEL_GROUP_INVARIANT, .name = "invariant",
	  .fn = count, .n_args = 2, .args = count_args },
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "as_enqueued", .fn = count, .n_args = 2,
	  .args = count_args },
};

/*
 * Run @name over @n items (local @ls, 0: picked); every item must be hit
 * once. Returns the enqueued local x size the function saw for item 0,
 * and checks that all full groups saw the same.
 */
static uint32_t run(struct test_env *env, struct accel_program *prog,
		    const char *name, uint64_t n, uint64_t ls)
{
	struct accel_ndrange r = test_ndrange(1, n, 0, 0, ls, 0, 0);
	struct accel_buffer *hits = test_buffer_new(env, n * 4);
	struct accel_buffer *sizes = test_buffer_new(env, n * 4);
	uint32_t *h = calloc(n, 4), *s = calloc(n, 4), got;
	struct accel_kernel *k = NULL;

	assert_non_null(h);
	assert_non_null(s);
	test_write(env, hits, 0, n * 4, h);
	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, hits), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, sizes), 0);
	test_launch_wait(env, k, &r);
	test_read(env, hits, 0, n * 4, h);
	test_read(env, sizes, 0, n * 4, s);
	got = s[0];
	for (uint64_t i = 0; i < n; i++) {
		if (h[i] != 1)
			fail_msg("%s: item %llu ran %u times", name,
				 (unsigned long long)i, h[i]);
		assert_int_equal(s[i], got);
	}
	free(h);
	free(s);
	accel_kernel_unref(k);
	accel_buffer_unref(hits);
	accel_buffer_unref(sizes);
	return got;
}

static void test_widening(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	uint32_t x;

	assert_int_equal(accel_program_new_native(env->dev, kernels,
						  TEST_ARRAY_SIZE(kernels),
						  &prog),
			 0);
	/* a prime: the picked uniform size is 1 */
	assert_int_equal(run(env, prog, "as_enqueued", 1009, 0), 1);
	x = run(env, prog, "invariant", 1009, 0);
	assert_true(x >= 16 && x % 16 == 0);
	/* tiny enqueued groups */
	assert_int_equal(run(env, prog, "as_enqueued", 4096, 4), 4);
	x = run(env, prog, "invariant", 4096, 4);
	assert_true(x >= 16 && x % 16 == 0 && x <= 4096);
	/* fewer items than a widened group: one group */
	assert_int_equal(run(env, prog, "invariant", 7, 1), 7);
	/* groups of 16 and more are left as enqueued */
	assert_int_equal(run(env, prog, "invariant", 4096, 16), 16);
	assert_int_equal(run(env, prog, "invariant", 4096, 32), 32);
	accel_program_unref(prog);
}

static const char source[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	"kernel void sizes(global uint *o)\n"
	"{\n"
	"	o[get_global_id(0)] = get_global_size(0) + get_work_dim() +\n"
	"			     get_global_offset(0) + get_global_linear_id();\n"
	"}\n"
	"kernel void lid(global uint *o) { o[get_global_id(0)] = get_local_id(0); }\n"
	"kernel void grp(global uint *o) { o[get_global_id(0)] = get_group_id(0); }\n"
	"kernel void lsz(global uint *o) { o[get_global_id(0)] = get_local_size(0); }\n"
	"kernel void ngr(global uint *o) { o[get_global_id(0)] = get_num_groups(0); }\n"
	"kernel void enq(global uint *o)\n"
	"{\n"
	"	o[get_global_id(0)] = get_enqueued_local_size(0);\n"
	"}\n"
	"kernel void llin(global uint *o)\n"
	"{\n"
	"	o[get_global_id(0)] = get_local_linear_id();\n"
	"}\n"
	"uint helper(void) { return get_local_id(0); }\n"
	"kernel void via(global uint *o) { o[get_global_id(0)] = helper(); }\n"
	"kernel void bar(global uint *o)\n"
	"{\n"
	"	o[get_global_id(0)] = 1;\n"
	"	barrier(CLK_GLOBAL_MEM_FENCE);\n"
	"}\n"
	"kernel void larg(global uint *o, local uint *t)\n"
	"{\n"
	"	t[0] = 1;\n"
	"	o[get_global_id(0)] = t[0];\n"
	"}\n"
	"kernel void lvar(global uint *o)\n"
	"{\n"
	"	local uint t[4];\n"
	"	t[1] = 2;\n"
	"	o[get_global_id(0)] = t[1];\n"
	"}\n"
	"kernel void acopy(global const uint *i, global uint *o)\n"
	"{\n"
	"	local uint t[64];\n"
	"	event_t e = async_work_group_copy(t, i, 64, 0);\n"
	"	wait_group_events(1, &e);\n"
	"	o[get_global_id(0)] = t[0];\n"
	"}\n";

static void test_compiler_flags(void **state)
{
	static const struct {
		const char *name;
		bool invariant;
	} expect[] = {
		{ "vadd", true },  { "sizes", true }, { "lid", false },
		{ "grp", false },  { "lsz", false },  { "ngr", false },
		{ "enq", false },  { "llin", false }, { "via", false },
		{ "bar", false },  { "larg", false }, { "lvar", false },
		{ "acopy", false },
	};
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	char *log = NULL;

	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_COMPILER))
		skip();
	if (accel_program_new_source(env->dev, source, 0, "-cl-std=CL2.0",
				     &log, &prog) < 0)
		fail_msg("build failed:\n%s", log ? log : "");
	free(log);
	for (size_t i = 0; i < TEST_ARRAY_SIZE(expect); i++) {
		struct accel_kernel *k = NULL;
		uint32_t flags = 0;

		assert_int_equal(accel_kernel_new(prog, expect[i].name, &k), 0);
		assert_int_equal(accel_kernel_get_wg_info(k, NULL, NULL, &flags),
				 0);
		if (!!(flags & ACCEL_KERNEL_GROUP_INVARIANT) !=
		    expect[i].invariant)
			fail_msg("%s: flags %#x", expect[i].name, flags);
		accel_kernel_unref(k);
	}
	accel_program_unref(prog);
}

/* Compiled and widened: a prime size, tiny groups, an offset. */
static void test_compiled_results(void **state)
{
	static const struct {
		uint64_t n, ls, off;
	} cases[] = { { 1009, 0, 0 }, { 100003, 1, 0 }, { 5000, 3, 7 } };
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *m[3];
	const size_t cap = 100020;
	float *a = malloc(cap * 4), *b = malloc(cap * 4), *c = malloc(cap * 4);

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_COMPILER)) {
		free(a);
		free(b);
		free(c);
		skip();
	}
	for (size_t i = 0; i < cap; i++) {
		a[i] = (float)i;
		b[i] = (float)(i % 11) * 0.5f;
	}
	assert_int_equal(accel_program_new_source(env->dev, source, 0,
						  "-cl-std=CL2.0", NULL, &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "vadd", &k), 0);
	for (int j = 0; j < 3; j++) {
		m[j] = test_buffer_new(env, cap * 4);
		assert_int_equal(accel_kernel_set_arg_buffer(k, (uint32_t)j,
							     m[j]),
				 0);
	}
	test_write(env, m[0], 0, cap * 4, a);
	test_write(env, m[1], 0, cap * 4, b);
	for (size_t i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		struct accel_ndrange r = test_ndrange(1, cases[i].n, 0, 0,
						      cases[i].ls, 0, 0);

		r.global_offset[0] = cases[i].off;
		memset(c, 0, cap * 4);
		test_write(env, m[2], 0, cap * 4, c);
		test_launch_wait(env, k, &r);
		test_read(env, m[2], 0, cap * 4, c);
		for (size_t g = 0; g < cap; g++) {
			bool in = g >= cases[i].off &&
				  g < cases[i].off + cases[i].n;

			if (c[g] != (in ? a[g] + b[g] : 0.0f))
				fail_msg("case %zu element %zu: %g", i, g,
					 (double)c[g]);
		}
	}
	for (int j = 0; j < 3; j++)
		accel_buffer_unref(m[j]);
	accel_kernel_unref(k);
	accel_program_unref(prog);
	free(a);
	free(b);
	free(c);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_widening),
		T(test_compiler_flags),
		T(test_compiled_results),
	};

	return TEST_RUN_GROUP("group-invariant", tests);
}
