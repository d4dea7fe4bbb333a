/* SPDX-License-Identifier: MIT */
/*
 * What the compiler generates code for on this device, as the device's
 * ACCEL_DEVICE_STRING_CODE_TARGET: the x86-64 micro-architecture level of
 * the host ("host (x86-64-v4)": every feature of this CPU, at least that
 * level), or the level ACCEL_CPU_TARGET narrows it to; the built-in
 * kernels and the reported vector widths follow the same level. The
 * compiler module (compiler-stub/codegen/target.c) owns the feature lists; this
 * only names the level, without loading LLVM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-private.h"

static const char *const level_names[] = {
	"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4",
};

/* The host's x86-64 level, 1..4 (0 off x86). */
static unsigned host_level(void)
{
#if defined(__x86_64__)
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
#else
	return 0;
#endif
}

/* The level $ACCEL_CPU_TARGET names, 0 for none (host). */
static unsigned env_level(void)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");

	for (unsigned i = 0; env && i < 4; i++)
		if (!strcmp(env, level_names[i]))
			return i + 1;
	return 0;
}

unsigned cpu_code_level(void)
{
	unsigned host = host_level(), env = env_level();

	return env && env < host ? env : host;
}

void cpu_code_target(char *buf, size_t size)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");
	unsigned host = host_level();

	if (!env || !*env || !strcmp(env, "host") || !strcmp(env, "native"))
		snprintf(buf, size, "host (%s)",
			 host ? level_names[host - 1] : "?");
	else
		snprintf(buf, size, "%s", env);
}
