/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_subgroup_non_uniform_vote and _non_uniform_arithmetic: the
 * sub-group functions over the active lanes of a sub-group, those that
 * reach the same call together (sub-group.h), which need not be all.
 */
#include "sub-group.h"

int OVL sub_group_elect(void)
{
	COLLECTIVE(int, int, 0, 0, {
		for (uint k = 0; k < ns; k++)
			if (ACTIVE(k))
				RS(k) = k == ctz(ms);
	});
	return RESULT(int);
}

int OVL sub_group_non_uniform_all(int predicate)
{
	COLLECTIVE(int, int, predicate != 0, 0, {
		int r = 1;

		for (uint k = 0; k < ns; k++)
			r &= !ACTIVE(k) || PS(k);
		for (uint k = 0; k < ns; k++)
			if (ACTIVE(k))
				RS(k) = r;
	});
	return RESULT(int);
}

int OVL sub_group_non_uniform_any(int predicate)
{
	COLLECTIVE(int, int, predicate != 0, 0, {
		int r = 0;

		for (uint k = 0; k < ns; k++)
			r |= ACTIVE(k) && PS(k);
		for (uint k = 0; k < ns; k++)
			if (ACTIVE(k))
				RS(k) = r;
	});
	return RESULT(int);
}

/* == as the type has it: a NaN equals nothing */
#define ALL_EQUAL(T)                                                           \
	int OVL sub_group_non_uniform_all_equal(T x)                           \
	{                                                                      \
		COLLECTIVE(T, int, x, 0, {                                     \
			T first = PS(ctz(ms));                                 \
			int r = 1;                                             \
			for (uint k = 0; k < ns; k++)                          \
				r &= !ACTIVE(k) || PS(k) == first;             \
			for (uint k = 0; k < ns; k++)                          \
				if (ACTIVE(k))                                 \
					RS(k) = r;                             \
		});                                                            \
		return RESULT(int);                                            \
	}

ALL_EQUAL(char)
ALL_EQUAL(uchar)
ALL_EQUAL(short)
ALL_EQUAL(ushort)
ALL_EQUAL(int)
ALL_EQUAL(uint)
ALL_EQUAL(long)
ALL_EQUAL(ulong)
ALL_EQUAL(float)
ALL_EQUAL(double)
ALL_EQUAL(half)

/* OP with identity ID; NAME as in the builtins' names */
#define NON_UNIFORM(T, NAME, OP, ID)                                           \
	REDUCE_SCANS(T, non_uniform_, NAME, OP, ID, 0)

#define INTEGER(T, MIN, MAX)                                                   \
	NON_UNIFORM(T, add, ADD, (T)0)                                         \
	NON_UNIFORM(T, mul, MUL, (T)1)                                         \
	NON_UNIFORM(T, min, min, MAX)                                          \
	NON_UNIFORM(T, max, max, MIN)                                          \
	NON_UNIFORM(T, and, AND, (T)~(T)0)                                     \
	NON_UNIFORM(T, or, OR, (T)0)                                           \
	NON_UNIFORM(T, xor, XOR, (T)0)
#define FLOATING(T)                                                            \
	NON_UNIFORM(T, add, ADD, (T)0)                                         \
	NON_UNIFORM(T, mul, MUL, (T)1)                                         \
	NON_UNIFORM(T, min, fmin, (T)INFINITY)                                 \
	NON_UNIFORM(T, max, fmax, (T)-INFINITY)

INTEGER(char, CHAR_MIN, CHAR_MAX)
INTEGER(uchar, (uchar)0, UCHAR_MAX)
INTEGER(short, SHRT_MIN, SHRT_MAX)
INTEGER(ushort, (ushort)0, USHRT_MAX)
INTEGER(int, INT_MIN, INT_MAX)
INTEGER(uint, 0u, UINT_MAX)
INTEGER(long, LONG_MIN, LONG_MAX)
INTEGER(ulong, 0ul, ULONG_MAX)
FLOATING(float)
FLOATING(double)
FLOATING(half)

NON_UNIFORM(int, logical_and, LAND, 1)
NON_UNIFORM(int, logical_or, LOR, 0)
NON_UNIFORM(int, logical_xor, LXOR, 0)
