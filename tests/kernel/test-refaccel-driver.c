/* SPDX-License-Identifier: MIT */
/*
 * The refaccel driver's own ioctls, raw (no libaccel): buffers, mmap,
 * copy/fill/factorial jobs, syncobj in/out fences and sync_files,
 * implicit sync through reservation objects, PRIME with vgem, udmabuf and
 * the system dma-buf heap, a chain of 1,000 jobs, and bad input. Runs in
 * the VM tier after load.sh loaded the module; elsewhere it exits 77.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "refaccel-ioctl.h"
#include "test-common.h"
#include "../sharing/peer.h"
#include "uapi/drm/refaccel_accel.h"

#define SZ 65536u
/*
 * How long a job may take, in ms: a bound for failures only. edu's DMA
 * engine moves 64 KiB in about 10 s.
 */
#define JOB_MS 60000

static int fd = -1;

static int rioctl(unsigned long req, void *arg)
{
	return refaccel_ioctl(fd, req, arg);
}

static uint32_t bo_new(uint64_t size)
{
	uint32_t h = 0;

	assert_int_equal(refaccel_bo_new(fd, size, &h), 0);
	assert_int_not_equal(h, 0);
	return h;
}

static uint8_t *bo_map(uint32_t handle, uint64_t *ret_size)
{
	uint8_t *p;

	assert_int_equal(refaccel_bo_map(fd, handle, &p, ret_size), 0);
	return p;
}

static void bo_close(uint32_t handle)
{
	assert_int_equal(refaccel_bo_close(fd, handle), 0);
}

static uint32_t syncobj_new(void)
{
	uint32_t h;

	assert_int_equal(drmSyncobjCreate(fd, 0, &h), 0);
	return h;
}

static int submit_copy(uint32_t dst, uint64_t doff, uint32_t src,
		       uint64_t soff, uint64_t size, const uint32_t *in,
		       uint32_t n_in, uint32_t out)
{
	struct drm_refaccel_submit s = {
		.op = REFACCEL_OP_COPY, .dst_handle = dst, .src_handle = src,
		.dst_offset = doff, .src_offset = soff, .size = size,
		.in_syncobjs = (uintptr_t)in, .in_syncobj_count = n_in,
		.out_syncobj = out,
	};

	return rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &s);
}

static int submit_fill(uint32_t dst, uint64_t off, uint64_t size,
		       uint32_t pattern, uint32_t out)
{
	return refaccel_fill(fd, dst, off, size, pattern, 0, out);
}

static int submit_factorial(uint32_t dst, uint64_t doff, uint32_t src,
			    uint64_t soff, uint64_t size, uint32_t out)
{
	return refaccel_factorial(fd, dst, doff, src, soff, size, out);
}

static void syncobj_wait(uint32_t h)
{
	assert_int_equal(drmSyncobjWait(fd, &h, 1, INT64_MAX, 0, NULL), 0);
}

/* 1 signalled, 0 pending (poll with no timeout). */
static int sync_file_signalled(int sf)
{
	struct pollfd p = { .fd = sf, .events = POLLIN };

	return poll(&p, 1, 0);
}

static void check_u32(const uint8_t *p, uint64_t n, uint32_t v)
{
	assert_int_equal(refaccel_first_other_u32(p, n, v), n);
}

static void test_version(void **state)
{
	drmVersionPtr v = drmGetVersion(fd);

	(void)state;
	assert_non_null(v);
	assert_string_equal(v->name, REFACCEL_DRIVER_NAME);
	drmFreeVersion(v);
}

static void test_buffers(void **state)
{
	uint64_t size;
	uint32_t h = bo_new(SZ - 100);
	uint8_t *p = bo_map(h, &size);
	uint64_t i;

	(void)state;
	assert_int_equal(size, SZ); /* whole pages */
	for (i = 0; i < size; i++)
		if (p[i])
			fail_msg("new buffer not zeroed at %llu",
				 (unsigned long long)i);
	memset(p, 0xab, size);
	munmap(p, size);
	p = bo_map(h, &size);
	assert_int_equal(p[size - 1], 0xab);
	munmap(p, size);
	bo_close(h);
}

static void test_fill_copy(void **state)
{
	uint32_t a = bo_new(SZ), b = bo_new(SZ), s = syncobj_new();
	uint64_t size;
	uint8_t *pa = bo_map(a, &size), *pb = bo_map(b, &size);

	(void)state;
	assert_int_equal(submit_fill(a, 0, SZ, 0x11223344, 0), 0);
	assert_int_equal(submit_fill(a, 4096, 8192, 0x55667788, 0), 0);
	/* Implicitly after both fills (same buffer). */
	assert_int_equal(submit_copy(b, 0, a, 0, SZ, NULL, 0, s), 0);
	syncobj_wait(s);
	check_u32(pb, 4096, 0x11223344);
	check_u32(pb + 4096, 8192, 0x55667788);
	check_u32(pb + 12288, SZ - 12288, 0x11223344);
	/* Overlapping ranges of one buffer move like memmove. */
	assert_int_equal(submit_copy(a, 4, a, 0, 4096, NULL, 0, s), 0);
	syncobj_wait(s);
	check_u32(pa + 4, 4096, 0x11223344);
	munmap(pa, SZ);
	munmap(pb, SZ);
	bo_close(a);
	bo_close(b);
	drmSyncobjDestroy(fd, s);
}

/*
 * A job blocked on a vgem fence (imported as a sync_file into a syncobj):
 * its out-fence, exported as a sync_file at submit time, is unsignalled
 * until the vgem fence signals, then signals.
 */
static void test_out_fence_before_completion(void **state)
{
	int card, dmabuf, in_sf, out_sf;
	uint32_t vh, vfence, in = syncobj_new(), out = syncobj_new();
	uint32_t a = bo_new(SZ), b = bo_new(SZ);
	uint64_t vsize, size;
	uint8_t *pb = bo_map(b, &size);

	(void)state;
	if (peer_vgem_open(&card) < 0)
		skip();
	assert_int_equal(peer_vgem_create(card, 4096, &vh, &vsize), 0);
	assert_int_equal(peer_vgem_export(card, vh, true, &dmabuf), 0);
	assert_int_equal(peer_vgem_attach(card, vh, true, &vfence), 0);
	assert_int_equal(peer_export_sync_file(dmabuf, false, &in_sf), 0);
	assert_int_equal(drmSyncobjImportSyncFile(fd, in, in_sf), 0);

	assert_int_equal(submit_fill(a, 0, SZ, 0xcafef00d, 0), 0);
	assert_int_equal(submit_copy(b, 0, a, 0, SZ, &in, 1, out), 0);
	assert_int_equal(drmSyncobjExportSyncFile(fd, out, &out_sf), 0);
	usleep(100000);
	assert_int_equal(sync_file_signalled(out_sf), 0);
	assert_int_equal(pb[0], 0);

	assert_int_equal(peer_vgem_signal(card, vfence), 0);
	assert_int_equal(poll(&(struct pollfd){ .fd = out_sf,
						.events = POLLIN }, 1, JOB_MS),
			 1);
	check_u32(pb, SZ, 0xcafef00d);

	close(out_sf);
	close(in_sf);
	close(dmabuf);
	peer_vgem_close(card, vh);
	close(card);
	munmap(pb, SZ);
	bo_close(a);
	bo_close(b);
	drmSyncobjDestroy(fd, in);
	drmSyncobjDestroy(fd, out);
}

/*
 * Implicit sync both ways: a job reading a vgem buffer waits for vgem's
 * write fence on it; the job's own fence shows on the dma-buf of the
 * buffer it writes.
 */
static void test_implicit_sync(void **state)
{
	int card, vbuf, abuf, sf;
	uint32_t vh, vfence, imp, b = bo_new(4096), out = syncobj_new();
	uint64_t vsize, size;
	uint8_t *vmap;

	(void)state;
	if (peer_vgem_open(&card) < 0)
		skip();
	assert_int_equal(peer_vgem_create(card, 4096, &vh, &vsize), 0);
	vmap = peer_vgem_map(card, vh, vsize);
	assert_non_null(vmap);
	memset(vmap, 0x5a, 4096);
	assert_int_equal(peer_vgem_export(card, vh, true, &vbuf), 0);
	assert_int_equal(drmPrimeFDToHandle(fd, vbuf, &imp), 0);
	assert_int_equal(peer_vgem_attach(card, vh, true, &vfence), 0);

	assert_int_equal(submit_copy(b, 0, imp, 0, 4096, NULL, 0, out), 0);
	/* Our fence is on the destination's dma-buf: a reader waits. */
	assert_int_equal(drmPrimeHandleToFD(fd, b, DRM_CLOEXEC | DRM_RDWR,
					    &abuf), 0);
	assert_int_equal(peer_export_sync_file(abuf, false, &sf), 0);
	usleep(100000);
	assert_int_equal(sync_file_signalled(sf), 0);
	assert_int_equal(drmSyncobjWait(fd, &out, 1, 0, 0, NULL), -ETIME);

	assert_int_equal(peer_vgem_signal(card, vfence), 0);
	syncobj_wait(out);
	assert_int_equal(poll(&(struct pollfd){ .fd = sf, .events = POLLIN },
			      1, JOB_MS), 1);
	{
		uint8_t *pb = bo_map(b, &size);

		check_u32(pb, 4096, 0x5a5a5a5a);
		munmap(pb, size);
	}
	close(sf);
	close(abuf);
	close(vbuf);
	munmap(vmap, vsize);
	bo_close(imp);
	peer_vgem_close(card, vh);
	close(card);
	bo_close(b);
	drmSyncobjDestroy(fd, out);
}

/* Our buffers in vgem, a udmabuf in ours, and our own export back. */
static void test_prime(void **state)
{
	int dmabuf, memfd, ubuf, card;
	uint32_t a = bo_new(SZ), self, uh, vh, s = syncobj_new();
	uint64_t size;
	uint8_t *p;

	(void)state;
	assert_int_equal(submit_fill(a, 0, SZ, 0x01020304, s), 0);
	syncobj_wait(s);
	assert_int_equal(drmPrimeHandleToFD(fd, a, DRM_CLOEXEC | DRM_RDWR,
					    &dmabuf), 0);
	/* Self-import is the same object. */
	assert_int_equal(drmPrimeFDToHandle(fd, dmabuf, &self), 0);
	assert_int_equal(self, a);
	p = peer_mmap(dmabuf, SZ, false);
	assert_non_null(p);
	check_u32(p, SZ, 0x01020304);
	munmap(p, SZ);
	if (peer_vgem_open(&card) == 0) {
		assert_int_equal(peer_vgem_import(card, dmabuf, &vh), 0);
		peer_vgem_close(card, vh);
		close(card);
	}

	if (peer_have_udmabuf()) {
		assert_int_equal(peer_memfd(SZ, &memfd), 0);
		assert_int_equal(peer_udmabuf(memfd, 0, SZ, &ubuf), 0);
		assert_int_equal(drmPrimeFDToHandle(fd, ubuf, &uh), 0);
		assert_int_equal(submit_copy(uh, 0, a, 0, SZ, NULL, 0, s), 0);
		syncobj_wait(s);
		p = mmap(NULL, SZ, PROT_READ, MAP_SHARED, memfd, 0);
		assert_true(p != MAP_FAILED);
		check_u32(p, SZ, 0x01020304);
		munmap(p, SZ);
		bo_close(uh);
		close(ubuf);
		close(memfd);
	}
	close(dmabuf);
	bo_close(a);
	drmSyncobjDestroy(fd, s);
	(void)size;
}

#define HEAP_SZ 32768u	/* edu's DMA engine: about 6 s for this test */

/*
 * A buffer of the system dma-buf heap imported by PRIME: the engine reads
 * what the CPU wrote through the heap buffer's own mapping, then fills one
 * half and copies into the other, which the CPU reads back through that
 * mapping. Every CPU access is bracketed with DMA_BUF_IOCTL_SYNC.
 */
static void test_prime_heap(void **state)
{
	struct drm_refaccel_bo_info info = { 0 };
	uint32_t a, b, h, s;
	uint64_t size;
	uint8_t *hp, *p;
	int hbuf;

	(void)state;
	if (!peer_have_heap()) {
		printf("no /dev/dma_heap/system: heap import not tested\n");
		skip();
	}
	a = bo_new(HEAP_SZ);
	b = bo_new(HEAP_SZ);
	s = syncobj_new();
	assert_int_equal(peer_heap_alloc(HEAP_SZ, O_RDWR, &hbuf), 0);
	hp = peer_mmap(hbuf, HEAP_SZ, true);
	assert_non_null(hp);
	assert_int_equal(peer_dmabuf_sync(hbuf, true, false, true), 0);
	for (size = 0; size < HEAP_SZ; size += 4)
		memcpy(hp + size, &(uint32_t){ 0x0badcafe }, 4);
	assert_int_equal(peer_dmabuf_sync(hbuf, false, false, true), 0);

	assert_int_equal(drmPrimeFDToHandle(fd, hbuf, &h), 0);
	info.handle = h;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_INFO, &info), 0);
	assert_int_equal(info.size, HEAP_SZ);

	/* The heap as the source: the CPU's writes reach the engine. */
	assert_int_equal(submit_copy(a, 0, h, 0, HEAP_SZ, NULL, 0, s), 0);
	syncobj_wait(s);
	p = bo_map(a, &size);
	check_u32(p, HEAP_SZ, 0x0badcafe);
	munmap(p, size);

	/* The heap as the destination of a fill and of a copy. */
	assert_int_equal(submit_fill(b, 0, HEAP_SZ, 0x2468ace0, 0), 0);
	assert_int_equal(submit_fill(h, 0, HEAP_SZ / 2, 0x13572468, 0), 0);
	assert_int_equal(submit_copy(h, HEAP_SZ / 2, b, 0, HEAP_SZ / 2, NULL,
				     0, s), 0);
	syncobj_wait(s);
	assert_int_equal(peer_dmabuf_sync(hbuf, true, true, false), 0);
	check_u32(hp, HEAP_SZ / 2, 0x13572468);
	check_u32(hp + HEAP_SZ / 2, HEAP_SZ / 2, 0x2468ace0);
	assert_int_equal(peer_dmabuf_sync(hbuf, false, true, false), 0);

	munmap(hp, HEAP_SZ);
	bo_close(h);
	close(hbuf);
	bo_close(a);
	bo_close(b);
	drmSyncobjDestroy(fd, s);
}

/*
 * 1,000 jobs, each waiting on the previous one's syncobj
 * (REFACCEL_TEST_CHAIN sets another even number: a device whose engine
 * is slow).
 */
static void test_chain(void **state)
{
	uint32_t bo[2] = { bo_new(4096), bo_new(4096) };
	uint32_t so[2] = { syncobj_new(), syncobj_new() };
	const char *env = getenv("REFACCEL_TEST_CHAIN");
	int i, n = env ? atoi(env) & ~1 : 1000;
	uint64_t size;
	uint8_t *p;

	(void)state;
	if (n < 2)
		n = 2;
	assert_int_equal(submit_fill(bo[0], 0, 4096, 0xfeedbeef, so[0]), 0);
	for (i = 1; i <= n; i++) {
		uint32_t in = so[(i - 1) % 2];

		assert_int_equal(submit_copy(bo[i % 2], 0, bo[(i - 1) % 2], 0,
					     4096, &in, 1, so[i % 2]), 0);
	}
	syncobj_wait(so[0]);
	p = bo_map(bo[0], &size);
	check_u32(p, 4096, 0xfeedbeef);
	munmap(p, size);
	bo_close(bo[0]);
	bo_close(bo[1]);
	drmSyncobjDestroy(fd, so[0]);
	drmSyncobjDestroy(fd, so[1]);
}

/* A sysfs value's first character, 0 if unreadable. */
static char sysfs_char(const char *path)
{
	char c = 0;
	int f = open(path, O_RDONLY);

	if (f >= 0) {
		if (read(f, &c, 1) != 1)
			c = 0;
		close(f);
	}
	return c;
}

#define PARAMS "/sys/module/refaccel/parameters/"

/* The status of the fence in syncobj @s: 1 done, 0 pending, < 0 error. */
static int syncobj_status(uint32_t s)
{
	struct sync_file_info info;
	int sf;

	assert_int_equal(drmSyncobjExportSyncFile(fd, s, &sf), 0);
	memset(&info, 0, sizeof(info));
	assert_int_equal(ioctl(sf, SYNC_IOC_FILE_INFO, &info), 0);
	close(sf);
	return info.status;
}

static uint32_t get_u32(const uint8_t *p, uint64_t word)
{
	uint32_t v;

	memcpy(&v, p + word * 4, 4);
	return v;
}

static void put_u32(uint8_t *p, uint64_t word, uint32_t v)
{
	memcpy(p + word * 4, &v, 4);
}

/*
 * Words and their factorials modulo 2^32, worked out by hand (edu's
 * unit multiplies in 32 bits, so 13! wraps and from 34 on the product
 * holds 2^32). Eight of them reach edu's unit; the others are 0 without.
 */
static const struct {
	uint32_t w, f;
} fact_cases[] = {
	{ 0, 1 },
	{ 1, 1 },
	{ 2, 2 },
	{ 5, 120 },
	{ 12, 479001600 },
	{ 13, 1932053504 },	/* 6227020800 - 2^32 */
	{ 20, 0x82b40000 },
	{ 33, 0x80000000 },	/* 31 factors of two */
	{ 34, 0 },		/* 32 of them */
	{ 35, 0 },
	{ 1000, 0 },
	{ 0x10000, 0 },
	{ 0x7fffffff, 0 },
	{ 0xffffffff, 0 },
};

#define NFACT TEST_ARRAY_SIZE(fact_cases)

/* The cases' words from word @at of @p. */
static void put_cases(uint8_t *p, uint64_t at)
{
	size_t i;

	for (i = 0; i < NFACT; i++)
		put_u32(p, at + i, fact_cases[i].w);
}

/* Words @at.. of @p hold the cases' factorials (@fact) or words. */
static void expect_cases(const uint8_t *p, uint64_t at, bool fact)
{
	size_t i;

	for (i = 0; i < NFACT; i++) {
		uint32_t want = fact ? fact_cases[i].f : fact_cases[i].w;

		if (get_u32(p, at + i) != want)
			fail_msg("word %llu (%s of %u): 0x%08x, want 0x%08x",
				 (unsigned long long)(at + i),
				 fact ? "factorial" : "word", fact_cases[i].w,
				 get_u32(p, at + i), want);
	}
}

/* w! modulo 2^32 for small w, the long way. */
static uint32_t factorial_ref(uint32_t w)
{
	uint64_t f = 1;

	while (w > 1)
		f = (f * w--) & 0xffffffffu;
	return (uint32_t)f;
}

#define BIG (3u << 20) /* bytes: the CPU engine's 1 MiB slices, thrice */

/*
 * REFACCEL_OP_FACTORIAL: the cases out of place and in place, overlapping
 * ranges of one buffer both ways (as if the source were read first),
 * many words (over several of the CPU engine's slices; on edu's unit a
 * few dozen, each an interrupt round trip), and its own bad input.
 */
static void test_factorial(void **state)
{
	bool unit = sysfs_char(PARAMS "edu_dma") == 'Y';
	uint32_t a = bo_new(SZ), b = bo_new(BIG), s = syncobj_new();
	uint64_t size, bsize, i, n = unit ? 64 : BIG / 4;
	uint8_t *pa = bo_map(a, &size), *pb = bo_map(b, &bsize);
	const uint64_t bytes = NFACT * 4;
	uint32_t want[40];

	(void)state;
	for (i = 0; i < 40; i++)
		want[i] = factorial_ref((uint32_t)i);
	memset(pb, 0xa5, BIG);
	put_cases(pa, 16);
	/* Out of place, at other offsets of each buffer. */
	assert_int_equal(submit_factorial(b, 100 * 4, a, 16 * 4, bytes, s),
			 0);
	syncobj_wait(s);
	expect_cases(pb, 100, true);
	assert_int_equal(get_u32(pb, 99), 0xa5a5a5a5);
	assert_int_equal(get_u32(pb, 100 + NFACT), 0xa5a5a5a5);
	expect_cases(pa, 16, false);

	/* In place. */
	assert_int_equal(submit_factorial(a, 16 * 4, a, 16 * 4, bytes, s), 0);
	syncobj_wait(s);
	expect_cases(pa, 16, true);
	assert_int_equal(get_u32(pa, 15), 0);
	assert_int_equal(get_u32(pa, 16 + NFACT), 0);

	/* Destination 3 words above the source, then 3 below. */
	put_cases(pa, 200);
	assert_int_equal(submit_factorial(a, 203 * 4, a, 200 * 4, bytes, s),
			 0);
	syncobj_wait(s);
	expect_cases(pa, 203, true);
	for (i = 0; i < 3; i++)
		assert_int_equal(get_u32(pa, 200 + i), fact_cases[i].w);
	put_cases(pa, 300);
	assert_int_equal(submit_factorial(a, 297 * 4, a, 300 * 4, bytes, s),
			 0);
	syncobj_wait(s);
	expect_cases(pa, 297, true);
	for (i = 0; i < 3; i++)
		assert_int_equal(get_u32(pa, 297 + NFACT + i),
				 fact_cases[NFACT - 3 + i].w);

	/* Many words, in place: w = i % 40 (34 to 39 give 0). */
	for (i = 0; i < n; i++)
		put_u32(pb, i, (uint32_t)(i % 40));
	assert_int_equal(submit_factorial(b, 0, b, 0, n * 4, s), 0);
	syncobj_wait(s);
	for (i = 0; i < n; i++)
		if (get_u32(pb, i) != want[i % 40])
			fail_msg("word %llu: 0x%08x, want %llu! = 0x%08x",
				 (unsigned long long)i, get_u32(pb, i),
				 (unsigned long long)(i % 40), want[i % 40]);

	/* Whole, aligned words only; the usual handle and range checks. */
	assert_int_equal(submit_factorial(a, 0, a, 64, 6, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, 0, a, 64, 2, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, 2, a, 64, 8, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, 0, a, 65, 8, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, 0, a, 64, 0, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, SZ - 4, a, 64, 8, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, 0, a, SZ - 4, 8, 0), -EINVAL);
	assert_int_equal(submit_factorial(a, 0, 9999, 0, 8, 0), -ENOENT);
	assert_int_equal(submit_factorial(9999, 0, a, 0, 8, 0), -ENOENT);

	munmap(pa, size);
	munmap(pb, bsize);
	bo_close(a);
	bo_close(b);
	drmSyncobjDestroy(fd, s);
}

/* The next command of the device goes without its interrupt. */
static void drop_next_irq(void)
{
	assert_int_equal(refaccel_edu_drop_irqs(1), 0);
}

/*
 * A device that does not answer (edu with jobs on the device, a command
 * issued without its interrupt through the edu_drop_irqs knob): the job's
 * fence signals -ETIMEDOUT, and the next job runs normally. Once for the
 * DMA engine (a fill), once for the factorial unit.
 */
static void test_hung_device(void **state)
{
	uint32_t a = bo_new(8192), s = syncobj_new();
	uint64_t size;
	uint8_t *p;
	int i;

	(void)state;
	if (sysfs_char(PARAMS "edu_dma") != 'Y')
		skip();
	for (i = 0; i < 2; i++) {
		if (i == 0)
			drop_next_irq();
		assert_int_equal(submit_fill(a, 0, 8192, 0x600df00d + i, s), 0);
		syncobj_wait(s);
		assert_int_equal(syncobj_status(s), i == 0 ? -ETIMEDOUT : 1);
	}
	p = bo_map(a, &size);
	check_u32(p, 8192, 0x600df00d + 1);

	put_u32(p, 0, 5);
	for (i = 0; i < 2; i++) {
		if (i == 0)
			drop_next_irq();
		assert_int_equal(submit_factorial(a, 4, a, 0, 4, s), 0);
		syncobj_wait(s);
		assert_int_equal(syncobj_status(s), i == 0 ? -ETIMEDOUT : 1);
		assert_int_equal(get_u32(p, 1),
				 i == 0 ? 0x600df00d + 1 : 120);
	}
	munmap(p, size);
	bo_close(a);
	drmSyncobjDestroy(fd, s);
}

static void test_bad_input(void **state)
{
	uint32_t a = bo_new(4096), s = syncobj_new(), empty = syncobj_new();
	uint32_t many[REFACCEL_MAX_IN_SYNCOBJS + 1] = { 0 };
	struct drm_refaccel_bo_create c = { .size = 4096 };
	struct drm_refaccel_bo_info info = { .handle = 9999 };
	struct drm_refaccel_submit sub = { .op = REFACCEL_OP_COPY,
					   .dst_handle = a, .src_handle = a,
					   .size = 16 };

	(void)state;
	c.flags = 1;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_CREATE, &c), -EINVAL);
	c.flags = 0;
	c.size = 0;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_CREATE, &c), -EINVAL);
	c.size = UINT64_MAX;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_CREATE, &c), -E2BIG);
	c.size = 1ull << 50;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_CREATE, &c), -E2BIG);
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_INFO, &info), -ENOENT);
	info.handle = a;
	info.flags = 2;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_BO_INFO, &info), -EINVAL);

	/* Handles, ranges, sizes. */
	assert_int_equal(submit_copy(9999, 0, a, 0, 16, NULL, 0, 0), -ENOENT);
	assert_int_equal(submit_copy(a, 0, 9999, 0, 16, NULL, 0, 0), -ENOENT);
	assert_int_equal(submit_copy(a, 4090, a, 0, 16, NULL, 0, 0), -EINVAL);
	assert_int_equal(submit_copy(a, 0, a, 4096, 1, NULL, 0, 0), -EINVAL);
	assert_int_equal(submit_copy(a, UINT64_MAX, a, 0, 2, NULL, 0, 0),
			 -EINVAL);
	assert_int_equal(submit_copy(a, 0, a, 0, UINT64_MAX, NULL, 0, 0),
			 -EINVAL);
	assert_int_equal(submit_copy(a, 0, a, 0, 0, NULL, 0, 0), -EINVAL);
	assert_int_equal(submit_fill(a, 0, 4096, 0, 9999), -ENOENT);
	/* Fences. */
	assert_int_equal(submit_copy(a, 0, a, 0, 16, many,
				     REFACCEL_MAX_IN_SYNCOBJS + 1, 0), -E2BIG);
	assert_int_equal(submit_copy(a, 0, a, 0, 16, many, 1, 0), -ENOENT);
	assert_int_equal(submit_copy(a, 0, a, 0, 16, &empty, 1, 0), -EINVAL);
	assert_int_equal(submit_copy(a, 0, a, 0, 16, (uint32_t *)8, 1, 0),
			 -EFAULT);
	/* Flags, op, padding, fill patterns. */
	sub.flags = 1;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), -EINVAL);
	sub.flags = 0;
	sub.pad = 1;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), -EINVAL);
	sub.pad = 0;
	sub.op = 77;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), -EINVAL);
	sub.op = REFACCEL_OP_FILL;
	sub.pattern_size = 0;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), -EINVAL);
	sub.pattern_size = REFACCEL_MAX_PATTERN + 1;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), -EINVAL);
	sub.pattern_size = 3; /* 16 is no multiple of 3 */
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), -EINVAL);
	sub.pattern_size = 4;
	sub.out_syncobj = s;
	assert_int_equal(rioctl(DRM_IOCTL_REFACCEL_SUBMIT, &sub), 0);
	syncobj_wait(s);

	bo_close(a);
	drmSyncobjDestroy(fd, s);
	drmSyncobjDestroy(fd, empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_fill_copy),
		cmocka_unit_test(test_factorial),
		cmocka_unit_test(test_out_fence_before_completion),
		cmocka_unit_test(test_implicit_sync),
		cmocka_unit_test(test_prime),
		cmocka_unit_test(test_prime_heap),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_hung_device),
	};
	int r;

	fd = refaccel_open(NULL);
	if (fd < 0)
		return TEST_EXIT_SKIP;
	r = TEST_RUN_GROUP("refaccel-driver", tests);
	close(fd);
	return r;
}
