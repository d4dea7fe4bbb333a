/* SPDX-License-Identifier: MIT */
/*
 * The UCX side of examples/ucx-put.c (ucx-net.h).
 */
#include <errno.h>
#include <stdio.h>

#include "ucx-net.h"

int net_fail(const struct net *nt, const char *what, ucs_status_t st)
{
	fprintf(stderr, "%s: %s: %s\n", nt->role, what, ucs_status_string(st));
	return -EIO;
}

int net_open(struct net *nt)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_RMA,
	};
	ucp_worker_params_t wparams = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = UCS_THREAD_MODE_SINGLE,
	};
	ucp_config_t *config;
	ucs_status_t st;

	st = ucp_config_read(NULL, NULL, &config);
	if (st != UCS_OK)
		return net_fail(nt, "ucp_config_read", st);
	st = ucp_init(&params, config, &nt->ucp);
	ucp_config_release(config);
	if (st != UCS_OK)
		return net_fail(nt, "ucp_init", st);
	st = ucp_worker_create(nt->ucp, &wparams, &nt->worker);
	if (st != UCS_OK)
		return net_fail(nt, "ucp_worker_create", st);
	return 0;
}

void net_close(struct net *nt)
{
	if (nt->worker)
		ucp_worker_destroy(nt->worker);
	if (nt->ucp)
		ucp_cleanup(nt->ucp);
}

int net_req_wait(struct net *nt, const char *what, ucs_status_ptr_t req)
{
	ucs_status_t st;

	if (req == NULL)
		return 0;
	if (UCS_PTR_IS_ERR(req))
		return net_fail(nt, what, UCS_PTR_STATUS(req));
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
		ucp_worker_progress(nt->worker);
	ucp_request_free(req);
	return st == UCS_OK ? 0 : net_fail(nt, what, st);
}

int net_mem_map(struct net *nt, void *addr, size_t len, ucp_mem_h *ret)
{
	ucp_mem_map_params_t p = {
		.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
			      UCP_MEM_MAP_PARAM_FIELD_LENGTH |
			      UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE,
		.address = addr,
		.length = len,
		.memory_type = UCS_MEMORY_TYPE_HOST,
	};
	ucs_status_t st = ucp_mem_map(nt->ucp, &p, ret);

	return st == UCS_OK ? 0 : net_fail(nt, "ucp_mem_map", st);
}
