/* SPDX-License-Identifier: MIT */
/*
 * The checks of compiler-math-args-*: every element of every launch
 * against its reference at the function's limit, the prescribed special
 * values bit for bit, the int results by their rule, and the poison
 * past each launch's stretch; the first failures of a kernel printed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-math-args.h"

#ifdef CT_HALF
#define LOOSE_REL 0x1p-9L /* rounding to half alone is up to 2^-11 */
#else
#define LOOSE_REL 1e-4L
#endif

/* the stride of work-items in elements */
static unsigned stride(enum shape s, unsigned w)
{
	return s == S_G && w == 3 ? 4 : w;
}

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

void check_kernel(const struct kern *k, const struct plan *p,
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
