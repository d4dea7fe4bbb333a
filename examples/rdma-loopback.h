/* SPDX-License-Identifier: MIT */
/*
 * rdma-loopback: two reliable-connected queue pairs on one RDMA device,
 * connected to each other, standing for two nodes in the RDMA examples.
 * QP a posts; QP b is the peer whose memory it reaches.
 */
#ifndef RDMA_LOOPBACK_H
#define RDMA_LOOPBACK_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include <libaccel/accel-rdma.h>

struct rdma {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
};

/*
 * Open the first RDMA device and connect the two QPs on its port 1.
 * 0; -ENODEV without an RDMA device (or without a GID on it), else
 * -errno. Call rdma_close() whatever it returned.
 */
int rdma_open(struct rdma *r);
/* Destroy whatever rdma_open() made. */
void rdma_close(struct rdma *r);

/*
 * One signalled RDMA @op (IBV_WR_RDMA_WRITE: @local into @remote;
 * IBV_WR_RDMA_READ: @remote into @local) of @len bytes from the start of
 * both MRs, posted on QP a and waited for on the CQ. 0, -errno of the
 * post, or -EIO on a failed completion (its status printed).
 */
int rdma_op(struct rdma *r, enum ibv_wr_opcode op, struct ibv_mr *local,
	    struct ibv_mr *remote, uint32_t len);

/*
 * Print "<prog>: <name> registered by <path> (dma-buf: <why not>)": which
 * of libaccel-rdma's paths a registration took.
 */
void rdma_print_path(const char *prog, const char *name,
		     struct accel_rdma_mr *mr);

#endif
