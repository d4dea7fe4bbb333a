/* SPDX-License-Identifier: MIT */
/*
 * The CPU's single-precision FMA peak, measured: every online CPU runs
 * chains of independent fused multiply-adds on the widest vectors it has
 * (AVX-512, AVX2+FMA, else SSE multiply and add), long enough for the
 * clock to settle. The physical limit the GEMM rows are a fraction of.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "bench-util.h"
#include "fma-peak.h"

/* 12 independent chains: more than FMA latency x ports on current x86 */
#define CHAINS 12
#define ITERS (1u << 22)

struct peak_job {
	int tier; /* 3 AVX-512, 2 AVX2+FMA, 1 SSE */
	float sink;
};

/*
 * One thread's chains, in named variables (an array may live in memory
 * at -O2, and then store forwarding, not the FMA units, sets the pace).
 */
#define STEP(OP) \
	do { \
		c0 = OP(c0); c1 = OP(c1); c2 = OP(c2); c3 = OP(c3); \
		c4 = OP(c4); c5 = OP(c5); c6 = OP(c6); c7 = OP(c7); \
		c8 = OP(c8); c9 = OP(c9); c10 = OP(c10); c11 = OP(c11); \
	} while (0)
#define CHAINS_OF(VT, SET1) \
	VT c0 = SET1(0.f), c1 = SET1(1.f), c2 = SET1(2.f), c3 = SET1(3.f); \
	VT c4 = SET1(4.f), c5 = SET1(5.f), c6 = SET1(6.f), c7 = SET1(7.f); \
	VT c8 = SET1(8.f), c9 = SET1(9.f), c10 = SET1(10.f), c11 = SET1(11.f)
#define SUM(ADD) \
	ADD(ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7))), \
	    ADD(ADD(c8, c9), ADD(c10, c11)))

__attribute__((target("avx512f"))) static float run_avx512(void)
{
	__m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
	float out[16];
	CHAINS_OF(__m512, _mm512_set1_ps);

#define FMA512(x) _mm512_fmadd_ps(x, m, a)
	for (unsigned it = 0; it < ITERS; it++)
		STEP(FMA512);
	_mm512_storeu_ps(out, SUM(_mm512_add_ps));
	return out[0];
}

__attribute__((target("avx2,fma"))) static float run_avx2(void)
{
	__m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
	float out[8];
	CHAINS_OF(__m256, _mm256_set1_ps);

#define FMA256(x) _mm256_fmadd_ps(x, m, a)
	for (unsigned it = 0; it < ITERS; it++)
		STEP(FMA256);
	_mm256_storeu_ps(out, SUM(_mm256_add_ps));
	return out[0];
}

static float run_sse(void)
{
	__m128 m = _mm_set1_ps(0.999999f), a = _mm_set1_ps(1e-7f);
	float out[4];
	CHAINS_OF(__m128, _mm_set1_ps);

#define MULADD128(x) _mm_add_ps(_mm_mul_ps(x, m), a)
	for (unsigned it = 0; it < ITERS; it++)
		STEP(MULADD128);
	_mm_storeu_ps(out, SUM(_mm_add_ps));
	return out[0];
}

static void *peak_thread(void *arg)
{
	struct peak_job *j = arg;

	j->sink = j->tier == 3 ? run_avx512() :
		  j->tier == 2 ? run_avx2() : run_sse();
	return NULL;
}

double bench_fma_peak_gflops(const char **isa)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = ncpu > 0 && ncpu <= 1024 ? (unsigned)ncpu : 1;
	pthread_t th[1024];
	struct peak_job jobs[1024];
	int tier = 1, lanes = 4;
	double best = 0;

	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		tier = 3, lanes = 16;
	else if (__builtin_cpu_supports("avx2") &&
		 __builtin_cpu_supports("fma"))
		tier = 2, lanes = 8;
	*isa = tier == 3 ? "AVX-512" : tier == 2 ? "AVX2+FMA" : "SSE";
	/* the first round warms the clock up; the best of three counts */
	for (int round = 0; round < 3; round++) {
		uint64_t t0 = bench_now_ns(), t;
		unsigned started = 0;

		for (unsigned i = 0; i < n; i++) {
			jobs[i].tier = tier;
			if (pthread_create(&th[i], NULL, peak_thread, &jobs[i]))
				break;
			started++;
		}
		for (unsigned i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		t = bench_now_ns() - t0;
		if (started == n && t) {
			double flops = 2.0 * lanes * CHAINS * (double)ITERS * n;

			if (flops / (double)t > best)
				best = flops / (double)t; /* flop/ns: GFLOP/s */
		}
	}
	return best;
}
