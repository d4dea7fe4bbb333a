/* SPDX-License-Identifier: MIT */
/*
 * What ML kernels get from the device's ML features, on libaccel's CPU
 * device through the ICD loader: each row times one kernel in its float
 * form and its feature form on the same data, and prints the ratio
 * (feature / float: below 1, the feature form is faster).
 *
 * Rows: vector add of 16 Mi elements, half against float (half moves
 * half the bytes); a 512^3 tiled matrix product with half inputs and a
 * float accumulator, against float inputs; the sums of groups of 256 of
 * 16 Mi floats by sub_group_reduce_add(), against a __local tree
 * reduction (where the device has sub-groups). Results are checked
 * against a host reference; the exit status is 1 if one is wrong.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"

static const char source[] =
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#define TS 16\n"
	"#define VADD(T) \\\n"
	"kernel void vadd_##T(global const T *a, global const T *b, \\\n"
	"		     global T *c) \\\n"
	"{ \\\n"
	"	size_t i = get_global_id(0); \\\n"
	"	c[i] = a[i] + b[i]; \\\n"
	"}\n"
	"VADD(float) VADD(half)\n"
	/* tiles in local memory; the accumulator is float for both */
	"#define GEMM(T) \\\n"
	"kernel void gemm_##T(int n, global const T *A, global const T *B, \\\n"
	"		     global T *C) \\\n"
	"{ \\\n"
	"	local T As[TS][TS], Bs[TS][TS]; \\\n"
	"	int r = get_local_id(1), c = get_local_id(0); \\\n"
	"	int row = get_group_id(1) * TS + r; \\\n"
	"	int col = get_group_id(0) * TS + c; \\\n"
	"	float acc = 0.0f; \\\n"
	"	for (int t = 0; t < n / TS; t++) { \\\n"
	"		As[r][c] = A[row * n + t * TS + c]; \\\n"
	"		Bs[r][c] = B[(t * TS + r) * n + col]; \\\n"
	"		barrier(CLK_LOCAL_MEM_FENCE); \\\n"
	"		for (int k = 0; k < TS; k++) \\\n"
	"			acc += (float)As[r][k] * (float)Bs[k][c]; \\\n"
	"		barrier(CLK_LOCAL_MEM_FENCE); \\\n"
	"	} \\\n"
	"	C[row * n + col] = (T)acc; \\\n"
	"}\n"
	"GEMM(float) GEMM(half)\n";

/* OpenCL C 3.0: sub-groups. Both forms leave one sum per group of WG. */
static const char reduce_source[] =
	"#define WG 256\n"
	"kernel void reduce_tree(global const float *x, global float *out, \n"
	"			global float *unused)\n"
	"{\n"
	"	local float s[WG];\n"
	"	uint l = get_local_id(0);\n"
	"	s[l] = x[get_global_id(0)];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (uint k = WG / 2; k > 0; k >>= 1) {\n"
	"		if (l < k)\n"
	"			s[l] += s[l + k];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	if (l == 0)\n"
	"		out[get_group_id(0)] = s[0];\n"
	"}\n"
	/* each sub-group's sum, then the first work-item adds those */
	"kernel void reduce_sg(global const float *x, global float *out, \n"
	"		      global float *unused)\n"
	"{\n"
	"	local float part[WG];\n"
	"	float v = sub_group_reduce_add(x[get_global_id(0)]);\n"
	"	if (get_sub_group_local_id() == 0)\n"
	"		part[get_sub_group_id()] = v;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (get_local_id(0) < 1) {\n"
	"		float t = 0;\n"
	"		for (uint k = 0; k < get_num_sub_groups(); k++)\n"
	"			t += part[k];\n"
	"		out[get_group_id(0)] = t;\n"
	"	}\n"
	"}\n";

#define TS 16
#define WG 256

#define CHECK(call)                                                            \
	do {                                                                   \
		cl_int e_ = (call);                                            \
		if (e_ != CL_SUCCESS) {                                        \
			fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, \
				#call, e_);                                    \
			exit(1);                                               \
		}                                                              \
	} while (0)

struct cl {
	cl_context c;
	cl_command_queue q;
	cl_program p;
};

static void *xalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

static cl_mem buffer(struct cl *cl, size_t bytes, const void *init)
{
	cl_int e;
	cl_mem m = clCreateBuffer(cl->c, CL_MEM_READ_WRITE |
				  (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
				  (void *)init, &e);

	CHECK(e);
	return m;
}

/* One warm-up run, then the best of @runs: milliseconds. */
static double timed(struct cl *cl, const char *name, const cl_mem *m,
		    const cl_int *n, cl_uint dim, const size_t *g,
		    const size_t *l, unsigned runs)
{
	cl_int e;
	cl_kernel k = clCreateKernel(cl->p, name, &e);
	double best = INFINITY;
	cl_uint a = 0;

	CHECK(e);
	if (n)
		CHECK(clSetKernelArg(k, a++, sizeof(*n), n));
	for (int i = 0; i < 3; i++)
		CHECK(clSetKernelArg(k, a++, sizeof(cl_mem), &m[i]));
	for (unsigned r = 0; r <= runs; r++) {
		uint64_t t0 = bench_now_ns();
		double ms;

		CHECK(clEnqueueNDRangeKernel(cl->q, k, dim, NULL, g, l, 0, NULL,
					     NULL));
		CHECK(clFinish(cl->q));
		ms = (double)(bench_now_ns() - t0) / 1e6;
		if (r && ms < best)
			best = ms;
	}
	CHECK(clReleaseKernel(k));
	return best;
}

/* Reads @bytes of @m; float elements, or half ones (@half) widened. */
static float *result(struct cl *cl, cl_mem m, size_t n, bool half)
{
	float *out = xalloc(n * sizeof(float));

	CHECK(clEnqueueReadBuffer(cl->q, m, CL_TRUE, 0,
				  n * (half ? sizeof(_Float16) : sizeof(float)),
				  out, 0, NULL, NULL));
	if (half) /* backwards: each half read before its float is written */
		for (size_t i = n; i-- > 0;)
			out[i] = (float)((const _Float16 *)out)[i];
	return out;
}

static bool close_to(const float *got, const float *want, size_t n,
		     double tol)
{
	for (size_t i = 0; i < n; i++)
		if (!(fabs((double)got[i] - want[i]) / (fabs(want[i]) + 1.0) <
		      tol))
			return false;
	return true;
}

static void row(const char *what, double f, double h, bool ok)
{
	printf("%-26s %10.2f %10.2f %8.2f   %s\n", what, f, h, h / f,
	       ok ? "ok" : "WRONG");
}

/* vector add: exact in both types for these values */
static bool bench_vadd(struct cl *cl, size_t n, unsigned runs, double *ms)
{
	float *a = xalloc(n * sizeof(float)), *b = xalloc(n * sizeof(float));
	float *want = xalloc(n * sizeof(float));
	_Float16 *ah = xalloc(n * 2), *bh = xalloc(n * 2);
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		a[i] = (float)(i % 1000) * 0.25f;
		b[i] = (float)(i % 777) * -0.5f;
		want[i] = a[i] + b[i];
		ah[i] = (_Float16)a[i];
		bh[i] = (_Float16)b[i];
	}
	for (int h = 0; h < 2; h++) {
		size_t es = h ? 2 : 4, l = 256;
		cl_mem m[3] = { buffer(cl, n * es, h ? (void *)ah : (void *)a),
				buffer(cl, n * es, h ? (void *)bh : (void *)b),
				buffer(cl, n * es, NULL) };
		float *got;

		ms[h] = timed(cl, h ? "vadd_half" : "vadd_float", m, NULL, 1,
			      &n, &l, runs);
		got = result(cl, m[2], n, h);
		ok &= close_to(got, want, n, 1e-6);
		free(got);
		for (int i = 0; i < 3; i++)
			CHECK(clReleaseMemObject(m[i]));
	}
	free(a), free(b), free(want), free(ah), free(bh);
	return ok;
}

/* tiled matrix product: inputs exact in half, a float accumulator */
static bool bench_gemm(struct cl *cl, size_t n, unsigned runs, double *ms)
{
	size_t nn = n * n, g[2] = { n, n }, l[2] = { TS, TS };
	float *a = xalloc(nn * sizeof(float)), *b = xalloc(nn * sizeof(float));
	float *want = xalloc(nn * sizeof(float));
	_Float16 *ah = xalloc(nn * 2), *bh = xalloc(nn * 2);
	cl_int ni = (cl_int)n;
	bool ok = true;

	for (size_t i = 0; i < nn; i++) {
		a[i] = (float)((i * 7) % 17) / 16.0f - 0.5f;
		b[i] = (float)((i * 5) % 13) / 12.0f - 0.5f;
		ah[i] = (_Float16)a[i];
		bh[i] = (_Float16)b[i];
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double acc = 0;

			for (size_t k = 0; k < n; k++)
				acc += (double)a[i * n + k] * b[k * n + j];
			want[i * n + j] = (float)acc;
		}
	for (int h = 0; h < 2; h++) {
		size_t es = h ? 2 : 4;
		cl_mem m[3] = { buffer(cl, nn * es, h ? (void *)ah : (void *)a),
				buffer(cl, nn * es, h ? (void *)bh : (void *)b),
				buffer(cl, nn * es, NULL) };
		float *got;

		ms[h] = timed(cl, h ? "gemm_half" : "gemm_float", m, &ni, 2, g,
			      l, runs);
		got = result(cl, m[2], nn, h);
		/* b's twelfths round in half; the output rounds too */
		ok &= close_to(got, want, nn, h ? 2e-2 : 1e-4);
		free(got);
		for (int i = 0; i < 3; i++)
			CHECK(clReleaseMemObject(m[i]));
	}
	free(a), free(b), free(want), free(ah), free(bh);
	return ok;
}

/* sums of groups of WG: exact for these small integers */
static bool bench_reduce(struct cl *cl, cl_program p, size_t n,
			 unsigned runs, double *ms)
{
	float *x = xalloc(n * sizeof(float)), *want = xalloc(n / WG * 4);
	size_t l = WG;
	cl_program keep = cl->p;
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		x[i] = (float)((int)(i % 7) - 3);
	for (size_t g = 0; g < n / WG; g++) {
		want[g] = 0;
		for (size_t i = 0; i < WG; i++)
			want[g] += x[g * WG + i];
	}
	cl->p = p;
	for (int s = 0; s < 2; s++) {
		cl_mem m[3] = { buffer(cl, n * 4, x), buffer(cl, n / WG * 4,
							       NULL),
				buffer(cl, 4, NULL) };
		float *got;

		ms[s] = timed(cl, s ? "reduce_sg" : "reduce_tree", m, NULL, 1,
			      &n, &l, runs);
		got = result(cl, m[1], n / WG, false);
		ok &= close_to(got, want, n / WG, 1e-9);
		free(got);
		for (int i = 0; i < 3; i++)
			CHECK(clReleaseMemObject(m[i]));
	}
	cl->p = keep;
	free(x), free(want);
	return ok;
}

static bool find_libaccel(cl_device_id *d)
{
	cl_platform_id ids[16];
	cl_uint n = 0;

	if (clGetPlatformIDs(16, ids, &n) != CL_SUCCESS)
		n = 0;
	for (cl_uint i = 0; i < n && i < 16; i++) {
		char name[256] = "";

		clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name,
				  NULL);
		if (strstr(name, "libaccel") &&
		    clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_CPU, 1, d, NULL) ==
			    CL_SUCCESS)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	unsigned runs = 5, mvec = 16, nmat = 512;
	double vadd[2], gemm[2], reduce[2];
	cl_program rp = NULL;
	cl_uint nsg = 0;
	bool ok_r = true;
	struct cl cl;
	const char *src = source;
	cl_device_id d;
	char ext[4096] = "";
	bool ok_v, ok_g;
	cl_int e;
	int opt;

	while ((opt = getopt(argc, argv, "r:m:v:")) != -1) {
		if (opt == 'r')
			runs = bench_parse_count(argv[0], optarg, "runs", 1000);
		else if (opt == 'm')
			nmat = bench_parse_count(argv[0], optarg, "size", 4096);
		else if (opt == 'v')
			mvec = bench_parse_count(argv[0], optarg, "size", 256);
		else {
			fprintf(stderr, "usage: %s [-r RUNS] [-m MATRIX_N] "
				"[-v VECTOR_M]\n", argv[0]);
			return 2;
		}
	}
	if (nmat % TS) {
		fprintf(stderr, "-m: a multiple of %d\n", TS);
		return 2;
	}
#ifdef BENCH_VENDORS_DIR
	setenv("OCL_ICD_VENDORS", BENCH_VENDORS_DIR, 0);
#endif
	bench_print_machine("start");
	if (!find_libaccel(&d)) {
		fprintf(stderr, "no libaccel CPU device (OCL_ICD_VENDORS)\n");
		return 77;
	}
	CHECK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext,
			      NULL));
	if (!strstr(ext, "cl_khr_fp16")) {
		fprintf(stderr, "the device has no cl_khr_fp16\n");
		return 77;
	}
	cl.c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	CHECK(e);
	cl.q = clCreateCommandQueue(cl.c, d, 0, &e);
	CHECK(e);
	cl.p = clCreateProgramWithSource(cl.c, 1, &src, NULL, &e);
	CHECK(e);
	CHECK(clBuildProgram(cl.p, 1, &d, "-cl-std=CL1.2", NULL, NULL));

	ok_v = bench_vadd(&cl, (size_t)mvec << 20, runs, vadd);
	ok_g = bench_gemm(&cl, nmat, runs, gemm);
	if (clGetDeviceInfo(d, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(nsg), &nsg,
			    NULL) == CL_SUCCESS && nsg) {
		src = reduce_source;
		rp = clCreateProgramWithSource(cl.c, 1, &src, NULL, &e);
		CHECK(e);
		CHECK(clBuildProgram(rp, 1, &d, "-cl-std=CL3.0", NULL, NULL));
		ok_r = bench_reduce(&cl, rp, (size_t)mvec << 20, runs, reduce);
		CHECK(clReleaseProgram(rp));
	}

	printf("\n%-26s %10s %10s %8s   %s\n", "milliseconds (best)", "float",
	       "feature", "ratio", "check");
	row("vadd, half", vadd[0], vadd[1], ok_v);
	row("gemm tiled, half inputs", gemm[0], gemm[1], ok_g);
	if (rp)
		row("sum, sub-groups vs tree", reduce[0], reduce[1], ok_r);
	printf("\nsizes: vector add %u Mi elements, matrix %u^2 (tiles "
	       "%dx%d); best of %u\n", mvec, nmat, TS, TS, runs);
	bench_print_machine("end");
	/* "result NAME FLOAT FEATURE" in ms, as compiler-kernels prints */
	printf("result vadd-half %.4f %.4f\n", vadd[0], vadd[1]);
	printf("result gemm-half %.4f %.4f\n", gemm[0], gemm[1]);
	if (rp)
		printf("result reduce-sub-group %.4f %.4f\n", reduce[0],
		       reduce[1]);
	CHECK(clReleaseProgram(cl.p));
	CHECK(clReleaseCommandQueue(cl.q));
	CHECK(clReleaseContext(cl.c));
	return ok_v && ok_g && ok_r ? 0 : 1;
}
