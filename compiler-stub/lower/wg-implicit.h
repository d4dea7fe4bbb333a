/* SPDX-License-Identifier: MIT */
/*
 * Implicit barriers (wg-implicit.c) and the grid-stride loops they make
 * uniform first (wg-grid-stride.c): the CFG view both work on.
 */
#ifndef ACCELC_WG_IMPLICIT_H
#define ACCELC_WG_IMPLICIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "wg-regions.h"

struct fcfg {
	LLVMBasicBlockRef *bb;
	size_t n;
	struct ptrmap idx;
	size_t *pred_off, *pred;
	uint8_t *in, *seen;     /* the loop looked at; scratch */
	size_t *stack;
	LLVMBasicBlockRef header;
	LLVMValueRef *assumed;  /* header phis taken as uniform */
	size_t nassumed;
	LLVMValueRef xphi;      /* a grid-stride loop's j: consecutive */
	/* rewritten grid-stride loops' j < n tests: both sides go on to
	 * the same next iteration, so they decide nothing after the loop */
	const LLVMBasicBlockRef *joins;
	const LLVMValueRef *bases;   /* and their uniform counters */
	size_t njoins;
};

/* The index of @p b in g->bb. */
size_t accelc_fcfg_block(struct fcfg *g, LLVMBasicBlockRef b);
/* Same value in every work-item of the group? */
bool accelc_fcfg_uniform(struct fcfg *g, LLVMValueRef v);

/* for (j = init; j < bound; j += step) */
struct stride {
	LLVMValueRef phi, init, next, step, cmp, bound;
	LLVMBasicBlockRef pre, latch, body;
};

/* Does g->header (its loop in g->in) head a grid-stride loop the rewrite
 * takes? Fills @p s. */
bool accelc_stride_find(struct fcfg *g, struct stride *s);
/* Rewrites it to a uniform count; returns the block for the barrier,
 * *@p ret_base: the uniform counter, *@p ret_join: the block testing j. */
LLVMBasicBlockRef accelc_stride_rewrite(struct lower *l, struct fcfg *g,
					struct stride *s,
					LLVMValueRef *ret_base,
					LLVMBasicBlockRef *ret_join);

#endif
