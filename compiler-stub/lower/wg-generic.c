/* SPDX-License-Identifier: MIT */
/*
 * The generic address space's builtins: to_global(), to_local(),
 * to_private() and get_fence(). On the CPU device every address space is
 * one flat address space, so they decide by where the pointer points:
 *
 * - local: inside this work-group's ctx->local_mem block;
 * - private: inside the frame of the function running the work-item (all
 *   code is inlined into it by now), from its lowest alloca (or the stack
 *   pointer) up to the frame's top (accelc_arch_frame_top), or inside the
 *   block of context arrays the regions malloc for values live across
 *   barriers (wg-context.c);
 * - global: anything else (buffers, program-scope variables).
 *
 * Clang emits __to_global(p), __to_local(p), __to_private(p) and the
 * mangled get_fence(); each call becomes a few compares in the wrapper
 * (K__wg, or K__item for fibers) after all other lowering, when private
 * objects have their final home.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/accel-wg.h>

#include "accelc-private.h"
#include "target-arch.h"
#include "wg-regions.h"

/* OpenCL's CLK_LOCAL_MEM_FENCE and CLK_GLOBAL_MEM_FENCE */
#define FENCE_LOCAL 1u
#define FENCE_GLOBAL 2u
/*
 * The ABI's red zone (x86-64: 128 bytes, AArch64: none): a leaf function
 * may keep its frame in these bytes under the stack pointer. The copies
 * of K__wg made after this lowering (32-bit ids and streaming variants)
 * inline it into functions of their own, without any attribute of
 * K__wg's such as noredzone.
 */
#define RED_ZONE accelc_arch_red_zone

enum gen_op { GEN_NONE, GEN_GLOBAL, GEN_LOCAL, GEN_PRIVATE, GEN_FENCE };

static const struct {
	const char *name;
	enum gen_op op;
} gen_names[] = {
	{ "__to_global", GEN_GLOBAL },
	{ "__to_local", GEN_LOCAL },
	{ "__to_private", GEN_PRIVATE },
	{ "_Z9get_fencePU9CLgenericv", GEN_FENCE },
	{ "_Z9get_fencePU9CLgenericKv", GEN_FENCE },
};

static enum gen_op gen_lookup(LLVMValueRef call)
{
	LLVMValueRef f = LLVMGetCalledValue(call);
	size_t len;
	const char *n;

	if (!f || !LLVMIsAFunction(f) || !LLVMIsDeclaration(f) ||
	    LLVMGetNumArgOperands(call) != 1)
		return GEN_NONE;
	n = LLVMGetValueName2(f, &len);
	for (size_t i = 0; i < sizeof(gen_names) / sizeof(gen_names[0]); i++)
		if (!strcmp(n, gen_names[i].name))
			return gen_names[i].op;
	return GEN_NONE;
}

/* What the checks share in one function, built once at its entry. */
struct gen_ctx {
	struct lower *l;
	LLVMValueRef fn;
	LLVMValueRef lm, lm_size;   /* local: base and size (i64) */
	LLVMValueRef sp, frame;     /* private: stack bounds (i64) */
	bool sp_per_call;           /* sp read at each call, not once */
	LLVMValueRef heap, heap_size;
	LLVMValueRef frameaddr_fn, stacksave_fn;
	LLVMTypeRef frameaddr_ty, stacksave_ty;
};

static LLVMValueRef ctx_field(struct lower *l, LLVMValueRef ctx, size_t off)
{
	LLVMValueRef o = LLVMConstInt(l->i64, off, 0);

	return LLVMBuildGEP2(l->b, l->i8, ctx, &o, 1, "");
}

static LLVMValueRef load8(struct lower *l, LLVMTypeRef t, LLVMValueRef p,
			  const char *name)
{
	LLVMValueRef v = LLVMBuildLoad2(l->b, t, p, name);

	LLVMSetAlignment(v, 8);
	return v;
}

/*
 * The local block's bounds. local_mem_size only exists since ABI 3: an
 * older runtime's ctx gives the static __local variables' part (the load
 * picks its address, so that it never reads past an older ctx).
 */
static void build_local_bounds(struct gen_ctx *g, LLVMValueRef ctx)
{
	struct lower *l = g->l;
	LLVMValueRef abi, has, p;

	abi = LLVMBuildLoad2(l->b, l->i32,
			     ctx_field(l, ctx, offsetof(struct accel_wg_ctx,
							abi_version)),
			     "abi");
	LLVMSetAlignment(abi, 4);
	has = LLVMBuildICmp(l->b, LLVMIntUGE, abi, LLVMConstInt(l->i32, 3, 0),
			    "");
	p = LLVMBuildSelect(
		l->b, has,
		ctx_field(l, ctx, offsetof(struct accel_wg_ctx,
					   local_mem_size)),
		ctx_field(l, ctx, offsetof(struct accel_wg_ctx,
					   static_local_size)),
		"");
	g->lm_size = load8(l, l->i64, p, "local.size");
	g->lm = LLVMBuildPtrToInt(
		l->b,
		load8(l, l->ptr,
		      ctx_field(l, ctx, offsetof(struct accel_wg_ctx,
						 local_mem)),
		      "local.mem"),
		l->i64, "");
}

static LLVMValueRef stack_pointer(struct gen_ctx *g)
{
	return LLVMBuildPtrToInt(
		g->l->b,
		LLVMBuildCall2(g->l->b, g->stacksave_ty, g->stacksave_fn, NULL,
			       0, "sp"),
		g->l->i64, "");
}

/*
 * The lower bound of the frame, read once after the entry block's last
 * alloca: static allocas (constant size, entry block) are in the fixed
 * frame, above the stack pointer anywhere in the function, and the
 * dynamic ones there (the regions' context arrays) have run by then, the
 * last one lowest. @return that alloca, or NULL; *dyn: it is dynamic;
 * *elsewhere: an alloca outside the entry block, below the stack pointer
 * only once it ran.
 */
static LLVMValueRef last_entry_alloca(LLVMValueRef fn, bool *dyn,
				      bool *elsewhere)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
	LLVMValueRef last = NULL;

	*dyn = *elsewhere = false;
	for (LLVMBasicBlockRef bb = entry; bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			if (!LLVMIsAAllocaInst(i))
				continue;
			if (bb != entry) {
				*elsewhere = true;
				continue;
			}
			last = i;
			if (!LLVMIsAConstant(LLVMGetOperand(i, 0)))
				*dyn = true;
		}
	return last;
}

/* Is one of @p calls in the entry block before @p pos? */
static bool call_before(LLVMValueRef fn, LLVMValueRef pos,
			LLVMValueRef *calls, size_t n)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);

	for (size_t k = 0; k < n; k++) {
		if (LLVMGetInstructionParent(calls[k]) != entry)
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(entry);
		     i && i != pos; i = LLVMGetNextInstruction(i))
			if (i == calls[k])
				return true;
	}
	return false;
}

static int gen_ctx_init(struct gen_ctx *g, struct lower *l, LLVMValueRef fn,
			LLVMValueRef heap, LLVMValueRef *calls, size_t n)
{
	LLVMModuleRef m = l->st->mod;
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
	LLVMValueRef last, pos, zero;
	bool dyn;
	unsigned id;

	memset(g, 0, sizeof(*g));
	g->l = l;
	g->fn = fn;
	id = LLVMLookupIntrinsicID("llvm.stacksave", 14);
	g->stacksave_fn = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
	g->stacksave_ty = LLVMIntrinsicGetType(l->st->ctx, id, NULL, 0);
	id = LLVMLookupIntrinsicID(accelc_arch_frame_top,
				   strlen(accelc_arch_frame_top));
	g->frameaddr_fn = LLVMGetIntrinsicDeclaration(m, id, &l->ptr, 1);
	g->frameaddr_ty = LLVMIntrinsicGetType(l->st->ctx, id, &l->ptr, 1);
	if (!g->stacksave_fn || !g->frameaddr_fn) {
		strbuf_printf(l->st->log, "error: internal: no stack "
			      "intrinsics\n");
		return -EIO;
	}

	last = last_entry_alloca(fn, &dyn, &g->sp_per_call);
	pos = last ? LLVMGetNextInstruction(last) :
		     LLVMGetFirstInstruction(entry);
	if (call_before(fn, pos, calls, n)) {
		/* not seen in practice: everything at the top, then */
		pos = LLVMGetFirstInstruction(entry);
		g->sp_per_call = true;
	}
	LLVMPositionBuilderBefore(l->b, pos);
	build_local_bounds(g, LLVMGetParam(fn, 1));
	zero = LLVMConstInt(l->i32, 0, 0);
	/* llvm.frameaddress(0), or llvm.sponentry() */
	g->frame = LLVMBuildPtrToInt(
		l->b, LLVMBuildCall2(l->b, g->frameaddr_ty, g->frameaddr_fn,
				     &zero,
				     LLVMCountParamTypes(g->frameaddr_ty),
				     "frame"),
		l->i64, "");
	if (!g->sp_per_call && dyn)
		/* an address, not a call, which the optimiser would sink
		 * into the work-item loops and keep them scalar */
		g->sp = LLVMBuildPtrToInt(l->b, last, l->i64, "");
	else if (!g->sp_per_call)
		g->sp = stack_pointer(g);
	if (heap && LLVMIsACallInst(heap) &&
	    LLVMGetBasicBlockParent(LLVMGetInstructionParent(heap)) == fn &&
	    LLVMGetNextInstruction(heap)) {
		/* right after the malloc, whose argument is its size */
		LLVMPositionBuilderBefore(l->b, LLVMGetNextInstruction(heap));
		g->heap = LLVMBuildPtrToInt(l->b, heap, l->i64, "");
		g->heap_size = LLVMGetOperand(heap, 0);
	}
	return 0;
}

/* (p - base) < size, unsigned: one compare per range */
static LLVMValueRef in_range(struct lower *l, LLVMValueRef p,
			     LLVMValueRef base, LLVMValueRef size)
{
	return LLVMBuildICmp(l->b, LLVMIntULT, LLVMBuildSub(l->b, p, base, ""),
			     size, "");
}

/* from the red zone under the stack pointer up to the frame's top */
static LLVMValueRef is_private(struct gen_ctx *g, LLVMValueRef p)
{
	struct lower *l = g->l;
	LLVMValueRef sp = g->sp_per_call ? stack_pointer(g) : g->sp, r;

	sp = LLVMBuildSub(l->b, sp, LLVMConstInt(l->i64, RED_ZONE, 0), "");
	r = in_range(l, p, sp, LLVMBuildSub(l->b, g->frame, sp, ""));
	if (g->heap)
		r = LLVMBuildOr(l->b, r,
				in_range(l, p, g->heap, g->heap_size), "");
	return r;
}

/* @p v (generic) as the call's result type, or NULL where @p ok is false */
static LLVMValueRef cast_or_null(struct lower *l, LLVMValueRef call,
				 LLVMValueRef v, LLVMValueRef ok)
{
	LLVMTypeRef t = LLVMTypeOf(call);

	if (LLVMGetPointerAddressSpace(t) !=
	    LLVMGetPointerAddressSpace(LLVMTypeOf(v)))
		v = LLVMBuildAddrSpaceCast(l->b, v, t, "");
	return LLVMBuildSelect(l->b, ok, v, LLVMConstNull(t), "");
}

static int lower_call(struct gen_ctx *g, LLVMValueRef call, enum gen_op op)
{
	struct lower *l = g->l;
	LLVMValueRef v = LLVMGetOperand(call, 0), p, local, r;
	LLVMTypeRef t = LLVMTypeOf(call);

	if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMPointerTypeKind ||
	    LLVMGetTypeKind(t) !=
		    (op == GEN_FENCE ? LLVMIntegerTypeKind :
				       LLVMPointerTypeKind)) {
		strbuf_printf(l->st->log, "error: internal: unexpected "
			      "signature of an address space builtin\n");
		return -EIO;
	}
	LLVMPositionBuilderBefore(l->b, call);
	p = LLVMBuildPtrToInt(l->b, v, l->i64, "");
	local = in_range(l, p, g->lm, g->lm_size);
	switch (op) {
	case GEN_LOCAL:
		r = cast_or_null(l, call, v, local);
		break;
	case GEN_PRIVATE:
		r = cast_or_null(l, call, v, is_private(g, p));
		break;
	case GEN_GLOBAL:
		r = LLVMBuildOr(l->b, local, is_private(g, p), "");
		r = cast_or_null(l, call, v, LLVMBuildNot(l->b, r, ""));
		break;
	default:
		/* private memory is the work-item's own: any fence will
		 * do, and the global one is valid wherever a fence is */
		r = LLVMBuildSelect(l->b, local,
				    LLVMConstInt(t, FENCE_LOCAL, 0),
				    LLVMConstInt(t, FENCE_GLOBAL, 0), "fence");
		break;
	}
	LLVMReplaceAllUsesWith(call, r);
	LLVMInstructionEraseFromParent(call);
	return 0;
}

/* The calls to lower in @p fn; @p *n of them (malloc'ed). */
static int collect(LLVMValueRef fn, LLVMValueRef **ret, size_t *n)
{
	*ret = NULL;
	*n = 0;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			if (!LLVMIsACallInst(i) || gen_lookup(i) == GEN_NONE)
				continue;
			if (accelc_grow((void **)ret, *n, sizeof(**ret)))
				return -ENOMEM;
			(*ret)[(*n)++] = i;
		}
	return 0;
}

static void drop_unused_declarations(LLVMModuleRef m)
{
	for (size_t i = 0; i < sizeof(gen_names) / sizeof(gen_names[0]); i++) {
		LLVMValueRef f = LLVMGetNamedFunction(m, gen_names[i].name);

		if (f && LLVMIsDeclaration(f) && !LLVMGetFirstUse(f))
			LLVMDeleteFunction(f);
	}
}

int accelc_lower_generic(struct lower *l, struct wrapper *w,
			 LLVMValueRef heap)
{
	struct gen_ctx g;
	LLVMValueRef *calls;
	size_t n;
	int r = collect(w->fn, &calls, &n);

	if (r || !n) {
		free(calls);
		return r;
	}
	r = gen_ctx_init(&g, l, w->fn, heap, calls, n);
	for (size_t i = 0; i < n && !r; i++)
		r = lower_call(&g, calls[i], gen_lookup(calls[i]));
	free(calls);
	drop_unused_declarations(l->st->mod);
	return r;
}
