/* SPDX-License-Identifier: MIT */
/*
 * The GEM layer (libaccel/backends/gem/) against a fake DRM node: a
 * wrapped accel_ioctl answers VERSION, GET_CAP, PRIME, GEM_CLOSE and
 * syncobj ioctls on one eventfd as a driver would, and records what it
 * was asked. Dma-bufs are
 * memfds (mappable like one). On any host: what the DRM and accel-node
 * backends share is checked here without vgem or refaccel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <unistd.h>

#include "test-common.h"

#include "backend.h"
#include "backends/gem/gem.h"

#define MAX_BUFS 16

static struct {
	int node;                    /* the fake node's fd */
	unsigned long fail_request;  /* this request fails ... */
	int fail_errno;              /* ... with this (negative) */
	int dmabufs[MAX_BUFS];       /* imported, index = handle - 1 */
	int n_dmabufs;
	uint32_t n_closed, last_closed;
	struct drm_prime_handle last_export;
	uint32_t next_syncobj;
	struct drm_syncobj_create last_create;
	struct drm_syncobj_handle last_syncobj_fd;
	uint32_t destroyed;
	uint32_t reset[8], n_reset;
} fk;

/* What DRM_IOCTL_VERSION says: a description longer than gem keeps. */
#define FAKE_NAME "fakegem"
#define FAKE_DESC_LEN 300

int __real_accel_ioctl(int fd, unsigned long request, void *arg);
int __wrap_accel_ioctl(int fd, unsigned long request, void *arg);

static bool same_file(int a, int b)
{
	pid_t pid = getpid();

	return syscall(SYS_kcmp, pid, pid, KCMP_FILE, a, b) == 0;
}

/* One handle per open file, as GEM gives. */
static int fake_fd_to_handle(struct drm_prime_handle *p)
{
	int i;

	for (i = 0; i < fk.n_dmabufs; i++) {
		if (same_file(fk.dmabufs[i], p->fd)) {
			p->handle = (uint32_t)i + 1;
			return 0;
		}
	}
	if (fk.n_dmabufs == MAX_BUFS)
		return -ENOSPC;
	fk.dmabufs[fk.n_dmabufs] = fcntl(p->fd, F_DUPFD_CLOEXEC, 3);
	p->handle = (uint32_t)++fk.n_dmabufs;
	return 0;
}

/* As the kernel does: copy at most the lengths given, report the full. */
static int fake_version(struct drm_version *v)
{
	char desc[FAKE_DESC_LEN];
	size_t n;

	memset(desc, 'd', sizeof(desc));
	v->version_major = 1;
	v->version_minor = 2;
	v->version_patchlevel = 3;
	n = strlen(FAKE_NAME);
	memcpy(v->name, FAKE_NAME, MIN(n, v->name_len));
	v->name_len = n;
	memcpy(v->desc, desc, MIN(sizeof(desc), v->desc_len));
	v->desc_len = sizeof(desc);
	v->date_len = 0;
	return 0;
}

static int fake_get_cap(struct drm_get_cap *cap)
{
	if (cap->capability != DRM_CAP_PRIME)
		return -EINVAL;
	cap->value = DRM_PRIME_CAP_IMPORT;
	return 0;
}

int __wrap_accel_ioctl(int fd, unsigned long request, void *arg)
{
	if (fd != fk.node)
		return __real_accel_ioctl(fd, request, arg);
	if (request == fk.fail_request)
		return fk.fail_errno;
	switch (request) {
	case DRM_IOCTL_VERSION:
		return fake_version(arg);
	case DRM_IOCTL_GET_CAP:
		return fake_get_cap(arg);
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
		return fake_fd_to_handle(arg);
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
		fk.last_export = *(struct drm_prime_handle *)arg;
		((struct drm_prime_handle *)arg)->fd =
			memfd_create("fake-dmabuf", MFD_CLOEXEC);
		return 0;
	case DRM_IOCTL_GEM_CLOSE:
		fk.n_closed++;
		fk.last_closed = ((struct drm_gem_close *)arg)->handle;
		return 0;
	case DRM_IOCTL_SYNCOBJ_CREATE:
		fk.last_create = *(struct drm_syncobj_create *)arg;
		((struct drm_syncobj_create *)arg)->handle = ++fk.next_syncobj;
		return 0;
	case DRM_IOCTL_SYNCOBJ_DESTROY:
		fk.destroyed = ((struct drm_syncobj_destroy *)arg)->handle;
		return 0;
	case DRM_IOCTL_SYNCOBJ_RESET: {
		struct drm_syncobj_array *a = arg;

		assert_true(a->count_handles <= 8);
		fk.n_reset = a->count_handles;
		memcpy(fk.reset, (const void *)(uintptr_t)a->handles,
		       a->count_handles * sizeof(uint32_t));
		return 0;
	}
	case DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD:
		fk.last_syncobj_fd = *(struct drm_syncobj_handle *)arg;
		((struct drm_syncobj_handle *)arg)->fd =
			eventfd(0, EFD_CLOEXEC);
		return 0;
	case DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE:
		fk.last_syncobj_fd = *(struct drm_syncobj_handle *)arg;
		return 0;
	default:
		return -ENOTTY;
	}
}

struct env {
	struct accel_context *ctx;
	struct accel_device dev;
	struct gem_device gem;
	int fds;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->fds = test_count_fds();
	memset(&fk, 0, sizeof(fk));
	fk.node = eventfd(0, EFD_CLOEXEC);
	assert_true(fk.node >= 0);
	assert_int_equal(accel_context_new(0, &e->ctx), 0);
	e->dev.ctx = e->ctx;
	/* A GEM backend's device data begins with its gem_device. */
	e->dev.backend_data = &e->gem;
	gem_device_init(&e->gem, fk.node,
			DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	int i;

	assert_int_equal(e->gem.n_handles, 0);
	gem_device_fini(&e->gem);
	accel_context_unref(e->ctx);
	for (i = 0; i < fk.n_dmabufs; i++)
		close(fk.dmabufs[i]);
	close(fk.node);
	assert_int_equal(test_count_fds(), e->fds);
	free(e);
	return 0;
}

static int memfd_of(size_t size)
{
	int fd = memfd_create("dmabuf", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	return fd;
}

/* ---- handle table -------------------------------------------------------- */

/* The same dma-buf twice: one handle, closed after its last user only. */
static void test_import_counts(void **state)
{
	struct env *e = *state;
	int a = memfd_of(4096), a2 = dup(a), b = memfd_of(4096);
	uint32_t h1 = 0, h2 = 0, h3 = 0;

	assert_int_equal(gem_handle_import(&e->gem, a, &h1), 0);
	assert_int_equal(gem_handle_import(&e->gem, a2, &h2), 0);
	assert_int_equal(gem_handle_import(&e->gem, b, &h3), 0);
	assert_int_equal(h1, h2);
	assert_int_not_equal(h1, h3);
	assert_int_equal(e->gem.n_handles, 2);

	gem_handle_put(&e->gem, h1);
	assert_int_equal(fk.n_closed, 0);
	gem_handle_put(&e->gem, h2);
	assert_int_equal(fk.n_closed, 1);
	assert_int_equal(fk.last_closed, h1);
	gem_handle_put(&e->gem, h3);
	assert_int_equal(fk.n_closed, 2);
	assert_int_equal(fk.last_closed, h3);
	close(a);
	close(a2);
	close(b);
}

/* A failing import: its errno, nothing counted, the handle untouched. */
static void test_import_error(void **state)
{
	struct env *e = *state;
	int a = memfd_of(4096);
	uint32_t h = 0xdead;

	fk.fail_request = DRM_IOCTL_PRIME_FD_TO_HANDLE;
	fk.fail_errno = -EBADF;
	assert_int_equal(gem_handle_import(&e->gem, a, &h), -EBADF);
	assert_int_equal(h, 0xdead);
	assert_int_equal(e->gem.n_handles, 0);
	assert_int_equal(fk.n_closed, 0);
	close(a);
}

static int fake_create(int fd, void *arg, uint32_t *ret_handle)
{
	int *result = arg;

	assert_int_equal(fd, fk.node);
	if (*result < 0)
		return *result;
	*ret_handle = 77;
	return 0;
}

static void test_create(void **state)
{
	struct env *e = *state;
	uint32_t h = 0xdead;
	int result = -ENOSPC;

	assert_int_equal(gem_handle_create(&e->gem, fake_create, &result, &h),
			 -ENOSPC);
	assert_int_equal(h, 0xdead);
	assert_int_equal(fk.n_closed, 0);

	result = 0;
	assert_int_equal(gem_handle_create(&e->gem, fake_create, &result, &h),
			 0);
	assert_int_equal(h, 77);
	assert_int_equal(e->gem.n_handles, 1);
	gem_handle_put(&e->gem, h);
	assert_int_equal(fk.n_closed, 1);
	assert_int_equal(fk.last_closed, 77);
}

/* ---- buffers ------------------------------------------------------------ */

static void buffer_init(struct env *e, struct accel_buffer *buf, int fd,
			uint64_t size, uint32_t flags)
{
	memset(buf, 0, sizeof(*buf));
	buf->dev = &e->dev;
	buf->size = size;
	buf->flags = flags;
	buf->dmabuf_fd = fd;
}

/* Imported and mapped through the dma-buf, page-rounded, writable. */
static void test_buffer_import_map(void **state)
{
	struct env *e = *state;
	struct accel_buffer buf;
	int fd = memfd_of(8192);
	char back[4] = { 0 };
	struct gem_buffer *b;

	buffer_init(e, &buf, fd, 5000, 0);
	assert_int_equal(gem_buffer_import(&buf, true), 0);
	b = buf.backend_data;
	assert_non_null(b);
	assert_ptr_equal(buf.host_ptr, b->map);
	assert_int_equal(b->map_len % (size_t)sysconf(_SC_PAGESIZE), 0);
	assert_true(b->map_len >= 5000);
	assert_false(buf.readonly_mapping);
	memcpy((char *)buf.host_ptr + 4096, "gem", 4);
	assert_int_equal(pread(fd, back, 4, 4096), 4);
	assert_string_equal(back, "gem");

	gem_buffer_free(&buf);
	assert_null(buf.backend_data);
	assert_null(buf.host_ptr);
	assert_int_equal(fk.n_closed, 1);
	close(fd);
}

/* Read-only by the caller's flag or the fd's mode; unmapped on request. */
static void test_buffer_import_modes(void **state)
{
	struct env *e = *state;
	struct accel_buffer buf;
	int fd = memfd_of(4096), ro;
	char path[64];

	buffer_init(e, &buf, fd, 4096, ACCEL_BUFFER_READ_ONLY);
	assert_int_equal(gem_buffer_import(&buf, true), 0);
	assert_true(buf.readonly_mapping);
	gem_buffer_free(&buf);

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(ro >= 0);
	buffer_init(e, &buf, ro, 4096, 0);
	assert_int_equal(gem_buffer_import(&buf, true), 0);
	assert_true(buf.readonly_mapping);
	gem_buffer_free(&buf);

	buffer_init(e, &buf, fd, 4096, 0);
	assert_int_equal(gem_buffer_import(&buf, false), 0);
	assert_null(buf.host_ptr);
	assert_null(((struct gem_buffer *)buf.backend_data)->map);
	gem_buffer_free(&buf);
	close(ro);
	close(fd);
}

static void test_buffer_import_refused(void **state)
{
	struct env *e = *state;
	struct accel_buffer buf;
	int fd = memfd_of(4096);

	buffer_init(e, &buf, fd, SIZE_MAX, 0);
	assert_int_equal(gem_buffer_import(&buf, true), -E2BIG);

	buffer_init(e, &buf, fd, 4096, 0);
	fk.fail_request = DRM_IOCTL_PRIME_FD_TO_HANDLE;
	fk.fail_errno = -ENOMEM;
	assert_int_equal(gem_buffer_import(&buf, true), -ENOMEM);
	assert_null(buf.backend_data);
	assert_null(buf.host_ptr);

	e->gem.prime_caps = DRM_PRIME_CAP_EXPORT;
	fk.fail_request = 0;
	assert_int_equal(gem_buffer_import(&buf, true), -EOPNOTSUPP);
	assert_null(buf.backend_data);
	close(fd);
}

static void test_buffer_export(void **state)
{
	struct env *e = *state;
	struct gem_buffer *b = calloc(1, sizeof(*b));
	struct accel_buffer buf;
	int fd = -7;

	assert_non_null(b);
	b->handle = 5;
	buffer_init(e, &buf, -1, 4096, 0);
	buf.backend_data = b;

	/* PRIME exports whole objects only. */
	assert_int_equal(gem_buffer_export(&buf, 64, 4032, &fd),
			 -EOPNOTSUPP);
	assert_int_equal(gem_buffer_export(&buf, 0, 4000, &fd),
			 -EOPNOTSUPP);
	fk.fail_request = DRM_IOCTL_PRIME_HANDLE_TO_FD;
	fk.fail_errno = -EMFILE;
	assert_int_equal(gem_buffer_export(&buf, 0, 4096, &fd),
			 -EMFILE);
	assert_int_equal(fd, -7);
	fk.fail_request = 0;
	assert_int_equal(gem_buffer_export(&buf, 0, 4096, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(fk.last_export.handle, 5);
	assert_int_equal(fk.last_export.flags, O_CLOEXEC | O_RDWR);
	close(fd);

	e->gem.prime_caps = DRM_PRIME_CAP_IMPORT;
	fd = -7;
	assert_int_equal(gem_buffer_export(&buf, 0, 4096, &fd),
			 -EOPNOTSUPP);
	assert_int_equal(fd, -7);
	free(b); /* never in the table */
}

/* ---- syncobjs ----------------------------------------------------------- */

static void test_syncobj(void **state)
{
	struct env *e = *state;
	uint32_t h = 0, h2 = 0, both[2];
	int fd = -7, sync_fd = eventfd(0, EFD_CLOEXEC);

	(void)e;
	assert_int_equal(gem_syncobj_create(fk.node,
					    DRM_SYNCOBJ_CREATE_SIGNALED, &h),
			 0);
	assert_int_not_equal(h, 0);
	assert_int_equal(fk.last_create.flags, DRM_SYNCOBJ_CREATE_SIGNALED);
	assert_int_equal(gem_syncobj_create(fk.node, 0, &h2), 0);
	assert_int_not_equal(h, h2);

	assert_int_equal(gem_syncobj_export_sync_file(fk.node, h, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(fk.last_syncobj_fd.handle, h);
	assert_int_equal(fk.last_syncobj_fd.flags,
			 DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE);
	close(fd);

	assert_int_equal(gem_syncobj_import_sync_file(fk.node, h2, sync_fd),
			 0);
	assert_int_equal(fk.last_syncobj_fd.handle, h2);
	assert_int_equal(fk.last_syncobj_fd.fd, sync_fd);
	assert_int_equal(fk.last_syncobj_fd.flags,
			 DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE);

	both[0] = h;
	both[1] = h2;
	assert_int_equal(gem_syncobj_reset(fk.node, both, 2), 0);
	assert_int_equal(fk.n_reset, 2);
	assert_int_equal(fk.reset[0], h);
	assert_int_equal(fk.reset[1], h2);

	assert_int_equal(gem_syncobj_destroy(fk.node, h2), 0);
	assert_int_equal(fk.destroyed, h2);
	close(sync_fd);
}

/* The kernel's errno comes back as is; out-parameters stay untouched. */
static void test_syncobj_errors(void **state)
{
	uint32_t h = 0xdead;
	int fd = -7;

	(void)state;
	fk.fail_request = DRM_IOCTL_SYNCOBJ_CREATE;
	fk.fail_errno = -ENOMEM;
	assert_int_equal(gem_syncobj_create(fk.node, 0, &h), -ENOMEM);
	assert_int_equal(h, 0xdead);
	fk.fail_request = DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD;
	fk.fail_errno = -ENOENT;
	assert_int_equal(gem_syncobj_export_sync_file(fk.node, 3, &fd),
			 -ENOENT);
	assert_int_equal(fd, -7);
	fk.fail_request = DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE;
	fk.fail_errno = -EINVAL;
	assert_int_equal(gem_syncobj_import_sync_file(fk.node, 3, 0), -EINVAL);
	fk.fail_request = DRM_IOCTL_SYNCOBJ_RESET;
	assert_int_equal(gem_syncobj_reset(fk.node, &h, 1), -EINVAL);
}

/* ---- the node ----------------------------------------------------------- */

static void test_node(void **state)
{
	struct gem_node_version v;
	uint64_t cap = 77;

	(void)state;
	assert_int_equal(gem_node_version(fk.node, &v), 0);
	assert_string_equal(v.name, FAKE_NAME);
	/* Cut to the array, and ended. */
	assert_int_equal(strlen(v.desc), sizeof(v.desc) - 1);
	assert_int_equal(v.major, 1);
	assert_int_equal(v.minor, 2);
	assert_int_equal(v.patch, 3);

	assert_int_equal(gem_node_get_cap(fk.node, DRM_CAP_PRIME, &cap), 0);
	assert_int_equal(cap, DRM_PRIME_CAP_IMPORT);
	cap = 77;
	assert_int_equal(gem_node_get_cap(fk.node, DRM_CAP_DUMB_BUFFER, &cap),
			 -EINVAL);
	assert_int_equal(cap, 77);

	fk.fail_request = DRM_IOCTL_VERSION;
	fk.fail_errno = -ENOTTY;
	memset(&v, 0x55, sizeof(v));
	assert_int_equal(gem_node_version(fk.node, &v), -ENOTTY);
	assert_int_equal(v.major, 0x55555555);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_import_counts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_import_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_import_map, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_buffer_import_modes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_buffer_import_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_export, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_syncobj, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syncobj_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_node, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
