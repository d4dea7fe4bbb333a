/* SPDX-License-Identifier: MIT */
/*
 * What clang 16's headers lack: CLK_UNORM_INT_101010_2 (OpenCL C 3.0's
 * name of a channel type the device supports), and the declarations of
 * builtins that its table (-fdeclare-opencl-builtins) lacks:
 * cl_intel_subgroups and cl_intel_subgroups_short. The
 * device does not list them (their shuffles cost a work-group barrier
 * pair each here, icd/cl-device.c): a program that defines their macros
 * (-Dcl_intel_subgroups) gets them all the same.
 * The frontend includes this file before every program's source
 * (-include, frontend/frontend.c); the builtins library includes it
 * before defining them (sub-group-intel.cl), so both agree on the
 * overloads and so on the mangled names. Macros are named in the
 * implementation's space and undefined at the end: a program sees only
 * the functions.
 */
#ifndef __ACCELC_PROGRAM_PRELUDE_H
#define __ACCELC_PROGRAM_PRELUDE_H

#define __ACCELC_OVL __attribute__((overloadable, convergent))

#if defined(cl_intel_subgroups)

#define __ACCELC_SHUFFLES(T)                                                   \
	T __ACCELC_OVL intel_sub_group_shuffle(T, uint);                       \
	T __ACCELC_OVL intel_sub_group_shuffle_down(T, T, uint);               \
	T __ACCELC_OVL intel_sub_group_shuffle_up(T, T, uint);                 \
	T __ACCELC_OVL intel_sub_group_shuffle_xor(T, uint);
#define __ACCELC_SHUFFLES_VECS(T)                                              \
	__ACCELC_SHUFFLES(T) __ACCELC_SHUFFLES(T##2)                           \
	__ACCELC_SHUFFLES(T##3) __ACCELC_SHUFFLES(T##4)                        \
	__ACCELC_SHUFFLES(T##8) __ACCELC_SHUFFLES(T##16)

/* block reads and writes of @p T (suffix S), 1, 2, 4 or 8 per lane */
#define __ACCELC_BLOCK(T, S)                                                   \
	T __ACCELC_OVL intel_sub_group_block_read##S(const __global T *);     \
	T##2 __ACCELC_OVL intel_sub_group_block_read##S##2(const __global T *); \
	T##4 __ACCELC_OVL intel_sub_group_block_read##S##4(const __global T *); \
	T##8 __ACCELC_OVL intel_sub_group_block_read##S##8(const __global T *); \
	void __ACCELC_OVL intel_sub_group_block_write##S(__global T *, T);    \
	void __ACCELC_OVL intel_sub_group_block_write##S##2(__global T *,     \
							     T##2);            \
	void __ACCELC_OVL intel_sub_group_block_write##S##4(__global T *,     \
							     T##4);            \
	void __ACCELC_OVL intel_sub_group_block_write##S##8(__global T *,     \
							     T##8);

__ACCELC_SHUFFLES_VECS(float)
__ACCELC_SHUFFLES_VECS(int)
__ACCELC_SHUFFLES_VECS(uint)
__ACCELC_SHUFFLES(long)
__ACCELC_SHUFFLES(ulong)
#if defined(cl_khr_fp16)
/* half in declarations needs the pragma; the program starts without it */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__ACCELC_SHUFFLES(half)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif
#if defined(cl_khr_fp64)
__ACCELC_SHUFFLES(double)
#endif
__ACCELC_BLOCK(uint, )

#if defined(cl_intel_subgroups_short)
#define __ACCELC_BROADCASTS(T)                                                 \
	T __ACCELC_OVL intel_sub_group_broadcast(T, uint);                     \
	T##2 __ACCELC_OVL intel_sub_group_broadcast(T##2, uint);               \
	T##3 __ACCELC_OVL intel_sub_group_broadcast(T##3, uint);               \
	T##4 __ACCELC_OVL intel_sub_group_broadcast(T##4, uint);               \
	T##8 __ACCELC_OVL intel_sub_group_broadcast(T##8, uint);
#define __ACCELC_COLLECTIVES(T, OP)                                            \
	T __ACCELC_OVL intel_sub_group_reduce_##OP(T);                         \
	T __ACCELC_OVL intel_sub_group_scan_exclusive_##OP(T);                 \
	T __ACCELC_OVL intel_sub_group_scan_inclusive_##OP(T);

__ACCELC_BROADCASTS(short)
__ACCELC_BROADCASTS(ushort)
__ACCELC_SHUFFLES_VECS(short)
__ACCELC_SHUFFLES_VECS(ushort)
__ACCELC_COLLECTIVES(short, add)
__ACCELC_COLLECTIVES(short, min)
__ACCELC_COLLECTIVES(short, max)
__ACCELC_COLLECTIVES(ushort, add)
__ACCELC_COLLECTIVES(ushort, min)
__ACCELC_COLLECTIVES(ushort, max)
__ACCELC_BLOCK(uint, _ui)
__ACCELC_BLOCK(ushort, _us)

#undef __ACCELC_BROADCASTS
#undef __ACCELC_COLLECTIVES
#endif /* cl_intel_subgroups_short */

#undef __ACCELC_SHUFFLES
#undef __ACCELC_SHUFFLES_VECS
#undef __ACCELC_BLOCK
#endif /* cl_intel_subgroups */

#ifndef CLK_UNORM_INT_101010_2
#define CLK_UNORM_INT_101010_2 0x10E0
#endif

#undef __ACCELC_OVL
#endif /* __ACCELC_PROGRAM_PRELUDE_H */
