/* SPDX-License-Identifier: MIT */
/*
 * Values across barriers, for wg-regions.c, before the kernel's blocks
 * are copied into per-region work-item loops: no SSA value may cross a
 * block (a copy of the user may sit in another region than its
 * definition), so such values and all phis go through allocas, as LLVM's
 * reg2mem does; wg-context.c then decides which allocas become context
 * arrays. Uniform values (computed from arguments and launch geometry
 * only) are moved into the prologue first so that they need none, and
 * values computed from the local ids and uniform values only are computed
 * again where they are used.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

static LLVMValueRef prologue_alloca(struct regions *rg, LLVMTypeRef t,
				    const char *name)
{
	LLVMPositionBuilderBefore(rg->l->b,
				  LLVMGetBasicBlockTerminator(rg->prologue));
	return LLVMBuildAlloca(rg->l->b, t, name);
}

size_t accelc_regions_users(LLVMValueRef v, LLVMValueRef **ret)
{
	size_t n = 0;
	LLVMValueRef *u = NULL;

	for (LLVMUseRef use = LLVMGetFirstUse(v); use;
	     use = LLVMGetNextUse(use)) {
		LLVMValueRef user = LLVMGetUser(use), *nu;
		size_t i;

		for (i = 0; i < n && u[i] != user; i++)
			;
		if (i < n)
			continue;
		nu = realloc(u, (n + 1) * sizeof(*u));
		if (!nu) {
			free(u);
			*ret = NULL;
			return SIZE_MAX;
		}
		u = nu;
		u[n++] = user;
	}
	*ret = u;
	return n;
}

void accelc_regions_set_operands(LLVMValueRef user, LLVMValueRef from,
				 LLVMValueRef to)
{
	for (int o = 0; o < LLVMGetNumOperands(user); o++)
		if (LLVMGetOperand(user, o) == from)
			LLVMSetOperand(user, o, to);
}

/* Before @p user, or, for a phi, at the end of the incoming block. */
static void position_for_use(LLVMBuilderRef b, LLVMValueRef user,
			     unsigned incoming)
{
	if (LLVMIsAPHINode(user))
		LLVMPositionBuilderBefore(
			b, LLVMGetBasicBlockTerminator(
				   LLVMGetIncomingBlock(user, incoming)));
	else
		LLVMPositionBuilderBefore(b, user);
}

/* Lifetime markers name whole objects: on a work-item's slot of a
 * context array they would kill everyone's. */
static void drop_lifetimes(struct regions *rg)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(rg->fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i;
		     i = next) {
			next = LLVMGetNextInstruction(i);
			if (accelc_calls(i, "llvm.lifetime."))
				LLVMInstructionEraseFromParent(i);
		}
}

/*
 * The builtins saw placeholders for the local id; each use becomes a
 * load of the id the region loop stores, so that it is right in every
 * copy.
 */
int accelc_regions_rehome_ids(struct regions *rg)
{
	struct lower *l = rg->l;
	LLVMValueRef callee = NULL;

	drop_lifetimes(rg);

	rg->next = prologue_alloca(rg, l->i32, "next");
	for (int d = 0; d < 3; d++) {
		LLVMValueRef *u;
		size_t n;

		rg->cur[d] = prologue_alloca(rg, l->i64, "lid");
		n = accelc_regions_users(rg->ph[d], &u);
		if (n == SIZE_MAX)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			unsigned no = LLVMIsAPHINode(u[i]) ?
				LLVMCountIncoming(u[i]) : 1;

			for (unsigned k = 0; k < no; k++) {
				LLVMValueRef v;

				if (LLVMIsAPHINode(u[i]) &&
				    LLVMGetIncomingValue(u[i], k) != rg->ph[d])
					continue;
				position_for_use(l->b, u[i], k);
				v = LLVMBuildLoad2(l->b, l->i64, rg->cur[d],
						   "lid");
				if (LLVMIsAPHINode(u[i]))
					LLVMSetOperand(u[i], k, v);
				else
					accelc_regions_set_operands(u[i], rg->ph[d], v);
			}
		}
		free(u);
		callee = LLVMGetCalledValue(rg->ph[d]);
		LLVMInstructionEraseFromParent(rg->ph[d]);
		rg->ph[d] = NULL;
	}
	if (callee && !LLVMGetFirstUse(callee))
		LLVMDeleteFunction(callee);
	return 0;
}

static bool is_uniform(struct regions *rg, LLVMValueRef v)
{
	/* allocas are private: one per work-item */
	return !LLVMIsAInstruction(v) ||
	       (LLVMGetInstructionParent(v) == rg->prologue &&
		!LLVMIsAAllocaInst(v));
}

/* Side-effect free and safe to run whether or not the kernel would. */
bool accelc_regions_pure(LLVMValueRef i)
{
	LLVMValueRef d;

	switch (LLVMGetInstructionOpcode(i)) {
	case LLVMAdd: case LLVMFAdd: case LLVMSub: case LLVMFSub:
	case LLVMMul: case LLVMFMul: case LLVMFDiv: case LLVMFRem:
	case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd:
	case LLVMOr: case LLVMXor: case LLVMFNeg:
	case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI:
	case LLVMFPToSI: case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc:
	case LLVMFPExt: case LLVMPtrToInt: case LLVMIntToPtr:
	case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMGetElementPtr:
	case LLVMICmp: case LLVMFCmp: case LLVMSelect:
	case LLVMExtractElement: case LLVMInsertElement:
	case LLVMShuffleVector: case LLVMExtractValue: case LLVMInsertValue:
	case LLVMFreeze:
		return true;
	case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
		/* no trap: a constant divisor other than 0 and -1 */
		d = LLVMGetOperand(i, 1);
		return LLVMIsAConstantInt(d) && LLVMConstIntGetZExtValue(d) &&
		       LLVMConstIntGetSExtValue(d) != -1;
	default:
		return false;
	}
}

void accelc_regions_hoist_uniform(struct regions *rg)
{
	LLVMBuilderRef b = rg->l->b;
	bool moved = true;

	for (int pass = 0; moved && pass < 8; pass++) {
		moved = false;
		for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(rg->prologue);
		     bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next;
			     i; i = next) {
				bool ok = accelc_regions_pure(i);

				next = LLVMGetNextInstruction(i);
				for (int o = 0; ok && o < LLVMGetNumOperands(i);
				     o++)
					ok = is_uniform(rg,
							LLVMGetOperand(i, o));
				if (!ok)
					continue;
				LLVMInstructionRemoveFromParent(i);
				LLVMPositionBuilderBefore(
					b, LLVMGetBasicBlockTerminator(
						   rg->prologue));
				LLVMInsertIntoBuilder(b, i);
				moved = true;
			}
	}
}

static int demote_phi(struct regions *rg, LLVMValueRef phi)
{
	LLVMBuilderRef b = rg->l->b;
	LLVMTypeRef t = LLVMTypeOf(phi);
	LLVMValueRef a = prologue_alloca(rg, t, "phi"), v, i;
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(phi);

	for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
		position_for_use(b, phi, k);
		LLVMBuildStore(b, LLVMGetIncomingValue(phi, k), a);
	}
	for (i = LLVMGetFirstInstruction(bb); LLVMIsAPHINode(i);
	     i = LLVMGetNextInstruction(i))
		;
	LLVMPositionBuilderBefore(b, i);
	v = LLVMBuildLoad2(b, t, a, "");
	LLVMReplaceAllUsesWith(phi, v);
	LLVMInstructionEraseFromParent(phi);
	return 0;
}

/* @p v is used outside its block: store it once, load it there. */
static int demote_value(struct regions *rg, LLVMValueRef v)
{
	LLVMBuilderRef b = rg->l->b;
	LLVMTypeRef t = LLVMTypeOf(v);
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
	LLVMValueRef a, *u;
	size_t n = accelc_regions_users(v, &u);

	if (n == SIZE_MAX)
		return -ENOMEM;
	a = prologue_alloca(rg, t, "val");
	LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(v));
	LLVMBuildStore(b, v, a);
	for (size_t k = 0; k < n; k++) {
		if (LLVMGetInstructionParent(u[k]) == bb)
			continue;
		LLVMPositionBuilderBefore(b, u[k]);
		accelc_regions_set_operands(u[k], v, LLVMBuildLoad2(b, t, a, ""));
	}
	free(u);
	return 0;
}

/*
 * Values computed from the local ids and uniform values only (the
 * row and column of a tiled kernel) are cheaper to compute again where
 * they are used than to keep per work-item, and the vectoriser then
 * sees them step with the work-item loop instead of loading them.
 */
#define REMAT_MAX 16

static bool is_lid_load(struct regions *rg, LLVMValueRef v)
{
	LLVMValueRef p;

	if (!LLVMIsALoadInst(v))
		return false;
	p = LLVMGetOperand(v, 0);
	return p == rg->cur[0] || p == rg->cur[1] || p == rg->cur[2];
}

/* Does @p v depend on the local x id (the work-item loop that is
 * vectorised)? */
static bool uses_x(struct regions *rg, LLVMValueRef v, int depth)
{
	if (!LLVMIsAInstruction(v) || is_uniform(rg, v))
		return false;
	if (LLVMIsALoadInst(v))
		return LLVMGetOperand(v, 0) == rg->cur[0];
	if (depth > REMAT_MAX)
		return true;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (uses_x(rg, LLVMGetOperand(v, o), depth + 1))
			return true;
	return false;
}

/*
 * Pure, or a division: computed again only where the first computation
 * dominates, with the same operands, so it traps nowhere it did not; but
 * not of the x id, which would divide in every vector lane (x86 has no
 * vector division), where a context array costs one load.
 */
static bool remat_op(struct regions *rg, LLVMValueRef v)
{
	if (accelc_int_division(v))
		return !uses_x(rg, v, 0);
	return accelc_regions_pure(v);
}

/* Instructions in @p v's tree, or more than @p budget if it is not one. */
static int remat_cost(struct regions *rg, LLVMValueRef v, int budget)
{
	int n = 1;

	if (is_uniform(rg, v))
		return 0;
	if (is_lid_load(rg, v))
		return 1;
	if (LLVMIsAPHINode(v) || !remat_op(rg, v))
		return budget + 1;
	for (int o = 0; o < LLVMGetNumOperands(v) && n <= budget; o++)
		n += remat_cost(rg, LLVMGetOperand(v, o), budget - n);
	return n;
}

static LLVMValueRef remat_clone(struct regions *rg, LLVMValueRef v)
{
	LLVMValueRef c;

	if (is_uniform(rg, v))
		return v;
	c = LLVMInstructionClone(v);
	for (int o = 0; !is_lid_load(rg, v) && o < LLVMGetNumOperands(v); o++)
		LLVMSetOperand(c, o, remat_clone(rg, LLVMGetOperand(v, o)));
	LLVMInsertIntoBuilder(rg->l->b, c);
	return c;
}

/* @p v is used outside its block: compute it again there, if cheap. */
static bool rematerialise(struct regions *rg, LLVMValueRef v)
{
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
	LLVMValueRef *u;
	size_t n;

	if (LLVMIsAPHINode(v) || remat_cost(rg, v, REMAT_MAX) > REMAT_MAX)
		return false;
	n = accelc_regions_users(v, &u);
	if (n == SIZE_MAX)
		return false;
	for (size_t k = 0; k < n; k++) {
		if (LLVMGetInstructionParent(u[k]) == bb)
			continue;
		LLVMPositionBuilderBefore(rg->l->b, u[k]);
		accelc_regions_set_operands(u[k], v, remat_clone(rg, v));
	}
	free(u);
	return true;
}

static bool crosses(LLVMValueRef v)
{
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);

	for (LLVMUseRef use = LLVMGetFirstUse(v); use;
	     use = LLVMGetNextUse(use))
		if (LLVMGetInstructionParent(LLVMGetUser(use)) != bb)
			return true;
	return false;
}

int accelc_regions_demote(struct regions *rg)
{
	LLVMValueRef *todo = NULL, *nt;
	size_t n = 0;
	int r = 0;

	for (int phase = 0; phase < 2 && !r; phase++) {
		n = 0;
		for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(rg->prologue);
		     bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
			     i = LLVMGetNextInstruction(i)) {
				if (phase == 0 ? !LLVMIsAPHINode(i) :
				    !crosses(i))
					continue;
				nt = realloc(todo, (n + 1) * sizeof(*todo));
				if (!nt) {
					free(todo);
					return -ENOMEM;
				}
				todo = nt;
				todo[n++] = i;
			}
		for (size_t k = 0; k < n && !r; k++)
			if (phase == 0)
				r = demote_phi(rg, todo[k]);
			else if (!rematerialise(rg, todo[k]))
				r = demote_value(rg, todo[k]);
	}
	free(todo);
	return r;
}
