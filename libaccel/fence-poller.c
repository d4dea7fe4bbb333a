/* SPDX-License-Identifier: MIT */
/*
 * Fences imported from sync_files. One thread per context (made on first
 * need) waits on all pending sync_file fds with epoll and signals their
 * fences, so commands can depend on kernel fences without a thread each.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "backend.h"
#include "platform/thread.h"

struct poll_entry {
	struct poll_entry *prev, *next;
	int fd;                    /* the sync_file, owned */
	struct accel_fence *fence; /* reference until signalled */
};

struct accel_poller {
	struct accel_context *ctx; /* not a reference: the context owns us */
	struct accel_thread thread;
	int epfd;
	int wake_fd;               /* eventfd: wakes the thread to stop */
	atomic_bool stop;

	pthread_mutex_t lock;      /* guards the list */
	struct poll_entry *entries;
};

static void poller_free(struct accel_poller *p)
{
	struct poll_entry *e, *next;

	/* Entries hold context references, so normally there are none. */
	for (e = p->entries; e; e = next) {
		next = e->next;
		close(e->fd);
		accel_fence_unref(e->fence);
		free(e);
	}
	close(p->epfd);
	close(p->wake_fd);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static void entry_unlink(struct accel_poller *p, struct poll_entry *e)
{
	pthread_mutex_lock(&p->lock);
	if (e->prev)
		e->prev->next = e->next;
	else
		p->entries = e->next;
	if (e->next)
		e->next->prev = e->prev;
	pthread_mutex_unlock(&p->lock);
}

static void entry_fire(struct accel_poller *p, struct poll_entry *e)
{
	struct accel_fence *fence = e->fence;
	int status;

	entry_unlink(p, e);
	/* Readable means signalled; an error status is the fence's error. */
	status = accel_sync_file_status(e->fd);
	/*
	 * The fd goes before the waiters wake: once a fence reads signalled,
	 * libaccel holds nothing of its sync_file, so a client counting its
	 * fds after a wait sees its own (a microsecond or two on the wake).
	 * The registration goes explicitly: the caller may still hold the
	 * same open file description.
	 */
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, e->fd, NULL);
	close(e->fd);
	free(e);
	accel_fence_do_signal(fence, status < 0 ? status : 0);
	/* May drop the last context reference: see accel_poller_destroy(). */
	accel_fence_unref(fence);
}

static void *poller_main(void *data)
{
	struct accel_poller *p = data;
	struct epoll_event ev[16];
	int i, n;

	while (!atomic_load(&p->stop)) {
		n = epoll_wait(p->epfd, ev, ARRAY_SIZE(ev), -1);
		for (i = 0; i < n && !atomic_load(&p->stop); i++) {
			if (ev[i].data.ptr)
				entry_fire(p, ev[i].data.ptr);
		}
	}
	/* Destroyed from a fence callback on this thread. */
	if (accel_thread_exiting_self(&p->thread))
		poller_free(p);
	return NULL;
}

static int poller_new(struct accel_context *ctx, struct accel_poller **ret)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct accel_poller *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ctx = ctx;
	atomic_init(&p->stop, false);
	pthread_mutex_init(&p->lock, NULL);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->epfd < 0 || p->wake_fd < 0) {
		r = -errno;
		goto fail;
	}
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->wake_fd, &ev) < 0) {
		r = -errno;
		goto fail;
	}
	r = accel_thread_start(&p->thread, "accel-syncfile", NULL, poller_main,
			       p);
	if (r < 0)
		goto fail;
	*ret = p;
	return 0;
fail:
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	pthread_mutex_destroy(&p->lock);
	free(p);
	return r;
}

void accel_poller_destroy(struct accel_poller *p)
{
	uint64_t one = 1;

	if (!p)
		return;
	atomic_store(&p->stop, true);
	/* Inside a fence callback on the poller, it sees stop by itself. */
	if (!accel_thread_is_current(&p->thread) &&
	    write(p->wake_fd, &one, sizeof(one)) != sizeof(one))
		log_err(p->ctx, "cannot wake the sync_file poller\n");
	if (accel_thread_join_or_detach(&p->thread))
		poller_free(p);
}

static int context_poller(struct accel_context *ctx,
			  struct accel_poller **ret)
{
	int r = 0;

	pthread_mutex_lock(&ctx->lock);
	if (!ctx->poller)
		r = poller_new(ctx, &ctx->poller);
	*ret = ctx->poller;
	pthread_mutex_unlock(&ctx->lock);
	return r;
}

int accel_fence_from_sync_file(struct accel_context *ctx, int fd,
			       struct accel_fence **ret)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };
	struct accel_fence *fence;
	struct accel_poller *p;
	struct poll_entry *e;
	int status, r;

	r = accel_fence_create(ctx, false, false, &fence);
	if (r < 0) {
		close(fd);
		return r;
	}
	status = accel_sync_file_status(fd);
	if (status != 0) {
		/* Signalled already (or broken): no need to watch it. */
		close(fd);
		accel_fence_do_signal(fence, status < 0 ? status : 0);
		*ret = fence;
		return 0;
	}
	/*
	 * The fence keeps a duplicate: a driver can then wait for it itself
	 * and an export hands the same kernel fence on. Best effort.
	 */
	status = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (status >= 0)
		accel_fence_set_sync_file(fence, status);

	r = context_poller(ctx, &p);
	e = calloc(1, sizeof(*e));
	if (r < 0 || !e) {
		free(e);
		close(fd);
		accel_fence_unref(fence);
		return r < 0 ? r : -ENOMEM;
	}
	e->fd = fd;
	e->fence = accel_fence_ref(fence);
	pthread_mutex_lock(&p->lock);
	e->next = p->entries;
	if (e->next)
		e->next->prev = e;
	p->entries = e;
	pthread_mutex_unlock(&p->lock);

	ev.data.ptr = e;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		r = -errno;
		entry_unlink(p, e);
		close(fd);
		accel_fence_unref(e->fence);
		free(e);
		accel_fence_unref(fence);
		return r;
	}
	*ret = fence;
	return 0;
}

ACCEL_EXPORT int accel_fence_import_sync_file(struct accel_context *ctx,
					      int fd, struct accel_fence **ret)
{
	int own, r;

	if (!ctx || !ret)
		return -EINVAL;
	r = accel_sync_file_check(fd);
	if (r == -EBADF && fd >= 0 && accel_fd_is_o_path(fd))
		log_dbg(ctx, "fd %d is open, but with O_PATH: it allows no "
			"I/O, so no sync_file can be read through it\n", fd);
	if (r < 0)
		return r;
	own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (own < 0)
		return -errno;
	return accel_fence_from_sync_file(ctx, own, ret);
}
