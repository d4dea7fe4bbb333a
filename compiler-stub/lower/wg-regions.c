/* SPDX-License-Identifier: MIT */
/*
 * Kernels with barriers as loops over work-items, the way PoCL's
 * work-item loops do it, instead of one fiber per work-item:
 *
 * - the kernel (inlined into K__wg) is cut at every barrier; a region is
 *   what runs from the kernel's start or from a barrier up to the next
 *   barrier or the end, following any control flow, loops included;
 * - each region is copied into its own z/y/x loop nest over the group's
 *   work-items, the x loop marked parallel, like a barrier-free kernel;
 * - after the loop nest, the barrier the work-items stopped at picks the
 *   next region. OpenCL requires every work-item of a group to reach the
 *   same barrier (barriers in loops and conditionals are uniform), so the
 *   last work-item's choice is everyone's;
 * - values that cross a barrier live in per-work-item context arrays
 *   (wg-context.c); those that stay inside one region stay registers.
 *
 * A region entered through a barrier in a loop contains the rest of the
 * loop body, the loop's back edge and its header again; this copying
 * plays the role of PoCL's barrier tail replication. Kernels whose copies
 * would grow too big keep running as fibers (accelc_regions_fit).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

/* beyond these the copies cost more compile time than fibers run time */
#define MAX_BARRIERS 63
#define MAX_BLOCKS_COPIED 20000
/* groups are often 16 wide in x: 8 lanes twice, not 32 at a time, which
 * would leave such loops scalar */
#define REGION_INTERLEAVE 2

static const char *const barrier_names[] = {
	"_Z7barrierj",
	"_Z18work_group_barrierj",
	"_Z18work_group_barrierj12memory_scope",
};

static bool is_barrier(LLVMValueRef callee)
{
	size_t len;
	const char *n;

	if (!callee || !LLVMIsAFunction(callee))
		return false;
	n = LLVMGetValueName2(callee, &len);
	for (size_t i = 0; i < sizeof(barrier_names) / sizeof(*barrier_names);
	     i++)
		if (strlen(barrier_names[i]) == len &&
		    !memcmp(barrier_names[i], n, len))
			return true;
	return false;
}

/* --- selection --- */

struct cost {
	uint64_t blocks, barriers;
};

/* Blocks and barriers of @p fn once everything is inlined (saturating:
 * OpenCL C has no recursion, but stay bounded on anything). */
static struct cost inlined_cost(LLVMValueRef fn, int depth)
{
	struct cost c = { 0, 0 };

	if (depth > 64) {
		c.blocks = c.barriers = UINT32_MAX;
		return c;
	}
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		c.blocks++;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef callee;
			struct cost s;

			/* a fresh private variable per execution (not
			 * from OpenCL C): context arrays cannot say that */
			if (LLVMIsAAllocaInst(i) &&
			    bb != LLVMGetEntryBasicBlock(fn)) {
				c.blocks = c.barriers = UINT32_MAX;
				return c;
			}
			if (!LLVMIsACallInst(i))
				continue;
			callee = LLVMGetCalledValue(i);
			if (is_barrier(callee)) {
				c.barriers++;
				continue;
			}
			if (!callee || !LLVMIsAFunction(callee) ||
			    LLVMIsDeclaration(callee))
				continue;
			s = inlined_cost(callee, depth + 1);
			c.blocks += s.blocks;
			c.barriers += s.barriers;
			if (c.blocks > UINT32_MAX || c.barriers > UINT32_MAX) {
				c.blocks = c.barriers = UINT32_MAX;
				return c;
			}
		}
	}
	return c;
}

bool accelc_regions_fit(struct kernel_desc *k)
{
	struct cost c = inlined_cost(k->fn, 0);

	/* every region may copy every block, at worst */
	return c.barriers <= MAX_BARRIERS &&
	       (c.barriers + 1) * c.blocks <= MAX_BLOCKS_COPIED;
}

/* --- the wrapper and the cuts --- */

int accelc_regions_wrapper(struct lower *l, struct wrapper *w,
			   struct regions **ret)
{
	struct kernel_desc *k = w->k;
	LLVMContextRef c = l->st->ctx;
	LLVMTypeRef params[2] = { l->ptr, l->ptr };
	struct regions *rg = calloc(1, sizeof(*rg));
	LLVMValueRef *vals = calloc(k->info.n_args + 1, sizeof(*vals));
	LLVMTypeRef pht = LLVMFunctionType(l->i64, &l->i32, 1, 0);
	LLVMValueRef ph = LLVMGetNamedFunction(l->st->mod, "accelc.lid");

	if (!rg || !vals) {
		free(rg);
		free(vals);
		return -ENOMEM;
	}
	rg->l = l;
	rg->w = w;
	rg->fn = accelc_wg_add_function(l, k->info.wg_symbol, params, 2);
	rg->prologue = LLVMAppendBasicBlockInContext(c, rg->fn, "entry");
	rg->body = LLVMAppendBasicBlockInContext(c, rg->fn, "kernel");
	w->fn = rg->fn;
	LLVMPositionBuilderAtEnd(l->b, rg->prologue);
	/* the builtins' uses of these become per-use loads later */
	if (!ph)
		ph = LLVMAddFunction(l->st->mod, "accelc.lid", pht);
	for (int d = 0; d < 3; d++) {
		LLVMValueRef a = LLVMConstInt(l->i32, d, 0);

		rg->ph[d] = LLVMBuildCall2(l->b, pht, ph, &a, 1, "lid.ph");
		w->lid[d] = rg->ph[d];
	}
	accelc_wg_load_args(l, k, LLVMGetParam(rg->fn, 0), vals);
	accelc_wg_load_ctx(l, w, LLVMGetParam(rg->fn, 1));
	LLVMBuildBr(l->b, rg->body);
	LLVMPositionBuilderAtEnd(l->b, rg->body);
	accelc_wg_call_kernel(l, k, vals);
	LLVMBuildRetVoid(l->b);
	free(vals);
	*ret = rg;
	return 0;
}

/* A phi's incoming block cannot be changed through the C API: rebuild. */
int accelc_phi_retarget(struct lower *l, LLVMValueRef phi,
			LLVMBasicBlockRef from, LLVMBasicBlockRef to)
{
	unsigned n = LLVMCountIncoming(phi);
	LLVMValueRef *v = calloc(n ? n : 1, sizeof(*v)), np;
	LLVMBasicBlockRef *bb = calloc(n ? n : 1, sizeof(*bb));
	int r = -ENOMEM;

	if (!v || !bb)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		v[i] = LLVMGetIncomingValue(phi, i);
		bb[i] = LLVMGetIncomingBlock(phi, i);
		if (bb[i] == from)
			bb[i] = to;
	}
	LLVMPositionBuilderBefore(l->b, phi);
	np = LLVMBuildPhi(l->b, LLVMTypeOf(phi), "");
	LLVMAddIncoming(np, v, bb, n);
	LLVMReplaceAllUsesWith(phi, np);
	LLVMInstructionEraseFromParent(phi);
	r = 0;
out:
	free(v);
	free(bb);
	return r;
}

int accelc_grow(void **p, size_t n, size_t size)
{
	void *q = realloc(*p, (n + 1) * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

/* B: [before, barrier, after] becomes B: [before] -> bar -> cont: [after] */
static int cut(struct regions *rg, LLVMValueRef call)
{
	struct lower *l = rg->l;
	LLVMContextRef c = l->st->ctx;
	LLVMBasicBlockRef b = LLVMGetInstructionParent(call);
	LLVMBasicBlockRef bar = LLVMAppendBasicBlockInContext(c, rg->fn,
							      "barrier");
	LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(c, rg->fn,
							       "region");
	LLVMValueRef term;

	if (accelc_grow((void **)&rg->bar, rg->nbar, sizeof(*rg->bar)) ||
	    accelc_grow((void **)&rg->cont, rg->nbar, sizeof(*rg->cont)))
		return -ENOMEM;
	LLVMMoveBasicBlockAfter(bar, b);
	LLVMMoveBasicBlockAfter(cont, bar);
	for (LLVMValueRef i = LLVMGetNextInstruction(call), next; i; i = next) {
		next = LLVMGetNextInstruction(i);
		LLVMInstructionRemoveFromParent(i);
		LLVMPositionBuilderAtEnd(l->b, cont);
		LLVMInsertIntoBuilder(l->b, i);
	}
	term = LLVMGetBasicBlockTerminator(cont);
	for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
		LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);

		for (LLVMValueRef i = LLVMGetFirstInstruction(succ), next;
		     i && LLVMIsAPHINode(i); i = next) {
			next = LLVMGetNextInstruction(i);
			if (accelc_phi_retarget(l, i, b, cont))
				return -ENOMEM;
		}
	}
	LLVMInstructionEraseFromParent(call);
	LLVMPositionBuilderAtEnd(l->b, b);
	LLVMBuildBr(l->b, bar);
	LLVMPositionBuilderAtEnd(l->b, bar);
	LLVMBuildBr(l->b, cont);
	rg->bar[rg->nbar] = bar;
	rg->cont[rg->nbar] = cont;
	rg->nbar++;
	return 0;
}

int accelc_regions_split(struct lower *l, struct regions *rg)
{
	LLVMValueRef *calls = NULL;
	size_t n = 0;
	int r = 0;

	(void)l;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(rg->fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			if (!LLVMIsACallInst(i) ||
			    !is_barrier(LLVMGetCalledValue(i)))
				continue;
			if (accelc_grow((void **)&calls, n, sizeof(*calls))) {
				free(calls);
				return -ENOMEM;
			}
			calls[n++] = i;
		}
	for (size_t i = 0; i < n && !r; i++)
		r = cut(rg, calls[i]);
	free(calls);
	if (!r)
		r = accelc_regions_loop_exits(rg, 2 * MAX_BARRIERS);
	return r;
}

void accelc_regions_free(struct regions *rg)
{
	if (!rg)
		return;
	free(rg->bar);
	free(rg->cont);
	free(rg->blocks);
	ptrmap_free(&rg->bidx);
	free(rg->in);
	free(rg->reaches);
	free(rg->cyclic);
	free(rg->uniform);
	free(rg);
}

/* --- regions --- */

static size_t block_index(struct regions *rg, LLVMBasicBlockRef bb)
{
	return (size_t)(uintptr_t)ptrmap_get(&rg->bidx, bb) - 1;
}

static int index_blocks(struct regions *rg)
{
	for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(rg->prologue); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		if (accelc_grow((void **)&rg->blocks, rg->nblocks,
			 sizeof(*rg->blocks)) ||
		    ptrmap_put(&rg->bidx, bb,
			       (void *)(uintptr_t)(rg->nblocks + 1)))
			return -ENOMEM;
		rg->blocks[rg->nblocks++] = bb;
	}
	return 0;
}

static LLVMBasicBlockRef region_start(struct regions *rg, size_t r)
{
	return r ? rg->cont[r - 1] : rg->body;
}

/* Which blocks each region runs, which barriers it ends at, and which
 * regions may run more than once (a cycle of regions: a barrier in a
 * loop). */
static int find_regions(struct regions *rg)
{
	size_t nr = rg->nbar + 1, nb = rg->nblocks, ne = rg->nbar + 1;
	size_t *stack = malloc(nb * sizeof(*stack)), sp;
	int *barj = calloc(nb, sizeof(*barj));
	uint8_t *reach = calloc(nr * nr, 1);
	int r = -ENOMEM;

	rg->in = calloc(nr * nb, 1);
	rg->reaches = calloc(nr * ne, 1);
	rg->cyclic = calloc(nr, 1);
	if (!stack || !barj || !reach || !rg->in || !rg->reaches ||
	    !rg->cyclic)
		goto out;
	for (size_t j = 0; j < rg->nbar; j++)
		barj[block_index(rg, rg->bar[j])] = (int)j + 1;
	for (size_t g = 0; g < nr; g++) {
		uint8_t *in = rg->in + g * nb;

		sp = 0;
		stack[sp++] = block_index(rg, region_start(rg, g));
		in[stack[0]] = 1;
		while (sp) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(
				rg->blocks[stack[--sp]]);

			if (LLVMGetInstructionOpcode(t) == LLVMRet)
				rg->reaches[g * ne + rg->nbar] = 1;
			for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
				size_t b = block_index(
					rg, LLVMGetSuccessor(t, s));

				if (barj[b]) {
					rg->reaches[g * ne + barj[b] - 1] = 1;
					reach[g * nr + barj[b]] = 1;
				} else if (!in[b]) {
					in[b] = 1;
					stack[sp++] = b;
				}
			}
		}
	}
	/* transitive closure: nr is small */
	for (size_t k = 0; k < nr; k++)
		for (size_t i = 0; i < nr; i++) {
			if (i == k || !reach[i * nr + k])
				continue;
			for (size_t j = 0; j < nr; j++)
				reach[i * nr + j] |= reach[k * nr + j];
		}
	for (size_t g = 0; g < nr; g++)
		rg->cyclic[g] = reach[g * nr + g];
	r = 0;
out:
	free(stack);
	free(barj);
	free(reach);
	return r;
}

/* What a region's loop nest is made of. */
struct nest {
	LLVMBasicBlockRef pre, x, latch;
	LLVMBasicBlockRef *exit; /* per barrier, built on demand */
	LLVMBasicBlockRef end;   /* the kernel returned */
};

static LLVMBasicBlockRef exit_block(struct regions *rg, struct nest *n,
				    size_t j)
{
	struct lower *l = rg->l;

	if (!n->exit[j]) {
		n->exit[j] = LLVMAppendBasicBlockInContext(
			l->st->ctx, rg->fn, j < rg->nbar ? "to.barrier" :
							   "to.end");
		LLVMPositionBuilderAtEnd(l->b, n->exit[j]);
		LLVMBuildStore(l->b, LLVMConstInt(l->i32, j, 0), rg->next);
		LLVMBuildBr(l->b, n->latch);
	}
	return n->exit[j];
}

/* The blocks of region @p g, copied into the x loop of @p n. */
static int copy_region(struct regions *rg, size_t g, struct nest *n,
		       struct ptrmap *map)
{
	struct lower *l = rg->l;
	size_t nb = rg->nblocks;
	const uint8_t *in = rg->in + g * nb;
	LLVMBasicBlockRef *nbk = calloc(nb, sizeof(*nbk));

	if (!nbk)
		return -ENOMEM;
	ptrmap_clear(map);
	for (size_t b = 0; b < nb; b++)
		if (in[b])
			nbk[b] = LLVMAppendBasicBlockInContext(
				l->st->ctx, rg->fn, "r");
	for (size_t b = 0; b < nb; b++) {
		if (!in[b])
			continue;
		LLVMPositionBuilderAtEnd(l->b, nbk[b]);
		for (LLVMValueRef i = LLVMGetFirstInstruction(rg->blocks[b]);
		     i; i = LLVMGetNextInstruction(i)) {
			LLVMValueRef c;

			if (LLVMGetInstructionOpcode(i) == LLVMRet) {
				LLVMBasicBlockRef e = exit_block(rg, n,
								 rg->nbar);

				LLVMPositionBuilderAtEnd(l->b, nbk[b]);
				LLVMBuildBr(l->b, e);
				continue;
			}
			c = LLVMInstructionClone(i);
			LLVMInsertIntoBuilder(l->b, c);
			for (int o = 0; o < LLVMGetNumOperands(c); o++) {
				LLVMValueRef op = LLVMGetOperand(c, o), m;

				if (LLVMValueIsBasicBlock(op))
					continue;
				m = ptrmap_get(map, op);
				if (m)
					LLVMSetOperand(c, o, m);
			}
			if (LLVMIsATerminatorInst(i)) {
				for (unsigned s = 0;
				     s < LLVMGetNumSuccessors(i); s++) {
					LLVMBasicBlockRef t =
						LLVMGetSuccessor(i, s);
					size_t tb = block_index(rg, t);
					LLVMBasicBlockRef nt = nbk[tb];

					for (size_t j = 0; !in[tb] &&
					     j < rg->nbar; j++)
						if (rg->bar[j] == t)
							nt = exit_block(rg, n,
									j);
					LLVMSetSuccessor(c, s, nt);
				}
				LLVMPositionBuilderAtEnd(l->b, nbk[b]);
			} else if (ptrmap_put(map, i, c)) {
				free(nbk);
				return -ENOMEM;
			}
		}
	}
	LLVMPositionBuilderAtEnd(l->b, n->x);
	LLVMBuildBr(l->b, nbk[block_index(rg, region_start(rg, g))]);
	free(nbk);
	return 0;
}

/*
 * pre -> z -> y -> x: store the local id, run the region copy, which
 * stores the barrier reached and goes to the x latch -> y, z latches ->
 * done: on to the region after that barrier, or @p out.
 */
static int build_nest(struct regions *rg, size_t g, LLVMBasicBlockRef *pre,
		      LLVMBasicBlockRef out, struct ptrmap *map)
{
	struct lower *l = rg->l;
	struct wrapper *w = rg->w;
	LLVMContextRef c = l->st->ctx;
	LLVMBasicBlockRef zh = LLVMAppendBasicBlockInContext(c, rg->fn, "z");
	LLVMBasicBlockRef yh = LLVMAppendBasicBlockInContext(c, rg->fn, "y");
	LLVMBasicBlockRef yl, zl, done, dflt = out;
	LLVMValueRef zero = LLVMConstInt(l->i64, 0, 0);
	LLVMValueRef one = LLVMConstInt(l->i64, 1, 0);
	LLVMValueRef lid[3], nx, ny, nz, br, sw, v[2], *start, xb;
	LLVMBasicBlockRef bb[2];
	struct nest n = { .pre = pre[g] };
	const uint8_t *reaches = rg->reaches + g * (rg->nbar + 1);
	int r;

	n.exit = calloc(rg->nbar + 1, sizeof(*n.exit));
	start = calloc(rg->n_uniform + 1, sizeof(*start));
	if (!n.exit || !start) {
		free(n.exit);
		free(start);
		return -ENOMEM;
	}
	n.x = LLVMAppendBasicBlockInContext(c, rg->fn, "x");
	n.latch = LLVMAppendBasicBlockInContext(c, rg->fn, "x.latch");
	yl = LLVMAppendBasicBlockInContext(c, rg->fn, "y.latch");
	zl = LLVMAppendBasicBlockInContext(c, rg->fn, "z.latch");
	done = LLVMAppendBasicBlockInContext(c, rg->fn, "region.done");
	LLVMPositionBuilderAtEnd(l->b, n.pre);
	/* uniform variables: every work-item starts from the value at the
	 * region's start */
	for (size_t k = 0; k < rg->n_uniform; k++)
		start[k] = LLVMBuildLoad2(
			l->b, LLVMGetAllocatedType(rg->uniform[k]),
			rg->uniform[k], "uniform");
	xb = accelc_regions_x_bound(rg, g, start);
	LLVMBuildBr(l->b, zh);
	LLVMPositionBuilderAtEnd(l->b, zh);
	lid[2] = LLVMBuildPhi(l->b, l->i64, "lz");
	LLVMBuildBr(l->b, yh);
	LLVMPositionBuilderAtEnd(l->b, yh);
	lid[1] = LLVMBuildPhi(l->b, l->i64, "ly");
	LLVMBuildBr(l->b, n.x);
	LLVMPositionBuilderAtEnd(l->b, n.x);
	lid[0] = LLVMBuildPhi(l->b, l->i64, "lx");
	for (int d = 0; d < 3; d++)
		LLVMBuildStore(l->b, lid[d], rg->cur[d]);
	for (size_t k = 0; k < rg->n_uniform; k++)
		LLVMBuildStore(l->b, start[k], rg->uniform[k]);
	free(start);
	r = copy_region(rg, g, &n, map);
	if (r) {
		free(n.exit);
		return r;
	}
	LLVMPositionBuilderAtEnd(l->b, n.latch);
	nx = LLVMBuildNUWAdd(l->b, lid[0], one, "lx.next");
	br = LLVMBuildCondBr(l->b,
			     LLVMBuildICmp(l->b, LLVMIntULT, nx,
					   xb ? xb : w->ls[0], ""),
			     n.x, yl);
	LLVMSetMetadata(br, LLVMGetMDKindIDInContext(c, "llvm.loop", 9),
			accelc_wg_loop_id(l, REGION_INTERLEAVE));
	LLVMPositionBuilderAtEnd(l->b, yl);
	ny = LLVMBuildNUWAdd(l->b, lid[1], one, "ly.next");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntULT, ny, w->ls[1], ""),
			yh, zl);
	LLVMPositionBuilderAtEnd(l->b, zl);
	nz = LLVMBuildNUWAdd(l->b, lid[2], one, "lz.next");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntULT, nz, w->ls[2], ""),
			zh, done);
	v[0] = zero, v[1] = nz, bb[0] = n.pre, bb[1] = zl;
	LLVMAddIncoming(lid[2], v, bb, 2);
	v[1] = ny, bb[0] = zh, bb[1] = yl;
	LLVMAddIncoming(lid[1], v, bb, 2);
	v[1] = nx, bb[0] = yh, bb[1] = n.latch;
	LLVMAddIncoming(lid[0], v, bb, 2);

	/* every work-item stopped at the same barrier: ask the last one */
	LLVMPositionBuilderAtEnd(l->b, done);
	if (!reaches[rg->nbar])
		for (size_t j = 0; j < rg->nbar && dflt == out; j++)
			if (reaches[j])
				dflt = pre[j + 1];
	sw = LLVMBuildSwitch(l->b, LLVMBuildLoad2(l->b, l->i32, rg->next, ""),
			     dflt, (unsigned)rg->nbar);
	for (size_t j = 0; j < rg->nbar; j++)
		if (reaches[j] && pre[j + 1] != dflt)
			LLVMAddCase(sw, LLVMConstInt(l->i32, j, 0),
				    pre[j + 1]);
	free(n.exit);
	return 0;
}

/* The original blocks are copied: drop them (no value crosses blocks
 * any more, so clearing each block bottom-up leaves no dangling use). */
static void drop_originals(struct regions *rg)
{
	for (size_t b = 0; b < rg->nblocks; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(rg->blocks[b]);

		if (t)
			LLVMInstructionEraseFromParent(t);
	}
	for (size_t b = 0; b < rg->nblocks; b++) {
		LLVMValueRef i;

		while ((i = LLVMGetLastInstruction(rg->blocks[b])))
			LLVMInstructionEraseFromParent(i);
		LLVMDeleteBasicBlock(rg->blocks[b]);
	}
}

/* Accesses in a region's x loop are independent across work-items, by
 * OpenCL's rules for global and local memory and by construction for
 * context arrays (sized by the group); not so for the scalars every
 * work-item shares (the loop's own, and values that stay inside one
 * region until mem2reg makes them registers): fixed-size allocas, only
 * ever accessed directly. */
static bool shared_scalar(LLVMValueRef p)
{
	return LLVMIsAAllocaInst(p) && LLVMIsAConstantInt(LLVMGetOperand(p, 0));
}

int accelc_regions_build(struct lower *l, struct regions *rg)
{
	LLVMContextRef c = l->st->ctx;
	size_t nr = rg->nbar + 1;
	LLVMBasicBlockRef *pre = calloc(nr, sizeof(*pre));
	LLVMBasicBlockRef start, after, out, empty;
	struct ptrmap map = { 0 };
	int r = -ENOMEM;

	if (!pre)
		goto fail;
	r = accelc_regions_rehome_ids(rg);
	if (r)
		goto fail;
	accelc_regions_hoist_uniform(rg);
	r = accelc_regions_demote(rg);
	if (r)
		goto fail;
	r = index_blocks(rg);
	if (r)
		goto fail;
	r = find_regions(rg);
	if (!r)
		r = accelc_regions_find_uniform(rg);
	if (r)
		goto fail;
	start = LLVMAppendBasicBlockInContext(c, rg->fn, "start");
	r = accelc_regions_context(rg, start, &after);
	if (r)
		goto fail;
	out = LLVMAppendBasicBlockInContext(c, rg->fn, "out");
	for (size_t g = 0; g < nr; g++)
		pre[g] = LLVMAppendBasicBlockInContext(c, rg->fn, "region");
	LLVMPositionBuilderAtEnd(l->b, after);
	LLVMBuildBr(l->b, pre[0]);
	for (size_t g = 0; g < nr && !r; g++)
		r = build_nest(rg, g, pre, out, &map);
	if (r)
		goto fail;
	LLVMPositionBuilderAtEnd(l->b, out);
	if (rg->heap) {
		LLVMTypeRef ft = LLVMFunctionType(
			LLVMVoidTypeInContext(c), &l->ptr, 1, 0);
		LLVMValueRef f = LLVMGetNamedFunction(l->st->mod, "free");

		if (!f)
			f = LLVMAddFunction(l->st->mod, "free", ft);
		LLVMBuildCall2(l->b, ft, f, &rg->heap, 1, "");
	}
	LLVMBuildRetVoid(l->b);
	/* the prologue now goes to start (or returns: no work-items) */
	empty = LLVMAppendBasicBlockInContext(c, rg->fn, "empty");
	LLVMPositionBuilderAtEnd(l->b, empty);
	LLVMBuildRetVoid(l->b);
	LLVMInstructionEraseFromParent(
		LLVMGetBasicBlockTerminator(rg->prologue));
	LLVMPositionBuilderAtEnd(l->b, rg->prologue);
	LLVMBuildCondBr(l->b,
			LLVMBuildICmp(l->b, LLVMIntEQ, rg->n_items,
				      LLVMConstInt(l->i64, 0, 0), ""),
			empty, start);
	drop_originals(rg);
	accelc_wg_tag_parallel(l, rg->fn, shared_scalar);
fail:
	ptrmap_free(&map);
	free(pre);
	if (r == -ENOMEM)
		strbuf_printf(l->st->log, "error: out of memory\n");
	return r;
}
