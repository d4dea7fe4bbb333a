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
 * This file holds the lowering passes of the table (passes.c) and picks
 * each kernel's wrapper; wg-wrappers.c builds the plain loop and fiber
 * wrappers, wg-builtins.c replaces the builtins inside the wrappers and
 * relocates the __local variables.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "accelc-private.h"
#include "pipeline.h"
#include "wg-regions.h"

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
		if (!k->spins) {
			r = accelc_implicit_barriers(&c->l, k);
			if (r < 0)
				return r;
			implicit = r > 0;
		}
		if (k->spins) {
			/* the others must run while it waits */
			accelc_wg_fiber_wrapper(&c->l, &c->ws[i]);
		} else if (implicit ||
			   ((k->info.flags & ACCELC_KERNEL_HAS_BARRIERS) &&
			    accelc_regions_fit(k) &&
			    !accelc_subgroups_divergent(k))) {
			r = accelc_regions_wrapper(&c->l, &c->ws[i], &c->rg[i]);
			if (r)
				return r;
			c->any_regions = true;
		} else if (k->info.flags & ACCELC_KERNEL_HAS_BARRIERS)
			accelc_wg_fiber_wrapper(&c->l, &c->ws[i]);
		else
			accelc_wg_loop_wrapper(&c->l, &c->ws[i]);
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
