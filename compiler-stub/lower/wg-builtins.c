/* SPDX-License-Identifier: MIT */
/*
 * Work-item builtins in the work-group functions wg-wrappers.c builds:
 * get_global_id() and friends become loop variables and ctx fields,
 * barrier() a fiber switch. Also: which kernels reach a barrier, the move
 * of kernel-scope __local variables (addrspace(3) globals) into
 * ctx->local_mem (else threads running different work-groups would share
 * them), and the check that no undefined builtin is called.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

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
	WI_SG_WIDTH,
	WI_SG_CONVERGED,
	WI_SG_STEP_X,
	WI_SG_SITE,
	WI_SG_WAIT,
	WI_SG_DONE,
	WI_SPIN_YIELD,
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
	/* builtins/sub-group.h: the kernel's sub-group size */
	{ "__accel_sub_group_width", WI_SG_WIDTH },
	/* do all sub-groups reach every collective
	 * together (not with fibers, wg-subgroups.c)? */
	{ "__accel_sub_groups_converged", WI_SG_CONVERGED },
	/* the x ids that run a sub-group collective's step: one, the first
	 * work-item doing every sub-group's, where they converge */
	{ "__accel_sub_group_step_x", WI_SG_STEP_X },
	/* with fibers: a number for each call of a sub-group function, and
	 * the waits for the sub-group (runtime/fiber.c) */
	{ "__accel_sub_group_site", WI_SG_SITE },
	{ "__accel_sub_group_wait", WI_SG_WAIT },
	{ "__accel_sub_group_done", WI_SG_DONE },
	/* a spinning loop's back edge (wg-spin.c): let the others run */
	{ ACCELC_SPIN_YIELD, WI_SPIN_YIELD },
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
	case WI_SG_WIDTH:
		return LLVMConstInt(l->i32, w->k->info.sub_group_size, 0);
	case WI_SG_CONVERGED:
		return LLVMConstInt(l->i32, !w->fg, 0);
	case WI_SG_STEP_X:
		return w->fg ? w->ls[0] : one;
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

/* The later of two instructions of one block (either may be NULL). */
static LLVMValueRef later(LLVMValueRef a, LLVMValueRef b)
{
	if (!a || !b)
		return a ? a : b;
	for (LLVMValueRef i = a; i; i = LLVMGetNextInstruction(i))
		if (i == b)
			return b;
	return a;
}

static bool is_cast(LLVMOpcode opc)
{
	return (opc >= LLVMTrunc && opc <= LLVMBitCast) ||
	       opc == LLVMAddrSpaceCast;
}

static bool is_binary(LLVMOpcode opc)
{
	return opc >= LLVMAdd && opc <= LLVMXor;
}

/*
 * The value standing for @p c (the __local global @p g, or a constant
 * expression over it: clang folds pointer comparisons and arithmetic on
 * its address into those) inside wrapper @p w: built in the entry block
 * from the wrapper's local_mem, so it dominates every use. Building from
 * a non-constant base keeps the IR builder from folding it back.
 */
static LLVMValueRef materialize(struct lower *l, struct wrapper *w,
				LLVMValueRef g, LLVMValueRef c)
{
	LLVMValueRef ops[16], last = NULL, v;
	int n;
	LLVMOpcode opc;

	if (c == g)
		return local_ptr(l, w, g);
	if (!LLVMIsAConstantExpr(c))
		return NULL;
	n = LLVMGetNumOperands(c);
	if (n < 1 || n > 16)
		return NULL;
	for (int k = 0; k < n; k++) {
		LLVMValueRef m = materialize(l, w, g, LLVMGetOperand(c, k));

		ops[k] = m ? m : LLVMGetOperand(c, k);
		last = m ? later(last, m) : last;
	}
	if (!last)
		return NULL;
	/* after every operand built here (all in the entry block) */
	LLVMPositionBuilderBefore(l->b, LLVMGetNextInstruction(last));
	opc = LLVMGetConstOpcode(c);
	if (opc == LLVMGetElementPtr) {
		v = LLVMBuildGEP2(l->b, LLVMGetGEPSourceElementType(c), ops[0],
				  ops + 1, (unsigned)n - 1, "");
		LLVMSetIsInBounds(v, LLVMIsInBounds(c));
		return v;
	}
	if (is_cast(opc) && n == 1)
		return LLVMBuildCast(l->b, opc, ops[0], LLVMTypeOf(c), "");
	if (opc == LLVMICmp && n == 2)
		return LLVMBuildICmp(l->b, LLVMGetICmpPredicate(c), ops[0],
				     ops[1], "");
	if (is_binary(opc) && n == 2)
		return LLVMBuildBinOp(l->b, opc, ops[0], ops[1], "");
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

int accelc_lower_locals(struct lower *l, struct wrapper *ws, uint32_t nw)
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

/* Builtins whose value depends on how the NDRange is cut into groups. */
static bool reveals_group(enum wi_builtin b)
{
	switch (b) {
	case WI_LOCAL_ID:
	case WI_GROUP_ID:
	case WI_LOCAL_SIZE:
	case WI_ENQUEUED_LOCAL_SIZE:
	case WI_NUM_GROUPS:
	case WI_LOCAL_LINEAR_ID:
	case WI_BARRIER:
		return true;
	default:
		return false;
	}
}

/*
 * The sub-group functions' waits: calls into the fiber runtime with the
 * fiber group first, else (regions, where they are not reached) nothing.
 */
static int lower_sg_wait(struct lower *l, struct wrapper *w,
			 enum wi_builtin b, LLVMValueRef call)
{
	LLVMTypeRef done_args[] = { l->ptr, l->i32, l->i64 };
	LLVMTypeRef wait_args[] = { l->ptr, l->i32, l->i32, l->i32 };
	LLVMValueRef args[4] = { w->fg };
	LLVMTypeRef t;
	LLVMValueRef f;
	unsigned n = LLVMGetNumArgOperands(call);

	if (n > 3)
		return -EIO;
	if (!w->fg) {
		if (b == WI_SG_WAIT)
			LLVMReplaceAllUsesWith(call,
					       LLVMConstInt(l->i64, 0, 0));
		LLVMInstructionEraseFromParent(call);
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		args[i + 1] = LLVMGetOperand(call, i);
	if (b == WI_SG_WAIT) {
		t = LLVMFunctionType(l->i64, wait_args, 4, 0);
		f = LLVMGetNamedFunction(l->st->mod, ACCELC_FIBER_SG_WAIT);
	} else {
		t = LLVMFunctionType(LLVMVoidTypeInContext(l->st->ctx),
				     done_args, 3, 0);
		f = LLVMGetNamedFunction(l->st->mod, ACCELC_FIBER_SG_DONE);
	}
	if (!f || LLVMCountParamTypes(t) != n + 1)
		return -EIO;
	f = LLVMBuildCall2(l->b, t, f, args, n + 1, "");
	LLVMReplaceAllUsesWith(call, f);
	LLVMInstructionEraseFromParent(call);
	return 0;
}

int accelc_lower_builtins(struct lower *l, struct wrapper *w)
{
	LLVMValueRef barrier = LLVMGetNamedFunction(l->st->mod,
						    ACCELC_FIBER_BARRIER);
	LLVMTypeRef bt = LLVMFunctionType(LLVMVoidTypeInContext(l->st->ctx),
					  &l->ptr, 1, 0);
	LLVMValueRef *sites = NULL;
	size_t n_sites = 0, cap = 0;
	int r;

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
			w->sees_group |= reveals_group(b);
			LLVMPositionBuilderBefore(l->b, i);
			if (b == WI_BARRIER) {
				if (!w->fg) {
					/* cannot happen: found beforehand */
					r = -EIO;
					goto out;
				}
				LLVMBuildCall2(l->b, bt, barrier, &w->fg, 1,
					       "");
				LLVMInstructionEraseFromParent(i);
				continue;
			}
			if (b == WI_SPIN_YIELD) {
				LLVMValueRef y = LLVMGetNamedFunction(
					l->st->mod, ACCELC_FIBER_YIELD);

				if (w->fg && y)
					LLVMBuildCall2(l->b, bt, y, &w->fg, 1,
						       "");
				LLVMInstructionEraseFromParent(i);
				continue;
			}
			if (b == WI_SG_WAIT || b == WI_SG_DONE) {
				r = lower_sg_wait(l, w, b, i);
				if (r < 0)
					goto out;
				continue;
			}
			/* each call its own (the builtins are inlined by
			 * now), numbered when all are found */
			if (b == WI_SG_SITE) {
				if (n_sites == cap) {
					size_t nc = cap ? 2 * cap : 16;
					LLVMValueRef *ns = realloc(
						sites, nc * sizeof(*ns));

					if (!ns) {
						r = -ENOMEM;
						goto out;
					}
					sites = ns;
					cap = nc;
				}
				sites[n_sites++] = i;
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
	r = accelc_number_sg_sites(w, sites, n_sites);
out:
	free(sites);
	return r;
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
	/* waiting loops run as fibers too (wg-spin.c) */
	st->may_spin = accelc_may_spin(st);
	st->needs_fibers |= st->may_spin;
	free(seen);
	return 0;
}

/* Calls to undefined OpenCL builtins would fail at link time with a
 * mangled name; say it in OpenCL terms instead. */
int accelc_check_undefined(struct lower_state *st)
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
