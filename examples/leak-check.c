/* SPDX-License-Identifier: MIT */
/* Open fds and RDMA memory regions, for leak checks (leak-check.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "leak-check.h"

int leak_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	/* The directory's own fd counts every time: it cancels out. */
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int leak_count_fds_settled(int want, unsigned ms)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	int n = leak_count_fds();

	for (unsigned waited = 0; n > want && waited < ms; waited += 10) {
		nanosleep(&tick, NULL);
		n = leak_count_fds();
	}
	return n;
}

void leak_print_fds(const char *who)
{
	DIR *d = opendir("/proc/self/fd");
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *e;
	ssize_t n;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		fprintf(stderr, "%s: fd %s -> %s\n", who, e->d_name, target);
	}
	closedir(d);
}

/* Walks the attributes in [@first, @first + @len). */
#define for_each_nla(a, first, len)                                          \
	for (const struct nlattr *a = (first); (len) >= NLA_HDRLEN &&         \
	     a->nla_len >= NLA_HDRLEN && a->nla_len <= (len);                 \
	     (len) -= NLA_ALIGN(a->nla_len),                                  \
	     a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len)))

static const void *nla_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

/* The "mr" entry of one device's resource summary (nested tables). */
static int64_t summary_mrs(const struct nlattr *summary)
{
	int elen = summary->nla_len - NLA_HDRLEN;
	int64_t total = 0;

	for_each_nla(e, nla_data(summary), elen) {
		int alen = e->nla_len - NLA_HDRLEN;
		const char *name = NULL;
		uint64_t curr = 0;

		for_each_nla(a, nla_data(e), alen) {
			if (a->nla_type ==
			    RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME)
				name = nla_data(a);
			else if (a->nla_type ==
				 RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR)
				memcpy(&curr, nla_data(a), sizeof(curr));
		}
		if (name && strcmp(name, "mr") == 0)
			total += (int64_t)curr;
	}
	return total;
}

/* One dump message: a device, its summary among its attributes. */
static int64_t message_mrs(const struct nlmsghdr *h)
{
	int alen = (int)NLMSG_PAYLOAD(h, 0);
	int64_t total = 0;

	for_each_nla(a, NLMSG_DATA(h), alen)
		if ((a->nla_type & NLA_TYPE_MASK) ==
		    RDMA_NLDEV_ATTR_RES_SUMMARY)
			total += summary_mrs(a);
	return total;
}

int64_t leak_count_rdma_mrs(void)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					       RDMA_NLDEV_CMD_RES_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nlmsg_seq = 1,
	};
	static __thread char buf[16384] __attribute__((aligned(4)));
	int64_t total = 0;
	bool done = false;
	int fd, r = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, req.nlmsg_len, 0) < 0)
		r = -errno;
	while (r == 0 && !done) {
		int len = (int)recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const void *)buf;

		if (len < 0) {
			r = -errno;
			break;
		}
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				r = e->error ? e->error : -EIO;
				break;
			}
			total += message_mrs(h);
		}
	}
	close(fd);
	return r < 0 ? r : total;
}
