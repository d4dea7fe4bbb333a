/* SPDX-License-Identifier: MIT */
/*
 * Sub-groups (OpenCL C 6.15.19, OpenCL C 3.0's __opencl_c_subgroups):
 * the queries, the barrier, reductions and scans, and the extensions
 * that need all of the sub-group: cl_khr_subgroup_extended_types,
 * _shuffle, _shuffle_relative, _clustered_reduce and _rotate. How they
 * run: sub-group.h.
 */
#include "sub-group.h"

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

	return min(w, sg_items() - get_sub_group_id() * w);
}

uint OVL get_max_sub_group_size(void)
{
	return min(__accel_sub_group_width(), enqueued_items());
}

uint OVL get_num_sub_groups(void)
{
	uint w = __accel_sub_group_width();

	return (sg_items() + w - 1) / w;
}

uint OVL get_enqueued_num_sub_groups(void)
{
	uint w = __accel_sub_group_width();

	return (enqueued_items() + w - 1) / w;
}

/* with regions a work-group barrier is a sub-group barrier too */
static void sg_barrier(cl_mem_fence_flags flags)
{
	if (__accel_sub_groups_converged()) {
		barrier(flags);
	} else {
		COLLECTIVE(int, int, 0, 1, {});
	}
}

void OVL sub_group_barrier(cl_mem_fence_flags flags)
{
	sg_barrier(flags);
}

void OVL sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
	(void)scope;
	sg_barrier(flags);
}

/* OP: ADD, or min/max (fmin/fmax for floating types); ID: OP's identity */
#define COLLECTIVES(T, NAME, OP, ID) REDUCE_SCANS(T, , NAME, OP, ID, 1)

/* clustered: over the aligned run of c lanes holding the caller's
 * (c a power of two up to the sub-group's size, else undefined) */
#define CLUSTERED(T, NAME, OP)                                                 \
	T OVL sub_group_clustered_reduce_##NAME(T x, uint c)                   \
	{                                                                      \
		COLLECTIVE(T, T, x, 1, {                                       \
			for (uint c0 = 0; c && c0 < ns; c0 += c) {             \
				uint e = min(c0 + c, ns);                      \
				T r = PS(c0);                                  \
				for (uint k = c0 + 1; k < e; k++)              \
					r = OP(r, PS(k));                      \
				for (uint k = c0; k < e; k++)                  \
					RS(k) = r;                             \
			}                                                      \
		});                                                            \
		return c ? RESULT(T) : x;                                      \
	}

/* (i + d) mod m, for either sign of d */
static uint rotated(uint i, int d, uint m)
{
	long r = ((long)i + d) % (long)m;

	return (uint)(r < 0 ? r + m : r);
}

/*
 * Lane @p k's value, each lane its own k: the step copies every active
 * lane's value to R, where it stays until all have read theirs.
 * Out-of-range lanes (undefined) give the caller's own, never a slot
 * outside the sub-group.
 */
#define EXCHANGE(T)                                                            \
	T OVL sub_group_shuffle(T x, uint k)                                   \
	{                                                                      \
		COLLECTIVE(T, T, x, 1, {                                       \
			for (uint j = 0; j < ns; j++)                          \
				if (ACTIVE(j))                                 \
					RS(j) = PS(j);                         \
		});                                                            \
		return k < n ? *SLOT(T, R_BASE, b + k) : x;                    \
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
#define BROADCAST_VEC(T) VECTORS_BY_ELEMENT(sub_group_broadcast, T)

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
