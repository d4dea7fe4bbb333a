/* SPDX-License-Identifier: MIT */
/*
 * The inputs of compiler-math-args-*: the special values of each domain
 * (every one, and for two arguments their pairs, in turn) among seeded
 * random values of the domain, and the integer arguments' edge cases.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>

#include "test-math-args.h"

static const T base_specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 0.25, 1.5, -2.5, 10.0,
	100.0, INFINITY, -INFINITY, NAN, -NAN, T_MIN, -T_MIN, T_TRUE_MIN,
	-T_TRUE_MIN, T_MIN / 3, -T_MIN * 0.75, T_MAX, -T_MAX, 1e30, -1e-30,
	M_PI,
};

static const T trig_specials[] = {
	1e10, -1e20, 0x1p63, 1e6, -710.0, M_PI / 2, -M_PI / 2, 3 * M_PI / 2,
	2 * M_PI, 1e-7, 0x1p120, -0x1p100, 1e22, -1e30,
};

static const T pi_specials[] = {
	0.75, -0.75, 1.25, -1.5, 3.5, 0x1p22 + 0.5, -0x1p22 - 0.5, 0x1p23,
	0x1p23 + 1, -0x1p23 - 1, 0x1p24 + 2, 0x1p52 + 1, -0x1p53, 1.0 / 3,
	7.0, -8.0, 0.125, -1e-40, 1e-30,
	/* the same edges for half */
	0x1p9 + 0.5, -0x1p10, 0x1p10 + 1, 0x1p11 + 2,
};

static const T pow_specials[] = {
	4.0, -4.0, 0.1, 1e-3, 1 + 0x1p-20, 1 - 0x1p-20, 3.0, 1.0 / 3, 1e10,
	-1e10, 0x1p31, 0x1p53 + 2, -0x1p31 - 1, 7.0, -7.0,
	1 + 0x1p-10, 1 - 0x1p-11, /* half's neighbours of 1 */
};

static const T gamma_specials[] = {
	-1.5, -2.457024738220800, 3.0, 4.0, -100.5, 0.1, 1e-20, 171.6,
	35.04, -0x1p22 - 0.5, 0x1p100, -0x1p100, -4.0, -170.5,
};

/* the longest list of extras is pi_specials */
#define N_SPECIALS_MAX                                                         \
	(TEST_ARRAY_SIZE(base_specials) + TEST_ARRAY_SIZE(pi_specials))

struct specials {
	T v[N_SPECIALS_MAX];
	unsigned n;
};

static void specials_for(enum dom d, struct specials *s)
{
	const T *x = NULL;
	size_t nx = 0;

	switch (d) {
	case D_TRIG:
		x = trig_specials, nx = TEST_ARRAY_SIZE(trig_specials);
		break;
	case D_PI:
		x = pi_specials, nx = TEST_ARRAY_SIZE(pi_specials);
		break;
	case D_POW:
	case D_POS:
		x = pow_specials, nx = TEST_ARRAY_SIZE(pow_specials);
		break;
	case D_GAMMA:
		x = gamma_specials, nx = TEST_ARRAY_SIZE(gamma_specials);
		break;
	default:
		break;
	}
	assert_true(TEST_ARRAY_SIZE(base_specials) + nx <= N_SPECIALS_MAX);
	s->n = 0;
	for (size_t i = 0; i < TEST_ARRAY_SIZE(base_specials); i++)
		s->v[s->n++] = base_specials[i];
	for (size_t i = 0; i < nx; i++)
		s->v[s->n++] = x[i];
}

static const int int_specials[] = {
	0, 1, -1, 2, -2, 3, -3, 4, -5, 7, 8, -8, 31, 32, -33, 127, 128, -126,
	-127, -128, -149, -150, 149, 150, 254, 255, -1022, -1074, -1075, 1023,
	1024, 1075, 2100, -2100, 65536, -65537, INT_MAX, INT_MIN, INT_MAX - 1,
	INT_MIN + 1,
};

/* +-m 2^e, m in [1, 2), e in [lo, hi], negative half the time if @neg;
 * [lo, hi] no wider than just beyond T's range (half's is narrow) */
static T rand_log(uint64_t *s, int lo, int hi, bool neg)
{
	T x;

	lo = lo < EMIN - MANT - 2 ? EMIN - MANT - 2 : lo;
	hi = hi > EMAX + 2 ? EMAX + 2 : hi;
	x = (T)ldexp(ct_rand_range(s, 1.0, 2.0),
		     lo + (int)(ct_rand(s) % (uint64_t)(hi - lo + 1)));

	return neg && (ct_rand(s) & 1) ? -x : x;
}

static int rand_int(uint64_t *s, int lo, int hi)
{
	return lo + (int)(ct_rand(s) % (uint64_t)((int64_t)hi - lo + 1));
}

/* a random value of domain @d (@a: the first argument, for D_QUOT and
 * D_FMAC, @b the second) */
static T gen(uint64_t *s, enum dom d, T a, T b)
{
	unsigned pick = (unsigned)(ct_rand(s) % 10);

	switch (d) {
	case D_TRIG:
		return pick < 4 ? (T)ct_rand_range(s, -10, 10) :
			pick < 7 ? (T)ct_rand_range(s, -1e4, 1e4) :
			rand_log(s, -30, EMAX, true);
	case D_PI:
		return pick < 4 ? (T)ct_rand_range(s, -40, 40) :
			pick < 6 ? (T)rand_int(s, -400, 400) / 4 :
			pick < 7 ? (T)rand_int(s, -100, 100) :
			rand_log(s, -30, 70, true);
	case D_POW:
		return pick < 4 ? rand_log(s, -20, 20, pick < 2) :
			pick < 7 ? (T)ct_rand_range(s, -40, 40) :
			pick < 9 ? (T)rand_int(s, -60, 60) :
			rand_log(s, -20, 10, true);
	case D_POS:
		return fabs(gen(s, D_POW, a, b));
	case D_GAMMA:
		return pick < 5 ? (T)ct_rand_range(s, -40, 40) :
			pick < 7 ? (T)(rand_int(s, -30, 0) +
				       ct_rand_range(s, -1e-3, 1e-3)) :
			rand_log(s, -30, 30, true);
	case D_QUOT:
		/* quotients up to 2^40: the 7 low bits of remquo's */
		if (pick < 4)
			return a / rand_log(s, 0, 40, true);
		if (pick < 7)
			return a * (T)ct_rand_range(s, -3, 3);
		return gen(s, D_ANY, a, b);
	case D_FMAC:
		if (pick < 3) /* cancellation */
			return -(a * b);
		return gen(s, D_ANY, a, b);
	case D_ANY:
	default:
		return pick < 4 ? (T)ct_rand_range(s, -1e3, 1e3) :
			pick < 6 ? rand_log(s, -60, 60, true) :
			pick < 7 ? rand_log(s, EMIN - MANT, EMAX, true) :
			rand_bits(s);
	}
}

static int gen_n(uint64_t *s, enum idom d, unsigned *next_special)
{
	unsigned pick = (unsigned)(ct_rand(s) % 10);
	int range = EMAX - EMIN + MANT + 8;

	if (d == N_NONE)
		return rand_int(s, -100, 100);
	if (pick < 2) /* integer edge cases in turn */
		return int_specials[(*next_special)++ %
				    TEST_ARRAY_SIZE(int_specials)];
	switch (d) {
	case N_POWN:
		return pick < 8 ? rand_int(s, -40, 40) : rand_int(s, -400, 400);
	case N_ROOTN:
		return pick < 8 ? rand_int(s, -40, 40) : (int)ct_rand(s);
	case N_LDEXP:
	default:
		return pick < 7 ? rand_int(s, -range, range) :
			rand_int(s, -10, 10);
	}
}

/*
 * Inputs of every element: special values (every one, and for two
 * arguments their pairs, in turn) among random ones of the domains.
 */
void make_inputs(const struct fn *f, struct host *h, size_t elems,
		 uint64_t seed)
{
	struct specials sa, sb;
	unsigned ka = 0, kb = 0, kn = 0;
	uint64_t s = seed;

	specials_for(f->da, &sa);
	specials_for(f->db == D_QUOT ? D_ANY : f->db, &sb);
	for (size_t j = 0; j < elems; j++) {
		unsigned pick = (unsigned)(ct_rand(&s) % 8);

		if (pick == 0) { /* a pair of specials */
			h->a[j] = sa.v[ka % sa.n];
			h->b[j] = sb.v[(ka / sa.n + kb++) % sb.n];
			ka++;
		} else if (pick == 1) {
			h->a[j] = sa.v[ka++ % sa.n];
			h->b[j] = gen(&s, f->db, h->a[j], 0);
		} else if (pick == 2) {
			h->a[j] = gen(&s, f->da, 0, 0);
			h->b[j] = sb.v[kb++ % sb.n];
		} else {
			h->a[j] = gen(&s, f->da, 0, 0);
			h->b[j] = gen(&s, f->db, h->a[j], 0);
		}
		h->c[j] = pick == 3 ? sb.v[kb++ % sb.n] :
			gen(&s, f->dc, h->a[j], h->b[j]);
		h->n[j] = gen_n(&s, f->dn, &kn);
	}
}
