/* SPDX-License-Identifier: MIT */
/*
 * Vectors and switches of work-item loops split before the vectoriser
 * (codegen/split-vectors.c): kernels written with float4 (on targets at
 * least four times as wide) or a switch on a per-item value get a vectorised
 * work-item loop, and every kernel
 * computes what the plain C reference does, with partial groups and
 * offsets (also those the split leaves alone: a loop inside the
 * work-item loop, a shuffle with a run-time mask).
 */
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
	"kernel void axpy4(float s, global const float4 *x, global float4 *y)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	y[i] = s * x[i] + y[i];\n"
	"}\n"
	/* int vectors, a swizzle, a builtin on vectors */
	"kernel void mix4(global const int4 *x, global int4 *y)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	int4 v = x[i];\n"
	"	y[i] = max((v >> 3) ^ (v * 7), v.wzyx);\n"
	"}\n"
	/* a switch on a per-item value (y[i] read in front: a read in
	 * some cases only would need masked loads, which SSE lacks) */
	"kernel void pick(global const int *k, global float *y)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float x = y[i], v;\n"
	"	switch (k[i] & 3) {\n"
	"	case 0: v = x * 3.0f; break;\n"
	"	case 1: v = x + 7.0f; break;\n"
	"	case 2: v = -x; break;\n"
	"	default: v = 0.25f; break;\n"
	"	}\n"
	"	y[i] = v;\n"
	"}\n"
	/* left alone: a loop in the work-item loop */
	"kernel void dot4(int n, global const float4 *x, global float *y)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float4 acc = 0.0f;\n"
	"	for (int k = 0; k < n; k++)\n"
	"		acc = acc * 0.5f + x[(i + k) % 64];\n"
	"	y[i] = acc.x + acc.y * 2.0f + acc.z * 3.0f + acc.w * 4.0f;\n"
	"}\n"
	/* left alone: elements picked at run time */
	"kernel void shuf(global const float4 *x, global const uint4 *m,\n"
	"		  global float4 *y)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	y[i] = shuffle(x[i], m[i]);\n"
	"}\n";

/* The kept IR of @p kernel's work-group function has a vectorised loop. */
static bool vectorised(struct wg_prog *p, const char *kernel)
{
	char fn[64];

	snprintf(fn, sizeof(fn), "%s__wg", kernel);
	return wg_ir_has(p, fn, "vector.body");
}

static void test_vectorised(void **state)
{
	const struct accelc_kernel_info *k;
	struct wg_prog p;

	(void)state;
	wg_build(&p, source, NULL);
	k = accelc_result_find_kernel(p.res, "axpy4");
	assert_non_null(k);
	/* float lanes of the target (its sub-group size): a float4 that
	 * fills half a register or more (SSE, AVX2) is left whole, as
	 * vectorising 4-element interleave groups costs more than it gives
	 * (split-vectors.c) */
	if (k->sub_group_size > 8) {
		assert_true(vectorised(&p, "axpy4"));
		assert_true(vectorised(&p, "mix4"));
	}
	assert_true(vectorised(&p, "pick"));
	wg_unbuild(&p);
}

static void test_results(void **state)
{
	static const uint64_t locals[] = { 1, 7, 64, 256 };
	static const uint64_t globals[] = { 5, 100, 1000 };
	static const uint64_t offsets[] = { 0, 3 };
	float *x = calloc(N, sizeof(float)), *y = calloc(N, sizeof(float));
	float *y0 = calloc(N, sizeof(float)), s = 1.5f;
	int32_t *xi = calloc(N, sizeof(int32_t)), *yi = calloc(N, 4);
	uint32_t *m = calloc(N, sizeof(uint32_t));
	int n_dot = 9;
	struct wg_prog p;

	(void)state;
	assert_true(x && y && y0 && xi && yi && m);
	for (unsigned i = 0; i < N; i++) {
		x[i] = (float)(i % 97) * 0.125f - 5.0f;
		y0[i] = (float)(i % 13) * 0.25f - 1.0f;
		/* |x| < 2^24: x * 7 does not overflow */
		xi[i] = (int32_t)((i * 2654435761u) >> 7) - (1 << 24);
		m[i] = (i * 7 + i / 5) % 4;
	}
	wg_build(&p, source, NULL);
	for (size_t li = 0; li < 4; li++)
		for (size_t gi = 0; gi < 3; gi++)
			for (size_t oi = 0; oi < 2; oi++) {
				uint64_t ls = locals[li], gs = globals[gi];
				uint64_t off = offsets[oi];
				void *px = x, *py = y, *pxi = xi, *pyi = yi;
				void *pm = m;
				void *a_axpy[3] = { &s, &px, &py };
				void *a_mix[2] = { &pxi, &pyi };
				void *a_pick[2] = { &pxi, &py };
				void *a_dot[3] = { &n_dot, &px, &py };
				void *a_shuf[3] = { &px, &pm, &py };

				/* axpy4 over float4s: a quarter as many */
				memcpy(y, y0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "axpy4", ""), a_axpy, off,
					  gs / 4 + 1, ls);
				for (uint64_t i = 0; i < N; i++) {
					bool in = i >= 4 * off &&
						  i < 4 * (off + gs / 4 + 1);

					/* exact with or without a
					 * contraction to fma */
					assert_true(y[i] == (in ? s * x[i] +
								  y0[i] :
								  y0[i]));
				}

				memset(yi, 0, N * 4);
				wg_run_1d(wg_find(&p, "mix4", ""), a_mix, off,
					  gs / 4 + 1, ls);
				for (uint64_t v = 0; v < N / 4; v++)
					for (int k = 0; k < 4; k++) {
						bool in = v >= off &&
							  v < off + gs / 4 + 1;
						int32_t e = xi[4 * v + k];
						int32_t w = xi[4 * v + 3 - k];
						int32_t a = (e >> 3) ^ (e * 7);

						assert_int_equal(
							yi[4 * v + k],
							in ? (a > w ? a : w) : 0);
					}

				memcpy(y, y0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "pick", ""), a_pick, off,
					  gs, ls);
				for (uint64_t i = 0; i < N; i++) {
					float want = y0[i];

					if (i >= off && i < off + gs)
						switch (xi[i] & 3) {
						case 0: want = y0[i] * 3.0f; break;
						case 1: want = y0[i] + 7.0f; break;
						case 2: want = -y0[i]; break;
						default: want = 0.25f; break;
						}
					assert_true(y[i] == want);
				}

				memset(y, 0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "dot4", ""), a_dot, off,
					  gs, ls);
				for (uint64_t i = off; i < off + gs; i++) {
					float acc[4] = { 0 };

					for (int k = 0; k < n_dot; k++)
						for (int c = 0; c < 4; c++)
							acc[c] = acc[c] * 0.5f +
								 x[4 * ((i + k) %
									64) + c];
					assert_true(y[i] == acc[0] +
							    acc[1] * 2.0f +
							    acc[2] * 3.0f +
							    acc[3] * 4.0f);
				}

				memset(y, 0, N * sizeof(float));
				wg_run_1d(wg_find(&p, "shuf", ""), a_shuf, off,
					  gs / 4 + 1, ls);
				for (uint64_t v = off; v < off + gs / 4 + 1; v++)
					for (int k = 0; k < 4; k++)
						assert_true(y[4 * v + k] ==
							    x[4 * v +
							      m[4 * v + k]]);
			}
	wg_unbuild(&p);
	free(x);
	free(y);
	free(y0);
	free(xi);
	free(yi);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectorised),
		cmocka_unit_test(test_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
