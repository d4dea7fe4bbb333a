/* SPDX-License-Identifier: MIT */
/* The common head of every OpenCL object: validity and the two counts. */
#include <stdlib.h>

#include "icd.h"

void icd_object_init(struct icd_object *o, cl_platform_id platform,
		     enum icd_magic magic)
{
	o->dispatch = &icd_dispatch;
	/* cl_khr_icd 2.0.0: every object carries the loader's data. */
	o->dispatch_data = platform ? platform->obj.dispatch_data : NULL;
	o->magic = magic;
	atomic_init(&o->refs, 1);
	atomic_init(&o->holds, 1);
}

bool icd_object_valid(const void *p, enum icd_magic magic)
{
	const struct icd_object *o = p;

	/*
	 * A stale or foreign pointer cannot be told apart reliably; the
	 * magic catches wrong types and most released objects.
	 */
	return o && o->magic == magic && atomic_load(&o->holds) > 0;
}

void icd_hold(void *p)
{
	struct icd_object *o = p;

	atomic_fetch_add_explicit(&o->holds, 1, memory_order_relaxed);
}

static void object_free(struct icd_object *o)
{
	switch (o->magic) {
	case ICD_MAGIC_CONTEXT:
		icd_context_free((cl_context)o);
		break;
	case ICD_MAGIC_QUEUE:
		icd_queue_free((cl_command_queue)o);
		break;
	case ICD_MAGIC_MEM:
		icd_mem_free((cl_mem)o);
		break;
	case ICD_MAGIC_PROGRAM:
		icd_program_free((cl_program)o);
		break;
	case ICD_MAGIC_KERNEL:
		icd_kernel_free((cl_kernel)o);
		break;
	case ICD_MAGIC_EVENT:
		icd_event_free((cl_event)o);
		break;
	case ICD_MAGIC_SAMPLER:
		icd_sampler_free((cl_sampler)o);
		break;
	default:
		/* platform and devices live as long as the process */
		break;
	}
}

/*
 * Freeing an object runs destructor callbacks, which may release other
 * objects whose callbacks release more: frees never nest. One that falls
 * due while this thread frees an object waits here and the outermost
 * icd_put() frees it afterwards, so chains of any length need constant
 * stack. Thread-local (initial-exec: the loader dlopen()s us, see
 * libaccel/platform/macros.h), not shared; empty whenever no free runs.
 */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
	struct icd_object **items;
	size_t head, n, cap;
	bool running;
} free_queue;

static bool free_queue_push(struct icd_object *o)
{
	if (free_queue.n == free_queue.cap) {
		size_t cap = free_queue.cap ? free_queue.cap * 2 : 16;
		struct icd_object **items;

		items = realloc(free_queue.items, cap * sizeof(*items));
		if (!items)
			return false;
		free_queue.items = items;
		free_queue.cap = cap;
	}
	free_queue.items[free_queue.n++] = o;
	return true;
}

void icd_put(void *p)
{
	struct icd_object *o = p;

	if (!o || atomic_fetch_sub_explicit(&o->holds, 1,
					    memory_order_acq_rel) != 1)
		return;
	if (free_queue.running) {
		/* Out of memory for the queue: free it now, nested. */
		if (!free_queue_push(o))
			object_free(o);
		return;
	}
	free_queue.running = true;
	object_free(o);
	/* Oldest first: frees run in the order they fell due. */
	while (free_queue.head < free_queue.n) {
		o = free_queue.items[free_queue.head++];
		/* Emptied: a chain reuses the first slots. */
		if (free_queue.head == free_queue.n)
			free_queue.head = free_queue.n = 0;
		object_free(o);
	}
	free(free_queue.items);
	free_queue.items = NULL;
	free_queue.head = free_queue.n = free_queue.cap = 0;
	free_queue.running = false;
}

cl_int icd_retain(void *p, enum icd_magic magic, cl_int invalid)
{
	struct icd_object *o = p;

	if (!icd_object_valid(o, magic) || atomic_load(&o->refs) == 0)
		return invalid;
	atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
	return CL_SUCCESS;
}

cl_int icd_release(void *p, enum icd_magic magic, cl_int invalid)
{
	struct icd_object *o = p;
	unsigned refs;

	if (!icd_object_valid(o, magic))
		return invalid;
	refs = atomic_load(&o->refs);
	do {
		if (refs == 0)
			return invalid;
	} while (!atomic_compare_exchange_weak(&o->refs, &refs, refs - 1));
	if (refs == 1) {
		/* clReleaseCommandQueue flushes implicitly. */
		if (magic == ICD_MAGIC_QUEUE)
			accel_queue_flush(((cl_command_queue)p)->q);
		icd_put(o);
	}
	return CL_SUCCESS;
}

cl_uint icd_refcount(const void *p)
{
	const struct icd_object *o = p;

	return atomic_load(&o->refs);
}

cl_int icd_callback_push(struct icd_callback **list, pthread_mutex_t *lock,
			 void (*fn)(void), void *user_data)
{
	struct icd_callback *cb = calloc(1, sizeof(*cb));

	if (!cb)
		return CL_OUT_OF_HOST_MEMORY;
	cb->fn = fn;
	cb->user_data = user_data;
	pthread_mutex_lock(lock);
	cb->next = *list;
	*list = cb;
	pthread_mutex_unlock(lock);
	return CL_SUCCESS;
}
