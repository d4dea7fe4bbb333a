/* SPDX-License-Identifier: MIT */
/*
 * vload_half/vstore_half with every rounding mode, width (3 included)
 * and the aligned (vloada/vstorea) forms, from float and double, against
 * a host reference that searches the sorted table of all half values;
 * half loads of every bit pattern; the __local, __private and __constant
 * overloads; shuffle/shuffle2 (of every element size, half included,
 * whose bits must pass unchanged, NaNs too) and vloadn/vstoren against
 * host permutations.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_VEC 192 /* vectors per launch; x 16 elements at most */
#define N_ELEMS (N_VEC * 16)

static const char *const sfx[] = { "", "_rte", "_rtz", "_rtp", "_rtn" };
static const int widths[] = { 1, 2, 3, 4, 8, 16 };

/* value of the half with bits @h (finite) */
static double half_value(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

/* round @x to half under mode @m (0 default = rte, 1 rte, 2 rtz, 3 rtp,
 * 4 rtn): between the two neighbouring halves of the table */
static uint16_t to_half(double x, int m)
{
	uint16_t s = signbit(x) ? 0x8000 : 0, lo = 0, hi;
	double a = fabs(x), vlo, vhi;
	bool up;

	if (isnan(x))
		return 0x7e00;
	if (isinf(x))
		return s | 0x7c00;
	/* positive halves sort like their bits: largest <= a */
	for (int step = 1 << 14; step; step >>= 1)
		if (lo + step <= 0x7bff && half_value(lo + step) <= a)
			lo += step;
	vlo = half_value(lo);
	if (vlo == a)
		return s | lo;
	hi = lo + 1; /* 0x7c00 is infinity, here 65536 for the tie rule */
	vhi = hi == 0x7c00 ? 65536.0 : half_value(hi);
	switch (m) {
	case 2: up = false; break;
	case 3: up = !s; break;
	case 4: up = s; break;
	default:
		up = a - vlo > vhi - a || (a - vlo == vhi - a && (lo & 1));
		break;
	}
	return s | (up ? hi : lo);
}

static bool half_same(uint16_t got, uint16_t want)
{
	if ((want & 0x7c00) == 0x7c00 && (want & 0x3ff))
		return (got & 0x7c00) == 0x7c00 && (got & 0x3ff);
	return got == want;
}

static void test_vstore_half(void **state)
{
	struct test_env *env = *state;
	struct ct_str src = { 0 };
	struct accel_program *prog;
	float *f = malloc(N_ELEMS * sizeof(*f));
	double *d = malloc(N_ELEMS * sizeof(*d));
	uint16_t *o = malloc(N_ELEMS * 2);
	struct accel_buffer *bf, *bd, *bo;
	uint64_t s = 7;
	unsigned bad = 0;

	assert_non_null(f);
	assert_non_null(d);
	assert_non_null(o);
	for (unsigned i = 0; i < N_ELEMS; i++) {
		uint64_t r = ct_rand(&s);
		uint32_t fb = (uint32_t)r;

		/* all exponents around half's range, and random bits */
		d[i] = i % 3 ? ldexp(ct_rand_range(&s, -2, 2),
				     (int)(r % 50) - 30) :
			       ldexp(ct_rand_range(&s, -1, 1), -(int)(r % 9));
		if (i % 7 == 0) {
			memcpy(&f[i], &fb, 4);
			d[i] = f[i];
		}
		if (i % 11 == 0) /* exactly between two halves */
			d[i] = (half_value((uint16_t)(r & 0x7bfe)) +
				half_value((uint16_t)((r & 0x7bfe) + 1))) / 2;
		f[i] = (float)d[i];
		if (i % 5 == 0) /* doubles that are not floats */
			d[i] += ldexp(d[i], -40);
	}
	f[0] = 65504.0f, f[1] = 65520.0f, f[2] = -65519.0f, f[3] = 0x1p-25f;
	f[4] = -0x1p-26f, f[5] = INFINITY, f[6] = NAN, f[8] = -0.0f;
	for (int i = 0; i < 9; i++)
		d[i] = f[i];

	ct_printf(&src, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
		  "kernel void st(global const float *f, global const "
		  "double *d, global half *o, int m, int t, int w, int al)\n"
		  "{\n\tsize_t i = get_global_id(0);\n");
	for (int m = 0; m < 5; m++)
		for (int t = 0; t < 2; t++)
			for (size_t wi = 0; wi < 6; wi++)
				for (int al = 0; al < 2; al++) {
					int w = widths[wi];
					char ld[32] = "";

					if (w == 1 && al)
						continue;
					if (w > 1)
						snprintf(ld, sizeof(ld),
							 "vload%d(i, ", w);
					ct_printf(&src, "\tif (m == %d && t == %d"
						  " && w == %d && al == %d)\n"
						  "\t\tvstore%s_half%.0d%s(%s"
						  "%s%s, i, o);\n", m, t, w,
						  al, al ? "a" : "", w > 1 ? w : 0,
						  sfx[m], ld, t ? "d" : "f",
						  w > 1 ? ")" : "[i]");
				}
	ct_printf(&src, "}\n");
	prog = ct_build(env, src.buf, "-cl-std=CL1.2");
	ct_str_free(&src);
	bf = ct_buffer(env, N_ELEMS * sizeof(*f), f);
	bd = ct_buffer(env, N_ELEMS * sizeof(*d), d);
	bo = ct_buffer(env, N_ELEMS * 2, NULL);
	for (int m = 0; m < 5; m++)
		for (int t = 0; t < 2; t++)
			for (size_t wi = 0; wi < 6; wi++)
				for (int al = 0; al < 2; al++) {
					int w = widths[wi];
					/* vstorea_half3 steps by 4 */
					int step = al && w == 3 ? 4 : w;
					unsigned nv = N_ELEMS / 16;

					if (w == 1 && al)
						continue;
					CT_RUN(env, prog, "st", nv, 0,
					       CT_BUF(bf), CT_BUF(bd), CT_BUF(bo),
					       CT_VAL(m), CT_VAL(t), CT_VAL(w),
					       CT_VAL(al));
					test_read(env, bo, 0, N_ELEMS * 2, o);
					for (unsigned v = 0; v < nv; v++)
					for (int k = 0; k < w; k++) {
						unsigned i = v * (unsigned)w +
							     (unsigned)k;
						uint16_t want = to_half(
							t ? d[i] : f[i], m);
						uint16_t got = o[v * step + k];

						if (half_same(got, want))
							continue;
						if (bad++ < 10)
							print_error(
								"vstore%s_half"
								"%d%s(%a) = "
								"%#x, want "
								"%#x\n",
								al ? "a" : "",
								w, sfx[m],
								t ? d[i] : f[i],
								got, want);
					}
				}
	accel_buffer_unref(bf);
	accel_buffer_unref(bd);
	accel_buffer_unref(bo);
	accel_program_unref(prog);
	free(f);
	free(d);
	free(o);
	assert_int_equal(bad, 0);
}

/* every half through vload_half, vload_halfN and vloada_halfN; the
 * __local, __private and __constant overloads on the side */
static const char load_src[] =
	"kernel void ld(global const half *h, global float *f, int w)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	switch (w) {\n"
	"	case 1: f[i] = vload_half(i, h); break;\n"
	"	case 2: vstore2(vload_half2(i, h), i, f); break;\n"
	"	case 3: vstore3(vload_half3(i, h), i, f); break;\n"
	"	case 4: vstore4(vloada_half4(i, h), i, f); break;\n"
	"	case 8: vstore8(vload_half8(i, h), i, f); break;\n"
	"	case 16: vstore16(vloada_half16(i, h), i, f); break;\n"
	"	case 33: vstore3(vloada_half3(i, h), i, f); break;\n"
	"	}\n"
	"}\n"
	"kernel void spaces(constant half *c, global float *f,\n"
	"		    local half *l)\n"
	"{\n"
	"	size_t i = get_global_id(0), li = get_local_id(0);\n"
	"	ushort pb[8]; /* half variables need cl_khr_fp16 */\n"
	"	private half *p = (private half *)pb;\n"
	"	float4 v = vload_half4(i, c);\n"
	"	vstore_half4_rtz(v * 3.0f, li, l);\n"
	"	vstore_half4_rtz(v * 3.0f, 1, p);\n"
	"	f[i * 8 + 0] = vload_half(li * 4 + 1, l);\n"
	"	f[i * 8 + 1] = vload_half(5, p);\n"
	"	vstore4(vload_half4(1, p) - vload_half4(li, l), 1, f + i * 8);\n"
	"	f[i * 8 + 2] = vloada_half2(li * 2, l).x;\n"
	"	f[i * 8 + 3] = vload_half(i * 4 + 3, c);\n"
	"}\n";

static void test_vload_half(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, load_src, "-cl-std=CL3.0");
	uint16_t *h = malloc(65536 * 2);
	float *f = malloc(65536 * 4);
	struct accel_buffer *bh, *bf;
	static const int ws[] = { 1, 2, 3, 4, 8, 16, 33 };
	unsigned bad = 0;

	assert_non_null(h);
	assert_non_null(f);
	for (unsigned i = 0; i < 65536; i++)
		h[i] = (uint16_t)i;
	bh = ct_buffer(env, 65536 * 2, h);
	bf = ct_buffer(env, 65536 * 4, NULL);
	for (size_t wi = 0; wi < TEST_ARRAY_SIZE(ws); wi++) {
		int w = ws[wi], n = w == 33 ? 3 : w, step = w == 33 ? 4 : w;
		unsigned nv = 65536 / (unsigned)step;

		CT_RUN(env, prog, "ld", nv, 0, CT_BUF(bh), CT_BUF(bf),
		       CT_VAL(w));
		test_read(env, bf, 0, (size_t)nv * (unsigned)n * 4, f);
		for (unsigned v = 0; v < nv; v++)
			for (int k = 0; k < n; k++) {
				uint16_t x = (uint16_t)(v * (unsigned)step +
							(unsigned)k);
				float got = f[v * (unsigned)n + (unsigned)k];
				bool ok;

				if ((x & 0x7c00) == 0x7c00)
					ok = (x & 0x3ff) ? isnan(got) :
					     got == (x & 0x8000 ? -INFINITY :
								  INFINITY);
				else
					ok = got == (float)half_value(x) &&
					     !signbit(got) == !(x & 0x8000);
				if (!ok && bad++ < 10)
					print_error("vload_half w=%d %#x = "
						    "%a\n", w, x, got);
			}
	}
	accel_buffer_unref(bh);
	accel_buffer_unref(bf);

	/* address spaces: halves 1.0, 1.5, ... through constant memory */
	{
		enum { N = 64 };
		uint16_t c[N * 4];
		float out[N * 8];

		for (unsigned i = 0; i < N * 4; i++)
			c[i] = to_half(1.0 + i * 0.5, 0);
		bh = ct_buffer(env, sizeof(c), c);
		bf = ct_buffer(env, sizeof(out), NULL);
		CT_RUN(env, prog, "spaces", N, 16, CT_BUF(bh), CT_BUF(bf),
		       CT_LOCAL(16 * 8));
		test_read(env, bf, 0, sizeof(out), out);
		for (unsigned i = 0; i < N; i++) {
			double v1 = half_value(to_half((1.0 + (i * 4 + 1) *
							0.5) * 3, 2));
			double v0 = half_value(to_half((1.0 + i * 4 * 0.5) *
						       3, 2));

			bad += out[i * 8 + 0] != (float)v1;
			bad += out[i * 8 + 1] != (float)v1;
			bad += out[i * 8 + 2] != (float)v0;
			bad += out[i * 8 + 3] != (float)(1.0 +
							 (i * 4 + 3) * 0.5);
			for (int k = 4; k < 8; k++)
				bad += out[i * 8 + k] != 0.0f;
		}
		accel_buffer_unref(bh);
		accel_buffer_unref(bf);
	}
	accel_program_unref(prog);
	free(h);
	free(f);
	assert_int_equal(bad, 0);
}

/* shuffle and shuffle2 for several element types and every width pair */
static void test_shuffle(void **state)
{
	struct test_env *env = *state;
	static const struct {
		const char *t, *u;
		unsigned size;
	} types[] = { { "char", "uchar", 1 }, { "short", "ushort", 2 },
		      { "uint", "uint", 4 }, { "float", "uint", 4 },
		      { "long", "ulong", 8 }, { "double", "ulong", 8 },
		      { "half", "ushort", 2 } };
	static const unsigned ns[] = { 2, 4, 8, 16 };
	struct ct_str src = { 0 };
	struct accel_program *prog;
	enum { NV = 64 };
	unsigned char x[NV * 16 * 8], y[NV * 16 * 8], r[NV * 2 * 16 * 8];
	unsigned char m[NV * 16 * 8];
	struct accel_buffer *bx, *by, *bm, *br;
	uint64_t s = 99;
	unsigned bad = 0;

	ct_printf(&src, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
			"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
	for (size_t t = 0; t < TEST_ARRAY_SIZE(types); t++)
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++)
				ct_printf(&src,
					  "kernel void s_%s_%u_%u(global const "
					  "%s *x, global const %s *y, global "
					  "const %s *m, global %s *r)\n{\n"
					  "\tsize_t i = get_global_id(0);\n"
					  "\tvstore%u(shuffle(vload%u(i, x), "
					  "vload%u(i, m)), 2 * i, r);\n"
					  "\tvstore%u(shuffle2(vload%u(i, x), "
					  "vload%u(i, y), vload%u(i, m)), "
					  "2 * i + 1, r);\n}\n",
					  types[t].t, ns[a], ns[b], types[t].t,
					  types[t].t, types[t].u, types[t].t,
					  ns[b], ns[a], ns[b], ns[b], ns[a],
					  ns[a], ns[b]);
	prog = ct_build(env, src.buf, "-cl-std=CL1.2");
	ct_str_free(&src);
	for (size_t i = 0; i < sizeof(x); i++) { /* random bits */
		x[i] = (unsigned char)ct_rand(&s);
		y[i] = (unsigned char)ct_rand(&s);
		m[i] = (unsigned char)ct_rand(&s);
	}
	bx = ct_buffer(env, sizeof(x), x);
	by = ct_buffer(env, sizeof(y), y);
	bm = ct_buffer(env, sizeof(m), m);
	br = ct_buffer(env, sizeof(r), NULL);
	for (size_t t = 0; t < TEST_ARRAY_SIZE(types); t++)
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++) {
				unsigned sz = types[t].size, na = ns[a];
				unsigned nb = ns[b];
				char name[64];

				snprintf(name, sizeof(name), "s_%s_%u_%u",
					 types[t].t, na, nb);
				CT_RUN(env, prog, name, NV, 0, CT_BUF(bx),
				       CT_BUF(by), CT_BUF(bm), CT_BUF(br));
				test_read(env, br, 0, NV * 2 * nb * sz, r);
				for (unsigned v = 0; v < NV; v++)
				for (unsigned k = 0; k < nb; k++) {
					uint64_t mk = 0;
					unsigned k1, k2;
					const unsigned char *w1, *w2;

					/* the mask element's low bits */
					memcpy(&mk, m + (v * nb + k) * sz, sz);
					k1 = (unsigned)(mk % na);
					k2 = (unsigned)(mk % (2 * na));
					w1 = x + (v * na + k1) * sz;
					w2 = k2 < na ? x + (v * na + k2) * sz :
						y + (v * na + k2 - na) * sz;
					bad += memcmp(r + (2 * v * nb + k) * sz,
						      w1, sz) != 0;
					bad += memcmp(r + ((2 * v + 1) * nb +
							   k) * sz, w2,
						      sz) != 0;
				}
				if (bad)
					print_error("%s wrong\n", name);
			}
	accel_buffer_unref(bx);
	accel_buffer_unref(by);
	accel_buffer_unref(bm);
	accel_buffer_unref(br);
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vstore_half,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_vload_half, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_shuffle, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-vector", tests);
}
