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
 * number of lanes.
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
#include "item-loops.h"

/* after the split no simplifycfg may come before the vectoriser: it would
 * fold lowerswitch's branches back into a switch */
static const char split_pipeline[] =
	"function(scalarizer,instcombine,lowerswitch)";

/* Whether splitting @p f's vectors stays cheap: no element picked by a
 * run-time index, at most ACCELC_MAX_SPLIT lanes. */
static bool cheap_to_split(LLVMValueRef f)
{
	unsigned split = 0;

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
		}
	}
	return true;
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
