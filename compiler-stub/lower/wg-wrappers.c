/* SPDX-License-Identifier: MIT */
/*
 * The work-group functions' wrappers: K__wg(args, ctx) as a plain loop
 * z/y/x over the work-items calling K, whose x loop is marked parallel
 * so that it vectorises across work-items, or, for kernels that must
 * switch between work-items, K__item run by __accelc_fiber_run for each
 * of them (runtime/fiber.c). Also the pieces every wrapper is built from
 * (the arguments and ctx fields loaded, the kernel called, the x loop's
 * ID, its accesses tagged parallel, the failure return), which the
 * regions (wg-regions.c) share. wg-lower.c picks the wrapper per kernel.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <llvm-c/DebugInfo.h>

#include <libaccel/accel-wg.h>

#include "accelc-private.h"
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

void accelc_wg_loop_wrapper(struct lower *l, struct wrapper *w)
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

void accelc_wg_fiber_wrapper(struct lower *l, struct wrapper *w)
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
