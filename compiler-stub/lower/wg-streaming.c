/* SPDX-License-Identifier: MIT */
/*
 * Streaming variants: K__wg_nt, a copy of a simple kernel's work-group
 * function whose vector stores to global memory are non-temporal.
 *
 * An element-wise kernel over buffers larger than the last-level cache
 * spends a quarter of its memory traffic reading the output lines before
 * overwriting them (read-for-ownership); non-temporal stores write whole
 * lines without reading them. They also evict, so the runtime calls the
 * variant only for launches whose buffers exceed the cache, and only when
 * the addresses meet the contract of accel-wg.h (buffers 64-byte aligned,
 * x group base a multiple of 16): K__wg_nt tells LLVM so with assumptions,
 * the loop vectoriser's stores come out aligned, and only fully aligned
 * vector stores are marked (x86 has no unaligned non-temporal store).
 *
 * Only barrier-free kernels without loops, atomics, fences or calls get a
 * variant: those are the memory-bound ones, and nothing in them relies on
 * the ordering that non-temporal stores give up (the runtime fences once
 * per chunk of work-groups).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/accel-wg.h>

#include "accelc-private.h"
#include "wg-regions.h"

/* Larger work-group functions are not worth a second optimisation. */
#define STREAMING_MAX_INSTRUCTIONS 512u
/* The wrapper's own z, y and x loops. */
#define WRAPPER_LOOPS 3u

static bool is_call(LLVMValueRef i)
{
	return LLVMIsACallInst(i) || LLVMIsAInvokeInst(i);
}

/* Instructions that order memory, or calls that might. */
static bool orders_memory(LLVMValueRef i)
{
	LLVMValueRef callee;

	if (LLVMIsAFenceInst(i) || LLVMIsAAtomicRMWInst(i) ||
	    LLVMIsAAtomicCmpXchgInst(i))
		return true;
	if ((LLVMIsALoadInst(i) || LLVMIsAStoreInst(i)) &&
	    (LLVMGetVolatile(i) ||
	     LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic))
		return true;
	if (!is_call(i))
		return false;
	callee = LLVMGetCalledValue(i);
	return !callee || !LLVMIsAFunction(callee) ||
	       LLVMGetIntrinsicID(callee) == 0;
}

static bool global_store(LLVMValueRef i)
{
	LLVMValueRef p;

	if (!LLVMIsAStoreInst(i))
		return false;
	p = LLVMGetOperand(i, 1);
	return LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == ACCELC_ADDR_GLOBAL;
}

/*
 * Whether @wg (a loop wrapper, everything inlined) is a candidate: small,
 * no loops of its own (a branch to an earlier block is a back edge: the
 * wrapper and clang lay blocks out in order), stores to global memory,
 * nothing that orders memory.
 */
static bool candidate(LLVMValueRef wg)
{
	unsigned n_insns = 0, n_back = 0, idx = 0, n_bbs;
	LLVMBasicBlockRef *bbs;
	bool stores = false, ok = true;

	n_bbs = LLVMCountBasicBlocks(wg);
	bbs = calloc(n_bbs ? n_bbs : 1, sizeof(*bbs));
	if (!bbs)
		return false;
	LLVMGetBasicBlocks(wg, bbs);
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(wg); bb && ok;
	     bb = LLVMGetNextBasicBlock(bb), idx++) {
		LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);

		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && ok;
		     i = LLVMGetNextInstruction(i)) {
			n_insns++;
			stores |= global_store(i);
			if (orders_memory(i))
				ok = false;
		}
		for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term);
		     s++) {
			LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);

			for (unsigned k = 0; k <= idx; k++)
				if (bbs[k] == to)
					n_back++;
		}
	}
	free(bbs);
	return ok && stores && n_back == WRAPPER_LOOPS &&
	       n_insns <= STREAMING_MAX_INSTRUCTIONS;
}

/* llvm.assume((ptrtoint or value @v & @mask) == 0) */
static void assume_low_zero(struct lower *l, LLVMValueRef v, uint64_t mask)
{
	LLVMModuleRef mod = l->st->mod;
	LLVMTypeRef i1 = LLVMInt1TypeInContext(l->st->ctx);
	LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(l->st->ctx),
					  &i1, 1, 0);
	LLVMValueRef fn = LLVMGetNamedFunction(mod, "llvm.assume");
	LLVMValueRef cond;

	if (!fn)
		fn = LLVMAddFunction(mod, "llvm.assume", ft);
	if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind)
		v = LLVMBuildPtrToInt(l->b, v, l->i64, "");
	cond = LLVMBuildICmp(
		l->b, LLVMIntEQ,
		LLVMBuildAnd(l->b, v, LLVMConstInt(l->i64, mask, 0), ""),
		LLVMConstInt(l->i64, 0, 0), "");
	LLVMBuildCall2(l->b, ft, fn, &cond, 1, "");
}

static LLVMValueRef ctx_field(struct lower *l, LLVMValueRef ctx, size_t off)
{
	LLVMValueRef o = LLVMConstInt(l->i64, off, 0);
	LLVMValueRef v = LLVMBuildLoad2(
		l->b, l->i64, LLVMBuildGEP2(l->b, l->i8, ctx, &o, 1, ""), "");

	LLVMSetAlignment(v, 8);
	return v;
}

/*
 * K__wg_nt(args, ctx): the contract as assumptions, then K__wg inlined.
 * The loads repeat the ones K__wg starts with, so that after inlining
 * they are the same values and the assumptions apply to them.
 */
static int build_variant(struct lower *l, struct kernel_desc *k)
{
	LLVMContextRef c = l->st->ctx;
	LLVMTypeRef params[2] = { l->ptr, l->ptr };
	unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	char *name = accelc_variant_name(k, ACCEL_WG_STREAMING_SUFFIX);
	LLVMValueRef fn, args, ctx, call, callee, pass[2];

	if (!name)
		return -ENOMEM;
	fn = accelc_wg_add_function(l, name, params, 2);
	free(name);
	args = LLVMGetParam(fn, 0);
	ctx = LLVMGetParam(fn, 1);
	LLVMPositionBuilderAtEnd(l->b,
				 LLVMAppendBasicBlockInContext(c, fn, "entry"));
	for (uint32_t i = 0; i < k->info.n_args; i++) {
		const struct accelc_arg_info *a = &k->info.args[i];
		/* as K__wg casts it (K itself is inlined and gone) */
		LLVMTypeRef t = LLVMPointerTypeInContext(c, ACCELC_ADDR_GLOBAL);
		LLVMValueRef idx = LLVMConstInt(l->i64, i, 0), slot, p;

		if (a->kind != ACCELC_ARG_BUFFER ||
		    a->address_space != ACCELC_ADDR_GLOBAL)
			continue;
		slot = LLVMBuildLoad2(l->b, l->ptr,
				      LLVMBuildGEP2(l->b, l->ptr, args, &idx,
						    1, ""),
				      "slot");
		LLVMSetAlignment(slot, 8);
		p = LLVMBuildLoad2(l->b, l->ptr, slot, "arg");
		LLVMSetAlignment(p, 8);
		assume_low_zero(l, p, ACCEL_WG_STREAMING_ADDR_ALIGN - 1);
		assume_low_zero(l, LLVMBuildAddrSpaceCast(l->b, p, t, ""),
				ACCEL_WG_STREAMING_ADDR_ALIGN - 1);
	}
	assume_low_zero(l,
			ctx_field(l, ctx, offsetof(struct accel_wg_ctx,
						   enqueued_local_size[0])),
			ACCEL_WG_STREAMING_X_MULTIPLE - 1);
	assume_low_zero(l,
			ctx_field(l, ctx, offsetof(struct accel_wg_ctx,
						   global_offset[0])),
			ACCEL_WG_STREAMING_X_MULTIPLE - 1);
	pass[0] = args;
	pass[1] = ctx;
	/* its 32-bit ids variant if it has one: streaming assumes that
	 * contract too (accel-wg.h) */
	name = accelc_variant_name(k, ACCEL_WG_IDS32_SUFFIX);
	callee = name ? LLVMGetNamedFunction(l->st->mod, name) : NULL;
	free(name);
	if (!callee)
		callee = k->wg;
	call = LLVMBuildCall2(l->b, LLVMGlobalGetValueType(callee), callee,
			      pass, 2, "");
	LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
				 LLVMCreateEnumAttribute(c, ai, 0));
	LLVMBuildRetVoid(l->b);
	return 0;
}

int accelc_streaming_variants(struct lower *l, const bool *loop_wrapper)
{
	for (uint32_t i = 0; i < l->st->n_kernels; i++) {
		struct kernel_desc *k = &l->st->kernels[i];
		int r;

		if (!loop_wrapper[i] || !k->wg || !candidate(k->wg))
			continue;
		if (l->st->streaming_later) {
			k->info.flags |= ACCELC_KERNEL_STREAMING_LATER;
			continue;
		}
		r = build_variant(l, k);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Mark the fully aligned vector stores to global memory; how many. */
static unsigned mark_stores(LLVMModuleRef mod, LLVMTargetDataRef td,
			    LLVMValueRef fn)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	unsigned kind = LLVMGetMDKindIDInContext(c, "nontemporal", 11);
	LLVMValueRef one = LLVMConstInt(LLVMInt32TypeInContext(c), 1, 0);
	LLVMValueRef node = LLVMMDNodeInContext(c, &one, 1);
	unsigned n = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMTypeRef t;
			unsigned long long size;

			if (!global_store(i))
				continue;
			t = LLVMTypeOf(LLVMGetOperand(i, 0));
			if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
				continue;
			size = LLVMABISizeOfType(td, t);
			if (size < 16 || (size & (size - 1)) ||
			    LLVMGetAlignment(i) < size)
				continue;
			LLVMSetMetadata(i, kind, node);
			n++;
		}
	return n;
}

/*
 * After optimisation: keep a variant only if it has stores to mark and
 * nothing that orders memory crept in (inlining K__wg may have failed).
 */
void accelc_streaming_finish(struct lower_state *st)
{
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		char *name = accelc_variant_name(&st->kernels[i],
						 ACCEL_WG_STREAMING_SUFFIX);
		LLVMValueRef fn = name ? LLVMGetNamedFunction(st->mod, name) :
					 NULL;
		bool keep = fn && !LLVMIsDeclaration(fn);

		free(name);
		if (!fn)
			continue;
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn);
		     bb && keep; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef in = LLVMGetFirstInstruction(bb);
			     in && keep; in = LLVMGetNextInstruction(in))
				keep = !orders_memory(in);
		if (!keep || mark_stores(st->mod, st->td, fn) == 0)
			LLVMDeleteFunction(fn);
	}
}
