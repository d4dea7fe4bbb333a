/* SPDX-License-Identifier: MIT */
/* What the OpenCL host benchmarks (ocl-host, blas-host) share. */
#ifndef BENCH_CL_H
#define BENCH_CL_H

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

/* Stop the benchmark on any OpenCL error, naming where. */
#define CHECK(e)                                                             \
	do {                                                                 \
		cl_int e_ = (e);                                             \
		if (e_ != CL_SUCCESS) {                                      \
			fprintf(stderr, "%s:%d: OpenCL error %d\n", __FILE__, \
				__LINE__, e_);                               \
			exit(1);                                             \
		}                                                            \
	} while (0)

/* One measurement, as bench/perf-compare.sh reads it. */
static inline void bench_result(const char *name, double value,
				const char *unit)
{
	printf("result %s %.4f %s\n", name, value, unit);
	fflush(stdout);
}

#endif /* BENCH_CL_H */
