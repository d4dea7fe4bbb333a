/* SPDX-License-Identifier: MIT */
/*
 * Enumeration cost: a new context, its device list and its candidates
 * (every accel node and DRM card/render node discovery saw, with their
 * diagnoses), then the context's release; median and spread per round and
 * per candidate.
 *
 *   enumerate [-n ROUNDS] [-f N]
 *
 * -f N builds a umockdev testbed of N PCI accelerators, each with an
 * accel node (run it under umockdev-wrapper), so the per-device cost can be read at a scale no machine here has. Without
 * it the machine's own devices are enumerated (run it in the kernel tier to
 * see vgem and refaccel).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"

#ifdef BENCH_HAVE_UMOCKDEV
#include <umockdev.h>

static bool umockdev_preloaded(void)
{
	void *h = dlopen("libumockdev-preload.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (!h)
		return false;
	dlclose(h);
	return true;
}

/* N PCI accelerators "0000:NN:00.0", each bound to a driver, with accelN. */
static UMockdevTestbed *fake_testbed(unsigned n)
{
	UMockdevTestbed *tb = umockdev_testbed_new();
	char *root = umockdev_testbed_get_root_dir(tb);
	unsigned i;

	for (i = 0; i < n; i++) {
		char slot[32], name[32], devname[64], minor[16], dev[32];
		char *pci, *node, *file, *dir;

		snprintf(slot, sizeof(slot), "0000:%02x:%02x.0", 1 + i / 32,
			 i % 32);
		snprintf(name, sizeof(name), "accel%u", i);
		snprintf(devname, sizeof(devname), "/dev/accel/accel%u", i);
		snprintf(minor, sizeof(minor), "%u", i);
		snprintf(dev, sizeof(dev), "261:%u", i);
		pci = umockdev_testbed_add_device(tb, "pci", slot, NULL,
			"vendor", "0x8086", "device", "0x7d1d",
			"numa_node", "0", NULL, "PCI_SLOT_NAME", slot, NULL);
		if (!pci)
			goto fail;
		umockdev_testbed_set_attribute_link(tb, pci, "driver",
			"../../bus/pci/drivers/intel_vpu");
		node = umockdev_testbed_add_device(tb, "accel", name, pci,
			"dev", dev, NULL, "DEVNAME", devname,
			"MAJOR", "261", "MINOR", minor, NULL);
		g_free(pci);
		if (!node)
			goto fail;
		g_free(node);
		/* The node: an empty file the preload redirects opens to. */
		file = g_build_filename(root, devname, NULL);
		dir = g_path_get_dirname(file);
		if (g_mkdir_with_parents(dir, 0755) < 0 ||
		    !g_file_set_contents(file, "", 0, NULL)) {
			g_free(dir);
			g_free(file);
			goto fail;
		}
		g_free(dir);
		g_free(file);
	}
	g_free(root);
	return tb;
fail:
	g_free(root);
	g_object_unref(tb);
	return NULL;
}
#endif

/* One round: context, devices, candidates, release. */
static int round_once(uint64_t *ns, int *devices, int *candidates)
{
	struct accel_context *ctx;
	uint64_t t0 = bench_now_ns();
	int n, c;

	if (accel_context_new(0, &ctx) < 0)
		return -1;
	n = accel_context_get_devices(ctx, NULL, 0);
	c = accel_context_get_candidate_count(ctx);
	accel_context_unref(ctx);
	*ns = bench_now_ns() - t0;
	if (n < 0 || c < 0)
		return -1;
	*devices = n;
	*candidates = c;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned rounds = 200, fake = 0, i;
	int devices = 0, candidates = 0, opt;
	uint64_t *t;
	double per;

	while ((opt = getopt(argc, argv, "n:f:")) != -1) {
		switch (opt) {
		case 'n':
			rounds = bench_parse_count(argv[0], optarg, "rounds",
						   1000000);
			break;
		case 'f':
			fake = bench_parse_count(argv[0], optarg, "devices",
						 1024);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ROUNDS] [-f FAKE_DEVICES]\n",
				argv[0]);
			return 2;
		}
	}

#ifdef BENCH_HAVE_UMOCKDEV
	UMockdevTestbed *tb = NULL;

	if (fake) {
		if (!umockdev_preloaded()) {
			fprintf(stderr, "enumerate: run -f under "
					"umockdev-wrapper (Debian package "
					"umockdev)\n");
			return 77;
		}
		tb = fake_testbed(fake);
		if (!tb) {
			fprintf(stderr, "enumerate: umockdev testbed failed\n");
			return 1;
		}
	}
#else
	if (fake) {
		fprintf(stderr, "enumerate: built without umockdev\n");
		return 77;
	}
#endif

	t = calloc(rounds, sizeof(*t));
	if (!t)
		return 1;
	bench_print_machine("before");
	for (i = 0; i < rounds; i++) {
		if (round_once(&t[i], &devices, &candidates) < 0) {
			fprintf(stderr, "enumerate: round %u failed\n", i);
			free(t);
			return 1;
		}
	}
	qsort(t, rounds, sizeof(*t), bench_cmp_u64);
	per = candidates ? (double)t[rounds / 2] / candidates : 0;
	printf("enumerate: %u rounds, %d devices (CPU included), %d candidates%s\n",
	       rounds, devices, candidates, fake ? " (umockdev)" : "");
	printf("  context+enumeration+release: median %.1f us, p10 %.1f us, "
	       "p90 %.1f us\n", t[rounds / 2] / 1e3, t[rounds / 10] / 1e3,
	       t[rounds * 9 / 10] / 1e3);
	if (candidates)
		printf("  per candidate: %.1f us (target: well under 1000 us)\n",
		       per / 1e3);
	bench_print_machine("after");
	free(t);
#ifdef BENCH_HAVE_UMOCKDEV
	if (tb)
		g_object_unref(tb);
#endif
	return 0;
}
