/* SPDX-License-Identifier: MIT */
/*
 * Context arrays laid out chunk by chunk, for wg-context.c. A variable
 * that crosses a barrier gets one slot per work-item; slot after slot, a
 * register tile (float4 acc[4]: 64 bytes) puts the work-items' same
 * element 64 bytes apart, which the vectoriser, working across
 * work-items, can only gather and scatter. When every access of the
 * variable is a load or store of one size at a chunk's offset (acc[i]),
 * each chunk gets an array of its own, one per work-item: consecutive
 * work-items' chunks are adjacent, their elements at the chunk's stride
 * (an interleaved group, as a float4 array is), and separate arrays let
 * alias analysis keep acc[0] apart from acc[1] (LICM keeps the tile in
 * registers across a k loop).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Byte offset of GEP @p g from its pointer: its constant part in @p off,
 * the gcd of the element sizes its run-time indices (acc[i]) scale in
 * @p granule (0 if none). With @p b, also the whole offset as a value
 * built there (@p v). False if it steps out of what it points to.
 */
static bool gep_offset(LLVMTargetDataRef td, LLVMValueRef g, uint64_t *off,
		       uint64_t *granule, LLVMBuilderRef b, LLVMTypeRef i64,
		       LLVMValueRef *v)
{
	LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
	int n = LLVMGetNumOperands(g);
	uint64_t o = 0, gr = 0, size = 0;

	for (int i = 1; i < n; i++) {
		LLVMValueRef x = LLVMGetOperand(g, i);

		if (i == 1) {
			size = LLVMABISizeOfType(td, t);
		} else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
			/* struct indices are constants */
			unsigned k = (unsigned)LLVMConstIntGetZExtValue(x);

			o += LLVMOffsetOfElement(td, t, k);
			t = LLVMStructGetTypeAtIndex(t, k);
			continue;
		} else if (LLVMGetTypeKind(t) == LLVMArrayTypeKind ||
			   LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
			t = LLVMGetElementType(t);
			size = LLVMABISizeOfType(td, t);
		} else {
			return false;
		}
		if (LLVMIsAConstantInt(x)) {
			long long k = LLVMConstIntGetSExtValue(x);

			if (k < 0)
				return false;
			o += (uint64_t)k * size;
			continue;
		}
		/* a run-time index into the slot itself would leave it */
		if (i == 1)
			return false;
		gr = gcd(gr, size);
		if (b)
			*v = LLVMBuildAdd(
				b, *v,
				LLVMBuildMul(b,
					     LLVMBuildSExtOrBitCast(b, x, i64,
								    ""),
					     LLVMConstInt(i64, size, 0), ""),
				"");
	}
	*off = o;
	*granule = gr;
	if (b)
		*v = LLVMBuildAdd(b, *v, LLVMConstInt(i64, o, 0), "");
	return true;
}

struct chunking {
	LLVMTargetDataRef td;
	uint64_t size;      /* the variable's bytes */
	uint64_t chunk;     /* 0 until the first access */
	LLVMTypeRef type;   /* the first access's type: zero stores */
	uint64_t granule;   /* gcd of the run-time indices' steps */
};

/* Is access of @p t, alignment @p align, at @p off one chunk? */
static bool fits(struct chunking *c, LLVMTypeRef t, unsigned align,
		 uint64_t off)
{
	uint64_t s = LLVMStoreSizeOfType(c->td, t);

	if (s != LLVMABISizeOfType(c->td, t))
		return false;
	if (!c->chunk) {
		c->chunk = s;
		c->type = t;
	}
	return s == c->chunk && off % s == 0 && off + s <= c->size &&
	       align <= s;
}

/* Every use of pointer @p p (at @p off into the variable) a chunk? */
static bool uses_ok(struct chunking *c, LLVMValueRef p, uint64_t off,
		    int depth)
{
	if (depth > 4)
		return false;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef i = LLVMGetUser(u);
		uint64_t o, gr;

		if (LLVMIsALoadInst(i)) {
			if (LLVMGetVolatile(i) ||
			    !fits(c, LLVMTypeOf(i), LLVMGetAlignment(i), off))
				return false;
		} else if (LLVMIsAStoreInst(i)) {
			if (LLVMGetOperand(i, 0) == p || LLVMGetVolatile(i) ||
			    !fits(c, LLVMTypeOf(LLVMGetOperand(i, 0)),
				  LLVMGetAlignment(i), off))
				return false;
		} else if (LLVMIsAGetElementPtrInst(i)) {
			if (LLVMGetOperand(i, 0) != p ||
			    !gep_offset(c->td, i, &o, &gr, NULL, NULL, NULL))
				return false;
			c->granule = gcd(c->granule, gr);
			/* at a run-time offset, its constant part checked */
			if (!uses_ok(c, i, off + o, depth + 1))
				return false;
		} else if (accelc_calls(i, "llvm.memset") && !depth) {
			/* all of it to 0 */
			LLVMValueRef v = LLVMGetOperand(i, 1);
			LLVMValueRef n = LLVMGetOperand(i, 2);

			if (LLVMGetOperand(i, 0) != p ||
			    !LLVMIsAConstantInt(v) ||
			    LLVMConstIntGetZExtValue(v) ||
			    !LLVMIsAConstantInt(n) ||
			    LLVMConstIntGetZExtValue(n) != c->size)
				return false;
		} else {
			return false;
		}
	}
	return true;
}

uint64_t accelc_ctx_chunk(LLVMTargetDataRef td, LLVMValueRef a,
			  uint64_t stride)
{
	struct chunking c = { td, LLVMABISizeOfType(td, LLVMGetAllocatedType(a)),
			      0, NULL, 0 };

	if (!uses_ok(&c, a, 0, 0) || !c.chunk || c.chunk >= stride ||
	    c.size % c.chunk || (c.chunk & (c.chunk - 1)) ||
	    c.granule % c.chunk || stride % c.chunk ||
	    stride / c.chunk > ACCELC_CTX_MAX_CHUNKS)
		return 0;
	/* a memset needs the type of an access to store zeros of */
	return c.type ? c.chunk : 0;
}

/* Byte @p off of the work-item's slot: its chunk's array + item * chunk,
 * built before @p before */
static LLVMValueRef address(struct accelc_ctx_chunks *k, LLVMValueRef before,
			    LLVMValueRef off)
{
	LLVMBuilderRef b = k->l->b;
	LLVMValueRef id = k->item_at(k->arg, LLVMGetInstructionParent(before));
	LLVMValueRef c = LLVMConstInt(k->l->i64, k->chunk, 0), o, base, sel;
	uint64_t n = k->size / k->chunk;

	if (!id)
		return NULL;
	LLVMPositionBuilderBefore(b, before);
	o = LLVMBuildMul(b, id, c, "");
	if (LLVMIsAConstantInt(off)) {
		base = k->bases[LLVMConstIntGetZExtValue(off) / k->chunk];
	} else {
		/* acc[i]: the chunk's array picked at run time */
		sel = LLVMBuildUDiv(b, off, c, "");
		base = k->bases[0];
		for (uint64_t i = 1; i < n; i++)
			base = LLVMBuildSelect(
				b,
				LLVMBuildICmp(b, LLVMIntEQ, sel,
					      LLVMConstInt(k->l->i64, i, 0),
					      ""),
				k->bases[i], base, "");
	}
	return LLVMBuildInBoundsGEP2(b, k->l->i8, base, &o, 1, "ctx");
}

/* The uses of @p p (at byte @p off of the slot) onto the chunked array;
 * GEPs erased. */
static int rewrite(struct accelc_ctx_chunks *k, LLVMValueRef p,
		   LLVMValueRef off)
{
	LLVMUseRef u;

	while ((u = LLVMGetFirstUse(p))) {
		LLVMValueRef i = LLVMGetUser(u), a, v = off;
		uint64_t o, gr;
		int r;

		if (LLVMIsAGetElementPtrInst(i)) {
			LLVMPositionBuilderBefore(k->l->b, i);
			if (!gep_offset(k->l->st->td, i, &o, &gr, k->l->b,
					k->l->i64, &v))
				return -EINVAL;
			r = rewrite(k, i, v);
			if (r)
				return r;
			LLVMInstructionEraseFromParent(i);
			continue;
		}
		if (accelc_calls(i, "llvm.memset")) {
			for (uint64_t c = 0; c < k->size; c += k->chunk) {
				LLVMValueRef s;

				a = address(k, i,
					    LLVMConstInt(k->l->i64, c, 0));
				if (!a)
					return -ENOMEM;
				s = LLVMBuildStore(k->l->b,
						   LLVMConstNull(k->type), a);
				LLVMSetAlignment(s, (unsigned)k->chunk);
			}
			LLVMInstructionEraseFromParent(i);
			continue;
		}
		/* a load or a store (uses_ok() said so) */
		a = address(k, i, off);
		if (!a)
			return -ENOMEM;
		LLVMSetOperand(i, LLVMIsALoadInst(i) ? 0 : 1, a);
	}
	return 0;
}

int accelc_ctx_chunk_rewrite(struct accelc_ctx_chunks *k, LLVMValueRef a)
{
	struct chunking c = {
		k->l->st->td,
		LLVMABISizeOfType(k->l->st->td, LLVMGetAllocatedType(a)), 0,
		NULL, 0
	};
	int r;

	/* the type zeros are stored as */
	if (!uses_ok(&c, a, 0, 0))
		return -EINVAL;
	k->type = c.type;
	k->size = c.size;
	r = rewrite(k, a, LLVMConstInt(k->l->i64, 0, 0));
	if (!r)
		LLVMInstructionEraseFromParent(a);
	return r;
}
