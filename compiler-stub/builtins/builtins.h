/* SPDX-License-Identifier: MIT */
/* Helpers for the OpenCL C builtins library. Definitions here must match
 * the declarations of clang's opencl-c.h (same overloads, so the same
 * mangled names). Vector variants mostly come from one generic body,
 * since OpenCL C operators already work element-wise. */
#ifndef ACCELC_BUILTINS_H
#define ACCELC_BUILTINS_H

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define OVL __attribute__((overloadable))

/* M(type) for a scalar type and its vectors */
#define FOR_VECS(M, T) M(T##2) M(T##3) M(T##4) M(T##8) M(T##16)
#define FOR_ALL(M, T) M(T) FOR_VECS(M, T)
#define FOR_FLOATS(M) FOR_ALL(M, float) FOR_ALL(M, double)
#define FOR_INTS(M)                                                            \
	FOR_ALL(M, char) FOR_ALL(M, uchar) FOR_ALL(M, short)                   \
	FOR_ALL(M, ushort) FOR_ALL(M, int) FOR_ALL(M, uint)                    \
	FOR_ALL(M, long) FOR_ALL(M, ulong)

/* M(type, n) with n the width suffix ("" for scalars) */
#define FOR_VECS_N(M, T) M(T, 2) M(T, 3) M(T, 4) M(T, 8) M(T, 16)

/* Element-wise vector versions of a scalar function F(T). */
#define SPLIT1(F, T, R)                                                        \
	R##2 OVL F(T##2 x) { return (R##2)(F(x.s0), F(x.s1)); }                \
	R##3 OVL F(T##3 x) { return (R##3)(F(x.s0), F(x.s1), F(x.s2)); }      \
	R##4 OVL F(T##4 x) { return (R##4)(F(x.lo), F(x.hi)); }                \
	R##8 OVL F(T##8 x) { return (R##8)(F(x.lo), F(x.hi)); }                \
	R##16 OVL F(T##16 x) { return (R##16)(F(x.lo), F(x.hi)); }
#define SPLIT2(F, T, U, R)                                                     \
	R##2 OVL F(T##2 x, U##2 y)                                             \
	{                                                                      \
		return (R##2)(F(x.s0, y.s0), F(x.s1, y.s1));                   \
	}                                                                      \
	R##3 OVL F(T##3 x, U##3 y)                                             \
	{                                                                      \
		return (R##3)(F(x.s0, y.s0), F(x.s1, y.s1), F(x.s2, y.s2));    \
	}                                                                      \
	R##4 OVL F(T##4 x, U##4 y) { return (R##4)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
	R##8 OVL F(T##8 x, U##8 y) { return (R##8)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
	R##16 OVL F(T##16 x, U##16 y)                                          \
	{                                                                      \
		return (R##16)(F(x.lo, y.lo), F(x.hi, y.hi));                  \
	}
/* vector x, scalar y */
#define SPLIT2S(F, T, U, R)                                                    \
	R##2 OVL F(T##2 x, U y) { return (R##2)(F(x.s0, y), F(x.s1, y)); }     \
	R##3 OVL F(T##3 x, U y)                                                \
	{                                                                      \
		return (R##3)(F(x.s0, y), F(x.s1, y), F(x.s2, y));             \
	}                                                                      \
	R##4 OVL F(T##4 x, U y) { return (R##4)(F(x.lo, y), F(x.hi, y)); }     \
	R##8 OVL F(T##8 x, U y) { return (R##8)(F(x.lo, y), F(x.hi, y)); }     \
	R##16 OVL F(T##16 x, U y) { return (R##16)(F(x.lo, y), F(x.hi, y)); }
#define SPLIT3(F, T)                                                           \
	T##2 OVL F(T##2 x, T##2 y, T##2 z)                                     \
	{                                                                      \
		return (T##2)(F(x.s0, y.s0, z.s0), F(x.s1, y.s1, z.s1));       \
	}                                                                      \
	T##3 OVL F(T##3 x, T##3 y, T##3 z)                                     \
	{                                                                      \
		return (T##3)(F(x.s0, y.s0, z.s0), F(x.s1, y.s1, z.s1),        \
			      F(x.s2, y.s2, z.s2));                            \
	}                                                                      \
	T##4 OVL F(T##4 x, T##4 y, T##4 z)                                     \
	{                                                                      \
		return (T##4)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi));       \
	}                                                                      \
	T##8 OVL F(T##8 x, T##8 y, T##8 z)                                     \
	{                                                                      \
		return (T##8)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi));       \
	}                                                                      \
	T##16 OVL F(T##16 x, T##16 y, T##16 z)                                 \
	{                                                                      \
		return (T##16)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi));      \
	}

/* Address spaces of pointer arguments: files named ptr-*.cl are built
 * twice, for OpenCL C 1.2 (named spaces) and 3.0 (generic). */
#ifdef __opencl_c_generic_address_space
#define FOR_PTR_AS(M, ...) M(, __VA_ARGS__)
#else
#define FOR_PTR_AS(M, ...)                                                     \
	M(__global, __VA_ARGS__) M(__local, __VA_ARGS__)                       \
	M(__private, __VA_ARGS__)
#endif

#endif /* ACCELC_BUILTINS_H */
