/* SPDX-License-Identifier: MIT */
/*
 * The parts of compiler-math-* (test-math.c): the functions under test
 * with their references and ULP limits (math-fns.c), their inputs
 * (math-inputs.c) and the checks of the results (math-check.c).
 */
#ifndef ACCEL_TEST_MATH_H
#define ACCEL_TEST_MATH_H

#include "compiler-test.h"
#include "math-type.h"

#define N_ITEMS (48 * 64) /* a multiple of every width, 3 included */

enum kind { K1, K2, K3, KFI, KIF, KFP, KFPI, KRQ };

/* input domains */
enum dom { ANY, SMALL, UNIT, POS, TRIG, HALF_TRIG };

/* ULP limits; EXACT compares bits (and the sign of zero), LOOSE checks a
 * relative error for functions without a limit, NONE only that it runs
 * (mad), NA not for this type */
#define EXACT 0.0
#define LOOSE -1.0
#define NONE -2.0
#define NA -3.0
#define EXACT_0 -4.0 /* EXACT, but either zero (fmax(-0, +0)) */

#ifdef CT_DOUBLE
#define ULP_OF(f) ((f)->ulp_d)
#elif defined(CT_HALF)
#define ULP_OF(f) ((f)->ulp_h)
#else
#define ULP_OF(f) ((f)->ulp_f)
#endif

struct out {
	L r, r2;
	int ri;
};

typedef void ref_fn(L a, L b, L c, int n, struct out *o);

struct fn {
	const char *name;
	enum kind kind;
	double ulp_f, ulp_d, ulp_h;
	enum dom da, db;
	ref_fn *ref;
	/* second output: EXACT, or a ULP limit (sincos) */
	double ulp2;
};

/* every function, in the order of the kernels (math-fns.c) */
extern const struct fn fns[];
extern const size_t n_fns;

struct inputs {
	T a[N_ITEMS], b[N_ITEMS], c[N_ITEMS];
	int n[N_ITEMS];
};

/* the inputs of @f, from the seed @seed (math-inputs.c) */
void make_inputs(const struct fn *f, struct inputs *in, uint64_t seed);

struct result {
	T r[N_ITEMS], r2[N_ITEMS];
	int ri[N_ITEMS];
};

/* The failures of @f at width @w, printing the first; the largest
 * finite error goes to @worst (math-check.c). */
unsigned check(const struct fn *f, const struct inputs *in,
	       const struct result *res, const struct out *want, unsigned w,
	       double *worst);

#endif /* ACCEL_TEST_MATH_H */
