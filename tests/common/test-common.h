/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the cmocka test suites: the fd-leak check every group
 * runs, a context whose log is captured, the CPU reference device, and
 * native work-group functions (test-kernels.c) to launch.
 *
 * Helpers only use the public API, so the suites test what users see.
 */
#ifndef ACCEL_TEST_COMMON_H
#define ACCEL_TEST_COMMON_H

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include <libaccel/libaccel.h>

#define TEST_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE). */
#define TEST_EXIT_SKIP 77

/* Written into out-params before failing calls: must survive them. */
#define TEST_SENTINEL_PTR ((void *)(uintptr_t)0x5e57)
#define TEST_SENTINEL_U64 UINT64_C(0x5e575e575e575e57)

/* ---- fd-leak check --------------------------------------------------- */

/*
 * Group fixtures: setup records the open fds; teardown compares, prints
 * new fds with their readlink() targets (and vanished ones) and fails.
 */
int test_group_setup(void **state);
int test_group_teardown(void **state);

/*
 * Run a group with the fd-leak fixtures. Returns non-zero if a test failed
 * or the fd check failed (cmocka 1.1 does not count a failed group
 * teardown in its return value, so we do).
 */
int test_run_group(const char *name, const struct CMUnitTest *tests,
		   size_t n);
#define TEST_RUN_GROUP(name, tests)                                            \
	test_run_group((name), (tests), TEST_ARRAY_SIZE(tests))

/*
 * Wait up to @p ms for the open fds to be the group's at setup again
 * (helper threads of a test library may close theirs late); true if so.
 */
bool test_group_fds_settle(int ms);

/* Number of open fds of this process (for checks inside one test). */
int test_count_fds(void);

/* ---- captured logging ------------------------------------------------ */

#define TEST_LOG_SIZE 16384

struct test_log {
	pthread_mutex_t lock;
	char buf[TEST_LOG_SIZE]; /* messages, truncated when full */
	size_t len;
	unsigned count[8];       /* messages per priority */
};

void test_log_init(struct test_log *log);
void test_log_fini(struct test_log *log);
void test_log_reset(struct test_log *log);
/* Messages logged at @max_priority or more important (numerically <=). */
unsigned test_log_count(struct test_log *log, int max_priority);
bool test_log_contains(struct test_log *log, const char *needle);

/* The handler itself, for tests that install it on their own. */
void test_log_handler(struct accel_context *ctx, int priority,
		      const char *file, int line, const char *fn,
		      const char *format, va_list args, void *user_data);

/*
 * New context that logs at DEBUG into @log (initialised by the caller with
 * test_log_init()). Nothing reaches stderr unless ACCEL_TEST_VERBOSE is set.
 */
int test_context_new(struct test_log *log, struct accel_context **ret);

/* The CPU reference device of @ctx (a new reference), or -ENODEV. */
int test_get_cpu_device(struct accel_context *ctx, struct accel_device **ret);

/* Query helper that fails the test on error. */
uint64_t test_dev_u64(struct accel_device *dev, enum accel_device_u64 prop);

/* ---- per-test environment -------------------------------------------- */

struct test_env {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *dev;    /* the CPU device */
	struct accel_queue *queue;   /* in-order, no profiling */
	struct accel_program *prog;  /* the native test kernels */
};

/* Test fixtures: a context, the CPU device, a queue and the test program. */
int test_env_setup(void **state);
int test_env_teardown(void **state);

/* ---- synchronous helpers (fail the test on error) --------------------- */

struct accel_buffer *test_buffer_new(struct test_env *env, uint64_t size);
/* Write through the queue and wait. */
void test_write(struct test_env *env, struct accel_buffer *buf,
		uint64_t offset, uint64_t size, const void *src);
/* Read through the queue and wait. */
void test_read(struct test_env *env, struct accel_buffer *buf,
	       uint64_t offset, uint64_t size, void *dst);
struct accel_kernel *test_kernel_new(struct test_env *env, const char *name);
/* Launch on env->queue, wait, assert success. */
void test_launch_wait(struct test_env *env, struct accel_kernel *k,
		      const struct accel_ndrange *range);
/* A new user fence of env->ctx (fails the test on error). */
struct accel_fence *test_user_fence(struct test_env *env);
/* Wait for a fence with an infinite timeout and drop it; returns status. */
int test_wait_unref(struct accel_fence *fence);

struct accel_ndrange test_ndrange(uint32_t dim, uint64_t g0, uint64_t g1,
				  uint64_t g2, uint64_t l0, uint64_t l1,
				  uint64_t l2);

/* ---- native test kernels (test-kernels.c) ---------------------------- */

/*
 * All take global ids as OpenCL does: group_id * enqueued_local_size +
 * local id + global offset. "lin" below is the linear index of
 * (gid - global_offset) over the global size, x fastest.
 *
 * vadd_u32(global uint *c, global const uint *a, global const uint *b)
 *	c[gid] = a[gid] + b[gid]                        (1-D)
 * add_u32(global uint *buf, uint value)
 *	buf[gid] += value                               (1-D)
 * inc_slot(global uint *counters, uint slot)
 *	counters[slot + gid - offset] += 1              (1-D)
 * write_gid(global uint *ids, global uint *hits)
 *	ids[3 * lin + d] = gid[d]; hits[lin] += 1      (1-3-D)
 * wg_geometry(global struct test_wg_rec *rec)
 *	one record per work-group at its linear group id
 * wg_geometry_reqd: the same with reqd_work_group_size (4, 2, 1)
 * local_sum(global uint *sums, global const uint *in, local uint *scratch,
 *	     global uint *errs)
 *	static __local block of TEST_STATIC_LOCAL bytes; per group:
 *	sums[group] = sum of in[lin] over its items, errs[group] = TEST_LERR_*
 * noop_args(global const float *in, uint n, local float *tmp,
 *	     constant int *c): does nothing (argument description tests)
 * no_args(): does nothing, takes no arguments
 * value_args(global ulong *out, uchar c, struct test_val3 s, ulong u)
 *	work-item 0 of group 0 writes TEST_VALUE_ARGS_N values: c, s.a, s.b,
 *	s.c, u, and each argument pointer's address modulo 16
 * local_layout(global ulong *out, local uchar *a, local uchar *b)
 *	static __local block of TEST_LAYOUT_STATIC bytes; per group g writes
 *	out[g * 4 + 0..3] = a - local_mem, b - local_mem, local_mem % 128,
 *	ctx->static_local_size
 */
#define TEST_STATIC_LOCAL 256u
#define TEST_LAYOUT_STATIC 100u
#define TEST_VALUE_ARGS_N 9

struct test_val3 {
	uint32_t a, b, c;
};

#define TEST_LERR_LOCAL_MEM_ALIGN (1u << 0) /* ctx->local_mem not 128-aligned */
#define TEST_LERR_SCRATCH_ALIGN (1u << 1)   /* local arg not 128-aligned */
#define TEST_LERR_SCRATCH_POS (1u << 2)     /* local arg inside static block */
#define TEST_LERR_STATIC_CLOBBER (1u << 3)  /* another group wrote our memory */
#define TEST_LERR_STATIC_SIZE (1u << 4)     /* ctx->static_local_size wrong */
#define TEST_LERR_ABI (1u << 5)             /* abi_version wrong */
#define TEST_LERR_SCRATCH_NULL (1u << 6)    /* NULL local block */

struct test_wg_rec {
	uint64_t visits; /* incremented by each run of the group */
	uint64_t has_barrier; /* ctx->barrier != NULL */
	uint64_t work_dim;
	uint64_t abi_version;
	uint64_t group_id[3];
	uint64_t num_groups[3];
	uint64_t local_size[3];
	uint64_t enqueued_local_size[3];
	uint64_t global_size[3];
	uint64_t global_offset[3];
};

extern const struct accel_native_kernel_desc test_kernels[];
extern const uint32_t test_n_kernels;

#endif /* ACCEL_TEST_COMMON_H */
