/* SPDX-License-Identifier: MIT */
/*
 * OpenCL host-side costs of one platform, in a fresh process (the first
 * clGetPlatformIDs() is one of them): run it with OCL_ICD_VENDORS naming
 * a directory that holds only that platform's .icd (bench/perf-compare.sh
 * does, alternating libaccel and PoCL). OpenCL 1.2 calls only.
 *
 * Prints one line per measurement, "result NAME VALUE UNIT", after a
 * human-readable header:
 *   first-platform-ids  ms   the first clGetPlatformIDs() of the process
 *   empty-latency       us   enqueue one empty kernel + clFinish, median
 *   empty-back-to-back  us   per launch, N launches then one clFinish
 *   vadd                GB/s c = a + b over 16M floats (3 x 64 MiB moved),
 *                            best of the runs, checked against the host
 *   triad               GB/s STREAM triad a = b + s * c on the host, all
 *                            CPUs, same sizes: the memory system's pace
 *   map-64m             us   map + unmap of a 64 MiB buffer for writing,
 *                            median; memcpy-64m: one copy of it, for scale
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-cl.h"
#include "bench-util.h"

static const char source[] =
	"kernel void empty(void) { }\n"
	"kernel void vadd(global const float *a, global const float *b,\n"
	"		  global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n";

struct ocl {
	cl_platform_id p;
	cl_device_id d;
	cl_context c;
	cl_command_queue q;
	cl_program prog;
	cl_kernel empty, vadd;
};

static double median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	return (double)v[n / 2];
}

static void ocl_open(struct ocl *o)
{
	char name[256] = "";
	cl_int e;

	CHECK(clGetDeviceIDs(o->p, CL_DEVICE_TYPE_ALL, 1, &o->d, NULL));
	CHECK(clGetPlatformInfo(o->p, CL_PLATFORM_NAME, sizeof(name), name,
				NULL));
	printf("platform \"%s\"\n", name);
	CHECK(clGetDeviceInfo(o->d, CL_DEVICE_NAME, sizeof(name), name, NULL));
	printf("device   \"%s\"\n", name);
	o->c = clCreateContext(NULL, 1, &o->d, NULL, NULL, &e);
	CHECK(e);
	o->q = clCreateCommandQueue(o->c, o->d, 0, &e);
	CHECK(e);
	{
		const char *src = source;

		o->prog = clCreateProgramWithSource(o->c, 1, &src, NULL, &e);
		CHECK(e);
	}
	CHECK(clBuildProgram(o->prog, 1, &o->d, "", NULL, NULL));
	o->empty = clCreateKernel(o->prog, "empty", &e);
	CHECK(e);
	o->vadd = clCreateKernel(o->prog, "vadd", &e);
	CHECK(e);
}

static void ocl_close(struct ocl *o)
{
	clReleaseKernel(o->vadd);
	clReleaseKernel(o->empty);
	clReleaseProgram(o->prog);
	clReleaseCommandQueue(o->q);
	clReleaseContext(o->c);
}

static void bench_empty(struct ocl *o, unsigned n)
{
	size_t g = 1;
	uint64_t *t = calloc(n, sizeof(*t)), t0;
	unsigned i;

	if (!t)
		exit(1);
	for (i = 0; i < n / 10 + 10; i++) {
		CHECK(clEnqueueNDRangeKernel(o->q, o->empty, 1, NULL, &g, NULL,
					     0, NULL, NULL));
		CHECK(clFinish(o->q));
	}
	for (i = 0; i < n; i++) {
		t0 = bench_now_ns();
		CHECK(clEnqueueNDRangeKernel(o->q, o->empty, 1, NULL, &g, NULL,
					     0, NULL, NULL));
		CHECK(clFinish(o->q));
		t[i] = bench_now_ns() - t0;
	}
	bench_result("empty-latency", median(t, n) / 1e3, "us");

	/* Back to back: the best of 5 rounds of n launches. */
	for (unsigned r = 0; r < 5; r++) {
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			CHECK(clEnqueueNDRangeKernel(o->q, o->empty, 1, NULL,
						     &g, NULL, 0, NULL, NULL));
		CHECK(clFinish(o->q));
		t[r] = bench_now_ns() - t0;
	}
	qsort(t, 5, sizeof(*t), bench_cmp_u64);
	bench_result("empty-back-to-back", (double)t[0] / n / 1e3, "us");
	free(t);
}

static float *falloc(size_t n)
{
	float *p = aligned_alloc(4096, n * sizeof(float));

	if (!p)
		exit(1);
	return p;
}

static void bench_vadd(struct ocl *o, size_t n, unsigned runs)
{
	float *a = falloc(n), *b = falloc(n), *c = falloc(n);
	size_t bytes = n * sizeof(float), local = 256;
	uint64_t best = UINT64_MAX, t0, t;
	cl_mem m[3];
	cl_int e;
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		a[i] = (float)(i % 1000);
		b[i] = (float)(i % 7) * 0.5f;
	}
	m[0] = clCreateBuffer(o->c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			      bytes, a, &e);
	CHECK(e);
	m[1] = clCreateBuffer(o->c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			      bytes, b, &e);
	CHECK(e);
	m[2] = clCreateBuffer(o->c, CL_MEM_WRITE_ONLY, bytes, NULL, &e);
	CHECK(e);
	for (i = 0; i < 3; i++)
		CHECK(clSetKernelArg(o->vadd, (cl_uint)i, sizeof(cl_mem),
				     &m[i]));
	for (unsigned r = 0; r <= runs; r++) {
		t0 = bench_now_ns();
		CHECK(clEnqueueNDRangeKernel(o->q, o->vadd, 1, NULL, &n,
					     &local, 0, NULL, NULL));
		CHECK(clFinish(o->q));
		t = bench_now_ns() - t0;
		/* the first run pays lazy code generation (PoCL) */
		if (r && t < best)
			best = t;
	}
	CHECK(clEnqueueReadBuffer(o->q, m[2], CL_TRUE, 0, bytes, c, 0, NULL,
				  NULL));
	for (i = 0; i < n; i++)
		bad += c[i] != a[i] + b[i];
	if (bad) {
		fprintf(stderr, "vadd: %zu wrong results\n", bad);
		exit(1);
	}
	bench_result("vadd", 3.0 * (double)bytes / (double)best, "GB/s");
	for (i = 0; i < 3; i++)
		clReleaseMemObject(m[i]);
	free(a);
	free(b);
	free(c);
}

struct triad {
	float *a, *b, *c;
	size_t from, to;
};

static void *triad_part(void *arg)
{
	struct triad *t = arg;

	for (size_t i = t->from; i < t->to; i++)
		t->a[i] = t->b[i] + 3.0f * t->c[i];
	return NULL;
}

/* STREAM triad with one thread per online CPU, best of the runs. */
static void bench_triad(size_t n, unsigned runs)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nt = ncpu > 0 && ncpu < 256 ? (unsigned)ncpu : 1;
	float *a = falloc(n), *b = falloc(n), *c = falloc(n);
	pthread_t th[256];
	struct triad parts[256];
	uint64_t best = UINT64_MAX, t0, t;

	memset(a, 0, n * sizeof(float));
	for (size_t i = 0; i < n; i++) {
		b[i] = 1.0f;
		c[i] = 2.0f;
	}
	for (unsigned r = 0; r <= runs; r++) {
		t0 = bench_now_ns();
		for (unsigned k = 0; k < nt; k++) {
			parts[k] = (struct triad){ a, b, c, n * k / nt,
						   n * (k + 1) / nt };
			pthread_create(&th[k], NULL, triad_part, &parts[k]);
		}
		for (unsigned k = 0; k < nt; k++)
			pthread_join(th[k], NULL);
		t = bench_now_ns() - t0;
		if (r && t < best)
			best = t;
	}
	if (a[n - 1] != 7.0f) {
		fprintf(stderr, "triad: wrong result\n");
		exit(1);
	}
	bench_result("triad", 3.0 * (double)(n * sizeof(float)) / (double)best,
		     "GB/s");
	free(a);
	free(b);
	free(c);
}

static void bench_map(struct ocl *o, unsigned n)
{
	size_t bytes = 64u << 20;
	uint64_t *t = calloc(n, sizeof(*t)), t0;
	char *copy = malloc(bytes), *src = malloc(bytes);
	cl_mem m;
	cl_int e;
	void *p;

	if (!t || !copy || !src)
		exit(1);
	m = clCreateBuffer(o->c, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
			   bytes, NULL, &e);
	CHECK(e);
	for (unsigned i = 0; i <= n; i++) {
		t0 = bench_now_ns();
		p = clEnqueueMapBuffer(o->q, m, CL_TRUE, CL_MAP_WRITE, 0, bytes,
				       0, NULL, NULL, &e);
		CHECK(e);
		((char *)p)[i % bytes] = (char)i;
		CHECK(clEnqueueUnmapMemObject(o->q, m, p, 0, NULL, NULL));
		CHECK(clFinish(o->q));
		if (i)
			t[i - 1] = bench_now_ns() - t0;
	}
	bench_result("map-64m", median(t, n) / 1e3, "us");
	memset(src, 1, bytes);
	for (unsigned i = 0; i < n; i++) {
		t0 = bench_now_ns();
		memcpy(copy, src, bytes);
		t[i] = bench_now_ns() - t0;
	}
	bench_result("memcpy-64m", median(t, n) / 1e3, "us");
	clReleaseMemObject(m);
	free(t);
	free(copy);
	free(src);
}

int main(int argc, char **argv)
{
	unsigned n = 2000, runs = 5;
	struct ocl o = { 0 };
	cl_uint np = 0;
	uint64_t t0;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = bench_parse_count(argv[0], optarg, "launches",
					      1000000);
		else if (opt == 'r')
			runs = bench_parse_count(argv[0], optarg, "runs", 100);
		else {
			fprintf(stderr, "usage: %s [-n LAUNCHES] [-r RUNS]\n",
				argv[0]);
			return 2;
		}
	}
	/* First of all: what an application pays to see the platform. */
	t0 = bench_now_ns();
	if (clGetPlatformIDs(1, &o.p, &np) != CL_SUCCESS || np == 0) {
		fprintf(stderr, "no OpenCL platform (OCL_ICD_VENDORS=%s)\n",
			getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") :
						    "unset");
		return 77;
	}
	bench_result("first-platform-ids", (bench_now_ns() - t0) / 1e6, "ms");
	if (np != 1)
		printf("note: %u platforms visible, measuring the first\n",
		       np);
	bench_print_machine("start");
	ocl_open(&o);
	bench_empty(&o, n);
	bench_vadd(&o, (size_t)16 << 20, runs);
	bench_triad((size_t)16 << 20, runs);
	bench_map(&o, 50);
	ocl_close(&o);
	bench_print_machine("end");
	return 0;
}
