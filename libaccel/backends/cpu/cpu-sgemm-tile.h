/* SPDX-License-Identifier: MIT */
/*
 * sgemm's register tile, shared by the built-in kernels (cpu-builtins.c)
 * and the architecture files that compile it again for a wider
 * instruction set (cpu-arch-x86.c).
 *
 * A 4 x 8 register tile accumulates in eight 4-float vectors. The tile
 * uses GNU vector types rather than relying on -O2 auto-vectorisation:
 * gcc 12 vectorised the plain loops but kept the accumulators in memory
 * (measured 14 vs 30 GFLOPS on one AMD EPYC core).
 */
#ifndef LIBACCEL_CPU_SGEMM_TILE_H
#define LIBACCEL_CPU_SGEMM_TILE_H

#include <stdint.h>
#include <string.h>

#define SGEMM_NR 8u
#define SGEMM_MR 4u

typedef float sgemm_v4 __attribute__((vector_size(16)));

/*
 * c[0:4, 0:cols) += a[0:4, 0:kn] * strip (cols <= NR). Inlined into one
 * copy per instruction set.
 */
static inline __attribute__((always_inline)) void
sgemm_tile4(float *restrict c, uint64_t ldc, const float *restrict a,
	    uint64_t lda, const float *restrict p, uint64_t kn, uint64_t cols)
{
	const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;
	sgemm_v4 c00 = { 0 }, c01 = { 0 }, c10 = { 0 }, c11 = { 0 };
	sgemm_v4 c20 = { 0 }, c21 = { 0 }, c30 = { 0 }, c31 = { 0 };
	float out[SGEMM_MR][SGEMM_NR];
	uint64_t k, j;
	unsigned r;

	for (k = 0; k < kn; k++) {
		sgemm_v4 b0, b1;

		memcpy(&b0, p + k * SGEMM_NR, sizeof(b0));
		memcpy(&b1, p + k * SGEMM_NR + 4, sizeof(b1));
		c00 += a0[k] * b0;
		c01 += a0[k] * b1;
		c10 += a1[k] * b0;
		c11 += a1[k] * b1;
		c20 += a2[k] * b0;
		c21 += a2[k] * b1;
		c30 += a3[k] * b0;
		c31 += a3[k] * b1;
	}
	memcpy(&out[0][0], &c00, 16);
	memcpy(&out[0][4], &c01, 16);
	memcpy(&out[1][0], &c10, 16);
	memcpy(&out[1][4], &c11, 16);
	memcpy(&out[2][0], &c20, 16);
	memcpy(&out[2][4], &c21, 16);
	memcpy(&out[3][0], &c30, 16);
	memcpy(&out[3][4], &c31, 16);
	for (r = 0; r < SGEMM_MR; r++)
		for (j = 0; j < cols; j++)
			c[r * ldc + j] += out[r][j];
}

#define SGEMM_TILE4_ARGS                                                       \
	float *restrict c, uint64_t ldc, const float *restrict a,              \
		uint64_t lda, const float *restrict p, uint64_t kn,            \
		uint64_t cols

#endif /* LIBACCEL_CPU_SGEMM_TILE_H */
