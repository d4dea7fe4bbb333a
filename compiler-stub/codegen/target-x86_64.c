/* SPDX-License-Identifier: MIT */
/*
 * Code generation for x86-64 (codegen/target-arch.h): the target triple,
 * LLVM's X86 backend, and the micro-architecture levels of the psABI
 * (x86-64, -v2, -v3, -v4) as code tiers. A level names LLVM's CPU of
 * that name (its tuning: -v4 prefers 256-bit vectors like Intel's
 * AVX-512 cores) and exactly the level's features.
 */
#include <string.h>

#include <llvm-c/Target.h>

#include "target-arch.h"

const char accelc_arch_triple[] = "x86_64-unknown-linux-gnu";

void accelc_arch_init_llvm(void)
{
	LLVMInitializeX86TargetInfo();
	LLVMInitializeX86Target();
	LLVMInitializeX86TargetMC();
	LLVMInitializeX86AsmPrinter();
	LLVMInitializeX86AsmParser();
}

/* LLVM's names of each level's features, each level adding to the last */
static const char *const v1[] = { "64bit", "cx8", "cmov", "fxsr", "mmx",
				  "sse", "sse2", NULL };
static const char *const v2[] = { "cx16", "sahf", "popcnt", "sse3",
				  "ssse3", "sse4.1", "sse4.2", "crc32",
				  NULL };
static const char *const v3[] = { "avx", "avx2", "bmi", "bmi2", "f16c",
				  "fma", "lzcnt", "movbe", "xsave", NULL };
static const char *const v4[] = { "avx512f", "avx512bw", "avx512cd",
				  "avx512dq", "avx512vl", NULL };

const struct accelc_tier accelc_tiers[] = {
	{ "x86-64", "x86-64", v1 },
	{ "x86-64-v2", "x86-64-v2", v2 },
	{ "x86-64-v3", "x86-64-v3", v3 },
	{ "x86-64-v4", "x86-64-v4", v4 },
};

/* how clang is told a CPU by name */
const char accelc_arch_cpu_option[] = "-march=";

const unsigned accelc_n_tiers = sizeof(accelc_tiers) / sizeof(accelc_tiers[0]);

unsigned accelc_arch_vector_bits(const char *features, size_t len)
{
	if (memmem(features, len, "+avx512f", 8))
		return 512;
	return memmem(features, len, "+avx", 4) ? 256 : 128;
}

/*
 * AVX-512 CPUs are tuned for 256-bit vectors (clang's default
 * prefer-vector-width=256 there), which halves work-item loops that use
 * zmm registers well.
 */
const char *accelc_arch_wide_vector_width(const char *features, size_t len)
{
	return memmem(features, len, "+avx512f", 8) ? "512" : NULL;
}

/* LLVM reads CPUID itself */
char *accelc_arch_host_features(const char *llvm)
{
	return strdup(llvm);
}

/* the psABI's red zone: a leaf function may keep its frame there */
const unsigned accelc_arch_red_zone = 128;

/* the saved frame pointer lies above the locals */
const char accelc_arch_frame_top[] = "llvm.frameaddress";
