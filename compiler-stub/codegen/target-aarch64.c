/* SPDX-License-Identifier: MIT */
/*
 * Code generation for AArch64 (codegen/target-arch.h): the target
 * triple, LLVM's AArch64 backend, and two code tiers: "armv8-a", the
 * architecture's baseline with NEON, and "armv8.2-a+sve", which every
 * core with SVE has (Neoverse V1 and N2, A64FX). Both are LLVM's
 * "generic" CPU with exactly the tier's features; the SVE tier lets the
 * loop vectoriser use scalable vectors where its cost model prefers
 * them.
 */
#include <llvm-c/Target.h>

#include "target-arch.h"

const char accelc_arch_triple[] = "aarch64-unknown-linux-gnu";

void accelc_arch_init_llvm(void)
{
	LLVMInitializeAArch64TargetInfo();
	LLVMInitializeAArch64Target();
	LLVMInitializeAArch64TargetMC();
	LLVMInitializeAArch64AsmPrinter();
	LLVMInitializeAArch64AsmParser();
}

static const char *const base[] = { "neon", "fp-armv8", NULL };
/* v8.2a brings crc, lse, rdm; sve needs fullfp16 in LLVM 16 */
static const char *const sve[] = { "v8.2a", "crc", "lse", "rdm",
				   "fullfp16", "sve", NULL };

const struct accelc_tier accelc_tiers[] = {
	{ "armv8-a", "generic", base },
	{ "armv8.2-a+sve", "generic", sve },
};

/* how clang is told a CPU by name */
const char accelc_arch_cpu_option[] = "-mcpu=";

const unsigned accelc_n_tiers = sizeof(accelc_tiers) / sizeof(accelc_tiers[0]);

/*
 * NEON's 128 bits: OpenCL's vector types and fixed-width loops use
 * them; SVE's length is only known at run time.
 */
unsigned accelc_arch_vector_bits(const char *features, size_t len)
{
	(void)features;
	(void)len;
	return 128;
}

const char *accelc_arch_wide_vector_width(const char *features, size_t len)
{
	(void)features;
	(void)len;
	return NULL;
}

/* AAPCS64 on Linux has no red zone: nothing lives below sp */
const unsigned accelc_arch_red_zone = 0;
