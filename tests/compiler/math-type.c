/* SPDX-License-Identifier: MIT */
/* Host helpers on the math tests' type T (see math-type.h). */
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
