/* SPDX-License-Identifier: MIT */
/*
 * What the scale-out examples count to show that rounds of registration
 * leave nothing behind: this process's open fds, and the memory regions
 * of the machine's RDMA devices.
 */
#ifndef EXAMPLES_LEAK_CHECK_H
#define EXAMPLES_LEAK_CHECK_H

#include <stdint.h>

/** Open fds of this process, or -errno. */
int leak_count_fds(void);

/**
 * Open fds once they are no more than @want, or what is open after @ms
 * milliseconds: an fd whose work has completed may still be closed a
 * moment later by another thread (a queue's thread drops a finished
 * command's buffers, each perhaps a memfd, just after its fence signals),
 * in the count @want came from as in this one.
 */
int leak_count_fds_settled(int want, unsigned ms);

/** Lists this process's open fds and what each is, to stderr, after @who. */
void leak_print_fds(const char *who);

/**
 * Memory regions registered on all RDMA devices by all processes (what
 * `rdma resource show` lists as "mr"), asked over rdma netlink; -errno
 * when the kernel has no RDMA subsystem (-EPROTONOSUPPORT).
 */
int64_t leak_count_rdma_mrs(void);

#endif
