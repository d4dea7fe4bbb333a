/* SPDX-License-Identifier: MIT */
/*
 * OpenCL C kernels with barriers through the public API, checked against
 * host references: barriers in loops (tiled SGEMM with local memory, a
 * scan), in uniform conditionals, values and pointers to private arrays
 * live across barriers, 1-, 2- and 3-D groups of odd sizes and of one
 * work-item, and a kernel with more barriers than the compiler turns
 * into work-item loops (it falls back to fibers). Skips without the
 * compiler module.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

static const char src[] =
	"#define TS 8\n"
	"kernel void sgemm(int M, int N, int K, global const float *A,\n"
	"		   global const float *B, global float *C)\n"
	"{\n"
	"	local float As[TS][TS], Bs[TS][TS];\n"
	"	int r = get_local_id(1), c = get_local_id(0);\n"
	"	int row = get_group_id(1) * TS + r;\n"
	"	int col = get_group_id(0) * TS + c;\n"
	"	float acc = 0.0f;\n"
	"	for (int t = 0; t < K / TS; t++) {\n"
	"		As[r][c] = A[row * K + t * TS + c];\n"
	"		Bs[r][c] = B[(t * TS + r) * N + col];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		for (int k = 0; k < TS; k++)\n"
	"			acc += As[r][k] * Bs[k][c];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	C[row * N + col] = acc;\n"
	"}\n"
	/* Hillis-Steele scan: v crosses a barrier inside the loop */
	"kernel void scan(global int *data, local int *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	size_t g = get_global_id(0);\n"
	"	tmp[l] = data[g];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (size_t off = 1; off < n; off *= 2) {\n"
	"		int v = l >= off ? tmp[l - off] : 0;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		tmp[l] += v;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	data[g] = tmp[l];\n"
	"}\n"
	/* uniform if around barriers; a private array and a pointer into
	 * it live across them */
	"kernel void cond(global int *out, local int *tmp, int flag)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	int priv[4];\n"
	"	for (int i = 0; i < 4; i++)\n"
	"		priv[i] = (int)l * (i + 1) + out[get_global_id(0)];\n"
	"	int *p = &priv[l & 3];\n"
	"	tmp[l] = (int)l;\n"
	"	if (flag) {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		*p += tmp[n - 1 - l];\n"
	"	} else {\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		*p -= tmp[(l + 1) % n];\n"
	"	}\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	tmp[l] = *p;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[get_global_id(0)] = priv[0] + priv[1] + priv[2] +\n"
	"				priv[3] + tmp[(l + 1) % n];\n"
	"}\n"
	/* 3-D: reverse the group through local memory; a loop with a
	 * uniform break after its barrier */
	"kernel void vol(global int *out, local int *tmp, int rounds)\n"
	"{\n"
	"	size_t lin = get_local_linear_id();\n"
	"	size_t n = get_local_size(0) * get_local_size(1) *\n"
	"		   get_local_size(2);\n"
	"	int v = (int)(get_global_id(2) * 10000 +\n"
	"		      get_global_id(1) * 100 + get_global_id(0));\n"
	"	int i = 0;\n"
	"	for (;;) {\n"
	"		tmp[lin] = v;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		v = tmp[n - 1 - lin] + 1;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (++i == rounds)\n"
	"			break;\n"
	"	}\n"
	"	out[get_global_linear_id()] = v;\n"
	"}\n"
	/* work-item 0 leaves the loop on its own way after the last
	 * barrier (legal): the loop's exit is not a uniform point */
	"kernel void late(global int *out, local int *tmp, int n)\n"
	"{\n"
	"	size_t l = get_local_id(0), ls = get_local_size(0);\n"
	"	int acc = 0;\n"
	"	for (int i = 0; i < n; i++) {\n"
	"		tmp[l] = (int)l + i;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		acc += tmp[(l + 1) % ls];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (i == n - 1 && l == 0) {\n"
	"			out[get_global_id(0)] = -acc;\n"
	"			return;\n"
	"		}\n"
	"	}\n"
	"	out[get_global_id(0)] = acc;\n"
	"}\n"
	/* x and k only look uniform (divergent branch, divergent trip
	 * count); s is uniform, stepped in a loop with barriers */
	"kernel void diverge(global int *out, local int *tmp, int n)\n"
	"{\n"
	"	size_t l = get_local_id(0), ls = get_local_size(0);\n"
	"	int x = 0, k = 0, s, steps = 0;\n"
	"	if (l < 3)\n"
	"		x = 5;\n"
	"	for (int i = 0; i < (int)l; i++)\n"
	"		k += 2;\n"
	"	for (s = n; s > 1; s = s / 2 + (s & 1)) {\n"
	"		tmp[l] = x + k + s;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		steps += tmp[(l + 1) % ls];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	out[get_global_id(0)] = x * 1000000 + k * 1000 + steps + s;\n"
	"}\n"
	/* a private array too big for context arrays on the stack */
	"kernel void bigpriv(global int *out, local int *tmp, int n)\n"
	"{\n"
	"	size_t l = get_local_id(0), ls = get_local_size(0);\n"
	"	int priv[300];\n"
	"	for (int i = 0; i < 300; i++)\n"
	"		priv[i] = (int)l * i + n;\n"
	"	tmp[l] = priv[299];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[get_global_id(0)] = priv[(l * 7) % 300] +\n"
	"				tmp[(l + 1) % ls];\n"
	"}\n"
	/* 72 barriers: more than the compiler copies regions for */
	"#define STEP acc += tmp[(l + 1) % n];\\\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\\\n"
	"	tmp[l] = acc; barrier(CLK_LOCAL_MEM_FENCE);\n"
	"#define STEP4 STEP STEP STEP STEP\n"
	"kernel void many(global uint *out, local uint *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	uint acc = (uint)l;\n"
	"	tmp[l] = acc;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	STEP4 STEP4 STEP4 STEP4 STEP4 STEP4 STEP4 STEP4 STEP4\n"
	"	out[get_global_id(0)] = acc;\n"
	"}\n";

static bool have_compiler(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_COMPILER;
}

static struct accel_program *build(struct test_env *env)
{
	struct accel_program *prog = NULL;
	char *log = NULL;
	int r = accel_program_new_source(env->dev, src, sizeof(src) - 1,
					 "-cl-std=CL3.0", &log, &prog);

	if (r)
		print_error("build log:\n%s\n", log ? log : "(none)");
	free(log);
	assert_int_equal(r, 0);
	return prog;
}

static void test_sgemm(void **state)
{
	struct test_env *env = *state;
	enum { M = 40, N = 24, K = 32 };
	struct accel_program *prog;
	struct accel_kernel *k = NULL;
	struct accel_buffer *a, *b, *c;
	struct accel_ndrange range = test_ndrange(2, N, M, 0, 8, 8, 0);
	static float ha[M * K], hb[K * N], hc[M * N];
	int dims[3] = { M, N, K };

	if (!have_compiler(env))
		skip();
	prog = build(env);
	for (int i = 0; i < M * K; i++)
		ha[i] = (float)((i * 7) % 13) - 6.0f;
	for (int i = 0; i < K * N; i++)
		hb[i] = (float)((i * 5) % 11) * 0.5f;
	a = test_buffer_new(env, sizeof(ha));
	b = test_buffer_new(env, sizeof(hb));
	c = test_buffer_new(env, sizeof(hc));
	test_write(env, a, 0, sizeof(ha), ha);
	test_write(env, b, 0, sizeof(hb), hb);
	assert_int_equal(accel_kernel_new(prog, "sgemm", &k), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(accel_kernel_set_arg_value(k, i, 4, &dims[i]),
				 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 3, a), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 4, b), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 5, c), 0);
	test_launch_wait(env, k, &range);
	test_read(env, c, 0, sizeof(hc), hc);
	/* small integers and halves: exact in any summation order */
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float ref = 0.0f;

			for (int x = 0; x < K; x++)
				ref += ha[i * K + x] * hb[x * N + j];
			assert_true(hc[i * N + j] == ref);
		}
	accel_kernel_unref(k);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
	accel_buffer_unref(c);
	accel_program_unref(prog);
}

/* Runs @p name (int buffer, local ints[, int]) over @p n items in groups
 * of @p ls; @p data in and out. */
static void run_1d(struct test_env *env, struct accel_program *prog,
		   const char *name, int *data, uint32_t n, uint64_t ls,
		   const int *extra)
{
	struct accel_kernel *k = NULL;
	struct accel_buffer *buf = test_buffer_new(env, n * 4);
	struct accel_ndrange range = test_ndrange(1, n, 0, 0, ls, 0, 0);

	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	test_write(env, buf, 0, n * 4, data);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_local(k, 1, ls * 4), 0);
	if (extra)
		assert_int_equal(accel_kernel_set_arg_value(k, 2, 4, extra), 0);
	test_launch_wait(env, k, &range);
	test_read(env, buf, 0, n * 4, data);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static const uint64_t group_sizes[] = { 1, 2, 7, 13, 64, 100 };

static void test_scan(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	int data[1300], in[1300];

	if (!have_compiler(env))
		skip();
	prog = build(env);
	for (size_t s = 0; s < sizeof(group_sizes) / 8; s++) {
		uint32_t ls = (uint32_t)group_sizes[s], n = ls * 13;

		for (uint32_t i = 0; i < n; i++)
			in[i] = data[i] = (int)((i * 37) % 101) - 50;
		run_1d(env, prog, "scan", data, n, ls, NULL);
		for (uint32_t g = 0; g < n; g += ls) {
			int sum = 0;

			for (uint32_t i = g; i < g + ls; i++) {
				sum += in[i];
				assert_int_equal(data[i], sum);
			}
		}
	}
	accel_program_unref(prog);
}

static void test_cond(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	int data[1300], in[1300];

	if (!have_compiler(env))
		skip();
	prog = build(env);
	for (int flag = 0; flag < 2; flag++)
		for (size_t s = 0; s < sizeof(group_sizes) / 8; s++) {
			uint32_t ls = (uint32_t)group_sizes[s], n = ls * 3;
			int pv[128][4], t[128];

			for (uint32_t i = 0; i < n; i++)
				in[i] = data[i] = (int)(i % 17);
			run_1d(env, prog, "cond", data, n, ls, &flag);
			for (uint32_t g = 0; g < n; g += ls) {
				for (uint32_t l = 0; l < ls; l++) {
					int *p = &pv[l][l & 3];

					for (int i = 0; i < 4; i++)
						pv[l][i] = (int)l * (i + 1) +
							   in[g + l];
					*p += flag ? (int)(ls - 1 - l) :
						-(int)((l + 1) % ls);
					t[l] = *p;
				}
				for (uint32_t l = 0; l < ls; l++)
					assert_int_equal(
						data[g + l],
						pv[l][0] + pv[l][1] + pv[l][2] +
							pv[l][3] +
							t[(l + 1) % ls]);
			}
		}
	accel_program_unref(prog);
}

/* vol's result at linear index @p i of the launch @p sh: the value of
 * the mirror image in the group (odd rounds), plus the rounds */
static int vol_ref(const uint64_t *sh, uint64_t i, int rounds)
{
	uint64_t g[3] = { i % sh[0], i / sh[0] % sh[1], i / sh[0] / sh[1] };
	uint64_t m[3];

	for (int d = 0; d < 3; d++) {
		uint64_t base = g[d] / sh[3 + d] * sh[3 + d];

		m[d] = base + sh[3 + d] - 1 - (g[d] - base);
	}
	return (int)(m[2] * 10000 + m[1] * 100 + m[0]) + rounds;
}

/* 3-D and 2-D groups (odd sizes, one work-item), looping 1 or 3 times */
static void test_vol(void **state)
{
	static const uint64_t shapes[][6] = {
		{ 6, 4, 6, 3, 2, 3 }, { 4, 4, 4, 1, 1, 1 },
		{ 10, 6, 1, 5, 3, 1 }, { 8, 8, 8, 4, 4, 4 },
	};
	struct test_env *env = *state;
	struct accel_program *prog;
	struct accel_kernel *k = NULL;
	struct accel_buffer *buf;
	int out[512];

	if (!have_compiler(env))
		skip();
	prog = build(env);
	assert_int_equal(accel_kernel_new(prog, "vol", &k), 0);
	buf = test_buffer_new(env, sizeof(out));
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (int rounds = 1; rounds <= 3; rounds += 2) {
			const uint64_t *sh = shapes[s];
			uint32_t dim = sh[2] > 1 ? 3 : 2;
			struct accel_ndrange range = test_ndrange(
				dim, sh[0], sh[1], dim == 3 ? sh[2] : 0, sh[3],
				sh[4], dim == 3 ? sh[5] : 0);
			uint64_t n = sh[3] * sh[4] * sh[5];

			assert_int_equal(
				accel_kernel_set_arg_local(k, 1, n * 4), 0);
			assert_int_equal(accel_kernel_set_arg_value(k, 2, 4,
								    &rounds),
					 0);
			test_launch_wait(env, k, &range);
			test_read(env, buf, 0, sh[0] * sh[1] * sh[2] * 4, out);
			for (uint64_t i = 0; i < sh[0] * sh[1] * sh[2]; i++)
				assert_int_equal(out[i],
						 vol_ref(sh, i, rounds));
		}
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
}

/* late's result for item @p l of a group of @p ls */
static int late_ref(uint32_t l, uint32_t ls, int n)
{
	int acc = 0;

	for (int k = 0; k < n; k++)
		acc += (int)((l + 1) % ls) + k;
	return l ? acc : -acc;
}

static int diverge_ref(uint32_t l, uint32_t ls, int n)
{
	uint32_t r = (l + 1) % ls;
	int x = r < 3 ? 5 : 0, k = 2 * (int)r, s, steps = 0;

	for (s = n; s > 1; s = s / 2 + (s & 1))
		steps += x + k + s;
	return (l < 3 ? 5 : 0) * 1000000 + 2 * (int)l * 1000 + steps + s;
}

/* Runs @p name with n = @p n0 and @p n1 at every group size, 4 groups,
 * against @p ref. */
static void check_1d(void **state, const char *name,
		     int (*ref)(uint32_t l, uint32_t ls, int n), int n0,
		     int n1)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	int data[500], ns[2] = { n0, n1 };

	if (!have_compiler(env))
		skip();
	prog = build(env);
	for (int t = 0; t < 2; t++)
		for (size_t g = 0; g < 6; g++) {
			uint32_t ls = (uint32_t)group_sizes[g], items = ls * 4;

			run_1d(env, prog, name, data, items, ls, &ns[t]);
			for (uint32_t i = 0; i < items; i++)
				assert_int_equal(data[i],
						 ref(i % ls, ls, ns[t]));
		}
	accel_program_unref(prog);
}

static int bigpriv_ref(uint32_t l, uint32_t ls, int n)
{
	return (int)(l * ((l * 7) % 300)) + n + (int)((l + 1) % ls) * 299 + n;
}

static void test_late_exit(void **state)
{
	check_1d(state, "late", late_ref, 1, 4);
}

static void test_diverge(void **state)
{
	check_1d(state, "diverge", diverge_ref, 1, 37);
}

static void test_big_private(void **state)
{
	check_1d(state, "bigpriv", bigpriv_ref, 3, 11);
}

/* Too many barriers for regions: fibers, same results. */
static void test_many_barriers(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	uint32_t data[700];

	if (!have_compiler(env))
		skip();
	prog = build(env);
	for (size_t s = 0; s < 5; s++) {
		uint32_t ls = (uint32_t)group_sizes[s], n = ls * 5;
		uint32_t acc[64], t[64];

		run_1d(env, prog, "many", (int *)data, n, ls, NULL);
		for (uint32_t l = 0; l < ls; l++)
			t[l] = acc[l] = l;
		for (int step = 0; step < 36; step++) {
			for (uint32_t l = 0; l < ls; l++)
				acc[l] += t[(l + 1) % ls];
			for (uint32_t l = 0; l < ls; l++)
				t[l] = acc[l];
		}
		for (uint32_t i = 0; i < n; i++)
			assert_int_equal(data[i], acc[i % ls]);
	}
	accel_program_unref(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sgemm, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scan, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_cond, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_vol, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_late_exit, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_diverge, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_big_private,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_many_barriers,
						test_env_setup,
						test_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
