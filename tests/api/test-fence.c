/* SPDX-License-Identifier: MIT */
/*
 * accel_fence_*: user fences, status, waits, callbacks, poll fds and the
 * profiling-time errors (the timestamps themselves are in test-queue-order.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"

static struct accel_fence *user_fence(struct test_env *env)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_fence_new_user(env->ctx, &f), 0);
	assert_non_null(f);
	return f;
}

static void test_new_user(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = TEST_SENTINEL_PTR;

	assert_int_equal(accel_fence_new_user(NULL, &f), -EINVAL);
	assert_int_equal(accel_fence_new_user(env->ctx, NULL), -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	f = user_fence(env);
	assert_ptr_equal(accel_fence_get_context(f), env->ctx);
	assert_null(accel_fence_get_context(NULL));
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_ptr_equal(accel_fence_ref(f), f);
	assert_null(accel_fence_unref(f));
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_null(accel_fence_unref(f));
	assert_null(accel_fence_ref(NULL));
	assert_null(accel_fence_unref(NULL));
	assert_int_equal(accel_fence_get_status(NULL), -EINVAL);
}

static void test_signal(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *ok = user_fence(env), *bad = user_fence(env);

	assert_int_equal(accel_fence_signal(NULL, 0), -EINVAL);
	assert_int_equal(accel_fence_signal(ok, 1), -EINVAL);
	assert_int_equal(accel_fence_signal(ok, 1000), -EINVAL);
	/* not an errno: callers would read it as one */
	assert_int_equal(accel_fence_signal(ok, -4096), -EINVAL);
	assert_int_equal(accel_fence_signal(ok, INT_MIN), -EINVAL);
	/* A rejected signal leaves the fence pending. */
	assert_int_equal(accel_fence_get_status(ok), 0);

	assert_int_equal(accel_fence_signal(ok, 0), 0);
	assert_int_equal(accel_fence_get_status(ok), 1);
	assert_int_equal(accel_fence_wait(ok, 0), 0);
	assert_int_equal(accel_fence_wait(ok, ACCEL_TIMEOUT_INFINITE), 0);

	assert_int_equal(accel_fence_signal(bad, -EIO), 0);
	assert_int_equal(accel_fence_get_status(bad), -EIO);
	assert_int_equal(accel_fence_wait(bad, 0), -EIO);
	assert_int_equal(accel_fence_wait(bad, ACCEL_TIMEOUT_INFINITE), -EIO);

	/* Exactly once: the first status wins. */
	assert_int_equal(accel_fence_signal(ok, 0), -EALREADY);
	assert_int_equal(accel_fence_signal(ok, -EIO), -EALREADY);
	assert_int_equal(accel_fence_get_status(ok), 1);
	assert_int_equal(accel_fence_signal(bad, 0), -EALREADY);
	assert_int_equal(accel_fence_get_status(bad), -EIO);

	accel_fence_unref(ok);
	accel_fence_unref(bad);
}

/* Fences made by a queue are not user fences. */
static void test_signal_queue_fence(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *user = user_fence(env), *f = NULL;

	assert_int_equal(accel_queue_marker(env->queue, 1, &user, &f), 0);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(accel_fence_signal(f, 0), -EINVAL);
	assert_int_equal(accel_fence_signal(f, -EIO), -EINVAL);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(accel_fence_signal(user, 0), 0);
	assert_int_equal(test_wait_unref(f), 0);
	accel_fence_unref(user);
}

static void test_wait(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);

	assert_int_equal(accel_fence_wait(NULL, 0), -EINVAL);
	assert_int_equal(accel_fence_wait(f, -1), -EINVAL);
	assert_int_equal(accel_fence_wait(f, INT64_MIN), -EINVAL);
	assert_int_equal(accel_fence_wait(f, 0), -ETIME);
	assert_int_equal(accel_fence_wait(f, 1), -ETIME);
	assert_int_equal(accel_fence_wait(f, 2 * 1000 * 1000), -ETIME);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(accel_fence_signal(f, 0), 0);
	assert_int_equal(accel_fence_wait(f, 0), 0);
	assert_int_equal(accel_fence_wait(f, 2 * 1000 * 1000), 0);
	accel_fence_unref(f);
}

struct waiter_arg {
	struct accel_fence *fence;
	int64_t timeout;
	int result;
};

static void *waiter_thread(void *p)
{
	struct waiter_arg *a = p;

	a->result = accel_fence_wait(a->fence, a->timeout);
	return NULL;
}

/* Waiters on other threads wake up with the status. */
static void test_wait_other_thread(void **state)
{
	struct test_env *env = *state;
	struct waiter_arg args[4];
	pthread_t th[4];
	struct accel_fence *f = user_fence(env);
	unsigned i;

	for (i = 0; i < 4; i++) {
		args[i].fence = f;
		/* Long finite timeouts take the same path as infinite ones. */
		args[i].timeout = i % 2 ? ACCEL_TIMEOUT_INFINITE :
					  INT64_C(600) * 1000000000;
		args[i].result = 1;
		assert_int_equal(pthread_create(&th[i], NULL, waiter_thread,
						&args[i]),
				 0);
	}
	assert_int_equal(accel_fence_signal(f, -ECANCELED), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].result, -ECANCELED);
	}
	accel_fence_unref(f);
}

struct cb_rec {
	atomic_int calls;
	int status;
	struct accel_fence *fence;
	pthread_t thread;
	int order;
	atomic_int *counter; /* shared call-order counter, may be NULL */
};

static void record_cb(struct accel_fence *fence, int status, void *data)
{
	struct cb_rec *r = data;

	r->status = status;
	r->fence = fence;
	r->thread = pthread_self();
	if (r->counter)
		r->order = atomic_fetch_add(r->counter, 1);
	atomic_fetch_add(&r->calls, 1);
}

static void test_callbacks(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);
	struct cb_rec rec[3], late;
	atomic_int counter = 0;
	unsigned i;

	memset(rec, 0, sizeof(rec));
	memset(&late, 0, sizeof(late));
	assert_int_equal(accel_fence_add_callback(NULL, record_cb, &rec[0]),
			 -EINVAL);
	assert_int_equal(accel_fence_add_callback(f, NULL, &rec[0]), -EINVAL);

	for (i = 0; i < 3; i++) {
		rec[i].counter = &counter;
		assert_int_equal(accel_fence_add_callback(f, record_cb,
							  &rec[i]),
				 0);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(atomic_load(&rec[i].calls), 0);

	assert_int_equal(accel_fence_signal(f, -EIO), 0);
	for (i = 0; i < 3; i++) {
		/* Called once, on the signalling thread, with the status. */
		assert_int_equal(atomic_load(&rec[i].calls), 1);
		assert_int_equal(rec[i].status, -EIO);
		assert_ptr_equal(rec[i].fence, f);
		assert_true(pthread_equal(rec[i].thread, pthread_self()));
	}
	/* Each order index used once. */
	assert_int_equal(rec[0].order + rec[1].order + rec[2].order, 0 + 1 + 2);
	assert_int_not_equal(rec[0].order, rec[1].order);

	/* Added after the signal: called before add_callback returns. */
	assert_int_equal(accel_fence_add_callback(f, record_cb, &late), 0);
	assert_int_equal(atomic_load(&late.calls), 1);
	assert_int_equal(late.status, -EIO);
	assert_true(pthread_equal(late.thread, pthread_self()));

	/* A second signal does not call anything again. */
	assert_int_equal(accel_fence_signal(f, 0), -EALREADY);
	for (i = 0; i < 3; i++)
		assert_int_equal(atomic_load(&rec[i].calls), 1);
	assert_int_equal(atomic_load(&late.calls), 1);
	accel_fence_unref(f);
}

static void success_after_signal_cb(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);
	struct cb_rec rec;

	memset(&rec, 0, sizeof(rec));
	rec.status = 12345;
	assert_int_equal(accel_fence_signal(f, 0), 0);
	assert_int_equal(accel_fence_add_callback(f, record_cb, &rec), 0);
	assert_int_equal(atomic_load(&rec.calls), 1);
	assert_int_equal(rec.status, 0);
	accel_fence_unref(f);
}

/* Callbacks may call back into libaccel: no internal lock is held. */
struct reentrant {
	int status_seen, signal_again, inner_calls, wait_result;
	struct cb_rec inner;
	struct accel_fence *keep;
};

static void reentrant_cb(struct accel_fence *fence, int status, void *data)
{
	struct reentrant *r = data;

	(void)status;
	r->status_seen = accel_fence_get_status(fence);
	r->wait_result = accel_fence_wait(fence, 0);
	r->signal_again = accel_fence_signal(fence, 0);
	accel_fence_add_callback(fence, record_cb, &r->inner);
	r->inner_calls = atomic_load(&r->inner.calls);
	/* Keep the fence beyond the callback. */
	r->keep = accel_fence_ref(fence);
}

static void test_callback_reentrant(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);
	struct reentrant r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(accel_fence_add_callback(f, reentrant_cb, &r), 0);
	assert_int_equal(accel_fence_signal(f, -ENOSPC), 0);
	assert_int_equal(r.status_seen, -ENOSPC);
	assert_int_equal(r.wait_result, -ENOSPC);
	assert_int_equal(r.signal_again, -EALREADY);
	/* Callbacks never nest: the inner one ran after the outer returned. */
	assert_int_equal(r.inner_calls, 0);
	assert_int_equal(atomic_load(&r.inner.calls), 1);
	assert_int_equal(r.inner.status, -ENOSPC);
	assert_ptr_equal(r.keep, f);
	accel_fence_unref(f);
	/* Our reference from the callback is the last one. */
	assert_int_equal(accel_fence_get_status(r.keep), -ENOSPC);
	accel_fence_unref(r.keep);
}

/* A callback on a fence that never signals is dropped with the fence. */
static void test_callback_never_signalled(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);
	struct cb_rec rec;

	memset(&rec, 0, sizeof(rec));
	assert_int_equal(accel_fence_add_callback(f, record_cb, &rec), 0);
	accel_fence_unref(f);
	assert_int_equal(atomic_load(&rec.calls), 0);
}

static int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, 0);

	assert_true(r >= 0);
	return r ? p.revents : 0;
}

static void test_poll_fd(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);
	int fd = -1, fd2 = -1, flags;

	assert_int_equal(accel_fence_export_poll_fd(NULL, &fd), -EINVAL);
	assert_int_equal(accel_fence_export_poll_fd(f, NULL), -EINVAL);
	assert_int_equal(fd, -1);

	assert_int_equal(accel_fence_export_poll_fd(f, &fd), 0);
	assert_true(fd >= 0);
	flags = fcntl(fd, F_GETFD);
	assert_true(flags >= 0);
	assert_true(flags & FD_CLOEXEC);
	assert_int_equal(poll_now(fd), 0);

	assert_int_equal(accel_fence_export_poll_fd(f, &fd2), 0);
	assert_true(fd2 >= 0);
	assert_int_not_equal(fd, fd2);
	assert_int_equal(poll_now(fd2), 0);

	assert_int_equal(accel_fence_signal(f, 0), 0);
	assert_true(poll_now(fd) & POLLIN);
	assert_true(poll_now(fd2) & POLLIN);
	/* Polling does not consume the readiness. */
	assert_true(poll_now(fd) & POLLIN);
	close(fd2);

	/* Exported after the signal: readable at once. */
	assert_int_equal(accel_fence_export_poll_fd(f, &fd2), 0);
	assert_true(poll_now(fd2) & POLLIN);
	close(fd2);

	/* The fd is the caller's: it outlives the fence. */
	accel_fence_unref(f);
	assert_true(poll_now(fd) & POLLIN);
	close(fd);
}

static void test_poll_fd_failed_and_queue(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *user = user_fence(env), *f = NULL;
	struct pollfd p;
	int fd = -1, ufd = -1;

	assert_int_equal(accel_queue_marker(env->queue, 1, &user, &f), 0);
	assert_int_equal(accel_fence_export_poll_fd(f, &fd), 0);
	assert_int_equal(accel_fence_export_poll_fd(user, &ufd), 0);
	assert_int_equal(poll_now(fd), 0);
	assert_int_equal(poll_now(ufd), 0);

	assert_int_equal(accel_fence_signal(user, -EPIPE), 0);
	assert_true(poll_now(ufd) & POLLIN);
	/* The marker completes (with the error) on some thread: block. */
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	assert_int_equal(poll(&p, 1, -1), 1);
	assert_true(p.revents & POLLIN);
	assert_int_equal(accel_fence_get_status(f), -EPIPE);
	close(fd);
	close(ufd);
	accel_fence_unref(f);
	accel_fence_unref(user);
}

static void test_get_time_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_fence *f = user_fence(env);
	uint64_t t = TEST_SENTINEL_U64;
	int w;

	assert_int_equal(accel_fence_get_time(NULL, ACCEL_FENCE_TIME_QUEUED,
					      &t),
			 -EINVAL);
	assert_int_equal(accel_fence_get_time(f, ACCEL_FENCE_TIME_QUEUED, NULL),
			 -EINVAL);
	assert_int_equal(accel_fence_get_time(f, (enum accel_fence_time)4, &t),
			 -EINVAL);
	assert_int_equal(accel_fence_get_time(f, (enum accel_fence_time)-1,
					      &t),
			 -EINVAL);
	/* User fences have no timestamps, before or after the signal. */
	for (w = ACCEL_FENCE_TIME_QUEUED; w <= ACCEL_FENCE_TIME_ENDED; w++)
		assert_int_equal(accel_fence_get_time(
					 f, (enum accel_fence_time)w, &t),
				 -ENODATA);
	assert_int_equal(accel_fence_signal(f, 0), 0);
	for (w = ACCEL_FENCE_TIME_QUEUED; w <= ACCEL_FENCE_TIME_ENDED; w++)
		assert_int_equal(accel_fence_get_time(
					 f, (enum accel_fence_time)w, &t),
				 -ENODATA);
	assert_true(t == TEST_SENTINEL_U64);
	accel_fence_unref(f);
}

/* A fence keeps its context alive. */
static void test_fence_outlives_context(void **state)
{
	struct test_log log;
	struct accel_context *ctx = NULL;
	struct accel_fence *f = NULL;
	struct cb_rec rec;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(accel_fence_new_user(ctx, &f), 0);
	assert_int_equal(accel_fence_add_callback(f, record_cb, &rec), 0);
	accel_context_unref(ctx);
	assert_ptr_equal(accel_fence_get_context(f), ctx);
	assert_int_equal(accel_fence_signal(f, 0), 0);
	assert_int_equal(atomic_load(&rec.calls), 1);
	accel_fence_unref(f);
	test_log_fini(&log);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_new_user),
		T(test_signal),
		T(test_signal_queue_fence),
		T(test_wait),
		T(test_wait_other_thread),
		T(test_callbacks),
		T(success_after_signal_cb),
		T(test_callback_reentrant),
		T(test_callback_never_signalled),
		T(test_poll_fd),
		T(test_poll_fd_failed_and_queue),
		T(test_get_time_errors),
		T(test_fence_outlives_context),
	};

	return TEST_RUN_GROUP("fence", tests);
}
