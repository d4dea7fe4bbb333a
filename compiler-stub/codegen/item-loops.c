/* SPDX-License-Identifier: MIT */
/*
 * Work-item loops seen between the halves of default<O3>, for
 * split-vectors.c and unroll-items.c: the loops whose latch carries
 * llvm.loop.parallel_accesses (wg-wrappers.c), what their bodies hold, the
 * loops nested in them; and a pipeline run on some functions only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "accelc-private.h"
#include "item-loops.h"

/* The operands of metadata node @p md (malloc'ed; NULL if none or out of
 * memory), their count in @p n. */
LLVMValueRef *accelc_md_operands(LLVMValueRef md, unsigned *n)
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
bool accelc_loop_has(LLVMValueRef md, const char *name)
{
	unsigned n, np, len;
	LLVMValueRef *ops = accelc_md_operands(md, &n), *prop;
	bool found = false;
	const char *s;

	for (unsigned i = 1; i < n && !found; i++) {
		if (!ops[i] || !LLVMIsAMDNode(ops[i]))
			continue;
		prop = accelc_md_operands(ops[i], &np);
		s = np && prop[0] ? LLVMGetMDString(prop[0], &len) : NULL;
		found = s && len == strlen(name) && !memcmp(s, name, len);
		free(prop);
	}
	free(ops);
	return found;
}

/* Does loop property node @p prop (a metadata value) start with @p prefix? */
static bool prop_named(LLVMValueRef prop, const char *prefix)
{
	unsigned np, len;
	LLVMValueRef *ops;
	const char *s = NULL;
	bool r;

	if (!prop || !LLVMIsAMDNode(prop))
		return false;
	ops = accelc_md_operands(prop, &np);
	s = np && ops[0] ? LLVMGetMDString(ops[0], &len) : NULL;
	r = s && len >= strlen(prefix) && !memcmp(s, prefix, strlen(prefix));
	free(ops);
	return r;
}

/*
 * A loop ID with @p old's properties (none if NULL) but those named
 * @p drop..., and !{@p name[, i32 @p value if >= 0]}. NULL if out of
 * memory, or if @p old has a property named @p refuse... (if not
 * NULL).
 */
LLVMValueRef accelc_loop_id_with(LLVMContextRef c, LLVMValueRef old,
				 const char *refuse, const char *drop,
				 const char *name, int value)
{
	unsigned n = 0, k = 2;
	LLVMValueRef *ops = old ? accelc_md_operands(old, &n) : NULL, id = NULL;
	LLVMMetadataRef tmp, node, prop[2], *m = calloc(n + 2, sizeof(*m));

	if (!m || (old && !ops))
		goto out;
	for (unsigned i = 1; i < n; i++) {
		if (refuse && prop_named(ops[i], refuse))
			goto out;
		if (ops[i] && !(drop && prop_named(ops[i], drop)))
			m[k++] = LLVMValueAsMetadata(ops[i]);
	}
	tmp = LLVMTemporaryMDNode(c, NULL, 0);
	prop[0] = LLVMMDStringInContext2(c, name, strlen(name));
	prop[1] = LLVMValueAsMetadata(LLVMConstInt(
		LLVMInt32TypeInContext(c), (unsigned)value, 0));
	m[0] = tmp;
	m[1] = LLVMMDNodeInContext2(c, prop, value >= 0 ? 2 : 1);
	node = LLVMMDNodeInContext2(c, m, k);
	/* a self-reference makes the node distinct, as a loop ID must be */
	LLVMMetadataReplaceAllUsesWith(tmp, node);
	id = LLVMMetadataAsValue(c, node);
out:
	free(ops);
	free(m);
	return id;
}

/* The lanes of @p t if it is a vector, else 0. */
static unsigned lanes(LLVMTypeRef t)
{
	LLVMTypeKind k = LLVMGetTypeKind(t);

	if (k == LLVMScalableVectorTypeKind)
		return ACCELC_MAX_SPLIT;
	return k == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 0;
}

/* Lanes a vector-typed instruction @p i splits into, 0 if none. */
unsigned accelc_split_lanes(LLVMValueRef i)
{
	if (LLVMGetInstructionOpcode(i) == LLVMStore)
		return lanes(LLVMTypeOf(LLVMGetOperand(i, 0)));
	return lanes(LLVMTypeOf(i));
}

/* Does block @p b hold what the vectoriser refuses: a vector-typed
 * value or a switch? */
static bool refused_in(LLVMBasicBlockRef b)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
	     i = LLVMGetNextInstruction(i))
		if (accelc_split_lanes(i) || LLVMGetInstructionOpcode(i) == LLVMSwitch)
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

/* Does @p v (up to @p depth operands down) depend on phi @p iv? */
static bool depends(LLVMValueRef v, LLVMValueRef iv, int depth)
{
	if (v == iv)
		return true;
	if (depth <= 0 || !LLVMIsAInstruction(v) || LLVMIsAPHINode(v))
		return false;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (depends(LLVMGetOperand(v, o), iv, depth - 1))
			return true;
	return false;
}

/* Is address @p v computed through a division or remainder of something
 * depending on @p iv (lid / 4, lid % 4: a gather or scatter across
 * work-items)? */
static bool divides(LLVMValueRef v, LLVMValueRef iv, int depth)
{
	if (depth <= 0 || !LLVMIsAInstruction(v) || LLVMIsAPHINode(v))
		return false;
	if (accelc_int_division(v) && depends(LLVMGetOperand(v, 0), iv, 6))
		return true;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (divides(LLVMGetOperand(v, o), iv, depth - 1))
			return true;
	return false;
}

/* Does block @p b access memory at an address divides() finds, for any
 * phi of @p header? */
static bool irregular_in(LLVMBasicBlockRef b, LLVMBasicBlockRef header)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
	     i = LLVMGetNextInstruction(i)) {
		LLVMValueRef a;

		if (LLVMIsALoadInst(i))
			a = LLVMGetOperand(i, 0);
		else if (LLVMIsAStoreInst(i))
			a = LLVMGetOperand(i, 1);
		else
			continue;
		for (LLVMValueRef p = LLVMGetFirstInstruction(header);
		     p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p))
			if (divides(a, p, 6))
				return true;
	}
	return false;
}

/* The type of the first call in block @p b to a function with vector
 * variants (codegen.c marks those calls), or NULL. */
static LLVMTypeRef vcall_in(LLVMBasicBlockRef b)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
	     i = LLVMGetNextInstruction(i))
		if (LLVMIsACallInst(i) &&
		    LLVMGetCallSiteStringAttribute(
			    i, LLVMAttributeFunctionIndex,
			    "vector-function-abi-variant", 27))
			return LLVMTypeOf(i);
	return NULL;
}

static unsigned block_size(LLVMBasicBlockRef b)
{
	unsigned n = 0;

	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
	     i = LLVMGetNextInstruction(i))
		n++;
	return n;
}

/*
 * The work-item loops (those whose latch carries parallel_accesses) of
 * @p f: whether they hold what the vectoriser refuses, whether loops are
 * nested in them, and what @p want asks for.
 * @return false if out of memory.
 */
bool accelc_scan_loops(LLVMValueRef f, unsigned loop_kind, struct scan *s,
		       unsigned want)
{
	bool want_latches = want & WANT_LATCHES;
	bool want_irregular = want & WANT_IRREGULAR;
	bool want_vcalls = want & WANT_VCALLS;

	struct cfg g;
	unsigned *state = NULL, *stack = NULL, *next = NULL, *mark = NULL;
	bool *header = NULL, *back = NULL, ok = false;
	unsigned sp = 0;

	memset(s, 0, sizeof(*s));
	if (!cfg_build(&g, f) || !g.n)
		goto out;
	state = calloc(g.n, sizeof(*state));
	stack = calloc(g.n, sizeof(*stack));
	next = calloc(g.n, sizeof(*next));
	mark = calloc(g.n, sizeof(*mark));
	header = calloc(g.n, sizeof(*header));
	back = calloc(g.first[g.n] + 1, sizeof(*back));
	if (!state || !stack || !next || !mark || !header || !back)
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
		if (state[g.succ[e]] == 1) {
			header[g.succ[e]] = true;
			back[e] = true;
		} else if (!state[g.succ[e]]) {
			state[g.succ[e]] = 1;
			stack[sp++] = g.succ[e];
		}
	}
	/* each work-item loop's body: what reaches its latch backwards
	 * without passing its header */
	for (unsigned t = 0; t < g.n; t++) {
		LLVMValueRef br = LLVMGetBasicBlockTerminator(g.block[t]);
		LLVMValueRef md = br ? LLVMGetMetadata(br, loop_kind) : NULL;
		unsigned h = g.n, size = 0, first_latch = s->n_latches;
		bool irregular = false;
		LLVMTypeRef vcall = NULL;

		if (!md || !accelc_loop_has(md, "llvm.loop.parallel_accesses"))
			continue;
		for (unsigned e = g.first[t]; e < g.first[t + 1]; e++)
			if (g.succ[e] < g.n && header[g.succ[e]])
				h = g.succ[e];
		if (h == g.n)
			continue;
		memset(mark, 0, g.n * sizeof(*mark));
		mark[h] = 1;
		s->refused = s->refused || refused_in(g.block[h]);
		irregular = want_irregular &&
			    irregular_in(g.block[h], g.block[h]);
		if (want_vcalls)
			vcall = vcall_in(g.block[h]);
		size += block_size(g.block[h]);
		sp = 0;
		if (!mark[t]) {
			mark[t] = 1;
			stack[sp++] = t;
		}
		while (sp) {
			unsigned b = stack[--sp];

			s->nested = s->nested || (b != h && header[b]);
			s->refused = s->refused || refused_in(g.block[b]);
			irregular = irregular ||
				    (want_irregular &&
				     irregular_in(g.block[b], g.block[h]));
			if (want_vcalls && !vcall)
				vcall = vcall_in(g.block[b]);
			size += b != t ? block_size(g.block[b]) : 0;
			for (unsigned e = g.pfirst[b]; e < g.pfirst[b + 1];
			     e++) {
				unsigned p = g.pred[e];

				if (!mark[p]) {
					mark[p] = 1;
					stack[sp++] = p;
				}
			}
		}
		if (irregular) {
			void *p = realloc(s->irregular,
					  (s->n_irregular + 1) *
						  sizeof(*s->irregular));

			if (!p)
				goto out;
			s->irregular = p;
			s->irregular[s->n_irregular++] = g.block[t];
		}
		if (vcall) {
			void *p = realloc(s->vcalls, (s->n_vcalls + 1) *
							     sizeof(*s->vcalls));

			if (!p)
				goto out;
			s->vcalls = p;
			p = realloc(s->vcall_type, (s->n_vcalls + 1) *
							   sizeof(*s->vcall_type));
			if (!p)
				goto out;
			s->vcall_type = p;
			s->vcalls[s->n_vcalls] = g.block[t];
			s->vcall_type[s->n_vcalls++] = vcall;
		}
		if (!want_latches)
			continue;
		/* the back edges inside the body but its own */
		for (unsigned b = 0; b < g.n; b++) {
			if (!mark[b])
				continue;
			for (unsigned e = g.first[b]; e < g.first[b + 1]; e++) {
				if (!back[e] || g.succ[e] == h)
					continue;
				if (!(s->n_latches & (s->n_latches + 1))) {
					unsigned cap = 2 * s->n_latches + 2;
					void *p = realloc(s->latches,
							  cap * sizeof(*s->latches));

					if (!p)
						goto out;
					s->latches = p;
					p = realloc(s->body_size,
						    cap * sizeof(*s->body_size));
					if (!p)
						goto out;
					s->body_size = p;
				}
				s->latches[s->n_latches++] = g.block[b];
			}
		}
		for (unsigned k = first_latch; k < s->n_latches; k++)
			s->body_size[k] = size;
	}
	ok = true;
out:
	free(state);
	free(stack);
	free(next);
	free(mark);
	free(header);
	free(back);
	cfg_free(&g);
	return ok;
}

void accelc_scan_free(struct scan *s)
{
	free(s->vcalls);
	free(s->vcall_type);
	free(s->irregular);
	free(s->latches);
	free(s->body_size);
}

/*
 * @p pipeline run on the functions marked "accelc-want" (the mark then
 * removed); the others sit it out as optnone, which function passes
 * skip. optnone needs noinline (and cannot go on what is alwaysinline,
 * which nothing calls any more after inlining).
 */
int accelc_run_marked(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		      const char *pipeline, struct strbuf *log)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
	unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
	unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	LLVMAttributeRef held = LLVMCreateStringAttribute(c, "accelc-held", 11,
							  "", 0);
	LLVMAttributeRef held_ni = LLVMCreateStringAttribute(
		c, "accelc-held-ni", 14, "", 0);
	LLVMPassBuilderOptionsRef o;
	LLVMErrorRef e;

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		if (LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						  "accelc-want", 11)) {
			LLVMRemoveStringAttributeAtIndex(
				f, LLVMAttributeFunctionIndex, "accelc-want",
				11);
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
	e = LLVMRunPasses(mod, pipeline, tm, o);
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

void accelc_want(LLVMValueRef f)
{
	LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(f));

	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(c, "accelc-want", 11,
							  "", 0));
}

