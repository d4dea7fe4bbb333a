/* SPDX-License-Identifier: MIT */
/*
 * The functions of compiler-math-*: each with its long double host
 * reference and its ULP limits for float, double and half.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <tgmath.h>

#include "test-math.h"

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
#else
#define CR1(fn, x) fn((T)(x))
#define CR2(fn, x, y) fn((T)(x), (T)(y))
#define CR3(fn, x, y, z) fn((T)(x), (T)(y), (T)(z))
#define NEXTAFTER(x, y) CR2(nextafter, x, y)
/* correctly rounded: double needs it exact */
#define SQRT(x) CR1(sqrt, x)
#endif

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

const struct fn fns[] = {
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

const size_t n_fns = TEST_ARRAY_SIZE(fns);
