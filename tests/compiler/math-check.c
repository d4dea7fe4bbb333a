/* SPDX-License-Identifier: MIT */
/*
 * The checks of compiler-math-*: a result against its reference within
 * the function's ULP limit, bit for bit where it must be exact, and the
 * integer and pointer results each kind of function has.
 */
#include <math.h>
#include <stdlib.h>

#include "test-math.h"

#ifdef CT_HALF
/* lgamma has no half limit either: gross errors, above the 2^-11
 * of rounding to half */
#define LOOSE_REL 0x1p-9L
#else
#define LOOSE_REL 1e-4L
#endif

static bool same_exact(T got, L want)
{
	T w = (T)want;

	if (isnan(w))
		return isnan(got);
	return got == w && signbit(got) == signbit(w);
}

/* error in ulps, or for LOOSE a relative error scaled to be <= 1 */
static bool within(T got, L want, double limit, double *err)
{
	if (limit == NONE) {
		*err = 0;
		return true;
	}
	if (limit == EXACT || limit == EXACT_0) {
		*err = same_exact(got, want) ||
		       (limit == EXACT_0 && got == 0 && want == 0) ?
			0.0 : INFINITY;
		return *err == 0.0;
	}
	if (limit == LOOSE) {
		/* no limit in the specification: catch gross errors only */
		if (isnan(want) || isinf((T)want))
			*err = (isnan(want) && isnan(got)) ||
			       got == (T)want ? 0.0 : INFINITY;
		else
			*err = fabsl(got - want) /
			       (fmaxl(1.0L, fabsl(want)) * LOOSE_REL);
		return *err <= 1.0;
	}
	*err = ct_ulp_error(got, want, MANT, EMIN);
	return *err <= limit;
}

unsigned check(const struct fn *f, const struct inputs *in,
	       const struct result *res, const struct out *want, unsigned w,
	       double *worst)
{
	double limit = ULP_OF(f);
	unsigned bad = 0;

	for (unsigned i = 0; i < N_ITEMS; i++) {
		bool ok = true;
		double e = 0, e2 = 0;

		switch (f->kind) {
		case KIF:
			ok = res->ri[i] == want[i].ri;
			break;
		case KFP:
			ok = within(res->r[i], want[i].r, limit, &e) &&
			     within(res->r2[i], want[i].r2,
				    f->ulp2 == EXACT ? EXACT : limit, &e2);
			break;
		case KFPI:
			ok = within(res->r[i], want[i].r, limit, &e);
			/* lgamma_r's sign is meaningful where it is finite;
			 * frexp's exponent always */
			if (ok && (limit == EXACT ||
				   (isfinite(want[i].r) && want[i].r != 0)))
				ok = res->ri[i] == want[i].ri;
			break;
		case KRQ:
			/* at least the quotient's 7 low bits, its sign */
			ok = within(res->r[i], want[i].r, limit, &e) &&
			     (isnan(want[i].r) ||
			      ((abs(res->ri[i]) & 127) == abs(want[i].ri) &&
			       (want[i].ri == 0 ||
				(res->ri[i] < 0) == (want[i].ri < 0))));
			break;
		default:
			ok = within(res->r[i], want[i].r, limit, &e);
			break;
		}
		if (e > *worst && isfinite(e))
			*worst = e;
		if (!ok && bad++ < 5)
			print_error("%s w=%u: (%a, %a, %a, %d) = %a %a %d, "
				    "want %La %La %d (err %g)\n",
				    f->name, w, (double)in->a[i],
				    (double)in->b[i], (double)in->c[i],
				    in->n[i], (double)res->r[i],
				    (double)res->r2[i], res->ri[i], want[i].r,
				    want[i].r2, want[i].ri, e > e2 ? e : e2);
	}
	return bad;
}
