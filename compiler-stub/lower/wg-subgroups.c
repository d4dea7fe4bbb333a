/* SPDX-License-Identifier: MIT */
/*
 * Which kernels must run their sub-group functions as fibers.
 *
 * The sub-group functions (builtins/sub-group.h) are, with regions,
 * work-group barriers around a step over the caller's sub-group. OpenCL
 * only asks that all work-items of a sub-group reach them alike, not the
 * whole work-group: `if (get_sub_group_id() == 0) x =
 * sub_group_reduce_add(y);` is valid, and the ballot and non-uniform
 * functions need not even be reached by the whole sub-group. Regions
 * (wg-regions.c) take the barrier the last work-item reached as
 * everyone's, which such code breaks; with fibers (runtime/fiber.c) each
 * sub-group function waits for the caller's own sub-group, its active
 * lanes.
 *
 * So a kernel keeps its regions only where each call reaching a sub-group
 * function is made alike by every work-item of the group, in the kernel
 * and in every function on the way: its block is run exactly once (it
 * lies on every path from the entry to a return and on no cycle), or
 * every branch that can lead to it decides on a value the same in all
 * work-items (constants, the kernel's arguments, the group's geometry,
 * arithmetic and loads of one address on those). Anything else runs as
 * fibers. This runs before inlining, on the kernel's call graph, in SSA
 * form (kernels-ssa).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "accelc-private.h"

#define MAX_DEPTH 64
/* searches are quadratic in this; beyond it a kernel runs as fibers */
#define MAX_BLOCKS 4096

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len > n && !memcmp(s, prefix, n);
}

/*
 * sub_group_* builtins, "_Z<n>sub_group_", but the get_sub_group_*
 * queries and the ballot's bit operations, which are plain functions.
 */
static bool is_sub_group_fn(LLVMValueRef f)
{
	size_t len;
	const char *n = LLVMGetValueName2(f, &len);
	size_t i = 2;

	if (len < 3 || n[0] != '_' || n[1] != 'Z')
		return false;
	while (i < len && n[i] >= '0' && n[i] <= '9')
		i++;
	if (i == 2)
		return false;
	n += i;
	len -= i;
	if (starts(n, len, "sub_group_ballot_") ||
	    starts(n, len, "sub_group_inverse_ballot"))
		return false;
	return starts(n, len, "sub_group_") ||
	       starts(n, len, "intel_sub_group_");
}

struct walk {
	LLVMBasicBlockRef *stack;
	LLVMBasicBlockRef *seen; /* visited blocks of the current search */
	size_t n_seen, cap;
};

static bool visited(struct walk *w, LLVMBasicBlockRef bb)
{
	for (size_t i = 0; i < w->n_seen; i++)
		if (w->seen[i] == bb)
			return true;
	return false;
}

/*
 * Can the search from @p from reach a return without passing @p avoid
 * (@p to_self: reach @p avoid again instead)? Fails safe: too large a
 * function answers true.
 */
static bool escapes(struct walk *w, LLVMBasicBlockRef from,
		    LLVMBasicBlockRef avoid, bool to_self)
{
	size_t sp = 0;

	w->n_seen = 0;
	if (!to_self) {
		if (from == avoid)
			return false;
		w->stack[sp++] = from;
		w->seen[w->n_seen++] = from;
	} else {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(from);

		for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t); s++) {
			LLVMBasicBlockRef succ = LLVMGetSuccessor(t, s);

			if (succ == avoid)
				return true;
			if (visited(w, succ))
				continue;
			if (w->n_seen == w->cap)
				return true;
			w->seen[w->n_seen++] = succ;
			w->stack[sp++] = succ;
		}
	}
	while (sp) {
		LLVMBasicBlockRef bb = w->stack[--sp];
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);

		if (!t)
			return true;
		if (!to_self && LLVMGetInstructionOpcode(t) == LLVMRet)
			return true;
		for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
			LLVMBasicBlockRef succ = LLVMGetSuccessor(t, s);

			if (succ == avoid) {
				if (to_self)
					return true;
				continue;
			}
			if (visited(w, succ))
				continue;
			if (w->n_seen == w->cap)
				return true;
			w->seen[w->n_seen++] = succ;
			w->stack[sp++] = succ;
		}
	}
	return false;
}

/* work-item builtins whose value is the same in the whole group */
static const char *const uniform_builtins[] = {
	"_Z14get_local_sizej", "_Z23get_enqueued_local_sizej",
	"_Z15get_global_sizej", "_Z14get_num_groupsj", "_Z12get_group_idj",
	"_Z17get_global_offsetj", "_Z12get_work_dimv",
	"_Z22get_max_sub_group_sizev", "_Z18get_num_sub_groupsv",
	"_Z27get_enqueued_num_sub_groupsv",
};

static bool uniform_call(LLVMValueRef callee)
{
	size_t len;
	const char *n;

	if (!callee || !LLVMIsAFunction(callee))
		return false;
	n = LLVMGetValueName2(callee, &len);
	for (size_t i = 0;
	     i < sizeof(uniform_builtins) / sizeof(*uniform_builtins); i++)
		if (strlen(uniform_builtins[i]) == len &&
		    !memcmp(uniform_builtins[i], n, len))
			return true;
	return false;
}

/*
 * Is @p v the same in every work-item of the group? Phis on the way
 * (@p phis, @p n_phis of them: a loop's counter) are taken to be, which
 * the rest of the cycle then confirms or refutes.
 */
static bool uniform(LLVMValueRef kernel, LLVMValueRef v, LLVMValueRef *phis,
		    size_t n_phis, int depth)
{
	LLVMOpcode op;

	if (LLVMIsAConstant(v))
		return true;
	if (LLVMIsAArgument(v))
		return LLVMGetParamParent(v) == kernel;
	if (!LLVMIsAInstruction(v) || depth > 32)
		return false;
	op = LLVMGetInstructionOpcode(v);
	if (op == LLVMPHI) {
		LLVMValueRef stack[33];

		for (size_t i = 0; i < n_phis; i++)
			if (phis[i] == v)
				return true;
		if (n_phis)
			memcpy(stack, phis, n_phis * sizeof(*phis));
		stack[n_phis] = v;
		for (unsigned i = 0; i < LLVMCountIncoming(v); i++)
			if (!uniform(kernel, LLVMGetIncomingValue(v, i), stack,
				     n_phis + 1, depth + 1))
				return false;
		return true;
	}
	if (op == LLVMCall) {
		if (!uniform_call(LLVMGetCalledValue(v)))
			return false;
	} else if (!(LLVMIsABinaryOperator(v) || LLVMIsACastInst(v) ||
		     LLVMIsACmpInst(v) || op == LLVMSelect ||
		     op == LLVMGetElementPtr || op == LLVMLoad ||
		     op == LLVMFNeg)) {
		return false;
	}
	/* a load of one address gives one value: anything else would be
	 * a data race */
	for (int i = 0; i < LLVMGetNumOperands(v); i++) {
		LLVMValueRef o = LLVMGetOperand(v, i);

		if (op == LLVMCall && LLVMIsAFunction(o))
			continue;
		if (!uniform(kernel, o, phis, n_phis, depth + 1))
			return false;
	}
	return true;
}

/* The condition a block's terminator decides on, NULL if none. */
static LLVMValueRef condition(LLVMValueRef t)
{
	if (!t)
		return NULL;
	if (LLVMGetInstructionOpcode(t) == LLVMBr && LLVMIsConditional(t))
		return LLVMGetCondition(t);
	if (LLVMGetInstructionOpcode(t) == LLVMSwitch)
		return LLVMGetOperand(t, 0);
	return NULL;
}

/*
 * Does every branch that can lead to @p bb decide alike in all
 * work-items? The blocks reaching it are collected backwards into w->seen.
 */
static bool uniformly_reached(struct walk *w, LLVMValueRef kernel,
			      LLVMValueRef fn, LLVMBasicBlockRef bb)
{
	bool grew = true;

	w->n_seen = 0;
	w->seen[w->n_seen++] = bb;
	while (grew) {
		grew = false;
		for (LLVMBasicBlockRef x = LLVMGetFirstBasicBlock(fn); x;
		     x = LLVMGetNextBasicBlock(x)) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(x);
			bool reaches = false;

			if (x != bb && visited(w, x))
				continue;
			for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t);
			     s++)
				reaches |= visited(w, LLVMGetSuccessor(t, s));
			if (!reaches)
				continue;
			if (condition(t) &&
			    !uniform(kernel, condition(t), NULL, 0, 0))
				return false;
			if (x == bb)
				continue;
			if (w->n_seen == w->cap)
				return false;
			w->seen[w->n_seen++] = x;
			grew = true;
		}
	}
	return true;
}

/* Is @p bb run exactly once by every call of its function? */
static bool once(struct walk *w, LLVMValueRef fn, LLVMBasicBlockRef bb)
{
	return !escapes(w, LLVMGetEntryBasicBlock(fn), bb, false) &&
	       !escapes(w, bb, bb, true);
}

/*
 * Does @p fn reach a sub-group function (@return 1), not (0), or from a
 * block not run once (-1, the kernel needs fibers)?
 */
static int reach(struct walk *w, LLVMValueRef kernel, LLVMValueRef fn,
		 int depth)
{
	int any = 0;

	if (depth > MAX_DEPTH)
		return -1;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef callee;
			int r;

			if (!LLVMIsACallInst(i))
				continue;
			callee = LLVMGetCalledValue(i);
			if (!callee || !LLVMIsAFunction(callee))
				continue;
			if (is_sub_group_fn(callee))
				r = 1;
			else if (LLVMIsDeclaration(callee))
				continue;
			else
				r = reach(w, kernel, callee, depth + 1);
			if (r < 0)
				return r;
			if (r && !once(w, fn, bb) &&
			    !uniformly_reached(w, kernel, fn, bb))
				return -1;
			any |= r;
		}
	}
	return any;
}

bool accelc_subgroups_divergent(struct kernel_desc *k)
{
	size_t blocks = 0;
	struct walk w = { 0 };
	bool r;

	/* a search visits one function's blocks: the largest bounds all */
	for (LLVMValueRef f = LLVMGetFirstFunction(LLVMGetGlobalParent(k->fn));
	     f; f = LLVMGetNextFunction(f)) {
		size_t n = LLVMCountBasicBlocks(f);

		blocks = n > blocks ? n : blocks;
	}
	w.cap = blocks < MAX_BLOCKS ? blocks + 1 : MAX_BLOCKS;
	w.stack = malloc(w.cap * sizeof(*w.stack));
	w.seen = malloc(w.cap * sizeof(*w.seen));
	/* no memory: fibers are right for every kernel */
	r = !w.stack || !w.seen || reach(&w, k->fn, k->fn, 0) < 0;
	free(w.stack);
	free(w.seen);
	return r;
}
