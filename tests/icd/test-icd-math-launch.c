/* SPDX-License-Identifier: MIT */
/*
 * Math builtins through the OpenCL API at every launch size: pown, sinpi,
 * cospi, tanpi, sincos (both results), pow, sin and exp, in float and
 * double (with fp64), at widths 1, 2, 3, 4, 8 and 16 (typed vector
 * pointers; vload3/vstore3 for 3), each kernel launched over every global
 * size from 1 to 64 with the runtime's local size and a few explicit ones.
 *
 * The compiler vectorises a kernel's work-item loop, and the vector math
 * it calls must keep each lane's result in that lane: once the loop is
 * wider than the target's legal vectors, a mix-up gives work-items the
 * results of others (items 4-7 of a 12-item launch came back with those
 * of items 0-3), at some launch sizes only. So every work-item reads
 * inputs of its own, every result is checked against a long double
 * reference at the OpenCL 3.0 full profile ULP limits, and what lies
 * beyond the launch must keep the poison written before it.
 *
 * Also -cl-denorms-are-zero: a program built with it flushes denormal
 * inputs and results to zero, one built without gives them exactly, run
 * back to back on the same queue (tests/compiler/test-denorms.c has the
 * rest).
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

typedef long double L;

#define MAX_ITEMS 64u
#define MAX_WIDTH 16u
#define MAX_ELEMS (MAX_ITEMS * MAX_WIDTH)
/* failures printed before the test gives up on a type */
#define MAX_REPORTS 20u

static const L pi_l = 3.141592653589793238462643383279502884L;

static const unsigned widths[] = { 1, 2, 3, 4, 8, 16 };
/* explicit local sizes, with the global sizes they divide */
static const size_t locals[] = { 2, 3, 8, 16 };

/* ---- references --------------------------------------------------------- */

/*
 * sin(pi r) and cos(pi r) for |r| <= 1/2, accurate relative to the result
 * also near the zeros: past 1/4 the other function of 1/2 - |r| (exact)
 * is taken, so no product with pi ever stands close to a zero.
 */
static L sinpi_red(L r)
{
	if (fabsl(r) <= 0.25L)
		return sinl(pi_l * r);
	return copysignl(cosl(pi_l * (0.5L - fabsl(r))), r);
}

static L cospi_red(L r)
{
	if (fabsl(r) <= 0.25L)
		return cosl(pi_l * r);
	return sinl(pi_l * (0.5L - fabsl(r)));
}

/* x = k + r, k an integer, |r| <= 1/2, r exact */
static L split(L x, long long *k)
{
	L n = roundl(x);

	*k = (long long)n;
	return x - n;
}

static L ref_sinpi(L x, L y, int n)
{
	long long k;
	L r = split(x, &k);

	(void)y, (void)n;
	return k & 1 ? -sinpi_red(r) : sinpi_red(r);
}

static L ref_cospi(L x, L y, int n)
{
	long long k;
	L r = split(x, &k);

	(void)y, (void)n;
	return k & 1 ? -cospi_red(r) : cospi_red(r);
}

static L ref_tanpi(L x, L y, int n)
{
	long long k;
	L r = split(x, &k);

	(void)y, (void)n;
	/* the pole at m + 1/2: +inf for m even, -inf for m odd */
	if (fabsl(r) == 0.5L)
		return fmodl(floorl(x), 2.0L) == 0.0L ? INFINITY : -INFINITY;
	if (fabsl(r) <= 0.25L)
		return tanl(pi_l * r);
	return copysignl(1.0L / tanl(pi_l * (0.5L - fabsl(r))), r);
}

static L ref_pown(L x, L y, int n)
{
	(void)y;
	return powl(x, (L)n);
}

static L ref_pow(L x, L y, int n)
{
	(void)n;
	return powl(x, y);
}

static L ref_sin(L x, L y, int n)
{
	(void)y, (void)n;
	return sinl(x);
}

static L ref_cos(L x, L y, int n)
{
	(void)y, (void)n;
	return cosl(x);
}

static L ref_exp(L x, L y, int n)
{
	(void)y, (void)n;
	return expl(x);
}

/* ---- the functions ------------------------------------------------------ */

struct fn {
	const char *name;
	/* OpenCL C: r (and for sincos c) from x, y (same type), k (int) */
	const char *stmt;
	L (*ref)(L x, L y, int n);
	/* sincos: the second result, c */
	L (*ref2)(L x, L y, int n);
	/* ULP limit, the same in the float and the double table */
	double ulp;
	/* x in [lo, hi] (for float, double), sign flipped when neg; y in
	 * [ylo, yhi]; k in [-kmax, kmax] */
	double lo[2], hi[2];
	bool neg;
	double ylo, yhi;
	int kmax;
};

static const struct fn fns[] = {
	{ "pown", "r = pown(x, k);", ref_pown, NULL, 16,
	  { 0.25, 0.25 }, { 8, 8 }, true, 0, 0, 16 },
	{ "sinpi", "r = sinpi(x);", ref_sinpi, NULL, 4,
	  { 0, 0 }, { 6, 6 }, true, 0, 0, 0 },
	{ "cospi", "r = cospi(x);", ref_cospi, NULL, 4,
	  { 0, 0 }, { 6, 6 }, true, 0, 0, 0 },
	{ "tanpi", "r = tanpi(x);", ref_tanpi, NULL, 6,
	  { 0, 0 }, { 6, 6 }, true, 0, 0, 0 },
	{ "sincos", "r = sincos(x, &c);", ref_sin, ref_cos, 4,
	  { 0, 0 }, { 60, 1000 }, true, 0, 0, 0 },
	{ "pow", "r = pow(x, y);", ref_pow, NULL, 16,
	  { 0.05, 0.05 }, { 20, 20 }, false, -10, 10, 0 },
	{ "sin", "r = sin(x);", ref_sin, NULL, 4,
	  { 0, 0 }, { 60, 1000 }, true, 0, 0, 0 },
	{ "exp", "r = exp(x);", ref_exp, NULL, 3,
	  { 0, 0 }, { 80, 700 }, true, 0, 0, 0 },
};
#define N_FNS ICD_TEST_ARRAY_SIZE(fns)

/* Exactly representable inputs worth a look: zeros and halves of sinpi
 * and friends, integers; placed at the start of x. */
static const double specials[] = { 0.0, -0.0, 1.0, -2.0, 0.25, -0.75,
				   0.5, 3.5 };

/* ---- one floating-point type -------------------------------------------- */

struct type {
	const char *name;
	size_t size;
	int mant, emin;
	bool dbl;
};

static const struct type t_float = { "float", sizeof(float), 24, -126, false };
static const struct type t_double = { "double", sizeof(double), 53, -1022,
				      true };

/* Everything one type's run needs: the program, its kernels, buffers. */
struct run {
	struct icd_env *env;
	const struct type *t;
	cl_program prog;
	cl_kernel k[N_FNS][ICD_TEST_ARRAY_SIZE(widths)];
	cl_mem a[N_FNS], b[N_FNS], n, o, o2;
	/* the inputs as the device sees them, and the references */
	L x[N_FNS][MAX_ELEMS], y[N_FNS][MAX_ELEMS];
	int kk[MAX_ELEMS];
	L ref[N_FNS][MAX_ELEMS], ref2[N_FNS][MAX_ELEMS];
	unsigned char poison[MAX_ELEMS * sizeof(double)];
	unsigned char out[MAX_ELEMS * sizeof(double)];
	unsigned char out2[MAX_ELEMS * sizeof(double)];
	unsigned failures;
	unsigned launches;
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

static double rnd_range(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rnd(s) >> 11) * 0x1p-53);
}

/* ULPs between @p test and the exact @p ref in a format of @p t. */
static double ulp_error(const struct type *t, L test, L ref)
{
	L big = ldexpl(1.0L, -t->emin + 2); /* 2^(emax + 1) */
	int e;

	if (isnan(ref))
		return isnan(test) ? 0.0 : INFINITY;
	if (isnan(test))
		return INFINITY;
	/* beyond the range, the correctly rounded result is inf */
	if (fabsl(ref) >= big)
		ref = copysignl(big, ref);
	if (isinf(test))
		test = copysignl(big, test);
	e = ref == 0.0L ? t->emin : ilogbl(ref);
	if (e < t->emin)
		e = t->emin;
	return (double)(fabsl(test - ref) / ldexpl(1.0L, e - (t->mant - 1)));
}

/* Element @p i of @p p, an array of @p t. */
static L elem(const struct type *t, const void *p, size_t i)
{
	if (t->dbl)
		return ((const double *)p)[i];
	return ((const float *)p)[i];
}

/* Store @p v (exactly representable) as element @p i; returns it. */
static L put(const struct type *t, void *p, size_t i, double v)
{
	if (t->dbl) {
		((double *)p)[i] = v;
		return v;
	}
	((float *)p)[i] = (float)v;
	return (float)v;
}

static cl_mem buffer(struct run *r, cl_mem_flags flags, size_t size,
		     void *host)
{
	cl_int err = CL_SUCCESS;
	cl_mem m = clCreateBuffer(r->env->ctx, flags, size, host, &err);

	CL_OK(err);
	return m;
}

/* The program: a kernel per function and width. */
static char *source(const struct type *t)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	if (t->dbl)
		len += (size_t)snprintf(s + len, cap - len,
			"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
	for (size_t f = 0; f < N_FNS; f++) {
		for (size_t w = 0; w < ICD_TEST_ARRAY_SIZE(widths); w++) {
			unsigned n = widths[w];
			char tn[16] = "", in[16] = "";
			int m;

			if (n > 1) {
				snprintf(tn, sizeof(tn), "%u", n);
				snprintf(in, sizeof(in), "%u", n);
			}
			if (n == 3)
				m = snprintf(s + len, cap - len,
					"kernel void %s_%u(global const %s *a,"
					" global const %s *b,"
					" global const int *n,"
					" global %s *o, global %s *o2)\n"
					"{\n"
					"	size_t i = get_global_id(0);\n"
					"	%s3 x = vload3(i, a),"
					" y = vload3(i, b), r, c = 0;\n"
					"	int3 k = vload3(i, n);\n"
					"	%s\n"
					"	vstore3(r, i, o);\n"
					"	vstore3(c, i, o2);\n"
					"}\n",
					fns[f].name, n, t->name, t->name,
					t->name, t->name, t->name,
					fns[f].stmt);
			else
				m = snprintf(s + len, cap - len,
					"kernel void %s_%u("
					"global const %s%s *a,"
					" global const %s%s *b,"
					" global const int%s *n,"
					" global %s%s *o, global %s%s *o2)\n"
					"{\n"
					"	size_t i = get_global_id(0);\n"
					"	%s%s x = a[i], y = b[i],"
					" r, c = 0;\n"
					"	int%s k = n[i];\n"
					"	%s\n"
					"	o[i] = r;\n"
					"	o2[i] = c;\n"
					"}\n",
					fns[f].name, n, t->name, tn, t->name,
					tn, in, t->name, tn, t->name, tn,
					t->name, tn, in, fns[f].stmt);
			assert_true(m > 0 && (size_t)m < cap - len);
			len += (size_t)m;
		}
	}
	return s;
}

/* Inputs, references and buffers; the program built, kernels made. */
static void run_setup(struct run *r, struct icd_env *env,
		      const struct type *t)
{
	uint64_t seed = t->dbl ? 0x5eed0d0b1eULL : 0x5eedf10a7ULL;
	void *host = calloc(MAX_ELEMS, sizeof(double));
	void *hosty = calloc(MAX_ELEMS, sizeof(double));
	cl_int err = CL_SUCCESS;
	char *src;

	assert_non_null(host);
	assert_non_null(hosty);
	r->env = env;
	r->t = t;
	for (size_t f = 0; f < N_FNS; f++) {
		const struct fn *fn = &fns[f];

		for (size_t i = 0; i < MAX_ELEMS; i++) {
			double v = rnd_range(&seed, fn->lo[t->dbl],
					     fn->hi[t->dbl]);

			if (fn->neg && (rnd(&seed) & 1))
				v = -v;
			/* not for pown and pow, whose x keeps away from 0
			 * (no overflow) */
			if (fn->lo[t->dbl] == 0 &&
			    i < ICD_TEST_ARRAY_SIZE(specials))
				v = specials[i];
			r->x[f][i] = put(t, host, i, v);
			r->y[f][i] = put(t, hosty, i,
					 rnd_range(&seed, fn->ylo, fn->yhi));
		}
		r->a[f] = buffer(r, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
				 MAX_ELEMS * t->size, host);
		r->b[f] = buffer(r, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
				 MAX_ELEMS * t->size, hosty);
	}
	for (size_t i = 0; i < MAX_ELEMS; i++)
		r->kk[i] = (int)(rnd(&seed) % 33) - 16;
	for (size_t f = 0; f < N_FNS; f++)
		for (size_t i = 0; i < MAX_ELEMS; i++) {
			r->ref[f][i] = fns[f].ref(r->x[f][i], r->y[f][i],
						  r->kk[i]);
			if (fns[f].ref2)
				r->ref2[f][i] = fns[f].ref2(r->x[f][i],
							    r->y[f][i],
							    r->kk[i]);
		}
	r->n = buffer(r, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
		      sizeof(r->kk), r->kk);
	r->o = buffer(r, CL_MEM_READ_WRITE, MAX_ELEMS * t->size, NULL);
	r->o2 = buffer(r, CL_MEM_READ_WRITE, MAX_ELEMS * t->size, NULL);
	/* a quiet NaN with a payload no function returns */
	for (size_t i = 0; i < MAX_ELEMS; i++) {
		if (t->dbl) {
			uint64_t p = UINT64_C(0x7ff8dead0000beef) + i;

			memcpy(r->poison + i * 8, &p, 8);
		} else {
			uint32_t p = 0x7fc0de00u + (uint32_t)i;

			memcpy(r->poison + i * 4, &p, 4);
		}
	}
	free(host);
	free(hosty);

	src = source(t);
	r->prog = icd_test_build(env, src, NULL);
	free(src);
	for (size_t f = 0; f < N_FNS; f++)
		for (size_t w = 0; w < ICD_TEST_ARRAY_SIZE(widths); w++) {
			char name[32];
			cl_kernel k;

			snprintf(name, sizeof(name), "%s_%u", fns[f].name,
				 widths[w]);
			k = clCreateKernel(r->prog, name, &err);
			CL_OK(err);
			CL_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &r->a[f]));
			CL_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &r->b[f]));
			CL_OK(clSetKernelArg(k, 2, sizeof(cl_mem), &r->n));
			CL_OK(clSetKernelArg(k, 3, sizeof(cl_mem), &r->o));
			CL_OK(clSetKernelArg(k, 4, sizeof(cl_mem), &r->o2));
			r->k[f][w] = k;
		}
}

static void run_teardown(struct run *r)
{
	for (size_t f = 0; f < N_FNS; f++) {
		for (size_t w = 0; w < ICD_TEST_ARRAY_SIZE(widths); w++)
			CL_OK(clReleaseKernel(r->k[f][w]));
		CL_OK(clReleaseMemObject(r->a[f]));
		CL_OK(clReleaseMemObject(r->b[f]));
	}
	CL_OK(clReleaseMemObject(r->n));
	CL_OK(clReleaseMemObject(r->o));
	CL_OK(clReleaseMemObject(r->o2));
	CL_OK(clReleaseProgram(r->prog));
}

static void report(struct run *r, const char *what, unsigned width,
		   size_t global, size_t local, size_t item, unsigned lane,
		   size_t f, size_t e, L got, L want, double ulp)
{
	const struct fn *fn = &fns[f];
	char lsz[24] = "NULL", in[96];

	if (++r->failures > MAX_REPORTS)
		return;
	if (local)
		snprintf(lsz, sizeof(lsz), "%zu", local);
	if (fn->kmax)
		snprintf(in, sizeof(in), "x %La k %d", r->x[f][e], r->kk[e]);
	else if (fn->yhi > fn->ylo)
		snprintf(in, sizeof(in), "x %La y %La", r->x[f][e],
			 r->y[f][e]);
	else
		snprintf(in, sizeof(in), "x %La", r->x[f][e]);
	printf("FAIL %s%s %s%.0u global %zu local %s: item %zu lane %u: "
	       "%s: got %La (%.9Lg), expected %La (%.9Lg) (%.3g ulp, "
	       "limit %g)\n",
	       fn->name, what, r->t->name, width > 1 ? width : 0, global,
	       lsz, item, lane, in, got, got, want, want, ulp, fn->ulp);
}

/* Check @p out (and @p out2) after a launch of @p global items. */
static void check(struct run *r, size_t f, unsigned width, size_t global,
		  size_t local, const unsigned char *out, const L *ref,
		  const char *what)
{
	const struct type *t = r->t;
	size_t used = global * width;

	for (size_t e = 0; e < used; e++) {
		L got = elem(t, out, e);
		double u = ulp_error(t, got, ref[e]);

		if (!(u <= fns[f].ulp))
			report(r, what, width, global, local, e / width,
			       (unsigned)(e % width), f, e, got, ref[e], u);
	}
	/* nothing written past the launch */
	for (size_t e = used; e < MAX_ELEMS; e++)
		if (memcmp(out + e * t->size, r->poison + e * t->size,
			   t->size)) {
			if (++r->failures <= MAX_REPORTS)
				printf("FAIL %s%s %s%.0u global %zu: element "
				       "%zu past the launch was written\n",
				       fns[f].name, what, t->name,
				       width > 1 ? width : 0, global, e);
			break;
		}
}

static void launch(struct run *r, size_t f, size_t w, size_t global,
		   size_t local)
{
	struct icd_env *env = r->env;
	size_t bytes = MAX_ELEMS * r->t->size;
	bool two = fns[f].ref2 != NULL;

	CL_OK(clEnqueueWriteBuffer(env->queue, r->o, CL_FALSE, 0, bytes,
				   r->poison, 0, NULL, NULL));
	if (two)
		CL_OK(clEnqueueWriteBuffer(env->queue, r->o2, CL_FALSE, 0,
					   bytes, r->poison, 0, NULL, NULL));
	CL_OK(clEnqueueNDRangeKernel(env->queue, r->k[f][w], 1, NULL,
				     &global, local ? &local : NULL, 0, NULL,
				     NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, r->o, CL_FALSE, 0, bytes,
				  r->out, 0, NULL, NULL));
	if (two)
		CL_OK(clEnqueueReadBuffer(env->queue, r->o2, CL_FALSE, 0,
					  bytes, r->out2, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	r->launches++;
	check(r, f, widths[w], global, local, r->out, r->ref[f], "");
	if (two)
		check(r, f, widths[w], global, local, r->out2, r->ref2[f],
		      "(cos)");
}

static void run_type(struct icd_env *env, const struct type *t)
{
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	run_setup(r, env, t);
	for (size_t f = 0; f < N_FNS; f++)
		for (size_t w = 0; w < ICD_TEST_ARRAY_SIZE(widths); w++) {
			for (size_t g = 1; g <= MAX_ITEMS; g++)
				launch(r, f, w, g, 0);
			for (size_t l = 0; l < ICD_TEST_ARRAY_SIZE(locals);
			     l++)
				for (size_t g = locals[l]; g <= MAX_ITEMS;
				     g += locals[l])
					launch(r, f, w, g, locals[l]);
		}
	run_teardown(r);
	printf("%s: %u launches, %u failures\n", t->name, r->launches,
	       r->failures);
	if (r->failures) {
		unsigned n = r->failures;

		free(r);
		fail_msg("%u results wrong (the first %u above)", n,
			 n < MAX_REPORTS ? n : MAX_REPORTS);
	}
	free(r);
}

static bool have_fp64(struct icd_env *env)
{
	cl_device_fp_config c = 0;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_DOUBLE_FP_CONFIG,
			      sizeof(c), &c, NULL));
	return c != 0;
}

static void test_float(void **state)
{
	struct icd_env *env = *state;

	if (!icd_test_have_compiler(env))
		skip();
	run_type(env, &t_float);
}

static void test_double(void **state)
{
	struct icd_env *env = *state;

	if (!icd_test_have_compiler(env) || !have_fp64(env))
		skip();
	run_type(env, &t_double);
}

/* ---- -cl-denorms-are-zero ------------------------------------------------ */

#define DZ_ITEMS 64u

/*
 * a + b: denormals of one sign, a denormal sum (flushed: DAZ and FTZ);
 * a * 2^100: a denormal input, a normal result (DAZ); n * 2^-100: normal
 * inputs, a denormal result (FTZ).
 */
static const char dz_src[] =
	"kernel void dz(global const float *a, global const float *b,\n"
	"		global const float *n, global float *out)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	out[3 * i] = a[i] + b[i];\n"
	"	out[3 * i + 1] = a[i] * 0x1p100f;\n"
	"	out[3 * i + 2] = n[i] * 0x1p-100f;\n"
	"}\n";

static void dz_run(struct icd_env *env, cl_program prog, cl_mem *bufs,
		   const float *exact, bool flush)
{
	float out[3 * DZ_ITEMS];
	size_t global = DZ_ITEMS, local = 1;
	cl_int err = CL_SUCCESS;
	cl_kernel k = clCreateKernel(prog, "dz", &err);
	unsigned bad = 0;

	CL_OK(err);
	for (cl_uint i = 0; i < 4; i++)
		CL_OK(clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]));
	/* one item per group: every worker gets some */
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
				     0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, bufs[3], CL_TRUE, 0,
				  sizeof(out), out, 0, NULL, NULL));
	for (unsigned i = 0; i < 3 * DZ_ITEMS; i++) {
		float want = flush ? copysignf(0.0f, exact[i]) : exact[i];

		if (out[i] == want && signbit(out[i]) == signbit(want))
			continue;
		if (++bad <= 8)
			printf("FAIL dz %s: item %u result %u: got %a, "
			       "expected %a\n",
			       flush ? "-cl-denorms-are-zero" : "IEEE", i / 3,
			       i % 3, out[i], want);
	}
	CL_OK(clReleaseKernel(k));
	assert_int_equal(bad, 0);
}

static void test_denorms(void **state)
{
	struct icd_env *env = *state;
	float a[DZ_ITEMS], b[DZ_ITEMS], n[DZ_ITEMS], exact[3 * DZ_ITEMS];
	cl_device_fp_config c = 0;
	cl_program flush, keep;
	cl_mem bufs[4];
	cl_int err = CL_SUCCESS;

	if (!icd_test_have_compiler(env))
		skip();
	/* without the option, denormals are what the device supports */
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_SINGLE_FP_CONFIG,
			      sizeof(c), &c, NULL));
	assert_true(c & CL_FP_DENORM);
	for (unsigned i = 0; i < DZ_ITEMS; i++) {
		float s = i & 1 ? -1.0f : 1.0f;
		volatile float x, y, z;

		a[i] = s * (float)(i + 1) * FLT_TRUE_MIN;
		b[i] = s * (float)(3 * i + 2) * FLT_TRUE_MIN;
		n[i] = s * 0x1p-30f * (1 + (float)i / 64);
		x = a[i];
		y = b[i];
		z = n[i];
		exact[3 * i] = x + y;
		exact[3 * i + 1] = x * 0x1p100f;
		exact[3 * i + 2] = z * 0x1p-100f;
		assert_int_equal(fpclassify(exact[3 * i]), FP_SUBNORMAL);
		assert_int_equal(fpclassify(exact[3 * i + 2]), FP_SUBNORMAL);
	}
	bufs[0] = clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, sizeof(a), a,
				 &err);
	CL_OK(err);
	bufs[1] = clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, sizeof(b), b,
				 &err);
	CL_OK(err);
	bufs[2] = clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, sizeof(n), n,
				 &err);
	CL_OK(err);
	bufs[3] = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(exact),
				 NULL, &err);
	CL_OK(err);
	flush = icd_test_build(env, dz_src, "-cl-denorms-are-zero");
	keep = icd_test_build(env, dz_src, NULL);
	for (int round = 0; round < 2; round++) {
		dz_run(env, keep, bufs, exact, false);
		dz_run(env, flush, bufs, exact, true);
	}
	dz_run(env, keep, bufs, exact, false);
	for (int i = 0; i < 4; i++)
		CL_OK(clReleaseMemObject(bufs[i]));
	CL_OK(clReleaseProgram(flush));
	CL_OK(clReleaseProgram(keep));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_float),
		T(test_double),
		T(test_denorms),
	};
#undef T

	return ICD_TEST_RUN("icd-math-launch", tests);
}
