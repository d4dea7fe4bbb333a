/* SPDX-License-Identifier: MIT */
/*
 * The inputs of compiler-math-*: the special values (zeros, infinities,
 * NaN, subnormals, the extremes), all their pairs for two-argument
 * functions, then seeded random values from the function's domain,
 * log-uniform magnitudes and random bit patterns.
 */
#define _GNU_SOURCE
#include <math.h>

#include "test-math.h"

/* fma: FMA_A * FMA_B = 2^MANT + 1 */
#ifdef CT_DOUBLE
#define FMA_A 321.0
#define FMA_B 28059810762433.0
#elif defined(CT_HALF)
#define FMA_A 3.0
#define FMA_B 683.0
#else
#define FMA_A 24929.0
#define FMA_B 673.0
#endif

static const T specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 10.0, 0.25,
	INFINITY, -INFINITY, NAN, T_MIN, -T_MIN, T_TRUE_MIN, -T_MIN / 3,
	T_MAX, -T_MAX, 1.5, -2.5, 100.0,
};
#define N_SPECIALS (sizeof(specials) / sizeof(specials[0]))

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
		x = rand_bits(s);
		if (d == HALF_TRIG)
			x = (T)fmodl(x, (T)lim);
		if (d == POS)
			x = (T)fabsl(x);
	}
	return x;
}

void make_inputs(const struct fn *f, struct inputs *in, uint64_t seed)
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
