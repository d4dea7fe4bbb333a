/* SPDX-License-Identifier: MIT */
/*
 * Implicit barriers where a loop containing a barrier exits (PoCL adds
 * implicit barriers around such loops for the same reason). Without
 * them, the region that starts at the barrier in the loop also holds
 * the loop's exit and all the code after it, so its work-item loop ends
 * in a choice between looping and leaving, and the code after the loop
 * is copied into every such region. With them, that code is a region of
 * its own, run once.
 *
 * A barrier may only go where every work-item passes: the exit branch
 * must be uniform. OpenCL requires all work-items to reach the same
 * barriers, so a branch whose sides lead to different first barriers
 * (the end of the kernel counting as one) is uniform in any valid
 * program. A loop gets implicit barriers only if all its exits are such
 * branches: a work-item leaving early on another way would otherwise
 * skip them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

#define END_BIT (1ull << 63)

struct cfg {
	LLVMBasicBlockRef *bb;
	size_t n;
	struct ptrmap idx;
	int *bar;       /* barrier block: j + 1 */
	uint64_t *fb;   /* first barriers reachable (END_BIT: the end) */
	uint8_t *fwd, *bwd;
};

static size_t index_of(struct cfg *g, LLVMBasicBlockRef b)
{
	return (size_t)(uintptr_t)ptrmap_get(&g->idx, b) - 1;
}

/* What a work-item entering @p s reaches first. */
static uint64_t first(struct cfg *g, size_t s)
{
	return g->bar[s] ? 1ull << (g->bar[s] - 1) : g->fb[s];
}

static void first_barriers(struct cfg *g)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t b = g->n; b-- > 0;) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
			uint64_t v = g->fb[b];

			if (g->bar[b])
				continue;
			if (LLVMGetInstructionOpcode(t) == LLVMRet)
				v |= END_BIT;
			for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
				v |= first(g, index_of(g,
						       LLVMGetSuccessor(t, s)));
			if (v != g->fb[b]) {
				g->fb[b] = v;
				changed = true;
			}
		}
	}
}

/* fwd: reachable from @p from; bwd: reaching @p to. */
static void reach(struct cfg *g, size_t from, size_t to)
{
	bool changed = true;

	memset(g->fwd, 0, g->n);
	memset(g->bwd, 0, g->n);
	g->fwd[from] = g->bwd[to] = 1;
	while (changed) {
		changed = false;
		for (size_t b = 0; b < g->n; b++) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);

			for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
				size_t x = index_of(g, LLVMGetSuccessor(t, s));

				if (g->fwd[b] && !g->fwd[x])
					g->fwd[x] = changed = 1;
				if (g->bwd[x] && !g->bwd[b])
					g->bwd[b] = changed = 1;
			}
		}
	}
}

/* Do the sides of @p u's branch lead to disjoint first barriers? */
static bool uniform_branch(struct cfg *g, size_t u)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[u]);
	unsigned n = LLVMGetNumSuccessors(t);

	for (unsigned a = 0; a < n; a++)
		for (unsigned b = a + 1; b < n; b++) {
			LLVMBasicBlockRef sa = LLVMGetSuccessor(t, a);
			LLVMBasicBlockRef sb = LLVMGetSuccessor(t, b);

			if (sa != sb && (first(g, index_of(g, sa)) &
					 first(g, index_of(g, sb))))
				return false;
		}
	return true;
}

/* u -> v becomes u -> barrier -> cont -> v */
static int cut_edge(struct regions *rg, LLVMBasicBlockRef u,
		    LLVMBasicBlockRef v)
{
	struct lower *l = rg->l;
	LLVMValueRef t = LLVMGetBasicBlockTerminator(u);
	LLVMBasicBlockRef bar, cont;

	if (accelc_grow((void **)&rg->bar, rg->nbar, sizeof(*rg->bar)) ||
	    accelc_grow((void **)&rg->cont, rg->nbar, sizeof(*rg->cont)))
		return -ENOMEM;
	bar = LLVMAppendBasicBlockInContext(l->st->ctx, rg->fn, "loop.exit");
	cont = LLVMAppendBasicBlockInContext(l->st->ctx, rg->fn, "region");
	LLVMPositionBuilderAtEnd(l->b, bar);
	LLVMBuildBr(l->b, cont);
	LLVMPositionBuilderAtEnd(l->b, cont);
	LLVMBuildBr(l->b, v);
	for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
		if (LLVMGetSuccessor(t, s) == v)
			LLVMSetSuccessor(t, s, bar);
	for (LLVMValueRef i = LLVMGetFirstInstruction(v), next;
	     i && LLVMIsAPHINode(i); i = next) {
		next = LLVMGetNextInstruction(i);
		if (accelc_phi_retarget(l, i, u, cont))
			return -ENOMEM;
	}
	rg->bar[rg->nbar] = bar;
	rg->cont[rg->nbar] = cont;
	rg->nbar++;
	return 0;
}

static int find_exits(struct regions *rg, struct cfg *g,
		      LLVMBasicBlockRef (*edges)[2], size_t *ne, size_t max)
{
	size_t nbar = rg->nbar;

	for (size_t j = 0; j < nbar; j++) {
		size_t first_edge = *ne;
		bool ok = true;

		reach(g, index_of(g, rg->cont[j]), index_of(g, rg->bar[j]));
		if (!g->fwd[index_of(g, rg->bar[j])])
			continue; /* not in a loop */
		for (size_t u = 0; u < g->n && ok; u++) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[u]);

			if (!g->fwd[u] || !g->bwd[u])
				continue;
			for (unsigned s = 0; s < LLVMGetNumSuccessors(t) && ok;
			     s++) {
				LLVMBasicBlockRef v = LLVMGetSuccessor(t, s);
				size_t x = index_of(g, v), k;

				/* inside the loop, or a barrier already */
				if ((g->fwd[x] && g->bwd[x]) || g->bar[x])
					continue;
				ok = uniform_branch(g, u);
				for (k = 0; k < *ne; k++)
					if (edges[k][0] == g->bb[u] &&
					    edges[k][1] == v)
						break;
				if (k == *ne && *ne < max) {
					edges[*ne][0] = g->bb[u];
					edges[(*ne)++][1] = v;
				} else if (k == *ne) {
					ok = false;
				}
			}
		}
		if (!ok)
			*ne = first_edge;
	}
	return 0;
}

int accelc_regions_loop_exits(struct regions *rg, size_t max_barriers)
{
	struct cfg g = { 0 };
	LLVMBasicBlockRef (*edges)[2] = NULL;
	size_t ne = 0, max = max_barriers > rg->nbar ?
		max_barriers - rg->nbar : 0;
	int r = -ENOMEM;

	if (!rg->nbar || !max)
		return 0;
	for (LLVMBasicBlockRef b = LLVMGetNextBasicBlock(rg->prologue); b;
	     b = LLVMGetNextBasicBlock(b)) {
		if (accelc_grow((void **)&g.bb, g.n, sizeof(*g.bb)) ||
		    ptrmap_put(&g.idx, b, (void *)(uintptr_t)(g.n + 1)))
			goto out;
		g.bb[g.n++] = b;
	}
	g.bar = calloc(g.n, sizeof(*g.bar));
	g.fb = calloc(g.n, sizeof(*g.fb));
	g.fwd = calloc(g.n, 1);
	g.bwd = calloc(g.n, 1);
	edges = calloc(max, sizeof(*edges));
	if (!g.bar || !g.fb || !g.fwd || !g.bwd || !edges)
		goto out;
	for (size_t j = 0; j < rg->nbar; j++)
		g.bar[index_of(&g, rg->bar[j])] = (int)j + 1;
	first_barriers(&g);
	r = find_exits(rg, &g, edges, &ne, max);
	for (size_t k = 0; k < ne && !r; k++)
		r = cut_edge(rg, edges[k][0], edges[k][1]);
out:
	free(g.bb);
	ptrmap_free(&g.idx);
	free(g.bar);
	free(g.fb);
	free(g.fwd);
	free(g.bwd);
	free(edges);
	return r;
}
