/* SPDX-License-Identifier: MIT */
/*
 * File descriptors must not pile up across inputs: every 1024 inputs the
 * count of open fds is compared with the one after the first input, and
 * a growth of more than 16 aborts the fuzzer.
 */
#ifndef ACCEL_FUZZ_FDS_H
#define ACCEL_FUZZ_FDS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

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
	} else if (n > base + 16) {
		fprintf(stderr, "%s: %d fds open, %d after the first input: "
			"a leak\n", name, n, base);
		abort();
	}
}

#endif
