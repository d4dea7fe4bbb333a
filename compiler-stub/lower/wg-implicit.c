/* SPDX-License-Identifier: MIT */
/*
 * Implicit barriers in barrier-free kernels, as PoCL adds them: a loop
 * every work-item runs the same number of times (its trip count and
 * its entry are work-group uniform) and that accumulates a float, like
 * the k loop of a naive matrix product, cannot vectorise along its own
 * iterations (no reassociation without fast-math), and its work-item
 * loop sits outside it. A barrier at the top of its body turns the
 * kernel into regions (wg-regions.c): the work-item loop moves inside
 * the loop, the accumulator becomes a context array, and the vectoriser
 * works across work-items, with contiguous loads where the kernel
 * indexes by the work-item.
 *
 * Adding a barrier to a barrier-free kernel changes nothing a valid
 * program can observe as long as every work-item reaches it equally
 * often, which the uniformity checks below make sure of (conservatively:
 * every branch that decides whether or how often the loop runs must
 * depend only on arguments, constants and launch geometry). Loops with
 * atomics or calls to anything but intrinsics, work-item builtins and
 * functions that touch no memory (math builtins), and loops without a
 * load that becomes contiguous, are left alone.
 *
 * Grid-stride loops are first made uniform (wg-grid-stride.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-implicit.h"

#define MAX_LOOP_BLOCKS 64
#define MAX_IMPLICIT 4
/* loops this short are unrolled and vectorise across work-items anyway */
#define SHORT_TRIP 64

static const char *const uniform_builtins[] = {
	"_Z12get_group_idj", "_Z14get_local_sizej",
	"_Z23get_enqueued_local_sizej", "_Z15get_global_sizej",
	"_Z14get_num_groupsj", "_Z17get_global_offsetj", "_Z12get_work_dimv",
};

static const char *const item_builtins[] = {
	"_Z13get_global_idj", "_Z12get_local_idj",
	"_Z20get_global_linear_idv", "_Z19get_local_linear_idv",
};

static bool named(LLVMValueRef f, const char *const *names, size_t n)
{
	size_t len;
	const char *s;

	if (!f || !LLVMIsAFunction(f))
		return false;
	s = LLVMGetValueName2(f, &len);
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], s, len))
			return true;
	return false;
}

#define NAMED(f, a) named(f, a, sizeof(a) / sizeof(*(a)))


static bool is_join(struct fcfg *g, LLVMBasicBlockRef b)
{
	for (size_t k = 0; k < g->njoins; k++)
		if (g->joins[k] == b)
			return true;
	return false;
}

static size_t bi(struct fcfg *g, LLVMBasicBlockRef b)
{
	return (size_t)(uintptr_t)ptrmap_get(&g->idx, b) - 1;
}

size_t accelc_fcfg_block(struct fcfg *g, LLVMBasicBlockRef b)
{
	return bi(g, b);
}

static int build(struct fcfg *g, LLVMValueRef fn)
{
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
	     b = LLVMGetNextBasicBlock(b)) {
		if (accelc_grow((void **)&g->bb, g->n, sizeof(*g->bb)) ||
		    ptrmap_put(&g->idx, b, (void *)(uintptr_t)(g->n + 1)))
			return -ENOMEM;
		g->bb[g->n++] = b;
	}
	g->in = calloc(g->n, 1);
	g->seen = calloc(g->n, 1);
	g->stack = calloc(g->n + 1, sizeof(*g->stack));
	if (!g->in || !g->seen || !g->stack)
		return -ENOMEM;
	return accelc_preds(g->bb, g->n, &g->idx, &g->pred_off, &g->pred);
}

static void release(struct fcfg *g)
{
	free(g->bb);
	ptrmap_free(&g->idx);
	free(g->assumed);
	free(g->pred_off);
	free(g->pred);
	free(g->in);
	free(g->seen);
	free(g->stack);
}

/* Same value in every work-item of the group? */
static bool uniform(struct fcfg *g, LLVMValueRef v, int depth)
{
	if (!LLVMIsAInstruction(v))
		return !LLVMIsABasicBlock(v);
	if (depth > 24)
		return false;
	if (LLVMIsACallInst(v)) {
		if (!NAMED(LLVMGetCalledValue(v), uniform_builtins))
			return false;
		for (unsigned a = 0; a < LLVMGetNumArgOperands(v); a++)
			if (!LLVMIsAConstant(LLVMGetOperand(v, a)))
				return false;
		return true;
	}
	if (LLVMIsAPHINode(v)) {
		/* the loop's own counters, if its control is uniform,
		 * which the caller checks under this assumption */
		size_t mark = g->nassumed;

		for (size_t k = 0; k < g->njoins; k++)
			if (g->bases[k] == v)
				return true;
		if (LLVMGetInstructionParent(v) != g->header)
			return false;
		for (size_t k = 0; k < g->nassumed; k++)
			if (g->assumed[k] == v)
				return true;
		if (accelc_grow((void **)&g->assumed, g->nassumed,
				sizeof(*g->assumed)))
			return false;
		g->assumed[g->nassumed++] = v;
		for (unsigned k = 0; k < LLVMCountIncoming(v); k++) {
			if (uniform(g, LLVMGetIncomingValue(v, k), depth + 1))
				continue;
			/* and what was assumed on the way */
			g->nassumed = mark;
			return false;
		}
		return true;
	}
	if (!accelc_regions_pure(v))
		return false;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (!uniform(g, LLVMGetOperand(v, o), depth + 1))
			return false;
	return true;
}

bool accelc_fcfg_uniform(struct fcfg *g, LLVMValueRef v)
{
	return uniform(g, v, 0);
}

/* A conditional terminator's decision is uniform (others are). */
static bool uniform_terminator(struct fcfg *g, LLVMValueRef t)
{
	if (LLVMGetNumSuccessors(t) < 2)
		return true;
	if (LLVMGetInstructionOpcode(t) == LLVMBr)
		return uniform(g, LLVMGetCondition(t), 0);
	if (LLVMGetInstructionOpcode(t) == LLVMSwitch)
		return uniform(g, LLVMGetOperand(t, 0), 0);
	return false;
}

static bool is_fp(LLVMTypeRef t)
{
	if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
		t = LLVMGetElementType(t);
	switch (LLVMGetTypeKind(t)) {
	case LLVMHalfTypeKind: case LLVMFloatTypeKind:
	case LLVMDoubleTypeKind:
		return true;
	default:
		return false;
	}
}

/* A function that touches no memory and does not synchronise: what
 * the math builtins are (exp(), fmax()); interleaving cannot show. */
static bool pure_function(LLVMValueRef f)
{
	static const char *const kinds[] = { "memory", "nosync" };
	unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
	LLVMAttributeRef a;

	if (LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, conv))
		return false;
	for (size_t k = 0; k < 2; k++) {
		a = LLVMGetEnumAttributeAtIndex(
			f, LLVMAttributeFunctionIndex,
			LLVMGetEnumAttributeKindForName(kinds[k],
							strlen(kinds[k])));
		if (!a)
			return false;
	}
	/* memory(none): no location with any effect */
	return LLVMGetEnumAttributeValue(LLVMGetEnumAttributeAtIndex(
		       f, LLVMAttributeFunctionIndex,
		       LLVMGetEnumAttributeKindForName("memory", 6))) == 0;
}

/* Only what may run interleaved with other work-items, and worth it. */
static bool body_ok(struct fcfg *g)
{
	bool loads = false;

	for (size_t b = 0; b < g->n; b++) {
		if (!g->in[b])
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef f;
			size_t len;

			switch (LLVMGetInstructionOpcode(i)) {
			case LLVMAtomicRMW: case LLVMAtomicCmpXchg:
			case LLVMFence: case LLVMAlloca:
				return false;
			case LLVMLoad: case LLVMStore:
				if (LLVMGetVolatile(i) ||
				    LLVMGetOrdering(i) !=
				    LLVMAtomicOrderingNotAtomic)
					return false;
				loads |= LLVMIsALoadInst(i) != NULL;
				break;
			case LLVMCall:
				f = LLVMGetCalledValue(i);
				if (!f || !LLVMIsAFunction(f))
					return false;
				if (NAMED(f, uniform_builtins) ||
				    NAMED(f, item_builtins) ||
				    (!LLVMGetIntrinsicID(f) && pure_function(f)))
					break;
				if (!LLVMGetIntrinsicID(f) ||
				    !strncmp(LLVMGetValueName2(f, &len),
					     "llvm.lifetime.", 14))
					return false;
				break;
			case LLVMInvoke: case LLVMCallBr: case LLVMRet:
			case LLVMUnreachable:
				return false;
			default:
				break;
			}
		}
	}
	return loads;
}

/*
 * The same in work-items that differ only in their x id: uniform, or made
 * of the y and z ids, or a counter of a loop inside. Added to an
 * x-consecutive index it stays contiguous along the work-item loop, which
 * runs x innermost. Decides only whether a barrier is worth it.
 */
static bool x_invariant(struct fcfg *g, LLVMValueRef v, int depth)
{
	LLVMValueRef f;

	if (!LLVMIsAInstruction(v))
		return !LLVMIsABasicBlock(v);
	if (depth > 16)
		return false;
	if (LLVMIsACallInst(v)) {
		f = LLVMGetCalledValue(v);
		/* get_global_id(d), get_local_id(d), d > 0 */
		if (named(f, item_builtins, 2))
			return LLVMIsAConstantInt(LLVMGetOperand(v, 0)) &&
			       LLVMConstIntGetZExtValue(LLVMGetOperand(v, 0));
		return uniform(g, v, 0);
	}
	if (LLVMIsAPHINode(v)) {
		/* a counter: each step adds something x-invariant to it */
		for (unsigned k = 0; k < LLVMCountIncoming(v); k++) {
			LLVMValueRef in = LLVMGetIncomingValue(v, k);
			LLVMOpcode op = LLVMIsAInstruction(in) ?
						LLVMGetInstructionOpcode(in) :
						LLVMRet;

			if ((op == LLVMAdd || op == LLVMSub) &&
			    LLVMGetOperand(in, 0) == v) {
				if (!x_invariant(g, LLVMGetOperand(in, 1),
						 depth + 1))
					return false;
			} else if (!x_invariant(g, in, depth + 1)) {
				return false;
			}
		}
		return true;
	}
	if (!accelc_int_division(v) && !accelc_regions_pure(v))
		return false;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (!x_invariant(g, LLVMGetOperand(v, o), depth + 1))
			return false;
	return true;
}

/* Does @p v step by one with the work-item's x id? */
static bool x_consecutive(struct fcfg *g, LLVMValueRef v, int depth)
{
	LLVMValueRef f;

	if (depth > 12 || !LLVMIsAInstruction(v))
		return false;
	if (v == g->xphi)
		return true;
	if (LLVMIsACallInst(v)) {
		f = LLVMGetCalledValue(v);
		/* the first two take a dimension */
		return named(f, item_builtins, 2) &&
		       LLVMIsAConstantInt(LLVMGetOperand(v, 0)) &&
		       !LLVMConstIntGetZExtValue(LLVMGetOperand(v, 0));
	}
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMSExt: case LLVMZExt: case LLVMTrunc:
		return x_consecutive(g, LLVMGetOperand(v, 0), depth + 1);
	case LLVMAdd:
		return (x_consecutive(g, LLVMGetOperand(v, 0), depth + 1) &&
			x_invariant(g, LLVMGetOperand(v, 1), 0)) ||
		       (x_consecutive(g, LLVMGetOperand(v, 1), depth + 1) &&
			x_invariant(g, LLVMGetOperand(v, 0), 0));
	case LLVMSub:
		return x_consecutive(g, LLVMGetOperand(v, 0), depth + 1) &&
		       x_invariant(g, LLVMGetOperand(v, 1), 0);
	default:
		return false;
	}
}

/* Worth it: a load that becomes contiguous across work-items once the
 * work-item loop is inside (B[k * n + col]); with strided loads only
 * there is little to vectorise, and the accumulator would go through
 * memory in every iteration. */
static bool contiguous_load(struct fcfg *g, bool stores)
{
	for (size_t b = 0; b < g->n; b++) {
		if (!g->in[b])
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef p;
			int n;
			bool ok;

			if (LLVMIsALoadInst(i))
				p = LLVMGetOperand(i, 0);
			else if (stores && LLVMIsAStoreInst(i))
				p = LLVMGetOperand(i, 1);
			else
				continue;
			if (!LLVMIsAGetElementPtrInst(p))
				continue;
			n = LLVMGetNumOperands(p);
			ok = n >= 2 && x_invariant(g, LLVMGetOperand(p, 0), 0) &&
			     x_consecutive(g, LLVMGetOperand(p, n - 1), 0);
			for (int o = 1; ok && o < n - 1; o++)
				ok = x_invariant(g, LLVMGetOperand(p, o), 0);
			if (ok)
				return true;
		}
	}
	return false;
}

/* A float accumulated per work-item: the reason to interchange. */
static bool float_recurrence(struct fcfg *g)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(g->header);
	     i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
		if (is_fp(LLVMTypeOf(i)) && !uniform(g, i, 0))
			return true;
	return false;
}

static bool short_trip(LLVMValueRef t)
{
	LLVMValueRef c;

	if (LLVMGetInstructionOpcode(t) != LLVMBr ||
	    !LLVMIsConditional(t) || !LLVMIsAICmpInst(c = LLVMGetCondition(t)))
		return false;
	for (int o = 0; o < 2; o++) {
		LLVMValueRef k = LLVMGetOperand(c, o);

		if (LLVMIsAConstantInt(k) &&
		    LLVMConstIntGetSExtValue(k) <= SHORT_TRIP &&
		    LLVMConstIntGetSExtValue(k) >= -SHORT_TRIP)
			return true;
	}
	return false;
}

/*
 * A loop inside that O3 unrolls fully (a short constant trip count, as
 * the taps of a 3x3 convolution): once it is, the loop around it is
 * innermost and its work-item loop vectorises.
 */
static bool unrolled(struct fcfg *g, const size_t edge[2])
{
	return short_trip(LLVMGetBasicBlockTerminator(g->bb[edge[1]])) ||
	       short_trip(LLVMGetBasicBlockTerminator(g->bb[edge[0]]));
}

/* Uniform exits (but the header's, if @p stride: made so), not short,
 * uniformly entered? */
static bool control_ok(struct fcfg *g, bool stride)
{
	size_t sp = 0, h = bi(g, g->header);

	for (size_t b = 0; b < g->n; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
		bool exits = false;

		if (!g->in[b] || (stride && b == h))
			continue;
		/* a block that ends unreachable (clang's cleanup switch's
		 * default) is no way out */
		for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
			exits |= !g->in[bi(g, LLVMGetSuccessor(t, s))] &&
				 LLVMGetInstructionOpcode(
					 LLVMGetBasicBlockTerminator(
						 LLVMGetSuccessor(t, s))) !=
					 LLVMUnreachable;
		if (exits && (!uniform_terminator(g, t) || short_trip(t)))
			return false;
	}
	/* every branch from which the loop can be reached */
	memset(g->seen, 0, g->n);
	g->stack[sp++] = h;
	while (sp) {
		size_t x = g->stack[--sp];

		for (size_t k = g->pred_off[x]; k < g->pred_off[x + 1]; k++) {
			size_t p = g->pred[k];

			if (g->in[p] || g->seen[p])
				continue;
			g->seen[p] = 1;
			if (!is_join(g, g->bb[p]) &&
			    !uniform_terminator(
				    g, LLVMGetBasicBlockTerminator(g->bb[p])))
				return false;
			g->stack[sp++] = p;
		}
	}
	return true;
}

/* g->in: the natural loop of back edge @p latch -> @p header. */
static size_t loop_blocks(struct fcfg *g, size_t header, size_t latch)
{
	size_t sp = 0, n = 1;

	memset(g->in, 0, g->n);
	g->in[header] = 1;
	if (!g->in[latch]) {
		g->in[latch] = 1;
		g->stack[sp++] = latch;
		n++;
	}
	while (sp) {
		size_t x = g->stack[--sp];

		for (size_t k = g->pred_off[x]; k < g->pred_off[x + 1]; k++) {
			size_t p = g->pred[k];

			if (g->in[p])
				continue;
			g->in[p] = 1;
			g->stack[sp++] = p;
			n++;
		}
	}
	return n;
}

/* Back edges, by depth-first search: edges[k] = { from, to }. */
static int back_edges(struct fcfg *g, size_t (**ret)[2], size_t *nret)
{
	uint8_t *state = calloc(g->n, 1); /* 1 on the stack, 2 done */
	unsigned *next = calloc(g->n, sizeof(*next));
	size_t (*e)[2] = NULL, ne = 0, sp = 0;
	int r = -ENOMEM;

	if (!state || !next)
		goto out;
	g->stack[sp++] = 0;
	state[0] = 1;
	while (sp) {
		size_t x = g->stack[sp - 1];
		LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[x]);
		size_t y;

		if (!t || next[x] >= LLVMGetNumSuccessors(t)) {
			state[x] = 2;
			sp--;
			continue;
		}
		y = bi(g, LLVMGetSuccessor(t, next[x]++));
		if (state[y] == 1) {
			if (accelc_grow((void **)&e, ne, sizeof(*e)))
				goto out;
			e[ne][0] = x;
			e[ne++][1] = y;
		} else if (!state[y]) {
			state[y] = 1;
			g->stack[sp++] = y;
		}
	}
	*ret = e;
	*nret = ne;
	e = NULL;
	r = 0;
out:
	free(e);
	free(state);
	free(next);
	return r;
}

/* Where the barrier goes: the body's first block if the header tests. */
static LLVMBasicBlockRef barrier_block(struct fcfg *g)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(g->header);
	LLVMBasicBlockRef inside = NULL;
	size_t b;

	if (LLVMGetNumSuccessors(t) != 2)
		return g->header;
	for (unsigned s = 0; s < 2; s++)
		if (g->in[bi(g, LLVMGetSuccessor(t, s))]) {
			if (inside)
				return g->header;
			inside = LLVMGetSuccessor(t, s);
		}
	if (!inside || inside == g->header)
		return g->header;
	b = bi(g, inside);
	if (g->pred_off[b + 1] - g->pred_off[b] != 1)
		return g->header;
	return inside;
}

static LLVMValueRef insert_barrier(struct lower *l, LLVMBasicBlockRef bb)
{
	LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(l->st->ctx),
					  &l->i32, 1, 0);
	LLVMValueRef f = LLVMGetNamedFunction(l->st->mod, "_Z7barrierj");
	LLVMValueRef i = LLVMGetFirstInstruction(bb), arg;

	if (!f)
		f = LLVMAddFunction(l->st->mod, "_Z7barrierj", ft);
	while (LLVMIsAPHINode(i))
		i = LLVMGetNextInstruction(i);
	LLVMPositionBuilderBefore(l->b, i);
	arg = LLVMConstInt(l->i32, 1, 0); /* CLK_LOCAL_MEM_FENCE */
	return LLVMBuildCall2(l->b, ft, f, &arg, 1, "");
}

int accelc_implicit_barriers(struct lower *l, struct kernel_desc *k)
{
	struct fcfg g = { 0 };
	size_t (*e)[2] = NULL, ne = 0;
	LLVMValueRef added[MAX_IMPLICIT];
	LLVMBasicBlockRef joins[MAX_IMPLICIT];
	LLVMValueRef bases[MAX_IMPLICIT];
	size_t na = 0, nj = 0;
	bool again = true;
	int r = 0;

	if (LLVMIsDeclaration(k->fn))
		return 0;
	/* a kernel called by another would take its barrier there */
	for (LLVMUseRef u = LLVMGetFirstUse(k->fn); u; u = LLVMGetNextUse(u))
		if (LLVMIsACallInst(LLVMGetUser(u)))
			return 0;
	/* a rewritten grid-stride loop changes the CFG: look again */
	while (!r && again && na < MAX_IMPLICIT) {
		again = false;
		release(&g);
		memset(&g, 0, sizeof(g));
		g.joins = joins;
		g.bases = bases;
		g.njoins = nj;
		free(e);
		e = NULL;
		r = build(&g, k->fn);
		if (!r)
			r = back_edges(&g, &e, &ne);
		for (size_t a = 0; !r && !again && a < ne && na < MAX_IMPLICIT;
		     a++) {
			size_t h = e[a][1], n;
			bool single = true, inner = true, nest = false, ok;
			struct stride st = { 0 };
			LLVMBasicBlockRef bb;

			for (size_t b = 0; b < ne; b++)
				if (b != a && e[b][1] == h)
					single = false;
			if (!single)
				continue;
			n = loop_blocks(&g, h, e[a][0]);
			for (size_t b = 0; b < ne; b++) {
				if (e[b][1] == h || !g.in[e[b][1]])
					continue;
				nest = true;
				inner &= unrolled(&g, e[b]);
			}
			if (!inner || n > MAX_LOOP_BLOCKS || !body_ok(&g))
				continue;
			g.header = g.bb[h];
			g.nassumed = 0;
			if (!nest && accelc_stride_find(&g, &st)) {
				g.xphi = st.phi;
				ok = control_ok(&g, true) &&
				     contiguous_load(&g, true);
				g.xphi = NULL;
				if (!ok)
					continue;
				bb = accelc_stride_rewrite(l, &g, &st,
							   &bases[nj], &joins[nj]);
				nj++;
				added[na++] = insert_barrier(l, bb);
				again = true;
				continue;
			}
			if (!float_recurrence(&g) || !control_ok(&g, false) ||
			    !contiguous_load(&g, false))
				continue;
			added[na++] = insert_barrier(l, barrier_block(&g));
		}
	}
	free(e);
	release(&g);
	if (r)
		return r;
	/* a rewritten loop stays: the same iterations, without a barrier */
	if (na && (!accelc_regions_fit(k) || accelc_subgroups_divergent(k))) {
		for (size_t a = 0; a < na; a++)
			LLVMInstructionEraseFromParent(added[a]);
		na = 0;
	}
	return na > 0;
}
