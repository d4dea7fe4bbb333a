/* SPDX-License-Identifier: MIT */
/*
 * half arithmetic and data (cl_khr_fp16) at every width (1, 2, 3, 4, 8,
 * 16), bit-exact against the host: +, -, *, / and sqrt correctly rounded
 * (the reference rounds the exact double result once to _Float16);
 * comparisons, the relational functions, select and bitselect; half
 * kernel arguments by value; vloadn/vstoren of half in every address
 * space at unaligned offsets. The math functions are in compiler-math-half,
 * conversions in compiler-convert.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N_ITEMS (48 * 16) /* a multiple of every width */

typedef _Float16 H;

static const int widths[] = { 1, 2, 3, 4, 8, 16 };

static uint16_t bits(H h)
{
	uint16_t b;

	memcpy(&b, &h, 2);
	return b;
}

static H from_bits(uint16_t b)
{
	H h;

	memcpy(&h, &b, 2);
	return h;
}

/* specials first, then random bits (all classes), then ordinary values */
static void fill(H *v, unsigned n, uint64_t seed)
{
	static const uint16_t specials[] = {
		0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d01,
		0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00,
		0xbc00, 0x3c01, 0x3bff, 0x4000, 0x3800, 0x0200, 0x5bff,
	};
	uint64_t s = seed;

	for (unsigned i = 0; i < n; i++) {
		uint64_t r = ct_rand(&s);

		if (i < TEST_ARRAY_SIZE(specials))
			v[i] = from_bits(specials[(i + seed) %
						  TEST_ARRAY_SIZE(specials)]);
		else if (i % 3 == 0)
			v[i] = from_bits((uint16_t)r);
		else
			v[i] = (H)ldexp(ct_rand_range(&s, -2, 2),
					(int)(r % 24) - 12);
	}
}

static bool same(H got, H want)
{
	return bits(got) == bits(want) || (isnan(got) && isnan(want));
}

/* --- arithmetic -------------------------------------------------------- */

static const char arith_src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#define OPS(T, N, LD, ST) { T x = LD(N, a), y = LD(N, b); \\\n"
	"	ST(N, x + y, 0); ST(N, x - y, 1); ST(N, x * y, 2); \\\n"
	"	ST(N, x / y, 3); ST(N, sqrt(x), 4); }\n"
	"#define LD1(N, p) p[i]\n"
	"#define ST1(N, v, k) r[k * n + i] = (v)\n"
	"#define LDV(N, p) vload##N(i, p)\n"
	"#define STV(N, v, k) vstore##N(v, i, r + k * n)\n"
	"#define W(N) case N: OPS(half##N, N, LDV, STV) break;\n"
	"kernel void arith(global const half *a, global const half *b,\n"
	"		  global half *r, uint n, int w)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	switch (w) {\n"
	"	case 1: OPS(half, 1, LD1, ST1) break;\n"
	"	W(2) W(3) W(4) W(8) W(16)\n"
	"	}\n"
	"}\n";

static H ref_arith(int op, H x, H y)
{
	double a = x, b = y;

	/* exact in double but for / and sqrt, whose double rounding is
	 * innocuous (53 >= 2 * 11 + 2) */
	switch (op) {
	case 0: return (H)(a + b);
	case 1: return (H)(a - b);
	case 2: return (H)(a * b);
	case 3: return (H)(a / b);
	default: return (H)sqrt(a);
	}
}

static void test_arith(void **state)
{
	struct test_env *env = *state;
	static const char *const names[] = { "+", "-", "*", "/", "sqrt" };
	struct accel_program *prog = ct_build(env, arith_src, "-cl-std=CL1.2");
	H a[N_ITEMS], b[N_ITEMS], r[5 * N_ITEMS];
	struct accel_buffer *ba, *bb, *br;
	unsigned bad = 0, n = N_ITEMS;

	fill(a, N_ITEMS, 1);
	fill(b, N_ITEMS, 2);
	ba = ct_buffer(env, sizeof(a), a);
	bb = ct_buffer(env, sizeof(b), b);
	br = ct_buffer(env, sizeof(r), NULL);
	for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++) {
		int w = widths[wi];

		CT_RUN(env, prog, "arith", N_ITEMS / (unsigned)w, 0,
		       CT_BUF(ba), CT_BUF(bb), CT_BUF(br), CT_VAL(n),
		       CT_VAL(w));
		test_read(env, br, 0, sizeof(r), r);
		for (int op = 0; op < 5; op++)
			for (unsigned i = 0; i < N_ITEMS; i++) {
				H want = ref_arith(op, a[i], b[i]);
				H got = r[op * N_ITEMS + i];

				if (same(got, want))
					continue;
				if (bad++ < 10)
					print_error("w=%d: %a %s %a = %a, want "
						    "%a\n", w, (double)a[i],
						    names[op], (double)b[i],
						    (double)got, (double)want);
			}
	}
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_buffer_unref(br);
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* --- comparisons, relational functions, select ------------------------- */

/*
 * Scalars give int 1/0, vectors short -1/0 (OpenCL C 6.15.6); each result
 * is stored as a short: r[k][i].
 */
static const char rel_src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"#define RELS(X, Y, S) \\\n"
	"	S(isequal(X, Y), 0) S(isnotequal(X, Y), 1) \\\n"
	"	S(isgreater(X, Y), 2) S(isgreaterequal(X, Y), 3) \\\n"
	"	S(isless(X, Y), 4) S(islessequal(X, Y), 5) \\\n"
	"	S(islessgreater(X, Y), 6) S(isordered(X, Y), 7) \\\n"
	"	S(isunordered(X, Y), 8) S(isnan(X), 9) S(isinf(X), 10) \\\n"
	"	S(isfinite(X), 11) S(isnormal(X), 12) S(signbit(X), 13) \\\n"
	"	S(X < Y, 14) S(X == Y, 15)\n"
	"#define S1(v, k) r[k * n + i] = (short)(v);\n"
	"#define SV(N) \\\n"
	"	case N: { half##N x = vload##N(i, a), y = vload##N(i, b); \\\n"
	"	RELS(x, y, SV##N) \\\n"
	"	vstore##N(select(x, y, vload##N(i, m)), i, h); \\\n"
	"	vstore##N(bitselect(x, y, as_half##N(vload##N(i, m))), \\\n"
	"		  i, h + n); \\\n"
	"	break; }\n"
	"#define SV2(v, k) vstore2(v, i, r + k * n);\n"
	"#define SV3(v, k) vstore3(v, i, r + k * n);\n"
	"#define SV4(v, k) vstore4(v, i, r + k * n);\n"
	"#define SV8(v, k) vstore8(v, i, r + k * n);\n"
	"#define SV16(v, k) vstore16(v, i, r + k * n);\n"
	"kernel void rel(global const half *a, global const half *b,\n"
	"		global const short *m, global short *r,\n"
	"		global half *h, uint n, int w)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	switch (w) {\n"
	"	case 1: RELS(a[i], b[i], S1)\n"
	"		h[i] = select(a[i], b[i], m[i]);\n"
	"		h[n + i] = bitselect(a[i], b[i], as_half(m[i]));\n"
	"		break;\n"
	"	SV(2) SV(3) SV(4) SV(8) SV(16)\n"
	"	}\n"
	"}\n";

#define N_REL 16

static int ref_rel(int k, H x, H y)
{
	switch (k) {
	case 0: case 15: return x == y;
	case 1: return x != y;
	case 2: return x > y;
	case 3: return x >= y;
	case 4: case 14: return x < y;
	case 5: return x <= y;
	case 6: return x < y || x > y;
	case 7: return !isnan(x) && !isnan(y);
	case 8: return isnan(x) || isnan(y);
	case 9: return isnan(x);
	case 10: return isinf(x);
	case 11: return isfinite(x);
	case 12: return isnormal(x);
	default: return (bits(x) & 0x8000) != 0;
	}
}

static void test_relational(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, rel_src, "-cl-std=CL1.2");
	H a[N_ITEMS], b[N_ITEMS], h[2 * N_ITEMS];
	int16_t m[N_ITEMS], r[N_REL * N_ITEMS];
	struct accel_buffer *ba, *bb, *bm, *br, *bh;
	unsigned bad = 0, n = N_ITEMS;
	uint64_t s = 7;

	fill(a, N_ITEMS, 3);
	fill(b, N_ITEMS, 4);
	for (unsigned i = 0; i < N_ITEMS; i++) {
		if (i % 5 == 0) /* equal pairs */
			b[i] = a[i];
		m[i] = (int16_t)ct_rand(&s);
	}
	ba = ct_buffer(env, sizeof(a), a);
	bb = ct_buffer(env, sizeof(b), b);
	bm = ct_buffer(env, sizeof(m), m);
	br = ct_buffer(env, sizeof(r), NULL);
	bh = ct_buffer(env, sizeof(h), NULL);
	for (size_t wi = 0; wi < TEST_ARRAY_SIZE(widths); wi++) {
		int w = widths[wi];
		int yes = w == 1 ? 1 : -1;

		CT_RUN(env, prog, "rel", N_ITEMS / (unsigned)w, 0,
		       CT_BUF(ba), CT_BUF(bb), CT_BUF(bm), CT_BUF(br),
		       CT_BUF(bh), CT_VAL(n), CT_VAL(w));
		test_read(env, br, 0, sizeof(r), r);
		test_read(env, bh, 0, sizeof(h), h);
		for (unsigned i = 0; i < N_ITEMS; i++) {
			/* scalars: the mask's truth; vectors: its sign bit */
			bool pick = w == 1 ? m[i] != 0 : m[i] < 0;
			uint16_t bs = (uint16_t)((bits(a[i]) & ~m[i]) |
						 (bits(b[i]) & m[i]));

			for (int k = 0; k < N_REL; k++) {
				int want = ref_rel(k, a[i], b[i]) ? yes : 0;

				/* (X < Y) on a vector is -1 too */
				if (r[k * N_ITEMS + i] == want)
					continue;
				if (bad++ < 10)
					print_error("w=%d rel %d(%a, %a) = %d, "
						    "want %d\n", w, k,
						    (double)a[i], (double)b[i],
						    r[k * N_ITEMS + i], want);
			}
			if (bits(h[i]) != bits(pick ? b[i] : a[i]) &&
			    bad++ < 10)
				print_error("w=%d select #%u wrong\n", w, i);
			if (bits(h[N_ITEMS + i]) != bs && bad++ < 10)
				print_error("w=%d bitselect #%u wrong\n", w, i);
		}
	}
	accel_buffer_unref(ba);
	accel_buffer_unref(bb);
	accel_buffer_unref(bm);
	accel_buffer_unref(br);
	accel_buffer_unref(bh);
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

/* --- arguments by value and vloadn/vstoren ----------------------------- */

static const char args_src[] =
	"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	"kernel void args(half s, half2 v2, half3 v3, half4 v4, half8 v8,\n"
	"		 half16 v16, char c, global half *r)\n"
	"{\n"
	"	r[0] = s;\n"
	"	vstore2(v2, 0, r + 1);\n"
	"	vstore3(v3, 0, r + 3);\n"
	"	vstore4(v4, 0, r + 6);\n"
	"	vstore8(v8, 0, r + 10);\n"
	"	vstore16(v16, 0, r + 18);\n"
	"	r[34] = (half)c + s;\n"
	"}\n"
	/* through __local and __private at odd offsets, in pieces of
	 * every width: r[1 + 16 i ...] = a[1 + 16 i ...] */
	"kernel void moves(global const half *a, global half *r,\n"
	"		  local half *l)\n"
	"{\n"
	"	size_t i = get_global_id(0), j = get_local_id(0);\n"
	"	half p[40];\n"
	"	vstore16(vload16(0, a + 16 * i + 1), 0, l + 16 * j + 3);\n"
	"	vstore8(vload8(0, l + 16 * j + 3), 0, p + 1);\n"
	"	vstore8(vload8(1, l + 16 * j + 3), 0, p + 9);\n"
	"	vstore3(vload3(0, p + 1), 0, p + 21);\n"
	"	vstore4(vload4(0, p + 4), 0, p + 24);\n"
	"	vstore2(vload2(0, p + 8), 0, p + 28);\n"
	"	vstore4(vload4(0, p + 10), 0, p + 30);\n"
	"	vstore3(vload3(0, p + 14), 0, p + 34);\n"
	"	vstore16(vload16(0, p + 21), 0, r + 16 * i + 1);\n"
	"}\n";

static void test_args_moves(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = ct_build(env, args_src, "-cl-std=CL1.2");
	H v[35], r[35], a[16 * 64 + 2], rm[16 * 64 + 2];
	struct accel_buffer *br, *ba, *brm;
	signed char c = -7;
	unsigned bad = 0;

	fill(v, 35, 5);
	v[0] = (H)1.5f; /* r[34] = c + s */
	br = ct_buffer(env, sizeof(r), NULL);
	{
		H v2[2], v3[4] = { 0 }, v4[4], v8[8], v16[16];

		memcpy(v2, v + 1, sizeof(v2));
		memcpy(v3, v + 3, 3 * sizeof(H));
		memcpy(v4, v + 6, sizeof(v4));
		memcpy(v8, v + 10, sizeof(v8));
		memcpy(v16, v + 18, sizeof(v16));
		CT_RUN(env, prog, "args", 1, 1, CT_VAL(v[0]), CT_VAL(v2),
		       CT_VAL(v3), CT_VAL(v4), CT_VAL(v8), CT_VAL(v16),
		       CT_VAL(c), CT_BUF(br));
	}
	test_read(env, br, 0, sizeof(r), r);
	for (unsigned i = 0; i < 34; i++)
		if (bits(r[i]) != bits(v[i]) && bad++ < 10)
			print_error("argument element %u: %#x, want %#x\n", i,
				    bits(r[i]), bits(v[i]));
	if (bits(r[34]) != bits((H)-5.5f))
		bad++;

	/* each group of 16 comes back in place, through l and p */
	fill(a, TEST_ARRAY_SIZE(a), 6);
	ba = ct_buffer(env, sizeof(a), a);
	brm = ct_buffer(env, sizeof(rm), NULL);
	CT_RUN(env, prog, "moves", 64, 16, CT_BUF(ba), CT_BUF(brm),
	       CT_LOCAL(16 * 16 * sizeof(H) + 8));
	test_read(env, brm, 0, sizeof(rm), rm);
	for (unsigned i = 0; i < 64; i++)
		for (unsigned k = 0; k < 16; k++)
			if (bits(rm[16 * i + 1 + k]) !=
				    bits(a[16 * i + 1 + k]) &&
			    bad++ < 10)
				print_error("moves %u.%u wrong\n", i, k);
	accel_buffer_unref(br);
	accel_buffer_unref(ba);
	accel_buffer_unref(brm);
	accel_program_unref(prog);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_arith, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_relational,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_args_moves,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-half", tests);
}
