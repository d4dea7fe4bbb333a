/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the benchmarks: clock, sorting, the machine's load,
 * finding the CPU device, parsing counts.
 */
#ifndef ACCEL_BENCH_UTIL_H
#define ACCEL_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <libaccel/libaccel.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* qsort() comparator for uint64_t. */
int bench_cmp_u64(const void *pa, const void *pb);

/* "machine (<when>): N CPUs online, loadavg ...", plus a note in the VM. */
void bench_print_machine(const char *when);

/* The CPU reference device (a new reference), or -ENODEV. */
int bench_find_cpu_device(struct accel_context *ctx, struct accel_device **ret);

/* A positive count up to @max, or exit(2) naming @prog and @what. */
unsigned bench_parse_count(const char *prog, const char *s, const char *what,
			   unsigned long max);

/* malloc(@n), or exit(1) saying how much was wanted. */
void *bench_xmalloc(size_t n);

/* Uniform in [-1, 1) from a 64-bit LCG on *@s: the same data on every
 * platform and run. */
double bench_next_val(uint64_t *s);

#endif /* ACCEL_BENCH_UTIL_H */
