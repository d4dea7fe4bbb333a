/* SPDX-License-Identifier: MIT */
/*
 * Command lists: commands checked when recorded, submitted as a batch. A
 * recorded launch is a clone of the kernel (its arguments frozen) and the
 * range. This file records, reads back and updates commands, and submits
 * lists; in-order lists on in-order queues go through cmdlist-chain.c,
 * which runs their launches as chains where the device can. Other
 * commands go through the queue's own entry points, so such a command is
 * exactly the command a caller could have submitted, without the
 * caller's per-command work (argument setting, checks of the OpenCL
 * layer, event objects).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cmdlist-private.h"

/*
 * A recorded host function, shared by the list and every submission of
 * it still pending: the last of them calls free_fn.
 */
struct host_fn {
	atomic_int refcount;
	accel_host_fn fn;
	void *user_data;
	void (*free_fn)(void *user_data);
};

ACCEL_EXPORT int accel_cmdlist_new(struct accel_device *dev, uint32_t flags,
				   struct accel_cmdlist **ret)
{
	struct accel_cmdlist *l;

	if (!dev || !ret || (flags & ~ACCEL_CMDLIST_FLAGS_ALL))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	atomic_init(&l->refcount, 1);
	pthread_rwlock_init(&l->launch_lock, NULL);
	pthread_mutex_init(&l->chain_lock, NULL);
	l->dev = accel_device_ref(dev);
	l->flags = flags;
	*ret = l;
	return 0;
}

ACCEL_EXPORT struct accel_cmdlist *accel_cmdlist_ref(struct accel_cmdlist *l)
{
	if (l)
		atomic_fetch_add_explicit(&l->refcount, 1, memory_order_relaxed);
	return l;
}

static void host_fn_put(void *p)
{
	struct host_fn *h = p;

	if (atomic_fetch_sub_explicit(&h->refcount, 1,
				      memory_order_acq_rel) != 1)
		return;
	if (h->free_fn)
		h->free_fn(h->user_data);
	free(h);
}

static int host_fn_run(void *p)
{
	struct host_fn *h = p;

	return h->fn(h->user_data);
}

static void entry_release(struct entry *e)
{
	switch (e->type) {
	case E_LAUNCH:
		accel_kernel_unref(e->u.launch.kernel);
		break;
	case E_COPY:
		accel_buffer_unref(e->u.copy.src);
		accel_buffer_unref(e->u.copy.dst);
		break;
	case E_FILL:
		accel_buffer_unref(e->u.fill.buf);
		break;
	case E_HOST_FN:
		host_fn_put(e->u.host);
		break;
	case E_BARRIER:
		break;
	}
	free(e->deps);
}

ACCEL_EXPORT struct accel_cmdlist *accel_cmdlist_unref(struct accel_cmdlist *l)
{
	if (!l || atomic_fetch_sub_explicit(&l->refcount, 1,
					    memory_order_acq_rel) != 1)
		return NULL;
	for (uint32_t i = 0; i < l->n; i++)
		entry_release(&l->e[i]);
	free(l->e);
	accel_chain_unref(l->chain);
	accel_device_unref(l->dev);
	pthread_mutex_destroy(&l->chain_lock);
	pthread_rwlock_destroy(&l->launch_lock);
	free(l);
	return NULL;
}

ACCEL_EXPORT uint32_t accel_cmdlist_get_count(struct accel_cmdlist *l)
{
	return l ? l->n : 0;
}

ACCEL_EXPORT uint32_t accel_cmdlist_get_flags(struct accel_cmdlist *l)
{
	return l ? l->flags : 0;
}

/*
 * A new entry's slot with its dependencies checked and copied (an
 * out-of-order list only: in order, the previous command is the one).
 * The caller fills the rest and commits it with add_commit().
 */
static int add_begin(struct accel_cmdlist *l, uint32_t n_deps,
		     const uint32_t *deps, struct entry **ret)
{
	bool ooo;
	struct entry *e;

	if (!l || (n_deps && !deps))
		return -EINVAL;
	if (l->finalized)
		return -EBUSY;
	for (uint32_t i = 0; i < n_deps; i++)
		if (deps[i] >= l->n)
			return -EINVAL;
	if (l->n == UINT32_MAX)
		return -EOVERFLOW;
	if (l->n == l->cap) {
		/* doubling stops at the index limit */
		uint32_t cap = !l->cap ? 16 :
			       l->cap > UINT32_MAX / 2 ? UINT32_MAX :
							 l->cap * 2;
		struct entry *p;

		p = reallocarray(l->e, cap, sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->e = p;
		l->cap = cap;
	}
	e = &l->e[l->n];
	memset(e, 0, sizeof(*e));
	ooo = l->flags & ACCEL_CMDLIST_OUT_OF_ORDER;
	/* after the latest barrier too: it holds back all recorded after it */
	if (ooo && (n_deps || l->have_barrier)) {
		e->deps = calloc((size_t)n_deps + 1, sizeof(*e->deps));
		if (!e->deps)
			return -ENOMEM;
		if (n_deps)
			memcpy(e->deps, deps, n_deps * sizeof(*deps));
		e->n_deps = n_deps;
		if (l->have_barrier)
			e->deps[e->n_deps++] = l->barrier;
	}
	*ret = e;
	return 0;
}

static void add_commit(struct accel_cmdlist *l, uint32_t *ret_point)
{
	if (ret_point)
		*ret_point = l->n;
	l->n++;
}

/* An entry that was begun but not committed. */
static void add_abort(struct entry *e)
{
	free(e->deps);
	e->deps = NULL;
}

ACCEL_EXPORT int accel_cmdlist_launch(struct accel_cmdlist *l,
				      struct accel_kernel *kernel,
				      const struct accel_ndrange *range,
				      uint32_t n_deps, const uint32_t *deps,
				      uint32_t *ret_point)
{
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	struct entry *e;
	int r;

	if (!kernel || !range || range->struct_size < offsetof(
					struct accel_ndrange, flags))
		return -EINVAL;
	r = add_begin(l, n_deps, deps, &e);
	if (r < 0)
		return r;
	if (kernel->prog->dev != l->dev) {
		r = -EXDEV;
		goto fail;
	}
	r = accel_kernel_check_launch(kernel, range, &c);
	if (r == 0)
		r = c.error;
	if (r == 0)
		r = accel_kernel_clone(kernel, &e->u.launch.kernel);
	if (r < 0)
		goto fail;
	e->type = E_LAUNCH;
	/* the caller's struct may be older (shorter) than ours */
	memcpy(&e->u.launch.range, range,
	       MIN((size_t)range->struct_size, sizeof(e->u.launch.range)));
	e->u.launch.range.struct_size = sizeof(e->u.launch.range);
	l->n_launches++;
	add_commit(l, ret_point);
	return 0;
fail:
	add_abort(e);
	return r;
}

/* The launch at @point, or NULL. */
static struct entry *launch_at(struct accel_cmdlist *l, uint32_t point)
{
	if (!l || point >= l->n || l->e[point].type != E_LAUNCH)
		return NULL;
	return &l->e[point];
}

ACCEL_EXPORT int accel_cmdlist_get_launch(struct accel_cmdlist *l,
					  uint32_t point,
					  struct accel_kernel **ret_kernel,
					  struct accel_ndrange *ret_range)
{
	struct accel_kernel *k = NULL;
	struct accel_ndrange range;
	struct entry *e = launch_at(l, point);
	int r;

	if (!e || !ret_kernel || !ret_range ||
	    ret_range->struct_size < offsetof(struct accel_ndrange, flags))
		return -EINVAL;
	pthread_rwlock_rdlock(&l->launch_lock);
	r = accel_kernel_clone(e->u.launch.kernel, &k);
	range = e->u.launch.range;
	pthread_rwlock_unlock(&l->launch_lock);
	if (r < 0)
		return r;
	*ret_kernel = k;
	/* the caller's struct may be older (shorter) than ours */
	range.struct_size = MIN(ret_range->struct_size,
				(uint32_t)sizeof(range));
	memcpy(ret_range, &range, range.struct_size);
	return 0;
}

ACCEL_EXPORT int accel_cmdlist_update_launch(struct accel_cmdlist *l,
					     uint32_t point,
					     struct accel_kernel *kernel,
					     const struct accel_ndrange *range)
{
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	struct entry *e = launch_at(l, point);
	struct accel_kernel *clone = NULL, *old;
	struct accel_ndrange nr;
	int r;

	if (!e || !kernel || (range && range->struct_size < offsetof(
					struct accel_ndrange, flags)))
		return -EINVAL;
	/* only this call changes the entry: reading it needs no lock */
	old = e->u.launch.kernel;
	if (kernel->prog != old->prog || kernel->def != old->def)
		return -EINVAL;
	nr = e->u.launch.range;
	if (range) {
		memset(&nr, 0, sizeof(nr));
		memcpy(&nr, range,
		       MIN((size_t)range->struct_size, sizeof(nr)));
		nr.struct_size = sizeof(nr);
	}
	r = accel_kernel_check_launch(kernel, &nr, &c);
	if (r == 0)
		r = c.error;
	if (r == 0)
		r = accel_kernel_clone(kernel, &clone);
	if (r < 0)
		return r;
	pthread_rwlock_wrlock(&l->launch_lock);
	e->u.launch.kernel = clone;
	e->u.launch.range = nr;
	e->u.launch.dirty = true;
	l->chain_stale = true;
	pthread_rwlock_unlock(&l->launch_lock);
	/* submitted launches hold the kernel they were given */
	accel_kernel_unref(old);
	return 0;
}

ACCEL_EXPORT int accel_cmdlist_copy(struct accel_cmdlist *l,
				    struct accel_buffer *src,
				    uint64_t src_offset,
				    struct accel_buffer *dst,
				    uint64_t dst_offset, uint64_t size,
				    uint32_t n_deps, const uint32_t *deps,
				    uint32_t *ret_point)
{
	struct accel_buffer *s = src, *d = dst;
	struct entry *e;
	int r;

	if (!l)
		return -EINVAL;
	r = accel_check_copy(l->dev, &s, src_offset, &d, dst_offset, size);
	if (r < 0)
		return r;
	r = add_begin(l, n_deps, deps, &e);
	if (r < 0)
		return r;
	e->type = E_COPY;
	/* the caller's buffers: the queue finds the views again */
	e->u.copy.src = accel_buffer_ref(src);
	e->u.copy.dst = accel_buffer_ref(dst);
	e->u.copy.src_offset = src_offset;
	e->u.copy.dst_offset = dst_offset;
	e->u.copy.size = size;
	add_commit(l, ret_point);
	return 0;
}

ACCEL_EXPORT int accel_cmdlist_fill(struct accel_cmdlist *l,
				    struct accel_buffer *buf, uint64_t offset,
				    uint64_t size, const void *pattern,
				    size_t pattern_size, uint32_t n_deps,
				    const uint32_t *deps, uint32_t *ret_point)
{
	struct accel_buffer *view = buf;
	struct entry *e;
	int r;

	if (!l)
		return -EINVAL;
	r = accel_check_fill(l->dev, &view, offset, size, pattern,
			     pattern_size);
	if (r < 0)
		return r;
	r = add_begin(l, n_deps, deps, &e);
	if (r < 0)
		return r;
	e->type = E_FILL;
	e->u.fill.buf = accel_buffer_ref(buf);
	e->u.fill.offset = offset;
	e->u.fill.size = size;
	e->u.fill.pattern_size = (uint32_t)pattern_size;
	memcpy(e->u.fill.pattern, pattern, pattern_size);
	add_commit(l, ret_point);
	return 0;
}

ACCEL_EXPORT int accel_cmdlist_barrier(struct accel_cmdlist *l,
				       uint32_t n_deps, const uint32_t *deps,
				       uint32_t *ret_point)
{
	bool ooo = l && (l->flags & ACCEL_CMDLIST_OUT_OF_ORDER);
	struct entry *e;
	int r;

	r = add_begin(l, n_deps, deps, &e);
	if (r < 0)
		return r;
	/* no sync points: after everything before it */
	if (ooo && n_deps == 0 && l->n) {
		uint32_t *all = reallocarray(e->deps, l->n, sizeof(*all));

		if (!all) {
			add_abort(e);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < l->n; i++)
			all[i] = i;
		e->deps = all;
		e->n_deps = l->n;
	}
	e->type = E_BARRIER;
	if (ooo) {
		l->have_barrier = true;
		l->barrier = l->n;
	}
	add_commit(l, ret_point);
	return 0;
}

ACCEL_EXPORT int accel_cmdlist_host_fn(struct accel_cmdlist *l,
				       accel_host_fn fn, void *user_data,
				       void (*free_fn)(void *user_data),
				       uint32_t n_deps, const uint32_t *deps,
				       uint32_t *ret_point)
{
	struct host_fn *h = NULL;
	struct entry *e;
	int r = -EINVAL;

	if (fn)
		r = add_begin(l, n_deps, deps, &e);
	if (r == 0) {
		h = malloc(sizeof(*h));
		if (!h) {
			add_abort(e);
			r = -ENOMEM;
		}
	}
	if (r < 0) {
		/* the caller hands user_data over in every case */
		if (free_fn)
			free_fn(user_data);
		return r;
	}
	atomic_init(&h->refcount, 1);
	h->fn = fn;
	h->user_data = user_data;
	h->free_fn = free_fn;
	e->type = E_HOST_FN;
	e->u.host = h;
	add_commit(l, ret_point);
	return 0;
}

ACCEL_EXPORT int accel_cmdlist_finalize(struct accel_cmdlist *l)
{
	if (!l)
		return -EINVAL;
	if (l->finalized)
		return -EBUSY;
	l->finalized = true;
	return 0;
}

/* Submit entry @e of a list after @n_wait fences. */
int accel_cmdlist_submit_entry(struct accel_queue *q, const struct entry *e,
			       uint32_t n_wait, struct accel_fence *const *wait,
			       struct accel_fence **ret)
{
	switch (e->type) {
	case E_LAUNCH:
		return accel_queue_launch(q, e->u.launch.kernel,
					  &e->u.launch.range, n_wait, wait, ret);
	case E_COPY:
		return accel_queue_copy(q, e->u.copy.src, e->u.copy.src_offset,
					e->u.copy.dst, e->u.copy.dst_offset,
					e->u.copy.size, n_wait, wait, ret);
	case E_FILL:
		return accel_queue_fill(q, e->u.fill.buf, e->u.fill.offset,
					e->u.fill.size, e->u.fill.pattern,
					e->u.fill.pattern_size, n_wait, wait,
					ret);
	case E_HOST_FN:
		/* the submission holds the function until it ran */
		atomic_fetch_add_explicit(&e->u.host->refcount, 1,
					  memory_order_relaxed);
		return accel_queue_host_fn(q, host_fn_run, e->u.host,
					   host_fn_put, n_wait, wait, ret);
	case E_BARRIER:
		break;
	}
	/* a barrier's commands are its wait list (a marker then waits for
	 * that list only) */
	return accel_queue_marker(q, n_wait, wait, ret);
}

/*
 * The general case: each command waits for its dependencies' fences (in
 * order: the previous command's), the roots for @wait; the list's fence
 * is a marker after all of them.
 */
static int submit_graph(struct accel_queue *q, struct accel_cmdlist *l,
			uint32_t n_wait, struct accel_fence *const *wait,
			struct accel_fence **ret)
{
	bool ooo = l->flags & ACCEL_CMDLIST_OUT_OF_ORDER;
	struct accel_fence **fences, **deps = NULL;
	uint32_t max_deps = 1, i, k = 0;   /* in order: the previous one */
	int r = 0;

	fences = calloc(l->n, sizeof(*fences));
	if (!fences)
		return -ENOMEM;
	for (i = 0; i < l->n; i++)
		max_deps = MAX(max_deps, l->e[i].n_deps);
	deps = calloc(max_deps, sizeof(*deps));
	if (!deps) {
		free(fences);
		return -ENOMEM;
	}
	for (i = 0; i < l->n && r == 0; i++) {
		const struct entry *e = &l->e[i];
		struct accel_fence *const *w = deps;
		uint32_t n = 0;

		if (ooo) {
			for (k = 0; k < e->n_deps; k++)
				deps[n++] = fences[e->deps[k]];
		} else if (i) {
			deps[n++] = fences[i - 1];
		}
		if (n == 0) {
			n = n_wait;
			w = wait;
		}
		r = accel_cmdlist_submit_entry(q, e, n, w, &fences[i]);
	}
	/* every command, whether or not it is a sink: the error is the first */
	if (r == 0)
		r = accel_queue_marker(q, l->n, fences, ret);
	for (i = 0; i < l->n; i++)
		accel_fence_unref(fences[i]);
	free(deps);
	free(fences);
	return r;
}

ACCEL_EXPORT int accel_queue_submit_list(struct accel_queue *queue,
					 struct accel_cmdlist *list,
					 uint32_t n_wait,
					 struct accel_fence *const *wait,
					 struct accel_fence **ret_fence)
{
	int r;

	r = accel_queue_check_wait(queue, n_wait, wait);
	if (r < 0)
		return r;
	if (!list)
		return -EINVAL;
	if (!list->finalized)
		return -EBUSY;
	if (list->dev != queue->dev)
		return -EXDEV;
	/* nothing recorded: a marker, so the fence still means "done" */
	if (list->n == 0)
		return accel_cmdlist_submit_entry(queue,
				&(struct entry){ .type = E_BARRIER }, n_wait,
				wait, ret_fence);
	pthread_rwlock_rdlock(&list->launch_lock);
	if (!(list->flags & ACCEL_CMDLIST_OUT_OF_ORDER) &&
	    !(accel_queue_get_flags(queue) & ACCEL_QUEUE_OUT_OF_ORDER))
		r = accel_cmdlist_submit_chained(queue, list, n_wait, wait,
						 ret_fence);
	else
		r = submit_graph(queue, list, n_wait, wait, ret_fence);
	pthread_rwlock_unlock(&list->launch_lock);
	return r;
}
