/* SPDX-License-Identifier: MIT */
/*
 * Sub-groups (OpenCL C 3.0 6.15.19 and the cl_khr_subgroup_* extensions
 * the CPU device lists) against a host reference: the sub-group queries,
 * all/any, reduce and both scans with add/min/max, broadcast (scalars and
 * a vector), shuffle, shuffle_xor, shuffle_up/down, clustered reduces and
 * rotates, for every type they take: groups of 1 to 64 work-items with partial
 * groups and partial sub-groups, 2-D and 3-D groups, a group of 1024, and
 * collectives reached only by some sub-groups (the fiber path), and all
 * that again at every size intel_reqd_sub_group_size takes. The
 * sub-group is W consecutive local linear ids, W the kernel's
 * accel_kernel_get_sub_group_size(); inputs are small integers, so
 * every sum is exact in every type but the 8-bit ones, which wrap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

enum ty { CHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE,
	  HALF, N_TY };

static const struct {
	const char *name;
	unsigned size;
	bool is_float, is_signed;
	long double min, max; /* the exclusive scans' identities */
} ty[N_TY] = {
	{ "char", 1, false, true, -128, 127 },
	{ "uchar", 1, false, false, 0, 255 },
	{ "short", 2, false, true, -32768, 32767 },
	{ "ushort", 2, false, false, 0, 65535 },
	{ "int", 4, false, true, -2147483648.0L, 2147483647 },
	{ "uint", 4, false, false, 0, 4294967295.0L },
	{ "long", 8, false, true, -9223372036854775808.0L,
	  9223372036854775807.0L },
	{ "ulong", 8, false, false, 0, 18446744073709551615.0L },
	{ "float", 4, true, true, -INFINITY, INFINITY },
	{ "double", 8, true, true, -INFINITY, INFINITY },
	{ "half", 2, true, true, -INFINITY, INFINITY },
};

#define N_OPS 19
static const char *const op_names[N_OPS] = {
	"reduce_add", "reduce_min", "reduce_max",
	"scan_inclusive_add", "scan_inclusive_min", "scan_inclusive_max",
	"scan_exclusive_add", "scan_exclusive_min", "scan_exclusive_max",
	"broadcast", "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down",
	"clustered_reduce_add(4)", "clustered_reduce_max(2)",
	"broadcast (vector of 3)", "rotate(3)", "clustered_rotate(1, 4)",
};
/* per work-item: id, local id, size, count, max size, enqueued count,
 * all, any */
#define N_INFO 8

/*
 * r[k * n + g] for op k at the work-item with global linear id g. bb: a
 * lane to broadcast from (clamped to the sub-group), and the xor mask.
 */
static const char src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#define N_INFO 8\n"
	"#ifdef SG\n"
	"#define ATTR __attribute__((intel_reqd_sub_group_size(SG)))\n"
	"#elif defined(WG)\n"
	"#define ATTR __attribute__((reqd_work_group_size(WG)))\n"
	"#else\n"
	"#define ATTR\n"
	"#endif\n"
	"#define K(T) \\\n"
	"ATTR kernel void s_##T(global const T *x, global T *r, \\\n"
	"		  global uint *info, uint bb) \\\n"
	"{ \\\n"
	"	size_t n = get_global_size(0) * get_global_size(1) * \\\n"
	"		   get_global_size(2); \\\n"
	"	size_t g = get_global_id(0) + get_global_size(0) * \\\n"
	"		   (get_global_id(1) + get_global_size(1) * \\\n"
	"		    get_global_id(2)); \\\n"
	"	uint sz = get_sub_group_size(), lane = get_sub_group_local_id();\\\n"
	"	bool c = get_max_sub_group_size() >= 4; \\\n"
	"	T v = x[g]; \\\n"
	"	T##3 v3 = (T##3)(v, v + (T)1, v + (T)2); \\\n"
	"	r[0 * n + g] = sub_group_reduce_add(v); \\\n"
	"	r[1 * n + g] = sub_group_reduce_min(v); \\\n"
	"	r[2 * n + g] = sub_group_reduce_max(v); \\\n"
	"	r[3 * n + g] = sub_group_scan_inclusive_add(v); \\\n"
	"	r[4 * n + g] = sub_group_scan_inclusive_min(v); \\\n"
	"	r[5 * n + g] = sub_group_scan_inclusive_max(v); \\\n"
	"	r[6 * n + g] = sub_group_scan_exclusive_add(v); \\\n"
	"	r[7 * n + g] = sub_group_scan_exclusive_min(v); \\\n"
	"	r[8 * n + g] = sub_group_scan_exclusive_max(v); \\\n"
	"	r[9 * n + g] = sub_group_broadcast(v, min(bb, sz - 1)); \\\n"
	"	r[10 * n + g] = sub_group_shuffle(v, (lane * 5 + 3) % sz); \\\n"
	"	r[11 * n + g] = sub_group_shuffle_xor(v, bb); \\\n"
	"	r[12 * n + g] = sub_group_shuffle_up(v, 1u); \\\n"
	"	r[13 * n + g] = sub_group_shuffle_down(v, 2u); \\\n"
	"	r[14 * n + g] = c ? sub_group_clustered_reduce_add(v, 4u) : v;\\\n"
	"	r[15 * n + g] = c ? sub_group_clustered_reduce_max(v, 2u) : v;\\\n"
	"	r[16 * n + g] = sub_group_broadcast(v3, min(bb, sz - 1)).s2; \\\n"
	"	r[17 * n + g] = sub_group_rotate(v, 3); \\\n"
	"	r[18 * n + g] = c ? sub_group_clustered_rotate(v, 1, 4u) : v; \\\n"
	"	info[N_INFO * g + 0] = get_sub_group_id(); \\\n"
	"	info[N_INFO * g + 1] = lane; \\\n"
	"	info[N_INFO * g + 2] = sz; \\\n"
	"	info[N_INFO * g + 3] = get_num_sub_groups(); \\\n"
	"	info[N_INFO * g + 4] = get_max_sub_group_size(); \\\n"
	"	info[N_INFO * g + 5] = get_enqueued_num_sub_groups(); \\\n"
	"	info[N_INFO * g + 6] = sub_group_all(v != (T)2); \\\n"
	"	info[N_INFO * g + 7] = sub_group_any(v == (T)3); \\\n"
	"}\n"
	"K(char) K(uchar) K(short) K(ushort) K(int) K(uint) K(long) K(ulong)\n"
	"K(float) K(double) K(half)\n"
	/* collectives only some sub-groups reach, some in a loop whose
	 * count differs between sub-groups */
	"kernel void diverge(global const int *x, global int *r)\n"
	"{\n"
	"	size_t g = get_global_id(0);\n"
	"	uint s = get_sub_group_id();\n"
	"	int v = x[g], a;\n"
	"	if (s % 2)\n"
	"		a = sub_group_reduce_add(v);\n"
	"	else\n"
	"		a = 100 * sub_group_scan_inclusive_add(v);\n"
	"	for (uint i = 0; i < s % 3; i++)\n"
	"		a += sub_group_broadcast(v + (int)i, 0u);\n"
	"	r[g] = a;\n"
	"}\n"
	/* the same for every work-item: a loop and a branch on arguments */
	"kernel void uniform_loop(global const int *x, global int *r,\n"
	"			 uint count)\n"
	"{\n"
	"	size_t g = get_global_id(0);\n"
	"	int v = x[g], a = 0;\n"
	"	for (uint i = 0; i < count; i++)\n"
	"		a += sub_group_reduce_add(v + (int)i);\n"
	"	if (count > 2)\n"
	"		a += 1000 * sub_group_scan_inclusive_add(v);\n"
	"	r[g] = a;\n"
	"}\n";

static long double get(enum ty t, const void *p)
{
	union {
		int8_t c;
		uint8_t uc;
		int16_t s;
		uint16_t us;
		int32_t i;
		uint32_t u;
		int64_t l;
		uint64_t ul;
		float f;
		double d;
		_Float16 h;
	} v;

	memcpy(&v, p, ty[t].size);
	switch (t) {
	case CHAR: return v.c;
	case UCHAR: return v.uc;
	case SHORT: return v.s;
	case USHORT: return v.us;
	case INT: return v.i;
	case UINT: return v.u;
	case LONG: return v.l;
	case ULONG: return v.ul;
	case FLOAT: return v.f;
	case DOUBLE: return v.d;
	default: return v.h;
	}
}

static void put(enum ty t, long double x, void *p)
{
	int64_t l = (int64_t)x;
	float f = (float)x;
	double d = (double)x;
	_Float16 h = (_Float16)x;

	/* little-endian: the low bytes of the 64-bit integer */
	if (t == FLOAT)
		memcpy(p, &f, 4);
	else if (t == DOUBLE)
		memcpy(p, &d, 8);
	else if (t == HALF)
		memcpy(p, &h, 2);
	else
		memcpy(p, &l, ty[t].size);
}

static long double combine(int op, long double a, long double b)
{
	return op == 0 ? a + b : op == 1 ? fminl(a, b) : fmaxl(a, b);
}

struct geometry {
	unsigned dim;
	uint64_t global[3], local[3];
	unsigned bb;
};

/*
 * Checks one sub-group of a group: @ids its work-items' global linear
 * ids in lane order (@m of them, sub-group @s of @ns in a group of
 * @items work-items, @enq enqueued).
 */
static unsigned check_sub_group(enum ty t, const unsigned char *x,
				const unsigned char *r, const uint32_t *info,
				size_t n, const size_t *ids, size_t m,
				unsigned s, unsigned ns, uint64_t items,
				uint64_t enq, unsigned w, unsigned bb)
{
	size_t sz = ty[t].size;
	long double red[3], acc[3], excl[3];
	unsigned bad = 0, maxsz = (unsigned)(enq < w ? enq : w);
	int all = 1, any = 0;

	for (size_t j = 0; j < m; j++) {
		long double v = get(t, x + ids[j] * sz);

		for (int op = 0; op < 3; op++)
			red[op] = j ? combine(op, red[op], v) : v;
		all &= v != 2;
		any |= v == 3;
	}
	excl[0] = 0;
	excl[1] = ty[t].max;
	excl[2] = ty[t].min;
	for (size_t j = 0; j < m; j++) {
		long double v = get(t, x + ids[j] * sz), want[N_OPS];
		bool check[N_OPS];
		size_t bl = bb < m ? bb : m - 1, c4 = j / 4 * 4, c2 = j / 2 * 2;
		const uint32_t *in = info + N_INFO * ids[j];
		uint32_t want_info[N_INFO] = {
			s, (uint32_t)j, (uint32_t)m, ns, maxsz,
			(uint32_t)((enq + w - 1) / w), (uint32_t)all,
			(uint32_t)any,
		};

		for (int k = 0; k < N_OPS; k++)
			check[k] = true;
		for (int op = 0; op < 3; op++) {
			acc[op] = j ? combine(op, acc[op], v) : v;
			want[op] = red[op];
			want[3 + op] = acc[op];
			want[6 + op] = excl[op];
			excl[op] = combine(op, excl[op], v);
		}
		want[9] = get(t, x + ids[bl] * sz);
		want[10] = get(t, x + ids[(j * 5 + 3) % m] * sz);
		check[11] = (j ^ bb) < m;
		want[11] = check[11] ? get(t, x + ids[j ^ bb] * sz) : 0;
		check[12] = j >= 1;
		want[12] = check[12] ? get(t, x + ids[j - 1] * sz) : 0;
		check[13] = j + 2 < m;
		want[13] = check[13] ? get(t, x + ids[j + 2] * sz) : 0;
		want[14] = want[15] = v;
		if (maxsz >= 4) {
			want[14] = 0;
			for (size_t k = c4; k < c4 + 4 && k < m; k++)
				want[14] += get(t, x + ids[k] * sz);
			want[15] = get(t, x + ids[c2] * sz);
			if (c2 + 1 < m)
				want[15] = fmaxl(want[15],
						 get(t, x + ids[c2 + 1] * sz));
		}
		want[16] = want[9] + 2;
		/* modulo the largest sub-group; lanes past a shorter one's
		 * end are undefined */
		check[17] = (j + 3) % maxsz < m;
		want[17] = check[17] ?
			get(t, x + ids[(j + 3) % maxsz] * sz) : 0;
		check[18] = maxsz < 4 || c4 + (j + 1) % 4 < m;
		want[18] = maxsz < 4 ? v :
			check[18] ? get(t, x + ids[c4 + (j + 1) % 4] * sz) : 0;
		for (int k = 0; k < N_OPS; k++) {
			long double got = get(t, r + (k * n + ids[j]) * sz);
			unsigned char wrapped[8];

			/* sums of 64 lanes leave the 8-bit types' range */
			if (sz == 1) {
				put(t, want[k], wrapped);
				want[k] = get(t, wrapped);
			}
			if (!check[k] || got == want[k])
				continue;
			if (bad++ < 5)
				print_error("%s %s, lane %zu of %zu (sub-group "
					    "%u, group of %llu): %Lg, want "
					    "%Lg\n", ty[t].name, op_names[k],
					    j, m, s, (unsigned long long)items,
					    got, want[k]);
		}
		for (int k = 0; k < N_INFO; k++) {
			if (in[k] == want_info[k])
				continue;
			if (bad++ < 5)
				print_error("%s info %d, lane %zu of %zu "
					    "(sub-group %u): %u, want %u\n",
					    ty[t].name, k, j, m, s, in[k],
					    want_info[k]);
		}
	}
	return bad;
}

/* Runs every type over @geo and checks every sub-group. */
static unsigned run_geometry(struct test_env *env, struct accel_program *prog,
			     const struct geometry *geo, unsigned w)
{
	size_t n = geo->global[0] * geo->global[1] * geo->global[2];
	unsigned char *x = malloc(n * 8), *r = malloc(n * 8 * N_OPS);
	uint32_t *info = malloc(n * N_INFO * sizeof(uint32_t));
	size_t *ids = malloc(n * sizeof(size_t));
	struct accel_buffer *bx, *br, *bi;
	uint64_t seed = 29 + n, enq = 1;
	unsigned bad = 0;

	assert_non_null(x);
	assert_non_null(r);
	assert_non_null(info);
	assert_non_null(ids);
	bx = test_buffer_new(env, n * 8);
	br = test_buffer_new(env, n * 8 * N_OPS);
	bi = test_buffer_new(env, n * N_INFO * sizeof(uint32_t));
	for (int d = 0; d < 3; d++)
		enq *= geo->local[d];
	for (enum ty t = 0; t < N_TY; t++) {
		struct accel_ndrange range = {
			.struct_size = sizeof(range),
			.work_dim = geo->dim,
		};
		char name[32];
		uint64_t ng[3];

		for (size_t i = 0; i < n; i++) {
			int64_t v = (int64_t)(ct_rand(&seed) % 9);

			put(t, ty[t].is_signed ? (long double)(v - 4) :
				(long double)v, x + i * ty[t].size);
		}
		test_write(env, bx, 0, n * ty[t].size, x);
		for (int d = 0; d < 3; d++) {
			range.global_size[d] = geo->global[d];
			range.local_size[d] = d < (int)geo->dim ?
				geo->local[d] : 0;
			ng[d] = (geo->global[d] + geo->local[d] - 1) /
				geo->local[d];
		}
		snprintf(name, sizeof(name), "s_%s", ty[t].name);
		ct_run_range(env, prog, name, &range,
			     (const struct ct_arg[]){
				     CT_BUF(bx), CT_BUF(br), CT_BUF(bi),
				     CT_VAL(geo->bb) },
			     4);
		test_read(env, br, 0, n * ty[t].size * N_OPS, r);
		test_read(env, bi, 0, n * N_INFO * sizeof(uint32_t), info);
		for (uint64_t gz = 0; gz < ng[2]; gz++)
		for (uint64_t gy = 0; gy < ng[1]; gy++)
		for (uint64_t gx = 0; gx < ng[0]; gx++) {
			uint64_t base[3] = { gx * geo->local[0],
					     gy * geo->local[1],
					     gz * geo->local[2] };
			uint64_t gsz[3];
			size_t m = 0;
			unsigned ns;

			for (int d = 0; d < 3; d++)
				gsz[d] = geo->global[d] - base[d] <
						 geo->local[d] ?
					 geo->global[d] - base[d] :
					 geo->local[d];
			/* the group in local linear order */
			for (uint64_t z = 0; z < gsz[2]; z++)
			for (uint64_t y = 0; y < gsz[1]; y++)
			for (uint64_t xx = 0; xx < gsz[0]; xx++)
				ids[m++] = (base[0] + xx) + geo->global[0] *
					((base[1] + y) + geo->global[1] *
					 (base[2] + z));
			ns = (unsigned)((m + w - 1) / w);
			for (unsigned s = 0; s < ns; s++)
				bad += check_sub_group(
					t, x, r, info, n, ids + s * w,
					m - s * w < w ? m - s * w : w, s, ns,
					m, enq, w, geo->bb);
		}
	}
	accel_buffer_unref(bx);
	accel_buffer_unref(br);
	accel_buffer_unref(bi);
	free(x);
	free(r);
	free(info);
	free(ids);
	return bad;
}

static void test_sub_groups(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "s_int"), bad = 0;
	struct geometry g = { 1, { 0, 1, 1 }, { 0, 1, 1 }, 0 };
	static const struct geometry geos[] = {
		{ 2, { 10, 6, 1 }, { 5, 3, 1 }, 2 },
		{ 2, { 16, 12, 1 }, { 8, 4, 1 }, 7 },
		{ 3, { 8, 4, 6 }, { 4, 2, 3 }, 1 },
		{ 1, { 2048, 1, 1 }, { 1024, 1, 1 }, 5 },
	};

	/* the lanes of a float vector, as the device says for its code */
	assert_true(w == 4 || w == 8 || w == 16);
	assert_int_equal(w, test_dev_u64(env->dev,
				       ACCEL_DEVICE_U64_SUB_GROUP_SIZE));
	/* every group size 1..64, each launch ending in a partial group */
	for (unsigned l = 1; l <= 64; l++) {
		g.local[0] = l;
		g.global[0] = 2 * l + (l + 1) / 2;
		g.bb = l % 5;
		bad += run_geometry(env, prog, &g, w);
	}
	for (size_t i = 0; i < TEST_ARRAY_SIZE(geos); i++)
		bad += run_geometry(env, prog, &geos[i], w);
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* intel_reqd_sub_group_size(1 ... 64): the same functions, right at the
 * size the kernel asked for, with partial groups and sub-groups */
static void test_required_sizes(void **state)
{
	struct test_env *env = *state;
	struct geometry g = { 1, { 0, 1, 1 }, { 0, 1, 1 }, 0 };
	static const uint64_t locals[] = { 1, 5, 24, 64, 100 };
	static const struct geometry g3 = { 3, { 8, 4, 6 }, { 4, 2, 3 }, 1 };
	unsigned bad = 0;

	for (unsigned w = 1; w <= 64; w *= 2) {
		struct accel_program *prog;
		char opts[64];

		snprintf(opts, sizeof(opts), "-cl-std=CL3.0 -DSG=%u", w);
		prog = ct_build(env, src, opts);
		assert_int_equal(ct_sub_group_width(prog, "s_int"), w);
		for (size_t i = 0; i < TEST_ARRAY_SIZE(locals); i++) {
			g.local[0] = locals[i];
			g.global[0] = 2 * locals[i] + (locals[i] + 1) / 2;
			g.bb = (unsigned)(locals[i] % 5);
			bad += run_geometry(env, prog, &g, w);
		}
		bad += run_geometry(env, prog, &g3, w);
		accel_program_unref(prog);
	}
	assert_int_equal(bad, 0);
}

/* reqd_work_group_size(x, y, z) without a required sub-group size: the
 * largest sub-group of the device's width or less that divides x (x > 1),
 * so that sub-groups are rows, or parts of a row */
static void test_fixed_group_sizes(void **state)
{
	struct test_env *env = *state;
	static const struct geometry geos[] = {
		{ 2, { 16, 8, 1 }, { 8, 4, 1 }, 3 },
		{ 2, { 24, 6, 1 }, { 12, 2, 1 }, 5 },
		{ 2, { 6, 8, 1 }, { 3, 4, 1 }, 1 },
		{ 2, { 2, 32, 1 }, { 1, 16, 1 }, 2 },
		{ 1, { 128, 1, 1 }, { 64, 1, 1 }, 9 },
		{ 3, { 4, 4, 4 }, { 2, 2, 4 }, 1 },
	};
	uint64_t dw = test_dev_u64(env->dev, ACCEL_DEVICE_U64_SUB_GROUP_SIZE);
	unsigned bad = 0;

	for (size_t i = 0; i < TEST_ARRAY_SIZE(geos); i++) {
		const struct geometry *g = &geos[i];
		uint64_t x = g->local[0], want = dw;
		struct accel_program *prog;
		char opts[80];

		while (x > 1 && x % want)
			want /= 2;
		snprintf(opts, sizeof(opts),
			 "-cl-std=CL3.0 -DWG=%llu,%llu,%llu",
			 (unsigned long long)g->local[0],
			 (unsigned long long)g->local[1],
			 (unsigned long long)g->local[2]);
		prog = ct_build(env, src, opts);
		assert_int_equal(ct_sub_group_width(prog, "s_int"), want);
		bad += run_geometry(env, prog, g, (unsigned)want);
		accel_program_unref(prog);
	}
	assert_int_equal(bad, 0);
}

/* Sub-groups taking different paths: each must see only its own. */
static void test_divergent(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "diverge"), bad = 0;
	static const uint64_t locals[] = { 1, 7, 16, 37, 64, 256 };

	for (size_t li = 0; li < TEST_ARRAY_SIZE(locals); li++) {
		uint64_t l = locals[li], n = 3 * l + l / 2;
		int32_t *x = malloc(n * 4), *r = malloc(n * 4);
		struct accel_buffer *bx, *br;
		uint64_t seed = 7 + n;

		assert_non_null(x);
		assert_non_null(r);
		ct_rand_ints(x, n, &seed, -9, 9);
		bx = ct_buffer(env, n * 4, x);
		br = ct_buffer(env, n * 4, NULL);
		CT_RUN(env, prog, "diverge", n, l, CT_BUF(bx), CT_BUF(br));
		test_read(env, br, 0, n * 4, r);
		for (uint64_t g = 0; g < n; g++) {
			struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
			int32_t want = 0;

			if (sg.id % 2) {
				for (uint64_t k = 0; k < sg.size; k++)
					want += x[sg.first + k];
			} else {
				for (uint64_t k = sg.first; k <= g; k++)
					want += x[k];
				want *= 100;
			}
			for (uint64_t i = 0; i < sg.id % 3; i++)
				want += x[sg.first] + (int32_t)i;
			if (r[g] != want && bad++ < 5)
				print_error("diverge, group of %llu, item %llu: "
					    "%d, want %d\n",
					    (unsigned long long)l,
					    (unsigned long long)g, r[g], want);
		}
		accel_buffer_unref(bx);
		accel_buffer_unref(br);
		free(x);
		free(r);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/*
 * Collectives in a loop and under a branch that decide alike in the
 * whole group: right, and still run as work-item loops, not as the
 * fibers divergent sub-groups need (seen in the per-work-item stack).
 */
static void test_uniform_flow(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned w = ct_sub_group_width(prog, "uniform_loop"), bad = 0;
	struct accel_kernel *ku, *kd;
	uint64_t per_u = 0, per_d = 0;
	static const uint32_t counts[] = { 0, 1, 3, 5 };

	assert_int_equal(accel_kernel_new(prog, "uniform_loop", &ku), 0);
	assert_int_equal(accel_kernel_new(prog, "diverge", &kd), 0);
	assert_int_equal(accel_kernel_get_private_mem(ku, NULL, &per_u, NULL),
			 0);
	assert_int_equal(accel_kernel_get_private_mem(kd, NULL, &per_d, NULL),
			 0);
	accel_kernel_unref(ku);
	accel_kernel_unref(kd);
	if (per_u >= per_d)
		print_error("uniform_loop keeps %llu bytes per work-item, "
			    "diverge (fibers) %llu\n",
			    (unsigned long long)per_u,
			    (unsigned long long)per_d);
	assert_true(per_u < per_d);
	for (size_t ci = 0; ci < TEST_ARRAY_SIZE(counts); ci++) {
		uint64_t l = 48, n = 3 * l + 5;
		uint32_t count = counts[ci];
		int32_t *x = malloc(n * 4), *r = malloc(n * 4);
		struct accel_buffer *bx, *br;
		uint64_t seed = 11 + count;

		assert_non_null(x);
		assert_non_null(r);
		ct_rand_ints(x, n, &seed, -9, 9);
		bx = ct_buffer(env, n * 4, x);
		br = ct_buffer(env, n * 4, NULL);
		CT_RUN(env, prog, "uniform_loop", n, l, CT_BUF(bx), CT_BUF(br),
		       CT_VAL(count));
		test_read(env, br, 0, n * 4, r);
		for (uint64_t g = 0; g < n; g++) {
			struct ct_sub_group sg = ct_sub_group_of(g, n, l, w);
			int32_t want = 0, sum = 0, pre = 0;

			for (uint64_t k = 0; k < sg.size; k++)
				sum += x[sg.first + k];
			for (uint64_t k = sg.first; k <= g; k++)
				pre += x[k];
			for (uint32_t i = 0; i < count; i++)
				want += sum + (int32_t)(i * sg.size);
			if (count > 2)
				want += 1000 * pre;
			if (r[g] != want && bad++ < 5)
				print_error("uniform_loop, count %u, item %llu: "
					    "%d, want %d\n", count,
					    (unsigned long long)g, r[g], want);
		}
		accel_buffer_unref(bx);
		accel_buffer_unref(br);
		free(x);
		free(r);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sub_groups,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_required_sizes,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_fixed_group_sizes,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_divergent,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_uniform_flow,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-subgroup", tests);
}
