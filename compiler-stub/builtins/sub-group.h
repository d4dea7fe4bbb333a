/* SPDX-License-Identifier: MIT */
/*
 * What the sub-group functions share (sub-group*.cl): the geometry, the
 * scratch memory and COLLECTIVE, the frame of every function that
 * combines the values of a sub-group's work-items.
 *
 * A sub-group is a run of W consecutive local linear ids, the last one
 * of a group shorter when W does not divide the group's size. W is the
 * kernel's (__accel_sub_group_width(), a constant in each kernel's
 * wrapper: lower/wg-builtins.c): its intel_reqd_sub_group_size, else the
 * lanes of a float vector of the target, 4, 8 or 16, halved while it does
 * not divide a reqd_work_group_size x above 1 (codegen/target.c).
 *
 * A work-group runs on one thread. Where every call of a sub-group
 * function is reached by the whole group alike (the kernel runs as
 * regions, __accel_sub_groups_converged(), set per kernel by the
 * lowering: lower/wg-subgroups.c) a function is a barrier with a step in
 * between, as in wg-collective.cl: every work-item publishes its value,
 * a barrier, the first work-item does the step for every sub-group, a
 * barrier, and every lane reads its result. Elsewhere the work-items
 * run as fibers and wait for their own sub-group in the fiber runtime
 * (runtime/fiber.c): the first of its active work-items does the step
 * for them, whatever the others of the group do meanwhile.
 */
#ifndef ACCELC_SUB_GROUP_H
#define ACCELC_SUB_GROUP_H

#include "builtins.h"

uint __accel_sub_group_width(void) __attribute__((const));
int __accel_sub_groups_converged(void);
size_t __accel_sub_group_step_x(void);
local void *__accel_wg_scratch(void);
/* fibers only (lowered to the runtime's): a number for each call, and
 * the wait for the sub-group, which gives the leader the active lanes */
uint __accel_sub_group_site(void);
ulong __accel_sub_group_wait(uint site, uint width, uint all);
void __accel_sub_group_done(uint width, ulong active);

static inline uint sg_items(void)
{
	return get_local_size(0) * get_local_size(1) * get_local_size(2);
}

/* wg-scratch.c's size: the largest work-group */
#define ITEMS 4096

/*
 * Two arrays of the scratch memory: P, where the lanes publish their
 * values, and R, where the results are. A step reads P and writes R
 * between the publication and the reading of the results, so the next
 * function's publication (P) never meets a reader of this one's (R).
 * With regions a lane's slot is P[l] and R[l], in the function's type,
 * which the work-item loop reads and writes as whole vectors. With fibers
 * the active lanes of a sub-group and the others may be at different
 * functions at once, of different types: each lane has an 8-byte slot
 * in each array, so that they stay apart. l: the caller's id, i: its
 * lane, b: its sub-group's first lane, n: its size.
 */
#define P_BASE ((local uchar *)__accel_wg_scratch())
#define R_BASE (P_BASE + ITEMS * 8)
/* the slot of the work-item with local linear id @p x */
#define SLOT(T, base, x)                                                       \
	(__accel_sub_groups_converged() ? (local T *)(base) + (x) :            \
					  (local T *)((base) + (size_t)(x) * 8))
#define MINE(T, base) SLOT(T, base, get_local_linear_id())

/* all lanes of a sub-group of @p n, as bits */
#define FULL(n) ((n) >= 64 ? ~0ul : (1ul << (n)) - 1)
#define ACTIVE(k) ((ms >> (k)) & 1)

/* a step's names, which a body needs not all use */
#define SG_USED ((void)s0, (void)ns, (void)ms)
/* in a body: lane k's value and result */
#define PS(k) (*SLOT(sg_tp, P_BASE, s0 + (k)))
#define RS(k) (*SLOT(sg_tr, R_BASE, s0 + (k)))

/*
 * COLLECTIVE(TP, TR, x, all, body): publishes @p x (of type TP), runs
 * @p body once per sub-group, with PS(k) and RS(k) lane k's value (TP,
 * sg_tp there) and result (TR, sg_tr), s0 its first lane, ns its size
 * and ms its active lanes as bits (body writes RS for those), and
 * leaves the caller's result in RESULT(TR). @p all: the function must be reached by the
 * whole sub-group (else by its active lanes, those that reach the same
 * call together).
 *
 * With regions the first work-item does every sub-group's step, and the
 * region's work-item loop stops after it (__accel_sub_group_step_x() is
 * then 1: lower/wg-narrow.c); all lanes are active there.
 */
#define COLLECTIVE(TP, TR, x, all, body)                                       \
	typedef TP sg_tp;                                                      \
	typedef TR sg_tr;                                                      \
	uint l = get_local_linear_id(), w = __accel_sub_group_width();         \
	uint i = l % w, b = l - i, n = min(w, sg_items() - b);                 \
	*MINE(sg_tp, P_BASE) = (x);                                            \
	if (__accel_sub_groups_converged()) {                                  \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
		if (get_local_id(0) < __accel_sub_group_step_x() &&            \
		    get_local_linear_id() == 0) {                              \
			for (uint s0 = 0; s0 < sg_items(); s0 += w) {          \
				uint ns = min(w, sg_items() - s0);             \
				ulong ms = FULL(ns);                           \
				SG_USED;                                       \
				body                                           \
			}                                                      \
		}                                                              \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
	} else {                                                               \
		ulong ms = __accel_sub_group_wait(__accel_sub_group_site(), w, \
						  (all));                      \
		if (ms) {                                                      \
			uint s0 = b, ns = n;                                   \
			SG_USED;                                               \
			body                                                   \
			__accel_sub_group_done(w, ms);                         \
		}                                                              \
	}                                                                      \
	(void)i, (void)sizeof(sg_tr)

#define RESULT(T) (*MINE(T, R_BASE))

#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define LAND(a, b) ((a) && (b))
#define LOR(a, b) ((a) || (b))
#define LXOR(a, b) (!(a) != !(b))

/*
 * OP over the active p[k]: whole vectors as a tree where all of the
 * usual widths are active (the order of a sub-group reduction is not
 * specified), else in order.
 */
#define FOLD(T, NAME, OP)                                                      \
	static T fold_##NAME##_##T(uint s0, uint n, ulong ms)                  \
	{                                                                      \
		typedef T sg_tp;                                               \
		local sg_tp *p = SLOT(sg_tp, P_BASE, s0);                      \
		T r;                                                           \
		bool packed = __accel_sub_groups_converged();                  \
		if (packed && n == 16 && ms == FULL(16)) {                     \
			T##16 v = vload16(0, p);                               \
			T##8 a = OP(v.lo, v.hi);                               \
			T##4 c = OP(a.lo, a.hi);                               \
			T##2 d = OP(c.lo, c.hi);                               \
			return OP(d.lo, d.hi);                                 \
		}                                                              \
		if (packed && n == 8 && ms == FULL(8)) {                       \
			T##8 a = vload8(0, p);                                 \
			T##4 c = OP(a.lo, a.hi);                               \
			T##2 d = OP(c.lo, c.hi);                               \
			return OP(d.lo, d.hi);                                 \
		}                                                              \
		r = PS(ctz(ms));                                               \
		for (uint k = ctz(ms) + 1; k < n; k++)                         \
			if (ACTIVE(k))                                         \
				r = OP(r, PS(k));                              \
		return r;                                                      \
	}

/* The bodies of reductions and scans over the active lanes (OP, its
 * identity ID); T the type, NAME the fold's. */
#define REDUCE_BODY(T, NAME)                                                   \
	{                                                                      \
		T r = fold_##NAME##_##T(s0, ns, ms);                           \
		for (uint k = 0; k < ns; k++)                                  \
			if (ACTIVE(k))                                         \
				RS(k) = r;                                     \
	}
#define SCAN_INCLUSIVE_BODY(T, OP)                                             \
	{                                                                      \
		T acc = PS(ctz(ms));                                           \
		for (uint k = ctz(ms); k < ns; k++) {                          \
			if (!ACTIVE(k))                                        \
				continue;                                      \
			if (k != ctz(ms))                                      \
				acc = OP(acc, PS(k));                          \
			RS(k) = acc;                                           \
		}                                                              \
	}
#define SCAN_EXCLUSIVE_BODY(T, OP, ID)                                         \
	{                                                                      \
		T acc = (ID);                                                  \
		for (uint k = 0; k < ns; k++) {                                \
			if (!ACTIVE(k))                                        \
				continue;                                      \
			RS(k) = acc;                                           \
			acc = OP(acc, PS(k));                                  \
		}                                                              \
	}

/*
 * sub_group_<P>reduce_<NAME>, sub_group_<P>scan_inclusive_<NAME> and
 * sub_group_<P>scan_exclusive_<NAME> over OP, of identity ID; ALL: must
 * the whole sub-group reach them (COLLECTIVE's all).
 */
#define REDUCE_SCANS(T, P, NAME, OP, ID, ALL)                                  \
	FOLD(T, P##NAME, OP)                                                   \
	T OVL sub_group_##P##reduce_##NAME(T x)                                \
	{                                                                      \
		COLLECTIVE(T, T, x, ALL, REDUCE_BODY(T, P##NAME));             \
		return RESULT(T);                                              \
	}                                                                      \
	T OVL sub_group_##P##scan_inclusive_##NAME(T x)                        \
	{                                                                      \
		COLLECTIVE(T, T, x, ALL, SCAN_INCLUSIVE_BODY(T, OP));          \
		return RESULT(T);                                              \
	}                                                                      \
	T OVL sub_group_##P##scan_exclusive_##NAME(T x)                        \
	{                                                                      \
		COLLECTIVE(T, T, x, ALL, SCAN_EXCLUSIVE_BODY(T, OP, ID));      \
		return RESULT(T);                                              \
	}

/* F(x, k) for the vectors of T, element by element (each a scalar F) */
#define VECTORS_BY_ELEMENT(F, T)                                               \
	T##2 OVL F(T##2 x, uint k)                                             \
	{                                                                      \
		return (T##2)(F(x.s0, k), F(x.s1, k));                         \
	}                                                                      \
	T##3 OVL F(T##3 x, uint k)                                             \
	{                                                                      \
		return (T##3)(F(x.s01, k), F(x.s2, k));                        \
	}                                                                      \
	T##4 OVL F(T##4 x, uint k)                                             \
	{                                                                      \
		return (T##4)(F(x.lo, k), F(x.hi, k));                         \
	}                                                                      \
	T##8 OVL F(T##8 x, uint k)                                             \
	{                                                                      \
		return (T##8)(F(x.lo, k), F(x.hi, k));                         \
	}                                                                      \
	T##16 OVL F(T##16 x, uint k)                                           \
	{                                                                      \
		return (T##16)(F(x.lo, k), F(x.hi, k));                        \
	}

#endif /* ACCELC_SUB_GROUP_H */
