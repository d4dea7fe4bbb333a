/* SPDX-License-Identifier: MIT */
/*
 * A device's completion thread: commands in a FIFO, run one at a time in
 * order by the backend's run(), then completed. Never the submitting
 * thread, which must not block on device work.
 *
 * The worker may be destroyed from inside a completion it runs (the last
 * context reference dropped there): platform/thread.h's rule then has it
 * free itself when it leaves its loop. run() and the completion are all
 * it touches of the backend, so the backend may free its own state at
 * once.
 */
#include <stdlib.h>

#include "backend.h"
#include "gem.h"
#include "platform/thread.h"

struct gem_worker {
	struct accel_thread thread;
	int (*run)(struct accel_cmd *cmd);
	pthread_mutex_t lock;    /* guards everything below */
	pthread_cond_t wake;
	/* Commands in order, linked through backend_priv[0]. */
	struct accel_cmd *head, *tail;
	bool stop;
};

static struct accel_cmd **link_of(struct accel_cmd *cmd)
{
	return (struct accel_cmd **)&cmd->backend_priv[0];
}

static void worker_free(struct gem_worker *w)
{
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

static void *worker_main(void *arg)
{
	struct gem_worker *w = arg;
	struct accel_cmd *cmd;
	int status;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		cmd = w->head;
		if (!cmd)
			break; /* stopped, and nothing is left */
		/* Left at the head while it runs. */
		pthread_mutex_unlock(&w->lock);

		status = w->run(cmd);

		pthread_mutex_lock(&w->lock);
		w->head = *link_of(cmd);
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);

		/* May drop the last context reference and destroy us. */
		accel_cmd_complete(cmd, status);

		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	if (accel_thread_exiting_self(&w->thread))
		worker_free(w);
	return NULL;
}

int gem_worker_new(const char *name, int (*run)(struct accel_cmd *cmd),
		   struct gem_worker **ret)
{
	struct gem_worker *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->run = run;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	r = accel_thread_start(&w->thread, name, NULL, worker_main, w);
	if (r < 0) {
		worker_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

void gem_worker_destroy(struct gem_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	/* On the worker itself: worker_main frees @w on its way out. */
	if (accel_thread_join_or_detach(&w->thread))
		worker_free(w);
}

void gem_worker_lock(struct gem_worker *w)
{
	pthread_mutex_lock(&w->lock);
}

void gem_worker_unlock(struct gem_worker *w)
{
	pthread_mutex_unlock(&w->lock);
}

void gem_worker_append_locked(struct gem_worker *w, struct accel_cmd *cmd)
{
	*link_of(cmd) = NULL;
	if (w->tail)
		*link_of(w->tail) = cmd;
	else
		w->head = cmd;
	w->tail = cmd;
	pthread_cond_signal(&w->wake);
}

void gem_worker_append(struct gem_worker *w, struct accel_cmd *cmd)
{
	gem_worker_lock(w);
	gem_worker_append_locked(w, cmd);
	gem_worker_unlock(w);
}
