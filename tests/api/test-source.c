/* SPDX-License-Identifier: MIT */
/*
 * Programs from OpenCL C source through the public API: build, kernel
 * info, launch, build failures with their log. Skips where the compiler
 * module was not built.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

static const char vadd_src[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c, float scale)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = (a[i] + b[i]) * scale;\n"
	"}\n"
	"kernel void reduce(global const uint *in, global uint *out,\n"
	"		    local uint *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	tmp[l] = in[get_global_id(0)];\n"
	"	for (size_t s = n / 2; s > 0; s /= 2) {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (l < s)\n"
	"			tmp[l] += tmp[l + s];\n"
	"	}\n"
	"	if (l == 0)\n"
	"		out[get_group_id(0)] = tmp[0];\n"
	"}\n";

static bool have_compiler(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_COMPILER;
}

static void test_build_and_run(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *a, *b, *c;
	struct accel_kernel_arg_desc desc = { .struct_size = sizeof(desc) };
	struct accel_ndrange range = test_ndrange(1, 4099, 0, 0, 0, 0, 0);
	const char *name;
	float *pa, *pb, *pc, scale = 0.5f;
	char *log = NULL;
	unsigned i;

	if (!have_compiler(env))
		skip();
	assert_int_equal(accel_program_new_source(env->dev, vadd_src, 0,
						  "-cl-std=CL1.2", &log, &prog),
			 0);
	assert_non_null(log);
	free(log);
	assert_int_equal(accel_program_get_kernel_count(prog), 2);
	assert_int_equal(accel_program_get_kernel_name(prog, 0, &name), 0);
	assert_true(!strcmp(name, "vadd") || !strcmp(name, "reduce"));

	assert_int_equal(accel_kernel_new(prog, "vadd", &k), 0);
	assert_int_equal(accel_kernel_get_arg_count(k), 4);
	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &desc), 0);
	assert_int_equal(desc.kind, ACCEL_KERNEL_ARG_BUFFER);
	assert_int_equal(desc.address_space, ACCEL_KERNEL_ARG_ADDR_GLOBAL);
	assert_true(desc.type_qualifiers & ACCEL_KERNEL_ARG_TYPE_CONST);
	assert_string_equal(desc.name, "a");
	assert_int_equal(accel_kernel_get_arg_desc(k, 3, &desc), 0);
	assert_int_equal(desc.kind, ACCEL_KERNEL_ARG_VALUE);
	assert_int_equal(desc.size, 4);

	a = test_buffer_new(env, 4099 * 4);
	b = test_buffer_new(env, 4099 * 4);
	c = test_buffer_new(env, 4099 * 4);
	assert_int_equal(accel_buffer_map(a, 0, 4099 * 4, ACCEL_MAP_WRITE,
					  (void **)&pa), 0);
	assert_int_equal(accel_buffer_map(b, 0, 4099 * 4, ACCEL_MAP_WRITE,
					  (void **)&pb), 0);
	for (i = 0; i < 4099; i++) {
		pa[i] = (float)i;
		pb[i] = 3.0f * (float)i;
	}
	assert_int_equal(accel_buffer_unmap(a, pa), 0);
	assert_int_equal(accel_buffer_unmap(b, pb), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, b), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, c), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 3, 4, &scale), 0);
	test_launch_wait(env, k, &range);
	assert_int_equal(accel_buffer_map(c, 0, 4099 * 4, ACCEL_MAP_READ,
					  (void **)&pc), 0);
	for (i = 0; i < 4099; i++)
		assert_true(pc[i] == 2.0f * (float)i);
	assert_int_equal(accel_buffer_unmap(c, pc), 0);

	accel_kernel_unref(k);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
	accel_buffer_unref(c);
	accel_program_unref(prog);
}

static void test_barrier_reduction(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *in, *out;
	static const uint64_t sizes[] = { 1, 2, 16, 64, 256 };
	uint32_t *p, n = 1024;
	unsigned s, i;

	if (!have_compiler(env))
		skip();
	assert_int_equal(accel_program_new_source(env->dev, vadd_src,
						  strlen(vadd_src), NULL, NULL,
						  &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "reduce", &k), 0);
	in = test_buffer_new(env, n * 4);
	out = test_buffer_new(env, n * 4);
	assert_int_equal(accel_buffer_map(in, 0, n * 4, ACCEL_MAP_WRITE,
					  (void **)&p), 0);
	for (i = 0; i < n; i++)
		p[i] = i;
	assert_int_equal(accel_buffer_unmap(in, p), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, in), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, out), 0);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct accel_ndrange range =
			test_ndrange(1, n, 0, 0, sizes[s], 0, 0);

		assert_int_equal(accel_kernel_set_arg_local(k, 2, sizes[s] * 4),
				 0);
		test_launch_wait(env, k, &range);
		assert_int_equal(accel_buffer_map(out, 0, n * 4, ACCEL_MAP_READ,
						  (void **)&p), 0);
		for (i = 0; i < n / sizes[s]; i++) {
			uint32_t first = i * (uint32_t)sizes[s];
			uint32_t last = first + (uint32_t)sizes[s] - 1;

			assert_int_equal(p[i],
					 (first + last) * (uint32_t)sizes[s] / 2);
		}
		assert_int_equal(accel_buffer_unmap(out, p), 0);
	}
	accel_kernel_unref(k);
	accel_buffer_unref(in);
	accel_buffer_unref(out);
	accel_program_unref(prog);
}

static void test_build_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	char *log = NULL;

	assert_int_equal(accel_program_new_source(NULL, vadd_src, 0, NULL,
						  NULL, &prog), -EINVAL);
	assert_int_equal(accel_program_new_source(env->dev, NULL, 0, NULL,
						  NULL, &prog), -EINVAL);
	assert_int_equal(accel_program_new_source(env->dev, vadd_src, 0, NULL,
						  NULL, NULL), -EINVAL);
	if (!have_compiler(env))
		skip();

	/* A syntax error: -ENOEXEC and a log that points at the line. */
	assert_int_equal(accel_program_new_source(env->dev,
						  "kernel void f() { x }", 0,
						  NULL, &log, &prog),
			 -ENOEXEC);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_non_null(strstr(log, "error"));
	free(log);

	/*
	 * A function declared, called, defined nowhere: -ENOEXEC and a log
	 * in the program's terms (no linker paths or work-group names).
	 */
	log = NULL;
	assert_int_equal(accel_program_new_source(env->dev,
			 "float helper(float x);\n"
			 "kernel void k(global float *a)\n"
			 "{ a[get_global_id(0)] = helper(a[0]); }\n", 0,
			 NULL, &log, &prog), -ENOEXEC);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	if (!strstr(log, "error: 'helper' is called but not defined in the "
			 "program (called in kernel 'k')") ||
	    strstr(log, "/tmp") || strstr(log, "__wg"))
		fail_msg("build log: %s", log);
	free(log);

	/* An unknown option: -EINVAL and the log names it. */
	log = NULL;
	assert_int_equal(accel_program_new_source(env->dev, vadd_src, 0,
						  "-fno-such-option", &log,
						  &prog),
			 -EINVAL);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_non_null(strstr(log, "-fno-such-option"));
	free(log);

	/* Compiles, but beyond the device's limits: the log says which. */
	log = NULL;
	{
		char src[8192] = "kernel void many(";
		size_t len = strlen(src);

		for (int i = 0; i < 300; i++)
			len += (size_t)snprintf(src + len, sizeof(src) - len,
						"%sint a%d", i ? ", " : "", i);
		snprintf(src + len, sizeof(src) - len, ") { }\n");
		assert_int_equal(accel_program_new_source(env->dev, src, 0,
							  NULL, &log, &prog),
				 -E2BIG);
	}
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_non_null(strstr(log, "beyond this device's limits"));
	free(log);
}

/*
 * A compiler module that cannot be loaded, or is not ours: the build fails
 * with -EOPNOTSUPP and says why in the context's log (which once
 * deadlocked: the failure was logged under the context's lock).
 */
static void test_bad_compiler_module(void **state)
{
	const char *modules[2] = { "/etc/passwd" /* not ELF */, NULL };
	const char *saved = getenv("ACCEL_COMPILER");
	char *keep = saved ? strdup(saved) : NULL;
	Dl_info info;
	size_t i;

	(void)state;
	/* A shared object that loads but has no accelc_* entry points. */
	assert_true(dladdr((void *)setenv, &info) && info.dli_fname);
	modules[1] = info.dli_fname;
	for (i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		struct accel_program *prog = TEST_SENTINEL_PTR;
		struct accel_context *ctx = NULL;
		struct accel_device *dev = NULL;
		struct test_log log;

		test_log_init(&log);
		assert_int_equal(setenv("ACCEL_COMPILER", modules[i], 1), 0);
		assert_int_equal(test_context_new(&log, &ctx), 0);
		assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
		assert_int_equal(accel_program_new_source(dev, vadd_src, 0,
							  NULL, NULL, &prog),
				 -EOPNOTSUPP);
		assert_ptr_equal(prog, TEST_SENTINEL_PTR);
		assert_true(test_log_count(&log, ACCEL_LOG_ERR) >= 1);
		accel_device_unref(dev);
		accel_context_unref(ctx);
		test_log_fini(&log);
	}
	if (keep)
		setenv("ACCEL_COMPILER", keep, 1);
	else
		unsetenv("ACCEL_COMPILER");
	free(keep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_and_run,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_barrier_reduction,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_bad_compiler_module,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_build_errors,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("source", tests);
}
