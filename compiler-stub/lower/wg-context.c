/* SPDX-License-Identifier: MIT */
/*
 * Context arrays, for wg-regions.c, once wg-demote.c has put every value
 * that crosses a block into an alloca: each alloca used in one region
 * that runs once, or dead wherever a region starts, stays a scalar
 * (mem2reg makes it a register again); every other one becomes a context
 * array with one element per work-item, indexed by the local linear id.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

/* context arrays beyond this (all work-items of the largest group the
 * CPU device allows) go on the heap, not the worker's stack */
#define CONTEXT_STACK_MAX (1024u * 1024u)
#define CONTEXT_MAX_ITEMS 4096u
/* Only loaded and stored through, in one region that runs once? */
static bool region_local(struct regions *rg, LLVMValueRef a)
{
	size_t nb = rg->nblocks, nr = rg->nbar + 1, region = SIZE_MAX;

	for (LLVMUseRef use = LLVMGetFirstUse(a); use;
	     use = LLVMGetNextUse(use)) {
		LLVMValueRef u = LLVMGetUser(use);
		void *bi;
		size_t b;

		if (!(LLVMIsALoadInst(u) ||
		      (LLVMIsAStoreInst(u) && LLVMGetOperand(u, 0) != a)))
			return false;
		bi = ptrmap_get(&rg->bidx, LLVMGetInstructionParent(u));
		if (!bi)
			return false;
		b = (size_t)(uintptr_t)bi - 1;
		for (size_t g = 0; g < nr; g++) {
			if (!rg->in[g * nb + b])
				continue;
			if (rg->cyclic[g] || (region != SIZE_MAX &&
					      region != g))
				return false;
			region = g;
		}
	}
	return true;
}

/* What the liveness walk below shares between allocas. */
struct live_walk {
	size_t *off, *pred; /* accelc_preds() */
	uint8_t *entry;     /* a region starts here: the body, a barrier */
	uint8_t *state;     /* per block: 0, ACC_LOAD or ACC_STORE first */
	size_t *stack;
};

enum { ACC_LOAD = 1, ACC_STORE = 2 };

static void live_walk_free(struct live_walk *lw)
{
	free(lw->off);
	free(lw->pred);
	free(lw->entry);
	free(lw->state);
	free(lw->stack);
}

static int live_walk_init(struct regions *rg, struct live_walk *lw)
{
	size_t nb = rg->nblocks;
	int r = accelc_preds(rg->blocks, nb, &rg->bidx, &lw->off, &lw->pred);

	if (r)
		return r;
	lw->entry = calloc(nb, 1);
	lw->state = calloc(nb, 1);
	lw->stack = malloc(nb * sizeof(*lw->stack));
	if (!lw->entry || !lw->state || !lw->stack) {
		live_walk_free(lw);
		return -ENOMEM;
	}
	lw->entry[(uintptr_t)ptrmap_get(&rg->bidx, rg->body) - 1] = 1;
	for (size_t j = 0; j < rg->nbar; j++)
		lw->entry[(uintptr_t)ptrmap_get(&rg->bidx, rg->bar[j]) - 1] = 1;
	return 0;
}

/* Is @p i a load of @p a, a store of a whole value to it, or neither? */
static int access_of(LLVMValueRef i, LLVMValueRef a)
{
	if (LLVMIsALoadInst(i) && LLVMGetOperand(i, 0) == a)
		return ACC_LOAD;
	if (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 1) == a)
		return LLVMTypeOf(LLVMGetOperand(i, 0)) ==
				       LLVMGetAllocatedType(a) ?
			       ACC_STORE : ACC_LOAD; /* partial: no kill */
	return 0;
}

/*
 * Dead where every region starts (the kernel's first block, each
 * barrier)? Then no value of @p a crosses a barrier: a work-item stores
 * it before it loads it in each region, however often the regions run,
 * and one scalar serves all work-items, as a register of the work-item
 * loop (a tiled product's k loop: per-item indices, the values loaded
 * from the tiles).
 */
static bool dead_at_barriers(struct regions *rg, struct live_walk *lw,
			     LLVMValueRef a)
{
	size_t nb = rg->nblocks, sp = 0;
	bool dead = true;

	memset(lw->state, 0, nb);
	for (LLVMUseRef use = LLVMGetFirstUse(a); use;
	     use = LLVMGetNextUse(use)) {
		LLVMValueRef u = LLVMGetUser(use);
		LLVMBasicBlockRef bb = LLVMGetInstructionParent(u);
		void *bi;
		size_t b;

		if (!access_of(u, a))
			return false;
		bi = ptrmap_get(&rg->bidx, bb);
		if (!bi)
			return false;
		b = (size_t)(uintptr_t)bi - 1;
		if (lw->state[b])
			continue;
		/* the first access in the block decides */
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			int acc = access_of(i, a);

			if (acc) {
				lw->state[b] = (uint8_t)acc;
				break;
			}
		}
		if (lw->state[b] == ACC_LOAD)
			lw->stack[sp++] = b;
	}
	/* backwards from the loads, through blocks that do not store it
	 * first; the visited ones are marked ACC_LOAD too */
	while (sp && dead) {
		size_t b = lw->stack[--sp];

		if (lw->entry[b]) {
			dead = false;
			break;
		}
		for (size_t k = lw->off[b]; k < lw->off[b + 1]; k++) {
			size_t p = lw->pred[k];

			if (lw->state[p])
				continue;
			lw->state[p] = ACC_LOAD;
			lw->stack[sp++] = p;
		}
	}
	return dead;
}

static bool is_uniform_var(struct regions *rg, LLVMValueRef a)
{
	for (size_t k = 0; k < rg->n_uniform; k++)
		if (rg->uniform[k] == a)
			return true;
	return false;
}

struct ctx_var {
	LLVMValueRef a, base;
	LLVMTypeRef t;
	uint64_t stride;
	unsigned align;
	/* chunked (wg-ctx-chunks.c): an array per chunk, on the stack */
	uint64_t chunk;
	LLVMValueRef bases[ACCELC_CTX_MAX_CHUNKS];
};

/* The work-item's linear local id, at the top of @p bb (cached). */
static LLVMValueRef linear_id(struct regions *rg, LLVMBasicBlockRef bb,
			      struct ptrmap *cache)
{
	struct lower *l = rg->l;
	LLVMValueRef v = ptrmap_get(cache, bb), id[3];

	if (v)
		return v;
	LLVMPositionBuilderBefore(l->b, LLVMGetFirstInstruction(bb));
	for (int d = 0; d < 3; d++)
		id[d] = LLVMBuildLoad2(l->b, l->i64, rg->cur[d], "lid");
	v = LLVMBuildAdd(l->b, LLVMBuildMul(l->b, id[2], rg->w->ls[1], ""),
			 id[1], "");
	v = LLVMBuildAdd(l->b, LLVMBuildMul(l->b, v, rg->w->ls[0], ""), id[0],
			 "item");
	return ptrmap_put(cache, bb, v) ? NULL : v;
}

struct item_arg {
	struct regions *rg;
	struct ptrmap *cache;
};

static LLVMValueRef item_at(void *arg, LLVMBasicBlockRef bb)
{
	struct item_arg *a = arg;

	return linear_id(a->rg, bb, a->cache);
}

static int rewrite_uses(struct regions *rg, struct ctx_var *cv,
			struct ptrmap *cache)
{
	struct item_arg ia = { rg, cache };
	struct accelc_ctx_chunks ch = { rg->l, { 0 }, cv->chunk, 0, NULL,
					item_at, &ia };
	LLVMValueRef *u;
	size_t n;

	/* a register tile's elements at a small stride across work-items */
	if (cv->chunk) {
		memcpy(ch.bases, cv->bases, sizeof(ch.bases));
		return accelc_ctx_chunk_rewrite(&ch, cv->a);
	}
	n = accelc_regions_users(cv->a, &u);
	if (n == SIZE_MAX)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		LLVMValueRef id = linear_id(rg, LLVMGetInstructionParent(u[k]),
					    cache), p;

		if (!id) {
			free(u);
			return -ENOMEM;
		}
		LLVMPositionBuilderBefore(rg->l->b, u[k]);
		/* bytes: the stride keeps the alloca's own alignment */
		id = LLVMBuildMul(rg->l->b, id,
				  LLVMConstInt(rg->l->i64, cv->stride, 0), "");
		p = LLVMBuildInBoundsGEP2(rg->l->b, rg->l->i8, cv->base, &id,
					  1, "ctx");
		accelc_regions_set_operands(u[k], cv->a, p);
	}
	free(u);
	LLVMInstructionEraseFromParent(cv->a);
	return 0;
}

/*
 * Separate allocas keep the arrays apart for alias analysis, which the
 * vectoriser needs; they live on the worker's stack, so only small
 * contexts go there (for the largest group the CPU device allows), big
 * ones in one malloc'ed block per work-group. Accesses keep the alignment
 * of the alloca they replace (32 for a float8: vmovaps), but malloc only
 * aligns to 16, so the arrays start at multiples of their largest
 * alignment from an aligned base inside the block, not from the block.
 */
static void place(struct regions *rg, struct ctx_var *cv, size_t n,
		  uint64_t bytes, LLVMBasicBlockRef start,
		  LLVMBasicBlockRef *after)
{
	struct lower *l = rg->l;
	LLVMContextRef c = l->st->ctx;
	LLVMValueRef h, base, end, off, f;
	LLVMBasicBlockRef trap, join;
	LLVMTypeRef ft;
	uint64_t al = 64;

	*after = start;
	if (bytes <= CONTEXT_STACK_MAX / CONTEXT_MAX_ITEMS) {
		/* stack-size.c: known per work-item, not unbounded */
		unsigned md = LLVMGetMDKindIDInContext(
			c, ACCELC_MD_CTX_ARRAY, strlen(ACCELC_MD_CTX_ARRAY));

		rg->w->k->info.private_per_item += bytes;
		LLVMPositionBuilderBefore(
			l->b, LLVMGetBasicBlockTerminator(rg->prologue));
		for (size_t k = 0; k < n; k++) {
			uint64_t size = cv[k].chunk ? cv[k].chunk : cv[k].stride;
			uint64_t m = cv[k].chunk ? cv[k].stride / cv[k].chunk : 1;

			for (uint64_t i = 0; i < m && i < ACCELC_CTX_MAX_CHUNKS;
			     i++) {
				cv[k].bases[i] = LLVMBuildArrayAlloca(
					l->b, l->i8,
					LLVMBuildMul(l->b, rg->n_items,
						     LLVMConstInt(l->i64, size,
								  0),
						     ""),
					"ctx");
				LLVMSetAlignment(cv[k].bases[i],
						 cv[k].align < size ? cv[k].align
								    : (unsigned)size);
				LLVMSetMetadata(cv[k].bases[i], md,
						LLVMMDNodeInContext(c, NULL, 0));
			}
			cv[k].base = cv[k].bases[0];
		}
		return;
	}
	/* the heap block holds whole slots only */
	for (size_t k = 0; k < n; k++)
		cv[k].chunk = 0;
	/* alignments are powers of two: al is their maximum, at least 64 */
	for (size_t k = 0; k < n; k++)
		while (al < cv[k].align)
			al *= 2;
	trap = LLVMAppendBasicBlockInContext(c, rg->fn, "ctx.nomem");
	join = LLVMAppendBasicBlockInContext(c, rg->fn, "ctx.join");
	LLVMPositionBuilderAtEnd(l->b, start);
	/* n * stride, up to al before each array and before the base */
	f = LLVMGetNamedFunction(l->st->mod, "malloc");
	ft = LLVMFunctionType(l->ptr, &l->i64, 1, 0);
	if (!f)
		f = LLVMAddFunction(l->st->mod, "malloc", ft);
	h = LLVMConstInt(l->i64, bytes, 0);
	h = LLVMBuildAdd(l->b, LLVMBuildMul(l->b, rg->n_items, h, ""),
			 LLVMConstInt(l->i64, al * (n + 1), 0), "");
	h = LLVMBuildCall2(l->b, ft, f, &h, 1, "ctx.heap");
	LLVMBuildCondBr(l->b, LLVMBuildIsNull(l->b, h, ""), trap, join);
	/* no memory: nothing of the group ran, the launch fails */
	LLVMPositionBuilderAtEnd(l->b, trap);
	accelc_wg_fail_return(l, LLVMGetParam(rg->fn, 1), -ENOMEM);

	LLVMPositionBuilderAtEnd(l->b, join);
	/* base = h rounded up to al, as a GEP of h (keeps its provenance) */
	off = LLVMBuildNeg(l->b, LLVMBuildPtrToInt(l->b, h, l->i64, ""), "");
	off = LLVMBuildAnd(l->b, off, LLVMConstInt(l->i64, al - 1, 0), "");
	base = LLVMBuildGEP2(l->b, l->i8, h, &off, 1, "ctx.base");
	end = LLVMConstInt(l->i64, 0, 0);
	for (size_t k = 0; k < n; k++) {
		off = LLVMBuildAdd(l->b, end, LLVMConstInt(l->i64, al - 1, 0),
				   "");
		off = LLVMBuildAnd(l->b, off,
				   LLVMConstInt(l->i64, ~(al - 1), 0), "");
		end = LLVMBuildAdd(
			l->b, off,
			LLVMBuildMul(l->b, rg->n_items,
				     LLVMConstInt(l->i64, cv[k].stride, 0), ""),
			"");
		cv[k].base = LLVMBuildGEP2(l->b, l->i8, base, &off, 1, "ctx");
	}
	rg->heap = h;
	*after = join;
}

int accelc_regions_context(struct regions *rg, LLVMBasicBlockRef start,
			   LLVMBasicBlockRef *after)
{
	struct lower *l = rg->l;
	LLVMTargetDataRef td = l->st->td;
	struct ctx_var *cv = NULL, *ncv;
	struct ptrmap cache = { 0 };
	struct live_walk lw = { 0 };
	size_t n = 0;
	uint64_t bytes = 0;
	int r = live_walk_init(rg, &lw);

	if (r)
		return r;
	LLVMPositionBuilderBefore(l->b,
				  LLVMGetBasicBlockTerminator(rg->prologue));
	rg->n_items = LLVMBuildMul(
		l->b, LLVMBuildMul(l->b, rg->w->ls[0], rg->w->ls[1], ""),
		rg->w->ls[2], "items");
	for (LLVMValueRef i = LLVMGetFirstInstruction(rg->prologue); i;
	     i = LLVMGetNextInstruction(i)) {
		LLVMTypeRef t;
		unsigned al;

		if (!LLVMIsAAllocaInst(i) || i == rg->next ||
		    i == rg->cur[0] || i == rg->cur[1] || i == rg->cur[2] ||
		    !LLVMGetFirstUse(i) || is_uniform_var(rg, i) ||
		    region_local(rg, i) || dead_at_barriers(rg, &lw, i))
			continue;
		ncv = realloc(cv, (n + 1) * sizeof(*cv));
		if (!ncv) {
			free(cv);
			live_walk_free(&lw);
			return -ENOMEM;
		}
		cv = ncv;
		t = LLVMGetAllocatedType(i);
		al = LLVMGetAlignment(i);
		if (al < LLVMABIAlignmentOfType(td, t))
			al = LLVMABIAlignmentOfType(td, t);
		cv[n].a = i;
		cv[n].t = t;
		cv[n].align = al;
		cv[n].stride = LLVMABISizeOfType(td, t);
		cv[n].stride = (cv[n].stride + al - 1) / al * al;
		cv[n].chunk = accelc_ctx_chunk(td, i, cv[n].stride);
		bytes += cv[n].stride;
		n++;
	}
	live_walk_free(&lw);
	if (!n || !bytes) {
		*after = start;
		free(cv);
		return 0;
	}
	place(rg, cv, n, bytes, start, after);
	for (size_t k = 0; k < n && !r; k++)
		r = rewrite_uses(rg, &cv[k], &cache);
	ptrmap_free(&cache);
	free(cv);
	return r;
}
