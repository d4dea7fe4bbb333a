/* SPDX-License-Identifier: MIT */
/*
 * The UCX side of examples/ucx-put.c: a UCP context and worker for RMA,
 * requests waited for by progressing the worker, and host memory
 * registered for puts.
 */
#ifndef UCX_NET_H
#define UCX_NET_H

#include <stddef.h>

#include <ucp/api/ucp.h>

struct net {
	const char *role;   /* prefix of the error messages */
	ucp_context_h ucp;
	ucp_worker_h worker;
	ucp_ep_h ep;
};

/* Say that @what failed with @st, as @nt's role; -EIO. */
int net_fail(const struct net *nt, const char *what, ucs_status_t st);

/* A context with RMA and a single-threaded worker; 0 or a negative errno. */
int net_open(struct net *nt);
void net_close(struct net *nt);

/* Progress until @req completes; NULL is an operation done at once. */
int net_req_wait(struct net *nt, const char *what, ucs_status_ptr_t req);

/* Host memory at @addr registered for RMA: the libaccel mapping. */
int net_mem_map(struct net *nt, void *addr, size_t len, ucp_mem_h *ret);

#endif
