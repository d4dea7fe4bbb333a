/* SPDX-License-Identifier: MIT */
/*
 * The sub-group functions of active work-items against a host reference
 * (cl_khr_subgroup_ballot, _non_uniform_vote, _non_uniform_arithmetic):
 * each work-item of a sub-group is active or not at random, the active
 * ones call one set of functions and the others another, in groups of 1
 * to 64 work-items and partial groups; a subset's call followed by one
 * of the whole sub-group and a barrier; reconvergence after a branch and
 * at each turn of a loop; and the same functions reached
 * by every work-item, where they run as work-item loops, with the
 * ballot's bit operations and lane masks. Programs that ran as fibers
 * give their stacks back when they go.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

/* r[k * n + g]: function k at the work-item with global id g */
#define N_ACTIVE 16 /* the active ones' */
#define N_OTHER 3   /* the others', after them */
#define N_UNI 16

static const char *const names[N_ACTIVE + N_OTHER] = {
	"non_uniform_reduce_add", "non_uniform_scan_inclusive_add",
	"non_uniform_scan_exclusive_max", "non_uniform_reduce_mul",
	"non_uniform_reduce_and", "non_uniform_reduce_or",
	"non_uniform_scan_inclusive_xor",
	"non_uniform_reduce_logical_or", "elect", "non_uniform_all",
	"non_uniform_any", "non_uniform_all_equal", "broadcast_first",
	"non_uniform_broadcast", "ballot .x", "ballot .yzw",
	"non_uniform_reduce_min (others)",
	"non_uniform_scan_exclusive_add (others)", "elect (others)",
};

static const char *const uni_names[N_UNI] = {
	"non_uniform_reduce_add", "elect", "ballot .x", "inverse_ballot",
	"ballot_bit_count", "ballot_inclusive_scan", "ballot_exclusive_scan",
	"ballot_find_lsb", "ballot_find_msb", "ballot_bit_extract",
	"eq_mask", "ge_mask", "gt_mask", "le_mask", "lt_mask",
	"broadcast_first",
};

static const char src[] =
	"#define N_ACTIVE 16\n"
	"kernel void nu(global const int *x, global const uint *act,\n"
	"		global const uint *bi, global int *r)\n"
	"{\n"
	"	size_t g = get_global_id(0), n = get_global_size(0);\n"
	"	int v = x[g];\n"
	"	if (act[g]) {\n"
	"		uint4 b = sub_group_ballot(v > 0);\n"
	"		r[0 * n + g] = sub_group_non_uniform_reduce_add(v);\n"
	"		r[1 * n + g] = sub_group_non_uniform_scan_inclusive_add(v);\n"
	"		r[2 * n + g] = sub_group_non_uniform_scan_exclusive_max(v);\n"
	"		r[3 * n + g] = sub_group_non_uniform_reduce_mul(v);\n"
	"		r[4 * n + g] = sub_group_non_uniform_reduce_and(v);\n"
	"		r[5 * n + g] = sub_group_non_uniform_reduce_or(v);\n"
	"		r[6 * n + g] = sub_group_non_uniform_scan_inclusive_xor(v);\n"
	"		r[7 * n + g] =\n"
	"			sub_group_non_uniform_reduce_logical_or(v > 2);\n"
	"		r[8 * n + g] = sub_group_elect();\n"
	"		r[9 * n + g] = sub_group_non_uniform_all(v > -4);\n"
	"		r[10 * n + g] = sub_group_non_uniform_any(v == 3);\n"
	"		r[11 * n + g] = sub_group_non_uniform_all_equal(v / 8);\n"
	"		r[12 * n + g] = sub_group_broadcast_first(v);\n"
	"		r[13 * n + g] = sub_group_non_uniform_broadcast(v, bi[g]);\n"
	"		r[14 * n + g] = (int)b.x;\n"
	"		r[15 * n + g] = (int)(b.y | b.z | b.w);\n"
	"	} else {\n"
	"		r[(N_ACTIVE + 0) * n + g] =\n"
	"			sub_group_non_uniform_reduce_min(v);\n"
	"		r[(N_ACTIVE + 1) * n + g] =\n"
	"			sub_group_non_uniform_scan_exclusive_add(v);\n"
	"		r[(N_ACTIVE + 2) * n + g] = sub_group_elect();\n"
	"	}\n"
	"}\n"
	/* the first three lanes alone, then all of the sub-group, then a
	 * barrier that the others reach while those three still wait */
	"kernel void rejoin(global const int *x, global int *r)\n"
	"{\n"
	"	local int lm[256];\n"
	"	size_t g = get_global_id(0);\n"
	"	uint l = get_local_id(0);\n"
	"	int v = x[g], a = 0;\n"
	"	if (get_sub_group_local_id() < 3)\n"
	"		a = 1000 * sub_group_non_uniform_reduce_add(v);\n"
	"	a += sub_group_reduce_add(v);\n"
	"	lm[l] = a;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	r[g] = (int)((uint)a +\n"
	"		     1000000u * (uint)lm[(l + 1) % get_local_size(0)]);\n"
	"}\n"
	/* the others publish for the work-group function while the three
	 * still wait for theirs */
	"kernel void rejoin_wg(global const int *x, global int *r)\n"
	"{\n"
	"	size_t g = get_global_id(0);\n"
	"	int v = x[g], a = 0;\n"
	"	if (get_sub_group_local_id() < 3)\n"
	"		a = 1000 * sub_group_non_uniform_reduce_add(v);\n"
	"	r[g] = a + work_group_reduce_add(v);\n"
	"}\n"
	/* after a branch and at each turn of a loop of varying count: the
	 * lanes a SIMD machine would run together */
	"kernel void reconverge(global const int *x, global int *r)\n"
	"{\n"
	"	size_t g = get_global_id(0), n = get_global_size(0);\n"
	"	int v = x[g], a = -1, s = 0;\n"
	"	if (v & 1)\n"
	"		a = sub_group_non_uniform_reduce_add(v);\n"
	"	r[g] = a;\n"
	"	r[n + g] = sub_group_non_uniform_reduce_add(v);\n"
	"	r[2 * n + g] =\n"
	"		(int)sub_group_ballot_bit_count(sub_group_ballot(v > 0));\n"
	"	for (int i = 0; i < (v & 3); i++)\n"
	"		s += 10 * i + sub_group_non_uniform_reduce_add(1);\n"
	"	r[3 * n + g] = s;\n"
	"}\n"
	"kernel void uni(global const int *x, global int *r)\n"
	"{\n"
	"	size_t g = get_global_id(0), n = get_global_size(0);\n"
	"	uint max = get_max_sub_group_size();\n"
	"	uint lane = get_sub_group_local_id();\n"
	"	int v = x[g];\n"
	"	uint4 b = sub_group_ballot(v > 0);\n"
	"	r[0 * n + g] = sub_group_non_uniform_reduce_add(v);\n"
	"	r[1 * n + g] = sub_group_elect();\n"
	"	r[2 * n + g] = (int)b.x;\n"
	"	r[3 * n + g] = sub_group_inverse_ballot(b) != 0;\n"
	"	r[4 * n + g] = (int)sub_group_ballot_bit_count(b);\n"
	"	r[5 * n + g] = (int)sub_group_ballot_inclusive_scan(b);\n"
	"	r[6 * n + g] = (int)sub_group_ballot_exclusive_scan(b);\n"
	"	r[7 * n + g] = b.x ? (int)sub_group_ballot_find_lsb(b) : -1;\n"
	"	r[8 * n + g] = b.x ? (int)sub_group_ballot_find_msb(b) : -1;\n"
	"	r[9 * n + g] =\n"
	"		sub_group_ballot_bit_extract(b, (lane + 1) % max) != 0;\n"
	"	r[10 * n + g] = (int)get_sub_group_eq_mask().x;\n"
	"	r[11 * n + g] = (int)get_sub_group_ge_mask().x;\n"
	"	r[12 * n + g] = (int)get_sub_group_gt_mask().x;\n"
	"	r[13 * n + g] = (int)get_sub_group_le_mask().x;\n"
	"	r[14 * n + g] = (int)get_sub_group_lt_mask().x;\n"
	"	r[15 * n + g] = sub_group_broadcast_first(v);\n"
	"}\n";

static int32_t wrap(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/* bits of lanes [0, k) */
static uint32_t below(unsigned k)
{
	return k >= 32 ? ~0u : (1u << k) - 1;
}

static unsigned report(const char *what, const char *name, uint64_t l,
		       uint64_t g, int32_t got, int32_t want, unsigned bad)
{
	if (bad < 5)
		print_error("%s %s, group of %llu, item %llu: %d, want %d\n",
			    what, name, (unsigned long long)l,
			    (unsigned long long)g, got, want);
	return 1;
}

/*
 * The active and the other work-items of sub-group lanes @p ids[0..m):
 * @p want[k][j] for lane j, @p check[k][j] where defined.
 */
static void reference_nu(const int32_t *x, const uint32_t *act,
			 const uint32_t *bi, const size_t *ids, size_t m,
			 int32_t want[][64], bool check[][64])
{
	int64_t sum = 0, mul = 1, ors = 0, ands = -1, incl = 0, xr = 0;
	int32_t mx = INT32_MIN, mn = INT32_MAX, excl = 0;
	int lor = 0, all = 1, any = 0, eq = 1, first = -1, ofirst = -1;
	uint32_t ballot = 0;

	for (size_t j = 0; j < m; j++) {
		int32_t v = x[ids[j]];

		if (!act[ids[j]]) {
			mn = v < mn ? v : mn;
			ofirst = ofirst < 0 ? (int)j : ofirst;
			continue;
		}
		if (first < 0)
			first = (int)j;
		sum += v;
		mul = wrap(mul * v);
		ands &= v;
		ors |= v;
		lor |= v > 2;
		all &= v > -4;
		any |= v == 3;
		eq &= v / 8 == x[ids[first]] / 8;
		ballot |= (uint32_t)(v > 0) << j;
	}
	for (size_t j = 0; j < m; j++) {
		int32_t v = x[ids[j]];
		bool a = act[ids[j]];

		for (int k = 0; k < N_ACTIVE + N_OTHER; k++)
			check[k][j] = a == (k < N_ACTIVE);
		if (!a) {
			want[N_ACTIVE + 0][j] = mn;
			want[N_ACTIVE + 1][j] = excl;
			want[N_ACTIVE + 2][j] = (int)j == ofirst;
			excl = wrap((int64_t)excl + v);
			continue;
		}
		incl += v;
		want[0][j] = wrap(sum);
		want[1][j] = wrap(incl);
		want[2][j] = mx;
		mx = v > mx ? v : mx;
		want[3][j] = (int32_t)mul;
		want[4][j] = (int32_t)ands;
		want[5][j] = (int32_t)ors;
		xr ^= v;
		want[6][j] = (int32_t)xr;
		want[7][j] = lor;
		want[8][j] = (int)j == first;
		want[9][j] = all;
		want[10][j] = any;
		want[11][j] = eq;
		want[12][j] = x[ids[first]];
		want[13][j] = x[ids[bi[ids[j]]]];
		want[14][j] = (int32_t)ballot;
		want[15][j] = 0;
	}
}

/* The group of @p l from global id @p gb, in lane order. */
static unsigned check_nu(const int32_t *x, const uint32_t *act,
			 const uint32_t *bi, const int32_t *r, size_t n,
			 uint64_t l, uint64_t gb, unsigned w)
{
	static int32_t want[N_ACTIVE + N_OTHER][64];
	static bool check[N_ACTIVE + N_OTHER][64];
	uint64_t end = gb + ct_sub_group_of(gb, n, l, w).group_size;
	unsigned bad = 0;

	for (uint64_t sb = gb; sb < end; sb += w) {
		struct ct_sub_group sg = ct_sub_group_of(sb, n, l, w);
		size_t ids[64];

		for (size_t j = 0; j < sg.size; j++)
			ids[j] = sg.first + j;
		reference_nu(x, act, bi, ids, sg.size, want, check);
		for (size_t j = 0; j < sg.size; j++)
			for (int k = 0; k < N_ACTIVE + N_OTHER; k++) {
				int32_t got = r[k * n + ids[j]];

				if (check[k][j] && got != want[k][j])
					bad += report("nu", names[k], l, ids[j],
						      got, want[k][j], bad);
			}
	}
	return bad;
}

/* group sizes 1..64 and 256, each launch ending in a partial group */
static uint64_t local_size(unsigned i)
{
	return i < 64 ? i + 1 : 256;
}

static void test_active(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "nu"), bad = 0;

	assert_true(w >= 1 && w <= 64);
	for (unsigned li = 0; li <= 64; li++) {
		uint64_t l = local_size(li), n = 2 * l + (l + 1) / 2;
		size_t rn = n * (N_ACTIVE + N_OTHER);
		int32_t *x = malloc(n * 4), *r = malloc(rn * 4);
		uint32_t *act = malloc(n * 4), *bi = malloc(n * 4);
		struct accel_buffer *bx, *ba, *bb, *br;
		uint64_t seed = 5 + n;

		assert_non_null(x);
		assert_non_null(r);
		assert_non_null(act);
		assert_non_null(bi);
		for (uint64_t i = 0; i < n; i++) {
			x[i] = (int32_t)(ct_rand(&seed) % 19) - 9;
			act[i] = ct_rand(&seed) % 5 < 3;
		}
		/* one active lane of each sub-group's active ones, as ids
		 * in the sub-group: the lane all of them read */
		for (uint64_t gb = 0; gb < n; gb += l)
			for (uint64_t sb = gb; sb < gb + l && sb < n; sb += w) {
				uint64_t e = sb +
					     ct_sub_group_of(sb, n, l, w).size;
				uint32_t pick = 0, seen = 0;

				for (uint64_t i = sb; i < e; i++)
					if (act[i] && ct_rand(&seed) % ++seen == 0)
						pick = (uint32_t)(i - sb);
				for (uint64_t i = sb; i < e; i++)
					bi[i] = pick;
			}
		for (size_t i = 0; i < rn; i++)
			r[i] = 0x5a5a5a5a;
		bx = ct_buffer(env, n * 4, x);
		ba = ct_buffer(env, n * 4, act);
		bb = ct_buffer(env, n * 4, bi);
		br = ct_buffer(env, rn * 4, r);
		CT_RUN(env, prog, "nu", n, l, CT_BUF(bx), CT_BUF(ba),
		       CT_BUF(bb), CT_BUF(br));
		test_read(env, br, 0, rn * 4, r);
		for (uint64_t gb = 0; gb < n; gb += l)
			bad += check_nu(x, act, bi, r, n, l, gb, w);
		accel_buffer_unref(bx);
		accel_buffer_unref(ba);
		accel_buffer_unref(bb);
		accel_buffer_unref(br);
		free(x);
		free(r);
		free(act);
		free(bi);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* Three lanes' call, then the sub-group's, then a barrier; three lanes'
 * call, then a work-group function. */
static void test_rejoin(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "rejoin"), bad = 0;

	for (unsigned li = 0; li <= 64; li += 3) {
		uint64_t l = local_size(li), n = 2 * l + (l + 1) / 2;
		int32_t *x = malloc(n * 4), *r = malloc(n * 4);
		int32_t *a = malloc(n * 4), *wg = malloc(n * 4);
		struct accel_buffer *bx, *br, *bw;
		uint64_t seed = 3 + n;

		assert_non_null(x);
		assert_non_null(r);
		assert_non_null(a);
		assert_non_null(wg);
		ct_rand_ints(x, n, &seed, -9, 9);
		bx = ct_buffer(env, n * 4, x);
		br = ct_buffer(env, n * 4, NULL);
		bw = ct_buffer(env, n * 4, NULL);
		CT_RUN(env, prog, "rejoin", n, l, CT_BUF(bx), CT_BUF(br));
		CT_RUN(env, prog, "rejoin_wg", n, l, CT_BUF(bx), CT_BUF(bw));
		test_read(env, br, 0, n * 4, r);
		test_read(env, bw, 0, n * 4, wg);
		for (uint64_t g = 0; g < n; g++) {
			struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
			uint64_t sb = sg.first, se = sg.first + sg.size;
			uint64_t gb = sg.group, m = sg.group_size;
			int32_t all = 0, three = 0, group = 0;

			for (uint64_t k = sb; k < se; k++) {
				all += x[k];
				three += k - sb < 3 ? x[k] : 0;
			}
			for (uint64_t k = gb; k < gb + m; k++)
				group += x[k];
			a[g] = all + (sg.lane < 3 ? 1000 * three : 0);
			if (wg[g] != group + (sg.lane < 3 ? 1000 * three : 0))
				bad += report("rejoin_wg", "", l, g, wg[g],
					      group + (sg.lane < 3 ?
						       1000 * three : 0), bad);
		}
		for (uint64_t g = 0; g < n; g++) {
			struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
			uint64_t gb = sg.group;
			/* wrapping, as unsigned arithmetic does */
			int32_t want = (int32_t)((uint32_t)a[g] +
						 1000000u *
						 (uint32_t)a[gb + (g - gb + 1) %
							     sg.group_size]);

			if (r[g] != want)
				bad += report("rejoin", "", l, g, r[g], want,
					      bad);
		}
		accel_buffer_unref(bx);
		accel_buffer_unref(br);
		accel_buffer_unref(bw);
		free(x);
		free(r);
		free(a);
		free(wg);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/*
 * A non-uniform function after a branch that only some lanes took a
 * sub-group function in, and in a loop each lane turns a different
 * number of times: all the lanes of the sub-group in the first, those
 * still in the loop at each turn.
 */
static void test_reconverge(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "reconverge"), bad = 0;

	for (unsigned li = 0; li <= 64; li += 7) {
		uint64_t l = local_size(li), n = 2 * l + (l + 1) / 2;
		int32_t *x = malloc(n * 4), *r = malloc(4 * n * 4);
		struct accel_buffer *bx, *br;
		uint64_t seed = 5 + n;

		assert_non_null(x);
		assert_non_null(r);
		ct_rand_ints(x, n, &seed, -9, 9);
		bx = ct_buffer(env, n * 4, x);
		br = ct_buffer(env, 4 * n * 4, NULL);
		CT_RUN(env, prog, "reconverge", n, l, CT_BUF(bx), CT_BUF(br));
		test_read(env, br, 0, 4 * n * 4, r);
		for (uint64_t g = 0; g < n; g++) {
			struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
			uint64_t sb = sg.first, se = sg.first + sg.size;
			int32_t want[4] = { -1, 0, 0, 0 }, odd = 0;

			for (uint64_t k = sb; k < se; k++) {
				odd += (x[k] & 1) ? x[k] : 0;
				want[1] += x[k];
				want[2] += x[k] > 0;
			}
			if (x[g] & 1)
				want[0] = odd;
			for (int i = 0; i < (x[g] & 3); i++) {
				want[3] += 10 * i;
				for (uint64_t k = sb; k < se; k++)
					want[3] += (x[k] & 3) > i;
			}
			for (int op = 0; op < 4; op++)
				if (r[op * n + g] != want[op])
					bad += report("reconverge", "", l, g,
						      r[op * n + g], want[op],
						      bad);
		}
		accel_buffer_unref(bx);
		accel_buffer_unref(br);
		free(x);
		free(r);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* Reached by all: every lane active, as work-item loops. */
static void test_all_active(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "uni"), bad = 0;
	struct accel_kernel *ku, *kn;
	uint64_t per_u = 0, per_n = 0;

	assert_int_equal(accel_kernel_new(prog, "uni", &ku), 0);
	assert_int_equal(accel_kernel_new(prog, "nu", &kn), 0);
	assert_int_equal(accel_kernel_get_private_mem(ku, NULL, &per_u, NULL),
			 0);
	assert_int_equal(accel_kernel_get_private_mem(kn, NULL, &per_n, NULL),
			 0);
	accel_kernel_unref(ku);
	accel_kernel_unref(kn);
	/* fibers keep a stack per work-item, work-item loops do not */
	assert_true(per_u < per_n);
	for (unsigned li = 0; li <= 64; li++) {
		uint64_t l = local_size(li), n = 2 * l + (l + 1) / 2;
		int32_t *x = malloc(n * 4), *r = malloc(n * 4 * N_UNI);
		struct accel_buffer *bx, *br;
		uint64_t seed = 17 + n;

		assert_non_null(x);
		assert_non_null(r);
		ct_rand_ints(x, n, &seed, -9, 9);
		bx = ct_buffer(env, n * 4, x);
		br = ct_buffer(env, n * 4 * N_UNI, NULL);
		CT_RUN(env, prog, "uni", n, l, CT_BUF(bx), CT_BUF(br));
		test_read(env, br, 0, n * 4 * N_UNI, r);
		for (uint64_t g = 0; g < n; g++) {
			struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
			uint64_t sb = sg.first, se = sg.first + sg.size;
			unsigned j = (unsigned)sg.lane, max = (unsigned)sg.max;
			uint32_t b = 0, lanes = below(max);
			int32_t sum = 0, want[N_UNI];

			for (uint64_t k = sb; k < se; k++) {
				sum += x[k];
				b |= (uint32_t)(x[k] > 0) << (k - sb);
			}
			want[0] = sum;
			want[1] = j == 0;
			want[2] = (int32_t)b;
			want[3] = (b >> j) & 1;
			want[4] = __builtin_popcount(b & lanes);
			want[5] = __builtin_popcount(b & below(j + 1));
			want[6] = __builtin_popcount(b & below(j));
			want[7] = b ? __builtin_ctz(b) : -1;
			want[8] = b ? 31 - __builtin_clz(b) : -1;
			want[9] = (b >> ((j + 1) % max)) & 1;
			want[10] = (int32_t)(1u << j);
			want[11] = (int32_t)(lanes & ~below(j));
			want[12] = (int32_t)(lanes & ~below(j + 1));
			want[13] = (int32_t)below(j + 1);
			want[14] = (int32_t)below(j);
			want[15] = x[sb];
			for (int k = 0; k < N_UNI; k++)
				if (r[k * n + g] != want[k])
					bad += report("uni", uni_names[k], l, g,
						      r[k * n + g], want[k],
						      bad);
		}
		accel_buffer_unref(bx);
		accel_buffer_unref(br);
		free(x);
		free(r);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* the process's memory mappings */
static unsigned mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned n = 0;
	int c;

	assert_non_null(f);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Fiber stacks are cached per program and freed with it. */
static void test_stacks_freed(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	uint64_t l = 64, n = 4 * l;
	struct accel_buffer *bx = ct_buffer(env, n * 4, NULL);
	struct accel_buffer *br = ct_buffer(env, n * 4, NULL);
	const void *bin;
	size_t size;
	unsigned before = 0;

	assert_int_equal(accel_program_get_binary(prog, &bin, &size), 0);
	for (int i = 0; i < 24; i++) {
		struct accel_program *p;

		assert_int_equal(accel_program_new_binary(env->dev, bin, size,
							  &p),
				 0);
		CT_RUN(env, p, "rejoin", n, l, CT_BUF(bx), CT_BUF(br));
		accel_program_unref(p);
		/* after the first: the pool's threads and caches are up */
		if (i == 0)
			before = mappings();
	}
	/* a leaked stack set of 64 work-items is 129 mappings */
	if (mappings() > before + 64)
		print_error("mappings: %u, %u after the first program\n",
			    mappings(), before);
	assert_true(mappings() <= before + 64);
	accel_buffer_unref(bx);
	accel_buffer_unref(br);
	accel_program_unref(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_active, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_rejoin, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_reconverge,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_all_active,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_stacks_freed,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-subgroup-active", tests);
}
