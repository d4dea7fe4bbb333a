/* SPDX-License-Identifier: MIT */
/*
 * The bootstrap channel of examples/ucx-put.c: a TCP socket between the
 * two sides carries worker addresses, rkeys and the steps of each round,
 * as typed messages (a header of type and length, then the payload).
 */
#ifndef UCX_BOOTSTRAP_H
#define UCX_BOOTSTRAP_H

#include <stdint.h>

#include <ucp/api/ucp.h>

/* How long either side waits for the other, at any step. */
#define UCX_PUT_TIMEOUT_S 60

/* CLOCK_MONOTONIC in seconds. */
double boot_now(void);

/*
 * A listening socket on @port, or with port 0 on any free port of the
 * loopback (*@ret_port); the fd or a negative errno.
 */
int boot_listen(int port, int *ret_port);
/* The first connection within the timeout: its fd or a negative errno. */
int boot_accept(int lfd);
/* Connect to HOST:PORT, retrying while the receiver starts (@role prefixes
 * a name lookup failure); the fd or a negative errno. */
int boot_connect(const char *role, const char *host, const char *port);

/* Send a message of @type whose payload is @a then @b. */
int boot_send(int fd, uint32_t type, const void *a, uint32_t alen,
	      const void *b, uint32_t blen);
/*
 * Wait for a message of @type, progressing @worker (may be NULL)
 * meanwhile: the peer's operations may need this side's worker
 * (acknowledgements on UD, emulated RMA on TCP). The payload is
 * malloc()ed into *@ret (free it); -EPROTO for another type.
 */
int boot_recv(int fd, ucp_worker_h worker, uint32_t type, void **ret,
	      uint32_t *ret_len);

#endif
