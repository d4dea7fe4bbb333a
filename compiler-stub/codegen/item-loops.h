/* SPDX-License-Identifier: MIT */
/* Work-item loops between the halves of default<O3> (item-loops.c) */
#ifndef ACCELC_ITEM_LOOPS_H
#define ACCELC_ITEM_LOOPS_H

#include <stdbool.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

struct strbuf;

/* Most vector lanes a wrapper may split into scalars (a scalable vector
 * counts as that many). */
#define ACCELC_MAX_SPLIT 2048u

/* What accelc_scan_loops() found in a function's work-item loops */
struct scan {
	bool refused;     /* a vector-typed value or a switch */
	bool nested;      /* a loop inside one */
	/* the latches of the loops inside them, and their work-item
	 * loop's instruction count (when @p latches is wanted) */
	LLVMBasicBlockRef *latches;
	unsigned *body_size;
	unsigned n_latches;
	/* the work-item loops' latches whose body reaches memory through a
	 * division or remainder of the work-item's id (when wanted) */
	LLVMBasicBlockRef *irregular;
	unsigned n_irregular;
	/* the work-item loops' latches whose body calls a function with
	 * vector variants, and that call's type (when wanted) */
	LLVMBasicBlockRef *vcalls;
	LLVMTypeRef *vcall_type;
	unsigned n_vcalls;
};

/* what accelc_scan_loops() is to collect besides refused and nested */
enum { WANT_LATCHES = 1, WANT_IRREGULAR = 2, WANT_VCALLS = 4 };

/* The operands of metadata node @p md (malloc'ed; NULL if none or out of
 * memory), their count in @p n. */
LLVMValueRef *accelc_md_operands(LLVMValueRef md, unsigned *n);
/* Does loop metadata node @p md hold a property named @p name? */
bool accelc_loop_has(LLVMValueRef md, const char *name);
/*
 * A loop ID with @p old's properties (none if NULL) but those named
 * @p drop..., and !{@p name[, i32 @p value if >= 0]}. NULL if out of
 * memory, or if @p old has a property named @p refuse... (if not NULL).
 */
LLVMValueRef accelc_loop_id_with(LLVMContextRef c, LLVMValueRef old,
				 const char *refuse, const char *drop,
				 const char *name, int value);
/* Lanes a vector-typed instruction @p i splits into, 0 if none. */
unsigned accelc_split_lanes(LLVMValueRef i);
/* @p f's work-item loops scanned into @p s, with what @p want (WANT_*)
 * asks for; false if out of memory. accelc_scan_free() either way. */
bool accelc_scan_loops(LLVMValueRef f, unsigned loop_kind, struct scan *s,
		       unsigned want);
void accelc_scan_free(struct scan *s);
/* Mark @p f for accelc_run_marked(). */
void accelc_want(LLVMValueRef f);
/* @p pipeline on the marked functions only; 0 or -EIO (logged). */
int accelc_run_marked(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		      const char *pipeline, struct strbuf *log);
/* Loops nested in work-item loops fully unrolled where short
 * (unroll-items.c); 0 or -errno. */
int accelc_unroll_items(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			unsigned loop_kind, struct strbuf *log);

#endif
