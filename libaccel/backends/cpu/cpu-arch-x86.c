/* SPDX-License-Identifier: MIT */
/*
 * The CPU device on x86-64 (cpu-arch.h): the psABI's micro-architecture
 * levels as code tiers (from CPUID, through __builtin_cpu_supports()),
 * the vendor CPUID reports, MXCSR for denormals, sfence after streaming
 * stores.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmmintrin.h>

#include "cpu-arch.h"
#include "cpu-sgemm-tile.h"

static const char *const tier_names[] = {
	"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4",
};

const char *cpu_arch_tier_name(unsigned tier)
{
	return tier >= 1 && tier <= sizeof(tier_names) / sizeof(tier_names[0]) ?
		       tier_names[tier - 1] :
		       NULL;
}

unsigned cpu_arch_host_tier(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512cd") &&
	    __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
	    __builtin_cpu_supports("bmi2"))
		return 4;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
	    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
		return 3;
	if (__builtin_cpu_supports("sse4.2") &&
	    __builtin_cpu_supports("popcnt") &&
	    __builtin_cpu_supports("ssse3"))
		return 2;
	return 1;
}

/*
 * AVX-512 registers from -v4 on, AVX's from -v3; host code at -v2 still
 * has AVX where the CPU does (a CPU with AVX but no AVX2).
 */
unsigned cpu_arch_simd_bytes(unsigned tier, bool narrowed)
{
	__builtin_cpu_init();
	if (tier >= 4 && __builtin_cpu_supports("avx512f"))
		return 64;
	if (tier >= 3 ||
	    (tier == 2 && __builtin_cpu_supports("avx") && !narrowed))
		return 32;
	return 16;
}

/* AVX512-FP16 */
bool cpu_arch_fp16_arithmetic(void)
{
	unsigned a, b, c, d;

	__builtin_cpu_init();
	/*
	 * CPUID.(7,0):EDX bit 23; clang 16's __builtin_cpu_supports() has
	 * no name for it. avx512f says the OS saves the AVX-512 state.
	 */
	return __builtin_cpu_supports("avx512f") &&
	       __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 23));
}

void cpu_arch_identify(struct cpuinfo *info)
{
	static const char *const keys[] = { "model name", "vendor_id",
					    "cpu MHz" };
	char *v[3];

	cpu_read_cpuinfo(keys, v, 3);
	info->model = v[0];
	info->vendor = v[1];
	info->mhz = v[2] ? (uint64_t)(strtod(v[2], NULL) + 0.5) : 0;
	free(v[2]);
}

/*
 * The library is built for the SSE2 baseline; an AVX2+FMA copy of the
 * tile, picked at run time, is about twice as fast where available.
 * (Not target_clones: its ifunc resolver runs before the sanitizer
 * runtimes are up and crashes instrumented builds.)
 */
unsigned cpu_arch_wide_builtins_tier(void)
{
	return 3;
}

__attribute__((target("avx2,fma"))) void
cpu_arch_sgemm_tile4_wide(SGEMM_TILE4_ARGS)
{
	sgemm_tile4(c, ldc, a, lda, p, kn, cols);
}

/*
 * MXCSR's DAZ (denormal inputs read as zero) and FTZ (denormal results
 * become zero, sign kept) cover float and double alike.
 */
uint64_t cpu_arch_flush_denormals(void)
{
	unsigned int csr = _mm_getcsr();

	_mm_setcsr(csr | (1u << 6) | (1u << 15));
	return csr;
}

void cpu_arch_restore_fp_mode(uint64_t mode)
{
	_mm_setcsr((unsigned int)mode);
}

/*
 * Non-temporal stores are weakly ordered even on x86: only sfence orders
 * them before the release that says the piece is done.
 */
void cpu_arch_streaming_fence(void)
{
	__builtin_ia32_sfence();
}
