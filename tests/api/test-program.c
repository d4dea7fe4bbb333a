/* SPDX-License-Identifier: MIT */
/*
 * accel_program_* and accel_kernel_*: native and built-in programs, kernel
 * objects, argument descriptions, setting arguments, clones; and running
 * the CPU device's built-in kernels (fill_u32, copy_u8, sgemm).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

static void noop(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static const struct accel_kernel_arg_desc one_buf_arg[] = {
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	},
};

static struct accel_native_kernel_desc good_desc(const char *name)
{
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = name,
		.fn = noop,
		.n_args = 1,
		.args = one_buf_arg,
	};

	return d;
}

/* One malformed description must fail the whole program. */
static int new_with(struct test_env *env, struct accel_native_kernel_desc bad,
		    struct accel_program **ret)
{
	struct accel_native_kernel_desc d[2] = { good_desc("first"), bad };

	return accel_program_new_native(env->dev, d, 2, ret);
}

static void test_new_native_bad_args(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	struct accel_native_kernel_desc d = good_desc("k");
	struct accel_kernel_arg_desc arg = one_buf_arg[0];
	uint64_t local_mem = test_dev_u64(env->dev,
					  ACCEL_DEVICE_U64_LOCAL_MEM_SIZE);
	uint64_t max_args = test_dev_u64(env->dev,
					 ACCEL_DEVICE_U64_MAX_KERNEL_ARGS);
	struct accel_kernel_arg_desc *many;
	uint64_t i;

	assert_int_equal(accel_program_new_native(NULL, &d, 1, &prog), -EINVAL);
	assert_int_equal(accel_program_new_native(env->dev, NULL, 1, &prog),
			 -EINVAL);
	assert_int_equal(accel_program_new_native(env->dev, &d, 0, &prog),
			 -EINVAL);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, NULL),
			 -EINVAL);

	test_log_reset(&env->log);
	d = good_desc("k");
	d.struct_size = 0;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	/* The rejection is explained in the log. */
	assert_true(test_log_count(&env->log, ACCEL_LOG_DEBUG) > 0);
	d = good_desc(NULL);
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	d = good_desc("k");
	d.fn = NULL;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	d = good_desc("first"); /* duplicate */
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	d = good_desc("k");
	d.flags = 1u << 2; /* unknown flags */
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	d.flags = 1u << 31;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	d = good_desc("k");
	d.args = NULL;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);

	/* Malformed arguments. */
	d = good_desc("k");
	d.args = &arg;
	arg.kind = 0;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	arg.kind = 4;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	arg = one_buf_arg[0];
	arg.size = 3;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	arg.kind = ACCEL_KERNEL_ARG_LOCAL;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	arg.kind = ACCEL_KERNEL_ARG_VALUE;
	arg.size = 0;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);
	arg = one_buf_arg[0];
	arg.struct_size = 0;
	assert_int_equal(new_with(env, d, &prog), -EINVAL);

	/* Too much. */
	d = good_desc("k");
	d.static_local_size = local_mem + 1;
	assert_int_equal(new_with(env, d, &prog), -E2BIG);
	many = calloc(max_args + 1, sizeof(*many));
	assert_non_null(many);
	for (i = 0; i <= max_args; i++)
		many[i] = one_buf_arg[0];
	d = good_desc("k");
	d.args = many;
	d.n_args = (uint32_t)max_args + 1;
	assert_int_equal(new_with(env, d, &prog), -E2BIG);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);

	free(many);
}

static void test_program_props(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = env->prog;
	const char *name = TEST_SENTINEL_PTR;
	int n, i;

	n = accel_program_get_kernel_count(prog);
	assert_int_equal(n, (int)test_n_kernels);
	for (i = 0; i < n; i++) {
		name = NULL;
		assert_int_equal(accel_program_get_kernel_name(prog,
							       (uint32_t)i,
							       &name),
				 0);
		assert_non_null(name);
		assert_string_equal(name, test_kernels[i].name);
	}
	name = TEST_SENTINEL_PTR;
	assert_int_equal(accel_program_get_kernel_name(prog, (uint32_t)n,
						       &name),
			 -ERANGE);
	assert_int_equal(accel_program_get_kernel_name(prog, UINT32_MAX,
						       &name),
			 -ERANGE);
	assert_int_equal(accel_program_get_kernel_name(NULL, 0, &name),
			 -EINVAL);
	assert_int_equal(accel_program_get_kernel_name(prog, 0, NULL),
			 -EINVAL);
	assert_ptr_equal(name, TEST_SENTINEL_PTR);

	assert_int_equal(accel_program_get_kernel_count(NULL), -EINVAL);
	assert_ptr_equal(accel_program_get_device(prog), env->dev);
	assert_null(accel_program_get_device(NULL));
	assert_ptr_equal(accel_program_ref(prog), prog);
	assert_null(accel_program_unref(prog));
	assert_null(accel_program_ref(NULL));
	assert_null(accel_program_unref(NULL));
}

/* Descriptions are deep copies: the caller's may go away. */
static void test_native_copies(void **state)
{
	struct test_env *env = *state;
	struct accel_native_kernel_desc *d = calloc(1, sizeof(*d));
	struct accel_kernel_arg_desc *a = calloc(2, sizeof(*a));
	char *kname = strdup("copied"), *aname = strdup("the_arg"),
	     *tname = strdup("float*");
	struct accel_kernel_arg_desc got;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	const char *name = NULL;

	assert_non_null(d);
	assert_non_null(a);
	a[0] = one_buf_arg[0];
	a[0].name = aname;
	a[0].type_name = tname;
	a[1].struct_size = sizeof(a[1]);
	a[1].kind = ACCEL_KERNEL_ARG_VALUE;
	a[1].size = 12;
	*d = good_desc(kname);
	d->args = a;
	d->n_args = 2;
	d->static_local_size = 100;
	d->reqd_work_group_size[0] = 2;
	d->reqd_work_group_size[1] = 1;
	d->reqd_work_group_size[2] = 1;
	assert_int_equal(accel_program_new_native(env->dev, d, 1, &prog), 0);
	memset(kname, 'x', strlen(kname));
	memset(aname, 'x', strlen(aname));
	memset(tname, 'x', strlen(tname));
	memset(a, 0xff, 2 * sizeof(*a));
	memset(d, 0xff, sizeof(*d));
	free(kname);
	free(aname);
	free(tname);
	free(a);
	free(d);

	assert_int_equal(accel_program_get_kernel_name(prog, 0, &name), 0);
	assert_string_equal(name, "copied");
	assert_int_equal(accel_kernel_new(prog, "copied", &k), 0);
	memset(&got, 0, sizeof(got));
	got.struct_size = sizeof(got);
	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &got), 0);
	assert_string_equal(got.name, "the_arg");
	assert_string_equal(got.type_name, "float*");
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &got), 0);
	assert_int_equal(got.kind, ACCEL_KERNEL_ARG_VALUE);
	assert_int_equal(got.size, 12);
	{
		uint64_t sl = 0, reqd[3] = { 0 };
		uint32_t flags = 0xff;

		assert_int_equal(accel_kernel_get_wg_info(k, &sl, reqd, &flags),
				 0);
		assert_int_equal(sl, 100);
		assert_int_equal(reqd[0], 2);
		assert_int_equal(reqd[1], 1);
		assert_int_equal(reqd[2], 1);
		assert_int_equal(flags, 0);
	}
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

static void test_kernel_new_get(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = TEST_SENTINEL_PTR;

	assert_int_equal(accel_kernel_new(NULL, "add_u32", &k), -EINVAL);
	assert_int_equal(accel_kernel_new(env->prog, NULL, &k), -EINVAL);
	assert_int_equal(accel_kernel_new(env->prog, "add_u32", NULL),
			 -EINVAL);
	assert_int_equal(accel_kernel_new(env->prog, "nope", &k), -ENOENT);
	assert_int_equal(accel_kernel_new(env->prog, "add_u3", &k), -ENOENT);
	assert_int_equal(accel_kernel_new(env->prog, "add_u32 ", &k), -ENOENT);
	assert_int_equal(accel_kernel_new(env->prog, "", &k), -ENOENT);
	assert_ptr_equal(k, TEST_SENTINEL_PTR);

	k = NULL;
	assert_int_equal(accel_kernel_new(env->prog, "add_u32", &k), 0);
	assert_string_equal(accel_kernel_get_name(k), "add_u32");
	assert_ptr_equal(accel_kernel_get_program(k), env->prog);
	assert_int_equal(accel_kernel_get_arg_count(k), 2);
	assert_ptr_equal(accel_kernel_ref(k), k);
	assert_null(accel_kernel_unref(k));
	assert_null(accel_kernel_unref(k));

	assert_null(accel_kernel_get_name(NULL));
	assert_null(accel_kernel_get_program(NULL));
	assert_int_equal(accel_kernel_get_arg_count(NULL), -EINVAL);
	assert_null(accel_kernel_ref(NULL));
	assert_null(accel_kernel_unref(NULL));
}

static void test_arg_desc(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "noop_args");
	const struct accel_native_kernel_desc *def = NULL;
	struct accel_kernel_arg_desc got;
	uint32_t i;

	for (i = 0; i < test_n_kernels; i++)
		if (!strcmp(test_kernels[i].name, "noop_args"))
			def = &test_kernels[i];
	assert_non_null(def);
	assert_int_equal(accel_kernel_get_arg_count(k), (int)def->n_args);

	for (i = 0; i < def->n_args; i++) {
		const struct accel_kernel_arg_desc *e = &def->args[i];

		memset(&got, 0xa5, sizeof(got));
		got.struct_size = sizeof(got);
		assert_int_equal(accel_kernel_get_arg_desc(k, i, &got), 0);
		assert_int_equal(got.struct_size, sizeof(got));
		assert_int_equal(got.kind, e->kind);
		assert_int_equal(got.size, e->size);
		assert_int_equal(got.address_space, e->address_space);
		assert_int_equal(got.type_qualifiers, e->type_qualifiers);
		assert_int_equal(got.reserved, 0);
		assert_string_equal(got.name, e->name);
		assert_string_equal(got.type_name, e->type_name);
	}

	memset(&got, 0xa5, sizeof(got));
	got.struct_size = sizeof(got);
	assert_int_equal(accel_kernel_get_arg_desc(k, def->n_args, &got),
			 -ERANGE);
	assert_int_equal(accel_kernel_get_arg_desc(k, UINT32_MAX, &got),
			 -ERANGE);
	assert_int_equal(accel_kernel_get_arg_desc(NULL, 0, &got), -EINVAL);
	assert_int_equal(accel_kernel_get_arg_desc(k, 0, NULL), -EINVAL);
	got.struct_size = 0;
	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &got), -EINVAL);
	/* Nothing was written by the failures. */
	assert_int_equal(got.kind, 0xa5a5a5a5);

	/* An older, smaller struct: fields beyond it are not written. */
	memset(&got, 0xa5, sizeof(got));
	got.struct_size = offsetof(struct accel_kernel_arg_desc, name);
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &got), 0);
	assert_int_equal(got.kind, ACCEL_KERNEL_ARG_VALUE);
	assert_int_equal(got.size, 4);
	{
		const char *untouched;

		memset(&untouched, 0xa5, sizeof(untouched));
		assert_ptr_equal(got.name, untouched);
		assert_ptr_equal(got.type_name, untouched);
	}
	accel_kernel_unref(k);
}

static void test_set_args_errors(void **state)
{
	struct test_env *env = *state;
	/* noop_args(global const float *in, uint n, local float *tmp,
	 *	     constant int *c) */
	struct accel_kernel *k = test_kernel_new(env, "noop_args");
	struct accel_buffer *buf = test_buffer_new(env, 64);
	uint64_t local_mem = test_dev_u64(env->dev,
					  ACCEL_DEVICE_U64_LOCAL_MEM_SIZE);
	struct test_log log;
	struct accel_context *ctx2 = NULL;
	struct accel_device *dev2 = NULL;
	struct accel_buffer *foreign = NULL;
	uint32_t v = 1;
	uint64_t v64 = 1;

	assert_int_equal(accel_kernel_set_arg_buffer(NULL, 0, buf), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 4, buf), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_buffer(k, UINT32_MAX, buf),
			 -ERANGE);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, buf), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, buf), -ENOTTY);

	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx2), 0);
	assert_int_equal(test_get_cpu_device(ctx2, &dev2), 0);
	assert_int_equal(accel_buffer_new(dev2, 64, 0, &foreign), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, foreign), -EINVAL);
	accel_buffer_unref(foreign);
	accel_device_unref(dev2);
	accel_context_unref(ctx2);
	test_log_fini(&log);

	assert_int_equal(accel_kernel_set_arg_value(NULL, 1, 4, &v), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, NULL), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 8, &v64), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 2, &v), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 0, &v), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_value(k, 4, 4, &v), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_value(k, 0, sizeof(void *), &buf),
			 -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_value(k, 2, sizeof(void *), &buf),
			 -ENOTTY);

	assert_int_equal(accel_kernel_set_arg_local(NULL, 2, 16), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, 0), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, local_mem + 1),
			 -E2BIG);
	assert_int_equal(accel_kernel_set_arg_local(k, 2, SIZE_MAX), -E2BIG);
	assert_int_equal(accel_kernel_set_arg_local(k, 4, 16), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_local(k, 0, 16), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_local(k, 1, 16), -ENOTTY);

	/* None of the failures set anything: the launch still lacks all. */
	{
		struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 0, 0, 0);
		struct accel_fence *f = TEST_SENTINEL_PTR;

		assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL,
						    &f),
				 -ENOEXEC);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
		assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
		assert_int_equal(accel_kernel_set_arg_local(k, 2, 64), 0);
		assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL,
						    &f),
				 -ENOEXEC);
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 3, NULL), 0);
		f = NULL;
		assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL,
						    &f),
				 0);
		assert_int_equal(test_wait_unref(f), 0);
	}
	accel_buffer_unref(buf);
	accel_kernel_unref(k);
}

static void test_clone(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "add_u32"), *c = NULL,
			    *c2 = TEST_SENTINEL_PTR, *unset = NULL;
	struct accel_buffer *a = test_buffer_new(env, 16);
	struct accel_buffer *b = test_buffer_new(env, 16);
	struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	struct accel_fence *f = TEST_SENTINEL_PTR;
	uint32_t v, back[4];
	unsigned i;

	assert_int_equal(accel_kernel_clone(NULL, &c2), -EINVAL);
	assert_int_equal(accel_kernel_clone(k, NULL), -EINVAL);
	assert_ptr_equal(c2, TEST_SENTINEL_PTR);

	/* A clone of a kernel without arguments lacks them too. */
	assert_int_equal(accel_kernel_clone(k, &unset), 0);
	assert_int_equal(accel_queue_launch(env->queue, unset, &r, 0, NULL,
					    &f),
			 -ENOEXEC);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	accel_kernel_unref(unset);

	v = 2;
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	assert_int_equal(accel_kernel_clone(k, &c), 0);
	assert_ptr_not_equal(c, k);
	assert_string_equal(accel_kernel_get_name(c), "add_u32");
	assert_ptr_equal(accel_kernel_get_program(c), env->prog);
	assert_int_equal(accel_kernel_get_arg_count(c), 2);

	/* Changing the original does not change the clone, nor back. */
	v = 30;
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, b), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	test_launch_wait(env, c, &r); /* a += 2 */
	test_launch_wait(env, k, &r); /* b += 30 */
	v = 400;
	assert_int_equal(accel_kernel_set_arg_value(c, 1, 4, &v), 0);
	test_launch_wait(env, c, &r); /* a += 400 */
	test_launch_wait(env, k, &r); /* b += 30 */

	test_read(env, a, 0, sizeof(back), back);
	for (i = 0; i < 4; i++)
		assert_int_equal(back[i], 402);
	test_read(env, b, 0, sizeof(back), back);
	for (i = 0; i < 4; i++)
		assert_int_equal(back[i], 60);

	/* The clone holds its own references: drop everything else. */
	accel_kernel_unref(k);
	accel_buffer_unref(a);
	test_launch_wait(env, c, &r);
	accel_kernel_unref(c);
	accel_buffer_unref(b);
}

/* A kernel keeps its program (and the program its device) alive. */
static void test_kernel_outlives_program(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 16);
	struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	uint32_t v = 7, back[4];

	assert_int_equal(accel_program_new_native(env->dev, test_kernels,
						  test_n_kernels, &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "add_u32", &k), 0);
	accel_program_unref(prog);
	assert_ptr_equal(accel_kernel_get_program(k), prog);
	assert_int_equal(accel_program_get_kernel_count(prog),
			 (int)test_n_kernels);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);
	test_launch_wait(env, k, &r);
	test_read(env, buf, 0, sizeof(back), back);
	assert_int_equal(back[3], 7);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

/* ---- built-in kernels ------------------------------------------------ */

static void test_built_in_bad_args(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	static const char *const malformed[] = {
		"", ";", ";fill_u32", "fill_u32;", "fill_u32;;copy_u8",
	};
	static const char *const unknown[] = {
		"nope", "fill_u3", "fill_u32x", "fill_u32;nope", "FILL_U32",
		" fill_u32",
	};
	unsigned i;

	assert_int_equal(accel_program_new_built_in(NULL, "fill_u32", &prog),
			 -EINVAL);
	assert_int_equal(accel_program_new_built_in(env->dev, NULL, &prog),
			 -EINVAL);
	assert_int_equal(accel_program_new_built_in(env->dev, "fill_u32",
						    NULL),
			 -EINVAL);
	for (i = 0; i < TEST_ARRAY_SIZE(malformed); i++)
		if (accel_program_new_built_in(env->dev, malformed[i], &prog) !=
		    -EINVAL)
			fail_msg("'%s' not rejected with -EINVAL",
				 malformed[i]);
	test_log_reset(&env->log);
	for (i = 0; i < TEST_ARRAY_SIZE(unknown); i++)
		if (accel_program_new_built_in(env->dev, unknown[i], &prog) !=
		    -ENOENT)
			fail_msg("'%s' not rejected with -ENOENT", unknown[i]);
	assert_true(test_log_contains(&env->log, "nope"));
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
}

static void test_built_in_program(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_kernel_arg_desc d;
	bool seen[3] = { false };
	const char *name;
	int i;

	assert_int_equal(accel_program_new_built_in(env->dev,
						    "sgemm;fill_u32;copy_u8",
						    &prog),
			 0);
	assert_ptr_equal(accel_program_get_device(prog), env->dev);
	assert_int_equal(accel_program_get_kernel_count(prog), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(accel_program_get_kernel_name(prog,
							       (uint32_t)i,
							       &name),
				 0);
		seen[0] |= !strcmp(name, "sgemm");
		seen[1] |= !strcmp(name, "fill_u32");
		seen[2] |= !strcmp(name, "copy_u8");
	}
	assert_true(seen[0] && seen[1] && seen[2]);

	assert_int_equal(accel_kernel_new(prog, "sgemm", &k), 0);
	assert_int_equal(accel_kernel_get_arg_count(k), 6);
	for (i = 0; i < 6; i++) {
		memset(&d, 0, sizeof(d));
		d.struct_size = sizeof(d);
		assert_int_equal(accel_kernel_get_arg_desc(k, (uint32_t)i, &d),
				 0);
		if (i < 3) {
			assert_int_equal(d.kind, ACCEL_KERNEL_ARG_BUFFER);
		} else {
			assert_int_equal(d.kind, ACCEL_KERNEL_ARG_VALUE);
			assert_int_equal(d.size, 4);
		}
	}
	accel_kernel_unref(k);
	assert_int_equal(accel_kernel_new(prog, "vadd_u32", &k), -ENOENT);
	accel_program_unref(prog);

	/* A subset holds only what was asked for. */
	assert_int_equal(accel_program_new_built_in(env->dev, "copy_u8", &prog),
			 0);
	assert_int_equal(accel_program_get_kernel_count(prog), 1);
	assert_int_equal(accel_kernel_new(prog, "fill_u32", &k), -ENOENT);
	accel_program_unref(prog);
}

static struct accel_kernel *built_in(struct test_env *env, const char *name)
{
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_program_new_built_in(env->dev, name, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	/* The kernel keeps the program. */
	accel_program_unref(prog);
	return k;
}

static void test_fill_u32(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = built_in(env, "fill_u32");
	enum { N = 1001, PAD = 7, OFF = 5 };
	struct accel_buffer *buf = test_buffer_new(env, (N + PAD + OFF) * 4);
	uint32_t value = 0xdeadbeef, back[N + PAD + OFF];
	struct accel_ndrange r = test_ndrange(1, N, 0, 0, 0, 0, 0);
	unsigned i;

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &value), 0);
	test_launch_wait(env, k, &r);
	test_read(env, buf, 0, sizeof(back), back);
	for (i = 0; i < N + PAD + OFF; i++)
		assert_int_equal(back[i], i < N ? 0xdeadbeef : 0);

	/* With a global offset and an explicit, non-dividing local size. */
	value = 42;
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &value), 0);
	r = test_ndrange(1, N, 0, 0, 10, 0, 0);
	r.global_offset[0] = OFF;
	test_launch_wait(env, k, &r);
	test_read(env, buf, 0, sizeof(back), back);
	for (i = 0; i < N + PAD + OFF; i++)
		assert_int_equal(back[i], i < OFF ? 0xdeadbeef :
					  i < OFF + N ? 42 :
							0);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static void test_copy_u8(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = built_in(env, "copy_u8");
	enum { N = 10007 };
	struct accel_buffer *src = test_buffer_new(env, N);
	struct accel_buffer *dst = test_buffer_new(env, N + 1);
	uint8_t *h = malloc(N + 1), *back = malloc(N + 1);
	struct accel_ndrange r = test_ndrange(1, N, 0, 0, 0, 0, 0);
	unsigned i;

	assert_non_null(h);
	assert_non_null(back);
	for (i = 0; i < N; i++)
		h[i] = (uint8_t)(i * 13 + 1);
	test_write(env, src, 0, N, h);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, dst), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, src), 0);
	test_launch_wait(env, k, &r);
	test_read(env, dst, 0, N + 1, back);
	assert_memory_equal(back, h, N);
	assert_int_equal(back[N], 0);
	free(h);
	free(back);
	accel_kernel_unref(k);
	accel_buffer_unref(src);
	accel_buffer_unref(dst);
}

static void run_sgemm(struct test_env *env, struct accel_kernel *k,
		      uint32_t m, uint32_t n, uint32_t kk, uint64_t l0,
		      uint64_t l1)
{
	struct accel_buffer *a = test_buffer_new(env, (uint64_t)m * kk * 4);
	struct accel_buffer *b = test_buffer_new(env, (uint64_t)kk * n * 4);
	struct accel_buffer *c = test_buffer_new(env, (uint64_t)m * n * 4);
	float *ha = malloc((size_t)m * kk * 4), *hb = malloc((size_t)kk * n * 4),
	      *hc = malloc((size_t)m * n * 4);
	struct accel_ndrange r = test_ndrange(2, n, m, 0, l0, l1, 0);
	uint32_t i, j, p;

	assert_non_null(ha);
	assert_non_null(hb);
	assert_non_null(hc);
	/* Deterministic values of both signs, exactly representable. */
	for (i = 0; i < m * kk; i++)
		ha[i] = (float)((int)((i * 7919u) % 17) - 8) / 4.0f;
	for (i = 0; i < kk * n; i++)
		hb[i] = (float)((int)((i * 104729u) % 13) - 6) / 8.0f;
	test_write(env, a, 0, (uint64_t)m * kk * 4, ha);
	test_write(env, b, 0, (uint64_t)kk * n * 4, hb);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, c), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, a), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, b), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 3, 4, &m), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 4, 4, &n), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 5, 4, &kk), 0);
	test_launch_wait(env, k, &r);
	test_read(env, c, 0, (uint64_t)m * n * 4, hc);

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double ref = 0, mag = 0, err;

			for (p = 0; p < kk; p++) {
				ref += (double)ha[i * kk + p] * hb[p * n + j];
				mag += fabs((double)ha[i * kk + p] *
					    hb[p * n + j]);
			}
			err = fabs(hc[i * n + j] - ref);
			if (err > 1e-5 * mag + 1e-6)
				fail_msg("sgemm %ux%ux%u local (%llu,%llu): "
					 "C[%u][%u] = %g, expected %g",
					 m, n, kk, (unsigned long long)l0,
					 (unsigned long long)l1, i, j,
					 (double)hc[i * n + j], ref);
		}
	free(ha);
	free(hb);
	free(hc);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
	accel_buffer_unref(c);
}

static void test_sgemm(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = built_in(env, "sgemm");

	run_sgemm(env, k, 1, 1, 1, 0, 0);
	run_sgemm(env, k, 37, 29, 53, 0, 0);
	run_sgemm(env, k, 37, 29, 53, 8, 4); /* non-uniform groups */
	run_sgemm(env, k, 64, 48, 96, 0, 0);
	run_sgemm(env, k, 128, 128, 128, 16, 4);
	run_sgemm(env, k, 3, 200, 1, 0, 0);
	accel_kernel_unref(k);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_new_native_bad_args),
		T(test_program_props),
		T(test_native_copies),
		T(test_kernel_new_get),
		T(test_arg_desc),
		T(test_set_args_errors),
		T(test_clone),
		T(test_kernel_outlives_program),
		T(test_built_in_bad_args),
		T(test_built_in_program),
		T(test_fill_u32),
		T(test_copy_u8),
		T(test_sgemm),
	};

	return TEST_RUN_GROUP("program", tests);
}
