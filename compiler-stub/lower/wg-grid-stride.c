/* SPDX-License-Identifier: MIT */
/*
 * Grid-stride loops, for (j = lid + u; j < n; j += s) with n, s and u
 * uniform (the row loops of softmax and layer norm, one work-group per
 * row), run a count of their own in each work-item, so their exit is
 * not uniform. They are rewritten to count with a uniform b from 0,
 * j = init + b, while init0 + b < n (init0: init at local id 0, the
 * smallest), the body skipped where j >= n: the same iterations in each
 * work-item, now uniform. Their barrier then makes j contiguous across
 * work-items (instead of s apart in one work-item's loop), which pays
 * with or without a float to accumulate, and in kernels with barriers
 * of their own too.
 *
 * For wg-implicit.c, which finds the loops, checks the rest (uniform
 * entry, a contiguous access, what the body calls) and adds the barrier.
 */
#include <stdint.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-implicit.h"

static bool is_lid(LLVMValueRef f)
{
	size_t len;
	const char *n;

	if (!f || !LLVMIsAFunction(f))
		return false;
	n = LLVMGetValueName2(f, &len);
	return len == 17 && !memcmp(n, "_Z12get_local_idj", 17);
}

/* The local x id, narrowed or widened (no wrap: it is below 2^31). */
static bool lid_x(LLVMValueRef v, int depth)
{
	if (depth > 4 || !LLVMIsAInstruction(v))
		return false;
	if (LLVMIsACallInst(v))
		return is_lid(LLVMGetCalledValue(v)) &&
		       LLVMIsAConstantInt(LLVMGetOperand(v, 0)) &&
		       !LLVMConstIntGetZExtValue(LLVMGetOperand(v, 0));
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMSExt: case LLVMZExt: case LLVMTrunc:
		return lid_x(LLVMGetOperand(v, 0), depth + 1);
	default:
		return false;
	}
}

/*
 * Does @p v step by one with the local x id (and depend on no other)?
 * Only what keeps the order of the ids, so that local id 0 has the
 * smallest: the id, plus or minus uniform values (which a valid program
 * does not overflow), sign-extended. A narrowed or zero-extended sum
 * could wrap between work-items.
 */
static bool lid_consecutive(struct fcfg *g, LLVMValueRef v, int depth)
{
	if (depth > 12 || !LLVMIsAInstruction(v))
		return false;
	if (lid_x(v, 0))
		return true;
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMSExt:
		return lid_consecutive(g, LLVMGetOperand(v, 0), depth + 1);
	case LLVMAdd:
		return (lid_consecutive(g, LLVMGetOperand(v, 0), depth + 1) &&
			accelc_fcfg_uniform(g, LLVMGetOperand(v, 1))) ||
		       (lid_consecutive(g, LLVMGetOperand(v, 1), depth + 1) &&
			accelc_fcfg_uniform(g, LLVMGetOperand(v, 0)));
	case LLVMSub:
		return lid_consecutive(g, LLVMGetOperand(v, 0), depth + 1) &&
		       accelc_fcfg_uniform(g, LLVMGetOperand(v, 1));
	default:
		return false;
	}
}

static bool in_loop(struct fcfg *g, LLVMValueRef v)
{
	return LLVMIsAInstruction(v) &&
	       g->in[accelc_fcfg_block(g, LLVMGetInstructionParent(v))];
}

/* Is every user of @p v one of @p ok (or, if @p body, in the loop but
 * not its header)? */
static bool users_ok(struct fcfg *g, LLVMValueRef v, LLVMValueRef ok0,
		     LLVMValueRef ok1, bool body)
{
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (user == ok0 || user == ok1)
			continue;
		if (!body || !in_loop(g, user) ||
		    LLVMGetInstructionParent(user) == g->header)
			return false;
	}
	return true;
}

/* g->header heads for (j = init; j < bound; j += step), the rest as the
 * rewrite needs it: the only exit in the header, nothing but pure
 * arithmetic there, j used in the body only. */
bool accelc_stride_find(struct fcfg *g, struct stride *s)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(g->header), c, a, b;
	size_t h = accelc_fcfg_block(g, g->header), n;

	if (LLVMGetInstructionOpcode(t) != LLVMBr || !LLVMIsConditional(t))
		return false;
	c = LLVMGetCondition(t);
	if (!LLVMIsAICmpInst(c) || LLVMGetInstructionParent(c) != g->header)
		return false;
	a = LLVMGetOperand(c, 0);
	b = LLVMGetOperand(c, 1);
	if (LLVMGetICmpPredicate(c) == LLVMIntSGT) {
		LLVMValueRef x = a;

		a = b;
		b = x;
	} else if (LLVMGetICmpPredicate(c) != LLVMIntSLT) {
		return false;
	}
	s->cmp = c;
	s->phi = a;
	s->bound = b;
	s->body = LLVMGetSuccessor(t, 0);
	if (!LLVMIsAPHINode(a) || LLVMGetInstructionParent(a) != g->header ||
	    LLVMCountIncoming(a) != 2 || !g->in[accelc_fcfg_block(g, s->body)] ||
	    g->in[accelc_fcfg_block(g, LLVMGetSuccessor(t, 1))] || s->body == g->header ||
	    g->pred_off[h + 1] - g->pred_off[h] != 2)
		return false;
	n = accelc_fcfg_block(g, s->body);
	if (g->pred_off[n + 1] - g->pred_off[n] != 1 ||
	    LLVMIsAPHINode(LLVMGetFirstInstruction(s->body)))
		return false;
	s->pre = s->latch = NULL;
	for (unsigned k = 0; k < 2; k++) {
		LLVMBasicBlockRef from = LLVMGetIncomingBlock(a, k);

		if (g->in[accelc_fcfg_block(g, from)]) {
			s->latch = from;
			s->next = LLVMGetIncomingValue(a, k);
		} else {
			s->pre = from;
			s->init = LLVMGetIncomingValue(a, k);
		}
	}
	if (!s->pre || !s->latch || !LLVMIsAInstruction(s->next) ||
	    LLVMGetInstructionOpcode(s->next) != LLVMAdd)
		return false;
	if (LLVMGetOperand(s->next, 0) == a)
		s->step = LLVMGetOperand(s->next, 1);
	else if (LLVMGetOperand(s->next, 1) == a)
		s->step = LLVMGetOperand(s->next, 0);
	else
		return false;
	/* a step of 0 or less would loop for ever in both forms */
	if (in_loop(g, s->step) || in_loop(g, b) ||
	    !accelc_fcfg_uniform(g, s->step) || !accelc_fcfg_uniform(g, b) ||
	    !lid_consecutive(g, s->init, 0) ||
	    !users_ok(g, c, t, NULL, false) ||
	    !users_ok(g, s->next, a, NULL, false) ||
	    !users_ok(g, a, c, s->next, true))
		return false;
	for (LLVMValueRef i = LLVMGetFirstInstruction(g->header); i != t;
	     i = LLVMGetNextInstruction(i))
		if (!LLVMIsAPHINode(i) && !accelc_regions_pure(i))
			return false;
	for (size_t k = 0; k < g->n; k++) {
		LLVMValueRef kt = LLVMGetBasicBlockTerminator(g->bb[k]);

		if (!g->in[k] || k == h)
			continue;
		for (unsigned o = 0; o < LLVMGetNumSuccessors(kt); o++)
			if (!g->in[accelc_fcfg_block(g, LLVMGetSuccessor(kt, o))])
				return false;
	}
	return true;
}

/* @p v with the local x id 0 (init0), built before @p at. */
static LLVMValueRef at_lid0(struct lower *l, LLVMValueRef v,
			    LLVMValueRef at, int depth)
{
	LLVMValueRef c, ops[2];
	bool changed = false;
	int n;

	if (!LLVMIsAInstruction(v) || depth > 12)
		return v;
	if (LLVMIsACallInst(v))
		return is_lid(LLVMGetCalledValue(v)) ?
			       LLVMConstNull(LLVMTypeOf(v)) : v;
	/* the id's path (lid_consecutive's): casts, add, sub */
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMSExt: case LLVMZExt: case LLVMTrunc: case LLVMAdd:
	case LLVMSub:
		break;
	default:
		return v;
	}
	n = LLVMGetNumOperands(v);
	for (int o = 0; o < n; o++) {
		ops[o] = at_lid0(l, LLVMGetOperand(v, o), at, depth + 1);
		changed |= ops[o] != LLVMGetOperand(v, o);
	}
	if (!changed)
		return v;
	c = LLVMInstructionClone(v);
	for (int o = 0; o < n; o++)
		LLVMSetOperand(c, (unsigned)o, ops[o]);
	LLVMPositionBuilderBefore(l->b, at);
	LLVMInsertIntoBuilder(l->b, c);
	return c;
}

/* a + b < bound, in 64 bits: a + b may pass the bound's type where
 * the loop as written never computed it (at the builder's position) */
static LLVMValueRef below(struct lower *l, LLVMValueRef a, LLVMValueRef b,
			  LLVMValueRef bound, const char *name)
{
	LLVMValueRef v = LLVMBuildAdd(l->b, LLVMBuildSExt(l->b, a, l->i64, ""),
				      LLVMBuildSExt(l->b, b, l->i64, ""), "");

	return LLVMBuildICmp(l->b, LLVMIntSLT, v,
			     LLVMBuildSExt(l->b, bound, l->i64, ""), name);
}

/* get_local_size(0) - 1 (at the builder's position) */
static LLVMValueRef last_lid(struct lower *l)
{
	LLVMTypeRef ft = LLVMFunctionType(l->i64, &l->i32, 1, 0);
	LLVMValueRef f = LLVMGetNamedFunction(l->st->mod,
					      "_Z14get_local_sizej");
	LLVMValueRef x = LLVMConstInt(l->i32, 0, 0);

	if (!f)
		f = LLVMAddFunction(l->st->mod, "_Z14get_local_sizej", ft);
	return LLVMBuildSub(l->b, LLVMBuildCall2(l->b, ft, f, &x, 1, ""),
			    LLVMConstInt(l->i64, 1, 0), "");
}

static LLVMValueRef phi2(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef v0,
			 LLVMBasicBlockRef b0, LLVMValueRef v1,
			 LLVMBasicBlockRef b1, const char *name)
{
	LLVMValueRef p = LLVMBuildPhi(b, t, name);
	LLVMValueRef v[2] = { v0, v1 };
	LLVMBasicBlockRef from[2] = { b0, b1 };

	LLVMAddIncoming(p, v, from, v1 ? 2 : 1);
	return p;
}

/*
 * The rewrite:
 *
 *   header: b = phi(0, b + step), exit unless init0 + b < bound
 *   stride (first in the body): j = init + b; to the body if the
 *           group's last x id is inside (init0 + b + lsx - 1 < bound),
 *           else to
 *   guard:  to the body if j < bound, else to skip
 *   latch, skip -> next: the header's phis merged (as they were from
 *           the latch, unchanged from skip), b + step; to the header
 *
 * The tests run in 64 bits. One block steps b, run by every work-item
 * alike, so b is a uniform variable (wg-uniform.c), not a context
 * array. Where the whole group is inside, nothing is tested per
 * work-item: LLVM unswitches the work-item loop on that uniform test,
 * so targets without masked loads vectorise all but the last
 * iteration. Returns the block for the barrier; *@p ret_base: b,
 * *@p ret_join: guard, the block testing j.
 */
LLVMBasicBlockRef accelc_stride_rewrite(struct lower *l, struct fcfg *g,
					struct stride *s, LLVMValueRef *ret_base,
					LLVMBasicBlockRef *ret_join)
{
	LLVMContextRef ctx = l->st->ctx;
	LLVMBuilderRef bld = l->b;
	LLVMValueRef fn = LLVMGetBasicBlockParent(g->header);
	LLVMValueRef t = LLVMGetBasicBlockTerminator(g->header);
	LLVMValueRef lt = LLVMGetBasicBlockTerminator(s->latch);
	LLVMTypeRef ty = LLVMTypeOf(s->phi);
	LLVMBasicBlockRef bar, guard, skip, next;
	LLVMValueRef init0, base, step, j, c, p, nextp, q, p2;

	init0 = at_lid0(l, s->init, LLVMGetBasicBlockTerminator(s->pre), 0);
	bar = LLVMInsertBasicBlockInContext(ctx, s->body, "stride");
	guard = LLVMInsertBasicBlockInContext(ctx, s->body, "stride.guard");
	skip = LLVMAppendBasicBlockInContext(ctx, fn, "stride.skip");
	next = LLVMAppendBasicBlockInContext(ctx, fn, "stride.next");
	for (unsigned k = 0; k < LLVMGetNumSuccessors(lt); k++)
		if (LLVMGetSuccessor(lt, k) == g->header)
			LLVMSetSuccessor(lt, k, next);
	LLVMPositionBuilderAtEnd(bld, skip);
	LLVMBuildBr(bld, next);

	/* the header's phis through next; j's goes below */
	for (p = LLVMGetFirstInstruction(g->header); LLVMIsAPHINode(p);
	     p = nextp) {
		LLVMValueRef pre_v = NULL, latch_v = NULL;

		nextp = LLVMGetNextInstruction(p);
		if (p == s->phi)
			continue;
		for (unsigned k = 0; k < 2; k++)
			if (LLVMGetIncomingBlock(p, k) == s->pre)
				pre_v = LLVMGetIncomingValue(p, k);
			else
				latch_v = LLVMGetIncomingValue(p, k);
		LLVMPositionBuilderBefore(bld, p);
		p2 = phi2(bld, LLVMTypeOf(p), pre_v, s->pre, NULL, NULL, "");
		LLVMPositionBuilderAtEnd(bld, next);
		q = phi2(bld, LLVMTypeOf(p), latch_v, s->latch, p2, skip, "");
		LLVMAddIncoming(p2, &q, &next, 1);
		LLVMReplaceAllUsesWith(p, p2);
		LLVMInstructionEraseFromParent(p);
	}
	LLVMPositionBuilderBefore(bld, LLVMGetFirstInstruction(g->header));
	base = phi2(bld, ty, LLVMConstNull(ty), s->pre, NULL, NULL, "stride.b");
	LLVMPositionBuilderAtEnd(bld, next);
	step = LLVMBuildAdd(bld, base, s->step, "");
	LLVMAddIncoming(base, &step, &next, 1);
	LLVMBuildBr(bld, g->header);

	/* the uniform exit */
	LLVMPositionBuilderBefore(bld, t);
	LLVMSetCondition(t, below(l, init0, base, s->bound, "stride.more"));
	LLVMSetSuccessor(t, 0, bar);

	/* each work-item's own j, tested only in a partial iteration */
	LLVMPositionBuilderAtEnd(bld, bar);
	j = LLVMBuildAdd(bld, s->init, base, "stride.j");
	c = LLVMBuildAdd(bld, LLVMBuildSExt(bld, init0, l->i64, ""),
			 last_lid(l), "");
	LLVMBuildCondBr(bld, below(l, c, base, s->bound, "stride.full"),
			s->body, guard);
	LLVMPositionBuilderAtEnd(bld, guard);
	LLVMBuildCondBr(bld, below(l, s->init, base, s->bound, "stride.in"),
			s->body, skip);

	/* j's old counter goes */
	LLVMInstructionEraseFromParent(s->cmp);
	LLVMReplaceAllUsesWith(s->next, LLVMGetUndef(ty));
	LLVMInstructionEraseFromParent(s->next);
	LLVMReplaceAllUsesWith(s->phi, j);
	LLVMInstructionEraseFromParent(s->phi);
	*ret_base = base;
	*ret_join = guard;
	return bar;
}

