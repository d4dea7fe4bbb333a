/* SPDX-License-Identifier: MIT */
/*
 * Imported sync_files on any host, with fake ones: eventfds that
 * SYNC_IOC_FILE_INFO (behind a wrapped accel_ioctl) describes as
 * sync_files, active until the eventfd is written and then signalled
 * with the status the test chose. That reaches what a real kernel rarely
 * shows on demand: fences that signal with an error, and many fences
 * signalled from other threads at once (the TSan tier runs this).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <unistd.h>

#include "test-common.h"

#include "platform/platform.h"
#include "uapi/linux/sync_file.h"

#define MS 1000000ll
#define MAX_FAKES 512

/* A fake sync_file: the eventfd and the status it signals with. */
struct fake {
	int fd;
	int status; /* 1 or a negative errno, once readable */
};

static struct {
	pthread_mutex_t lock;
	struct fake fakes[MAX_FAKES];
	int n;
} fk = { .lock = PTHREAD_MUTEX_INITIALIZER };

int __real_accel_ioctl(int fd, unsigned long request, void *arg);
int __wrap_accel_ioctl(int fd, unsigned long request, void *arg);

static struct fake *find(int fd)
{
	int i;

	for (i = 0; i < fk.n; i++)
		if (fk.fakes[i].fd == fd)
			return &fk.fakes[i];
	return NULL;
}

/*
 * libaccel duplicates the fds it is given: a duplicate is the same open
 * file (kcmp(2); every eventfd shares one anonymous inode).
 */
static bool same_file(int a, int b)
{
	pid_t pid = getpid();

	return syscall(SYS_kcmp, pid, pid, KCMP_FILE, a, b) == 0;
}

static struct fake *find_any(int fd)
{
	int i;

	for (i = 0; i < fk.n; i++)
		if (fk.fakes[i].fd == fd || same_file(fk.fakes[i].fd, fd))
			return &fk.fakes[i];
	return NULL;
}

int __wrap_accel_ioctl(int fd, unsigned long request, void *arg)
{
	struct sync_file_info *info = arg;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct fake *f;
	int status;

	if (request != SYNC_IOC_FILE_INFO)
		return __real_accel_ioctl(fd, request, arg);
	pthread_mutex_lock(&fk.lock);
	f = find_any(fd);
	status = f ? f->status : 0;
	pthread_mutex_unlock(&fk.lock);
	if (!f)
		return __real_accel_ioctl(fd, request, arg);
	memset(info->name, 0, sizeof(info->name));
	strcpy(info->name, "fake");
	info->num_fences = 0;
	info->status = poll(&pfd, 1, 0) > 0 ? status : 0;
	return 0;
}

static int fake_new(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	assert_true(fd >= 0);
	pthread_mutex_lock(&fk.lock);
	assert_true(fk.n < MAX_FAKES);
	fk.fakes[fk.n].fd = fd;
	fk.fakes[fk.n].status = 1;
	fk.n++;
	pthread_mutex_unlock(&fk.lock);
	return fd;
}

/* Signal a fake with @status (1 or -errno), as a driver would. */
static void fake_signal(int fd, int status)
{
	uint64_t one = 1;

	pthread_mutex_lock(&fk.lock);
	find(fd)->status = status;
	pthread_mutex_unlock(&fk.lock);
	assert_int_equal(write(fd, &one, sizeof(one)), sizeof(one));
}

static void fakes_close(void)
{
	int i;

	pthread_mutex_lock(&fk.lock);
	for (i = 0; i < fk.n; i++)
		close(fk.fakes[i].fd);
	fk.n = 0;
	pthread_mutex_unlock(&fk.lock);
}

static int fds_at_setup;

static int setup(void **state)
{
	fds_at_setup = test_count_fds();
	return test_env_setup(state);
}

/*
 * The sync_file thread may drop the last reference to the context (its
 * fence's) just after a waiter woke: give it a moment to close its fds.
 */
static void settle_fds(int expected)
{
	int i;

	for (i = 0; i < 200 && test_count_fds() > expected; i++)
		usleep(10000);
}

static int teardown(void **state)
{
	int r = test_env_teardown(state);

	fakes_close();
	settle_fds(fds_at_setup);
	return r;
}

/* ---- error-state fences ------------------------------------------------ */

static void test_error_signalled_before_import(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *buf = test_buffer_new(env, 64);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange r = test_ndrange(1, 16, 1, 1, 16, 1, 1);
	struct accel_fence *in = NULL, *out = NULL;
	uint32_t v = 1, data[16] = { 0 };
	int fd = fake_new();

	test_write(env, buf, 0, sizeof(data), data);
	fake_signal(fd, -EIO);
	assert_int_equal(accel_sync_file_wait(fd, 0), -EIO);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, fd, &in), 0);
	assert_int_equal(accel_fence_get_status(in), -EIO);

	/* Work behind a failed fence fails the same way and never runs. */
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(v), &v), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 1, &in, &out),
			 0);
	assert_true(accel_fence_wait(out, ACCEL_TIMEOUT_INFINITE) < 0);
	assert_int_equal(accel_queue_finish(env->queue) < 0, 1);
	test_read(env, buf, 0, sizeof(data), data);
	assert_int_equal(data[0], 0);

	accel_fence_unref(in);
	accel_fence_unref(out);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static void test_error_signalled_later(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *in = NULL;
	int fd = fake_new();

	assert_int_equal(accel_fence_import_sync_file(env->ctx, fd, &in), 0);
	assert_int_equal(accel_fence_wait(in, 20 * MS), -ETIME);
	assert_int_equal(accel_sync_file_wait(fd, 0), -ETIME);
	fake_signal(fd, -ECANCELED);
	assert_int_equal(accel_fence_wait(in, 5000 * MS), -ECANCELED);
	assert_int_equal(accel_sync_file_wait(fd, 0), -ECANCELED);
	accel_fence_unref(in);
}

/* ---- many fences, signalled from other threads --------------------------- */

#define N_FAKES 256
#define N_THREADS 4

struct signaller {
	int *fds;
	int first, step;
};

static void *signal_main(void *data)
{
	struct signaller *s = data;
	int i;

	for (i = s->first; i < N_FAKES; i += s->step)
		fake_signal(s->fds[i], 1);
	return NULL;
}

static void test_threads(void **state)
{
	struct test_env *env = *state;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, N_FAKES * 4);
	struct accel_kernel *k = test_kernel_new(env, "inc_slot");
	struct accel_ndrange r = test_ndrange(1, 1, 1, 1, 1, 1, 1);
	struct accel_fence *out[N_FAKES];
	struct signaller sig[N_THREADS];
	pthread_t t[N_THREADS];
	uint32_t data[N_FAKES];
	int fds[N_FAKES], i;

	memset(data, 0, sizeof(data));
	test_write(env, buf, 0, sizeof(data), data);
	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &q), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	for (i = 0; i < N_FAKES; i++) {
		struct accel_fence *in = NULL;
		uint32_t slot = (uint32_t)i;

		fds[i] = fake_new();
		assert_int_equal(accel_fence_import_sync_file(env->ctx, fds[i],
							      &in), 0);
		assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(slot),
							    &slot), 0);
		assert_int_equal(accel_queue_launch(q, k, &r, 1, &in, &out[i]),
				 0);
		accel_fence_unref(in);
	}
	for (i = 0; i < N_THREADS; i++) {
		sig[i] = (struct signaller){ fds, i, N_THREADS };
		assert_int_equal(pthread_create(&t[i], NULL, signal_main,
						&sig[i]), 0);
	}
	for (i = 0; i < N_FAKES; i++) {
		assert_int_equal(accel_fence_wait(out[i], 10000 * MS), 0);
		accel_fence_unref(out[i]);
	}
	for (i = 0; i < N_THREADS; i++)
		pthread_join(t[i], NULL);
	test_read(env, buf, 0, sizeof(data), data);
	for (i = 0; i < N_FAKES; i++)
		assert_int_equal(data[i], 1);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_queue_unref(q);
}

int main(void)
{
	int a = eventfd(0, EFD_CLOEXEC), b = dup(a);
	bool kcmp_ok = a >= 0 && b >= 0 && same_file(a, b);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_error_signalled_before_import, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_error_signalled_later,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
	};

	close(a);
	close(b);
	if (!kcmp_ok) {
		printf("kcmp(2) unavailable: fake sync_files cannot be told "
		       "apart; skipped\n");
		return TEST_EXIT_SKIP;
	}
	return TEST_RUN_GROUP("sync-file-fake", tests);
}
