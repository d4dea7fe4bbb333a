/* SPDX-License-Identifier: MIT */
/*
 * Address-space casts folded into the loads, stores and address
 * arithmetic they feed, between default<O3>'s halves.
 *
 * On the CPU device the OpenCL address spaces are one flat address space:
 * every addrspacecast is a no-op. Yet OpenCL 2.0 and later pass generic
 * pointers to the builtins (vstore4, fract, sincos, ...), so once inlined
 * a store lands on addrspacecast(gep(global p, i)): the loop vectoriser
 * then treats the cast as an instruction to replicate per lane, which
 * costs a scatter where a plain vector store would do and, for scalable
 * vectors (SVE), LLVM 16 replicates it over only the known minimum
 * number of lanes, leaving the others' addresses undefined (a crash).
 *
 * LLVM's infer-address-spaces does this, but only for a target that names
 * a flat address space, which x86-64 and AArch64 do not; its pass takes no
 * parameter in LLVM 16's pipeline syntax. So, for casts to the generic
 * address space: a load or store through one uses the cast's source; a
 * GEP on one becomes a cast of a GEP on the source (and is folded in
 * turn); a cast of one casts the source. Casts left without users go.
 * Other users (calls, phis, compares) keep the cast. Casts to a named
 * address space stay: they tell later passes (streaming variants) that a
 * kernel argument is global memory.
 */
#include <errno.h>
#include <stdlib.h>

#include <llvm-c/Core.h>

#include "accelc-private.h"

/* OpenCL's generic address space in clang's -ffake-address-space-map */
#define GENERIC_AS 4u

struct casts {
	LLVMValueRef *v;
	size_t n, cap;
};

static int push(struct casts *w, LLVMValueRef c)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		LLVMValueRef *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = c;
	return 0;
}

/* A cast of one scalar pointer to another (not of vectors of them). */
static bool is_ptr_cast(LLVMValueRef i)
{
	return LLVMIsAAddrSpaceCastInst(i) &&
	       LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMPointerTypeKind;
}

/* A cast to the generic address space, of a scalar pointer. */
static bool is_generic_cast(LLVMValueRef i)
{
	return is_ptr_cast(i) &&
	       LLVMGetPointerAddressSpace(LLVMTypeOf(i)) == GENERIC_AS;
}

/* Drops @dead from the worklist after index @from (it is erased). */
static void forget(struct casts *w, size_t from, LLVMValueRef dead)
{
	for (size_t k = from; k < w->n; k++)
		if (w->v[k] == dead)
			w->v[k] = NULL;
}

/* gep(cast(src), idx...) -> cast(gep(src, idx...)); the new cast, or NULL */
static LLVMValueRef sink_gep(LLVMBuilderRef b, LLVMValueRef gep,
			     LLVMValueRef src)
{
	unsigned n = (unsigned)LLVMGetNumOperands(gep) - 1;
	LLVMValueRef idx[16], ng, nc;

	if (n > sizeof(idx) / sizeof(*idx) ||
	    LLVMGetTypeKind(LLVMTypeOf(gep)) != LLVMPointerTypeKind)
		return NULL;
	for (unsigned k = 0; k < n; k++) {
		idx[k] = LLVMGetOperand(gep, k + 1);
		/* vector indices make a vector of pointers */
		if (LLVMGetTypeKind(LLVMTypeOf(idx[k])) != LLVMIntegerTypeKind)
			return NULL;
	}
	LLVMPositionBuilderBefore(b, gep);
	ng = LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(gep), src, idx, n,
			   "");
	if (LLVMIsAInstruction(ng))
		LLVMSetIsInBounds(ng, LLVMIsInBounds(gep));
	nc = LLVMBuildAddrSpaceCast(b, ng, LLVMTypeOf(gep), "");
	LLVMReplaceAllUsesWith(gep, nc);
	LLVMInstructionEraseFromParent(gep);
	return nc;
}

/* Folds the users of cast @c it can; 0 or -ENOMEM. */
static int fold(LLVMBuilderRef b, struct casts *w, size_t at)
{
	LLVMValueRef c = w->v[at], src = LLVMGetOperand(c, 0);
	LLVMUseRef u = LLVMGetFirstUse(c);

	while (u) {
		LLVMValueRef user = LLVMGetUser(u), nc;

		/* the next use first: this one may go */
		u = LLVMGetNextUse(u);
		if (LLVMIsALoadInst(user)) {
			LLVMSetOperand(user, 0, src);
		} else if (LLVMIsAStoreInst(user) &&
			   LLVMGetOperand(user, 1) == c &&
			   LLVMGetOperand(user, 0) != c) {
			LLVMSetOperand(user, 1, src);
		} else if (LLVMIsAGetElementPtrInst(user) &&
			   LLVMGetOperand(user, 0) == c) {
			nc = sink_gep(b, user, src);
			/* a constant source makes a constant: nothing to fold */
			if (nc && is_generic_cast(nc) && push(w, nc))
				return -ENOMEM;
		} else if (is_ptr_cast(user)) {
			if (LLVMTypeOf(user) == LLVMTypeOf(src)) {
				LLVMReplaceAllUsesWith(user, src);
				forget(w, at + 1, user);
				LLVMInstructionEraseFromParent(user);
			} else {
				LLVMSetOperand(user, 0, src);
			}
		}
	}
	if (!LLVMGetFirstUse(c)) {
		w->v[at] = NULL;
		LLVMInstructionEraseFromParent(c);
	}
	return 0;
}

int accelc_flat_casts(LLVMModuleRef mod)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(
		LLVMGetModuleContext(mod));
	struct casts w = { 0 };
	int r = 0;

	if (!b)
		return -ENOMEM;
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && !r;
	     f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f);
		     bb && !r; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb);
			     i && !r; i = LLVMGetNextInstruction(i))
				if (is_generic_cast(i))
					r = push(&w, i);
	/* w grows as GEPs become casts: index, not pointer */
	for (size_t k = 0; k < w.n && !r; k++)
		if (w.v[k])
			r = fold(b, &w, k);
	free(w.v);
	LLVMDisposeBuilder(b);
	return r;
}
