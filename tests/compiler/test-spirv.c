/* SPDX-License-Identifier: MIT */
/*
 * SPIR-V programs (accel_program_new_il()): modules made at build time by
 * clang-15 + llvm-spirv-15 (spirv/kernels.cl, at -O0 and -O2) and by
 * spirv-as (spirv/spec.spvasm, with specialization constants), sub-group
 * functions of every kind (spirv/subgroups.cl), run on the CPU device and
 * checked against the host; malformed modules give an
 * error and a log, and leak no fds (the group's fixtures count them).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler-test.h"

#define N 256u
#define LOCAL 32u

struct module {
	void *data;
	size_t size;
};

/* Skip (77) when the tools or the translator are missing, saying why. */
static void need_il(struct test_env *env)
{
#ifdef CT_SPV_MISSING
	(void)env;
	print_message("skipped: %s\n", CT_SPV_MISSING);
	skip();
#else
	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	      ACCEL_DEVICE_CAP_IL)) {
		print_message("skipped: the device takes no SPIR-V "
			      "(no compiler or no llvm-spirv-15)\n");
		skip();
	}
#endif
}

static struct module load(const char *name)
{
	struct module m = { 0 };
#ifdef CT_SPV_DIR
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", CT_SPV_DIR, name);
	f = fopen(path, "rbe");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 20);
	rewind(f);
	m.data = malloc((size_t)n);
	assert_non_null(m.data);
	assert_int_equal(fread(m.data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	m.size = (size_t)n;
#else
	(void)name;
#endif
	return m;
}

static struct accel_program *build(struct test_env *env,
				   const struct module *m, uint32_t n_spec,
				   const struct accel_spec_constant *spec)
{
	struct accel_program *prog = NULL;
	char *log = NULL;
	int r;

	r = accel_program_new_il(env->dev, m->data, m->size, NULL, n_spec,
				 spec, 0, &log, &prog);
	if (r) {
		print_error("build failed: %d\n%s\n", r, log ? log : "");
		free(log);
		fail();
	}
	assert_non_null(log);
	free(log);
	return prog;
}

static void check_vec(struct test_env *env, struct accel_program *prog)
{
	float a[N * 4], c[4] = { 0.5f, -1.0f, 2.0f, 8.0f }, out[N * 4], s = 3;
	struct accel_buffer *ba, *bc, *bo;

	for (unsigned i = 0; i < N * 4; i++)
		a[i] = (float)i * 0.25f - 17.0f;
	ba = ct_buffer(env, sizeof(a), a);
	bc = ct_buffer(env, sizeof(c), c);
	bo = ct_buffer(env, sizeof(out), NULL);
	CT_RUN(env, prog, "vec", N, 0, CT_BUF(ba), CT_BUF(bc), CT_BUF(bo),
	       CT_VAL(s));
	test_read(env, bo, 0, sizeof(out), out);
	for (unsigned i = 0; i < N * 4; i++)
		assert_float_equal(out[i], a[i] * s + c[(i / 4) % 4], 1e-4);
	accel_buffer_unref(ba);
	accel_buffer_unref(bc);
	accel_buffer_unref(bo);
}

static void check_lsum(struct test_env *env, struct accel_program *prog)
{
	int in[N], out[N / LOCAL];
	struct accel_buffer *bi, *bo;

	for (unsigned i = 0; i < N; i++)
		in[i] = (int)(i * 7 % 31) - 9;
	bi = ct_buffer(env, sizeof(in), in);
	bo = ct_buffer(env, sizeof(out), NULL);
	CT_RUN(env, prog, "lsum", N, LOCAL, CT_BUF(bi), CT_BUF(bo),
	       CT_LOCAL(LOCAL * sizeof(int)));
	test_read(env, bo, 0, sizeof(out), out);
	for (unsigned g = 0; g < N / LOCAL; g++) {
		int want = 0;

		for (unsigned i = 0; i < LOCAL; i++)
			want += in[g * LOCAL + i];
		assert_int_equal(out[g], want);
	}
	accel_buffer_unref(bi);
	accel_buffer_unref(bo);
}

static void check_math(struct test_env *env, struct accel_program *prog)
{
	float x[N], y[N];
	struct accel_buffer *bx, *by;

	for (unsigned i = 0; i < N; i++)
		x[i] = ((float)i - N / 2) / 16.0f;
	bx = ct_buffer(env, sizeof(x), x);
	by = ct_buffer(env, sizeof(y), NULL);
	CT_RUN(env, prog, "math", N, 0, CT_BUF(bx), CT_BUF(by));
	test_read(env, by, 0, sizeof(y), y);
	for (unsigned i = 0; i < N; i++) {
		double v = x[i];
		double want = sqrt(fabs(v)) + sin(v) + exp(v) +
			      2.0 * exp(v * 0.5);

		assert_float_equal(y[i], want, 1e-5 * fabs(want) + 1e-6);
	}
	accel_buffer_unref(bx);
	accel_buffer_unref(by);
}

static void check_args(struct test_env *env, struct accel_program *prog)
{
	int8_t c = -5;
	int16_t s = -3000;
	int32_t i = 123456;
	int64_t l = -(INT64_C(1) << 40);
	uint8_t uc = 250;
	double d = 2.75;
	/* half 1.5 and 0.375 (the kernel reads the second) */
	uint16_t h[2] = { 0x3e00, 0x3600 };
	int64_t out[8];
	struct accel_buffer *bo, *bh;

	bo = ct_buffer(env, sizeof(out), NULL);
	bh = ct_buffer(env, sizeof(h), h);
	CT_RUN(env, prog, "args", 1, 1, CT_BUF(bo), CT_VAL(c), CT_VAL(s),
	       CT_VAL(i), CT_VAL(l), CT_VAL(uc), CT_VAL(d), CT_BUF(bh));
	test_read(env, bo, 0, sizeof(out), out);
	assert_int_equal(out[0], c);
	assert_int_equal(out[1], s);
	assert_int_equal(out[2], i);
	assert_int_equal(out[3], l);
	assert_int_equal(out[4], uc);
	assert_int_equal(out[5], 11);
	assert_int_equal(out[6], 3);
	assert_int_equal((int32_t)out[7], i);
	accel_buffer_unref(bo);
	accel_buffer_unref(bh);
}

static void run_kernels(void **state, const char *file)
{
	struct test_env *env = *state;
	struct accel_program *prog;
	struct module m;

	need_il(env);
	m = load(file);
	prog = build(env, &m, 0, NULL);
	assert_int_equal(accel_program_get_kernel_count(prog), 4);
	check_vec(env, prog);
	check_lsum(env, prog);
	check_math(env, prog);
	check_args(env, prog);
	accel_program_unref(prog);
	free(m.data);
}

static void test_clang_o0(void **state)
{
	run_kernels(state, "kernels-O0.spv");
}

static void test_clang_o2(void **state)
{
	run_kernels(state, "kernels-O2.spv");
}

/* An object from the module, linked into an executable. */
static void test_object_link(void **state)
{
	struct test_env *env = *state;
	struct accel_program *obj = NULL, *exe = NULL;
	char *log = NULL;
	struct module m;

	need_il(env);
	m = load("kernels-O2.spv");
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      0, NULL, ACCEL_IL_OBJECT, &log,
					      &obj), 0);
	free(log);
	assert_int_equal(accel_program_get_kind(obj), ACCEL_PROGRAM_OBJECT);
	assert_int_equal(accel_program_link(env->dev, 1, &obj, NULL, 0, &log,
					    &exe), 0);
	free(log);
	check_vec(env, exe);
	accel_program_unref(exe);
	accel_program_unref(obj);
	free(m.data);
}

static void run_scale(struct test_env *env, struct accel_program *prog,
		      int k, bool b, uint32_t l)
{
	int in[N], out[N];
	struct accel_buffer *bi, *bo;

	for (unsigned i = 0; i < N; i++)
		in[i] = (int)i - 100;
	bi = ct_buffer(env, sizeof(in), in);
	bo = ct_buffer(env, sizeof(out), NULL);
	CT_RUN(env, prog, "scale", N, 0, CT_BUF(bo), CT_BUF(bi));
	test_read(env, bo, 0, sizeof(out), out);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(out[i], (int)((uint32_t)(in[i] * k) +
					       (b ? 1000u : 0u) + l));
	accel_buffer_unref(bi);
	accel_buffer_unref(bo);
}

static void test_spec_constants(void **state)
{
	struct test_env *env = *state;
	struct accel_spec_constant spec[] = {
		{ .id = 7, .size = 4, .value = 11 },
		{ .id = 8, .size = 1, .value = 1 },
		/* a later value for the same id wins */
		{ .id = 7, .size = 4, .value = (uint32_t)-5 },
		/* more digits than the translator reads as an integer */
		{ .id = 9, .size = 8, .value = UINT64_C(0x4000000000000007) },
	};
	struct accel_program *prog = NULL;
	uint32_t size = 0x5e57;
	char *log = NULL;
	struct module m;

	need_il(env);
	m = load("spec.spv");
	assert_int_equal(accel_il_get_spec_constant_size(m.data, m.size, 7,
							 &size), 0);
	assert_int_equal(size, 4);
	assert_int_equal(accel_il_get_spec_constant_size(m.data, m.size, 8,
							 &size), 0);
	assert_int_equal(size, 1);
	size = 0x5e57;
	assert_int_equal(accel_il_get_spec_constant_size(m.data, m.size, 9,
							 &size), 0);
	assert_int_equal(size, 8);
	size = 0x5e57;
	assert_int_equal(accel_il_get_spec_constant_size(m.data, m.size, 10,
							 &size), -ENOENT);
	assert_int_equal(accel_il_get_spec_constant_size(m.data, 8, 7, &size),
			 -EINVAL);
	assert_int_equal(size, 0x5e57);

	/* the defaults, then values set */
	prog = build(env, &m, 0, NULL);
	run_scale(env, prog, 3, false, 0);
	accel_program_unref(prog);
	prog = build(env, &m, 1, spec);
	run_scale(env, prog, 11, false, 0);
	accel_program_unref(prog);
	prog = build(env, &m, 4, spec);
	run_scale(env, prog, -5, true, 7);
	accel_program_unref(prog);

	/* an id the module lacks, a size its constant does not have */
	spec[0].id = 99;
	prog = TEST_SENTINEL_PTR;
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      1, spec, 0, &log, &prog),
			 -ENOEXEC);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_non_null(strstr(log, "99"));
	free(log);
	spec[0].id = 7;
	spec[0].size = 8;
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      1, spec, 0, &log, &prog),
			 -ENOEXEC);
	free(log);
	spec[0].size = 3;
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      1, spec, 0, &log, &prog),
			 -EINVAL);
	free(log);
	free(m.data);
}

/* A build that must fail with -ENOEXEC and say something. */
static void expect_bad(struct test_env *env, const void *data, size_t size,
		       const char *what)
{
	struct accel_program *prog = TEST_SENTINEL_PTR;
	char *log = NULL;
	int r;

	r = accel_program_new_il(env->dev, data, size, NULL, 0, NULL, 0, &log,
				 &prog);
	print_message("%s: %d, %s", what, r, log ? log : "(no log)\n");
	assert_int_equal(r, -ENOEXEC);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_true(strlen(log) > 0);
	free(log);
}

/* Set the first OpCapability's operand to @cap. */
static void set_capability(unsigned char *p, size_t size, uint32_t cap)
{
	for (size_t i = 20; i + 8 <= size;) {
		uint32_t w;

		memcpy(&w, p + i, 4);
		if ((w & 0xffff) == 17) {
			memcpy(p + i + 4, &cap, 4);
			return;
		}
		assert_true(w >> 16);
		i += (w >> 16) * 4;
	}
	fail();
}

static void test_bad_modules(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	unsigned char *junk;
	struct module m;
	uint64_t seed = 18;
	char *log = TEST_SENTINEL_PTR;

	need_il(env);
	m = load("kernels-O2.spv");
	expect_bad(env, m.data, m.size / 2 & ~(size_t)3, "truncated");
	expect_bad(env, m.data, 12, "header only");
	expect_bad(env, m.data, m.size - 1, "not whole words");
	junk = malloc(m.size);
	assert_non_null(junk);
	for (size_t i = 0; i < m.size; i++)
		junk[i] = (unsigned char)ct_rand(&seed);
	expect_bad(env, junk, m.size, "garbage");
	/* the magic, then garbage */
	memcpy(junk, m.data, 4);
	expect_bad(env, junk, m.size, "magic and garbage");
	memcpy(junk, m.data, m.size);
	junk[0] ^= 0xff;
	expect_bad(env, junk, m.size, "wrong magic");
	memcpy(junk, m.data, m.size);
	set_capability(junk, m.size, 0x7fff);
	expect_bad(env, junk, m.size, "unknown capability");
	free(junk);

	/* argument errors are not build failures: no log */
	assert_int_equal(accel_program_new_il(env->dev, m.data, 0, NULL, 0,
					      NULL, 0, &log, &prog), -EINVAL);
	assert_null(log);
	assert_int_equal(accel_program_new_il(env->dev, NULL, 4, NULL, 0,
					      NULL, 0, &log, &prog), -EINVAL);
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      0, NULL, 0x80, &log, &prog),
			 -EINVAL);
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      1, NULL, 0, &log, &prog),
			 -EINVAL);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	free(m.data);
}

/* An import no module defines: no executable, but an object. */
static void test_import(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	char *log = NULL;
	struct module m;

	need_il(env);
	m = load("import.spv");
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      0, NULL, 0, &log, &prog),
			 -ENOEXEC);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_non_null(strstr(log, "ext_fn"));
	free(log);
	assert_int_equal(accel_program_new_il(env->dev, m.data, m.size, NULL,
					      0, NULL, ACCEL_IL_OBJECT, &log,
					      &prog), 0);
	free(log);
	assert_int_equal(accel_program_get_kind(prog), ACCEL_PROGRAM_OBJECT);
	accel_program_unref(prog);
	free(m.data);
}

/*
 * spirv/subgroups.cl's kernel @p name over groups of 20 (sub-groups of
 * W, the last of each group shorter), against the host.
 */
static unsigned check_sub_groups(struct test_env *env,
				 struct accel_program *prog, const char *name,
				 unsigned want_w)
{
	enum { NG = 50, L = 20, OPS = 7 };
	int32_t x[NG], r[OPS * NG];
	unsigned w = ct_sub_group_width(prog, name), bad = 0;
	struct accel_buffer *bx, *br;
	uint64_t seed = 17;

	if (want_w)
		assert_int_equal(w, want_w);
	ct_rand_ints(x, NG, &seed, 0, 8);
	bx = ct_buffer(env, sizeof(x), x);
	br = ct_buffer(env, sizeof(r), NULL);
	CT_RUN(env, prog, name, NG, L, CT_BUF(bx), CT_BUF(br));
	test_read(env, br, 0, sizeof(r), r);
	for (unsigned g = 0; g < NG; g++) {
		struct ct_sub_group sg = ct_sub_group_of(g, NG, L, w);
		unsigned lane = (unsigned)sg.lane, sb = (unsigned)sg.first;
		unsigned sz = (unsigned)sg.size, mx = (unsigned)sg.max;
		int32_t want[OPS], sum = 0, odd = -1, count = 0;

		for (unsigned k = 0; k < sz; k++) {
			sum += x[sb + k];
			if (x[sb + k] & 1)
				odd = x[sb + k] > odd ? x[sb + k] : odd;
			count += x[sb + k] > 3;
		}
		want[0] = sum;
		want[1] = (x[g] & 1) ? odd : -1;
		want[2] = count;
		want[3] = x[sb];
		/* lane + 1 past the sub-group's end: undefined, not checked */
		want[4] = lane + 1 < sz ? x[g + 1] :
			  lane + 1 >= mx ? x[sb] + 100 : r[4 * NG + g];
		want[5] = (int32_t)sz;
		want[6] = x[g];
		for (unsigned op = 0; op < OPS; op++)
			if (r[op * NG + g] != want[op] && bad++ < 5)
				print_error("%s op %u, item %u: %d, want %d\n",
					    name, op, g, r[op * NG + g],
					    want[op]);
	}
	accel_buffer_unref(bx);
	accel_buffer_unref(br);
	return bad;
}

/* Sub-group functions in SPIR-V, and intel_reqd_sub_group_size. */
static void test_sub_groups(void **state)
{
	struct test_env *env = *state;
	struct module m;
	struct accel_program *prog;
	unsigned bad;

	need_il(env);
	m = load("subgroups.spv");
	prog = build(env, &m, 0, NULL);
	bad = check_sub_groups(env, prog, "sg8", 8);
	bad += check_sub_groups(env, prog, "sg", 0);
	accel_program_unref(prog);
	free(m.data);
	assert_int_equal(bad, 0);
}

int main(void)
{
#define T(f)                                                                  \
	cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_clang_o0),
		T(test_clang_o2),
		T(test_object_link),
		T(test_spec_constants),
		T(test_bad_modules),
		T(test_import),
		T(test_sub_groups),
	};
#undef T

	return TEST_RUN_GROUP("compiler-spirv", tests);
}
