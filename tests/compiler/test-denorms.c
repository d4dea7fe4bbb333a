/* SPDX-License-Identifier: MIT */
/*
 * -cl-denorms-are-zero: kernels of a program built with it see denormal
 * inputs as zero and give zero for denormal results, the sign kept
 * (float and double alike: the CPU device runs them with MXCSR's DAZ and
 * FTZ on); kernels built without it give the exact denormals. Both run
 * back to back, several times, over many small work-groups, so each of
 * the device's worker threads runs both kinds: the mode must be put back
 * after each piece. Also: the mode through a program binary and through
 * separate compilation, the option with -Werror (clang 16 takes
 * -cl-denorms-are-zero for AMD GPUs only), accelc's kernel flag, and the
 * calling thread's own mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelc.h"
#include "compiler-test.h"
#include "fp-control.h"

/* work-items; one per work-group, so every worker gets a share */
#define N 64u
/* results per work-item */
#define R 3u

/*
 * a: denormals, the sign alternating by item; b: denormals of a's sign;
 * n: normals whose product with 2^-100 (2^-960) is denormal.
 *   0: a + b          denormal inputs, denormal sum (DAZ and FTZ)
 *   1: a * 2^100      denormal input, normal result (DAZ only)
 *   2: n * SMALL      normal input, denormal result (FTZ only)
 */
#define KERNEL(T, SUF, BIG, SMALL)                                             \
	"kernel void denorm_" SUF "(global const " T " *a,"                   \
	" global const " T " *b, global const " T " *n,"                      \
	" global " T " *out)\n"                                                \
	"{\n"                                                                  \
	"	size_t i = get_global_id(0);\n"                                \
	"	out[3 * i] = a[i] + b[i];\n"                                   \
	"	out[3 * i + 1] = a[i] * " BIG ";\n"                            \
	"	out[3 * i + 2] = n[i] * " SMALL ";\n"                          \
	"}\n"

static const char src_float[] = KERNEL("float", "f", "0x1p100f",
				       "0x1p-100f");
static const char src_double[] =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	KERNEL("double", "d", "0x1p100", "0x1p-960");

struct fmt {
	const char *name;
	bool dbl;
	const char *src;
	const char *kernel;
	size_t size;
};

static const struct fmt f_float = { "float", false, src_float, "denorm_f",
				    sizeof(float) };
static const struct fmt f_double = { "double", true, src_double, "denorm_d",
				     sizeof(double) };

struct inputs {
	struct accel_buffer *a, *b, *n, *out;
	/* the exact results (IEEE arithmetic on the host) */
	double exact[N * R];
};

static void make_inputs(struct test_env *env, const struct fmt *f,
			struct inputs *in)
{
	double a[N], b[N], n[N];
	float af[N], bf[N], nf[N];
	double tiny = f->dbl ? DBL_TRUE_MIN : FLT_TRUE_MIN;

	for (unsigned i = 0; i < N; i++) {
		double s = i & 1 ? -1.0 : 1.0;

		a[i] = s * (i + 1) * tiny;
		b[i] = s * (3 * i + 2) * tiny;
		/* n * SMALL: 2^-130 (float) or 2^-1030 (double), a few
		 * bits more */
		n[i] = s * (f->dbl ? 0x1p-70 : 0x1p-30) * (1 + i / 64.0);
		af[i] = (float)a[i];
		bf[i] = (float)b[i];
		nf[i] = (float)n[i];
		if (f->dbl) {
			volatile double x = a[i], y = b[i], z = n[i];

			in->exact[R * i] = x + y;
			in->exact[R * i + 1] = x * 0x1p100;
			in->exact[R * i + 2] = z * 0x1p-960;
		} else {
			volatile float x = af[i], y = bf[i], z = nf[i];

			in->exact[R * i] = x + y;
			in->exact[R * i + 1] = x * 0x1p100f;
			in->exact[R * i + 2] = z * 0x1p-100f;
		}
	}
	/* the inputs meant to be denormal are, and so are the results the
	 * flush must change, but for 1, which is normal */
	for (unsigned i = 0; i < N * R; i++) {
		int c = f->dbl ? fpclassify(in->exact[i]) :
				 fpclassify((float)in->exact[i]);

		assert_int_equal(c, i % R == 1 ? FP_NORMAL : FP_SUBNORMAL);
	}
	in->a = ct_buffer(env, N * f->size, f->dbl ? (void *)a : (void *)af);
	in->b = ct_buffer(env, N * f->size, f->dbl ? (void *)b : (void *)bf);
	in->n = ct_buffer(env, N * f->size, f->dbl ? (void *)n : (void *)nf);
	in->out = ct_buffer(env, N * R * f->size, NULL);
}

static void free_inputs(struct inputs *in)
{
	accel_buffer_unref(in->a);
	accel_buffer_unref(in->b);
	accel_buffer_unref(in->n);
	accel_buffer_unref(in->out);
}

/* Run @p prog's kernel over N one-item groups and check its results. */
static void run_check(struct test_env *env, const struct fmt *f,
		      struct inputs *in, struct accel_program *prog,
		      bool flush, const char *what)
{
	unsigned char out[N * R * sizeof(double)];
	unsigned bad = 0;

	CT_RUN(env, prog, f->kernel, N, 1, CT_BUF(in->a), CT_BUF(in->b),
	       CT_BUF(in->n), CT_BUF(in->out));
	test_read(env, in->out, 0, N * R * f->size, out);
	for (unsigned i = 0; i < N * R; i++) {
		double got, want = in->exact[i];

		if (f->dbl)
			memcpy(&got, out + i * 8, 8);
		else {
			float g;

			memcpy(&g, out + i * 4, 4);
			got = g;
		}
		if (flush)
			want = copysign(0.0, want);
		if (got == want && signbit(got) == signbit(want))
			continue;
		if (++bad <= 8)
			print_error("%s %s item %u result %u: got %a, "
				    "expected %a\n", f->name, what, i / R,
				    i % R, got, want);
	}
	assert_int_equal(bad, 0);
}

static bool have_fp64(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_FP64;
}

static void back_to_back(struct test_env *env, const struct fmt *f)
{
	uint64_t control = fp_control();
	struct accel_program *flush, *keep;
	struct inputs in;

	if (f->dbl && !have_fp64(env))
		skip();
	flush = ct_build(env, f->src, "-cl-denorms-are-zero");
	keep = ct_build(env, f->src, NULL);
	make_inputs(env, f, &in);
	/* keep first: a worker's mode is IEEE before any flush too */
	for (int round = 0; round < 3; round++) {
		run_check(env, f, &in, keep, false, "without the option");
		run_check(env, f, &in, flush, true, "-cl-denorms-are-zero");
	}
	run_check(env, f, &in, keep, false, "without the option, last");
	/* whoever ran pieces, this thread's mode is its own (the control
	 * bits: the exception flags are sticky, and the host's reference
	 * arithmetic raised some) */
	assert_int_equal(fp_control(), control);
	free_inputs(&in);
	accel_program_unref(flush);
	accel_program_unref(keep);
}

static void test_float(void **state)
{
	back_to_back(*state, &f_float);
}

static void test_double(void **state)
{
	back_to_back(*state, &f_double);
}

/*
 * The mode is the kernel's: kept in a program binary, and through
 * separate compilation (compiled with the option, linked without).
 */
static void test_binary_and_link(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog, *loaded, *obj, *linked;
	const void *bin;
	size_t size;
	struct inputs in;
	char *log = NULL;

	prog = ct_build(env, src_float, "-cl-denorms-are-zero -Werror");
	make_inputs(env, &f_float, &in);
	assert_int_equal(accel_program_get_binary(prog, &bin, &size), 0);
	assert_int_equal(accel_program_new_binary(env->dev, bin, size,
						  &loaded), 0);
	run_check(env, &f_float, &in, loaded, true, "from a binary");

	assert_int_equal(accel_program_compile(env->dev, src_float, 0,
					       "-cl-denorms-are-zero", 0,
					       NULL, NULL, &log, &obj), 0);
	free(log);
	log = NULL;
	assert_int_equal(accel_program_link(env->dev, 1, &obj, NULL, 0, &log,
					    &linked), 0);
	free(log);
	run_check(env, &f_float, &in, linked, true, "compiled, linked");

	free_inputs(&in);
	accel_program_unref(linked);
	accel_program_unref(obj);
	accel_program_unref(loaded);
	accel_program_unref(prog);
}

/* accelc's own kernel flag: set with the option only. */
static void test_accelc_flag(void **state)
{
	static const char *const opts[] = { NULL, "-cl-denorms-are-zero" };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct accelc_options o = {
			.struct_size = sizeof(o),
			.flags = ACCELC_FLAG_NO_CACHE,
			.build_options = opts[i],
		};
		struct accelc_result *res = NULL;
		const struct accelc_kernel_info *k;
		int r = accelc_compile(&o, src_float, strlen(src_float), &res);

		if (r == -ENOENT)
			skip();
		if (r)
			fail_msg("%s", accelc_result_get_log(res));
		assert_int_equal(accelc_result_get_kernel_count(res), 1);
		k = accelc_result_get_kernel(res, 0);
		assert_int_equal(!!(k->flags & ACCELC_KERNEL_DENORMS_ZERO),
				 i);
		accelc_result_free(res);
	}
}

int main(void)
{
#define T(f)                                                                  \
	cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_float),
		T(test_double),
		T(test_binary_and_link),
		cmocka_unit_test(test_accelc_flag),
	};
#undef T

	return TEST_RUN_GROUP("compiler-denorms", tests);
}
