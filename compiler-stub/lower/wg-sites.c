/* SPDX-License-Identifier: MIT */
/*
 * The numbers of a fiber wrapper's sub-group function calls
 * (__accel_sub_group_site(), builtins/sub-group.h): one per call, in
 * reverse post-order of the blocks (back edges aside), so that a call
 * that can run after another on a path without a loop's back edge has
 * the larger number. The fiber runtime lets the non-uniform function of
 * the smaller number go first when the lanes of a sub-group wait at
 * different ones (runtime/fiber.c): the order in which a SIMD machine
 * would run the two sides of a branch before they join.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <llvm-c/Core.h>

#include "accelc-private.h"

struct block_ix {
	LLVMBasicBlockRef bb;
	uint32_t rpo;
	bool seen;
};

static int cmp_bb(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct block_ix *)a)->bb;
	uintptr_t y = (uintptr_t)((const struct block_ix *)b)->bb;

	return x < y ? -1 : x > y;
}

static struct block_ix *find(struct block_ix *ix, size_t n,
			     LLVMBasicBlockRef bb)
{
	struct block_ix key = { .bb = bb };

	return bsearch(&key, ix, n, sizeof(*ix), cmp_bb);
}

/* Reverse post-order numbers of @p fn's @p n blocks (sorted by address
 * in @p ix), by an iterative depth-first walk from the entry. */
static int number_blocks(LLVMValueRef fn, struct block_ix *ix, size_t n)
{
	struct frame {
		struct block_ix *b;
		unsigned next;
	} *stack = malloc(n * sizeof(*stack));
	size_t depth = 0;
	uint32_t post = 0;

	if (!stack)
		return -ENOMEM;
	stack[depth].b = find(ix, n, LLVMGetEntryBasicBlock(fn));
	stack[depth++].next = 0;
	stack[0].b->seen = true;
	while (depth) {
		struct frame *f = &stack[depth - 1];
		LLVMValueRef term = LLVMGetBasicBlockTerminator(f->b->bb);
		unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;

		if (f->next < ns) {
			struct block_ix *s =
				find(ix, n, LLVMGetSuccessor(term, f->next++));

			if (s && !s->seen) {
				s->seen = true;
				stack[depth].b = s;
				stack[depth++].next = 0;
			}
			continue;
		}
		f->b->rpo = (uint32_t)(n - 1 - post++);
		depth--;
	}
	free(stack);
	return 0;
}

struct site {
	LLVMValueRef call;
	uint32_t rpo, order;
};

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->rpo != y->rpo)
		return x->rpo < y->rpo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int accelc_number_sg_sites(struct wrapper *w, LLVMValueRef *calls,
			   size_t n_calls)
{
	size_t nb = LLVMCountBasicBlocks(w->fn), i = 0;
	struct block_ix *ix;
	struct site *sites;
	int r;

	if (!n_calls)
		return 0;
	ix = calloc(nb, sizeof(*ix));
	sites = calloc(n_calls, sizeof(*sites));
	if (!ix || !sites) {
		free(ix);
		free(sites);
		return -ENOMEM;
	}
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		ix[i++].bb = bb;
	qsort(ix, nb, sizeof(*ix), cmp_bb);
	r = number_blocks(w->fn, ix, nb);
	for (size_t k = 0; !r && k < n_calls; k++) {
		struct block_ix *b =
			find(ix, nb, LLVMGetInstructionParent(calls[k]));

		sites[k].call = calls[k];
		/* unreachable blocks (not walked) after all the others */
		sites[k].rpo = b && b->seen ? b->rpo : UINT32_MAX;
		sites[k].order = (uint32_t)k;
	}
	if (!r) {
		qsort(sites, n_calls, sizeof(*sites), cmp_site);
		for (size_t k = 0; k < n_calls; k++) {
			LLVMValueRef c = sites[k].call;
			LLVMValueRef v = LLVMConstInt(LLVMTypeOf(c), k + 1, 0);

			LLVMReplaceAllUsesWith(c, v);
			LLVMInstructionEraseFromParent(c);
		}
	}
	free(ix);
	free(sites);
	return r;
}
