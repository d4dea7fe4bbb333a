/* SPDX-License-Identifier: MIT */
/*
 * Replaying a recorded graph versus enqueueing it, the way ML runtimes run
 * a model step: 1,000 small launches (64 work-items each, a chain on one
 * buffer) enqueued one by one, then recorded once in a
 * cl_khr_command_buffer and replayed. One platform per process, like
 * ocl-host (bench/perf-compare.sh). The buffer's final contents are
 * checked after every round.
 *
 *   result enqueue-1000  ms  1,000 clEnqueueNDRangeKernel + clFinish,
 *                            best of the rounds
 *   result replay-1000   ms  one clEnqueueCommandBufferKHR of the same
 *                            1,000 launches + clFinish, best of the rounds
 *
 * A platform without cl_khr_command_buffer prints only the first row.
 *
 *   replay-host [ROUNDS]     (default 7; more for a profile)
 */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define _GNU_SOURCE
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-cl.h"
#include "bench-util.h"

#define N_LAUNCH 1000u
#define N_ITEMS 64u
#define ROUNDS_MAX 100000u

static const char source[] =
	"kernel void chain(global int *a, int k)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	a[i] = a[i] * 3 + k;\n"
	"}\n";

struct cb_fns {
	clCreateCommandBufferKHR_fn create;
	clCommandNDRangeKernelKHR_fn ndrange;
	clFinalizeCommandBufferKHR_fn finalize;
	clEnqueueCommandBufferKHR_fn enqueue;
	clReleaseCommandBufferKHR_fn release;
};

/* The value every element holds after rounds of the chain from 0. */
static int32_t expected(unsigned rounds)
{
	uint32_t v = 0;

	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < N_LAUNCH; i++)
			v = v * 3u + (i & 7u);
	return (int32_t)v;
}

static void reset(cl_command_queue q, cl_mem buf)
{
	cl_int zero = 0;

	CHECK(clEnqueueFillBuffer(q, buf, &zero, sizeof(zero), 0,
				  N_ITEMS * sizeof(cl_int), 0, NULL, NULL));
	CHECK(clFinish(q));
}

static void check(cl_command_queue q, cl_mem buf, unsigned rounds,
		  const char *what)
{
	cl_int got[N_ITEMS];
	int32_t want = expected(rounds);

	CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(got), got, 0,
				  NULL, NULL));
	for (unsigned i = 0; i < N_ITEMS; i++)
		if (got[i] != want) {
			fprintf(stderr, "%s: a[%u] = %d, want %d\n", what, i,
				got[i], want);
			exit(1);
		}
}

static bool has_extension(cl_device_id d, const char *name)
{
	char ext[8192] = "";
	size_t len = strlen(name);

	CHECK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext,
			      NULL));
	for (const char *p = ext; (p = strstr(p, name)); p += len)
		if ((p == ext || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

static bool get_fns(cl_platform_id p, struct cb_fns *f)
{
#define FN(field, name)                                                      \
	(f->field = (void *)clGetExtensionFunctionAddressForPlatform(p, name))
	return FN(create, "clCreateCommandBufferKHR") &&
	       FN(ndrange, "clCommandNDRangeKernelKHR") &&
	       FN(finalize, "clFinalizeCommandBufferKHR") &&
	       FN(enqueue, "clEnqueueCommandBufferKHR") &&
	       FN(release, "clReleaseCommandBufferKHR");
#undef FN
}

static double ms_best(const uint64_t *t, unsigned rounds)
{
	uint64_t best = t[0];

	for (unsigned r = 1; r < rounds; r++)
		best = t[r] < best ? t[r] : best;
	return (double)best / 1e6;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? bench_parse_count(argv[0], argv[1],
						       "rounds", ROUNDS_MAX)
				   : 7;
	size_t g = N_ITEMS;
	const char *src = source;
	cl_platform_id plat;
	cl_device_id d;
	cl_context c;
	cl_command_queue q;
	cl_program prog;
	cl_kernel k[8];
	cl_mem buf;
	struct cb_fns f;
	uint64_t *t = calloc(rounds, sizeof(*t)), t0;
	char name[256] = "";
	cl_int e;

	if (!t)
		return 1;
	CHECK(clGetPlatformIDs(1, &plat, NULL));
	CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
	CHECK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof(name), name,
				NULL));
	printf("platform \"%s\"\n", name);
	c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	CHECK(e);
	q = clCreateCommandQueue(c, d, 0, &e);
	CHECK(e);
	prog = clCreateProgramWithSource(c, 1, &src, NULL, &e);
	CHECK(e);
	CHECK(clBuildProgram(prog, 1, &d, "", NULL, NULL));
	buf = clCreateBuffer(c, CL_MEM_READ_WRITE, N_ITEMS * sizeof(cl_int),
			     NULL, &e);
	CHECK(e);
	/* Eight kernels with k = 0..7: a recording captures argument values. */
	for (cl_int i = 0; i < 8; i++) {
		k[i] = clCreateKernel(prog, "chain", &e);
		CHECK(e);
		CHECK(clSetKernelArg(k[i], 0, sizeof(buf), &buf));
		CHECK(clSetKernelArg(k[i], 1, sizeof(i), &i));
	}

	for (unsigned r = 0; r < rounds; r++) {
		reset(q, buf);
		t0 = bench_now_ns();
		for (unsigned i = 0; i < N_LAUNCH; i++)
			CHECK(clEnqueueNDRangeKernel(q, k[i & 7], 1, NULL, &g,
						     NULL, 0, NULL, NULL));
		CHECK(clFinish(q));
		t[r] = bench_now_ns() - t0;
		check(q, buf, 1, "enqueue");
	}
	bench_result("enqueue-1000", ms_best(t, rounds), "ms");

	if (has_extension(d, "cl_khr_command_buffer") && get_fns(plat, &f)) {
		cl_command_buffer_khr cb = f.create(1, &q, NULL, &e);

		CHECK(e);
		for (unsigned i = 0; i < N_LAUNCH; i++)
			CHECK(f.ndrange(cb, NULL, NULL, k[i & 7], 1, NULL, &g,
					NULL, 0, NULL, NULL, NULL));
		CHECK(f.finalize(cb));
		for (unsigned r = 0; r < rounds; r++) {
			reset(q, buf);
			t0 = bench_now_ns();
			CHECK(f.enqueue(0, NULL, cb, 0, NULL, NULL));
			CHECK(clFinish(q));
			t[r] = bench_now_ns() - t0;
			check(q, buf, 1, "replay");
		}
		bench_result("replay-1000", ms_best(t, rounds), "ms");
		CHECK(f.release(cb));
	} else {
		printf("no cl_khr_command_buffer: no replay row\n");
	}

	for (unsigned i = 0; i < 8; i++)
		clReleaseKernel(k[i]);
	clReleaseMemObject(buf);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(c);
	free(t);
	return 0;
}
