/* SPDX-License-Identifier: MIT */
/*
 * libaccel-rdma: registering libaccel buffers with an RDMA protection
 * domain. Argument checks run everywhere; registrations need an RDMA
 * device (soft-RoCE rxe0 in the kernel tier: kernel-rdma) and are skipped
 * without one. rxe has no ibv_reg_dmabuf_mr(), so there the dma-buf path
 * must be tried first, fail with EOPNOTSUPP and fall back to the host
 * mapping.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "test-common.h"

#include <libaccel/accel-rdma.h>

struct rdma_env {
	struct test_env *env;
	struct ibv_context *ibv;
	struct ibv_pd *pd;
};

static int setup(void **state)
{
	struct rdma_env *r = calloc(1, sizeof(*r));
	struct ibv_device **list;
	int n = 0;

	if (!r || test_env_setup((void **)&r->env) < 0) {
		free(r);
		return -1;
	}
	list = ibv_get_device_list(&n);
	if (list && n > 0) {
		r->ibv = ibv_open_device(list[0]);
		if (r->ibv)
			r->pd = ibv_alloc_pd(r->ibv);
	}
	if (list)
		ibv_free_device_list(list);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rdma_env *r = *state;

	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ibv)
		ibv_close_device(r->ibv);
	test_env_teardown((void **)&r->env);
	free(r);
	return 0;
}

static void need_pd(struct rdma_env *r)
{
	if (!r->pd) {
		printf("# no RDMA device here (the kernel tier has rxe0)\n");
		skip();
	}
}

#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	    IBV_ACCESS_REMOTE_READ)

/* Checked before anything touches the PD, so a dummy one will do. */
static void test_bad_arguments(void **state)
{
	struct rdma_env *r = *state;
	struct accel_buffer *buf = test_buffer_new(r->env, 4096);
	struct ibv_pd *pd = r->pd ? r->pd : (struct ibv_pd *)&r;
	struct accel_rdma_mr *mr = TEST_SENTINEL_PTR;

	assert_int_equal(accel_buffer_register_rdma(NULL, pd, RW, 0, &mr),
			 -EINVAL);
	assert_int_equal(accel_buffer_register_rdma(buf, NULL, RW, 0, &mr),
			 -EINVAL);
	assert_int_equal(accel_buffer_register_rdma(buf, pd, RW, 0, NULL),
			 -EINVAL);
	/* Unknown access bit, unknown flag, both paths excluded. */
	assert_int_equal(accel_buffer_register_rdma(buf, pd, 1u << 30, 0, &mr),
			 -EINVAL);
	assert_int_equal(accel_buffer_register_rdma(buf, pd, RW, 1u << 7, &mr),
			 -EINVAL);
	assert_int_equal(accel_buffer_register_rdma(buf, pd, RW,
			ACCEL_RDMA_DMABUF_ONLY | ACCEL_RDMA_HOST_ONLY, &mr),
			 -EINVAL);
	/* Verbs: remote write and atomics need local write. */
	assert_int_equal(accel_buffer_register_rdma(buf, pd,
			IBV_ACCESS_REMOTE_WRITE, 0, &mr), -EINVAL);
	assert_int_equal(accel_buffer_register_rdma(buf, pd,
			IBV_ACCESS_REMOTE_ATOMIC, 0, &mr), -EINVAL);
	assert_ptr_equal(mr, TEST_SENTINEL_PTR);

	assert_null(accel_rdma_mr_get_ibv_mr(NULL));
	assert_null(accel_rdma_mr_get_buffer(NULL));
	assert_int_equal(accel_rdma_mr_get_path(NULL), -EINVAL);
	assert_int_equal(accel_rdma_mr_get_dmabuf_error(NULL), -EINVAL);
	assert_int_equal(accel_rdma_mr_release(NULL), -EINVAL);
	accel_buffer_unref(buf);
}

/* The dma-buf path first; rxe (and hosts without udmabuf) fall back. */
static void test_register_fallback(void **state)
{
	struct rdma_env *r = *state;
	struct accel_buffer *buf;
	struct accel_rdma_mr *mr;
	struct ibv_mr *ibmr;
	int path;

	need_pd(r);
	buf = test_buffer_new(r->env, 1 << 20);
	assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW, 0, &mr),
			 0);
	ibmr = accel_rdma_mr_get_ibv_mr(mr);
	assert_non_null(ibmr);
	assert_int_equal(ibmr->length, 1 << 20);
	assert_ptr_equal(accel_rdma_mr_get_buffer(mr), buf);
	path = accel_rdma_mr_get_path(mr);
	printf("# %s: path %s, dma-buf attempt: %s\n",
	       ibv_get_device_name(r->ibv->device),
	       path == ACCEL_RDMA_PATH_DMABUF ? "dma-buf" : "host",
	       strerror(-accel_rdma_mr_get_dmabuf_error(mr)));
	if (path == ACCEL_RDMA_PATH_HOST) {
		/* Attempted and refused as unsupported, not skipped. */
		assert_int_equal(accel_rdma_mr_get_dmabuf_error(mr),
				 -EOPNOTSUPP);
		assert_non_null(ibmr->addr);
	} else {
		assert_int_equal(path, ACCEL_RDMA_PATH_DMABUF);
		assert_int_equal(accel_rdma_mr_get_dmabuf_error(mr), 0);
	}
	/* The MR keeps the buffer alive after the caller lets go. */
	accel_buffer_unref(buf);
	assert_ptr_equal(accel_rdma_mr_get_buffer(mr), buf);
	assert_int_equal(accel_buffer_get_size(buf), 1 << 20);
	assert_int_equal(accel_rdma_mr_release(mr), 0);
}

static void test_register_forced_paths(void **state)
{
	struct rdma_env *r = *state;
	struct accel_buffer *buf;
	struct accel_rdma_mr *mr = TEST_SENTINEL_PTR;
	int dmabuf;

	need_pd(r);
	buf = test_buffer_new(r->env, 65536);

	assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW,
			ACCEL_RDMA_HOST_ONLY, &mr), 0);
	assert_int_equal(accel_rdma_mr_get_path(mr), ACCEL_RDMA_PATH_HOST);
	assert_int_equal(accel_rdma_mr_get_dmabuf_error(mr), -ECANCELED);
	assert_int_equal(accel_rdma_mr_release(mr), 0);

	/* Only dma-buf: succeeds where the provider can, else no fallback. */
	mr = TEST_SENTINEL_PTR;
	dmabuf = accel_buffer_register_rdma(buf, r->pd, RW,
					    ACCEL_RDMA_DMABUF_ONLY, &mr);
	if (dmabuf == 0) {
		assert_int_equal(accel_rdma_mr_get_path(mr),
				 ACCEL_RDMA_PATH_DMABUF);
		assert_int_equal(accel_rdma_mr_release(mr), 0);
	} else {
		assert_int_equal(dmabuf, -EOPNOTSUPP);
		assert_ptr_equal(mr, TEST_SENTINEL_PTR);
	}
	accel_buffer_unref(buf);
}

/* A sub-buffer registers its own range, at its own address. */
static void test_register_sub_buffer(void **state)
{
	struct rdma_env *r = *state;
	struct accel_buffer *buf, *sub;
	struct accel_rdma_mr *mr;
	uint8_t *p;
	void *map;

	need_pd(r);
	buf = test_buffer_new(r->env, 3 * 4096);
	assert_int_equal(accel_buffer_new_sub(buf, 4096 + 128, 1000, 0, &sub),
			 0);
	assert_int_equal(accel_buffer_register_rdma(sub, r->pd, RW, 0, &mr),
			 0);
	assert_int_equal(accel_rdma_mr_get_ibv_mr(mr)->length, 1000);
	if (accel_rdma_mr_get_path(mr) == ACCEL_RDMA_PATH_HOST) {
		assert_int_equal(accel_buffer_map(buf, 0, 3 * 4096,
						  ACCEL_MAP_READ, &map), 0);
		p = map;
		assert_ptr_equal(accel_rdma_mr_get_ibv_mr(mr)->addr,
				 p + 4096 + 128);
		assert_int_equal(accel_buffer_unmap(buf, map), 0);
	}
	assert_int_equal(accel_rdma_mr_release(mr), 0);
	accel_buffer_unref(sub);
	accel_buffer_unref(buf);
}

/*
 * Nothing the NIC can reach: no dma-buf (a user-pointer buffer cannot
 * export one) and a host mapping the buffer's flags forbid.
 */
static void test_register_unreachable(void **state)
{
	struct rdma_env *r = *state;
	struct accel_rdma_mr *mr = TEST_SENTINEL_PTR;
	struct accel_buffer *buf;
	static uint8_t mem[8192] __attribute__((aligned(4096)));

	need_pd(r);
	assert_int_equal(accel_buffer_new_user_ptr(r->env->dev, mem,
			sizeof(mem), ACCEL_BUFFER_HOST_NO_ACCESS, &buf), 0);
	assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW, 0, &mr),
			 -EACCES);
	assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW,
			ACCEL_RDMA_DMABUF_ONLY, &mr), -EOPNOTSUPP);
	assert_ptr_equal(mr, TEST_SENTINEL_PTR);
	accel_buffer_unref(buf);

	/* Read-only host access: fine for remote reads, not remote writes. */
	assert_int_equal(accel_buffer_new_user_ptr(r->env->dev, mem,
			sizeof(mem), ACCEL_BUFFER_HOST_READ_ONLY, &buf), 0);
	assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW, 0, &mr),
			 -EACCES);
	assert_int_equal(accel_buffer_register_rdma(buf, r->pd,
			IBV_ACCESS_REMOTE_READ, 0, &mr), 0);
	assert_int_equal(accel_rdma_mr_get_path(mr), ACCEL_RDMA_PATH_HOST);
	assert_int_equal(accel_rdma_mr_release(mr), 0);
	accel_buffer_unref(buf);
}

/* No MR, mapping or fd outlives its release (the group checks fds). */
static void test_register_cycles(void **state)
{
	struct rdma_env *r = *state;
	struct accel_buffer *buf;
	struct accel_rdma_mr *mr;
	int fds, i;

	need_pd(r);
	buf = test_buffer_new(r->env, 1 << 16);
	/* The first export leaves the buffer holding its dma-buf: count after. */
	assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW, 0, &mr), 0);
	assert_int_equal(accel_rdma_mr_release(mr), 0);
	fds = test_count_fds();
	for (i = 0; i < 1000; i++) {
		assert_int_equal(accel_buffer_register_rdma(buf, r->pd, RW, 0,
							    &mr), 0);
		assert_int_equal(accel_rdma_mr_release(mr), 0);
	}
	assert_int_equal(test_count_fds(), fds);
	accel_buffer_unref(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_register_fallback, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_register_forced_paths,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_sub_buffer,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_unreachable,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_cycles, setup,
						teardown),
	};

	return TEST_RUN_GROUP("rdma", tests);
}
