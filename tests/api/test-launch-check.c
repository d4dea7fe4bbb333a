/* SPDX-License-Identifier: MIT */
/*
 * accel_kernel_check_launch(): for every way a launch is refused, the
 * verdict names the reason (and the dimension or argument), and
 * accel_queue_launch() returns the verdict's errno; ACCEL_NDRANGE_UNIFORM
 * and struct_size versions of struct accel_ndrange.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "test-common.h"

/* Kernels with buffers of their own (work-items write them at once). */
struct kernels {
	struct accel_buffer *buf[6];
	struct accel_kernel *gid;    /* write_gid: two buffers */
	struct accel_kernel *reqd;   /* wg_geometry_reqd: reqd (4, 2, 1) */
	struct accel_kernel *lsum;   /* local_sum: a local argument */
};

static void kernels_new(struct test_env *env, struct kernels *k)
{
	for (uint32_t i = 0; i < 6; i++)
		k->buf[i] = test_buffer_new(env, 1 << 20);
	k->gid = test_kernel_new(env, "write_gid");
	k->reqd = test_kernel_new(env, "wg_geometry_reqd");
	k->lsum = test_kernel_new(env, "local_sum");
	assert_int_equal(accel_kernel_set_arg_buffer(k->gid, 0, k->buf[0]), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k->gid, 1, k->buf[1]), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k->reqd, 0, k->buf[2]),
			 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k->lsum, 0, k->buf[3]),
			 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k->lsum, 1, k->buf[4]),
			 0);
	assert_int_equal(accel_kernel_set_arg_local(k->lsum, 2, 64), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k->lsum, 3, k->buf[5]),
			 0);
}

static void kernels_free(struct test_env *env, struct kernels *k)
{
	assert_int_equal(accel_queue_finish(env->queue), 0);
	accel_kernel_unref(k->gid);
	accel_kernel_unref(k->reqd);
	accel_kernel_unref(k->lsum);
	for (uint32_t i = 0; i < 6; i++)
		accel_buffer_unref(k->buf[i]);
}

/*
 * The verdict on @r is (@err, @reason, @dim, @arg), and a launch returns
 * @err (and runs, for 0).
 */
static void expect(struct test_env *env, struct accel_kernel *k,
		   const struct accel_ndrange *r, int err, uint32_t reason,
		   uint32_t dim, uint32_t arg)
{
	struct accel_launch_check c;
	struct accel_fence *f = TEST_SENTINEL_PTR;

	memset(&c, 0xa5, sizeof(c));
	c.struct_size = sizeof(c);
	assert_int_equal(accel_kernel_check_launch(k, r, &c), 0);
	assert_int_equal(c.error, err);
	assert_int_equal(c.reason, reason);
	if (reason != ACCEL_LAUNCH_OK) {
		assert_int_equal(c.dim, dim);
		assert_int_equal(c.arg_index, arg);
	}
	assert_int_equal(accel_queue_launch(env->queue, k, r, 0, NULL, &f),
			 err);
	if (err)
		assert_ptr_equal(f, TEST_SENTINEL_PTR);
	else
		assert_int_equal(test_wait_unref(f), 0);
}

static void test_reasons(void **state)
{
	struct test_env *env = *state;
	uint64_t max_wg = test_dev_u64(env->dev,
				       ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE);
	uint64_t max_y = test_dev_u64(env->dev,
				      ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y);
	uint64_t local_mem = test_dev_u64(env->dev,
					  ACCEL_DEVICE_U64_LOCAL_MEM_SIZE);
	struct accel_ndrange r;
	struct kernels k;

	kernels_new(env, &k);

	r = test_ndrange(1, 64, 0, 0, 0, 0, 0);
	expect(env, k.gid, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	r.work_dim = 0;
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_WORK_DIM, 0, 0);
	r.work_dim = 4;
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_WORK_DIM, 0, 0);

	r = test_ndrange(2, 8, 0, 0, 0, 0, 0);
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_GLOBAL_SIZE, 1, 0);
	r = test_ndrange(3, 1u << 22, 1u << 22, 1u << 22, 0, 0, 0);
	expect(env, k.gid, &r, -EOVERFLOW, ACCEL_LAUNCH_GLOBAL_SIZE, 2, 0);
	r = test_ndrange(1, 8, 2, 0, 0, 0, 0);
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_GLOBAL_SIZE, 1, 0);

	r = test_ndrange(2, 8, 8, 0, 0, 0, 0);
	r.global_offset[1] = UINT64_MAX - 7;
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_GLOBAL_OFFSET, 1, 0);
	r = test_ndrange(1, 8, 0, 0, 0, 0, 0);
	r.global_offset[2] = 1;
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_GLOBAL_OFFSET, 2, 0);

	r = test_ndrange(2, 8, 8, 0, 4, 0, 0);
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_WORK_GROUP_SIZE, 1, 0);
	r = test_ndrange(2, 8, max_y + 1, 0, 1, max_y + 1, 0);
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_WORK_ITEM_SIZE, 1, 0);
	r = test_ndrange(1, 8, 0, 0, 4, 2, 0);
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_WORK_ITEM_SIZE, 1, 0);
	r = test_ndrange(3, 64, 64, 64, max_wg, 2, 1);
	if (max_wg <= test_dev_u64(env->dev,
				   ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X))
		expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_WORK_GROUP_SIZE,
		       0, 0);

	/* required size: given otherwise, or in an unused dimension */
	r = test_ndrange(2, 8, 8, 0, 8, 2, 0);
	expect(env, k.reqd, &r, -EINVAL, ACCEL_LAUNCH_REQD_WORK_GROUP_SIZE,
	       0, 0);
	r = test_ndrange(1, 8, 0, 0, 4, 0, 0);
	expect(env, k.reqd, &r, -EINVAL, ACCEL_LAUNCH_REQD_WORK_GROUP_SIZE,
	       1, 0);
	r = test_ndrange(2, 8, 6, 0, 4, 2, 0);
	expect(env, k.reqd, &r, 0, ACCEL_LAUNCH_OK, 0, 0);

	/* local memory: static, then the argument's */
	r = test_ndrange(1, 64, 0, 0, 16, 0, 0);
	expect(env, k.lsum, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	assert_int_equal(accel_kernel_set_arg_local(k.lsum, 2, local_mem), 0);
	expect(env, k.lsum, &r, -E2BIG, ACCEL_LAUNCH_LOCAL_MEM, 0, 0);

	kernels_free(env, &k);
}

/* Arguments are checked first: a bad range with one unset still names it. */
static void test_arg_not_set(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "write_gid");
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_ndrange r = test_ndrange(1, 64, 0, 0, 0, 0, 0);

	expect(env, k, &r, -ENOEXEC, ACCEL_LAUNCH_ARG_NOT_SET, 0, 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	expect(env, k, &r, -ENOEXEC, ACCEL_LAUNCH_ARG_NOT_SET, 0, 1);
	r.global_size[0] = 0;
	expect(env, k, &r, -ENOEXEC, ACCEL_LAUNCH_ARG_NOT_SET, 0, 1);
	/* the work dimension is checked before everything else */
	r.work_dim = 0;
	expect(env, k, &r, -EINVAL, ACCEL_LAUNCH_WORK_DIM, 0, 0);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static void test_uniform(void **state)
{
	struct test_env *env = *state;
	struct accel_ndrange r;
	struct kernels k;

	kernels_new(env, &k);
	/* non-uniform work-groups are fine without the flag */
	r = test_ndrange(2, 10, 7, 0, 4, 2, 0);
	expect(env, k.gid, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	r.flags = ACCEL_NDRANGE_UNIFORM;
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_NON_UNIFORM, 0, 0);
	r.global_size[0] = 12;
	expect(env, k.gid, &r, -EINVAL, ACCEL_LAUNCH_NON_UNIFORM, 1, 0);
	r.global_size[1] = 8;
	expect(env, k.gid, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	/* a picked size is always uniform */
	r = test_ndrange(1, 97, 0, 0, 0, 0, 0);
	r.flags = ACCEL_NDRANGE_UNIFORM;
	expect(env, k.gid, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	/* the required size, when none is given, must divide the range */
	r = test_ndrange(2, 8, 5, 0, 0, 0, 0);
	expect(env, k.reqd, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	r.flags = ACCEL_NDRANGE_UNIFORM;
	expect(env, k.reqd, &r, -EINVAL, ACCEL_LAUNCH_NON_UNIFORM, 1, 0);
	r.global_size[1] = 4;
	expect(env, k.reqd, &r, 0, ACCEL_LAUNCH_OK, 0, 0);
	kernels_free(env, &k);
}

/* Malformed calls get -EINVAL and no verdict; older struct sizes work. */
static void test_malformed(void **state)
{
	struct test_env *env = *state;
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	struct accel_launch_check before;
	struct accel_ndrange r = test_ndrange(1, 64, 0, 0, 0, 0, 0);
	struct accel_fence *f = NULL;
	struct kernels k;

	kernels_new(env, &k);
	memset(&c, 0x5a, sizeof(c));
	c.struct_size = sizeof(c);
	before = c;
	assert_int_equal(accel_kernel_check_launch(NULL, &r, &c), -EINVAL);
	assert_int_equal(accel_kernel_check_launch(k.gid, NULL, &c), -EINVAL);
	assert_int_equal(accel_kernel_check_launch(k.gid, &r, NULL), -EINVAL);
	c.struct_size = sizeof(c) - 4;
	assert_int_equal(accel_kernel_check_launch(k.gid, &r, &c), -EINVAL);
	c.struct_size = sizeof(c);
	r.flags = 1u << 31;
	assert_int_equal(accel_kernel_check_launch(k.gid, &r, &c), -EINVAL);
	assert_int_equal(accel_queue_launch(env->queue, k.gid, &r, 0, NULL,
					    NULL),
			 -EINVAL);
	r.flags = 0;
	r.struct_size = offsetof(struct accel_ndrange, flags) - 8;
	assert_int_equal(accel_kernel_check_launch(k.gid, &r, &c), -EINVAL);
	assert_memory_equal(&c, &before, sizeof(c));

	/* a caller built before flags: its range ends at local_size */
	r.struct_size = offsetof(struct accel_ndrange, flags);
	r.flags = 1u << 31; /* beyond its struct: not read */
	assert_int_equal(accel_kernel_check_launch(k.gid, &r, &c), 0);
	assert_int_equal(c.error, 0);
	assert_int_equal(accel_queue_launch(env->queue, k.gid, &r, 0, NULL,
					    &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	kernels_free(env, &k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reasons, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_arg_not_set,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_uniform, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("api-launch-check", tests);
}
