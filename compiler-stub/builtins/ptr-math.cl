/* SPDX-License-Identifier: MIT */
/* Math functions with a pointer result (fract, modf, frexp, sincos,
 * remquo, lgamma_r) for float, double and half in every address space:
 * built twice, see FOR_PTR_AS. */
#include "builtins.h"

float lgammaf_r(float, int *);
double libm_lgamma_r(double, int *) __asm__("lgamma_r");

/* the work, on private temporaries */
#define IMPL(T, F)                                                             \
	static T OVL i_fract(T x, __private T *ip)                             \
	{                                                                      \
		T fl = floor(x);                                               \
		*ip = fl;                                                      \
		if (isnan(x))                                                  \
			return x;                                              \
		if (isinf(x) || x == (T)0) /* fract(-0) = -0 too */          \
			return copysign((T)0, x);                              \
		return fmin(x - fl, (T)(1.0 - (T)EPS_##F / 2));                \
	}                                                                      \
	static T OVL i_modf(T x, __private T *ip)                              \
	{                                                                      \
		return __builtin_modf##F(x, ip);                               \
	}                                                                      \
	static T OVL i_frexp(T x, __private int *e)                            \
	{                                                                      \
		return __builtin_frexp##F(x, e);                               \
	}                                                                      \
	static T OVL i_sincos(T x, __private T *c)                             \
	{                                                                      \
		*c = cos(x);                                                   \
		return sin(x);                                                 \
	}                                                                      \
	/* libm gives 3 bits of the quotient, OpenCL wants 7: reducing x       \
	 * modulo 128 y first keeps the remainder and those bits. From         \
	 * |y| = MAX / 256 on, 128 y could overflow; there the quotient is     \
	 * at most 256, and halving x, y and r is exact (multiples of a big    \
	 * power of 2, or r = x where the quotient is 0). */                   \
	static T OVL i_remquo(T x, T y, __private int *q)                      \
	{                                                                      \
		T r = remainder(x, y), h = (T)0.5;                             \
		int k;                                                         \
		*q = 0;                                                        \
		if (isnan(r))                                                  \
			return r;                                              \
		if (fabs(y) < (T)MAX_##F / (T)256)                             \
			k = (int)fabs(rint((fmod(x, (T)128 * y) - r) / y));    \
		else                                                           \
			k = (int)fabs(rint((x * h - r * h) / (y * h)));        \
		k &= 127;                                                      \
		*q = signbit(x) != signbit(y) ? -k : k;                        \
		return r;                                                      \
	}                                                                      \
	/* OpenCL: the sign is 0 at the poles, zero and negative integers */   \
	static T OVL i_lgamma_r(T x, __private int *s)                         \
	{                                                                      \
		T r = LGR_##F(x, s);                                           \
		if (x <= (T)0 && x == rint(x) && isfinite(x))                  \
			*s = 0;                                                \
		return r;                                                      \
	}

#define SCALAR1(AS, T, F, P)                                                   \
	T OVL F(T x, AS P *out)                                                \
	{                                                                      \
		P t;                                                           \
		T r = i_##F(x, &t);                                            \
		*out = t;                                                      \
		return r;                                                      \
	}
#define SCALARS(AS, T, _)                                                      \
	SCALAR1(AS, T, fract, T) SCALAR1(AS, T, modf, T)                       \
	SCALAR1(AS, T, frexp, int) SCALAR1(AS, T, sincos, T)                   \
	SCALAR1(AS, T, lgamma_r, int)                                          \
	T OVL remquo(T x, T y, AS int *out)                                    \
	{                                                                      \
		int t;                                                         \
		T r = i_remquo(x, y, &t);                                      \
		*out = t;                                                      \
		return r;                                                      \
	}
#define EPS_f FLT_EPSILON
#define EPS_ DBL_EPSILON
#define MAX_f FLT_MAX
#define MAX_ DBL_MAX
#define LGR_f lgammaf_r
#define LGR_ libm_lgamma_r

/* vectors: element-wise through private temporaries */
#define VEC1P(AS, T, N, F, P)                                                  \
	T##N OVL F(T##N x, AS P##N *out)                                       \
	{                                                                      \
		T##N r;                                                        \
		P##N o;                                                        \
		for (int i = 0; i < N; i++) {                                  \
			P t;                                                   \
			r[i] = i_##F(x[i], &t);                                    \
			o[i] = t;                                              \
		}                                                              \
		*out = o;                                                      \
		return r;                                                      \
	}
#define VEC2P(AS, T, N, F, P)                                                  \
	T##N OVL F(T##N x, T##N y, AS P##N *out)                               \
	{                                                                      \
		T##N r;                                                        \
		P##N o;                                                        \
		for (int i = 0; i < N; i++) {                                  \
			P t;                                                   \
			r[i] = i_##F(x[i], y[i], &t);                              \
			o[i] = t;                                              \
		}                                                              \
		*out = o;                                                      \
		return r;                                                      \
	}
#define VECS_N(AS, T, N)                                                       \
	VEC1P(AS, T, N, fract, T) VEC1P(AS, T, N, modf, T)                     \
	VEC1P(AS, T, N, frexp, int) VEC1P(AS, T, N, sincos, T)                 \
	VEC2P(AS, T, N, remquo, int) VEC1P(AS, T, N, lgamma_r, int)
#define ALL(AS, _)                                                             \
	SCALARS(AS, float, f) SCALARS(AS, double, ) SCALARS(AS, half, )        \
	VECS_N(AS, half, 2) VECS_N(AS, half, 3) VECS_N(AS, half, 4)            \
	VECS_N(AS, half, 8) VECS_N(AS, half, 16)                               \
	VECS_N(AS, float, 2) VECS_N(AS, float, 3) VECS_N(AS, float, 4)         \
	VECS_N(AS, float, 8) VECS_N(AS, float, 16)                             \
	VECS_N(AS, double, 2) VECS_N(AS, double, 3) VECS_N(AS, double, 4)      \
	VECS_N(AS, double, 8) VECS_N(AS, double, 16)

IMPL(float, f) IMPL(double, )

/* half: through float, whose results are exact in half but for fract's
 * bound (fract(-0x1p-24) is 1 - 2^-24 in float, 1 in half) and the
 * rounding of sin, cos and lgamma */
static half OVL i_fract(half x, __private half *ip)
{
	float fl;
	half r = (half)i_fract((float)x, &fl);

	*ip = (half)fl;
	return r == (half)1 ? (half)0x1.ffcp-1 : r;
}
static half OVL i_modf(half x, __private half *ip)
{
	float i;
	half r = (half)i_modf((float)x, &i);

	*ip = (half)i;
	return r;
}
static half OVL i_frexp(half x, __private int *e)
{
	return (half)i_frexp((float)x, e);
}
static half OVL i_sincos(half x, __private half *c)
{
	float cf;
	half s = (half)i_sincos((float)x, &cf);

	*c = (half)cf;
	return s;
}
static half OVL i_remquo(half x, half y, __private int *q)
{
	return (half)i_remquo((float)x, (float)y, q);
}
static half OVL i_lgamma_r(half x, __private int *s)
{
	return (half)i_lgamma_r((float)x, s);
}
FOR_PTR_AS(ALL, _)
