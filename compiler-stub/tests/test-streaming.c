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

#include "accelc.h"

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

struct prog {
	struct accelc_result *res;
	void *dl;
};

static void build(struct prog *p, const char *opts)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_KEEP_IR |
					     ACCELC_FLAG_NO_CACHE,
				    .build_options = opts };

	p->res = NULL;
	if (accelc_compile(&o, source, strlen(source), &p->res) < 0) {
		fprintf(stderr, "%s\n",
			p->res ? accelc_result_get_log(p->res) : "");
		fail();
	}
	p->dl = dlopen(accelc_result_get_path(p->res), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(p->dl);
}

static void unbuild(struct prog *p)
{
	dlclose(p->dl);
	accelc_result_free(p->res);
}

static accel_wg_fn find(struct prog *p, const char *kernel, bool streaming)
{
	const struct accelc_kernel_info *k =
		accelc_result_find_kernel(p->res, kernel);
	char name[128];
	accel_wg_fn fn;

	assert_non_null(k);
	snprintf(name, sizeof(name), "%s%s", k->wg_symbol,
		 streaming ? ACCEL_WG_STREAMING_SUFFIX : "");
	*(void **)&fn = dlsym(p->dl, name);
	return fn;
}

/* The IR of @fn's definition, up to its end, in the result's IR. */
static bool ir_has(struct prog *p, const char *fn, const char *needle)
{
	const char *ir = accelc_result_get_ir(p->res);
	char def[160];
	const char *f, *end;

	snprintf(def, sizeof(def), "define void @%s(", fn);
	f = ir ? strstr(ir, def) : NULL;
	end = f ? strstr(f, "\n}\n") : NULL;
	if (!end)
		return false;
	f = strstr(f, needle);
	return f && f < end;
}

static void test_which_kernels(void **state)
{
	static const char *const with[] = { "vadd", "axpy4", "split" };
	static const char *const without[] = { "stride3", "atom", "fenced",
					       "poly", "rev" };
	struct prog p;

	(void)state;
	build(&p, NULL);
	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		char name[64];

		if (!find(&p, with[i], true))
			fail_msg("%s has no streaming variant", with[i]);
		snprintf(name, sizeof(name), "%s__wg_nt", with[i]);
		assert_true(ir_has(&p, name, "!nontemporal"));
		/* the plain function keeps ordinary stores */
		snprintf(name, sizeof(name), "%s__wg", with[i]);
		assert_false(ir_has(&p, name, "!nontemporal"));
	}
	for (size_t i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		assert_non_null(find(&p, without[i], false));
		if (find(&p, without[i], true))
			fail_msg("%s has a streaming variant", without[i]);
	}
	unbuild(&p);

	/* -cl-opt-disable: no vectors, no variants */
	build(&p, "-cl-opt-disable");
	assert_non_null(find(&p, "vadd", false));
	assert_null(find(&p, "vadd", true));
	unbuild(&p);
}

/* Run @fn over [off, off + gs) in groups of @ls (the last one partial). */
static void run(accel_wg_fn fn, void **args, uint64_t off, uint64_t gs,
		uint64_t ls)
{
	struct accel_wg_ctx c = { .abi_version = ACCEL_WG_ABI_VERSION,
				  .work_dim = 1 };

	for (int d = 0; d < 3; d++) {
		c.local_size[d] = c.enqueued_local_size[d] = d ? 1 : ls;
		c.global_size[d] = d ? 1 : gs;
		c.num_groups[d] = d ? 1 : (gs + ls - 1) / ls;
	}
	c.global_offset[0] = off;
	for (uint64_t g = 0; g < c.num_groups[0]; g++) {
		c.group_id[0] = g;
		c.local_size[0] = gs - g * ls < ls ? gs - g * ls : ls;
		fn(args, &c);
	}
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
	float *a = alloc64(N * sizeof(float)), *b = alloc64(N * sizeof(float));
	float *c = alloc64(N * sizeof(float)), *r = alloc64(N * sizeof(float));
	int *h = alloc64(N * sizeof(int)), *hr = alloc64(N * sizeof(int));
	float s = 1.5f;
	struct prog p;

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		a[i] = (float)(i % 97) - 40.0f;
		b[i] = (float)(i % 13) * 0.25f;
	}
	build(&p, NULL);
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
				run(find(&p, "vadd", true), vargs, off, gs,
				    ls);
				run(find(&p, "vadd", false), vref, off, gs,
				    ls);
				assert_memory_equal(c, r, N * sizeof(float));
				for (uint64_t i = off; i < off + gs; i++)
					assert_true(c[i] == a[i] + b[i]);

				memcpy(c, b, N * sizeof(float));
				memcpy(r, b, N * sizeof(float));
				run(find(&p, "axpy4", true), xargs, off, gs4,
				    ls);
				run(find(&p, "axpy4", false), xref, off, gs4,
				    ls);
				assert_memory_equal(c, r, N * sizeof(float));

				memset(h, 0, N * sizeof(int));
				memset(hr, 0, N * sizeof(int));
				run(find(&p, "split", true), sargs, off, gs,
				    ls);
				run(find(&p, "split", false), sref, off, gs,
				    ls);
				assert_memory_equal(c, r, N * sizeof(float));
				assert_memory_equal(h, hr, N * sizeof(int));
			}
	unbuild(&p);
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
