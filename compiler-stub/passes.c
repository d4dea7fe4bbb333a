/* SPDX-License-Identifier: MIT */
/*
 * The table of passes from clang's bitcode to the object file, and the
 * loop that runs it. Each entry wraps code in its stage's folder; the
 * requires/before/provides facts say why the order is what it is and are
 * checked as the table runs. README.md describes the same pipeline.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "job.h"
#include "pipeline.h"

#define F(x) ACCELC_FACT(x)

const char *const accelc_fact_names[ACCELC_N_FACTS] = {
	[ACCELC_FACT_MODULE] = "module",
	[ACCELC_FACT_KERNELS] = "kernels",
	[ACCELC_FACT_NO_RECURSION] = "no-recursion",
	[ACCELC_FACT_BUILTINS] = "builtins",
	[ACCELC_FACT_SAFE_DIV] = "safe-division",
	[ACCELC_FACT_BARRIERS] = "barriers",
	[ACCELC_FACT_FIBER_RT] = "fiber-runtime",
	[ACCELC_FACT_LOWERING] = "lowering",
	[ACCELC_FACT_KERNELS_SSA] = "kernels-ssa",
	[ACCELC_FACT_WRAPPERS] = "wrappers",
	[ACCELC_FACT_INLINE_MARKED] = "inline-marked",
	[ACCELC_FACT_INLINED] = "inlined",
	[ACCELC_FACT_INTERNAL] = "internal",
	[ACCELC_FACT_WRAPPERS_SSA] = "wrappers-ssa",
	[ACCELC_FACT_REGIONS_CUT] = "regions-cut",
	[ACCELC_FACT_IDS] = "ids",
	[ACCELC_FACT_PRINTF] = "printf",
	[ACCELC_FACT_LOCALS] = "locals",
	[ACCELC_FACT_REGIONS_BUILT] = "regions-built",
	[ACCELC_FACT_GENERIC] = "generic",
	[ACCELC_FACT_KERNEL_FLAGS] = "kernel-flags",
	[ACCELC_FACT_IDS32] = "ids32-variants",
	[ACCELC_FACT_STREAMING] = "streaming-variants",
	[ACCELC_FACT_GUARDS] = "guards",
	[ACCELC_FACT_LOWERED] = "lowered",
	[ACCELC_FACT_TM] = "target-machine",
	[ACCELC_FACT_OPTIMISED] = "optimised",
	[ACCELC_FACT_STREAMING_DONE] = "streaming-done",
	[ACCELC_FACT_FRAME_SIZES] = "frame-sizes",
	[ACCELC_FACT_OBJECT] = "object",
	[ACCELC_FACT_STACK_SIZES] = "stack-sizes",
};

/* everything the lowering starts from */
#define LOWER_INPUT (F(KERNELS) | F(BUILTINS) | F(SAFE_DIV) | F(BARRIERS) | \
		     F(FIBER_RT))

const struct accelc_pass accelc_passes[] = {
	/* ---- codegen: the module as clang left it ---- */
	{ "parse", "codegen", "read clang's bitcode into a module",
	  NULL, 0, 0, F(MODULE), NULL, accelc_pass_parse },
	{ "global-size", "codegen",
	  "bytes of program-scope __global variables, before the builtins' own",
	  NULL, F(MODULE), F(BUILTINS), 0, NULL, accelc_pass_global_size },
	{ "read-kernels", "lower",
	  "kernels, their arguments and attributes from clang's metadata",
	  NULL, F(MODULE), 0, F(KERNELS), NULL, accelc_pass_read_kernels },
	{ "check-recursion", "codegen",
	  "refuse recursion (the program's own call graph): stacks are fixed",
	  NULL, F(MODULE), F(BUILTINS) | F(OPTIMISED), F(NO_RECURSION), NULL,
	  accelc_pass_check_recursion },
	{ "link-builtins", "codegen",
	  "link the OpenCL C builtins library (bitcode, inlined later)",
	  NULL, F(KERNELS), 0, F(BUILTINS), NULL, accelc_pass_link_builtins },
	{ "safe-division", "lower",
	  "integer division by 0 or INT_MIN / -1 does not trap",
	  NULL, F(BUILTINS), 0, F(SAFE_DIV), NULL, accelc_pass_safe_division },
	{ "find-barriers", "lower",
	  "flag kernels reaching a barrier or an atomic; do any need fibers",
	  NULL, F(KERNELS) | F(BUILTINS), 0, F(BARRIERS), NULL,
	  accelc_pass_find_barriers },
	{ "link-fiber-runtime", "codegen",
	  "link the fiber runtime (runtime/fiber.c)",
	  "a kernel has barriers or atomics (it may run as fibers)",
	  F(BARRIERS), 0,
	  F(FIBER_RT),
	  accelc_pass_want_fibers, accelc_pass_link_fiber_rt },
	/* ---- lower: work-group functions ---- */
	{ "lower-start", "lower",
	  "the lowering's builder, types and per-kernel state",
	  NULL, F(KERNELS), 0, F(LOWERING), NULL, accelc_pass_lower_start },
	{ "kernels-ssa", "lower",
	  "SROA: SSA form for the implicit barriers', sub-groups' and "
	  "waiting loops' analyses",
	  NULL, F(LOWERING) | LOWER_INPUT, F(WRAPPERS),
	  F(KERNELS_SSA), NULL, accelc_pass_kernels_ssa },
	{ "wrappers", "lower",
	  "waiting loops marked; per kernel: implicit barriers (uniform "
	  "loops, grid-stride loops made uniform), then K__wg (work-item "
	  "loops, regions or fibers); K made internal",
	  NULL, F(LOWERING) | F(KERNELS_SSA) | LOWER_INPUT, F(INLINED),
	  F(WRAPPERS), NULL, accelc_pass_wrappers },
	{ "inline-attrs", "lower",
	  "alwaysinline on all but the wrappers and the fiber runtime",
	  NULL, F(WRAPPERS), F(INLINED), F(INLINE_MARKED), NULL,
	  accelc_pass_inline_attrs },
	{ "verify", "lower", "the module is valid IR",
	  NULL, F(WRAPPERS), 0, 0, NULL, accelc_pass_verify },
	{ "inline", "lower", "LLVM always-inline: kernels into the wrappers",
	  NULL, F(INLINE_MARKED), 0, F(INLINED), NULL, accelc_pass_inline },
	{ "internalize", "lower",
	  "all but the wrappers (and the fiber runtime, for now) internal",
	  NULL, F(INLINED), 0, F(INTERNAL), NULL, accelc_pass_internalize },
	{ "globaldce", "lower", "LLVM globaldce: drop what nothing uses",
	  NULL, F(INTERNAL), 0, 0, NULL, accelc_pass_globaldce },
	{ "wrappers-ssa", "lower",
	  "SROA: only values crossing a barrier need context arrays",
	  "a kernel runs as regions", F(INLINED), F(REGIONS_CUT),
	  F(WRAPPERS_SSA), accelc_pass_want_regions,
	  accelc_pass_wrappers_ssa },
	{ "regions-split", "lower",
	  "cut region bodies at barriers; implicit barriers at loop exits",
	  NULL, F(INLINED) | F(WRAPPERS_SSA), 0, F(REGIONS_CUT), NULL,
	  accelc_pass_regions_split },
	{ "builtins", "lower",
	  "work-item builtins to loop variables and ctx fields",
	  NULL, F(INLINED), 0, F(IDS), NULL, accelc_pass_builtins },
	{ "printf", "lower", "printf calls to records in the printf buffer",
	  NULL, F(INLINED), F(OPTIMISED), F(PRINTF), NULL, accelc_pass_printf },
	{ "locals", "lower", "kernel-scope __local variables into local memory",
	  NULL, F(WRAPPERS), 0, F(LOCALS), NULL, accelc_pass_locals },
	{ "regions-build", "lower",
	  "a work-item loop nest per region; values across barriers in "
	  "context arrays",
	  NULL, F(REGIONS_CUT) | F(IDS), 0, F(REGIONS_BUILT), NULL,
	  accelc_pass_regions_build },
	{ "verify-regions", "lower", "the module is valid IR",
	  "a kernel runs as regions", F(REGIONS_BUILT), 0, 0,
	  accelc_pass_want_regions, accelc_pass_verify },
	{ "generic", "lower",
	  "to_global/to_local/to_private/get_fence to address compares",
	  NULL, F(IDS) | F(PRINTF) | F(LOCALS) | F(REGIONS_BUILT), 0,
	  F(GENERIC), NULL, accelc_pass_generic },
	{ "fiber-runtime-internal", "lower",
	  "the fiber runtime internal, now its calls are made",
	  NULL, F(REGIONS_BUILT) | F(GENERIC), 0, 0, NULL,
	  accelc_pass_fiber_rt_internal },
	{ "kernel-flags", "lower",
	  "static local size, group-invariant flag; plain loops parallel",
	  NULL, F(LOCALS) | F(REGIONS_BUILT), 0, F(KERNEL_FLAGS), NULL,
	  accelc_pass_kernel_flags },
	{ "ids32-variants", "lower",
	  "K__wg_id32 for plain kernels whose guards compare 32-bit ids",
	  "optimising", F(KERNEL_FLAGS), 0, F(IDS32), accelc_pass_want_opt,
	  accelc_pass_ids32 },
	{ "streaming-variants", "lower",
	  "K__wg_nt (non-temporal stores) for element-wise plain kernels, "
	  "or only their flag (ACCELC_FLAG_STREAMING_LATER)",
	  "optimising", F(KERNEL_FLAGS), 0, F(STREAMING),
	  accelc_pass_want_opt, accelc_pass_streaming },
	{ "guards", "lower",
	  "branch weights on id range guards, then IRCE splits the loops",
	  "optimising", F(IDS32) | F(STREAMING), 0, F(GUARDS),
	  accelc_pass_want_opt, accelc_pass_guards },
	{ "check-undefined", "lower",
	  "no work-item builtin left, no missing OpenCL builtin",
	  NULL, F(GENERIC) | F(GUARDS), 0, F(LOWERED), NULL,
	  accelc_pass_check_undefined },
	/* ---- codegen: optimisation and code generation ---- */
	{ "target-machine", "codegen", "the target machine (CPU, features)",
	  NULL, 0, 0, F(TM), NULL, accelc_pass_target_machine },
	{ "optimise", "codegen",
	  "target attributes, vector variants, default<O3> (address-space "
	  "casts folded, work-item loops' "
	  "vectors split between its halves; gathers of one address "
	  "loaded once), or O0, globaldce",
	  NULL, F(LOWERED) | F(TM), 0, F(OPTIMISED), NULL,
	  accelc_pass_optimise },
	{ "streaming-finish", "lower",
	  "mark K__wg_nt's stores non-temporal, or drop it",
	  NULL, F(OPTIMISED) | F(STREAMING), 0, F(STREAMING_DONE), NULL,
	  accelc_pass_streaming_finish },
	{ "keep-ir", "codegen", "the optimised IR into the result",
	  "IR asked for", F(STREAMING_DONE), F(FRAME_SIZES), 0,
	  accelc_pass_want_ir, accelc_pass_keep_ir },
	{ "stack-prepare", "codegen",
	  "stack probes; frame sizes reported during code generation",
	  NULL, F(STREAMING_DONE), F(OBJECT), F(FRAME_SIZES), NULL,
	  accelc_pass_stack_prepare },
	{ "emit-asm", "codegen", "assembly into the result",
	  "assembly asked for", F(FRAME_SIZES) | F(TM), 0, 0,
	  accelc_pass_want_asm, accelc_pass_emit_asm },
	{ "emit-object", "codegen", "the ELF object file",
	  NULL, F(FRAME_SIZES) | F(TM), 0, F(OBJECT), NULL,
	  accelc_pass_emit_object },
	{ "stack-sizes", "codegen",
	  "each kernel's stack need; the fiber stack size object",
	  NULL, F(OBJECT), 0, F(STACK_SIZES), NULL, accelc_pass_stack_sizes },
};

const size_t accelc_n_passes = sizeof(accelc_passes) / sizeof(*accelc_passes);

/* The names of the facts in @p set, for the log. */
static void log_facts(struct strbuf *log, uint32_t set)
{
	for (unsigned f = 0; f < ACCELC_N_FACTS; f++)
		if (set & (1u << f))
			strbuf_printf(log, " %s", accelc_fact_names[f]);
}

int accelc_run_passes_of(struct accelc_pass_ctx *c,
			 const struct accelc_pass *passes, size_t n)
{
	const char *env = secure_getenv("ACCELC_TRACE_PASSES");
	bool trace = env && *env;

	for (size_t i = 0; i < n; i++) {
		const struct accelc_pass *p = &passes[i];
		uint32_t missing = p->requires & ~c->facts;
		uint32_t early = p->before & c->facts;
		bool run = !p->wanted || p->wanted(c);
		int r;

		if (missing || early) {
			strbuf_printf(c->st.log, "error: internal: pass %s",
				      p->name);
			if (missing) {
				strbuf_printf(c->st.log, " needs");
				log_facts(c->st.log, missing);
			}
			if (early) {
				strbuf_printf(c->st.log, " must come before");
				log_facts(c->st.log, early);
			}
			strbuf_printf(c->st.log, "\n");
			return -EIO;
		}
		if (trace)
			strbuf_printf(c->st.log, "pass: %s%s\n", p->name,
				      run ? "" : " (skipped)");
		if (run) {
			uint64_t t0 = job_now_ns();

			r = p->run(c);
			if (trace)
				strbuf_printf(c->st.log,
					      "pass time: %s %.3f ms\n",
					      p->name,
					      (double)(job_now_ns() - t0) / 1e6);
			/* accelc_result_get_timings() */
			if (c->j)
				job_time(c->j, p->name, t0);
			if (r)
				return r;
		}
		c->facts |= p->provides;
	}
	return 0;
}

int accelc_run_pipeline(struct accelc_pass_ctx *c)
{
	return accelc_run_passes_of(c, accelc_passes, accelc_n_passes);
}
