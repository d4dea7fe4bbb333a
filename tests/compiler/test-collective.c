/* SPDX-License-Identifier: MIT */
/*
 * Work-group functions (OpenCL C 3.0 6.15.17): work_group_all/any,
 * broadcast (1, 2 and 3 ids), reduce, scan_inclusive and scan_exclusive
 * with add, min and max, for int, uint, long, ulong, float, double and
 * half, against a host reference: 1-D groups of 1 to 1024 work-items,
 * partial trailing groups, 2-D and 3-D groups, and two collectives in a
 * row (the scratch memory reused). Inputs are small integers, so every
 * sum is exact in every type and the order of the additions cannot
 * matter.
 */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

enum ty { INT, UINT, LONG, ULONG, FLOAT, DOUBLE, HALF, N_TY };

static const struct {
	const char *name;
	unsigned size;
	bool is_float, is_signed;
	long double min, max; /* the exclusive scans' identities */
} ty[N_TY] = {
	{ "int", 4, false, true, INT_MIN, INT_MAX },
	{ "uint", 4, false, false, 0, UINT_MAX },
	{ "long", 8, false, true, LONG_MIN, LONG_MAX },
	{ "ulong", 8, false, false, 0, ULONG_MAX },
	{ "float", 4, true, true, -INFINITY, INFINITY },
	{ "double", 8, true, true, -INFINITY, INFINITY },
	{ "half", 2, true, true, -INFINITY, INFINITY },
};

/* 9 reductions and scans, 3 broadcasts, then all and any (int) */
#define N_OPS 12
static const char *const op_names[N_OPS] = {
	"reduce_add", "reduce_min", "reduce_max",
	"scan_inclusive_add", "scan_inclusive_min", "scan_inclusive_max",
	"scan_exclusive_add", "scan_exclusive_min", "scan_exclusive_max",
	"broadcast", "broadcast (twice)", "broadcast (x, y, z)",
};

/*
 * r[k * n + g] for op k at the work-item with global linear id g; ri the
 * same for all (0) and any (1). b: the local id broadcast from.
 */
static const char src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#define K(T) \\\n"
	"kernel void c_##T(global const T *x, global T *r, global int *ri, \\\n"
	"		  uint bx, uint by, uint bz) \\\n"
	"{ \\\n"
	"	size_t n = get_global_size(0) * get_global_size(1) * \\\n"
	"		   get_global_size(2); \\\n"
	"	size_t g = get_global_id(0) + get_global_size(0) * \\\n"
	"		   (get_global_id(1) + get_global_size(1) * \\\n"
	"		    get_global_id(2)); \\\n"
	"	T v = x[g]; \\\n"
	"	r[0 * n + g] = work_group_reduce_add(v); \\\n"
	"	r[1 * n + g] = work_group_reduce_min(v); \\\n"
	"	r[2 * n + g] = work_group_reduce_max(v); \\\n"
	"	r[3 * n + g] = work_group_scan_inclusive_add(v); \\\n"
	"	r[4 * n + g] = work_group_scan_inclusive_min(v); \\\n"
	"	r[5 * n + g] = work_group_scan_inclusive_max(v); \\\n"
	"	r[6 * n + g] = work_group_scan_exclusive_add(v); \\\n"
	"	r[7 * n + g] = work_group_scan_exclusive_min(v); \\\n"
	"	r[8 * n + g] = work_group_scan_exclusive_max(v); \\\n"
	"	r[9 * n + g] = work_group_broadcast(v, \\\n"
	"		bx + get_local_size(0) * (by + get_local_size(1) * bz)); \\\n"
	"	r[10 * n + g] = work_group_broadcast( \\\n"
	"		work_group_broadcast(v, (size_t)0), (size_t)bx); \\\n"
	"	if (get_work_dim() == 2) \\\n"
	"		r[11 * n + g] = work_group_broadcast(v, bx, by); \\\n"
	"	else if (get_work_dim() == 3) \\\n"
	"		r[11 * n + g] = work_group_broadcast(v, bx, by, bz); \\\n"
	"	else \\\n"
	"		r[11 * n + g] = v; \\\n"
	"	ri[g] = work_group_all(v != (T)2); \\\n"
	"	ri[n + g] = work_group_any(v == (T)3); \\\n"
	"}\n"
	"K(int) K(uint) K(long) K(ulong) K(float) K(double) K(half)\n";

static long double get(enum ty t, const void *p)
{
	union {
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
	int32_t i = (int32_t)x;
	uint32_t u = (uint32_t)x;
	int64_t l = (int64_t)x;
	uint64_t ul = (uint64_t)x;
	float f = (float)x;
	double d = (double)x;
	_Float16 h = (_Float16)x;
	const void *src_[N_TY] = { &i, &u, &l, &ul, &f, &d, &h };

	memcpy(p, src_[t], ty[t].size);
}

struct geometry {
	unsigned dim;
	uint64_t global[3], local[3];
	unsigned b[3]; /* broadcast from this local id (within every group) */
};

static long double combine(int op, long double a, long double b)
{
	return op == 0 ? a + b : op == 1 ? fminl(a, b) : fmaxl(a, b);
}

/*
 * Checks one group: @ids lists its work-items' global linear ids in local
 * linear order (@m of them), @gsz its sizes, @b the broadcast id.
 */
static unsigned check_group(enum ty t, const unsigned char *x,
			    const unsigned char *r, const int32_t *ri,
			    size_t n, const size_t *ids, size_t m,
			    const uint64_t *gsz, const unsigned *b,
			    unsigned dim)
{
	size_t sz = ty[t].size;
	size_t bl = b[0] + gsz[0] * (b[1] + gsz[1] * b[2]);
	long double acc[3], excl[3], red[3], first = get(t, x + ids[0] * sz);
	int all = 1, any = 0;
	unsigned bad = 0;

	red[0] = red[1] = red[2] = 0;
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

		for (int op = 0; op < 3; op++) {
			acc[op] = j ? combine(op, acc[op], v) : v;
			want[op] = red[op];
			want[3 + op] = acc[op];
			want[6 + op] = excl[op];
			excl[op] = combine(op, excl[op], v);
		}
		want[9] = get(t, x + ids[bl] * sz);
		want[10] = first; /* item 0's, broadcast twice */
		want[11] = dim == 1 ? v : want[9];
		for (int k = 0; k < N_OPS; k++) {
			long double got = get(t, r + (k * n + ids[j]) * sz);

			if (got == want[k])
				continue;
			if (bad++ < 5)
				print_error("%s %s, item %zu of %zu: %Lg, want "
					    "%Lg\n", ty[t].name, op_names[k],
					    j, m, got, want[k]);
		}
		if ((ri[ids[j]] != 0) != all || (ri[n + ids[j]] != 0) != any) {
			if (bad++ < 5)
				print_error("%s all/any, item %zu: %d %d, want "
					    "%d %d\n", ty[t].name, j,
					    ri[ids[j]], ri[n + ids[j]], all,
					    any);
		}
	}
	return bad;
}

/* Runs every type over @geo and checks every group. */
static unsigned run_geometry(struct test_env *env, struct accel_program *prog,
			     const struct geometry *geo)
{
	size_t n = geo->global[0] * geo->global[1] * geo->global[2];
	unsigned char *x = malloc(n * 8), *r = malloc(n * 8 * N_OPS);
	int32_t *ri = malloc(n * 2 * sizeof(int32_t));
	size_t *ids = malloc(n * sizeof(size_t));
	struct accel_buffer *bx, *br, *bri;
	uint64_t seed = 17 + n;
	unsigned bad = 0;

	assert_non_null(x);
	assert_non_null(r);
	assert_non_null(ri);
	assert_non_null(ids);
	bx = test_buffer_new(env, n * 8);
	br = test_buffer_new(env, n * 8 * N_OPS);
	bri = test_buffer_new(env, n * 2 * sizeof(int32_t));
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
		snprintf(name, sizeof(name), "c_%s", ty[t].name);
		ct_run_range(env, prog, name, &range,
			     (const struct ct_arg[]){
				     CT_BUF(bx), CT_BUF(br), CT_BUF(bri),
				     CT_VAL(geo->b[0]), CT_VAL(geo->b[1]),
				     CT_VAL(geo->b[2]) },
			     6);
		test_read(env, br, 0, n * ty[t].size * N_OPS, r);
		test_read(env, bri, 0, n * 2 * sizeof(int32_t), ri);
		/* each group: its work-items in local linear order */
		for (uint64_t gz = 0; gz < ng[2]; gz++)
		for (uint64_t gy = 0; gy < ng[1]; gy++)
		for (uint64_t gx = 0; gx < ng[0]; gx++) {
			uint64_t base[3] = { gx * geo->local[0],
					     gy * geo->local[1],
					     gz * geo->local[2] };
			uint64_t gsz[3];
			size_t m = 0;

			for (int d = 0; d < 3; d++)
				gsz[d] = geo->global[d] - base[d] <
						 geo->local[d] ?
					 geo->global[d] - base[d] :
					 geo->local[d];
			for (uint64_t z = 0; z < gsz[2]; z++)
			for (uint64_t y = 0; y < gsz[1]; y++)
			for (uint64_t xx = 0; xx < gsz[0]; xx++)
				ids[m++] = (base[0] + xx) + geo->global[0] *
					((base[1] + y) + geo->global[1] *
					 (base[2] + z));
			/* a partial group broadcasts from its own last item */
			{
				unsigned b[3];

				for (int d = 0; d < 3; d++)
					b[d] = geo->b[d] < gsz[d] ?
						geo->b[d] :
						(unsigned)gsz[d] - 1;
				if (memcmp(b, geo->b, sizeof(b)))
					continue; /* the kernel's id is out
						   * of this group: undefined */
				bad += check_group(t, x, r, ri, n, ids, m, gsz,
						   b, geo->dim);
			}
		}
	}
	accel_buffer_unref(bx);
	accel_buffer_unref(br);
	accel_buffer_unref(bri);
	free(x);
	free(r);
	free(ri);
	free(ids);
	return bad;
}

static void test_collectives(void **state)
{
	struct test_env *env = *state;
	static const struct geometry geos[] = {
		{ 1, { 1024, 1, 1 }, { 1, 1, 1 }, { 0, 0, 0 } },
		{ 1, { 257, 1, 1 }, { 7, 1, 1 }, { 3, 0, 0 } },
		{ 1, { 1024, 1, 1 }, { 64, 1, 1 }, { 63, 0, 0 } },
		{ 1, { 1000, 1, 1 }, { 256, 1, 1 }, { 5, 0, 0 } },
		{ 1, { 2048, 1, 1 }, { 1024, 1, 1 }, { 1000, 0, 0 } },
		{ 2, { 16, 12, 1 }, { 8, 4, 1 }, { 7, 2, 0 } },
		{ 3, { 8, 4, 6 }, { 4, 2, 3 }, { 1, 1, 2 } },
	};
	struct accel_program *prog = ct_build(env, src, "-cl-std=CL3.0");
	unsigned bad = 0;

	for (size_t i = 0; i < TEST_ARRAY_SIZE(geos); i++)
		bad += run_geometry(env, prog, &geos[i]);
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collectives,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-collective", tests);
}
