/* SPDX-License-Identifier: MIT */
/*
 * Vectors split in work-item loops, before the loop vectoriser sees them.
 *
 * The work-item loop of a kernel is vectorised across work-items by the
 * loop vectoriser of default<O3>. In LLVM 16 it refuses any loop holding a
 * vector-typed value (a float4 load, an OpenCL vector operation) or a
 * switch, so a kernel written with float4, or one whose if-chain
 * SimplifyCFG turned into a switch, would run one work-item at a time.
 * accelc_optimize() runs default<O3> in its two halves (o3-pipeline.h);
 * between them, a wrapper with such a work-item loop gets its vectors
 * split into scalars and its switches into branches, so that the
 * vectoriser makes whole vectors of consecutive work-items' scalars (as
 * Intel's CPU runtime scalarises before it packetises). Only where that
 * can pay: every work-item loop of the wrapper innermost (a GEMM's k loop
 * over float4 accumulators inside one keeps its vectors, as the vectoriser
 * takes only innermost loops), no element picked by a run-time index (a
 * select per lane: shuffle() with a mask becomes hundreds), a bounded
 * number of lanes, vectors narrower than half a register (or math calls).
 *
 * A loop inside a work-item loop that counts to a small constant is
 * fully unrolled first (unroll-items.c), so that the work-item loop is
 * innermost.
 *
 * The scalariser splits loads and stores only with LLVM's
 * -scalarize-load-store, a process-wide option: accelc-codegen sets it
 * (codegen-main.c) and only it asks for the split.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "accelc-private.h"
#include "target-arch.h"
#include "item-loops.h"

/* after the split no simplifycfg may come before the vectoriser: it would
 * fold lowerswitch's branches back into a switch */
static const char split_pipeline[] =
	"function(scalarizer,instcombine,lowerswitch)";

/* The widest vector register of @p f's target, in bits. */
static unsigned register_bits(LLVMValueRef f)
{
	LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
		f, LLVMAttributeFunctionIndex, "target-features", 15);
	unsigned len = 0;
	const char *fs = a ? LLVMGetStringAttributeValue(a, &len) : "";

	return accelc_arch_vector_bits(fs, len);
}

/* The bits of @p i's vector (a store's value), 0 if it is none. */
static unsigned vector_bits(LLVMValueRef i)
{
	LLVMTypeRef t = LLVMGetInstructionOpcode(i) == LLVMStore ?
				LLVMTypeOf(LLVMGetOperand(i, 0)) :
				LLVMTypeOf(i);
	LLVMTypeRef e;

	if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
		return 0;
	e = LLVMGetElementType(t);
	switch (LLVMGetTypeKind(e)) {
	case LLVMHalfTypeKind:
		return 16 * LLVMGetVectorSize(t);
	case LLVMFloatTypeKind:
		return 32 * LLVMGetVectorSize(t);
	case LLVMDoubleTypeKind:
		return 64 * LLVMGetVectorSize(t);
	case LLVMIntegerTypeKind:
		return LLVMGetIntTypeWidth(e) * LLVMGetVectorSize(t);
	default:
		return 0;
	}
}

/*
 * Whether splitting @p f's vectors stays cheap: no element picked by a
 * run-time index, at most ACCELC_MAX_SPLIT lanes, and a vector narrower
 * than half a register, or math calls to widen. A float8 with AVX-512 (a
 * float4 with AVX2) fills half a register already; split, the vectoriser
 * takes two or four work-items at a time and moves each one's lanes into
 * place with shuffles: CLBlast's float8 saxpy ran at 7.8 GB/s split
 * against 17.7 as ymm operations. Its math calls (libmvec) still gain,
 * at the width vector-calls.c asks for.
 */
static bool cheap_to_split(LLVMValueRef f)
{
	unsigned split = 0, widest = 0;
	bool calls = false;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
	     b = LLVMGetNextBasicBlock(b)) {
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);

			if ((op == LLVMExtractElement &&
			     !LLVMIsConstant(LLVMGetOperand(i, 1))) ||
			    (op == LLVMInsertElement &&
			     !LLVMIsConstant(LLVMGetOperand(i, 2))))
				return false;
			split += accelc_split_lanes(i);
			if (split > ACCELC_MAX_SPLIT)
				return false;
			if (vector_bits(i) > widest)
				widest = vector_bits(i);
			calls = calls ||
				(op == LLVMCall &&
				 LLVMGetCallSiteStringAttribute(
					 i, LLVMAttributeFunctionIndex,
					 "vector-function-abi-variant", 27));
		}
	}
	return calls || 2 * widest < register_bits(f);
}

/* Whether @p f has a work-item loop holding what the vectoriser refuses,
 * and no loop nested in any of its work-item loops. */
static bool refused_innermost(LLVMValueRef f, unsigned loop_kind)
{
	struct scan s;
	bool ok = accelc_scan_loops(f, loop_kind, &s, 0) && s.refused &&
		  !s.nested;

	accelc_scan_free(&s);
	return ok;
}

/* Both tests, the cheap one first. */
static bool wants_split(LLVMValueRef f, unsigned loop_kind)
{
	return !LLVMIsDeclaration(f) && cheap_to_split(f) &&
	       refused_innermost(f, loop_kind);
}

int accelc_split_vectors(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			 struct strbuf *log)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	unsigned loop_kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
	unsigned n = 0;
	int r = accelc_unroll_items(mod, tm, loop_kind, log);

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && !r;
	     f = LLVMGetNextFunction(f))
		if (wants_split(f, loop_kind)) {
			accelc_want(f);
			n++;
		}
	if (n && !r)
		r = accelc_run_marked(mod, tm, split_pipeline, log);
	return r;
}
