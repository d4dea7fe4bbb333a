/* SPDX-License-Identifier: MIT */
/*
 * Conversions (OpenCL C 6.4.3): convert_<dst>[n][_sat][_<rounding>] for
 * every pair of the eleven scalar types (half included, cl_khr_fp16), widths 1 and 3 (16: the default,
 * _rtn and their _sat forms), bit-exact
 * against a host reference: integer targets round with rint/trunc/ceil/
 * floor in long double and saturate by comparison; floating targets
 * convert the exact long double value under fesetround(). Results the
 * specification leaves undefined (out of range without _sat) are not
 * compared.
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_ITEMS (48 * 16)
#define N_MODES 10

enum ty {
	CHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE, HALF
};

static const struct {
	const char *name;
	unsigned size;
	bool is_float, is_signed;
	long double min, max;
} ty[] = {
	{ "char", 1, false, true, -128.0L, 127.0L },
	{ "uchar", 1, false, false, 0, 255.0L },
	{ "short", 2, false, true, -32768.0L, 32767.0L },
	{ "ushort", 2, false, false, 0, 65535.0L },
	{ "int", 4, false, true, -2147483648.0L, 2147483647.0L },
	{ "uint", 4, false, false, 0, 4294967295.0L },
	{ "long", 8, false, true, -0x1p63L, 0x1p63L - 1 },
	{ "ulong", 8, false, false, 0, 0x1p64L - 1 },
	{ "float", 4, true, true, -FLT_MAX, FLT_MAX },
	{ "double", 8, true, true, -DBL_MAX, DBL_MAX },
	{ "half", 2, true, true, -65504.0L, 65504.0L },
};
#define N_TY 11

/* mode m: 0 default, 1-4 _rte _rtz _rtp _rtn, 5 _sat, 6-9 _sat_<r> */
static const char src_preamble[] =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#define CASES(D, N, SAT, B) \\\n"
	"	case B + 0: return convert_##D##N##SAT(x); \\\n"
	"	case B + 1: return convert_##D##N##SAT##_rte(x); \\\n"
	"	case B + 2: return convert_##D##N##SAT##_rtz(x); \\\n"
	"	case B + 3: return convert_##D##N##SAT##_rtp(x); \\\n"
	"	case B + 4: return convert_##D##N##SAT##_rtn(x);\n"
	"#define CI(D, S, N) D##N cv_##D##_##S##N(S##N x, int m) \\\n"
	"	{ switch (m) { CASES(D, N, , 0) CASES(D, N, _sat, 5) } \\\n"
	"	  return 0; }\n"
	"#define CF(D, S, N) D##N cv_##D##_##S##N(S##N x, int m) \\\n"
	"	{ switch (m) { CASES(D, N, , 0) } return 0; }\n"
	"/* 16 wide: two modes (four with _sat) keep the program small */\n"
	"#define C16(D, S, SAT) D##16 cv_##D##_##S##16(S##16 x, int m) \\\n"
	"	{ switch (m) { case 0: return convert_##D##16(x); \\\n"
	"	  case 4: return convert_##D##16_rtn(x); \\\n"
	"	  SAT } return 0; }\n"
	"#define SAT16(D) case 5: return convert_##D##16_sat(x); \\\n"
	"	case 9: return convert_##D##16_sat_rtn(x);\n"
	"#define CI16(D, S) C16(D, S, SAT16(D))\n"
	"#define CF16(D, S) C16(D, S, )\n"
	"#define K(D, S, C) C(D, S, ) C(D, S, 3) C##16(D, S) \\\n"
	"kernel void c_##D##_##S(global const S *a, global D *r, int w) \\\n"
	"{ \\\n"
	"	size_t i = get_global_id(0), n = get_global_size(0) * w; \\\n"
	"	for (int m = 0; m < 10; m++) { \\\n"
	"		global D *o = r + m * n; \\\n"
	"		if (w == 1) \\\n"
	"			o[i] = cv_##D##_##S(a[i], m); \\\n"
	"		else if (w == 3) \\\n"
	"			vstore3(cv_##D##_##S##3(vload3(i, a), m), i, o); \\\n"
	"		else \\\n"
	"			vstore16(cv_##D##_##S##16(vload16(i, a), m), i, o); \\\n"
	"	} \\\n"
	"}\n";

union val {
	int8_t c;
	uint8_t uc;
	int16_t s;
	uint16_t us;
	int32_t i;
	uint32_t ui;
	int64_t l;
	uint64_t ul;
	float f;
	double d;
	_Float16 h;
};

static long double get(enum ty t, const void *p)
{
	union val v;

	memcpy(&v, p, ty[t].size);
	switch (t) {
	case CHAR: return v.c;
	case UCHAR: return v.uc;
	case SHORT: return v.s;
	case USHORT: return v.us;
	case INT: return v.i;
	case UINT: return v.ui;
	case LONG: return v.l;
	case ULONG: return v.ul;
	case FLOAT: return v.f;
	case HALF: return v.h;
	default: return v.d;
	}
}

static void put(enum ty t, long double x, void *p)
{
	union val v;

	switch (t) {
	case CHAR: v.c = (int8_t)x; break;
	case UCHAR: v.uc = (uint8_t)x; break;
	case SHORT: v.s = (int16_t)x; break;
	case USHORT: v.us = (uint16_t)x; break;
	case INT: v.i = (int32_t)x; break;
	case UINT: v.ui = (uint32_t)x; break;
	case LONG: v.l = (int64_t)x; break;
	case ULONG: v.ul = (uint64_t)x; break;
	case FLOAT: v.f = (float)x; break;
	case HALF: v.h = (_Float16)x; break;
	default: v.d = (double)x; break;
	}
	memcpy(p, &v, ty[t].size);
}

/* integer -> integer without _sat keeps the low bits */
static void wrap(enum ty d, const void *src, enum ty s, void *out)
{
	union val v;
	uint64_t bits;

	memset(&v, 0, sizeof(v));
	memcpy(&v, src, ty[s].size);
	/* sign-extend the source to 64 bits */
	switch (s) {
	case CHAR: bits = (uint64_t)(int64_t)v.c; break;
	case SHORT: bits = (uint64_t)(int64_t)v.s; break;
	case INT: bits = (uint64_t)(int64_t)v.i; break;
	default: bits = v.ul; break;
	}
	memcpy(out, &bits, ty[d].size); /* little endian: the low bytes */
}

static const int fe_modes[] = { FE_TONEAREST, FE_TONEAREST, FE_TOWARDZERO,
				FE_UPWARD, FE_DOWNWARD };

/*
 * Expected bits of converting the value at @src (type @s) to @d in mode
 * @m into @out; false where the result is undefined.
 */
static bool reference(enum ty d, enum ty s, int m, const void *src, void *out)
{
	long double x = get(s, src), y;
	bool sat = m >= 5;
	int rnd = m % 5;

	if (ty[d].is_float) {
		volatile long double vx = x;
		volatile float f;
		volatile double dd;
		volatile _Float16 h;

		/*
		 * exact in long double; one rounding under the mode (to
		 * half by libgcc's soft-fp, which reads the mode from MXCSR)
		 */
		fesetround(fe_modes[rnd]);
		if (d == FLOAT) {
			f = (float)vx;
			memcpy(out, (const void *)&f, 4);
		} else if (d == HALF) {
			h = (_Float16)vx;
			memcpy(out, (const void *)&h, 2);
		} else {
			dd = (double)vx;
			memcpy(out, (const void *)&dd, 8);
		}
		fesetround(FE_TONEAREST);
		return true;
	}
	if (!ty[s].is_float) {
		if (!sat) {
			wrap(d, src, s, out);
			return true;
		}
		y = x;
	} else {
		if (isnan(x)) {
			if (!sat)
				return false;
			put(d, 0, out);
			return true;
		}
		/* float -> integer rounds toward zero by default */
		y = rnd == 1 ? rintl(x) : rnd == 3 ? ceill(x) :
			rnd == 4 ? floorl(x) : truncl(x);
	}
	if (y < ty[d].min || y > ty[d].max) {
		if (!sat)
			return false;
		y = y < ty[d].min ? ty[d].min : ty[d].max;
	}
	put(d, y, out);
	return true;
}

static void fill(enum ty s, unsigned char *buf, uint64_t seed)
{
	static const long double specials[] = {
		0, -0.0L, 1, -1, 0.5L, -0.5L, 1.5L, -1.5L, 2.5L, -2.5L,
		127.5L, -128.5L, 255.5L, 32767.5L, 65535.5L, 2147483647.5L,
		-2147483648.5L, 4294967295.5L, 0x1p63L, -0x1p63L, 0x1p64L,
		0x1p24L + 1, 0x1p53L + 1, 16777217.5L, 0x1.fffffep127L,
		1e30L, -1e30L, 3.5L, -3.5L, 1e-40L,
		/* half: its extremes and midpoints */
		65504, 65519.5L, 65520, -65520, 0x1p-24L, 0x1p-25L,
		0x1.8p-25L, 2049, 2051, -4097, 0x1.0018p-14L,
	};
	uint64_t st = seed;

	for (unsigned i = 0; i < N_ITEMS; i++) {
		unsigned char *p = buf + (size_t)i * ty[s].size;
		uint64_t r = ct_rand(&st);

		if (ty[s].is_float) {
			long double v;

			if (i < TEST_ARRAY_SIZE(specials))
				v = specials[i];
			else if (i % 4 == 0)
				v = i % 8 ? INFINITY : NAN;
			else if (s == HALF && i % 4 == 1) /* near integers */
				v = (long double)((int32_t)(r >> 32) >> 14) /
				    (long double)(1 << (r % 8));
			else if (i % 4 == 1)
				v = (long double)(int64_t)r /
				    (long double)(1 << (r % 8)) /
				    (long double)(1ull << (r >> 58));
			else if (s == HALF) /* subnormal to beyond the largest */
				v = ldexpl(ct_rand_range(&st, -2, 2),
					   (int)(r % 44) - 26);
			else
				v = ldexpl(ct_rand_range(&st, -2, 2),
					   (int)(r % 140) - 70);
			if (s == DOUBLE && i % 16 == 3) {
				/* a double's worth of bits */
				double dv;

				memcpy(&dv, &r, 8);
				v = isnan(dv) ? 1.25L : dv;
			}
			put(s, v, p);
		} else {
			/* the extremes and small values, else all bits */
			uint64_t bits = i < 8 ? (i & 1 ? ~0ull : 0) ^ (i >> 1) :
				i % 3 ? r : r >> (r % 64);

			if (i >= 8 && i < 16)
				bits = (uint64_t)1 << (ty[s].size * 8 - 1) ^
				       (i & 1 ? 0 : ~0ull) ^ ((i >> 1) & 3);
			memcpy(p, &bits, ty[s].size);
		}
	}
}

static void test_convert(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	struct ct_str src = { 0 };
	unsigned char *in = malloc(N_ITEMS * 8);
	unsigned char *out = malloc(N_ITEMS * 8 * N_MODES);
	struct accel_buffer *bin, *bout;
	static const int widths[] = { 1, 3, 16 };
	unsigned bad = 0, checked = 0;

	assert_non_null(in);
	assert_non_null(out);
	bin = test_buffer_new(env, N_ITEMS * 8);
	bout = test_buffer_new(env, N_ITEMS * 8 * N_MODES);

	/*
	 * A program per destination type: each builds within the compile
	 * deadline on a slow (sanitizer) build of the code generator.
	 */
	for (int d = 0; d < N_TY; d++) {
		ct_printf(&src, "%s", src_preamble);
		for (int s = 0; s < N_TY; s++)
			ct_printf(&src, "K(%s, %s, %s)\n", ty[d].name,
				  ty[s].name, ty[d].is_float ? "CF" : "CI");
		prog = ct_build(env, src.buf, "-cl-std=CL1.2");
		ct_str_free(&src);
		for (int s = 0; s < N_TY; s++) {
			char name[64];

			snprintf(name, sizeof(name), "c_%s_%s", ty[d].name,
				 ty[s].name);
			fill(s, in, 0xc0de + (uint64_t)d * 16 + (uint64_t)s);
			test_write(env, bin, 0, N_ITEMS * ty[s].size, in);
			for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++) {
				int w = widths[wi];
				unsigned modes = ty[d].is_float ? 5 : 10;

				CT_RUN(env, prog, name, N_ITEMS / (unsigned)w,
				       0, CT_BUF(bin), CT_BUF(bout), CT_VAL(w));
				test_read(env, bout, 0,
					  (size_t)N_ITEMS * ty[d].size * modes,
					  out);
				for (unsigned m = 0; m < modes; m++)
				for (unsigned i = 0; i < N_ITEMS; i++) {
					/* 16 wide: modes 0, 4, 5, 9 only */
					if (w == 16 && m % 5 && m % 5 != 4)
						break;
					unsigned char want[8];
					const unsigned char *got = out +
						((size_t)m * N_ITEMS + i) *
						ty[d].size;
					const void *x = in +
						(size_t)i * ty[s].size;

					if (!reference(d, s, (int)m, x, want))
						continue;
					checked++;
					if (!memcmp(got, want, ty[d].size))
						continue;
					if (ty[d].is_float &&
					    isnan(get(d, got)) &&
					    isnan(get(d, want)))
						continue;
					if (bad++ < 10)
						print_error(
							"%s mode %u w=%d: "
							"%La -> %La, want "
							"%La\n", name, m, w,
							get(s, x), get(d, got),
							get(d, want));
				}
			}
		}
		accel_program_unref(prog);
	}
	print_message("%u conversions compared, %u wrong\n", checked, bad);
	accel_buffer_unref(bin);
	accel_buffer_unref(bout);
	free(in);
	free(out);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_convert, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-convert", tests);
}
