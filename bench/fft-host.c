/* SPDX-License-Identifier: MIT */
/*
 * FFTs the way OpenCL signal-processing code links them: clFFT (Debian's
 * libclfft) on one platform, in a fresh process; run it with
 * OCL_ICD_VENDORS naming a directory that holds only that platform's .icd
 * (bench/perf-compare.sh does, alternating libaccel and PoCL). Every
 * transform is complex-to-complex, interleaved, in place and forward,
 * timed after clFFT has baked its plan and run it once; the last result
 * is checked against a plain DFT on the host at sampled bins, then
 * transformed back and checked against the input everywhere.
 *
 * "result NAME VALUE UNIT" lines:
 *   fft-bake                ms       clfftBakePlan of the first plan: clFFT
 *                                    generates and builds its kernels
 *   fft-1d-4096x1024-f, -d  GFLOP/s  1024 transforms of length 4096
 *   fft-1d-1m-f, -d         GFLOP/s  one transform of length 2^20
 *   fft-2d-2048-f, -d       GFLOP/s  one 2048 x 2048 transform
 * by the usual 5 N log2 N per transform of N points, best of the runs;
 * -f float, -d double (left out, saying why, without cl_khr_fp64);
 * -n NAME runs only the rows whose names contain NAME; -k writes the
 * programs clFFT generates into the current folder (CLFFT_DUMP_PROGRAMS).
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <clFFT.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-cl.h"
#include "bench-util.h"

#define FFT(e)                                                               \
	do {                                                                 \
		clfftStatus s_ = (e);                                        \
		if (s_ != CLFFT_SUCCESS) {                                   \
			fprintf(stderr, "%s:%d: clFFT status %d\n", __FILE__, \
				__LINE__, (int)s_);                          \
			exit(1);                                             \
		}                                                            \
	} while (0)

struct ocl {
	cl_context c;
	cl_command_queue q;
	unsigned runs;
	const char *only;	/* -n: the rows whose names contain this */
	bool first_done;
};

/* one row: a 1D (len[1] == 1) or 2D transform, @batch of them */
struct fft_case {
	const char *name;
	size_t len[2];
	size_t batch;
};

/* cos and sin of -2 pi j / @n for j < @n: exact indices, no drift */
static double *twiddles(size_t n)
{
	double *w = bench_xmalloc(2 * n * sizeof(double));

	for (size_t j = 0; j < n; j++) {
		w[2 * j] = cos(2.0 * M_PI * (double)j / (double)n);
		w[2 * j + 1] = -sin(2.0 * M_PI * (double)j / (double)n);
	}
	return w;
}

/*
 * Bin (@k0, @k1) of the DFT of the @l0 x @l1 points at @x (element n0 +
 * l0 n1, interleaved re, im): the row sums first, then the column sum,
 * in long double, as a plain double sum of 2^20 terms rounds off more
 * than a double FFT does.
 */
static void dft_bin(const double *x, size_t l0, size_t l1, size_t k0,
		    size_t k1, const double *w0, const double *w1, double out[2])
{
	long double re = 0, im = 0;

	for (size_t n1 = 0; n1 < l1; n1++) {
		const double *row = x + 2 * l0 * n1;
		long double sr = 0, si = 0, cr, ci;
		size_t j = (k1 * n1) % l1;

		for (size_t n0 = 0, t = 0; n0 < l0; n0++) {
			long double xr = row[2 * n0], xi = row[2 * n0 + 1];

			sr += xr * w0[2 * t] - xi * w0[2 * t + 1];
			si += xr * w0[2 * t + 1] + xi * w0[2 * t];
			t += k0;
			if (t >= l0)
				t -= l0;
		}
		cr = w1[2 * j], ci = w1[2 * j + 1];
		re += sr * cr - si * ci;
		im += sr * ci + si * cr;
	}
	out[0] = (double)re;
	out[1] = (double)im;
}

static bool has_fp64(cl_device_id d)
{
	size_t n = 0;
	char *ext;
	bool yes;

	CHECK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &n));
	ext = bench_xmalloc(n + 1);
	CHECK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, n, ext, NULL));
	ext[n] = 0;
	yes = strstr(ext, "cl_khr_fp64") || strstr(ext, "cl_amd_fp64");
	free(ext);
	return yes;
}

/* the device buffer's @n complex values, as doubles */
static void download(struct ocl *o, cl_mem m, void *tmp, double *out,
		     size_t n, bool dbl)
{
	CHECK(clEnqueueReadBuffer(o->q, m, CL_TRUE, 0, n * (dbl ? 16 : 8), tmp,
				  0, NULL, NULL));
	for (size_t i = 0; i < 2 * n; i++)
		out[i] = dbl ? ((double *)tmp)[i] : ((float *)tmp)[i];
}

/*
 * Sampled bins of a few transforms of the batch against dft_bin(). FFT
 * rounding error at one bin grows like eps log2 N times the transform's
 * input norm; a wrong bin is off by about that norm itself.
 */
static size_t check_bins(const struct fft_case *fc, const double *x,
			 const double *got, double eps, double *worst)
{
	size_t l0 = fc->len[0], l1 = fc->len[1], per = l0 * l1, bad = 0;
	size_t batches[3] = { 0, fc->batch / 2, fc->batch - 1 };
	size_t k0s[4] = { 0, 1, l0 / 3, l0 - 1 };
	size_t k1s[4] = { 0, l1 > 1 ? 1 : 0, l1 / 2, l1 - 1 };
	double *w0 = twiddles(l0), *w1 = twiddles(l1);

	*worst = 0;
	for (size_t b = 0; b < 3; b++) {
		const double *xb = x + 2 * per * batches[b];
		const double *gb = got + 2 * per * batches[b];
		double norm = 0, bound, ref[2];

		if (b > 0 && batches[b] == batches[b - 1])
			continue;
		for (size_t i = 0; i < 2 * per; i++)
			norm += xb[i] * xb[i];
		bound = 5.0 * eps * log2((double)per) * sqrt(norm);
		for (size_t s = 0; s < 4; s++) {
			size_t k0 = k0s[s], k1 = k1s[(s + 1) % 4];
			const double *g = gb + 2 * (k0 + l0 * k1);
			double err;

			dft_bin(xb, l0, l1, k0, k1, w0, w1, ref);
			err = hypot(g[0] - ref[0], g[1] - ref[1]);
			if (err / bound > *worst)
				*worst = err / bound;
			if (!(err <= bound) && bad++ < 3)
				fprintf(stderr, "fft-%s transform %zu bin (%zu, "
					"%zu): %.17g%+.17gi, want %.17g%+.17gi "
					"(off by %.3g, bound %.3g)\n", fc->name,
					batches[b], k0, k1, g[0], g[1], ref[0],
					ref[1], err, bound);
		}
	}
	free(w0), free(w1);
	return bad;
}

/* the forward-backward round trip against the input, every element */
static size_t check_round_trip(const struct fft_case *fc, const double *x,
			       const double *got, size_t n, double eps,
			       double *worst)
{
	size_t per = fc->len[0] * fc->len[1], bad = 0;
	double ms = 0, bound;

	for (size_t i = 0; i < 2 * n; i++)
		ms += x[i] * x[i];
	bound = 10.0 * eps * log2((double)per) * sqrt(ms / (double)n);
	*worst = 0;
	for (size_t i = 0; i < n; i++) {
		double err = hypot(got[2 * i] - x[2 * i],
				   got[2 * i + 1] - x[2 * i + 1]);

		if (err / bound > *worst)
			*worst = err / bound;
		if (!(err <= bound) && bad++ < 3)
			fprintf(stderr, "fft-%s round trip [%zu]: %.9g%+.9gi, "
				"want %.9g%+.9gi (+- %.3g)\n", fc->name, i,
				got[2 * i], got[2 * i + 1], x[2 * i],
				x[2 * i + 1], bound);
	}
	return bad;
}

static void bench_fft(struct ocl *o, const struct fft_case *fc, bool dbl)
{
	size_t per = fc->len[0] * fc->len[1], n = per * fc->batch;
	size_t es = dbl ? 16 : 8;
	double eps = dbl ? DBL_EPSILON : FLT_EPSILON, best = 1e30, wb, wr;
	double *x, *got;
	void *in;
	clfftPlanHandle plan;
	uint64_t seed = 42, t0;
	char name[48];
	cl_mem m;
	cl_int e;

	snprintf(name, sizeof(name), "fft-%s-%c", fc->name, dbl ? 'd' : 'f');
	if (!strstr(name, o->only))
		return;
	x = bench_xmalloc(2 * n * sizeof(double));
	got = bench_xmalloc(2 * n * sizeof(double));
	in = bench_xmalloc(n * es);
	for (size_t i = 0; i < 2 * n; i++) {
		x[i] = bench_next_val(&seed);
		if (dbl) {
			((double *)in)[i] = x[i];
		} else {
			/* the float values, exactly, for the reference */
			((float *)in)[i] = (float)x[i];
			x[i] = ((float *)in)[i];
		}
	}
	m = clCreateBuffer(o->c, CL_MEM_READ_WRITE, n * es, NULL, &e);
	CHECK(e);
	FFT(clfftCreateDefaultPlan(&plan, o->c, fc->len[1] > 1 ? CLFFT_2D :
				   CLFFT_1D, fc->len));
	FFT(clfftSetPlanPrecision(plan, dbl ? CLFFT_DOUBLE : CLFFT_SINGLE));
	FFT(clfftSetLayout(plan, CLFFT_COMPLEX_INTERLEAVED,
			   CLFFT_COMPLEX_INTERLEAVED));
	FFT(clfftSetResultLocation(plan, CLFFT_INPLACE));
	FFT(clfftSetPlanBatchSize(plan, fc->batch));
	FFT(clfftSetPlanDistance(plan, per, per));
	t0 = bench_now_ns();
	FFT(clfftBakePlan(plan, 1, &o->q, NULL, NULL));
	CHECK(clFinish(o->q));
	if (!o->first_done) {
		bench_result("fft-bake", (double)(bench_now_ns() - t0) / 1e6,
			     "ms");
		o->first_done = true;
	} else {
		printf("bake %s %.1f ms\n", name,
		       (double)(bench_now_ns() - t0) / 1e6);
	}
	/* run 0 warms up; the input is written anew before each run, as
	 * repeated forward transforms would overflow */
	for (unsigned r = 0; r <= o->runs; r++) {
		double t;

		CHECK(clEnqueueWriteBuffer(o->q, m, CL_TRUE, 0, n * es, in, 0,
					   NULL, NULL));
		t0 = bench_now_ns();
		FFT(clfftEnqueueTransform(plan, CLFFT_FORWARD, 1, &o->q, 0,
					  NULL, NULL, &m, NULL, NULL));
		CHECK(clFinish(o->q));
		t = (double)(bench_now_ns() - t0);
		if (r > 0 && t < best)
			best = t;
	}
	download(o, m, in, got, n, dbl);
	if (check_bins(fc, x, got, eps, &wb))
		exit(1);
	/* backward scales by 1 / N by default: the input again */
	FFT(clfftEnqueueTransform(plan, CLFFT_BACKWARD, 1, &o->q, 0, NULL,
				  NULL, &m, NULL, NULL));
	download(o, m, in, got, n, dbl);
	if (check_round_trip(fc, x, got, n, eps, &wr))
		exit(1);
	printf("%s checked: worst error %.3f (bins), %.3f (round trip) of "
	       "the bound\n", name, wb, wr);
	bench_result(name, 5.0 * (double)n * log2((double)per) / best,
		     "GFLOP/s");
	FFT(clfftDestroyPlan(&plan));
	clReleaseMemObject(m);
	free(x), free(got), free(in);
}

int main(int argc, char **argv)
{
	static const struct fft_case cases[] = {
		{ "1d-4096x1024", { 4096, 1 }, 1024 },
		{ "1d-1m", { 1u << 20, 1 }, 1 },
		{ "2d-2048", { 2048, 2048 }, 1 },
	};
	struct ocl o = { .runs = 3, .only = "" };
	clfftSetupData setup;
	char name[256] = "";
	cl_platform_id p;
	cl_device_id d;
	cl_uint np = 0;
	cl_int e;
	bool dbl;
	int opt;

	bool dump = false;

	while ((opt = getopt(argc, argv, "r:n:k")) != -1) {
		if (opt == 'r') {
			o.runs = bench_parse_count(argv[0], optarg, "runs",
						   100);
		} else if (opt == 'n') {
			o.only = optarg;
		} else if (opt == 'k') {
			dump = true;
		} else {
			fprintf(stderr, "usage: %s [-r RUNS] [-n NAME] [-k]\n",
				argv[0]);
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
	FFT(clfftInitSetupData(&setup));
	/* clFFT writes each program it generates into the current folder */
	if (dump)
		setup.debugFlags |= CLFFT_DUMP_PROGRAMS;
	FFT(clfftSetup(&setup));
	dbl = has_fp64(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bench_fft(&o, &cases[i], false);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (dbl)
			bench_fft(&o, &cases[i], true);
		else
			printf("skip fft-%s-d: the device has no cl_khr_fp64\n",
			       cases[i].name);
	}
	FFT(clfftTeardown());
	clReleaseCommandQueue(o.q);
	clReleaseContext(o.c);
	bench_print_machine("end");
	return 0;
}
