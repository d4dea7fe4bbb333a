/* SPDX-License-Identifier: MIT */
/*
 * rdma-write: libaccel buffers as the source and target of RDMA, with no
 * copy by the host.
 *
 * Two reliable-connected queue pairs on one RDMA device, connected to each
 * other (loopback, rdma-loopback.c), stand for two nodes:
 *   1. a libaccel kernel makes the payload in buffer `src` ("remote" node);
 *   2. QP a RDMA-WRITEs `src` into `dst`, a libaccel buffer registered
 *      with accel_buffer_register_rdma() ("local" node's receive buffer);
 *   3. a libaccel kernel consumes it: out[i] = 3 * dst[i] + 1;
 *   4. QP a RDMA-READs `out` into `result`;
 *   5. the host checks `result` (the only time it touches the data).
 * Every buffer is registered through libaccel-rdma, which tries the
 * dma-buf path first and falls back to the host mapping (soft-RoCE has no
 * dma-buf MRs); the path taken is printed.
 *
 * Usage: rdma-write [N]   (N uint32 elements, default 262144)
 * Exit status: 0 if verified, 77 without an RDMA device, 1 on error.
 * The kernel test tier runs it on rxe0 (kernel-rdma).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <libaccel/libaccel.h>
#include <libaccel/accel-rdma.h>

#include "find-device.h"
#include "rdma-loopback.h"

/* ---- the kernels: native work-group functions (accel-wg.h) ------------- */

static uint64_t group_first(const struct accel_wg_ctx *ctx)
{
	return ctx->global_offset[0] +
	       ctx->group_id[0] * ctx->enqueued_local_size[0];
}

/* kernel void iota(global uint *dst) { dst[i] = i * 2654435761u; } */
static void iota_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *dst = *(uint32_t *const *)args[0];
	uint64_t i, first = group_first(ctx);

	for (i = first; i < first + ctx->local_size[0]; i++)
		dst[i] = (uint32_t)i * 2654435761u;
}

/* kernel void axpb(global uint *out, global const uint *in) */
static void axpb_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *out = *(uint32_t *const *)args[0];
	const uint32_t *in = *(const uint32_t *const *)args[1];
	uint64_t i, first = group_first(ctx);

	for (i = first; i < first + ctx->local_size[0]; i++)
		out[i] = 3 * in[i] + 1;
}

#define BUF_ARG(n, q)                                                        \
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),               \
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),           \
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,                     \
	  .type_qualifiers = (q), .name = (n), .type_name = "uint*" }

static const struct accel_kernel_arg_desc iota_args[] = { BUF_ARG("dst", 0) };
static const struct accel_kernel_arg_desc axpb_args[] = {
	BUF_ARG("out", 0),
	BUF_ARG("in", ACCEL_KERNEL_ARG_TYPE_CONST),
};

static const struct accel_native_kernel_desc kernels[] = {
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "iota", .fn = iota_wg, .n_args = 1, .args = iota_args },
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "axpb", .fn = axpb_wg, .n_args = 2, .args = axpb_args },
};

/* ---- the pipeline -------------------------------------------------------- */

enum { SRC, DST, OUT, RESULT, N_BUFS };

struct pipeline {
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_queue *queue;
	struct accel_program *prog;
	struct accel_buffer *buf[N_BUFS];
	struct accel_rdma_mr *mr[N_BUFS];
};

static int fail(const char *what, int err)
{
	fprintf(stderr, "rdma-write: %s: %s\n", what, strerror(-err));
	return err;
}

/* Launch kernel @name over @n items with buffer arguments @a (and @b). */
static int launch(struct pipeline *p, const char *name, uint64_t n,
		  struct accel_buffer *a, struct accel_buffer *b)
{
	const struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 1,
		.global_size = { n, 1, 1 },
	};
	struct accel_kernel *k;
	int r;

	r = accel_kernel_new(p->prog, name, &k);
	if (r < 0)
		return r;
	r = accel_kernel_set_arg_buffer(k, 0, a);
	if (r == 0 && b)
		r = accel_kernel_set_arg_buffer(k, 1, b);
	if (r == 0)
		r = accel_queue_launch(p->queue, k, &range, 0, NULL, NULL);
	if (r == 0)
		r = accel_queue_finish(p->queue);
	accel_kernel_unref(k);
	return r;
}

static int run(struct pipeline *p, struct rdma *net, uint64_t n)
{
	static const char *const names[N_BUFS] = { "src", "dst", "out",
						   "result" };
	const unsigned int access = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
	uint32_t bytes = (uint32_t)(n * sizeof(uint32_t));
	const uint32_t *res;
	uint64_t i, bad = 0;
	void *map;
	int r, k;

	r = accel_context_new(0, &p->ctx);
	if (r == 0) {
		p->dev = find_device(p->ctx, ACCEL_DEVICE_TYPE_CPU);
		r = p->dev ? 0 : -ENODEV;
	}
	if (r == 0)
		r = accel_queue_new(p->dev, 0, &p->queue);
	if (r == 0)
		r = accel_program_new_native(p->dev, kernels, 2, &p->prog);
	if (r < 0)
		return fail("libaccel set-up", r);
	for (k = 0; k < N_BUFS; k++) {
		r = accel_buffer_new(p->dev, bytes, 0, &p->buf[k]);
		if (r < 0)
			return fail("accel_buffer_new", r);
		r = accel_buffer_register_rdma(p->buf[k], net->pd, access, 0,
					       &p->mr[k]);
		if (r < 0)
			return fail("accel_buffer_register_rdma", r);
		rdma_print_path("rdma-write", names[k], p->mr[k]);
	}

	r = launch(p, "iota", n, p->buf[SRC], NULL);
	if (r < 0)
		return fail("kernel iota", r);
	r = rdma_op(net, IBV_WR_RDMA_WRITE, accel_rdma_mr_get_ibv_mr(p->mr[SRC]),
		    accel_rdma_mr_get_ibv_mr(p->mr[DST]), bytes);
	if (r < 0)
		return fail("RDMA WRITE", r);
	r = launch(p, "axpb", n, p->buf[OUT], p->buf[DST]);
	if (r < 0)
		return fail("kernel axpb", r);
	r = rdma_op(net, IBV_WR_RDMA_READ,
		    accel_rdma_mr_get_ibv_mr(p->mr[RESULT]),
		    accel_rdma_mr_get_ibv_mr(p->mr[OUT]), bytes);
	if (r < 0)
		return fail("RDMA READ", r);

	r = accel_buffer_map(p->buf[RESULT], 0, bytes, ACCEL_MAP_READ, &map);
	if (r < 0)
		return fail("accel_buffer_map", r);
	res = map;
	for (i = 0; i < n; i++)
		if (res[i] != 3 * ((uint32_t)i * 2654435761u) + 1)
			bad++;
	accel_buffer_unmap(p->buf[RESULT], map);
	printf("rdma-write: %" PRIu64 " elements over %s: %s\n", n,
	       ibv_get_device_name(net->ibv->device),
	       bad ? "MISMATCH" : "verified");
	return bad ? -EIO : 0;
}

int main(int argc, char **argv)
{
	struct pipeline p = { 0 };
	struct rdma net = { 0 };
	uint64_t n = 262144;
	int r, k;

	if (argc > 1) {
		n = strtoull(argv[1], NULL, 0);
		if (n == 0 || n > (1u << 28)) {
			fprintf(stderr, "usage: %s [N (1..2^28)]\n", argv[0]);
			return 2;
		}
	}
	r = rdma_open(&net);
	if (r == -ENODEV) {
		printf("rdma-write: no RDMA device (try the kernel tier's "
		       "rxe0): skipped\n");
		rdma_close(&net);
		return 77;
	}
	if (r < 0)
		fail("RDMA set-up", r);
	else
		r = run(&p, &net, n);

	for (k = 0; k < N_BUFS; k++) {
		if (p.mr[k])
			accel_rdma_mr_release(p.mr[k]);
		accel_buffer_unref(p.buf[k]);
	}
	accel_program_unref(p.prog);
	accel_queue_unref(p.queue);
	accel_device_unref(p.dev);
	accel_context_unref(p.ctx);
	rdma_close(&net);
	return r < 0 ? 1 : 0;
}
