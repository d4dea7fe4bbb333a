/* SPDX-License-Identifier: MIT */
/* Host helpers on the math tests' type T (see math-type.h). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "compiler-test.h"
#include "math-type.h"

T rand_bits(uint64_t *s)
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

L sinpi_l(L x)
{
	L r;

	if (isinf(x))
		return NAN;
	if (x == rintl(x))
		return copysignl(0.0L, x);
	r = x - 2.0L * rintl(x * 0.5L); /* exact, in [-1, 1] */
	if (r > 0.5L)
		r = 1.0L - r;
	else if (r < -0.5L)
		r = -1.0L - r;
	return sinl(M_PIl * r);
}

L cospi_l(L x)
{
	L r;

	if (isinf(x))
		return NAN;
	r = fabsl(x - 2.0L * rintl(x * 0.5L)); /* exact, in [0, 1] */
	if (r == 0.5L)
		return 0.0L;
	if (r < 0.25L)
		return cosl(M_PIl * r);
	return sinpi_l(0.5L - r);
}

#ifdef CT_HALF
T nextafter_h(T x, T y)
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
#endif
