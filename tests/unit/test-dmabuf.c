/* SPDX-License-Identifier: MIT */
/*
 * platform/dmabuf.c and the CPU device's dma-buf code on any host: fds
 * that are not dma-bufs, argument checks, what happens without udmabuf and
 * heaps (-EOPNOTSUPP, seen through a fake open interface so the result does
 * not depend on the host), and the mapping rules of an import. Where the
 * kernel does offer udmabuf or the system heap (the VM tier), the real
 * round trips run too; elsewhere those tests are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test-common.h"

#include "accel-private.h"
#include "backends/cpu/cpu-private.h"
#include "platform/platform.h"

#define PAGE 4096u

/* ---- fds of every kind ---------------------------------------------- */

/* A sealed memfd of @size bytes, as the CPU device makes them. */
static int sealed_memfd(size_t size)
{
	int fd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW),
			 0);
	return fd;
}

/* A number that was an fd a moment ago. */
static int closed_fd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

struct fd_set_of_kinds {
	int memfd, pipe[2], sock[2], event, devnull, dir;
};

static void open_kinds(struct fd_set_of_kinds *k)
{
	k->memfd = sealed_memfd(PAGE);
	assert_int_equal(pipe2(k->pipe, O_CLOEXEC), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    k->sock), 0);
	k->event = eventfd(0, EFD_CLOEXEC);
	assert_true(k->event >= 0);
	k->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(k->devnull >= 0);
	k->dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(k->dir >= 0);
}

static void close_kinds(struct fd_set_of_kinds *k)
{
	close(k->memfd);
	close(k->pipe[0]);
	close(k->pipe[1]);
	close(k->sock[0]);
	close(k->sock[1]);
	close(k->event);
	close(k->devnull);
	close(k->dir);
}

static void test_check_not_dmabuf(void **state)
{
	struct fd_set_of_kinds k;
	(void)state;

	assert_int_equal(accel_dmabuf_check(-1), -EBADF);
	assert_int_equal(accel_dmabuf_check(closed_fd()), -EBADF);

	open_kinds(&k);
	assert_int_equal(accel_dmabuf_check(k.memfd), -ENOTTY);
	assert_int_equal(accel_dmabuf_check(k.pipe[0]), -ENOTTY);
	assert_int_equal(accel_dmabuf_check(k.pipe[1]), -ENOTTY);
	assert_int_equal(accel_dmabuf_check(k.sock[0]), -ENOTTY);
	assert_int_equal(accel_dmabuf_check(k.event), -ENOTTY);
	assert_int_equal(accel_dmabuf_check(k.devnull), -ENOTTY);
	assert_int_equal(accel_dmabuf_check(k.dir), -ENOTTY);
	close_kinds(&k);
}

static void test_get_size(void **state)
{
	uint64_t size = TEST_SENTINEL_U64;
	int fd = sealed_memfd(3 * PAGE), p[2];
	(void)state;

	/* The mechanism (SEEK_END) works on anything seekable. */
	assert_int_equal(accel_dmabuf_get_size(fd, &size), 0);
	assert_int_equal(size, 3 * PAGE);
	close(fd);

	size = TEST_SENTINEL_U64;
	assert_int_equal(accel_dmabuf_get_size(closed_fd(), &size), -EBADF);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(accel_dmabuf_get_size(p[0], &size), -ESPIPE);
	assert_int_equal(size, TEST_SENTINEL_U64);
	close(p[0]);
	close(p[1]);
}

static void test_ioctls_not_dmabuf(void **state)
{
	char name[64];
	int fd = sealed_memfd(PAGE), out = 12345, bad = closed_fd();
	(void)state;

	assert_int_equal(accel_dmabuf_sync(fd, true, true, false), -ENOTTY);
	assert_int_equal(accel_dmabuf_sync(fd, false, true, true), -ENOTTY);
	assert_int_equal(accel_dmabuf_sync(bad, true, true, true), -EBADF);
	/* Neither direction: refused before the kernel is asked. */
	assert_int_equal(accel_dmabuf_sync(fd, true, false, false), -EINVAL);

	assert_int_equal(accel_dmabuf_set_name(fd, NULL), -EINVAL);
	memset(name, 'a', sizeof(name));
	name[32] = '\0';
	assert_int_equal(accel_dmabuf_set_name(fd, name), -ENAMETOOLONG);
	name[31] = '\0';
	assert_int_equal(accel_dmabuf_set_name(fd, name), -ENOTTY);

	assert_int_equal(accel_dmabuf_export_sync_file(fd, true, &out),
			 -ENOTTY);
	assert_int_equal(accel_dmabuf_export_sync_file(bad, false, &out),
			 -EBADF);
	assert_int_equal(out, 12345);
	assert_int_equal(accel_dmabuf_import_sync_file(fd, true, fd), -ENOTTY);
	assert_int_equal(accel_dmabuf_import_sync_file(bad, false, fd), -EBADF);
	close(fd);
}

/* ---- udmabuf and heaps through a fake open interface ------------------ */

struct fake_open {
	int result;       /* negative errno to return, or 0: a memfd */
	unsigned opens, closes;
	char path[64];
	int flags;
};

static int fake_open_fn(const char *path, int flags, void *data)
{
	struct fake_open *fo = data;

	fo->opens++;
	snprintf(fo->path, sizeof(fo->path), "%s", path);
	fo->flags = flags;
	if (fo->result < 0)
		return fo->result;
	/* Something that is not the device: the ioctl must fail cleanly. */
	return memfd_create("not-a-device", MFD_CLOEXEC);
}

static void fake_close_fn(int fd, void *data)
{
	struct fake_open *fo = data;

	fo->closes++;
	close(fd);
}

static struct accel_context *fake_ctx(struct fake_open *fo)
{
	static const struct accel_open_interface iface = {
		.struct_size = sizeof(iface),
		.open_restricted = fake_open_fn,
		.close_restricted = fake_close_fn,
	};
	struct accel_context *ctx = NULL;

	assert_int_equal(accel_context_new(0, &ctx), 0);
	assert_int_equal(accel_context_set_open_interface(ctx, &iface, fo), 0);
	return ctx;
}

static void test_udmabuf_args(void **state)
{
	struct fake_open fo = { .result = -ENOENT };
	struct accel_context *ctx = fake_ctx(&fo);
	const struct accel_platform_env *env = accel_context_env(ctx);
	int memfd = sealed_memfd(4 * PAGE), out = 12345;
	(void)state;

	assert_int_equal(accel_udmabuf_create(NULL, memfd, 0, PAGE, &out),
			 -EINVAL);
	assert_int_equal(accel_udmabuf_create(env, -1, 0, PAGE, &out), -EINVAL);
	assert_int_equal(accel_udmabuf_create(env, memfd, 0, PAGE, NULL),
			 -EINVAL);
	assert_int_equal(accel_udmabuf_create(env, memfd, 0, 0, &out), -EINVAL);
	assert_int_equal(accel_udmabuf_create(env, memfd, 128, PAGE, &out),
			 -EINVAL);
	assert_int_equal(accel_udmabuf_create(env, memfd, 0, PAGE + 1, &out),
			 -EINVAL);
	assert_int_equal(accel_udmabuf_create(env, memfd, UINT64_MAX - PAGE + 1,
					      2 * PAGE, &out),
			 -EINVAL);
	/* All refused before the device is opened. */
	assert_int_equal(fo.opens, 0);
	assert_int_equal(out, 12345);
	close(memfd);
	accel_context_unref(ctx);
}

static void test_udmabuf_absent(void **state)
{
	static const struct {
		int open_error, expect;
	} cases[] = {
		{ -ENOENT, -EOPNOTSUPP },
		{ -ENODEV, -EOPNOTSUPP },
		{ -ENXIO, -EOPNOTSUPP },
		/* There but not for us: say so. */
		{ -EACCES, -EACCES },
		{ -EBUSY, -EBUSY },
	};
	struct fake_open fo = { 0 };
	struct accel_context *ctx = fake_ctx(&fo);
	const struct accel_platform_env *env = accel_context_env(ctx);
	int memfd = sealed_memfd(2 * PAGE), out = 12345;
	size_t i;
	(void)state;

	for (i = 0; i < TEST_ARRAY_SIZE(cases); i++) {
		fo.result = cases[i].open_error;
		fo.opens = 0;
		assert_int_equal(accel_udmabuf_create(env, memfd, PAGE, PAGE,
						      &out),
				 cases[i].expect);
		assert_int_equal(fo.opens, 1);
		assert_string_equal(fo.path, "/dev/udmabuf");
		assert_int_equal(fo.flags & O_ACCMODE, O_RDWR);
		assert_true(fo.flags & O_CLOEXEC);
	}
	assert_int_equal(fo.closes, 0);
	assert_int_equal(out, 12345);
	close(memfd);
	accel_context_unref(ctx);
}

static void test_udmabuf_not_a_device(void **state)
{
	struct fake_open fo = { .result = 0 };
	struct accel_context *ctx = fake_ctx(&fo);
	const struct accel_platform_env *env = accel_context_env(ctx);
	int memfd = sealed_memfd(PAGE), out = 12345;
	(void)state;

	assert_int_equal(accel_udmabuf_create(env, memfd, 0, PAGE, &out),
			 -ENOTTY);
	/* The device fd went back through close_restricted. */
	assert_int_equal(fo.opens, 1);
	assert_int_equal(fo.closes, 1);
	assert_int_equal(out, 12345);
	close(memfd);
	accel_context_unref(ctx);
}

static void test_heap_args(void **state)
{
	static const char *const bad[] = { NULL, "", "a/b", "/system", ".",
					   ".." };
	struct fake_open fo = { .result = -ENOENT };
	struct accel_context *ctx = fake_ctx(&fo);
	const struct accel_platform_env *env = accel_context_env(ctx);
	char longname[200];
	int out = 12345;
	size_t i;
	(void)state;

	for (i = 0; i < TEST_ARRAY_SIZE(bad); i++) {
		assert_int_equal(accel_dma_heap_alloc(env, bad[i], PAGE, &out),
				 -EINVAL);
		assert_false(accel_dma_heap_available(bad[i]));
	}
	memset(longname, 'h', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(accel_dma_heap_alloc(env, longname, PAGE, &out),
			 -ENAMETOOLONG);
	assert_int_equal(accel_dma_heap_alloc(env, "system", 0, &out), -EINVAL);
	assert_int_equal(accel_dma_heap_alloc(NULL, "system", PAGE, &out),
			 -EINVAL);
	assert_int_equal(accel_dma_heap_alloc(env, "system", PAGE, NULL),
			 -EINVAL);
	assert_int_equal(fo.opens, 0);
	assert_int_equal(out, 12345);
	accel_context_unref(ctx);
}

static void test_heap_absent(void **state)
{
	struct fake_open fo = { .result = -ENOENT };
	struct accel_context *ctx = fake_ctx(&fo);
	const struct accel_platform_env *env = accel_context_env(ctx);
	int out = 12345;
	(void)state;

	assert_int_equal(accel_dma_heap_alloc(env, "system", PAGE, &out),
			 -EOPNOTSUPP);
	assert_string_equal(fo.path, "/dev/dma_heap/system");
	assert_int_equal(fo.flags & O_ACCMODE, O_RDONLY);
	assert_true(fo.flags & O_CLOEXEC);

	fo.result = -EACCES;
	assert_int_equal(accel_dma_heap_alloc(env, "cma", PAGE, &out), -EACCES);
	assert_string_equal(fo.path, "/dev/dma_heap/cma");

	fo.result = 0;
	assert_int_equal(accel_dma_heap_alloc(env, "system", PAGE, &out),
			 -ENOTTY);
	assert_int_equal(fo.closes, 1);
	assert_int_equal(out, 12345);
	accel_context_unref(ctx);
}

static void test_available(void **state)
{
	(void)state;
	assert_int_equal(accel_udmabuf_available(),
			 access("/dev/udmabuf", R_OK | W_OK) == 0);
	assert_int_equal(accel_dma_heap_available("system"),
			 access("/dev/dma_heap/system", R_OK) == 0);
	assert_false(accel_dma_heap_available("no-such-heap-here"));
}

/* ---- the real thing, where the kernel has it ---------------------------- */

/* What every real dma-buf must do; @fd is @size bytes, page 0 holds @seed. */
static void check_real_dmabuf(int fd, uint64_t size, uint8_t seed)
{
	uint64_t got = 0;
	uint8_t *p;
	int sync_fd = -1, merged = -1;

	assert_int_equal(accel_dmabuf_check(fd), 0);
	assert_int_equal(accel_sync_file_check(fd), -EINVAL);
	assert_int_equal(accel_dmabuf_get_size(fd, &got), 0);
	assert_int_equal(got, size);
	assert_int_equal(accel_dmabuf_set_name(fd, "libaccel-unit"), 0);

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(accel_dmabuf_sync(fd, true, true, true), 0);
	assert_int_equal(p[0], seed);
	p[1] = (uint8_t)(seed + 1);
	assert_int_equal(accel_dmabuf_sync(fd, false, true, true), 0);
	munmap(p, size);

	/* Nothing attached: an already signalled sync_file. */
	assert_int_equal(accel_dmabuf_export_sync_file(fd, true, &sync_fd), 0);
	assert_int_equal(accel_sync_file_check(sync_fd), 0);
	assert_int_equal(accel_dmabuf_check(sync_fd), -ENOTTY);
	assert_int_equal(accel_sync_file_status(sync_fd), 1);
	assert_int_equal(accel_sync_file_wait(sync_fd, 0), 0);
	assert_int_equal(accel_sync_file_merge("m", sync_fd, sync_fd, &merged),
			 0);
	assert_int_equal(accel_sync_file_status(merged), 1);
	assert_true(fcntl(merged, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(accel_dmabuf_import_sync_file(fd, false, merged), 0);
	close(merged);
	close(sync_fd);
}

static void test_udmabuf_real(void **state)
{
	struct test_log log;
	const struct accel_platform_env *env;
	struct accel_context *ctx;
	int memfd, fd = -1;
	uint8_t *p;
	(void)state;

	if (!accel_udmabuf_available())
		skip();
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	env = accel_context_env(ctx);
	memfd = sealed_memfd(4 * PAGE);
	p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	assert_true(p != MAP_FAILED);
	p[PAGE] = 0x5a;

	/* The second and third page: same memory, no copy. */
	assert_int_equal(accel_udmabuf_create(env, memfd, PAGE, 2 * PAGE, &fd),
			 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	check_real_dmabuf(fd, 2 * PAGE, 0x5a);
	assert_int_equal(p[PAGE + 1], 0x5b);

	close(fd);
	munmap(p, 4 * PAGE);
	close(memfd);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

static void test_heap_real(void **state)
{
	struct test_log log;
	const struct accel_platform_env *env;
	struct accel_context *ctx;
	int fd = -1;
	(void)state;

	if (!accel_dma_heap_available("system"))
		skip();
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	env = accel_context_env(ctx);
	/* Rounded up to whole pages by the heap. */
	assert_int_equal(accel_dma_heap_alloc(env, "system", 3 * PAGE - 5, &fd),
			 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	/* Heap memory starts zeroed. */
	check_real_dmabuf(fd, 3 * PAGE, 0);
	close(fd);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

/* ---- the CPU device ----------------------------------------------------- */

static void test_cpu_caps(void **state)
{
	struct test_env *env = *state;
	uint64_t caps = test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS);
	bool can_export = accel_udmabuf_available() ||
			  accel_dma_heap_available("system");

	assert_true(caps & ACCEL_DEVICE_CAP_DMABUF_IMPORT);
	assert_true(caps & ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT);
	assert_int_equal(!!(caps & ACCEL_DEVICE_CAP_DMABUF_EXPORT), can_export);
}

static void test_cpu_heap_buffer(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = TEST_SENTINEL_PTR;
	int r;

	r = accel_buffer_new(env->dev, 10000, ACCEL_BUFFER_DMA_HEAP, &buf);
	if (!accel_dma_heap_available("system")) {
		assert_int_equal(r, -EOPNOTSUPP);
		assert_ptr_equal(buf, TEST_SENTINEL_PTR);
		return;
	}
	assert_int_equal(r, 0);
	assert_true(buf->dmabuf_fd >= 0);
	assert_int_equal(accel_dmabuf_check(buf->dmabuf_fd), 0);
	assert_int_equal(((uint8_t *)buf->host_ptr)[9999], 0);
	accel_buffer_unref(buf);
}

/* Export ranges: alignment is checked before udmabuf is even looked for. */
static void test_cpu_export_ranges(void **state)
{
	struct fake_open fo = { .result = -ENOENT };
	struct accel_context *ctx = fake_ctx(&fo);
	struct accel_device *dev;
	struct accel_buffer *buf, *user;
	static uint8_t mem[2 * PAGE];
	int out = 12345;
	(void)state;

	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	/* Enumeration may have opened device nodes (DRM) through it. */
	fo.opens = 0;
	assert_int_equal(accel_buffer_new(dev, 10000, 0, &buf), 0);
	assert_true(buf->memfd >= 0);

	assert_int_equal(cpu_buffer_export_dmabuf(buf, 128, PAGE, &out),
			 -EINVAL);
	assert_int_equal(cpu_buffer_export_dmabuf(buf, 0, 100, &out), -EINVAL);
	assert_int_equal(fo.opens, 0);
	/* The whole buffer, and its tail: whole pages of the memfd. */
	assert_int_equal(cpu_buffer_export_dmabuf(buf, 0, 10000, &out),
			 -EOPNOTSUPP);
	assert_int_equal(cpu_buffer_export_dmabuf(buf, PAGE, 10000 - PAGE,
						  &out),
			 -EOPNOTSUPP);
	assert_int_equal(cpu_buffer_export_dmabuf(buf, 0, PAGE, &out),
			 -EOPNOTSUPP);
	assert_int_equal(fo.opens, 3);
	assert_int_equal(out, 12345);

	/* User memory has nothing the kernel could wrap. */
	assert_int_equal(accel_buffer_new_user_ptr(dev, mem, sizeof(mem), 0,
						   &user),
			 0);
	assert_int_equal(cpu_buffer_export_dmabuf(user, 0, sizeof(mem), &out),
			 -EOPNOTSUPP);
	assert_int_equal(fo.opens, 3);

	accel_buffer_unref(user);
	accel_buffer_unref(buf);
	accel_device_unref(dev);
	accel_context_unref(ctx);
}

/*
 * The import's mapping rules, with a memfd standing in for the dma-buf
 * (mmap is all the CPU device does with it).
 */
static void import_as(int fd, uint32_t flags, bool expect_ro)
{
	struct accel_buffer *buf = calloc(1, sizeof(*buf));

	assert_non_null(buf);
	buf->size = 2 * PAGE;
	buf->flags = flags;
	buf->memfd = -1;
	buf->dmabuf_fd = fd;
	buf->imported = true;
	assert_int_equal(cpu_buffer_import_dmabuf(buf), 0);
	assert_non_null(buf->host_ptr);
	assert_int_equal(buf->readonly_mapping, expect_ro);
	assert_int_equal(((uint8_t *)buf->host_ptr)[PAGE], 0x77);
	if (!expect_ro)
		((uint8_t *)buf->host_ptr)[PAGE + 1] = 0x78;
	cpu_buffer_free(buf);
	assert_null(buf->host_ptr);
	free(buf);
}

static void test_cpu_import_mapping(void **state)
{
	const uint32_t ro = ACCEL_BUFFER_READ_ONLY;
	int rw = sealed_memfd(2 * PAGE), rdonly, wronly;
	char path[64];
	uint8_t b = 0x77;
	(void)state;

	assert_int_equal(pwrite(rw, &b, 1, PAGE), 1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rw);
	rdonly = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(rdonly >= 0);
	wronly = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(wronly >= 0);

	import_as(rw, 0, false);
	assert_int_equal(pread(rw, &b, 1, PAGE + 1), 1);
	assert_int_equal(b, 0x78);
	import_as(rw, ro, false); /* the core adds HOST_READ_ONLY */
	import_as(rw, ACCEL_BUFFER_HOST_READ_ONLY, false);
	import_as(rw, ro | ACCEL_BUFFER_HOST_READ_ONLY, true);
	import_as(rw, ro | ACCEL_BUFFER_HOST_NO_ACCESS, true);
	import_as(rdonly, 0, true);
	import_as(rdonly, ro | ACCEL_BUFFER_HOST_READ_ONLY, true);

	/* Nothing can be read through a write-only fd: mmap says EACCES. */
	{
		struct accel_buffer *buf = calloc(1, sizeof(*buf));

		assert_non_null(buf);
		buf->size = PAGE;
		buf->memfd = -1;
		buf->dmabuf_fd = wronly;
		assert_int_equal(cpu_buffer_import_dmabuf(buf), -EACCES);
		assert_null(buf->host_ptr);
		free(buf);
	}
	close(wronly);
	close(rdonly);
	close(rw);
}

int main(void)
{
	const struct CMUnitTest platform[] = {
		cmocka_unit_test(test_check_not_dmabuf),
		cmocka_unit_test(test_get_size),
		cmocka_unit_test(test_ioctls_not_dmabuf),
		cmocka_unit_test(test_udmabuf_args),
		cmocka_unit_test(test_udmabuf_absent),
		cmocka_unit_test(test_udmabuf_not_a_device),
		cmocka_unit_test(test_heap_args),
		cmocka_unit_test(test_heap_absent),
		cmocka_unit_test(test_available),
		cmocka_unit_test(test_udmabuf_real),
		cmocka_unit_test(test_heap_real),
	};
	const struct CMUnitTest cpu[] = {
		cmocka_unit_test_setup_teardown(test_cpu_caps, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_heap_buffer,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test(test_cpu_export_ranges),
		cmocka_unit_test(test_cpu_import_mapping),
	};
	int r = 0;

	r |= TEST_RUN_GROUP("platform-dmabuf", platform);
	r |= TEST_RUN_GROUP("cpu-dmabuf", cpu);
	return r ? 1 : 0;
}
