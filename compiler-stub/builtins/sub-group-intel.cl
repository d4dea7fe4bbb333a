/* SPDX-License-Identifier: MIT */
/*
 * cl_intel_subgroups and cl_intel_subgroups_short (declared for programs
 * in program-prelude.h): shuffles of scalars and vectors, the two-source
 * shuffle_down/up, and block reads and writes. Their sub-group is the
 * cl_khr_subgroups one (sub-group.h), its size the kernel's:
 * intel_reqd_sub_group_size where the kernel asks for one.
 */
#include "program-prelude.h"
#include "sub-group.h"

/*
 * A vector moves between lanes as 8-byte words, one exchange each (a
 * float8 in four, not eight); W: the vector of words as large as the
 * value, X its exchange.
 */
static ulong2 OVL words_shuffle(ulong2 x, uint k)
{
	return (ulong2)(sub_group_shuffle(x.s0, k), sub_group_shuffle(x.s1, k));
}

static ulong4 OVL words_shuffle(ulong4 x, uint k)
{
	return (ulong4)(words_shuffle(x.lo, k), words_shuffle(x.hi, k));
}

static ulong8 OVL words_shuffle(ulong8 x, uint k)
{
	return (ulong8)(words_shuffle(x.lo, k), words_shuffle(x.hi, k));
}

/*
 * shuffle_down(cur, next, d): lane i + d's cur while that is below the
 * maximum sub-group size m, else lane i + d - m's next; shuffle_up(prev,
 * cur, d): lane i - d's cur, or lane i - d + m's prev below lane 0. Both
 * exchanges are made by every lane (they are sub-group functions).
 */
#define SHUFFLES(T, W, X)                                                      \
	T OVL intel_sub_group_shuffle(T x, uint k)                             \
	{                                                                      \
		return as_##T(X(as_##W(x), k));                                \
	}                                                                      \
	T OVL intel_sub_group_shuffle_xor(T x, uint m)                         \
	{                                                                      \
		return intel_sub_group_shuffle(x, get_sub_group_local_id() ^ m); \
	}                                                                      \
	T OVL intel_sub_group_shuffle_down(T cur, T next, uint d)              \
	{                                                                      \
		uint k = get_sub_group_local_id() + d;                         \
		uint m = get_max_sub_group_size();                             \
		T a = intel_sub_group_shuffle(cur, k);                         \
		T b = intel_sub_group_shuffle(next, k - m);                    \
		return k < m ? a : b;                                          \
	}                                                                      \
	T OVL intel_sub_group_shuffle_up(T prev, T cur, uint d)                \
	{                                                                      \
		uint i = get_sub_group_local_id();                             \
		uint m = get_max_sub_group_size();                             \
		T a = intel_sub_group_shuffle(cur, i - d);                     \
		T b = intel_sub_group_shuffle(prev, i + m - d);                \
		return d <= i ? a : b;                                         \
	}

/* 3-vectors: as the 4-vector they are stored as */
#define SHUFFLES3(T)                                                           \
	T##3 OVL intel_sub_group_shuffle(T##3 x, uint k)                       \
	{                                                                      \
		return intel_sub_group_shuffle((T##4)(x, 0), k).xyz;           \
	}                                                                      \
	T##3 OVL intel_sub_group_shuffle_xor(T##3 x, uint m)                   \
	{                                                                      \
		return intel_sub_group_shuffle_xor((T##4)(x, 0), m).xyz;       \
	}                                                                      \
	T##3 OVL intel_sub_group_shuffle_down(T##3 c, T##3 n, uint d)          \
	{                                                                      \
		return intel_sub_group_shuffle_down((T##4)(c, 0),              \
						    (T##4)(n, 0), d).xyz;      \
	}                                                                      \
	T##3 OVL intel_sub_group_shuffle_up(T##3 p, T##3 c, uint d)            \
	{                                                                      \
		return intel_sub_group_shuffle_up((T##4)(p, 0), (T##4)(c, 0),  \
						  d).xyz;                      \
	}

/* 32-bit elements: a 2-vector is one word */
#define SHUFFLES_32(T)                                                         \
	SHUFFLES(T, T, sub_group_shuffle)                                      \
	SHUFFLES(T##2, ulong, sub_group_shuffle)                               \
	SHUFFLES3(T)                                                           \
	SHUFFLES(T##4, ulong2, words_shuffle)                                  \
	SHUFFLES(T##8, ulong4, words_shuffle)                                  \
	SHUFFLES(T##16, ulong8, words_shuffle)

SHUFFLES_32(float)
SHUFFLES_32(int)
SHUFFLES_32(uint)
SHUFFLES(long, long, sub_group_shuffle)
SHUFFLES(ulong, ulong, sub_group_shuffle)
SHUFFLES(half, half, sub_group_shuffle)
SHUFFLES(double, double, sub_group_shuffle)

/*
 * Block reads and writes: the sub-group's lanes share @p p, lane i's
 * k-th element is p[i + k * m], m the maximum sub-group size. No
 * exchange: each lane knows its own elements.
 */
#define BLOCK_N(T, S, N)                                                       \
	T##N OVL intel_sub_group_block_read##S##N(const global T *p)          \
	{                                                                      \
		uint i = get_sub_group_local_id(), m = get_max_sub_group_size(); \
		T e[N];                                                        \
		for (uint k = 0; k < N; k++)                                   \
			e[k] = p[i + k * m];                                   \
		return vload##N(0, e);                                         \
	}                                                                      \
	void OVL intel_sub_group_block_write##S##N(global T *p, T##N x)       \
	{                                                                      \
		uint i = get_sub_group_local_id(), m = get_max_sub_group_size(); \
		T e[N];                                                        \
		vstore##N(x, 0, e);                                            \
		for (uint k = 0; k < N; k++)                                   \
			p[i + k * m] = e[k];                                   \
	}
#define BLOCK(T, S)                                                            \
	T OVL intel_sub_group_block_read##S(const global T *p)                 \
	{                                                                      \
		return p[get_sub_group_local_id()];                            \
	}                                                                      \
	void OVL intel_sub_group_block_write##S(global T *p, T x)              \
	{                                                                      \
		p[get_sub_group_local_id()] = x;                               \
	}                                                                      \
	BLOCK_N(T, S, 2) BLOCK_N(T, S, 4) BLOCK_N(T, S, 8)

BLOCK(uint, )
BLOCK(uint, _ui)
BLOCK(ushort, _us)

/* cl_intel_subgroups_short: 16-bit elements, four to a word */
#define SHUFFLES_16(T)                                                         \
	SHUFFLES(T, T, sub_group_shuffle)                                      \
	SHUFFLES(T##2, uint, sub_group_shuffle)                                \
	SHUFFLES3(T)                                                           \
	SHUFFLES(T##4, ulong, sub_group_shuffle)                               \
	SHUFFLES(T##8, ulong2, words_shuffle)                                  \
	SHUFFLES(T##16, ulong4, words_shuffle)                                 \
	T OVL intel_sub_group_broadcast(T x, uint k)                           \
	{                                                                      \
		return sub_group_broadcast(x, k);                              \
	}                                                                      \
	T##2 OVL intel_sub_group_broadcast(T##2 x, uint k)                     \
	{                                                                      \
		return intel_sub_group_shuffle(x, k);                          \
	}                                                                      \
	T##3 OVL intel_sub_group_broadcast(T##3 x, uint k)                     \
	{                                                                      \
		return intel_sub_group_shuffle(x, k);                          \
	}                                                                      \
	T##4 OVL intel_sub_group_broadcast(T##4 x, uint k)                     \
	{                                                                      \
		return intel_sub_group_shuffle(x, k);                          \
	}                                                                      \
	T##8 OVL intel_sub_group_broadcast(T##8 x, uint k)                     \
	{                                                                      \
		return intel_sub_group_shuffle(x, k);                          \
	}

#define COLLECTIVES(T, OP)                                                     \
	T OVL intel_sub_group_reduce_##OP(T x)                                 \
	{                                                                      \
		return sub_group_reduce_##OP(x);                               \
	}                                                                      \
	T OVL intel_sub_group_scan_exclusive_##OP(T x)                         \
	{                                                                      \
		return sub_group_scan_exclusive_##OP(x);                       \
	}                                                                      \
	T OVL intel_sub_group_scan_inclusive_##OP(T x)                         \
	{                                                                      \
		return sub_group_scan_inclusive_##OP(x);                       \
	}

SHUFFLES_16(short)
SHUFFLES_16(ushort)
COLLECTIVES(short, add)
COLLECTIVES(short, min)
COLLECTIVES(short, max)
COLLECTIVES(ushort, add)
COLLECTIVES(ushort, min)
COLLECTIVES(ushort, max)
