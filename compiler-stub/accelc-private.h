/* SPDX-License-Identifier: MIT */
/* Internal interfaces between the parts of accelc. */
#ifndef ACCELC_PRIVATE_H
#define ACCELC_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "accelc.h"

#define ACCELC_DEFAULT_TIMEOUT_MS 60000u
/* cap on a build log: clang can print megabytes for hostile input */
#define ACCELC_LOG_MAX (1u << 20)

/* A growing NUL-terminated string, capped at ACCELC_LOG_MAX. */
struct strbuf {
	char *buf;
	size_t len, cap;
	bool truncated;
};

void strbuf_append(struct strbuf *sb, const char *s, size_t n);
__attribute__((format(printf, 2, 3))) void strbuf_printf(struct strbuf *sb,
							 const char *fmt, ...);
void strbuf_free(struct strbuf *sb);

/* A NULL-terminated argv under construction. */
struct argv {
	char **v;
	size_t n, cap;
	bool oom;
};

void argv_add(struct argv *a, const char *s);
void argv_free(struct argv *a);

/* Build options after parsing. */
struct accelc_build_opts {
	struct argv clang_args; /* -D, -I, -cl-std, math flags, -w, -Werror */
	bool opt_disable;
	bool fast_math; /* -cl-fast-relaxed-math or -cl-unsafe-math-... */
	unsigned cl_std; /* 120, 200, 300 */
};

/* Parse @p options; unknown or malformed ones log a line, -EINVAL. */
int accelc_parse_options(const char *options, struct accelc_build_opts *out,
			 struct strbuf *log);
void accelc_build_opts_free(struct accelc_build_opts *o);

/*
 * Run @p argv[0] with @p argv, no shell, stdin /dev/null, stdout and
 * stderr appended to @p log (bounded), killed (with its process group)
 * after @p timeout_ms. @return exit status (>= 0), -ETIMEDOUT, -errno.
 */
int accelc_spawn(char *const argv[], struct strbuf *log, uint32_t timeout_ms);

/* The clang executable to use (malloc'ed), -ENOENT. */
int accelc_find_clang(const char *override, char **ret);

/* The SPIR-V translator (malloc'ed): $ACCEL_LLVM_SPIRV, the build's
 * llvm-spirv-15, llvm-spirv-15 on $PATH; -ENOENT. */
int accelc_find_translator(char **ret);

/* clang: @p src_path to LLVM bitcode at @p bc_path. */
int accelc_frontend(const char *clang, const struct accelc_build_opts *bo,
		    const char *src_path, const char *bc_path,
		    uint32_t timeout_ms, struct strbuf *log);

/* Kernel information the lowering gathers. */
struct kernel_desc {
	struct accelc_kernel_info info;
	LLVMValueRef fn; /* the kernel function */
	LLVMValueRef wg; /* its work-group function */
	bool fibers;     /* its work-items run as fibers (wg-wrappers.c) */
	bool spins;      /* reaches a loop waiting for others (wg-spin.c) */
};

struct lower_state {
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMTargetDataRef td;
	struct kernel_desc *kernels;
	uint32_t n_kernels;
	bool needs_fibers;
	bool may_spin; /* a kernel reaches an atomic operation */
	bool opt; /* optimising: streaming variants, guards split */
	/* ACCELC_FLAG_STREAMING_LATER: variants' candidates flagged only */
	bool streaming_later;
	struct strbuf *log;
};

/* Read kernels and their metadata into @p st->kernels. */
int accelc_read_kernels(struct lower_state *st);
void accelc_free_kernels(struct kernel_desc *k, uint32_t n);

/* ir-match.c: a direct call of a function whose name starts @p prefix? */
bool accelc_calls(LLVMValueRef i, const char *prefix);
/* ir-match.c: an integer division or remainder (which may trap)? */
bool accelc_int_division(LLVMValueRef i);

/* safe-div.c: integer divisions by 0 or INT_MIN / -1 do not trap. */
int accelc_safe_division(LLVMModuleRef mod);

/* Flag kernels that reach a barrier; sets st->needs_fibers. */
int accelc_find_barriers(struct lower_state *st);
/*
 * wg-spin.c: could a kernel wait for another work-item in a loop (it
 * reaches an atomic operation)? Then, in SSA form: mark such loops with
 * a yield (ACCELC_SPIN_YIELD) and set the kernels' spins.
 */
bool accelc_may_spin(struct lower_state *st);
int accelc_mark_spin_loops(struct lower_state *st, LLVMBuilderRef b);
/* wg-subgroups.c: must @p k run as fibers for its sub-group functions? */
bool accelc_subgroups_divergent(struct kernel_desc *k);

/* What the lowering of one wrapper needs at hand. */
struct wrapper {
	struct kernel_desc *k;
	LLVMValueRef fn;        /* K__wg, or K__item with fibers */
	LLVMValueRef fg;        /* fiber group (K__item) or NULL */
	LLVMValueRef x_latch;   /* the x loop's back branch, NULL with fibers */
	LLVMValueRef lid[3];
	LLVMValueRef grp[3], ls[3], enq[3], gsz[3], ngrp[3], off[3], base[3];
	LLVMValueRef work_dim, local_mem;
	/* __local globals placed so far and their offsets */
	LLVMValueRef *locals;
	LLVMValueRef *local_ptrs;
	size_t n_locals;
	/* the kernel calls a builtin that reveals its work-group's shape */
	bool sees_group;
	uint64_t local_size;
};

/* The lowering passes' builder, common types and wrappers (pipeline.h). */
struct lower {
	struct lower_state *st;
	LLVMBuilderRef b;
	LLVMTypeRef i8, i32, i64, ptr;
	LLVMMetadataRef access_group;
	struct wrapper *w;
};

/*
 * wg-streaming.c: K__wg_nt for the kernels run by a plain loop wrapper
 * (@p loop_wrapper[i]) that qualify; after optimisation, mark its
 * non-temporal stores or drop it.
 */
int accelc_streaming_variants(struct lower *l, const bool *loop_wrapper);
void accelc_streaming_finish(struct lower_state *st);
/*
 * wg-guards.c: K__wg_id32 for plain kernels whose guards compare 32-bit
 * ids (@made[i] set for those); the guards rewritten to 64 bits.
 */
int accelc_ids32_variants(struct lower *l, struct wrapper *ws,
			  const bool *plain, bool *made);
/* K__wg@suffix for kernel @k (malloc'ed), NULL without memory. */
char *accelc_variant_name(const struct kernel_desc *k, const char *suffix);
/*
 * Give range guards on ids in plain loop wrappers and their 32-bit ids
 * variants (@ids32) branch weights, so that IRCE splits the loops; how
 * many.
 */
unsigned accelc_mark_guards(struct lower *l, struct wrapper *ws,
			    const bool *plain, const bool *ids32);
/* Run an LLVM pass pipeline over the module (wg-lower.c). */
int accelc_run_passes(struct lower_state *st, const char *passes);

/*
 * wg-wrappers.c: K__wg for @p w->k, a plain loop over the work-items of
 * a kernel without barriers, or the work-items as fibers.
 */
void accelc_wg_loop_wrapper(struct lower *l, struct wrapper *w);
void accelc_wg_fiber_wrapper(struct lower *l, struct wrapper *w);

/* wg-builtins.c: replace the work-item builtin calls in @p w->fn. */
int accelc_lower_builtins(struct lower *l, struct wrapper *w);
/*
 * wg-sites.c: replace the @p n __accel_sub_group_site() @p calls of
 * @p w->fn with 1, 2 ... in reverse post-order of their blocks.
 */
int accelc_number_sg_sites(struct wrapper *w, LLVMValueRef *calls,
			   size_t n);
/*
 * printf-lower.c: turn printf calls (all inside wrappers by now) into
 * records in the launch's printf buffer; flags the kernels that print.
 */
int accelc_lower_printf(struct lower *l, struct wrapper *ws, uint32_t nw);
/* Move kernel-scope __local variables into each wrapper's local_mem. */
int accelc_lower_locals(struct lower *l, struct wrapper *ws, uint32_t nw);
/*
 * -EIO if a work-item builtin is left (used outside a kernel), -ENOEXEC
 * (logged) if another OpenCL builtin is missing.
 */
int accelc_check_undefined(struct lower_state *st);

/* Link the embedded builtins (and, when needed, the fiber runtime). */
int accelc_link_builtins(LLVMModuleRef mod, bool fibers, struct strbuf *log);
/*
 * Link bitcode [@start, @end) into @mod, read lazily; @only_needed: its
 * functions only where @mod calls them. @what names it in the log.
 */
int accelc_link_bitcode(LLVMModuleRef mod, const char *start,
			const char *end, const char *what, bool only_needed,
			struct strbuf *log);
/*
 * The builtins library in pieces (builtins-chunks.c): link the pieces
 * @mod calls; the library's name for @name (NULL: none); the run of
 * names starting with the @len bytes of @prefix; piece @i's bitcode
 * (NULL past the last one); the library's target and data layout set on
 * @mod.
 */
int accelc_link_builtin_chunks(LLVMModuleRef mod, struct strbuf *log);
const char *accelc_builtin_find(const char *name);
struct accelc_builtin_sym;
const struct accelc_builtin_sym *accelc_builtin_prefix(const char *prefix,
						       size_t len,
						       size_t *count);
const void *accelc_builtin_chunk_bits(unsigned i, size_t *size,
				      const char **name);
int accelc_builtins_set_target(LLVMModuleRef mod);

#include <llvm-c/TargetMachine.h>

/*
 * codegen/libmvec-<arch>.c: the glibc vector math variants generated code
 * may call (none on AArch64 with glibc 2.36).
 */
struct accelc_vec_fn {
	const char *name;  /* scalar function or intrinsic */
	const char *base;  /* libmvec name without _ZGV prefix */
	unsigned nargs;
	bool dbl;
};
extern const struct accelc_vec_fn accelc_vec_fns[];
extern const size_t accelc_n_vec_fns;
/* A vector ABI ISA: its letter and the floats per register it passes. */
struct accelc_vec_isa {
	char isa;
	unsigned lanes;
};
/*
 * The ISAs code for CPU @p features may call variants of, widest first
 * (x86-64: 'e' AVX-512, 'd' AVX2, 'b' SSE4; AArch64: 'n' NEON), in
 * @p ret. @return their number, >= 1
 */
size_t accelc_vec_isas(const char *features,
		       const struct accelc_vec_isa **ret);
/* The widest of them: its letter, its floats per register in @p lanes. */
char accelc_vec_isa(const char *features, unsigned *lanes);
/* "_ZGV<isa>N<lanes>v[v]_<base>" of @p v for @p isa, @p lanes floats. */
void accelc_vec_variant_name(const struct accelc_vec_fn *v, char isa,
			     unsigned lanes, char *buf, size_t size);

/* target.c: $ACCEL_CPU_TARGET, else "host" */
const char *accelc_target_default(void);
/* target.c: kernel @p k's sub-group size in code for @p features */
uint32_t accelc_kernel_sub_group_size(const struct accelc_kernel_info *k,
				      const char *features);

void accelc_llvm_init(void);
int accelc_create_tm(const char *cpu, const char *features, bool opt,
		     LLVMTargetMachineRef *ret, struct strbuf *log);
int accelc_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		    const char *cpu, const char *features, bool opt,
		    bool fast_math, bool split_vectors, struct strbuf *log);
/* split-vectors.c: vectors and switches of work-item loops the vectoriser
 * would refuse split, between default<O3>'s halves; needs LLVM's
 * -scalarize-load-store */
int accelc_split_vectors(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			 struct strbuf *log);
/* Work-item loops calling functions with vector variants given the
 * variants' vector width (codegen/vector-calls.c); @p loop_kind is the
 * llvm.loop metadata kind. */
void accelc_vector_calls(LLVMModuleRef mod, unsigned loop_kind);
/* splat-gathers.c: masked gathers whose lanes share one address become
 * one masked load, broadcast (after default<O3>) */
void accelc_splat_gathers(LLVMModuleRef mod);
/* flat-casts.c: loads, stores and GEPs through an addrspacecast use its
 * source (every address space is one on the CPU); 0 or -ENOMEM */
int accelc_flat_casts(LLVMModuleRef mod);
int accelc_emit(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		LLVMCodeGenFileType type, LLVMMemoryBufferRef *ret,
		struct strbuf *log);
/* Link @p obj (and @p obj2 if not NULL) into the shared object @p so. */
int accelc_link_so(const char *clang, const char *obj, const char *obj2,
		   const char *so, uint32_t timeout_ms, struct strbuf *log);

/*
 * stack-size.c: the stack each kernel needs. Recursion fails the build
 * (-ENOEXEC, said in @p log). Before code generation, _prepare makes LLVM
 * report frame sizes to @p s; after it, _finish sets each kernel's
 * private_size (and ACCELC_KERNEL_STACK_UNKNOWN) and the stack a
 * work-item function run as a fiber needs (*@p fiber_stack).
 */
struct frame_size;
struct accelc_stack {
	struct strbuf *log;
	bool measure; /* frame sizes from LLVM (only in accelc-codegen) */
	struct frame_size *sizes;
	size_t n, cap;
	bool oom;
};
/* metadata kind on wg-context.c's dynamic allocas (private_per_item) */
#define ACCELC_MD_CTX_ARRAY "accelc.ctx"
int accelc_check_recursion(LLVMModuleRef mod, struct strbuf *log);
void accelc_stack_prepare(LLVMModuleRef mod, struct accelc_stack *s);
int accelc_stack_finish(struct lower_state *st, struct accelc_stack *s,
			uint64_t *fiber_stack);
void accelc_stack_free(struct accelc_stack *s);
/*
 * What accelc-codegen wrote to stderr (file @p path), to @p log without
 * the line LLVM 16 prints there after each frame size it reports.
 */
void accelc_stack_copy_stderr(const char *path, struct strbuf *log);
/* where accelc-codegen's stderr goes, in the build's directory */
#define ACCELC_CODEGEN_STDERR "codegen.err"
/* The accelc-codegen builds run (malloc'ed), NULL if there is none. */
char *accelc_codegen_path(void);
/* An object defining ACCELC_FIBER_STACK as @p bytes, written to @p path. */
int accelc_emit_fiber_stack(LLVMContextRef c, LLVMTargetMachineRef tm,
			    uint64_t bytes, const char *path,
			    struct strbuf *log);

/* The embedded bitcode blobs and prelude text (blob.c.in). */
extern const char accelc_fiber_bc[];
extern const char accelc_fiber_bc_end[];
extern const char accelc_program_prelude[];

/* Names the generated code shares with runtime/fiber.c. */
#define ACCELC_FIBER_RUN "__accelc_fiber_run"
#define ACCELC_FIBER_BARRIER "__accelc_fiber_barrier"
#define ACCELC_FIBER_SG_WAIT "__accelc_fiber_sg_wait"
#define ACCELC_FIBER_SG_DONE "__accelc_fiber_sg_done"
#define ACCELC_FIBER_YIELD "__accelc_fiber_yield"
/* the back edge of a loop waiting for other work-items (wg-spin.c) */
#define ACCELC_SPIN_YIELD "__accel_spin_yield"
/* bytes of stack a work-item function needs (defined at link time) */
#define ACCELC_FIBER_STACK "__accelc_fiber_stack"

#endif /* ACCELC_PRIVATE_H */
