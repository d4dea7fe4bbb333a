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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

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
/*
 * What Armv8.2-A code may use of its own (CRC32, LSE atomics, RDM, FP16)
 * and SVE, each by name: the host's list (LLVM's and AT_HWCAP's) names
 * them so, never "v8.2a", and a binary runs where the host has every
 * feature it names
 */
static const char *const sve[] = { "crc", "lse", "rdm", "fullfp16", "sve",
				   NULL };

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

/* LLVM's feature for each HWCAP bit of the tiers' features and more */
static const struct {
	unsigned long hwcap;
	const char *feature;
} hwcap_features[] = {
	{ HWCAP_FP, "fp-armv8" },      { HWCAP_ASIMD, "neon" },
	{ HWCAP_AES, "aes" },          { HWCAP_SHA2, "sha2" },
	{ HWCAP_CRC32, "crc" },        { HWCAP_ATOMICS, "lse" },
	{ HWCAP_FPHP, "fullfp16" },    { HWCAP_ASIMDRDM, "rdm" },
	{ HWCAP_ASIMDDP, "dotprod" },  { HWCAP_ASIMDFHM, "fp16fml" },
	{ HWCAP_JSCVT, "jsconv" },     { HWCAP_FCMA, "complxnum" },
	{ HWCAP_LRCPC, "rcpc" },       { HWCAP_SVE, "sve" },
};

static bool listed(const char *list, const char *feat)
{
	size_t n = strlen(feat);

	for (const char *p = list; *p;) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == n + 1 && !memcmp(p + 1, feat, n))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/*
 * LLVM 16 reads the features from /proc/cpuinfo's "Features" line, which
 * a container may hide and qemu-user does not emulate: the kernel's
 * AT_HWCAP adds what it lacks (a feature LLVM lists, on or off, stays).
 */
char *accelc_arch_host_features(const char *llvm)
{
	unsigned long hw = getauxval(AT_HWCAP);
	size_t len = strlen(llvm), cap = len + 1;
	char *s;

	for (size_t i = 0; i < sizeof(hwcap_features) / sizeof(hwcap_features[0]);
	     i++)
		cap += strlen(hwcap_features[i].feature) + 2;
	s = malloc(cap);
	if (!s)
		return NULL;
	memcpy(s, llvm, len + 1);
	for (size_t i = 0; i < sizeof(hwcap_features) / sizeof(hwcap_features[0]);
	     i++)
		if ((hw & hwcap_features[i].hwcap) &&
		    !listed(llvm, hwcap_features[i].feature))
			len += (size_t)snprintf(s + len, cap - len, "%s+%s",
						len ? "," : "",
						hwcap_features[i].feature);
	return s;
}

/* AAPCS64 on Linux has no red zone: nothing lives below sp */
const unsigned accelc_arch_red_zone = 0;

/*
 * The frame record (x29, x30) may lie at the bottom of the frame with the
 * locals above it: the stack pointer at entry bounds them instead.
 */
const char accelc_arch_frame_top[] = "llvm.sponentry";
