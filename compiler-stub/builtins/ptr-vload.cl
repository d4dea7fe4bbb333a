/* SPDX-License-Identifier: MIT */
/* vloadn/vstoren (6.15.11) for every address space: built twice, see
 * FOR_PTR_AS. Elements need only their scalar alignment. */
#include "builtins.h"

#define UNALIGNED(T, N) typedef T##N __attribute__((aligned(sizeof(T)))) u_##T##N;
#define UTYPES(T) UNALIGNED(T, 2) UNALIGNED(T, 4) UNALIGNED(T, 8) UNALIGNED(T, 16)
UTYPES(char) UTYPES(uchar) UTYPES(short) UTYPES(ushort) UTYPES(int)
UTYPES(uint) UTYPES(long) UTYPES(ulong) UTYPES(float) UTYPES(double)
UTYPES(half)

#define VLOAD(AS, T, N)                                                        \
	T##N OVL vload##N(size_t off, const AS T *p)                           \
	{                                                                      \
		return *(const AS u_##T##N *)(p + off * N);                    \
	}
#define VLOAD3(AS, T)                                                          \
	T##3 OVL vload3(size_t off, const AS T *p)                             \
	{                                                                      \
		p += off * 3;                                                  \
		return (T##3)(p[0], p[1], p[2]);                               \
	}
#define VSTORE(AS, T, N)                                                       \
	void OVL vstore##N(T##N v, size_t off, AS T *p)                        \
	{                                                                      \
		*(AS u_##T##N *)(p + off * N) = v;                             \
	}
#define VSTORE3(AS, T)                                                         \
	void OVL vstore3(T##3 v, size_t off, AS T *p)                          \
	{                                                                      \
		p += off * 3;                                                  \
		p[0] = v.s0;                                                   \
		p[1] = v.s1;                                                   \
		p[2] = v.s2;                                                   \
	}
#define LOADS(AS, T)                                                           \
	VLOAD(AS, T, 2) VLOAD3(AS, T) VLOAD(AS, T, 4) VLOAD(AS, T, 8)          \
	VLOAD(AS, T, 16)
#define STORES(AS, T)                                                          \
	VSTORE(AS, T, 2) VSTORE3(AS, T) VSTORE(AS, T, 4) VSTORE(AS, T, 8)      \
	VSTORE(AS, T, 16)
#define BOTH(AS, T) LOADS(AS, T) STORES(AS, T)

#define ALL_TYPES(AS, M)                                                       \
	M(AS, char) M(AS, uchar) M(AS, short) M(AS, ushort) M(AS, int)         \
	M(AS, uint) M(AS, long) M(AS, ulong) M(AS, float) M(AS, double)        \
	M(AS, half)

FOR_PTR_AS(ALL_TYPES, BOTH)
#ifndef __opencl_c_generic_address_space
/* __constant overloads exist in every version: define them once */
ALL_TYPES(__constant, LOADS)
#endif
