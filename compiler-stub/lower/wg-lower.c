/* SPDX-License-Identifier: MIT */
/*
 * Work-group lowering: one accel_wg_fn per kernel.
 *
 * Kernels without barriers get K__wg(args, ctx) that loads the arguments
 * once and loops z/y/x over the work-group calling K; K (and everything it
 * calls) is inlined, work-item builtins become loop variables and ctx
 * fields, and the x loop is marked parallel so that it vectorises across
 * work-items.
 *
 * Kernels with barriers get such loops once per barrier-free region
 * (wg-regions.c). Those too big to copy regions for run each work-item
 * as a fiber (runtime/fiber.c): K__wg hands K__item to
 * __accelc_fiber_run, and barrier() becomes a switch to the next
 * work-item.
 *
 * Kernel-scope __local variables (addrspace(3) globals) move into
 * ctx->local_mem, else threads running different work-groups would share
 * them.
 *
 * This file builds the wrappers and holds the lowering passes of the
 * table (passes.c); wg-builtins.c replaces the builtins inside the
 * wrappers and relocates the __local variables.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm-c/DebugInfo.h>

#include <libaccel/accel-wg.h>

#include "accelc-private.h"
#include "pipeline.h"
#include "wg-regions.h"

static LLVMValueRef ctx_u64(struct lower *l, LLVMValueRef ctx, size_t off,
			    const char *name)
{
	LLVMValueRef o = LLVMConstInt(l->i64, off, 0);
	LLVMValueRef p = LLVMBuildGEP2(l->b, l->i8, ctx, &o, 1, "");
	LLVMValueRef v = LLVMBuildLoad2(l->b, l->i64, p, name);

	LLVMSetAlignment(v, 8);
	return v;
}

/* Loads every accel_wg_ctx field the builtins may need; unused ones are
 * deleted by the optimiser. */
void accelc_wg_load_ctx(struct lower *l, struct wrapper *w, LLVMValueRef ctx)
{
	LLVMValueRef o, p;

	for (int d = 0; d < 3; d++) {
		w->grp[d] = ctx_u64(l, ctx, offsetof(struct accel_wg_ctx,
						     group_id[d]), "grp");
		w->ls[d] = ctx_u64(l, ctx, offsetof(struct accel_wg_ctx,
						    local_size[d]), "ls");
		w->enq[d] = ctx_u64(l, ctx,
				    offsetof(struct accel_wg_ctx,
					     enqueued_local_size[d]), "enq");
		w->gsz[d] = ctx_u64(l, ctx, offsetof(struct accel_wg_ctx,
						     global_size[d]), "gsz");
		w->ngrp[d] = ctx_u64(l, ctx, offsetof(struct accel_wg_ctx,
						      num_groups[d]), "ngrp");
		w->off[d] = ctx_u64(l, ctx, offsetof(struct accel_wg_ctx,
						     global_offset[d]), "off");
		w->base[d] = LLVMBuildAdd(
			l->b, LLVMBuildMul(l->b, w->grp[d], w->enq[d], ""),
			w->off[d], "base");
	}
	o = LLVMConstInt(l->i64, offsetof(struct accel_wg_ctx, work_dim), 0);
	p = LLVMBuildGEP2(l->b, l->i8, ctx, &o, 1, "");
	w->work_dim = LLVMBuildLoad2(l->b, l->i32, p, "work_dim");
	o = LLVMConstInt(l->i64, offsetof(struct accel_wg_ctx, local_mem), 0);
	p = LLVMBuildGEP2(l->b, l->i8, ctx, &o, 1, "");
	w->local_mem = LLVMBuildLoad2(l->b, l->ptr, p, "local_mem");
}

/* Loads the kernel's arguments from args[] as accel-wg.h lays them out. */
void accelc_wg_load_args(struct lower *l, struct kernel_desc *k,
			 LLVMValueRef args, LLVMValueRef *vals)
{
	for (uint32_t i = 0; i < k->info.n_args; i++) {
		LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(k->fn, i));
		LLVMValueRef idx = LLVMConstInt(l->i64, i, 0);
		LLVMValueRef slot = LLVMBuildLoad2(
			l->b, l->ptr,
			LLVMBuildGEP2(l->b, l->ptr, args, &idx, 1, ""),
			"slot");
		const struct accelc_arg_info *a = &k->info.args[i];

		LLVMSetAlignment(slot, 8);
		if (a->kind == ACCELC_ARG_IMAGE) {
			/* the slot is the struct accel_wg_image itself */
			vals[i] = LLVMBuildAddrSpaceCast(l->b, slot, t, "");
		} else if (a->kind != ACCELC_ARG_VALUE) {
			LLVMValueRef v = LLVMBuildLoad2(l->b, l->ptr, slot,
							"arg");

			LLVMSetAlignment(v, 8);
			if (LLVMGetPointerAddressSpace(t) != 0)
				v = LLVMBuildAddrSpaceCast(l->b, v, t, "");
			vals[i] = v;
		} else if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) {
			/* byval: the callee copies when it writes */
			vals[i] = slot;
		} else {
			LLVMValueRef v = LLVMBuildLoad2(l->b, t, slot, "arg");

			LLVMSetAlignment(v, a->alignment < 16 ? a->alignment :
					 16);
			vals[i] = v;
		}
	}
}

/*
 * Image arguments of the plain work-item loops: a private copy of each
 * descriptor, which nothing else can reach, so that the image's own
 * writes cannot alias it and its fields are read once, not again after
 * every store. (The regions and fiber wrappers keep the slot: their
 * allocas are the work-items' own.)
 */
static void copy_images(struct lower *l, struct kernel_desc *k,
			LLVMValueRef *vals)
{
	LLVMValueRef size = LLVMConstInt(l->i64, sizeof(struct accel_wg_image),
					 0);

	for (uint32_t i = 0; i < k->info.n_args; i++) {
		LLVMValueRef copy, slot;

		if (k->info.args[i].kind != ACCELC_ARG_IMAGE)
			continue;
		slot = LLVMGetOperand(vals[i], 0);
		copy = LLVMBuildAlloca(l->b, LLVMArrayType(l->i8, sizeof(
					       struct accel_wg_image)),
				       "image");
		LLVMSetAlignment(copy, 8);
		LLVMBuildMemCpy(l->b, copy, 8, slot, 8, size);
		vals[i] = LLVMBuildAddrSpaceCast(l->b, copy,
						 LLVMTypeOf(vals[i]), "");
	}
}

LLVMValueRef accelc_wg_call_kernel(struct lower *l, struct kernel_desc *k,
				   LLVMValueRef *vals)
{
	LLVMValueRef c = LLVMBuildCall2(l->b, LLVMGlobalGetValueType(k->fn),
					k->fn, vals, k->info.n_args, "");

	LLVMSetInstructionCallConv(c, LLVMSPIRKERNELCallConv);
	return c;
}

LLVMValueRef accelc_wg_add_function(struct lower *l, const char *name,
				    LLVMTypeRef *params, unsigned n)
{
	LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(l->st->ctx),
					  params, n, 0);
	LLVMValueRef f = LLVMAddFunction(l->st->mod, name, ft);
	unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);

	/* args[] and ctx are not written by anyone during the call */
	LLVMAddAttributeAtIndex(f, 1, LLVMCreateEnumAttribute(l->st->ctx,
							      noalias, 0));
	LLVMAddAttributeAtIndex(f, 2, LLVMCreateEnumAttribute(l->st->ctx,
							      noalias, 0));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(l->st->ctx, nounwind,
							0));
	return f;
}

/* A distinct empty node, which the C API cannot create directly: parse
 * it (metadata belongs to the context, not the throwaway module). */
static LLVMMetadataRef distinct_node(LLVMContextRef ctx)
{
	static const char ir[] =
		"define void @f() {\n  ret void, !llvm.access.group !0\n}\n"
		"!0 = distinct !{}\n";
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(
		ir, sizeof(ir) - 1, "ag");
	unsigned kind = LLVMGetMDKindIDInContext(ctx, "llvm.access.group",
						 17);
	LLVMModuleRef m = NULL;
	LLVMMetadataRef md = NULL;
	char *err = NULL;

	if (!mb)
		return NULL;
	if (LLVMParseIRInContext(ctx, mb, &m, &err)) {
		LLVMDisposeMessage(err);
		return NULL;
	}
	md = LLVMValueAsMetadata(LLVMGetMetadata(
		LLVMGetLastInstruction(LLVMGetEntryBasicBlock(
			LLVMGetNamedFunction(m, "f"))),
		kind));
	LLVMDisposeModule(m);
	return md;
}

/* !{!self, !{"llvm.loop.parallel_accesses", group}
 *  [, !{"llvm.loop.interleave.count", i32 interleave}]} */
LLVMValueRef accelc_wg_loop_id(struct lower *l, unsigned interleave)
{
	LLVMContextRef c = l->st->ctx;
	LLVMMetadataRef tmp = LLVMTemporaryMDNode(c, NULL, 0);
	LLVMMetadataRef pa[2] = {
		LLVMMDStringInContext2(c, "llvm.loop.parallel_accesses", 27),
		l->access_group,
	};
	LLVMMetadataRef ic[2] = {
		LLVMMDStringInContext2(c, "llvm.loop.interleave.count", 26),
		LLVMValueAsMetadata(LLVMConstInt(l->i32, interleave, 0)),
	};
	LLVMMetadataRef ops[3] = { tmp, LLVMMDNodeInContext2(c, pa, 2),
				   LLVMMDNodeInContext2(c, ic, 2) };
	LLVMMetadataRef id = LLVMMDNodeInContext2(c, ops, interleave ? 3 : 2);

	/* a self-reference makes the node distinct, as a loop ID must be */
	LLVMMetadataReplaceAllUsesWith(tmp, id);
	return LLVMMetadataAsValue(c, id);
}

static void build_loop_wrapper(struct lower *l, struct wrapper *w)
{
	struct kernel_desc *k = w->k;
	LLVMContextRef c = l->st->ctx;
	LLVMTypeRef params[2] = { l->ptr, l->ptr };
	LLVMValueRef fn = accelc_wg_add_function(l, k->info.wg_symbol, params,
						 2);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
	LLVMBasicBlockRef zh = LLVMAppendBasicBlockInContext(c, fn, "z");
	LLVMBasicBlockRef yh = LLVMAppendBasicBlockInContext(c, fn, "y");
	LLVMBasicBlockRef xb = LLVMAppendBasicBlockInContext(c, fn, "x");
	LLVMBasicBlockRef yl = LLVMAppendBasicBlockInContext(c, fn, "y.latch");
	LLVMBasicBlockRef zl = LLVMAppendBasicBlockInContext(c, fn, "z.latch");
	LLVMBasicBlockRef ex = LLVMAppendBasicBlockInContext(c, fn, "exit");
	LLVMValueRef *vals = calloc(k->info.n_args + 1, sizeof(*vals));
	LLVMValueRef zero = LLVMConstInt(l->i64, 0, 0);
	LLVMValueRef one = LLVMConstInt(l->i64, 1, 0);
	LLVMValueRef empty, nx, ny, nz, br;
	unsigned loop_kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);

	w->fn = fn;
	LLVMPositionBuilderAtEnd(l->b, entry);
	accelc_wg_load_args(l, k, LLVMGetParam(fn, 0), vals);
	copy_images(l, k, vals);
	accelc_wg_load_ctx(l, w, LLVMGetParam(fn, 1));
	/* the runtime never launches an empty group; stay safe anyway */
	empty = LLVMBuildOr(
		l->b,
		LLVMBuildOr(l->b,
			    LLVMBuildICmp(l->b, LLVMIntEQ, w->ls[0], zero, ""),
			    LLVMBuildICmp(l->b, LLVMIntEQ, w->ls[1], zero, ""),
			    ""),
		LLVMBuildICmp(l->b, LLVMIntEQ, w->ls[2], zero, ""), "");
	LLVMBuildCondBr(l->b, empty, ex, zh);

	LLVMPositionBuilderAtEnd(l->b, zh);
	w->lid[2] = LLVMBuildPhi(l->b, l->i64, "lz");
	LLVMBuildBr(l->b, yh);
	LLVMPositionBuilderAtEnd(l->b, yh);
	w->lid[1] = LLVMBuildPhi(l->b, l->i64, "ly");
	LLVMBuildBr(l->b, xb);
	LLVMPositionBuilderAtEnd(l->b, xb);
	w->lid[0] = LLVMBuildPhi(l->b, l->i64, "lx");
	accelc_wg_call_kernel(l, k, vals);
	/* signed: IRCE (wg-guards.c) only splits loops with signed latches;
	 * group sizes are far below 2^63 */
	nx = LLVMBuildNSWAdd(l->b, w->lid[0], one, "lx.next");
	br = LLVMBuildCondBr(l->b,
			     LLVMBuildICmp(l->b, LLVMIntSLT, nx, w->ls[0], ""),
			     xb, yl);
	w->x_latch = br;
	LLVMSetMetadata(br, loop_kind, accelc_wg_loop_id(l, 0));
	LLVMPositionBuilderAtEnd(l->b, yl);
	ny = LLVMBuildNUWAdd(l->b, w->lid[1], one, "ly.next");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntULT, ny, w->ls[1], ""),
			yh, zl);
	LLVMPositionBuilderAtEnd(l->b, zl);
	nz = LLVMBuildNUWAdd(l->b, w->lid[2], one, "lz.next");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntULT, nz, w->ls[2], ""),
			zh, ex);
	LLVMPositionBuilderAtEnd(l->b, ex);
	LLVMBuildRetVoid(l->b);

	{
		LLVMValueRef v[2];
		LLVMBasicBlockRef bb[2];

		v[0] = zero, v[1] = nz, bb[0] = entry, bb[1] = zl;
		LLVMAddIncoming(w->lid[2], v, bb, 2);
		v[1] = ny, bb[0] = zh, bb[1] = yl;
		LLVMAddIncoming(w->lid[1], v, bb, 2);
		v[1] = nx, bb[0] = yh, bb[1] = xb;
		LLVMAddIncoming(w->lid[0], v, bb, 2);
	}
	free(vals);
}

void accelc_wg_fail_return(struct lower *l, LLVMValueRef ctx, int error)
{
	LLVMContextRef c = l->st->ctx;
	LLVMTypeRef pt[2] = { l->ptr, l->i32 };
	LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(c), pt, 2, 0);
	LLVMValueRef o = LLVMConstInt(l->i64,
				      offsetof(struct accel_wg_ctx, fail), 0);
	LLVMValueRef fn, a[2];

	fn = LLVMBuildLoad2(l->b, l->ptr,
			    LLVMBuildGEP2(l->b, l->i8, ctx, &o, 1, ""),
			    "fail");
	LLVMSetAlignment(fn, 8);
	a[0] = ctx;
	a[1] = LLVMConstInt(l->i32, (unsigned long long)(long long)error, 1);
	LLVMBuildCall2(l->b, ft, fn, a, 2, "");
	LLVMBuildRetVoid(l->b);
}

static void build_fiber_wrapper(struct lower *l, struct wrapper *w)
{
	struct kernel_desc *k = w->k;
	LLVMContextRef c = l->st->ctx;
	LLVMTypeRef ip[6] = { l->ptr, l->ptr, l->i64, l->i64, l->i64, l->ptr };
	LLVMTypeRef rp[3] = { l->ptr, l->ptr, l->ptr };
	LLVMTypeRef run_ty = LLVMFunctionType(l->i32, rp, 3, 0);
	LLVMValueRef run = LLVMGetNamedFunction(l->st->mod, ACCELC_FIBER_RUN);
	LLVMValueRef *vals = calloc(k->info.n_args + 1, sizeof(*vals));
	char *name = NULL;
	LLVMValueRef item, wg, a[3];
	LLVMBasicBlockRef bb, ok, bad;

	if (asprintf(&name, "%s__item", k->info.name) < 0)
		name = NULL;
	k->fibers = true;
	item = accelc_wg_add_function(l, name ? name : "__item", ip, 6);
	free(name);
	LLVMSetLinkage(item, LLVMInternalLinkage);
	bb = LLVMAppendBasicBlockInContext(c, item, "entry");
	LLVMPositionBuilderAtEnd(l->b, bb);
	w->fn = item;
	w->fg = LLVMGetParam(item, 5);
	for (int d = 0; d < 3; d++)
		w->lid[d] = LLVMGetParam(item, 2 + d);
	accelc_wg_load_args(l, k, LLVMGetParam(item, 0), vals);
	accelc_wg_load_ctx(l, w, LLVMGetParam(item, 1));
	accelc_wg_call_kernel(l, k, vals);
	LLVMBuildRetVoid(l->b);

	wg = accelc_wg_add_function(l, k->info.wg_symbol, rp, 2);
	bb = LLVMAppendBasicBlockInContext(c, wg, "entry");
	LLVMPositionBuilderAtEnd(l->b, bb);
	a[0] = LLVMGetParam(wg, 0);
	a[1] = LLVMGetParam(wg, 1);
	a[2] = item;
	/* no stacks for the fibers: nothing ran, the launch fails */
	ok = LLVMAppendBasicBlockInContext(c, wg, "ran");
	bad = LLVMAppendBasicBlockInContext(c, wg, "nostack");
	LLVMBuildCondBr(l->b,
			LLVMBuildICmp(l->b, LLVMIntEQ,
				      LLVMBuildCall2(l->b, run_ty, run, a, 3,
						     ""),
				      LLVMConstInt(l->i32, 0, 0), ""),
			ok, bad);
	LLVMPositionBuilderAtEnd(l->b, ok);
	LLVMBuildRetVoid(l->b);
	LLVMPositionBuilderAtEnd(l->b, bad);
	accelc_wg_fail_return(l, a[1], -ENOMEM);
	free(vals);
}

/* The memory object an address is based on, NULL if unknown. */
static LLVMValueRef underlying(LLVMValueRef p)
{
	for (int depth = 0; depth < 32; depth++) {
		if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
		    LLVMIsAAddrSpaceCastInst(p))
			p = LLVMGetOperand(p, 0);
		else if (LLVMIsAConstantExpr(p))
			p = LLVMGetOperand(p, 0);
		else
			return p;
	}
	return NULL;
}

/* Work-items of a barrier-free kernel touch memory independently, except
 * through private variables: after inlining K's allocas live outside the
 * x loop, so accesses to them must stay ordered. */
static bool private_access(LLVMValueRef p)
{
	LLVMValueRef base = underlying(p);

	return !base || LLVMIsAAllocaInst(base) || LLVMIsAPHINode(base) ||
	       LLVMIsASelectInst(base);
}

void accelc_wg_tag_parallel(struct lower *l, LLVMValueRef fn,
			    bool (*ordered)(LLVMValueRef ptr))
{
	unsigned ag = LLVMGetMDKindIDInContext(l->st->ctx, "llvm.access.group",
					       17);
	LLVMValueRef agv = LLVMMetadataAsValue(l->st->ctx, l->access_group);
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);

	for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(entry); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef p;

			if (LLVMIsALoadInst(i))
				p = LLVMGetOperand(i, 0);
			else if (LLVMIsAStoreInst(i))
				p = LLVMGetOperand(i, 1);
			else
				continue;
			if (LLVMGetVolatile(i) ||
			    LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic ||
			    ordered(p))
				continue;
			LLVMSetMetadata(i, ag, agv);
		}
}

/* ACCELC_KERNEL_GROUP_INVARIANT: nothing shows the kernel its group. */
static bool group_invariant(const struct wrapper *w)
{
	const struct accelc_kernel_info *k = &w->k->info;

	if (w->sees_group || w->n_locals || w->fg ||
	    (k->flags & ACCELC_KERNEL_HAS_BARRIERS))
		return false;
	for (uint32_t i = 0; i < k->n_args; i++)
		if (k->args[i].kind == ACCELC_ARG_LOCAL)
			return false;
	return true;
}

static bool is_wrapper(struct lower *l, LLVMValueRef f)
{
	for (uint32_t i = 0; i < l->st->n_kernels; i++)
		if (l->w[i].fn == f || l->st->kernels[i].wg == f)
			return true;
	return false;
}

static bool is_fiber_runtime(LLVMValueRef f)
{
	size_t len;
	const char *n = LLVMGetValueName2(f, &len);

	return !strncmp(n, "__accelc_fiber", 14) ||
		!strncmp(n, "accelc_fiber", 12);
}

static void set_inline_attrs(struct lower *l)
{
	LLVMContextRef c = l->st->ctx;
	unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
	unsigned on = LLVMGetEnumAttributeKindForName("optnone", 7);

	for (LLVMValueRef f = LLVMGetFirstFunction(l->st->mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f) || is_wrapper(l, f) ||
		    is_fiber_runtime(f))
			continue;
		LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					       ni);
		LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					       on);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					LLVMCreateEnumAttribute(c, ai, 0));
	}
}

/* Everything but the work-group functions becomes internal, so that the
 * optimiser may drop and specialise it and the .so exports only those. */
static void internalize(struct lower *l)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(l->st->mod); f;
	     f = LLVMGetNextFunction(f)) {
		bool keep = false;

		if (LLVMIsDeclaration(f))
			continue;
		for (uint32_t i = 0; i < l->st->n_kernels; i++)
			if (l->st->kernels[i].wg == f)
				keep = true;
		/* barrier calls are only created later: keep it for now */
		if (is_fiber_runtime(f))
			keep = true;
		if (!keep) {
			LLVMSetLinkage(f, LLVMInternalLinkage);
			LLVMSetVisibility(f, LLVMDefaultVisibility);
		}
	}
	for (LLVMValueRef g = LLVMGetFirstGlobal(l->st->mod); g;
	     g = LLVMGetNextGlobal(g)) {
		size_t len;
		const char *n = LLVMGetValueName2(g, &len);

		/* llvm.used and friends are special, not data */
		if (LLVMIsDeclaration(g) || !strncmp(n, "llvm.", 5))
			continue;
		LLVMSetLinkage(g, LLVMInternalLinkage);
		LLVMSetVisibility(g, LLVMDefaultVisibility);
	}
}

int accelc_run_passes(struct lower_state *st, const char *passes)
{
	LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
	LLVMErrorRef e = LLVMRunPasses(st->mod, passes, NULL, o);

	LLVMDisposePassBuilderOptions(o);
	if (e) {
		char *msg = LLVMGetErrorMessage(e);

		strbuf_printf(st->log, "error: LLVM passes '%s': %s\n", passes,
			      msg);
		LLVMDisposeErrorMessage(msg);
		return -EIO;
	}
	return 0;
}

/* Malformed IR would crash LLVM: report it as an internal error. */
static int verify(struct lower_state *st)
{
	char *err = NULL;
	int r = 0;

	if (LLVMVerifyModule(st->mod, LLVMReturnStatusAction, &err)) {
		strbuf_printf(st->log, "error: internal: invalid IR: %.2000s\n",
			      err);
		r = -EIO;
	}
	LLVMDisposeMessage(err);
	return r;
}

/* --- the lowering passes (passes.c has them in order) --- */

static uint32_t alloc_n(const struct accelc_pass_ctx *c)
{
	return c->st.n_kernels ? c->st.n_kernels : 1;
}

int accelc_pass_lower_start(struct accelc_pass_ctx *c)
{
	struct lower_state *st = &c->st;

	c->l.st = st;
	c->ws = calloc(alloc_n(c), sizeof(*c->ws));
	c->rg = calloc(alloc_n(c), sizeof(*c->rg));
	c->plain = calloc(alloc_n(c), sizeof(*c->plain));
	c->ids32 = calloc(alloc_n(c), sizeof(*c->ids32));
	if (!c->ws || !c->rg || !c->plain || !c->ids32)
		return -ENOMEM;
	c->l.w = c->ws;
	c->l.b = LLVMCreateBuilderInContext(st->ctx);
	c->l.i8 = LLVMInt8TypeInContext(st->ctx);
	c->l.i32 = LLVMInt32TypeInContext(st->ctx);
	c->l.i64 = LLVMInt64TypeInContext(st->ctx);
	c->l.ptr = LLVMPointerTypeInContext(st->ctx, 0);
	c->l.access_group = distinct_node(st->ctx);
	return c->l.access_group ? 0 : -EIO;
}

void accelc_lower_free(struct accelc_pass_ctx *c)
{
	for (uint32_t i = 0; c->ws && i < c->st.n_kernels; i++) {
		free(c->ws[i].locals);
		free(c->ws[i].local_ptrs);
		if (c->rg)
			accelc_regions_free(c->rg[i]);
	}
	free(c->rg);
	free(c->ws);
	free(c->plain);
	free(c->ids32);
	if (c->l.b)
		LLVMDisposeBuilder(c->l.b);
	c->rg = NULL;
	c->ws = NULL;
	c->plain = NULL;
	c->ids32 = NULL;
	c->l.b = NULL;
}

bool accelc_pass_want_kernels_ssa(const struct accelc_pass_ctx *c)
{
	for (uint32_t i = 0; i < c->st.n_kernels; i++)
		if (!(c->st.kernels[i].info.flags & ACCELC_KERNEL_HAS_BARRIERS))
			return true;
	return c->st.may_spin || accelc_module_uses_sub_groups(c->st.mod);
}

/* SSA form for the implicit barriers', sub-groups' and spins' analyses */
int accelc_pass_kernels_ssa(struct accelc_pass_ctx *c)
{
	return accelc_run_passes(&c->st, "function(sroa)");
}

/* Per kernel: its implicit barriers (wg-implicit.c), then its wrapper. */
int accelc_pass_wrappers(struct accelc_pass_ctx *c)
{
	struct lower_state *st = &c->st;
	int r;

	/* the fiber runtime is linked where a kernel may spin */
	if (st->may_spin && st->needs_fibers) {
		r = accelc_mark_spin_loops(st, c->l.b);
		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		struct kernel_desc *k = &st->kernels[i];
		bool implicit = false;

		c->ws[i].k = k;
		if (!k->spins &&
		    !(k->info.flags & ACCELC_KERNEL_HAS_BARRIERS)) {
			r = accelc_implicit_barriers(&c->l, k);
			if (r < 0)
				return r;
			implicit = r > 0;
		}
		if (k->spins) {
			/* the others must run while it waits */
			build_fiber_wrapper(&c->l, &c->ws[i]);
		} else if (implicit ||
			   ((k->info.flags & ACCELC_KERNEL_HAS_BARRIERS) &&
			    accelc_regions_fit(k) &&
			    !accelc_subgroups_divergent(k))) {
			r = accelc_regions_wrapper(&c->l, &c->ws[i], &c->rg[i]);
			if (r)
				return r;
			c->any_regions = true;
		} else if (k->info.flags & ACCELC_KERNEL_HAS_BARRIERS)
			build_fiber_wrapper(&c->l, &c->ws[i]);
		else
			build_loop_wrapper(&c->l, &c->ws[i]);
		k->wg = LLVMGetNamedFunction(st->mod, k->info.wg_symbol);
		/* kernels must not keep their own name: the wrapper's symbol
		 * is derived from it and kernels calling kernels is legal */
		LLVMSetLinkage(k->fn, LLVMInternalLinkage);
	}
	return 0;
}

int accelc_pass_inline_attrs(struct accelc_pass_ctx *c)
{
	set_inline_attrs(&c->l);
	return 0;
}

int accelc_pass_verify(struct accelc_pass_ctx *c)
{
	return verify(&c->st);
}

int accelc_pass_inline(struct accelc_pass_ctx *c)
{
	return accelc_run_passes(&c->st, "always-inline");
}

int accelc_pass_internalize(struct accelc_pass_ctx *c)
{
	internalize(&c->l);
	return 0;
}

int accelc_pass_globaldce(struct accelc_pass_ctx *c)
{
	return accelc_run_passes(&c->st, "globaldce");
}

bool accelc_pass_want_regions(const struct accelc_pass_ctx *c)
{
	return c->any_regions;
}

/* registers, not allocas: only values that cross a barrier then need
 * context arrays */
int accelc_pass_wrappers_ssa(struct accelc_pass_ctx *c)
{
	return accelc_run_passes(&c->st, "function(sroa)");
}

int accelc_pass_regions_split(struct accelc_pass_ctx *c)
{
	int r = 0;

	for (uint32_t i = 0; i < c->st.n_kernels && !r; i++)
		if (c->rg[i])
			r = accelc_regions_split(&c->l, c->rg[i]);
	return r;
}

int accelc_pass_builtins(struct accelc_pass_ctx *c)
{
	int r = 0;

	for (uint32_t i = 0; i < c->st.n_kernels && !r; i++)
		r = accelc_lower_builtins(&c->l, &c->ws[i]);
	return r;
}

int accelc_pass_printf(struct accelc_pass_ctx *c)
{
	return accelc_lower_printf(&c->l, c->ws, c->st.n_kernels);
}

int accelc_pass_locals(struct accelc_pass_ctx *c)
{
	return accelc_lower_locals(&c->l, c->ws, c->st.n_kernels);
}

int accelc_pass_regions_build(struct accelc_pass_ctx *c)
{
	int r = 0;

	for (uint32_t i = 0; i < c->st.n_kernels && !r; i++)
		if (c->rg[i])
			r = accelc_regions_build(&c->l, c->rg[i]);
	return r;
}

int accelc_pass_generic(struct accelc_pass_ctx *c)
{
	int r = 0;

	for (uint32_t i = 0; i < c->st.n_kernels && !r; i++)
		r = accelc_lower_generic(&c->l, &c->ws[i],
					 c->rg[i] ? c->rg[i]->heap : NULL);
	return r;
}

/* after the regions and fibers made their barrier calls */
int accelc_pass_fiber_rt_internal(struct accelc_pass_ctx *c)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(c->st.mod); f;
	     f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && is_fiber_runtime(f))
			LLVMSetLinkage(f, LLVMInternalLinkage);
	return 0;
}

int accelc_pass_kernel_flags(struct accelc_pass_ctx *c)
{
	struct lower_state *st = &c->st;

	for (uint32_t i = 0; i < st->n_kernels; i++) {
		st->kernels[i].info.static_local_size = c->ws[i].local_size;
		if (group_invariant(&c->ws[i]))
			st->kernels[i].info.flags |= ACCELC_KERNEL_GROUP_INVARIANT;
		/* regions tag their own */
		c->plain[i] = !c->ws[i].fg && !c->rg[i];
		if (c->plain[i])
			accelc_wg_tag_parallel(&c->l, c->ws[i].fn,
					       private_access);
	}
	return 0;
}

bool accelc_pass_want_opt(const struct accelc_pass_ctx *c)
{
	return c->st.opt;
}

int accelc_pass_ids32(struct accelc_pass_ctx *c)
{
	return accelc_ids32_variants(&c->l, c->ws, c->plain, c->ids32);
}

int accelc_pass_streaming(struct accelc_pass_ctx *c)
{
	return accelc_streaming_variants(&c->l, c->plain);
}

/* after the variants: they are picked by the simple shape */
int accelc_pass_guards(struct accelc_pass_ctx *c)
{
	if (!accelc_mark_guards(&c->l, c->ws, c->plain, c->ids32))
		return 0;
	return accelc_run_passes(&c->st, "function(loop-simplify,lcssa,"
				 "loop(indvars),irce)");
}

int accelc_pass_check_undefined(struct accelc_pass_ctx *c)
{
	int r = accelc_check_undefined(&c->st);

	if (r == -EIO)
		strbuf_printf(c->st.log, "error: a work-item function is used "
			      "outside a kernel\n");
	return r;
}
