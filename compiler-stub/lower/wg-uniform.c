/* SPDX-License-Identifier: MIT */
/*
 * Uniform variables across barriers: a loop counter that every
 * work-item of the group steps alike (the stride of a tree reduction)
 * needs no context array, and must not have one if the vectoriser is to
 * see that it is the same in every lane.
 *
 * An alloca (after wg-demote.c's demotion) is uniform if it is only
 * loaded and stored, every value stored is the same in all work-items
 * (constants, the prologue's values, uniform loads and arithmetic on
 * them), and every store is in a block that all work-items run equally
 * often: one on no barrier-free cycle, and whose running is decided only
 * by uniform branches (wg-loop-exits.c: branches whose sides lead to
 * different first barriers). Such a variable is one shared scalar; each
 * region's work-item loop starts every work-item from the value it had
 * at the region's start.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

#define MAX_BLOCKS 4000

/* Same value in every work-item? (@p cand: the allocas still thought
 * uniform) */
static bool uniform_value(struct regions *rg, struct ptrmap *cand,
			  LLVMValueRef v, int depth)
{
	if (!LLVMIsAInstruction(v))
		return true;
	if (LLVMGetInstructionParent(v) == rg->prologue)
		return !LLVMIsAAllocaInst(v);
	if (LLVMIsALoadInst(v))
		return ptrmap_get(cand, LLVMGetOperand(v, 0)) != NULL;
	if (depth > 16 || !accelc_regions_pure(v))
		return false;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (!uniform_value(rg, cand, LLVMGetOperand(v, o), depth + 1))
			return false;
	return true;
}

/* The kernel's CFG as the analysis needs it. */
struct ucfg {
	size_t nb, words;
	size_t *pred_off, *pred; /* predecessors of b: pred[off[b]..] */
	uint8_t *bar;            /* barrier block */
	uint64_t *fb;            /* first barriers reachable (bit nbar:
				  * the end), words per block */
	size_t *stack;
	uint8_t *seen;
	int8_t *lockstep;        /* per block: -1 not known yet */
};

static size_t idx(struct regions *rg, LLVMBasicBlockRef bb)
{
	return (size_t)(uintptr_t)ptrmap_get(&rg->bidx, bb) - 1;
}

int accelc_preds(LLVMBasicBlockRef *blocks, size_t nb,
		 const struct ptrmap *index, size_t **off, size_t **pred)
{
	size_t n = 0, *o = calloc(nb + 1, sizeof(*o)), *p;

	if (!o)
		return -ENOMEM;
	for (size_t b = 0; b < nb; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(blocks[b]);

		for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t); s++) {
			o[(uintptr_t)ptrmap_get(index,
						LLVMGetSuccessor(t, s))]++;
			n++;
		}
	}
	for (size_t b = 0; b < nb; b++)
		o[b + 1] += o[b];
	p = malloc((n + 1) * sizeof(*p));
	if (!p) {
		free(o);
		return -ENOMEM;
	}
	for (size_t b = 0; b < nb; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(blocks[b]);

		for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t); s++) {
			uintptr_t x = (uintptr_t)ptrmap_get(
				index, LLVMGetSuccessor(t, s)) - 1;

			p[o[x]++] = b;
		}
	}
	for (size_t b = nb; b > 0; b--)
		o[b] = o[b - 1];
	o[0] = 0;
	*off = o;
	*pred = p;
	return 0;
}

static int build_cfg(struct regions *rg, struct ucfg *g)
{
	size_t nb = rg->nblocks;
	bool changed = true;

	g->nb = nb;
	g->words = (rg->nbar + 1 + 63) / 64;
	g->bar = calloc(nb, 1);
	g->fb = calloc(nb * g->words, sizeof(*g->fb));
	g->stack = malloc(nb * sizeof(*g->stack));
	g->seen = malloc(nb);
	g->lockstep = malloc(nb);
	if (!g->bar || !g->fb || !g->stack || !g->seen || !g->lockstep ||
	    accelc_preds(rg->blocks, nb, &rg->bidx, &g->pred_off, &g->pred))
		return -ENOMEM;
	memset(g->lockstep, -1, nb);
	for (size_t j = 0; j < rg->nbar; j++)
		g->bar[idx(rg, rg->bar[j])] = 1;
	/* first barriers, as in wg-loop-exits.c but for any count */
	for (size_t j = 0; j < rg->nbar; j++) {
		size_t b = idx(rg, rg->bar[j]);

		g->fb[b * g->words + j / 64] |= 1ull << (j % 64);
	}
	while (changed) {
		changed = false;
		for (size_t b = nb; b-- > 0;) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(
				rg->blocks[b]);
			uint64_t *f = g->fb + b * g->words;

			if (g->bar[b])
				continue;
			if (LLVMGetInstructionOpcode(t) == LLVMRet &&
			    !(f[rg->nbar / 64] & (1ull << (rg->nbar % 64)))) {
				f[rg->nbar / 64] |= 1ull << (rg->nbar % 64);
				changed = true;
			}
			for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
				uint64_t *o = g->fb + idx(rg, LLVMGetSuccessor(
						t, s)) * g->words;

				for (size_t w = 0; w < g->words; w++)
					if (o[w] & ~f[w]) {
						f[w] |= o[w];
						changed = true;
					}
			}
		}
	}
	return 0;
}

static void free_cfg(struct ucfg *g)
{
	free(g->pred_off);
	free(g->pred);
	free(g->bar);
	free(g->fb);
	free(g->stack);
	free(g->seen);
	free(g->lockstep);
}

/* Does @p x reach @p b without crossing a barrier (g->seen: those that
 * do, from find_lockstep())? */
static bool reaches(struct ucfg *g, size_t x, size_t b)
{
	return x == b || g->seen[x];
}

/*
 * Do the sides of @p u's branch that reach @p b and those that do not
 * lead to disjoint first barriers? Then every work-item takes the same
 * side, or some would wait at a barrier the others never reach. Sides
 * that both reach @p b (or both do not) decide nothing about it: a
 * cleanup switch whose default is unreachable (no first barrier at all)
 * leaves its other cases free to differ.
 */
static bool uniform_branch(struct regions *rg, struct ucfg *g, size_t u,
			   size_t b)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(rg->blocks[u]);
	unsigned n = LLVMGetNumSuccessors(t);

	for (unsigned a = 0; a < n; a++) {
		size_t xa = idx(rg, LLVMGetSuccessor(t, a));
		const uint64_t *fa = g->fb + xa * g->words;

		if (!reaches(g, xa, b))
			continue;
		for (unsigned c = 0; c < n; c++) {
			size_t xc = idx(rg, LLVMGetSuccessor(t, c));
			const uint64_t *fc = g->fb + xc * g->words;

			if (reaches(g, xc, b))
				continue;
			for (size_t w = 0; w < g->words; w++)
				if (fa[w] & fc[w])
					return false;
		}
	}
	return true;
}

/* Does every work-item run @p b equally often between barriers? */
static bool find_lockstep(struct regions *rg, struct ucfg *g, size_t b)
{
	size_t sp = 0;

	/* the blocks reaching b without crossing a barrier; b itself
	 * among them: a barrier-free cycle */
	memset(g->seen, 0, g->nb);
	g->stack[sp++] = b;
	while (sp) {
		size_t x = g->stack[--sp];

		for (size_t k = g->pred_off[x]; k < g->pred_off[x + 1]; k++) {
			size_t p = g->pred[k];

			if (g->bar[p] || g->seen[p])
				continue;
			if (p == b)
				return false;
			g->seen[p] = 1;
			g->stack[sp++] = p;
		}
	}
	/* a branch with a side that does not reach b decides whether b
	 * runs: it must be uniform */
	for (size_t p = 0; p < g->nb; p++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(rg->blocks[p]);

		if (g->seen[p] && LLVMGetNumSuccessors(t) > 1 &&
		    !uniform_branch(rg, g, p, b))
			return false;
	}
	return true;
}

static bool lockstep(struct regions *rg, struct ucfg *g, size_t b)
{
	if (g->lockstep[b] < 0)
		g->lockstep[b] = find_lockstep(rg, g, b);
	return g->lockstep[b];
}

static bool stores_ok(struct regions *rg, struct ucfg *g,
		      struct ptrmap *cand, LLVMValueRef a)
{
	for (LLVMUseRef use = LLVMGetFirstUse(a); use;
	     use = LLVMGetNextUse(use)) {
		LLVMValueRef u = LLVMGetUser(use);
		void *b;

		if (LLVMIsALoadInst(u))
			continue;
		if (!LLVMIsAStoreInst(u) || LLVMGetOperand(u, 0) == a ||
		    !uniform_value(rg, cand, LLVMGetOperand(u, 0), 0))
			return false;
		b = ptrmap_get(&rg->bidx, LLVMGetInstructionParent(u));
		if (!b || !lockstep(rg, g, (size_t)(uintptr_t)b - 1))
			return false;
	}
	return true;
}

int accelc_regions_find_uniform(struct regions *rg)
{
	struct ptrmap cand = { 0 };
	struct ucfg g = { 0 };
	bool changed = true;
	int r;

	/* a bound on the analysis' time: without it, all is still right */
	if (rg->nblocks > MAX_BLOCKS)
		return 0;
	r = build_cfg(rg, &g);
	if (r)
		goto out;
	r = -ENOMEM;
	for (LLVMValueRef i = LLVMGetFirstInstruction(rg->prologue); i;
	     i = LLVMGetNextInstruction(i))
		if (LLVMIsAAllocaInst(i) && i != rg->next &&
		    i != rg->cur[0] && i != rg->cur[1] && i != rg->cur[2] &&
		    LLVMGetFirstUse(i) && ptrmap_put(&cand, i, i))
			goto out;
	/* optimistic: drop the ones that fail until none does */
	while (changed) {
		changed = false;
		for (size_t k = 0; k < cand.cap; k++) {
			LLVMValueRef a = cand.k[k];

			if (!a || !cand.v[k] || stores_ok(rg, &g, &cand, a))
				continue;
			cand.v[k] = NULL; /* keys stay: probing needs them */
			changed = true;
		}
	}
	/*
	 * In the prologue's order, not the map's: that follows addresses,
	 * which differ from run to run, and the order is the code's.
	 */
	for (LLVMValueRef i = LLVMGetFirstInstruction(rg->prologue); i;
	     i = LLVMGetNextInstruction(i)) {
		if (!LLVMIsAAllocaInst(i) || !ptrmap_get(&cand, i))
			continue;
		if (accelc_grow((void **)&rg->uniform, rg->n_uniform,
				sizeof(*rg->uniform)))
			goto out;
		rg->uniform[rg->n_uniform++] = i;
	}
	r = 0;
out:
	ptrmap_free(&cand);
	free_cfg(&g);
	return r;
}
