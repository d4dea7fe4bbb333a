/* SPDX-License-Identifier: MIT */
/*
 * The CPU pool's threads (backends/cpu/cpu-pool.c over platform/thread.h):
 * a worker that cannot be started rolls the whole pool back (the workers
 * already running are stopped and joined), and a pool destroyed from a
 * job's done(), on one of its own workers, is freed by that worker on its
 * way out. accel_thread_start is wrapped: the test fails the start it
 * chooses and sees every pool thread end. The ASan and TSan tiers run
 * this: a leak, a double free or a race there fails it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#include "cpu-private.h"
#include "platform/thread.h"

#define N_THREADS 4u

int __real_accel_thread_start(struct accel_thread *t, const char *name,
			      const pthread_attr_t *attr, void *(*fn)(void *),
			      void *arg);
int __wrap_accel_thread_start(struct accel_thread *t, const char *name,
			      const pthread_attr_t *attr, void *(*fn)(void *),
			      void *arg);

/* Starts are counted and refused on the test's thread only. */
static unsigned n_starts;
static int fail_at = -1;              /* the start to refuse, -1: none */
static char names[N_THREADS + 1][16]; /* what each start was called */
static atomic_int n_running;          /* started, fn not returned yet */
static sem_t exited;                  /* posted when fn returns */

struct tramp {
	void *(*fn)(void *);
	void *arg;
};

static void *tramp_main(void *p)
{
	struct tramp tr = *(struct tramp *)p;
	void *ret;

	free(p);
	/* A worker that destroyed its pool frees it in here. */
	ret = tr.fn(tr.arg);
	atomic_fetch_sub(&n_running, 1);
	sem_post(&exited);
	return ret;
}

int __wrap_accel_thread_start(struct accel_thread *t, const char *name,
			      const pthread_attr_t *attr, void *(*fn)(void *),
			      void *arg)
{
	unsigned i = n_starts++;
	struct tramp *tr;
	int r;

	if (i < TEST_ARRAY_SIZE(names))
		snprintf(names[i], sizeof(names[i]), "%s", name);
	if ((int)i == fail_at)
		return -EAGAIN;
	tr = malloc(sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->fn = fn;
	tr->arg = arg;
	atomic_fetch_add(&n_running, 1);
	r = __real_accel_thread_start(t, name, attr, tramp_main, tr);
	if (r < 0) {
		atomic_fetch_sub(&n_running, 1);
		free(tr);
	}
	return r;
}

static int setup(void **state)
{
	(void)state;
	n_starts = 0;
	fail_at = -1;
	memset(names, 0, sizeof(names));
	atomic_store(&n_running, 0);
	return sem_init(&exited, 0, 0);
}

static int teardown(void **state)
{
	(void)state;
	return sem_destroy(&exited);
}

/* sem_wait(), again when a signal interrupts it. */
static void sem_take(sem_t *sem)
{
	while (sem_wait(sem) < 0)
		;
}

static void wait_exits(unsigned n)
{
	while (n--)
		sem_take(&exited);
}

/* Start 0 is the stack probe, then worker i is start i + 1. */
static void test_start_and_destroy(void **state)
{
	struct cpu_pool *pool = NULL;
	char want[16];
	unsigned i;

	(void)state;
	assert_int_equal(cpu_pool_new(N_THREADS, 0, &pool), 0);
	assert_non_null(pool);
	assert_int_equal(cpu_pool_get_n_threads(pool), N_THREADS);
	assert_int_equal(n_starts, N_THREADS + 1);
	assert_string_equal(names[0], "accel-cpu-probe");
	for (i = 0; i < N_THREADS; i++) {
		snprintf(want, sizeof(want), "accel-cpu-%u", i);
		assert_string_equal(names[i + 1], want);
	}
	/* The probe was joined before the workers started. */
	assert_int_equal(atomic_load(&n_running), N_THREADS);
	cpu_pool_destroy(pool);
	/* Destroyed from elsewhere: every worker is joined. */
	assert_int_equal(atomic_load(&n_running), 0);
}

/* No probe thread: the pool works, it only knows no stack overhead. */
static void test_probe_fails(void **state)
{
	struct cpu_pool *pool = NULL;

	(void)state;
	fail_at = 0;
	assert_int_equal(cpu_pool_new(N_THREADS, 0, &pool), 0);
	assert_non_null(pool);
	assert_int_equal(cpu_pool_get_stack_overhead(pool), 0);
	assert_int_equal(atomic_load(&n_running), N_THREADS);
	cpu_pool_destroy(pool);
	assert_int_equal(atomic_load(&n_running), 0);
}

/* Worker k cannot start: the k already running are stopped and joined. */
static void test_worker_fails_midway(void **state)
{
	struct cpu_pool *pool;
	unsigned k;

	(void)state;
	for (k = 0; k < N_THREADS; k++) {
		n_starts = 0;
		fail_at = (int)k + 1;
		pool = TEST_SENTINEL_PTR;
		assert_int_equal(cpu_pool_new(N_THREADS, 0, &pool), -EAGAIN);
		assert_ptr_equal(pool, TEST_SENTINEL_PTR);
		/* Nothing started after the refused one. */
		assert_int_equal(n_starts, k + 2);
		/* Joined, not left running: they have all returned. */
		assert_int_equal(atomic_load(&n_running), 0);
	}
}

/* A job whose completion destroys the pool, as a last context unref. */
struct self_job {
	struct cpu_job job;
	struct cpu_pool *pool;
	atomic_uint ran;
	/* Seen by done(), checked on the test's thread. */
	int status;
	unsigned ran_at_done;
	unsigned worker;            /* which worker ran done() */
};

static void self_run(struct cpu_job *job, struct cpu_scratch *s,
		     uint64_t begin, uint64_t end)
{
	struct self_job *sj = (struct self_job *)job;

	(void)s;
	atomic_fetch_add(&sj->ran, (unsigned)(end - begin));
}

/*
 * cpu_pool_submit()'s caller keeps the pool alive during the call (in
 * libaccel, a reference that leads to the context): done() destroys it
 * only once the submitter is out, as a last unref on the worker would.
 */
static sem_t submitted, destroyed;

static void self_done(struct cpu_job *job, int status)
{
	struct self_job *sj = (struct self_job *)job;
	char name[16] = "";

	sj->status = status;
	sj->ran_at_done = atomic_load(&sj->ran);
	pthread_getname_np(pthread_self(), name, sizeof(name));
	if (sscanf(name, "accel-cpu-%u", &sj->worker) != 1)
		sj->worker = N_THREADS;
	sem_take(&submitted);
	cpu_pool_destroy(sj->pool);
	sem_post(&destroyed);
}

static const struct cpu_job_ops self_ops = {
	.run = self_run,
	.done = self_done,
};

/*
 * Which worker runs done() is the scheduler's choice; many rounds make
 * it sometimes one with workers left to join after it, sometimes the
 * last (the detach comes after every join either way).
 */
static void test_destroy_from_worker(void **state)
{
	unsigned round, i, seen[N_THREADS] = { 0 };
	struct self_job sj;

	(void)state;
	assert_int_equal(sem_init(&submitted, 0, 0), 0);
	assert_int_equal(sem_init(&destroyed, 0, 0), 0);
	for (round = 0; round < 200; round++) {
		memset(&sj, 0, sizeof(sj));
		assert_int_equal(cpu_pool_new(N_THREADS, 0, &sj.pool), 0);
		wait_exits(1); /* the probe */
		sj.job.ops = &self_ops;
		sj.job.n_items = 4 * N_THREADS;
		sj.job.chunk = 1;
		atomic_init(&sj.ran, 0);
		cpu_pool_submit(sj.pool, &sj.job);
		sem_post(&submitted);
		sem_take(&destroyed);
		/* Every worker returns; the destroyer freed the pool first. */
		wait_exits(N_THREADS);
		assert_int_equal(atomic_load(&n_running), 0);
		assert_int_equal(sj.status, 0);
		assert_int_equal(sj.ran_at_done, sj.job.n_items);
		assert_true(sj.worker < N_THREADS);
		seen[sj.worker]++;
	}
	sem_destroy(&destroyed);
	sem_destroy(&submitted);
	print_message("done() and destroy ran on workers:");
	for (i = 0; i < N_THREADS; i++)
		print_message(" %u", seen[i]);
	print_message("\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start_and_destroy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_worker_fails_midway,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_from_worker,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
