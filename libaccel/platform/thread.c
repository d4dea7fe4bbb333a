/* SPDX-License-Identifier: MIT */
/*
 * Library threads: started with signals blocked and a name, stopped by
 * join, or by detach when the thread stops itself (see thread.h).
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>

#include "platform/thread.h"

/* On the creator's stack until the new thread posts @named. */
struct thread_start {
	void *(*fn)(void *);
	void *arg;
	char name[16];
	sem_t named;
};

static void *thread_main(void *data)
{
	struct thread_start *s = data;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;

	/*
	 * Named here, before fn: from the creating thread it would race
	 * with fn (which may even detach and end the thread). A failure
	 * only loses the name.
	 */
	pthread_setname_np(pthread_self(), s->name);
	/* @s is gone once the creator wakes. */
	sem_post(&s->named);
	return fn(arg);
}

int accel_thread_start(struct accel_thread *t, const char *name,
		       const pthread_attr_t *attr, void *(*fn)(void *),
		       void *arg)
{
	struct thread_start s = { .fn = fn, .arg = arg };
	sigset_t all, old;
	int r;

	if (sem_init(&s.named, 0, 0))
		return -errno;
	snprintf(s.name, sizeof(s.name), "%s", name);
	t->self_exit = false;
	/* The new thread inherits the mask in force at pthread_create. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t->tid, attr, thread_main, &s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Not a word more about @t: the thread may have freed it already. */
	if (!r)
		while (sem_wait(&s.named) && errno == EINTR)
			;
	sem_destroy(&s.named);
	return -r;
}

bool accel_thread_is_current(const struct accel_thread *t)
{
	return pthread_equal(pthread_self(), t->tid);
}

bool accel_thread_join_or_detach(struct accel_thread *t)
{
	if (accel_thread_is_current(t)) {
		/* Nobody can join us: the thread frees its owner on exit. */
		t->self_exit = true;
		pthread_detach(t->tid);
		return false;
	}
	pthread_join(t->tid, NULL);
	return true;
}
