/* SPDX-License-Identifier: MIT */
/*
 * Loops that wait for another work-item, which must then run: the
 * independent forward progress of sub-groups (cl_khr_subgroups).
 *
 * A work-group runs on one thread, its work-items one after another
 * (work-item loops) or switching at barriers (fibers), so a work-item
 * spinning until another stores a flag would spin for ever. Such a loop
 * leaves on the result of an atomic operation or a volatile load made in
 * it, compared with what the loop does not change: `while
 * (atomic_load(&f) != v)`, a lock's `while (atomic_cmpxchg(l, 0, 1))` or
 * `atomic_xchg`, directly or through a helper's result (`while
 * (!ready(&f))`). A compare-exchange whose new value the loop computes
 * (the usual atomic update) makes progress by itself and is not one.
 * Each such loop gets a call to __accel_spin_yield() on its back edge,
 * and the kernels reaching one run as fibers, where that call lets the
 * other work-items run (runtime/fiber.c).
 *
 * On the module in SSA form (kernels-ssa), before inlining: the atomic
 * builtins are still calls then, recognised by name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "accelc-private.h"

#define MAX_DEPTH 32
/* values one loop's exit conditions may be traced through */
#define MAX_STEPS 4096
/* searches are quadratic in this; larger functions are not looked at */
#define MAX_BLOCKS 8192

/* the OpenCL C name of a mangled builtin ("_Z<n>name..."), NULL if none */
static const char *builtin_name(LLVMValueRef f, size_t *len)
{
	size_t n;
	const char *s = LLVMGetValueName2(f, &n);
	size_t i = 2, l = 0;

	if (n < 3 || s[0] != '_' || s[1] != 'Z')
		return NULL;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		l = l * 10 + (size_t)(s[i++] - '0');
	if (i == 2 || l == 0 || l > n - i)
		return NULL;
	*len = l;
	return s + i;
}

static bool prefixed(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(s, p, n);
}

static bool contains(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(s + i, p, n))
			return true;
	return false;
}

/*
 * Is @p v an atomic operation or a volatile load? @p desired: the value a
 * compare-exchange would store, else NULL.
 */
static bool atomic_source(LLVMValueRef v, LLVMValueRef *desired)
{
	*desired = NULL;
	if (LLVMIsAAtomicCmpXchgInst(v)) {
		*desired = LLVMGetOperand(v, 2);
		return true;
	}
	if (LLVMIsAAtomicRMWInst(v))
		return true;
	if (LLVMIsALoadInst(v))
		return LLVMGetVolatile(v) ||
		       LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic;
	if (LLVMIsACallInst(v)) {
		LLVMValueRef f = LLVMGetCalledValue(v);
		const char *n;
		size_t len;

		if (!f || !LLVMIsAFunction(f))
			return false;
		n = builtin_name(f, &len);
		if (!n || !(prefixed(n, len, "atomic_") ||
			    prefixed(n, len, "atom_")))
			return false;
		/* atomic_cmpxchg(p, cmp, val), atomic_compare_exchange_*(
		 * obj, expected, desired, ...) */
		if ((contains(n, len, "cmpxchg") ||
		     contains(n, len, "compare_exchange")) &&
		    LLVMGetNumArgOperands(v) > 2)
			*desired = LLVMGetOperand(v, 2);
		return true;
	}
	return false;
}

/* A loop's blocks, or (whole) all blocks of a function a loop calls;
 * the steps left to trace its values (shared with the functions). */
struct loop {
	LLVMBasicBlockRef *blocks;
	size_t n;
	bool whole;
	unsigned *steps;
};

static bool in_loop(const struct loop *lp, LLVMBasicBlockRef bb)
{
	for (size_t i = 0; i < lp->n; i++)
		if (lp->blocks[i] == bb)
			return true;
	return false;
}

/* Is @p v the same in every iteration of @p lp? */
static bool invariant(const struct loop *lp, LLVMValueRef v)
{
	return !LLVMIsAInstruction(v) ||
	       !in_loop(lp, LLVMGetInstructionParent(v));
}

static int spin_value(struct loop *lp, LLVMValueRef v, int depth);

/*
 * The result of a call of a function defined here: what its returns and
 * the branches choosing among them come from, with its parameters
 * standing for the call's arguments (which must come from atomics or the
 * loop's constants themselves).
 */
static int call_value(struct loop *lp, LLVMValueRef call,
		      LLVMValueRef fn, int depth)
{
	struct loop body = { .whole = true, .steps = lp->steps };
	int any = 0;

	for (unsigned i = 0; i < LLVMGetNumArgOperands(call); i++) {
		int r = spin_value(lp, LLVMGetOperand(call, i), depth + 1);

		if (r < 0)
			return r;
		any |= r;
	}
	body.n = LLVMCountBasicBlocks(fn);
	if (body.n > MAX_BLOCKS)
		return -1;
	body.blocks = malloc(body.n * sizeof(*body.blocks));
	if (!body.blocks)
		return -1;
	LLVMGetBasicBlocks(fn, body.blocks);
	for (size_t i = 0; i < body.n && any >= 0; i++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(body.blocks[i]);
		LLVMValueRef v = NULL;
		LLVMOpcode op;
		int r;

		if (!t)
			continue;
		op = LLVMGetInstructionOpcode(t);
		/* `if (flag_of(f) == want) return true; return false;` */
		if (op == LLVMBr && LLVMIsConditional(t))
			v = LLVMGetCondition(t);
		else if ((op == LLVMRet && LLVMGetNumOperands(t) == 1) ||
			 op == LLVMSwitch)
			v = LLVMGetOperand(t, 0);
		if (!v)
			continue;
		r = spin_value(&body, v, depth + 1);
		any = r < 0 ? r : any | r;
	}
	free(body.blocks);
	return any;
}

/*
 * Does @p v come from an atomic operation of the loop, and otherwise only
 * from what the loop does not change (1; 0: no atomic, -1: a value the
 * loop changes)?
 */
static int spin_value(struct loop *lp, LLVMValueRef v, int depth)
{
	LLVMValueRef desired;
	LLVMOpcode op;
	int any = 0;

	if (invariant(lp, v))
		return 0;
	if (depth > MAX_DEPTH || !*lp->steps)
		return -1;
	--*lp->steps;
	if (atomic_source(v, &desired))
		return !desired || invariant(lp, desired) ? 1 : -1;
	op = LLVMGetInstructionOpcode(v);
	if (op == LLVMCall) {
		LLVMValueRef f = LLVMGetCalledValue(v);

		if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f))
			return -1;
		return call_value(lp, v, f, depth);
	}
	/* in a called function, a phi merges values of the same call */
	if (!(LLVMIsACmpInst(v) || LLVMIsABinaryOperator(v) ||
	      LLVMIsACastInst(v) || op == LLVMSelect ||
	      op == LLVMExtractValue || op == LLVMFNeg ||
	      (op == LLVMPHI && lp->whole)))
		return -1;
	for (int i = 0; i < LLVMGetNumOperands(v); i++) {
		int r = spin_value(lp, LLVMGetOperand(v, i), depth + 1);

		if (r < 0)
			return r;
		any |= r;
	}
	return any;
}

/* Does a branch leaving @p lp decide on a spin value? */
static bool spins(struct loop *lp)
{
	for (size_t i = 0; i < lp->n; i++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(lp->blocks[i]);
		bool leaves = false;

		if (!t || LLVMGetInstructionOpcode(t) != LLVMBr ||
		    !LLVMIsConditional(t))
			continue;
		for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
			leaves |= !in_loop(lp, LLVMGetSuccessor(t, s));
		if (leaves && spin_value(lp, LLVMGetCondition(t), 0) > 0)
			return true;
	}
	return false;
}

/* The blocks that reach @p latch without passing @p header, and it. */
static int loop_blocks(LLVMValueRef fn, LLVMBasicBlockRef header,
		       LLVMBasicBlockRef latch, struct loop *lp)
{
	size_t cap = LLVMCountBasicBlocks(fn);
	bool grew = true;

	lp->blocks = malloc(cap * sizeof(*lp->blocks));
	if (!lp->blocks)
		return -ENOMEM;
	lp->n = 0;
	lp->blocks[lp->n++] = header;
	if (latch != header)
		lp->blocks[lp->n++] = latch;
	while (grew) {
		grew = false;
		for (LLVMBasicBlockRef x = LLVMGetFirstBasicBlock(fn); x;
		     x = LLVMGetNextBasicBlock(x)) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(x);

			if (in_loop(lp, x) || !t)
				continue;
			for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
				LLVMBasicBlockRef y = LLVMGetSuccessor(t, s);

				if (y != header && in_loop(lp, y)) {
					lp->blocks[lp->n++] = x;
					grew = true;
					break;
				}
			}
		}
	}
	return 0;
}

/*
 * Back edges by depth-first search (an edge to a block on the stack):
 * a call to @p yield before each one that closes a spinning loop.
 */
static int mark_function(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef yield,
			 LLVMTypeRef yt, unsigned *marked)
{
	size_t n = LLVMCountBasicBlocks(fn), sp = 0;
	LLVMBasicBlockRef *bbs = malloc(n * sizeof(*bbs));
	LLVMBasicBlockRef *stack = malloc(n * sizeof(*stack));
	unsigned *next = calloc(n, sizeof(*next));
	uint8_t *state = calloc(n, 1); /* 0 new, 1 on the stack, 2 done */
	int r = 0;

	if (!bbs || !stack || !next || !state) {
		r = -ENOMEM;
		goto out;
	}
	LLVMGetBasicBlocks(fn, bbs);
	stack[sp++] = bbs[0];
	state[0] = 1;
	while (sp && r == 0) {
		LLVMBasicBlockRef bb = stack[sp - 1];
		size_t i = 0;
		LLVMValueRef t;

		while (bbs[i] != bb)
			i++;
		t = LLVMGetBasicBlockTerminator(bb);
		if (!t || next[i] >= LLVMGetNumSuccessors(t)) {
			state[i] = 2;
			sp--;
			continue;
		}
		{
			LLVMBasicBlockRef y = LLVMGetSuccessor(t, next[i]++);
			size_t j = 0;
			struct loop lp = { 0 };

			while (bbs[j] != y)
				j++;
			if (state[j] == 0) {
				state[j] = 1;
				stack[sp++] = y;
			} else if (state[j] == 1) {
				unsigned steps = MAX_STEPS;

				lp.steps = &steps;
				r = loop_blocks(fn, y, bb, &lp);
				if (r == 0 && spins(&lp)) {
					LLVMPositionBuilderBefore(b, t);
					LLVMBuildCall2(b, yt, yield, NULL, 0, "");
					(*marked)++;
				}
				free(lp.blocks);
			}
		}
	}
out:
	free(bbs);
	free(stack);
	free(next);
	free(state);
	return r;
}

/* functions a search has been through */
struct seen {
	LLVMValueRef *fns;
	size_t n, cap;
};

/* Adds @p f; false if it was there, or no memory (then searches stop) */
static bool first_visit(struct seen *s, LLVMValueRef f)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->fns[i] == f)
			return false;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		LLVMValueRef *fns = realloc(s->fns, cap * sizeof(*fns));

		if (!fns)
			return false;
		s->fns = fns;
		s->cap = cap;
	}
	s->fns[s->n++] = f;
	return true;
}

/*
 * Does @p fn reach a call of @p yield (@p yield NULL: an atomic
 * operation or a volatile load)? Depth-first over direct calls.
 */
static bool reaches(LLVMValueRef fn, LLVMValueRef yield, struct seen *s)
{
	if (!first_visit(s, fn))
		return false;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef f, d;

			if (!yield && atomic_source(i, &d))
				return true;
			if (!LLVMIsACallInst(i))
				continue;
			f = LLVMGetCalledValue(i);
			if (yield && f == yield)
				return true;
			if (f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
			    reaches(f, yield, s))
				return true;
		}
	return false;
}

/* Does @p fn make an atomic operation or a volatile load, itself or in
 * a function it calls? */
static bool has_atomic(LLVMValueRef fn)
{
	struct seen s = { 0 };
	bool r = reaches(fn, NULL, &s);

	free(s.fns);
	return r;
}

int accelc_mark_spin_loops(struct lower_state *st, LLVMBuilderRef b)
{
	LLVMTypeRef yt = LLVMFunctionType(LLVMVoidTypeInContext(st->ctx),
					  NULL, 0, 0);
	LLVMValueRef yield = LLVMGetNamedFunction(st->mod, ACCELC_SPIN_YIELD);
	unsigned marked = 0;

	if (!yield)
		yield = LLVMAddFunction(st->mod, ACCELC_SPIN_YIELD, yt);
	for (LLVMValueRef f = LLVMGetFirstFunction(st->mod); f;
	     f = LLVMGetNextFunction(f)) {
		int r;

		if (LLVMIsDeclaration(f) || LLVMCountBasicBlocks(f) > MAX_BLOCKS ||
		    !has_atomic(f))
			continue;
		r = mark_function(b, f, yield, yt, &marked);
		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < st->n_kernels && marked; i++) {
		struct seen s = { 0 };

		st->kernels[i].spins = reaches(st->kernels[i].fn, yield, &s);
		free(s.fns);
	}
	return 0;
}

/* Could a kernel reach an atomic operation or a volatile load (a
 * superset of those accelc_mark_spin_loops() finds)? */
bool accelc_may_spin(struct lower_state *st)
{
	bool r = false;

	for (uint32_t i = 0; i < st->n_kernels && !r; i++) {
		struct seen s = { 0 };

		r = reaches(st->kernels[i].fn, NULL, &s);
		free(s.fns);
	}
	return r;
}
