/* SPDX-License-Identifier: MIT */
/* The common head of every OpenCL object: validity and the two counts. */
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

void icd_put(void *p)
{
	struct icd_object *o = p;

	if (!o || atomic_fetch_sub_explicit(&o->holds, 1,
					    memory_order_acq_rel) != 1)
		return;
	switch (o->magic) {
	case ICD_MAGIC_CONTEXT:
		icd_context_free(p);
		break;
	case ICD_MAGIC_QUEUE:
		icd_queue_free(p);
		break;
	case ICD_MAGIC_MEM:
		icd_mem_free(p);
		break;
	case ICD_MAGIC_PROGRAM:
		icd_program_free(p);
		break;
	case ICD_MAGIC_KERNEL:
		icd_kernel_free(p);
		break;
	case ICD_MAGIC_EVENT:
		icd_event_free(p);
		break;
	default:
		/* platform and devices live as long as the process */
		break;
	}
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
