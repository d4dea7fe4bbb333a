/* SPDX-License-Identifier: MIT */
/*
 * Shorter work-item loops for regions that start with "if (lid < s)",
 * s uniform, as a tree reduction's steps do: work-items from s on take
 * the other side, and if that side does nothing but what every
 * work-item does alike (loads, arithmetic, stores to the shared uniform
 * variables) before the region ends, only the first max(1, min(ls, s))
 * work-items of each x row need to run. The branch stays (work-item 0
 * may still be on the other side when s is 0), but the vectorised loop
 * no longer walks the whole group behind a mask in every step.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

/* The x local id, maybe widened or narrowed to no less than 32 bits
 * (groups are far smaller)? */
static bool is_lid_x(struct regions *rg, LLVMValueRef v)
{
	for (int d = 0; d < 4 && LLVMIsACastInst(v); d++) {
		if (!(LLVMIsAZExtInst(v) || LLVMIsASExtInst(v) ||
		      (LLVMIsATruncInst(v) &&
		       LLVMGetIntTypeWidth(LLVMTypeOf(v)) >= 32)))
			return false;
		v = LLVMGetOperand(v, 0);
	}
	return LLVMIsALoadInst(v) && LLVMGetOperand(v, 0) == rg->cur[0];
}

/* @p v's value at the region's start, built in the pre-header: a
 * prologue value or a uniform variable, through casts. */
static LLVMValueRef bound_value(struct regions *rg, LLVMValueRef v,
				LLVMValueRef *start, int depth)
{
	LLVMBuilderRef b = rg->l->b;
	LLVMValueRef o;

	if (!LLVMIsAInstruction(v))
		return LLVMIsAConstantInt(v) ? v : NULL;
	if (LLVMGetInstructionParent(v) == rg->prologue)
		return LLVMIsAAllocaInst(v) ? NULL : v;
	if (LLVMIsALoadInst(v)) {
		for (size_t k = 0; k < rg->n_uniform; k++)
			if (LLVMGetOperand(v, 0) == rg->uniform[k])
				return start[k];
		return NULL;
	}
	if (depth > 4 || !(LLVMIsAZExtInst(v) || LLVMIsASExtInst(v) ||
			   LLVMIsATruncInst(v)))
		return NULL;
	o = bound_value(rg, LLVMGetOperand(v, 0), start, depth + 1);
	if (!o)
		return NULL;
	return LLVMBuildCast(b, LLVMGetInstructionOpcode(v), o,
			     LLVMTypeOf(v), "");
}

static bool uniform_store(struct regions *rg, LLVMValueRef i)
{
	LLVMValueRef p = LLVMGetOperand(i, 1);

	for (size_t k = 0; k < rg->n_uniform; k++)
		if (p == rg->uniform[k])
			return true;
	return false;
}

/* Does the region run nothing per work-item from @p from on, and never
 * come back to @p start? */
static bool quiet_from(struct regions *rg, size_t g, LLVMBasicBlockRef from,
		       LLVMBasicBlockRef start)
{
	size_t nb = rg->nblocks, sp = 0;
	const uint8_t *in = rg->in + g * nb;
	uint8_t *seen = calloc(nb, 1);
	size_t *stack = malloc(nb * sizeof(*stack));
	bool ok = seen && stack;
	size_t f = (size_t)(uintptr_t)ptrmap_get(&rg->bidx, from) - 1;

	if (ok && in[f]) {
		seen[f] = 1;
		stack[sp++] = f;
	}
	while (ok && sp) {
		LLVMBasicBlockRef bb = rg->blocks[stack[--sp]];
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);

		if (bb == start) {
			ok = false;
			break;
		}
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); ok && i;
		     i = LLVMGetNextInstruction(i))
			ok = LLVMIsATerminatorInst(i) || LLVMIsALoadInst(i) ||
			     accelc_regions_pure(i) ||
			     (LLVMIsAStoreInst(i) && uniform_store(rg, i));
		for (unsigned s = 0; ok && s < LLVMGetNumSuccessors(t); s++) {
			size_t x = (size_t)(uintptr_t)ptrmap_get(
				&rg->bidx, LLVMGetSuccessor(t, s)) - 1;

			/* a barrier block (not in the region) ends it */
			if (!in[x] || seen[x])
				continue;
			seen[x] = 1;
			stack[sp++] = x;
		}
	}
	free(seen);
	free(stack);
	return ok;
}

LLVMValueRef accelc_regions_x_bound(struct regions *rg, size_t g,
				    LLVMValueRef *start)
{
	struct lower *l = rg->l;
	LLVMBasicBlockRef r0 = g ? rg->cont[g - 1] : rg->body, other;
	LLVMValueRef t = LLVMGetBasicBlockTerminator(r0), c, u, one, lo;
	LLVMIntPredicate p;
	bool swap;

	if (LLVMGetInstructionOpcode(t) != LLVMBr || !LLVMIsConditional(t) ||
	    !LLVMIsAICmpInst(c = LLVMGetCondition(t)))
		return NULL;
	/* nothing before the test but loads and arithmetic */
	for (LLVMValueRef i = LLVMGetFirstInstruction(r0); i != t;
	     i = LLVMGetNextInstruction(i))
		if (!LLVMIsALoadInst(i) && !accelc_regions_pure(i))
			return NULL;
	p = LLVMGetICmpPredicate(c);
	swap = p == LLVMIntUGT || p == LLVMIntSGT;
	if (!swap && p != LLVMIntULT && p != LLVMIntSLT)
		return NULL;
	if (!is_lid_x(rg, LLVMGetOperand(c, swap)))
		return NULL;
	other = LLVMGetSuccessor(t, 1);
	if (other == LLVMGetSuccessor(t, 0) || !quiet_from(rg, g, other, r0))
		return NULL;
	u = bound_value(rg, LLVMGetOperand(c, !swap), start, 0);
	if (!u)
		return NULL;
	/* to i64 as the comparison reads it, then max(1, min(ls, u)) */
	if (LLVMGetIntTypeWidth(LLVMTypeOf(u)) < 64)
		u = p == LLVMIntSLT || p == LLVMIntSGT ?
			LLVMBuildSExt(l->b, u, l->i64, "") :
			LLVMBuildZExt(l->b, u, l->i64, "");
	else if (LLVMGetIntTypeWidth(LLVMTypeOf(u)) > 64)
		return NULL;
	one = LLVMConstInt(l->i64, 1, 0);
	lo = LLVMBuildICmp(l->b, p == LLVMIntSLT || p == LLVMIntSGT ?
			   LLVMIntSLT : LLVMIntULT, u, one, "");
	u = LLVMBuildSelect(l->b, lo, one, u, "");
	return LLVMBuildSelect(l->b,
			       LLVMBuildICmp(l->b, LLVMIntULT, u, rg->w->ls[0],
					     ""),
			       u, rg->w->ls[0], "x.bound");
}
