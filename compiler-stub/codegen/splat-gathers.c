/* SPDX-License-Identifier: MIT */
/*
 * Gathers from one address, after default<O3>. A uniform load under a
 * branch that differs between work-items (the weight of a convolution
 * tap, read only where the tap is inside the image) becomes, once the
 * work-item loop is vectorised, a masked gather whose lanes all point at
 * the same element: LLVM 16 keeps it a gather, 8 or 16 loads per vector.
 * One masked scalar load (it must not fault where no lane is active)
 * broadcast to the lanes whose mask is set does the same.
 */
#include <string.h>

#include "accelc-private.h"

/* Is @p v a shufflevector that puts one lane of its first operand in
 * all lanes? */
static bool is_splat(LLVMValueRef v)
{
	unsigned n;
	int k;

	if (!LLVMIsAShuffleVectorInst(v))
		return false;
	n = LLVMGetNumMaskElements(v);
	k = LLVMGetMaskValue(v, 0);
	if (k < 0 || (unsigned)k >= LLVMGetVectorSize(LLVMTypeOf(
					 LLVMGetOperand(v, 0))))
		return false;
	for (unsigned i = 1; i < n; i++)
		if (LLVMGetMaskValue(v, i) != k)
			return false;
	return true;
}

/* That lane of a splat's source: the scalar inserted there, or
 * extracted. */
static LLVMValueRef splat_scalar(LLVMBuilderRef b, LLVMValueRef v)
{
	LLVMValueRef src = LLVMGetOperand(v, 0), idx;
	unsigned k = (unsigned)LLVMGetMaskValue(v, 0);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(
		LLVMTypeOf(v)));

	if (LLVMIsAInsertElementInst(src)) {
		idx = LLVMGetOperand(src, 2);
		if (LLVMIsAConstantInt(idx) &&
		    LLVMConstIntGetZExtValue(idx) == k)
			return LLVMGetOperand(src, 1);
	}
	return LLVMBuildExtractElement(b, src, LLVMConstInt(i32, k, false),
				       "");
}

/* A constant vector with one value in all lanes: that value. */
static LLVMValueRef constant_splat(LLVMValueRef v)
{
	LLVMValueRef e;
	unsigned n;

	if (!LLVMIsAConstantDataVector(v) && !LLVMIsAConstantVector(v))
		return NULL;
	n = LLVMGetVectorSize(LLVMTypeOf(v));
	e = LLVMGetAggregateElement(v, 0);
	for (unsigned i = 1; e && i < n; i++)
		if (LLVMGetAggregateElement(v, i) != e)
			return NULL;
	return e;
}

static bool lane_op(LLVMOpcode op)
{
	switch (op) {
	case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMAnd: case LLVMOr:
	case LLVMXor: case LLVMShl: case LLVMLShr: case LLVMAShr:
	case LLVMSExt: case LLVMZExt: case LLVMTrunc:
	case LLVMGetElementPtr:
		return true;
	default:
		return false;
	}
}

/* Is vector @p v the same in every lane (splats, and lane-wise
 * arithmetic and addresses of them and of scalars)? */
static bool same_lanes(LLVMValueRef v, int depth)
{
	LLVMOpcode op;

	switch (LLVMGetTypeKind(LLVMTypeOf(v))) {
	case LLVMVectorTypeKind:
		break;
	case LLVMScalableVectorTypeKind:
		return false; /* SVE keeps its gathers */
	default:
		return true;
	}
	if (is_splat(v) || constant_splat(v))
		return true;
	if (depth > 8 || !LLVMIsAInstruction(v))
		return false;
	op = LLVMGetInstructionOpcode(v);
	if (!lane_op(op))
		return false;
	for (int o = 0; o < LLVMGetNumOperands(v); o++)
		if (!same_lanes(LLVMGetOperand(v, o), depth + 1))
			return false;
	return true;
}

/* The scalar of a same_lanes() value, built where @p b is. */
static LLVMValueRef lane(LLVMBuilderRef b, LLVMValueRef v)
{
	LLVMValueRef s, ops[8];
	LLVMOpcode op;
	int n;

	if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
		return v;
	if (is_splat(v))
		return splat_scalar(b, v);
	if ((s = constant_splat(v)))
		return s;
	op = LLVMGetInstructionOpcode(v);
	n = LLVMGetNumOperands(v);
	if (n > 8)
		return NULL;
	for (int o = 0; o < n; o++)
		if (!(ops[o] = lane(b, LLVMGetOperand(v, o))))
			return NULL;
	switch (op) {
	case LLVMGetElementPtr:
		s = LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(v), ops[0],
				  ops + 1, (unsigned)n - 1, "");
		LLVMSetIsInBounds(s, LLVMIsInBounds(v));
		return s;
	case LLVMSExt: case LLVMZExt: case LLVMTrunc:
		return LLVMBuildCast(b, op, ops[0],
				     LLVMGetElementType(LLVMTypeOf(v)), "");
	default:
		return LLVMBuildBinOp(b, op, ops[0], ops[1], "");
	}
}

static LLVMValueRef intrinsic(LLVMModuleRef mod, const char *name,
			      LLVMTypeRef *types, size_t n)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));

	return id ? LLVMGetIntrinsicDeclaration(mod, id, types, n) : NULL;
}

/* gather(splat(p), align, mask, pass): one masked load of p, splat. */
static void replace(LLVMModuleRef mod, LLVMBuilderRef b, LLVMValueRef g,
		    LLVMValueRef p)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	LLVMValueRef mask = LLVMGetOperand(g, 2), pass = LLVMGetOperand(g, 3);
	LLVMTypeRef vt = LLVMTypeOf(g), et = LLVMGetElementType(vt);
	LLVMTypeRef v1 = LLVMVectorType(et, 1), b1 = LLVMInt1TypeInContext(c);
	LLVMTypeRef mt = LLVMTypeOf(mask), pt = LLVMTypeOf(p);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
	LLVMTypeRef load_types[2] = { v1, pt };
	LLVMValueRef any_f = intrinsic(mod, "llvm.vector.reduce.or", &mt, 1);
	LLVMValueRef load_f = intrinsic(mod, "llvm.masked.load", load_types, 2);
	LLVMValueRef args[4], any, one, zero, s, splat;
	unsigned lanes = LLVMGetVectorSize(vt);

	if (!any_f || !load_f)
		return;
	zero = LLVMConstInt(i32, 0, false);
	any = LLVMBuildCall2(b, LLVMGlobalGetValueType(any_f), any_f, &mask, 1,
			     "");
	args[0] = p;
	args[1] = LLVMGetOperand(g, 1);
	args[2] = LLVMBuildInsertElement(b, LLVMGetPoison(LLVMVectorType(b1, 1)),
					 any, zero, "");
	args[3] = LLVMGetPoison(v1);
	one = LLVMBuildCall2(b, LLVMGlobalGetValueType(load_f), load_f, args, 4,
			     "");
	s = LLVMBuildExtractElement(b, one, zero, "");
	splat = LLVMBuildInsertElement(b, LLVMGetPoison(vt), s, zero, "");
	splat = LLVMBuildShuffleVector(
		b, splat, LLVMGetPoison(vt),
		LLVMConstNull(LLVMVectorType(i32, lanes)), "");
	LLVMReplaceAllUsesWith(g, LLVMBuildSelect(b, mask, splat, pass, ""));
	LLVMInstructionEraseFromParent(g);
}

void accelc_splat_gathers(LLVMModuleRef mod)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(
		LLVMGetModuleContext(mod));

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
		     bb = LLVMGetNextBasicBlock(bb)) {
			LLVMValueRef i = LLVMGetFirstInstruction(bb), next, p;

			for (; i; i = next) {
				next = LLVMGetNextInstruction(i);
				if (!accelc_calls(i, "llvm.masked.gather") ||
				    !same_lanes(LLVMGetOperand(i, 0), 0))
					continue;
				LLVMPositionBuilderBefore(b, i);
				p = lane(b, LLVMGetOperand(i, 0));
				if (p)
					replace(mod, b, i, p);
			}
		}
	LLVMDisposeBuilder(b);
}
