/* SPDX-License-Identifier: MIT */
/*
 * Private arrays that live across a barrier and are too big for the
 * worker's stack go into per-work-item context arrays on the heap
 * (compiler-stub/lower/wg-context.c); their accesses keep the alignment of the
 * variable's type. CLBlast's TransposeMatrixFast with the parameters of
 * its Intel CPU database entry (TRA_DIM 4, TRA_WPT 8: float8 vpm[8] and
 * results[8], 512 bytes a work-item) stores them with vmovaps, which
 * faults on a block that malloc only aligns to 16: clblast_test_xgemm
 * died with SIGSEGV. transpose8 below is that kernel, reduced; ctx_align
 * reports where an over-aligned private array lands, which shows a
 * misplaced block whatever the heap's state.
 *
 * The other way round, XgemmDirect's k loop: values a work-item makes
 * and uses between two barriers (its tile indices, partial sums, inner
 * loop counters) must not get context arrays, however often the loop runs
 * its regions: they stay registers of the work-item loop (DGEMM 1024 ran
 * 15x slower than PoCL with them in memory). tile_k is that shape.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define ALIGN 4096u
#define CTX_LOCAL 16u
#define CTX_GROUPS 8u

static const char src[] =
	"kernel __attribute__((reqd_work_group_size(4, 4, 1)))\n"
	"void transpose8(int ld, global const float8 *restrict src,\n"
	"		global float8 *dst, float alpha)\n"
	"{\n"
	"	local float8 tile[32][4];\n"
	"	int g0 = get_group_id(0), g1 = get_group_id(1);\n"
	"	int lx = get_local_id(0), ly = get_local_id(1);\n"
	"	float8 v[8], t[8];\n"
	"\n"
	"	for (int w = 0; w < 8; w++)\n"
	"		tile[lx * 8 + w][ly] =\n"
	"			src[((g0 * 4 + ly) * 8 + w) * (ld / 8) +\n"
	"			    g1 * 4 + lx];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (int w = 0; w < 8; w++)\n"
	"		v[w] = tile[ly * 8 + w][lx];\n"
	"	for (int i = 0; i < 8; i++)\n"
	"		for (int j = 0; j < 8; j++)\n"
	"			t[i][j] = v[j][i];\n"
	"	for (int w = 0; w < 8; w++)\n"
	"		dst[((g1 * 4 + ly) * 8 + w) * (ld / 8) +\n"
	"		    g0 * 4 + lx] = alpha * t[w];\n"
	"}\n"
	"kernel __attribute__((reqd_work_group_size(16, 16, 1)))\n"
	"void tile_k(int n, global const int *a, global const int *b,\n"
	"	    global int *c)\n"
	"{\n"
	"	local int ta[16][16], tb[16][16];\n"
	"	int lx = get_local_id(0), ly = get_local_id(1);\n"
	"	int gx = get_global_id(0), gy = get_global_id(1), acc = 0;\n"
	"\n"
	"	for (int k0 = 0; k0 < n; k0 += 16) {\n"
	"		ta[ly][lx] = a[gy * n + k0 + lx];\n"
	"		tb[ly][lx] = b[(k0 + ly) * n + gx];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		int part = 0, idx = ly * 16 + (lx & 1);\n"
	"		for (int k = 0; k < 16; k++) {\n"
	"			part += ((local int *)ta)[idx - (lx & 1)] *\n"
	"				tb[k][lx];\n"
	"			idx++;\n"
	"		}\n"
	"		acc += part;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	c[gy * n + gx] = acc;\n"
	"}\n"
	"kernel void ctx_align(global const float *in, global ulong *addr,\n"
	"		       global float *out)\n"
	"{\n"
	"	__attribute__((aligned(4096))) float a[80];\n"
	"	size_t g = get_global_id(0);\n"
	"	float s = 0.0f;\n"
	"\n"
	"	for (int i = 0; i < 80; i++)\n"
	"		a[i] = in[g] + (float)i;\n"
	"	addr[g] = (ulong)(uintptr_t)a;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (int i = 0; i < 80; i++)\n"
	"		s += a[i];\n"
	"	out[g] = s;\n"
	"}\n";

static void check_transpose(struct test_env *env, struct accel_program *prog,
			    int ld)
{
	size_t n = (size_t)ld * (size_t)ld;
	float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
	struct accel_buffer *ba, *bb;
	struct accel_ndrange range;
	float alpha = 2.0f;
	int bad = 0;

	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		a[i] = (float)(i % 1000) - 500.0f;
	ba = ct_buffer(env, n * sizeof(float), a);
	bb = ct_buffer(env, n * sizeof(float), NULL);
	/* float8 columns in x, rows in y: one 32x32 tile a group */
	range = test_ndrange(2, (uint64_t)ld / 8, (uint64_t)ld / 8, 0, 4, 4,
			     0);
	ct_run_range(env, prog, "transpose8", &range,
		     (const struct ct_arg[]){ CT_VAL(ld), CT_BUF(ba),
					      CT_BUF(bb), CT_VAL(alpha) },
		     4);
	test_read(env, bb, 0, n * sizeof(float), b);
	for (int r = 0; r < ld; r++)
		for (int c = 0; c < ld; c++) {
			float want = alpha * a[(size_t)r * ld + c];

			if (b[(size_t)c * ld + r] != want && bad++ < 5)
				print_error("ld %d: [%d][%d] = %g, want %g\n",
					    ld, c, r, b[(size_t)c * ld + r],
					    want);
		}
	assert_int_equal(bad, 0);
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	free(a);
	free(b);
}

/* The reduced CLBlast kernel: results, and no fault on any heap layout
 * the launches happen to meet. */
static void test_transpose8(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL1.2");

	for (int ld = 32; ld <= 256; ld *= 2)
		check_transpose(env, prog, ld);
	accel_program_unref(prog);
}

/* Every work-item's copy of an aligned(4096) array that lives across the
 * barrier is 4096-aligned, at several group sizes. */
static void test_ctx_align(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL1.2");
	size_t n = CTX_LOCAL * CTX_GROUPS;
	float in[CTX_LOCAL * CTX_GROUPS], out[CTX_LOCAL * CTX_GROUPS];
	uint64_t addr[CTX_LOCAL * CTX_GROUPS];
	struct accel_buffer *bin, *baddr, *bout;

	for (size_t i = 0; i < n; i++)
		in[i] = (float)i;
	bin = ct_buffer(env, sizeof(in), in);
	baddr = ct_buffer(env, sizeof(addr), NULL);
	bout = ct_buffer(env, sizeof(out), NULL);
	for (uint64_t local = 1; local <= CTX_LOCAL; local *= 2) {
		CT_RUN(env, prog, "ctx_align", n, local, CT_BUF(bin),
		       CT_BUF(baddr), CT_BUF(bout));
		test_read(env, baddr, 0, sizeof(addr), addr);
		test_read(env, bout, 0, sizeof(out), out);
		for (size_t i = 0; i < n; i++) {
			/* sum of in[i] + k for k < 80: exact in float */
			float want = 80.0f * in[i] + 3160.0f;

			if (addr[i] % ALIGN)
				print_error("local %llu: item %zu at %#llx\n",
					    (unsigned long long)local, i,
					    (unsigned long long)addr[i]);
			assert_int_equal(addr[i] % ALIGN, 0);
			assert_true(out[i] == want);
		}
	}
	accel_buffer_unref(bin);
	accel_buffer_unref(baddr);
	accel_buffer_unref(bout);
	accel_program_unref(prog);
}

/* A tiled product: right, and only the accumulator in context arrays. */
static void test_tile_registers(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL1.2");
	const int n = 64;
	int32_t a[64 * 64], b[64 * 64], c[64 * 64];
	struct accel_buffer *ba, *bb, *bc;
	struct accel_ndrange range;
	struct accel_kernel *k;
	uint64_t per = 0;
	int bad = 0;

	assert_int_equal(accel_kernel_new(prog, "tile_k", &k), 0);
	assert_int_equal(accel_kernel_get_private_mem(k, NULL, &per, NULL), 0);
	accel_kernel_unref(k);
	/* acc, as the k loop's phi and its sum (36 bytes when every value
	 * of the loop's regions had an array) */
	if (per > 2 * sizeof(int32_t))
		print_error("tile_k keeps %llu bytes per work-item\n",
			    (unsigned long long)per);
	assert_true(per <= 2 * sizeof(int32_t));
	for (int i = 0; i < n * n; i++) {
		a[i] = i % 7 - 3;
		b[i] = i % 5 - 2;
	}
	ba = ct_buffer(env, sizeof(a), a);
	bb = ct_buffer(env, sizeof(b), b);
	bc = ct_buffer(env, sizeof(c), NULL);
	range = test_ndrange(2, (uint64_t)n, (uint64_t)n, 0, 16, 16, 0);
	ct_run_range(env, prog, "tile_k", &range,
		     (const struct ct_arg[]){ CT_VAL(n), CT_BUF(ba),
					      CT_BUF(bb), CT_BUF(bc) },
		     4);
	test_read(env, bc, 0, sizeof(c), c);
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++) {
			int32_t want = 0;

			for (int kk = 0; kk < n; kk++)
				want += a[y * n + kk] * b[kk * n + x];
			if (c[y * n + x] != want && bad++ < 5)
				print_error("[%d][%d] = %d, want %d\n", y, x,
					    c[y * n + x], want);
		}
	assert_int_equal(bad, 0);
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_buffer_unref(bc);
	accel_program_unref(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ctx_align, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_transpose8,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_tile_registers,
						test_env_setup,
						test_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
