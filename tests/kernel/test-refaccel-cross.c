/* SPDX-License-Identifier: MIT */
/*
 * Two refaccel devices sharing a buffer whose exporter goes away: a BO of
 * device A, exported as a dma-buf and imported into device B by PRIME,
 * then A unbound through sysfs (as a hot-unplug does it).
 *
 * - A job on B after the unbind, with A's file still open or closed
 *   before it: B copies out of the buffer what A wrote, fills one half of
 *   it and copies into the other; checked through B's mapping of the
 *   import, the dma-buf's own mapping (DMA_BUF_IOCTL_SYNC bracketed) and,
 *   with A's file open, A's mapping made before the unbind. A's file
 *   answers -ENODEV.
 * - A job on B pending at the unbind: it waits for a vgem fence (an
 *   in-syncobj), A is unbound, the job is still pending, the vgem fence
 *   signals, the job succeeds and the buffer holds its result.
 *
 * Each case runs both ways (A the first device and B the second, then the
 * reverse) and binds A again at the end, checking the new device works.
 * vm-run.sh fails the batch on any kernel WARNING/BUG/Oops. Needs two
 * refaccel devices (load.sh software=1 with edu: the PCI device and the
 * platform device); elsewhere it exits 77. Only devices whose driver is
 * refaccel are unbound (refaccel-sysfs.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "refaccel-ioctl.h"
#include "refaccel-sysfs.h"
#include "test-common.h"
#include "../sharing/peer.h"
#include "uapi/drm/refaccel_accel.h"

#define SZ 16384u
#define JOB_MS 60000	/* a bound for failures only */
#define OPEN_MS 10000	/* for the node of a device bound again */

#define P_A 0xa0a0a0a0u	/* what A wrote before the unbind */
#define P_B 0xb1b1b1b1u	/* B's own buffer, copied into the import */
#define P_FILL 0xf111f111u	/* B's fill of the import */

static struct refaccel_sysfs_dev devs[2];

struct cross_case {
	int a;		/* the exporter A is devs[a], B is devs[!a] */
	bool a_open;	/* A's file stays open across the unbind */
};

static uint32_t bo_new(int fd)
{
	uint32_t h;

	assert_int_equal(refaccel_bo_new(fd, SZ, &h), 0);
	return h;
}

static uint8_t *bo_map(int fd, uint32_t handle)
{
	uint64_t size;
	uint8_t *p;

	assert_int_equal(refaccel_bo_map(fd, handle, &p, &size), 0);
	assert_int_equal(size, SZ);
	return p;
}

static void bo_close(int fd, uint32_t handle)
{
	assert_int_equal(refaccel_bo_close(fd, handle), 0);
}

static void syncobj_wait(int fd, uint32_t h)
{
	assert_int_equal(drmSyncobjWait(fd, &h, 1, INT64_MAX, 0, NULL), 0);
}

static void check_u32(const uint8_t *p, uint64_t n, uint32_t v)
{
	assert_int_equal(refaccel_first_other_u32(p, n, v), n);
}

/* The import after B's fill (first half) and copy (second half). */
static void check_result(const uint8_t *p)
{
	check_u32(p, SZ / 2, P_FILL);
	check_u32(p + SZ / 2, SZ / 2, P_B);
}

/* Through the dma-buf's own mapping, bracketed for CPU reads. */
static void check_dmabuf(int dmabuf)
{
	uint8_t *p = peer_mmap(dmabuf, SZ, false);

	assert_non_null(p);
	assert_int_equal(peer_dmabuf_sync(dmabuf, true, true, false), 0);
	check_result(p);
	assert_int_equal(peer_dmabuf_sync(dmabuf, false, true, false), 0);
	munmap(p, SZ);
}

static int open_dev(const struct refaccel_sysfs_dev *d)
{
	int fd = refaccel_sysfs_open(d, OPEN_MS);

	if (fd < 0)
		fail_msg("%s: no node: %s", d->name, strerror(-fd));
	return fd;
}

/*
 * A's BO, filled with P_A by A and exported; *ret_imp its import into
 * B. Returns the dma-buf.
 */
static int share(int fa, uint32_t *ret_ba, int fb, uint32_t *ret_imp)
{
	uint32_t so;
	int dmabuf;

	*ret_ba = bo_new(fa);
	assert_int_equal(drmSyncobjCreate(fa, 0, &so), 0);
	assert_int_equal(refaccel_fill(fa, *ret_ba, 0, SZ, P_A, 0, so), 0);
	syncobj_wait(fa, so);
	drmSyncobjDestroy(fa, so);
	assert_int_equal(drmPrimeHandleToFD(fa, *ret_ba,
					    DRM_CLOEXEC | DRM_RDWR, &dmabuf),
			 0);
	assert_int_equal(drmPrimeFDToHandle(fb, dmabuf, ret_imp), 0);
	return dmabuf;
}

/* A bound again: a new device whose jobs run. */
static void rebind_and_use(const struct refaccel_sysfs_dev *a)
{
	uint32_t bo, so;
	uint8_t *p;
	int fd;

	assert_int_equal(refaccel_sysfs_bind(a), 0);
	fd = open_dev(a);
	bo = bo_new(fd);
	assert_int_equal(drmSyncobjCreate(fd, 0, &so), 0);
	assert_int_equal(refaccel_fill(fd, bo, 0, SZ, P_A, 0, so), 0);
	syncobj_wait(fd, so);
	p = bo_map(fd, bo);
	check_u32(p, SZ, P_A);
	munmap(p, SZ);
	bo_close(fd, bo);
	drmSyncobjDestroy(fd, so);
	close(fd);
}

static void test_job_after_exporter_unbind(void **state)
{
	const struct cross_case *c = *state;
	const struct refaccel_sysfs_dev *a = &devs[c->a], *b = &devs[!c->a];
	uint32_t ba, imp, own, copy, so, dummy;
	uint8_t *pa = NULL, *p;
	int fa, fb, dmabuf;

	printf("exporter %s (%s) unbound with its file %s, jobs on %s (%s)\n",
	       a->name, a->bus, c->a_open ? "open" : "closed", b->name,
	       b->bus);
	fa = open_dev(a);
	fb = open_dev(b);
	dmabuf = share(fa, &ba, fb, &imp);
	if (c->a_open) {
		pa = bo_map(fa, ba);
	} else {
		bo_close(fa, ba);
		close(fa);
		fa = -1;
	}

	assert_int_equal(refaccel_sysfs_unbind(a), 0);
	if (c->a_open)
		assert_int_equal(refaccel_bo_new(fa, SZ, &dummy), -ENODEV);

	/* B reads what A wrote... */
	own = bo_new(fb);
	copy = bo_new(fb);
	assert_int_equal(drmSyncobjCreate(fb, 0, &so), 0);
	assert_int_equal(refaccel_fill(fb, own, 0, SZ, P_B, 0, 0), 0);
	assert_int_equal(refaccel_copy(fb, copy, 0, imp, 0, SZ, so), 0);
	syncobj_wait(fb, so);
	p = bo_map(fb, copy);
	check_u32(p, SZ, P_A);
	munmap(p, SZ);
	/* ...and writes it: a fill of one half, a copy into the other */
	assert_int_equal(refaccel_fill(fb, imp, 0, SZ / 2, P_FILL, 0, 0), 0);
	assert_int_equal(refaccel_copy(fb, imp, SZ / 2, own, 0, SZ / 2, so), 0);
	syncobj_wait(fb, so);

	p = bo_map(fb, imp);
	check_result(p);
	munmap(p, SZ);
	check_dmabuf(dmabuf);
	if (c->a_open) {
		/* zapped at the unbind, faulted back in from the same pages */
		check_result(pa);
		munmap(pa, SZ);
		close(fa);
	}

	bo_close(fb, imp);
	bo_close(fb, own);
	bo_close(fb, copy);
	drmSyncobjDestroy(fb, so);
	close(dmabuf);
	close(fb);
	rebind_and_use(a);
}

static void test_job_pending_at_exporter_unbind(void **state)
{
	const struct cross_case *c = *state;
	const struct refaccel_sysfs_dev *a = &devs[c->a], *b = &devs[!c->a];
	uint32_t ba, imp, own, in, out, vh, vfence;
	struct sync_file_info info = { 0 };
	int fa, fb, dmabuf, card, vbuf, in_sf, out_sf;
	uint64_t vsize;
	uint8_t *p;

	if (peer_vgem_open(&card) < 0) {
		printf("no vgem: no fence to hold the job with\n");
		skip();
	}
	printf("exporter %s (%s) unbound while a job of %s (%s) waits\n",
	       a->name, a->bus, b->name, b->bus);
	fa = open_dev(a);
	fb = open_dev(b);
	dmabuf = share(fa, &ba, fb, &imp);
	own = bo_new(fb);
	assert_int_equal(refaccel_fill(fb, own, 0, SZ, P_B, 0, 0), 0);

	/* vgem's write fence, as a sync_file, into B's in-syncobj */
	assert_int_equal(peer_vgem_create(card, 4096, &vh, &vsize), 0);
	assert_int_equal(peer_vgem_export(card, vh, true, &vbuf), 0);
	assert_int_equal(peer_vgem_attach(card, vh, true, &vfence), 0);
	assert_int_equal(peer_export_sync_file(vbuf, false, &in_sf), 0);
	assert_int_equal(drmSyncobjCreate(fb, 0, &in), 0);
	assert_int_equal(drmSyncobjCreate(fb, 0, &out), 0);
	assert_int_equal(drmSyncobjImportSyncFile(fb, in, in_sf), 0);

	/* the fill waits for vgem, the copy for the fill (same buffer) */
	assert_int_equal(refaccel_fill(fb, imp, 0, SZ / 2, P_FILL, in, 0), 0);
	assert_int_equal(refaccel_copy(fb, imp, SZ / 2, own, 0, SZ / 2, out), 0);
	assert_int_equal(drmSyncobjExportSyncFile(fb, out, &out_sf), 0);
	assert_int_equal(poll(&(struct pollfd){ .fd = out_sf,
						.events = POLLIN }, 1, 0), 0);

	assert_int_equal(refaccel_sysfs_unbind(a), 0);
	/* still held by vgem (whose fence signals by itself after 10 s) */
	assert_int_equal(poll(&(struct pollfd){ .fd = out_sf,
						.events = POLLIN }, 1, 0), 0);
	assert_int_equal(peer_vgem_signal(card, vfence), 0);
	assert_int_equal(poll(&(struct pollfd){ .fd = out_sf,
						.events = POLLIN }, 1, JOB_MS),
			 1);
	assert_int_equal(ioctl(out_sf, SYNC_IOC_FILE_INFO, &info), 0);
	assert_int_equal(info.status, 1);

	p = bo_map(fb, imp);
	check_result(p);
	munmap(p, SZ);
	check_dmabuf(dmabuf);

	close(out_sf);
	close(in_sf);
	close(vbuf);
	peer_vgem_close(card, vh);
	close(card);
	bo_close(fb, imp);
	bo_close(fb, own);
	drmSyncobjDestroy(fb, in);
	drmSyncobjDestroy(fb, out);
	close(dmabuf);
	close(fb);
	close(fa);
	rebind_and_use(a);
}

/* After a failed case: no device left unbound for the next ones. */
static int bind_all(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		if (!refaccel_sysfs_bound(&devs[i]))
			refaccel_sysfs_bind(&devs[i]);
	return 0;
}

#define CASE(fn, name, st) { name, fn, NULL, bind_all, st }

int main(void)
{
	static struct cross_case first_open = { 0, true };
	static struct cross_case first_closed = { 0, false };
	static struct cross_case second_open = { 1, true };
	static struct cross_case second_closed = { 1, false };
	const struct CMUnitTest tests[] = {
		CASE(test_job_after_exporter_unbind,
		     "job_after_unbind_of_first_file_open", &first_open),
		CASE(test_job_after_exporter_unbind,
		     "job_after_unbind_of_first_file_closed", &first_closed),
		CASE(test_job_after_exporter_unbind,
		     "job_after_unbind_of_second_file_open", &second_open),
		CASE(test_job_after_exporter_unbind,
		     "job_after_unbind_of_second_file_closed", &second_closed),
		CASE(test_job_pending_at_exporter_unbind,
		     "job_pending_at_unbind_of_first", &first_open),
		CASE(test_job_pending_at_exporter_unbind,
		     "job_pending_at_unbind_of_second", &second_open),
	};
	int n = refaccel_sysfs_list(devs, 2), r;

	if (n < 2) {
		printf("SKIP: %d refaccel device(s) this process may unbind, "
		       "2 needed (load.sh software=1 with edu)\n", n);
		for (int i = 0; i < n; i++)
			refaccel_sysfs_put(&devs[i]);
		return TEST_EXIT_SKIP;
	}
	r = TEST_RUN_GROUP("refaccel-cross", tests);
	for (int i = 0; i < 2; i++)
		refaccel_sysfs_put(&devs[i]);
	return r;
}
