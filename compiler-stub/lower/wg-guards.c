/* SPDX-License-Identifier: MIT */
/*
 * Range guards: "if (get_global_id(0) < n)" and "if (i >= n) return;" in
 * kernels run by a plain loop wrapper (wg-wrappers.c).
 *
 * Hosts round the global size up to a multiple of the group size and
 * guard the tail, so almost every element-wise kernel has such a guard.
 * Left alone, the vectoriser if-converts it into masked loads and stores,
 * which AMD's cores microcode: a guarded vector add ran at a third of the
 * unguarded one's speed. The guard depends linearly on the x loop's
 * counter and compares it with a loop-invariant bound, which is what
 * LLVM's inductive range check elimination (IRCE) splits loops on: a main
 * loop without the check over the work-items where it holds, and small
 * pre- and post-loops that keep it. IRCE only acts on checks profile data
 * calls likely, on their first successor, so the guards get branch
 * weights (the work-items past n are only ever in the last group) and are
 * turned in-range-first.
 *
 * "int i = get_global_id(0); if (i < n)" compares a truncated id, which
 * is not an induction variable of the 64-bit loop. K__wg_id32, a copy of
 * K__wg for launches whose ids stay below 2^31 (accel-wg.h), compares the
 * 64-bit id instead and indexes with it: exact under that contract.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <libaccel/accel-wg.h>

#include "accelc-private.h"
#include "wg-regions.h"

/* Weight of the in-range edge against 1 for the other. */
#define IN_RANGE_WEIGHT 2000u
/* Chains of casts and additions followed from a guard's operands. */
#define MAX_DEPTH 8
/*
 * Larger work-group functions get no 32-bit ids copy: it doubles their
 * optimisation time, and IRCE leaves loops of more than 64 blocks alone.
 */
#define IDS32_MAX_INSTRUCTIONS 2000u

/*
 * The same for every work-item of the group: constants, arguments,
 * values loaded from the wrapper's args and ctx (loads from addresses
 * made of invariants) and arithmetic on those.
 */
static bool invariant(LLVMValueRef v, int depth)
{
	LLVMValueRef inst = LLVMIsAInstruction(v);

	if (LLVMIsAConstant(v) || LLVMIsAArgument(v))
		return true;
	if (!inst || depth > MAX_DEPTH)
		return false;
	switch (LLVMGetInstructionOpcode(inst)) {
	case LLVMLoad:
	case LLVMTrunc:
	case LLVMZExt:
	case LLVMSExt:
	case LLVMAddrSpaceCast:
		return invariant(LLVMGetOperand(inst, 0), depth + 1);
	case LLVMAdd:
	case LLVMSub:
	case LLVMMul:
	case LLVMGetElementPtr:
		for (int i = 0; i < LLVMGetNumOperands(inst); i++)
			if (!invariant(LLVMGetOperand(inst, i), depth + 1))
				return false;
		return true;
	default:
		return false;
	}
}

/* A loop counter from 0 by 1: the x loop's, in K__wg or inlined. */
static bool is_counter(LLVMValueRef v)
{
	LLVMValueRef next;

	if (!LLVMIsAPHINode(v) || LLVMCountIncoming(v) != 2)
		return false;
	for (unsigned i = 0; i < 2; i++) {
		LLVMValueRef in = LLVMGetIncomingValue(v, i);

		if (LLVMIsAConstantInt(in)) {
			if (LLVMConstIntGetZExtValue(in) != 0)
				return false;
			continue;
		}
		next = LLVMIsAInstruction(in);
		if (!next || LLVMGetInstructionOpcode(next) != LLVMAdd ||
		    LLVMGetOperand(next, 0) != v ||
		    !LLVMIsAConstantInt(LLVMGetOperand(next, 1)) ||
		    LLVMConstIntGetZExtValue(LLVMGetOperand(next, 1)) != 1)
			return false;
	}
	return true;
}

/*
 * @v is x + c, or a cast of such, for the x counter @lx (NULL: any loop
 * counter) and invariant c.
 */
static bool follows_x(LLVMValueRef v, LLVMValueRef lx, int depth)
{
	LLVMValueRef inst = LLVMIsAInstruction(v);

	if (lx ? v == lx : is_counter(v))
		return true;
	if (!inst || depth > MAX_DEPTH)
		return false;
	switch (LLVMGetInstructionOpcode(inst)) {
	case LLVMTrunc:
	case LLVMZExt:
	case LLVMSExt:
		return follows_x(LLVMGetOperand(inst, 0), lx, depth + 1);
	case LLVMAdd:
		return (follows_x(LLVMGetOperand(inst, 0), lx, depth + 1) &&
			invariant(LLVMGetOperand(inst, 1), depth + 1)) ||
		       (follows_x(LLVMGetOperand(inst, 1), lx, depth + 1) &&
			invariant(LLVMGetOperand(inst, 0), depth + 1));
	case LLVMSub:
		return follows_x(LLVMGetOperand(inst, 0), lx, depth + 1) &&
		       invariant(LLVMGetOperand(inst, 1), depth + 1);
	default:
		return false;
	}
}

/* @v loads the i64 at byte @off of a ctx argument (accelc_wg_load_ctx). */
static bool ctx_load(LLVMValueRef v, size_t off)
{
	LLVMValueRef p, o;

	if (!LLVMIsALoadInst(v))
		return false;
	p = LLVMGetOperand(v, 0);
	if (!LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2 ||
	    !LLVMIsAArgument(LLVMGetOperand(p, 0)))
		return false;
	o = LLVMGetOperand(p, 1);
	return LLVMIsAConstantInt(o) && LLVMConstIntGetZExtValue(o) == off;
}

/* group_id[d] * enqueued_local_size[d] + global_offset[d] */
static bool group_base(LLVMValueRef v, int d)
{
	LLVMValueRef m;

	if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd)
		return false;
	for (int i = 0; i < 2; i++) {
		m = LLVMGetOperand(v, i);
		if (!ctx_load(LLVMGetOperand(v, 1 - i),
			      offsetof(struct accel_wg_ctx, global_offset[d])) ||
		    !LLVMIsAInstruction(m) ||
		    LLVMGetInstructionOpcode(m) != LLVMMul)
			continue;
		for (int j = 0; j < 2; j++)
			if (ctx_load(LLVMGetOperand(m, j),
				     offsetof(struct accel_wg_ctx,
					      group_id[d])) &&
			    ctx_load(LLVMGetOperand(m, 1 - j),
				     offsetof(struct accel_wg_ctx,
					      enqueued_local_size[d])))
				return true;
	}
	return false;
}

/*
 * @v is a global id as the wrapper computes it (a counter plus its
 * group's base): the only values the 32-bit ids contract bounds.
 */
static bool is_global_id(LLVMValueRef v)
{
	if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd)
		return false;
	for (int i = 0; i < 2; i++)
		for (int d = 0; d < 3; d++)
			if (is_counter(LLVMGetOperand(v, i)) &&
			    group_base(LLVMGetOperand(v, 1 - i), d))
				return true;
	return false;
}

/* @v is a counter's next value (a latch compares it): no guard. */
static bool counter_step(LLVMValueRef v)
{
	LLVMValueRef phi;

	if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd)
		return false;
	phi = LLVMGetOperand(v, 0);
	if (!is_counter(phi))
		return false;
	for (unsigned i = 0; i < LLVMCountIncoming(phi); i++)
		if (LLVMGetIncomingValue(phi, i) == v)
			return true;
	return false;
}

/*
 * For a guard "x-ish <pred> bound" (or swapped): which successor of the
 * branch is the in-range one, 0 or 1; -1 if @cond is no such guard.
 */
static int in_range_successor(LLVMValueRef cond, LLVMValueRef lx)
{
	LLVMValueRef a, b;
	bool less;

	if (!LLVMIsAICmpInst(cond))
		return -1;
	a = LLVMGetOperand(cond, 0);
	b = LLVMGetOperand(cond, 1);
	if (counter_step(a) || counter_step(b))
		return -1;
	switch (LLVMGetICmpPredicate(cond)) {
	case LLVMIntULT:
	case LLVMIntULE:
	case LLVMIntSLT:
	case LLVMIntSLE:
		less = true;
		break;
	case LLVMIntUGT:
	case LLVMIntUGE:
	case LLVMIntSGT:
	case LLVMIntSGE:
		less = false;
		break;
	default:
		return -1;
	}
	if (follows_x(a, lx, 0) && invariant(b, 0))
		return less ? 0 : 1;
	if (follows_x(b, lx, 0) && invariant(a, 0))
		return less ? 1 : 0;
	return -1;
}

static LLVMValueRef weights(struct lower *l, int in_range)
{
	LLVMContextRef c = l->st->ctx;
	LLVMMetadataRef ops[3] = {
		LLVMMDStringInContext2(c, "branch_weights", 14),
		LLVMValueAsMetadata(LLVMConstInt(
			l->i32, in_range == 0 ? IN_RANGE_WEIGHT : 1, 0)),
		LLVMValueAsMetadata(LLVMConstInt(
			l->i32, in_range == 1 ? IN_RANGE_WEIGHT : 1, 0)),
	};

	return LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, ops, 3));
}

static LLVMIntPredicate inverse(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntULT: return LLVMIntUGE;
	case LLVMIntULE: return LLVMIntUGT;
	case LLVMIntUGT: return LLVMIntULE;
	case LLVMIntUGE: return LLVMIntULT;
	case LLVMIntSLT: return LLVMIntSGE;
	case LLVMIntSLE: return LLVMIntSGT;
	case LLVMIntSGT: return LLVMIntSLE;
	case LLVMIntSGE: return LLVMIntSLT;
	default: return p;
	}
}

/*
 * Weight the guards on @lx (NULL: any counter) in @fn; how many. IRCE
 * wants the in-range edge first: "if (i >= n) return;" is turned around.
 */
static unsigned mark_guards(struct lower *l, LLVMValueRef fn, LLVMValueRef lx)
{
	unsigned prof = LLVMGetMDKindIDInContext(l->st->ctx, "prof", 4);
	unsigned n = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef br = LLVMGetBasicBlockTerminator(bb), cond;
		LLVMBasicBlockRef out;
		int in_range;

		if (!br || !LLVMIsABranchInst(br) || !LLVMIsConditional(br))
			continue;
		cond = LLVMGetCondition(br);
		in_range = in_range_successor(cond, lx);
		if (in_range < 0)
			continue;
		if (in_range == 1) {
			LLVMPositionBuilderBefore(l->b, br);
			LLVMSetCondition(
				br, LLVMBuildICmp(
					    l->b,
					    inverse(LLVMGetICmpPredicate(cond)),
					    LLVMGetOperand(cond, 0),
					    LLVMGetOperand(cond, 1), "in.range"));
			out = LLVMGetSuccessor(br, 0);
			LLVMSetSuccessor(br, 0, LLVMGetSuccessor(br, 1));
			LLVMSetSuccessor(br, 1, out);
		}
		LLVMSetMetadata(br, prof, weights(l, 0));
		n++;
	}
	return n;
}

/* The narrow operand of a guard on a 32-bit id: a global id truncated
 * to i32, and its other operand in *@other; NULL if @cond is not one. */
static LLVMValueRef narrow_operand(LLVMValueRef cond, LLVMValueRef *other)
{
	for (int i = 0; i < 2 && LLVMIsAICmpInst(cond); i++) {
		LLVMValueRef v = LLVMGetOperand(cond, i);
		LLVMValueRef o = LLVMGetOperand(cond, 1 - i);

		if (LLVMIsATruncInst(v) &&
		    LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 32 &&
		    LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(v, 0))) ==
			    64 &&
		    is_global_id(LLVMGetOperand(v, 0)) && invariant(o, 0)) {
			*other = o;
			return v;
		}
	}
	return NULL;
}

/* @fn is small enough for a copy and has a guard on a 32-bit id. */
static bool has_narrow_guard(LLVMValueRef fn)
{
	unsigned n = 0;
	bool found = false;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef br = LLVMGetBasicBlockTerminator(bb), other;

		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i))
			n++;
		if (br && LLVMIsABranchInst(br) && LLVMIsConditional(br) &&
		    narrow_operand(LLVMGetCondition(br), &other))
			found = true;
	}
	return found && n <= IDS32_MAX_INSTRUCTIONS;
}

/*
 * Under the 32-bit ids contract every id is below 2^31, so a truncated id
 * extended back (to index memory) is the id itself.
 */
static void widen_indices(LLVMValueRef fn)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef t;

			if (!LLVMIsASExtInst(i) && !LLVMIsAZExtInst(i))
				continue;
			t = LLVMGetOperand(i, 0);
			if (!LLVMIsATruncInst(t) ||
			    LLVMGetIntTypeWidth(LLVMTypeOf(t)) != 32 ||
			    LLVMTypeOf(LLVMGetOperand(t, 0)) != LLVMTypeOf(i) ||
			    !is_global_id(LLVMGetOperand(t, 0)))
				continue;
			LLVMReplaceAllUsesWith(i, LLVMGetOperand(t, 0));
		}
}

/*
 * Under the 32-bit ids contract every id is below 2^31, so a truncated id
 * equals the id as a signed and as an unsigned 32-bit value: compare the
 * 64-bit id with the bound extended as the predicate reads it.
 */
static void widen_guards(struct lower *l, LLVMValueRef fn)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef br = LLVMGetBasicBlockTerminator(bb), cond, t, o;
		LLVMIntPredicate p;
		bool sgn;

		if (!br || !LLVMIsABranchInst(br) || !LLVMIsConditional(br))
			continue;
		cond = LLVMGetCondition(br);
		t = narrow_operand(cond, &o);
		if (!t)
			continue;
		p = LLVMGetICmpPredicate(cond);
		sgn = p == LLVMIntSLT || p == LLVMIntSLE || p == LLVMIntSGT ||
		      p == LLVMIntSGE;
		LLVMPositionBuilderBefore(l->b, cond);
		o = sgn ? LLVMBuildSExt(l->b, o, l->i64, "") :
			  LLVMBuildZExt(l->b, o, l->i64, "");
		LLVMSetCondition(br,
				 LLVMGetOperand(cond, 0) == t ?
					 LLVMBuildICmp(l->b, p,
						       LLVMGetOperand(t, 0), o,
						       "id.guard") :
					 LLVMBuildICmp(l->b, p, o,
						       LLVMGetOperand(t, 0),
						       "id.guard"));
	}
}

char *accelc_variant_name(const struct kernel_desc *k, const char *suffix)
{
	char *name;

	if (asprintf(&name, "%s%s", k->info.wg_symbol, suffix) < 0)
		return NULL;
	return name;
}

int accelc_ids32_variants(struct lower *l, struct wrapper *ws,
			  const bool *plain, bool *made)
{
	LLVMContextRef c = l->st->ctx;
	unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	LLVMTypeRef params[2] = { l->ptr, l->ptr };
	bool any = false;
	int r;

	for (uint32_t i = 0; i < l->st->n_kernels; i++) {
		struct kernel_desc *k = ws[i].k;
		LLVMValueRef fn, a[2];
		char *name;

		made[i] = false;
		if (!plain[i] || !k->wg || !has_narrow_guard(k->wg))
			continue;
		name = accelc_variant_name(k, ACCEL_WG_IDS32_SUFFIX);
		if (!name)
			return -ENOMEM;
		fn = accelc_wg_add_function(l, name, params, 2);
		free(name);
		LLVMPositionBuilderAtEnd(
			l->b, LLVMAppendBasicBlockInContext(c, fn, "entry"));
		a[0] = LLVMGetParam(fn, 0);
		a[1] = LLVMGetParam(fn, 1);
		LLVMBuildCall2(l->b, LLVMGlobalGetValueType(k->wg), k->wg, a, 2,
			       "");
		LLVMBuildRetVoid(l->b);
		LLVMAddAttributeAtIndex(k->wg, LLVMAttributeFunctionIndex,
					LLVMCreateEnumAttribute(c, ai, 0));
		made[i] = any = true;
	}
	if (!any)
		return 0;
	/* a copy of K__wg in each, to rewrite */
	r = accelc_run_passes(l->st, "always-inline");
	for (uint32_t i = 0; i < l->st->n_kernels; i++) {
		char *name;

		if (!made[i])
			continue;
		LLVMRemoveEnumAttributeAtIndex(ws[i].k->wg,
					       LLVMAttributeFunctionIndex, ai);
		name = accelc_variant_name(ws[i].k, ACCEL_WG_IDS32_SUFFIX);
		if (!name)
			return -ENOMEM;
		if (r == 0) {
			LLVMValueRef fn = LLVMGetNamedFunction(l->st->mod, name);

			widen_guards(l, fn);
			widen_indices(fn);
		}
		free(name);
	}
	return r;
}

unsigned accelc_mark_guards(struct lower *l, struct wrapper *ws,
			    const bool *plain, const bool *ids32)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < l->st->n_kernels; i++) {
		char *name;

		if (!plain[i] || !ws[i].x_latch)
			continue;
		n += mark_guards(l, ws[i].fn, ws[i].lid[0]);
		if (!ids32[i])
			continue;
		name = accelc_variant_name(ws[i].k, ACCEL_WG_IDS32_SUFFIX);
		if (name)
			n += mark_guards(l, LLVMGetNamedFunction(l->st->mod,
								 name),
					 NULL);
		free(name);
	}
	return n;
}
