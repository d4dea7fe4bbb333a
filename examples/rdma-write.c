/* SPDX-License-Identifier: MIT */
/*
 * rdma-write: libaccel buffers as the source and target of RDMA, with no
 * copy by the host.
 *
 * Two reliable-connected queue pairs on one RDMA device, connected to each
 * other (loopback), stand for two nodes:
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

/* ---- verbs: two RC queue pairs connected to each other ----------------- */

struct rdma {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
};

/* The first non-zero GID of port 1 (rxe: the netdev's link-local one). */
static int find_gid(struct rdma *r)
{
	static const union ibv_gid zero;
	int i;

	for (i = 0; i < r->port.gid_tbl_len; i++) {
		if (ibv_query_gid(r->ibv, 1, i, &r->gid))
			continue;
		if (memcmp(&r->gid, &zero, sizeof(zero))) {
			r->gid_index = i;
			return 0;
		}
	}
	return -ENODEV;
}

static struct ibv_qp *qp_new(struct rdma *r)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(r->pd, &attr);
}

/* RESET -> INIT -> RTR -> RTS, aimed at @remote on the same port. */
static int qp_connect(struct rdma *r, struct ibv_qp *qp, uint32_t remote)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -errno;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = r->port.active_mtu,
		.dest_qp_num = remote,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = r->gid, .hop_limit = 1,
				      .sgid_index = (uint8_t)r->gid_index } },
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER))
		return -errno;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
					   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return -errno;
	return 0;
}

static int rdma_open(struct rdma *r)
{
	struct ibv_device **list;
	int n = 0, err;

	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	r->ibv = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!r->ibv)
		return -errno;
	if (ibv_query_port(r->ibv, 1, &r->port))
		return -errno;
	err = find_gid(r);
	if (err < 0)
		return err;
	r->pd = ibv_alloc_pd(r->ibv);
	r->cq = r->pd ? ibv_create_cq(r->ibv, 8, NULL, NULL, 0) : NULL;
	if (!r->cq)
		return -errno;
	r->a = qp_new(r);
	r->b = r->a ? qp_new(r) : NULL;
	if (!r->b)
		return -errno;
	err = qp_connect(r, r->a, r->b->qp_num);
	return err ? err : qp_connect(r, r->b, r->a->qp_num);
}

static void rdma_close(struct rdma *r)
{
	if (r->b)
		ibv_destroy_qp(r->b);
	if (r->a)
		ibv_destroy_qp(r->a);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ibv)
		ibv_close_device(r->ibv);
}

/* One signalled RDMA operation from QP a, waited for on the CQ. */
static int rdma_op(struct rdma *r, enum ibv_wr_opcode op, struct ibv_mr *local,
		   struct ibv_mr *remote, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local->addr,
		.length = len,
		.lkey = local->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)remote->addr,
			     .rkey = remote->rkey },
	}, *bad;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(r->a, &wr, &bad))
		return -errno;
	while ((n = ibv_poll_cq(r->cq, 1, &wc)) == 0)
		;
	if (n < 0)
		return -EIO;
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rdma-write: %s\n",
			ibv_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

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

static int find_cpu(struct accel_context *ctx, struct accel_device **ret)
{
	struct accel_device *devs[16];
	int n, i, found = -ENODEV;
	uint64_t type;

	n = accel_context_get_devices(ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		if (found < 0 &&
		    accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU) {
			*ret = devs[i];
			found = 0;
			continue;
		}
		accel_device_unref(devs[i]);
	}
	return n < 0 ? n : found;
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
	if (r == 0)
		r = find_cpu(p->ctx, &p->dev);
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
		printf("rdma-write: %-6s registered by %s (dma-buf: %s)\n",
		       names[k],
		       accel_rdma_mr_get_path(p->mr[k]) ==
				       ACCEL_RDMA_PATH_DMABUF ?
			       "dma-buf" :
			       "host mapping",
		       accel_rdma_mr_get_dmabuf_error(p->mr[k]) ?
			       strerror(-accel_rdma_mr_get_dmabuf_error(
				       p->mr[k])) :
			       "used");
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
