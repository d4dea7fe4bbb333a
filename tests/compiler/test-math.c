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
 * Inputs: the special values (zeros, infinities, NaN, subnormals, the
 * extremes), all their pairs for two-argument functions, then seeded
 * random values from the function's domain, log-uniform magnitudes and
 * random bit patterns.
 */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "compiler-test.h"

#ifdef CT_DOUBLE
typedef double T;
#define TNAME "double"
#define MANT 53
#define EMIN (-1022)
#define T_MAX DBL_MAX
#define T_MIN DBL_MIN
#define T_TRUE_MIN DBL_TRUE_MIN
#define OPTIONS "-cl-std=CL3.0 -DT=double"
#define ULP_OF(f) ((f)->ulp_d)
#define FMA_A 321.0 /* FMA_A * FMA_B = 2^MANT + 1 */
#define FMA_B 28059810762433.0
#elif defined(CT_HALF)
typedef _Float16 T;
#define TNAME "half"
#define MANT 11
#define EMIN (-14)
#define T_MAX 0x1.ffcp15
#define T_MIN 0x1p-14
#define T_TRUE_MIN 0x1p-24
#define OPTIONS "-cl-std=CL3.0 -DT=half"
#define ULP_OF(f) ((f)->ulp_h)
#define FMA_A 3.0
#define FMA_B 683.0
#else
typedef float T;
#define TNAME "float"
#define MANT 24
#define EMIN (-126)
#define T_MAX FLT_MAX
#define T_MIN FLT_MIN
#define T_TRUE_MIN FLT_TRUE_MIN
#define OPTIONS "-cl-std=CL1.2 -DT=float"
#define ULP_OF(f) ((f)->ulp_f)
#define FMA_A 24929.0
#define FMA_B 673.0
#endif

typedef long double L;

#define N_ITEMS (48 * 64) /* a multiple of every width, 3 included */

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

enum kind { K1, K2, K3, KFI, KIF, KFP, KFPI, KRQ };
static const char *const kind_names[] = { "1", "2", "3", "FI", "IF", "FP",
					  "FPI", "RQ" };

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

/* ---- references ------------------------------------------------------ */

#define REF(NAME, EXPR)                                                        \
	static void ref_##NAME(L a, L b, L c, int n, struct out *o)            \
	{                                                                      \
		(void)a;                                                       \
		(void)b;                                                       \
		(void)c;                                                       \
		(void)n;                                                       \
		o->r = (EXPR);                                                 \
	}

/*
 * Correctly rounded ones are computed in T itself (tgmath) for float and
 * double. glibc has no _Float16 math: for half they are computed in long
 * double and rounded to half once. That is exact: the results of ceil,
 * fmod, remainder, ... are halves; a - b (fdim) of halves has at most 40
 * significant bits and a * b + c (fma) at most 64.
 */
#ifdef CT_HALF
#define CR1(fn, x) ((T)fn##l(x))
#define CR2(fn, x, y) ((T)fn##l(x, y))
#define CR3(fn, x, y, z) ((T)fn##l(x, y, z))
#define NEXTAFTER(x, y) nextafter_h((T)(x), (T)(y))
/* the limit (1.5 ulp) is against the exact value */
#define SQRT(x) sqrtl(x)
/* lgamma has no half limit either: gross errors, above the 2^-11
 * of rounding to half */
#define LOOSE_REL 0x1p-9L

/* on the bits, as glibc has no nextafter for _Float16 */
static T nextafter_h(T x, T y)
{
	uint16_t b;

	if (isnan(x) || isnan(y))
		return x + y;
	if (x == y)
		return y;
	if (x == 0)
		return y > 0 ? (T)T_TRUE_MIN : (T)-T_TRUE_MIN;
	memcpy(&b, &x, sizeof(b));
	b = (x < y) == (x > 0) ? b + 1 : b - 1; /* away from 0 or toward */
	memcpy(&x, &b, sizeof(x));
	return x;
}
#else
#define CR1(fn, x) fn((T)(x))
#define CR2(fn, x, y) fn((T)(x), (T)(y))
#define CR3(fn, x, y, z) fn((T)(x), (T)(y), (T)(z))
#define NEXTAFTER(x, y) CR2(nextafter, x, y)
/* correctly rounded: double needs it exact */
#define SQRT(x) CR1(sqrt, x)
#define LOOSE_REL 1e-4L
#endif

static L sinpi_l(L x)
{
	L r;

	if (isinf(x))
		return NAN;
	if (x == rintl(x))
		return copysignl(0.0L, x);
	r = x - 2.0L * rintl(x * 0.5L);
	if (r > 0.5L)
		r = 1.0L - r;
	else if (r < -0.5L)
		r = -1.0L - r;
	return sinl(M_PIl * r);
}

static L cospi_l(L x)
{
	L r;

	if (isinf(x))
		return NAN;
	r = fabsl(x - 2.0L * rintl(x * 0.5L));
	if (r == 0.5L)
		return 0.0L;
	if (r < 0.25L)
		return cosl(M_PIl * r);
	return sinpi_l(0.5L - r);
}

static L tanpi_l(L x)
{
	L r;

	if (isinf(x))
		return NAN;
	r = x - rintl(x);
	if (r == 0.0L)
		return copysignl(0.0L, fmodl(rintl(x), 2.0L) == 0.0L ? x : -x);
	if (fabsl(r) == 0.5L)
		return fmodl(x - 0.5L, 2.0L) == 0.0L ? INFINITY : -INFINITY;
	return sinpi_l(r) / cospi_l(r);
}

static L powr_l(L x, L y)
{
	if (isnan(x) || isnan(y) || x < 0 || (x == 0 && y == 0) ||
	    (x == 1 && isinf(y)) || (isinf(x) && y == 0))
		return NAN;
	return powl(fabsl(x), y); /* -0 is +0 here */
}

static L rootn_l(L x, int n)
{
	if (n == 0 || (x < 0 && !(n & 1)))
		return NAN;
	if (x == 0)
		return n > 0 ? ((n & 1) ? x : 0.0L) :
			((n & 1) ? copysignl(INFINITY, x) : INFINITY);
	return copysignl(powl(fabsl(x), 1.0L / n), x);
}

static L mag(L x, L y, bool max)
{
	if (fabsl(x) > fabsl(y))
		return max ? x : y;
	if (fabsl(y) > fabsl(x))
		return max ? y : x;
	return max ? fmaxl(x, y) : fminl(x, y);
}

REF(acos, acosl(a))
REF(acosh, acoshl(a))
REF(acospi, acosl(a) / M_PIl)
REF(asin, asinl(a))
REF(asinh, asinhl(a))
REF(asinpi, asinl(a) / M_PIl)
REF(atan, atanl(a))
REF(atan2, atan2l(a, b))
REF(atanh, atanhl(a))
REF(atanpi, atanl(a) / M_PIl)
REF(atan2pi, atan2l(a, b) / M_PIl)
REF(cbrt, cbrtl(a))
REF(ceil, CR1(ceil, a))
REF(copysign, CR2(copysign, a, b))
REF(cos, cosl(a))
REF(cosh, coshl(a))
REF(cospi, cospi_l(a))
REF(erfc, erfcl(a))
REF(erf, erfl(a))
REF(exp, expl(a))
REF(exp2, exp2l(a))
REF(exp10, exp10l(a))
REF(expm1, expm1l(a))
REF(fabs, CR1(fabs, a))
REF(fdim, CR2(fdim, a, b))
REF(floor, CR1(floor, a))
REF(fma, CR3(fma, a, b, c))
REF(fmax, CR2(fmax, a, b))
REF(fmin, CR2(fmin, a, b))
REF(fmod, CR2(fmod, a, b))
REF(hypot, hypotl(a, b))
REF(ldexp, (T)ldexpl(a, n)) /* exact, then one rounding */
REF(lgamma, lgammal(a))
REF(log, logl(a))
REF(log2, log2l(a))
REF(log10, log10l(a))
REF(log1p, log1pl(a))
REF(logb, CR1(logb, a))
REF(mad, a * b + c)
REF(maxmag, mag(a, b, true))
REF(minmag, mag(a, b, false))
REF(nextafter, NEXTAFTER(a, b))
REF(pow, powl(a, b))
REF(pown, powl(a, n))
REF(powr, powr_l(a, b))
REF(remainder, CR2(remainder, a, b))
REF(rint, CR1(rint, a))
REF(rootn, rootn_l(a, n))
REF(round, CR1(round, a))
REF(rsqrt, 1.0L / sqrtl(a))
REF(sin, sinl(a))
REF(sinh, sinhl(a))
REF(sinpi, sinpi_l(a))
REF(sqrt, SQRT(a))
REF(tan, tanl(a))
REF(tanh, tanhl(a))
REF(tanpi, tanpi_l(a))
REF(tgamma, tgammal(a))
REF(trunc, CR1(trunc, a))
REF(degrees, a * (180.0L / M_PIl))
REF(radians, a * (M_PIl / 180.0L))
REF(recip, 1.0L / a)
REF(divide, a / b)

static void ref_ilogb(L a, L b, L c, int n, struct out *o)
{
	(void)b;
	(void)c;
	(void)n;
	/* OpenCL's FP_ILOGBNAN is INT_MAX; glibc's may differ */
	o->ri = isnan(a) ? INT_MAX : a == 0 ? INT_MIN : ilogbl(a);
}

static void ref_fract(L a, L b, L c, int n, struct out *o)
{
	(void)b;
	(void)c;
	(void)n;
	o->r2 = floorl(a);
	if (isnan(a))
		o->r = a;
	else if (isinf(a) || a == 0) /* fract(-0) = -0 */
		o->r = copysignl(0.0L, a);
	else /* a - floor(a) rounded in T, below 1 */
		o->r = fminl(CR2(fdim, a, o->r2),
			     1.0L - ldexpl(1.0L, -MANT));
}

static void ref_modf(L a, L b, L c, int n, struct out *o)
{
	(void)b;
	(void)c;
	(void)n;
	o->r = modfl(a, &o->r2); /* exact */
}

static void ref_sincos(L a, L b, L c, int n, struct out *o)
{
	(void)b;
	(void)c;
	(void)n;
	o->r = sinl(a);
	o->r2 = cosl(a);
}

static void ref_frexp(L a, L b, L c, int n, struct out *o)
{
	(void)b;
	(void)c;
	(void)n;
	o->r = frexpl(a, &o->ri);
	if (!isfinite(a))
		o->ri = 0; /* OpenCL: 0 for inf and NaN */
}

static void ref_lgamma_r(L a, L b, L c, int n, struct out *o)
{
	(void)b;
	(void)c;
	(void)n;
	o->r = lgammal_r(a, &o->ri);
}

static void ref_remquo(L a, L b, L c, int n, struct out *o)
{
	L x7 = a;
	int k;

	(void)c;
	(void)n;
	o->r = CR2(remainder, a, b);
	o->ri = 0;
	if (isnan(o->r))
		return;
	/* the quotient's low 7 bits: exact in long double after the
	 * reduction modulo 128 b, which keeps them */
	if (fabsl(b) < T_MAX / 128)
		x7 = fmodl(a, 128 * b);
	k = (int)fabsl(rintl((x7 - o->r) / b)) & 127;
	o->ri = signbit(a) != signbit(b) ? -k : k;
}

/* ULP limits of float, double and half: OpenCL 3.0 7.4, full profile
 * (tables "ULP Values for Single-Precision / Double-Precision Built-in
 * Math Functions" and "ULP Values for Half-Precision Floating-Point
 * Arithmetic Operations") */
#define F(name, kind, uf, ud, uh, da, db)                                      \
	{ #name, kind, uf, ud, uh, da, db, ref_##name, EXACT }

static const struct fn fns[] = {
	F(acos, K1, 4, 4, 2, UNIT, ANY),
	F(acosh, K1, 4, 4, 2, POS, ANY),
	F(acospi, K1, 5, 5, 2, UNIT, ANY),
	F(asin, K1, 4, 4, 2, UNIT, ANY),
	F(asinh, K1, 4, 4, 2, ANY, ANY),
	F(asinpi, K1, 5, 5, 2, UNIT, ANY),
	F(atan, K1, 5, 5, 2, ANY, ANY),
	F(atan2, K2, 6, 6, 2, ANY, ANY),
	F(atanh, K1, 5, 5, 2, UNIT, ANY),
	F(atanpi, K1, 5, 5, 2, ANY, ANY),
	F(atan2pi, K2, 6, 6, 2, ANY, ANY),
	F(cbrt, K1, 2, 2, 2, ANY, ANY),
	F(ceil, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(copysign, K2, EXACT, EXACT, EXACT, ANY, ANY),
	F(cos, K1, 4, 4, 2, TRIG, ANY),
	F(cosh, K1, 4, 4, 2, SMALL, ANY),
	F(cospi, K1, 4, 4, 2, SMALL, ANY),
	F(erfc, K1, 16, 16, 4, SMALL, ANY),
	F(erf, K1, 16, 16, 4, SMALL, ANY),
	F(exp, K1, 3, 3, 2, SMALL, ANY),
	F(exp2, K1, 3, 3, 2, SMALL, ANY),
	F(exp10, K1, 3, 3, 2, SMALL, ANY),
	F(expm1, K1, 3, 3, 2, SMALL, ANY),
	F(fabs, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(fdim, K2, EXACT, EXACT, EXACT, ANY, ANY),
	F(floor, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(fma, K3, EXACT, EXACT, EXACT, ANY, ANY),
	F(fmax, K2, EXACT_0, EXACT_0, EXACT_0, ANY, ANY),
	F(fmin, K2, EXACT_0, EXACT_0, EXACT_0, ANY, ANY),
	F(fmod, K2, EXACT, EXACT, EXACT, ANY, ANY),
	{ "fract", KFP, EXACT, EXACT, EXACT, ANY, ANY, ref_fract, EXACT },
	{ "frexp", KFPI, EXACT, EXACT, EXACT, ANY, ANY, ref_frexp, EXACT },
	F(hypot, K2, 4, 4, 2, ANY, ANY),
	{ "ilogb", KIF, EXACT, EXACT, EXACT, ANY, ANY, ref_ilogb, EXACT },
	F(ldexp, KFI, EXACT, EXACT, EXACT, ANY, ANY),
	F(lgamma, K1, LOOSE, LOOSE, LOOSE, SMALL, ANY),
	{ "lgamma_r", KFPI, LOOSE, LOOSE, LOOSE, SMALL, ANY, ref_lgamma_r,
	  EXACT },
	F(log, K1, 3, 3, 2, POS, ANY),
	F(log2, K1, 3, 3, 2, POS, ANY),
	F(log10, K1, 3, 3, 2, POS, ANY),
	F(log1p, K1, 2, 2, 2, POS, ANY),
	F(logb, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(mad, K3, NONE, NONE, NONE, ANY, ANY),
	F(maxmag, K2, EXACT_0, EXACT_0, EXACT_0, ANY, ANY),
	F(minmag, K2, EXACT_0, EXACT_0, EXACT_0, ANY, ANY),
	{ "modf", KFP, EXACT, EXACT, EXACT, ANY, ANY, ref_modf, EXACT },
	F(nextafter, K2, EXACT, EXACT, EXACT, ANY, ANY),
	F(pow, K2, 16, 16, 4, SMALL, SMALL),
	F(pown, KFI, 16, 16, 4, SMALL, ANY),
	F(powr, K2, 16, 16, 4, SMALL, SMALL),
	F(remainder, K2, EXACT, EXACT, EXACT, ANY, ANY),
	{ "remquo", KRQ, EXACT, EXACT, EXACT, ANY, ANY, ref_remquo, EXACT },
	F(rint, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(rootn, KFI, 16, 16, 4, ANY, ANY),
	F(round, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(rsqrt, K1, 2, 2, 1, POS, ANY),
	F(sin, K1, 4, 4, 2, TRIG, ANY),
	{ "sincos", KFP, 4, 4, 2, TRIG, ANY, ref_sincos, 4 },
	F(sinh, K1, 4, 4, 2, SMALL, ANY),
	F(sinpi, K1, 4, 4, 2, SMALL, ANY),
	F(sqrt, K1, 3, EXACT, 1.5, POS, ANY),
	F(tan, K1, 5, 5, 2.5, TRIG, ANY),
	F(tanh, K1, 5, 5, 2, SMALL, ANY),
	F(tanpi, K1, 6, 6, 2, SMALL, ANY),
	F(tgamma, K1, 16, 16, 4, SMALL, ANY),
	F(trunc, K1, EXACT, EXACT, EXACT, ANY, ANY),
	F(degrees, K1, 2, 2, 2, ANY, ANY),
	F(radians, K1, 2, 2, 2, ANY, ANY),
	/* half_ and native_ (float only): 8192 ulp and implementation
	 * defined; full precision meets both */
#define H1(name, ref, dom)                                                     \
	{ #name, K1, 8192, NA, NA, dom, ANY, ref_##ref, EXACT }
	H1(half_cos, cos, HALF_TRIG), H1(half_sin, sin, HALF_TRIG),
	H1(half_tan, tan, HALF_TRIG), H1(half_exp, exp, SMALL),
	H1(half_exp2, exp2, SMALL), H1(half_exp10, exp10, SMALL),
	H1(half_log, log, POS), H1(half_log2, log2, POS),
	H1(half_log10, log10, POS), H1(half_rsqrt, rsqrt, POS),
	H1(half_sqrt, sqrt, POS), H1(half_recip, recip, POS),
	{ "half_divide", K2, 8192, NA, NA, SMALL, SMALL, ref_divide, EXACT },
	{ "half_powr", K2, 8192, NA, NA, POS, SMALL, ref_powr, EXACT },
	H1(native_cos, cos, HALF_TRIG), H1(native_sin, sin, HALF_TRIG),
	H1(native_tan, tan, HALF_TRIG), H1(native_exp, exp, SMALL),
	H1(native_exp2, exp2, SMALL), H1(native_exp10, exp10, SMALL),
	H1(native_log, log, POS), H1(native_log2, log2, POS),
	H1(native_log10, log10, POS), H1(native_rsqrt, rsqrt, POS),
	H1(native_sqrt, sqrt, POS), H1(native_recip, recip, POS),
	{ "native_divide", K2, 8192, NA, NA, SMALL, SMALL, ref_divide, EXACT },
	{ "native_powr", K2, 8192, NA, NA, POS, SMALL, ref_powr, EXACT },
};

/* ---- inputs ---------------------------------------------------------- */

static const T specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 10.0, 0.25,
	INFINITY, -INFINITY, NAN, T_MIN, -T_MIN, T_TRUE_MIN, -T_MIN / 3,
	T_MAX, -T_MAX, 1.5, -2.5, 100.0,
};
#define N_SPECIALS (sizeof(specials) / sizeof(specials[0]))

static T random_bits(uint64_t *s)
{
	uint64_t b = ct_rand(s);
	T x;

#ifdef CT_DOUBLE
	memcpy(&x, &b, sizeof(x));
#elif defined(CT_HALF)
	uint16_t b16 = (uint16_t)(b >> 48);

	memcpy(&x, &b16, sizeof(x));
#else
	uint32_t b32 = (uint32_t)(b >> 32);

	memcpy(&x, &b32, sizeof(x));
#endif
	return x;
}

/* uniform values up to SMALL_LIM, ANY_LIM; log-uniform magnitudes
 * 2^LOG_EXP_MIN to 2^(LOG_EXP_MIN + LOG_EXP_SPAN - 1): half's range is
 * 2^-24 to 65504, exp() overflows beyond 11 */
#ifdef CT_HALF
#define SMALL_LIM 16.0
#define ANY_LIM 6e4
#define LOG_EXP_MIN (EMIN - MANT - 2)
#define LOG_EXP_SPAN (16 - LOG_EXP_MIN + 2)
#else
#define SMALL_LIM 40.0
#define ANY_LIM 1e6
#define LOG_EXP_MIN (-60)
#define LOG_EXP_SPAN 120
#endif

static T gen(uint64_t *s, enum dom d)
{
	uint64_t pick = ct_rand(s) % 8;
	double lim = d == UNIT ? 1.1 : d == SMALL ? SMALL_LIM :
		d == TRIG ? 1e4 : d == HALF_TRIG ? 65536.0 : ANY_LIM;
	T x;

	if (pick < 5) {
		x = (T)ct_rand_range(s, d == POS ? 0.0 : -lim, lim);
	} else if (pick < 7 && d != HALF_TRIG) {
		/* log-uniform magnitude, both signs (POS: positive) */
		x = (T)ldexp(ct_rand_range(s, 1.0, 2.0),
			     (int)(ct_rand(s) % LOG_EXP_SPAN) + LOG_EXP_MIN);
		if (d != POS && (ct_rand(s) & 1))
			x = -x;
		if (d == UNIT || d == SMALL)
			x = (T)fmodl(x, (T)lim); /* exact */
	} else {
		x = random_bits(s);
		if (d == HALF_TRIG)
			x = (T)fmodl(x, (T)lim);
		if (d == POS)
			x = (T)fabsl(x);
	}
	return x;
}

struct inputs {
	T a[N_ITEMS], b[N_ITEMS], c[N_ITEMS];
	int n[N_ITEMS];
};

static void make_inputs(const struct fn *f, struct inputs *in, uint64_t seed)
{
	uint64_t s = seed;
	unsigned i = 0;
	bool two = f->kind == K2 || f->kind == KRQ || f->kind == K3;

	/* every special, and for two operands every pair of them */
	for (unsigned x = 0; x < N_SPECIALS; x++)
		for (unsigned y = 0; y < (two ? N_SPECIALS : 1); y++, i++) {
			in->a[i] = specials[x];
			in->b[i] = specials[y];
			in->c[i] = specials[(x + y) % N_SPECIALS];
			in->n[i] = (int)(x + y) - 10;
		}
	/* fma rounding twice: a b = +-(1 + 2^-MANT), the midpoint between 1
	 * and its successor, and a c below the precision of any wider
	 * format, on either side */
	for (unsigned k = 0; f->kind == K3 && k < 8; k++, i++) {
		in->a[i] = (T)(k & 1 ? -FMA_A : FMA_A);
		in->b[i] = (T)ldexp(FMA_B, -MANT);
		in->c[i] = (T)((k & 2 ? -1 : 1) *
			       (k & 4 ? T_TRUE_MIN : ldexp(1.0, -2 * MANT)));
		in->n[i] = 0;
	}
	for (; i < N_ITEMS; i++) {
		uint64_t r = ct_rand(&s);

		in->a[i] = gen(&s, f->da);
		in->b[i] = gen(&s, f->db);
		in->c[i] = gen(&s, ANY);
		/* exponents and roots: mostly small, sometimes not */
		in->n[i] = r % 16 ? (int)(r >> 32) % 80 - 40 :
			(int)(uint32_t)(r >> 32);
	}
}

/* ---- checks ---------------------------------------------------------- */

static bool same_exact(T got, L want)
{
	T w = (T)want;

	if (isnan(w))
		return isnan(got);
	return got == w && signbit(got) == signbit(w);
}

/* error in ulps, or for LOOSE a relative error scaled to be <= 1 */
static bool within(T got, L want, double limit, double *err)
{
	if (limit == NONE) {
		*err = 0;
		return true;
	}
	if (limit == EXACT || limit == EXACT_0) {
		*err = same_exact(got, want) ||
		       (limit == EXACT_0 && got == 0 && want == 0) ?
			0.0 : INFINITY;
		return *err == 0.0;
	}
	if (limit == LOOSE) {
		/* no limit in the specification: catch gross errors only */
		if (isnan(want) || isinf((T)want))
			*err = (isnan(want) && isnan(got)) ||
			       got == (T)want ? 0.0 : INFINITY;
		else
			*err = fabsl(got - want) /
			       (fmaxl(1.0L, fabsl(want)) * LOOSE_REL);
		return *err <= 1.0;
	}
	*err = ct_ulp_error(got, want, MANT, EMIN);
	return *err <= limit;
}

struct result {
	T r[N_ITEMS], r2[N_ITEMS];
	int ri[N_ITEMS];
};

static unsigned check(const struct fn *f, const struct inputs *in,
		      const struct result *res, const struct out *want,
		      unsigned w, double *worst)
{
	double limit = ULP_OF(f);
	unsigned bad = 0;

	for (unsigned i = 0; i < N_ITEMS; i++) {
		bool ok = true;
		double e = 0, e2 = 0;

		switch (f->kind) {
		case KIF:
			ok = res->ri[i] == want[i].ri;
			break;
		case KFP:
			ok = within(res->r[i], want[i].r, limit, &e) &&
			     within(res->r2[i], want[i].r2,
				    f->ulp2 == EXACT ? EXACT : limit, &e2);
			break;
		case KFPI:
			ok = within(res->r[i], want[i].r, limit, &e);
			/* lgamma_r's sign is meaningful where it is finite;
			 * frexp's exponent always */
			if (ok && (limit == EXACT ||
				   (isfinite(want[i].r) && want[i].r != 0)))
				ok = res->ri[i] == want[i].ri;
			break;
		case KRQ:
			/* at least the quotient's 7 low bits, its sign */
			ok = within(res->r[i], want[i].r, limit, &e) &&
			     (isnan(want[i].r) ||
			      ((abs(res->ri[i]) & 127) == abs(want[i].ri) &&
			       (want[i].ri == 0 ||
				(res->ri[i] < 0) == (want[i].ri < 0))));
			break;
		default:
			ok = within(res->r[i], want[i].r, limit, &e);
			break;
		}
		if (e > *worst && isfinite(e))
			*worst = e;
		if (!ok && bad++ < 5)
			print_error("%s w=%u: (%a, %a, %a, %d) = %a %a %d, "
				    "want %La %La %d (err %g)\n",
				    f->name, w, (double)in->a[i],
				    (double)in->b[i], (double)in->c[i],
				    in->n[i], (double)res->r[i],
				    (double)res->r2[i], res->ri[i], want[i].r,
				    want[i].r2, want[i].ri, e > e2 ? e : e2);
	}
	return bad;
}

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
	for (size_t f = 0; f < TEST_ARRAY_SIZE(fns); f++)
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
	for (size_t f = 0; f < TEST_ARRAY_SIZE(fns); f++) {
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
