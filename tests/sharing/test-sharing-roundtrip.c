/* SPDX-License-Identifier: MIT */
/*
 * Round trips: every exporter x every importer, written on one side by
 * every way it has (host map, queue write, kernel, the peer's own
 * mapping) and read back on the other by every way, then the reverse;
 * and what an export is: the same dma-buf each time, its pages, its name.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sharing-common.h"

/* Buffers of the round trips: 16 pages. */
#define RT_SIZE (16u * PAGE)

/* ---- the two sides of a share --------------------------------------- */

enum method { BY_MAP, BY_QUEUE, BY_KERNEL, BY_PEER };

static const char *const method_name[] = {
	[BY_MAP] = "host map",
	[BY_QUEUE] = "queue",
	[BY_KERNEL] = "kernel",
	[BY_PEER] = "peer mapping",
};

static unsigned side_methods(const struct side *s, enum method *m)
{
	unsigned n = 0;

	if (!s->buf) {
		m[n++] = BY_PEER;
		return n;
	}
	m[n++] = BY_MAP;
	m[n++] = BY_QUEUE;
	if (s->kernels)
		m[n++] = BY_KERNEL;
	return n;
}

static void side_write(struct env *env, struct side *s, enum method m,
		       uint32_t seed)
{
	uint64_t n = s->size / 4;
	struct accel_fence *f = NULL;
	uint32_t *p = NULL;

	switch (m) {
	case BY_MAP:
		OK(env, accel_buffer_map(s->buf, 0, s->size, ACCEL_MAP_WRITE,
					 (void **)&p));
		fill_words(p, n, seed);
		OK(env, accel_buffer_unmap(s->buf, p));
		break;
	case BY_QUEUE:
		p = malloc(s->size);
		assert_non_null(p);
		fill_words(p, n, seed);
		OK(env, accel_queue_write(s->queue, s->buf, 0, s->size, p, 0,
					  NULL, &f));
		OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
		free(p);
		break;
	case BY_KERNEL:
		f = launch_pattern(env, s->queue, s->buf, n, seed);
		OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
		break;
	case BY_PEER:
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, true, false,
						 true));
		fill_words(s->map, n, seed);
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, false, false,
						 true));
		break;
	}
}

static void side_check(struct env *env, struct side *s, enum method m,
		       uint32_t seed)
{
	uint64_t n = s->size / 4;
	struct accel_fence *f = NULL;
	uint32_t *p = NULL, bad;

	switch (m) {
	case BY_MAP:
		OK(env, accel_buffer_map(s->buf, 0, s->size, ACCEL_MAP_READ,
					 (void **)&p));
		expect_words(env, p, n, seed);
		OK(env, accel_buffer_unmap(s->buf, p));
		break;
	case BY_QUEUE:
		p = calloc(1, s->size);
		assert_non_null(p);
		OK(env, accel_queue_read(s->queue, s->buf, 0, s->size, p, 0,
					 NULL, &f));
		OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
		expect_words(env, p, n, seed);
		free(p);
		break;
	case BY_KERNEL:
		bad = kernel_check(env, s->buf, n, seed);
		if (bad)
			fail_msg("%s: the kernel saw %u wrong words",
				 env->what, bad);
		break;
	case BY_PEER:
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, true, true,
						 false));
		expect_words(env, s->map, n, seed);
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, false, true,
						 false));
		break;
	}
}

/* Exporters. */
enum src {
	SRC_CPU,        /* CPU buffer (memfd) exported through udmabuf */
	SRC_CPU_HEAP,   /* CPU buffer allocated from the system heap */
	SRC_DRM,        /* libaccel's vgem device, PRIME export */
	SRC_HEAP,       /* a raw system heap buffer */
	SRC_UDMABUF,    /* a raw udmabuf of a memfd */
	SRC_VGEM,       /* a raw vgem dumb buffer, libdrm */
};

static const char *const src_name[] = {
	[SRC_CPU] = "cpu-udmabuf",
	[SRC_CPU_HEAP] = "cpu-heap",
	[SRC_DRM] = "libaccel-vgem",
	[SRC_HEAP] = "raw-heap",
	[SRC_UDMABUF] = "raw-udmabuf",
	[SRC_VGEM] = "raw-vgem",
};

/* Importers. */
enum imp {
	IMP_CPU,   /* the CPU device */
	IMP_DRM,   /* libaccel's vgem device */
	IMP_MMAP,  /* a raw mmap of the dma-buf */
	IMP_VGEM,  /* raw vgem: PRIME import (a device attachment) */
};

static const char *const imp_name[] = {
	[IMP_CPU] = "cpu",
	[IMP_DRM] = "libaccel-vgem",
	[IMP_MMAP] = "raw-mmap",
	[IMP_VGEM] = "raw-vgem-import",
};

/* Why @src cannot be made here, or NULL. */
static const char *src_missing(struct env *env, enum src src)
{
	switch (src) {
	case SRC_CPU:
	case SRC_UDMABUF:
		return peer_have_udmabuf() ? NULL : "no /dev/udmabuf";
	case SRC_CPU_HEAP:
	case SRC_HEAP:
		return peer_have_heap() ? NULL : "no /dev/dma_heap/system";
	case SRC_DRM:
		return env->drm ? NULL : "libaccel found no vgem device";
	case SRC_VGEM:
		return env->card >= 0 ? NULL : "no vgem card";
	}
	return "?";
}

static const char *imp_missing(struct env *env, enum imp imp)
{
	switch (imp) {
	case IMP_CPU:
	case IMP_MMAP:
		return NULL;
	case IMP_DRM:
		return env->drm ? NULL : "libaccel found no vgem device";
	case IMP_VGEM:
		return env->card >= 0 ? NULL : "no vgem card";
	}
	return "?";
}

/* Make the exporting side; *ret_fd: a dma-buf of it owned by the caller. */
static void make_source(struct env *env, enum src src, uint64_t size,
			struct side *s, int *ret_fd)
{
	struct accel_device *dev = src == SRC_DRM ? env->drm : env->cpu;
	int64_t got;
	int fd = -1;

	side_init(s, src_name[src]);
	s->size = size;
	snprintf(env->what, sizeof(env->what), "making %s", src_name[src]);
	switch (src) {
	case SRC_CPU:
	case SRC_CPU_HEAP:
	case SRC_DRM:
		OK(env, accel_buffer_new(dev, size,
					 src == SRC_CPU_HEAP ?
						 ACCEL_BUFFER_DMA_HEAP : 0,
					 &s->buf));
		s->queue = src == SRC_DRM ? env->dq : env->cq;
		s->kernels = src != SRC_DRM;
		OK(env, accel_buffer_export_dmabuf(s->buf, 0, &fd));
		break;
	case SRC_HEAP:
		OK(env, peer_heap_alloc(size, O_RDWR, &s->own_fd[0]));
		fd = fcntl(s->own_fd[0], F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->sync_fd = s->own_fd[0];
		break;
	case SRC_UDMABUF:
		/* The peer writes the memfd itself: udmabuf adds no copy. */
		OK(env, peer_memfd(size, &s->own_fd[0]));
		OK(env, peer_udmabuf(s->own_fd[0], 0, size, &s->own_fd[1]));
		fd = fcntl(s->own_fd[1], F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->sync_fd = s->own_fd[1];
		break;
	case SRC_VGEM:
		OK(env, peer_vgem_create(env->card, size, &s->handle, &s->size));
		s->card = env->card;
		OK(env, peer_vgem_export(env->card, s->handle, true, &fd));
		s->map = peer_vgem_map(env->card, s->handle, s->size);
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->sync_fd = s->own_fd[0];
		break;
	}
	assert_true(fd >= 0);
	if (!s->buf) {
		assert_non_null(s->map);
		s->map_len = s->size;
	}
	/* Every exporter's dma-buf is exactly the size asked for. */
	got = peer_dmabuf_size(fd);
	if (got != (int64_t)size)
		fail_msg("%s: dma-buf of %lld bytes, expected %llu",
			 src_name[src], (long long)got,
			 (unsigned long long)size);
	*ret_fd = fd;
}

/* Make the importing side of @fd (borrowed). */
static void make_importer(struct env *env, enum imp imp, int fd,
			  uint64_t size, struct side *s)
{
	side_init(s, imp_name[imp]);
	s->size = size;
	snprintf(env->what, sizeof(env->what), "import into %s",
		 imp_name[imp]);
	switch (imp) {
	case IMP_CPU:
	case IMP_DRM:
		OK(env, accel_buffer_import_dmabuf(imp == IMP_CPU ? env->cpu :
								    env->drm,
						   fd, 0, &s->buf));
		/* The size comes from the fd. */
		assert_int_equal(accel_buffer_get_size(s->buf), size);
		s->queue = imp == IMP_CPU ? env->cq : env->dq;
		s->kernels = imp == IMP_CPU;
		break;
	case IMP_MMAP:
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->map_len = size;
		s->sync_fd = s->own_fd[0];
		assert_non_null(s->map);
		break;
	case IMP_VGEM:
		/*
		 * The driver attaches to the dma-buf and maps it for its
		 * device. It refuses a CPU mapping of its own (MAP_DUMB) of
		 * a foreign object: the CPU goes through the dma-buf, which
		 * is what DRM does for imported objects anyway.
		 */
		OK(env, peer_vgem_import(env->card, fd, &s->handle));
		s->card = env->card;
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->map_len = size;
		s->sync_fd = s->own_fd[0];
		assert_non_null(s->map);
		break;
	}
}

/* Write on @w by every method it has, read on @r by every method. */
static unsigned one_way(struct env *env, struct side *w, struct side *r,
			uint32_t *seed)
{
	enum method wm[4], rm[4];
	unsigned nw = side_methods(w, wm), nr = side_methods(r, rm), i, j;

	for (i = 0; i < nw; i++) {
		for (j = 0; j < nr; j++) {
			*seed += 0x101;
			snprintf(env->what, sizeof(env->what),
				 "%s -> %s: written by %s, read by %s",
				 w->name, r->name, method_name[wm[i]],
				 method_name[rm[j]]);
			side_write(env, w, wm[i], *seed);
			side_check(env, r, rm[j], *seed);
		}
	}
	return nw * nr;
}

static void roundtrip(struct env *env, enum src src)
{
	static const enum imp imps[] = { IMP_CPU, IMP_DRM, IMP_MMAP, IMP_VGEM };
	const char *why = src_missing(env, src);
	bool src_accel = src == SRC_CPU || src == SRC_CPU_HEAP ||
			 src == SRC_DRM;
	uint32_t seed = 0x5eed0000u + (uint32_t)src * 0x1000000u;
	unsigned i, checks;

	if (why) {
		printf("# %s: %s\n", src_name[src], why);
		skip();
	}
	for (i = 0; i < TEST_ARRAY_SIZE(imps); i++) {
		enum imp imp = imps[i];
		struct side a, b;
		int fd;

		/* A share between two raw peers does not test libaccel. */
		if (!src_accel && (imp == IMP_MMAP || imp == IMP_VGEM))
			continue;
		why = imp_missing(env, imp);
		if (why) {
			printf("# %s -> %s: skipped, %s\n", src_name[src],
			       imp_name[imp], why);
			continue;
		}
		make_source(env, src, RT_SIZE, &a, &fd);
		make_importer(env, imp, fd, a.size, &b);
		/* The importer holds its own reference (a dup or a handle). */
		close(fd);
		checks = one_way(env, &a, &b, &seed);
		checks += one_way(env, &b, &a, &seed);
		printf("# %s <-> %s: %u content checks\n", a.name, b.name,
		       checks);
		side_free(&b);
		side_free(&a);
	}
	ran_case();
}

void test_roundtrip_cpu_udmabuf(void **state)
{
	roundtrip(*state, SRC_CPU);
}

void test_roundtrip_cpu_heap(void **state)
{
	roundtrip(*state, SRC_CPU_HEAP);
}

void test_roundtrip_raw_heap(void **state)
{
	roundtrip(*state, SRC_HEAP);
}

void test_roundtrip_raw_udmabuf(void **state)
{
	roundtrip(*state, SRC_UDMABUF);
}

void test_roundtrip_libaccel_vgem(void **state)
{
	roundtrip(*state, SRC_DRM);
}

void test_roundtrip_raw_vgem(void **state)
{
	roundtrip(*state, SRC_VGEM);
}

/* ---- exports: identity, ranges, names -------------------------------- */

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The value of "@key:\t" in /proc/self/fdinfo/@fd, "" if absent. */
static void fdinfo(int fd, const char *key, char *val, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;

	val[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			const char *v = line + klen + 2;
			size_t n = strcspn(v, "\n");

			n = n < len - 1 ? n : len - 1;
			memcpy(val, v, n);
			val[n] = '\0';
			break;
		}
	}
	fclose(f);
}

void test_export_identity(void **state)
{
	struct env *env = *state;
	const uint64_t size = 3 * PAGE + 100;
	struct accel_buffer *buf, *imp, *sub, *sub_imp, *tail;
	int fd1, fd2, fd3, fd_sub, fd_tail;
	char name[64];
	uint32_t *p, *q;

	if (!peer_have_udmabuf()) {
		printf("# no /dev/udmabuf\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "export identity");
	buf = cpu_buffer(env, size);
	OK(env, accel_buffer_map(buf, 0, size, ACCEL_MAP_WRITE, (void **)&p));
	fill_words(p, size / 4, 1);
	OK(env, accel_buffer_unmap(buf, p));

	/* The memfd's whole pages: the dma-buf is 4 pages. */
	OK(env, accel_buffer_export_dmabuf(buf, 0, &fd1));
	assert_int_equal(peer_dmabuf_size(fd1), 4 * PAGE);
	assert_true(fcntl(fd1, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd1, F_GETFL) & O_ACCMODE, O_RDWR);
	/* The buffer keeps its dma-buf: a second export is the same one. */
	OK(env, accel_buffer_export_dmabuf(buf, 0, &fd2));
	assert_int_not_equal(fd1, fd2);
	assert_true(same_file(fd1, fd2));

	/* Named "libaccel" by default, renamed on request. */
	fdinfo(fd1, "name", name, sizeof(name));
	assert_string_equal(name, "libaccel");
	OK(env, accel_buffer_set_name(buf, "frames-in"));
	fdinfo(fd1, "name", name, sizeof(name));
	assert_string_equal(name, "frames-in");

	/* An import exports its own dma-buf again, same access mode. */
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd1, 0, &imp));
	assert_int_equal(accel_buffer_get_size(imp), 4 * PAGE);
	OK(env, accel_buffer_export_dmabuf(imp, 0, &fd3));
	assert_true(same_file(fd1, fd3));
	assert_int_equal(fcntl(fd3, F_GETFL) & O_ACCMODE, O_RDWR);
	assert_true(fcntl(fd3, F_GETFD) & FD_CLOEXEC);
	OK(env, accel_buffer_map(imp, 0, size, ACCEL_MAP_READ, (void **)&q));
	expect_words(env, q, size / 4, 1);
	OK(env, accel_buffer_unmap(imp, q));

	/* A page-aligned sub-buffer exports just its pages. */
	OK(env, accel_buffer_new_sub(buf, PAGE, 2 * PAGE, 0, &sub));
	OK(env, accel_buffer_export_dmabuf(sub, 0, &fd_sub));
	assert_int_equal(peer_dmabuf_size(fd_sub), 2 * PAGE);
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd_sub, 0, &sub_imp));
	snprintf(env->what, sizeof(env->what), "sub-buffer export");
	OK(env, accel_buffer_map(sub_imp, 0, 2 * PAGE, ACCEL_MAP_READ |
				 ACCEL_MAP_WRITE, (void **)&q));
	/* The same pages: the parent's words of pages 1 and 2... */
	expect_range(env, q, PAGE / 4, 2 * PAGE / 4, 1);
	/* ...and what is written there lands in the parent, only there. */
	fill_words(q, 2 * PAGE / 4, 2);
	OK(env, accel_buffer_unmap(sub_imp, q));
	OK(env, accel_buffer_map(buf, 0, size, ACCEL_MAP_READ, (void **)&p));
	expect_range(env, p, 0, PAGE / 4, 1);
	expect_range(env, p + PAGE / 4, 0, 2 * PAGE / 4, 2);
	expect_range(env, p + 3 * PAGE / 4, 3 * PAGE / 4, 100 / 4, 1);
	OK(env, accel_buffer_unmap(buf, p));
	accel_buffer_unref(sub_imp);
	close(fd_sub);
	accel_buffer_unref(sub);

	/* A sub-buffer up to an odd end takes the rest of the last page. */
	OK(env, accel_buffer_new_sub(buf, 2 * PAGE, size - 2 * PAGE, 0, &tail));
	OK(env, accel_buffer_export_dmabuf(tail, 0, &fd_tail));
	assert_int_equal(peer_dmabuf_size(fd_tail), 2 * PAGE);
	close(fd_tail);
	accel_buffer_unref(tail);

	accel_buffer_unref(imp);
	close(fd3);
	close(fd2);
	close(fd1);
	accel_buffer_unref(buf);
	ran_case();
}
