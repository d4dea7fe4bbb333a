/* SPDX-License-Identifier: MIT */
/*
 * Streaming variants (wg-streaming.c): which kernels get K__wg_nt, that
 * only proven-aligned vector stores to global memory become non-temporal,
 * and that the variant computes what K__wg does under the contract of
 * accel-wg.h: 64-byte aligned buffers, x group base a multiple of 16,
 * partial trailing groups, global offsets.
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

static const char source[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	/* int ids, a scalar argument, vector types */
	"kernel void axpy4(float s, global const float4 *x, global float4 *y)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	y[i] = s * x[i] + y[i];\n"
	"}\n"
	/* two outputs, one of them integer */
	"kernel void split(global const float *a, global float *lo,\n"
	"		   global int *hi)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	lo[i] = a[i] * 0.5f;\n"
	"	hi[i] = (int)a[i] + 7;\n"
	"}\n"
	/* scattered stores: never aligned vectors, so no variant */
	"kernel void stride3(global const float *a, global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[3 * i + 1] = a[i];\n"
	"}\n"
	/* ordering matters: no variant */
	"kernel void atom(global const float *a, global float *c,\n"
	"		  global int *n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i];\n"
	"	atomic_inc(n);\n"
	"}\n"
	"kernel void fenced(global const float *a, global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i];\n"
	"	mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
	"}\n"
	/* a loop in the kernel: compute-bound, no variant */
	"kernel void poly(int n, global const float *a, global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float acc = 0.0f;\n"
	"	for (int k = 0; k < n; k++)\n"
	"		acc = acc * a[i] + 1.0f;\n"
	"	c[i] = acc;\n"
	"}\n"
	/* barriers: no variant */
	"kernel void rev(global const float *a, global float *c,\n"
	"		 local float *t)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	t[l] = a[get_global_id(0)];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	c[get_global_id(0)] = t[n - 1 - l];\n"
	"}\n";

/* The streaming variant of @kernel, NULL if none; K__wg itself. */
static accel_wg_fn nt(struct wg_prog *p, const char *kernel)
{
	return wg_find(p, kernel, ACCEL_WG_STREAMING_SUFFIX);
}

static accel_wg_fn plain(struct wg_prog *p, const char *kernel)
{
	return wg_find(p, kernel, "");
}

/*
 * Code with scalable vectors (SVE) gets no streaming variants: LLVM 16
 * stores them with st1, never the non-temporal stnt1, so nothing would
 * stream.
 */
static bool scalable_code(void)
{
	char *cpu, *features;
	bool sve;

	assert_int_equal(accelc_target_resolve(NULL, &cpu, &features, NULL),
			 0);
	sve = strstr(features, "+sve") != NULL;
	free(cpu);
	free(features);
	return sve;
}

static void test_which_kernels(void **state)
{
	static const char *const with[] = { "vadd", "axpy4", "split" };
	static const char *const without[] = { "stride3", "atom", "fenced",
					       "poly", "rev" };
	struct wg_prog p;

	(void)state;
	if (scalable_code())
		skip();
	wg_build(&p, source, NULL);
	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		char name[64];

		if (!nt(&p, with[i]))
			fail_msg("%s has no streaming variant", with[i]);
		snprintf(name, sizeof(name), "%s__wg_nt", with[i]);
		assert_true(wg_ir_has(&p, name, "!nontemporal"));
		/* the plain function keeps ordinary stores */
		snprintf(name, sizeof(name), "%s__wg", with[i]);
		assert_false(wg_ir_has(&p, name, "!nontemporal"));
	}
	for (size_t i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		assert_non_null(wg_find(&p, without[i], ""));
		if (nt(&p, without[i]))
			fail_msg("%s has a streaming variant", without[i]);
	}
	wg_unbuild(&p);

	/* -cl-opt-disable: no vectors, no variants */
	wg_build(&p, source, "-cl-opt-disable");
	assert_non_null(wg_find(&p, "vadd", ""));
	assert_null(nt(&p, "vadd"));
	wg_unbuild(&p);
}

#define N 4096u

static void *alloc64(size_t bytes)
{
	void *p = aligned_alloc(ACCEL_WG_STREAMING_ADDR_ALIGN, bytes);

	assert_non_null(p);
	return p;
}

static void test_results(void **state)
{
	/* group sizes allowed by the contract; global sizes with a
	 * partial last group; offsets */
	static const uint64_t locals[] = { 16, 48, 256 };
	static const uint64_t globals[] = { 16, 1000, 4000 };
	static const uint64_t offsets[] = { 0, 32 }; /* 4000 + 32 < N */
	float *a, *b, *c, *r, s = 1.5f;
	int *h, *hr;
	struct wg_prog p;

	(void)state;
	if (scalable_code())
		skip();
	a = alloc64(N * sizeof(float));
	b = alloc64(N * sizeof(float));
	c = alloc64(N * sizeof(float));
	r = alloc64(N * sizeof(float));
	h = alloc64(N * sizeof(int));
	hr = alloc64(N * sizeof(int));
	for (unsigned i = 0; i < N; i++) {
		a[i] = (float)(i % 97) - 40.0f;
		b[i] = (float)(i % 13) * 0.25f;
	}
	wg_build(&p, source, NULL);
	for (size_t li = 0; li < 3; li++)
		for (size_t gi = 0; gi < 3; gi++)
			for (size_t oi = 0; oi < 2; oi++) {
				uint64_t ls = locals[li], gs = globals[gi];
				uint64_t off = offsets[oi];
				void *pa = a, *pb = b, *pc = c, *pr = r;
				void *ph = h, *phr = hr;
				void *vargs[3] = { &pa, &pb, &pc };
				void *vref[3] = { &pa, &pb, &pr };
				void *xargs[3] = { &s, &pa, &pc };
				void *xref[3] = { &s, &pa, &pr };
				void *sargs[3] = { &pa, &pc, &ph };
				void *sref[3] = { &pa, &pr, &phr };

				/* float4s: a quarter as many fit */
				uint64_t gs4 = off + gs > N / 4 ? N / 4 - off :
								  gs;

				memset(c, 0, N * sizeof(float));
				memset(r, 0, N * sizeof(float));
				wg_run_1d(nt(&p, "vadd"), vargs, off, gs, ls);
				wg_run_1d(plain(&p, "vadd"), vref, off, gs, ls);
				assert_memory_equal(c, r, N * sizeof(float));
				for (uint64_t i = off; i < off + gs; i++)
					assert_true(c[i] == a[i] + b[i]);

				memcpy(c, b, N * sizeof(float));
				memcpy(r, b, N * sizeof(float));
				wg_run_1d(nt(&p, "axpy4"), xargs, off, gs4, ls);
				wg_run_1d(plain(&p, "axpy4"), xref, off, gs4,
					  ls);
				assert_memory_equal(c, r, N * sizeof(float));

				memset(h, 0, N * sizeof(int));
				memset(hr, 0, N * sizeof(int));
				wg_run_1d(nt(&p, "split"), sargs, off, gs, ls);
				wg_run_1d(plain(&p, "split"), sref, off, gs,
					  ls);
				assert_memory_equal(c, r, N * sizeof(float));
				assert_memory_equal(h, hr, N * sizeof(int));
			}
	wg_unbuild(&p);
	free(a);
	free(b);
	free(c);
	free(r);
	free(h);
	free(hr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_kernels),
		cmocka_unit_test(test_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
