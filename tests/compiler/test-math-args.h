/* SPDX-License-Identifier: MIT */
/*
 * The parts of compiler-math-args-* (test-math-args.c, which plans the
 * launches and runs them): the functions under test with their
 * references and limits (math-args-fns.c), their inputs
 * (math-args-inputs.c), the kernels' source (math-args-kernels.c) and
 * the checks of the results (math-args-check.c).
 */
#ifndef ACCEL_TEST_MATH_ARGS_H
#define ACCEL_TEST_MATH_ARGS_H

#include "compiler-test.h"
#include "math-type.h"

/* ---- launches --------------------------------------------------------- */

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

/* ---- functions ---------------------------------------------------------- */

/*
 * Kernel shapes: r = F(a), F(a, b), F(a, b scalar), F(a, b, c),
 * F(a, n), F(a, n scalar); ri = F(a); r = nan(bits of c); r = F(a, &r2),
 * F(a, &ri), F(a, b, &ri).
 */
enum kind { K_1, K_2, K_2S, K_3, K_FI, K_FIS, K_IF, K_NAN, K_FP, K_FPI,
	    K_RQ };

static inline bool has_ptr(enum kind k)
{
	return k == K_FP || k == K_FPI || k == K_RQ;
}

/* V: vload/vstore; G: typed global pointers (a 3-vector takes 4
 * elements); P, L: vload/vstore with the pointer result in private or
 * local memory */
enum shape { S_V, S_G, S_P, S_L };
extern const char shape_names[]; /* "VGPL" */

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

/* every function; a kernel's name has its index (math-args-fns.c) */
extern const struct fn fns[];
extern const size_t n_fns;

/* ---- inputs and results ------------------------------------------------- */

struct host {
	T *a, *b, *c, *r, *r2;
	int *n, *ri;
};

/* the inputs of @f in @h, @elems of each, from @seed (math-args-inputs.c) */
void make_inputs(const struct fn *f, struct host *h, size_t elems,
		 uint64_t seed);

/* ---- kernels (math-args-kernels.c) -------------------------------------- */

#define N_WIDTHS 6
extern const unsigned widths[N_WIDTHS]; /* 1, 2, 3, 4, 8, 16 */

bool kernel_exists(const struct fn *f, enum shape sh, unsigned w);
void kernel_name(char *buf, size_t n, size_t fi, enum shape sh, unsigned w);
/* the source of fns[@fi]'s kernel of shape @sh at width @w */
void emit_kernel(struct ct_str *s, size_t fi, enum shape sh, unsigned w);

/* ---- checks (math-args-check.c) ----------------------------------------- */

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

/* the results of one kernel over all launches of @p */
void check_kernel(const struct kern *k, const struct plan *p,
		  const struct host *h, const struct out *want,
		  struct tally *t);

#endif /* ACCEL_TEST_MATH_ARGS_H */
