/* SPDX-License-Identifier: MIT */
/*
 * Math builtins with several arguments or a pointer argument (sincos,
 * sinpi, pown, ldexp, frexp, remquo, lgamma_r, pow, fma, ...) at every
 * width and launch size. The work-item loop of a kernel is vectorised
 * and may call glibc's libmvec for sin/cos/pow: a lane mix-up there
 * gives work-items the results of others, at some launch sizes only.
 *
 * Each function has a kernel per width (1, 2, 3, 4, 8, 16) and shape:
 * vload/vstore, typed global pointers, and for pointer results a
 * private, a global and a local pointer; all in one program (pointer
 * functions again in one for OpenCL C 1.2, whose pointer overloads
 * differ from 3.0's generic ones). Each kernel runs over global sizes 1
 * to 64 with the runtime's local size and explicit ones, every launch on
 * its own stretch of the buffers, where each work-item reads inputs of
 * its own (special values among random ones). Every result, pointer
 * results included, is checked against a long double reference at the
 * OpenCL 3.0 full profile ULP limits and special-value rules, and the
 * poison between the stretches must stay.
 *
 * Built as compiler-math-args-float, with CT_DOUBLE
 * compiler-math-args-double (skipped without fp64) and with CT_HALF
 * compiler-math-args-half (skipped without fp16; _Float16 on the host).
 * CT_MATH_ONLY=name runs only that function.
 */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

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

typedef long double L;

/* ---- launches --------------------------------------------------------- */

static const unsigned globals[] = { 1,  2,  3,  4,  5,  7,  8,  9, 12,
				    15, 16, 17, 31, 32, 33, 63, 64 };
/* besides the runtime's choice (0) and the whole range in one group */
static const unsigned locals[] = { 16, 8, 5 };

#define MAX_W 16
#define GAP 16 /* poisoned elements after each launch's stretch */
#define MAX_LAUNCHES 128

struct launch {
	unsigned global, local; /* local 0: the runtime's choice */
	unsigned start;         /* first element, a multiple of 16 */
};

struct plan {
	struct launch l[MAX_LAUNCHES];
	unsigned n;
	size_t elems;
};

static void make_plan(struct plan *p)
{
	unsigned start = 0;

	p->n = 0;
	for (size_t gi = 0; gi < TEST_ARRAY_SIZE(globals); gi++) {
		unsigned g = globals[gi];
		unsigned ls[2 + TEST_ARRAY_SIZE(locals)], nl = 0;

		ls[nl++] = 0;
		ls[nl++] = g;
		for (size_t li = 0; li < TEST_ARRAY_SIZE(locals); li++)
			if (locals[li] < g)
				ls[nl++] = locals[li];
		for (unsigned k = 0; k < nl; k++) {
			assert_true(p->n < MAX_LAUNCHES);
			p->l[p->n++] = (struct launch){ g, ls[k], start };
			start += g * MAX_W + GAP;
		}
	}
	p->elems = start;
}

/* ---- functions ---------------------------------------------------------- */

/*
 * Kernel shapes: r = F(a), F(a, b), F(a, b scalar), F(a, b, c),
 * F(a, n), F(a, n scalar); ri = F(a); r = nan(bits of c); r = F(a, &r2),
 * F(a, &ri), F(a, b, &ri).
 */
enum kind { K_1, K_2, K_2S, K_3, K_FI, K_FIS, K_IF, K_NAN, K_FP, K_FPI,
	    K_RQ };

static bool has_ptr(enum kind k)
{
	return k == K_FP || k == K_FPI || k == K_RQ;
}

/* V: vload/vstore; G: typed global pointers (a 3-vector takes 4
 * elements); P, L: vload/vstore with the pointer result in private or
 * local memory */
enum shape { S_V, S_G, S_P, S_L };
static const char shape_names[] = "VGPL";

/* the stride of work-items in elements */
static unsigned stride(enum shape s, unsigned w)
{
	return s == S_G && w == 3 ? 4 : w;
}

/* input domains */
enum dom { D_ANY, D_TRIG, D_PI, D_POW, D_POS, D_GAMMA, D_QUOT, D_FMAC };
enum idom { N_NONE, N_POWN, N_ROOTN, N_LDEXP };

/* limits: ULPs, or */
#define EXACT 0.0
#define EXACT_0 -1.0 /* exact, but either zero (fmax(-0, +0)) */
#define LOOSE -2.0   /* no limit in the specification: gross errors */

/* checks of an int result */
enum irule { I_NONE, I_EXACT, I_QUO };

struct out {
	L r, r2;
	int ri;
	bool exact, exact2; /* a value the specification prescribes */
	bool neg;           /* remquo: x / y is negative */
	enum irule irule;
};

typedef void ref_fn(L a, L b, L c, int n, struct out *o);

struct fn {
	const char *name; /* the builtin */
	enum kind kind;
	double ulp, ulp2; /* result, T pointer result */
	double ulp_h;     /* half: the ULP limit of both, where they have one */
	enum dom da, db, dc;
	enum idom dn;
	ref_fn *ref;
};

/* ---- references --------------------------------------------------------- */

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
#define LOOSE_REL 0x1p-9L /* rounding to half alone is up to 2^-11 */

/* on the bits */
static T nextafter_h(T x, T y)
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
#else
#ifdef CT_DOUBLE
#define TF(fn) fn
#else
#define TF(fn) fn##f
#endif
#define CR2(fn, x, y) TF(fn)((T)(x), (T)(y))
#define CR3(fn, x, y, z) TF(fn)((T)(x), (T)(y), (T)(z))
#define NEXTAFTER(x, y) CR2(nextafter, x, y)
#define LOOSE_REL 1e-4L
#endif

/* the limit of a result (@ptr: the pointer result) of @f for T */
static double limit_of(const struct fn *f, bool ptr)
{
	double ulp = ptr ? f->ulp2 : f->ulp;

#ifdef CT_HALF
	return ulp > 0 ? f->ulp_h : ulp;
#else
	return ulp;
#endif
}

/* sin(pi x), |x| <= 1/2 exact reduction first */
static L sinpi_l(L x)
{
	L r = x - 2.0L * rintl(x * 0.5L); /* exact, in [-1, 1] */

	if (r > 0.5L)
		r = 1.0L - r;
	else if (r < -0.5L)
		r = -1.0L - r;
	return sinl(M_PIl * r);
}

static L cospi_l(L x)
{
	L r = fabsl(x - 2.0L * rintl(x * 0.5L)); /* exact, in [0, 1] */

	if (r < 0.25L)
		return cosl(M_PIl * r);
	return sinpi_l(0.5L - r);
}

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

static const struct fn fns[] = {
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
	F1(nan, K_NAN, EXACT, EXACT, D_ANY),
};

/* ---- inputs ------------------------------------------------------------- */

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

static T rand_bits(uint64_t *s)
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

struct host {
	T *a, *b, *c, *r, *r2;
	int *n, *ri;
};

/*
 * Inputs of every element: special values (every one, and for two
 * arguments their pairs, in turn) among random ones of the domains.
 */
static void make_inputs(const struct fn *f, struct host *h, size_t elems,
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

/* ---- kernels ------------------------------------------------------------ */

struct src_ctx {
	struct ct_str *s;
	enum shape shape;
	unsigned w;
	char vt[16], vi[16]; /* T and int at width w */
};

/* "p[i]", "vload4(i, p)" or "((global const float4 *)p)[i]" */
static void emit_load(struct src_ctx *c, const char *p, bool is_int)
{
	if (c->w == 1)
		ct_printf(c->s, "%s[i]", p);
	else if (c->shape == S_G)
		ct_printf(c->s, "((global const %s *)%s)[i]",
			  is_int ? c->vi : c->vt, p);
	else
		ct_printf(c->s, "vload%u(i, %s)", c->w, p);
}

/* opens the store of a value to p; emit_store_end() closes it */
static void emit_store(struct src_ctx *c, const char *p, bool is_int)
{
	if (c->w == 1)
		ct_printf(c->s, "\t%s[i] = ", p);
	else if (c->shape == S_G)
		ct_printf(c->s, "\t((global %s *)%s)[i] = ",
			  is_int ? c->vi : c->vt, p);
	else
		ct_printf(c->s, "\tvstore%u(", c->w);
}

static void emit_store_end(struct src_ctx *c, const char *p)
{
	if (c->w == 1 || c->shape == S_G)
		ct_printf(c->s, ";\n");
	else
		ct_printf(c->s, ", i, %s);\n", p);
}

static void kernel_name(char *buf, size_t n, size_t fi, enum shape sh,
			unsigned w)
{
	snprintf(buf, n, "k%zu_%c%u", fi, shape_names[sh], w);
}

static void emit_kernel(struct ct_str *s, size_t fi, enum shape sh,
			unsigned w)
{
	const struct fn *f = &fns[fi];
	struct src_ctx c = { .s = s, .shape = sh, .w = w };
	bool ires = f->kind == K_FPI || f->kind == K_RQ;
	const char *pt = ires ? c.vi : c.vt; /* the pointer result's type */
	const char *pout = ires ? "ri" : "r2";
	char name[32];

	if (w == 1) {
		snprintf(c.vt, sizeof(c.vt), "%s", TNAME);
		snprintf(c.vi, sizeof(c.vi), "int");
	} else {
		snprintf(c.vt, sizeof(c.vt), "%s%u", TNAME, w);
		snprintf(c.vi, sizeof(c.vi), "int%u", w);
	}
	kernel_name(name, sizeof(name), fi, sh, w);
	ct_printf(s,
		  "kernel void %s(global const T *a, global const T *b,\n"
		  "\tglobal const T *c, global const int *n, global T *r,\n"
		  "\tglobal T *r2, global int *ri, uint base)\n{\n"
		  "\tsize_t i = get_global_id(0);\n",
		  name);
	if (sh == S_L)
		ct_printf(s, "\tlocal %s lt[64];\n"
			  "\tsize_t l = get_local_id(0);\n", pt);
	ct_printf(s, "\ta += base; b += base; c += base; n += base;\n"
		  "\tr += base; r2 += base; ri += base;\n");
	if (has_ptr(f->kind) && sh == S_P)
		ct_printf(s, "\t%s t;\n", pt);

	/* the result */
	emit_store(&c, f->kind == K_IF ? "ri" : "r", f->kind == K_IF);
	ct_printf(s, "%s(", f->name);
	switch (f->kind) {
	case K_NAN:
		/* as_uint4(): the width is the end of the type's name */
		ct_printf(s, "as_%s%s(", UNAME, c.vt + strlen(TNAME));
		emit_load(&c, "c", false);
		ct_printf(s, ")");
		break;
	default:
		emit_load(&c, "a", false);
		break;
	}
	switch (f->kind) {
	case K_2:
	case K_3:
	case K_RQ:
		ct_printf(s, ", ");
		emit_load(&c, "b", false);
		if (f->kind == K_3) {
			ct_printf(s, ", ");
			emit_load(&c, "c", false);
		}
		break;
	case K_2S:
		ct_printf(s, ", b[i * %u]", w);
		break;
	case K_FI:
		ct_printf(s, ", ");
		emit_load(&c, "n", true);
		break;
	case K_FIS:
		ct_printf(s, ", n[i * %u]", w);
		break;
	default:
		break;
	}
	if (has_ptr(f->kind)) {
		if (sh == S_P)
			ct_printf(s, ", &t");
		else if (sh == S_L)
			ct_printf(s, ", &lt[l]");
		else if (w == 1)
			ct_printf(s, ", &%s[i]", pout);
		else
			ct_printf(s, ", &((global %s *)%s)[i]", pt, pout);
	}
	ct_printf(s, ")");
	emit_store_end(&c, f->kind == K_IF ? "ri" : "r");

	/* the pointer result, from private or local memory */
	if (has_ptr(f->kind) && (sh == S_P || sh == S_L)) {
		emit_store(&c, pout, ires);
		ct_printf(s, "%s", sh == S_P ? "t" : "lt[l]");
		emit_store_end(&c, pout);
	}
	ct_printf(s, "}\n");
}

static const unsigned widths[] = { 1, 2, 3, 4, 8, 16 };

static bool kernel_exists(const struct fn *f, enum shape sh, unsigned w)
{
	if ((f->kind == K_2S || f->kind == K_FIS) && w == 1)
		return false; /* the same as F(a, b) */
	if (has_ptr(f->kind))
		return sh != S_V;
	return sh == S_V || (sh == S_G && f->kind != K_2S &&
			     f->kind != K_FIS);
}

/* ---- checks ------------------------------------------------------------- */

static bool same_bits(T got, T want)
{
	if (isnan(want))
		return isnan(got);
	return got == want && signbit(got) == signbit(want);
}

/* what value_error() may be at @limit */
static double threshold(double limit)
{
	return limit > 0 ? limit : limit == LOOSE ? 1.0 : 0.0;
}

/* the error of @got in ULPs (LOOSE: in 1e-4 relative or absolute), or
 * INFINITY where it must be exact */
static double value_error(T got, L want, double limit, bool exact)
{
	if (isnan(want))
		return isnan(got) ? 0.0 : INFINITY;
	if (limit == EXACT_0 && got == 0 && want == 0)
		return 0.0;
	if (exact || limit == EXACT || limit == EXACT_0)
		return same_bits(got, (T)want) ? 0.0 : INFINITY;
	if (isnan(got))
		return INFINITY;
	if (limit == LOOSE) {
		if (fabsl(want) > T_MAX)
			return isinf(got) && signbit(got) == signbit(want) ?
				0.0 : INFINITY;
		return (double)(fabsl(got - want) /
				(fmaxl(1.0L, fabsl(want)) * LOOSE_REL));
	}
	return ct_ulp_error(got, want, MANT, EMIN);
}

static bool int_ok(int got, const struct out *w)
{
	unsigned q, k;

	switch (w->irule) {
	case I_EXACT:
		return got == w->ri;
	case I_QUO:
		/* remquo: NaN gives 0; else the quotient's 7 low bits and
		 * the sign of x / y */
		if (isnan(w->r))
			return got == 0;
		q = got < 0 ? 0u - (unsigned)got : (unsigned)got;
		k = w->ri < 0 ? 0u - (unsigned)w->ri : (unsigned)w->ri;
		return (q & 127) == k && (got == 0 || (got < 0) == w->neg);
	default:
		return true;
	}
}

struct kern {
	const struct fn *f;
	enum shape sh;
	unsigned w;
	const char *std;
};

struct tally {
	unsigned bad, printed;
	unsigned min_global; /* the smallest launch with a failure */
	double worst;
};

#define PRINT_MAX 4 /* failures printed per kernel */

static void report(const struct kern *k, const struct launch *ln,
		   unsigned item, unsigned lane, const struct host *h,
		   size_t j, size_t js, const struct out *w, double e,
		   double e2, bool iok, const char *what)
{
	const struct fn *f = k->f;
	struct ct_str s = { 0 };

	ct_printf(&s, "%s %s %c%u %s: global %u local ", f->name, TNAME,
		  shape_names[k->sh], k->w, k->std, ln->global);
	if (ln->local)
		ct_printf(&s, "%u", ln->local);
	else
		ct_printf(&s, "NULL");
	ct_printf(&s, ", work-item %u lane %u: ", item, lane);
	if (what) {
		print_error("%s%s at element %zu\n", s.buf, what, j);
		ct_str_free(&s);
		return;
	}
	ct_printf(&s, "%s(%a", f->name,
		  (double)(f->kind == K_NAN ? h->c[j] : h->a[j]));
	if (f->kind == K_2 || f->kind == K_3 || f->kind == K_RQ)
		ct_printf(&s, ", %a", (double)h->b[j]);
	if (f->kind == K_2S)
		ct_printf(&s, ", %a", (double)h->b[js]);
	if (f->kind == K_3)
		ct_printf(&s, ", %a", (double)h->c[j]);
	if (f->kind == K_FI)
		ct_printf(&s, ", %d", h->n[j]);
	if (f->kind == K_FIS)
		ct_printf(&s, ", %d", h->n[js]);
	ct_printf(&s, ") = ");
	if (f->kind == K_IF)
		ct_printf(&s, "%d, want %d", h->ri[j], w->ri);
	else if (f->kind == K_FP)
		ct_printf(&s, "%a, %a; want %La, %La (err %.3g, %.3g ulp)",
			  (double)h->r[j], (double)h->r2[j], w->r, w->r2, e,
			  e2);
	else if (f->kind == K_FPI || f->kind == K_RQ)
		ct_printf(&s, "%a, %d; want %La, %d%s (err %.3g ulp)",
			  (double)h->r[j], h->ri[j], w->r, w->ri,
			  iok ? "" : " (int result wrong)", e);
	else
		ct_printf(&s, "%a; want %La (err %.3g ulp)", (double)h->r[j],
			  w->r, e);
	print_error("%s\n", s.buf);
	ct_str_free(&s);
}

static bool poisoned(const struct host *h, size_t j, const T *tp, int ip)
{
	return !memcmp(&h->r[j], tp, sizeof(T)) &&
	       !memcmp(&h->r2[j], tp, sizeof(T)) && h->ri[j] == ip;
}

/* the results of one kernel over all launches of @p */
static void check_kernel(const struct kern *k, const struct plan *p,
			 const struct host *h, const struct out *want,
			 struct tally *t)
{
	const struct fn *f = k->f;
	unsigned st = stride(k->sh, k->w);
	double ulp = limit_of(f, false), ulp2 = limit_of(f, true);
	T tpoison;
	int ipoison;

	memset(&tpoison, 0xa5, sizeof(tpoison));
	memset(&ipoison, 0xa5, sizeof(ipoison));
	for (unsigned li = 0; li < p->n; li++) {
		const struct launch *ln = &p->l[li];
		size_t end = ln->start + (size_t)ln->global * MAX_W + GAP;

		for (size_t j = ln->start; j < end; j++) {
			unsigned item = (unsigned)((j - ln->start) / st);
			unsigned lane = (unsigned)((j - ln->start) % st);
			size_t js = ln->start + (size_t)item * st;
			const struct out *w = &want[j];
			struct out wo;
			double e = 0, e2 = 0;
			bool ok = true, iok = true;

			if (item >= ln->global) {
				if (!poisoned(h, j, &tpoison, ipoison)) {
					t->bad++;
					if (!t->min_global ||
					    ln->global < t->min_global)
						t->min_global = ln->global;
					if (t->printed++ < PRINT_MAX)
						report(k, ln, item, lane, h, j,
						       js, w, 0, 0, true,
						       "written beyond the "
						       "range");
				}
				continue;
			}
			if (lane >= k->w)
				continue; /* a 3-vector's padding */
			if (f->kind == K_2S || f->kind == K_FIS) {
				memset(&wo, 0, sizeof(wo));
				f->ref(h->a[j], h->b[js], h->c[j], h->n[js],
				       &wo);
				w = &wo;
			}
			switch (f->kind) {
			case K_IF:
				iok = int_ok(h->ri[j], w);
				break;
			case K_FP:
				e = value_error(h->r[j], w->r, ulp,
						w->exact);
				e2 = value_error(h->r2[j], w->r2, ulp2,
						 w->exact2);
				ok = e <= threshold(ulp) &&
				     e2 <= threshold(ulp2);
				break;
			case K_FPI:
			case K_RQ:
				iok = int_ok(h->ri[j], w);
				/* fall through */
			default:
				e = value_error(h->r[j], w->r, ulp,
						w->exact);
				ok = e <= threshold(ulp);
				break;
			}
			if (isfinite(e) && e > t->worst && ulp > 0)
				t->worst = e;
			if (isfinite(e2) && e2 > t->worst && ulp2 > 0)
				t->worst = e2;
			if (ok && iok)
				continue;
			t->bad++;
			if (!t->min_global || ln->global < t->min_global)
				t->min_global = ln->global;
			if (t->printed++ < PRINT_MAX)
				report(k, ln, item, lane, h, j, js, w, e, e2,
				       iok, NULL);
		}
	}
}

/* ---- running ------------------------------------------------------------ */

struct bufs {
	struct accel_buffer *a, *b, *c, *n, *r, *r2, *ri;
};

static void run_kernel(struct test_env *env, struct accel_program *prog,
		       const char *name, const struct plan *p,
		       const struct bufs *b)
{
	struct accel_buffer *args[] = { b->a, b->b, b->c,  b->n,
					 b->r, b->r2, b->ri };
	struct accel_fence *fences[MAX_LAUNCHES];
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	for (unsigned i = 0; i < TEST_ARRAY_SIZE(args); i++)
		assert_int_equal(accel_kernel_set_arg_buffer(k, i, args[i]),
				 0);
	/* in order, each with the arguments of its call */
	for (unsigned i = 0; i < p->n; i++) {
		struct accel_ndrange range =
			test_ndrange(1, p->l[i].global, 0, 0, p->l[i].local,
				     0, 0);
		uint32_t base = p->l[i].start;

		assert_int_equal(accel_kernel_set_arg_value(k, 7, sizeof(base),
							    &base), 0);
		fences[i] = NULL;
		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, &fences[i]), 0);
	}
	for (unsigned i = 0; i < p->n; i++)
		assert_int_equal(test_wait_unref(fences[i]), 0);
	accel_kernel_unref(k);
}

/* OpenCL C 1.2 only for the pointer functions, whose overloads differ */
static const char *const stds[] = { "CL3.0", "CL1.2" };
#define N_STD TEST_ARRAY_SIZE(stds)

static bool selected(size_t fi, const char *only, unsigned si)
{
	return (!only || !strcmp(only, fns[fi].name)) &&
	       (si == 0 || has_ptr(fns[fi].kind));
}

/* The kernels of all functions in one program per version: building
 * takes most of the time, and little of it per kernel. */
static struct accel_program *build(struct test_env *env, unsigned si,
				   const char *only)
{
	struct accel_program *prog = NULL;
	struct ct_str src = { 0 };
	char opts[64];

	ct_printf(&src, "#ifdef cl_khr_fp64\n"
		  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
		  "#endif\n"
		  "#ifdef cl_khr_fp16\n"
		  "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
		  "#endif\n"
		  "#define T %s\n", TNAME);
	for (size_t fi = 0; fi < TEST_ARRAY_SIZE(fns); fi++) {
		if (!selected(fi, only, si))
			continue;
		for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++)
			for (enum shape sh = S_V; sh <= S_L; sh++)
				if (kernel_exists(&fns[fi], sh, widths[wi]))
					emit_kernel(&src, fi, sh, widths[wi]);
		prog = TEST_SENTINEL_PTR; /* something to build */
	}
	snprintf(opts, sizeof(opts), "-cl-std=%s", stds[si]);
	if (prog)
		prog = ct_build(env, src.buf, opts);
	ct_str_free(&src);
	return prog;
}

/* one function: every kernel, every launch; the number of failures */
static unsigned test_fn(struct test_env *env, size_t fi,
			struct accel_program *const *progs,
			const struct plan *p, struct host *h, struct out *want,
			const struct bufs *b)
{
	const struct fn *f = &fns[fi];
	size_t tsize = p->elems * sizeof(T), isize = p->elems * sizeof(int);
	unsigned n_std = has_ptr(f->kind) ? N_STD : 1, bad = 0;
	struct ct_str failed = { 0 };
	double worst = 0;

	make_inputs(f, h, p->elems, 0x5eed0000u + fi);
	for (size_t j = 0; j < p->elems; j++) {
		memset(&want[j], 0, sizeof(want[j]));
		f->ref(h->a[j], h->b[j], h->c[j], h->n[j], &want[j]);
	}
	test_write(env, b->a, 0, tsize, h->a);
	test_write(env, b->b, 0, tsize, h->b);
	test_write(env, b->c, 0, tsize, h->c);
	test_write(env, b->n, 0, isize, h->n);

	for (unsigned si = 0; si < n_std; si++) {
		for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++) {
			for (enum shape sh = S_V; sh <= S_L; sh++) {
				struct kern k = { f, sh, widths[wi],
						  stds[si] };
				struct tally t = { 0 };
				char name[32];

				if (!kernel_exists(f, sh, widths[wi]))
					continue;
				kernel_name(name, sizeof(name), fi, sh,
					    widths[wi]);
				memset(h->r, 0xa5, tsize);
				memset(h->r2, 0xa5, tsize);
				memset(h->ri, 0xa5, isize);
				test_write(env, b->r, 0, tsize, h->r);
				test_write(env, b->r2, 0, tsize, h->r2);
				test_write(env, b->ri, 0, isize, h->ri);
				run_kernel(env, progs[si], name, p, b);
				test_read(env, b->r, 0, tsize, h->r);
				test_read(env, b->r2, 0, tsize, h->r2);
				test_read(env, b->ri, 0, isize, h->ri);
				check_kernel(&k, p, h, want, &t);
				if (t.worst > worst)
					worst = t.worst;
				if (t.bad)
					ct_printf(&failed, " %c%u%s%s(%u "
						  "from global %u)",
						  shape_names[sh], widths[wi],
						  n_std > 1 ? "/" : "",
						  n_std > 1 ? stds[si] : "",
						  t.bad, t.min_global);
				bad += t.bad;
			}
		}
	}
	print_message("%-10s%s %s worst %.3g ulp%s%s\n", f->name,
		      f->kind == K_2S || f->kind == K_FIS ? " (scalar)" : "",
		      TNAME, worst, bad ? "  FAILED:" : "",
		      bad ? failed.buf : "");
	ct_str_free(&failed);
	return bad;
}

static void test_math_args(void **state)
{
	struct test_env *env = *state;
	const char *only = getenv("CT_MATH_ONLY");
	struct plan *p = malloc(sizeof(*p));
	struct host h;
	struct bufs b;
	struct accel_program *progs[N_STD];
	struct out *want;
	unsigned failed = 0;

#if defined(CT_DOUBLE) || defined(CT_HALF)
#ifdef CT_DOUBLE
	uint64_t cap = ACCEL_DEVICE_CAP_FP64;
#else
	uint64_t cap = ACCEL_DEVICE_CAP_FP16;
#endif

	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) & cap)) {
		free(p);
		skip();
	}
#endif
	assert_non_null(p);
	make_plan(p);
	h.a = malloc(p->elems * sizeof(T));
	h.b = malloc(p->elems * sizeof(T));
	h.c = malloc(p->elems * sizeof(T));
	h.r = malloc(p->elems * sizeof(T));
	h.r2 = malloc(p->elems * sizeof(T));
	h.n = malloc(p->elems * sizeof(int));
	h.ri = malloc(p->elems * sizeof(int));
	want = malloc(p->elems * sizeof(*want));
	assert_true(h.a && h.b && h.c && h.r && h.r2 && h.n && h.ri && want);
	b.a = test_buffer_new(env, p->elems * sizeof(T));
	b.b = test_buffer_new(env, p->elems * sizeof(T));
	b.c = test_buffer_new(env, p->elems * sizeof(T));
	b.n = test_buffer_new(env, p->elems * sizeof(int));
	b.r = test_buffer_new(env, p->elems * sizeof(T));
	b.r2 = test_buffer_new(env, p->elems * sizeof(T));
	b.ri = test_buffer_new(env, p->elems * sizeof(int));

	for (unsigned si = 0; si < N_STD; si++)
		progs[si] = build(env, si, only);
	for (size_t fi = 0; fi < TEST_ARRAY_SIZE(fns); fi++)
		if (selected(fi, only, 0))
			failed += test_fn(env, fi, progs, p, &h, want, &b) != 0;
	for (unsigned si = 0; si < N_STD; si++)
		accel_program_unref(progs[si]);

	accel_buffer_unref(b.a);
	accel_buffer_unref(b.b);
	accel_buffer_unref(b.c);
	accel_buffer_unref(b.n);
	accel_buffer_unref(b.r);
	accel_buffer_unref(b.r2);
	accel_buffer_unref(b.ri);
	free(h.a);
	free(h.b);
	free(h.c);
	free(h.r);
	free(h.r2);
	free(h.n);
	free(h.ri);
	free(want);
	free(p);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_math_args, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-math-args-" TNAME, tests);
}
