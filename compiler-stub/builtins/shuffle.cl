/* SPDX-License-Identifier: MIT */
/* shuffle and shuffle2 (6.15.13) for every element type and the widths
 * 2, 4, 8 and 16. Only the low bits of each mask element that can index
 * the input(s) count, as the specification requires. */
#include "builtins.h"

/* T: element type, U: the unsigned mask element type of the same size */
#define SHUF(T, U, M, N)                                                       \
	T##N OVL shuffle(T##M x, U##N mask)                                    \
	{                                                                      \
		T##N r;                                                        \
		for (int i = 0; i < N; i++)                                    \
			r[i] = x[mask[i] & (M - 1)];                           \
		return r;                                                      \
	}                                                                      \
	T##N OVL shuffle2(T##M x, T##M y, U##N mask)                           \
	{                                                                      \
		T##N r;                                                        \
		for (int i = 0; i < N; i++) {                                  \
			U k = mask[i] & (2 * M - 1);                           \
			r[i] = k < M ? x[k] : y[k - M];                        \
		}                                                              \
		return r;                                                      \
	}
#define SHUF_N(T, U, M) SHUF(T, U, M, 2) SHUF(T, U, M, 4) SHUF(T, U, M, 8)    \
	SHUF(T, U, M, 16)
#define SHUF_T(T, U) SHUF_N(T, U, 2) SHUF_N(T, U, 4) SHUF_N(T, U, 8)         \
	SHUF_N(T, U, 16)

SHUF_T(char, uchar) SHUF_T(uchar, uchar)
SHUF_T(short, ushort) SHUF_T(ushort, ushort)
SHUF_T(int, uint) SHUF_T(uint, uint)
SHUF_T(long, ulong) SHUF_T(ulong, ulong)
SHUF_T(float, uint) SHUF_T(double, ulong) SHUF_T(half, ushort)
