/* SPDX-License-Identifier: MIT */
/*
 * The code generator as a table of passes, from clang's bitcode to the
 * object file: each pass with the facts it needs (requires), the facts
 * that must not hold yet (before) and the facts it leaves (provides).
 * accelc_run_pipeline() runs the table in order; accelc --print-passes
 * lists it. No LLVM types here: the CLI and the tests read the table.
 */
#ifndef ACCELC_PASSES_H
#define ACCELC_PASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What holds of the module, as one bit each (ACCELC_FACT()). */
enum accelc_fact {
	ACCELC_FACT_MODULE,        /* clang's bitcode parsed */
	ACCELC_FACT_KERNELS,       /* kernels and their metadata read */
	ACCELC_FACT_NO_RECURSION,  /* the call graph has no cycle */
	ACCELC_FACT_BUILTINS,      /* the builtins library linked */
	ACCELC_FACT_SAFE_DIV,      /* no integer division traps */
	ACCELC_FACT_BARRIERS,      /* kernels reaching a barrier flagged */
	ACCELC_FACT_FIBER_RT,      /* the fiber runtime linked if needed */
	ACCELC_FACT_LOWERING,      /* the lowering's state made */
	ACCELC_FACT_KERNELS_SSA,   /* barrier-free kernels in SSA form */
	ACCELC_FACT_WRAPPERS,      /* a work-group function per kernel */
	ACCELC_FACT_INLINE_MARKED, /* alwaysinline on all but wrappers */
	ACCELC_FACT_INLINED,       /* kernels inlined into the wrappers */
	ACCELC_FACT_INTERNAL,      /* only the wrappers are external */
	ACCELC_FACT_WRAPPERS_SSA,  /* wrappers with regions in SSA form */
	ACCELC_FACT_REGIONS_CUT,   /* bodies cut at barriers */
	ACCELC_FACT_IDS,           /* work-item builtins lowered */
	ACCELC_FACT_PRINTF,        /* printf calls lowered to records */
	ACCELC_FACT_LOCALS,        /* __local variables in local memory */
	ACCELC_FACT_REGIONS_BUILT, /* work-item loops over the regions */
	ACCELC_FACT_GENERIC,       /* generic-pointer builtins lowered */
	ACCELC_FACT_KERNEL_FLAGS,  /* local size, flags, plain loops known */
	ACCELC_FACT_IDS32,         /* 32-bit ids variants made */
	ACCELC_FACT_STREAMING,     /* streaming variants made */
	ACCELC_FACT_GUARDS,        /* range guards split off */
	ACCELC_FACT_LOWERED,       /* no work-item builtin left */
	ACCELC_FACT_TM,            /* the target machine made */
	ACCELC_FACT_OPTIMISED,     /* the optimisation pipeline ran */
	ACCELC_FACT_STREAMING_DONE,/* streaming variants kept or dropped */
	ACCELC_FACT_FRAME_SIZES,   /* frame sizes reported at emission */
	ACCELC_FACT_OBJECT,        /* the object file written */
	ACCELC_FACT_STACK_SIZES,   /* kernels' stack needs known */
	ACCELC_N_FACTS
};
#define ACCELC_FACT(f) (1u << ACCELC_FACT_##f)

/* "module", "kernels", ...: what --print-passes shows */
extern const char *const accelc_fact_names[ACCELC_N_FACTS];

/* What the passes share (pipeline.h). */
struct accelc_pass_ctx;

struct accelc_pass {
	const char *name;     /* "safe-division" */
	const char *stage;    /* the folder of its code: "lower", "codegen" */
	const char *what;     /* its effect, one line */
	const char *when;     /* NULL: always; else when it runs */
	uint32_t requires;    /* ACCELC_FACT()s that must hold */
	uint32_t before;      /* ACCELC_FACT()s that must not hold yet */
	uint32_t provides;    /* ACCELC_FACT()s that hold after it */
	/* NULL: always; false: skipped (its provides hold all the same:
	 * there was nothing to do) */
	bool (*wanted)(const struct accelc_pass_ctx *c);
	int (*run)(struct accelc_pass_ctx *c);
};

/* The pipeline, in the order it runs. */
extern const struct accelc_pass accelc_passes[];
extern const size_t accelc_n_passes;

/*
 * Run @p n @p passes in order over @p c. A pass whose requires do not
 * hold, or one of whose before facts does, is an internal error (logged,
 * -EIO), so a reordered table cannot break a contract silently. With
 * $ACCELC_TRACE_PASSES set (non-empty) each pass logs "pass: NAME" or
 * "pass: NAME (skipped)" before it runs. @return 0 or the first pass's
 * error.
 */
int accelc_run_passes_of(struct accelc_pass_ctx *c,
			 const struct accelc_pass *passes, size_t n);
/* accelc_run_passes_of() over accelc_passes */
int accelc_run_pipeline(struct accelc_pass_ctx *c);

#endif /* ACCELC_PASSES_H */
