/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the builtin test corpus: OpenCL C programs built and run
 * through the public API on the CPU device, and the host side of the
 * checks (ULP error against a long double reference, a seeded PRNG,
 * where a work-item's sub-group stands).
 */
#ifndef ACCEL_COMPILER_TEST_H
#define ACCEL_COMPILER_TEST_H

#include "test-common.h"

/* Build @src with @options; skip() without a compiler, fail with the
 * build log on error. */
struct accel_program *ct_build(struct test_env *env, const char *src,
			       const char *options);

/* Build @src expecting failure; returns the error and the log (free()). */
int ct_build_fail(struct test_env *env, const char *src, const char *options,
		  char **log);

/* A buffer of @size bytes filled from @init, or zeroed if NULL. */
struct accel_buffer *ct_buffer(struct test_env *env, size_t size,
			       const void *init);

enum ct_arg_kind { CT_ARG_BUF, CT_ARG_VAL, CT_ARG_LOCAL };

struct ct_arg {
	enum ct_arg_kind kind;
	struct accel_buffer *buf;
	size_t size;
	const void *val;
};

#define CT_BUF(b) ((struct ct_arg){ CT_ARG_BUF, (b), 0, NULL })
#define CT_VAL(v) ((struct ct_arg){ CT_ARG_VAL, NULL, sizeof(v), &(v) })
#define CT_LOCAL(n) ((struct ct_arg){ CT_ARG_LOCAL, NULL, (n), NULL })

/* Launch kernel @name over @range with @args, wait, assert success. */
void ct_run_range(struct test_env *env, struct accel_program *prog,
		  const char *name, const struct accel_ndrange *range,
		  const struct ct_arg *args, unsigned n_args);
/* 1-D; @local 0: 64 (the last group may be partial) */
void ct_run(struct test_env *env, struct accel_program *prog,
	    const char *name, uint64_t global, uint64_t local,
	    const struct ct_arg *args, unsigned n_args);
#define CT_RUN(env, prog, name, global, local, ...)                            \
	ct_run((env), (prog), (name), (global), (local),                       \
	       (const struct ct_arg[]){ __VA_ARGS__ },                         \
	       sizeof((const struct ct_arg[]){ __VA_ARGS__ }) /                \
		       sizeof(struct ct_arg))

/*
 * Error of @test in units in the last place of the format with @mant
 * significand bits (24, 53) and minimum normal exponent @emin (-126,
 * -1022), against the exact value @ref. NaN must meet NaN (0, else
 * infinity); an infinite result counts as 2^(emax + 1), as the OpenCL
 * conformance tests do; below the normal range the ulp is the
 * subnormal spacing.
 */
double ct_ulp_error(long double test, long double ref, int mant, int emin);

/* xorshift64*: deterministic inputs, reproducible from the seed */
uint64_t ct_rand(uint64_t *state);
/* uniform in [lo, hi] */
double ct_rand_range(uint64_t *state, double lo, double hi);
/* @n ints uniform in [lo, hi] into @x */
void ct_rand_ints(int32_t *x, size_t n, uint64_t *state, int32_t lo,
		  int32_t hi);

/* The sub-group size of kernel @p name of @p prog (asserted to answer). */
unsigned ct_sub_group_width(struct accel_program *prog, const char *name);

/*
 * Where work-item @p g of a 1-D launch of @p n work-items in groups of
 * @p l stands, sub-groups being @p w consecutive local ids: the last
 * group, and the last sub-group of each group, may be partial.
 */
struct ct_sub_group {
	uint64_t group;      /* the group's first global id */
	uint64_t group_size; /* its work-items */
	uint64_t id;         /* get_sub_group_id() */
	uint64_t first;      /* the sub-group's first global id */
	uint64_t size;       /* get_sub_group_size() */
	uint64_t lane;       /* get_sub_group_local_id(): g - first */
	uint64_t max;        /* get_max_sub_group_size() */
};
struct ct_sub_group ct_sub_group_of(uint64_t g, uint64_t n, uint64_t l,
				    unsigned w);

/* A printf into a growing buffer (fails the test when out of memory). */
struct ct_str {
	char *buf;
	size_t len, cap;
};
void ct_printf(struct ct_str *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ct_str_free(struct ct_str *s);

#endif /* ACCEL_COMPILER_TEST_H */
