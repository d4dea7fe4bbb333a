/* SPDX-License-Identifier: MIT */
/*
 * Vectors split in work-item loops, before the loop vectoriser sees them.
 *
 * The work-item loop of a kernel is vectorised across work-items by the
 * loop vectoriser of default<O3>. In LLVM 16 it refuses any loop holding a
 * vector-typed value (a float4 load, an OpenCL vector operation) or a
 * switch, so a kernel written with float4, or one whose if-chain
 * SimplifyCFG turned into a switch, would run one work-item at a time.
 * accelc_optimize() runs default<O3> in its two halves (o3-pipeline.h);
 * between them, a wrapper with such a work-item loop gets its vectors
 * split into scalars and its switches into branches, so that the
 * vectoriser makes whole vectors of consecutive work-items' scalars (as
 * Intel's CPU runtime scalarises before it packetises). Only where that
 * can pay: every work-item loop of the wrapper innermost (a GEMM's k loop
 * over float4 accumulators inside one keeps its vectors, as the vectoriser
 * takes only innermost loops), no element picked by a run-time index (a
 * select per lane: shuffle() with a mask becomes hundreds), a bounded
 * number of lanes.
 *
 * The scalariser splits loads and stores only with LLVM's
 * -scalarize-load-store, a process-wide option: accelc-codegen sets it
 * (codegen-main.c) and only it asks for the split.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "accelc-private.h"

/* after the split no simplifycfg may come before the vectoriser: it would
 * fold lowerswitch's branches back into a switch */
static const char split_pipeline[] =
	"function(scalarizer,instcombine,lowerswitch)";

/* Most vector lanes a wrapper may split into scalars. */
#define MAX_SPLIT 2048u

/* The operands of metadata node @p md (malloc'ed; NULL if none or out of
 * memory), their count in @p n. */
static LLVMValueRef *md_operands(LLVMValueRef md, unsigned *n)
{
	LLVMValueRef *ops;

	*n = LLVMGetMDNodeNumOperands(md);
	ops = *n ? calloc(*n, sizeof(*ops)) : NULL;
	if (ops)
		LLVMGetMDNodeOperands(md, ops);
	else
		*n = 0;
	return ops;
}

/* Does loop metadata node @p md hold a property named @p name? */
static bool loop_has(LLVMValueRef md, const char *name)
{
	unsigned n, np, len;
	LLVMValueRef *ops = md_operands(md, &n), *prop;
	bool found = false;
	const char *s;

	for (unsigned i = 1; i < n && !found; i++) {
		if (!ops[i] || !LLVMIsAMDNode(ops[i]))
			continue;
		prop = md_operands(ops[i], &np);
		s = np && prop[0] ? LLVMGetMDString(prop[0], &len) : NULL;
		found = s && len == strlen(name) && !memcmp(s, name, len);
		free(prop);
	}
	free(ops);
	return found;
}

/* The lanes of @p t if it is a vector, else 0. */
static unsigned lanes(LLVMTypeRef t)
{
	LLVMTypeKind k = LLVMGetTypeKind(t);

	if (k == LLVMScalableVectorTypeKind)
		return MAX_SPLIT;
	return k == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 0;
}

/* Lanes a vector-typed instruction @p i splits into, 0 if none. */
static unsigned split_lanes(LLVMValueRef i)
{
	if (LLVMGetInstructionOpcode(i) == LLVMStore)
		return lanes(LLVMTypeOf(LLVMGetOperand(i, 0)));
	return lanes(LLVMTypeOf(i));
}

/* Whether splitting @p f's vectors stays cheap: no element picked by a
 * run-time index, at most MAX_SPLIT lanes. */
static bool cheap_to_split(LLVMValueRef f)
{
	unsigned split = 0;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
	     b = LLVMGetNextBasicBlock(b)) {
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);

			if ((op == LLVMExtractElement &&
			     !LLVMIsConstant(LLVMGetOperand(i, 1))) ||
			    (op == LLVMInsertElement &&
			     !LLVMIsConstant(LLVMGetOperand(i, 2))))
				return false;
			split += split_lanes(i);
			if (split > MAX_SPLIT)
				return false;
		}
	}
	return true;
}

/* Does block @p b hold what the vectoriser refuses: a vector-typed
 * value or a switch? */
static bool refused_in(LLVMBasicBlockRef b)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
	     i = LLVMGetNextInstruction(i))
		if (split_lanes(i) || LLVMGetInstructionOpcode(i) == LLVMSwitch)
			return true;
	return false;
}

/* A function's control flow graph: blocks by number, successor lists */
struct cfg {
	unsigned n;
	LLVMBasicBlockRef *block;
	/* successors of block b: succ[first[b]] ... succ[first[b + 1] - 1],
	 * predecessors likewise in pred from pfirst */
	unsigned *first, *succ, *pfirst, *pred;
	/* by block address, for finding a block's number */
	LLVMBasicBlockRef *sorted;
	unsigned *sorted_id;
};

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const LLVMBasicBlockRef *)a;
	uintptr_t y = (uintptr_t)*(const LLVMBasicBlockRef *)b;

	return x < y ? -1 : x > y;
}

static unsigned block_id(const struct cfg *g, LLVMBasicBlockRef b)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->sorted[mid] == b)
			return g->sorted_id[mid];
		if ((uintptr_t)g->sorted[mid] < (uintptr_t)b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return g->n;
}

static void cfg_free(struct cfg *g)
{
	free(g->block);
	free(g->first);
	free(g->succ);
	free(g->pfirst);
	free(g->pred);
	free(g->sorted);
	free(g->sorted_id);
}

static bool cfg_build(struct cfg *g, LLVMValueRef f)
{
	unsigned n = LLVMCountBasicBlocks(f), m = 0, k = 0;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->block = calloc(n + 1, sizeof(*g->block));
	g->first = calloc(n + 1, sizeof(*g->first));
	g->sorted = calloc(n + 1, sizeof(*g->sorted));
	g->sorted_id = calloc(n + 1, sizeof(*g->sorted_id));
	if (!g->block || !g->first || !g->sorted || !g->sorted_id)
		return false;
	LLVMGetBasicBlocks(f, g->block);
	for (unsigned b = 0; b < n; b++)
		m += LLVMGetNumSuccessors(LLVMGetBasicBlockTerminator(
			g->block[b]));
	g->succ = calloc(m + 1, sizeof(*g->succ));
	g->pred = calloc(m + 1, sizeof(*g->pred));
	g->pfirst = calloc(n + 2, sizeof(*g->pfirst));
	if (!g->succ || !g->pred || !g->pfirst)
		return false;
	memcpy(g->sorted, g->block, n * sizeof(*g->block));
	qsort(g->sorted, n, sizeof(*g->sorted), cmp_ptr);
	for (unsigned b = 0; b < n; b++) {
		LLVMBasicBlockRef *x = bsearch(&g->block[b], g->sorted, n,
					       sizeof(*g->sorted), cmp_ptr);

		g->sorted_id[x - g->sorted] = b;
	}
	for (unsigned b = 0; b < n; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(g->block[b]);
		unsigned ns = LLVMGetNumSuccessors(t);

		g->first[b] = k;
		for (unsigned i = 0; i < ns; i++)
			g->succ[k++] = block_id(g, LLVMGetSuccessor(t, i));
	}
	g->first[n] = k;
	/* predecessors: count into pfirst[s + 2], sum, then place */
	for (unsigned e = 0; e < k; e++)
		if (g->succ[e] < n)
			g->pfirst[g->succ[e] + 2]++;
	for (unsigned b = 2; b <= n + 1; b++)
		g->pfirst[b] += g->pfirst[b - 1];
	for (unsigned b = 0; b < n; b++)
		for (unsigned e = g->first[b]; e < g->first[b + 1]; e++)
			if (g->succ[e] < n)
				g->pred[g->pfirst[g->succ[e] + 1]++] = b;
	return true;
}

/*
 * Whether @p f has a work-item loop (one whose latch carries
 * parallel_accesses) holding what the vectoriser refuses, and no loop
 * nested in any of its work-item loops.
 */
static bool refused_innermost(LLVMValueRef f, unsigned loop_kind)
{
	struct cfg g;
	unsigned *state = NULL, *stack = NULL, *next = NULL, *mark = NULL;
	bool *header = NULL, ok = false, refused = false;
	unsigned sp = 0;

	if (!cfg_build(&g, f) || !g.n)
		goto out;
	state = calloc(g.n, sizeof(*state));
	stack = calloc(g.n, sizeof(*stack));
	next = calloc(g.n, sizeof(*next));
	mark = calloc(g.n, sizeof(*mark));
	header = calloc(g.n, sizeof(*header));
	if (!state || !stack || !next || !mark || !header)
		goto out;
	/* depth-first: an edge to a block on the stack is a back edge, its
	 * target a loop header */
	stack[sp++] = 0;
	state[0] = 1;
	while (sp) {
		unsigned b = stack[sp - 1], e = g.first[b] + next[b];

		if (e == g.first[b + 1]) {
			state[b] = 2;
			sp--;
			continue;
		}
		next[b]++;
		if (g.succ[e] >= g.n)
			continue;
		if (state[g.succ[e]] == 1)
			header[g.succ[e]] = true;
		else if (!state[g.succ[e]]) {
			state[g.succ[e]] = 1;
			stack[sp++] = g.succ[e];
		}
	}
	/* each work-item loop's body: what reaches its latch backwards
	 * without passing its header; no other header may be in it */
	for (unsigned t = 0; t < g.n; t++) {
		LLVMValueRef br = LLVMGetBasicBlockTerminator(g.block[t]);
		LLVMValueRef md = br ? LLVMGetMetadata(br, loop_kind) : NULL;
		unsigned h = g.n;

		if (!md || !loop_has(md, "llvm.loop.parallel_accesses"))
			continue;
		for (unsigned e = g.first[t]; e < g.first[t + 1]; e++)
			if (g.succ[e] < g.n && header[g.succ[e]])
				h = g.succ[e];
		if (h == g.n)
			continue;
		memset(mark, 0, g.n * sizeof(*mark));
		mark[h] = 1;
		refused = refused || refused_in(g.block[h]);
		sp = 0;
		if (!mark[t]) {
			mark[t] = 1;
			stack[sp++] = t;
		}
		while (sp) {
			unsigned b = stack[--sp];

			if (b != h && header[b])
				goto out;
			refused = refused || refused_in(g.block[b]);
			for (unsigned e = g.pfirst[b]; e < g.pfirst[b + 1];
			     e++) {
				unsigned p = g.pred[e];

				if (!mark[p]) {
					mark[p] = 1;
					stack[sp++] = p;
				}
			}
		}
	}
	ok = refused;
out:
	free(state);
	free(stack);
	free(next);
	free(mark);
	free(header);
	cfg_free(&g);
	return ok;
}

/* Both tests, the cheap one first. */
static bool wants_split(LLVMValueRef f, unsigned loop_kind)
{
	return !LLVMIsDeclaration(f) && cheap_to_split(f) &&
	       refused_innermost(f, loop_kind);
}

int accelc_split_vectors(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			 struct strbuf *log)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	unsigned loop_kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
	unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
	unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
	unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	LLVMAttributeRef held = LLVMCreateStringAttribute(c, "accelc-held", 11,
							  "", 0);
	LLVMAttributeRef held_ni = LLVMCreateStringAttribute(
		c, "accelc-held-ni", 14, "", 0);
	LLVMPassBuilderOptionsRef o;
	unsigned n = 0;
	LLVMErrorRef e;

	/* the others sit the split out as optnone, which function passes
	 * skip; optnone needs noinline (and cannot go on what is
	 * alwaysinline, which nothing calls any more after inlining) */
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		if (wants_split(f, loop_kind)) {
			n++;
			continue;
		}
		if (LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						optnone) ||
		    LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						always))
			continue;
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, held);
		if (!LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						 noinline)) {
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						held_ni);
			LLVMAddAttributeAtIndex(
				f, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(c, noinline, 0));
		}
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					LLVMCreateEnumAttribute(c, optnone, 0));
	}
	o = LLVMCreatePassBuilderOptions();
	e = n ? LLVMRunPasses(mod, split_pipeline, tm, o) : NULL;
	LLVMDisposePassBuilderOptions(o);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (!LLVMGetStringAttributeAtIndex(f,
						   LLVMAttributeFunctionIndex,
						   "accelc-held", 11))
			continue;
		LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						 "accelc-held", 11);
		LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					       optnone);
		if (LLVMGetStringAttributeAtIndex(f,
						  LLVMAttributeFunctionIndex,
						  "accelc-held-ni", 14)) {
			LLVMRemoveStringAttributeAtIndex(
				f, LLVMAttributeFunctionIndex,
				"accelc-held-ni", 14);
			LLVMRemoveEnumAttributeAtIndex(
				f, LLVMAttributeFunctionIndex, noinline);
		}
	}
	if (e) {
		char *msg = LLVMGetErrorMessage(e);

		strbuf_printf(log, "error: optimiser: %s\n", msg);
		LLVMDisposeErrorMessage(msg);
		return -EIO;
	}
	return 0;
}
