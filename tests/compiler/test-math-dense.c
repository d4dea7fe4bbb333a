/* SPDX-License-Identifier: MIT */
/*
 * Float math builtins whose vectorised form calls glibc's libmvec (sin,
 * cos, exp, log, tan, tanh, asin, acos, acosh, atan, cosh, expm1, log2,
 * erf), over runs of consecutive inputs around the places
 * where libmvec is least accurate, against a long double host reference
 * within OpenCL's limits (OpenCL 3.0 7.4, full profile). Random inputs
 * (compiler-math-float) rarely land on such places: libmvec's logf was
 * 3.97 ulp off at 0x1.c3fd74p-1, where OpenCL allows 3 (CTS
 * math_brute_force log, in wimpy mode at 0x1.5566p-1). The later runs
 * start just below the worst inputs a sweep of every 64th float through
 * the 'b', 'd' and 'e' variants found.
 *
 * Each kernel is element-wise, so the work-item loop is vectorised and
 * the call goes to the libmvec variant of the code level's widest ISA.
 *
 * Also x / y, 1 / x and sqrt under -cl-fast-relaxed-math, where the x86
 * backend may replace the division by a reciprocal estimate: OpenCL 3.0
 * 7.4 allows 2.5 ulp for x / y (y in [2^-62, 2^62]) and 1 / x; rcpps and
 * one Newton step were 3 ulp off (CTS math_brute_force divide, relaxed,
 * at {-0x1.18ab7p+30, 0x1.31efd6p-48}).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

/* inputs per run: 2^18 consecutive floats */
#define RUN (1u << 18)

static const char src[] =
	"#define K(F) kernel void k_##F(global float *r, uint base)\\\n"
	"{\\\n"
	"	size_t i = get_global_id(0);\\\n"
	"	r[i] = F(as_float(base + (uint)i));\\\n"
	"}\n"
	"K(sin) K(cos) K(exp) K(log) K(tan) K(tanh) K(asin) K(acos)\n"
	"K(acosh) K(atan) K(cosh) K(expm1) K(log2) K(erf)\n";

static const struct run {
	const char *fn;
	long double (*ref)(long double);
	double ulp;  /* OpenCL's limit */
	float first; /* the run starts here */
} runs[] = {
	{ "sin", sinl, 4.0, 0x1.2d8p+2f },
	{ "cos", cosl, 4.0, 0x1.5bep+10f },
	{ "exp", expl, 3.0, -0x1.79p+2f },
	{ "log", logl, 3.0, 0x1.c3p-1f },
	{ "log", logl, 3.0, 0x1.556p-1f },
	{ "tan", tanl, 5.0, 0x1.9dcp+12f },
	{ "tan", tanl, 5.0, 0x1.51p+0f },
	{ "tanh", tanhl, 5.0, 0x1.07fp+1f },
	{ "tanh", tanhl, 5.0, 0x1.014p-1f },
	{ "asin", asinl, 4.0, 0x1.0e5p-1f },
	{ "acos", acosl, 4.0, 0x1.f12p-1f },
	{ "acosh", acoshl, 4.0, 0x1.01fp+0f },
	{ "atan", atanl, 5.0, 0x1.02cp+0f },
	{ "cosh", coshl, 4.0, 0x1.0a1p+3f },
	{ "expm1", expm1l, 3.0, -0x1.637p-7f },
	{ "log2", log2l, 3.0, 0x1.561p+0f },
	{ "erf", erfl, 16.0, 0x1.d3ap+1f },
};

static void test_dense(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL1.2");
	struct accel_buffer *bo = ct_buffer(env, RUN * sizeof(float), NULL);
	float *out = malloc(RUN * sizeof(float));
	unsigned bad = 0;

	assert_non_null(out);
	for (size_t k = 0; k < TEST_ARRAY_SIZE(runs); k++) {
		const struct run *t = &runs[k];
		char name[16];
		double worst = 0;
		float at = 0;
		uint32_t base;

		memcpy(&base, &t->first, sizeof(base));
		snprintf(name, sizeof(name), "k_%s", t->fn);
		CT_RUN(env, prog, name, RUN, 256, CT_BUF(bo), CT_VAL(base));
		test_read(env, bo, 0, RUN * sizeof(float), out);
		for (uint32_t i = 0; i < RUN; i++) {
			uint32_t u = base + i;
			float x;
			double e;

			memcpy(&x, &u, sizeof(x));
			e = ct_ulp_error(out[i], t->ref(x), 24, -126);
			if (e > worst) {
				worst = e;
				at = x;
			}
		}
		printf("%-6s from %-14a worst %.3g ulp\n", t->fn,
		       (double)t->first, worst);
		if (worst > t->ulp) {
			bad++;
			print_error("%s: %.3f ulp at %a (limit %.1f)\n", t->fn,
				    worst, (double)at, t->ulp);
		}
	}
	accel_buffer_unref(bo);
	accel_program_unref(prog);
	free(out);
	if (bad)
		fail_msg("%u runs beyond the limit", bad);
}

static const char relaxed_src[] =
	"kernel void k_div(global float *r, global const float *a,\n"
	"		   global const float *b)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	r[i] = a[i] / b[i];\n"
	"}\n"
	"kernel void k_recip(global float *r, global const float *a,\n"
	"		     global const float *b)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	r[i] = 1.0f / b[i];\n"
	"}\n"
	"kernel void k_sqrt(global float *r, global const float *a,\n"
	"		    global const float *b)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	r[i] = sqrt(b[i]);\n"
	"}\n";

/* A float of random sign and mantissa, exponent in [-62, 62). */
static float relaxed_operand(unsigned *seed, int sign)
{
	uint32_t mant = (uint32_t)rand_r(seed) & 0x7fffffu;
	uint32_t e = 127u - 62u + (uint32_t)rand_r(seed) % 124u;
	uint32_t u = mant | e << 23 | (sign && rand_r(seed) & 1 ? 1u << 31 : 0);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void test_relaxed_divide(void **state)
{
	static const struct {
		const char *kernel;
		double ulp;
	} fns[] = { { "k_div", 2.5 }, { "k_recip", 2.5 }, { "k_sqrt", 3.0 } };
	struct test_env *env = *state;
	struct accel_program *prog =
		ct_build(env, relaxed_src, "-cl-fast-relaxed-math");
	float *a = malloc(RUN * sizeof(float));
	float *b = malloc(RUN * sizeof(float));
	float *out = malloc(RUN * sizeof(float));
	struct accel_buffer *ra, *ba, *bb;
	unsigned seed = 1, bad = 0;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(out);
	for (uint32_t i = 0; i < RUN; i++) {
		a[i] = relaxed_operand(&seed, 1);
		b[i] = relaxed_operand(&seed, 1);
	}
	/* the CTS's case, in the vector body and in the scalar tail */
	a[17] = a[RUN - 1] = -0x1.18ab7p+30f;
	b[17] = b[RUN - 1] = 0x1.31efd6p-48f;
	ra = ct_buffer(env, RUN * sizeof(float), NULL);
	ba = ct_buffer(env, RUN * sizeof(float), a);
	bb = ct_buffer(env, RUN * sizeof(float), b);
	for (size_t k = 0; k < TEST_ARRAY_SIZE(fns); k++) {
		double worst = 0;
		uint32_t at = 0;

		CT_RUN(env, prog, fns[k].kernel, RUN, 256, CT_BUF(ra),
		       CT_BUF(ba), CT_BUF(bb));
		test_read(env, ra, 0, RUN * sizeof(float), out);
		for (uint32_t i = 0; i < RUN; i++) {
			long double ref;
			double e;

			if (k == 0)
				ref = (long double)a[i] / b[i];
			else if (k == 1)
				ref = 1.0L / b[i];
			else
				ref = b[i] < 0 ? NAN : sqrtl(b[i]);
			if (isnan(ref)) {
				if (!isnan(out[i]))
					e = INFINITY;
				else
					continue;
			} else {
				e = ct_ulp_error(out[i], ref, 24, -126);
			}
			if (e > worst) {
				worst = e;
				at = i;
			}
		}
		printf("%-8s relaxed worst %.3g ulp\n", fns[k].kernel + 2,
		       worst);
		if (worst > fns[k].ulp) {
			bad++;
			print_error("%s: %.3f ulp at {%a, %a} (limit %.1f)\n",
				    fns[k].kernel, worst, (double)a[at],
				    (double)b[at], fns[k].ulp);
		}
	}
	accel_buffer_unref(ra);
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_program_unref(prog);
	free(a);
	free(b);
	free(out);
	if (bad)
		fail_msg("%u relaxed functions beyond the limit", bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dense, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_relaxed_divide,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-math-dense", tests);
}
