/* SPDX-License-Identifier: MIT */
/*
 * Bad input: every kind of fd that is not a dma-buf or sync_file, ranges
 * beyond an import, bad export flags and misaligned export ranges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sharing-common.h"

/* ---- bad input ---------------------------------------------------------- */

struct misc_fds {
	int memfd, pipe[2], sock[2], event, devnull, dir, opath;
};

static void misc_open(struct misc_fds *m)
{
	assert_int_equal(peer_memfd(PAGE, &m->memfd), 0);
	assert_int_equal(pipe2(m->pipe, O_CLOEXEC), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    m->sock), 0);
	m->event = eventfd(0, EFD_CLOEXEC);
	m->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	m->dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m->opath = open("/dev/null", O_PATH | O_CLOEXEC);
	assert_true(m->event >= 0 && m->devnull >= 0 && m->dir >= 0 &&
		    m->opath >= 0);
}

static void misc_close(struct misc_fds *m)
{
	close(m->memfd);
	close(m->pipe[0]);
	close(m->pipe[1]);
	close(m->sock[0]);
	close(m->sock[1]);
	close(m->event);
	close(m->devnull);
	close(m->dir);
	close(m->opath);
}

static void expect_import(struct env *env, int fd, uint32_t flags, int err,
			  const char *what)
{
	struct accel_buffer *b = TEST_SENTINEL_PTR;
	int r = accel_buffer_import_dmabuf(env->cpu, fd, flags, &b);

	if (r != err)
		fail_msg("import of %s: %d (%s), expected %d (%s)", what, r,
			 strerror(-r), err, strerror(-err));
	assert_ptr_equal(b, TEST_SENTINEL_PTR);
	if (env->drm) {
		r = accel_buffer_import_dmabuf(env->drm, fd, flags, &b);
		if (r != err)
			fail_msg("import of %s into vgem: %d, expected %d",
				 what, r, err);
		assert_ptr_equal(b, TEST_SENTINEL_PTR);
	}
}

static void expect_sync_import(struct env *env, int fd, int err,
			       const char *what)
{
	struct accel_fence *f = TEST_SENTINEL_PTR;
	int r = accel_fence_import_sync_file(env->ctx, fd, &f);

	if (r != err)
		fail_msg("sync_file import of %s: %d (%s), expected %d (%s)",
			 what, r, strerror(-r), err, strerror(-err));
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
}

/* What any host can check: fds that are no dma-buf, bad arguments. */
void test_bad_import(void **state)
{
	struct env *env = *state;
	struct accel_buffer *b = TEST_SENTINEL_PTR;
	struct misc_fds m;

	expect_import(env, closed_fd(), 0, -EBADF, "a closed fd");
	expect_import(env, -1, 0, -EBADF, "fd -1");
	expect_import(env, 1 << 20, 0, -EBADF, "fd 1<<20");
	misc_open(&m);
	expect_import(env, m.memfd, 0, -ENOTTY, "a memfd");
	expect_import(env, m.pipe[0], 0, -ENOTTY, "a pipe's read end");
	expect_import(env, m.pipe[1], 0, -ENOTTY, "a pipe's write end");
	expect_import(env, m.sock[0], 0, -ENOTTY, "a socket");
	expect_import(env, m.event, 0, -ENOTTY, "an eventfd");
	expect_import(env, m.devnull, 0, -ENOTTY, "/dev/null");
	expect_import(env, m.dir, 0, -ENOTTY, "a directory");
	expect_import(env, m.opath, 0, -ENOTTY, "an O_PATH fd");

	/* Arguments are checked before the fd is. */
	expect_import(env, m.memfd, ACCEL_BUFFER_DMA_HEAP, -EINVAL,
		      "a memfd with DMA_HEAP");
	expect_import(env, m.memfd, 1u << 31, -EINVAL,
		      "a memfd with an unknown flag");
	expect_import(env, m.memfd,
		      ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_WRITE_ONLY,
		      -EINVAL, "a memfd, READ_ONLY|WRITE_ONLY");
	assert_int_equal(accel_buffer_import_dmabuf(NULL, m.memfd, 0, &b),
			 -EINVAL);
	assert_int_equal(accel_buffer_import_dmabuf(env->cpu, m.memfd, 0,
						    NULL), -EINVAL);
	assert_ptr_equal(b, TEST_SENTINEL_PTR);

	/* Still usable afterwards. */
	assert_int_equal(write(m.pipe[1], "x", 1), 1);
	misc_close(&m);
	ran_case();
}

void test_bad_sync_file_import(void **state)
{
	struct env *env = *state;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct misc_fds m;

	expect_sync_import(env, closed_fd(), -EBADF, "a closed fd");
	expect_sync_import(env, -1, -EBADF, "fd -1");
	misc_open(&m);
	expect_sync_import(env, m.pipe[0], -EINVAL, "a pipe");
	expect_sync_import(env, m.pipe[1], -EINVAL, "a pipe's write end");
	expect_sync_import(env, m.memfd, -EINVAL, "a memfd");
	expect_sync_import(env, m.sock[0], -EINVAL, "a socket");
	expect_sync_import(env, m.event, -EINVAL, "an eventfd");
	expect_sync_import(env, m.devnull, -EINVAL, "/dev/null");
	expect_sync_import(env, m.dir, -EINVAL, "a directory");
	assert_int_equal(accel_fence_import_sync_file(NULL, m.pipe[0], &f),
			 -EINVAL);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, m.pipe[0],
						      NULL), -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	misc_close(&m);
	ran_case();
}

/* Kernel objects of the wrong kind: needs the VM's kernel. */
void test_bad_kernel_fds(void **state)
{
	struct env *env = *state;
	int heap_fd = -1, sync_fd = -1, dev;
	bool any = false;

	if (peer_have_heap()) {
		assert_int_equal(peer_heap_alloc(PAGE, O_RDWR, &heap_fd), 0);
	} else if (peer_have_udmabuf()) {
		int memfd;

		assert_int_equal(peer_memfd(PAGE, &memfd), 0);
		assert_int_equal(peer_udmabuf(memfd, 0, PAGE, &heap_fd), 0);
		close(memfd);
	}
	if (heap_fd >= 0) {
		/* A dma-buf is no sync_file, a sync_file no dma-buf. */
		expect_sync_import(env, heap_fd, -EINVAL, "a dma-buf");
		assert_int_equal(peer_export_sync_file(heap_fd, true,
						       &sync_fd), 0);
		expect_import(env, sync_fd, 0, -ENOTTY, "a sync_file");
		close(sync_fd);
		close(heap_fd);
		any = true;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev >= 0) {
		expect_import(env, dev, 0, -ENOTTY, "/dev/udmabuf");
		expect_sync_import(env, dev, -EINVAL, "/dev/udmabuf");
		close(dev);
		any = true;
	}
	dev = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (dev >= 0) {
		expect_import(env, dev, 0, -ENOTTY, "/dev/dma_heap/system");
		close(dev);
		any = true;
	}
	if (env->card >= 0) {
		expect_import(env, env->card, 0, -ENOTTY, "a DRM card");
		expect_sync_import(env, env->card, -EINVAL, "a DRM card");
		any = true;
	}
	if (!any) {
		printf("# no dma-buf, heap, udmabuf or DRM device here\n");
		skip();
	}
	ran_case();
}

void test_import_ranges(void **state)
{
	struct env *env = *state;
	const uint64_t size = 3 * PAGE;
	struct accel_buffer *imp, *sub, *b = TEST_SENTINEL_PTR, *plain;
	uint32_t host[8], *p;
	void *ptr = TEST_SENTINEL_PTR;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	int fd;

	if (some_dmabuf(env, size, 6, &fd) < 0) {
		printf("# no dma-buf heap or udmabuf\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "import ranges");
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp));
	assert_int_equal(accel_buffer_get_size(imp), size);

	/* Sub-buffers beyond the dma-buf. */
	assert_int_equal(accel_buffer_new_sub(imp, 0, size + 1, 0, &b),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, PAGE, 2 * PAGE + 1, 0, &b),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, size, 128, 0, &b), -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, size + PAGE, 128, 0, &b),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, UINT64_MAX & ~127ull, 256,
					      0, &b), -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, 128, UINT64_MAX - 127, 0,
					      &b), -ERANGE);
	assert_ptr_equal(b, TEST_SENTINEL_PTR);

	/* Accesses beyond it. */
	assert_int_equal(accel_buffer_map(imp, 0, size + 1, ACCEL_MAP_READ,
					  &ptr), -ERANGE);
	assert_int_equal(accel_buffer_map(imp, size, 1, ACCEL_MAP_READ, &ptr),
			 -ERANGE);
	assert_ptr_equal(ptr, TEST_SENTINEL_PTR);
	assert_int_equal(accel_queue_read(env->cq, imp, size - 4, 8, host, 0,
					  NULL, &f), -ERANGE);
	assert_int_equal(accel_queue_write(env->cq, imp, size, 4, host, 0,
					   NULL, &f), -ERANGE);
	assert_int_equal(accel_queue_fill(env->cq, imp, size - 4, 8, host, 4,
					  0, NULL, &f), -ERANGE);
	plain = cpu_buffer(env, 2 * size);
	assert_int_equal(accel_queue_copy(env->cq, plain, 0, imp, 0, size + 4,
					  0, NULL, &f), -ERANGE);
	assert_int_equal(accel_queue_copy(env->cq, imp, PAGE, plain, 0,
					  size, 0, NULL, &f), -ERANGE);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	/* A sub-buffer within it sees its range, and only that. */
	OK(env, accel_buffer_new_sub(imp, PAGE, PAGE, 0, &sub));
	assert_int_equal(accel_buffer_map(sub, 0, PAGE + 1, ACCEL_MAP_READ,
					  &ptr), -ERANGE);
	assert_int_equal(accel_queue_read(env->cq, sub, PAGE - 4, 8, host, 0,
					  NULL, &f), -ERANGE);
	assert_int_equal(accel_buffer_new_sub(sub, 0, 128, 0, &b), -EINVAL);
	OK(env, accel_buffer_map(sub, 0, PAGE, ACCEL_MAP_READ, (void **)&p));
	expect_range(env, p, PAGE / 4, PAGE / 4, 6);
	OK(env, accel_buffer_unmap(sub, p));
	assert_int_equal(kernel_check(env, imp, size / 4, 6), 0);

	accel_buffer_unref(sub);
	accel_buffer_unref(plain);
	accel_buffer_unref(imp);
	close(fd);
	ran_case();
}

void test_export_flags(void **state)
{
	struct env *env = *state;
	struct accel_buffer *buf = cpu_buffer(env, 2 * PAGE), *imp;
	int fd = 12345, dfd;

	assert_int_equal(accel_buffer_export_dmabuf(buf, 1, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(buf, 1u << 31, &fd),
			 -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(buf, ~0u, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(NULL, 0, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(buf, 0, NULL), -EINVAL);
	assert_int_equal(fd, 12345);
	if (some_dmabuf(env, PAGE, 0, &dfd) == 0) {
		OK(env, accel_buffer_import_dmabuf(env->cpu, dfd, 0, &imp));
		assert_int_equal(accel_buffer_export_dmabuf(imp, 1, &fd),
				 -EINVAL);
		assert_int_equal(fd, 12345);
		accel_buffer_unref(imp);
		close(dfd);
	}
	if (env->drm) {
		struct accel_buffer *g = NULL;

		OK(env, accel_buffer_new(env->drm, PAGE, 0, &g));
		assert_int_equal(accel_buffer_export_dmabuf(g, 2, &fd),
				 -EINVAL);
		assert_int_equal(fd, 12345);
		accel_buffer_unref(g);
	}
	accel_buffer_unref(buf);
	ran_case();
}

/* Sub-buffers of a CPU buffer export whole pages or nothing. */
void test_export_misaligned(void **state)
{
	static const struct {
		uint64_t offset, size;
	} bad[] = {
		{ 128, PAGE },          /* start inside a page */
		{ 0, 100 },             /* end inside a page */
		{ PAGE, PAGE + 128 },
		{ PAGE + 128, PAGE - 128 },
		{ 128, 4 * PAGE - 128 }, /* to the end, misaligned start */
		{ 2 * PAGE, PAGE + 50 }, /* end inside the last full page */
	};
	struct env *env = *state;
	struct accel_buffer *buf = cpu_buffer(env, 4 * PAGE), *odd, *sub;
	int fd = 12345;
	size_t i;

	for (i = 0; i < TEST_ARRAY_SIZE(bad); i++) {
		OK(env, accel_buffer_new_sub(buf, bad[i].offset, bad[i].size, 0,
					     &sub));
		if (accel_buffer_export_dmabuf(sub, 0, &fd) != -EINVAL)
			fail_msg("export of [%llu, +%llu): not -EINVAL",
				 (unsigned long long)bad[i].offset,
				 (unsigned long long)bad[i].size);
		assert_int_equal(fd, 12345);
		accel_buffer_unref(sub);
	}
	/* An odd-sized buffer: its tail from a misaligned start. */
	odd = cpu_buffer(env, 3 * PAGE + 100);
	OK(env, accel_buffer_new_sub(odd, 256, 3 * PAGE + 100 - 256, 0, &sub));
	assert_int_equal(accel_buffer_export_dmabuf(sub, 0, &fd), -EINVAL);
	assert_int_equal(fd, 12345);
	accel_buffer_unref(sub);
	accel_buffer_unref(odd);
	accel_buffer_unref(buf);
	ran_case();
}
