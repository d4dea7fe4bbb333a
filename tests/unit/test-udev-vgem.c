/* SPDX-License-Identifier: MIT */
/*
 * Real discovery and the DRM backend on a real vgem device: meant for the
 * kernel test tier (Debian's 6.12 kernel in QEMU, vgem loaded, run as
 * root). Skips (77) where discovery finds no vgem, as on build hosts.
 *
 * Internal: it looks at the backend's GEM handles to prove that a handle
 * shared by several buffers is closed only with the last of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "test-common.h"

#include "backend.h"
#include "backends/drm/drm-private.h"

/* vgem's fence ioctls: the kernel UAPI header libaccel vendors. */
#include "uapi/drm/vgem_drm.h"

#define MIB (1024u * 1024u)

struct env {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *dev;  /* the vgem device */
	struct accel_device *cpu;
	struct accel_queue *queue; /* on dev */
};

/* The first device of @backend, or NULL. */
static struct accel_device *find_device(struct accel_context *ctx,
					const char *backend)
{
	struct accel_device *devs[8], *found = NULL;
	int n, i;

	n = accel_context_get_devices(ctx, devs, TEST_ARRAY_SIZE(devs));
	for (i = 0; i < n && i < (int)TEST_ARRAY_SIZE(devs); i++) {
		const char *b;

		if (!found && accel_device_query_string(devs[i],
				ACCEL_DEVICE_STRING_BACKEND, &b) == 0 &&
		    !strcmp(b, backend))
			found = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return found;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Threads of this process whose name starts with @name. */
static unsigned count_threads(const char *name)
{
	char path[300], comm[32];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir;

	dir = opendir("/proc/self/task");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, name, strlen(name)))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * A device whose last reference a completion drops is freed on its own
 * worker after the test's waits returned: wait until no worker is left and
 * the process holds the group's fds again, so that each test starts from
 * the same fds (and a real leak still fails, here or in the group check).
 */
static bool settle(void)
{
	uint64_t t0;

	for (t0 = now_ms(); count_threads("accel-drm") && now_ms() - t0 < 20000;)
		usleep(10000);
	return !count_threads("accel-drm") && test_group_fds_settle(20000);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	test_log_init(&e->log);
	if (test_context_new(&e->log, &e->ctx) < 0)
		return -1;
	e->dev = find_device(e->ctx, "drm");
	e->cpu = find_device(e->ctx, "cpu");
	if (!e->dev || !e->cpu || accel_queue_new(e->dev, 0, &e->queue) < 0)
		return -1;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	accel_queue_unref(e->queue);
	accel_device_unref(e->cpu);
	accel_device_unref(e->dev);
	accel_context_unref(e->ctx);
	test_log_fini(&e->log);
	free(e);
	return settle() ? 0 : -1;
}

static struct accel_buffer *new_buffer(struct accel_device *dev, uint64_t size)
{
	struct accel_buffer *buf = NULL;

	assert_int_equal(accel_buffer_new(dev, size, 0, &buf), 0);
	return buf;
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed + (i >> 12));
}

static void write_wait(struct accel_queue *q, struct accel_buffer *buf,
		       uint64_t off, uint64_t size, const void *src)
{
	struct accel_fence *f;

	assert_int_equal(accel_queue_write(q, buf, off, size, src, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
}

static void read_wait(struct accel_queue *q, struct accel_buffer *buf,
		      uint64_t off, uint64_t size, void *dst)
{
	struct accel_fence *f;

	assert_int_equal(accel_queue_read(q, buf, off, size, dst, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
}

static uint32_t handle_of(struct accel_buffer *buf)
{
	return ((struct gem_buffer *)accel_buffer_root(buf)->backend_data)
		->handle;
}

static int card_fd(struct accel_device *dev)
{
	return ((struct drm_device *)dev->backend_data)->gem.fd;
}

/* Is @handle open on the device's file? (PRIME export succeeds.) */
static bool handle_alive(struct accel_device *dev, uint32_t handle)
{
	int fd;

	if (drmPrimeHandleToFD(card_fd(dev), handle, DRM_CLOEXEC, &fd))
		return false;
	close(fd);
	return true;
}

/* ---- the device ---------------------------------------------------------- */

static void test_properties(void **state)
{
	struct env *e = *state;
	uint64_t caps = test_dev_u64(e->dev, ACCEL_DEVICE_U64_CAPS);
	const char *s;
	int i;

	assert_int_equal(test_dev_u64(e->dev, ACCEL_DEVICE_U64_TYPE),
			 ACCEL_DEVICE_TYPE_GPU);
	/* vgem fences make the context's fences exportable as sync_files. */
	assert_int_equal(caps, ACCEL_DEVICE_CAP_DMABUF_EXPORT |
				       ACCEL_DEVICE_CAP_DMABUF_IMPORT |
				       ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT);
	assert_int_equal(test_dev_u64(e->dev, ACCEL_DEVICE_U64_COMPUTE_UNITS),
			 0);
	assert_int_equal(test_dev_u64(e->dev, ACCEL_DEVICE_U64_VENDOR_ID), 0);
	/* vgem's buffers are system RAM: the size is the RAM's. */
	assert_true(test_dev_u64(e->dev, ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE) >
		    64 * MIB);
	assert_true(test_dev_u64(e->dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE) >=
		    64 * MIB);
	assert_true(test_dev_u64(e->dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE) <=
		    0x100000000ull - 4096);
	assert_int_equal(
		test_dev_u64(e->dev, ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE), 1);

	assert_int_equal(accel_device_query_string(e->dev,
			ACCEL_DEVICE_STRING_DRIVER, &s), 0);
	assert_string_equal(s, "vgem");
	/* Its candidate too, though no driver is bound to its parent. */
	for (i = 0; i < accel_context_get_candidate_count(e->ctx); i++) {
		assert_int_equal(accel_context_get_candidate_string(e->ctx,
			(size_t)i, ACCEL_CANDIDATE_STRING_SYSNAME, &s), 0);
		if (strcmp(s, "card0"))
			continue;
		assert_int_equal(accel_context_get_candidate_string(e->ctx,
			(size_t)i, ACCEL_CANDIDATE_STRING_DRIVER, &s), 0);
		assert_string_equal(s, "vgem");
		break;
	}
	assert_true(i < accel_context_get_candidate_count(e->ctx));
	assert_int_equal(accel_device_query_string(e->dev,
			ACCEL_DEVICE_STRING_BACKEND, &s), 0);
	assert_string_equal(s, "drm");
	assert_int_equal(accel_device_query_string(e->dev,
			ACCEL_DEVICE_STRING_DEVNODE, &s), 0);
	assert_string_equal(s, "/dev/dri/card0");
	assert_int_equal(accel_device_query_string(e->dev,
			ACCEL_DEVICE_STRING_SYSPATH, &s), 0);
	assert_non_null(strstr(s, "/vgem/drm/card0"));
	assert_int_equal(accel_device_query_string(e->dev,
			ACCEL_DEVICE_STRING_DRIVER_VERSION, &s), 0);
	assert_true(strchr(s, '.') != NULL);
	assert_int_equal(accel_device_query_string(e->dev,
			ACCEL_DEVICE_STRING_NAME, &s), 0);
	printf("# %s, driver version ", s);
	accel_device_query_string(e->dev, ACCEL_DEVICE_STRING_DRIVER_VERSION,
				  &s);
	printf("%s\n", s);
}

/* ---- transfers ------------------------------------------------------------ */

static void test_transfers(void **state)
{
	struct env *e = *state;
	const size_t size = MIB + 123;
	uint8_t *src = malloc(size), *dst = malloc(size);
	struct accel_buffer *a = new_buffer(e->dev, size);
	struct accel_buffer *b = new_buffer(e->dev, size);
	struct accel_buffer *sub;
	const uint32_t word = 0xa5c3e1f0;
	struct accel_fence *f;
	uint8_t *p;
	size_t i;

	assert_non_null(src);
	assert_non_null(dst);

	/* Dumb buffers start zeroed. */
	read_wait(e->queue, a, 0, size, dst);
	for (i = 0; i < size; i++)
		assert_int_equal(dst[i], 0);

	pattern(src, size, 7);
	write_wait(e->queue, a, 0, size, src);
	memset(dst, 0, size);
	read_wait(e->queue, a, 0, size, dst);
	assert_memory_equal(src, dst, size);

	/* The host map sees the same bytes (zero-copy). */
	assert_int_equal(accel_buffer_map(a, 4096, 1000, ACCEL_MAP_READ,
					  (void **)&p), 0);
	assert_memory_equal(p, src + 4096, 1000);
	assert_int_equal(accel_buffer_unmap(a, p), 0);

	/* copy a -> b, then fill part of b with a 4-byte pattern */
	assert_int_equal(accel_queue_copy(e->queue, a, 0, b, 0, size, 0, NULL,
					  NULL), 0);
	assert_int_equal(accel_queue_fill(e->queue, b, 8192, 65536, &word,
					  sizeof(word), 0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
	read_wait(e->queue, b, 0, size, dst);
	assert_memory_equal(dst, src, 8192);
	for (i = 8192; i < 8192 + 65536; i += 4)
		assert_memory_equal(dst + i, &word, 4);
	assert_memory_equal(dst + 8192 + 65536, src + 8192 + 65536,
			    size - 8192 - 65536);

	/* A sub-buffer reads its range of the parent. */
	assert_int_equal(accel_buffer_new_sub(a, 128 * 3, 5000, 0, &sub), 0);
	read_wait(e->queue, sub, 0, 5000, dst);
	assert_memory_equal(dst, src + 128 * 3, 5000);
	accel_buffer_unref(sub);

	assert_int_equal(accel_queue_finish(e->queue), 0);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
	free(src);
	free(dst);
}

/* No program can exist for the device. */
static void test_no_kernels(void **state)
{
	struct env *e = *state;

	assert_int_equal(test_dev_u64(e->dev, ACCEL_DEVICE_U64_CAPS) &
				 (ACCEL_DEVICE_CAP_COMPILER |
				  ACCEL_DEVICE_CAP_NATIVE_KERNELS |
				  ACCEL_DEVICE_CAP_BUILT_IN_KERNELS |
				  ACCEL_DEVICE_CAP_USER_PTR |
				  ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY),
			 0);
}

/* ---- PRIME ---------------------------------------------------------------- */

/* Export, import into the same device: one GEM handle, two buffers. */
static void test_self_import(void **state)
{
	struct env *e = *state;
	const size_t size = 3 * 4096 + 17;
	uint8_t src[3 * 4096 + 17], dst[3 * 4096 + 17];
	struct accel_buffer *a = new_buffer(e->dev, size), *b;
	uint32_t handle;
	int fd;

	pattern(src, size, 3);
	write_wait(e->queue, a, 0, size, src);
	assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
	assert_int_equal(accel_buffer_import_dmabuf(e->dev, fd, 0, &b), 0);
	close(fd);
	/* The dma-buf is whole pages. */
	assert_int_equal(accel_buffer_get_size(b), 4 * 4096);
	handle = handle_of(a);
	assert_int_equal(handle_of(b), handle);

	read_wait(e->queue, b, 0, size, dst);
	assert_memory_equal(src, dst, size);

	/* The handle survives the first buffer... */
	accel_buffer_unref(a);
	assert_true(handle_alive(e->dev, handle));
	memset(dst, 0, size);
	read_wait(e->queue, b, 0, size, dst);
	assert_memory_equal(src, dst, size);
	/* ...and goes with the last. */
	accel_buffer_unref(b);
	assert_false(handle_alive(e->dev, handle));
}

static void test_import_twice(void **state)
{
	struct env *e = *state;
	struct accel_buffer *a = new_buffer(e->dev, 4096), *b, *c;
	uint32_t handle = handle_of(a), v = 0x12345678, r = 0;

	/* Two imports of one dma-buf: one handle, closed with the last. */
	int fd;

	assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
	/* The dma-buf keeps the object, but this file's handle goes. */
	accel_buffer_unref(a);
	assert_false(handle_alive(e->dev, handle));
	assert_int_equal(accel_buffer_import_dmabuf(e->dev, fd, 0, &b), 0);
	assert_int_equal(accel_buffer_import_dmabuf(e->dev, fd, 0, &c), 0);
	assert_int_equal(handle_of(b), handle_of(c));
	write_wait(e->queue, b, 0, 4, &v);
	accel_buffer_unref(b);
	assert_true(handle_alive(e->dev, handle_of(c)));
	read_wait(e->queue, c, 0, 4, &r);
	assert_int_equal(r, v);
	handle = handle_of(c);
	accel_buffer_unref(c);
	assert_false(handle_alive(e->dev, handle));
	close(fd);
}

/* A read-only import: reads work, writes are refused cleanly. */
static void test_readonly_import(void **state)
{
	struct env *e = *state;
	struct accel_buffer *a = new_buffer(e->dev, 4096), *ro;
	uint32_t v = 0xfeedbeef, r = 0;
	struct accel_fence *f = NULL;
	void *p;
	int fd;

	write_wait(e->queue, a, 0, 4, &v);
	assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
	assert_int_equal(accel_buffer_import_dmabuf(e->dev, fd,
						    ACCEL_BUFFER_READ_ONLY,
						    &ro), 0);
	close(fd);
	read_wait(e->queue, ro, 0, 4, &r);
	assert_int_equal(r, v);
	assert_int_equal(accel_queue_write(e->queue, ro, 0, 4, &v, 0, NULL, &f),
			 -EACCES);
	assert_null(f);
	assert_int_equal(accel_queue_fill(e->queue, ro, 0, 4, &v, 4, 0, NULL,
					  NULL), -EACCES);
	assert_int_equal(accel_buffer_map(ro, 0, 4, ACCEL_MAP_WRITE, &p),
			 -EACCES);
	accel_buffer_unref(ro);
	accel_buffer_unref(a);
}

/* Sub-ranges are not PRIME's business. */
static void test_export_range(void **state)
{
	struct env *e = *state;
	struct accel_buffer *a = new_buffer(e->dev, 3 * 4096), *sub;
	int fd = -1;

	assert_int_equal(accel_buffer_new_sub(a, 4096, 4096, 0, &sub), 0);
	assert_int_equal(accel_buffer_export_dmabuf(sub, 0, &fd), -EOPNOTSUPP);
	assert_int_equal(fd, -1);
	accel_buffer_unref(sub);
	accel_buffer_unref(a);
}

/* vgem <-> the CPU device, both ways, where the CPU device can. */
static void test_cpu_peer(void **state)
{
	struct env *e = *state;
	uint64_t cpu_caps = test_dev_u64(e->cpu, ACCEL_DEVICE_U64_CAPS);
	struct accel_queue *cq;
	struct accel_buffer *g, *c;
	uint8_t src[8192], dst[8192];
	int fd;

	assert_int_equal(accel_queue_new(e->cpu, 0, &cq), 0);
	pattern(src, sizeof(src), 11);

	if (cpu_caps & ACCEL_DEVICE_CAP_DMABUF_IMPORT) {
		/* GPU buffer, written here, read by the CPU device. */
		g = new_buffer(e->dev, sizeof(src));
		write_wait(e->queue, g, 0, sizeof(src), src);
		assert_int_equal(accel_buffer_export_dmabuf(g, 0, &fd), 0);
		assert_int_equal(accel_buffer_import_dmabuf(e->cpu, fd, 0, &c),
				 0);
		close(fd);
		read_wait(cq, c, 0, sizeof(dst), dst);
		assert_memory_equal(src, dst, sizeof(src));
		/* and back */
		pattern(src, sizeof(src), 12);
		write_wait(cq, c, 0, sizeof(src), src);
		read_wait(e->queue, g, 0, sizeof(dst), dst);
		assert_memory_equal(src, dst, sizeof(src));
		accel_buffer_unref(c);
		accel_buffer_unref(g);
	} else {
		printf("# the CPU device cannot import dma-bufs yet\n");
	}

	if (cpu_caps & ACCEL_DEVICE_CAP_DMABUF_EXPORT) {
		/* CPU buffer (udmabuf), imported by vgem. */
		c = new_buffer(e->cpu, sizeof(src));
		pattern(src, sizeof(src), 13);
		write_wait(cq, c, 0, sizeof(src), src);
		assert_int_equal(accel_buffer_export_dmabuf(c, 0, &fd), 0);
		assert_int_equal(accel_buffer_import_dmabuf(e->dev, fd, 0, &g),
				 0);
		close(fd);
		read_wait(e->queue, g, 0, sizeof(dst), dst);
		assert_memory_equal(src, dst, sizeof(src));
		accel_buffer_unref(g);
		accel_buffer_unref(c);
	} else {
		printf("# the CPU device cannot export dma-bufs yet\n");
	}
	accel_queue_unref(cq);
}

/* Many export/import cycles leave no fd and no handle behind. */
static void test_cycles(void **state)
{
	struct env *e = *state;
	struct accel_buffer *a = new_buffer(e->dev, 4096), *b;
	int fds = test_count_fds(), i, fd;

	for (i = 0; i < 2000; i++) {
		struct accel_buffer *n = new_buffer(e->dev, 4096);

		assert_int_equal(accel_buffer_export_dmabuf(n, 0, &fd), 0);
		assert_int_equal(accel_buffer_import_dmabuf(e->dev, fd, 0, &b),
				 0);
		close(fd);
		accel_buffer_unref(n);
		accel_buffer_unref(b);
		/* and one long-lived buffer exported again and again */
		assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
		close(fd);
	}
	accel_buffer_unref(a);
	assert_int_equal(test_count_fds(), fds);
	assert_int_equal(
		((struct drm_device *)e->dev->backend_data)->gem.n_handles, 0);
}

/* ---- implicit sync -------------------------------------------------------- */

/* A write fence vgem holds on the buffer delays our read until signalled. */
static void test_implicit_sync(void **state)
{
	struct env *e = *state;
	struct accel_buffer *a = new_buffer(e->dev, 4096);
	struct drm_vgem_fence_attach attach = { 0 };
	struct drm_vgem_fence_signal sig = { 0 };
	uint32_t v = 42, r = 0;
	struct accel_fence *f;
	uint64_t t0;
	int fd;

	write_wait(e->queue, a, 0, 4, &v);
	/* Exported: from now on accesses are bracketed and wait for fences. */
	assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
	attach.handle = handle_of(a);
	attach.flags = VGEM_FENCE_WRITE;
	assert_int_equal(ioctl(card_fd(e->dev), DRM_IOCTL_VGEM_FENCE_ATTACH,
			       &attach), 0);

	t0 = now_ms();
	assert_int_equal(accel_queue_read(e->queue, a, 0, 4, &r, 0, NULL, &f),
			 0);
	/* Still waiting for the "GPU" (its fence self-signals after 10 s). */
	assert_int_equal(accel_fence_wait(f, 300 * 1000000ll), -ETIME);

	sig.fence = attach.out_fence;
	assert_int_equal(ioctl(card_fd(e->dev), DRM_IOCTL_VGEM_FENCE_SIGNAL,
			       &sig), 0);
	assert_int_equal(test_wait_unref(f), 0);
	assert_int_equal(r, v);
	assert_true(now_ms() - t0 < 5000);
	close(fd);
	accel_buffer_unref(a);
}

/* ---- teardown from the worker ------------------------------------------- */

/*
 * Drop every reference while a long fill runs: the last one goes on the
 * worker itself, which must free the device and itself, not deadlock.
 */
static void test_destroy_on_worker(void **state)
{
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_queue *q;
	struct accel_buffer *buf;
	struct test_log log;
	uint8_t byte = 0x5a;
	unsigned before;
	uint64_t t0;

	(void)state;
	/* The previous test's teardown waited for its worker (settle()). */
	before = count_threads("accel-drm");
	assert_int_equal(before, 0);
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	dev = find_device(ctx, "drm");
	assert_non_null(dev);
	assert_int_equal(accel_queue_new(dev, 0, &q), 0);
	buf = new_buffer(dev, 64 * MIB);
	assert_int_equal(accel_queue_fill(q, buf, 0, 64 * MIB, &byte, 1, 0,
					  NULL, NULL), 0);
	accel_buffer_unref(buf);
	accel_queue_unref(q);
	accel_device_unref(dev);
	accel_context_unref(ctx);

	/* Its worker exits (joined, or detached on itself) and frees all. */
	for (t0 = now_ms();
	     count_threads("accel-drm") > before && now_ms() - t0 < 20000;)
		usleep(10000);
	assert_int_equal(count_threads("accel-drm"), before);
	/* ... having closed the device's fds (the group's check is next). */
	assert_true(test_group_fds_settle(20000));
	test_log_fini(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_properties, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_kernels, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_transfers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_self_import, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_import_twice, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_readonly_import, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_export_range, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cpu_peer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_implicit_sync, setup,
						teardown),
		cmocka_unit_test(test_destroy_on_worker),
	};
	struct accel_context *ctx;
	struct accel_device *dev;

	if (accel_context_new(0, &ctx) < 0)
		return 1;
	dev = find_device(ctx, "drm");
	accel_device_unref(dev);
	accel_context_unref(ctx);
	if (!dev) {
		printf("# SKIP: no vgem device found (needs the kernel test tier; ACCEL_LOG=debug says why)\n");
		return TEST_EXIT_SKIP;
	}
	return TEST_RUN_GROUP("udev-vgem", tests);
}
