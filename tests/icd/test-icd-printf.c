/* SPDX-License-Identifier: MIT */
/*
 * printf() in kernels through the OpenCL ICD: CL_DEVICE_PRINTF_BUFFER_SIZE
 * and the output on stdout (redirected to a file here), complete once
 * clFinish() returns, in enqueue order.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icd-test.h"

static const char src[] =
	"kernel void first(int base)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	printf(\"first %d: %v4hld|%s|%.2f\\n\", i,\n"
	"	       (int4)(base, i, -i, 7), \"str\", 0.5f * i);\n"
	"}\n"
	"kernel void second(void)\n"
	"{\n"
	"	printf(\"second %d\\n\", (int)get_global_id(0));\n"
	"}\n";

/* stdout goes to a fresh file until stdout_end(), which returns its text. */
struct redirect {
	int saved, fd;
};

static void stdout_begin(struct redirect *r)
{
	char path[] = "/tmp/accel-icd-printf-XXXXXX";

	r->fd = mkstemp(path);
	assert_true(r->fd >= 0);
	unlink(path);
	fflush(stdout);
	r->saved = dup(STDOUT_FILENO);
	assert_true(r->saved >= 0);
	assert_int_equal(dup2(r->fd, STDOUT_FILENO), STDOUT_FILENO);
}

static char *stdout_end(struct redirect *r)
{
	off_t size = lseek(r->fd, 0, SEEK_END);
	char *text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
	ssize_t got = text ? pread(r->fd, text, (size_t)size, 0) : -1;

	/* no fflush(stdout) before reading: completion flushed it */
	dup2(r->saved, STDOUT_FILENO);
	close(r->saved);
	close(r->fd);
	assert_non_null(text);
	assert_int_equal(got, size);
	return text;
}

static void test_buffer_size(void **state)
{
	struct icd_env *env = *state;
	size_t size = 0;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_PRINTF_BUFFER_SIZE,
			      sizeof(size), &size, NULL));
	/* the specification's minimum for a full profile is 1 MB */
	assert_true(size >= 1024 * 1024);
}

static void test_stdout(void **state)
{
	struct icd_env *env = *state;
	const size_t n = 64;
	cl_int base = 1000, err;
	cl_program prog;
	cl_kernel k1, k2;
	struct redirect r;
	char *text, *line, *save = NULL;
	unsigned seen[64] = { 0 }, lines = 0;

	if (!icd_test_have_compiler(env))
		skip();
	prog = icd_test_build(env, src, NULL);
	k1 = clCreateKernel(prog, "first", &err);
	CL_OK(err);
	k2 = clCreateKernel(prog, "second", &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(k1, 0, sizeof(base), &base));

	stdout_begin(&r);
	err = clEnqueueNDRangeKernel(env->queue, k1, 1, NULL, &n, NULL, 0,
				     NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueNDRangeKernel(env->queue, k2, 1, NULL, &n,
					     NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clFinish(env->queue);
	text = stdout_end(&r);
	CL_OK(err);

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), lines++) {
		unsigned i;
		char *want;

		if (lines < n) {
			/* the first kernel's lines, in any order */
			assert_int_equal(sscanf(line, "first %u:", &i), 1);
			assert_true(i < n);
			assert_true(asprintf(&want,
					     "first %u: %d,%u,%d,7|str|%.2f",
					     i, base, i, -(int)i,
					     0.5 * i) > 0);
		} else {
			assert_int_equal(sscanf(line, "second %u", &i), 1);
			assert_true(i < n);
			assert_true(asprintf(&want, "second %u", i) > 0);
		}
		assert_string_equal(line, want);
		free(want);
		seen[i]++;
	}
	assert_int_equal(lines, 2 * n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(seen[i], 2);
	free(text);
	clReleaseKernel(k1);
	clReleaseKernel(k2);
	clReleaseProgram(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_buffer_size,
						icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_stdout, icd_env_setup,
						icd_env_teardown),
	};

	return ICD_TEST_RUN("icd-printf", tests);
}
