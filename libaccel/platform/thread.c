/* SPDX-License-Identifier: MIT */
/*
 * Library threads: started with signals blocked and a name, stopped by
 * join, or by detach when the thread stops itself (see thread.h).
 */
#include <signal.h>
#include <stdio.h>

#include "platform/thread.h"

static void *thread_main(void *data)
{
	struct accel_thread *t = data;
	void *(*fn)(void *) = t->fn;
	void *arg = t->arg;

	/*
	 * Named here, before fn: from the creating thread it would race
	 * with fn (which may even free @t). Cosmetic (ps, gdb): a failure
	 * changes nothing.
	 */
	pthread_setname_np(pthread_self(), t->name);
	return fn(arg);
}

int accel_thread_start(struct accel_thread *t, const char *name,
		       const pthread_attr_t *attr, void *(*fn)(void *),
		       void *arg)
{
	sigset_t all, old;
	int r;

	t->self_exit = false;
	t->fn = fn;
	t->arg = arg;
	snprintf(t->name, sizeof(t->name), "%s", name);
	/* The new thread inherits the mask in force at pthread_create. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t->tid, attr, thread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Not a word more about @t: the thread may have freed it already. */
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
