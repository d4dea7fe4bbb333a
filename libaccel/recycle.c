// SPDX-License-Identifier: MIT
/*
 * Bounded lists of freed objects kept for reuse (recycle.h).
 */
#include "recycle.h"

void accel_recycle_init(struct accel_recycle *r, unsigned max)
{
	pthread_mutex_init(&r->lock, NULL);
	r->taken = NULL;
	r->max = max;
	atomic_init(&r->returned, NULL);
	atomic_init(&r->n_returned, 0);
}

void accel_recycle_fini(struct accel_recycle *r)
{
	pthread_mutex_destroy(&r->lock);
}

struct accel_recycle_link *accel_recycle_take(struct accel_recycle *r)
{
	struct accel_recycle_link *link, *l;
	unsigned n = 0;

	pthread_mutex_lock(&r->lock);
	if (!r->taken) {
		/* All at once; counted here, off the freeing threads' path. */
		r->taken = atomic_exchange_explicit(&r->returned, NULL,
						    memory_order_acquire);
		for (l = r->taken; l; l = l->next)
			n++;
		atomic_fetch_sub_explicit(&r->n_returned, n,
					  memory_order_relaxed);
	}
	link = r->taken;
	if (link)
		r->taken = link->next;
	pthread_mutex_unlock(&r->lock);
	return link;
}

bool accel_recycle_put(struct accel_recycle *r, struct accel_recycle_link *link)
{
	/*
	 * Over the bound by a few at worst (racing puts); the objects taken
	 * but not yet used are not counted: at most as many again.
	 */
	if (atomic_fetch_add_explicit(&r->n_returned, 1,
				      memory_order_relaxed) >= r->max) {
		atomic_fetch_sub_explicit(&r->n_returned, 1,
					  memory_order_relaxed);
		return false;
	}
	/* A push: safe without a lock, as taking is all-at-once. */
	link->next = atomic_load_explicit(&r->returned, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(
		&r->returned, &link->next, link, memory_order_release,
		memory_order_relaxed))
		;
	return true;
}

struct accel_recycle_link *accel_recycle_drain(struct accel_recycle *r)
{
	struct accel_recycle_link *list, *last;

	list = atomic_exchange(&r->returned, NULL);
	atomic_store(&r->n_returned, 0);
	pthread_mutex_lock(&r->lock);
	if (r->taken) {
		for (last = r->taken; last->next; last = last->next)
			;
		last->next = list;
		list = r->taken;
		r->taken = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	return list;
}
