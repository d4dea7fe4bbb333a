/* SPDX-License-Identifier: MIT */
/*
 * Built-in kernels of the CPU device: work-group functions written in C
 * against accel-wg.h (what the compiler would generate).
 */
#include <string.h>

#include "backend.h"
#include "cpu-arch.h"
#include "cpu-private.h"
#include "cpu-program.h"
#include "cpu-sgemm-tile.h"

/* Argument i as a pointer (buffer arguments). */
#define ARG_PTR(args, i, type) (*(type *const *)(args)[i])
/* Argument i as a by-value uint. */
#define ARG_U32(args, i) (*(const uint32_t *)(args)[i])

/* Global id of the group's first work-item in dimension @d. */
static uint64_t group_base(const struct accel_wg_ctx *c, int d)
{
	return c->global_offset[d] + c->group_id[d] * c->enqueued_local_size[d];
}

/*
 * fill_u32 and copy_u8 index with get_global_id(0) only: in 2-D/3-D
 * launches every (y, z) would redo the same x range, which changes
 * nothing, so only the groups of the first row and plane do it.
 */
static bool first_row(const struct accel_wg_ctx *c)
{
	return c->group_id[1] == 0 && c->group_id[2] == 0;
}

static void fill_u32(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *dst = ARG_PTR(args, 0, uint32_t);
	uint32_t value = ARG_U32(args, 1);
	uint64_t i, base = group_base(c, 0), n = c->local_size[0];

	if (!first_row(c))
		return;
	dst += base;
	for (i = 0; i < n; i++)
		dst[i] = value;
}

static void copy_u8(void **args, const struct accel_wg_ctx *c)
{
	uint8_t *dst = ARG_PTR(args, 0, uint8_t);
	const uint8_t *src = ARG_PTR(args, 1, const uint8_t);
	uint64_t base = group_base(c, 0);

	if (first_row(c))
		memcpy(dst + base, src + base, c->local_size[0]);
}

/*
 * SGEMM, C = A * B, row major. A work-group computes its block of C
 * (local_size[0] columns x local_size[1] rows), GotoBLAS-style:
 * - K is walked in blocks of SGEMM_KC and the block's columns in panels of
 *   SGEMM_NC; each B panel is packed into the work-group's local memory in
 *   strips of SGEMM_NR columns, so the inner loop reads contiguous memory
 *   (raw B rows are N floats apart, which thrashes cache sets when N is a
 *   power of two);
 * - a 4 x 8 register tile (cpu-sgemm-tile.h) accumulates in registers.
 */
#define SGEMM_KC 256u
#define SGEMM_NC 128u
#define SGEMM_PACK_BYTES ((uint64_t)SGEMM_KC * SGEMM_NC * sizeof(float))

/* B[0:kn, 0:cols) (row stride ldb) into strips of NR columns, zero-padded. */
static void sgemm_pack_b(float *restrict p, const float *restrict b,
			 uint64_t ldb, uint64_t kn, uint64_t cols)
{
	uint64_t s, k, j, w;

	for (s = 0; s < cols; s += SGEMM_NR) {
		w = MIN((uint64_t)SGEMM_NR, cols - s);
		for (k = 0; k < kn; k++, p += SGEMM_NR) {
			for (j = 0; j < w; j++)
				p[j] = b[k * ldb + s + j];
			for (; j < SGEMM_NR; j++)
				p[j] = 0.0f;
		}
	}
}

static void sgemm_tile4_base(SGEMM_TILE4_ARGS)
{
	sgemm_tile4(c, ldc, a, lda, p, kn, cols);
}

/* One leftover row: c[0:cols) += a[0:kn] * strip. */
static void sgemm_tile1(float *restrict c, const float *restrict a,
			const float *restrict p, uint64_t kn, uint64_t cols)
{
	float acc[SGEMM_NR] = { 0 };
	uint64_t k, j;

	for (k = 0; k < kn; k++)
		for (j = 0; j < SGEMM_NR; j++)
			acc[j] += a[k] * p[k * SGEMM_NR + j];
	for (j = 0; j < cols; j++)
		c[j] += acc[j];
}

static inline __attribute__((always_inline)) void
sgemm_wg(void **args, const struct accel_wg_ctx *ctx,
	 void (*tile4)(SGEMM_TILE4_ARGS))
{
	float *C = ARG_PTR(args, 0, float);
	const float *A = ARG_PTR(args, 1, const float);
	const float *B = ARG_PTR(args, 2, const float);
	uint64_t M = ARG_U32(args, 3), N = ARG_U32(args, 4), K = ARG_U32(args, 5);
	uint64_t j0 = group_base(ctx, 0), i0 = group_base(ctx, 1);
	float *pack = ctx->local_mem;
	uint64_t j1, i1, jp, np, kk, kn, i, s;

	/* Clip to the matrix: the global size may be rounded up. */
	if (j0 >= N || i0 >= M)
		return;
	j1 = MIN(j0 + ctx->local_size[0], N);
	i1 = MIN(i0 + ctx->local_size[1], M);

	for (i = i0; i < i1; i++)
		memset(C + i * N + j0, 0, (j1 - j0) * sizeof(float));

	for (jp = j0; jp < j1; jp += SGEMM_NC) {
		np = MIN((uint64_t)SGEMM_NC, j1 - jp);
		for (kk = 0; kk < K; kk += SGEMM_KC) {
			kn = MIN((uint64_t)SGEMM_KC, K - kk);
			sgemm_pack_b(pack, B + kk * N + jp, N, kn, np);
			for (i = i0; i + SGEMM_MR <= i1; i += SGEMM_MR)
				for (s = 0; s < np; s += SGEMM_NR)
					tile4(C + i * N + jp + s, N,
					      A + i * K + kk, K, pack + s * kn,
					      kn,
					      MIN((uint64_t)SGEMM_NR, np - s));
			for (; i < i1; i++)
				for (s = 0; s < np; s += SGEMM_NR)
					sgemm_tile1(C + i * N + jp + s,
						    A + i * K + kk,
						    pack + s * kn, kn,
						    MIN((uint64_t)SGEMM_NR,
							np - s));
		}
	}
}

static void sgemm(void **args, const struct accel_wg_ctx *ctx)
{
	sgemm_wg(args, ctx, sgemm_tile4_base);
}

/* with the tile of the wide tier (cpu-arch-*.c: AVX2+FMA on x86-64) */
static void sgemm_wide(void **args, const struct accel_wg_ctx *ctx)
{
	sgemm_wg(args, ctx, cpu_arch_sgemm_tile4_wide);
}

#define ARG(kind_, size_, addr_, qual_, name_, type_)                          \
	{                                                                      \
		.struct_size = sizeof(struct accel_kernel_arg_desc),           \
		.kind = ACCEL_KERNEL_ARG_##kind_, .size = (size_),              \
		.address_space = ACCEL_KERNEL_ARG_ADDR_##addr_,                 \
		.type_qualifiers = (qual_), .name = (name_),                    \
		.type_name = (type_),                                           \
	}
#define PTR(addr, qual, name, type)                                            \
	ARG(BUFFER, sizeof(void *), addr, qual, name, type)
#define UINT(name) ARG(VALUE, sizeof(uint32_t), PRIVATE, 0, name, "uint")
#define CONST ACCEL_KERNEL_ARG_TYPE_CONST

static const struct accel_kernel_arg_desc fill_u32_args[] = {
	PTR(GLOBAL, 0, "dst", "uint*"),
	UINT("value"),
};

static const struct accel_kernel_arg_desc copy_u8_args[] = {
	PTR(GLOBAL, 0, "dst", "uchar*"),
	PTR(GLOBAL, CONST, "src", "uchar*"),
};

static const struct accel_kernel_arg_desc sgemm_args[] = {
	PTR(GLOBAL, 0, "C", "float*"),
	PTR(GLOBAL, CONST, "A", "float*"),
	PTR(GLOBAL, CONST, "B", "float*"),
	UINT("M"),
	UINT("N"),
	UINT("K"),
};

/* Their code: the kernel handles (static, never freed). */
static const struct cpu_kernel fill_u32_code = { .fn = fill_u32 };
static const struct cpu_kernel copy_u8_code = { .fn = copy_u8 };
static const struct cpu_kernel sgemm_code = { .fn = sgemm };
static const struct cpu_kernel sgemm_wide_code = { .fn = sgemm_wide };

#define KERNEL(name_, code_, args_, static_local_)                             \
	{                                                                      \
		.name = #name_, .n_args = ARRAY_SIZE(args_), .args = args_,    \
		.static_local_size = (static_local_),                          \
		.handle = (void *)(uintptr_t)&(code_),                         \
	}

/* Local memory holds sgemm's packed B panel. */
static const struct accel_kernel_info built_in_kernels[] = {
	KERNEL(fill_u32, fill_u32_code, fill_u32_args, 0),
	KERNEL(copy_u8, copy_u8_code, copy_u8_args, 0),
	KERNEL(sgemm, sgemm_code, sgemm_args, SGEMM_PACK_BYTES),
};

/* The same with the wide tier's code (x86-64-v3 and up). */
static const struct accel_kernel_info built_in_kernels_wide[] = {
	KERNEL(fill_u32, fill_u32_code, fill_u32_args, 0),
	KERNEL(copy_u8, copy_u8_code, copy_u8_args, 0),
	KERNEL(sgemm, sgemm_wide_code, sgemm_args, SGEMM_PACK_BYTES),
};

_Static_assert(ARRAY_SIZE(built_in_kernels) == ARRAY_SIZE(built_in_kernels_wide),
	       "one kernel table per tier");

/*
 * Chosen by the code-generation tier (cpu-target.c), not by what the
 * host has alone, so ACCEL_CPU_TARGET=x86-64-v2 tests the plain code on
 * any machine.
 */
int cpu_get_built_in_kernels(struct accel_device *dev _unused_,
			     const struct accel_kernel_info **ret,
			     uint32_t *n)
{
	unsigned wide = cpu_arch_wide_builtins_tier();

	*ret = wide && cpu_code_level() >= wide ? built_in_kernels_wide :
						   built_in_kernels;
	*n = ARRAY_SIZE(built_in_kernels);
	return 0;
}
