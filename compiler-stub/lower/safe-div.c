/* SPDX-License-Identifier: MIT */
/*
 * Integer division that cannot trap.
 *
 * OpenCL C leaves the result of an integer division by zero (and of
 * INT_MIN / -1) undefined, but a value: a GPU returns something, and
 * conformance tests divide by random numbers, zeros included, then skip
 * checking those lanes. clang emits plain sdiv/udiv/srem/urem, and x86's
 * div raises SIGFPE on both cases, killing the host process. Every
 * division whose divisor is not a known safe constant divides by 1
 * instead in those cases (x / 0 gives x, INT_MIN / -1 gives INT_MIN, the
 * wrapped result); the selects vectorise with the division.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "accelc-private.h"

/* @v splatted to @t (an integer or a vector of integers). */
static LLVMValueRef splat(LLVMTypeRef t, unsigned long long v)
{
	LLVMValueRef elems[64], e;
	unsigned n;

	if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
		return LLVMConstInt(t, v, 0);
	n = LLVMGetVectorSize(t);
	e = LLVMConstInt(LLVMGetElementType(t), v, 0);
	if (n > 64)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		elems[i] = e;
	return LLVMConstVector(elems, n);
}

static unsigned elem_bits(LLVMTypeRef t)
{
	if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
		t = LLVMGetElementType(t);
	return LLVMGetIntTypeWidth(t);
}

/* A scalar constant divisor other than 0 (and -1 for signed) is safe. */
static bool safe_constant(LLVMValueRef d, bool sgn)
{
	unsigned bits;
	unsigned long long v, ones;

	if (!LLVMIsAConstantInt(d))
		return false;
	bits = LLVMGetIntTypeWidth(LLVMTypeOf(d));
	if (bits > 64)
		return false;
	v = LLVMConstIntGetZExtValue(d);
	ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
	return v != 0 && !(sgn && v == ones);
}

static void guard_division(LLVMBuilderRef b, LLVMValueRef div, bool sgn)
{
	LLVMValueRef a = LLVMGetOperand(div, 0), d = LLVMGetOperand(div, 1);
	LLVMTypeRef t = LLVMTypeOf(d);
	unsigned bits = elem_bits(t);
	LLVMValueRef zero = splat(t, 0), one = splat(t, 1), bad;

	if (!zero || !one || bits > 64)
		return;
	LLVMPositionBuilderBefore(b, div);
	bad = LLVMBuildICmp(b, LLVMIntEQ, d, zero, "div.zero");
	if (sgn) {
		LLVMValueRef min = splat(t, 1ull << (bits - 1));
		LLVMValueRef m1 = splat(t, ~0ull);

		if (!min || !m1)
			return;
		bad = LLVMBuildOr(
			b, bad,
			LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, a, min, ""),
				     LLVMBuildICmp(b, LLVMIntEQ, d, m1, ""),
				     ""),
			"div.overflow");
	}
	LLVMSetOperand(div, 1, LLVMBuildSelect(b, bad, one, d, "div.safe"));
}

int accelc_safe_division(LLVMModuleRef mod)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(
		LLVMGetModuleContext(mod));

	if (!b)
		return -ENOMEM;
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
			     i = LLVMGetNextInstruction(i)) {
				LLVMOpcode op;
				bool sgn;

				if (!LLVMIsABinaryOperator(i))
					continue;
				if (!accelc_int_division(i))
					continue;
				op = LLVMGetInstructionOpcode(i);
				sgn = op == LLVMSDiv || op == LLVMSRem;
				if (safe_constant(LLVMGetOperand(i, 1), sgn))
					continue;
				guard_division(b, i, sgn);
			}
	LLVMDisposeBuilder(b);
	return 0;
}
