/* SPDX-License-Identifier: MIT */
/*
 * What the CPU device needs to know of and do with the processor's
 * architecture, behind one small interface: one file per architecture
 * (cpu-arch-x86.c, cpu-arch-aarch64.c), of which the build compiles the
 * one for its target (libaccel/CMakeLists.txt). Everything else of the
 * device (cache sizes and cores from sysfs, the pool, launches) is the
 * same on every architecture.
 */
#ifndef LIBACCEL_CPU_ARCH_H
#define LIBACCEL_CPU_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What /proc/cpuinfo and the architecture's registers tell of the CPU. */
struct cpuinfo {
	char *model;   /* malloc'ed, or NULL */
	char *vendor;  /* malloc'ed, or NULL */
	uint64_t mhz;  /* current clock if known, else 0 */
};

/*
 * Fill @p info for the first processor (entries left NULL that are not
 * known); cpu_read_cpuinfo() reads the lines.
 */
void cpu_arch_identify(struct cpuinfo *info);

/*
 * The first processor's value for each of @p keys in /proc/cpuinfo,
 * malloc'ed into @p values (NULL where absent); cpu-device.c.
 */
void cpu_read_cpuinfo(const char *const *keys, char **values, size_t n);

/*
 * Code tiers, as the compiler knows them (compiler-stub/codegen/
 * target-<arch>.c): 1 is the architecture's baseline, each next one adds
 * to the last. @return the name of tier @p tier (1-based) as
 * ACCEL_CPU_TARGET spells it, NULL past the last.
 */
const char *cpu_arch_tier_name(unsigned tier);
/* The highest tier this CPU runs, >= 1. */
unsigned cpu_arch_host_tier(void);
/*
 * The widest vector register, in bytes, of code for @p tier; @p narrowed
 * when ACCEL_CPU_TARGET names a tier (host code uses every feature).
 */
unsigned cpu_arch_simd_bytes(unsigned tier, bool narrowed);
/* Does host code do half arithmetic in vector registers natively? */
bool cpu_arch_fp16_arithmetic(void);

/*
 * The first tier whose built-in kernels use cpu_arch_sgemm_tile4_wide();
 * 0 where the baseline code is all there is.
 */
unsigned cpu_arch_wide_builtins_tier(void);
/* sgemm's 4-row tile compiled for that tier (cpu-sgemm-tile.h). */
void cpu_arch_sgemm_tile4_wide(float *restrict c, uint64_t ldc,
			       const float *restrict a, uint64_t lda,
			       const float *restrict p, uint64_t kn,
			       uint64_t cols);

/*
 * -cl-denorms-are-zero: flush denormal inputs and results of float and
 * double to zero on this thread. @return the mode to give
 * cpu_arch_restore_fp_mode().
 */
uint64_t cpu_arch_flush_denormals(void);
void cpu_arch_restore_fp_mode(uint64_t mode);

/*
 * Make a piece's non-temporal stores visible before the piece is counted
 * done (the count's release then orders them for the waiting thread).
 */
void cpu_arch_streaming_fence(void);

#endif /* LIBACCEL_CPU_ARCH_H */
