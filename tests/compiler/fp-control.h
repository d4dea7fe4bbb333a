/* SPDX-License-Identifier: MIT */
/*
 * The floating-point control bits of the calling thread, per
 * architecture: x86's MXCSR without its sticky exception flags (bits
 * 0-5), AArch64's FPCR (its flags live in FPSR). Tests compare them
 * before and after work that must leave them alone.
 */
#ifndef TESTS_COMPILER_FP_CONTROL_H
#define TESTS_COMPILER_FP_CONTROL_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

static inline uint64_t fp_control(void)
{
	return _mm_getcsr() & ~0x3fu;
}
#elif defined(__aarch64__)
static inline uint64_t fp_control(void)
{
	uint64_t fpcr;

	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	return fpcr;
}
#else
#error "fp_control() knows x86 and AArch64"
#endif

#endif /* TESTS_COMPILER_FP_CONTROL_H */
