/* SPDX-License-Identifier: MIT */
/*
 * Separate compilation through the public API: accel_program_compile()
 * with per-input options and embedded headers, accel_program_link() into
 * executables and libraries, object binaries round trip, and compile and
 * link errors with their logs. Skips where the compiler module was not
 * built.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

/* Both inputs define struct pair and a static helper of the same name:
 * each unit has its own. */
static const char a_src[] =
	"#include \"inc/scale.h\"\n"
	"typedef struct pair { int a, b; } pair;\n"
	"static int twice(int x) { return 2 * x; }\n"
	"global int counter = 5;\n"
	"int helper(pair p) { return twice(p.a) + p.b + FROM_A; }\n";
static const char b_src[] =
	"#include \"inc/scale.h\"\n"
	"typedef struct pair { int a, b; } pair;\n"
	"static int twice(int x) { return 20 * x; }\n"
	"extern int helper(pair p);\n"
	"kernel void k(global int *out)\n"
	"{\n"
	"	int i = (int)get_global_id(0);\n"
	"	pair p = { i, SCALE };\n"
	"	out[i] = helper(p) * 1000 + twice(FROM_B);\n"
	"}\n";
static const char *const hdr_names[] = { "inc/scale.h" };
static const char *const hdr_texts[] = { "#define SCALE 3\n" };

static bool have_compiler(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_COMPILER;
}

static struct accel_program *compile(struct test_env *env, const char *src,
				     const char *options)
{
	struct accel_program *obj = NULL;
	char *log = NULL;
	int r = accel_program_compile(env->dev, src, 0, options, 1, hdr_names,
				      hdr_texts, &log, &obj);

	if (r)
		fprintf(stderr, "%s", log ? log : "");
	assert_int_equal(r, 0);
	free(log);
	assert_int_equal(accel_program_get_kind(obj), ACCEL_PROGRAM_OBJECT);
	assert_int_equal(accel_program_get_kernel_count(obj), 0);
	return obj;
}

/* Run kernel k of @p prog over 4 items, check out[i]. */
static void run_and_check(struct test_env *env, struct accel_program *prog)
{
	struct accel_ndrange range = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	struct accel_buffer *buf = test_buffer_new(env, 16);
	struct accel_kernel *k = NULL;
	int out[4];

	assert_int_equal(accel_kernel_new(prog, "k", &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	test_launch_wait(env, k, &range);
	test_read(env, buf, 0, sizeof(out), out);
	/* helper: 2i + SCALE + FROM_A(1); twice in b: 20 * FROM_B(2) */
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i], (2 * i + 3 + 1) * 1000 + 40);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static void test_compile_link_run(void **state)
{
	struct test_env *env = *state;
	struct accel_program *in[2], *exe = NULL;
	uint64_t global = 0;
	char *log = NULL;

	if (!have_compiler(env))
		skip();
	/* each input keeps its own -D */
	in[0] = compile(env, a_src, "-DFROM_A=1 -cl-std=CL2.0");
	in[1] = compile(env, b_src, "-DFROM_B=2");
	assert_int_equal(accel_program_link(env->dev, 2, in, NULL, 0, &log,
					    &exe), 0);
	assert_non_null(log);
	free(log);
	assert_int_equal(accel_program_get_kind(exe), ACCEL_PROGRAM_EXECUTABLE);
	assert_int_equal(accel_program_get_kernel_count(exe), 1);
	assert_int_equal(accel_program_get_global_variable_size(exe, &global),
			 0);
	assert_int_equal(global, sizeof(int));
	run_and_check(env, exe);
	accel_program_unref(exe);
	accel_program_unref(in[0]);
	accel_program_unref(in[1]);
}

/* A library from one input, linked with the other; and an object's binary
 * loaded back before linking. */
static void test_library_and_binary(void **state)
{
	struct test_env *env = *state;
	struct accel_program *a, *b, *lib = NULL, *b2 = NULL, *exe = NULL;
	struct accel_program *in[2];
	const void *data;
	size_t size;

	if (!have_compiler(env))
		skip();
	a = compile(env, a_src, "-DFROM_A=1 -cl-std=CL3.0");
	b = compile(env, b_src, "-DFROM_B=2");
	assert_int_equal(accel_program_link(env->dev, 1, &a, NULL,
					    ACCEL_LINK_LIBRARY, NULL, &lib),
			 0);
	assert_int_equal(accel_program_get_kind(lib), ACCEL_PROGRAM_LIBRARY);
	assert_int_equal(accel_program_get_binary(b, &data, &size), 0);
	assert_int_equal(accel_program_new_binary(env->dev, data, size, &b2),
			 0);
	assert_int_equal(accel_program_get_kind(b2), ACCEL_PROGRAM_OBJECT);
	in[0] = b2;
	in[1] = lib;
	assert_int_equal(accel_program_link(env->dev, 2, in,
					    "-cl-fast-relaxed-math", 0, NULL,
					    &exe), 0);
	run_and_check(env, exe);
	/* an executable is no link input */
	in[1] = exe;
	assert_int_equal(accel_program_link(env->dev, 2, in, NULL, 0, NULL,
					    &lib), -EINVAL);
	accel_program_unref(exe);
	accel_program_unref(lib);
	accel_program_unref(b2);
	accel_program_unref(b);
	accel_program_unref(a);
}

static void expect_link_error(struct test_env *env, const char *s1,
			      const char *s2, const char *in_log)
{
	struct accel_program *in[2], *exe = (void *)&in;
	char *log = NULL;

	in[0] = compile(env, s1, NULL);
	in[1] = compile(env, s2, NULL);
	assert_int_equal(accel_program_link(env->dev, 2, in, NULL, 0, &log,
					    &exe), -ENOEXEC);
	assert_ptr_equal(exe, (void *)&in); /* untouched */
	assert_non_null(log);
	assert_non_null(strstr(log, in_log));
	free(log);
	accel_program_unref(in[0]);
	accel_program_unref(in[1]);
}

static void test_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_program *obj = NULL, *exe = NULL;
	const char *bad_name[] = { "../x.h" };
	char *log = NULL;

	if (!have_compiler(env))
		skip();
	/* compile errors come from compiling, with the log */
	assert_int_equal(accel_program_compile(env->dev,
					       "int f(void) { return nope; }",
					       0, NULL, 0, NULL, NULL, &log,
					       &obj), -ENOEXEC);
	assert_null(obj);
	assert_non_null(log);
	assert_non_null(strstr(log, "nope"));
	free(log);
	log = NULL;
	assert_int_equal(accel_program_compile(env->dev, "int x;", 0, NULL, 1,
					       bad_name, hdr_texts, &log,
					       &obj), -EINVAL);
	free(log);
	assert_int_equal(accel_program_compile(env->dev, "int x;", 0,
					       "-fno-such-option", 0, NULL,
					       NULL, NULL, &obj), -EINVAL);
	assert_int_equal(accel_program_compile(env->dev, "int x;", 0, NULL, 1,
					       NULL, NULL, NULL, &obj),
			 -EINVAL);
	assert_null(obj);
	/* link errors: undefined, defined twice */
	expect_link_error(env, "int g(void);\nkernel void k(global int *o)"
			  " { o[0] = g(); }\n", "int unused(void) { return 0; }",
			  "g");
	expect_link_error(env, "int g(void) { return 1; }\n",
			  "int g(void) { return 2; }\n", "g");
	/* arguments */
	obj = compile(env, "int h(void) { return 1; }\n", NULL);
	assert_int_equal(accel_program_link(env->dev, 0, &obj, NULL, 0, NULL,
					    &exe), -EINVAL);
	assert_int_equal(accel_program_link(env->dev, 1, &obj, NULL, 4, NULL,
					    &exe), -EINVAL);
	assert_int_equal(accel_program_link(NULL, 1, &obj, NULL, 0, NULL,
					    &exe), -EINVAL);
	assert_int_equal(accel_program_link(env->dev, 1, &obj, "-bogus", 0,
					    NULL, &exe), -EINVAL);
	assert_int_equal(accel_program_link(env->dev, 1, &env->prog, NULL, 0,
					    NULL, &exe), -EINVAL);
	assert_null(exe);
	assert_int_equal(accel_program_get_kind(NULL), -EINVAL);
	accel_program_unref(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_compile_link_run,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_library_and_binary,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_errors, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("program-link", tests);
}
