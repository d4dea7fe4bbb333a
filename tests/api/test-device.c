/* SPDX-License-Identifier: MIT */
/*
 * accel_context_get_devices() and accel_device_*: enumeration and the typed
 * property queries of the CPU reference device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

static void test_get_devices(void **state)
{
	struct test_env *env = *state;
	struct accel_device *devs[8];
	int n, m, i, n_cpu = 0;

	assert_int_equal(accel_context_get_devices(NULL, NULL, 0), -EINVAL);
	assert_int_equal(accel_context_get_devices(env->ctx, NULL, 1),
			 -EINVAL);

	n = accel_context_get_devices(env->ctx, NULL, 0);
	assert_true(n >= 1);
	assert_true(n < (int)TEST_ARRAY_SIZE(devs));
	/* Enumeration is stable. */
	assert_int_equal(accel_context_get_devices(env->ctx, NULL, 0), n);

	for (i = 0; i < (int)TEST_ARRAY_SIZE(devs); i++)
		devs[i] = TEST_SENTINEL_PTR;
	m = accel_context_get_devices(env->ctx, devs, (size_t)n + 1);
	assert_int_equal(m, n);
	for (i = 0; i < n; i++) {
		uint64_t type = 0;

		assert_non_null(devs[i]);
		assert_ptr_not_equal(devs[i], TEST_SENTINEL_PTR);
		assert_ptr_equal(accel_device_get_context(devs[i]), env->ctx);
		assert_int_equal(accel_device_query_u64(devs[i],
							ACCEL_DEVICE_U64_TYPE,
							&type),
				 0);
		assert_true(type >= ACCEL_DEVICE_TYPE_CPU &&
			    type <= ACCEL_DEVICE_TYPE_GPU);
		n_cpu += type == ACCEL_DEVICE_TYPE_CPU;
	}
	/* Only @n entries are written. */
	assert_ptr_equal(devs[n], TEST_SENTINEL_PTR);
	assert_int_equal(n_cpu, 1);
	for (i = 0; i < n; i++)
		assert_null(accel_device_unref(devs[i]));

	/* A smaller array still reports the total. */
	devs[0] = devs[1] = TEST_SENTINEL_PTR;
	assert_int_equal(accel_context_get_devices(env->ctx, devs, 1), n);
	assert_ptr_not_equal(devs[0], TEST_SENTINEL_PTR);
	assert_ptr_equal(devs[1], TEST_SENTINEL_PTR);
	accel_device_unref(devs[0]);
}

static void test_ref_unref(void **state)
{
	struct test_env *env = *state;

	assert_ptr_equal(accel_device_ref(env->dev), env->dev);
	assert_null(accel_device_unref(env->dev));
	assert_null(accel_device_ref(NULL));
	assert_null(accel_device_unref(NULL));
	assert_null(accel_device_get_context(NULL));
	assert_ptr_equal(accel_device_get_context(env->dev), env->ctx);
}

static void test_query_u64_bad_args(void **state)
{
	struct test_env *env = *state;
	uint64_t v = TEST_SENTINEL_U64;

	assert_int_equal(accel_device_query_u64(NULL, ACCEL_DEVICE_U64_TYPE,
						&v),
			 -EINVAL);
	assert_int_equal(accel_device_query_u64(env->dev,
						ACCEL_DEVICE_U64_TYPE, NULL),
			 -EINVAL);
	assert_int_equal(accel_device_query_u64(env->dev,
						ACCEL_DEVICE_U64_COUNT, &v),
			 -EINVAL);
	assert_int_equal(accel_device_query_u64(
				 env->dev, (enum accel_device_u64)1000, &v),
			 -EINVAL);
	assert_int_equal(accel_device_query_u64(env->dev,
						(enum accel_device_u64)-1, &v),
			 -EINVAL);
	assert_true(v == TEST_SENTINEL_U64);
}

static void test_query_string_bad_args(void **state)
{
	struct test_env *env = *state;
	const char *s = TEST_SENTINEL_PTR;

	assert_int_equal(accel_device_query_string(NULL,
						   ACCEL_DEVICE_STRING_NAME,
						   &s),
			 -EINVAL);
	assert_int_equal(accel_device_query_string(env->dev,
						   ACCEL_DEVICE_STRING_NAME,
						   NULL),
			 -EINVAL);
	assert_int_equal(accel_device_query_string(env->dev,
						   ACCEL_DEVICE_STRING_COUNT,
						   &s),
			 -EINVAL);
	assert_int_equal(accel_device_query_string(
				 env->dev, (enum accel_device_string)-1, &s),
			 -EINVAL);
	assert_ptr_equal(s, TEST_SENTINEL_PTR);
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static void test_cpu_u64_props(void **state)
{
	struct test_env *env = *state;
	struct accel_device *dev = env->dev;
	uint64_t caps, max_wg, v;
	unsigned p;

	/* Every property is queryable. */
	for (p = 0; p < ACCEL_DEVICE_U64_COUNT; p++) {
		v = TEST_SENTINEL_U64;
		assert_int_equal(accel_device_query_u64(
					 dev, (enum accel_device_u64)p, &v),
				 0);
	}

	assert_int_equal(test_dev_u64(dev, ACCEL_DEVICE_U64_TYPE),
			 ACCEL_DEVICE_TYPE_CPU);
	caps = test_dev_u64(dev, ACCEL_DEVICE_U64_CAPS);
	assert_true(caps & ACCEL_DEVICE_CAP_NATIVE_KERNELS);
	assert_true(caps & ACCEL_DEVICE_CAP_BUILT_IN_KERNELS);
	assert_true(caps & ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY);
	/* Not a PCI device. */
	assert_int_equal(test_dev_u64(dev, ACCEL_DEVICE_U64_VENDOR_ID), 0);
	assert_int_equal(test_dev_u64(dev, ACCEL_DEVICE_U64_DEVICE_ID), 0);

	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_COMPUTE_UNITS) >= 1);
	v = test_dev_u64(dev, ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE);
	assert_true(v > 0);
	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE) > 0);
	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE) <= v);
	/* OpenCL's minimum for a full-profile device. */
	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_LOCAL_MEM_SIZE) >=
		    32 * 1024);
	assert_true(is_pow2(test_dev_u64(dev,
					 ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN)));
	v = test_dev_u64(dev, ACCEL_DEVICE_U64_CACHE_LINE_SIZE);
	assert_true(v == 0 || is_pow2(v));
	/* A cache, if known, holds at least a line. */
	if (test_dev_u64(dev, ACCEL_DEVICE_U64_CACHE_SIZE))
		assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_CACHE_SIZE) >= v);

	max_wg = test_dev_u64(dev, ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE);
	assert_true(max_wg >= 1);
	assert_int_equal(test_dev_u64(dev, ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS),
			 3);
	for (p = ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X;
	     p <= ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z; p++) {
		v = test_dev_u64(dev, (enum accel_device_u64)p);
		assert_true(v >= 1);
		assert_true(v <= max_wg);
	}
	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_MAX_KERNEL_ARGS) >= 8);
	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_MAX_ARG_BYTES) >= 256);

	assert_true(test_dev_u64(dev,
				 ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_INT) >=
		    1);
	assert_true(test_dev_u64(dev,
				 ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_FLOAT) >=
		    1);
	assert_true(test_dev_u64(dev,
				 ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_FLOAT) >=
		    1);
	if (!(caps & ACCEL_DEVICE_CAP_FP64)) {
		assert_int_equal(
			test_dev_u64(dev,
				     ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_DOUBLE),
			0);
		assert_int_equal(
			test_dev_u64(dev,
				     ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_DOUBLE),
			0);
	}
	assert_true(test_dev_u64(dev, ACCEL_DEVICE_U64_TIMER_RESOLUTION_NS) >=
		    1);
}

static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static void test_cpu_string_props(void **state)
{
	struct test_env *env = *state;
	const char *s;
	unsigned p;

	for (p = 0; p < ACCEL_DEVICE_STRING_COUNT; p++) {
		s = NULL;
		assert_int_equal(accel_device_query_string(
					 env->dev, (enum accel_device_string)p,
					 &s),
				 0);
		/* Never NULL on success. */
		assert_non_null(s);
	}

	assert_int_equal(accel_device_query_string(env->dev,
						   ACCEL_DEVICE_STRING_NAME, &s),
			 0);
	assert_true(strlen(s) > 0);
	assert_int_equal(accel_device_query_string(env->dev,
						   ACCEL_DEVICE_STRING_BACKEND,
						   &s),
			 0);
	assert_true(strlen(s) > 0);
	assert_int_equal(accel_device_query_string(env->dev,
						   ACCEL_DEVICE_STRING_DRIVER,
						   &s),
			 0);
	assert_string_equal(s, "cpu");
	assert_int_equal(accel_device_query_string(env->dev,
						   ACCEL_DEVICE_STRING_DEVNODE,
						   &s),
			 0);
	assert_string_equal(s, "");

	assert_int_equal(accel_device_query_string(
				 env->dev, ACCEL_DEVICE_STRING_BUILT_IN_KERNELS,
				 &s),
			 0);
	assert_true(list_has(s, "fill_u32"));
	assert_true(list_has(s, "copy_u8"));
	assert_true(list_has(s, "sgemm"));
	assert_false(list_has(s, "sgem"));
}

/* Strings live as long as the device, even past the context reference. */
static void test_string_lifetime(void **state)
{
	struct test_env *env = *state;
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	const char *name = NULL, *again = NULL;
	struct test_log log;

	(void)env;
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(accel_device_query_string(dev,
						   ACCEL_DEVICE_STRING_NAME,
						   &name),
			 0);
	accel_context_unref(ctx);
	assert_int_equal(accel_device_query_string(dev,
						   ACCEL_DEVICE_STRING_NAME,
						   &again),
			 0);
	assert_string_equal(name, again);
	accel_device_unref(dev);
	test_log_fini(&log);
}

static void test_user_data(void **state)
{
	struct test_env *env = *state;
	int x;

	assert_null(accel_device_get_user_data(env->dev));
	assert_int_equal(accel_device_set_user_data(env->dev, &x), 0);
	assert_ptr_equal(accel_device_get_user_data(env->dev), &x);
	assert_int_equal(accel_device_set_user_data(NULL, &x), -EINVAL);
	assert_null(accel_device_get_user_data(NULL));
	assert_int_equal(accel_device_set_user_data(env->dev, NULL), 0);
	assert_null(accel_device_get_user_data(env->dev));
}

/* Two contexts enumerate their own, distinct devices. */
static void test_devices_per_context(void **state)
{
	struct test_env *env = *state;
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct test_log log;

	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_ptr_not_equal(dev, env->dev);
	assert_ptr_equal(accel_device_get_context(dev), ctx);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_get_devices),
		T(test_ref_unref),
		T(test_query_u64_bad_args),
		T(test_query_string_bad_args),
		T(test_cpu_u64_props),
		T(test_cpu_string_props),
		T(test_string_lifetime),
		T(test_user_data),
		T(test_devices_per_context),
	};

	return TEST_RUN_GROUP("device", tests);
}
