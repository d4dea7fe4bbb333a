/* SPDX-License-Identifier: MIT */
/*
 * Integer functions (OpenCL C 6.15.3) for the eight integer types at
 * widths 1, 3 and 16, exactly against 128-bit host arithmetic; then the
 * common (6.15.4), geometric (6.15.5) and relational (6.15.6) functions,
 * select, bitselect and as_type on floats.
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_ITEMS (48 * 32)

typedef __int128 i128;

static const struct {
	const char *name;
	unsigned bits;
	bool sgn;
} ity[] = {
	{ "char", 8, true }, { "uchar", 8, false }, { "short", 16, true },
	{ "ushort", 16, false }, { "int", 32, true }, { "uint", 32, false },
	{ "long", 64, true }, { "ulong", 64, false },
};

enum fn { ABS, ABS_DIFF, ADD_SAT, SUB_SAT, HADD, RHADD, CLZ, CTZ, POPCOUNT,
	  ROTATE, MUL_HI, MAD_HI, MAD_SAT, MAX, MIN, CLAMP, MUL24, MAD24,
	  UPSAMPLE, N_FN };

static const struct {
	const char *name;
	unsigned args;
} fns[] = {
	{ "abs", 1 }, { "abs_diff", 2 }, { "add_sat", 2 }, { "sub_sat", 2 },
	{ "hadd", 2 }, { "rhadd", 2 }, { "clz", 1 }, { "ctz", 1 },
	{ "popcount", 1 }, { "rotate", 2 }, { "mul_hi", 2 }, { "mad_hi", 3 },
	{ "mad_sat", 3 }, { "max", 2 }, { "min", 2 }, { "clamp", 3 },
	{ "mul24", 2 }, { "mad24", 3 }, { "upsample", 2 },
};

/* k_<fn>_<type>(a, b, c, r, w); R is the result type (abs: unsigned,
 * upsample: the wider one), B the second operand's (upsample: unsigned) */
static const char preamble[] =
	"#define CAT_(a, b) a##b\n"
	"#define CAT(a, b) CAT_(a, b)\n"
	"#define CALL1(F, x, y, z) F(x)\n"
	"#define CALL2(F, x, y, z) F(x, y)\n"
	"#define CALL3(F, x, y, z) F(x, y, z)\n"
	"#define K(F, A, T, B, R) \\\n"
	"kernel void k_##F##_##T(global const T *a, global const B *b, \\\n"
	"			global const T *c, global R *r, int w) \\\n"
	"{ \\\n"
	"	size_t i = get_global_id(0); \\\n"
	"	if (w == 1) \\\n"
	"		r[i] = CALL##A(F, a[i], b[i], c[i]); \\\n"
	"	else if (w == 3) \\\n"
	"		vstore3(CALL##A(F, vload3(i, a), vload3(i, b), \\\n"
	"				vload3(i, c)), i, r); \\\n"
	"	else \\\n"
	"		vstore16(CALL##A(F, vload16(i, a), vload16(i, b), \\\n"
	"				 vload16(i, c)), i, r); \\\n"
	"}\n";

static const char *utype(unsigned t)
{
	return ity[t | 1].name;
}

static const char *wide(unsigned t)
{
	return ity[t + 2].name;
}

static bool applies(enum fn f, unsigned t)
{
	if (f == MUL24 || f == MAD24)
		return ity[t].bits == 32;
	if (f == UPSAMPLE)
		return ity[t].bits < 64;
	return true;
}

static i128 lo_of(unsigned t)
{
	return ity[t].sgn ? -((i128)1 << (ity[t].bits - 1)) : 0;
}

static i128 hi_of(unsigned t)
{
	return ity[t].sgn ? ((i128)1 << (ity[t].bits - 1)) - 1 :
			    ((i128)1 << ity[t].bits) - 1;
}

/* the value of the element at @p */
static i128 ld(unsigned t, const void *p)
{
	uint64_t u = 0;

	memcpy(&u, p, ity[t].bits / 8);
	if (ity[t].sgn && ity[t].bits < 64 &&
	    (u >> (ity[t].bits - 1)) & 1)
		u |= ~0ull << ity[t].bits;
	return ity[t].sgn ? (i128)(int64_t)u : (i128)u;
}

/* wrap to the type's bits */
static uint64_t bits_of(unsigned t, i128 v)
{
	uint64_t u = (uint64_t)v;

	return ity[t].bits == 64 ? u : u & ((1ull << ity[t].bits) - 1);
}

static i128 sat(unsigned t, i128 v)
{
	return v < lo_of(t) ? lo_of(t) : v > hi_of(t) ? hi_of(t) : v;
}

/* floor division by 2 of a 128-bit value */
static i128 half_floor(i128 v)
{
	return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

static uint64_t reference(enum fn f, unsigned t, i128 a, i128 b, i128 c)
{
	unsigned n = ity[t].bits;
	uint64_t ua = bits_of(t, a);
	i128 p;

	switch (f) {
	case ABS: return bits_of(t, a < 0 ? -a : a);
	case ABS_DIFF: return bits_of(t, a > b ? a - b : b - a);
	case ADD_SAT: return bits_of(t, sat(t, a + b));
	case SUB_SAT: return bits_of(t, sat(t, a - b));
	case HADD: return bits_of(t, half_floor(a + b));
	case RHADD: return bits_of(t, half_floor(a + b + 1));
	case CLZ:
		for (unsigned i = 0; i < n; i++)
			if ((ua >> (n - 1 - i)) & 1)
				return i;
		return n;
	case CTZ:
		for (unsigned i = 0; i < n; i++)
			if ((ua >> i) & 1)
				return i;
		return n;
	case POPCOUNT: return (uint64_t)__builtin_popcountll(ua);
	case ROTATE: {
		unsigned k = (unsigned)(bits_of(t, b) % n);

		return k ? bits_of(t, (i128)((ua << k) | (ua >> (n - k)))) :
			   ua;
	}
	case MUL_HI:
	case MAD_HI:
		if (ity[t].sgn)
			p = (a * b) >> n;
		else
			p = (i128)(((unsigned __int128)a *
				    (unsigned __int128)b) >> n);
		return bits_of(t, f == MAD_HI ? p + c : p);
	case MAD_SAT:
		if (!ity[t].sgn && n == 64) {
			unsigned __int128 q = (unsigned __int128)a *
					      (unsigned __int128)b;

			if (q >> 64 || (uint64_t)q + (uint64_t)c < (uint64_t)q)
				return ~0ull;
			return (uint64_t)q + (uint64_t)c;
		}
		return bits_of(t, sat(t, a * b + c));
	case MAX: return bits_of(t, a > b ? a : b);
	case MIN: return bits_of(t, a < b ? a : b);
	case CLAMP: return bits_of(t, a < b ? b : a > c ? c : a);
	case MUL24: return bits_of(t, a * b);
	case MAD24: return bits_of(t, a * b + c);
	case UPSAMPLE: /* shifted as unsigned: a may be negative */
		return bits_of(t + 2, (i128)(((unsigned __int128)a << n) |
					     (unsigned __int128)b));
	default: return 0;
	}
}

static void gen(enum fn f, unsigned t, uint64_t *s, i128 *v)
{
	for (int k = 0; k < 3; k++) {
		uint64_t r = ct_rand(s);

		switch (r % 4) {
		case 0: /* extremes */
			v[k] = r & 4 ? hi_of(t) - (i128)(r >> 60) :
				       lo_of(t) + (i128)(r >> 60);
			break;
		case 1: /* small */
			v[k] = ity[t].sgn ? (i128)(int64_t)(r >> 56) - 128 :
					    (i128)(r >> 57);
			break;
		default:
			v[k] = ld(t, &r);
			break;
		}
		if (f == MUL24 || f == MAD24) {
			if (k < 2)
				v[k] = ity[t].sgn ? (i128)((int64_t)r >> 41) :
						    (i128)(r >> 40);
		}
	}
	if (f == CLAMP && v[1] > v[2]) { /* lo > hi is undefined */
		i128 x = v[1];

		v[1] = v[2];
		v[2] = x;
	}
	if (f == UPSAMPLE) /* the low half is unsigned */
		v[1] = (i128)bits_of(t | 1, v[1]);
}

static void test_integer(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	struct ct_str src = { 0 };
	static const int widths[] = { 1, 3, 16 };
	uint64_t *a = malloc(N_ITEMS * 8), *b = malloc(N_ITEMS * 8);
	uint64_t *c = malloc(N_ITEMS * 8), *r = malloc(N_ITEMS * 8);
	i128 (*v)[3] = malloc(N_ITEMS * sizeof(*v));
	struct accel_buffer *ba, *bb, *bc, *br;
	unsigned bad = 0;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(r);
	assert_non_null(v);
	ct_printf(&src, "%s", preamble);
	for (unsigned f = 0; f < N_FN; f++)
		for (unsigned t = 0; t < 8; t++)
			if (applies(f, t))
				ct_printf(&src, "K(%s, %u, %s, %s, %s)\n",
					  fns[f].name, fns[f].args,
					  ity[t].name,
					  f == UPSAMPLE ? utype(t) : ity[t].name,
					  f == ABS || f == ABS_DIFF ? utype(t) :
					  f == UPSAMPLE ? wide(t) :
					  ity[t].name);
	prog = ct_build(env, src.buf, "-cl-std=CL3.0"); /* ctz: 2.0 */
	ct_str_free(&src);
	ba = test_buffer_new(env, N_ITEMS * 8);
	bb = test_buffer_new(env, N_ITEMS * 8);
	bc = test_buffer_new(env, N_ITEMS * 8);
	br = test_buffer_new(env, N_ITEMS * 8);
	for (unsigned f = 0; f < N_FN; f++) {
		for (unsigned t = 0; t < 8; t++) {
			unsigned sz = ity[t].bits / 8;
			unsigned rsz = f == UPSAMPLE ? sz * 2 : sz;
			uint64_t s = 0xabcd + f * 8 + t;
			char name[64];

			if (!applies(f, t))
				continue;
			for (unsigned i = 0; i < N_ITEMS; i++) {
				uint64_t x[3];

				gen(f, t, &s, v[i]);
				for (int k = 0; k < 3; k++)
					x[k] = bits_of(t, v[i][k]);
				memcpy((char *)a + i * sz, &x[0], sz);
				memcpy((char *)b + i * sz, &x[1], sz);
				memcpy((char *)c + i * sz, &x[2], sz);
			}
			test_write(env, ba, 0, N_ITEMS * sz, a);
			test_write(env, bb, 0, N_ITEMS * sz, b);
			test_write(env, bc, 0, N_ITEMS * sz, c);
			snprintf(name, sizeof(name), "k_%s_%s", fns[f].name,
				 ity[t].name);
			for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++) {
				int w = widths[wi];

				CT_RUN(env, prog, name, N_ITEMS / (unsigned)w,
				       0, CT_BUF(ba), CT_BUF(bb), CT_BUF(bc),
				       CT_BUF(br), CT_VAL(w));
				test_read(env, br, 0, (size_t)N_ITEMS * rsz, r);
				for (unsigned i = 0; i < N_ITEMS; i++) {
					uint64_t got = 0, want = reference(
						f, t, v[i][0], v[i][1], v[i][2]);

					memcpy(&got, (char *)r + i * rsz, rsz);
					if (got == want)
						continue;
					if (bad++ < 10)
						print_error("%s w=%d: (%#llx, "
							    "%#llx, %#llx) = "
							    "%#llx, want "
							    "%#llx\n", name, w,
							    (unsigned long long)
							    bits_of(t, v[i][0]),
							    (unsigned long long)
							    bits_of(t, v[i][1]),
							    (unsigned long long)
							    bits_of(t, v[i][2]),
							    (unsigned long long)
							    got,
							    (unsigned long long)
							    want);
				}
			}
		}
	}
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_buffer_unref(bc);
	accel_buffer_unref(br);
	accel_program_unref(prog);
	free(a);
	free(b);
	free(c);
	free(r);
	free(v);
	assert_int_equal(bad, 0);
}

/* ---- common, geometric, relational ----------------------------------- */

static const char rel_src[] =
	"kernel void common(global const float4 *a, global const float4 *b,\n"
	"		    global const float4 *c, global float4 *r)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	float4 x = a[i], y = b[i], z = c[i];\n"
	"	float3 x3 = x.xyz, y3 = y.xyz;\n"
	"	r[i * 12 + 0] = clamp(x, fmin(y, z), fmax(y, z));\n"
	"	r[i * 12 + 1] = mix(x, y, fabs(z) / (1.0f + fabs(z)));\n"
	"	r[i * 12 + 2] = step(y, x);\n"
	"	r[i * 12 + 3] = smoothstep(-1.0f, 2.0f, x);\n"
	"	r[i * 12 + 4] = sign(x);\n"
	"	r[i * 12 + 5] = max(x, y.x);\n"
	"	r[i * 12 + 6] = (float4)(dot(x, y), length(x), distance(x, y),\n"
	"				 dot(x3, y3));\n"
	"	r[i * 12 + 7] = normalize(x);\n"
	"	r[i * 12 + 8] = (float4)(cross(x3, y3), fast_length(x));\n"
	"	r[i * 12 + 9] = convert_float4(isless(x, y) * 1 +\n"
	"		isgreaterequal(x, y) * 2 + isnan(x) * 4 +\n"
	"		isinf(x) * 8 + isnormal(x) * 16 + signbit(x) * 32 +\n"
	"		isunordered(x, y) * 64 + islessgreater(x, y) * 128);\n"
	"	r[i * 12 + 10] = select(x, y, isgreater(x, y)) +\n"
	"		as_float4(bitselect(as_int4(x), as_int4(y),\n"
	"				    (int4)(0x80000000)));\n"
	"	r[i * 12 + 11] = (float4)(any(isless(x, y)), all(isless(x, y)),\n"
	"		isequal(x.x, y.x), signbit(x.y));\n"
	"}\n";

static float ref_sign(float x)
{
	return x > 0 ? 1.0f : x < 0 ? -1.0f : isnan(x) ? 0.0f : x;
}

/* relative closeness for the geometric functions, whose limits are
 * absolute error bounds in terms of the operands */
static bool near(float got, double want, double scale)
{
	if (isnan(want))
		return isnan(got);
	return fabs(got - want) <= 1e-5 * fmax(scale, 1e-30) ||
	       (isinf(want) && got == want);
}

static void test_common(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, rel_src, "-cl-std=CL1.2");
	enum { N = 512 };
	float *in = malloc(3 * N * 4 * sizeof(float));
	float *out = malloc(N * 12 * 4 * sizeof(float));
	struct accel_buffer *ba, *bb, *bc, *br;
	uint64_t s = 42;
	unsigned bad = 0;
	bool reported = false;

	assert_non_null(in);
	assert_non_null(out);
	for (unsigned i = 0; i < 3 * N * 4; i++) {
		uint64_t r = ct_rand(&s);

		in[i] = r % 16 == 0 ? (r & 16 ? NAN : INFINITY) :
			r % 16 == 1 ? -0.0f :
			(float)ct_rand_range(&s, -3, 3);
	}
	ba = ct_buffer(env, N * 16, in);
	bb = ct_buffer(env, N * 16, in + N * 4);
	bc = ct_buffer(env, N * 16, in + N * 8);
	br = ct_buffer(env, N * 12 * 16, NULL);
	CT_RUN(env, prog, "common", N, 0, CT_BUF(ba), CT_BUF(bb), CT_BUF(bc),
	       CT_BUF(br));
	test_read(env, br, 0, N * 12 * 16, out);

	for (unsigned i = 0; i < N; i++) {
		const float *x = in + i * 4, *y = in + N * 4 + i * 4;
		const float *z = in + N * 8 + i * 4;
		const float *o = out + i * 48;
		bool finite = true;
		double dot = 0, len = 0, dist = 0, dot3 = 0, mx = 0;

		for (int k = 0; k < 4; k++) {
			float lo = fminf(y[k], z[k]), hi = fmaxf(y[k], z[k]);
			float a = fabsf(z[k]) / (1.0f + fabsf(z[k]));
			double t = fmin(fmax((x[k] + 1.0) / 3.0, 0), 1);
			unsigned bits = (x[k] < y[k]) | (x[k] >= y[k]) << 1 |
				(isnan(x[k]) != 0) << 2 |
				(isinf(x[k]) != 0) << 3 |
				(isnormal(x[k]) != 0) << 4 |
				(signbit(x[k]) != 0) << 5 |
				(isunordered(x[k], y[k]) != 0) << 6 |
				(islessgreater(x[k], y[k]) != 0) << 7;
			uint32_t ux, uy, sel;
			float bs;

			memcpy(&ux, &x[k], 4);
			memcpy(&uy, &y[k], 4);
			sel = (ux & 0x7fffffff) | (uy & 0x80000000);
			memcpy(&bs, &sel, 4);
			/* vector relationals give -1 for true */
			bad += !(isnan(x[k]) || isnan(lo) || isnan(hi) ||
				 o[k] == fminf(fmaxf(x[k], lo), hi));
			bad += !(!isfinite(x[k]) || !isfinite(y[k]) ||
				 !isfinite(a) ||
				 near(o[4 + k], x[k] + (y[k] - x[k]) * a,
				      fabs(x[k]) + fabs(y[k])));
			bad += !(isnan(x[k]) || isnan(y[k]) ||
				 o[8 + k] == (x[k] < y[k] ? 0.0f : 1.0f));
			bad += !(isnan(x[k]) ||
				 near(o[12 + k], t * t * (3 - 2 * t), 1));
			bad += !(o[16 + k] == ref_sign(x[k]) ||
				 (isnan(x[k]) && o[16 + k] == 0));
			bad += !(isnan(x[k]) || isnan(y[0]) ||
				 o[20 + k] == fmaxf(x[k], y[0]));
			bad += o[36 + k] != -(float)bits;
			bad += !(isnan(o[40 + k]) ||
				 o[40 + k] == (x[k] > y[k] ? y[k] : x[k]) + bs);
			if (!isfinite(x[k]) || !isfinite(y[k]))
				finite = false;
			dot += (double)x[k] * y[k];
			len += (double)x[k] * x[k];
			dist += ((double)x[k] - y[k]) * ((double)x[k] - y[k]);
			if (k < 3)
				dot3 += (double)x[k] * y[k];
			mx = fmax(mx, fabs(x[k]) + fabs(y[k]));
		}
		if (finite) {
			double l = sqrt(len);

			bad += !near(o[24], dot, mx * mx);
			bad += !near(o[25], l, mx);
			bad += !near(o[26], sqrt(dist), mx);
			bad += !near(o[27], dot3, mx * mx);
			for (int k = 0; k < 4 && l > 0; k++)
				bad += !near(o[28 + k], x[k] / l, 1);
			bad += !near(o[32], (double)x[1] * y[2] -
				     (double)x[2] * y[1], mx * mx);
			bad += !near(o[33], (double)x[2] * y[0] -
				     (double)x[0] * y[2], mx * mx);
			bad += !near(o[34], (double)x[0] * y[1] -
				     (double)x[1] * y[0], mx * mx);
			bad += !near(o[35], l, mx);
			bad += o[44] != (float)((x[0] < y[0]) || (x[1] < y[1]) ||
						(x[2] < y[2]) || (x[3] < y[3]));
			bad += o[45] != (float)((x[0] < y[0]) && (x[1] < y[1]) &&
						(x[2] < y[2]) && (x[3] < y[3]));
			bad += o[46] != (float)(x[0] == y[0]);
			bad += o[47] != (float)(signbit(x[1]) != 0);
		}
		if (bad && !reported) {
			print_error("item %u: first failure\n", i);
			reported = true;
		}
	}
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_buffer_unref(bc);
	accel_buffer_unref(br);
	accel_program_unref(prog);
	free(in);
	free(out);
	assert_int_equal(bad, 0);
}

/*
 * Division and remainder by every divisor, zero and -1 included, for int,
 * long, uint and int4: the process must survive (x86's div traps), the
 * defined cases must be exact, and the undefined ones give x / 1.
 */
static const char div_src[] =
	"kernel void sdiv(global const int *a, global const int *b,\n"
	"		  global int *q, global int *r)\n"
	"{ size_t i = get_global_id(0); q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }\n"
	"kernel void ldiv(global const long *a, global const long *b,\n"
	"		  global long *q, global long *r)\n"
	"{ size_t i = get_global_id(0); q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }\n"
	"kernel void udiv(global const uint *a, global const uint *b,\n"
	"		  global uint *q, global uint *r)\n"
	"{ size_t i = get_global_id(0); q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }\n"
	"kernel void vdiv(global const int4 *a, global const int4 *b,\n"
	"		  global int4 *q, global int4 *r)\n"
	"{ size_t i = get_global_id(0); q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }\n";

#define N_DIV 1024

static void test_division(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, div_src, NULL);
	static int64_t a[N_DIV], b[N_DIV], q[N_DIV], r[N_DIV];
	static int32_t a32[N_DIV], b32[N_DIV], q32[N_DIV], r32[N_DIV];
	uint64_t s = 7;
	unsigned bad = 0;

	for (int i = 0; i < N_DIV; i++) {
		/* every 4th divisor 0, every 8th -1, INT_MIN dividends */
		a[i] = i % 5 == 0 ? INT64_MIN : (int64_t)ct_rand(&s);
		b[i] = i % 4 == 0 ? 0 : i % 8 == 1 ? -1 : (int64_t)ct_rand(&s) % 1000;
		a32[i] = i % 5 == 0 ? INT32_MIN : (int32_t)ct_rand(&s);
		b32[i] = (int32_t)b[i];
	}
	for (int k = 0; k < 4; k++) {
		static const char *const names[] = { "sdiv", "ldiv", "udiv",
						     "vdiv" };
		bool wide = k == 1;
		size_t sz = wide ? 8 : 4, items = k == 3 ? N_DIV / 4 : N_DIV;
		struct accel_buffer *ba = ct_buffer(env, N_DIV * sz,
						    wide ? (void *)a : (void *)a32);
		struct accel_buffer *bb = ct_buffer(env, N_DIV * sz,
						    wide ? (void *)b : (void *)b32);
		struct accel_buffer *bq = ct_buffer(env, N_DIV * sz, NULL);
		struct accel_buffer *br = ct_buffer(env, N_DIV * sz, NULL);

		CT_RUN(env, prog, names[k], items, 0, CT_BUF(ba), CT_BUF(bb),
		       CT_BUF(bq), CT_BUF(br));
		test_read(env, bq, 0, N_DIV * sz, wide ? (void *)q : (void *)q32);
		test_read(env, br, 0, N_DIV * sz, wide ? (void *)r : (void *)r32);
		for (int i = 0; i < N_DIV; i++) {
			int64_t x, y, wq, wr, gq, gr;

			if (wide) {
				x = a[i], y = b[i], gq = q[i], gr = r[i];
			} else if (k == 2) {
				x = (uint32_t)a32[i], y = (uint32_t)b32[i];
				gq = (uint32_t)q32[i], gr = (uint32_t)r32[i];
			} else {
				x = a32[i], y = b32[i], gq = q32[i], gr = r32[i];
			}
			if (y == 0 || (y == -1 && x == (wide ? INT64_MIN :
							       INT32_MIN))) {
				/* undefined: libaccel divides by 1 */
				wq = x;
				wr = 0;
			} else {
				wq = x / y;
				wr = x % y;
			}
			if (gq != wq || gr != wr) {
				if (bad++ < 5)
					fprintf(stderr, "%s %d: %lld / %lld = %lld %% %lld\n",
						names[k], i, (long long)x,
						(long long)y, (long long)gq,
						(long long)gr);
			}
		}
		accel_buffer_unref(ba);
		accel_buffer_unref(bb);
		accel_buffer_unref(bq);
		accel_buffer_unref(br);
	}
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_division, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_integer, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_common, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-integer", tests);
}
