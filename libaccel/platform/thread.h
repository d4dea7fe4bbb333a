/* SPDX-License-Identifier: MIT */
/*
 * The library's own threads (workers, completion threads, pollers): how
 * they start, and the one rule for stopping one whose owner may be
 * destroyed from the thread itself (a completion it runs drops the last
 * context reference, and the context takes the owner down with it).
 */
#ifndef LIBACCEL_PLATFORM_THREAD_H
#define LIBACCEL_PLATFORM_THREAD_H

#include <pthread.h>
#include <stdbool.h>

struct accel_thread {
	pthread_t tid;
	/*
	 * Set by accel_thread_join_or_detach() called on the thread itself;
	 * only that thread writes and reads it after the start.
	 */
	bool self_exit;
};

/*
 * Start fn(arg) on @t with every signal blocked (signals are the
 * application's) and named @name (cut to 15 characters). The name is in
 * place when this returns (ps, gdb and tests counting threads by name see
 * it at once) and before fn runs. @attr may be NULL. Returns 0 or a
 * negative errno; @t is then unused.
 */
int accel_thread_start(struct accel_thread *t, const char *name,
		       const pthread_attr_t *attr, void *(*fn)(void *),
		       void *arg);

/* Is the calling thread @t? */
bool accel_thread_is_current(const struct accel_thread *t);

/*
 * The one rule. The owner tells its thread to stop, then calls this:
 * - from any other thread it joins @t and returns true: the caller frees
 *   the owner;
 * - from @t itself it detaches @t and returns false: the caller must not
 *   touch the owner again; the thread's main function frees it as its
 *   last act, when accel_thread_exiting_self() says so.
 */
bool accel_thread_join_or_detach(struct accel_thread *t);

/* On @t, once out of its loop: must it free its owner itself? */
static inline bool accel_thread_exiting_self(const struct accel_thread *t)
{
	return t->self_exit;
}

#endif /* LIBACCEL_PLATFORM_THREAD_H */
