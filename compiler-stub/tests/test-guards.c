/* SPDX-License-Identifier: MIT */
/*
 * Range guards (wg-guards.c): guards on 64-bit ids are split off the
 * work-item loop in K__wg itself, guards on 32-bit ids in K__wg_id32; no
 * masked stores are left there; and every function computes what the
 * host does, guard by guard, over bounds below, inside and past the
 * groups, negative bounds for signed guards, offsets and partial groups.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include <libaccel/accel-wg.h>

#include "wg-test.h"

/* Every kernel: c[i] = a[i] + 1 where the guard holds, else untouched. */
static const char source[] =
	"kernel void g_size(global const float *a, global float *c,\n"
	"		    ulong n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		c[i] = a[i] + 1.0f;\n"
	"}\n"
	"kernel void g_int_ret(global const float *a, global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	c[i] = a[i] + 1.0f;\n"
	"}\n"
	"kernel void g_uint(global const float *a, global float *c, uint n)\n"
	"{\n"
	"	uint i = get_global_id(0);\n"
	"	if (n > i)\n"
	"		c[i] = a[i] + 1.0f;\n"
	"}\n"
	"kernel void g_le(global const float *a, global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i <= n)\n"
	"		c[i] = a[i] + 1.0f;\n"
	"}\n"
	/* not a guard IRCE can use: stays correct */
	"kernel void g_both(global const float *a, global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n && (i & 3) != 1)\n"
	"		c[i] = a[i] + 1.0f;\n"
	"}\n"
	/* a truncated value that is no global id: not bounded by 2^31 */
	"kernel void g_wrap(global const float *a, global float *c,\n"
	"		    ulong k, int n)\n"
	"{\n"
	"	int j = (int)(get_local_id(0) + k);\n"
	"	size_t i = get_global_id(0);\n"
	"	if (j < n)\n"
	"		c[i] = a[i] + 1.0f;\n"
	"}\n";

enum kind { SIZE_LT, INT_GE_RET, UINT_GT, INT_LE, BOTH };

static const struct {
	const char *name;
	enum kind kind;
	bool ids32;      /* has a 32-bit ids variant */
	const char *fast; /* the function without masked stores */
} kernels[] = {
	{ "g_size", SIZE_LT, false, "g_size__wg" },
	{ "g_int_ret", INT_GE_RET, true, "g_int_ret__wg_id32" },
	{ "g_uint", UINT_GT, true, "g_uint__wg_id32" },
	/* IRCE (LLVM 16) splits on < and >=, not <=: correct, not fast */
	{ "g_le", INT_LE, true, NULL },
	{ "g_both", BOTH, true, NULL },
};

static bool guard(enum kind k, int64_t i, int64_t n)
{
	switch (k) {
	case SIZE_LT:
		return (uint64_t)i < (uint64_t)n;
	case INT_GE_RET:
		return !((int32_t)i >= (int32_t)n);
	case UINT_GT:
		return (uint32_t)n > (uint32_t)i;
	case INT_LE:
		return (int32_t)i <= (int32_t)n;
	case BOTH:
		return (int32_t)i < (int32_t)n && (i & 3) != 1;
	}
	return false;
}

static void test_variants(void **state)
{
	struct wg_prog p;

	(void)state;
	wg_build(&p, source, NULL);
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		bool has = wg_find(&p, kernels[i].name, ACCEL_WG_IDS32_SUFFIX);

		if (has != kernels[i].ids32)
			fail_msg("%s: 32-bit ids variant %s", kernels[i].name,
				 has ? "made" : "missing");
		if (kernels[i].fast &&
		    wg_ir_has(&p, kernels[i].fast, "llvm.masked.store"))
			fail_msg("%s: masked stores left", kernels[i].fast);
	}
	wg_unbuild(&p);
	/* nothing of the kind without optimisation */
	wg_build(&p, source, "-cl-opt-disable");
	assert_null(wg_find(&p, "g_int_ret", ACCEL_WG_IDS32_SUFFIX));
	wg_unbuild(&p);
}

#define N 2048

static float a[N], c[N];

/* One run of kernel @k's function @fn, checked item by item. */
static void check(size_t k, accel_wg_fn fn, bool id32, int64_t n,
		  uint64_t off, uint64_t ls)
{
	uint64_t gs = 2000 - off, n64 = (uint64_t)n;
	int32_t n32 = (int32_t)n;
	void *pa = a, *pc = c;
	void *args[3] = { &pa, &pc,
			  kernels[k].kind == SIZE_LT ? (void *)&n64 :
						       (void *)&n32 };

	for (int i = 0; i < N; i++)
		c[i] = -1.0f;
	wg_run_1d(fn, args, off, gs, ls);
	for (int64_t i = 0; i < N; i++) {
		bool in = (uint64_t)i >= off && (uint64_t)i < off + gs &&
			  guard(kernels[k].kind, i, n);
		float want = in ? a[i] + 1.0f : -1.0f;

		if (c[i] != want)
			fail_msg("%s%s n %lld ls %llu off %llu item %lld: %g",
				 kernels[k].name, id32 ? "_id32" : "",
				 (long long)n, (unsigned long long)ls,
				 (unsigned long long)off, (long long)i,
				 (double)c[i]);
	}
}

static void test_results(void **state)
{
	static const int64_t bounds[] = { -7, 0, 1, 15, 16, 100, 1000,
					  1500, 1999, 5000 };
	static const uint64_t locals[] = { 1, 16, 64, 100 };
	static const uint64_t offsets[] = { 0, 16, 37 };
	struct wg_prog p;

	(void)state;
	for (int i = 0; i < N; i++)
		a[i] = (float)i * 0.5f;
	wg_build(&p, source, NULL);
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
		for (int v = 0; v < 2; v++) {
			accel_wg_fn fn = wg_find(&p, kernels[k].name,
					      v ? ACCEL_WG_IDS32_SUFFIX : "");

			for (size_t b = 0; fn && b < 10; b++)
				for (size_t li = 0; li < 4; li++)
					for (size_t oi = 0; oi < 3; oi++)
						if (kernels[k].kind != SIZE_LT ||
						    bounds[b] >= 0)
							check(k, fn, v,
							      bounds[b],
							      offsets[oi],
							      locals[li]);
		}
	wg_unbuild(&p);
}

/* j = (int)(lid + k) wraps: every function must agree with the host. */
static void test_not_an_id(void **state)
{
	static const uint64_t ks[] = { 0, 5, 0xffffffff00000005ull,
				       0x7ffffff0ull };
	struct wg_prog p;

	(void)state;
	wg_build(&p, source, NULL);
	assert_null(wg_find(&p, "g_wrap", ACCEL_WG_IDS32_SUFFIX));
	for (size_t ki = 0; ki < 4; ki++) {
		uint64_t k = ks[ki], ls = 64;
		int32_t n = 40;
		void *pa = a, *pc = c, *args[4] = { &pa, &pc, &k, &n };

		for (int i = 0; i < N; i++)
			c[i] = -1.0f;
		wg_run_1d(wg_find(&p, "g_wrap", ""), args, 0, 1000, ls);
		for (int i = 0; i < N; i++) {
			int32_t j = (int32_t)(uint32_t)((uint64_t)i % ls + k);
			float want = i < 1000 && j < n ? a[i] + 1.0f : -1.0f;

			if (c[i] != want)
				fail_msg("k %#llx item %d: %g",
					 (unsigned long long)k, i,
					 (double)c[i]);
		}
	}
	wg_unbuild(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_not_an_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
