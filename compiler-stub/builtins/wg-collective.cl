/* SPDX-License-Identifier: MIT */
/*
 * Work-group functions (OpenCL C 6.15.17, __opencl_c_work_group_collective_
 * functions): all, any, broadcast, and reduce and the two scans with add,
 * min and max, for int, uint, long, ulong, float, double and half.
 *
 * A work-group runs on one thread, its work-items as loops over regions
 * between barriers (compiler-stub/lower/wg-regions.c) or as fibers, so a
 * collective is a barrier with a sequential step in between: every
 * work-item publishes its value in the scratch memory (wg-scratch.c), the
 * first one combines them in order, and every work-item reads its result.
 */
#include "builtins.h"

local void *__accel_wg_scratch(void);
int __accel_sub_groups_converged(void);

static size_t wg_items(void)
{
	return get_local_size(0) * get_local_size(1) * get_local_size(2);
}

/* wg-scratch.c's size: the largest work-group */
#define ITEMS 4096

/*
 * Two arrays of the scratch memory: P, where work-item l publishes its
 * value at AT(P, l), and R, where the results are. P is written before
 * the first barrier, read and R written between the two, R read after
 * the second; the sub-group functions (sub-group.h) keep the same order,
 * so a collective may follow another without a barrier in front. The
 * slots are of the type with regions, 8 bytes each with fibers, as the
 * sub-group functions' are there: a work-item's publication here then
 * never meets another's still waiting in a sub-group function.
 */
#define PUBLISH(T, x)                                                          \
	typedef T wg_t;                                                        \
	local uchar *P = (local uchar *)__accel_wg_scratch();                  \
	local uchar *R = P + ITEMS * 8;                                        \
	size_t stride = __accel_sub_groups_converged() ? sizeof(T) : 8;        \
	size_t l = get_local_linear_id(), n = wg_items();                      \
	AT(P, l) = (x);                                                        \
	barrier(CLK_LOCAL_MEM_FENCE)
#define AT(A, i) (*(local wg_t *)((A) + (i) * stride))

#define ADD(a, b) ((a) + (b))

/* OP: ADD, or min/max (fmin/fmax for floating types); ID: OP's identity */
#define COLLECTIVES(T, NAME, OP, ID)                                           \
	T OVL work_group_reduce_##NAME(T x)                                    \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		if (l == 0) {                                                  \
			T r = AT(P, 0);                                        \
			for (size_t i = 1; i < n; i++)                         \
				r = OP(r, AT(P, i));                           \
			AT(R, 0) = r;                                          \
		}                                                              \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
		return AT(R, 0);                                               \
	}                                                                      \
	T OVL work_group_scan_inclusive_##NAME(T x)                            \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		if (l == 0) {                                                  \
			T acc = AT(P, 0);                                      \
			AT(R, 0) = acc;                                        \
			for (size_t i = 1; i < n; i++)                         \
				AT(R, i) = acc = OP(acc, AT(P, i));            \
		}                                                              \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
		return AT(R, l);                                               \
	}                                                                      \
	T OVL work_group_scan_exclusive_##NAME(T x)                            \
	{                                                                      \
		PUBLISH(T, x);                                                 \
		if (l == 0) {                                                  \
			T acc = (ID);                                          \
			for (size_t i = 0; i < n; i++) {                       \
				AT(R, i) = acc;                                \
				acc = OP(acc, AT(P, i));                       \
			}                                                      \
		}                                                              \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
		return AT(R, l);                                               \
	}

/* the value of the work-item with that local id (1, 2 or 3 of them) */
#define BROADCAST(T)                                                           \
	T OVL work_group_broadcast(T a, size_t x)                              \
	{                                                                      \
		PUBLISH(T, a);                                                 \
		if (l == 0)                                                    \
			AT(R, 0) = x < n ? AT(P, x) : a;                       \
		barrier(CLK_LOCAL_MEM_FENCE);                                  \
		return AT(R, 0);                                               \
	}                                                                      \
	T OVL work_group_broadcast(T a, size_t x, size_t y)                    \
	{                                                                      \
		return work_group_broadcast(a, x + y * get_local_size(0));     \
	}                                                                      \
	T OVL work_group_broadcast(T a, size_t x, size_t y, size_t z)          \
	{                                                                      \
		return work_group_broadcast(                                   \
			a, x + (y + z * get_local_size(1)) *                   \
				       get_local_size(0));                     \
	}

#define INTEGER(T, MIN, MAX)                                                   \
	COLLECTIVES(T, add, ADD, (T)0)                                         \
	COLLECTIVES(T, min, min, MAX) COLLECTIVES(T, max, max, MIN)            \
	BROADCAST(T)
#define FLOATING(T)                                                            \
	COLLECTIVES(T, add, ADD, (T)0)                                         \
	COLLECTIVES(T, min, fmin, (T)INFINITY)                                 \
	COLLECTIVES(T, max, fmax, (T)-INFINITY)                                \
	BROADCAST(T)

INTEGER(int, INT_MIN, INT_MAX)
INTEGER(uint, 0u, UINT_MAX)
INTEGER(long, LONG_MIN, LONG_MAX)
INTEGER(ulong, 0ul, ULONG_MAX)
FLOATING(float)
FLOATING(double)
FLOATING(half)

int OVL work_group_all(int p)
{
	return work_group_reduce_min(p != 0);
}

int OVL work_group_any(int p)
{
	return work_group_reduce_max(p != 0);
}
