/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int bench_cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

void bench_print_machine(const char *when)
{
	char load[128] = "?";
	FILE *f = fopen("/proc/loadavg", "re");

	if (f) {
		if (fgets(load, sizeof(load), f))
			load[strcspn(load, "\n")] = '\0';
		fclose(f);
	}
	printf("machine (%s): %ld CPUs online, loadavg %s%s\n", when,
	       sysconf(_SC_NPROCESSORS_ONLN), load,
	       getenv("ACCEL_KERNEL_VM") ? " (in the test VM: TCG, slow)" :
					   "");
}

int bench_find_cpu_device(struct accel_context *ctx, struct accel_device **ret)
{
	struct accel_device *devs[16], *cpu = NULL;
	int n, i;

	n = accel_context_get_devices(ctx, devs, 16);
	if (n < 0)
		return n;
	if (n > 16)
		n = 16;
	for (i = 0; i < n; i++) {
		uint64_t type;

		if (!cpu &&
		    accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU)
			cpu = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!cpu)
		return -ENODEV;
	*ret = cpu;
	return 0;
}

unsigned bench_parse_count(const char *prog, const char *s, const char *what,
			   unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max) {
		fprintf(stderr, "%s: bad %s '%s'\n", prog, what, s);
		exit(2);
	}
	return (unsigned)v;
}

void *bench_xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

double bench_next_val(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / (double)(1ull << 52) - 1.0;
}
