/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the accel-node tests (test-accel-node.c,
 * test-accel-infence.c): the refaccel device, buffers, and fills and
 * checks of 32-bit words that fail the test on error.
 */
#ifndef ACCEL_NODE_UTIL_H
#define ACCEL_NODE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "test-common.h"

/* A context logging into log, its refaccel and CPU devices, a queue each. */
struct node_env {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *acc, *cpu;
	struct accel_queue *q, *cq;
};

void node_env_init(struct node_env *env);
void node_env_fini(struct node_env *env);

/* Whether a refaccel device is here (tests skip outside the VM tier). */
bool have_refaccel(void);
/* The refaccel device of @ctx (new reference) or NULL. */
struct accel_device *find_refaccel(struct accel_context *ctx);
struct accel_buffer *buf_new(struct accel_device *dev, uint64_t size);
/* Wait up to 30 s for success, then drop @f. */
void wait_ok(struct accel_fence *f);
void fill_u32(struct accel_queue *q, struct accel_buffer *b, uint64_t off,
	      uint64_t size, uint32_t v);
/* Every word of [off, off + size) of @b reads @v (through @q). */
void expect_u32(struct accel_queue *q, struct accel_buffer *b, uint64_t off,
		uint64_t size, uint32_t v);

#endif /* ACCEL_NODE_UTIL_H */
