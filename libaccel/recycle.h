/* SPDX-License-Identifier: MIT */
/*
 * A bounded list of freed objects kept for reuse (recycle.c): the queues'
 * command records and the contexts' fences. Such objects are freed on one
 * thread (a worker completing commands) and taken on another (the one
 * submitting); through malloc every command would cross its per-thread
 * lists. Puts are a lock-free push; takes empty the pushed list all at
 * once under a lock, so the side that frees and the side that takes each
 * write a cache line of their own.
 */
#ifndef LIBACCEL_RECYCLE_H
#define LIBACCEL_RECYCLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Embedded in the object kept; container_of() gets it back. */
struct accel_recycle_link {
	struct accel_recycle_link *next;
};

struct accel_recycle {
	/* The taking side. */
	_Alignas(64) pthread_mutex_t lock; /* guards taken */
	struct accel_recycle_link *taken;
	unsigned max;                      /* objects kept at most */
	/* The freeing side. */
	_Alignas(64) _Atomic(struct accel_recycle_link *) returned;
	atomic_uint n_returned;            /* objects there (the taker subtracts) */
};

void accel_recycle_init(struct accel_recycle *r, unsigned max);
/* Destroy @r; every object must have been drained. */
void accel_recycle_fini(struct accel_recycle *r);
/* An object put earlier, or NULL. */
struct accel_recycle_link *accel_recycle_take(struct accel_recycle *r);
/* Keep @link; false if @r is full (the caller frees the object). */
bool accel_recycle_put(struct accel_recycle *r, struct accel_recycle_link *link);
/* Every object kept, as a list for the caller to free; @r is then empty. */
struct accel_recycle_link *accel_recycle_drain(struct accel_recycle *r);

#endif
