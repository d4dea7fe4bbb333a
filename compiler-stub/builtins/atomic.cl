/* SPDX-License-Identifier: MIT */
/* OpenCL 1.x atomics (atomic_* and atom_*, 32 and 64 bit, global and
 * local) and memory fences. x86 locked instructions are full barriers,
 * so sequential consistency costs nothing extra. */
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define SC __ATOMIC_SEQ_CST

#define ATOMIC_OPS(P, T, AS)                                                   \
	T OVL P##_add(volatile AS T *p, T v) { return __atomic_fetch_add(p, v, SC); } \
	T OVL P##_sub(volatile AS T *p, T v) { return __atomic_fetch_sub(p, v, SC); } \
	T OVL P##_xchg(volatile AS T *p, T v) { return __atomic_exchange_n(p, v, SC); } \
	T OVL P##_inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, SC); } \
	T OVL P##_dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, SC); } \
	T OVL P##_and(volatile AS T *p, T v) { return __atomic_fetch_and(p, v, SC); } \
	T OVL P##_or(volatile AS T *p, T v) { return __atomic_fetch_or(p, v, SC); } \
	T OVL P##_xor(volatile AS T *p, T v) { return __atomic_fetch_xor(p, v, SC); } \
	T OVL P##_min(volatile AS T *p, T v) { return __atomic_fetch_min(p, v, SC); } \
	T OVL P##_max(volatile AS T *p, T v) { return __atomic_fetch_max(p, v, SC); } \
	T OVL P##_cmpxchg(volatile AS T *p, T cmp, T v)                        \
	{                                                                      \
		__atomic_compare_exchange_n(p, &cmp, v, false, SC, SC);        \
		return cmp;                                                    \
	}

#define FLOAT_XCHG(P, AS)                                                      \
	float OVL P##_xchg(volatile AS float *p, float v)                      \
	{                                                                      \
		return as_float(__atomic_exchange_n(                           \
			(volatile AS uint *)p, as_uint(v), SC));               \
	}

ATOMIC_OPS(atomic, int, __global) ATOMIC_OPS(atomic, uint, __global)
ATOMIC_OPS(atomic, int, __local) ATOMIC_OPS(atomic, uint, __local)
ATOMIC_OPS(atom, int, __global) ATOMIC_OPS(atom, uint, __global)
ATOMIC_OPS(atom, int, __local) ATOMIC_OPS(atom, uint, __local)
ATOMIC_OPS(atom, long, __global) ATOMIC_OPS(atom, ulong, __global)
ATOMIC_OPS(atom, long, __local) ATOMIC_OPS(atom, ulong, __local)
FLOAT_XCHG(atomic, __global) FLOAT_XCHG(atomic, __local)
FLOAT_XCHG(atom, __global) FLOAT_XCHG(atom, __local)

void OVL mem_fence(cl_mem_fence_flags f)
{
	(void)f;
	__atomic_thread_fence(SC);
}
void OVL read_mem_fence(cl_mem_fence_flags f) { mem_fence(f); }
void OVL write_mem_fence(cl_mem_fence_flags f) { mem_fence(f); }
