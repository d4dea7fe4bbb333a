/* SPDX-License-Identifier: MIT */
/*
 * What refaccel does on edu's PCI device (QEMU -device edu) and nowhere
 * else: the interrupt handler signals a copy's or fill's fence with the
 * interrupt of the job's last DMA command (counted in the device's sysfs
 * file irq_fences), and runtime PM suspends an idle device and resumes
 * it for each job (the device's power/ files). Runs in the VM tier after
 * load.sh; exits 77 without refaccel on an edu device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "refaccel-ioctl.h"
#include "refaccel-sysfs.h"
#include "test-common.h"

#define PARAMS "/sys/module/refaccel/parameters/"
/* refaccel_edu.c's EDU_AUTOSUSPEND_MS */
#define AUTOSUSPEND_MS 200
/* How long a state may take to come, in ms: a bound for failures only. */
#define SETTLE_MS 10000

static int fd = -1;
/* The device's sysfs folder, ending in a slash. */
static char dev[160];

/* @name in the device's sysfs folder (one path at a time). */
static const char *dev_file(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s%s", dev, name);
	return path;
}

/* The first line of a sysfs file, newline dropped ("" if unreadable). */
static void read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static unsigned long long read_u64(const char *path)
{
	char buf[64];

	read_line(path, buf, sizeof(buf));
	assert_true(buf[0] != '\0');
	return strtoull(buf, NULL, 0);
}

static bool jobs_on_dma_engine(void)
{
	char buf[8];

	read_line(PARAMS "edu_dma", buf, sizeof(buf));
	return buf[0] == 'Y';
}

static uint32_t syncobj_new(void)
{
	uint32_t h;

	assert_int_equal(drmSyncobjCreate(fd, 0, &h), 0);
	return h;
}

/* The job's status: 1 done, a negative errno if it failed. */
static int syncobj_result(uint32_t h)
{
	return refaccel_syncobj_result(fd, h);
}

static void check_u32(const uint8_t *p, uint64_t n, uint32_t v)
{
	assert_int_equal(refaccel_first_other_u32(p, n, v), n);
}

/* The next command of the device goes without its interrupt. */
static void drop_next_irq(void)
{
	assert_int_equal(refaccel_edu_drop_irqs(1), 0);
}

/*
 * A fill and a copy on the DMA engine: one fence each from the handler,
 * the data in place. A factorial job's fence is the worker's (the CPU
 * stores each result), and so is the fence of a job whose command
 * timed out: it fails with -ETIMEDOUT, not signalled by a late
 * interrupt.
 */
static void test_irq_signals_fences(void **state)
{
	uint32_t a, b, s = syncobj_new();
	unsigned long long n0;
	uint64_t size;
	uint8_t *p;

	(void)state;
	if (!jobs_on_dma_engine())
		skip();
	assert_int_equal(refaccel_bo_new(fd, 8192, &a), 0);
	assert_int_equal(refaccel_bo_new(fd, 8192, &b), 0);
	n0 = read_u64(dev_file("irq_fences"));

	assert_int_equal(refaccel_fill(fd, a, 0, 8192, 0x1a2b3c4d, 0, s), 0);
	assert_int_equal(syncobj_result(s), 1);
	assert_int_equal(read_u64(dev_file("irq_fences")), n0 + 1);
	assert_int_equal(refaccel_copy(fd, b, 0, a, 0, 8192, s), 0);
	assert_int_equal(syncobj_result(s), 1);
	assert_int_equal(read_u64(dev_file("irq_fences")), n0 + 2);
	assert_int_equal(refaccel_bo_map(fd, b, &p, &size), 0);
	check_u32(p, 8192, 0x1a2b3c4d);

	memcpy(p, &(uint32_t){ 5 }, 4);
	assert_int_equal(refaccel_factorial(fd, b, 4, b, 0, 4, s), 0);
	assert_int_equal(syncobj_result(s), 1);
	assert_int_equal(memcmp(p + 4, &(uint32_t){ 120 }, 4), 0);
	assert_int_equal(read_u64(dev_file("irq_fences")), n0 + 2);

	drop_next_irq();
	assert_int_equal(refaccel_fill(fd, b, 0, 8192, 0x600df00d, 0, s), 0);
	assert_int_equal(syncobj_result(s), -ETIMEDOUT);
	assert_int_equal(read_u64(dev_file("irq_fences")), n0 + 2);

	munmap(p, size);
	assert_int_equal(refaccel_bo_close(fd, a), 0);
	assert_int_equal(refaccel_bo_close(fd, b), 0);
	drmSyncobjDestroy(fd, s);
}

/* Polls the device's runtime PM status until it is @want. */
static bool runtime_status_becomes(const char *want)
{
	char buf[32];
	int i;

	for (i = 0; i < SETTLE_MS / 20; i++) {
		read_line(dev_file("power/runtime_status"), buf, sizeof(buf));
		if (!strcmp(buf, want))
			return true;
		usleep(20 * 1000);
	}
	printf("# runtime_status: '%s', want '%s'\n", buf, want);
	return false;
}

/*
 * Idle, the device suspends; a job resumes it and holds it active from
 * its submit (a long one on the DMA engine is seen active), and it
 * suspends again once the job is done and the autosuspend delay passed.
 */
static void test_runtime_pm(void **state)
{
	unsigned long long active, suspended;
	uint32_t a, s = syncobj_new();
	uint64_t bytes = jobs_on_dma_engine() ? 16384 : 1 << 20, size;
	char buf[32];
	uint8_t *p;

	(void)state;
	read_line(dev_file("power/control"), buf, sizeof(buf));
	assert_string_equal(buf, "auto");
	assert_int_equal(read_u64(dev_file("power/autosuspend_delay_ms")),
			 AUTOSUSPEND_MS);
	assert_int_equal(refaccel_bo_new(fd, bytes, &a), 0);
	assert_true(runtime_status_becomes("suspended"));
	active = read_u64(dev_file("power/runtime_active_time"));
	suspended = read_u64(dev_file("power/runtime_suspended_time"));

	assert_int_equal(refaccel_fill(fd, a, 0, bytes, 0x0ddba11, 0, s), 0);
	if (jobs_on_dma_engine()) {
		/* Eight steps of 100 ms: still running. */
		read_line(dev_file("power/runtime_status"), buf, sizeof(buf));
		assert_string_equal(buf, "active");
	}
	assert_int_equal(syncobj_result(s), 1);
	assert_true(runtime_status_becomes("suspended"));
	assert_true(read_u64(dev_file("power/runtime_active_time")) >=
		    active + AUTOSUSPEND_MS);
	assert_true(read_u64(dev_file("power/runtime_suspended_time")) > suspended);
	assert_int_equal(refaccel_bo_map(fd, a, &p, &size), 0);
	check_u32(p, bytes, 0x0ddba11);

	munmap(p, size);
	assert_int_equal(refaccel_bo_close(fd, a), 0);
	drmSyncobjDestroy(fd, s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq_signals_fences),
		cmocka_unit_test(test_runtime_pm),
	};
	struct refaccel_node node;
	char vendor[16], device[16];
	int r;

	fd = refaccel_open(&node);
	if (fd < 0)
		return TEST_EXIT_SKIP;
	snprintf(dev, sizeof(dev), "%s/device/", node.sysfs);
	read_line(dev_file("vendor"), vendor, sizeof(vendor));
	read_line(dev_file("device"), device, sizeof(device));
	if (strcmp(vendor, "0x1234") || strcmp(device, "0x11e8")) {
		printf("SKIP: %s is no edu device (%s:%s)\n", node.name,
		       vendor, device);
		close(fd);
		return TEST_EXIT_SKIP;
	}
	r = TEST_RUN_GROUP("refaccel-edu", tests);
	close(fd);
	return r;
}
