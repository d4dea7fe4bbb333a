/* SPDX-License-Identifier: MIT */
/*
 * The shared fixtures of the sharing test binary (test-sharing*.c).
 */
#ifndef ACCEL_TEST_SHARING_COMMON_H
#define ACCEL_TEST_SHARING_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "test-common.h"
#include "peer.h"

#define PAGE 4096u
#define MS 1000000ll

/* ---- environment ------------------------------------------------------- */

struct env {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *cpu;
	struct accel_device *drm;   /* vgem through libaccel, or NULL */
	struct accel_queue *cq;     /* on cpu */
	struct accel_queue *dq;     /* on drm, or NULL */
	struct accel_program *prog; /* the kernels above, on cpu */
	int card;                   /* vgem, opened by the test, or -1 */
	char what[192];             /* the step in progress, for failures */
};

/* Fail with the step in progress when @expr is not 0. */
#define OK(env, expr)                                                          \
	do {                                                                   \
		int r_ = (expr);                                               \
		if (r_ != 0)                                                   \
			fail_msg("%s: %s = %d (%s)", (env)->what, #expr, r_,   \
				 strerror(r_ < 0 ? -r_ : r_));                 \
	} while (0)

struct side {
	char name[48];
	/* A libaccel buffer... */
	struct accel_buffer *buf;
	struct accel_queue *queue;
	bool kernels;
	/* ...or a peer with a mapping of its own. */
	uint32_t *map;
	uint64_t map_len;
	int sync_fd;        /* the dma-buf bracketing peer access, or -1 */
	/* Released with the side. */
	int own_fd[2];
	int card;
	uint32_t handle;    /* vgem handle (card >= 0) */
	uint64_t size;      /* bytes shared */
};

/* ---- sharing-common.c ------------------------------------------------ */

uint32_t word(uint64_t i, uint32_t seed);
uint64_t now_ms(void);
int env_teardown(void **state);
int env_setup(void **state);
int env_setup_one_worker(void **state);
int wait_unref(struct accel_fence *f, int64_t timeout_ns);
struct accel_buffer *cpu_buffer(struct env *env, uint64_t size);
struct accel_kernel *kernel(struct env *env, const char *name);
struct accel_ndrange range1(uint64_t n);
struct accel_fence *launch_pattern(struct env *env,
				   struct accel_queue *q,
				   struct accel_buffer *buf, uint64_t n,
				   uint32_t seed);
int launch_mark(struct env *env, struct accel_buffer *buf, uint64_t n,
		uint32_t value, uint64_t *ran, struct accel_fence *wait,
		struct accel_fence **ret);
uint32_t kernel_check(struct env *env, struct accel_buffer *buf,
		      uint64_t n, uint32_t seed);
void fill_words(uint32_t *p, uint64_t n, uint32_t seed);
void expect_range(struct env *env, const uint32_t *p, uint64_t base,
		  uint64_t n, uint32_t seed);
void expect_words(struct env *env, const uint32_t *p, uint64_t n,
		  uint32_t seed);
void side_init(struct side *s, const char *name);
void side_free(struct side *s);
void vgem_buffer_mode(struct env *env, uint64_t size, uint32_t seed,
		      bool writable, struct side *s, int *ret_fd);
void vgem_buffer(struct env *env, uint64_t size, uint32_t seed,
		 struct side *s, int *ret_fd);
int closed_fd(void);
int some_dmabuf(struct env *env, uint64_t size, uint32_t seed,
		int *ret_fd);

/* test-sharing.c: counts the cases that ran (not skipped). */
void ran_case(void);

/* ---- test-sharing-roundtrip.c ------------------------------------------- */

void test_roundtrip_cpu_udmabuf(void **state);
void test_roundtrip_cpu_heap(void **state);
void test_roundtrip_raw_heap(void **state);
void test_roundtrip_raw_udmabuf(void **state);
void test_roundtrip_libaccel_vgem(void **state);
void test_roundtrip_raw_vgem(void **state);
void test_export_identity(void **state);

/* ---- test-sharing-sync.c ------------------------------------------------ */

void test_implicit_sync_write_fence(void **state);
void test_implicit_sync_read_fence(void **state);
void test_implicit_sync_exported(void **state);
void test_sync_file_wait(void **state);

/* ---- test-sharing-errors.c ---------------------------------------------- */

void test_bad_import(void **state);
void test_bad_sync_file_import(void **state);
void test_bad_kernel_fds(void **state);
void test_import_ranges(void **state);
void test_export_flags(void **state);
void test_export_misaligned(void **state);

/* ---- test-sharing-readonly.c -------------------------------------------- */

void test_readonly_fd_import(void **state);
void test_readonly_flag_import(void **state);

/* ---- test-sharing-leaks.c ----------------------------------------------- */

void test_leak_buffers(void **state);
void test_leak_sync_files(void **state);

/* ---- test-sharing-image.c ----------------------------------------------- */

void test_image_vgem_frames(void **state);
void test_image_export_frame(void **state);

#endif
