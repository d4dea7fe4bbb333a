/* SPDX-License-Identifier: MIT */
/*
 * What the passes of the table (passes.h) share, and their run
 * functions: the codegen ones in codegen/pass-steps.c, the lowering ones in
 * lower/wg-lower.c. A pass's run function wraps the code that does the
 * work; the order is the table's (passes.c).
 */
#ifndef ACCELC_PIPELINE_H
#define ACCELC_PIPELINE_H

#include "accelc-private.h"
#include "passes.h"

struct job;
struct regions;

struct accelc_pass_ctx {
	struct job *j;
	struct lower_state st;
	struct accelc_stack ss;
	LLVMMemoryBufferRef mb;     /* clang's bitcode, kept while parsed */
	LLVMTargetMachineRef tm;
	/* the lowering (lower/wg-lower.c), from lower-start on */
	struct lower l;
	struct wrapper *ws;         /* per kernel */
	struct regions **rg;        /* kernels with barriers as regions */
	bool *plain;                /* run by a plain loop wrapper alone */
	bool *ids32;                /* with a 32-bit ids variant */
	bool any_regions;
	uint32_t facts;             /* ACCELC_FACT()s that hold */
};

/* codegen/pass-steps.c */
int accelc_pass_parse(struct accelc_pass_ctx *c);
int accelc_pass_global_size(struct accelc_pass_ctx *c);
int accelc_pass_read_kernels(struct accelc_pass_ctx *c);
int accelc_pass_check_recursion(struct accelc_pass_ctx *c);
int accelc_pass_link_builtins(struct accelc_pass_ctx *c);
int accelc_pass_safe_division(struct accelc_pass_ctx *c);
int accelc_pass_find_barriers(struct accelc_pass_ctx *c);
bool accelc_pass_want_fibers(const struct accelc_pass_ctx *c);
int accelc_pass_link_fiber_rt(struct accelc_pass_ctx *c);
int accelc_pass_target_machine(struct accelc_pass_ctx *c);
int accelc_pass_optimise(struct accelc_pass_ctx *c);
int accelc_pass_streaming_finish(struct accelc_pass_ctx *c);
bool accelc_pass_want_ir(const struct accelc_pass_ctx *c);
int accelc_pass_keep_ir(struct accelc_pass_ctx *c);
int accelc_pass_stack_prepare(struct accelc_pass_ctx *c);
bool accelc_pass_want_asm(const struct accelc_pass_ctx *c);
int accelc_pass_emit_asm(struct accelc_pass_ctx *c);
int accelc_pass_emit_object(struct accelc_pass_ctx *c);
int accelc_pass_stack_sizes(struct accelc_pass_ctx *c);

/* lower/wg-lower.c */
int accelc_pass_lower_start(struct accelc_pass_ctx *c);
int accelc_pass_kernels_ssa(struct accelc_pass_ctx *c);
int accelc_pass_wrappers(struct accelc_pass_ctx *c);
int accelc_pass_inline_attrs(struct accelc_pass_ctx *c);
int accelc_pass_verify(struct accelc_pass_ctx *c);
int accelc_pass_inline(struct accelc_pass_ctx *c);
int accelc_pass_internalize(struct accelc_pass_ctx *c);
int accelc_pass_globaldce(struct accelc_pass_ctx *c);
bool accelc_pass_want_regions(const struct accelc_pass_ctx *c);
int accelc_pass_wrappers_ssa(struct accelc_pass_ctx *c);
int accelc_pass_regions_split(struct accelc_pass_ctx *c);
int accelc_pass_builtins(struct accelc_pass_ctx *c);
int accelc_pass_printf(struct accelc_pass_ctx *c);
int accelc_pass_locals(struct accelc_pass_ctx *c);
int accelc_pass_regions_build(struct accelc_pass_ctx *c);
int accelc_pass_generic(struct accelc_pass_ctx *c);
int accelc_pass_fiber_rt_internal(struct accelc_pass_ctx *c);
int accelc_pass_kernel_flags(struct accelc_pass_ctx *c);
bool accelc_pass_want_opt(const struct accelc_pass_ctx *c);
int accelc_pass_ids32(struct accelc_pass_ctx *c);
int accelc_pass_streaming(struct accelc_pass_ctx *c);
int accelc_pass_guards(struct accelc_pass_ctx *c);
int accelc_pass_check_undefined(struct accelc_pass_ctx *c);
/* Free what lower-start made (any time after it, also after a failure). */
void accelc_lower_free(struct accelc_pass_ctx *c);

#endif /* ACCELC_PIPELINE_H */
