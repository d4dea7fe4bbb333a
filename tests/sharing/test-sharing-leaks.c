/* SPDX-License-Identifier: MIT */
/*
 * No fd leaked: exports, imports and sync_file imports, and their
 * failures, over 10,000 cycles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "sharing-common.h"

/* Cycles of the fd-leak checks. */
#define LEAK_CYCLES 10000u
/* Pending sync_file imports held at once in the leak check. */
#define LEAK_BATCH 100u

/*
 * The fd count once the sync_file poller is done with what it signalled:
 * it wakes a fence's waiters first and closes the sync_file and drops
 * the fence (with its duplicate) after, so a count taken right after a
 * wait may still hold them. Waits, up to 5 s, for @p want, or with
 * @p want < 0 for a count that stays the same over 100 ms.
 */
static int settled_fd_count(int want)
{
	int n = test_count_fds(), same = 0;

	for (int i = 0; i < 500; i++) {
		int m;

		if (want >= 0 ? n == want : same == 10)
			break;
		usleep(10000);
		m = test_count_fds();
		same = m == n ? same + 1 : 0;
		n = m;
	}
	return n;
}

/* ---- no fd leaked -------------------------------------------------------- */

void test_leak_buffers(void **state)
{
	struct env *env = *state;
	bool udmabuf = peer_have_udmabuf(), heap = peer_have_heap();
	struct accel_buffer *keep = NULL, *b, *i1, *i2, *sub;
	int heap_fd = -1, fd, fd2, before, after, bad = closed_fd(), p[2];
	uint32_t handle = 0;
	uint64_t vsize;
	unsigned n;

	if (!udmabuf && !heap && env->card < 0) {
		printf("# no udmabuf, heap or vgem\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "leak check, buffers");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	keep = cpu_buffer(env, 4 * PAGE);
	OK(env, accel_buffer_new_sub(keep, 128, PAGE, 0, &sub));
	if (heap)
		OK(env, peer_heap_alloc(PAGE, O_RDWR, &heap_fd));
	if (env->card >= 0)
		OK(env, peer_vgem_create(env->card, PAGE, &handle, &vsize));
	/* From its first export on, a buffer keeps its dma-buf open. */
	if (udmabuf) {
		OK(env, accel_buffer_export_dmabuf(keep, 0, &fd));
		close(fd);
	}

	before = test_count_fds();
	for (n = 0; n < LEAK_CYCLES; n++) {
		if (udmabuf) {
			/* A new buffer: export, import, all gone. */
			b = cpu_buffer(env, PAGE);
			OK(env, accel_buffer_export_dmabuf(b, 0, &fd));
			OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0,
							   &i1));
			close(fd);
			accel_buffer_unref(b);
			accel_buffer_unref(i1);
			/* The long-lived one, exported again and again. */
			OK(env, accel_buffer_export_dmabuf(keep, 0, &fd));
			OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0,
							   &i1));
			OK(env, accel_buffer_export_dmabuf(i1, 0, &fd2));
			accel_buffer_unref(i1);
			close(fd2);
			close(fd);
		}
		if (heap_fd >= 0) {
			OK(env, accel_buffer_import_dmabuf(env->cpu, heap_fd,
							   0, &i1));
			accel_buffer_unref(i1);
		}
		if (env->card >= 0) {
			OK(env, peer_vgem_export(env->card, handle, true,
						 &fd));
			OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0,
							   &i1));
			if (env->drm) {
				OK(env, accel_buffer_import_dmabuf(env->drm,
								   fd, 0,
								   &i2));
				accel_buffer_unref(i2);
			}
			accel_buffer_unref(i1);
			close(fd);
		}
		/* Failures leak nothing either. */
		b = TEST_SENTINEL_PTR;
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, bad, 0,
							    &b), -EBADF);
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, p[0], 0,
							    &b), -ENOTTY);
		fd = 12345;
		assert_int_equal(accel_buffer_export_dmabuf(sub, 0, &fd),
				 -EINVAL);
		assert_int_equal(fd, 12345);
	}
	after = test_count_fds();
	printf("# %u cycles: %d fds before, %d after\n", LEAK_CYCLES, before,
	       after);
	assert_int_equal(after, before);

	if (env->card >= 0)
		peer_vgem_close(env->card, handle);
	if (heap_fd >= 0)
		close(heap_fd);
	accel_buffer_unref(sub);
	accel_buffer_unref(keep);
	close(p[0]);
	close(p[1]);
	ran_case();
}

void test_leak_sync_files(void **state)
{
	struct env *env = *state;
	struct accel_fence *fences[LEAK_BATCH], *f;
	int dmabuf, sync_fd, before, after, bad = closed_fd(), p[2];
	unsigned n, i, pending = 0;
	struct side g;

	side_init(&g, "");
	if (some_dmabuf(env, PAGE, 0, &dmabuf) < 0) {
		printf("# no dma-buf heap or udmabuf\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "leak check, sync_files");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	if (env->card >= 0) {
		int vfd;

		vgem_buffer(env, PAGE, 0, &g, &vfd);
		close(vfd);
	}
	/* The first pending import starts the context's poller thread. */
	if (env->card >= 0) {
		uint32_t fence;
		int vfd;

		OK(env, peer_vgem_export(env->card, g.handle, true, &vfd));
		OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
		OK(env, peer_export_sync_file(vfd, false, &sync_fd));
		OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &f));
		OK(env, peer_vgem_signal(env->card, fence));
		OK(env, wait_unref(f, 5000 * MS));
		close(sync_fd);
		close(vfd);
	}

	before = settled_fd_count(-1);
	/* Signalled sync_files (nothing attached to a fresh dma-buf). */
	for (n = 0; n < LEAK_CYCLES; n++) {
		OK(env, peer_export_sync_file(dmabuf, true, &sync_fd));
		OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &f));
		close(sync_fd);
		assert_int_equal(accel_fence_get_status(f), 1);
		accel_fence_unref(f);
		f = TEST_SENTINEL_PTR;
		assert_int_equal(accel_fence_import_sync_file(env->ctx, bad,
							      &f), -EBADF);
		assert_int_equal(accel_fence_import_sync_file(env->ctx, p[0],
							      &f), -EINVAL);
	}
	/* Pending ones, watched by the poller until vgem signals them. */
	for (n = 0; env->card >= 0 && n < LEAK_CYCLES / LEAK_BATCH; n++) {
		uint32_t fence;
		int vfd;

		OK(env, peer_vgem_export(env->card, g.handle, true, &vfd));
		OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
		OK(env, peer_export_sync_file(vfd, false, &sync_fd));
		for (i = 0; i < LEAK_BATCH; i++)
			OK(env, accel_fence_import_sync_file(env->ctx, sync_fd,
							     &fences[i]));
		close(sync_fd);
		close(vfd);
		for (i = 0; i < LEAK_BATCH; i++)
			pending += accel_fence_get_status(fences[i]) == 0;
		OK(env, peer_vgem_signal(env->card, fence));
		for (i = 0; i < LEAK_BATCH; i++)
			OK(env, wait_unref(fences[i], 5000 * MS));
	}
	after = settled_fd_count(before);
	printf("# %u signalled and %u pending sync_file imports: %d fds "
	       "before, %d after\n", LEAK_CYCLES, pending, before, after);
	assert_int_equal(after, before);
	if (env->card >= 0) {
		assert_int_equal(pending, LEAK_CYCLES);
		side_free(&g);
	}
	close(p[0]);
	close(p[1]);
	close(dmabuf);
	ran_case();
}
