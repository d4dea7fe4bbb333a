/* SPDX-License-Identifier: MIT */
/*
 * Address-space casts folded before the loop vectoriser
 * (codegen/flat-casts.c): OpenCL C 3.0 builtins take generic pointers, so
 * a store through fract()'s or vstore4()'s pointer, or through a generic
 * pointer of the kernel's own, must come out of the work-item loop as a
 * plain access to the global buffer (no cast to the generic address space
 * replicated per lane, no scatter), and every kernel computes what the plain C reference does,
 * with partial groups and offsets, also where a cast must stay (a pointer
 * that is private or global by work-item).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "wg-test.h"

#define N 4096

static const char source[] =
	/* the pointer result of a builtin, stored to global memory */
	"kernel void fr(global const float *a, global float *r,\n"
	"		global float *fl)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	r[i] = fract(a[i], &fl[i]);\n"
	"}\n"
	/* a generic pointer of the kernel's own, and vstore through it */
	"kernel void gen(global const float *a, global float *r)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float *p = r + i;\n"
	"	*p = a[i] * 2.0f;\n"
	"}\n"
	"kernel void vst(global const float *a, global float *r)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float *p = r;\n"
	"	vstore2(vload2(i, a) + 1.0f, i, p);\n"
	"}\n"
	/* the cast stays: private or global memory by work-item */
	"kernel void mixed(global const float *a, global float *r)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float t = 0.0f;\n"
	"	float *p = (i & 1) ? (float *)&t : (float *)&r[i];\n"
	"	*p = a[i] + 3.0f;\n"
	"	if (i & 1)\n"
	"		r[i] = t * 0.5f;\n"
	"}\n";

static void test_ir(void **state)
{
	static const char *const kernels[] = { "fr__wg", "gen__wg",
					       "vst__wg" };
	struct wg_prog p;

	(void)state;
	wg_build(&p, source, "-cl-std=CL3.0");
	for (size_t k = 0; k < sizeof(kernels) / sizeof(*kernels); k++) {
		/* the generic address space is 4 (SPIR's numbering) */
		assert_false(wg_ir_has(&p, kernels[k], "to ptr addrspace(4)"));
		assert_false(wg_ir_has(&p, kernels[k], "masked.scatter"));
	}
	wg_unbuild(&p);
}

static void test_results(void **state)
{
	static const uint64_t locals[] = { 1, 7, 64, 256 };
	static const uint64_t globals[] = { 5, 100, 1000 };
	static const uint64_t offsets[] = { 0, 3 };
	float *a = calloc(N, sizeof(float)), *r = calloc(N, sizeof(float));
	float *fl = calloc(N, sizeof(float));
	struct wg_prog p;

	(void)state;
	assert_true(a && r && fl);
	for (unsigned i = 0; i < N; i++)
		a[i] = (float)(i % 97) * 0.3125f - 15.0f;
	wg_build(&p, source, "-cl-std=CL3.0");
	for (size_t li = 0; li < 4; li++)
		for (size_t gi = 0; gi < 3; gi++)
			for (size_t oi = 0; oi < 2; oi++) {
				uint64_t ls = locals[li], gs = globals[gi];
				uint64_t off = offsets[oi];
				void *pa = a, *pr = r, *pf = fl;
				void *a_fr[3] = { &pa, &pr, &pf };
				void *a_2[2] = { &pa, &pr };

				memset(r, 0, N * sizeof(float));
				memset(fl, 0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "fr", ""), a_fr, off, gs,
					  ls);
				for (uint64_t i = 0; i < N; i++) {
					bool in = i >= off && i < off + gs;
					float f = floorf(a[i]);

					assert_true(fl[i] == (in ? f : 0.0f));
					assert_true(r[i] == (in ? a[i] - f :
								  0.0f));
				}

				memset(r, 0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "gen", ""), a_2, off, gs,
					  ls);
				for (uint64_t i = 0; i < N; i++) {
					bool in = i >= off && i < off + gs;

					assert_true(r[i] == (in ? a[i] * 2.0f :
								  0.0f));
				}

				memset(r, 0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "vst", ""), a_2, off, gs,
					  ls);
				for (uint64_t i = 0; i < N; i++) {
					bool in = i >= 2 * off &&
						  i < 2 * (off + gs);

					assert_true(r[i] == (in ? a[i] + 1.0f :
								  0.0f));
				}

				memset(r, 0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "mixed", ""), a_2, off,
					  gs, ls);
				for (uint64_t i = 0; i < N; i++) {
					bool in = i >= off && i < off + gs;
					float v = a[i] + 3.0f;

					if (in && (i & 1))
						v *= 0.5f;
					assert_true(r[i] == (in ? v : 0.0f));
				}
			}
	wg_unbuild(&p);
	free(a);
	free(r);
	free(fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ir),
		cmocka_unit_test(test_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
