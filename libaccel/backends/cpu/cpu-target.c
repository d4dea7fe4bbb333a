/* SPDX-License-Identifier: MIT */
/*
 * What the compiler generates code for on this device, as the device's
 * ACCEL_DEVICE_STRING_CODE_TARGET: the x86-64 micro-architecture level of
 * the host ("host (x86-64-v4)": every feature of this CPU, at least that
 * level), or the level ACCEL_CPU_TARGET narrows it to. The compiler
 * module (compiler-stub/target.c) owns the feature lists; this only names
 * the level, without loading LLVM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-private.h"

static const char *host_level(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512cd") &&
	    __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
	    __builtin_cpu_supports("bmi2"))
		return "x86-64-v4";
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
	    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
		return "x86-64-v3";
	if (__builtin_cpu_supports("sse4.2") &&
	    __builtin_cpu_supports("popcnt") &&
	    __builtin_cpu_supports("ssse3"))
		return "x86-64-v2";
	return "x86-64";
}

void cpu_code_target(char *buf, size_t size)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");

	if (!env || !*env || !strcmp(env, "host") || !strcmp(env, "native"))
		snprintf(buf, size, "host (%s)", host_level());
	else
		snprintf(buf, size, "%s", env);
}
