/* SPDX-License-Identifier: MIT */
/*
 * Kernels with barriers as loops over work-items (wg-regions.c), and the
 * pieces of the other wrappers (wg-wrappers.c) it shares.
 */
#ifndef ACCELC_WG_REGIONS_H
#define ACCELC_WG_REGIONS_H

#include "accelc-private.h"

/* Pointer -> pointer map (open addressing); keys are never NULL. */
struct ptrmap {
	void **k, **v;
	size_t cap, n;
};

int ptrmap_put(struct ptrmap *m, void *k, void *v);
void *ptrmap_get(const struct ptrmap *m, const void *k);
void ptrmap_clear(struct ptrmap *m);
void ptrmap_free(struct ptrmap *m);

/* One kernel's regions: the state between the steps below. */
struct regions {
	struct lower *l;
	struct wrapper *w;
	LLVMValueRef fn;
	LLVMBasicBlockRef prologue; /* entry: arguments, ctx, allocas */
	LLVMBasicBlockRef body;     /* the kernel's first block */
	LLVMValueRef cur[3];        /* allocas: the running item's local id */
	LLVMValueRef ph[3];         /* what the builtins use for it, at first */
	LLVMValueRef next;          /* alloca i32: the barrier reached */
	/* barrier j: block bar[j] (only "br cont[j]") starts region j + 1 */
	LLVMBasicBlockRef *bar, *cont;
	size_t nbar;
	/* the kernel's blocks (without the prologue) and their indices */
	LLVMBasicBlockRef *blocks;
	size_t nblocks;
	struct ptrmap bidx;
	/* region r: in[r * nblocks + b], reaches[r * (nbar + 1) + j] (j ==
	 * nbar: the end of the kernel), cyclic[r]: may run again */
	uint8_t *in, *reaches, *cyclic;
	LLVMValueRef n_items;       /* work-items in the group */
	LLVMValueRef *uniform;      /* wg-uniform.c: shared scalars */
	size_t n_uniform;
	LLVMValueRef heap;          /* context arrays on the heap, or NULL */
};

/* wg-regions.c: rebuild @p phi with incoming block @p from as @p to */
int accelc_phi_retarget(struct lower *l, LLVMValueRef phi,
			LLVMBasicBlockRef from, LLVMBasicBlockRef to);
/* realloc(*p) to n + 1 elements of @p size */
int accelc_grow(void **p, size_t n, size_t size);
/* wg-loop-exits.c: implicit barriers at uniform exits of loops with
 * barriers, up to @p max_barriers in all */
int accelc_regions_loop_exits(struct regions *rg, size_t max_barriers);

/* wg-implicit.c: barriers at the top of loops worth running each
 * iteration across all work-items in a barrier-free kernel (before
 * inlining, in SSA form); 1 if any was added */
int accelc_implicit_barriers(struct lower *l, struct kernel_desc *k);

/* wg-narrow.c: the x loop's bound for region @p g when its work-items
 * from some uniform s on do nothing (built where the builder is, from
 * the uniform variables' values @p start), or NULL: the local size */
LLVMValueRef accelc_regions_x_bound(struct regions *rg, size_t g,
				    LLVMValueRef *start);

/* wg-uniform.c: predecessor lists of @p nb blocks, which @p index maps
 * to their position + 1: those of block b are (*pred)[(*off)[b] ..
 * (*off)[b + 1]) */
int accelc_preds(LLVMBasicBlockRef *blocks, size_t nb,
		 const struct ptrmap *index, size_t **off, size_t **pred);

/* wg-uniform.c: find the variables that are the same in all work-items */
int accelc_regions_find_uniform(struct regions *rg);

/* wg-demote.c: side-effect free and safe to run anywhere? */
bool accelc_regions_pure(LLVMValueRef i);
/* wg-demote.c: @p v's distinct users in *@p ret (free() it), or SIZE_MAX
 * without memory */
size_t accelc_regions_users(LLVMValueRef v, LLVMValueRef **ret);
/* wg-demote.c: @p user's operands that are @p from become @p to */
void accelc_regions_set_operands(LLVMValueRef user, LLVMValueRef from,
				 LLVMValueRef to);
/* wg-demote.c: the steps of accelc_regions_build before the cloning. */
int accelc_regions_rehome_ids(struct regions *rg);
void accelc_regions_hoist_uniform(struct regions *rg);
int accelc_regions_demote(struct regions *rg);
/* A context array laid out chunk by chunk (wg-ctx-chunks.c) */
#define ACCELC_CTX_MAX_CHUNKS 16
struct accelc_ctx_chunks {
	struct lower *l;
	/* one array per chunk */
	LLVMValueRef bases[ACCELC_CTX_MAX_CHUNKS];
	uint64_t chunk, size;
	LLVMTypeRef type;
	/* the work-item's linear local id in block @p bb, NULL if no memory */
	LLVMValueRef (*item_at)(void *arg, LLVMBasicBlockRef bb);
	void *arg;
};

/* The chunk size for alloca @p a (slots @p stride bytes apart), 0 if its
 * slots stay whole; at most ACCELC_CTX_MAX_CHUNKS chunks. */
uint64_t accelc_ctx_chunk(LLVMTargetDataRef td, LLVMValueRef a,
			  uint64_t stride);
/* @p a's uses onto the chunked array @p k describes; @p a erased. */
int accelc_ctx_chunk_rewrite(struct accelc_ctx_chunks *k, LLVMValueRef a);
/* Per-work-item arrays for the allocas used in more than one region;
 * their bases are built at the end of @p start. */
int accelc_regions_context(struct regions *rg, LLVMBasicBlockRef start,
			   LLVMBasicBlockRef *after);

/* wg-wrappers.c */
void accelc_wg_load_args(struct lower *l, struct kernel_desc *k,
			 LLVMValueRef args, LLVMValueRef *vals);
void accelc_wg_load_ctx(struct lower *l, struct wrapper *w, LLVMValueRef ctx);
LLVMValueRef accelc_wg_call_kernel(struct lower *l, struct kernel_desc *k,
				   LLVMValueRef *vals);
LLVMValueRef accelc_wg_add_function(struct lower *l, const char *name,
				    LLVMTypeRef *params, unsigned n);
/* At the builder: call ctx->fail(ctx, @p error) (accel-wg.h) and return. */
void accelc_wg_fail_return(struct lower *l, LLVMValueRef ctx, int error);
/* the x loop's ID; @p interleave: 0 leaves the count to the vectoriser */
LLVMValueRef accelc_wg_loop_id(struct lower *l, unsigned interleave);
/* Marks the loads and stores of @p fn (past its entry block) parallel
 * for the work-item loops, but those @p ordered says must stay ordered. */
void accelc_wg_tag_parallel(struct lower *l, LLVMValueRef fn,
			    bool (*ordered)(LLVMValueRef ptr));

/* Can @p k run as barrier-free regions? False: use fibers. */
bool accelc_regions_fit(struct kernel_desc *k);

/*
 * Builds K__wg(args, ctx) calling K once with work-item builtins bound
 * to per-item loop variables; @p *ret holds what the other steps need.
 */
int accelc_regions_wrapper(struct lower *l, struct wrapper *w,
			   struct regions **ret);
/* After inlining: cuts the body at each barrier (the calls go away). */
int accelc_regions_split(struct lower *l, struct regions *rg);
/*
 * After the builtins are lowered: one work-item loop nest per region,
 * values live across barriers in per-work-item context arrays.
 */
int accelc_regions_build(struct lower *l, struct regions *rg);
void accelc_regions_free(struct regions *rg);

/* wg-generic.c: to_global(), to_local(), to_private() and get_fence() in
 * @p w->fn, once all else is lowered; @p heap: the block of context
 * arrays the regions malloc'ed (wg-context.c), or NULL */
int accelc_lower_generic(struct lower *l, struct wrapper *w,
			 LLVMValueRef heap);

#endif /* ACCELC_WG_REGIONS_H */
