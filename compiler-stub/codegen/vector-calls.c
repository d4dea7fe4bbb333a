/* SPDX-License-Identifier: MIT */
/*
 * Work-item loops that call a math function with vector variants (libmvec,
 * codegen.c's vector-function-abi-variant) are vectorised at the widest
 * width the target's variants have, whatever LLVM's cost model says: it
 * counts a scalar call per work-item as cheap and declines loops whose
 * other work (an index divided by a tensor dimension, a gather of a
 * per-channel scale) it finds expensive to widen, and so leaves, in the
 * element-wise chains ML frameworks generate, one tanhf() call per
 * element where one _ZGVeN16v_tanhf() would do sixteen.
 *
 * A width hint, not llvm.loop.vectorize.enable: where the loop cannot be
 * vectorised after all, a hint passes silently, while a forced loop left
 * scalar earns a "transformation failed" warning in the build log. Loops
 * that already carry a width (unroll-items.c) keep it.
 */
#include <stdio.h>

#include "accelc-private.h"
#include "item-loops.h"

/* Lanes of the widest variants for @p f's target, of the call type @p t. */
static unsigned width(LLVMValueRef f, LLVMTypeRef t)
{
	LLVMAttributeRef feat = LLVMGetStringAttributeAtIndex(
		f, LLVMAttributeFunctionIndex, "target-features", 15);
	unsigned len = 0, lanes;
	const char *fs = feat ? LLVMGetStringAttributeValue(feat, &len) : "";
	char buf[2048];

	/* accelc_vec_isa() wants a string of its own */
	snprintf(buf, sizeof(buf), "%.*s", (int)len, fs);
	accelc_vec_isa(buf, &lanes);
	return LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? lanes / 2 : lanes;
}

void accelc_vector_calls(LLVMModuleRef mod, unsigned loop_kind)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		struct scan s;

		if (LLVMIsDeclaration(f))
			continue;
		/* out of memory: the loops keep LLVM's own choice */
		if (accelc_scan_loops(f, loop_kind, &s, WANT_VCALLS)) {
			for (unsigned i = 0; i < s.n_vcalls; i++) {
				LLVMValueRef t, md, id;

				t = LLVMGetBasicBlockTerminator(s.vcalls[i]);
				md = LLVMGetMetadata(t, loop_kind);
				id = accelc_loop_id_with(
					c, md, "llvm.loop.vectorize.width",
					NULL, "llvm.loop.vectorize.width",
					(int)width(f, s.vcall_type[i]));
				if (id)
					LLVMSetMetadata(t, loop_kind, id);
			}
		}
		accelc_scan_free(&s);
	}
}
