/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's thread pool: one FIFO of jobs shared by all queues,
 * workers that claim pieces of the head job in chunks (atomic fetch-add),
 * and spin-then-sleep idling on a futex.
 *
 * Job lifetime: a job holds one reference for being in the FIFO and one per
 * worker working on it. A job leaves the FIFO once all its pieces are
 * claimed; each worker drops its reference after running the pieces it
 * claimed. So the last reference goes when every piece has run, and its
 * owner calls done() as its very last access to the job. A job of one piece
 * leaves the FIFO with the worker that takes it, the FIFO's reference
 * becoming that worker's.
 *
 * The pool may be destroyed from inside done() (the last context reference
 * dropped on a worker): that worker joins the others, detaches itself and
 * frees the pool when it leaves its loop (platform/thread.h's rule).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "platform/arch-relax.h"
#include "platform/macros.h"
#include "cpu-private.h"
#include "platform/thread.h"

struct cpu_worker {
	struct cpu_pool *pool;
	struct accel_thread thread;
	struct cpu_scratch scratch;
};

struct cpu_pool {
	pthread_mutex_t lock;         /* guards the FIFO */
	struct cpu_job *head, *tail;

	/* Futex word: bumped by every submission and by stop. */
	_Atomic uint32_t seq;
	atomic_uint n_spinning;       /* idle workers polling seq */
	atomic_uint n_sleepers;       /* idle workers in (or entering) futex wait */
	atomic_bool stop;

	uint64_t spin_ns;
	unsigned n_threads;
	struct cpu_worker *workers;
	uint64_t stack_overhead;      /* see measure_overhead() */
};

/*
 * Continuations (cpu_pool_continue()): on a worker, its pool and the job
 * it runs next, and how many it ran that way in a row.
 */
#define CONTINUE_MAX 64

static ACCEL_TLS struct {
	struct cpu_pool *pool;
	struct cpu_job *next;
	unsigned n;
} tls_worker;

static uint64_t now_ns(void)
{
	struct timespec ts;

	/* vDSO: no system call. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/*
 * Make @n idle workers look at the FIFO. Spinning workers will see the
 * new seq by themselves; only the rest need the system call. All orders
 * are seq_cst: a sleeper registers in n_sleepers and then re-reads seq,
 * the waker bumps seq and then reads n_sleepers, so one sees the other.
 * A spinner counted here re-reads seq after it stops spinning, so it
 * cannot miss the work either.
 */
static void pool_wake(struct cpu_pool *pool, unsigned n)
{
	unsigned spinning = atomic_load(&pool->n_spinning);

	if (n <= spinning || atomic_load(&pool->n_sleepers) == 0)
		return;
	futex_wake(&pool->seq, (int)MIN(n - spinning, (unsigned)INT_MAX));
}

unsigned cpu_pool_get_n_threads(const struct cpu_pool *pool)
{
	return pool->n_threads;
}

static void job_init(struct cpu_job *job, uint32_t want)
{
	job->want = want;
	job->next = NULL;
	atomic_init(&job->need_wake, want > 1);
	atomic_init(&job->next_item, 0);
	atomic_init(&job->refs, 1);
	atomic_init(&job->status, 0);
}

void cpu_pool_submit(struct cpu_pool *pool, struct cpu_job *job)
{
	uint64_t pieces = job->n_items / job->chunk +
			  (job->n_items % job->chunk != 0);

	job_init(job, (uint32_t)MIN(pieces, (uint64_t)pool->n_threads));
	job->queued = true;

	pthread_mutex_lock(&pool->lock);
	if (pool->tail)
		pool->tail->next = job;
	else
		pool->head = job;
	pool->tail = job;
	pthread_mutex_unlock(&pool->lock);
	/* @job may be finished and freed from here on: do not touch it. */

	atomic_fetch_add(&pool->seq, 1);
	/*
	 * Wake one; the first worker on the job wakes more if it is worth it,
	 * so the submitting thread makes at most one cheap system call and
	 * none when a worker spins.
	 */
	pool_wake(pool, 1);
}

bool cpu_pool_continue(struct cpu_pool *pool, struct cpu_job *job)
{
	if (tls_worker.pool != pool || tls_worker.next ||
	    job->n_items > job->chunk || tls_worker.n >= CONTINUE_MAX)
		return false;
	job_init(job, 1);
	job->queued = false;
	tls_worker.next = job;
	tls_worker.n++;
	return true;
}

/*
 * Take a reference on the head job, if any. A job of one piece leaves the
 * FIFO at once (*@ret_retired): its only claim is ours, and so is the
 * FIFO's reference.
 */
static struct cpu_job *pool_take(struct cpu_pool *pool, bool *ret_retired)
{
	struct cpu_job *job;

	*ret_retired = false;
	pthread_mutex_lock(&pool->lock);
	job = pool->head;
	if (job && job->n_items <= job->chunk) {
		pool->head = job->next;
		if (pool->tail == job)
			pool->tail = NULL;
		job->queued = false;
		*ret_retired = true;
	} else if (job) {
		atomic_fetch_add_explicit(&job->refs, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&pool->lock);
	return job;
}

static void job_put(struct cpu_job *job)
{
	/* acq_rel: every worker's pieces happen before done(). */
	if (atomic_fetch_sub_explicit(&job->refs, 1, memory_order_acq_rel) == 1)
		job->ops->done(job, atomic_load_explicit(&job->status,
							 memory_order_relaxed));
}

/* All pieces are claimed: take the job out of the FIFO (once). */
static void pool_retire(struct cpu_pool *pool, struct cpu_job *job)
{
	struct cpu_job *prev = NULL, *j;
	bool was_queued;

	pthread_mutex_lock(&pool->lock);
	was_queued = job->queued;
	if (was_queued) {
		/* Only the head is ever worked on, so this loop is short. */
		for (j = pool->head; j != job; j = j->next)
			prev = j;
		if (prev)
			prev->next = job->next;
		else
			pool->head = job->next;
		if (pool->tail == job)
			pool->tail = prev;
		job->queued = false;
	}
	pthread_mutex_unlock(&pool->lock);
	/* The caller still holds a reference: this is never the last one. */
	if (was_queued)
		job_put(job);
}

void cpu_job_fail(struct cpu_job *job, int status)
{
	int expected = 0;

	atomic_compare_exchange_strong_explicit(&job->status, &expected, status,
						memory_order_relaxed,
						memory_order_relaxed);
}

/*
 * Run pieces of @job (referenced by the caller) until none are left.
 * @retired: pool_take() took it out of the FIFO already.
 */
static void job_work(struct cpu_pool *pool, struct cpu_worker *w,
		     struct cpu_job *job, bool retired)
{
	const uint64_t n = job->n_items, chunk = job->chunk;
	bool begun = false, ok = true;
	uint64_t b, e;

	if (atomic_load_explicit(&job->need_wake, memory_order_relaxed) &&
	    atomic_exchange_explicit(&job->need_wake, false,
				     memory_order_relaxed))
		pool_wake(pool, job->want - 1);

	for (;;) {
		b = atomic_fetch_add_explicit(&job->next_item, chunk,
					      memory_order_relaxed);
		if (b >= n) {
			if (!retired)
				pool_retire(pool, job);
			break;
		}
		e = n - b > chunk ? b + chunk : n;
		/* The last claim: let the others move on to the next job. */
		if (e == n && !retired)
			pool_retire(pool, job);
		if (!begun) {
			int r = job->ops->begin ?
					job->ops->begin(job, &w->scratch) : 0;

			begun = true;
			if (r < 0) {
				cpu_job_fail(job, r);
				ok = false;
			}
		}
		if (ok)
			job->ops->run(job, &w->scratch, b, e);
		if (e == n)
			break;
	}
	/* Last access to @job: done() may free it and even the pool. */
	job_put(job);
}

/* Poll seq for up to spin_ns. */
static void pool_spin(struct cpu_pool *pool, uint32_t seq)
{
	uint64_t start = 0;
	unsigned i;

	for (i = 1;; i++) {
		if (atomic_load_explicit(&pool->seq, memory_order_relaxed) != seq)
			return;
		accel_cpu_relax();
		if (!(i & 63)) {
			uint64_t now = now_ns();

			if (!start)
				start = now;
			else if (now - start >= pool->spin_ns)
				return;
		}
	}
}

/* Wait until seq moves away from @seq: spin first, then sleep. */
static void pool_idle(struct cpu_pool *pool, uint32_t seq)
{
	if (pool->spin_ns) {
		/*
		 * One spinner is enough to take the next job without a system
		 * call; more would only steal CPU time from the application
		 * (the pool has a worker per CPU). The others sleep at once.
		 */
		if (atomic_fetch_add(&pool->n_spinning, 1) == 0)
			pool_spin(pool, seq);
		atomic_fetch_sub(&pool->n_spinning, 1);
	}

	atomic_fetch_add(&pool->n_sleepers, 1);
	while (atomic_load(&pool->seq) == seq)
		futex_wait(&pool->seq, seq);
	atomic_fetch_sub(&pool->n_sleepers, 1);
}

static void pool_free(struct cpu_pool *pool)
{
	pthread_mutex_destroy(&pool->lock);
	free(pool->workers);
	free(pool);
}

static void *worker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct cpu_pool *pool = w->pool;
	struct cpu_job *job;
	bool retired;
	uint32_t seq;

	tls_worker.pool = pool;
	for (;;) {
		/* Read seq before looking: work queued later bumps it. */
		seq = atomic_load_explicit(&pool->seq, memory_order_acquire);
		if (atomic_load_explicit(&pool->stop, memory_order_acquire))
			break;
		job = pool_take(pool, &retired);
		if (!job) {
			pool_idle(pool, seq);
			continue;
		}
		tls_worker.n = 0;
		job_work(pool, w, job, retired);
		/* what done() handed this worker, without the FIFO */
		while ((job = tls_worker.next)) {
			tls_worker.next = NULL;
			job_work(pool, w, job, true);
		}
	}
	tls_worker.pool = NULL;
	cpu_scratch_fini(&w->scratch);
	/* Destroyed from this very thread: nobody else will free it. */
	if (accel_thread_exiting_self(&w->thread))
		pool_free(pool);
	return NULL;
}

/*
 * Stop workers [0, n) and join them. Called on one of them, that one is
 * detached last, after which the pool is no longer the caller's
 * (platform/thread.h): false, it frees the pool on its way out.
 */
static bool pool_stop(struct cpu_pool *pool, unsigned n)
{
	struct accel_thread *self = NULL;
	unsigned i;

	atomic_store_explicit(&pool->stop, true, memory_order_release);
	atomic_fetch_add(&pool->seq, 1);
	futex_wake(&pool->seq, INT_MAX);
	for (i = 0; i < n; i++) {
		struct accel_thread *t = &pool->workers[i].thread;

		if (accel_thread_is_current(t))
			self = t;
		else
			accel_thread_join_or_detach(t);
	}
	return !self || accel_thread_join_or_detach(self);
}

static void *probe_main(void *arg)
{
	uint64_t *ret = arg;
	pthread_attr_t attr;
	void *low;
	size_t size;
	char here;

	if (pthread_getattr_np(pthread_self(), &attr))
		return NULL;
	if (pthread_attr_getstack(&attr, &low, &size) == 0)
		*ret = (uint64_t)((uintptr_t)low + size - (uintptr_t)&here);
	pthread_attr_destroy(&attr);
	return NULL;
}

/*
 * What a thread's stack loses above its first frame: glibc puts the
 * thread's static TLS block (all libraries', 768 KiB with TSan's
 * runtime) and descriptor at the top of the stack it maps. Measured once,
 * in a thread made like the workers.
 */
static uint64_t measure_overhead(const pthread_attr_t *attr)
{
	struct accel_thread t;
	uint64_t overhead = 0;

	if (accel_thread_start(&t, "accel-cpu-probe", attr, probe_main,
			       &overhead) == 0)
		accel_thread_join_or_detach(&t);
	return overhead;
}

uint64_t cpu_pool_get_stack_overhead(const struct cpu_pool *pool)
{
	return pool->stack_overhead;
}

int cpu_pool_new(unsigned n_threads, uint64_t spin_ns, struct cpu_pool **ret)
{
	pthread_mutexattr_t attr;
	pthread_attr_t tattr;
	struct cpu_pool *pool;
	unsigned i;
	int r = 0;

	if (!n_threads || !ret)
		return -EINVAL;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->workers = calloc(n_threads, sizeof(*pool->workers));
	if (!pool->workers) {
		free(pool);
		return -ENOMEM;
	}
	/* Held for a few instructions: spin a little before sleeping. */
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&pool->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	atomic_init(&pool->seq, 0);
	atomic_init(&pool->n_spinning, 0);
	atomic_init(&pool->n_sleepers, 0);
	atomic_init(&pool->stop, false);
	pool->spin_ns = spin_ns;
	pool->n_threads = n_threads;

	r = pthread_attr_init(&tattr);
	if (r == 0) {
		r = pthread_attr_setstacksize(&tattr, CPU_WORKER_STACK);
		if (r)
			pthread_attr_destroy(&tattr);
	}
	if (r) {
		pthread_mutex_destroy(&pool->lock);
		free(pool->workers);
		free(pool);
		return -r;
	}
	pool->stack_overhead = measure_overhead(&tattr);
	for (i = 0; i < n_threads; i++) {
		struct cpu_worker *w = &pool->workers[i];
		char name[16];

		w->pool = pool;
		snprintf(name, sizeof(name), "accel-cpu-%u", i % 10000u);
		r = accel_thread_start(&w->thread, name, &tattr, worker_main,
				       w);
		if (r < 0)
			break;
	}
	pthread_attr_destroy(&tattr);

	if (r < 0) {
		pool_stop(pool, i);
		pool_free(pool);
		return r;
	}
	*ret = pool;
	return 0;
}

void cpu_pool_destroy(struct cpu_pool *pool)
{
	if (!pool)
		return;
	/* On one of the workers: worker_main frees the pool on exit. */
	if (pool_stop(pool, pool->n_threads))
		pool_free(pool);
}
