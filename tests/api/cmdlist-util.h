/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the command list tests (test-cmdlist.c, test-cmdlist-chain.c):
 * lists, launch values, submissions and checks that fail the test on error.
 */
#ifndef ACCEL_TEST_API_CMDLIST_UTIL_H
#define ACCEL_TEST_API_CMDLIST_UTIL_H

#include <stdint.h>
#include <stdlib.h>

#include "test-common.h"

/* Words of the buffers most cases work on. */
#define N 1000

static inline struct accel_cmdlist *list_new(struct test_env *env,
					     uint32_t flags)
{
	struct accel_cmdlist *l = NULL;

	assert_int_equal(accel_cmdlist_new(env->dev, flags, &l), 0);
	return l;
}

/* Argument 1 of @k, the value the test kernels add. */
static inline void set_value(struct accel_kernel *k, uint32_t v)
{
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(v), &v), 0);
}

static inline void submit_wait(struct test_env *env, struct accel_cmdlist *l)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_submit_list(env->queue, l, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
}

/* Count the words equal to @v in the first @n of @buf. */
static inline uint32_t count_equal(struct test_env *env,
				   struct accel_buffer *buf, uint32_t n,
				   uint32_t v)
{
	uint32_t *got = malloc(N * sizeof(*got)), c = 0;

	assert_non_null(got);
	test_read(env, buf, 0, N * sizeof(*got), got);
	for (uint32_t i = 0; i < n; i++)
		c += got[i] == v;
	free(got);
	return c;
}

#endif /* ACCEL_TEST_API_CMDLIST_UTIL_H */
