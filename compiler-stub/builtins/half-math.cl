/* SPDX-License-Identifier: MIT */
/* Math functions (OpenCL C 6.15.2) for half and halfN (cl_khr_fp16).
 * Computed in float and rounded once to half: float's functions are
 * within a few float ulps, 2^-13 half ulps each, so the result is within
 * the specification's half limits (mostly 2 ulp) and usually correctly
 * rounded. The vector forms convert whole vectors, which F16C (or
 * AVX512-FP16) does in one instruction; on CPUs without either LLVM calls
 * libgcc's conversions. Exceptions, below: fma (through double, so that
 * it rounds once), nextafter and nan (on the bits), fract (its bound). */
#include "builtins.h"

/* clang declares a builtin's overloads only where its name is not yet
 * declared: the float (and double) ones these functions call are
 * declared here, before the half definitions hide them. */
#define PROTO(F, R, ...)                                                       \
	R OVL F(__VA_ARGS__);
#define PROTO1(F, R)                                                           \
	R OVL F(float); R##2 OVL F(float2); R##3 OVL F(float3);                \
	R##4 OVL F(float4); R##8 OVL F(float8); R##16 OVL F(float16);
#define PROTO2(F, U)                                                           \
	float OVL F(float, U); float2 OVL F(float2, U##2);                     \
	float3 OVL F(float3, U##3); float4 OVL F(float4, U##4);                \
	float8 OVL F(float8, U##8); float16 OVL F(float16, U##16);
#define P1(F) PROTO1(F, float)
#define P2(F) PROTO2(F, float)
P1(acos) P1(acosh) P1(acospi) P1(asin) P1(asinh) P1(asinpi) P1(atan)
P1(atanh) P1(atanpi) P1(cbrt) P1(ceil) P1(cos) P1(cosh) P1(cospi)
P1(erfc) P1(erf) P1(exp) P1(exp2) P1(exp10) P1(expm1) P1(fabs) P1(floor)
P1(lgamma) P1(log) P1(log2) P1(log10) P1(log1p) P1(logb) P1(rint)
P1(round) P1(rsqrt) P1(sin) P1(sinh) P1(sinpi) P1(sqrt) P1(tan) P1(tanh)
P1(tanpi) P1(tgamma) P1(trunc)
PROTO1(ilogb, int)
P2(atan2) P2(atan2pi) P2(copysign) P2(fdim) P2(fmax) P2(fmin) P2(fmod)
P2(hypot) P2(maxmag) P2(minmag) P2(pow) P2(powr) P2(remainder)
PROTO2(ldexp, int) PROTO2(pown, int) PROTO2(rootn, int)
PROTO(fma, double, double, double, double)
PROTO(fma, double2, double2, double2, double2)
PROTO(fma, double3, double3, double3, double3)
PROTO(fma, double4, double4, double4, double4)
PROTO(fma, double8, double8, double8, double8)
PROTO(fma, double16, double16, double16, double16)

#define F2H(x, N) __builtin_convertvector((x), half##N)
#define H2F(x, N) __builtin_convertvector((x), float##N)

/* R F(halfN) for N = 2..16 through float; R is half or int */
#define VIA1_N(F, N, R)                                                        \
	R##N OVL F(half##N x)                                                  \
	{                                                                      \
		return __builtin_convertvector(F(H2F(x, N)), R##N);            \
	}
#define VIA1(F, R)                                                             \
	R OVL F(half x) { return (R)F((float)x); }                             \
	VIA1_N(F, 2, R) VIA1_N(F, 3, R) VIA1_N(F, 4, R) VIA1_N(F, 8, R)        \
	VIA1_N(F, 16, R)
#define H1(F) VIA1(F, half)

/* halfN F(halfN, UN), U being half or int */
#define VIA2_N(F, N, U, UF)                                                    \
	half##N OVL F(half##N x, U##N y)                                       \
	{                                                                      \
		return F2H(F(H2F(x, N), __builtin_convertvector(y, UF##N)),    \
			   N);                                                 \
	}
#define VIA2(F, U, UF)                                                         \
	half OVL F(half x, U y) { return (half)F((float)x, (UF)y); }           \
	VIA2_N(F, 2, U, UF) VIA2_N(F, 3, U, UF) VIA2_N(F, 4, U, UF)            \
	VIA2_N(F, 8, U, UF) VIA2_N(F, 16, U, UF)
#define H2(F) VIA2(F, half, float)

/* halfN F(halfN, U): the scalar second operand of every width */
#define SCALAR2_N(F, N, U)                                                     \
	half##N OVL F(half##N x, U y) { return F(x, (U##N)y); }
#define SCALAR2(F, U)                                                          \
	SCALAR2_N(F, 2, U) SCALAR2_N(F, 3, U) SCALAR2_N(F, 4, U)               \
	SCALAR2_N(F, 8, U) SCALAR2_N(F, 16, U)

H1(acos) H1(acosh) H1(acospi) H1(asin) H1(asinh) H1(asinpi) H1(atan)
H1(atanh) H1(atanpi) H1(cbrt) H1(ceil) H1(cos) H1(cosh) H1(cospi)
H1(erfc) H1(erf) H1(exp) H1(exp2) H1(exp10) H1(expm1) H1(fabs) H1(floor)
H1(lgamma) H1(log) H1(log2) H1(log10) H1(log1p) H1(logb) H1(rint)
H1(round) H1(rsqrt) H1(sin) H1(sinh) H1(sinpi) H1(sqrt) H1(tan) H1(tanh)
H1(tanpi) H1(tgamma) H1(trunc)
VIA1(ilogb, int)

/* fmod, remainder, copysign and fmin/fmax are exact in float */
H2(atan2) H2(atan2pi) H2(copysign) H2(fdim) H2(fmax) H2(fmin) H2(fmod)
H2(hypot) H2(maxmag) H2(minmag) H2(pow) H2(powr) H2(remainder)
SCALAR2(fmax, half) SCALAR2(fmin, half)

VIA2(ldexp, int, int) SCALAR2(ldexp, int)
VIA2(pown, int, int) VIA2(rootn, int, int)

/* mad may round as it likes: float, once */
#define MAD_N(N)                                                               \
	half##N OVL mad(half##N a, half##N b, half##N c)                       \
	{                                                                      \
		return F2H(H2F(a, N) * H2F(b, N) + H2F(c, N), N);              \
	}
half OVL mad(half a, half b, half c) { return (half)((float)a * b + c); }
MAD_N(2) MAD_N(3) MAD_N(4) MAD_N(8) MAD_N(16)

/* fma rounds once: a * b is exact in double and, wherever the result is
 * a finite half, so is a * b + c or the rounding to double cannot land
 * on a half's midpoint; rounding to half is then the only rounding. */
#define FMA_N(N)                                                               \
	half##N OVL fma(half##N a, half##N b, half##N c)                       \
	{                                                                      \
		return __builtin_convertvector(                                \
			fma(__builtin_convertvector(a, double##N),             \
			    __builtin_convertvector(b, double##N),             \
			    __builtin_convertvector(c, double##N)),            \
			half##N);                                              \
	}
half OVL fma(half a, half b, half c)
{
	return (half)fma((double)a, (double)b, (double)c);
}
FMA_N(2) FMA_N(3) FMA_N(4) FMA_N(8) FMA_N(16)

/* nextafter: one step on the bits, towards y */
half OVL nextafter(half x, half y)
{
	short bx = as_short(x), by = as_short(y);

	if (isnan(x) || isnan(y))
		return x + y;
	if (x == y)
		return y;
	if (x == (half)0) /* the smallest subnormal, with y's sign */
		return as_half((short)((by & (short)0x8000) | 1));
	/* away from zero when x and y - x have the same sign */
	return as_half((short)(bx + (((x < y) == (bx >= 0)) ? 1 : -1)));
}
SPLIT2(nextafter, half, half, half)

/* nan(payload): quiet, the payload in the low bits of the significand */
half OVL nan(ushort c) { return as_half((ushort)(0x7e00u | (c & 0x1ffu))); }
SPLIT1(nan, ushort, half)
