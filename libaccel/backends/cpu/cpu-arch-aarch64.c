/* SPDX-License-Identifier: MIT */
/*
 * The CPU device on AArch64 (cpu-arch.h): code tiers from the kernel's
 * HWCAP bits, the vendor from MIDR_EL1's implementer, FPCR.FZ for
 * denormals. Streaming stores need no fence of their own here.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "cpu-arch.h"
#include "cpu-sgemm-tile.h"

/*
 * The tiers (compiler-stub/codegen/target-aarch64.c has their LLVM
 * features): NEON is the baseline of the architecture; the second adds
 * Armv8.2-A and SVE, which every SVE core has (Neoverse V1/N2, A64FX).
 */
static const char *const tier_names[] = {
	"armv8-a", "armv8.2-a+sve",
};

const char *cpu_arch_tier_name(unsigned tier)
{
	return tier >= 1 && tier <= sizeof(tier_names) / sizeof(tier_names[0]) ?
		       tier_names[tier - 1] :
		       NULL;
}

/* What code for Armv8.2-A + SVE may use, as the kernel reports it. */
#define SVE_TIER_HWCAP                                                         \
	(HWCAP_ASIMD | HWCAP_FP | HWCAP_CRC32 | HWCAP_ATOMICS |                \
	 HWCAP_ASIMDRDM | HWCAP_FPHP | HWCAP_ASIMDHP | HWCAP_SVE)

unsigned cpu_arch_host_tier(void)
{
	unsigned long hw = getauxval(AT_HWCAP);

	return (hw & SVE_TIER_HWCAP) == SVE_TIER_HWCAP ? 2 : 1;
}

/*
 * 16 on both tiers: OpenCL's vector types and the vectoriser's
 * fixed-width loops use NEON registers; SVE code is vector-length
 * agnostic, so no wider width is promised.
 */
unsigned cpu_arch_simd_bytes(unsigned tier, bool narrowed)
{
	(void)tier;
	(void)narrowed;
	return 16;
}

/* FEAT_FP16 for scalars and vectors */
bool cpu_arch_fp16_arithmetic(void)
{
	unsigned long hw = getauxval(AT_HWCAP);

	return (hw & (HWCAP_FPHP | HWCAP_ASIMDHP)) ==
	       (HWCAP_FPHP | HWCAP_ASIMDHP);
}

/* MIDR_EL1's implementer codes (Arm ARM, D19.2.100). */
static const struct {
	unsigned code;
	const char *name;
} implementers[] = {
	{ 0x41, "ARM" },       { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x46, "Fujitsu" },   { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
	{ 0x50, "APM" },       { 0x51, "Qualcomm" }, { 0x53, "Samsung" },
	{ 0x61, "Apple" },     { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

/* Parts of cores seen in servers and boards, by implementer. */
static const struct {
	unsigned impl, part;
	const char *name;
} parts[] = {
	{ 0x41, 0xd03, "Cortex-A53" },  { 0x41, 0xd04, "Cortex-A35" },
	{ 0x41, 0xd05, "Cortex-A55" },  { 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },  { 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },  { 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse-N1" }, { 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd40, "Neoverse-V1" }, { 0x41, 0xd41, "Cortex-A78" },
	{ 0x41, 0xd44, "Cortex-X1" },   { 0x41, 0xd46, "Cortex-A510" },
	{ 0x41, 0xd47, "Cortex-A710" }, { 0x41, 0xd48, "Cortex-X2" },
	{ 0x41, 0xd49, "Neoverse-N2" }, { 0x41, 0xd4f, "Neoverse-V2" },
	{ 0x46, 0x001, "A64FX" },       { 0xc0, 0xac3, "Ampere-1" },
};

/*
 * MIDR_EL1 of cpu0: sysfs, else /proc/cpuinfo's "CPU implementer" and
 * "CPU part", else the register itself where the kernel emulates EL0
 * reads of it (HWCAP_CPUID). 0 if none tells.
 */
static uint64_t read_midr(void)
{
	static const char *const keys[] = { "CPU implementer", "CPU part" };
	unsigned long long v = 0;
	char *val[2];
	FILE *f;

	f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
		  "re");
	if (f) {
		if (fscanf(f, "%llx", &v) != 1)
			v = 0;
		fclose(f);
		if (v)
			return v;
	}
	cpu_read_cpuinfo(keys, val, 2);
	if (val[0] && val[1])
		v = (strtoull(val[0], NULL, 0) & 0xff) << 24 |
		    (strtoull(val[1], NULL, 0) & 0xfff) << 4;
	free(val[0]);
	free(val[1]);
	if (!v && (getauxval(AT_HWCAP) & HWCAP_CPUID))
		__asm__ volatile("mrs %0, midr_el1" : "=r"(v));
	return v;
}

void cpu_arch_identify(struct cpuinfo *info)
{
	uint64_t midr = read_midr();
	unsigned impl = (unsigned)(midr >> 24) & 0xff;
	unsigned part = (unsigned)(midr >> 4) & 0xfff;
	const char *vendor = NULL, *model = NULL;

	for (size_t i = 0; i < sizeof(implementers) / sizeof(implementers[0]);
	     i++)
		if (implementers[i].code == impl)
			vendor = implementers[i].name;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].impl == impl && parts[i].part == part)
			model = parts[i].name;
	if (vendor)
		info->vendor = strdup(vendor);
	if (model)
		info->model = strdup(model);
	else if (midr && asprintf(&info->model, "AArch64 CPU (implementer "
				  "0x%02x, part 0x%03x)", impl, part) < 0)
		info->model = NULL;
	/* cpuinfo has no clock on arm64: cpufreq's is read by the caller */
	info->mhz = 0;
}

/* NEON is the baseline: one copy of the built-in kernels serves all. */
unsigned cpu_arch_wide_builtins_tier(void)
{
	return 0;
}

void cpu_arch_sgemm_tile4_wide(SGEMM_TILE4_ARGS)
{
	sgemm_tile4(c, ldc, a, lda, p, kn, cols);
}

/*
 * FPCR.FZ (bit 24) flushes denormal inputs and results of float and
 * double to zero, as MXCSR's DAZ and FTZ together do on x86.
 */
#define FPCR_FZ (1ull << 24)

uint64_t cpu_arch_flush_denormals(void)
{
	uint64_t fpcr;

	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	__asm__ volatile("msr fpcr, %0" ::"r"(fpcr | FPCR_FZ));
	return fpcr;
}

void cpu_arch_restore_fp_mode(uint64_t mode)
{
	__asm__ volatile("msr fpcr, %0" ::"r"(mode));
}

/*
 * LLVM emits non-temporal stores as STNP, which the memory model orders
 * like any other store: the release that counts the piece done (a
 * store-release or dmb ish) already publishes them.
 */
void cpu_arch_streaming_fence(void)
{
}
