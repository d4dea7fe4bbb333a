/* SPDX-License-Identifier: MIT */
/*
 * Math builtins (OpenCL C 6.15.2) against a long double host reference,
 * within the specification's ULP limits (OpenCL 3.0 7.4, full profile),
 * for every width (1, 2, 3, 4, 8, 16): one kernel per function selects
 * the width at run time and the same inputs go through each. Built as
 * compiler-math-float, with CT_DOUBLE compiler-math-double and with
 * CT_HALF compiler-math-half (cl_khr_fp16; _Float16 on the host, whose
 * conversions from long double round once).
 *
 * Inputs (math-inputs.c): the special values (zeros, infinities, NaN,
 * subnormals, the extremes), all their pairs for two-argument functions,
 * then seeded random values from the function's domain, log-uniform
 * magnitudes and random bit patterns. The references and limits are in
 * math-fns.c, the checks in math-check.c; this file builds and runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-math.h"

#ifdef CT_DOUBLE
#define OPTIONS "-cl-std=CL3.0 -DT=double"
#elif defined(CT_HALF)
#define OPTIONS "-cl-std=CL3.0 -DT=half"
#else
#define OPTIONS "-cl-std=CL1.2 -DT=float"
#endif

/* The kernels: k_<fn>(a, b, c, n, r, r2, ri, w) computes r[i] (and r2,
 * ri for the pointer results) from a, b, c, n at width w. */
static const char preamble[] =
	"#ifdef cl_khr_fp64\n"
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#endif\n"
	"#ifdef cl_khr_fp16\n"
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#endif\n"
	"#define CAT_(a, b) a##b\n"
	"#define CAT(a, b) CAT_(a, b)\n"
	"#define V(N) CAT(T, N)\n"
	"#define VI(N) CAT(int, N)\n"
	"#define LD(N, p) CAT(vload, N)(i, p)\n"
	"#define ST(N, v, p) CAT(vstore, N)(v, i, p)\n"
	"#define B1_1(F) r[i] = F(a[i])\n"
	"#define BN_1(N, F) ST(N, F(LD(N, a)), r)\n"
	"#define B1_2(F) r[i] = F(a[i], b[i])\n"
	"#define BN_2(N, F) ST(N, F(LD(N, a), LD(N, b)), r)\n"
	"#define B1_3(F) r[i] = F(a[i], b[i], c[i])\n"
	"#define BN_3(N, F) ST(N, F(LD(N, a), LD(N, b), LD(N, c)), r)\n"
	"#define B1_FI(F) r[i] = F(a[i], n[i])\n"
	"#define BN_FI(N, F) ST(N, F(LD(N, a), LD(N, n)), r)\n"
	"#define B1_IF(F) ri[i] = F(a[i])\n"
	"#define BN_IF(N, F) ST(N, F(LD(N, a)), ri)\n"
	"#define B1_FP(F) { T t; r[i] = F(a[i], &t); r2[i] = t; }\n"
	"#define BN_FP(N, F) { V(N) t; ST(N, F(LD(N, a), &t), r); "
	"ST(N, t, r2); }\n"
	"#define B1_FPI(F) { int t; r[i] = F(a[i], &t); ri[i] = t; }\n"
	"#define BN_FPI(N, F) { VI(N) t; ST(N, F(LD(N, a), &t), r); "
	"ST(N, t, ri); }\n"
	"#define B1_RQ(F) { int t; r[i] = F(a[i], b[i], &t); ri[i] = t; }\n"
	"#define BN_RQ(N, F) { VI(N) t; ST(N, F(LD(N, a), LD(N, b), &t), r); "
	"ST(N, t, ri); }\n"
	"#define KERNEL(K, F)\\\n"
	"kernel void k_##F(global const T *a, global const T *b,\\\n"
	"		  global const T *c, global const int *n,\\\n"
	"		  global T *r, global T *r2, global int *ri, int w)\\\n"
	"{\\\n"
	"	size_t i = get_global_id(0);\\\n"
	"	switch (w) {\\\n"
	"	case 1: B1_##K(F); break;\\\n"
	"	case 2: BN_##K(2, F); break;\\\n"
	"	case 3: BN_##K(3, F); break;\\\n"
	"	case 4: BN_##K(4, F); break;\\\n"
	"	case 8: BN_##K(8, F); break;\\\n"
	"	case 16: BN_##K(16, F); break;\\\n"
	"	}\\\n"
	"}\n";

static const char *const kind_names[] = { "1", "2", "3", "FI", "IF", "FP",
					  "FPI", "RQ" };

static void test_math(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	struct accel_buffer *ba, *bb, *bc, *bn, *br, *br2, *bri;
	struct inputs *in = malloc(sizeof(*in));
	struct result *res = malloc(sizeof(*res));
	struct out *want = malloc(N_ITEMS * sizeof(*want));
	static const unsigned widths[] = { 1, 2, 3, 4, 8, 16 };
	struct ct_str src = { 0 };
	unsigned failed = 0;

	assert_non_null(in);
	assert_non_null(res);
	assert_non_null(want);
	ct_printf(&src, "%s", preamble);
	for (size_t f = 0; f < n_fns; f++)
		if (ULP_OF(&fns[f]) != NA)
			ct_printf(&src, "KERNEL(%s, %s)\n",
				  kind_names[fns[f].kind], fns[f].name);
	prog = ct_build(env, src.buf, OPTIONS);
	ct_str_free(&src);

	ba = test_buffer_new(env, sizeof(in->a));
	bb = test_buffer_new(env, sizeof(in->b));
	bc = test_buffer_new(env, sizeof(in->c));
	bn = test_buffer_new(env, sizeof(in->n));
	br = test_buffer_new(env, sizeof(res->r));
	br2 = test_buffer_new(env, sizeof(res->r2));
	bri = test_buffer_new(env, sizeof(res->ri));
	for (size_t f = 0; f < n_fns; f++) {
		const struct fn *fn = &fns[f];
		double worst = 0;
		unsigned bad = 0;
		char kname[64];

		if (ULP_OF(fn) == NA)
			continue;
		make_inputs(fn, in, 0x5eed0000u + f);
		for (unsigned i = 0; i < N_ITEMS; i++) {
			memset(&want[i], 0, sizeof(want[i]));
			fn->ref(in->a[i], in->b[i], in->c[i], in->n[i],
				&want[i]);
		}
		test_write(env, ba, 0, sizeof(in->a), in->a);
		test_write(env, bb, 0, sizeof(in->b), in->b);
		test_write(env, bc, 0, sizeof(in->c), in->c);
		test_write(env, bn, 0, sizeof(in->n), in->n);
		snprintf(kname, sizeof(kname), "k_%s", fn->name);
		for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++) {
			int w = (int)widths[wi];

			memset(res, 0xa5, sizeof(*res));
			test_write(env, br, 0, sizeof(res->r), res->r);
			CT_RUN(env, prog, kname, N_ITEMS / widths[wi], 0,
			       CT_BUF(ba), CT_BUF(bb), CT_BUF(bc), CT_BUF(bn),
			       CT_BUF(br), CT_BUF(br2), CT_BUF(bri),
			       CT_VAL(w));
			test_read(env, br, 0, sizeof(res->r), res->r);
			test_read(env, br2, 0, sizeof(res->r2), res->r2);
			test_read(env, bri, 0, sizeof(res->ri), res->ri);
			bad += check(fn, in, res, want, widths[wi], &worst);
		}
		if (bad)
			failed++;
		print_message("%-14s %s worst %.3g ulp%s\n", fn->name, TNAME,
			      worst, bad ? "  FAILED" : "");
	}
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_buffer_unref(bc);
	accel_buffer_unref(bn);
	accel_buffer_unref(br);
	accel_buffer_unref(br2);
	accel_buffer_unref(bri);
	accel_program_unref(prog);
	free(in);
	free(res);
	free(want);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_math, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-math-" TNAME, tests);
}
