/* SPDX-License-Identifier: MIT */
/*
 * The functions of compiler-math-args-*: each with its long double host
 * reference, the results the specification prescribes exactly (special
 * values), and its ULP limits for float and double, and for half.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>

#include "test-math-args.h"

static bool is_int(L x)
{
	return isfinite(x) && x == rintl(x);
}

/* n + 1/2 (beyond 2^63 x - 0.5 would round) */
static bool is_half(L x)
{
	return !is_int(x) && is_int(2 * x);
}

/* correctly rounded or exact ones: in T itself; for half (glibc has no
 * _Float16 math) in long double, where each is exact for half operands
 * (a - b has at most 40 significant bits, a * b + c 64), rounded once */
#ifdef CT_HALF
#define CR2(fn, x, y) ((T)fn##l(x, y))
#define CR3(fn, x, y, z) ((T)fn##l(x, y, z))
#define NEXTAFTER(x, y) nextafter_h((T)(x), (T)(y))
#else
#ifdef CT_DOUBLE
#define TF(fn) fn
#else
#define TF(fn) fn##f
#endif
#define CR2(fn, x, y) TF(fn)((T)(x), (T)(y))
#define CR3(fn, x, y, z) TF(fn)((T)(x), (T)(y), (T)(z))
#define NEXTAFTER(x, y) CR2(nextafter, x, y)
#endif

static void ref_sinpi(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->exact = is_int(a) || !isfinite(a);
	if (isinf(a))
		o->r = NAN;
	else if (is_int(a))
		o->r = copysignl(0.0L, a);
	else
		o->r = sinpi_l(a);
}

static void ref_cospi(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->exact = a == 0 || !isfinite(a) || is_half(a);
	if (isinf(a))
		o->r = NAN;
	else if (is_half(a))
		o->r = 0.0L;
	else
		o->r = cospi_l(a);
}

static void ref_tanpi(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->exact = is_int(a) || is_half(a) || !isfinite(a);
	if (isinf(a))
		o->r = NAN;
	else if (is_int(a)) /* +-0: the sign of a for even a, else -a */
		o->r = copysignl(0.0L, fmodl(a, 2.0L) == 0 ? a : -a);
	else if (is_half(a)) /* +inf after an even integer */
		o->r = fmodl(a - 0.5L, 2.0L) == 0 ? INFINITY : -INFINITY;
	else
		o->r = sinpi_l(a) / cospi_l(a);
}

static void ref_sincos(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->r = sinl(a);
	o->r2 = cosl(a);
	o->exact = o->exact2 = a == 0;
}

static void ref_pown(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c;
	o->r = powl(a, (L)n); /* pown(x, 0) = 1 even for NaN, as pow */
	o->exact = n == 0 || a == 0;
}

static void ref_rootn(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c;
	o->exact = a == 0 || n == 0;
	if (n == 0 || (a < 0 && !(n & 1)))
		o->r = NAN;
	else if (a == 0) /* the sign of a for odd n */
		o->r = n > 0 ? ((n & 1) ? a : 0.0L) :
			((n & 1) ? copysignl(INFINITY, a) : INFINITY);
	else
		o->r = copysignl(powl(fabsl(a), 1.0L / n), a);
}

static void ref_ldexp(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c;
	o->r = (T)ldexpl(a, n); /* exact, then one rounding */
	o->exact = true;
}

static void ref_frexp(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->r = frexpl(a, &o->ri);
	if (!isfinite(a))
		o->ri = 0; /* OpenCL: 0 for infinities and NaN */
	o->exact = true;
	o->irule = I_EXACT;
}

static void ref_modf(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->r = modfl(a, &o->r2);
	o->exact = o->exact2 = true;
}

static void ref_fract(L a, L b, L c, int n, struct out *o)
{
	T x = (T)a, fl = (T)floorl(a);

	(void)b, (void)c, (void)n;
	o->exact = o->exact2 = true;
	o->r2 = fl;
	if (isnan(x))
		o->r = x;
	else if (isinf(x) || x == 0) /* fract(-0) = -0, fract(-inf) = -0 */
		o->r = copysignl(0.0L, x);
	else /* x - fl rounded in T, below 1 */
		o->r = fminl((T)(x - fl), 1.0L - ldexpl(1.0L, -MANT));
}

/* exact; a zero has the sign of a (glibc's remainder and remainderl
 * get that wrong for some tiny b) */
static L rem_l(L a, L b, bool ieee)
{
	L r = ieee ? remainderl(a, b) : fmodl(a, b);

	return r == 0 ? copysignl(0.0L, a) : r;
}

static void ref_remquo(L a, L b, L c, int n, struct out *o)
{
	L x7;
	int k;

	(void)c, (void)n;
	o->r = rem_l(a, b, true);
	o->exact = true;
	o->irule = I_QUO;
	o->ri = 0;
	if (isnan(o->r))
		return; /* quo = 0 then */
	/* a - 128 b trunc(a / 128 b) keeps the quotient's low 7 bits; the
	 * difference to the remainder is k b, exact in long double */
	x7 = isinf(b) ? a : fmodl(a, 128.0L * b);
	k = (int)fabsl(rintl((x7 - o->r) / b)) & 127;
	o->neg = signbit(a) != signbit(b);
	o->ri = o->neg ? -k : k;
}

static void ref_lgamma_r(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	o->r = lgammal_r(a, &o->ri);
	/* lgamma(1) = lgamma(2) = +0; +inf at poles and infinities */
	o->exact = a == 1 || a == 2 || (a <= 0 && is_int(a)) || isinf(a);
	o->irule = isnan(a) || isinf(a) ? I_NONE : I_EXACT;
	if (a <= 0 && is_int(a))
		o->ri = 0; /* OpenCL: 0 for zero and negative integers */
}

static void ref_pow(L a, L b, L c, int n, struct out *o)
{
	(void)c, (void)n;
	o->r = powl(a, b);
	o->exact = a == 0 || b == 0 || a == 1 || isinf(a) || isinf(b);
}

static void ref_powr(L a, L b, L c, int n, struct out *o)
{
	(void)c, (void)n;
	o->exact = a == 0 || b == 0 || a == 1;
	if (isnan(a) || isnan(b) || a < 0 || (a == 0 && b == 0) ||
	    (a == 1 && isinf(b)) || (isinf(a) && b == 0))
		o->r = NAN;
	else
		o->r = powl(fabsl(a), b); /* -0 is +0 here */
}

static void ref_atan2(L a, L b, L c, int n, struct out *o)
{
	(void)c, (void)n;
	o->r = atan2l(a, b);
	o->exact = o->r == 0 || isnan(o->r);
}

static void ref_hypot(L a, L b, L c, int n, struct out *o)
{
	(void)c, (void)n;
	o->r = hypotl(a, b);
	/* hypot(+-inf, NaN) = +inf; hypot(x, +-0) = fabs(x) */
	o->exact = isinf(a) || isinf(b) || a == 0 || b == 0;
}

#define REF_EXACT(NAME, EXPR)                                                  \
	static void ref_##NAME(L a, L b, L c, int n, struct out *o)            \
	{                                                                      \
		(void)a, (void)b, (void)c, (void)n;                            \
		o->r = (EXPR);                                                 \
		o->exact = true;                                               \
	}
/* one-argument functions whose work-item loops call glibc's libmvec
 * (compiler-stub/codegen/libmvec.c); f(+-0) = +-0 for the odd ones */
#define REF_LIBM(NAME, ODD)                                                    \
	static void ref_##NAME(L a, L b, L c, int n, struct out *o)            \
	{                                                                      \
		(void)b, (void)c, (void)n;                                     \
		o->r = NAME##l(a);                                             \
		o->exact = ODD && a == 0;                                      \
	}
REF_LIBM(tanh, true)
REF_LIBM(sinh, true)
REF_LIBM(cosh, false)
REF_LIBM(tan, true)
REF_LIBM(asin, true)
REF_LIBM(acos, false)
REF_LIBM(atan, true)
REF_LIBM(asinh, true)
REF_LIBM(acosh, false)
REF_LIBM(atanh, true)
REF_LIBM(erf, true)
REF_LIBM(erfc, false)
REF_LIBM(exp2, false)
REF_LIBM(expm1, true)
REF_LIBM(log2, false)
REF_LIBM(log1p, true)
REF_LIBM(exp10, false)
REF_LIBM(log10, false)

REF_EXACT(fma, CR3(fma, a, b, c))
REF_EXACT(fmod, rem_l(a, b, false))
REF_EXACT(remainder, rem_l(a, b, true))
REF_EXACT(copysign, CR2(copysign, a, b))
REF_EXACT(fdim, CR2(fdim, a, b))
REF_EXACT(fmax, CR2(fmax, a, b))
REF_EXACT(fmin, CR2(fmin, a, b))
REF_EXACT(nextafter, NEXTAFTER(a, b))
REF_EXACT(nan, NAN)

static void ref_ilogb(L a, L b, L c, int n, struct out *o)
{
	(void)b, (void)c, (void)n;
	/* OpenCL: FP_ILOGB0 INT_MIN, FP_ILOGBNAN INT_MAX (inf: INT_MAX) */
	o->ri = isnan(a) || isinf(a) ? INT_MAX : a == 0 ? INT_MIN : ilogbl(a);
	o->irule = I_EXACT;
}

/* ULP limits of float and double, and of half: OpenCL 3.0 7.4, full
 * profile */
#define F1(name, kind, ulp, uh, da) { #name, kind, ulp, EXACT, uh, da, \
				       D_ANY, D_ANY, N_NONE, ref_##name }
#define F2(name, kind, ulp, uh, da, db) { #name, kind, ulp, EXACT, uh, da, \
					   db, D_ANY, N_NONE, ref_##name }
#define FN(name, kind, ulp, uh, da, dn) { #name, kind, ulp, EXACT, uh, da, \
					   D_ANY, D_ANY, dn, ref_##name }

const struct fn fns[] = {
	{ "sincos", K_FP, 4, 4, 2, D_TRIG, D_ANY, D_ANY, N_NONE, ref_sincos },
	F1(sinpi, K_1, 4, 2, D_PI),
	F1(cospi, K_1, 4, 2, D_PI),
	F1(tanpi, K_1, 6, 2, D_PI),
	FN(pown, K_FI, 16, 4, D_POW, N_POWN),
	FN(rootn, K_FI, 16, 4, D_ANY, N_ROOTN),
	FN(ldexp, K_FI, EXACT, EXACT, D_ANY, N_LDEXP),
	FN(ldexp, K_FIS, EXACT, EXACT, D_ANY, N_LDEXP),
	F1(frexp, K_FPI, EXACT, EXACT, D_ANY),
	F1(modf, K_FP, EXACT, EXACT, D_ANY),
	F1(fract, K_FP, EXACT, EXACT, D_ANY),
	F2(remquo, K_RQ, EXACT, EXACT, D_ANY, D_QUOT),
	F1(lgamma_r, K_FPI, LOOSE, LOOSE, D_GAMMA),
	F2(pow, K_2, 16, 4, D_POW, D_POW),
	F2(atan2, K_2, 6, 2, D_ANY, D_ANY),
	F2(hypot, K_2, 4, 2, D_ANY, D_ANY),
	{ "fma", K_3, EXACT, EXACT, EXACT, D_ANY, D_ANY, D_FMAC, N_NONE,
	  ref_fma },
	F2(powr, K_2, 16, 4, D_POS, D_POW),
	F2(fmod, K_2, EXACT, EXACT, D_ANY, D_QUOT),
	F2(remainder, K_2, EXACT, EXACT, D_ANY, D_QUOT),
	F2(copysign, K_2, EXACT, EXACT, D_ANY, D_ANY),
	F2(fdim, K_2, EXACT, EXACT, D_ANY, D_ANY),
	F2(fmax, K_2, EXACT_0, EXACT_0, D_ANY, D_ANY),
	F2(fmax, K_2S, EXACT_0, EXACT_0, D_ANY, D_ANY),
	F2(fmin, K_2, EXACT_0, EXACT_0, D_ANY, D_ANY),
	F2(fmin, K_2S, EXACT_0, EXACT_0, D_ANY, D_ANY),
	F2(nextafter, K_2, EXACT, EXACT, D_ANY, D_ANY),
	F1(ilogb, K_IF, EXACT, EXACT, D_ANY),
	/* libmvec's variants at every launch size (lane order, tails) */
	F1(tanh, K_1, 5, 2, D_POW),
	F1(sinh, K_1, 4, 2, D_POW),
	F1(cosh, K_1, 4, 2, D_POW),
	F1(tan, K_1, 5, 2, D_TRIG),
	F1(asin, K_1, 4, 2, D_POW),
	F1(acos, K_1, 4, 2, D_POW),
	F1(atan, K_1, 5, 2, D_ANY),
	F1(asinh, K_1, 4, 2, D_ANY),
	F1(acosh, K_1, 4, 2, D_POS),
	F1(atanh, K_1, 5, 2, D_POW),
	F1(erf, K_1, 16, 4, D_POW),
	F1(erfc, K_1, 16, 4, D_POW),
	F1(exp2, K_1, 3, 2, D_POW),
	F1(expm1, K_1, 3, 2, D_POW),
	F1(log2, K_1, 3, 2, D_POS),
	F1(log1p, K_1, 2, 2, D_POS),
	F1(exp10, K_1, 3, 2, D_POW),
	F1(log10, K_1, 3, 2, D_POS),
	F1(nan, K_NAN, EXACT, EXACT, D_ANY),
};

const size_t n_fns = TEST_ARRAY_SIZE(fns);
