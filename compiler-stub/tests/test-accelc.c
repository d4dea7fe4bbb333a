/* SPDX-License-Identifier: MIT */
/* accelc end to end: compile OpenCL C, dlopen the shared object and call
 * the work-group functions with hand-made struct accel_wg_ctx values, as
 * the CPU device will. */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libaccel/accel-program.h>
#include <libaccel/accel-wg.h>

#include "accelc.h"

/* accelc mirrors libaccel's values, so that integration is a copy */
_Static_assert((int)ACCELC_ARG_BUFFER == (int)ACCEL_KERNEL_ARG_BUFFER, "kind");
_Static_assert((int)ACCELC_ARG_VALUE == (int)ACCEL_KERNEL_ARG_VALUE, "kind");
_Static_assert((int)ACCELC_ARG_LOCAL == (int)ACCEL_KERNEL_ARG_LOCAL, "kind");
_Static_assert((int)ACCELC_ADDR_GLOBAL == (int)ACCEL_KERNEL_ARG_ADDR_GLOBAL, "addr");
_Static_assert((int)ACCELC_ADDR_CONSTANT == (int)ACCEL_KERNEL_ARG_ADDR_CONSTANT, "a");
_Static_assert((int)ACCELC_ADDR_LOCAL == (int)ACCEL_KERNEL_ARG_ADDR_LOCAL, "addr");
_Static_assert((int)ACCELC_TYPE_CONST == (int)ACCEL_KERNEL_ARG_TYPE_CONST, "qual");
_Static_assert((int)ACCELC_TYPE_RESTRICT == (int)ACCEL_KERNEL_ARG_TYPE_RESTRICT, "q");
_Static_assert((int)ACCELC_TYPE_VOLATILE == (int)ACCEL_KERNEL_ARG_TYPE_VOLATILE, "q");
_Static_assert((int)ACCELC_KERNEL_HAS_BARRIERS == (int)ACCEL_KERNEL_HAS_BARRIERS, "f");

struct prog {
	struct accelc_result *res;
	void *dl;
};

static void build(struct prog *p, const char *src, const char *opts)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .build_options = opts };
	int r = accelc_compile(&o, src, strlen(src), &p->res);

	if (r < 0)
		fprintf(stderr, "build log:\n%s\n",
			p->res ? accelc_result_get_log(p->res) : "(none)");
	assert_int_equal(r, 0);
	p->dl = dlopen(accelc_result_get_path(p->res), RTLD_NOW | RTLD_LOCAL);
	if (!p->dl)
		fprintf(stderr, "dlopen: %s\n", dlerror());
	assert_non_null(p->dl);
}

static void unbuild(struct prog *p)
{
	dlclose(p->dl);
	accelc_result_free(p->res);
}

static accel_wg_fn get_fn(struct prog *p, const char *kernel,
			  const struct accelc_kernel_info **info)
{
	const struct accelc_kernel_info *k =
		accelc_result_find_kernel(p->res, kernel);
	accel_wg_fn fn;

	assert_non_null(k);
	fn = (accel_wg_fn)dlsym(p->dl, k->wg_symbol);
	assert_non_null(fn);
	if (info)
		*info = k;
	return fn;
}

/*
 * What the CPU device does for a launch, sequentially: every work-group
 * with its (possibly partial) local size, local memory = the kernel's
 * static block then @p local_arg bytes (whose address is stored in
 * *local_slot, when given).
 */
static void run(accel_wg_fn fn, const struct accelc_kernel_info *k,
		void **args, uint32_t dim, const uint64_t gsz[3],
		const uint64_t lsz[3], const uint64_t off[3], size_t local_arg,
		void **local_slot)
{
	struct accel_wg_ctx c = { .abi_version = ACCEL_WG_ABI_VERSION,
				  .work_dim = dim };
	size_t lbytes = (k->static_local_size + 127) / 128 * 128 + local_arg;
	void *lmem = aligned_alloc(128, lbytes ? (lbytes + 127) / 128 * 128 :
				   128);
	uint64_t g[3];

	assert_non_null(lmem);
	for (int d = 0; d < 3; d++) {
		c.global_size[d] = d < (int)dim ? gsz[d] : 1;
		c.enqueued_local_size[d] = d < (int)dim ? lsz[d] : 1;
		c.global_offset[d] = d < (int)dim && off ? off[d] : 0;
		c.num_groups[d] = (c.global_size[d] +
				   c.enqueued_local_size[d] - 1) /
				  c.enqueued_local_size[d];
	}
	c.local_mem = lmem;
	c.static_local_size = k->static_local_size;
	if (local_slot)
		*local_slot = (char *)lmem +
			      (k->static_local_size + 127) / 128 * 128;
	for (g[2] = 0; g[2] < c.num_groups[2]; g[2]++)
		for (g[1] = 0; g[1] < c.num_groups[1]; g[1]++)
			for (g[0] = 0; g[0] < c.num_groups[0]; g[0]++) {
				for (int d = 0; d < 3; d++) {
					uint64_t start = g[d] *
						c.enqueued_local_size[d];
					uint64_t left = c.global_size[d] - start;

					c.group_id[d] = g[d];
					c.local_size[d] =
						left < c.enqueued_local_size[d] ?
						left : c.enqueued_local_size[d];
				}
				fn(args, &c);
			}
	free(lmem);
}

static void test_vector_add(void **state)
{
	static const char src[] =
		"kernel void vadd(global const float *a, global const float *b,"
		"                 global float *c)\n"
		"{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n";
	enum { N = 1000 };
	float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
	float *c = calloc(N, sizeof(float));
	const struct accelc_kernel_info *k;
	void *args[3] = { &a, &b, &c };
	uint64_t g[3] = { N }, l[3] = { 64 };
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, src, NULL);
	fn = get_fn(&p, "vadd", &k);
	assert_int_equal(k->n_args, 3);
	assert_int_equal(k->args[0].kind, ACCELC_ARG_BUFFER);
	assert_int_equal(k->args[0].address_space, ACCELC_ADDR_GLOBAL);
	assert_true(k->args[0].type_qualifiers & ACCELC_TYPE_CONST);
	assert_string_equal(k->args[0].type_name, "float*");
	assert_string_equal(k->args[2].name, "c");
	assert_int_equal(k->flags & ACCELC_KERNEL_HAS_BARRIERS, 0);
	for (int i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = 0.5f * (float)i;
	}
	/* 1000 = 15 * 64 + 40: a partial trailing group */
	run(fn, k, args, 1, g, l, NULL, 0, NULL);
	for (int i = 0; i < N; i++)
		assert_true(c[i] == 1.5f * (float)i);
	unbuild(&p);
	free(a);
	free(b);
	free(c);
}

static const char ids_src[] =
	"kernel void ids(global ulong *o)\n"
	"{\n"
	"  size_t i = get_global_linear_id() * 16;\n"
	"  for (uint d = 0; d < 3; d++) {\n"
	"    o[i + d] = get_global_id(d);\n"
	"    o[i + 3 + d] = get_local_id(d);\n"
	"    o[i + 6 + d] = get_group_id(d);\n"
	"  }\n"
	"  o[i + 9] = get_local_linear_id();\n"
	"  o[i + 10] = get_work_dim();\n"
	"  o[i + 11] = get_local_size(0) * 1000000 + get_local_size(1) * 1000"
	"             + get_local_size(2);\n"
	"  o[i + 12] = get_global_size(0) * 1000000 + get_global_size(1) * 1000"
	"             + get_global_size(2);\n"
	"  o[i + 13] = get_num_groups(0) * 1000000 + get_num_groups(1) * 1000"
	"             + get_num_groups(2);\n"
	"  o[i + 14] = get_global_offset(0) * 1000000 + get_global_offset(1) *"
	"              1000 + get_global_offset(2);\n"
	"  o[i + 15] = get_enqueued_local_size(0) + get_global_id(7) +"
	"              get_local_size(5);\n"
	"}\n";

static void check_ids(accel_wg_fn fn, const struct accelc_kernel_info *k,
		      uint32_t dim, const uint64_t gs[3], const uint64_t ls[3],
		      const uint64_t off[3])
{
	uint64_t g[3], n = 1, ng[3];
	uint64_t *o;
	void *args[1] = { &o };

	for (uint32_t d = 0; d < 3; d++) {
		g[d] = d < dim ? gs[d] : 1;
		ng[d] = d < dim ? (gs[d] + ls[d] - 1) / ls[d] : 1;
		n *= g[d];
	}
	o = calloc(n * 16, sizeof(*o));
	assert_non_null(o);
	run(fn, k, args, dim, gs, ls, off, 0, NULL);
	for (uint64_t z = 0; z < g[2]; z++)
		for (uint64_t y = 0; y < g[1]; y++)
			for (uint64_t x = 0; x < g[0]; x++) {
				uint64_t *e = o + ((z * g[1] + y) * g[0] + x) * 16;
				uint64_t id[3] = { x, y, z }, l[3], lsz[3];

				for (int d = 0; d < 3; d++) {
					uint64_t L = d < (int)dim ? ls[d] : 1;
					uint64_t grp = id[d] / L;
					uint64_t left = g[d] - grp * L;

					l[d] = id[d] % L;
					lsz[d] = left < L ? left : L;
					assert_int_equal(e[d], id[d] + (d < (int)dim &&
							 off ? off[d] : 0));
					assert_int_equal(e[3 + d], l[d]);
					assert_int_equal(e[6 + d], grp);
				}
				assert_int_equal(e[9], (l[2] * lsz[1] + l[1]) *
						 lsz[0] + l[0]);
				assert_int_equal(e[10], dim);
				assert_int_equal(e[11], lsz[0] * 1000000 +
						 lsz[1] * 1000 + lsz[2]);
				assert_int_equal(e[12], g[0] * 1000000 +
						 g[1] * 1000 + g[2]);
				assert_int_equal(e[13], ng[0] * 1000000 +
						 ng[1] * 1000 + ng[2]);
				assert_int_equal(e[14], off ? (off[0] * 1000000 +
						 (dim > 1 ? off[1] * 1000 : 0) +
						 (dim > 2 ? off[2] : 0)) : 0);
				assert_int_equal(e[15], ls[0] + 0 + 1);
			}
	free(o);
}

static void test_ids(void **state)
{
	const struct accelc_kernel_info *k;
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, ids_src, "-cl-std=CL3.0");
	fn = get_fn(&p, "ids", &k);
	check_ids(fn, k, 1, (uint64_t[3]){ 37 }, (uint64_t[3]){ 8 }, NULL);
	check_ids(fn, k, 1, (uint64_t[3]){ 64 }, (uint64_t[3]){ 16 },
		  (uint64_t[3]){ 5 });
	check_ids(fn, k, 2, (uint64_t[3]){ 13, 7 }, (uint64_t[3]){ 4, 3 },
		  (uint64_t[3]){ 2, 9 });
	check_ids(fn, k, 3, (uint64_t[3]){ 5, 6, 7 }, (uint64_t[3]){ 2, 4, 3 },
		  (uint64_t[3]){ 1, 2, 3 });
	unbuild(&p);
}

/* A barrier reduction with a kernel-scope __local array and a __local
 * argument, at several work-group sizes; also a barrier in a helper. */
static void test_barrier_reduction(void **state)
{
	static const char src[] =
		"void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }\n"
		"kernel void reduce(global const int *in, global int *out,\n"
		"                   local int *scratch)\n"
		"{\n"
		"  local int tmp[256];\n"
		"  local int flag;\n"
		"  size_t l = get_local_id(0), n = get_local_size(0);\n"
		"  if (l == 0) flag = 7;\n"
		"  tmp[l] = in[get_global_id(0)];\n"
		"  scratch[l] = 1;\n"
		"  sync();\n"
		"  for (size_t s = n / 2; s > 0; s /= 2) {\n"
		"    if (l < s) { tmp[l] += tmp[l + s]; scratch[l] += scratch[l + s]; }\n"
		"    work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
		"  }\n"
		"  if (l == 0) out[get_group_id(0)] = tmp[0] * 1000 + scratch[0] + flag - 7;\n"
		"}\n";
	static const uint64_t sizes[] = { 1, 2, 64, 128, 256 };
	const struct accelc_kernel_info *k;
	enum { N = 4096 };
	int *in = malloc(N * sizeof(int)), *out = calloc(N, sizeof(int));
	void *scratch;
	void *args[3] = { &in, &out, &scratch };
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, src, "-cl-std=CL2.0");
	fn = get_fn(&p, "reduce", &k);
	assert_true(k->flags & ACCELC_KERNEL_HAS_BARRIERS);
	assert_true(k->static_local_size >= 256 * sizeof(int) + sizeof(int));
	assert_int_equal(k->args[2].kind, ACCELC_ARG_LOCAL);
	assert_int_equal(k->args[2].address_space, ACCELC_ADDR_LOCAL);
	for (int i = 0; i < N; i++)
		in[i] = i % 97;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t g[3] = { N }, l[3] = { sizes[s] };

		memset(out, 0xff, N * sizeof(int));
		run(fn, k, args, 1, g, l, NULL, sizes[s] * sizeof(int),
		    &scratch);
		for (uint64_t grp = 0; grp < N / sizes[s]; grp++) {
			int want = 0;

			for (uint64_t i = grp * sizes[s];
			     i < (grp + 1) * sizes[s]; i++)
				want += in[i];
			assert_int_equal(out[grp],
					 want * 1000 + (int)sizes[s]);
		}
	}
	unbuild(&p);
	free(in);
	free(out);
}

struct host_s {
	int a;
	float b;
	char c;
};

static void test_by_value(void **state)
{
	static const char src[] =
		"typedef struct { int a; float b; char c; } S;\n"
		"kernel void byval(global float *o, S s, float3 v, char ch,\n"
		"                  double d, long4 l4, float2 f2)\n"
		"{\n"
		"  size_t i = get_global_id(0);\n"
		"  s.a += (int)i; /* byval: a private copy per work-item */\n"
		"  o[i * 4 + 0] = s.a + s.b + s.c;\n"
		"  o[i * 4 + 1] = v.x * 100 + v.y * 10 + v.z;\n"
		"  o[i * 4 + 2] = ch + (float)d + l4.w;\n"
		"  o[i * 4 + 3] = f2.x - f2.y;\n"
		"}\n";
	const struct accelc_kernel_info *k;
	struct host_s s = { 5, 0.5f, 3 };
	float v[4] __attribute__((aligned(16))) = { 1, 2, 3, 99 };
	char ch __attribute__((aligned(16))) = -4;
	double d __attribute__((aligned(16))) = 2.5;
	int64_t l4[4] __attribute__((aligned(32))) = { 0, 0, 0, 40 };
	float f2[2] __attribute__((aligned(16))) = { 9, 1 };
	float o[16 * 4];
	float *op = o;
	void *args[7] = { &op, &s, v, &ch, &d, l4, f2 };
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, src, NULL);
	fn = get_fn(&p, "byval", &k);
	assert_int_equal(k->n_args, 7);
	assert_int_equal(k->args[1].kind, ACCELC_ARG_VALUE);
	assert_int_equal(k->args[1].size, sizeof(struct host_s));
	assert_int_equal(k->args[2].size, 16); /* float3 is 16 bytes */
	assert_int_equal(k->args[2].alignment, 16);
	assert_string_equal(k->args[2].type_name, "float3");
	assert_int_equal(k->args[3].size, 1);
	assert_int_equal(k->args[5].size, 32);
	run(fn, k, args, 1, (uint64_t[3]){ 16 }, (uint64_t[3]){ 4 }, NULL, 0,
	    NULL);
	for (int i = 0; i < 16; i++) {
		assert_true(o[i * 4 + 0] == (float)(5 + i) + 0.5f + 3);
		assert_true(o[i * 4 + 1] == 123.0f);
		assert_true(o[i * 4 + 2] == -4 + 2.5f + 40);
		assert_true(o[i * 4 + 3] == 8.0f);
	}
	assert_int_equal(s.a, 5); /* the argument bytes stay unchanged */
	unbuild(&p);
}

static int64_t ulp_diff(float a, float b)
{
	int32_t ia, ib;

	if (isnan(a) && isnan(b))
		return 0;
	if (a == b)
		return 0;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	if (ia < 0)
		ia = INT32_MIN - ia;
	if (ib < 0)
		ib = INT32_MIN - ib;
	return llabs((int64_t)ia - ib);
}

static void test_math(void **state)
{
	static const char src[] =
		"kernel void m(global const float *x, global float *o)\n"
		"{\n"
		"  size_t i = get_global_id(0);\n"
		"  float v = x[i];\n"
		"  float4 v4 = (float4)(v, v * 0.5f, -v, v + 1.0f);\n"
		"  global float *r = o + i * 16;\n"
		"  r[0] = sin(v); r[1] = cos(v); r[2] = exp(v * 0.1f);\n"
		"  r[3] = log(fabs(v) + 1.0f); r[4] = pow(fabs(v), 1.5f);\n"
		"  r[5] = sqrt(fabs(v)); r[6] = fmin(v, 0.25f);\n"
		"  r[7] = fmax(v, 0.25f); r[8] = floor(v); r[9] = ceil(v);\n"
		"  r[10] = fma(v, 2.0f, 1.0f); r[11] = tanh(v);\n"
		"  float4 s4 = sin(v4);\n"
		"  r[12] = s4.y; r[13] = s4.z; r[14] = atan2(v, 2.0f);\n"
		"  r[15] = mad(v, v, 1.0f) + hypot(v, 3.0f) * 0;\n"
		"}\n";
	enum { N = 997 };
	float *x = malloc(N * sizeof(float)), *o = malloc(N * 16 * 4);
	const struct accelc_kernel_info *k;
	void *args[2] = { &x, &o };
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, src, NULL);
	fn = get_fn(&p, "m", &k);
	for (int i = 0; i < N; i++)
		x[i] = (float)(i - N / 2) * 0.173f;
	run(fn, k, args, 1, (uint64_t[3]){ N }, (uint64_t[3]){ 32 }, NULL, 0,
	    NULL);
	for (int i = 0; i < N; i++) {
		float v = x[i], *r = o + i * 16;
		float want[16] = {
			sinf(v), cosf(v), expf(v * 0.1f),
			logf(fabsf(v) + 1.0f), powf(fabsf(v), 1.5f),
			sqrtf(fabsf(v)), fminf(v, 0.25f), fmaxf(v, 0.25f),
			floorf(v), ceilf(v), fmaf(v, 2.0f, 1.0f), tanhf(v),
			sinf(v * 0.5f), sinf(-v), atan2f(v, 2.0f),
			v * v + 1.0f,
		};

		for (int j = 0; j < 16; j++) {
			int64_t u = ulp_diff(r[j], want[j]);

			if (u > 4)
				fprintf(stderr, "x=%a fn %d: %a vs %a\n", v, j,
					r[j], want[j]);
			assert_true(u <= 4);
		}
	}
	unbuild(&p);
	free(x);
	free(o);
}

static void test_atomics(void **state)
{
	static const char src[] =
		"#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
		"kernel void at(volatile global int *cnt, global long *big,\n"
		"               global uint *mx, global int *per_group)\n"
		"{\n"
		"  local int lc;\n"
		"  if (get_local_id(0) == 0) lc = 0;\n"
		"  barrier(CLK_LOCAL_MEM_FENCE);\n"
		"  atomic_inc(cnt);\n"
		"  atomic_add(&lc, 2);\n"
		"  atom_add(big, 0x100000000L);\n"
		"  atomic_max(mx, (uint)get_global_id(0));\n"
		"  atomic_cmpxchg(cnt + 1, 0, 42);\n"
		"  barrier(CLK_LOCAL_MEM_FENCE);\n"
		"  if (get_local_id(0) == 0) per_group[get_group_id(0)] = lc;\n"
		"}\n";
	const struct accelc_kernel_info *k;
	int cnt[2] = { 0, 0 }, pg[40];
	int64_t big = 0;
	uint32_t mx = 0;
	int *cp = cnt, *pgp = pg;
	int64_t *bp = &big;
	uint32_t *mp = &mx;
	void *args[4] = { &cp, &bp, &mp, &pgp };
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, src, NULL);
	fn = get_fn(&p, "at", &k);
	run(fn, k, args, 1, (uint64_t[3]){ 1000 }, (uint64_t[3]){ 25 }, NULL,
	    0, NULL);
	assert_int_equal(cnt[0], 1000);
	assert_int_equal(cnt[1], 42);
	assert_true(big == 1000 * 0x100000000LL);
	assert_int_equal(mx, 999);
	for (int g = 0; g < 40; g++)
		assert_int_equal(pg[g], 50);
	unbuild(&p);
}

static void test_integer_convert(void **state)
{
	static const char src[] =
		"kernel void ic(global int *o, global float *f)\n"
		"{\n"
		"  o[0] = add_sat(INT_MAX, 5);\n"
		"  o[1] = convert_uchar_sat(300) + convert_char_sat(-200);\n"
		"  o[2] = rotate(0x80000001u, 4u);\n"
		"  o[3] = clz(1u) * 100 + popcount(0xf0f0u);\n"
		"  int4 v = select((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8),\n"
		"                  (int4)(0, -1, 0, -1));\n"
		"  o[4] = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;\n"
		"  o[5] = convert_int_sat(f[0]) == INT_MAX;\n"
		"  o[6] = convert_int_rtn(f[1]) * 10 + convert_int_rtp(f[1]);\n"
		"  float4 a = vload4(1, f);\n"
		"  vstore4(a * 2.0f, 2, f);\n"
		"  o[7] = isnan(f[2]) + 2 * isinf(f[0] * 1e30f);\n"
		"  o[8] = abs_diff(-5, 7) + mul_hi(0x40000000, 8) * 100;\n"
		"  o[9] = (int)(dot((float4)(1, 2, 3, 4), (float4)(1, 1, 1, 1)) +\n"
		"         length((float2)(3, 4)) * 100);\n"
		"}\n";
	const struct accelc_kernel_info *k;
	int o[10];
	float f[12] = { 3e9f, 2.5f, NAN, 0, 1, 2, 3, 4 };
	int *op = o;
	float *fp = f;
	void *args[2] = { &op, &fp };
	struct prog p;
	accel_wg_fn fn;

	(void)state;
	build(&p, src, NULL);
	fn = get_fn(&p, "ic", &k);
	run(fn, k, args, 1, (uint64_t[3]){ 1 }, (uint64_t[3]){ 1 }, NULL, 0,
	    NULL);
	assert_int_equal(o[0], 2147483647);
	assert_int_equal(o[1], 255 - 128);
	assert_int_equal((uint32_t)o[2], 0x18u);
	assert_int_equal(o[3], 31 * 100 + 8);
	assert_int_equal(o[4], 1638);
	assert_int_equal(o[5], 1);
	assert_int_equal(o[6], 23);
	assert_true(f[8] == 2 && f[9] == 4 && f[10] == 6 && f[11] == 8);
	assert_int_equal(o[7], 1 + 2);
	assert_int_equal(o[8], 12 + 2 * 100);
	assert_int_equal(o[9], 10 + 500);
	unbuild(&p);
}

/* kernels calling kernels, shared helpers, a constant-index __local use */
static void test_multi_kernel(void **state)
{
	static const char src[] =
		"float twice(float x) { return x * 2.0f; }\n"
		"kernel void a(global float *p)\n"
		"{ local float t[16]; local int c[4];\n"
		"  t[get_local_id(0)] = p[get_global_id(0)]; c[1] = 1;\n"
		"  p[get_global_id(0)] = twice(t[get_local_id(0)]) * c[1]; }\n"
		"kernel void b(global float *p) { a(p); p[get_global_id(0)] += 1; }\n";
	const struct accelc_kernel_info *ka, *kb;
	float v[32], *vp = v;
	void *args[1] = { &vp };
	struct prog p;
	accel_wg_fn fa, fb;

	(void)state;
	build(&p, src, NULL);
	assert_int_equal(accelc_result_get_kernel_count(p.res), 2);
	fa = get_fn(&p, "a", &ka);
	fb = get_fn(&p, "b", &kb);
	assert_int_equal(ka->static_local_size, 64 + 16);
	assert_int_equal(kb->static_local_size, 64 + 16);
	for (int i = 0; i < 32; i++)
		v[i] = (float)i;
	run(fa, ka, args, 1, (uint64_t[3]){ 32 }, (uint64_t[3]){ 16 }, NULL, 0,
	    NULL);
	run(fb, kb, args, 1, (uint64_t[3]){ 32 }, (uint64_t[3]){ 16 }, NULL, 0,
	    NULL);
	for (int i = 0; i < 32; i++)
		assert_true(v[i] == (float)i * 4 + 1);
	unbuild(&p);
}

static void test_bad_source(void **state)
{
	static const char src[] = "kernel void broken(global int *p) { p[0] = ; }\n";
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	int r;

	(void)state;
	r = accelc_compile(&o, src, strlen(src), &res);
	assert_int_equal(r, -ENOEXEC);
	assert_non_null(res);
	assert_non_null(strstr(accelc_result_get_log(res), "error"));
	assert_non_null(strstr(accelc_result_get_log(res), "<source>:1:"));
	assert_null(accelc_result_get_path(res));
	assert_int_equal(accelc_result_get_kernel_count(res), 0);
	accelc_result_free(res);

	/* calling a builtin the device does not have is a build error too */
	static const char src2[] =
		"kernel void k(global float *p) { p[0] = undeclared_fn(p[1]); }\n";
	res = NULL;
	r = accelc_compile(&o, src2, strlen(src2), &res);
	assert_int_equal(r, -ENOEXEC);
	accelc_result_free(res);
}

/*
 * Hostile input ends in a build log and an error, in bounded time: bytes
 * that are no program, a NUL in the source, and a macro bomb (2^39 tokens)
 * that only the deadline (short here) or clang's memory limit stops.
 */
static void test_hostile_source(void **state)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE };
	struct accelc_result *res = NULL;
	size_t n = 256 * 1024, len;
	char *junk = malloc(n), *bomb = malloc(4096);
	uint64_t x = 88172645463325252ull;
	int r;

	(void)state;
	assert_non_null(junk);
	assert_non_null(bomb);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		junk[i] = (char)(1 + x % 255);
	}
	r = accelc_compile(&o, junk, n, &res);
	assert_int_equal(r, -ENOEXEC);
	assert_non_null(res);
	assert_non_null(strstr(accelc_result_get_log(res), "error"));
	accelc_result_free(res);

	res = NULL;
	junk[100] = '\0';
	assert_int_equal(accelc_compile(&o, junk, n, &res), -EINVAL);
	assert_non_null(strstr(accelc_result_get_log(res), "NUL"));
	accelc_result_free(res);

	len = (size_t)snprintf(bomb, 4096, "#define A0 x+\n");
	for (int i = 1; i < 40; i++)
		len += (size_t)snprintf(bomb + len, 4096 - len,
					"#define A%d A%d A%d\n", i, i - 1,
					i - 1);
	len += (size_t)snprintf(bomb + len, 4096 - len,
				"kernel void k(global int *o) "
				"{ int x = 1; o[0] = A39 1; }\n");
	o.timeout_ms = 3000;
	res = NULL;
	r = accelc_compile(&o, bomb, len, &res);
	assert_true(r == -ETIMEDOUT || r == -ENOEXEC);
	assert_non_null(res);
	assert_true(strlen(accelc_result_get_log(res)) > 0);
	accelc_result_free(res);
	free(junk);
	free(bomb);
}

static void test_options(void **state)
{
	static const char src[] =
		"kernel void k(global int *p) { p[0] = VALUE + EXTRA; }\n";
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	int r;

	(void)state;
	o.build_options = "-cl-fast-relaxed-math -bogus-option";
	r = accelc_compile(&o, src, strlen(src), &res);
	assert_int_equal(r, -EINVAL);
	assert_non_null(res);
	assert_non_null(strstr(accelc_result_get_log(res), "-bogus-option"));
	accelc_result_free(res);

	o.build_options = "-D VALUE=40 -DEXTRA=2 -cl-std=CL1.2 -w -Werror "
			  "-cl-mad-enable -cl-denorms-are-zero "
			  "-cl-finite-math-only -cl-kernel-arg-info "
			  "-cl-opt-disable -I /tmp";
	res = NULL;
	r = accelc_compile(&o, src, strlen(src), &res);
	if (r)
		fprintf(stderr, "%s\n", accelc_result_get_log(res));
	assert_int_equal(r, 0);
	{
		struct prog p = { .res = res };
		const struct accelc_kernel_info *k;
		int v = 0, *vp = &v;
		void *args[1] = { &vp };
		accel_wg_fn fn;

		p.dl = dlopen(accelc_result_get_path(res), RTLD_NOW);
		assert_non_null(p.dl);
		fn = get_fn(&p, "k", &k);
		run(fn, k, args, 1, (uint64_t[3]){ 1 }, (uint64_t[3]){ 1 },
		    NULL, 0, NULL);
		assert_int_equal(v, 42);
		unbuild(&p);
	}

	o.build_options = "-cl-std=CL9.9";
	res = NULL;
	assert_int_equal(accelc_compile(&o, src, strlen(src), &res), -EINVAL);
	accelc_result_free(res);
	o.build_options = "-D";
	res = NULL;
	assert_int_equal(accelc_compile(&o, src, strlen(src), &res), -EINVAL);
	accelc_result_free(res);
	/* invalid arguments leave the result untouched */
	res = NULL;
	assert_int_equal(accelc_compile(&o, NULL, 0, &res), -EINVAL);
	assert_null(res);
	o.flags = 1u << 30;
	assert_int_equal(accelc_compile(&o, src, strlen(src), &res), -EINVAL);
	assert_null(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector_add),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_barrier_reduction),
		cmocka_unit_test(test_by_value),
		cmocka_unit_test(test_math),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_integer_convert),
		cmocka_unit_test(test_multi_kernel),
		cmocka_unit_test(test_bad_source),
		cmocka_unit_test(test_hostile_source),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
