/* SPDX-License-Identifier: MIT */
/*
 * Work-group builtins with local memory at several work-group sizes
 * (1, 3, 16, 64, 256, and a partial last group): async_work_group_copy
 * and the strided copies both ways with wait_group_events and prefetch,
 * a barrier tree reduction in a __local argument, a reversal through a
 * kernel-scope __local array and several barriers in loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N 4096
#define MAX_LOCAL 256

static const char src[] =
	"kernel void copy(global const int4 *in, global int4 *out,\n"
	"		  local int4 *tmp, global const int *sin,\n"
	"		  global int *sout, local int *stmp)\n"
	"{\n"
	"	size_t g = get_group_id(0), ls = get_local_size(0);\n"
	"	size_t base = g * get_enqueued_local_size(0);\n"
	"	size_t l = get_local_id(0);\n"
	"	event_t e[2];\n"
	"	prefetch(in + base, ls);\n"
	"	e[0] = async_work_group_copy(tmp, in + base, ls, 0);\n"
	"	/* every third int of 3 * ls */\n"
	"	e[1] = async_work_group_strided_copy(stmp, sin + 3 * base, ls,\n"
	"					     3, 0);\n"
	"	wait_group_events(2, e);\n"
	"	tmp[ls - 1 - l] += (int4)(1, 2, 3, 4);\n"
	"	stmp[l] *= 2;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	e[0] = async_work_group_copy(out + base, tmp, ls, 0);\n"
	"	e[1] = async_work_group_strided_copy(sout + 2 * base, stmp, ls,\n"
	"					     2, e[0]);\n"
	"	wait_group_events(1, &e[1]);\n"
	"}\n"
	"kernel void reduce(global const uint *in, global uint *sums,\n"
	"		    local uint *tmp)\n"
	"{\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	tmp[l] = in[get_global_id(0)];\n"
	"	/* halving with an odd tail: any size works */\n"
	"	for (size_t s = n; s > 1; s = (s + 1) / 2) {\n"
	"		size_t h = (s + 1) / 2;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		if (l < s - h)\n"
	"			tmp[l] += tmp[l + h];\n"
	"	}\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (l == 0)\n"
	"		sums[get_group_id(0)] = tmp[0];\n"
	"}\n"
	"kernel void reverse(global uint *io)\n"
	"{\n"
	"	local uint buf[256];\n"
	"	size_t l = get_local_id(0), n = get_local_size(0);\n"
	"	size_t i = get_global_id(0);\n"
	"	for (int round = 0; round < 3; round++) {\n"
	"		buf[l] = io[i];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		io[i] = buf[n - 1 - l] + 1;\n"
	"		barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"}\n";

static void test_workgroup(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL2.0");
	static const unsigned sizes[] = { 1, 3, 16, 64, 256, 100 };
	int32_t *in = malloc(N * 16), *out = malloc(N * 16);
	int32_t *sin = malloc(N * 3 * 4), *sout = malloc(N * 2 * 4);
	uint32_t *u = malloc(N * 4), *r = malloc(N * 4);
	struct accel_buffer *bin, *bout, *bsin, *bsout, *bu, *br;

	assert_non_null(in);
	assert_non_null(out);
	assert_non_null(sin);
	assert_non_null(sout);
	assert_non_null(u);
	assert_non_null(r);
	for (unsigned i = 0; i < N * 4; i++)
		in[i] = (int32_t)(i * 7);
	for (unsigned i = 0; i < N * 3; i++)
		sin[i] = (int32_t)i;
	for (unsigned i = 0; i < N; i++)
		u[i] = i * 3 + 1;
	bin = ct_buffer(env, N * 16, in);
	bout = ct_buffer(env, N * 16, NULL);
	bsin = ct_buffer(env, N * 3 * 4, sin);
	bsout = ct_buffer(env, N * 2 * 4, NULL);
	bu = ct_buffer(env, N * 4, u);
	br = ct_buffer(env, N * 4, NULL);

	for (size_t si = 0; si < TEST_ARRAY_SIZE(sizes); si++) {
		unsigned ls = sizes[si];
		/* 100 does not divide N: a partial last group */
		unsigned n = ls == 100 ? N - 17 : N;

		CT_RUN(env, prog, "copy", n, ls, CT_BUF(bin), CT_BUF(bout),
		       CT_LOCAL(ls * 16), CT_BUF(bsin), CT_BUF(bsout),
		       CT_LOCAL(ls * 4));
		test_read(env, bout, 0, N * 16, out);
		test_read(env, bsout, 0, N * 2 * 4, sout);
		for (unsigned i = 0; i < n; i++) {
			/* each element was added to by a different item */
			for (int c = 0; c < 4; c++)
				if (out[i * 4 + c] != in[i * 4 + c] + c + 1) {
					print_error("copy ls=%u: item %u\n",
						    ls, i);
					fail();
				}
			if (sout[2 * i] != 2 * sin[3 * i]) {
				print_error("strided ls=%u: item %u: %d\n", ls,
					    i, sout[2 * i]);
				fail();
			}
		}

		CT_RUN(env, prog, "reduce", n, ls, CT_BUF(bu), CT_BUF(br),
		       CT_LOCAL(ls * 4));
		test_read(env, br, 0, N * 4, r);
		for (unsigned g = 0; g * ls < n; g++) {
			uint32_t want = 0;

			for (unsigned i = g * ls; i < n && i < (g + 1) * ls;
			     i++)
				want += u[i];
			if (r[g] != want) {
				print_error("reduce ls=%u: group %u: %u, "
					    "want %u\n", ls, g, r[g], want);
				fail();
			}
		}

		if (N % ls)
			continue; /* reverse wants whole groups */
		test_write(env, br, 0, N * 4, u);
		CT_RUN(env, prog, "reverse", N, ls, CT_BUF(br));
		test_read(env, br, 0, N * 4, r);
		for (unsigned i = 0; i < N; i++) {
			/* three reversals: reversed once, +3 */
			unsigned gl = i / ls * ls;
			unsigned j = gl + (ls - 1 - (i - gl));

			if (r[i] != u[j] + 3) {
				print_error("reverse ls=%u: item %u\n", ls, i);
				fail();
			}
		}
	}
	accel_buffer_unref(bin);
	accel_buffer_unref(bout);
	accel_buffer_unref(bsin);
	accel_buffer_unref(bsout);
	accel_buffer_unref(bu);
	accel_buffer_unref(br);
	accel_program_unref(prog);
	free(in);
	free(out);
	free(sin);
	free(sout);
	free(u);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_workgroup, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-workgroup", tests);
}
