/* SPDX-License-Identifier: MIT */
#ifndef BENCH_FMA_PEAK_H
#define BENCH_FMA_PEAK_H

/*
 * The measured single-precision FMA peak of all online CPUs in GFLOP/s
 * (0 if threads could not start); *@p isa names the vectors used.
 */
double bench_fma_peak_gflops(const char **isa);

#endif /* BENCH_FMA_PEAK_H */
