/* SPDX-License-Identifier: MIT */
/*
 * Math builtins with several arguments or a pointer argument (sincos,
 * sinpi, pown, ldexp, frexp, remquo, lgamma_r, pow, fma, ...) at every
 * width and launch size. The work-item loop of a kernel is vectorised
 * and may call glibc's libmvec for sin/cos/pow: a lane mix-up there
 * gives work-items the results of others, at some launch sizes only.
 *
 * Each function has a kernel per width (1, 2, 3, 4, 8, 16) and shape:
 * vload/vstore, typed global pointers, and for pointer results a
 * private, a global and a local pointer; all in one program (pointer
 * functions again in one for OpenCL C 1.2, whose pointer overloads
 * differ from 3.0's generic ones). Each kernel runs over global sizes 1
 * to 64 with the runtime's local size and explicit ones, every launch on
 * its own stretch of the buffers, where each work-item reads inputs of
 * its own (special values among random ones). Every result, pointer
 * results included, is checked against a long double reference at the
 * OpenCL 3.0 full profile ULP limits and special-value rules, and the
 * poison between the stretches must stay.
 *
 * Built as compiler-math-args-float, with CT_DOUBLE
 * compiler-math-args-double (skipped without fp64) and with CT_HALF
 * compiler-math-args-half (skipped without fp16; _Float16 on the host).
 * CT_MATH_ONLY=name runs only that function.
 *
 * This file plans the launches and runs them; the references and limits
 * are in math-args-fns.c, the inputs in math-args-inputs.c, the kernels'
 * source in math-args-kernels.c and the checks in math-args-check.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-math-args.h"

/* ---- launches --------------------------------------------------------- */

static const unsigned globals[] = { 1,  2,  3,  4,  5,  7,  8,  9, 12,
				    15, 16, 17, 31, 32, 33, 63, 64 };
/* besides the runtime's choice (0) and the whole range in one group */
static const unsigned locals[] = { 16, 8, 5 };

static void make_plan(struct plan *p)
{
	unsigned start = 0;

	p->n = 0;
	for (size_t gi = 0; gi < TEST_ARRAY_SIZE(globals); gi++) {
		unsigned g = globals[gi];
		unsigned ls[2 + TEST_ARRAY_SIZE(locals)], nl = 0;

		ls[nl++] = 0;
		ls[nl++] = g;
		for (size_t li = 0; li < TEST_ARRAY_SIZE(locals); li++)
			if (locals[li] < g)
				ls[nl++] = locals[li];
		for (unsigned k = 0; k < nl; k++) {
			assert_true(p->n < MAX_LAUNCHES);
			p->l[p->n++] = (struct launch){ g, ls[k], start };
			start += g * MAX_W + GAP;
		}
	}
	p->elems = start;
}

/* ---- running ------------------------------------------------------------ */

struct bufs {
	struct accel_buffer *a, *b, *c, *n, *r, *r2, *ri;
};

static void run_kernel(struct test_env *env, struct accel_program *prog,
		       const char *name, const struct plan *p,
		       const struct bufs *b)
{
	struct accel_buffer *args[] = { b->a, b->b, b->c,  b->n,
					 b->r, b->r2, b->ri };
	struct accel_fence *fences[MAX_LAUNCHES];
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	for (unsigned i = 0; i < TEST_ARRAY_SIZE(args); i++)
		assert_int_equal(accel_kernel_set_arg_buffer(k, i, args[i]),
				 0);
	/* in order, each with the arguments of its call */
	for (unsigned i = 0; i < p->n; i++) {
		struct accel_ndrange range =
			test_ndrange(1, p->l[i].global, 0, 0, p->l[i].local,
				     0, 0);
		uint32_t base = p->l[i].start;

		assert_int_equal(accel_kernel_set_arg_value(k, 7, sizeof(base),
							    &base), 0);
		fences[i] = NULL;
		assert_int_equal(accel_queue_launch(env->queue, k, &range, 0,
						    NULL, &fences[i]), 0);
	}
	for (unsigned i = 0; i < p->n; i++)
		assert_int_equal(test_wait_unref(fences[i]), 0);
	accel_kernel_unref(k);
}

/* OpenCL C 1.2 only for the pointer functions, whose overloads differ */
static const char *const stds[] = { "CL3.0", "CL1.2" };
#define N_STD TEST_ARRAY_SIZE(stds)

static bool selected(size_t fi, const char *only, unsigned si)
{
	return (!only || !strcmp(only, fns[fi].name)) &&
	       (si == 0 || has_ptr(fns[fi].kind));
}

/* The kernels of all functions in one program per version: building
 * takes most of the time, and little of it per kernel. */
static struct accel_program *build(struct test_env *env, unsigned si,
				   const char *only)
{
	struct accel_program *prog = NULL;
	struct ct_str src = { 0 };
	char opts[64];

	ct_printf(&src, "#ifdef cl_khr_fp64\n"
		  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
		  "#endif\n"
		  "#ifdef cl_khr_fp16\n"
		  "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
		  "#endif\n"
		  "#define T %s\n", TNAME);
	for (size_t fi = 0; fi < n_fns; fi++) {
		if (!selected(fi, only, si))
			continue;
		for (size_t wi = 0; wi < N_WIDTHS; wi++)
			for (enum shape sh = S_V; sh <= S_L; sh++)
				if (kernel_exists(&fns[fi], sh, widths[wi]))
					emit_kernel(&src, fi, sh, widths[wi]);
		prog = TEST_SENTINEL_PTR; /* something to build */
	}
	snprintf(opts, sizeof(opts), "-cl-std=%s", stds[si]);
	if (prog)
		prog = ct_build(env, src.buf, opts);
	ct_str_free(&src);
	return prog;
}

/* one function: every kernel, every launch; the number of failures */
static unsigned test_fn(struct test_env *env, size_t fi,
			struct accel_program *const *progs,
			const struct plan *p, struct host *h, struct out *want,
			const struct bufs *b)
{
	const struct fn *f = &fns[fi];
	size_t tsize = p->elems * sizeof(T), isize = p->elems * sizeof(int);
	unsigned n_std = has_ptr(f->kind) ? N_STD : 1, bad = 0;
	struct ct_str failed = { 0 };
	double worst = 0;

	make_inputs(f, h, p->elems, 0x5eed0000u + fi);
	for (size_t j = 0; j < p->elems; j++) {
		memset(&want[j], 0, sizeof(want[j]));
		f->ref(h->a[j], h->b[j], h->c[j], h->n[j], &want[j]);
	}
	test_write(env, b->a, 0, tsize, h->a);
	test_write(env, b->b, 0, tsize, h->b);
	test_write(env, b->c, 0, tsize, h->c);
	test_write(env, b->n, 0, isize, h->n);

	for (unsigned si = 0; si < n_std; si++) {
		for (size_t wi = 0; wi < N_WIDTHS; wi++) {
			for (enum shape sh = S_V; sh <= S_L; sh++) {
				struct kern k = { f, sh, widths[wi],
						  stds[si] };
				struct tally t = { 0 };
				char name[32];

				if (!kernel_exists(f, sh, widths[wi]))
					continue;
				kernel_name(name, sizeof(name), fi, sh,
					    widths[wi]);
				memset(h->r, 0xa5, tsize);
				memset(h->r2, 0xa5, tsize);
				memset(h->ri, 0xa5, isize);
				test_write(env, b->r, 0, tsize, h->r);
				test_write(env, b->r2, 0, tsize, h->r2);
				test_write(env, b->ri, 0, isize, h->ri);
				run_kernel(env, progs[si], name, p, b);
				test_read(env, b->r, 0, tsize, h->r);
				test_read(env, b->r2, 0, tsize, h->r2);
				test_read(env, b->ri, 0, isize, h->ri);
				check_kernel(&k, p, h, want, &t);
				if (t.worst > worst)
					worst = t.worst;
				if (t.bad)
					ct_printf(&failed, " %c%u%s%s(%u "
						  "from global %u)",
						  shape_names[sh], widths[wi],
						  n_std > 1 ? "/" : "",
						  n_std > 1 ? stds[si] : "",
						  t.bad, t.min_global);
				bad += t.bad;
			}
		}
	}
	print_message("%-10s%s %s worst %.3g ulp%s%s\n", f->name,
		      f->kind == K_2S || f->kind == K_FIS ? " (scalar)" : "",
		      TNAME, worst, bad ? "  FAILED:" : "",
		      bad ? failed.buf : "");
	ct_str_free(&failed);
	return bad;
}

static void test_math_args(void **state)
{
	struct test_env *env = *state;
	const char *only = getenv("CT_MATH_ONLY");
	struct plan *p = malloc(sizeof(*p));
	struct host h;
	struct bufs b;
	struct accel_program *progs[N_STD];
	struct out *want;
	unsigned failed = 0;

#if defined(CT_DOUBLE) || defined(CT_HALF)
#ifdef CT_DOUBLE
	uint64_t cap = ACCEL_DEVICE_CAP_FP64;
#else
	uint64_t cap = ACCEL_DEVICE_CAP_FP16;
#endif

	if (!(test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) & cap)) {
		free(p);
		skip();
	}
#endif
	assert_non_null(p);
	make_plan(p);
	h.a = malloc(p->elems * sizeof(T));
	h.b = malloc(p->elems * sizeof(T));
	h.c = malloc(p->elems * sizeof(T));
	h.r = malloc(p->elems * sizeof(T));
	h.r2 = malloc(p->elems * sizeof(T));
	h.n = malloc(p->elems * sizeof(int));
	h.ri = malloc(p->elems * sizeof(int));
	want = malloc(p->elems * sizeof(*want));
	assert_true(h.a && h.b && h.c && h.r && h.r2 && h.n && h.ri && want);
	b.a = test_buffer_new(env, p->elems * sizeof(T));
	b.b = test_buffer_new(env, p->elems * sizeof(T));
	b.c = test_buffer_new(env, p->elems * sizeof(T));
	b.n = test_buffer_new(env, p->elems * sizeof(int));
	b.r = test_buffer_new(env, p->elems * sizeof(T));
	b.r2 = test_buffer_new(env, p->elems * sizeof(T));
	b.ri = test_buffer_new(env, p->elems * sizeof(int));

	for (unsigned si = 0; si < N_STD; si++)
		progs[si] = build(env, si, only);
	for (size_t fi = 0; fi < n_fns; fi++)
		if (selected(fi, only, 0))
			failed += test_fn(env, fi, progs, p, &h, want, &b) != 0;
	for (unsigned si = 0; si < N_STD; si++)
		accel_program_unref(progs[si]);

	accel_buffer_unref(b.a);
	accel_buffer_unref(b.b);
	accel_buffer_unref(b.c);
	accel_buffer_unref(b.n);
	accel_buffer_unref(b.r);
	accel_buffer_unref(b.r2);
	accel_buffer_unref(b.ri);
	free(h.a);
	free(h.b);
	free(h.c);
	free(h.r);
	free(h.r2);
	free(h.n);
	free(h.ri);
	free(want);
	free(p);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_math_args, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("compiler-math-args-" TNAME, tests);
}
