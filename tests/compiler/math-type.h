/* SPDX-License-Identifier: MIT */
/*
 * The floating-point type of the math tests (compiler-math-*,
 * compiler-math-args-*): float, with CT_DOUBLE double and with CT_HALF
 * half (_Float16 on the host, whose conversions from long double round
 * once); its format, and host helpers on it (math-type.c).
 */
#ifndef ACCEL_TEST_MATH_TYPE_H
#define ACCEL_TEST_MATH_TYPE_H

#include <float.h>
#include <stdint.h>

#ifdef CT_DOUBLE
typedef double T;
#define TNAME "double"
#define UNAME "ulong" /* nan()'s argument */
#define MANT 53
#define EMIN (-1022)
#define EMAX 1023
#define T_MAX DBL_MAX
#define T_MIN DBL_MIN
#define T_TRUE_MIN DBL_TRUE_MIN
#elif defined(CT_HALF)
typedef _Float16 T;
#define TNAME "half"
#define UNAME "ushort"
#define MANT 11
#define EMIN (-14)
#define EMAX 15
#define T_MAX 0x1.ffcp15
#define T_MIN 0x1p-14
#define T_TRUE_MIN 0x1p-24
#else
typedef float T;
#define TNAME "float"
#define UNAME "uint"
#define MANT 24
#define EMIN (-126)
#define EMAX 127
#define T_MAX FLT_MAX
#define T_MIN FLT_MIN
#define T_TRUE_MIN FLT_TRUE_MIN
#endif

/* the references' type */
typedef long double L;

/* a random bit pattern of T: NaNs, infinities and subnormals among them */
T rand_bits(uint64_t *s);

/* sin(pi x) and cos(pi x), reduced exactly first; the special values
 * as the specification gives them (signed zeros, NaN for infinities) */
L sinpi_l(L x);
L cospi_l(L x);

#ifdef CT_HALF
/* on the bits, as glibc has no nextafter for _Float16 */
T nextafter_h(T x, T y);
#endif

#endif /* ACCEL_TEST_MATH_TYPE_H */
