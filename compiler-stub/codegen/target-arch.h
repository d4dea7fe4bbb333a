/* SPDX-License-Identifier: MIT */
/*
 * The architecture code is generated for: the one accelc itself is built
 * for, so that programs run in the process that compiles them. One file
 * per architecture (codegen/target-x86_64.c, codegen/target-aarch64.c),
 * of which compiler-stub/CMakeLists.txt compiles the one for its target;
 * codegen/target.c resolves target names with it, codegen/libmvec-<arch>.c
 * holds the architecture's vector math variants.
 */
#ifndef ACCELC_TARGET_ARCH_H
#define ACCELC_TARGET_ARCH_H

#include <stddef.h>

/* clang's and LLVM's target triple */
extern const char accelc_arch_triple[];

/* Registers the architecture's LLVM backend (once, accelc_llvm_init()). */
void accelc_arch_init_llvm(void);

/*
 * A code tier: what ACCEL_CPU_TARGET and accelc --target name, LLVM's CPU
 * for it and the features it adds to the tier before it (NULL-ended);
 * the first is the architecture's baseline.
 */
struct accelc_tier {
	const char *name;
	const char *cpu;
	const char *const *features;
};

extern const struct accelc_tier accelc_tiers[];
extern const unsigned accelc_n_tiers;
/* clang's option naming a CPU: "-march=" (x86), "-mcpu=" (AArch64) */
extern const char accelc_arch_cpu_option[];

/*
 * The widest vector register, in bits, of code for the feature list
 * @p features (@p len bytes, "+a,-b,..."): sub-groups are a float
 * vector's lanes, vectors of work-item loops are split by it.
 */
unsigned accelc_arch_vector_bits(const char *features, size_t len);

/*
 * The "prefer-vector-width" work-item loops get where the CPU's tuning
 * avoids its widest registers but such loops gain from them; NULL to
 * keep the tuning's.
 */
const char *accelc_arch_wide_vector_width(const char *features, size_t len);

/*
 * The host's feature list from LLVM's (@p llvm), completed with what the
 * architecture's own sources tell (malloc'ed; NULL without memory).
 */
char *accelc_arch_host_features(const char *llvm);

/* Bytes a leaf function may use below the stack pointer. */
extern const unsigned accelc_arch_red_zone;

/*
 * The intrinsic giving an address above every object of the calling
 * function's frame: "llvm.frameaddress" (called with 0) where the frame
 * pointer sits above the locals (x86-64), "llvm.sponentry" where the
 * frame record may sit below them (AArch64).
 */
extern const char accelc_arch_frame_top[];

#endif /* ACCELC_TARGET_ARCH_H */
