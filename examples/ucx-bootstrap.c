/* SPDX-License-Identifier: MIT */
/*
 * The bootstrap channel of examples/ucx-put.c (ucx-bootstrap.h).
 */
/* accept4() */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ucx-bootstrap.h"

struct msg_hdr {
	uint32_t type;
	uint32_t len;
};

double boot_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_full(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t w = send(fd, c, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EPIPE;
		c += w;
		len -= (size_t)w;
	}
	return 0;
}

static int read_full(int fd, void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t r = recv(fd, c, len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ECONNRESET;
		c += r;
		len -= (size_t)r;
	}
	return 0;
}

int boot_send(int fd, uint32_t type, const void *a, uint32_t alen,
	      const void *b, uint32_t blen)
{
	struct msg_hdr h = { .type = type, .len = alen + blen };
	int r = write_full(fd, &h, sizeof(h));

	if (r == 0 && alen)
		r = write_full(fd, a, alen);
	if (r == 0 && blen)
		r = write_full(fd, b, blen);
	return r;
}

int boot_recv(int fd, ucp_worker_h worker, uint32_t type, void **ret,
	      uint32_t *ret_len)
{
	double deadline = boot_now() + UCX_PUT_TIMEOUT_S;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct msg_hdr h;
	void *p = NULL;
	int r;

	for (;;) {
		while (worker && ucp_worker_progress(worker))
			;
		r = poll(&pfd, 1, 1);
		if (r > 0)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (boot_now() > deadline)
			return -ETIMEDOUT;
	}
	r = read_full(fd, &h, sizeof(h));
	if (r < 0)
		return r;
	if (h.type != type || h.len > (1u << 20))
		return -EPROTO;
	if (h.len) {
		p = malloc(h.len);
		if (!p)
			return -ENOMEM;
		r = read_full(fd, p, h.len);
		if (r < 0) {
			free(p);
			return r;
		}
	}
	if (ret)
		*ret = p;
	else
		free(p);
	if (ret_len)
		*ret_len = h.len;
	return 0;
}

int boot_listen(int port, int *ret_port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(port ? INADDR_ANY : INADDR_LOOPBACK),
	};
	socklen_t alen = sizeof(a);
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (ret_port)
		*ret_port = ntohs(a.sin_port);
	return fd;
}

int boot_accept(int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int fd, one = 1, r;

	r = poll(&pfd, 1, UCX_PUT_TIMEOUT_S * 1000);
	if (r <= 0)
		return r < 0 ? -errno : -ETIMEDOUT;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int boot_connect(const char *role, const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	double deadline = boot_now() + UCX_PUT_TIMEOUT_S;
	int fd = -1, one = 1, r;

	r = getaddrinfo(host, port, &hints, &ai);
	if (r != 0) {
		fprintf(stderr, "%s: %s: %s\n", role, host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			r = -errno;
			break;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			r = fd;
			break;
		}
		r = -errno;
		close(fd);
		if (boot_now() > deadline)
			break;
		usleep(100000);
	}
	freeaddrinfo(ai);
	return r;
}
