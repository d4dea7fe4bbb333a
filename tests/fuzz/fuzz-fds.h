/* SPDX-License-Identifier: MIT */
/*
 * File descriptors must not pile up across inputs: every 1024 inputs the
 * count of open fds is compared with the one after the first input, and
 * a growth of more than 16 aborts the fuzzer. A queue released without
 * a finish goes on with its work, and a finished command drops its
 * buffers (each a memfd) on the queue's thread just after its fence
 * signals: such fds close by themselves, so the count is given a few
 * seconds to come back down before it counts as a leak.
 */
#ifndef ACCEL_FUZZ_FDS_H
#define ACCEL_FUZZ_FDS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int fz_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* What each open fd is, for the report of a leak. */
static void fz_print_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[64], target[256];
	ssize_t len;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len < 0 ? 0 : len] = '\0';
		fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
	}
	closedir(d);
}

/* @name: the fuzzer, for the message */
static void fz_check_fds(const char *name)
{
	static unsigned long runs;
	static int base = -1;
	int n;

	if (runs++ % 1024)
		return;
	n = fz_count_fds();
	if (base < 0) {
		base = n;
		return;
	}
	/* up to 5 s for work still running to let go of its buffers */
	for (int i = 0; i < 500 && n > base + 16; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		n = fz_count_fds();
	}
	if (n > base + 16) {
		fprintf(stderr, "%s: %d fds open, %d after the first input: "
			"a leak\n", name, n, base);
		fz_print_fds();
		abort();
	}
}

#endif
