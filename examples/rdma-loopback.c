/* SPDX-License-Identifier: MIT */
/*
 * rdma-loopback: the RDMA examples' two connected queue pairs (see
 * rdma-loopback.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdma-loopback.h"

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
					   IBV_QP_SQ_PSN |
					   IBV_QP_MAX_QP_RD_ATOMIC))
		return -errno;
	return 0;
}

int rdma_open(struct rdma *r)
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

void rdma_close(struct rdma *r)
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
	memset(r, 0, sizeof(*r));
}

int rdma_op(struct rdma *r, enum ibv_wr_opcode op, struct ibv_mr *local,
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

	/* ibv_post_send() returns the errno itself. */
	n = ibv_post_send(r->a, &wr, &bad);
	if (n)
		return n > 0 ? -n : -EIO;
	while ((n = ibv_poll_cq(r->cq, 1, &wc)) == 0)
		;
	if (n < 0)
		return -EIO;
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: work completion: %s\n",
			program_invocation_short_name,
			ibv_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

void rdma_print_path(const char *prog, const char *name,
		     struct accel_rdma_mr *mr)
{
	int why = accel_rdma_mr_get_dmabuf_error(mr);

	printf("%s: %s registered by %s (dma-buf: %s)\n", prog, name,
	       accel_rdma_mr_get_path(mr) == ACCEL_RDMA_PATH_DMABUF ?
		       "dma-buf" : "host mapping",
	       why ? strerror(-why) : "used");
}
