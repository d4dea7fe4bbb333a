/* SPDX-License-Identifier: MIT */
/*
 * What the compiler generates code for on this device, as the device's
 * ACCEL_DEVICE_STRING_CODE_TARGET: the code tier of the host ("host
 * (x86-64-v4)", "host (armv8.2-a+sve)": every feature of this CPU, at
 * least that tier), or the tier ACCEL_CPU_TARGET narrows it to; the
 * built-in kernels and the reported vector widths follow the same tier.
 * The tiers are the architecture's (cpu-arch-<arch>.c); the compiler
 * module (compiler-stub/codegen/target-<arch>.c) owns their feature
 * lists; this only names the tier, without loading LLVM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-arch.h"
#include "cpu-private.h"

/* The tier $ACCEL_CPU_TARGET names, 0 for none (host). */
static unsigned env_tier(void)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");
	const char *name;

	for (unsigned i = 1; env && (name = cpu_arch_tier_name(i)); i++)
		if (!strcmp(env, name))
			return i;
	return 0;
}

unsigned cpu_code_level(void)
{
	unsigned host = cpu_arch_host_tier(), env = env_tier();

	return env && env < host ? env : host;
}

void cpu_code_target(char *buf, size_t size)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");
	const char *host = cpu_arch_tier_name(cpu_arch_host_tier());

	if (!env || !*env || !strcmp(env, "host") || !strcmp(env, "native"))
		snprintf(buf, size, "host (%s)", host ? host : "?");
	else
		snprintf(buf, size, "%s", env);
}
