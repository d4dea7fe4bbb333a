/* SPDX-License-Identifier: MIT */
/*
 * Read-only imports: every way of writing into them is refused, reading
 * works, whether the fd or the import flags make them read-only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sharing-common.h"

/* Collects unexpected results, so one failure lists all of them. */
struct verdicts {
	char text[1024];
	size_t len;
};

static void verdict_text(struct verdicts *v, const char *text)
{
	int n;

	if (v->len >= sizeof(v->text) - 1)
		return;
	n = snprintf(v->text + v->len, sizeof(v->text) - v->len, "\n    %s",
		     text);
	if (n > 0)
		v->len += (size_t)n;
	if (v->len >= sizeof(v->text))
		v->len = sizeof(v->text) - 1;
}

static void verdict(struct verdicts *v, const char *what, int got, int want)
{
	char text[160];

	if (got == want)
		return;
	snprintf(text, sizeof(text), "%s: %d (%s), expected %d (%s)", what,
		 got, strerror(-got), want, strerror(-want));
	verdict_text(v, text);
}

/*
 * Record the result of a command that must be refused with -EACCES; drop
 * the fence it returned if it was accepted after all.
 */
static void refused(struct verdicts *v, const char *what, int rc,
		    struct accel_fence **f)
{
	verdict(v, what, rc, -EACCES);
	if (*f == TEST_SENTINEL_PTR)
		return;
	if (rc < 0) {
		verdict_text(v, "a failed command wrote its fence out-param");
	} else {
		accel_fence_wait(*f, ACCEL_TIMEOUT_INFINITE);
		accel_fence_unref(*f);
	}
	*f = TEST_SENTINEL_PTR;
}

/*
 * Every way of writing into @ro is refused, reading works. Returns false
 * (having printed what was let through, and released what it made) when
 * a write was not refused, so that the caller can clean up before failing.
 */
static bool expect_read_only(struct env *env, struct accel_buffer *ro,
			     struct accel_queue *q, bool with_kernels,
			     uint32_t seed)
{
	uint64_t size = accel_buffer_get_size(ro);
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct accel_buffer *plain = NULL, *sub;
	struct accel_kernel *k;
	struct accel_ndrange r = range1(size / 4);
	struct verdicts v = { .len = 0 };
	void *ptr = TEST_SENTINEL_PTR;
	uint32_t val = 0x0badf00d, *p, *host;
	int rc;

	if (!(accel_buffer_get_flags(ro) & ACCEL_BUFFER_READ_ONLY))
		verdict_text(&v, "flags lack ACCEL_BUFFER_READ_ONLY");
	rc = accel_buffer_map(ro, 0, size, ACCEL_MAP_WRITE, &ptr);
	verdict(&v, "map WRITE", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(ro, ptr);
	ptr = TEST_SENTINEL_PTR;
	rc = accel_buffer_map(ro, 0, size, ACCEL_MAP_READ | ACCEL_MAP_WRITE,
			      &ptr);
	verdict(&v, "map READ|WRITE", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(ro, ptr);
	ptr = TEST_SENTINEL_PTR;
	rc = accel_buffer_map(ro, 0, 4, ACCEL_MAP_WRITE_INVALIDATE, &ptr);
	verdict(&v, "map WRITE_INVALIDATE", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(ro, ptr);
	/* Writes below would change the data: nothing may be enqueued. */
	refused(&v, "queue write",
		accel_queue_write(q, ro, 0, 4, &val, 0, NULL, &f), &f);
	refused(&v, "queue fill",
		accel_queue_fill(q, ro, 0, 4, &val, 4, 0, NULL, &f), &f);
	OK(env, accel_buffer_new(accel_queue_get_device(q), size, 0, &plain));
	refused(&v, "copy into it",
		accel_queue_copy(q, plain, 0, ro, 0, 4, 0, NULL, &f), &f);
	/* A sub-buffer of it is no way around. */
	OK(env, accel_buffer_new_sub(ro, PAGE, PAGE, 0, &sub));
	refused(&v, "queue write into a sub-buffer",
		accel_queue_write(q, sub, 0, 4, &val, 0, NULL, &f), &f);
	ptr = TEST_SENTINEL_PTR;
	rc = accel_buffer_map(sub, 0, 4, ACCEL_MAP_WRITE, &ptr);
	verdict(&v, "map WRITE of a sub-buffer", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(sub, ptr);
	accel_buffer_unref(sub);
	if (with_kernels) {
		/* A non-const argument could write: refused at launch. */
		k = kernel(env, "pattern_u32");
		OK(env, accel_kernel_set_arg_buffer(k, 0, ro));
		OK(env, accel_kernel_set_arg_value(k, 1, sizeof(val), &val));
		refused(&v, "launch with a non-const buffer argument",
			accel_queue_launch(q, k, &r, 0, NULL, &f), &f);
		accel_kernel_unref(k);
	}
	if (v.len) {
		printf("# FAILED %s:%s\n", env->what, v.text);
		accel_buffer_unref(plain);
		return false;
	}
	/* A const one reads. */
	if (with_kernels)
		assert_int_equal(kernel_check(env, ro, size / 4, seed), 0);

	/* Reads work: map, queue read, copy out. */
	OK(env, accel_buffer_map(ro, 0, size, ACCEL_MAP_READ, (void **)&p));
	expect_words(env, p, size / 4, seed);
	OK(env, accel_buffer_unmap(ro, p));
	host = calloc(1, size);
	assert_non_null(host);
	f = NULL;
	OK(env, accel_queue_read(q, ro, 0, size, host, 0, NULL, &f));
	OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
	expect_words(env, host, size / 4, seed);
	f = NULL;
	OK(env, accel_queue_copy(q, ro, 0, plain, 0, size, 0, NULL, &f));
	OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
	OK(env, accel_buffer_map(plain, 0, size, ACCEL_MAP_READ, (void **)&p));
	expect_words(env, p, size / 4, seed);
	OK(env, accel_buffer_unmap(plain, p));
	free(host);
	accel_buffer_unref(plain);
	return true;
}

/* A dma-buf fd opened read-only imports read-only. */
void test_readonly_fd_import(void **state)
{
	struct env *env = *state;
	struct accel_buffer *ro, *b = TEST_SENTINEL_PTR;
	bool any = false, ok = true;
	struct side g;
	int fd;

	if (peer_have_heap()) {
		/*
		 * Nothing can write it: heap memory starts zeroed, the
		 * pattern of seed 0.
		 */
		snprintf(env->what, sizeof(env->what), "read-only heap fd");
		OK(env, peer_heap_alloc(4 * PAGE, O_RDONLY, &fd));
		assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &ro));
		ok &= expect_read_only(env, ro, env->cq, true, 0);
		accel_buffer_unref(ro);
		/* No write access may be asked for. */
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, fd,
				ACCEL_BUFFER_WRITE_ONLY, &b), -EACCES);
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, fd,
				ACCEL_BUFFER_HOST_WRITE_ONLY, &b), -EACCES);
		assert_ptr_equal(b, TEST_SENTINEL_PTR);
		close(fd);
		any = true;
	}
	if (env->card >= 0) {
		/* PRIME without DRM_RDWR: a read-only dma-buf. */
		snprintf(env->what, sizeof(env->what), "read-only vgem fd");
		vgem_buffer_mode(env, 4 * PAGE, 8, false, &g, &fd);
		assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &ro));
		ok &= expect_read_only(env, ro, env->cq, true, 8);
		accel_buffer_unref(ro);
		if (env->drm) {
			snprintf(env->what, sizeof(env->what),
				 "read-only vgem fd in libaccel's vgem");
			OK(env, accel_buffer_import_dmabuf(env->drm, fd, 0,
							   &ro));
			ok &= expect_read_only(env, ro, env->dq, false, 8);
			accel_buffer_unref(ro);
		}
		/* Nothing was written. */
		if (ok)
			expect_words(env, g.map, 4 * PAGE / 4, 8);
		close(fd);
		side_free(&g);
		any = true;
	}
	if (!any) {
		printf("# no dma-buf heap, no vgem\n");
		skip();
	}
	ran_case();
	if (!ok)
		fail_msg("writes into a read-only import were let through "
			 "(listed above)");
}

/*
 * A read-write fd imported with ACCEL_BUFFER_READ_ONLY: accel-buffer.h
 * says such a buffer "is mapped read-only and host writes are refused
 * with -EACCES", and accel-queue.h that writes into a buffer imported
 * read-only fail with -EACCES.
 */
void test_readonly_flag_import(void **state)
{
	struct env *env = *state;
	struct accel_buffer *ro;
	bool ok = true;
	uint32_t *p;
	int fd;

	if (some_dmabuf(env, 4 * PAGE, 10, &fd) < 0) {
		printf("# no dma-buf heap or udmabuf\n");
		skip();
	}
	/* Read-only for kernels and for the host. */
	snprintf(env->what, sizeof(env->what), "read-write fd imported "
		 "READ_ONLY|HOST_READ_ONLY into the CPU device");
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd,
					   ACCEL_BUFFER_READ_ONLY |
						   ACCEL_BUFFER_HOST_READ_ONLY,
					   &ro));
	ok &= expect_read_only(env, ro, env->cq, true, 10);
	accel_buffer_unref(ro);
	if (env->drm) {
		snprintf(env->what, sizeof(env->what),
			 "read-write fd imported READ_ONLY into vgem");
		OK(env, accel_buffer_import_dmabuf(env->drm, fd,
						   ACCEL_BUFFER_READ_ONLY,
						   &ro));
		ok &= expect_read_only(env, ro, env->dq, false, 10);
		accel_buffer_unref(ro);
	}
	/* READ_ONLY alone, as accel-buffer.h describes it. */
	snprintf(env->what, sizeof(env->what),
		 "read-write fd imported READ_ONLY into the CPU device");
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd,
					   ACCEL_BUFFER_READ_ONLY, &ro));
	ok &= expect_read_only(env, ro, env->cq, true, 10);
	accel_buffer_unref(ro);
	if (ok) {
		/* Nothing was written. */
		p = peer_mmap(fd, 4 * PAGE, false);
		assert_non_null(p);
		expect_words(env, p, 4 * PAGE / 4, 10);
		munmap(p, 4 * PAGE);
	}
	close(fd);
	ran_case();
	if (!ok)
		fail_msg("writes into a read-only import were let through "
			 "(listed above)");
}
