/* SPDX-License-Identifier: MIT */
/*
 * Builds that hit a limit end with an error that names it, in the build
 * log: clang arguments beyond what exec takes (a long -I, many -D), a
 * clang that cannot be run at all, and LLVM's optimisation and code
 * generation past the deadline (a loop unrolled 100000 times, a switch of
 * 200000 cases: minutes of work each). The deadline tests check the error
 * and the log, never the time taken.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "accelc.h"

static const char src[] =
	"kernel void k(global int *o) { o[get_global_id(0)] = 1; }\n";

/* Build with @p opts, uncached; the error and the log. */
static int build_log(struct accelc_options *o, const char *text, char **log)
{
	struct accelc_result *res = NULL;
	int r;

	o->struct_size = sizeof(*o);
	o->flags |= ACCELC_FLAG_NO_CACHE;
	r = accelc_compile(o, text, strlen(text), &res);
	assert_non_null(res);
	*log = strdup(accelc_result_get_log(res));
	assert_non_null(*log);
	accelc_result_free(res);
	return r;
}

/* One -I of 300 KB: more than one exec argument may hold. */
static void test_long_include_dir(void **state)
{
	struct accelc_options o = { 0 };
	size_t n = 300 * 1024;
	char *opts = malloc(n + 8), *log;

	(void)state;
	assert_non_null(opts);
	strcpy(opts, "-I/");
	memset(opts + 3, 'd', n);
	opts[n + 3] = '\0';
	o.build_options = opts;
	assert_int_equal(build_log(&o, src, &log), -E2BIG);
	assert_non_null(strstr(log, "cannot run"));
	assert_non_null(strstr(log, "bytes long"));
	free(log);
	free(opts);
}

/* 100000 -D: more than all exec arguments together may hold. */
static void test_many_defines(void **state)
{
	struct accelc_options o = { 0 };
	size_t n = 100000, each = 80, len = 0;
	char *opts = malloc(n * each + 1), *log;

	(void)state;
	assert_non_null(opts);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(opts + len, each + 1,
					"-DM%06zu=%064zu ", i, i);
	o.build_options = opts;
	assert_int_equal(build_log(&o, src, &log), -E2BIG);
	assert_non_null(strstr(log, "cannot run"));
	free(log);
	free(opts);
}

/*
 * A clang whose exec fails in the child (here: a script naming an
 * interpreter that does not exist) is reported with exec's reason.
 */
static void test_exec_failure(void **state)
{
	struct accelc_options o = { 0 };
	char dir[] = "/tmp/accelc-limits-XXXXXX", path[64], *log;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/clang", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/nonexistent/interpreter\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	o.clang_path = path;
	assert_int_equal(build_log(&o, src, &log), -ENOENT);
	assert_non_null(strstr(log, "cannot run"));
	assert_non_null(strstr(log, strerror(ENOENT)));
	free(log);
	unlink(path);
	rmdir(dir);
}

/*
 * A host that closed its stdio: the pipes to the child may be made as fds
 * 0-2, and the child's stdout must still reach the build log (a wrapper
 * standing in for clang prints to it).
 */
static void test_closed_stdio(void **state)
{
	char dir[] = "/tmp/accelc-limits-XXXXXX", path[64], text[256];
	int status;
	pid_t pid;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/clang", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\necho stdout-of-clang\n"
		 "exec \"${ACCEL_CLANG:-clang-16}\" \"$@\"\n");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct accelc_options o = { .clang_path = path };
		char *log = NULL;
		int r;

		close(0);
		close(1);
		close(2);
		r = build_log(&o, src, &log);
		_exit(r == 0 && strstr(log, "stdout-of-clang") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink(path);
	rmdir(dir);
}

/* Minutes in LLVM's loop unroller and the passes after it. */
static const char unroll_src[] =
	"kernel void k(global int *o)\n"
	"{\n"
	"	int s = o[0];\n"
	"#pragma unroll 100000\n"
	"	for (int i = 0; i < 100000; i++)\n"
	"		s = s * 31 + o[i & 7] + i;\n"
	"	o[get_global_id(0)] = s;\n"
	"}\n";

/*
 * The deadline is that of each step (clang, code generation, linking):
 * one that clang's few milliseconds here never reach, while the optimiser
 * needs minutes.
 */
static void test_deadline_unroll(void **state)
{
	struct accelc_options o = { .timeout_ms = 5000 };
	char *log;

	(void)state;
	assert_int_equal(build_log(&o, unroll_src, &log), -ETIMEDOUT);
	assert_non_null(strstr(log, "did not finish within the deadline "
				    "of 5000 ms"));
	free(log);
}

/* The deadline from the environment, where accelc_options has none. */
static void test_deadline_env(void **state)
{
	struct accelc_options o = { 0 };
	char *log;

	(void)state;
	assert_int_equal(setenv("ACCEL_COMPILE_TIMEOUT_MS", "4000", 1), 0);
	assert_int_equal(build_log(&o, unroll_src, &log), -ETIMEDOUT);
	unsetenv("ACCEL_COMPILE_TIMEOUT_MS");
	assert_non_null(strstr(log, "deadline of 4000 ms"));
	free(log);
}

/*
 * 200000 cases: clang takes seconds, the passes minutes. Which step the
 * deadline ends depends on the machine's load; either way the build fails
 * with -ETIMEDOUT and says so.
 */
static void test_deadline_switch(void **state)
{
	struct accelc_options o = { .timeout_ms = 10000 };
	size_t n = 200000, cap = n * 40 + 256, len;
	char *text = malloc(cap), *log;

	(void)state;
	assert_non_null(text);
	len = (size_t)snprintf(text, cap, "kernel void k(global int *o) {\n"
			       "int x = o[0], r = 0;\nswitch (x) {\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"case %zu: r = %zu; break;\n", i * 7,
					i * 13 + 1);
	snprintf(text + len, cap - len, "}\no[get_global_id(0)] = r;\n}\n");
	assert_int_equal(build_log(&o, text, &log), -ETIMEDOUT);
	/* clang or the code generator, whichever the deadline meets */
	assert_non_null(strstr(log, "killed after 10000 ms"));
	free(log);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_include_dir),
		cmocka_unit_test(test_many_defines),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_closed_stdio),
		cmocka_unit_test(test_deadline_unroll),
		cmocka_unit_test(test_deadline_env),
		cmocka_unit_test(test_deadline_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
