/* SPDX-License-Identifier: MIT */
/*
 * Fences: a status word that is also a futex, a list of waiters run by the
 * signalling thread, and an eventfd made only when someone wants to poll.
 */
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <time.h>

#include "platform/arch-relax.h"
#include "backend.h"

/* Spin this long before sleeping: most waits on tiny work end sooner. */
#define WAIT_SPIN_NS 8000

uint64_t accel_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Into @ctx's cache, or freed if that is full. */
static void fence_cache_put(struct accel_context *ctx,
			    struct accel_fence *fence)
{
	if (!accel_recycle_put(&ctx->fence_cache, &fence->cached)) {
		pthread_mutex_destroy(&fence->lock);
		free(fence);
	}
}

void accel_fence_cache_drain(struct accel_context *ctx)
{
	struct accel_recycle_link *l = accel_recycle_drain(&ctx->fence_cache);

	while (l) {
		struct accel_fence *f = container_of(l, struct accel_fence,
						     cached);

		l = l->next;
		pthread_mutex_destroy(&f->lock);
		free(f);
	}
}

int accel_fence_create(struct accel_context *ctx, bool user, bool profiling,
		       struct accel_fence **ret)
{
	struct accel_recycle_link *cached;
	struct accel_fence *fence;
	size_t i;

	/* a cached fence keeps its lock initialised */
	cached = accel_recycle_take(&ctx->fence_cache);
	if (cached) {
		fence = container_of(cached, struct accel_fence, cached);
	} else {
		fence = malloc(sizeof(*fence));
		if (!fence)
			return -ENOMEM;
		pthread_mutex_init(&fence->lock, NULL);
	}
	atomic_init(&fence->refcount, 1);
	atomic_init(&fence->status, ACCEL_FENCE_PENDING);
	atomic_init(&fence->n_sleepers, 0);
	for (i = 0; i < ARRAY_SIZE(fence->times); i++)
		atomic_init(&fence->times[i], 0);
	fence->waiters = NULL;
	fence->eventfd = -1;
	fence->sync_file = -1;
	fence->user = user;
	fence->profiling = profiling;
	fence->ctx = accel_context_ref(ctx);
	*ret = fence;
	return 0;
}

ACCEL_EXPORT int accel_fence_new_user(struct accel_context *ctx,
				      struct accel_fence **ret)
{
	if (!ctx || !ret)
		return -EINVAL;
	return accel_fence_create(ctx, true, false, ret);
}

/* User callbacks are waiters with a heap node. */
struct user_cb {
	struct accel_fence_waiter waiter;
	struct accel_fence *fence;
	accel_fence_cb cb;
	void *user_data;
	int status;     /* while queued */
};

/*
 * User callbacks never nest: one that becomes due while a callback runs on
 * this thread (added to a signalled fence, or its fence signalled, from
 * inside that callback) is queued here and run by the outermost call once
 * the current callback has returned. A chain of any length then needs
 * constant stack. A callback that blocks in accel_fence_wait() runs the
 * queue first (a level deeper per nested blocking wait, never per link).
 * Thread-local, not shared: the queue only holds entries while its thread
 * is inside user_cb_run().
 */
static ACCEL_TLS struct {
	struct user_cb *head, *tail;
	bool running;
} cb_queue;

/* Runs the callbacks queued on this thread, in order, until none is left. */
static void user_cb_drain(void)
{
	struct accel_fence *fence;
	struct user_cb *u;

	while ((u = cb_queue.head)) {
		cb_queue.head = (struct user_cb *)u->waiter.next;
		if (!cb_queue.head)
			cb_queue.tail = NULL;
		fence = u->fence;
		u->cb(fence, u->status, u->user_data);
		free(u);
		accel_fence_unref(fence);
	}
}

static void user_cb_run(struct user_cb *u, int status)
{
	if (cb_queue.running) {
		/* The fence must outlive the wait in the queue. */
		accel_fence_ref(u->fence);
		u->status = status;
		u->waiter.next = NULL;
		if (cb_queue.tail)
			cb_queue.tail->waiter.next = &u->waiter;
		else
			cb_queue.head = u;
		cb_queue.tail = u;
		return;
	}
	cb_queue.running = true;
	u->cb(u->fence, status, u->user_data);
	free(u);
	user_cb_drain();
	cb_queue.running = false;
}

static void user_cb_fn(struct accel_fence_waiter *w, int status)
{
	user_cb_run((struct user_cb *)w, status);
}

int accel_fence_do_signal(struct accel_fence *fence, int status)
{
	struct accel_fence_waiter *list, *rev = NULL, *next;
	int sync_file;

	pthread_mutex_lock(&fence->lock);
	if (atomic_load_explicit(&fence->status, memory_order_relaxed) !=
	    ACCEL_FENCE_PENDING) {
		pthread_mutex_unlock(&fence->lock);
		return -EALREADY;
	}
	if (fence->profiling) {
		uint64_t expected = 0;

		atomic_compare_exchange_strong(
			&fence->times[ACCEL_FENCE_TIME_ENDED], &expected,
			accel_now_ns());
	}
	atomic_store(&fence->status, status);
	list = fence->waiters;
	fence->waiters = NULL;
	sync_file = fence->sync_file;
	fence->sync_file = -1;
	if (fence->eventfd >= 0) {
		uint64_t one = 1;

		/* Cannot fail short of a counter overflow we never reach. */
		if (write(fence->eventfd, &one, sizeof(one)) != sizeof(one))
			log_err(fence->ctx, "eventfd write failed\n");
	}
	pthread_mutex_unlock(&fence->lock);

	/* Pairs with the increment in accel_fence_wait() (both seq_cst). */
	if (atomic_load(&fence->n_sleepers) > 0)
		syscall(SYS_futex, &fence->status, FUTEX_WAKE_PRIVATE, INT32_MAX,
			NULL, NULL, 0);

	/* Run waiters in the order they were added. */
	for (; list; list = next) {
		next = list->next;
		list->next = rev;
		rev = list;
	}
	for (; rev; rev = next) {
		next = rev->next;
		rev->fn(rev, status);
	}
	/* After the waiters (their latency counts); exports now make one. */
	if (sync_file >= 0)
		close(sync_file);
	return 0;
}

ACCEL_EXPORT int accel_fence_signal(struct accel_fence *fence, int status)
{
	/* Linux errnos are below 4096 (MAX_ERRNO) */
	if (!fence || status > 0 || status < -4095 || !fence->user)
		return -EINVAL;
	return accel_fence_do_signal(fence, status);
}

int accel_fence_add_waiter(struct accel_fence *fence,
			   struct accel_fence_waiter *w, int *ret_status)
{
	int status;

	pthread_mutex_lock(&fence->lock);
	status = atomic_load_explicit(&fence->status, memory_order_relaxed);
	if (status == ACCEL_FENCE_PENDING) {
		w->next = fence->waiters;
		fence->waiters = w;
		pthread_mutex_unlock(&fence->lock);
		return 0;
	}
	pthread_mutex_unlock(&fence->lock);
	*ret_status = status;
	return 1;
}

ACCEL_EXPORT struct accel_fence *accel_fence_ref(struct accel_fence *fence)
{
	if (fence)
		atomic_fetch_add_explicit(&fence->refcount, 1,
					  memory_order_relaxed);
	return fence;
}

ACCEL_EXPORT struct accel_fence *accel_fence_unref(struct accel_fence *fence)
{
	struct accel_fence_waiter *w, *next;
	struct accel_context *ctx;

	if (!fence)
		return NULL;
	if (atomic_fetch_sub_explicit(&fence->refcount, 1,
				      memory_order_acq_rel) != 1)
		return NULL;

	/*
	 * Only user callbacks can be left (internal waiters hold a
	 * reference): the fence will never signal, drop them.
	 */
	for (w = fence->waiters; w; w = next) {
		next = w->next;
		if (w->fn == user_cb_fn)
			free(w);
	}
	if (fence->eventfd >= 0)
		close(fence->eventfd);
	if (fence->sync_file >= 0)
		close(fence->sync_file);
	ctx = fence->ctx;
	fence_cache_put(ctx, fence);
	accel_context_unref(ctx);
	return NULL;
}

ACCEL_EXPORT int accel_fence_get_status(struct accel_fence *fence)
{
	int s;

	if (!fence)
		return -EINVAL;
	s = atomic_load_explicit(&fence->status, memory_order_acquire);
	if (s == ACCEL_FENCE_PENDING)
		return 0;
	return s == 0 ? 1 : s;
}

ACCEL_EXPORT int accel_fence_wait(struct accel_fence *fence, int64_t timeout_ns)
{
	uint64_t start, deadline;
	int s;

	if (!fence || timeout_ns < 0)
		return -EINVAL;
	s = atomic_load_explicit(&fence->status, memory_order_acquire);
	if (s != ACCEL_FENCE_PENDING)
		return s;
	if (timeout_ns == 0)
		return -ETIME;
	/*
	 * A callback that blocks (OpenCL leaves it undefined, clients do it)
	 * may wait for what a callback queued behind it does, such as the
	 * ICD's host-side commands: run those first, one level deeper.
	 */
	if (cb_queue.running && cb_queue.head) {
		user_cb_drain();
		s = atomic_load_explicit(&fence->status, memory_order_acquire);
		if (s != ACCEL_FENCE_PENDING)
			return s;
	}

	start = accel_now_ns();
	deadline = (uint64_t)timeout_ns > UINT64_MAX - start ?
			   UINT64_MAX :
			   start + (uint64_t)timeout_ns;

	/* Spin briefly: the work is often done within microseconds. */
	for (unsigned i = 1;; i++) {
		s = atomic_load_explicit(&fence->status, memory_order_acquire);
		if (s != ACCEL_FENCE_PENDING)
			return s;
		accel_cpu_relax();
		if (!(i & 63)) {
			uint64_t now = accel_now_ns();

			if (now >= deadline)
				return -ETIME;
			if (now - start >= WAIT_SPIN_NS)
				break;
		}
	}

	atomic_fetch_add(&fence->n_sleepers, 1);
	for (;;) {
		struct timespec ts, *tsp = NULL;
		uint64_t now;

		s = atomic_load(&fence->status);
		if (s != ACCEL_FENCE_PENDING)
			break;
		if (deadline != UINT64_MAX) {
			now = accel_now_ns();
			if (now >= deadline) {
				s = -ETIME;
				break;
			}
			ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
			ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
			tsp = &ts;
		}
		syscall(SYS_futex, &fence->status, FUTEX_WAIT_PRIVATE,
			ACCEL_FENCE_PENDING, tsp, NULL, 0);
	}
	atomic_fetch_sub(&fence->n_sleepers, 1);
	return s;
}

ACCEL_EXPORT int accel_fence_export_poll_fd(struct accel_fence *fence,
					    int *ret_fd)
{
	int fd, r = 0;

	if (!fence || !ret_fd)
		return -EINVAL;

	pthread_mutex_lock(&fence->lock);
	if (fence->eventfd < 0) {
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (fd < 0) {
			r = -errno;
			goto out;
		}
		if (atomic_load_explicit(&fence->status, memory_order_relaxed) !=
		    ACCEL_FENCE_PENDING) {
			uint64_t one = 1;

			if (write(fd, &one, sizeof(one)) != sizeof(one)) {
				r = -errno;
				close(fd);
				goto out;
			}
		}
		fence->eventfd = fd;
	}
	fd = fcntl(fence->eventfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		r = -errno;
	else
		*ret_fd = fd;
out:
	pthread_mutex_unlock(&fence->lock);
	return r;
}

ACCEL_EXPORT int accel_fence_add_callback(struct accel_fence *fence,
					  accel_fence_cb cb, void *user_data)
{
	struct user_cb *u;
	int status;

	if (!fence || !cb)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->waiter.fn = user_cb_fn;
	u->fence = fence;
	u->cb = cb;
	u->user_data = user_data;
	if (accel_fence_add_waiter(fence, &u->waiter, &status) == 1)
		user_cb_fn(&u->waiter, status);
	return 0;
}

void accel_fence_set_sync_file(struct accel_fence *fence, int fd)
{
	pthread_mutex_lock(&fence->lock);
	if (fence->sync_file < 0 &&
	    atomic_load_explicit(&fence->status, memory_order_relaxed) ==
		    ACCEL_FENCE_PENDING) {
		fence->sync_file = fd;
		fd = -1;
	}
	pthread_mutex_unlock(&fence->lock);
	if (fd >= 0)
		close(fd);
}

int accel_fence_dup_sync_file(struct accel_fence *fence, int *ret_fd)
{
	int fd, r = -ENOENT;

	pthread_mutex_lock(&fence->lock);
	if (fence->sync_file >= 0) {
		fd = fcntl(fence->sync_file, F_DUPFD_CLOEXEC, 3);
		r = fd < 0 ? -errno : 0;
		if (fd >= 0)
			*ret_fd = fd;
	}
	pthread_mutex_unlock(&fence->lock);
	return r;
}

bool accel_fence_has_sync_file(struct accel_fence *fence)
{
	bool r;

	pthread_mutex_lock(&fence->lock);
	r = fence->sync_file >= 0;
	pthread_mutex_unlock(&fence->lock);
	return r;
}

void accel_fence_set_time(struct accel_fence *fence, enum accel_fence_time which)
{
	uint64_t expected = 0;

	if (!fence->profiling)
		return;
	/* First recording wins (several workers may report a start). */
	atomic_compare_exchange_strong(&fence->times[which], &expected,
				       accel_now_ns());
}

ACCEL_EXPORT int accel_fence_get_time(struct accel_fence *fence,
				      enum accel_fence_time which,
				      uint64_t *ret_ns)
{
	uint64_t t;

	if (!fence || !ret_ns || (unsigned)which > ACCEL_FENCE_TIME_ENDED)
		return -EINVAL;
	if (!fence->profiling)
		return -ENODATA;
	t = atomic_load(&fence->times[which]);
	if (!t)
		return -EAGAIN;
	*ret_ns = t;
	return 0;
}

ACCEL_EXPORT struct accel_context *accel_fence_get_context(struct accel_fence *fence)
{
	return fence ? fence->ctx : NULL;
}
