/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the cmocka test suites (see test-common.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"

/* ---- fd-leak check --------------------------------------------------- */

#define MAX_FDS 4096

/* Set by the group teardown; one group per test program. */
static int group_fds[MAX_FDS];
static int group_n_fds;
static bool group_fd_leak;

/* List the open fds, excluding the directory fd used to list them. */
static int list_fds(int *fds, int max)
{
	struct dirent *de;
	DIR *dir;
	int n = 0;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		long fd;

		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end || fd == dirfd(dir))
			continue;
		if (n < max)
			fds[n] = (int)fd;
		n++;
	}
	closedir(dir);
	return n;
}

/*
 * Leaves out contexts' usage pages (include/libaccel/accel-stats.h): a
 * page comes with a context's first device and goes with the context,
 * which may be after the test's last unref (on a worker thread), so a
 * count taken in one test could see the previous test's. The group
 * check still counts them.
 */
int test_count_fds(void)
{
	static int scratch[MAX_FDS];
	char path[64], target[64];
	int n, i, count;
	ssize_t len;

	n = list_fds(scratch, MAX_FDS);
	if (n < 0 || n > MAX_FDS)
		return n;
	for (i = 0, count = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", scratch[i]);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			if (!strcmp(target, "/memfd:" ACCEL_STATS_MEMFD_NAME
					    " (deleted)"))
				continue;
		}
		count++;
	}
	return count;
}

static bool fd_in(int fd, const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

static void print_fd(const char *what, int fd)
{
	char path[64], target[PATH_MAX];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		snprintf(target, sizeof(target), "(readlink: %s)",
			 strerror(errno));
	else
		target[len] = '\0';
	fprintf(stderr, "fd check: %s fd %d -> %s\n", what, fd, target);
}

int test_group_setup(void **state)
{
	(void)state;
	group_n_fds = list_fds(group_fds, MAX_FDS);
	if (group_n_fds < 0 || group_n_fds > MAX_FDS) {
		fprintf(stderr, "fd check: cannot list /proc/self/fd\n");
		return -1;
	}
	return 0;
}

int test_group_teardown(void **state)
{
	static int now[MAX_FDS];
	bool bad = false;
	int n, i;

	(void)state;
	/*
	 * The last reference to a context may go on a worker thread just
	 * after the test returns (a completing command drops its queue's),
	 * and the context's usage page with it.
	 */
	test_group_fds_settle(2000);
	n = list_fds(now, MAX_FDS);
	if (n < 0 || n > MAX_FDS) {
		fprintf(stderr, "fd check: cannot list /proc/self/fd\n");
		group_fd_leak = true;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!fd_in(now[i], group_fds, group_n_fds)) {
			print_fd("leaked", now[i]);
			bad = true;
		}
	for (i = 0; i < group_n_fds; i++)
		if (!fd_in(group_fds[i], now, n)) {
			fprintf(stderr, "fd check: fd %d was closed behind "
					"the test's back\n", group_fds[i]);
			bad = true;
		}
	if (bad) {
		fprintf(stderr, "fd check: %d fds at group setup, %d at "
				"teardown\n", group_n_fds, n);
		group_fd_leak = true;
		return -1;
	}
	return 0;
}

bool test_group_fds_settle(int ms)
{
	static int now[MAX_FDS];
	int n, i;

	for (;;) {
		bool same;

		n = list_fds(now, MAX_FDS);
		same = n == group_n_fds;
		for (i = 0; same && i < n; i++)
			same = fd_in(now[i], group_fds, group_n_fds);
		if (same)
			return true;
		if (ms <= 0)
			return false;
		usleep(10 * 1000);
		ms -= 10;
	}
}

int test_run_group(const char *name, const struct CMUnitTest *tests, size_t n)
{
	int r;

	r = _cmocka_run_group_tests(name, tests, n, test_group_setup,
				    test_group_teardown);
	if (group_fd_leak) {
		fprintf(stderr, "[  FAILED  ] %s: fd leak check\n", name);
		return r ? r : 1;
	}
	return r;
}

/* ---- captured logging ------------------------------------------------ */

void test_log_init(struct test_log *log)
{
	memset(log, 0, sizeof(*log));
	pthread_mutex_init(&log->lock, NULL);
}

void test_log_fini(struct test_log *log)
{
	pthread_mutex_destroy(&log->lock);
}

void test_log_reset(struct test_log *log)
{
	pthread_mutex_lock(&log->lock);
	log->len = 0;
	log->buf[0] = '\0';
	memset(log->count, 0, sizeof(log->count));
	pthread_mutex_unlock(&log->lock);
}

unsigned test_log_count(struct test_log *log, int max_priority)
{
	unsigned n = 0;
	int i;

	pthread_mutex_lock(&log->lock);
	for (i = 0; i < 8 && i <= max_priority; i++)
		n += log->count[i];
	pthread_mutex_unlock(&log->lock);
	return n;
}

bool test_log_contains(struct test_log *log, const char *needle)
{
	bool found;

	pthread_mutex_lock(&log->lock);
	found = strstr(log->buf, needle) != NULL;
	pthread_mutex_unlock(&log->lock);
	return found;
}

void test_log_handler(struct accel_context *ctx, int priority,
		      const char *file, int line, const char *fn,
		      const char *format, va_list args, void *user_data)
{
	struct test_log *log = user_data;
	char msg[512];

	(void)ctx;
	vsnprintf(msg, sizeof(msg), format, args);
	if (getenv("ACCEL_TEST_VERBOSE"))
		fprintf(stderr, "libaccel <%d> %s:%d %s: %s", priority, file,
			line, fn, msg);

	pthread_mutex_lock(&log->lock);
	if (priority >= 0 && priority < 8)
		log->count[priority]++;
	if (log->len + 1 < sizeof(log->buf)) {
		int r = snprintf(log->buf + log->len, sizeof(log->buf) - log->len,
				 "<%d> %s", priority, msg);

		if (r > 0)
			log->len += (size_t)r;
		if (log->len >= sizeof(log->buf))
			log->len = sizeof(log->buf) - 1;
	}
	pthread_mutex_unlock(&log->lock);
}

int test_context_new(struct test_log *log, struct accel_context **ret)
{
	struct accel_context *ctx;
	int r;

	r = accel_context_new(0, &ctx);
	if (r < 0)
		return r;
	r = accel_context_set_log_fn(ctx, test_log_handler, log);
	if (r == 0)
		r = accel_context_set_log_priority(ctx, ACCEL_LOG_DEBUG);
	if (r < 0) {
		accel_context_unref(ctx);
		return r;
	}
	*ret = ctx;
	return 0;
}

int test_get_cpu_device(struct accel_context *ctx, struct accel_device **ret)
{
	struct accel_device **devs, *found = NULL;
	int n, i;

	n = accel_context_get_devices(ctx, NULL, 0);
	if (n < 0)
		return n;
	devs = calloc((size_t)n, sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	n = accel_context_get_devices(ctx, devs, (size_t)n);
	for (i = 0; i < n; i++) {
		uint64_t type = 0;

		if (!found &&
		    accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU)
			found = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	free(devs);
	if (n < 0)
		return n;
	if (!found)
		return -ENODEV;
	*ret = found;
	return 0;
}

uint64_t test_dev_u64(struct accel_device *dev, enum accel_device_u64 prop)
{
	uint64_t v = 0;

	assert_int_equal(accel_device_query_u64(dev, prop, &v), 0);
	return v;
}

/* ---- per-test environment -------------------------------------------- */

int test_env_setup(void **state)
{
	struct test_env *env;

	env = calloc(1, sizeof(*env));
	if (!env)
		return -1;
	test_log_init(&env->log);
	if (test_context_new(&env->log, &env->ctx) < 0 ||
	    test_get_cpu_device(env->ctx, &env->dev) < 0 ||
	    accel_queue_new(env->dev, 0, &env->queue) < 0 ||
	    accel_program_new_native(env->dev, test_kernels, test_n_kernels,
				     &env->prog) < 0) {
		fprintf(stderr, "test environment setup failed\n");
		*state = env;
		test_env_teardown(state);
		return -1;
	}
	*state = env;
	return 0;
}

int test_env_teardown(void **state)
{
	struct test_env *env = *state;

	if (!env)
		return 0;
	/* Let pending work finish before the log buffer goes away. */
	if (env->queue)
		accel_queue_finish(env->queue);
	accel_program_unref(env->prog);
	accel_queue_unref(env->queue);
	accel_device_unref(env->dev);
	accel_context_unref(env->ctx);
	test_log_fini(&env->log);
	free(env);
	*state = NULL;
	return 0;
}

/* ---- synchronous helpers --------------------------------------------- */

struct accel_buffer *test_buffer_new(struct test_env *env, uint64_t size)
{
	struct accel_buffer *buf = NULL;

	assert_int_equal(accel_buffer_new(env->dev, size, 0, &buf), 0);
	assert_non_null(buf);
	return buf;
}

int test_wait_unref(struct accel_fence *fence)
{
	int r = accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);

	accel_fence_unref(fence);
	return r;
}

void test_write(struct test_env *env, struct accel_buffer *buf,
		uint64_t offset, uint64_t size, const void *src)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_write(env->queue, buf, offset, size, src,
					   0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
}

void test_read(struct test_env *env, struct accel_buffer *buf,
	       uint64_t offset, uint64_t size, void *dst)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_read(env->queue, buf, offset, size, dst,
					  0, NULL, &f), 0);
	assert_int_equal(test_wait_unref(f), 0);
}

struct accel_kernel *test_kernel_new(struct test_env *env, const char *name)
{
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_kernel_new(env->prog, name, &k), 0);
	assert_non_null(k);
	return k;
}

void test_launch_wait(struct test_env *env, struct accel_kernel *k,
		      const struct accel_ndrange *range)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_launch(env->queue, k, range, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
}

struct accel_ndrange test_ndrange(uint32_t dim, uint64_t g0, uint64_t g1,
				  uint64_t g2, uint64_t l0, uint64_t l1,
				  uint64_t l2)
{
	struct accel_ndrange r = {
		.struct_size = sizeof(r),
		.work_dim = dim,
		.global_size = { g0, g1, g2 },
		.local_size = { l0, l1, l2 },
	};

	return r;
}

struct accel_fence *test_user_fence(struct test_env *env)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_fence_new_user(env->ctx, &f), 0);
	return f;
}
