/* SPDX-License-Identifier: MIT */
/*
 * Short loops inside work-item loops unrolled before the vectoriser, for
 * split-vectors.c. A loop inside a work-item loop that counts to a small
 * constant (a register-tiled GEMM's k loop over a local tile) keeps the
 * work-item loop from being innermost, and the loop vectoriser takes only
 * innermost loops: default<O3> unrolls it in its simplification half only
 * while its body is small, else only after the vectoriser, and the
 * work-item loop stays scalar or runs float4 at a time. Such loops get
 * llvm.loop.unroll.full and LLVM's full unroller runs on their functions;
 * a function that lost one gets its work-item loops shaped for the long
 * body (widen()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "accelc-private.h"
#include "target-arch.h"
#include "item-loops.h"

/* Inner loops unrolled: a latch compare against at most this constant,
 * the work-item loop's instructions times it at most MAX_UNROLLED. */
#define MAX_TRIP 64
#define MAX_UNROLLED 4096u

static const char unroll_pipeline[] = "function(loop(loop-unroll-full))";

/* The constant bounding the count of the loop whose latch is @p latch
 * (a compare against it decides), if at most MAX_TRIP; else 0. */
static unsigned short_trip(LLVMBasicBlockRef latch)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(latch), c;

	if (!t || LLVMGetInstructionOpcode(t) != LLVMBr ||
	    !LLVMIsConditional(t) || !LLVMIsAICmpInst(c = LLVMGetCondition(t)))
		return 0;
	for (int o = 0; o < 2; o++) {
		LLVMValueRef k = LLVMGetOperand(c, o);
		long long v;

		if (!LLVMIsAConstantInt(k))
			continue;
		v = LLVMConstIntGetSExtValue(k);
		v = v < 0 ? -v : v;
		return v <= MAX_TRIP ? (unsigned)v : 0;
	}
	return 0;
}

/* A loop tagged for full unrolling: its function, the loop ID it had
 * (NULL if none) and the one it got; whether the unroller left it */
struct tagged {
	LLVMValueRef f, old, id;
	bool left;
};

/*
 * A work-item loop with a loop unrolled into it has a long body of its
 * own: one vector iteration of it, not two interleaved, as two spill the
 * registers (a 4 x 4 register tile is 16 vectors) and need twice the
 * work-items to enter the vector body; and where the CPU's tuning
 * avoids its widest registers (accelc_arch_wide_vector_width(): LLVM
 * prefers 256-bit vectors on Intel's AVX-512 CPUs for code that uses
 * them lightly, which this does not), those, 16 work-items per zmm. Every work-item loop of @p f gets the interleave count; those
 * whose addresses divide the work-item id (a tile copied to local memory
 * transposed: lid / 4, lid % 4) are not vectorised, as gathers and
 * scatters of the split float4 cost more than the float4 accesses did.
 */
static int widen(LLVMValueRef f, unsigned loop_kind)
{
	LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(f));
	unsigned len = 0;
	LLVMAttributeRef feat = LLVMGetStringAttributeAtIndex(
		f, LLVMAttributeFunctionIndex, "target-features", 15);
	const char *wide;
	const char *fs = feat ? LLVMGetStringAttributeValue(feat, &len) : "";
	struct scan s;

	if (!accelc_scan_loops(f, loop_kind, &s, WANT_IRREGULAR)) {
		accelc_scan_free(&s);
		return -ENOMEM;
	}
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
	     b = LLVMGetNextBasicBlock(b)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(b), md, id;
		bool scalar = false;

		md = t ? LLVMGetMetadata(t, loop_kind) : NULL;
		if (!md || !accelc_loop_has(md, "llvm.loop.parallel_accesses"))
			continue;
		for (unsigned i = 0; i < s.n_irregular; i++)
			scalar = scalar || s.irregular[i] == b;
		id = accelc_loop_id_with(c, md, NULL, "llvm.loop.interleave.count",
				  "llvm.loop.interleave.count", 1);
		if (id && scalar)
			id = accelc_loop_id_with(c, id, NULL,
					  "llvm.loop.vectorize.width",
					  "llvm.loop.vectorize.width", 1);
		if (id)
			LLVMSetMetadata(t, loop_kind, id);
	}
	accelc_scan_free(&s);
	wide = accelc_arch_wide_vector_width(fs, len);
	if (wide)
		LLVMAddAttributeAtIndex(
			f, LLVMAttributeFunctionIndex,
			LLVMCreateStringAttribute(c, "prefer-vector-width", 19,
						  wide, strlen(wide)));
	return 0;
}

/*
 * Loops nested in work-item loops, counting to a small constant, fully
 * unrolled, so that the work-item loops become innermost. A loop the
 * unroller leaves (its count not constant after all) gets its loop ID
 * back, so no warning says the unrolling asked for failed.
 */
int accelc_unroll_items(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			unsigned loop_kind, struct strbuf *log)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	struct tagged *tag = NULL;
	unsigned n = 0;
	int r = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && !r;
	     f = LLVMGetNextFunction(f)) {
		struct scan s;
		bool tagged = false;

		if (LLVMIsDeclaration(f))
			continue;
		if (!accelc_scan_loops(f, loop_kind, &s, WANT_LATCHES)) {
			r = -ENOMEM;
		} else if (s.nested) {
			for (unsigned i = 0; i < s.n_latches; i++) {
				LLVMValueRef br = LLVMGetBasicBlockTerminator(
					s.latches[i]);
				unsigned trip = short_trip(s.latches[i]);
				void *p;

				if (!trip ||
				    (uint64_t)trip * s.body_size[i] >
					    MAX_UNROLLED)
					continue;
				p = realloc(tag, (n + 1) * sizeof(*tag));
				if (!p) {
					r = -ENOMEM;
					break;
				}
				tag = p;
				tag[n].old = LLVMGetMetadata(br, loop_kind);
				tag[n].id = accelc_loop_id_with(
					c, tag[n].old, "llvm.loop.unroll.",
					NULL, "llvm.loop.unroll.full", -1);
				tag[n].f = f;
				tag[n].left = false;
				if (!tag[n].id)
					continue;
				LLVMSetMetadata(br, loop_kind, tag[n++].id);
				tagged = true;
			}
		}
		if (tagged)
			accelc_want(f);
		accelc_scan_free(&s);
	}
	if (n && !r)
		r = accelc_run_marked(mod, tm, unroll_pipeline, log);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && n;
	     f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
		     b = LLVMGetNextBasicBlock(b)) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
			LLVMValueRef md = t ? LLVMGetMetadata(t, loop_kind)
					    : NULL;

			for (unsigned i = 0; md && i < n; i++)
				if (md == tag[i].id) {
					LLVMSetMetadata(t, loop_kind,
							tag[i].old);
					tag[i].left = true;
				}
		}
	for (unsigned i = 0; i < n && !r; i++) {
		bool done = false;

		/* once per function, if one of its loops went */
		for (unsigned k = 0; k < i; k++)
			done = done || (tag[k].f == tag[i].f && !tag[k].left);
		if (!tag[i].left && !done)
			r = widen(tag[i].f, loop_kind);
	}
	free(tag);
	return r;
}

