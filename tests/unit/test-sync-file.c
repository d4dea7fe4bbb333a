/* SPDX-License-Identifier: MIT */
/*
 * platform/sync-file.c on any host: fds that are not sync_files, and the
 * poll-based wait (timeouts, EINTR with the remaining time recomputed),
 * exercised with eventfds and pipes, which poll like sync_files do. Real
 * sync_files need a dma-buf (udmabuf or a heap): where the kernel has one,
 * that test runs too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

#include "accel-private.h"
#include "platform/platform.h"

#define MS 1000000ll

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int closed_fd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

static void test_check_not_sync_file(void **state)
{
	int memfd, p[2], s[2], ev, null, dir;
	(void)state;

	assert_int_equal(accel_sync_file_check(-1), -EBADF);
	assert_int_equal(accel_sync_file_check(closed_fd()), -EBADF);

	memfd = memfd_create("test", MFD_CLOEXEC);
	assert_true(memfd >= 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s),
			 0);
	ev = eventfd(0, EFD_CLOEXEC);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(ev >= 0 && null >= 0 && dir >= 0);

	assert_int_equal(accel_sync_file_check(memfd), -EINVAL);
	assert_int_equal(accel_sync_file_check(p[0]), -EINVAL);
	assert_int_equal(accel_sync_file_check(p[1]), -EINVAL);
	assert_int_equal(accel_sync_file_check(s[0]), -EINVAL);
	assert_int_equal(accel_sync_file_check(ev), -EINVAL);
	assert_int_equal(accel_sync_file_check(null), -EINVAL);
	assert_int_equal(accel_sync_file_check(dir), -EINVAL);

	/* status passes the kernel's answer on. */
	assert_int_equal(accel_sync_file_status(memfd), -ENOTTY);
	assert_int_equal(accel_sync_file_status(closed_fd()), -EBADF);

	close(memfd);
	close(p[0]);
	close(p[1]);
	close(s[0]);
	close(s[1]);
	close(ev);
	close(null);
	close(dir);
}

static void test_merge_bad(void **state)
{
	int memfd = memfd_create("test", MFD_CLOEXEC), out = 12345;
	(void)state;

	assert_true(memfd >= 0);
	assert_int_equal(accel_sync_file_merge("x", -1, memfd, &out), -EBADF);
	assert_int_equal(accel_sync_file_merge("x", memfd, closed_fd(), &out),
			 -EINVAL);
	assert_int_equal(accel_sync_file_merge(NULL, memfd, memfd, &out),
			 -EINVAL);
	assert_int_equal(accel_sync_file_merge("x", memfd, memfd, NULL),
			 -EINVAL);
	assert_int_equal(out, 12345);
	close(memfd);
}

static void test_wait_args(void **state)
{
	int ev = eventfd(0, EFD_CLOEXEC);
	(void)state;

	assert_true(ev >= 0);
	assert_int_equal(accel_sync_file_poll(ev, -1), -EINVAL);
	assert_int_equal(accel_sync_file_poll(-1, 0), -EBADF);
	/* Not open: poll says POLLNVAL. */
	assert_int_equal(accel_sync_file_poll(closed_fd(), 0), -EBADF);
	close(ev);
}

static void test_wait_timeout(void **state)
{
	int ev = eventfd(0, EFD_CLOEXEC);
	int64_t t0;
	uint64_t one = 1;
	(void)state;

	assert_true(ev >= 0);
	t0 = now_ns();
	assert_int_equal(accel_sync_file_poll(ev, 0), -ETIME);
	assert_int_equal(accel_sync_file_poll(ev, 20 * MS), -ETIME);
	assert_true(now_ns() - t0 >= 20 * MS);

	assert_int_equal(write(ev, &one, sizeof(one)), sizeof(one));
	assert_int_equal(accel_sync_file_poll(ev, 0), 0);
	assert_int_equal(accel_sync_file_poll(ev, 10 * MS), 0);
	assert_int_equal(accel_sync_file_poll(ev, INT64_MAX), 0);
	/* Far enough that deadline arithmetic would overflow. */
	assert_int_equal(accel_sync_file_poll(ev, INT64_MAX - 1), 0);
	close(ev);
}

/* ---- EINTR ------------------------------------------------------------- */

static atomic_int n_signals;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&n_signals, 1);
}

struct pester {
	pthread_t target;
	atomic_bool stop;
	int signal_fd;      /* written after signal_after_ns, if >= 0 */
	int64_t signal_after_ns;
};

/* Interrupt @target every 2 ms; optionally make signal_fd readable. */
static void *pester_main(void *data)
{
	struct pester *p = data;
	struct timespec ts = { 0, 2 * MS };
	int64_t t0 = now_ns();
	bool written = false;

	while (!atomic_load(&p->stop)) {
		pthread_kill(p->target, SIGUSR1);
		nanosleep(&ts, NULL);
		if (p->signal_fd >= 0 && !written &&
		    now_ns() - t0 >= p->signal_after_ns) {
			uint64_t one = 1;

			if (write(p->signal_fd, &one, sizeof(one)) > 0)
				written = true;
		}
	}
	return NULL;
}

static void with_signals(struct pester *p, pthread_t *thread)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* No SA_RESTART: ppoll must see EINTR. */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	atomic_store(&n_signals, 0);
	p->target = pthread_self();
	atomic_init(&p->stop, false);
	assert_int_equal(pthread_create(thread, NULL, pester_main, p), 0);
}

/*
 * The handler stays installed: a signal still in flight must not find the
 * default action (termination).
 */
static void without_signals(struct pester *p, pthread_t thread)
{
	atomic_store(&p->stop, true);
	pthread_join(thread, NULL);
}

static void test_wait_eintr_timeout(void **state)
{
	struct pester p = { .signal_fd = -1 };
	pthread_t thread;
	int ev = eventfd(0, EFD_CLOEXEC);
	int64_t t0, elapsed;
	int r;
	(void)state;

	assert_true(ev >= 0);
	with_signals(&p, &thread);
	t0 = now_ns();
	r = accel_sync_file_poll(ev, 100 * MS);
	elapsed = now_ns() - t0;
	without_signals(&p, thread);

	assert_int_equal(r, -ETIME);
	assert_true(atomic_load(&n_signals) > 1);
	assert_true(elapsed >= 100 * MS);
	/*
	 * The time left is recomputed after each interruption: restarting
	 * the full 100 ms each time would never end while signals arrive
	 * every 2 ms. Generous bound for slow (sanitizer) builds.
	 */
	assert_true(elapsed < 2000 * MS);
	close(ev);
}

static void test_wait_eintr_signalled(void **state)
{
	struct pester p;
	pthread_t thread;
	int ev = eventfd(0, EFD_CLOEXEC);
	int r;
	(void)state;

	assert_true(ev >= 0);
	p.signal_fd = ev;
	p.signal_after_ns = 30 * MS;
	with_signals(&p, &thread);
	r = accel_sync_file_poll(ev, ACCEL_TIMEOUT_INFINITE);
	without_signals(&p, thread);

	assert_int_equal(r, 0);
	assert_true(atomic_load(&n_signals) > 0);
	close(ev);
}

/* ---- real sync_files, where a dma-buf can be made ------------------------ */

static void test_real_sync_file(void **state)
{
	struct test_log log;
	const struct accel_platform_env *env;
	struct accel_context *ctx;
	int dmabuf = -1, a = -1, b = -1, m = -1, r;
	(void)state;

	if (!accel_dma_heap_available("system") && !accel_udmabuf_available())
		skip();
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	env = accel_context_env(ctx);
	if (accel_dma_heap_available("system")) {
		r = accel_dma_heap_alloc(env, "system", 4096, &dmabuf);
	} else {
		int memfd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);

		assert_true(memfd >= 0);
		assert_int_equal(ftruncate(memfd, 4096), 0);
		assert_int_equal(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
		r = accel_udmabuf_create(env, memfd, 0, 4096, &dmabuf);
		close(memfd);
	}
	assert_int_equal(r, 0);

	assert_int_equal(accel_dmabuf_export_sync_file(dmabuf, false, &a), 0);
	assert_int_equal(accel_dmabuf_export_sync_file(dmabuf, true, &b), 0);
	assert_int_equal(accel_sync_file_check(a), 0);
	assert_int_equal(accel_sync_file_status(a), 1);
	assert_int_equal(accel_sync_file_wait(a, 0), 0);
	assert_int_equal(accel_sync_file_merge("merged", a, b, &m), 0);
	assert_int_equal(accel_sync_file_check(m), 0);
	assert_int_equal(accel_sync_file_status(m), 1);
	assert_int_equal(accel_sync_file_wait(m, ACCEL_TIMEOUT_INFINITE), 0);
	close(m);
	close(b);
	close(a);
	close(dmabuf);
	accel_context_unref(ctx);
	test_log_fini(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_not_sync_file),
		cmocka_unit_test(test_merge_bad),
		cmocka_unit_test(test_wait_args),
		cmocka_unit_test(test_wait_timeout),
		cmocka_unit_test(test_wait_eintr_timeout),
		cmocka_unit_test(test_wait_eintr_signalled),
		cmocka_unit_test(test_real_sync_file),
	};

	return TEST_RUN_GROUP("platform-sync-file", tests) ? 1 : 0;
}
