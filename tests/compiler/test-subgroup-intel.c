/* SPDX-License-Identifier: MIT */
/*
 * cl_intel_subgroups, cl_intel_subgroups_short (implemented, not listed
 * by the device: the programs define their macros, INTEL below) and
 * cl_intel_required_subgroup_size against a host reference: shuffle,
 * shuffle_xor and the two-source shuffle_down/up for scalars and vectors
 * of every element type, block reads and writes (uint, ushort; 1, 2, 4
 * and 8 per lane), the short broadcasts, reductions and scans, at the
 * device's sub-group size and at every size intel_reqd_sub_group_size
 * takes (1 ... 64; there a type of each kind of exchange), with partial
 * work-groups and partial sub-groups.
 * Lanes an operation leaves undefined (out of the sub-group) are not
 * checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

/* the opt-in to the Intel functions the device does not list */
#define INTEL "-Dcl_intel_subgroups=1 -Dcl_intel_subgroups_short=1"

/*
 * sh_<V>: r[k * n + g] (element-wise, V's elements) for k = shuffle by
 * (lane * 3 + 1) % size, shuffle_xor by d, shuffle_down(x, y, d),
 * shuffle_up(x, y, d).
 */
static const char src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#ifndef cl_intel_required_subgroup_size\n"
	"#error the extension's macro\n"
	"#endif\n"
	"#ifdef SG\n"
	"#define ATTR __attribute__((intel_reqd_sub_group_size(SG)))\n"
	"#else\n"
	"#define ATTR\n"
	"#endif\n"
	"#define LD1(g, p) (p)[g]\n"
	"#define ST1(v, i, p) ((p)[i] = (v))\n"
	"#define KV(T, V, LD, ST) \\\n"
	"ATTR kernel void sh_##V(global const T *x, global const T *y, \\\n"
	"			global T *r, uint d) \\\n"
	"{ \\\n"
	"	size_t n = get_global_size(0), g = get_global_id(0); \\\n"
	"	uint lane = get_sub_group_local_id(); \\\n"
	"	uint sz = get_sub_group_size(); \\\n"
	"	V v = LD(g, x), w = LD(g, y); \\\n"
	"	ST(intel_sub_group_shuffle(v, (lane * 3 + 1) % sz), g, r); \\\n"
	"	ST(intel_sub_group_shuffle_xor(v, d), n + g, r); \\\n"
	"	ST(intel_sub_group_shuffle_down(v, w, d), 2 * n + g, r); \\\n"
	"	ST(intel_sub_group_shuffle_up(v, w, d), 3 * n + g, r); \\\n"
	"}\n"
	"#define K1(T) KV(T, T, LD1, ST1)\n"
	"#define KN(T, N) KV(T, T##N, vload##N, vstore##N)\n"
	/* FEW: the kinds of exchange (scalar, 3-vector, one word, several
	 * words) of each element size */
	"K1(float) KN(float, 3) KN(float, 16) KN(int, 4) K1(long) K1(half)\n"
	"KN(short, 3) KN(ushort, 16)\n"
	"#ifndef FEW\n"
	"KN(float, 2) KN(float, 4) KN(float, 8) K1(int) K1(uint) KN(uint, 8)\n"
	"K1(ulong) K1(double) K1(short) KN(short, 2) KN(short, 4)\n"
	"KN(short, 8) KN(short, 16) K1(ushort)\n"
	"#endif\n"
	/* block reads of 1, 2, 4 and 8 (15 blocks of M per sub-group, nsg
	 * sub-groups per full group):
	 * what each lane read in order, and the blocks written back + 1 */
	"#define BLK(T, S) \\\n"
	"ATTR kernel void blk##S(global const T *x, global T *r, \\\n"
	"			global T *seen, uint nsg) \\\n"
	"{ \\\n"
	"	uint m = get_max_sub_group_size(); \\\n"
	"	size_t sg = get_group_id(0) * nsg + get_sub_group_id(); \\\n"
	"	size_t b = sg * 15 * m, g = get_global_id(0); \\\n"
	"	T a = intel_sub_group_block_read##S(x + b); \\\n"
	"	T##2 c = intel_sub_group_block_read##S##2(x + b + m); \\\n"
	"	T##4 e = intel_sub_group_block_read##S##4(x + b + 3 * m); \\\n"
	"	T##8 f = intel_sub_group_block_read##S##8(x + b + 7 * m); \\\n"
	"	seen[g * 15] = a; \\\n"
	"	vstore2(c, 0, seen + g * 15 + 1); \\\n"
	"	vstore4(e, 0, seen + g * 15 + 3); \\\n"
	"	vstore8(f, 0, seen + g * 15 + 7); \\\n"
	"	intel_sub_group_block_write##S(r + b, a + (T)1); \\\n"
	"	intel_sub_group_block_write##S##2(r + b + m, c + (T)1); \\\n"
	"	intel_sub_group_block_write##S##4(r + b + 3 * m, e + (T)1); \\\n"
	"	intel_sub_group_block_write##S##8(r + b + 7 * m, f + (T)1); \\\n"
	"}\n"
	"BLK(uint, ) BLK(uint, _ui) BLK(ushort, _us)\n"
	/* cl_intel_subgroups_short's collectives and broadcasts */
	"ATTR kernel void shorts(global const short *x, global short *r,\n"
	"			uint k)\n"
	"{\n"
	"	size_t n = get_global_size(0), g = get_global_id(0);\n"
	"	short v = x[g];\n"
	"	ushort u = (ushort)v;\n"
	"	short4 v4 = (short4)(v, v + 1, v + 2, v + 3);\n"
	"	r[g] = intel_sub_group_reduce_add(v);\n"
	"	r[n + g] = intel_sub_group_reduce_min(v);\n"
	"	r[2 * n + g] = intel_sub_group_scan_inclusive_max(v);\n"
	"	r[3 * n + g] = intel_sub_group_scan_exclusive_add(v);\n"
	"	r[4 * n + g] = (short)intel_sub_group_reduce_max(u);\n"
	"	r[5 * n + g] = intel_sub_group_broadcast(v, k);\n"
	"	r[6 * n + g] = intel_sub_group_broadcast(v4, k).s3;\n"
	"}\n";

static const struct vt {
	const char *name;
	unsigned esize, n; /* element bytes, elements */
	bool is_float;     /* values as float, half (esize 2) or double */
	bool few;          /* built with -DFEW too */
} vts[] = {
	{ "float", 4, 1, true, true }, { "float2", 4, 2, true, false },
	{ "float3", 4, 3, true, true }, { "float4", 4, 4, true, false },
	{ "float8", 4, 8, true, false }, { "float16", 4, 16, true, true },
	{ "int", 4, 1, false, false }, { "int4", 4, 4, false, true },
	{ "uint", 4, 1, false, false }, { "uint8", 4, 8, false, false },
	{ "long", 8, 1, false, true }, { "ulong", 8, 1, false, false },
	{ "half", 2, 1, true, true }, { "double", 8, 1, true, false },
	{ "short", 2, 1, false, false }, { "short2", 2, 2, false, false },
	{ "short3", 2, 3, false, true }, { "short4", 2, 4, false, false },
	{ "short8", 2, 8, false, false }, { "short16", 2, 16, false, false },
	{ "ushort", 2, 1, false, false }, { "ushort16", 2, 16, false, true },
};

/* value @p v (a small integer) as an element of @p t at @p p */
static void put(const struct vt *t, int v, unsigned char *p)
{
	int64_t l = v;
	float f = (float)v;
	double d = v;
	_Float16 h = (_Float16)v;

	if (t->is_float && t->esize == 4)
		memcpy(p, &f, 4);
	else if (t->is_float && t->esize == 8)
		memcpy(p, &d, 8);
	else if (t->is_float)
		memcpy(p, &h, 2);
	else
		memcpy(p, &l, t->esize);
}

/* Element bytes of work-item @p lane of the sub-group at @p sb. */
#define AT(buf, t, sb, lane)                                                   \
	((buf) + ((sb) + (lane)) * (uint64_t)(t)->esize * (t)->n)

static unsigned check_shuffles(const struct vt *t, const unsigned char *x,
			       const unsigned char *y, const unsigned char *r,
			       uint64_t n, uint64_t l, unsigned w, uint32_t d)
{
	size_t vs = (size_t)t->esize * t->n;
	unsigned bad = 0;

	for (uint64_t g = 0; g < n; g++) {
		struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
		const unsigned char *want[4] = { NULL };
		uint64_t k;

		want[0] = AT(x, t, sg.first, (sg.lane * 3 + 1) % sg.size);
		if ((sg.lane ^ d) < sg.size)
			want[1] = AT(x, t, sg.first, sg.lane ^ d);
		k = sg.lane + d;
		if (k < sg.max)
			want[2] = k < sg.size ? AT(x, t, sg.first, k) : NULL;
		else if (k - sg.max < sg.size)
			want[2] = AT(y, t, sg.first, k - sg.max);
		if (d <= sg.lane)
			want[3] = AT(y, t, sg.first, sg.lane - d);
		else if (sg.lane + sg.max - d < sg.size)
			want[3] = AT(x, t, sg.first, sg.lane + sg.max - d);
		for (int op = 0; op < 4; op++) {
			const unsigned char *got = r + (op * n + g) * vs;

			if (!want[op] || !memcmp(got, want[op], vs))
				continue;
			if (bad++ < 5)
				print_error("sh_%s op %d, size %u, group of "
					    "%llu, item %llu, d %u: wrong\n",
					    t->name, op, w,
					    (unsigned long long)l,
					    (unsigned long long)g, d);
		}
	}
	return bad;
}

static unsigned run_shuffles(struct test_env *env,
			     struct accel_program *prog, uint64_t l, bool few)
{
	uint64_t n = 2 * l + (l + 1) / 2, seed = 3 + l;
	unsigned bad = 0;

	for (size_t ti = 0; ti < TEST_ARRAY_SIZE(vts); ti++) {
		const struct vt *t = &vts[ti];
		size_t vs = (size_t)t->esize * t->n;
		unsigned char *x, *y, *r;
		struct accel_buffer *bx, *by, *br;
		char name[32];
		unsigned w;
		uint32_t d;

		if (few && !t->few)
			continue;
		x = malloc(n * vs);
		y = malloc(n * vs);
		r = calloc(4 * n, vs);
		assert_non_null(x);
		assert_non_null(y);
		assert_non_null(r);
		snprintf(name, sizeof(name), "sh_%s", t->name);
		w = ct_sub_group_width(prog, name);
		/* every delta a lane may ask for, 0 ... max size */
		d = (uint32_t)(ct_rand(&seed) % ((l < w ? l : w) + 1));
		for (uint64_t i = 0; i < n * t->n; i++) {
			put(t, (int)(ct_rand(&seed) % 1000), x + i * t->esize);
			put(t, (int)(ct_rand(&seed) % 1000), y + i * t->esize);
		}
		bx = ct_buffer(env, n * vs, x);
		by = ct_buffer(env, n * vs, y);
		br = ct_buffer(env, 4 * n * vs, NULL);
		CT_RUN(env, prog, name, n, l, CT_BUF(bx), CT_BUF(by),
		       CT_BUF(br), CT_VAL(d));
		test_read(env, br, 0, 4 * n * vs, r);
		bad += check_shuffles(t, x, y, r, n, l, w, d);
		accel_buffer_unref(bx);
		accel_buffer_unref(by);
		accel_buffer_unref(br);
		free(x);
		free(y);
		free(r);
	}
	return bad;
}

/* blk<S> over @p l-item groups: uint (es 4) or ushort (es 2) */
static unsigned run_blocks(struct test_env *env, struct accel_program *prog,
			   const char *name, unsigned es, uint64_t l)
{
	uint64_t n = 2 * l + (l + 1) / 2, ng = (n + l - 1) / l, seed = 5 + l;
	unsigned w = ct_sub_group_width(prog, name);
	uint64_t m = l < w ? l : w, nsg = (l + w - 1) / w;
	uint64_t len = ng * nsg * 15 * m;
	unsigned char *x = malloc(len * es), *r = malloc(len * es);
	unsigned char *seen = malloc(n * 15 * es);
	struct accel_buffer *bx, *br, *bs;
	uint32_t nsg32 = (uint32_t)nsg;
	unsigned bad = 0;

	assert_non_null(x);
	assert_non_null(r);
	assert_non_null(seen);
	for (uint64_t i = 0; i < len; i++) {
		uint32_t v = (uint32_t)ct_rand(&seed) & 0x7fff;

		memcpy(x + i * es, &v, es);
	}
	bx = ct_buffer(env, len * es, x);
	br = ct_buffer(env, len * es, NULL);
	bs = ct_buffer(env, n * 15 * es, NULL);
	CT_RUN(env, prog, name, n, l, CT_BUF(bx), CT_BUF(br), CT_BUF(bs),
	       CT_VAL(nsg32));
	test_read(env, br, 0, len * es, r);
	test_read(env, bs, 0, n * 15 * es, seen);
	for (uint64_t g = 0; g < n; g++) {
		struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
		uint64_t b = (g / l * nsg + sg.id) * 15 * m;
		/* element j of the 15 a lane reads: block, then k in it */
		static const unsigned start[15] = { 0, 1, 1, 3, 3, 3, 3,
						    7, 7, 7, 7, 7, 7, 7, 7 };

		for (unsigned j = 0; j < 15; j++) {
			uint64_t at = b + start[j] * m + sg.lane +
				      (j - start[j]) * m;
			uint32_t want = 0, got = 0, back = 0;

			memcpy(&want, x + at * es, es);
			memcpy(&got, seen + (g * 15 + j) * es, es);
			memcpy(&back, r + at * es, es);
			if ((got != want || back != want + 1) && bad++ < 5)
				print_error("%s, size %u, group of %llu, item "
					    "%llu, element %u: read %u, wrote "
					    "%u, want %u\n", name, w,
					    (unsigned long long)l,
					    (unsigned long long)g, j, got,
					    back, want);
		}
	}
	accel_buffer_unref(bx);
	accel_buffer_unref(br);
	accel_buffer_unref(bs);
	free(x);
	free(r);
	free(seen);
	return bad;
}

static unsigned run_shorts(struct test_env *env, struct accel_program *prog,
			   uint64_t l)
{
	uint64_t n = 2 * l + (l + 1) / 2, seed = 7 + l;
	unsigned w = ct_sub_group_width(prog, "shorts"), bad = 0;
	int16_t *x = malloc(n * 2), *r = malloc(7 * n * 2);
	struct accel_buffer *bx, *br;
	uint32_t k = (uint32_t)(l % 3);

	assert_non_null(x);
	assert_non_null(r);
	for (uint64_t i = 0; i < n; i++)
		x[i] = (int16_t)(ct_rand(&seed) % 201) - 100;
	bx = ct_buffer(env, n * 2, x);
	br = ct_buffer(env, 7 * n * 2, NULL);
	CT_RUN(env, prog, "shorts", n, l, CT_BUF(bx), CT_BUF(br), CT_VAL(k));
	test_read(env, br, 0, 7 * n * 2, r);
	for (uint64_t g = 0; g < n; g++) {
		struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
		int32_t sum = 0, mn = 32767, mx = -32768, pre = 0;
		int32_t umax = 0, want[7];

		for (uint64_t i = 0; i < sg.size; i++) {
			int16_t v = x[sg.first + i];

			sum += v;
			mn = v < mn ? v : mn;
			umax = (uint16_t)v > umax ? (uint16_t)v : umax;
		}
		for (uint64_t i = 0; i <= sg.lane; i++) {
			int16_t v = x[sg.first + i];

			mx = v > mx ? v : mx;
			if (i < sg.lane)
				pre += v;
		}
		want[0] = (int16_t)sum;
		want[1] = mn;
		want[2] = mx;
		want[3] = (int16_t)pre;
		want[4] = (int16_t)umax;
		want[5] = k < sg.size ? x[sg.first + k] : r[5 * n + g];
		want[6] = k < sg.size ? (int16_t)(x[sg.first + k] + 3) :
			  r[6 * n + g];
		for (int op = 0; op < 7; op++)
			if (r[op * n + g] != want[op] && bad++ < 5)
				print_error("shorts op %d, size %u, group of "
					    "%llu, item %llu: %d, want %d\n",
					    op, w, (unsigned long long)l,
					    (unsigned long long)g,
					    r[op * n + g], want[op]);
	}
	accel_buffer_unref(bx);
	accel_buffer_unref(br);
	free(x);
	free(r);
	return bad;
}

static unsigned run_all(struct test_env *env, const char *options,
			unsigned want_w)
{
	struct accel_program *prog = ct_build(env, src, options);
	unsigned bad = 0;
	static const uint64_t locals[] = { 1, 3, 16, 37, 64, 100 };

	if (want_w)
		assert_int_equal(ct_sub_group_width(prog, "sh_float"), want_w);
	for (size_t li = 0; li < TEST_ARRAY_SIZE(locals); li++) {
		bad += run_shuffles(env, prog, locals[li],
				    strstr(options, "-DFEW") != NULL);
		bad += run_blocks(env, prog, "blk", 4, locals[li]);
		bad += run_blocks(env, prog, "blk_ui", 4, locals[li]);
		bad += run_blocks(env, prog, "blk_us", 2, locals[li]);
		bad += run_shorts(env, prog, locals[li]);
	}
	accel_program_unref(prog);
	return bad;
}

/* At the device's size: the lanes of a float vector. */
static void test_intel_native(void **state)
{
	struct test_env *env = *state;

	assert_int_equal(run_all(env, "-cl-std=CL3.0 " INTEL, 0), 0);
}

/* intel_reqd_sub_group_size(2^k): the kernels' size, and right. */
static void test_intel_required(void **state)
{
	struct test_env *env = *state;
	unsigned bad = 0;

	for (unsigned w = 1; w <= 64; w *= 2) {
		char opts[128];

		snprintf(opts, sizeof(opts), "-cl-std=CL1.2 -DSG=%u -DFEW " INTEL,
			 w);
		bad += run_all(env, opts, w);
	}
	assert_int_equal(bad, 0);
}

/* Sizes the device does not list: a build error that names them. */
static void test_intel_required_bad(void **state)
{
	struct test_env *env = *state;
	static const char *const bad_src[] = {
		"__attribute__((intel_reqd_sub_group_size(12)))\n"
		"kernel void k(global int *p) { p[0] = 1; }\n",
		"__attribute__((intel_reqd_sub_group_size(128)))\n"
		"kernel void k(global int *p) { p[0] = 1; }\n",
	};

	for (size_t i = 0; i < TEST_ARRAY_SIZE(bad_src); i++) {
		char *log = NULL;

		assert_int_equal(ct_build_fail(env, bad_src[i], NULL, &log),
				 -ENOEXEC);
		assert_non_null(log);
		assert_non_null(strstr(log, "intel_reqd_sub_group_size"));
		free(log);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_intel_native,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_intel_required,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_intel_required_bad,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-subgroup-intel", tests);
}
