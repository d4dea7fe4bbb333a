/* SPDX-License-Identifier: MIT */
/* Math functions (OpenCL C 6.15.2) for float and double, scalar and
 * vectors. Scalars map to LLVM intrinsics or glibc's libm, which meet the
 * specification's ULP limits; vectors are element-wise, and the loop
 * vectoriser widens them again across work-items. */
#include "builtins.h"

#define M_PI_D 3.141592653589793115997963468544185161590576171875

/* F(x) = glibc's F / Ff */
#define LIBM1(F)                                                               \
	float OVL F(float x) { return __builtin_##F##f(x); }                   \
	double OVL F(double x) { return __builtin_##F(x); }                    \
	SPLIT1(F, float, float) SPLIT1(F, double, double)
#define LIBM2(F)                                                               \
	float OVL F(float x, float y) { return __builtin_##F##f(x, y); }       \
	double OVL F(double x, double y) { return __builtin_##F(x, y); }       \
	SPLIT2(F, float, float, float) SPLIT2(F, double, double, double)

LIBM1(acos) LIBM1(acosh) LIBM1(asin) LIBM1(asinh) LIBM1(atan) LIBM1(atanh)
LIBM1(ceil) LIBM1(cos) LIBM1(cosh) LIBM1(erfc) LIBM1(erf)
LIBM1(exp) LIBM1(exp2) LIBM1(expm1) LIBM1(fabs) LIBM1(floor)
LIBM1(log2) LIBM1(log10) LIBM1(log1p) LIBM1(logb) LIBM1(rint)
LIBM1(round) LIBM1(sin) LIBM1(sinh) LIBM1(sqrt) LIBM1(tan) LIBM1(tanh)
LIBM1(tgamma) LIBM1(trunc)

LIBM2(atan2) LIBM2(copysign) LIBM2(fdim) LIBM2(fmod) LIBM2(hypot)
LIBM2(nextafter) LIBM2(pow)

/* log: vectorised, float's goes to glibc's libmvec logf, up to 3.97 ulp
 * off (_ZGV*_logf(0x1.c3fd74p-1)); OpenCL allows 3. Its double log is
 * within 2 ulp of double: rounded to float, little more than 0.5 ulp. */
float OVL log(float x) { return (float)__builtin_log((double)x); }
double OVL log(double x) { return __builtin_log(x); }
SPLIT1(log, float, float) SPLIT1(log, double, double)

/* remainder: a zero takes the sign of x (IEEE 754), which glibc's double
 * one gets wrong for |y| <= 2^-1020: remainder(0x1.8bf3185aaf192p-890,
 * -0x1p-1022) = -0 */
float OVL remainder(float x, float y)
{
	float r = __builtin_remainderf(x, y);

	return r == 0.0f ? copysign(0.0f, x) : r;
}
double OVL remainder(double x, double y)
{
	double r = __builtin_remainder(x, y);

	return r == 0.0 ? copysign(0.0, x) : r;
}
SPLIT2(remainder, float, float, float)
SPLIT2(remainder, double, double, double)

/* cbrt: glibc's double one is up to 4 ulp off, OpenCL allows 2. One
 * Newton step with the residual computed exactly (fma), on x scaled by a
 * power of 8 into [1/4, 8) where nothing under- or overflows. */
double OVL cbrt(double x)
{
	double r, r2, r2l, r3, r3l;
	int s;

	if (!isfinite(x) || x == 0.0)
		return x;
	s = ilogb(x) / 3;
	x = ldexp(x, -3 * s);
	r = __builtin_cbrt(x);
	r2 = r * r;
	r2l = fma(r, r, -r2);
	r3 = r2 * r;
	r3l = fma(r2, r, -r3) + r2l * r;
	r -= ((r3 - x) + r3l) / (3.0 * r2);
	return ldexp(r, s);
}
float OVL cbrt(float x) { return __builtin_cbrtf(x); }
SPLIT1(cbrt, float, float) SPLIT1(cbrt, double, double)

/* clang has no builtin for exp10: const, as clang takes the libm calls it
 * knows under OpenCL (no errno), so that a work-item loop calling it can
 * be vectorised (libmvec.c) with stores to other buffers in it */
float exp10f(float) __attribute__((const));
double libm_exp10(double) __asm__("exp10") __attribute__((const));
float OVL exp10(float x) { return exp10f(x); }
double OVL exp10(double x) { return libm_exp10(x); }
SPLIT1(exp10, float, float) SPLIT1(exp10, double, double)

float lgammaf(float);
double libm_lgamma(double) __asm__("lgamma");
float OVL lgamma(float x) { return lgammaf(x); }
double OVL lgamma(double x) { return libm_lgamma(x); }
SPLIT1(lgamma, float, float) SPLIT1(lgamma, double, double)

/*
 * fmin/fmax: a NaN operand yields the other, as llvm.minnum does on
 * x86-64. AArch64's FMINNM/FMAXNM return a NaN for a signaling NaN
 * (IEEE 754-2008 minNum), so there NaNs are tested first.
 */
#if defined(__aarch64__)
#define NAN_OTHER(f, x, y) (isnan(x) ? (y) : isnan(y) ? (x) : f(x, y))
#else
#define NAN_OTHER(f, x, y) f(x, y)
#endif
float OVL fmin(float x, float y) { return NAN_OTHER(__builtin_fminf, x, y); }
double OVL fmin(double x, double y) { return NAN_OTHER(__builtin_fmin, x, y); }
float OVL fmax(float x, float y) { return NAN_OTHER(__builtin_fmaxf, x, y); }
double OVL fmax(double x, double y) { return NAN_OTHER(__builtin_fmax, x, y); }
#undef NAN_OTHER
SPLIT2(fmin, float, float, float) SPLIT2(fmin, double, double, double)
SPLIT2(fmax, float, float, float) SPLIT2(fmax, double, double, double)
SPLIT2S(fmin, float, float, float) SPLIT2S(fmin, double, double, double)
SPLIT2S(fmax, float, float, float) SPLIT2S(fmax, double, double, double)

float OVL fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
double OVL fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
SPLIT3(fma, float) SPLIT3(fma, double)

#define GENERIC(T)                                                             \
	T OVL mad(T a, T b, T c) { return a * b + c; }                         \
	T OVL rsqrt(T x) { return (T)1 / sqrt(x); }                            \
	T OVL acospi(T x) { return acos(x) * (T)M_1_PI; }                      \
	T OVL asinpi(T x) { return asin(x) * (T)M_1_PI; }                      \
	T OVL atanpi(T x) { return atan(x) * (T)M_1_PI; }                      \
	T OVL atan2pi(T y, T x) { return atan2(y, x) * (T)M_1_PI; }            \
	T OVL maxmag(T x, T y)                                                 \
	{                                                                      \
		T ax = fabs(x), ay = fabs(y);                                  \
		return ax > ay ? x : ay > ax ? y : fmax(x, y);                 \
	}                                                                      \
	T OVL minmag(T x, T y)                                                 \
	{                                                                      \
		T ax = fabs(x), ay = fabs(y);                                  \
		return ax < ay ? x : ay < ax ? y : fmin(x, y);                 \
	}                                                                      \
	/* half_ and native_: full precision is within their limits */       \
	T OVL native_sin(T x) { return sin(x); }                               \
	T OVL native_cos(T x) { return cos(x); }                               \
	T OVL native_tan(T x) { return tan(x); }                               \
	T OVL native_exp(T x) { return exp(x); }                               \
	T OVL native_exp2(T x) { return exp2(x); }                             \
	T OVL native_exp10(T x) { return exp10(x); }                           \
	T OVL native_log(T x) { return log(x); }                               \
	T OVL native_log2(T x) { return log2(x); }                             \
	T OVL native_log10(T x) { return log10(x); }                           \
	T OVL native_sqrt(T x) { return sqrt(x); }                             \
	T OVL native_rsqrt(T x) { return rsqrt(x); }                           \
	T OVL native_recip(T x) { return (T)1 / x; }                           \
	T OVL native_divide(T x, T y) { return x / y; }                        \
	T OVL native_powr(T x, T y) { return powr(x, y); }
FOR_ALL(GENERIC, float)
#undef GENERIC

#define GENERIC_D(T)                                                           \
	T OVL mad(T a, T b, T c) { return a * b + c; }                         \
	T OVL rsqrt(T x) { return (T)1 / sqrt(x); }                            \
	T OVL acospi(T x) { return acos(x) * (T)M_1_PI; }                      \
	T OVL asinpi(T x) { return asin(x) * (T)M_1_PI; }                      \
	T OVL atanpi(T x) { return atan(x) * (T)M_1_PI; }                      \
	T OVL atan2pi(T y, T x) { return atan2(y, x) * (T)M_1_PI; }            \
	T OVL maxmag(T x, T y)                                                 \
	{                                                                      \
		T ax = fabs(x), ay = fabs(y);                                  \
		return ax > ay ? x : ay > ax ? y : fmax(x, y);                 \
	}                                                                      \
	T OVL minmag(T x, T y)                                                 \
	{                                                                      \
		T ax = fabs(x), ay = fabs(y);                                  \
		return ax < ay ? x : ay < ax ? y : fmin(x, y);                 \
	}
FOR_ALL(GENERIC_D, double)

/* powr = exp2(y * log2(x)): NaN where log2 or the product is */
#define POWR(T)                                                                \
	T OVL powr(T x, T y)                                                   \
	{                                                                      \
		if (isnan(x) || isnan(y) || x < (T)0 ||                        \
		    (x == (T)0 && y == (T)0) || (x == (T)1 && isinf(y)) ||     \
		    (isinf(x) && y == (T)0))                                   \
			return (T)NAN;                                         \
		return pow(fabs(x), y); /* -0 is +0 here */                    \
	}
POWR(float) POWR(double)
SPLIT2(powr, float, float, float) SPLIT2(powr, double, double, double)

#define HALF1(F)                                                               \
	float OVL half_##F(float x) { return F(x); }                           \
	SPLIT1(half_##F, float, float)
HALF1(cos) HALF1(exp) HALF1(exp2) HALF1(exp10) HALF1(log) HALF1(log2)
HALF1(log10) HALF1(rsqrt) HALF1(sin) HALF1(sqrt) HALF1(tan)

float OVL half_recip(float x) { return 1.0f / x; }
SPLIT1(half_recip, float, float)
float OVL half_divide(float x, float y) { return x / y; }
float OVL half_powr(float x, float y) { return powr(x, y); }
SPLIT2(half_divide, float, float, float) SPLIT2(half_powr, float, float, float)

/* sinpi/cospi/tanpi: reduce exactly to |r| <= 1/2 first, where sin(pi r)
 * is well conditioned; pi * r then carries a second word (fma) so that
 * the product adds no rounding. float goes through double. */
#define PI_HI 0x1.921fb54442d18p+1
#define PI_LO 0x1.1a62633145c07p-53
static double sin_pi_small(double r)
{
	double hi = r * PI_HI;
	double lo = fma(r, PI_HI, -hi) + r * PI_LO;

	return sin(hi) + cos(hi) * lo;
}
static double cos_pi_small(double r)
{
	double hi = r * PI_HI;
	double lo = fma(r, PI_HI, -hi) + r * PI_LO;

	return cos(hi) - sin(hi) * lo;
}
double OVL sinpi(double x)
{
	double r = x - 2.0 * rint(x * 0.5); /* exact, in [-1, 1] */

	if (x == rint(x))
		return isinf(x) ? __builtin_nan("") : copysign(0.0, x);
	if (r > 0.5)
		r = 1.0 - r;
	else if (r < -0.5)
		r = -1.0 - r;
	return copysign(sin_pi_small(r), r);
}
double OVL cospi(double x)
{
	double r = fabs(x - 2.0 * rint(x * 0.5)); /* exact, in [0, 1] */

	if (isinf(x))
		return __builtin_nan("");
	if (r == 0.5)
		return 0.0;
	if (r < 0.25)
		return cos_pi_small(r);
	return sinpi(0.5 - r); /* exact for r >= 1/4 */
}
double OVL tanpi(double x)
{
	double r = x - rint(x); /* exact, in [-1/2, 1/2] */
	double s, c;

	if (isinf(x))
		return __builtin_nan("");
	/* tanpi(n) = +-0 with the sign of x for even n, opposite for odd */
	if (r == 0.0)
		return copysign(0.0, fmod(rint(x), 2.0) == 0.0 ? x : -x);
	if (fabs(r) == 0.5) /* n + 1/2: +inf for even n, -inf for odd */
		return fmod(x - 0.5, 2.0) == 0.0 ? INFINITY : -INFINITY;
	s = sin_pi_small(r);
	c = fabs(r) < 0.25 ? cos_pi_small(r) :
		sin_pi_small(0.5 - fabs(r));
	return s / c;
}
float OVL sinpi(float x) { return (float)sinpi((double)x); }
float OVL cospi(float x) { return (float)cospi((double)x); }
float OVL tanpi(float x) { return (float)tanpi((double)x); }
SPLIT1(sinpi, float, float) SPLIT1(sinpi, double, double)
SPLIT1(cospi, float, float) SPLIT1(cospi, double, double)
SPLIT1(tanpi, float, float) SPLIT1(tanpi, double, double)

/*
 * glibc's ilogb(NaN) is INT_MIN on x86, OpenCL's FP_ILOGBNAN INT_MAX;
 * its ilogb(0) is -INT_MAX on AArch64, OpenCL's FP_ILOGB0 INT_MIN
 */
#if defined(__aarch64__)
#define ILOGB0(x, v) ((x) == 0 ? FP_ILOGB0 : (v))
#else
#define ILOGB0(x, v) (v)
#endif
int OVL ilogb(float x)
{
	return isnan(x) ? FP_ILOGBNAN : ILOGB0(x, __builtin_ilogbf(x));
}
int OVL ilogb(double x)
{
	return isnan(x) ? FP_ILOGBNAN : ILOGB0(x, __builtin_ilogb(x));
}
#undef ILOGB0
SPLIT1(ilogb, float, int) SPLIT1(ilogb, double, int)

float OVL ldexp(float x, int n) { return __builtin_ldexpf(x, n); }
double OVL ldexp(double x, int n) { return __builtin_ldexp(x, n); }
SPLIT2(ldexp, float, int, float) SPLIT2(ldexp, double, int, double)
SPLIT2S(ldexp, float, int, float) SPLIT2S(ldexp, double, int, double)

/* pown, rootn: float through double, which makes them exact enough */
double OVL pown(double x, int n) { return pow(x, (double)n); }
float OVL pown(float x, int n) { return (float)pown((double)x, n); }
SPLIT2(pown, float, int, float) SPLIT2(pown, double, int, double)

/* x^(1/n): 1/n is rounded, which makes pow() off by up to |ln x| / n
 * ulps. So take the root of the mantissa with a few exponent bits (where
 * ln is small), polish it with a Newton step and put back the rest of
 * the exponent exactly. Large n: pow() is close enough. */
double OVL rootn(double x, int n)
{
	double inf = INFINITY, y, t, p;
	int e, k = n < 0 ? -n : n, q;

	if (n == 0 || isnan(x) || (x < 0.0 && !(n & 1)))
		return __builtin_nan("");
	if (x == 0.0) /* keeps the sign for odd n */
		return n > 0 ? ((n & 1) ? x : 0.0) :
			((n & 1) ? copysign(inf, x) : inf);
	if (isinf(x))
		return n > 0 ? x : copysign(0.0, x);
	if (n == 1)
		return x;
	if (k > 256 || n == INT_MIN)
		return copysign(pow(fabs(x), 1.0 / (double)n), x);
	y = frexp(fabs(x), &e);
	q = e / k;
	y = ldexp(y, e - q * k); /* within 2^+-257 */
	t = pow(y, 1.0 / (double)k);
	p = __builtin_powi(t, k);
	t -= t * ((p - y) / p) / (double)k;
	if (n < 0) {
		t = 1.0 / t;
		q = -q;
	}
	return copysign(ldexp(t, q), x);
}
float OVL rootn(float x, int n) { return (float)rootn((double)x, n); }
SPLIT2(rootn, float, int, float) SPLIT2(rootn, double, int, double)

float OVL nan(uint c) { return as_float(0x7fc00000u | (c & 0x3fffffu)); }
double OVL nan(ulong c)
{
	return as_double(0x7ff8000000000000ul | (c & 0x7fffffffffffful));
}
SPLIT1(nan, uint, float) SPLIT1(nan, ulong, double)
