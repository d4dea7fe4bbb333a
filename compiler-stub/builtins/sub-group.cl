/* SPDX-License-Identifier: MIT */
/*
 * Sub-groups (OpenCL C 6.15.19, OpenCL C 3.0's __opencl_c_subgroups)
 * and the extensions built on them that need no more than uniform control
 * flow: cl_khr_subgroup_extended_types, _shuffle, _shuffle_relative,
 * _clustered_reduce and _rotate.
 *
 * A sub-group is a run of W consecutive local linear ids, W the lanes of
 * a float vector of the target (__accel_sub_group_width(), defined by the
 * link-builtins pass: 4, 8 or 16), the last one of a group shorter when W
 * does not divide the group's size.
 *
 * A work-group runs on one thread, so a collective is a barrier with a
 * step in between (as in wg-collective.cl): every work-item publishes its
 * value in the scratch memory (wg-scratch.c), a barrier, the values are
 * combined (STEP below), a barrier, and every lane reads its result.
 * Kernels whose sub-group functions are not reached by the whole
 * work-group alike run as fibers (wg-subgroups.c), where a barrier waits
 * for the work-items that reach one: each sub-group then steps through
 * its own collectives.
 */
#include "builtins.h"

uint __accel_sub_group_width(void);
int __accel_sub_groups_converged(void);
size_t __accel_sub_group_step_x(void);
local void *__accel_wg_scratch(void);

static uint items(void)
{
	return get_local_size(0) * get_local_size(1) * get_local_size(2);
}

static uint enqueued_items(void)
{
	return get_enqueued_local_size(0) * get_enqueued_local_size(1) *
	       get_enqueued_local_size(2);
}

uint OVL get_sub_group_id(void)
{
	return get_local_linear_id() / __accel_sub_group_width();
}

uint OVL get_sub_group_local_id(void)
{
	return get_local_linear_id() % __accel_sub_group_width();
}

uint OVL get_sub_group_size(void)
{
	uint w = __accel_sub_group_width();

	return min(w, items() - get_sub_group_id() * w);
}

uint OVL get_max_sub_group_size(void)
{
	return min(__accel_sub_group_width(), enqueued_items());
}

uint OVL get_num_sub_groups(void)
{
	uint w = __accel_sub_group_width();

	return (items() + w - 1) / w;
}

uint OVL get_enqueued_num_sub_groups(void)
{
	uint w = __accel_sub_group_width();

	return (enqueued_items() + w - 1) / w;
}

/* a work-group barrier is a sub-group barrier too (see above) */
void OVL sub_group_barrier(cl_mem_fence_flags flags)
{
	barrier(flags);
}

void OVL sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
	(void)scope;
	barrier(flags);
}

/* wg-scratch.c's size: the largest work-group */
#define ITEMS 4096

/*
 * Two arrays of the scratch memory: P, where the lanes publish their
 * values, and R, where the results are. A collective writes P before its
 * first barrier, reads P and writes R between its two, and is read from
 * R after the second: so the next collective's publication (P) never
 * meets a reader of this one's (R), and no barrier is needed in front.
 * Where all sub-groups run every collective together (regions) a lane's
 * slot is P[l] and R[l], in the collective's type, which the work-item
 * loop reads and writes as whole vectors. Otherwise (fibers) sub-groups
 * may be at different collectives, of different types: each has a block
 * of W 8-byte slots in each array, from its first lane's id b, so that
 * they stay apart. l: the caller's id, i: its lane, b: its sub-group's
 * first lane, n: its size.
 */
#define P_BASE ((local uchar *)__accel_wg_scratch())
#define R_BASE (P_BASE + ITEMS * 8)
#define block(T, base, b)                                                      \
	(__accel_sub_groups_converged() ? (local T *)(base) + (b) :            \
					  (local T *)((base) + (size_t)(b) * 8))
/* the caller's slot, from its id alone: nothing kept across a barrier */
#define MINE(T, base)                                                          \
	(__accel_sub_groups_converged() ?                                      \
		 (local T *)(base) + get_local_linear_id() :                   \
		 block(T, base, get_local_linear_id() -                        \
				get_sub_group_local_id()) +                    \
			 get_sub_group_local_id())

#define PUBLISH(T, x)                                                          \
	uint l = get_local_linear_id(), w = __accel_sub_group_width();         \
	uint i = l % w, b = l - i, n = min(w, items() - b);                    \
	*MINE(T, P_BASE) = (x);                                                \
	barrier(CLK_LOCAL_MEM_FENCE)

/* after the step: the caller's result */
#define RESULT(T) (*MINE(T, R_BASE))

/*
 * STEP(body) runs @p body once per sub-group, with Ps, Rs and ns its
 * blocks and size. Where every sub-group is at this collective (the
 * kernel runs as regions: __accel_sub_groups_converged(), set per kernel
 * by the lowering) the first work-item does them all, and the region's
 * work-item loop stops after it (__accel_sub_group_step_x() is then 1:
 * lower/wg-narrow.c); elsewhere each sub-group's first lane.
 */
#define STEP(T, body)                                                          \
	if (get_local_id(0) < __accel_sub_group_step_x()) {                    \
		if (!__accel_sub_groups_converged()) {                         \
			if (i == 0) {                                          \
				local T *Ps = block(T, P_BASE, b);             \
				local T *Rs = block(T, R_BASE, b);             \
				uint ns = n;                                   \
				body                                           \
			}                                                      \
		} else if (get_local_linear_id() == 0) {                       \
			for (uint s0 = 0; s0 < items(); s0 += w) {             \
				local T *Ps = block(T, P_BASE, s0);            \
				local T *Rs = block(T, R_BASE, s0);            \
				uint ns = min(w, items() - s0);                \
				body                                           \
			}                                                      \
		}                                                              \
	}                                                                      \
	barrier(CLK_LOCAL_MEM_FENCE)

#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define LAND(a, b) ((a) && (b))
#define LOR(a, b) ((a) || (b))
#define LXOR(a, b) (!(a) != !(b))

/*
 * OP over p[0..n): whole vectors as a tree for the usual widths (the
 * order of a sub-group reduction is not specified), else in order.
 */
#define FOLD(T, NAME, OP)                                                      \
	static T fold_##NAME##_##T(local const T *p, uint n)                   \
	{                                                                      \
		T r;                                                           \
		if (n == 16) {                                                 \
			T##16 v = vload16(0, p);                               \
			T##8 a = OP(v.lo, v.hi);                               \
			T##4 c = OP(a.lo, a.hi);                               \
			T##2 d = OP(c.lo, c.hi);                               \
			return OP(d.lo, d.hi);                                 \
		}                                                              \
		if (n == 8) {                                                  \
			T##8 a = vload8(0, p);                                 \
			T##4 c = OP(a.lo, a.hi);                               \
			T##2 d = OP(c.lo, c.hi);                               \
			return OP(d.lo, d.hi);                                 \
		}                                                              \
		r = p[0];                                                      \
		for (uint k = 1; k < n; k++)                                   \
			r = OP(r, p[k]);                                       \
		return r;                                                      \
	}

/* OP: ADD, or min/max (fmin/fmax for floating types); ID: OP's identity */
#define COLLECTIVES(T, NAME, OP, ID)                                           \
	FOLD(T, NAME, OP)                                                      \
	T OVL sub_group_reduce_##NAME(T x)                                     \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		STEP(T, {                                                      \
			T r = fold_##NAME##_##T(Ps, ns);                       \
			for (uint k = 0; k < ns; k++)                          \
				Rs[k] = r;                                     \
		});                                                            \
		return RESULT(T);                                                \
	}                                                                      \
	T OVL sub_group_scan_inclusive_##NAME(T x)                             \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		STEP(T, {                                                      \
			T acc = Ps[0];                                         \
			Rs[0] = acc;                                           \
			for (uint k = 1; k < ns; k++)                          \
				Rs[k] = acc = OP(acc, Ps[k]);                  \
		});                                                            \
		return RESULT(T);                                                \
	}                                                                      \
	T OVL sub_group_scan_exclusive_##NAME(T x)                             \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		STEP(T, {                                                      \
			T acc = (ID);                                          \
			for (uint k = 0; k < ns; k++) {                        \
				Rs[k] = acc;                                   \
				acc = OP(acc, Ps[k]);                          \
			}                                                      \
		});                                                            \
		return RESULT(T);                                                \
	}

/* clustered: over the aligned run of c lanes holding the caller's
 * (c a power of two up to the sub-group's size, else undefined) */
#define CLUSTERED(T, NAME, OP)                                                 \
	T OVL sub_group_clustered_reduce_##NAME(T x, uint c)                   \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		STEP(T, {                                                      \
			for (uint c0 = 0; c && c0 < ns; c0 += c) {            \
				uint e = min(c0 + c, ns);                      \
				T r = Ps[c0];                                  \
				for (uint k = c0 + 1; k < e; k++)              \
					r = OP(r, Ps[k]);                      \
				for (uint k = c0; k < e; k++)                  \
					Rs[k] = r;                             \
			}                                                      \
		});                                                            \
		return c ? RESULT(T) : x;                                        \
	}

/* (i + d) mod m, for either sign of d */
static uint rotated(uint i, int d, uint m)
{
	long r = ((long)i + d) % (long)m;

	return (uint)(r < 0 ? r + m : r);
}

/*
 * Lane @p k's value, each lane its own k; out-of-range lanes (undefined)
 * give the caller's own, never a slot outside the sub-group.
 */
#define EXCHANGE(T)                                                            \
	T OVL sub_group_shuffle(T x, uint k)                                   \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		*MINE(T, R_BASE) = k < n ? block(T, P_BASE, b)[k] : x;         \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
		return RESULT(T);                                                \
	}                                                                      \
	T OVL sub_group_broadcast(T x, uint k)                                 \
	{                                                                      \
		return sub_group_shuffle(x, k);                                \
	}                                                                      \
	T OVL sub_group_shuffle_xor(T x, uint m)                               \
	{                                                                      \
		return sub_group_shuffle(x, get_sub_group_local_id() ^ m);     \
	}                                                                      \
	T OVL sub_group_shuffle_up(T x, uint d)                                \
	{                                                                      \
		return sub_group_shuffle(x, get_sub_group_local_id() - d);     \
	}                                                                      \
	T OVL sub_group_shuffle_down(T x, uint d)                              \
	{                                                                      \
		return sub_group_shuffle(x, get_sub_group_local_id() + d);     \
	}                                                                      \
	T OVL sub_group_rotate(T x, int d)                                     \
	{                                                                      \
		return sub_group_shuffle(x, rotated(get_sub_group_local_id(),  \
					    d, get_max_sub_group_size()));     \
	}                                                                      \
	T OVL sub_group_clustered_rotate(T x, int d, uint c)                   \
	{                                                                      \
		uint i = get_sub_group_local_id();                             \
		return sub_group_shuffle(                                      \
			x, c ? i - i % c + rotated(i % c, d, c) : i);          \
	}

/* vectors: element by element (each a scalar broadcast) */
#define BROADCAST_VEC(T)                                                       \
	T##2 OVL sub_group_broadcast(T##2 x, uint k)                           \
	{                                                                      \
		return (T##2)(sub_group_broadcast(x.s0, k),                    \
			      sub_group_broadcast(x.s1, k));                   \
	}                                                                      \
	T##3 OVL sub_group_broadcast(T##3 x, uint k)                           \
	{                                                                      \
		return (T##3)(sub_group_broadcast(x.s01, k),                   \
			      sub_group_broadcast(x.s2, k));                   \
	}                                                                      \
	T##4 OVL sub_group_broadcast(T##4 x, uint k)                           \
	{                                                                      \
		return (T##4)(sub_group_broadcast(x.lo, k),                    \
			      sub_group_broadcast(x.hi, k));                   \
	}                                                                      \
	T##8 OVL sub_group_broadcast(T##8 x, uint k)                           \
	{                                                                      \
		return (T##8)(sub_group_broadcast(x.lo, k),                    \
			      sub_group_broadcast(x.hi, k));                   \
	}                                                                      \
	T##16 OVL sub_group_broadcast(T##16 x, uint k)                         \
	{                                                                      \
		return (T##16)(sub_group_broadcast(x.lo, k),                   \
			       sub_group_broadcast(x.hi, k));                  \
	}

#define ARITH(T, MIN, MAX)                                                     \
	COLLECTIVES(T, add, ADD, (T)0)                                         \
	COLLECTIVES(T, min, min, MAX)                                          \
	COLLECTIVES(T, max, max, MIN)                                          \
	CLUSTERED(T, add, ADD)                                                 \
	CLUSTERED(T, mul, MUL)                                                 \
	CLUSTERED(T, min, min)                                                 \
	CLUSTERED(T, max, max)                                                 \
	CLUSTERED(T, and, AND)                                                 \
	CLUSTERED(T, or, OR)                                                   \
	CLUSTERED(T, xor, XOR)                                                 \
	EXCHANGE(T)                                                            \
	BROADCAST_VEC(T)
#define FLOATING(T)                                                            \
	COLLECTIVES(T, add, ADD, (T)0)                                         \
	COLLECTIVES(T, min, fmin, (T)INFINITY)                                 \
	COLLECTIVES(T, max, fmax, (T)-INFINITY)                                \
	CLUSTERED(T, add, ADD)                                                 \
	CLUSTERED(T, mul, MUL)                                                 \
	CLUSTERED(T, min, fmin)                                                \
	CLUSTERED(T, max, fmax)                                                \
	EXCHANGE(T)                                                            \
	BROADCAST_VEC(T)

ARITH(char, CHAR_MIN, CHAR_MAX)
ARITH(uchar, (uchar)0, UCHAR_MAX)
ARITH(short, SHRT_MIN, SHRT_MAX)
ARITH(ushort, (ushort)0, USHRT_MAX)
ARITH(int, INT_MIN, INT_MAX)
ARITH(uint, 0u, UINT_MAX)
ARITH(long, LONG_MIN, LONG_MAX)
ARITH(ulong, 0ul, ULONG_MAX)
FLOATING(float)
FLOATING(double)
FLOATING(half)

CLUSTERED(int, logical_and, LAND)
CLUSTERED(int, logical_or, LOR)
CLUSTERED(int, logical_xor, LXOR)

int OVL sub_group_all(int p)
{
	return sub_group_reduce_min(p != 0);
}

int OVL sub_group_any(int p)
{
	return sub_group_reduce_max(p != 0);
}
