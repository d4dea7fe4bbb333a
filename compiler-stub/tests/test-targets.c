/* SPDX-License-Identifier: MIT */
/*
 * Every code tier of the architecture (codegen/target-<arch>.c), whether
 * this CPU runs it or not:
 * - the libmvec variant table names entry points this machine's libmvec
 *   has, for every ISA;
 * - at each tier, the vectorised kernels call the variants of that tier,
 *   passing each vector argument in one register of the variant's width
 *   (x86-64: xmm/ymm/zmm 0 and 1), as glibc's vector ABI wants; where
 *   the table is empty (AArch64 with glibc 2.36), they call none;
 * - at each tier, the whole builtins library goes through code
 *   generation.
 * ACCEL_CPU_TARGET=<tier> checks that tier only (the test suite's tier
 * runs), and so does CT_BUILD_TARGET=<tier> without it (the run for a
 * tier this CPU cannot run); neither, every tier.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include "accelc-private.h"

/* the tiers: accelc_target_name() 1 ... */
#define TIER(i) accelc_target_name((unsigned)(i) + 1)

static bool is_tier(const char *name)
{
	for (unsigned i = 0; TIER(i); i++)
		if (!strcmp(TIER(i), name))
			return true;
	return false;
}

static bool level_wanted(const char *level)
{
	const char *env = getenv("ACCEL_CPU_TARGET");

	if (!env || !*env) {
		env = getenv("CT_BUILD_TARGET");
		if (env && !is_tier(env))
			env = NULL;
	}
	return !env || !*env || !strcmp(env, "host") ||
	       !strcmp(env, "native") || !strcmp(env, level);
}

static void test_table_in_libmvec(void **state)
{
	const struct accelc_vec_isa *isas;
	char *cpu, *features, *top = NULL;
	size_t n_isas;
	void *mvec;

	(void)state;
	if (!accelc_n_vec_fns) {
		printf("no libmvec variants on this architecture\n");
		return;
	}
	/* the highest tier's ISAs: every ISA */
	for (unsigned i = 0; TIER(i); i++)
		top = (char *)TIER(i);
	assert_int_equal(accelc_target_resolve(top, &cpu, &features, NULL), 0);
	n_isas = accelc_vec_isas(features, &isas);
	mvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
	assert_non_null(mvec);
	for (size_t i = 0; i < n_isas; i++)
		for (size_t k = 0; k < accelc_n_vec_fns; k++) {
			char name[64];

			accelc_vec_variant_name(&accelc_vec_fns[k],
						isas[i].isa, isas[i].lanes,
						name, sizeof(name));
			if (!dlsym(mvec, name))
				fail_msg("libmvec has no %s (%s)", name,
					 accelc_vec_fns[k].name);
		}
	dlclose(mvec);
	free(cpu);
	free(features);
}

/* One element-wise kernel per libmvec function, float and double. */
static const char abi_source[] =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#define K1(f, T) kernel void f##_##T(global T *o, global const T *x)"
	" { size_t i = get_global_id(0); o[i] = f(x[i]); }\n"
	"#define K2(f, T) kernel void f##_##T(global T *o, global const T *x,"
	" global const T *y)"
	" { size_t i = get_global_id(0); o[i] = f(x[i], y[i]); }\n"
	"#define B1(f) K1(f, float) K1(f, double)\n"
	"#define B2(f) K2(f, float) K2(f, double)\n"
	"B1(sin) B1(cos) B1(exp) B1(log) B2(pow) B1(exp2) B1(log2)\n"
	"B1(acos) B1(acosh) B1(asin) B1(asinh) B1(atan) B1(atanh) B2(atan2)\n"
	"B1(cosh) B1(sinh) B1(tan) B1(tanh) B1(erf) B1(erfc)\n"
	"B1(exp10) B1(log10) B1(expm1) B1(log1p)\n"
	/* builtins that reach libmvec at double the float lanes: the
	 * widest variants of a level ('e' at 8 doubles on x86-64-v4) */
	"K1(sinpi, float) K1(cospi, float) K1(tanpi, float)\n"
	"kernel void pown_float(global float *o, global const float *x,"
	" global const int *n)"
	" { size_t i = get_global_id(0); o[i] = pown(x[i], n[i]); }\n"
	"kernel void sincos_float(global float *o, global float *c,"
	" global const float *x)"
	" { size_t i = get_global_id(0); o[i] = sincos(x[i], c + i); }\n";

/*
 * Check each "call _ZGV..." in @p text: the instructions since the
 * previous call or label must write the argument registers of the
 * variant's width. Sets seen[k] for each table entry whose base name is
 * called.
 */
static void check_calls(const char *level, const char *text, char isa,
			bool *widest, bool *seen)
{
	const char *block = text;

	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		size_t n = (size_t)(end - line);
		const char *call = memmem(line, n, "call", 4);
		const char *zgv = memmem(line, n, "_ZGV", 4);

		if (n && end[-1] == ':' && line[0] != '\t')
			block = line;
		if (call && zgv) {
			char name[64] = "", r0[8], r1[8];
			const char *reg;
			unsigned args;

			sscanf(zgv, "%63[A-Za-z0-9_]", name);
			/* 'b' < 'd' < 'e': ISAs up to the level's */
			if (name[4] > isa || !strchr("bde", name[4]))
				fail_msg("%s: %s needs more than ISA '%c'",
					 level, name, isa);
			reg = name[4] == 'e' ? "zmm" :
			      name[4] == 'd' ? "ymm" : "xmm";
			args = strstr(name, "vv_") ? 2 : 1;
			*widest |= name[4] == isa;
			snprintf(r0, sizeof(r0), "%%%s0", reg);
			snprintf(r1, sizeof(r1), "%%%s1", reg);
			if (!memmem(block, (size_t)(line - block), r0,
				    strlen(r0)) ||
			    (args == 2 && !memmem(block, (size_t)(line - block),
						  r1, strlen(r1))))
				fail_msg("%s: %s called without its arguments "
					 "in %s (%s%s):\n%.*s", level, name,
					 r0, args == 2 ? "and " : "",
					 args == 2 ? r1 : "",
					 (int)(end - block), block);
			for (size_t k = 0; k < accelc_n_vec_fns; k++) {
				const char *base = accelc_vec_fns[k].base;
				const char *u = strchr(name + 4, '_');

				if (u && !strcmp(u + 1, base))
					seen[k] = true;
			}
			block = end;
		}
		line = *end ? end + 1 : end;
	}
}

static void test_call_abi(void **state)
{
	(void)state;
	for (size_t i = 0; TIER(i); i++) {
		struct accelc_options o = {
			.struct_size = sizeof(o),
			.flags = ACCELC_FLAG_KEEP_ASM | ACCELC_FLAG_NO_CACHE,
			.target = TIER(i),
		};
		struct accelc_result *res = NULL;
		char *cpu, *features;
		unsigned lanes;
		bool widest = false;
		bool *seen = calloc(accelc_n_vec_fns, sizeof(*seen));
		char isa;
		int r;

		if (!level_wanted(TIER(i)))
			continue;
		assert_int_equal(accelc_target_resolve(TIER(i), &cpu,
						       &features, NULL), 0);
		isa = accelc_vec_isa(features, &lanes);
		r = accelc_compile(&o, abi_source, sizeof(abi_source) - 1,
				   &res);
		if (r)
			fail_msg("%s: build failed (%d):\n%s", TIER(i), r,
				 accelc_result_get_log(res));
		if (!accelc_n_vec_fns) {
			/* no table: nothing may call a variant */
			if (strstr(accelc_result_get_asm(res), "_ZGV"))
				fail_msg("%s: a vector variant is called "
					 "without a table", TIER(i));
			printf("%s: no libmvec variants, none called\n",
			       TIER(i));
			goto next;
		}
		assert_non_null(seen);
		check_calls(TIER(i), accelc_result_get_asm(res), isa,
			    &widest, seen);
		if (!widest)
			fail_msg("%s: no call of an ISA '%c' variant", TIER(i),
				 isa);
		/* every libmvec function is called through its variant */
		for (size_t k = 0; k < accelc_n_vec_fns; k++)
			if (!seen[k])
				fail_msg("%s: no vector call of %s", TIER(i),
					 accelc_vec_fns[k].base);
		printf("%s: variants up to ISA '%c', every argument in its "
		       "register\n", TIER(i), isa);
next:
		free(seen);
		accelc_result_free(res);
		free(cpu);
		free(features);
	}
}

/* Code generation of every builtin, at each level. */
static void test_builtins_codegen(void **state)
{
	(void)state;
	for (size_t i = 0; TIER(i); i++) {
		LLVMContextRef ctx;
		LLVMMemoryBufferRef out = NULL;
		LLVMModuleRef mod;
		const char *bits, *name;
		size_t size;
		LLVMTargetMachineRef tm;
		struct strbuf log = { 0 };
		char *cpu, *features;
		unsigned n = 0;
		struct timespec t0, t1;

		if (!level_wanted(TIER(i)))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(accelc_target_resolve(TIER(i), &cpu,
						       &features, NULL), 0);
		ctx = LLVMContextCreate();
		/* every piece of the library, whole */
		mod = LLVMModuleCreateWithNameInContext("builtins", ctx);
		assert_int_equal(accelc_builtins_set_target(mod), 0);
		for (unsigned c = 0;
		     (bits = accelc_builtin_chunk_bits(c, &size, &name)); c++)
			if (accelc_link_bitcode(mod, bits, bits + size, name,
						false, &log))
				fail_msg("%s: %s", name, log.buf);
		for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
		     f = LLVMGetNextFunction(f))
			n += !LLVMIsDeclaration(f);
		assert_int_equal(accelc_create_tm(cpu, features, true, &tm,
						  &log), 0);
		if (accelc_optimize(mod, tm, cpu, features, false, false,
				    false, &log) ||
		    accelc_emit(mod, tm, LLVMObjectFile, &out, &log))
			fail_msg("%s: builtins: %s", TIER(i),
				 log.buf ? log.buf : "");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%s: %u builtin functions, %zu bytes of code (%.1f s)\n",
		       TIER(i), n, LLVMGetBufferSize(out),
		       (double)(t1.tv_sec - t0.tv_sec) +
			       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		assert_true(n > 1000);
		LLVMDisposeMemoryBuffer(out);
		LLVMDisposeTargetMachine(tm);
		LLVMDisposeModule(mod);
		LLVMContextDispose(ctx);
		strbuf_free(&log);
		free(cpu);
		free(features);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_in_libmvec),
		cmocka_unit_test(test_call_abi),
		cmocka_unit_test(test_builtins_codegen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
