/* SPDX-License-Identifier: MIT */
/* Helpers of the builtin test corpus (see compiler-test.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accelc.h"
#include "compiler-test.h"

/*
 * $CT_BUILD_TARGET names a target (a code tier or a CPU, as
 * ACCEL_CPU_TARGET) to build every program of the corpus for as well,
 * through accelc: code generation only, so the target may be one this
 * CPU cannot run. tools/run-tests.sh sets it for the levels the host
 * lacks ("built and checked, not run"); the tests still run on the
 * device's own code.
 */
static void build_for_target(const char *src, const char *options)
{
	const char *target = getenv("CT_BUILD_TARGET");
	struct accelc_options o = {
		.struct_size = sizeof(o),
		.build_options = options,
		.target = target,
	};
	struct accelc_result *res = NULL;
	int r;

	if (!target || !*target)
		return;
	r = accelc_compile(&o, src, strlen(src), &res);
	if (r) {
		print_error("build (%s) for %s failed: %d\n%s\n",
			    options ? options : "", target, r,
			    res ? accelc_result_get_log(res) : "");
		accelc_result_free(res);
		fail();
	}
	accelc_result_free(res);
}

static bool have_compiler(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_COMPILER;
}

struct accel_program *ct_build(struct test_env *env, const char *src,
			       const char *options)
{
	struct accel_program *prog = NULL;
	struct timespec t0, t1;
	char *log = NULL;
	int r;

	if (!have_compiler(env))
		skip();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = accel_program_new_source(env->dev, src, 0, options, &log, &prog);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("build (%s): %.1f s\n", options ? options : "",
		      (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	if (r) {
		print_error("build (%s) failed: %d\n%s\n",
			    options ? options : "", r, log ? log : "");
		free(log);
		fail();
	}
	free(log);
	build_for_target(src, options);
	return prog;
}

int ct_build_fail(struct test_env *env, const char *src, const char *options,
		  char **log)
{
	struct accel_program *prog = NULL;
	int r;

	if (!have_compiler(env))
		skip();
	*log = NULL;
	r = accel_program_new_source(env->dev, src, 0, options, log, &prog);
	if (!r) {
		accel_program_unref(prog);
		print_error("build (%s) unexpectedly succeeded\n",
			    options ? options : "");
		fail();
	}
	return r;
}

struct accel_buffer *ct_buffer(struct test_env *env, size_t size,
			       const void *init)
{
	struct accel_buffer *buf = test_buffer_new(env, size);
	void *zero = NULL;

	if (!init) {
		zero = calloc(1, size);
		assert_non_null(zero);
		init = zero;
	}
	test_write(env, buf, 0, size, init);
	free(zero);
	return buf;
}

void ct_run_range(struct test_env *env, struct accel_program *prog,
		  const char *name, const struct accel_ndrange *range,
		  const struct ct_arg *args, unsigned n_args)
{
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	for (unsigned i = 0; i < n_args; i++) {
		switch (args[i].kind) {
		case CT_ARG_BUF:
			assert_int_equal(accel_kernel_set_arg_buffer(
						 k, i, args[i].buf), 0);
			break;
		case CT_ARG_VAL:
			assert_int_equal(accel_kernel_set_arg_value(
						 k, i, args[i].size,
						 args[i].val), 0);
			break;
		case CT_ARG_LOCAL:
			assert_int_equal(accel_kernel_set_arg_local(
						 k, i, args[i].size), 0);
			break;
		}
	}
	test_launch_wait(env, k, range);
	accel_kernel_unref(k);
}

void ct_run(struct test_env *env, struct accel_program *prog,
	    const char *name, uint64_t global, uint64_t local,
	    const struct ct_arg *args, unsigned n_args)
{
	struct accel_ndrange range;

	/* the runtime's own choice may be tiny groups, each with its
	 * per-group cost: 64 (the last group may be partial) */
	if (!local)
		local = global < 64 ? global : 64;
	range = test_ndrange(1, global, 0, 0, local, 0, 0);

	ct_run_range(env, prog, name, &range, args, n_args);
}

double ct_ulp_error(long double test, long double ref, int mant, int emin)
{
	long double big = ldexpl(1.0L, -emin + 2); /* 2^(emax + 1) */
	int e;

	if (isnan(ref))
		return isnan(test) ? 0.0 : INFINITY;
	if (isnan(test))
		return INFINITY;
	/* beyond the format's range the correctly rounded result is inf */
	if (fabsl(ref) >= big)
		ref = copysignl(big, ref);
	if (isinf(test))
		test = copysignl(big, test);
	e = ref == 0.0L ? emin : ilogbl(ref);
	if (e < emin)
		e = emin;
	return (double)(fabsl(test - ref) / ldexpl(1.0L, e - (mant - 1)));
}

unsigned ct_sub_group_width(struct accel_program *prog, const char *name)
{
	struct accel_kernel *k;
	uint32_t w = 0;

	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	assert_int_equal(accel_kernel_get_sub_group_size(k, &w), 0);
	assert_int_equal(accel_kernel_get_sub_group_size(k, NULL), -EINVAL);
	accel_kernel_unref(k);
	return w;
}

struct ct_sub_group ct_sub_group_of(uint64_t g, uint64_t n, uint64_t l,
				    unsigned w)
{
	struct ct_sub_group sg;
	uint64_t i;

	sg.group = g / l * l;
	sg.group_size = n - sg.group < l ? n - sg.group : l;
	i = g - sg.group;
	sg.id = i / w;
	sg.lane = i % w;
	sg.first = g - sg.lane;
	sg.size = sg.group_size - (i - sg.lane) < w ?
		  sg.group_size - (i - sg.lane) : w;
	/* of the enqueued group, a partial one too */
	sg.max = l < w ? l : w;
	return sg;
}

uint64_t ct_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

double ct_rand_range(uint64_t *s, double lo, double hi)
{
	double u = (double)(ct_rand(s) >> 11) * 0x1p-53;

	return lo + (hi - lo) * u;
}

void ct_rand_ints(int32_t *x, size_t n, uint64_t *s, int32_t lo, int32_t hi)
{
	uint64_t span = (uint64_t)((int64_t)hi - lo + 1);

	for (size_t i = 0; i < n; i++)
		x[i] = lo + (int32_t)(ct_rand(s) % span);
}

void ct_printf(struct ct_str *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!s->buf) {
		s->cap = 256;
		s->len = 0;
		s->buf = malloc(s->cap);
		assert_non_null(s->buf);
	}
	for (;;) {
		size_t room = s->cap - s->len;

		va_start(ap, fmt);
		n = vsnprintf(s->buf + s->len, room, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		s->cap = (s->cap + (size_t)n + 1) * 2;
		s->buf = realloc(s->buf, s->cap);
		assert_non_null(s->buf);
	}
}

void ct_str_free(struct ct_str *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}
