/* SPDX-License-Identifier: MIT */
/*
 * Implicit sync: a vgem fence holding a buffer busy keeps our kernel from
 * starting (and keeps no worker thread busy) until it signals; a read
 * fence holds back writers only. sync_file import: a command waiting on
 * a vgem fence's sync_file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sharing-common.h"

/* ---- implicit synchronisation ----------------------------------------- */

static uint64_t ran_count(const uint64_t *ran)
{
	return __atomic_load_n(ran, __ATOMIC_ACQUIRE);
}

/*
 * An unrelated kernel on another queue completes meanwhile: no worker is
 * stuck waiting for the foreign fence.
 */
static void expect_workers_free(struct env *env)
{
	struct accel_buffer *other = cpu_buffer(env, 16 * PAGE);
	struct accel_queue *q2 = NULL;
	struct accel_fence *f;

	snprintf(env->what, sizeof(env->what),
		 "an unrelated kernel while a fence is pending");
	OK(env, accel_queue_new(env->cpu, 0, &q2));
	f = launch_pattern(env, q2, other, 16 * PAGE / 4, 77);
	OK(env, wait_unref(f, 5000 * MS));
	accel_queue_unref(q2);
	accel_buffer_unref(other);
}

/*
 * The "GPU" still writes the buffer (a vgem write fence): our kernel,
 * which reads and writes it, must not start before the fence signals,
 * and must finish promptly once it does.
 */
void test_implicit_sync_write_fence(void **state)
{
	struct env *env = *state;
	const uint64_t n = 16 * PAGE / 4;
	uint64_t ran = 0, t_attach, t_signal, t_done, i;
	struct accel_buffer *imp;
	struct accel_fence *f = NULL;
	struct side g;
	uint32_t fence;
	int fd;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "implicit sync, write fence");
	vgem_buffer(env, 16 * PAGE, 3, &g, &fd);
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp));

	OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
	t_attach = now_ms();
	OK(env, launch_mark(env, imp, n, 5, &ran, NULL, &f));

	expect_workers_free(env);
	snprintf(env->what, sizeof(env->what), "implicit sync, write fence");
	assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(ran_count(&ran), 0);
	/* The GPU's data is still untouched. */
	expect_words(env, g.map, n, 3);

	OK(env, peer_vgem_signal(env->card, fence));
	t_signal = now_ms();
	OK(env, wait_unref(f, 5000 * MS));
	t_done = now_ms();
	assert_true(ran_count(&ran) > 0);
	/* Well before vgem's own 10 s timeout would have signalled it. */
	assert_true(t_done - t_attach < 8000);
	printf("# kernel held back %llu ms, done %llu ms after the signal\n",
	       (unsigned long long)(t_signal - t_attach),
	       (unsigned long long)(t_done - t_signal));

	OK(env, peer_dmabuf_sync(fd, true, true, false));
	for (i = 0; i < n; i++)
		if (g.map[i] != word(i, 3) * 3 + 5)
			fail_msg("word %llu: 0x%08x, expected 0x%08x",
				 (unsigned long long)i, g.map[i],
				 word(i, 3) * 3 + 5);
	OK(env, peer_dmabuf_sync(fd, false, true, false));

	accel_buffer_unref(imp);
	close(fd);
	side_free(&g);
	ran_case();
}

/*
 * The "GPU" only reads the buffer (a vgem read fence): our reads go
 * ahead at once, our writes wait.
 */
void test_implicit_sync_read_fence(void **state)
{
	struct env *env = *state;
	const uint64_t n = 16 * PAGE / 4;
	struct accel_buffer *imp, *imp_ro;
	struct accel_fence *fr = NULL, *fw = NULL, *fk = NULL;
	uint32_t fence, *host, v = 0xabcd0123;
	uint64_t ran = 0, i;
	struct side g;
	int fd;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "implicit sync, read fence");
	vgem_buffer(env, 16 * PAGE, 4, &g, &fd);
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp));
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd,
					   ACCEL_BUFFER_READ_ONLY, &imp_ro));
	host = calloc(n, sizeof(*host));
	assert_non_null(host);

	OK(env, peer_vgem_attach(env->card, g.handle, false, &fence));

	/* Readers do not wait for readers. */
	OK(env, accel_queue_read(env->cq, imp, 0, n * 4, host, 0, NULL, &fr));
	OK(env, wait_unref(fr, 5000 * MS));
	expect_words(env, host, n, 4);
	snprintf(env->what, sizeof(env->what),
		 "a kernel reading a read-only import under a read fence");
	assert_int_equal(kernel_check(env, imp_ro, n, 4), 0);

	/* Writers do: a queue write and a kernel writing the buffer. */
	snprintf(env->what, sizeof(env->what), "implicit sync, read fence");
	OK(env, accel_queue_write(env->cq, imp, 0, sizeof(v), &v, 0, NULL,
				  &fw));
	OK(env, launch_mark(env, imp, n, 9, &ran, NULL, &fk));
	assert_int_equal(accel_fence_wait(fw, 300 * MS), -ETIME);
	assert_int_equal(accel_fence_get_status(fk), 0);
	assert_int_equal(ran_count(&ran), 0);
	expect_words(env, g.map, n, 4);

	OK(env, peer_vgem_signal(env->card, fence));
	OK(env, wait_unref(fw, 5000 * MS));
	OK(env, wait_unref(fk, 5000 * MS));
	assert_true(ran_count(&ran) > 0);
	OK(env, peer_dmabuf_sync(fd, true, true, false));
	assert_int_equal(g.map[0], v * 3 + 9);
	for (i = 1; i < n; i++)
		assert_int_equal(g.map[i], word(i, 4) * 3 + 9);
	OK(env, peer_dmabuf_sync(fd, false, true, false));

	free(host);
	accel_buffer_unref(imp_ro);
	accel_buffer_unref(imp);
	close(fd);
	side_free(&g);
	ran_case();
}

/*
 * The other direction: the "GPU" imports a buffer libaccel exported and
 * writes it (a vgem write fence on its handle): our kernel on our own
 * buffer waits for it too; with a read fence our reads do not.
 */
void test_implicit_sync_exported(void **state)
{
	static const uint32_t kinds[] = { 0, ACCEL_BUFFER_DMA_HEAP };
	struct env *env = *state;
	const uint64_t n = 8 * PAGE / 4;
	unsigned k, tested = 0;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	for (k = 0; k < TEST_ARRAY_SIZE(kinds); k++) {
		struct accel_buffer *buf = NULL;
		struct accel_fence *f = NULL, *fr = NULL;
		uint32_t handle, fence, *p, *host;
		uint64_t ran = 0, i;
		int fd, r;

		snprintf(env->what, sizeof(env->what),
			 "implicit sync on an exported %s buffer",
			 kinds[k] ? "heap" : "udmabuf");
		r = accel_buffer_new(env->cpu, n * 4, kinds[k], &buf);
		if (r == 0) {
			r = accel_buffer_export_dmabuf(buf, 0, &fd);
			if (r < 0)
				accel_buffer_unref(buf);
		}
		if (r == -EOPNOTSUPP) {
			printf("# %s: cannot export here\n", env->what);
			continue;
		}
		OK(env, r);
		OK(env, accel_buffer_map(buf, 0, n * 4, ACCEL_MAP_WRITE,
					 (void **)&p));
		fill_words(p, n, 11);
		OK(env, accel_buffer_unmap(buf, p));
		OK(env, peer_vgem_import(env->card, fd, &handle));

		/* The GPU writes: our kernel waits. */
		OK(env, peer_vgem_attach(env->card, handle, true, &fence));
		OK(env, launch_mark(env, buf, n, 2, &ran, NULL, &f));
		assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
		assert_int_equal(ran_count(&ran), 0);
		OK(env, peer_vgem_signal(env->card, fence));
		OK(env, wait_unref(f, 5000 * MS));
		assert_true(ran_count(&ran) > 0);

		/* The GPU reads: our read goes ahead, our write waits. */
		OK(env, peer_vgem_attach(env->card, handle, false, &fence));
		host = calloc(n, sizeof(*host));
		assert_non_null(host);
		OK(env, accel_queue_read(env->cq, buf, 0, n * 4, host, 0, NULL,
					 &fr));
		OK(env, wait_unref(fr, 5000 * MS));
		for (i = 0; i < n; i++)
			assert_int_equal(host[i], word(i, 11) * 3 + 2);
		f = launch_pattern(env, env->cq, buf, n, 12);
		assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
		OK(env, peer_vgem_signal(env->card, fence));
		OK(env, wait_unref(f, 5000 * MS));
		OK(env, accel_buffer_map(buf, 0, n * 4, ACCEL_MAP_READ,
					 (void **)&p));
		expect_words(env, p, n, 12);
		OK(env, accel_buffer_unmap(buf, p));

		free(host);
		peer_vgem_close(env->card, handle);
		close(fd);
		accel_buffer_unref(buf);
		tested++;
	}
	if (!tested)
		skip();
	ran_case();
}

/* ---- sync_file import -------------------------------------------------- */

static void count_cb(struct accel_fence *fence, int status, void *data)
{
	(void)fence;
	if (status == 0)
		__atomic_fetch_add((unsigned *)data, 1, __ATOMIC_RELEASE);
}

void test_sync_file_wait(void **state)
{
	struct env *env = *state;
	const uint64_t n = 4 * PAGE / 4;
	struct accel_fence *sf = NULL, *sf2 = NULL, *f = NULL;
	struct accel_buffer *plain;
	struct pollfd pfd = { .events = POLLIN };
	uint64_t ran = 0, t_signal;
	unsigned called = 0;
	uint32_t fence, *p;
	struct side g;
	int fd, sync_fd;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "sync_file import");
	vgem_buffer(env, PAGE, 0, &g, &fd);
	OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
	OK(env, peer_export_sync_file(fd, false, &sync_fd));

	OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &sf));
	/* Borrowed: ours can go at once. */
	close(sync_fd);
	assert_int_equal(accel_fence_get_status(sf), 0);
	assert_int_equal(accel_fence_wait(sf, 0), -ETIME);
	assert_ptr_equal(accel_fence_get_context(sf), env->ctx);
	OK(env, accel_fence_add_callback(sf, count_cb, &called));
	OK(env, accel_fence_export_poll_fd(sf, &pfd.fd));
	assert_int_equal(poll(&pfd, 1, 0), 0);

	/* A kernel on a plain buffer, waiting for the GPU's fence. */
	plain = cpu_buffer(env, n * 4);
	OK(env, launch_mark(env, plain, n, 7, &ran, sf, &f));
	assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
	assert_int_equal(ran_count(&ran), 0);
	assert_int_equal(__atomic_load_n(&called, __ATOMIC_ACQUIRE), 0);

	OK(env, peer_vgem_signal(env->card, fence));
	t_signal = now_ms();
	OK(env, wait_unref(f, 5000 * MS));
	printf("# command done %llu ms after the signal\n",
	       (unsigned long long)(now_ms() - t_signal));
	assert_true(ran_count(&ran) > 0);
	assert_int_equal(accel_fence_get_status(sf), 1);
	assert_int_equal(__atomic_load_n(&called, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_true(pfd.revents & POLLIN);
	OK(env, accel_buffer_map(plain, 0, n * 4, ACCEL_MAP_READ, (void **)&p));
	assert_int_equal(p[0], 7);
	assert_int_equal(p[n - 1], 7);
	OK(env, accel_buffer_unmap(plain, p));

	/* A sync_file already signalled imports as a signalled fence. */
	OK(env, peer_export_sync_file(fd, true, &sync_fd));
	OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &sf2));
	close(sync_fd);
	assert_int_equal(accel_fence_get_status(sf2), 1);
	assert_int_equal(accel_fence_wait(sf2, 0), 0);

	accel_fence_unref(sf2);
	close(pfd.fd);
	accel_fence_unref(sf);
	accel_buffer_unref(plain);
	close(fd);
	side_free(&g);
	ran_case();
}
