/* SPDX-License-Identifier: MIT */
/*
 * The kernel shapes ML frameworks generate for OpenCL, written as they
 * write them for GPUs (work-group tiles in local memory, float4 loads,
 * one work-group per row), timed on one platform in a fresh process: run
 * it with OCL_ICD_VENDORS naming a directory that holds only that
 * platform's .icd (bench/perf-compare.sh does, alternating libaccel and
 * PoCL). OpenCL 1.2 calls only. Every result is checked against a plain
 * C reference in double; a wrong one prints where and exits 1. A kernel
 * the platform cannot build leaves its row out, saying why.
 *
 * "result NAME VALUE UNIT" lines, best of -r runs after one warm-up run:
 *   fw-matmul-N       GFLOP/s  C = A B, N x N, 64 x 64 blocks per group of
 *                              16 x 16 work-items, 4 x 4 outputs each
 *   fw-matmul-N-peak  x        that as a fraction of the FMA peak
 *   fw-conv           GFLOP/s  direct 3x3 convolution, NCHW, stride 1,
 *                              pad 1, N=8 C=K=64 H=W=56, 4 output
 *                              channels per work-item
 *   fw-softmax        ms       softmax of 4096 rows of 1024
 *   fw-layernorm      ms       layer norm of the same, gamma and beta
 *   fw-attention      ms       softmax(Q K^T / 8) V, 8 heads, sequence
 *                              512, head dimension 64: three kernels
 *   fw-eltwise        GB/s     y = gelu(x scale[c] + bias[c]) + residual
 *                              over NCHW 32 x 64 x 56 x 56
 *   fma-peak          GFLOP/s  the measured single-precision FMA peak
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-cl.h"
#include "bench-util.h"
#include "fma-peak.h"
#include "framework-kernels-src.h"

struct ocl {
	cl_device_id d;
	cl_context c;
	cl_command_queue q;
	unsigned runs;
};

/* one NDRange of a timed sequence */
struct launch {
	cl_kernel k;
	cl_uint dim;
	size_t g[3], l[3];
};

static float *random_floats(size_t n, uint64_t seed)
{
	float *p = bench_xmalloc(n * sizeof(float));

	for (size_t i = 0; i < n; i++)
		p[i] = (float)bench_next_val(&seed);
	return p;
}

static cl_mem upload(struct ocl *o, const float *data, size_t n)
{
	cl_int e;
	cl_mem m = clCreateBuffer(o->c, CL_MEM_READ_WRITE |
				  (data ? CL_MEM_COPY_HOST_PTR : 0),
				  n * sizeof(float), (void *)data, &e);

	CHECK(e);
	return m;
}

static void download(struct ocl *o, cl_mem m, float *data, size_t n)
{
	CHECK(clEnqueueReadBuffer(o->q, m, CL_TRUE, 0, n * sizeof(float), data,
				  0, NULL, NULL));
}

/*
 * The program of @src, or NULL when the platform cannot build it: then
 * the row @what is left out, with the build log on stderr.
 */
static cl_program build(struct ocl *o, const char *what, const char *src)
{
	cl_int e;
	cl_program p = clCreateProgramWithSource(o->c, 1, &src, NULL, &e);
	size_t len = 0;
	char *log;

	CHECK(e);
	e = clBuildProgram(p, 1, &o->d, "", NULL, NULL);
	if (e == CL_SUCCESS)
		return p;
	clGetProgramBuildInfo(p, o->d, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
	log = bench_xmalloc(len + 1);
	log[0] = '\0';
	clGetProgramBuildInfo(p, o->d, CL_PROGRAM_BUILD_LOG, len + 1, log,
			      NULL);
	fprintf(stderr, "%s: row left out: clBuildProgram error %d, log:\n%s\n",
		what, e, log);
	printf("skip %s: the platform cannot build its kernels\n", what);
	free(log);
	clReleaseProgram(p);
	return NULL;
}

static cl_kernel kernel(cl_program p, const char *name)
{
	cl_int e;
	cl_kernel k = clCreateKernel(p, name, &e);

	CHECK(e);
	return k;
}

/*
 * Set @k's arguments from @types, one letter each: m a cl_mem, i an int,
 * f a float (passed as double), l local memory of a size_t bytes.
 */
static void args(cl_kernel k, const char *types, ...)
{
	va_list ap;

	va_start(ap, types);
	for (cl_uint i = 0; types[i]; i++) {
		cl_mem m;
		int v;
		float f;

		switch (types[i]) {
		case 'm':
			m = va_arg(ap, cl_mem);
			CHECK(clSetKernelArg(k, i, sizeof(m), &m));
			break;
		case 'i':
			v = va_arg(ap, int);
			CHECK(clSetKernelArg(k, i, sizeof(v), &v));
			break;
		case 'f':
			f = (float)va_arg(ap, double);
			CHECK(clSetKernelArg(k, i, sizeof(f), &f));
			break;
		default:
			CHECK(clSetKernelArg(k, i, va_arg(ap, size_t), NULL));
		}
	}
	va_end(ap);
}

static void release(const cl_mem *m, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		clReleaseMemObject(m[i]);
}

/*
 * The best time in ns of -r runs of @n launches after one warm-up run
 * (which pays PoCL's lazy code generation), each run ended by clFinish.
 */
static double best_of(struct ocl *o, const struct launch *l, unsigned n)
{
	double best = 1e30;

	for (unsigned r = 0; r <= o->runs; r++) {
		uint64_t t0 = bench_now_ns();
		double t;

		for (unsigned i = 0; i < n; i++)
			CHECK(clEnqueueNDRangeKernel(o->q, l[i].k, l[i].dim,
						     NULL, l[i].g, l[i].l, 0,
						     NULL, NULL));
		CHECK(clFinish(o->q));
		t = (double)(bench_now_ns() - t0);
		if (r > 0 && t < best)
			best = t;
	}
	return best;
}

/* how many of @n results are off by more than @bound[i] from @ref */
static size_t count_bad(const char *what, const float *got, const double *ref,
			const double *bound, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		if (!(fabs(got[i] - ref[i]) <= bound[i])) {
			if (bad++ < 3)
				fprintf(stderr, "%s[%zu]: %.9g, want %.9g "
					"(+- %.3g)\n", what, i, got[i],
					ref[i], bound[i]);
		}
	if (bad)
		fprintf(stderr, "%s: %zu of %zu results wrong\n", what, bad, n);
	return bad;
}

/* C = A B, @n x @n: GFLOP/s, or 0 when the platform cannot build it */
static double bench_matmul(struct ocl *o, size_t n)
{
	size_t nn = n * n, nr = (n + 16) / 17, m = 0;
	float *a = random_floats(nn, 42), *b = random_floats(nn, 43);
	float *c = bench_xmalloc(nn * sizeof(float));
	double *ref = bench_xmalloc(nr * n * sizeof(double));
	double *bound = bench_xmalloc(nr * n * sizeof(double)), gflops = 0;
	struct launch l = { NULL, 2, { n / 4, n / 4 }, { 16, 16 } };
	cl_mem ma = upload(o, a, nn), mb = upload(o, b, nn);
	cl_mem mc = upload(o, NULL, nn);
	cl_program p;
	char name[32];

	snprintf(name, sizeof(name), "fw-matmul-%zu", n);
	p = build(o, name, matmul_src);
	if (!p)
		goto out;
	l.k = kernel(p, "matmul");
	args(l.k, "immm", (int)n, ma, mb, mc);
	gflops = 2.0 * (double)n * (double)nn / best_of(o, &l, 1);
	download(o, mc, c, nn);
	/*
	 * Rows 0, 17, 34, ...: 17 is prime to the 64-row blocks, so every
	 * row position of the work-items' 4 x 4 tiles is among them, at a
	 * fraction of a full reference's cost. Bound of a recursive sum:
	 * 2 n eps times the sum of |a||b|.
	 */
	for (size_t r = 0; r < n; r += 17, m++) {
		double *rr = ref + m * n, *rb = bound + m * n;

		for (size_t j = 0; j < n; j++)
			rr[j] = rb[j] = 0;
		for (size_t k = 0; k < n; k++) {
			double av = a[r * n + k];

			for (size_t j = 0; j < n; j++) {
				rr[j] += av * b[k * n + j];
				rb[j] += fabs(av * b[k * n + j]);
			}
		}
		for (size_t j = 0; j < n; j++) {
			rb[j] = 2.0 * (double)n * FLT_EPSILON * rb[j] + DBL_MIN;
			/* the checked rows, packed in c's front */
			c[m * n + j] = c[r * n + j];
		}
	}
	if (count_bad(name, c, ref, bound, nr * n))
		exit(1);
	bench_result(name, gflops, "GFLOP/s");
	clReleaseKernel(l.k);
	clReleaseProgram(p);
out:
	release((cl_mem[]){ ma, mb, mc }, 3);
	free(a), free(b), free(c), free(ref), free(bound);
	return gflops;
}

/* one output of the convolution of @in (C x H x W) by @w (C x 3 x 3) */
static double conv_ref(const float *in, const float *w, size_t C, size_t H,
		       size_t W, size_t y, size_t x, float bias, double *bound)
{
	double s = bias, sa = fabs(s);

	for (size_t c = 0; c < C; c++)
		for (size_t t = 0; t < 9; t++) {
			/* y + dy and x + dx, dy and dx from -1 to 1 */
			size_t yy = y + t / 3 - 1, xx = x + t % 3 - 1;
			double v;

			if (yy >= H || xx >= W)	/* also wrapped below 0 */
				continue;
			v = (double)in[(c * H + yy) * W + xx] * w[c * 9 + t];
			s += v;
			sa += fabs(v);
		}
	*bound = 2.0 * (double)(C * 9 + 1) * FLT_EPSILON * sa + DBL_MIN;
	return s;
}

/* direct 3x3 convolution, NCHW, stride 1, pad 1 */
static void bench_conv(struct ocl *o)
{
	enum { N = 8, C = 64, H = 56, W = 56, K = 64 };
	size_t ni = (size_t)N * C * H * W, nw = (size_t)K * C * 9;
	size_t no = (size_t)N * K * H * W, img = (size_t)K * H * W;
	float *in = random_floats(ni, 1), *w = random_floats(nw, 2);
	float *bias = random_floats(K, 3), *out = bench_xmalloc(no * sizeof(float));
	double *ref = bench_xmalloc(2 * img * sizeof(double));
	double *bound = bench_xmalloc(2 * img * sizeof(double)), t;
	struct launch l = { NULL, 3, { W, H, N * K / 4 }, { 8, 8, 1 } };
	cl_mem mi = upload(o, in, ni), mw = upload(o, w, nw);
	cl_mem mbias = upload(o, bias, K), mo = upload(o, NULL, no);
	cl_program p = build(o, "fw-conv", conv_src);

	if (!p)
		goto out;
	l.k = kernel(p, "conv3x3");
	args(l.k, "mmmmiiii", mi, mw, mbias, mo, C, H, W, K);
	t = best_of(o, &l, 1);
	download(o, mo, out, no);
	/* the first and the last image: the batch index's both ends */
	for (size_t i = 0; i < 2 * img; i++) {
		size_t k = i % img / (H * W), y = i % (H * W) / W, x = i % W;
		const float *im = in + (i < img ? 0 : N - 1) * ni / N;

		ref[i] = conv_ref(im, w + k * C * 9, C, H, W, y, x, bias[k],
				  &bound[i]);
	}
	/* the last image next to the first, as the reference has them */
	memmove(out + img, out + (N - 1) * img, img * sizeof(float));
	if (count_bad("fw-conv", out, ref, bound, 2 * img))
		exit(1);
	bench_result("fw-conv", 2.0 * (double)no * C * 9 / t, "GFLOP/s");
	clReleaseKernel(l.k);
	clReleaseProgram(p);
out:
	release((cl_mem[]){ mi, mw, mbias, mo }, 4);
	free(in), free(w), free(bias), free(out), free(ref), free(bound);
}

/* softmax in double of @rows rows of @n, from @x to @y */
static void softmax_ref(const float *x, double *y, size_t rows, size_t n)
{
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * n;
		double *yr = y + r * n, m = -INFINITY, s = 0;

		for (size_t j = 0; j < n; j++)
			m = fmax(m, xr[j]);
		for (size_t j = 0; j < n; j++)
			s += yr[j] = exp(xr[j] - m);
		for (size_t j = 0; j < n; j++)
			yr[j] /= s;
	}
}

/* softmax and layer norm over rows, one work-group per row */
static void bench_rows(struct ocl *o)
{
	enum { ROWS = 4096, N = 1024 };
	size_t nx = (size_t)ROWS * N;
	float *x = random_floats(nx, 4), *y = bench_xmalloc(nx * sizeof(float));
	float *gamma = random_floats(N, 5), *beta = random_floats(N, 6);
	double *ref = bench_xmalloc(nx * sizeof(double));
	double *bound = bench_xmalloc(nx * sizeof(double)), t;
	struct launch l = { NULL, 1, { ROWS * ROW_WG }, { ROW_WG } };
	cl_mem mx, my, mg, mb;
	cl_program p = build(o, "fw-softmax, fw-layernorm", rows_src);

	/* logits spread over [-4, 4): exp's range matters */
	for (size_t i = 0; i < nx; i++)
		x[i] *= 4.0f;
	mx = upload(o, x, nx);
	my = upload(o, NULL, nx);
	mg = upload(o, gamma, N);
	mb = upload(o, beta, N);
	if (!p)
		goto out;
	l.k = kernel(p, "softmax");
	args(l.k, "mmil", mx, my, N, ROW_WG * sizeof(float));
	t = best_of(o, &l, 1);
	download(o, my, y, nx);
	softmax_ref(x, ref, ROWS, N);
	/* exp's ulps, x - max's rounding scaled by exp, the row's sum */
	for (size_t i = 0; i < nx; i++)
		bound[i] = 64.0 * FLT_EPSILON * ref[i] + DBL_MIN;
	if (count_bad("fw-softmax", y, ref, bound, nx))
		exit(1);
	bench_result("fw-softmax", t / 1e6, "ms");
	clReleaseKernel(l.k);

	l.k = kernel(p, "layernorm");
	args(l.k, "mmmmifl", mx, mg, mb, my, N, 1e-5f, ROW_WG * sizeof(float));
	t = best_of(o, &l, 1);
	download(o, my, y, nx);
	for (size_t r = 0; r < ROWS; r++) {
		const float *xr = x + r * N;
		double mean = 0, var = 0, rs;

		for (size_t j = 0; j < N; j++)
			mean += xr[j];
		mean /= N;
		for (size_t j = 0; j < N; j++)
			var += (xr[j] - mean) * (xr[j] - mean);
		rs = 1.0 / sqrt(var / N + 1e-5);
		for (size_t j = 0; j < N; j++) {
			double d = (xr[j] - mean) * rs * gamma[j];

			ref[r * N + j] = d + beta[j];
			/* the mean's error counts against |x - mean| */
			bound[r * N + j] = 64.0 * FLT_EPSILON *
					   (fabs(d) + fabs(beta[j]) +
					    rs * fabs(gamma[j]));
		}
	}
	if (count_bad("fw-layernorm", y, ref, bound, nx))
		exit(1);
	bench_result("fw-layernorm", t / 1e6, "ms");
	clReleaseKernel(l.k);
	clReleaseProgram(p);
out:
	release((cl_mem[]){ mx, my, mg, mb }, 4);
	free(x), free(y), free(gamma), free(beta), free(ref), free(bound);
}

/* softmax(Q K^T / sqrt(d)) V per head: QK^T, row softmax, times V */
static void bench_attention(struct ocl *o)
{
	enum { HEADS = 8, S = 512, D = 64 };
	size_t nq = (size_t)HEADS * S * D, ns = (size_t)HEADS * S * S;
	float *q = random_floats(nq, 7), *k = random_floats(nq, 8);
	float *v = random_floats(nq, 9), *out = bench_xmalloc(nq * sizeof(float));
	float *sc = bench_xmalloc(ns * sizeof(float)), scale = 0.125f;
	double *pr = bench_xmalloc(ns * sizeof(double));
	double *smax = bench_xmalloc(S * sizeof(double));
	double *ref = bench_xmalloc(nq * sizeof(double));
	double *bound = bench_xmalloc(nq * sizeof(double)), t;
	struct launch l[3] = {
		{ NULL, 3, { S, S, HEADS }, { 16, 16, 1 } },
		{ NULL, 1, { HEADS * S * ROW_WG }, { ROW_WG } },
		{ NULL, 3, { D, S, HEADS }, { 16, 16, 1 } },
	};
	cl_mem mq = upload(o, q, nq), mk = upload(o, k, nq);
	cl_mem mv = upload(o, v, nq), mo = upload(o, NULL, nq);
	cl_mem ms = upload(o, NULL, ns), mp = upload(o, NULL, ns);
	cl_program p = build(o, "fw-attention", rows_src);

	if (!p)
		goto out;
	l[0].k = kernel(p, "qk");
	args(l[0].k, "mmmiif", mq, mk, ms, S, D, scale);
	l[1].k = kernel(p, "softmax");
	args(l[1].k, "mmil", ms, mp, S, ROW_WG * sizeof(float));
	l[2].k = kernel(p, "pv");
	args(l[2].k, "mmmii", mp, mv, mo, S, D);
	t = best_of(o, l, 3);
	download(o, mo, out, nq);
	for (size_t h = 0; h < HEADS; h++) {
		const float *qh = q + h * S * D, *kh = k + h * S * D;
		const float *vh = v + h * S * D;
		double *ph = pr + h * S * S;

		for (size_t i = 0; i < S; i++) {
			smax[i] = 0;
			for (size_t j = 0; j < S; j++) {
				double s = 0, sa = 0;

				for (size_t d = 0; d < D; d++) {
					double e = (double)qh[i * D + d] *
						   kh[j * D + d];

					s += e;
					sa += fabs(e);
				}
				/* the scores as float: what the softmax sees */
				sc[h * S * S + i * S + j] = (float)(s * scale);
				smax[i] = fmax(smax[i], sa * scale);
			}
		}
		softmax_ref(sc + h * S * S, ph, S, S);
		for (size_t i = 0; i < S; i++)
			for (size_t c = 0; c < D; c++) {
				double s = 0, sa = 0;

				for (size_t j = 0; j < S; j++) {
					s += ph[i * S + j] * vh[j * D + c];
					sa += ph[i * S + j] *
					      fabs(vh[j * D + c]);
				}
				ref[(h * S + i) * D + c] = s;
				/*
				 * P V's sum; an error e in the scores is
				 * a relative error of about 2 e in p
				 */
				bound[(h * S + i) * D + c] =
					(2.0 * S + 4.0 * D * smax[i] + 64) *
					FLT_EPSILON * sa + DBL_MIN;
			}
	}
	if (count_bad("fw-attention", out, ref, bound, nq))
		exit(1);
	bench_result("fw-attention", t / 1e6, "ms");
	for (int i = 0; i < 3; i++)
		clReleaseKernel(l[i].k);
	clReleaseProgram(p);
out:
	release((cl_mem[]){ mq, mk, mv, mo, ms, mp }, 6);
	free(q), free(k), free(v), free(out), free(sc), free(pr), free(smax);
	free(ref), free(bound);
}

/* y = gelu(x scale[c] + bias[c]) + residual, c from the flat index */
static void bench_eltwise(struct ocl *o)
{
	enum { N = 32, C = 64, HW = 56 * 56 };
	size_t n = (size_t)N * C * HW;
	float *x = random_floats(n, 10), *res = random_floats(n, 11);
	float *scale = random_floats(C, 12), *bias = random_floats(C, 13);
	float *y = bench_xmalloc(n * sizeof(float));
	double *ref = bench_xmalloc(n * sizeof(double));
	double *bound = bench_xmalloc(n * sizeof(double)), t;
	struct launch l = { NULL, 1, { n }, { 256 } };
	cl_mem mx = upload(o, x, n), mr = upload(o, res, n);
	cl_mem ms = upload(o, scale, C), mb = upload(o, bias, C);
	cl_mem my = upload(o, NULL, n);
	cl_program p = build(o, "fw-eltwise", eltwise_src);

	if (!p)
		goto out;
	l.k = kernel(p, "bias_gelu_residual");
	args(l.k, "mmmmmii", mx, ms, mb, mr, my, C, HW);
	t = best_of(o, &l, 1);
	download(o, my, y, n);
	for (size_t i = 0; i < n; i++) {
		size_t c = i / HW % C;
		double xs = (double)x[i] * scale[c], v = xs + bias[c], g;

		g = 0.5 * v * (1.0 + tanh(0.7978845608 *
					  (v + 0.044715 * v * v * v)));
		ref[i] = g + res[i];
		/* v's roundings carried through gelu, tanh's ulps, the add */
		bound[i] = 16.0 * FLT_EPSILON * (fabs(xs) + fabs(bias[c]) +
						 fabs(v) + fabs(res[i])) +
			   DBL_MIN;
	}
	if (count_bad("fw-eltwise", y, ref, bound, n))
		exit(1);
	/* x and the residual read, y written */
	bench_result("fw-eltwise", 3.0 * (double)n * sizeof(float) / t, "GB/s");
	clReleaseKernel(l.k);
	clReleaseProgram(p);
out:
	release((cl_mem[]){ mx, mr, ms, mb, my }, 5);
	free(x), free(res), free(scale), free(bias), free(y), free(ref);
	free(bound);
}

int main(int argc, char **argv)
{
	struct ocl o = { .runs = 3 };
	size_t sizes[2] = { 1024, 2048 }, nsizes = 2, wg = 0;
	double gflops[2], peak;
	char name[256] = "";
	const char *isa;
	cl_platform_id p;
	cl_uint np = 0;
	cl_int e;
	int opt;

	while ((opt = getopt(argc, argv, "r:m:")) != -1) {
		if (opt == 'r') {
			o.runs = bench_parse_count(argv[0], optarg, "runs",
						   100);
		} else if (opt == 'm') {
			sizes[1] = bench_parse_count(argv[0], optarg,
						     "matmul size", 8192);
			if (sizes[1] % MM_BLOCK) {
				fprintf(stderr, "%s: the matmul size must be "
					"a multiple of %d\n", argv[0],
					MM_BLOCK);
				return 2;
			}
			nsizes = sizes[1] == sizes[0] ? 1 : 2;
		} else {
			fprintf(stderr, "usage: %s [-r RUNS] [-m MATMUL_N]\n",
				argv[0]);
			return 2;
		}
	}
	if (clGetPlatformIDs(1, &p, &np) != CL_SUCCESS || np == 0) {
		fprintf(stderr, "no OpenCL platform (OCL_ICD_VENDORS=%s)\n",
			getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") :
						    "unset");
		return 77;
	}
	bench_print_machine("start");
	CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &o.d, NULL));
	CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name), name, NULL));
	printf("platform \"%s\"\n", name);
	CHECK(clGetDeviceInfo(o.d, CL_DEVICE_NAME, sizeof(name), name, NULL));
	printf("device   \"%s\"\n", name);
	CHECK(clGetDeviceInfo(o.d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg),
			      &wg, NULL));
	if (wg < ROW_WG) {
		fprintf(stderr, "work-groups of %zu: the kernels need %d\n", wg,
			ROW_WG);
		return 77;
	}
	o.c = clCreateContext(NULL, 1, &o.d, NULL, NULL, &e);
	CHECK(e);
	o.q = clCreateCommandQueue(o.c, o.d, 0, &e);
	CHECK(e);
	for (size_t i = 0; i < nsizes; i++)
		gflops[i] = bench_matmul(&o, sizes[i]);
	bench_conv(&o);
	bench_rows(&o);
	bench_attention(&o);
	bench_eltwise(&o);
	clReleaseCommandQueue(o.q);
	clReleaseContext(o.c);
	peak = bench_fma_peak_gflops(&isa);
	bench_result("fma-peak", peak, "GFLOP/s");
	printf("fma-peak measured with %s\n", isa);
	for (size_t i = 0; i < nsizes; i++) {
		if (gflops[i] <= 0 || peak <= 0)
			continue;
		snprintf(name, sizeof(name), "fw-matmul-%zu-peak", sizes[i]);
		bench_result(name, gflops[i] / peak, "x");
	}
	bench_print_machine("end");
	return 0;
}
