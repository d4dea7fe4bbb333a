/* SPDX-License-Identifier: MIT */
/*
 * Float math builtins whose vectorised form calls glibc's libmvec (sin,
 * cos, exp, log), over runs of consecutive inputs around the places
 * where libmvec is least accurate, against a long double host reference
 * within OpenCL's limits (OpenCL 3.0 7.4, full profile). Random inputs
 * (compiler-math-float) rarely land on such places: libmvec's logf was
 * 3.97 ulp off at 0x1.c3fd74p-1, where OpenCL allows 3 (CTS
 * math_brute_force log, in wimpy mode at 0x1.5566p-1).
 *
 * Each kernel is element-wise, so the work-item loop is vectorised and
 * the call goes to the libmvec variant of the code level's widest ISA.
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
	"K(sin) K(cos) K(exp) K(log)\n";

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dense, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-math-dense", tests);
}
