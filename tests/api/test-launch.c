/* SPDX-License-Identifier: MIT */
/*
 * accel_queue_launch(): NDRange validation, 1/2/3-D geometry with global
 * offsets, picked and non-uniform work-groups, required work-group sizes
 * (local memory and arguments: test-launch-args.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

static int launch(struct test_env *env, struct accel_kernel *k,
		  const struct accel_ndrange *r, struct accel_fence **f)
{
	return accel_queue_launch(env->queue, k, r, 0, NULL, f);
}

static void test_launch_bad_args(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *ids = test_buffer_new(env, 4096);
	struct accel_buffer *hits = test_buffer_new(env, 4096);
	struct accel_kernel *k = test_kernel_new(env, "write_gid");
	struct accel_fence *f = TEST_SENTINEL_PTR;
	uint64_t max_wg = test_dev_u64(env->dev,
				       ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE);
	uint64_t max_x = test_dev_u64(env->dev,
				      ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X);
	struct accel_ndrange ok = test_ndrange(1, 64, 0, 0, 0, 0, 0), r;

	/* Arguments never set. */
	assert_int_equal(launch(env, k, &ok, &f), -ENOEXEC);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, ids), 0);
	assert_int_equal(launch(env, k, &ok, &f), -ENOEXEC);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, hits), 0);

	assert_int_equal(accel_queue_launch(NULL, k, &ok, 0, NULL, &f),
			 -EINVAL);
	assert_int_equal(launch(env, NULL, &ok, &f), -EINVAL);
	assert_int_equal(launch(env, k, NULL, &f), -EINVAL);

	r = ok;
	r.struct_size = 0;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r.struct_size = offsetof(struct accel_ndrange, flags) - 8;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = ok;
	r.work_dim = 0;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r.work_dim = 4;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = ok;
	r.global_size[0] = 0;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(2, 8, 0, 0, 0, 0, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(3, 8, 8, 0, 0, 0, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	/* Unused dimensions are 0 or 1. */
	r = test_ndrange(1, 8, 2, 0, 0, 0, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(1, 8, 0, 0, 4, 2, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	/* A local size is all zero (picked) or all given. */
	r = test_ndrange(2, 8, 8, 0, 0, 4, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(2, 8, 8, 0, 4, 0, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);

	/* Local sizes beyond the device's limits. */
	r = test_ndrange(1, 64, 0, 0, max_x + 1, 0, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(3, 64, 64, 64, max_wg, 2, 1);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);

	/* global offset + size overflows. */
	r = ok;
	r.global_offset[0] = UINT64_MAX;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r.global_offset[0] = UINT64_MAX - 10;
	r.global_size[0] = 64;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(2, 8, UINT64_MAX, 0, 0, 0, 0);
	r.global_offset[1] = 2;
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	/* And the valid forms. */
	f = NULL;
	assert_int_equal(launch(env, k, &ok, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	r = test_ndrange(1, 64, 1, 1, 0, 0, 0);
	assert_int_equal(launch(env, k, &r, NULL), 0);
	assert_int_equal(accel_queue_finish(env->queue), 0);

	accel_kernel_unref(k);
	accel_buffer_unref(ids);
	accel_buffer_unref(hits);
}

static void test_launch_other_device(void **state)
{
	struct test_env *env = *state;
	struct test_log log;
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *buf = NULL;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct accel_ndrange r = test_ndrange(1, 4, 0, 0, 0, 0, 0);
	uint32_t v = 1;

	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(accel_program_new_native(dev, test_kernels,
						  test_n_kernels, &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "add_u32", &k), 0);
	assert_int_equal(accel_buffer_new(dev, 16, 0, &buf), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &v), 0);

	assert_int_equal(launch(env, k, &r, &f), -EXDEV);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	accel_buffer_unref(buf);
	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

static void test_vadd(void **state)
{
	struct test_env *env = *state;
	static const uint64_t sizes[] = { 1, 7, 64, 997, 4096, 100003 };
	static const uint64_t locals[] = { 0, 1, 3, 16, 64 };
	struct accel_kernel *k = test_kernel_new(env, "vadd_u32");
	unsigned s, l;

	for (s = 0; s < TEST_ARRAY_SIZE(sizes); s++) {
		uint64_t n = sizes[s], i;
		struct accel_buffer *a = test_buffer_new(env, n * 4);
		struct accel_buffer *b = test_buffer_new(env, n * 4);
		struct accel_buffer *c = test_buffer_new(env, n * 4);
		uint32_t *ha = malloc(n * 4), *hb = malloc(n * 4),
			 *hc = malloc(n * 4);

		assert_non_null(ha);
		assert_non_null(hb);
		assert_non_null(hc);
		for (i = 0; i < n; i++) {
			ha[i] = (uint32_t)(i * 3);
			hb[i] = (uint32_t)(1000000 - i);
		}
		test_write(env, a, 0, n * 4, ha);
		test_write(env, b, 0, n * 4, hb);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 0, c), 0);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 1, a), 0);
		assert_int_equal(accel_kernel_set_arg_buffer(k, 2, b), 0);
		for (l = 0; l < TEST_ARRAY_SIZE(locals); l++) {
			struct accel_ndrange r =
				test_ndrange(1, n, 0, 0, locals[l], 0, 0);
			uint32_t zero = 0;

			assert_int_equal(accel_queue_fill(env->queue, c, 0,
							  n * 4, &zero, 4, 0,
							  NULL, NULL),
					 0);
			test_launch_wait(env, k, &r);
			test_read(env, c, 0, n * 4, hc);
			for (i = 0; i < n; i++)
				if (hc[i] != ha[i] + hb[i])
					fail_msg("n %llu local %llu: c[%llu] = "
						 "%u, expected %u",
						 (unsigned long long)n,
						 (unsigned long long)locals[l],
						 (unsigned long long)i, hc[i],
						 ha[i] + hb[i]);
		}
		free(ha);
		free(hb);
		free(hc);
		accel_buffer_unref(a);
		accel_buffer_unref(b);
		accel_buffer_unref(c);
	}
	accel_kernel_unref(k);
}

/*
 * Run write_gid over @r and check that every work-item ran exactly once
 * with the right global id.
 */
static void check_write_gid(struct test_env *env, const struct accel_ndrange *r)
{
	uint64_t g[3], total, i;
	struct accel_buffer *ids, *hits;
	struct accel_kernel *k = test_kernel_new(env, "write_gid");
	uint32_t *hid, *hhits;
	unsigned d;

	for (d = 0; d < 3; d++)
		g[d] = d < r->work_dim ? r->global_size[d] : 1;
	total = g[0] * g[1] * g[2];
	ids = test_buffer_new(env, total * 12);
	hits = test_buffer_new(env, total * 4);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, ids), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, hits), 0);
	test_launch_wait(env, k, r);

	hid = malloc(total * 12);
	hhits = malloc(total * 4);
	assert_non_null(hid);
	assert_non_null(hhits);
	test_read(env, ids, 0, total * 12, hid);
	test_read(env, hits, 0, total * 4, hhits);
	for (i = 0; i < total; i++) {
		uint64_t c[3] = { i % g[0], (i / g[0]) % g[1], i / (g[0] * g[1]) };

		if (hhits[i] != 1)
			fail_msg("dim %u global (%llu,%llu,%llu) local "
				 "(%llu,%llu,%llu): item %llu ran %u times",
				 r->work_dim, (unsigned long long)g[0],
				 (unsigned long long)g[1],
				 (unsigned long long)g[2],
				 (unsigned long long)r->local_size[0],
				 (unsigned long long)r->local_size[1],
				 (unsigned long long)r->local_size[2],
				 (unsigned long long)i, hhits[i]);
		for (d = 0; d < 3; d++) {
			uint64_t off = d < r->work_dim ? r->global_offset[d] : 0;

			if (hid[3 * i + d] != (uint32_t)(c[d] + off))
				fail_msg("dim %u: item %llu has gid[%u] = %u, "
					 "expected %llu",
					 r->work_dim, (unsigned long long)i, d,
					 hid[3 * i + d],
					 (unsigned long long)(c[d] + off));
		}
	}
	free(hid);
	free(hhits);
	accel_buffer_unref(ids);
	accel_buffer_unref(hits);
	accel_kernel_unref(k);
}

static void test_global_ids(void **state)
{
	struct test_env *env = *state;
	static const struct {
		uint32_t dim;
		uint64_t g[3], l[3], off[3];
	} cases[] = {
		{ 1, { 1 }, { 0 }, { 0 } },
		{ 1, { 997 }, { 0 }, { 0 } },
		{ 1, { 997 }, { 0 }, { 12345 } },
		{ 1, { 1000 }, { 64 }, { 3 } },   /* partial last group */
		{ 1, { 10 }, { 7 }, { 0 } },
		{ 2, { 33, 17 }, { 0, 0 }, { 0, 0 } },
		{ 2, { 33, 17 }, { 8, 4 }, { 5, 100 } },
		{ 2, { 1, 301 }, { 1, 16 }, { 0, 7 } },
		{ 3, { 13, 7, 5 }, { 0, 0, 0 }, { 1, 2, 3 } },
		{ 3, { 13, 7, 5 }, { 4, 3, 2 }, { 0, 0, 0 } },
		{ 3, { 13, 7, 5 }, { 13, 7, 5 }, { 9, 8, 7 } },
		{ 3, { 1, 1, 29 }, { 1, 1, 4 }, { 0, 0, 1000 } },
	};
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		struct accel_ndrange r =
			test_ndrange(cases[i].dim, cases[i].g[0], cases[i].g[1],
				     cases[i].g[2], cases[i].l[0],
				     cases[i].l[1], cases[i].l[2]);

		memcpy(r.global_offset, cases[i].off, sizeof(r.global_offset));
		check_write_gid(env, &r);
	}
}

/*
 * Run wg_geometry (or @kname) over @r and check what each work-group saw.
 * @enq: the expected enqueued local size, or NULL if libaccel picks it.
 */
static void check_geometry(struct test_env *env, const char *kname,
			   const struct accel_ndrange *r, const uint64_t *enq)
{
	struct accel_kernel *k = test_kernel_new(env, kname);
	uint64_t g[3], e[3], ng[3], total, n_groups, i, items = 0;
	uint64_t max_wg = test_dev_u64(env->dev,
				       ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE);
	uint64_t max_item[3] = {
		test_dev_u64(env->dev, ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X),
		test_dev_u64(env->dev, ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y),
		test_dev_u64(env->dev, ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z),
	};
	struct accel_buffer *buf;
	struct test_wg_rec *rec;
	unsigned d;

	for (d = 0; d < 3; d++)
		g[d] = d < r->work_dim ? r->global_size[d] : 1;
	total = g[0] * g[1] * g[2];
	/* At most one group per item. */
	buf = test_buffer_new(env, total * sizeof(*rec));
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	test_launch_wait(env, k, r);
	assert_int_equal(accel_buffer_map(buf, 0, total * sizeof(*rec),
					  ACCEL_MAP_READ, (void **)&rec),
			 0);

	/* Group 0 always exists; it tells the picked size. */
	assert_int_equal(rec[0].visits, 1);
	for (d = 0; d < 3; d++) {
		e[d] = enq ? (d < r->work_dim ? enq[d] : 1) :
			     rec[0].enqueued_local_size[d];
		assert_true(e[d] >= 1);
		if (d >= r->work_dim)
			assert_int_equal(e[d], 1);
		assert_true(e[d] <= max_item[d]);
		ng[d] = (g[d] + e[d] - 1) / e[d];
	}
	assert_true(e[0] * e[1] * e[2] <= max_wg);
	n_groups = ng[0] * ng[1] * ng[2];

	for (i = 0; i < total; i++) {
		const struct test_wg_rec *w = &rec[i];
		uint64_t id[3] = { i % ng[0], (i / ng[0]) % ng[1],
				   i / (ng[0] * ng[1]) };

		if (i >= n_groups) {
			assert_int_equal(w->visits, 0);
			continue;
		}
		if (w->visits != 1)
			fail_msg("%s: group %llu ran %llu times", kname,
				 (unsigned long long)i,
				 (unsigned long long)w->visits);
		assert_int_equal(w->work_dim, r->work_dim);
		assert_int_equal(w->abi_version, ACCEL_WG_ABI_VERSION);
		/* Not a barrier kernel: no fiber barrier. */
		assert_int_equal(w->has_barrier, 0);
		for (d = 0; d < 3; d++) {
			uint64_t off = d < r->work_dim ? r->global_offset[d] : 0;
			uint64_t ls = g[d] - id[d] * e[d];

			if (ls > e[d])
				ls = e[d];
			assert_int_equal(w->group_id[d], id[d]);
			assert_int_equal(w->num_groups[d], ng[d]);
			assert_int_equal(w->enqueued_local_size[d], e[d]);
			assert_int_equal(w->local_size[d], ls);
			assert_int_equal(w->global_size[d], g[d]);
			assert_int_equal(w->global_offset[d], off);
		}
		items += w->local_size[0] * w->local_size[1] * w->local_size[2];
	}
	/* The groups cover the range exactly. */
	assert_int_equal(items, total);
	assert_int_equal(accel_buffer_unmap(buf, rec), 0);
	accel_buffer_unref(buf);
	accel_kernel_unref(k);
}

static void test_geometry_explicit(void **state)
{
	struct test_env *env = *state;
	static const struct {
		uint32_t dim;
		uint64_t g[3], l[3], off[3];
	} cases[] = {
		{ 1, { 1 }, { 1 }, { 0 } },
		{ 1, { 100 }, { 10 }, { 0 } },
		{ 1, { 100 }, { 7 }, { 4 } },    /* non-uniform: 14 x 7 + 2 */
		{ 1, { 5 }, { 8 }, { 0 } },      /* one partial group */
		{ 2, { 30, 20 }, { 4, 3 }, { 1, 2 } },
		{ 2, { 1, 9 }, { 1, 2 }, { 0, 0 } },
		{ 3, { 9, 7, 5 }, { 2, 2, 2 }, { 10, 20, 30 } },
		{ 3, { 4, 4, 4 }, { 4, 4, 4 }, { 0, 0, 0 } },
		{ 3, { 17, 1, 3 }, { 5, 1, 2 }, { 0, 0, 0 } },
	};
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		struct accel_ndrange r =
			test_ndrange(cases[i].dim, cases[i].g[0], cases[i].g[1],
				     cases[i].g[2], cases[i].l[0],
				     cases[i].l[1], cases[i].l[2]);

		memcpy(r.global_offset, cases[i].off, sizeof(r.global_offset));
		check_geometry(env, "wg_geometry", &r, cases[i].l);
	}
}

/* All-zero local size: libaccel picks one that fits, for odd sizes too. */
static void test_geometry_picked(void **state)
{
	struct test_env *env = *state;
	static const struct {
		uint32_t dim;
		uint64_t g[3], off[3];
	} cases[] = {
		{ 1, { 1 }, { 0 } },
		{ 1, { 2 }, { 0 } },
		{ 1, { 997 }, { 3 } },
		{ 1, { 1024 }, { 0 } },
		{ 1, { 65537 }, { 0 } },
		{ 2, { 31, 29 }, { 0, 5 } },
		{ 2, { 1, 1 }, { 0, 0 } },
		{ 2, { 256, 3 }, { 0, 0 } },
		{ 3, { 7, 11, 13 }, { 1, 1, 1 } },
		{ 3, { 32, 32, 2 }, { 0, 0, 0 } },
	};
	unsigned i;

	for (i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		struct accel_ndrange r =
			test_ndrange(cases[i].dim, cases[i].g[0], cases[i].g[1],
				     cases[i].g[2], 0, 0, 0);

		memcpy(r.global_offset, cases[i].off, sizeof(r.global_offset));
		check_geometry(env, "wg_geometry", &r, NULL);
	}
}

static void test_reqd_work_group_size(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel *k = test_kernel_new(env, "wg_geometry_reqd");
	struct accel_buffer *buf = test_buffer_new(env, 64 * 1024);
	static const uint64_t reqd[3] = { 4, 2, 1 };
	uint64_t static_local = TEST_SENTINEL_U64, got[3] = { 0 };
	uint32_t flags = 0xffff;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct accel_ndrange r;

	assert_int_equal(accel_kernel_get_wg_info(k, &static_local, got,
						  &flags),
			 0);
	assert_memory_equal(got, reqd, sizeof(got));
	assert_int_equal(static_local, 0);
	assert_int_equal(flags, 0);

	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	r = test_ndrange(2, 16, 8, 0, 2, 2, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	r = test_ndrange(2, 16, 8, 0, 4, 1, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	/* A 1-D launch cannot have a local size of (4, 2, 1). */
	r = test_ndrange(1, 16, 0, 0, 4, 0, 0);
	assert_int_equal(launch(env, k, &r, &f), -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);

	/* Explicit and picked sizes both use the required size. */
	r = test_ndrange(2, 16, 8, 0, 4, 2, 0);
	check_geometry(env, "wg_geometry_reqd", &r, reqd);
	r = test_ndrange(2, 16, 8, 0, 0, 0, 0);
	check_geometry(env, "wg_geometry_reqd", &r, reqd);
	/* Non-uniform groups with a required size. */
	r = test_ndrange(2, 18, 9, 0, 0, 0, 0);
	r.global_offset[0] = 2;
	check_geometry(env, "wg_geometry_reqd", &r, reqd);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_launch_bad_args),
		T(test_launch_other_device),
		T(test_vadd),
		T(test_global_ids),
		T(test_geometry_explicit),
		T(test_geometry_picked),
		T(test_reqd_work_group_size),
	};

	return TEST_RUN_GROUP("launch", tests);
}
