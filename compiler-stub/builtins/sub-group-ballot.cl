/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_subgroup_ballot: ballots, the bit operations on them, the lane
 * masks and the broadcasts from active lanes. A ballot is a uint4 of 128
 * lane bits; sub-groups here are at most 64 wide (sub-group.h), so the
 * bits of .z and .w are 0, and the operations consider the bits of the
 * lanes a sub-group may have (get_max_sub_group_size()).
 */
#include "sub-group.h"

/* bit @p k of @p v */
static uint bit(uint4 v, uint k)
{
	uint w = k < 32 ? v.x : k < 64 ? v.y : k < 96 ? v.z : v.w;

	return k < 128 ? (w >> (k % 32)) & 1 : 0;
}

/* the bits below @p k */
static uint4 below(uint k)
{
	uint4 r;

	r.x = k >= 32 ? ~0u : (1u << k) - 1;
	r.y = k >= 64 ? ~0u : k <= 32 ? 0u : (1u << (k - 32)) - 1;
	r.z = k >= 96 ? ~0u : k <= 64 ? 0u : (1u << (k - 64)) - 1;
	r.w = k >= 128 ? ~0u : k <= 96 ? 0u : (1u << (k - 96)) - 1;
	return r;
}

static uint count(uint4 v)
{
	return popcount(v.x) + popcount(v.y) + popcount(v.z) + popcount(v.w);
}

/* the bits of lanes a sub-group may have */
static uint4 lanes(uint4 v)
{
	return v & below(get_max_sub_group_size());
}

uint4 OVL sub_group_ballot(int predicate)
{
	COLLECTIVE(int, ulong, predicate != 0, 0, {
		ulong v = 0;

		for (uint k = 0; k < ns; k++)
			if (ACTIVE(k) && PS(k))
				v |= 1ul << k;
		for (uint k = 0; k < ns; k++)
			if (ACTIVE(k))
				RS(k) = v;
	});
	ulong v = RESULT(ulong);

	return (uint4)((uint)v, (uint)(v >> 32), 0, 0);
}

int OVL sub_group_inverse_ballot(uint4 value)
{
	return bit(value, get_sub_group_local_id());
}

int OVL sub_group_ballot_bit_extract(uint4 value, uint index)
{
	return bit(value, index);
}

uint OVL sub_group_ballot_bit_count(uint4 value)
{
	return count(lanes(value));
}

uint OVL sub_group_ballot_inclusive_scan(uint4 value)
{
	return count(lanes(value) & below(get_sub_group_local_id() + 1));
}

uint OVL sub_group_ballot_exclusive_scan(uint4 value)
{
	return count(lanes(value) & below(get_sub_group_local_id()));
}

/* undefined without a bit set: then the first lane past the ends */
uint OVL sub_group_ballot_find_lsb(uint4 value)
{
	uint4 v = lanes(value);

	if (v.x)
		return ctz(v.x);
	if (v.y)
		return 32 + ctz(v.y);
	if (v.z)
		return 64 + ctz(v.z);
	return v.w ? 96 + ctz(v.w) : 128;
}

uint OVL sub_group_ballot_find_msb(uint4 value)
{
	uint4 v = lanes(value);

	if (v.w)
		return 127 - clz(v.w);
	if (v.z)
		return 95 - clz(v.z);
	if (v.y)
		return 63 - clz(v.y);
	return v.x ? 31 - clz(v.x) : 128;
}

uint4 OVL get_sub_group_eq_mask(void)
{
	uint k = get_sub_group_local_id();

	return below(k + 1) & ~below(k);
}

uint4 OVL get_sub_group_ge_mask(void)
{
	return lanes(~below(get_sub_group_local_id()));
}

uint4 OVL get_sub_group_gt_mask(void)
{
	return lanes(~below(get_sub_group_local_id() + 1));
}

uint4 OVL get_sub_group_le_mask(void)
{
	return below(get_sub_group_local_id() + 1);
}

uint4 OVL get_sub_group_lt_mask(void)
{
	return below(get_sub_group_local_id());
}

/*
 * The value of lane @p k, an active one (else undefined: the caller's
 * own); the first active lane's. Like sub_group_shuffle (sub-group.cl),
 * the step copies the active lanes' values to R.
 */
#define BROADCASTS(T)                                                          \
	T OVL sub_group_non_uniform_broadcast(T x, uint k)                     \
	{                                                                      \
		COLLECTIVE(T, T, x, 0, {                                       \
			for (uint j = 0; j < ns; j++)                          \
				if (ACTIVE(j))                                 \
					RS(j) = PS(j);                         \
		});                                                            \
		return k < n ? *SLOT(T, R_BASE, b + k) : x;                    \
	}                                                                      \
	T OVL sub_group_broadcast_first(T x)                                   \
	{                                                                      \
		COLLECTIVE(T, T, x, 0, {                                       \
			T v = PS(ctz(ms));                                     \
			for (uint j = 0; j < ns; j++)                          \
				if (ACTIVE(j))                                 \
					RS(j) = v;                             \
		});                                                            \
		return RESULT(T);                                              \
	}                                                                      \
	VECTORS_BY_ELEMENT(sub_group_non_uniform_broadcast, T)

BROADCASTS(char)
BROADCASTS(uchar)
BROADCASTS(short)
BROADCASTS(ushort)
BROADCASTS(int)
BROADCASTS(uint)
BROADCASTS(long)
BROADCASTS(ulong)
BROADCASTS(float)
BROADCASTS(double)
BROADCASTS(half)
