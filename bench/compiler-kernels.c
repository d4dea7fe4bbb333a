/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL C compiler against PoCL: the same kernels, through the same
 * ICD loader, in one process where both platforms are visible
 * (OCL_ICD_VENDORS names a directory holding libaccel.icd and pocl.icd;
 * bench/run.sh and the build tree's bench/vendors/ set that up).
 *
 * Prints, per platform, build times (cold: a source no cache has seen;
 * warm: the same build again; small: a one-kernel program no cache has
 * seen, built and launched once) and kernel times (best and median of -r
 * runs after one warm-up run, which also pays PoCL's lazy code
 * generation), and the ratio libaccel / PoCL (below 1: libaccel faster).
 * Everything runs twice, libaccel, PoCL, PoCL, libaccel, and the better
 * number of the two counts: the one least disturbed by other load. Every
 * kernel's output is checked against a host reference.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

#define TS 16

static const char source[] =
	"#define TS 16\n"
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	/* as hosts write them: the global size rounded up, the tail
	 * guarded */
	"kernel void vadd_guard(global const float *a, global const float *b,\n"
	"			global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	/* run over a prime count with a NULL local size */
	"kernel void vadd_prime(global const float *a, global const float *b,\n"
	"			global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n"
	"kernel void saxpy(float alpha, global const float *x,\n"
	"		   global const float *y, global float *z)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	z[i] = alpha * x[i] + y[i];\n"
	"}\n"
	/* the same in float4, as many clients write element-wise code */
	"kernel void saxpy4(float alpha, global const float4 *x,\n"
	"		    global const float4 *y, global float4 *z)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	z[i] = alpha * x[i] + y[i];\n"
	"}\n"
	"kernel void sins(global const float *x, global float *y)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float v = x[i], s = 0.0f;\n"
	"	for (int k = 1; k <= 8; k++)\n"
	"		s += sin(v * (float)k);\n"
	"	y[i] = s;\n"
	"}\n"
	"kernel void sgemm_naive(int n, global const float *A,\n"
	"			 global const float *B, global float *C)\n"
	"{\n"
	"	int row = get_global_id(1), col = get_global_id(0);\n"
	"	float acc = 0.0f;\n"
	"	for (int k = 0; k < n; k++)\n"
	"		acc += A[row * n + k] * B[k * n + col];\n"
	"	C[row * n + col] = acc;\n"
	"}\n"
	"kernel void sgemm_tiled(int n, global const float *A,\n"
	"			 global const float *B, global float *C)\n"
	"{\n"
	"	local float As[TS][TS], Bs[TS][TS];\n"
	"	int r = get_local_id(1), c = get_local_id(0);\n"
	"	int row = get_group_id(1) * TS + r;\n"
	"	int col = get_group_id(0) * TS + c;\n"
	"	float acc = 0.0f;\n"
	"	for (int t = 0; t < n / TS; t++) {\n"
	"		As[r][c] = A[row * n + t * TS + c];\n"
	"		Bs[r][c] = B[(t * TS + r) * n + col];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		for (int k = 0; k < TS; k++)\n"
	"			acc += As[r][k] * Bs[k][c];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	C[row * n + col] = acc;\n"
	"}\n"
	"kernel void reduce(global const float *in, global float *out,\n"
	"		    local float *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(0);\n"
	"	tmp[l] = in[get_global_id(0)];\n"
	"	for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (l < s)\n"
	"			tmp[l] += tmp[l + s];\n"
	"	}\n"
	"	if (l == 0)\n"
	"		out[get_group_id(0)] = tmp[0];\n"
	"}\n";

enum {
	VADD, VADD_GUARD, VADD_PRIME, SAXPY, SAXPY4, SINS, NAIVE, TILED,
	REDUCE, N_KERNELS
};

static const char *const kernel_names[N_KERNELS] = {
	"vadd",	       "vadd_guard",  "vadd_prime", "saxpy",
	"saxpy4",      "sins",	      "sgemm_naive", "sgemm_tiled",
	"reduce",
};

/* vadd_prime's count: a prime (OpenCL 1.2 groups must divide it) */
#define N_PRIME 1000003u

struct sizes {
	size_t n_vec, n_sin, n_mat, n_red, red_ls;
};

struct host {
	struct sizes s;
	float *a, *b, *x, *y, *ma, *mb;
	/* references */
	float *vadd, *saxpy, *sins, *mat, *red;
};

struct plat {
	const char *label;
	cl_platform_id p;
	cl_device_id d;
	cl_context c;
	cl_command_queue q;
	double cold_ms, warm_ms, small_ms;
	double first_ms[N_KERNELS], ms[N_KERNELS], median_ms[N_KERNELS];
	const char *check[N_KERNELS];
};

#define CHECK(call)                                                        \
	do {                                                               \
		cl_int e_ = (call);                                        \
		if (e_ != CL_SUCCESS) {                                    \
			fprintf(stderr, "%s:%d: %s: %d\n", __FILE__,       \
				__LINE__, #call, e_);                      \
			exit(1);                                           \
		}                                                          \
	} while (0)

static double ms_since(uint64_t t0)
{
	return (double)(bench_now_ns() - t0) / 1e6;
}

static float *falloc(size_t n)
{
	float *p = malloc(n * sizeof(float));

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

static void host_refs(struct host *h)
{
	const struct sizes *s = &h->s;
	size_t n = s->n_mat;

	h->a = falloc(s->n_vec);
	h->b = falloc(s->n_vec);
	h->vadd = falloc(s->n_vec);
	h->saxpy = falloc(s->n_vec);
	for (size_t i = 0; i < s->n_vec; i++) {
		h->a[i] = (float)(i % 1000) * 0.25f;
		h->b[i] = (float)(i % 777) * -0.5f;
		h->vadd[i] = h->a[i] + h->b[i];
		h->saxpy[i] = 1.5f * h->a[i] + h->b[i];
	}
	h->x = falloc(s->n_sin);
	h->sins = falloc(s->n_sin);
	for (size_t i = 0; i < s->n_sin; i++) {
		double r = 0;

		h->x[i] = (float)((double)(i % 4096) / 4096.0 * 6.3 - 3.15);
		for (int k = 1; k <= 8; k++)
			r += sin((double)h->x[i] * k);
		h->sins[i] = (float)r;
	}
	h->ma = falloc(n * n);
	h->mb = falloc(n * n);
	h->mat = falloc(n * n);
	for (size_t i = 0; i < n * n; i++) {
		h->ma[i] = (float)((i * 7) % 17) / 16.0f - 0.5f;
		h->mb[i] = (float)((i * 5) % 13) / 12.0f - 0.5f;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double acc = 0;

			for (size_t k = 0; k < n; k++)
				acc += (double)h->ma[i * n + k] *
				       h->mb[k * n + j];
			h->mat[i * n + j] = (float)acc;
		}
	h->y = falloc(s->n_red);
	h->red = falloc(s->n_red / s->red_ls);
	for (size_t i = 0; i < s->n_red; i++)
		h->y[i] = (float)(i % 100) * 0.01f;
	for (size_t g = 0; g < s->n_red / s->red_ls; g++) {
		double acc = 0;

		for (size_t i = g * s->red_ls; i < (g + 1) * s->red_ls; i++)
			acc += h->y[i];
		h->red[g] = (float)acc;
	}
}

/* max |got - want| / (|want| + 1) below @p tol */
static const char *compare(const float *got, const float *want, size_t n,
			   double tol)
{
	for (size_t i = 0; i < n; i++)
		if (!(fabs((double)got[i] - want[i]) / (fabs(want[i]) + 1.0) <
		      tol))
			return "WRONG";
	return "ok";
}

static bool find_platforms(struct plat *ours, struct plat *pocl)
{
	cl_platform_id ids[16];
	cl_uint n = 0;

	if (clGetPlatformIDs(16, ids, &n) != CL_SUCCESS)
		n = 0;
	for (cl_uint i = 0; i < n && i < 16; i++) {
		char name[256] = "";
		struct plat *p = NULL;

		clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name,
				  NULL);
		if (strstr(name, "libaccel"))
			p = ours;
		else if (strstr(name, "Portable Computing Language"))
			p = pocl;
		if (!p || p->p)
			continue;
		if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_CPU, 1, &p->d,
				   NULL) != CL_SUCCESS)
			continue;
		p->p = ids[i];
		printf("%-8s platform \"%s\"\n", p->label, name);
	}
	return ours->p && pocl->p;
}

static cl_program build(struct plat *p, const char *opts, double *ms)
{
	const char *src = source;
	cl_int e;
	cl_program prog;
	uint64_t t0 = bench_now_ns();

	prog = clCreateProgramWithSource(p->c, 1, &src, NULL, &e);
	CHECK(e);
	e = clBuildProgram(prog, 1, &p->d, opts, NULL, NULL);
	*ms = ms_since(t0);
	if (e != CL_SUCCESS) {
		char log[8192] = "";

		clGetProgramBuildInfo(prog, p->d, CL_PROGRAM_BUILD_LOG,
				      sizeof(log) - 1, log, NULL);
		fprintf(stderr, "%s: build failed (%d):\n%s\n", p->label, e,
			log);
		exit(1);
	}
	return prog;
}

/*
 * What a client pays before a small new kernel has run once: its build
 * and its first launch (which is where PoCL generates code), for a
 * guarded saxpy no cache has seen. Checked like the others.
 */
#define SMALL_N 1024
#define SMALL_GUARD 1000

static const char small_source[] =
	"kernel void saxpy_small(int n, float a, global const float *x,\n"
	"			 global float *y)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		y[i] = a * x[i] + y[i];\n"
	"}\n";

static double small_cold(struct plat *p, int pass)
{
	const char *src = small_source;
	float x[SMALL_N], y[SMALL_N], a = 3.0f;
	size_t g = SMALL_N, l = 64;
	cl_int n = SMALL_GUARD, e;
	char opts[96];
	cl_program prog;
	cl_kernel k;
	cl_mem mx, my;
	uint64_t t0;
	double ms;

	for (size_t i = 0; i < SMALL_N; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
	mx = clCreateBuffer(p->c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			    sizeof(x), x, &e);
	CHECK(e);
	my = clCreateBuffer(p->c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
			    sizeof(y), y, &e);
	CHECK(e);
	snprintf(opts, sizeof(opts), "-DBENCH_SMALL=%ld%ld%d", (long)getpid(),
		 (long)time(NULL), pass);
	t0 = bench_now_ns();
	prog = clCreateProgramWithSource(p->c, 1, &src, NULL, &e);
	CHECK(e);
	CHECK(clBuildProgram(prog, 1, &p->d, opts, NULL, NULL));
	k = clCreateKernel(prog, "saxpy_small", &e);
	CHECK(e);
	CHECK(clSetKernelArg(k, 0, sizeof(n), &n));
	CHECK(clSetKernelArg(k, 1, sizeof(a), &a));
	CHECK(clSetKernelArg(k, 2, sizeof(mx), &mx));
	CHECK(clSetKernelArg(k, 3, sizeof(my), &my));
	CHECK(clEnqueueNDRangeKernel(p->q, k, 1, NULL, &g, &l, 0, NULL, NULL));
	CHECK(clFinish(p->q));
	ms = ms_since(t0);
	CHECK(clEnqueueReadBuffer(p->q, my, CL_TRUE, 0, sizeof(y), y, 0, NULL,
				  NULL));
	for (size_t i = 0; i < SMALL_N; i++) {
		float want = i < SMALL_GUARD ? a * (float)i + 1.0f : 1.0f;

		if (y[i] != want) {
			fprintf(stderr, "%s: saxpy_small[%zu] = %g, want %g\n",
				p->label, i, y[i], want);
			exit(1);
		}
	}
	CHECK(clReleaseKernel(k));
	CHECK(clReleaseProgram(prog));
	CHECK(clReleaseMemObject(mx));
	CHECK(clReleaseMemObject(my));
	return ms;
}

static cl_mem buffer(struct plat *p, size_t n, const float *init)
{
	cl_int e;
	cl_mem m = clCreateBuffer(p->c, CL_MEM_READ_WRITE |
				  (init ? CL_MEM_COPY_HOST_PTR : 0),
				  n * sizeof(float), (void *)init, &e);

	CHECK(e);
	return m;
}

/* One warm-up run (timed as "first"), then the best and median of @p
 * runs. */
static void timed(struct plat *p, cl_kernel k, cl_uint dim,
		  const size_t *gsz, const size_t *lsz, unsigned runs,
		  int which)
{
	double *t = calloc(runs, sizeof(*t)), tmp;
	uint64_t t0 = bench_now_ns();

	CHECK(clEnqueueNDRangeKernel(p->q, k, dim, NULL, gsz, lsz, 0, NULL,
				     NULL));
	CHECK(clFinish(p->q));
	p->first_ms[which] = ms_since(t0);
	for (unsigned r = 0; r < runs; r++) {
		t0 = bench_now_ns();
		CHECK(clEnqueueNDRangeKernel(p->q, k, dim, NULL, gsz, lsz, 0,
					     NULL, NULL));
		CHECK(clFinish(p->q));
		t[r] = ms_since(t0);
	}
	for (unsigned i = 0; i < runs; i++)
		for (unsigned j = i + 1; j < runs; j++)
			if (t[j] < t[i])
				tmp = t[i], t[i] = t[j], t[j] = tmp;
	p->ms[which] = t[0];
	p->median_ms[which] = t[runs / 2];
	free(t);
}

static void read_back(struct plat *p, cl_mem m, float *dst, size_t n)
{
	CHECK(clEnqueueReadBuffer(p->q, m, CL_TRUE, 0, n * sizeof(float), dst,
				  0, NULL, NULL));
}

static cl_kernel kernel(cl_program prog, int which)
{
	cl_int e;
	cl_kernel k = clCreateKernel(prog, kernel_names[which], &e);

	CHECK(e);
	return k;
}

struct arg {
	size_t size;
	const void *value; /* NULL: local memory */
};

struct job {
	int which;
	cl_uint dim;
	const size_t *gsz, *lsz;
	const struct arg *args;
	unsigned n_args;
	cl_mem result;
	const float *ref;
	size_t n;
	double tol;
};

/* Runs a kernel (timed) and checks its result against the reference. */
static void run_job(struct plat *p, cl_program prog, const struct job *j,
		    unsigned runs, float *out)
{
	cl_kernel k = kernel(prog, j->which);

	for (unsigned i = 0; i < j->n_args; i++)
		CHECK(clSetKernelArg(k, i, j->args[i].size, j->args[i].value));
	timed(p, k, j->dim, j->gsz, j->lsz, runs, j->which);
	read_back(p, j->result, out, j->n);
	p->check[j->which] = compare(out, j->ref, j->n, j->tol);
	CHECK(clReleaseKernel(k));
}

/* NaNs into @m, so that a result the kernel left out fails its check. */
static void poison(struct plat *p, cl_mem m, size_t n)
{
	cl_uint nan = 0xffffffffu;

	CHECK(clEnqueueFillBuffer(p->q, m, &nan, sizeof(nan), 0,
				  n * sizeof(float), 0, NULL, NULL));
	CHECK(clFinish(p->q));
}

static void release(cl_mem *m, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		CHECK(clReleaseMemObject(m[i]));
}

static void run_platform(struct plat *p, const struct host *h,
			 unsigned runs, int pass)
{
	const struct sizes *s = &h->s;
	char opts[128];
	cl_int e, n = (cl_int)s->n_mat;
	cl_program prog, again;
	cl_mem m[3];
	float alpha = 1.5f, *out = falloc(s->n_vec > s->n_mat * s->n_mat ?
					  s->n_vec : s->n_mat * s->n_mat);
	size_t nn = s->n_mat * s->n_mat, nr = s->n_red / s->red_ls;
	size_t l1 = 256, g2[2] = { s->n_mat, s->n_mat }, l2[2] = { TS, TS };
	struct arg bufs[3] = { { sizeof(cl_mem), &m[0] },
			       { sizeof(cl_mem), &m[1] },
			       { sizeof(cl_mem), &m[2] } };
	struct arg saxpy[4] = { { sizeof(alpha), &alpha }, bufs[0], bufs[1],
				bufs[2] };
	struct arg mat[4] = { { sizeof(n), &n }, bufs[0], bufs[1], bufs[2] };
	struct arg red[3] = { bufs[0], bufs[1],
			      { s->red_ls * sizeof(float), NULL } };
	/* the last 100 work-items of the rounded-up range do nothing */
	cl_int n_guard = (cl_int)(s->n_vec - 100);
	struct arg guard[4] = { bufs[0], bufs[1], bufs[2],
				{ sizeof(n_guard), &n_guard } };
	size_t n_prime = N_PRIME < s->n_vec ? N_PRIME : s->n_vec;
	size_t n_vec4 = s->n_vec / 4;

	p->c = clCreateContext(NULL, 1, &p->d, NULL, NULL, &e);
	CHECK(e);
	p->q = clCreateCommandQueue(p->c, p->d, 0, &e);
	CHECK(e);
	/* a define no cache has seen makes the first build cold */
	snprintf(opts, sizeof(opts), "-cl-std=CL1.2 -DBENCH_SALT=%ld%ld%d",
		 (long)getpid(), (long)time(NULL), pass);
	prog = build(p, opts, &p->cold_ms);
	again = build(p, opts, &p->warm_ms);
	CHECK(clReleaseProgram(again));
	p->small_ms = small_cold(p, pass);

	m[0] = buffer(p, s->n_vec, h->a);
	m[1] = buffer(p, s->n_vec, h->b);
	m[2] = buffer(p, s->n_vec, NULL);
	run_job(p, prog, &(struct job){ VADD, 1, &s->n_vec, &l1, bufs, 3,
					m[2], h->vadd, s->n_vec, 1e-6 },
		runs, out);
	poison(p, m[2], s->n_vec);
	run_job(p, prog, &(struct job){ VADD_GUARD, 1, &s->n_vec, &l1, guard,
					4, m[2], h->vadd, n_guard, 1e-6 },
		runs, out);
	poison(p, m[2], s->n_vec);
	run_job(p, prog, &(struct job){ VADD_PRIME, 1, &n_prime, NULL, bufs,
					3, m[2], h->vadd, n_prime, 1e-6 },
		runs, out);
	run_job(p, prog, &(struct job){ SAXPY, 1, &s->n_vec, &l1, saxpy, 4,
					m[2], h->saxpy, s->n_vec, 1e-6 },
		runs, out);
	poison(p, m[2], s->n_vec);
	run_job(p, prog, &(struct job){ SAXPY4, 1, &n_vec4, &l1, saxpy, 4,
					m[2], h->saxpy, s->n_vec, 1e-6 },
		runs, out);
	release(m, 3);

	m[0] = buffer(p, s->n_sin, h->x);
	m[1] = buffer(p, s->n_sin, NULL);
	/* OpenCL allows 4 ulp per sin(): 8 of them, values up to 8 */
	run_job(p, prog, &(struct job){ SINS, 1, &s->n_sin, &l1, bufs, 2,
					m[1], h->sins, s->n_sin, 1e-5 },
		runs, out);
	release(m, 2);

	m[0] = buffer(p, nn, h->ma);
	m[1] = buffer(p, nn, h->mb);
	for (int w = NAIVE; w <= TILED; w++) {
		m[2] = buffer(p, nn, NULL);
		run_job(p, prog, &(struct job){ w, 2, g2, l2, mat, 4, m[2],
						h->mat, nn, 1e-4 },
			runs, out);
		release(&m[2], 1);
	}
	release(m, 2);

	m[0] = buffer(p, s->n_red, h->y);
	m[1] = buffer(p, nr, NULL);
	run_job(p, prog, &(struct job){ REDUCE, 1, &s->n_red, &s->red_ls, red,
					3, m[1], h->red, nr, 1e-5 },
		runs, out);
	release(m, 2);

	CHECK(clReleaseProgram(prog));
	CHECK(clReleaseCommandQueue(p->q));
	CHECK(clReleaseContext(p->c));
	free(out);
}

static void row(const char *what, double ours, double pocl,
		const char *c1, const char *c2)
{
	printf("%-28s %10.2f %10.2f %8.2f", what, ours, pocl, ours / pocl);
	if (c1)
		printf("   %s/%s", c1, c2);
	printf("\n");
}

static double min(double a, double b)
{
	return a < b ? a : b;
}

/* @p p: the better of its and @p q's numbers (both checks must pass). */
static void keep_best(struct plat *p, const struct plat *q)
{
	p->cold_ms = min(p->cold_ms, q->cold_ms);
	p->warm_ms = min(p->warm_ms, q->warm_ms);
	p->small_ms = min(p->small_ms, q->small_ms);
	for (int w = 0; w < N_KERNELS; w++) {
		p->ms[w] = min(p->ms[w], q->ms[w]);
		p->median_ms[w] = min(p->median_ms[w], q->median_ms[w]);
		p->first_ms[w] = min(p->first_ms[w], q->first_ms[w]);
		if (strcmp(q->check[w], "ok"))
			p->check[w] = q->check[w];
	}
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-r RUNS] [-m MATRIX_N] [-v VECTOR_M]\n"
		"  -r  timed runs per kernel (default 5)\n"
		"  -m  SGEMM size, a multiple of %d (default 512)\n"
		"  -v  element-wise size in millions of floats (default 16)\n",
		prog, TS);
	exit(2);
}

int main(int argc, char **argv)
{
	struct plat ours = { .label = "libaccel" }, pocl = { .label = "pocl" };
	struct plat ours2, pocl2;
	struct host h = { .s = { .n_mat = 512, .red_ls = 256 } };
	unsigned runs = 5, mvec = 16;
	char label[64];
	int opt;

	while ((opt = getopt(argc, argv, "r:m:v:")) != -1) {
		if (opt == 'r')
			runs = bench_parse_count(argv[0], optarg, "runs", 1000);
		else if (opt == 'm')
			h.s.n_mat = bench_parse_count(argv[0], optarg, "size",
						      4096);
		else if (opt == 'v')
			mvec = bench_parse_count(argv[0], optarg, "size", 256);
		else
			usage(argv[0]);
	}
	if (h.s.n_mat % TS)
		usage(argv[0]);
	h.s.n_vec = (size_t)mvec << 20;
	h.s.n_sin = h.s.n_vec / 4;
	h.s.n_red = h.s.n_vec;
#ifdef BENCH_VENDORS_DIR
	/* both platforms, before the loader's first look */
	setenv("OCL_ICD_VENDORS", BENCH_VENDORS_DIR, 0);
#endif
	bench_print_machine("start");
	if (!find_platforms(&ours, &pocl)) {
		fprintf(stderr, "need both the libaccel and the PoCL platform "
			"(OCL_ICD_VENDORS=%s)\n",
			getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") :
						    "unset");
		return 77;
	}
	host_refs(&h);
	/* ABBA: a load that drifts during the run favours neither */
	run_platform(&ours, &h, runs, 0);
	run_platform(&pocl, &h, runs, 0);
	pocl2 = pocl, ours2 = ours;
	run_platform(&pocl2, &h, runs, 1);
	run_platform(&ours2, &h, runs, 1);
	keep_best(&ours, &ours2);
	keep_best(&pocl, &pocl2);

	printf("\n%-28s %10s %10s %8s   %s\n", "milliseconds", "libaccel",
	       "pocl", "ratio", "check");
	row("build, cold", ours.cold_ms, pocl.cold_ms, NULL, NULL);
	row("build, warm (same again)", ours.warm_ms, pocl.warm_ms, NULL,
	    NULL);
	row("small kernel: build + launch", ours.small_ms, pocl.small_ms,
	    NULL, NULL);
	for (int w = 0; w < N_KERNELS; w++) {
		snprintf(label, sizeof(label), "%s", kernel_names[w]);
		row(label, ours.ms[w], pocl.ms[w], ours.check[w],
		    pocl.check[w]);
	}
	printf("\nmedian:\n");
	for (int w = 0; w < N_KERNELS; w++)
		row(kernel_names[w], ours.median_ms[w], pocl.median_ms[w], NULL,
		    NULL);
	printf("\nfirst run (pocl generates code per kernel and local size "
	       "here):\n");
	for (int w = 0; w < N_KERNELS; w++)
		row(kernel_names[w], ours.first_ms[w], pocl.first_ms[w], NULL,
		    NULL);
	printf("\nsizes: element-wise %zu floats, sin() %zu x 8, SGEMM %zu^2 "
	       "(tiles %dx%d), reduce %zu in groups of %zu; best of 2 x %u\n",
	       h.s.n_vec, h.s.n_sin, h.s.n_mat, TS, TS, h.s.n_red,
	       h.s.red_ls, runs);
	bench_print_machine("end");
	/* For bench/perf-compare.sh: "result NAME LIBACCEL POCL" in ms. */
	printf("result build-cold %.4f %.4f\n", ours.cold_ms, pocl.cold_ms);
	printf("result build-warm %.4f %.4f\n", ours.warm_ms, pocl.warm_ms);
	printf("result build-small %.4f %.4f\n", ours.small_ms,
	       pocl.small_ms);
	for (int w = 0; w < N_KERNELS; w++)
		printf("result %s %.4f %.4f\n", kernel_names[w], ours.ms[w],
		       pocl.ms[w]);
	for (int w = 0; w < N_KERNELS; w++)
		if (strcmp(ours.check[w], "ok") || strcmp(pocl.check[w], "ok"))
			return 1;
	return 0;
}
