/* SPDX-License-Identifier: MIT */
/*
 * platform/thread.h: library threads start with every signal blocked and
 * a name, and stop by one rule — joined from elsewhere, detached from
 * themselves with the thread freeing its owner on its way out (the TSan
 * and ASan tiers run this: a race or a leak there fails it).
 */
#define _GNU_SOURCE
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#include "platform/thread.h"

struct seen {
	struct accel_thread *t;
	bool current;
	bool int_blocked, term_blocked;
	char name[16];
};

static void *look(void *arg)
{
	struct seen *s = arg;
	sigset_t mask;

	s->current = accel_thread_is_current(s->t);
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	s->int_blocked = sigismember(&mask, SIGINT) == 1;
	s->term_blocked = sigismember(&mask, SIGTERM) == 1;
	pthread_getname_np(pthread_self(), s->name, sizeof(s->name));
	return NULL;
}

static void test_start_and_join(void **state)
{
	struct accel_thread t;
	struct seen s = { .t = &t };
	sigset_t none, old;

	(void)state;
	/* Whatever the caller's mask is, the thread blocks everything. */
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, &old);
	assert_int_equal(accel_thread_start(&t, "accel-test", NULL, look, &s),
			 0);
	assert_false(accel_thread_is_current(&t));
	/* Joined from another thread: the caller frees the owner. */
	assert_true(accel_thread_join_or_detach(&t));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	assert_false(accel_thread_exiting_self(&t));
	assert_true(s.current);
	assert_true(s.int_blocked);
	assert_true(s.term_blocked);
	assert_string_equal(s.name, "accel-test");
}

/* An owner destroyed from its own thread. */
struct owner {
	struct accel_thread t;
};

static sem_t owner_gone;
static bool joined_from_self = true;

static void *owner_main(void *arg)
{
	struct owner *o = arg;

	/* As a completion dropping the last reference would. */
	joined_from_self = accel_thread_join_or_detach(&o->t);
	if (accel_thread_exiting_self(&o->t))
		free(o);
	sem_post(&owner_gone);
	return NULL;
}

static void test_stop_from_itself(void **state)
{
	struct owner *o = calloc(1, sizeof(*o));

	(void)state;
	assert_non_null(o);
	assert_int_equal(sem_init(&owner_gone, 0, 0), 0);
	assert_int_equal(accel_thread_start(&o->t, "accel-test", NULL,
					    owner_main, o),
			 0);
	/* Detached: nobody joins; the thread freed @o (ASan: no leak). */
	while (sem_wait(&owner_gone) < 0)
		;
	assert_false(joined_from_self);
	sem_destroy(&owner_gone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_and_join),
		cmocka_unit_test(test_stop_from_itself),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
