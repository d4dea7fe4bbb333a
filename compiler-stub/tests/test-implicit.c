/* SPDX-License-Identifier: MIT */
/*
 * The compiler's own barriers and shortcuts must not change results:
 * implicit barriers in barrier-free loops (wg-implicit.c) where they
 * apply and where they must not (trip counts or entries that differ
 * between work-items), and the shortened work-item loops of regions
 * guarded by "lid < s" (wg-narrow.c) with and without other work on the
 * other side, and grid-stride loops (for (j = lid; j < n; j += ls), each
 * work-item its own count) rewritten to a uniform count, in kernels with
 * and without barriers; loops around short loops (a convolution's
 * channels around its taps). Each kernel runs in groups of odd and even
 * sizes, group by group, against a host reference.
 */
#include <dlfcn.h>
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

#include <libaccel/accel-wg.h>

#include "wg-test.h"

#define N 24 /* matrix side, a multiple of the 2-d group sizes */

static const char source[] =
	"kernel void mm(int n, global const float *a, global const float *b,\n"
	"		global float *c)\n"
	"{\n"
	"	int row = get_global_id(1), col = get_global_id(0);\n"
	"	float acc = 0.0f;\n"
	"	for (int k = 0; k < n; k++)\n"
	"		acc += a[row * n + k] * b[k * n + col];\n"
	"	c[row * n + col] = acc;\n"
	"}\n"
	/* a kernel calling one that would have an implicit barrier */
	"kernel void mmc(int n, global const float *a, global const float *b,\n"
	"		 global float *c)\n"
	"{\n"
	"	int row = get_global_id(1), col = get_global_id(0);\n"
	"	float acc = 0.0f;\n"
	"	for (int k = 0; k < n; k++)\n"
	"		acc += a[row * n + k] * b[k * n + col];\n"
	"	c[row * n + col] = acc;\n"
	"}\n"
	"kernel void outer(int n, global const float *a,\n"
	"		   global const float *b, global float *c)\n"
	"{\n"
	"	mmc(n, a, b, c);\n"
	"}\n"
	/* a trip count per work-item: no implicit barrier */
	"kernel void tri(int n, global const float *a, global const float *b,\n"
	"		 global float *c)\n"
	"{\n"
	"	int row = get_global_id(1), col = get_global_id(0);\n"
	"	float acc = 1.0f;\n"
	"	for (int k = 0; k < col; k++)\n"
	"		acc += a[row * n + k] * b[k * n + col];\n"
	"	c[row * n + col] = acc;\n"
	"}\n"
	/* a loop some work-items never reach */
	"kernel void guard(int n, global const float *a,\n"
	"		   global const float *b, global float *c)\n"
	"{\n"
	"	int row = get_global_id(1), col = get_global_id(0);\n"
	"	float acc = 2.0f;\n"
	"	if (col % 3 == 1) {\n"
	"		c[row * n + col] = -1.0f;\n"
	"		return;\n"
	"	}\n"
	"	for (int k = 0; k < n; k += 2)\n"
	"		acc += a[row * n + k] * b[k * n + col];\n"
	"	c[row * n + col] = acc;\n"
	"}\n"
	/* a uniform loop that leaves early in some work-items */
	"kernel void brk(int n, global const float *a, global const float *b,\n"
	"		 global float *c)\n"
	"{\n"
	"	int row = get_global_id(1), col = get_global_id(0);\n"
	"	float acc = 0.0f;\n"
	"	for (int k = 0; k < n; k++) {\n"
	"		if (k > col + row)\n"
	"			break;\n"
	"		acc += a[row * n + k] * b[k * n + col];\n"
	"	}\n"
	"	c[row * n + col] = acc;\n"
	"}\n"
	/* row by row in 2-d groups */
	"kernel void reduce(global const float *in, global float *out,\n"
	"		    local float *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(1) * get_local_size(0) +\n"
	"		   get_local_id(0);\n"
	"	size_t g = get_global_id(1) * get_global_size(0) +\n"
	"		   get_global_id(0);\n"
	"	tmp[l] = in[g];\n"
	"	for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (get_local_id(0) < s)\n"
	"			tmp[l] += tmp[l + s];\n"
	"	}\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[g] = tmp[l];\n"
	"}\n"
	/* int ids; the other side counts per work-item */
	"kernel void count(global const float *in, global float *out,\n"
	"		   local float *tmp)\n"
	"{\n"
	"	int l = get_local_id(0), seen = 0;\n"
	"	tmp[l] = in[get_global_id(0)];\n"
	"	for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (l < s)\n"
	"			tmp[l] += tmp[l + s];\n"
	"		else\n"
	"			seen++;\n"
	"	}\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[get_global_id(0)] = tmp[l] + 1000.0f * seen;\n"
	"}\n";

/*
 * Grid-stride loops, one group per row of n (wg-implicit.c rewrites them
 * to a uniform count): each work-item's partial sums, its stores, and a
 * softmax with barriers of its own; then loops left alone (a second
 * exit, a step that is not uniform).
 */
static const char stride_source[] =
	"kernel void psum(int n, int off, global const float *x,\n"
	"		  global float *out)\n"
	"{\n"
	"	int l = get_local_id(0), ls = get_local_size(0);\n"
	"	global const float *xr = x + get_group_id(0) * n;\n"
	"	float s = 0.5f;\n"
	"	for (int j = l + off; j < n; j += ls)\n"
	"		s += xr[j];\n"
	"	out[get_global_id(0)] = s;\n"
	"}\n"
	/* a store, no float carried; the bound on the left; a long step */
	"kernel void twice(int n, int off, global const float *x,\n"
	"		   global float *out)\n"
	"{\n"
	"	size_t l = get_local_id(0), ls = get_local_size(0);\n"
	"	long row = get_group_id(0) * (long)n;\n"
	"	for (long j = l + 2 - off; n > j; j += 2 * ls)\n"
	"		out[row + j] = exp(x[row + j]) + j;\n"
	"}\n"
	"kernel void softmax(int n, int off, global const float *x,\n"
	"		     global float *y, local float *red)\n"
	"{\n"
	"	int l = get_local_id(0), ls = get_local_size(0);\n"
	"	global const float *xr = x + get_group_id(0) * n;\n"
	"	global float *yr = y + get_group_id(0) * n;\n"
	"	float m = -INFINITY, s = 0.0f;\n"
	"\n"
	"	(void)off;\n"
	"	for (int j = l; j < n; j += ls)\n"
	"		m = fmax(m, xr[j]);\n"
	"	red[l] = m;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	m = -INFINITY;\n"
	"	for (int k = 0; k < ls; k++)\n"
	"		m = fmax(m, red[k]);\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (int j = l; j < n; j += ls)\n"
	"		s += exp(xr[j] - m);\n"
	"	red[l] = s;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	s = 0.0f;\n"
	"	for (int k = 0; k < ls; k++)\n"
	"		s += red[k];\n"
	"	for (int j = l; j < n; j += ls)\n"
	"		yr[j] = exp(xr[j] - m) / s;\n"
	"}\n"
	/* a second exit: not rewritten, the same results */
	"kernel void upto(int n, int off, global const float *x,\n"
	"		  global float *out)\n"
	"{\n"
	"	int l = get_local_id(0), ls = get_local_size(0);\n"
	"	global const float *xr = x + get_group_id(0) * n;\n"
	"	float s = 0.0f;\n"
	"	for (int j = l; j < n; j += ls) {\n"
	"		if (xr[j] > off)\n"
	"			break;\n"
	"		s += xr[j];\n"
	"	}\n"
	"	out[get_global_id(0)] = s;\n"
	"}\n";

/*
 * A loop around short loops of its own (a 3x3 convolution's channels
 * around its taps, which O3 unrolls), taps outside the image skipped by
 * continue: the implicit barrier goes into the channel loop. Then a tap
 * loop whose early exit differs per work-item.
 */
static const char nest_source[] =
	"kernel void conv(int C, int H, int W, global const float *in,\n"
	"		  global const float *w, global float *out)\n"
	"{\n"
	"	int x = get_global_id(0), y = get_global_id(1);\n"
	"	float acc = 0.25f;\n"
	"	for (int c = 0; c < C; c++) {\n"
	"		global const float *ip = in + c * H * W;\n"
	"		for (int dy = -1; dy <= 1; dy++) {\n"
	"			int yy = y + dy;\n"
	"			if (yy < 0 || yy >= H)\n"
	"				continue;\n"
	"			for (int dx = -1; dx <= 1; dx++) {\n"
	"				int xx = x + dx;\n"
	"				if (xx < 0 || xx >= W)\n"
	"					continue;\n"
	"				acc += ip[yy * W + xx] *\n"
	"				       w[(c * 3 + dy + 1) * 3 + dx + 1];\n"
	"			}\n"
	"		}\n"
	"	}\n"
	"	out[y * W + x] = acc;\n"
	"}\n"
	"kernel void rowsum(int C, int H, int W, global const float *in,\n"
	"		    global const float *w, global float *out)\n"
	"{\n"
	"	int x = get_global_id(0), y = get_global_id(1);\n"
	"	float acc = 0.0f;\n"
	"	for (int c = 0; c < C; c++)\n"
	"		for (int t = 0; t < 4; t++) {\n"
	"			if (x + t >= W)\n"
	"				break;\n"
	"			acc += in[(c * H + y) * W + x + t] * w[c * 4 + t];\n"
	"		}\n"
	"	out[y * W + x] = acc;\n"
	"}\n";

/* Runs kernel @p name over @p gs in groups of @p ls, group by group. */
static void run(struct wg_prog *p, const char *name, void **args,
		const uint64_t gs[2], const uint64_t ls[2], void *lmem)
{
	const struct accelc_kernel_info *k =
		accelc_result_find_kernel(p->res, name);
	struct accel_wg_ctx c = { .abi_version = ACCEL_WG_ABI_VERSION,
				  .work_dim = 2, .local_mem = lmem };
	accel_wg_fn fn;

	assert_non_null(k);
	fn = (accel_wg_fn)dlsym(p->dl, k->wg_symbol);
	assert_non_null(fn);
	for (int d = 0; d < 3; d++) {
		c.local_size[d] = c.enqueued_local_size[d] = d < 2 ? ls[d] : 1;
		c.global_size[d] = d < 2 ? gs[d] : 1;
		c.num_groups[d] = c.global_size[d] / c.local_size[d];
	}
	for (uint64_t y = 0; y < c.num_groups[1]; y++)
		for (uint64_t x = 0; x < c.num_groups[0]; x++) {
			c.group_id[0] = x;
			c.group_id[1] = y;
			fn(args, &c);
		}
}

static float host_mm(const char *name, int n, const float *a, const float *b,
		     int row, int col)
{
	float acc = 0.0f;

	if (!strcmp(name, "mm") || !strcmp(name, "outer")) {
		for (int k = 0; k < n; k++)
			acc = fmaf(a[row * n + k], b[k * n + col], acc);
	} else if (!strcmp(name, "tri")) {
		acc = 1.0f;
		for (int k = 0; k < col; k++)
			acc = fmaf(a[row * n + k], b[k * n + col], acc);
	} else if (!strcmp(name, "guard")) {
		if (col % 3 == 1)
			return -1.0f;
		acc = 2.0f;
		for (int k = 0; k < n; k += 2)
			acc = fmaf(a[row * n + k], b[k * n + col], acc);
	} else {
		for (int k = 0; k < n && k <= col + row; k++)
			acc = fmaf(a[row * n + k], b[k * n + col], acc);
	}
	return acc;
}

static void test_loops(void **state)
{
	static const char *const names[] = { "mm", "tri", "guard", "brk",
					      "outer" };
	static const uint64_t sizes[][2] = {
		{ 1, 1 }, { 3, 1 }, { 8, 3 }, { 24, 1 }, { 4, 6 }, { 12, 2 },
	};
	static float a[N * N], b[N * N], c[N * N];
	int n = N;
	void *pa = a, *pb = b, *pc = c, *args[4] = { &n, &pa, &pb, &pc };
	uint64_t gs[2] = { N, N };
	struct wg_prog p;

	(void)state;
	for (int i = 0; i < N * N; i++) {
		a[i] = (float)(i % 7) - 3.0f;
		b[i] = (float)(i % 5) * 0.5f;
	}
	for (int opt = 0; opt < 2; opt++) {
		wg_build(&p, source, opt ? NULL : "-cl-opt-disable");
		/* the product's loop runs across work-items */
		if (opt) {
			const char *ir = accelc_result_get_ir(p.res);
			const char *f = strstr(ir, "define void @mm__wg");
			const char *end = f ? strstr(f, "\n}\n") : NULL;
			/* fixed-width or scalable (SVE) vectors */
			const char *v = f ? strstr(f, "@llvm.fmuladd.v") : NULL;
			const char *nxv = f ? strstr(f, "@llvm.fmuladd.nxv") :
					      NULL;

			if (!v || (nxv && nxv < v))
				v = nxv;
			assert_true(end && v && v < end);
		}
		for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
			for (size_t k = 0; k < 5; k++) {
				memset(c, 0, sizeof(c));
				run(&p, names[k], args, gs, sizes[s], NULL);
				for (int i = 0; i < N * N; i++) {
					float e = host_mm(names[k], n, a, b,
							  i / N, i % N);

					if (fabsf(c[i] - e) > 1e-3f)
						fail_msg("%s %zux%zu [%d]: %g, "
							 "not %g", names[k],
							 (size_t)sizes[s][0],
							 (size_t)sizes[s][1],
							 i, c[i], e);
				}
			}
		wg_unbuild(&p);
	}
}

/* What reduce and count leave in each work-item's element. */
static void host_reduce(const float *in, float *out, size_t lx, size_t ly,
			bool count)
{
	size_t ls = lx * ly;
	float t[256];
	int seen[256] = { 0 };

	memcpy(t, in, ls * sizeof(*t));
	for (size_t s = lx / 2; s > 0; s /= 2)
		for (size_t l = 0; l < ls; l++) {
			if (l % lx < s)
				t[l] += t[l + s];
			else
				seen[l]++;
		}
	for (size_t l = 0; l < ls; l++)
		out[l] = t[l] + (count ? 1000.0f * (float)seen[l] : 0.0f);
}

static void test_narrow(void **state)
{
	static const uint64_t sizes[][2] = {
		{ 1, 1 }, { 2, 1 }, { 3, 1 }, { 16, 1 }, { 61, 1 },
		{ 256, 1 }, { 8, 4 }, { 5, 3 },
	};
	static float in[512], out[512], ref[256];
	static float lmem[256] __attribute__((aligned(128)));
	void *pi = in, *po = out, *pl = lmem, *args[3] = { &pi, &po, &pl };
	struct wg_prog p;

	(void)state;
	for (int i = 0; i < 512; i++)
		in[i] = (float)((i * 37) % 101) - 50.0f;
	wg_build(&p, source, NULL);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
		for (int count = 0; count < 2; count++) {
			uint64_t ls[2] = { sizes[s][0], count ? 1 : sizes[s][1] };
			uint64_t gs[2] = { 2 * ls[0], ls[1] };
			size_t items = ls[0] * ls[1];

			memset(out, 0, sizeof(out));
			run(&p, count ? "count" : "reduce", args, gs, ls, lmem);
			for (size_t g = 0; g < 2; g++) {
				/* 2 groups along x: rows interleave */
				float gin[256], *o = ref;

				for (size_t i = 0; i < items; i++)
					gin[i] = in[(i / ls[0]) * gs[0] +
						    g * ls[0] + i % ls[0]];
				host_reduce(gin, o, ls[0], ls[1], count);
				for (size_t i = 0; i < items; i++) {
					size_t at = (i / ls[0]) * gs[0] +
						    g * ls[0] + i % ls[0];

					if (out[at] != o[i])
						fail_msg("%s %zux%zu group %zu "
							 "item %zu: %g, not %g",
							 count ? "count" :
								 "reduce",
							 (size_t)ls[0],
							 (size_t)ls[1], g, i,
							 out[at], o[i]);
				}
			}
		}
	wg_unbuild(&p);
}

/* The kernels of stride_source on the host, row @p r of @p n items. */
static void host_stride(const char *name, int n, int off, const float *x,
			float *out, int ls, int r)
{
	const float *xr = x + (size_t)r * (size_t)n;
	float m = -INFINITY, s = 0.0f;

	if (!strcmp(name, "twice")) {
		for (int l = 0; l < ls; l++)
			for (long j = l + 2 - off; j < n; j += 2 * ls)
				out[(size_t)r * (size_t)n + (size_t)j] =
					expf(xr[j]) + (float)j;
		return;
	}
	if (!strcmp(name, "softmax")) {
		for (int j = 0; j < n; j++)
			m = fmaxf(m, xr[j]);
		for (int j = 0; j < n; j++)
			s += expf(xr[j] - m);
		for (int j = 0; j < n; j++)
			out[(size_t)r * (size_t)n + (size_t)j] =
				expf(xr[j] - m) / s;
		return;
	}
	for (int l = 0; l < ls; l++) {
		s = !strcmp(name, "psum") ? 0.5f : 0.0f;
		for (int j = l + (!strcmp(name, "psum") ? off : 0); j < n;
		     j += ls) {
			if (!strcmp(name, "upto") && xr[j] > (float)off)
				break;
			s += xr[j];
		}
		out[r * ls + l] = s;
	}
}

enum { ROWS = 3, MAX_N = 200 };

/* One kernel of stride_source over ROWS groups of @p ls, rows of @p n. */
static void check_stride(struct wg_prog *p, const char *name, int ls, int n,
			 int off)
{
	static float x[ROWS * MAX_N], out[ROWS * MAX_N], ref[ROWS * MAX_N];
	static float lmem[64] __attribute__((aligned(128)));
	void *px = x, *po = out, *pl = lmem;
	void *args[5] = { &n, &off, &px, &po, &pl };
	uint64_t gs[2] = { (uint64_t)(ROWS * ls), 1 };
	uint64_t lsz[2] = { (uint64_t)ls, 1 };
	bool sums = !strcmp(name, "psum") || !strcmp(name, "upto");
	size_t cmp = (size_t)ROWS * (size_t)(sums ? ls : n);
	/* softmax: its sums add in another order */
	float tol = !strcmp(name, "softmax") ? 2.5e-5f : 1e-6f;

	for (size_t i = 0; i < ROWS * MAX_N; i++) {
		x[i] = (float)((i * 37) % 101) / 16.0f - 3.0f;
		out[i] = ref[i] = -7.0f;
	}
	run(p, name, args, gs, lsz, lmem);
	for (int r = 0; r < ROWS; r++)
		host_stride(name, n, off, x, ref, ls, r);
	for (size_t i = 0; i < cmp; i++)
		if (fabsf(out[i] - ref[i]) > tol * fabsf(ref[i]))
			fail_msg("%s ls %d n %d off %d [%zu]: %g, not %g", name,
				 ls, n, off, i, out[i], ref[i]);
}

static void test_grid_stride(void **state)
{
	static const char *const names[] = { "psum", "twice", "softmax",
					      "upto" };
	static const int ls_list[] = { 1, 3, 16, 61 };
	static const int n_list[] = { 0, 1, 5, 15, 16, 17, 50, MAX_N };
	struct wg_prog p;

	(void)state;
	for (int opt = 0; opt < 2; opt++) {
		wg_build(&p, stride_source, opt ? NULL : "-cl-opt-disable");
		/* rewritten and interchanged: partial sums add across items */
		if (opt)
			assert_true(wg_ir_has(&p, "psum__wg", "fadd <"));
		for (size_t k = 0; k < 4; k++)
			for (size_t a = 0; a < 4; a++)
				for (size_t b = 0; b < 8; b++)
					check_stride(&p, names[k], ls_list[a],
						     n_list[b],
						     k == 3 ? 1 : (int)(b % 3));
		wg_unbuild(&p);
	}
}

static float host_nest(bool conv, int C, int H, int W, const float *in,
			const float *w, int y, int x)
{
	float acc = conv ? 0.25f : 0.0f;

	for (int c = 0; c < C; c++) {
		if (!conv) {
			for (int t = 0; t < 4 && x + t < W; t++)
				acc += in[(c * H + y) * W + x + t] * w[c * 4 + t];
			continue;
		}
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++)
				if (y + dy >= 0 && y + dy < H && x + dx >= 0 &&
				    x + dx < W)
					acc += in[(c * H + y + dy) * W + x +
						  dx] *
					       w[(c * 3 + dy + 1) * 3 + dx + 1];
	}
	return acc;
}

/* Does @p fn's IR hold @p needle (NULL if it has no definition)? */
static const char *in_function(const char *ir, const char *fn,
			       const char *needle)
{
	const char *f = strstr(ir, fn), *end, *at;

	end = f ? strstr(f, "\n}\n") : NULL;
	at = f ? strstr(f, needle) : NULL;
	return at && at < end ? at : NULL;
}

static void test_nest(void **state)
{
	static const char *const names[] = { "conv", "rowsum" };
	static const uint64_t sizes[][2] = {
		{ 1, 1 }, { 3, 1 }, { 8, 3 }, { 24, 1 }, { 4, 6 }, { 12, 2 },
		{ 8, 8 },
	};
	enum { C = 5 };
	static float in[C * N * N], w[C * 9], out[N * N];
	int c = C, h = N, wd = N;
	void *pi = in, *pw = w, *po = out;
	void *args[6] = { &c, &h, &wd, &pi, &pw, &po };
	uint64_t gs[2] = { N, N };
	struct wg_prog p;

	(void)state;
	for (int i = 0; i < C * N * N; i++)
		in[i] = (float)((i * 37) % 101) / 16.0f - 3.0f;
	for (int i = 0; i < C * 9; i++)
		w[i] = (float)(i % 7) * 0.25f - 0.5f;
	for (int opt = 0; opt < 2; opt++) {
		wg_build(&p, nest_source, opt ? NULL : "-cl-opt-disable");
		if (opt) {
			const char *ir = accelc_result_get_ir(p.res);

			/* the barrier went in: regions, context arrays */
			assert_non_null(in_function(ir, "define void @conv__wg",
						    "!accelc.ctx"));
			/* vectorised across work-items with fixed-width
			 * vectors: the weights are loads of one address, not
			 * gathers */
			if (in_function(ir, "define void @conv__wg",
					"@llvm.fmuladd.v"))
				assert_null(in_function(
					ir, "define void @conv__wg",
					"@llvm.masked.gather.v"));
		}
		for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
			for (size_t k = 0; k < 2; k++) {
				memset(out, 0, sizeof(out));
				run(&p, names[k], args, gs, sizes[s], NULL);
				for (int i = 0; i < N * N; i++) {
					float e = host_nest(k == 0, C, N, N, in,
							    w, i / N, i % N);

					if (fabsf(out[i] - e) > 1e-4f *
						(1.0f + fabsf(e)))
						fail_msg("%s %zux%zu [%d]: %g, "
							 "not %g", names[k],
							 (size_t)sizes[s][0],
							 (size_t)sizes[s][1],
							 i, out[i], e);
				}
			}
		wg_unbuild(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_grid_stride),
		cmocka_unit_test(test_nest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
