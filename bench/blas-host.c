/* SPDX-License-Identifier: MIT */
/*
 * BLAS the way OpenCL ML code links it: CLBlast (Debian's libclblast) on
 * one platform, in a fresh process; run it with OCL_ICD_VENDORS naming a
 * directory that holds only that platform's .icd (bench/perf-compare.sh
 * does, alternating libaccel and PoCL). Every result is checked against
 * OpenBLAS on the host, with the bound of a recursive sum (each element
 * within 2 k eps of the sum of |a||b| products); OpenBLAS and the CPU's
 * FMA peak are timed in the same run, for scale.
 *
 * "result NAME VALUE UNIT" lines:
 *   blas-first-sgemm   ms       the first CLBlast call: it builds its kernels
 *   sgemm-N, dgemm-N   GFLOP/s  C = A B, N x N, row-major, best of the runs
 *   sgemv-4096         GB/s     y = A x, the 64 MiB matrix read once
 *   saxpy-16m          GB/s     y = a x + y, 3 x 64 MiB moved
 *   openblas-sgemm-N   GFLOP/s  the same product by OpenBLAS on the host
 *   fma-peak           GFLOP/s  the measured single-precision FMA peak
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <cblas.h>
#include <clblast_c.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-cl.h"
#include "bench-util.h"
#include "fma-peak.h"

#define BLAS(e)                                                              \
	do {                                                                 \
		CLBlastStatusCode s_ = (e);                                  \
		if (s_ != CLBlastSuccess) {                                  \
			fprintf(stderr, "%s:%d: CLBlast status %d\n",         \
				__FILE__, __LINE__, (int)s_);                \
			exit(1);                                             \
		}                                                            \
	} while (0)

struct ocl {
	cl_context c;
	cl_command_queue q;
	unsigned runs;
	bool first_done;
};

static cl_mem upload(struct ocl *o, const void *data, size_t bytes)
{
	cl_int e;
	cl_mem m = clCreateBuffer(o->c, CL_MEM_READ_WRITE |
				  CL_MEM_COPY_HOST_PTR, bytes, (void *)data,
				  &e);

	CHECK(e);
	return m;
}

static void download(struct ocl *o, cl_mem m, void *data, size_t bytes)
{
	CHECK(clEnqueueReadBuffer(o->q, m, CL_TRUE, 0, bytes, data, 0, NULL,
				  NULL));
}

/* how many of @n results are off by more than @bound[i] from @ref */
static size_t count_bad(const char *what, const double *got,
			const double *ref, const double *bound, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		if (!(fabs(got[i] - ref[i]) <= bound[i])) {
			if (bad++ < 3)
				fprintf(stderr, "%s[%zu]: %.9g, want %.9g "
					"(+- %.3g)\n", what, i, got[i],
					ref[i], bound[i]);
		}
	return bad;
}

/*
 * One GEMM of order @n in float (@dbl false) or double: timed through
 * CLBlast, then checked against OpenBLAS.
 */
static void bench_gemm(struct ocl *o, size_t n, bool dbl)
{
	size_t es = dbl ? sizeof(double) : sizeof(float), nn = n * n;
	void *a = bench_xmalloc(nn * es), *b = bench_xmalloc(nn * es), *c = bench_xmalloc(nn * es);
	double *got = bench_xmalloc(nn * sizeof(double));
	double *ref = bench_xmalloc(nn * sizeof(double));
	double *bound = bench_xmalloc(nn * sizeof(double));
	double *aa = bench_xmalloc(nn * sizeof(double));
	double *ab = bench_xmalloc(nn * sizeof(double));
	double *da = bench_xmalloc(nn * sizeof(double));
	double *db = bench_xmalloc(nn * sizeof(double));
	double eps = dbl ? DBL_EPSILON : FLT_EPSILON, best = 1e30;
	uint64_t seed = 42;
	cl_mem ma, mb, mc;
	char name[32];

	for (size_t i = 0; i < nn; i++) {
		da[i] = bench_next_val(&seed);
		db[i] = bench_next_val(&seed);
		if (dbl) {
			((double *)a)[i] = da[i];
			((double *)b)[i] = db[i];
		} else {
			/* the float values, exactly, for the reference */
			((float *)a)[i] = (float)da[i];
			((float *)b)[i] = (float)db[i];
			da[i] = ((float *)a)[i];
			db[i] = ((float *)b)[i];
		}
	}
	memset(c, 0, nn * es);
	ma = upload(o, a, nn * es);
	mb = upload(o, b, nn * es);
	mc = upload(o, c, nn * es);
	for (unsigned r = 0; r <= o->runs; r++) {
		uint64_t t0 = bench_now_ns();
		double t;

		if (dbl)
			BLAS(CLBlastDgemm(CLBlastLayoutRowMajor,
					  CLBlastTransposeNo, CLBlastTransposeNo,
					  n, n, n, 1.0, ma, 0, n, mb, 0, n, 0.0,
					  mc, 0, n, &o->q, NULL));
		else
			BLAS(CLBlastSgemm(CLBlastLayoutRowMajor,
					  CLBlastTransposeNo, CLBlastTransposeNo,
					  n, n, n, 1.0f, ma, 0, n, mb, 0, n, 0.0f,
					  mc, 0, n, &o->q, NULL));
		CHECK(clFinish(o->q));
		t = (double)(bench_now_ns() - t0);
		if (!o->first_done) {
			/* CLBlast compiled its kernels in this call */
			bench_result("blas-first-sgemm", t / 1e6, "ms");
			o->first_done = true;
		}
		if (r > 0 && t < best)
			best = t;
	}
	download(o, mc, c, nn * es);
	for (size_t i = 0; i < nn; i++) {
		got[i] = dbl ? ((double *)c)[i] : ((float *)c)[i];
		aa[i] = fabs(da[i]);
		ab[i] = fabs(db[i]);
	}
	/* the reference in double (long sums in float would be the thing
	 * checked), and the sums of |a||b| the error bound scales with */
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n,
		    (int)n, 1.0, da, (int)n, db, (int)n, 0.0, ref, (int)n);
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n,
		    (int)n, 1.0, aa, (int)n, ab, (int)n, 0.0, bound, (int)n);
	for (size_t i = 0; i < nn; i++)
		bound[i] = 2.0 * (double)n * eps * bound[i] + DBL_MIN;
	snprintf(name, sizeof(name), "%cgemm-%zu", dbl ? 'd' : 's', n);
	if (count_bad(name, got, ref, bound, nn))
		exit(1);
	bench_result(name, 2.0 * (double)n * (double)nn / best, "GFLOP/s");
	clReleaseMemObject(ma);
	clReleaseMemObject(mb);
	clReleaseMemObject(mc);
	free(a), free(b), free(c), free(got), free(ref), free(bound);
	free(aa), free(ab), free(da), free(db);
}

/* y = A x (sgemv, @n x @n) and y = a x + y (saxpy, @m elements) */
static void bench_level2(struct ocl *o, size_t n, size_t m)
{
	float *a = bench_xmalloc(n * n * sizeof(float)), *x = bench_xmalloc(m * 4);
	float *y = bench_xmalloc(m * 4), *y0 = bench_xmalloc(m * 4);
	double *got = bench_xmalloc(m * sizeof(double));
	double *ref = bench_xmalloc(m * sizeof(double));
	double *bound = bench_xmalloc(m * sizeof(double));
	double best = 1e30;
	uint64_t seed = 7;
	cl_mem ma, mx, my;

	for (size_t i = 0; i < n * n; i++)
		a[i] = (float)bench_next_val(&seed);
	for (size_t i = 0; i < m; i++) {
		x[i] = (float)bench_next_val(&seed);
		y0[i] = (float)bench_next_val(&seed);
	}
	ma = upload(o, a, n * n * 4);
	mx = upload(o, x, m * 4);
	my = upload(o, y0, m * 4);
	for (unsigned r = 0; r <= o->runs; r++) {
		uint64_t t0 = bench_now_ns();
		double t;

		BLAS(CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, n,
				  n, 1.0f, ma, 0, n, mx, 0, 1, 0.0f, my, 0, 1,
				  &o->q, NULL));
		CHECK(clFinish(o->q));
		t = (double)(bench_now_ns() - t0);
		if (r > 0 && t < best)
			best = t;
	}
	download(o, my, y, n * 4);
	for (size_t i = 0; i < n; i++) {
		double s = 0, sa = 0;

		for (size_t k = 0; k < n; k++) {
			s += (double)a[i * n + k] * x[k];
			sa += fabs((double)a[i * n + k] * x[k]);
		}
		got[i] = y[i];
		ref[i] = s;
		bound[i] = 2.0 * (double)n * FLT_EPSILON * sa + DBL_MIN;
	}
	if (count_bad("sgemv", got, ref, bound, n))
		exit(1);
	bench_result("sgemv-4096", (double)(n * n + 2 * n) * 4 / best, "GB/s");

	/* saxpy: each run adds 2x once more; the last y is checked */
	CHECK(clEnqueueWriteBuffer(o->q, my, CL_TRUE, 0, m * 4, y0, 0, NULL,
				   NULL));
	best = 1e30;
	for (unsigned r = 0; r <= o->runs; r++) {
		uint64_t t0 = bench_now_ns();
		double t;

		BLAS(CLBlastSaxpy(m, 2.0f, mx, 0, 1, my, 0, 1, &o->q, NULL));
		CHECK(clFinish(o->q));
		t = (double)(bench_now_ns() - t0);
		if (r > 0 && t < best)
			best = t;
	}
	download(o, my, y, m * 4);
	for (size_t i = 0; i < m; i++) {
		float v = y0[i];

		for (unsigned r = 0; r <= o->runs; r++)
			v = fmaf(2.0f, x[i], v);
		got[i] = y[i];
		ref[i] = v;
		/* fused or not: one rounding more per run at most */
		bound[i] = (o->runs + 1) * 4.0 * FLT_EPSILON *
			   (fabs(v) + 2.0 * fabs(x[i])) + DBL_MIN;
	}
	if (count_bad("saxpy", got, ref, bound, m))
		exit(1);
	bench_result("saxpy-16m", 3.0 * (double)m * 4 / best, "GB/s");
	clReleaseMemObject(ma);
	clReleaseMemObject(mx);
	clReleaseMemObject(my);
	free(a), free(x), free(y), free(y0), free(got), free(ref), free(bound);
}

/* OpenBLAS on the same product, all CPUs: what the CPU can do */
static void bench_openblas(size_t n, unsigned runs)
{
	float *a = bench_xmalloc(n * n * 4), *b = bench_xmalloc(n * n * 4);
	float *c = bench_xmalloc(n * n * 4);
	uint64_t seed = 42;
	double best = 1e30;
	char name[32];

	for (size_t i = 0; i < n * n; i++) {
		a[i] = (float)bench_next_val(&seed);
		b[i] = (float)bench_next_val(&seed);
	}
	for (unsigned r = 0; r <= runs; r++) {
		uint64_t t0 = bench_now_ns();
		double t;

		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n,
			    (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f, c,
			    (int)n);
		t = (double)(bench_now_ns() - t0);
		if (r > 0 && t < best)
			best = t;
	}
	snprintf(name, sizeof(name), "openblas-sgemm-%zu", n);
	bench_result(name, 2.0 * (double)n * (double)(n * n) / best, "GFLOP/s");
	free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1024, 2048 };
	struct ocl o = { .runs = 3 };
	char name[256] = "";
	const char *isa;
	cl_platform_id p;
	cl_device_id d;
	cl_uint np = 0;
	cl_int e;
	int opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt == 'r') {
			o.runs = bench_parse_count(argv[0], optarg, "runs",
						   100);
		} else {
			fprintf(stderr, "usage: %s [-r RUNS]\n", argv[0]);
			return 2;
		}
	}
	bench_print_machine("start");
	CHECK(clGetPlatformIDs(1, &p, &np));
	CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
	CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name), name, NULL));
	printf("platform \"%s\"\n", name);
	CHECK(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof(name), name, NULL));
	printf("device   \"%s\"\n", name);
	o.c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	CHECK(e);
	o.q = clCreateCommandQueue(o.c, d, 0, &e);
	CHECK(e);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench_gemm(&o, sizes[i], false);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench_gemm(&o, sizes[i], true);
	bench_level2(&o, 4096, 16u << 20);
	clReleaseCommandQueue(o.q);
	clReleaseContext(o.c);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench_openblas(sizes[i], o.runs);
	bench_result("fma-peak", bench_fma_peak_gflops(&isa), "GFLOP/s");
	printf("fma-peak measured with %s\n", isa);
	bench_print_machine("end");
	return 0;
}
