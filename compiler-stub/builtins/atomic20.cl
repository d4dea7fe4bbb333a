/* SPDX-License-Identifier: MIT */
/* OpenCL C 2.0/3.0 atomics (6.15.12): atomic_init, load, store, exchange,
 * compare_exchange, fetch_<op>, atomic_flag_*, atomic_work_item_fence,
 * each with its _explicit forms, for generic, __global and __local
 * objects. clang's __opencl_atomic_* builtins take the order and scope at
 * run time (a switch when they are not constants); on x86 every scope is
 * the whole coherent memory. Built for OpenCL C 3.0 only. */
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* the defaults of the non-explicit forms */
#define SC __ATOMIC_SEQ_CST
#define DEV __OPENCL_MEMORY_SCOPE_DEVICE

typedef memory_order mo;
typedef memory_scope ms;

/* A: the atomic type, T: its value type, OA: the object's address space */
#define LDST(OA, A, T)                                                         \
	void OVL atomic_init(volatile OA A *p, T v)                            \
	{                                                                      \
		__opencl_atomic_init(p, v);                                    \
	}                                                                      \
	T OVL atomic_load_explicit(volatile OA A *p, mo o, ms s)               \
	{                                                                      \
		return __opencl_atomic_load(p, o, s);                          \
	}                                                                      \
	T OVL atomic_load_explicit(volatile OA A *p, mo o)                     \
	{                                                                      \
		return __opencl_atomic_load(p, o, DEV);                        \
	}                                                                      \
	T OVL atomic_load(volatile OA A *p)                                    \
	{                                                                      \
		return __opencl_atomic_load(p, SC, DEV);                       \
	}                                                                      \
	void OVL atomic_store_explicit(volatile OA A *p, T v, mo o, ms s)      \
	{                                                                      \
		__opencl_atomic_store(p, v, o, s);                             \
	}                                                                      \
	void OVL atomic_store_explicit(volatile OA A *p, T v, mo o)            \
	{                                                                      \
		__opencl_atomic_store(p, v, o, DEV);                           \
	}                                                                      \
	void OVL atomic_store(volatile OA A *p, T v)                           \
	{                                                                      \
		__opencl_atomic_store(p, v, SC, DEV);                          \
	}                                                                      \
	T OVL atomic_exchange_explicit(volatile OA A *p, T v, mo o, ms s)      \
	{                                                                      \
		return __opencl_atomic_exchange(p, v, o, s);                   \
	}                                                                      \
	T OVL atomic_exchange_explicit(volatile OA A *p, T v, mo o)            \
	{                                                                      \
		return __opencl_atomic_exchange(p, v, o, DEV);                 \
	}                                                                      \
	T OVL atomic_exchange(volatile OA A *p, T v)                           \
	{                                                                      \
		return __opencl_atomic_exchange(p, v, SC, DEV);                \
	}

/* compare_exchange: EA is the address space of *expected; the builtin
 * wants it in a private temporary */
#define CMPXCHG1(OA, A, T, EA, K)                                              \
	bool OVL atomic_compare_exchange_##K##_explicit(                       \
		volatile OA A *p, EA T *e, T d, mo so, mo fo, ms s)            \
	{                                                                      \
		T t = *e;                                                      \
		bool ok = __opencl_atomic_compare_exchange_##K(p, &t, d, so,   \
							       fo, s);         \
		*e = t;                                                        \
		return ok;                                                     \
	}                                                                      \
	bool OVL atomic_compare_exchange_##K##_explicit(                       \
		volatile OA A *p, EA T *e, T d, mo so, mo fo)                  \
	{                                                                      \
		return atomic_compare_exchange_##K##_explicit(p, e, d, so, fo, \
							      (ms)DEV);        \
	}                                                                      \
	bool OVL atomic_compare_exchange_##K(volatile OA A *p, EA T *e, T d)   \
	{                                                                      \
		return atomic_compare_exchange_##K##_explicit(                 \
			p, e, d, (mo)SC, (mo)SC, (ms)DEV);                     \
	}
#define CMPXCHG(OA, A, T, EA)                                                  \
	CMPXCHG1(OA, A, T, EA, strong) CMPXCHG1(OA, A, T, EA, weak)

/* fetch_<op> for value type V (differs from T for atomic_(u)intptr_t) */
#define FETCH1(OA, A, T, V, OP)                                                \
	T OVL atomic_fetch_##OP##_explicit(volatile OA A *p, V v, mo o, ms s)  \
	{                                                                      \
		return __opencl_atomic_fetch_##OP(p, (T)v, o, s);              \
	}                                                                      \
	T OVL atomic_fetch_##OP##_explicit(volatile OA A *p, V v, mo o)        \
	{                                                                      \
		return __opencl_atomic_fetch_##OP(p, (T)v, o, DEV);            \
	}                                                                      \
	T OVL atomic_fetch_##OP(volatile OA A *p, V v)                         \
	{                                                                      \
		return __opencl_atomic_fetch_##OP(p, (T)v, SC, DEV);           \
	}
#define FETCH(OA, A, T)                                                        \
	FETCH1(OA, A, T, T, add) FETCH1(OA, A, T, T, sub)                      \
	FETCH1(OA, A, T, T, or) FETCH1(OA, A, T, T, xor)                       \
	FETCH1(OA, A, T, T, and) FETCH1(OA, A, T, T, min)                      \
	FETCH1(OA, A, T, T, max)

#define FLAG(OA)                                                               \
	bool OVL atomic_flag_test_and_set_explicit(volatile OA atomic_flag *p, \
						   mo o, ms s)                 \
	{                                                                      \
		return __opencl_atomic_exchange((volatile OA atomic_int *)p,   \
						1, o, s) != 0;                 \
	}                                                                      \
	bool OVL atomic_flag_test_and_set_explicit(volatile OA atomic_flag *p, \
						   mo o)                       \
	{                                                                      \
		return atomic_flag_test_and_set_explicit(p, o, (ms)DEV);       \
	}                                                                      \
	bool OVL atomic_flag_test_and_set(volatile OA atomic_flag *p)          \
	{                                                                      \
		return atomic_flag_test_and_set_explicit(p, (mo)SC, (ms)DEV);  \
	}                                                                      \
	void OVL atomic_flag_clear_explicit(volatile OA atomic_flag *p, mo o,  \
					    ms s)                              \
	{                                                                      \
		__opencl_atomic_store((volatile OA atomic_int *)p, 0, o, s);   \
	}                                                                      \
	void OVL atomic_flag_clear_explicit(volatile OA atomic_flag *p, mo o)  \
	{                                                                      \
		atomic_flag_clear_explicit(p, o, (ms)DEV);                     \
	}                                                                      \
	void OVL atomic_flag_clear(volatile OA atomic_flag *p)                 \
	{                                                                      \
		atomic_flag_clear_explicit(p, (mo)SC, (ms)DEV);                \
	}

/* everything for objects in OA whose *expected may be in EAs */
#define TYPE(OA, A, T, EAS) LDST(OA, A, T) EAS(CMPXCHG, OA, A, T)
#define INT_TYPE(OA, A, T, EAS) TYPE(OA, A, T, EAS) FETCH(OA, A, T)
#define ALL_TYPES(OA, EAS)                                                     \
	INT_TYPE(OA, atomic_int, int, EAS)                                     \
	INT_TYPE(OA, atomic_uint, uint, EAS)                                   \
	INT_TYPE(OA, atomic_long, long, EAS)                                   \
	INT_TYPE(OA, atomic_ulong, ulong, EAS)                                 \
	TYPE(OA, atomic_float, float, EAS)                                     \
	TYPE(OA, atomic_double, double, EAS)                                   \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, ptrdiff_t, add)                \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, ptrdiff_t, sub)                \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, intptr_t, or)                  \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, intptr_t, xor)                 \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, intptr_t, and)                 \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, intptr_t, min)                 \
	FETCH1(OA, atomic_uintptr_t, uintptr_t, intptr_t, max)                 \
	FETCH1(OA, atomic_intptr_t, intptr_t, uintptr_t, or)                   \
	FETCH1(OA, atomic_intptr_t, intptr_t, uintptr_t, xor)                  \
	FETCH1(OA, atomic_intptr_t, intptr_t, uintptr_t, and)                  \
	FETCH1(OA, atomic_intptr_t, intptr_t, uintptr_t, min)                  \
	FETCH1(OA, atomic_intptr_t, intptr_t, uintptr_t, max)                  \
	FLAG(OA)

#define EA_GENERIC(M, OA, A, T) M(OA, A, T, )
#define EA_NAMED(M, OA, A, T)                                                  \
	M(OA, A, T, __global) M(OA, A, T, __local) M(OA, A, T, __private)

ALL_TYPES(, EA_GENERIC)
ALL_TYPES(__global, EA_NAMED)
ALL_TYPES(__local, EA_NAMED)

void OVL atomic_work_item_fence(cl_mem_fence_flags f, mo o, ms s)
{
	(void)f;
	(void)s;
	/* fence instructions want a constant order */
	switch (o) {
	case __ATOMIC_ACQUIRE:
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		break;
	case __ATOMIC_RELEASE:
		__atomic_thread_fence(__ATOMIC_RELEASE);
		break;
	case __ATOMIC_ACQ_REL:
		__atomic_thread_fence(__ATOMIC_ACQ_REL);
		break;
	case __ATOMIC_SEQ_CST:
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		break;
	default:
		break;
	}
}
