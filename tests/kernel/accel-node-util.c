/* SPDX-License-Identifier: MIT */
/* Helpers of the accel-node tests (see accel-node-util.h). */
#include <stdlib.h>
#include <string.h>

#include "test-common.h"
#include "accel-node-util.h"

#define MS 1000000ll

/* The refaccel device of @ctx (new reference) or NULL. */
struct accel_device *find_refaccel(struct accel_context *ctx)
{
	struct accel_device *devs[16], *found = NULL;
	int n, i;

	n = accel_context_get_devices(ctx, devs, TEST_ARRAY_SIZE(devs));
	assert_true(n >= 1);
	for (i = 0; i < n && i < (int)TEST_ARRAY_SIZE(devs); i++) {
		const char *drv = NULL;

		if (!found &&
		    accel_device_query_string(devs[i],
					      ACCEL_DEVICE_STRING_DRIVER,
					      &drv) == 0 &&
		    !strcmp(drv, "refaccel"))
			found = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return found;
}

bool have_refaccel(void)
{
	struct accel_context *ctx;
	struct accel_device *dev;

	if (accel_context_new(0, &ctx) < 0)
		return false;
	dev = find_refaccel(ctx);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	return dev != NULL;
}

void node_env_init(struct node_env *env)
{
	test_log_init(&env->log);
	assert_int_equal(test_context_new(&env->log, &env->ctx), 0);
	env->acc = find_refaccel(env->ctx);
	assert_non_null(env->acc);
	assert_int_equal(test_get_cpu_device(env->ctx, &env->cpu), 0);
	assert_int_equal(accel_queue_new(env->acc, 0, &env->q), 0);
	assert_int_equal(accel_queue_new(env->cpu, 0, &env->cq), 0);
}

void node_env_fini(struct node_env *env)
{
	accel_queue_unref(env->q);
	accel_queue_unref(env->cq);
	accel_device_unref(env->acc);
	accel_device_unref(env->cpu);
	accel_context_unref(env->ctx);
	test_log_fini(&env->log);
}

struct accel_buffer *buf_new(struct accel_device *dev, uint64_t size)
{
	struct accel_buffer *b = NULL;

	assert_int_equal(accel_buffer_new(dev, size, 0, &b), 0);
	return b;
}

void wait_ok(struct accel_fence *f)
{
	assert_int_equal(accel_fence_wait(f, 30000 * MS), 0);
	accel_fence_unref(f);
}

void fill_u32(struct accel_queue *q, struct accel_buffer *b,
		     uint64_t off, uint64_t size, uint32_t v)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_fill(q, b, off, size, &v, 4, 0, NULL,
					  &f), 0);
	wait_ok(f);
}

void expect_u32(struct accel_queue *q, struct accel_buffer *b,
		       uint64_t off, uint64_t size, uint32_t v)
{
	uint32_t *tmp = malloc(size);
	struct accel_fence *f = NULL;
	uint64_t i;

	assert_non_null(tmp);
	assert_int_equal(accel_queue_read(q, b, off, size, tmp, 0, NULL, &f),
			 0);
	wait_ok(f);
	for (i = 0; i < size / 4; i++)
		if (tmp[i] != v)
			fail_msg("word %llu: 0x%08x, want 0x%08x",
				 (unsigned long long)i, tmp[i], v);
	free(tmp);
}
