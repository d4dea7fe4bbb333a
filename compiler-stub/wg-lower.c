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
 * Kernels with barriers run each work-item as a fiber (runtime/fiber.c):
 * K__wg hands K__item to __accelc_fiber_run, and barrier() becomes a
 * switch to the next work-item.
 *
 * Kernel-scope __local variables (addrspace(3) globals) move into
 * ctx->local_mem, else threads running different work-groups would share
 * them.
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

enum wi_builtin {
	WI_NONE,
	WI_GLOBAL_ID,
	WI_LOCAL_ID,
	WI_GROUP_ID,
	WI_LOCAL_SIZE,
	WI_ENQUEUED_LOCAL_SIZE,
	WI_GLOBAL_SIZE,
	WI_NUM_GROUPS,
	WI_GLOBAL_OFFSET,
	WI_WORK_DIM,
	WI_GLOBAL_LINEAR_ID,
	WI_LOCAL_LINEAR_ID,
	WI_BARRIER,
};

static const struct {
	const char *name;
	enum wi_builtin b;
} wi_names[] = {
	{ "_Z13get_global_idj", WI_GLOBAL_ID },
	{ "_Z12get_local_idj", WI_LOCAL_ID },
	{ "_Z12get_group_idj", WI_GROUP_ID },
	{ "_Z14get_local_sizej", WI_LOCAL_SIZE },
	{ "_Z23get_enqueued_local_sizej", WI_ENQUEUED_LOCAL_SIZE },
	{ "_Z15get_global_sizej", WI_GLOBAL_SIZE },
	{ "_Z14get_num_groupsj", WI_NUM_GROUPS },
	{ "_Z17get_global_offsetj", WI_GLOBAL_OFFSET },
	{ "_Z12get_work_dimv", WI_WORK_DIM },
	{ "_Z20get_global_linear_idv", WI_GLOBAL_LINEAR_ID },
	{ "_Z19get_local_linear_idv", WI_LOCAL_LINEAR_ID },
	{ "_Z7barrierj", WI_BARRIER },
	{ "_Z18work_group_barrierj", WI_BARRIER },
	{ "_Z18work_group_barrierj12memory_scope", WI_BARRIER },
};

static enum wi_builtin wi_lookup(LLVMValueRef fn)
{
	size_t len;
	const char *name;

	if (!fn || !LLVMIsAFunction(fn))
		return WI_NONE;
	name = LLVMGetValueName2(fn, &len);
	for (size_t i = 0; i < sizeof(wi_names) / sizeof(wi_names[0]); i++)
		if (strlen(wi_names[i].name) == len &&
		    !memcmp(wi_names[i].name, name, len))
			return wi_names[i].b;
	return WI_NONE;
}

/* What the lowering of one wrapper needs at hand. */
struct wrapper {
	struct kernel_desc *k;
	LLVMValueRef fn;        /* K__wg, or K__item with fibers */
	LLVMValueRef fg;        /* fiber group (K__item) or NULL */
	LLVMValueRef x_latch;   /* the x loop's back branch, NULL with fibers */
	LLVMValueRef lid[3];
	LLVMValueRef grp[3], ls[3], enq[3], gsz[3], ngrp[3], off[3], base[3];
	LLVMValueRef work_dim, local_mem;
	/* __local globals placed so far and their offsets */
	LLVMValueRef *locals;
	LLVMValueRef *local_ptrs;
	size_t n_locals;
	uint64_t local_size;
};

struct lower {
	struct lower_state *st;
	LLVMBuilderRef b;
	LLVMTypeRef i8, i32, i64, ptr;
	LLVMMetadataRef access_group;
	struct wrapper *w;
};

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
static void load_ctx(struct lower *l, struct wrapper *w, LLVMValueRef ctx)
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
static void load_args(struct lower *l, struct kernel_desc *k,
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
		if (a->kind != ACCELC_ARG_VALUE) {
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

static LLVMValueRef call_kernel(struct lower *l, struct kernel_desc *k,
				LLVMValueRef *vals)
{
	LLVMValueRef c = LLVMBuildCall2(l->b, LLVMGlobalGetValueType(k->fn),
					k->fn, vals, k->info.n_args, "");

	LLVMSetInstructionCallConv(c, LLVMSPIRKERNELCallConv);
	return c;
}

static LLVMValueRef add_function(struct lower *l, const char *name,
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

/* !{!self, !{"llvm.loop.parallel_accesses", group}} */
static LLVMValueRef loop_id(struct lower *l)
{
	LLVMContextRef c = l->st->ctx;
	LLVMMetadataRef tmp = LLVMTemporaryMDNode(c, NULL, 0);
	LLVMMetadataRef pa[2] = {
		LLVMMDStringInContext2(c, "llvm.loop.parallel_accesses", 27),
		l->access_group,
	};
	LLVMMetadataRef ops[2] = { tmp, LLVMMDNodeInContext2(c, pa, 2) };
	LLVMMetadataRef id = LLVMMDNodeInContext2(c, ops, 2);

	/* a self-reference makes the node distinct, as a loop ID must be */
	LLVMMetadataReplaceAllUsesWith(tmp, id);
	return LLVMMetadataAsValue(c, id);
}

static void build_loop_wrapper(struct lower *l, struct wrapper *w)
{
	struct kernel_desc *k = w->k;
	LLVMContextRef c = l->st->ctx;
	LLVMTypeRef params[2] = { l->ptr, l->ptr };
	LLVMValueRef fn = add_function(l, k->info.wg_symbol, params, 2);
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
	load_args(l, k, LLVMGetParam(fn, 0), vals);
	load_ctx(l, w, LLVMGetParam(fn, 1));
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
	call_kernel(l, k, vals);
	nx = LLVMBuildNUWAdd(l->b, w->lid[0], one, "lx.next");
	br = LLVMBuildCondBr(l->b,
			     LLVMBuildICmp(l->b, LLVMIntULT, nx, w->ls[0], ""),
			     xb, yl);
	w->x_latch = br;
	LLVMSetMetadata(br, loop_kind, loop_id(l));
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
	LLVMBasicBlockRef bb;

	if (asprintf(&name, "%s__item", k->info.name) < 0)
		name = NULL;
	item = add_function(l, name ? name : "__item", ip, 6);
	free(name);
	LLVMSetLinkage(item, LLVMInternalLinkage);
	bb = LLVMAppendBasicBlockInContext(c, item, "entry");
	LLVMPositionBuilderAtEnd(l->b, bb);
	w->fn = item;
	w->fg = LLVMGetParam(item, 5);
	for (int d = 0; d < 3; d++)
		w->lid[d] = LLVMGetParam(item, 2 + d);
	load_args(l, k, LLVMGetParam(item, 0), vals);
	load_ctx(l, w, LLVMGetParam(item, 1));
	call_kernel(l, k, vals);
	LLVMBuildRetVoid(l->b);

	wg = add_function(l, k->info.wg_symbol, rp, 2);
	bb = LLVMAppendBasicBlockInContext(c, wg, "entry");
	LLVMPositionBuilderAtEnd(l->b, bb);
	a[0] = LLVMGetParam(wg, 0);
	a[1] = LLVMGetParam(wg, 1);
	a[2] = item;
	LLVMBuildCall2(l->b, run_ty, run, a, 3, "");
	LLVMBuildRetVoid(l->b);
	free(vals);
}

/* dim-indexed value: v[dim] for dim < 3, else @dflt */
static LLVMValueRef pick(struct lower *l, LLVMValueRef dim, LLVMValueRef *v,
			 LLVMValueRef dflt)
{
	LLVMValueRef r = dflt;

	if (LLVMIsAConstantInt(dim)) {
		uint64_t d = LLVMConstIntGetZExtValue(dim);

		return d < 3 ? v[d] : dflt;
	}
	for (int d = 2; d >= 0; d--)
		r = LLVMBuildSelect(
			l->b,
			LLVMBuildICmp(l->b, LLVMIntEQ, dim,
				      LLVMConstInt(l->i32, d, 0), ""),
			v[d], r, "");
	return r;
}

static LLVMValueRef lower_wi(struct lower *l, struct wrapper *w,
			     enum wi_builtin b, LLVMValueRef call)
{
	LLVMValueRef zero = LLVMConstInt(l->i64, 0, 0);
	LLVMValueRef one = LLVMConstInt(l->i64, 1, 0);
	LLVMValueRef dim = LLVMGetNumArgOperands(call) ?
		LLVMGetOperand(call, 0) : NULL;
	LLVMValueRef gid[3], t;

	switch (b) {
	case WI_GLOBAL_ID:
		for (int d = 0; d < 3; d++)
			gid[d] = LLVMBuildAdd(l->b, w->base[d], w->lid[d], "");
		return pick(l, dim, gid, zero);
	case WI_LOCAL_ID:
		return pick(l, dim, w->lid, zero);
	case WI_GROUP_ID:
		return pick(l, dim, w->grp, zero);
	case WI_LOCAL_SIZE:
		return pick(l, dim, w->ls, one);
	case WI_ENQUEUED_LOCAL_SIZE:
		return pick(l, dim, w->enq, one);
	case WI_GLOBAL_SIZE:
		return pick(l, dim, w->gsz, one);
	case WI_NUM_GROUPS:
		return pick(l, dim, w->ngrp, one);
	case WI_GLOBAL_OFFSET:
		return pick(l, dim, w->off, zero);
	case WI_WORK_DIM:
		return w->work_dim;
	case WI_GLOBAL_LINEAR_ID:
		/* (gid - offset) = group * enqueued + lid */
		for (int d = 0; d < 3; d++)
			gid[d] = LLVMBuildAdd(
				l->b,
				LLVMBuildMul(l->b, w->grp[d], w->enq[d], ""),
				w->lid[d], "");
		t = LLVMBuildAdd(l->b,
				 LLVMBuildMul(l->b, gid[2], w->gsz[1], ""),
				 gid[1], "");
		return LLVMBuildAdd(l->b, LLVMBuildMul(l->b, t, w->gsz[0], ""),
				    gid[0], "");
	case WI_LOCAL_LINEAR_ID:
		t = LLVMBuildAdd(l->b,
				 LLVMBuildMul(l->b, w->lid[2], w->ls[1], ""),
				 w->lid[1], "");
		return LLVMBuildAdd(l->b, LLVMBuildMul(l->b, t, w->ls[0], ""),
				    w->lid[0], "");
	default:
		return NULL;
	}
}

static size_t collect_users(LLVMValueRef v, LLVMValueRef **ret)
{
	size_t n = 0, cap = 0;
	LLVMValueRef *u = NULL;

	for (LLVMUseRef use = LLVMGetFirstUse(v); use;
	     use = LLVMGetNextUse(use)) {
		LLVMValueRef user = LLVMGetUser(use);
		size_t i;

		for (i = 0; i < n && u[i] != user; i++)
			;
		if (i < n)
			continue;
		if (n == cap) {
			LLVMValueRef *nu;

			cap = cap ? cap * 2 : 8;
			nu = realloc(u, cap * sizeof(*u));
			if (!nu)
				break;
			u = nu;
		}
		u[n++] = user;
	}
	*ret = u;
	return n;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static LLVMValueRef local_ptr(struct lower *l, struct wrapper *w,
			      LLVMValueRef g)
{
	LLVMTargetDataRef td = l->st->td;
	LLVMTypeRef t = LLVMGlobalGetValueType(g);
	uint64_t al = LLVMGetAlignment(g), off;
	LLVMValueRef o, p, *nl, *np;

	for (size_t i = 0; i < w->n_locals; i++)
		if (w->locals[i] == g)
			return w->local_ptrs[i];
	if (!al)
		al = LLVMABIAlignmentOfType(td, t);
	off = align_up(w->local_size, al);
	nl = realloc(w->locals, (w->n_locals + 1) * sizeof(*nl));
	if (!nl)
		return NULL;
	w->locals = nl;
	np = realloc(w->local_ptrs, (w->n_locals + 1) * sizeof(*np));
	if (!np)
		return NULL;
	w->local_ptrs = np;
	w->local_size = off + LLVMABISizeOfType(td, t);
	/* in the entry block, right after local_mem's load: dominates all */
	LLVMPositionBuilderBefore(l->b, LLVMGetNextInstruction(w->local_mem));
	o = LLVMConstInt(l->i64, off, 0);
	p = LLVMBuildInBoundsGEP2(l->b, l->i8, w->local_mem, &o, 1, "");
	p = LLVMBuildAddrSpaceCast(l->b, p, LLVMTypeOf(g), "");
	w->locals[w->n_locals] = g;
	w->local_ptrs[w->n_locals] = p;
	w->n_locals++;
	return p;
}

/*
 * The value standing for @p c (the __local global @p g, or a constant
 * expression over it) inside wrapper @p w: built in the entry block from
 * the wrapper's local_mem, so it dominates every use. Building from a
 * non-constant base keeps the IR builder from folding it back.
 */
static LLVMValueRef materialize(struct lower *l, struct wrapper *w,
				LLVMValueRef g, LLVMValueRef c)
{
	LLVMValueRef base, v;
	LLVMOpcode opc;

	if (c == g)
		return local_ptr(l, w, g);
	if (!LLVMIsAConstantExpr(c))
		return NULL;
	opc = LLVMGetConstOpcode(c);
	base = materialize(l, w, g, LLVMGetOperand(c, 0));
	if (!base)
		return NULL;
	LLVMPositionBuilderBefore(l->b, LLVMGetNextInstruction(base));
	if (opc == LLVMGetElementPtr) {
		int no = LLVMGetNumOperands(c);
		LLVMValueRef idx[16];

		if (no - 1 > 16)
			return NULL;
		for (int k = 1; k < no; k++)
			idx[k - 1] = LLVMGetOperand(c, k);
		v = LLVMBuildGEP2(l->b, LLVMGetGEPSourceElementType(c), base,
				  idx, no - 1, "");
		LLVMSetIsInBounds(v, LLVMIsInBounds(c));
		return v;
	}
	if (opc == LLVMBitCast || opc == LLVMAddrSpaceCast ||
	    opc == LLVMPtrToInt)
		return LLVMBuildCast(l->b, opc, base, LLVMTypeOf(c), "");
	return NULL;
}

/* Rewrites every instruction using @p c (directly or through constant
 * expressions) to use its wrapper's copy in local memory. */
static int rewrite_users(struct lower *l, struct wrapper *ws, uint32_t nw,
			 LLVMValueRef g, LLVMValueRef c)
{
	LLVMValueRef *users;
	size_t n = collect_users(c, &users);
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		LLVMValueRef u = users[i], fn, v;
		uint32_t k;

		if (LLVMIsAConstantExpr(u)) {
			r = rewrite_users(l, ws, nw, g, u);
			continue;
		}
		if (!LLVMIsAInstruction(u))
			continue;
		fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(u));
		for (k = 0; k < nw && ws[k].fn != fn; k++)
			;
		if (k == nw) {
			strbuf_printf(l->st->log, "error: __local variable "
				      "used outside a kernel\n");
			r = -ENOEXEC;
			break;
		}
		v = materialize(l, &ws[k], g, c);
		if (!v) {
			strbuf_printf(l->st->log, "error: unsupported use of "
				      "a __local variable\n");
			r = -ENOEXEC;
			break;
		}
		for (int op = 0; op < LLVMGetNumOperands(u); op++)
			if (LLVMGetOperand(u, op) == c)
				LLVMSetOperand(u, op, v);
	}
	free(users);
	return r;
}

static int lower_locals(struct lower *l, struct wrapper *ws, uint32_t nw)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(l->st->mod), next; g;
	     g = next) {
		int r;

		next = LLVMGetNextGlobal(g);
		if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3)
			continue;
		r = rewrite_users(l, ws, nw, g, g);
		if (r)
			return r;
		/* dead constant expressions may still name it: globaldce
		 * drops those together with the global */
		if (!LLVMGetFirstUse(g))
			LLVMDeleteGlobal(g);
	}
	return 0;
}

static int lower_builtins(struct lower *l, struct wrapper *w)
{
	LLVMValueRef barrier = LLVMGetNamedFunction(l->st->mod,
						    ACCELC_FIBER_BARRIER);
	LLVMTypeRef bt = LLVMFunctionType(LLVMVoidTypeInContext(l->st->ctx),
					  &l->ptr, 1, 0);

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i;
		     i = next) {
			enum wi_builtin b;
			LLVMValueRef v;

			next = LLVMGetNextInstruction(i);
			if (!LLVMIsACallInst(i))
				continue;
			b = wi_lookup(LLVMGetCalledValue(i));
			if (b == WI_NONE)
				continue;
			LLVMPositionBuilderBefore(l->b, i);
			if (b == WI_BARRIER) {
				if (!w->fg) {
					/* cannot happen: found beforehand */
					return -EIO;
				}
				LLVMBuildCall2(l->b, bt, barrier, &w->fg, 1,
					       "");
				LLVMInstructionEraseFromParent(i);
				continue;
			}
			v = lower_wi(l, w, b, i);
			if (LLVMTypeOf(v) != LLVMTypeOf(i))
				v = LLVMBuildIntCast2(l->b, v, LLVMTypeOf(i), 0,
						      "");
			LLVMReplaceAllUsesWith(i, v);
			LLVMInstructionEraseFromParent(i);
		}
	}
	return 0;
}

/* Does @p fn reach a barrier? Depth-first over direct calls. */
static bool reaches_barrier(LLVMValueRef fn, LLVMValueRef *seen, size_t *ns,
			    size_t cap)
{
	for (size_t i = 0; i < *ns; i++)
		if (seen[i] == fn)
			return false;
	if (*ns < cap)
		seen[(*ns)++] = fn;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef callee;

			if (!LLVMIsACallInst(i))
				continue;
			callee = LLVMGetCalledValue(i);
			if (!LLVMIsAFunction(callee))
				continue;
			if (wi_lookup(callee) == WI_BARRIER)
				return true;
			if (!LLVMIsDeclaration(callee) &&
			    reaches_barrier(callee, seen, ns, cap))
				return true;
		}
	return false;
}

int accelc_find_barriers(struct lower_state *st)
{
	size_t cap = 4096;
	LLVMValueRef *seen = malloc(cap * sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		size_t ns = 0;

		if (reaches_barrier(st->kernels[i].fn, seen, &ns, cap)) {
			st->kernels[i].info.flags |=
				ACCELC_KERNEL_HAS_BARRIERS;
			st->needs_fibers = true;
		}
	}
	free(seen);
	return 0;
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
static void tag_parallel(struct lower *l, struct wrapper *w)
{
	unsigned ag = LLVMGetMDKindIDInContext(l->st->ctx, "llvm.access.group",
					       17);
	LLVMValueRef agv = LLVMMetadataAsValue(l->st->ctx, l->access_group);
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(w->fn);

	for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(entry); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef p, base;

			if (LLVMIsALoadInst(i))
				p = LLVMGetOperand(i, 0);
			else if (LLVMIsAStoreInst(i))
				p = LLVMGetOperand(i, 1);
			else
				continue;
			if (LLVMGetVolatile(i) ||
			    LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
				continue;
			base = underlying(p);
			if (!base || LLVMIsAAllocaInst(base) ||
			    LLVMIsAPHINode(base) || LLVMIsASelectInst(base))
				continue;
			LLVMSetMetadata(i, ag, agv);
		}
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

static int run_passes(struct lower_state *st, const char *passes)
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

/* Calls to undefined OpenCL builtins would fail at link time with a
 * mangled name; say it in OpenCL terms instead. */
static int check_undefined(struct lower_state *st)
{
	int r = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(st->mod); f;
	     f = LLVMGetNextFunction(f)) {
		size_t len;
		const char *n = LLVMGetValueName2(f, &len);

		if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f) ||
		    LLVMGetIntrinsicID(f))
			continue;
		if (wi_lookup(f) != WI_NONE) {
			r = -EIO;
		} else if (len > 2 && n[0] == '_' && n[1] == 'Z') {
			strbuf_printf(st->log, "error: function '%.*s' is not "
				      "implemented by this device\n",
				      (int)len, n);
			r = r ? r : -ENOEXEC;
		}
	}
	return r;
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

int accelc_lower(struct lower_state *st)
{
	struct lower l = { .st = st };
	struct wrapper *ws = calloc(st->n_kernels ? st->n_kernels : 1,
				    sizeof(*ws));
	int r = 0;

	if (!ws)
		return -ENOMEM;
	l.w = ws;
	l.b = LLVMCreateBuilderInContext(st->ctx);
	l.i8 = LLVMInt8TypeInContext(st->ctx);
	l.i32 = LLVMInt32TypeInContext(st->ctx);
	l.i64 = LLVMInt64TypeInContext(st->ctx);
	l.ptr = LLVMPointerTypeInContext(st->ctx, 0);
	l.access_group = distinct_node(st->ctx);
	if (!l.access_group) {
		r = -EIO;
		goto out;
	}
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		struct kernel_desc *k = &st->kernels[i];

		ws[i].k = k;
		if (k->info.flags & ACCELC_KERNEL_HAS_BARRIERS)
			build_fiber_wrapper(&l, &ws[i]);
		else
			build_loop_wrapper(&l, &ws[i]);
		k->wg = LLVMGetNamedFunction(st->mod, k->info.wg_symbol);
		/* kernels must not keep their own name: the wrapper's symbol
		 * is derived from it and kernels calling kernels is legal */
		LLVMSetLinkage(k->fn, LLVMInternalLinkage);
	}
	set_inline_attrs(&l);
	r = verify(st);
	if (r)
		goto out;
	r = run_passes(st, "always-inline");
	if (r)
		goto out;
	internalize(&l);
	r = run_passes(st, "globaldce");
	if (r)
		goto out;
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		r = lower_builtins(&l, &ws[i]);
		if (r)
			goto out;
	}
	r = lower_locals(&l, ws, st->n_kernels);
	if (r)
		goto out;
	for (LLVMValueRef f = LLVMGetFirstFunction(st->mod); f;
	     f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && is_fiber_runtime(f))
			LLVMSetLinkage(f, LLVMInternalLinkage);
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		st->kernels[i].info.static_local_size = ws[i].local_size;
		if (!ws[i].fg)
			tag_parallel(&l, &ws[i]);
	}
	r = check_undefined(st);
	if (r == -EIO)
		strbuf_printf(st->log, "error: a work-item function is used "
			      "outside a kernel\n");
out:
	for (uint32_t i = 0; i < st->n_kernels; i++) {
		free(ws[i].locals);
		free(ws[i].local_ptrs);
	}
	free(ws);
	LLVMDisposeBuilder(l.b);
	return r;
}
