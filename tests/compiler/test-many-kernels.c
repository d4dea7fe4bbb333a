/* SPDX-License-Identifier: MIT */
/*
 * A program with more kernels than the 4096 the program binary once had
 * room for: it builds, every kernel is listed, and the last one runs. A
 * kernel with more arguments than the binary holds fails to build, and
 * the log says why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_KERNELS 4200u

static void test_many_kernels(void **state)
{
	struct test_env *env = *state;
	struct ct_str src = { 0 };
	struct accel_program *prog;
	struct accel_buffer *b;
	const char *kname = NULL;
	char name[32];
	int out[2] = { 0, 0 };

	for (unsigned i = 0; i < N_KERNELS; i++)
		ct_printf(&src, "kernel void k%u(global int *p) "
				"{ p[%u] = %u; }\n", i, i & 1, i);
	prog = ct_build(env, src.buf, NULL);
	assert_int_equal(accel_program_get_kernel_count(prog), N_KERNELS);
	assert_int_equal(accel_program_get_kernel_name(prog, N_KERNELS - 1,
						       &kname),
			 0);
	assert_non_null(kname);

	b = ct_buffer(env, sizeof(out), NULL);
	snprintf(name, sizeof(name), "k%u", N_KERNELS - 1);
	CT_RUN(env, prog, name, 1, 1, CT_BUF(b));
	test_read(env, b, 0, sizeof(out), out);
	assert_int_equal(out[(N_KERNELS - 1) & 1], (int)(N_KERNELS - 1));
	accel_buffer_unref(b);
	accel_program_unref(prog);
	ct_str_free(&src);
}

/*
 * More arguments than the program binary holds: refused before code
 * generation, as a build failure that the log explains (not -EINVAL,
 * which reads as bad build options).
 */
static void test_too_many_args(void **state)
{
	struct test_env *env = *state;
	struct ct_str src = { 0 };
	char *log = NULL;

	ct_printf(&src, "kernel void wide(");
	for (unsigned i = 0; i < 1025; i++)
		ct_printf(&src, "%sint a%u", i ? ", " : "", i);
	ct_printf(&src, ") { }\n");
	assert_int_equal(ct_build_fail(env, src.buf, NULL, &log), -ENOEXEC);
	assert_non_null(log);
	assert_non_null(strstr(log, "1025 arguments"));
	free(log);
	ct_str_free(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_many_kernels,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_too_many_args,
						test_env_setup,
						test_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
