/* SPDX-License-Identifier: MIT */
/*
 * Command lists: commands checked when recorded, submitted as a batch.
 *
 * A recorded launch is a clone of the kernel (its arguments frozen) and
 * the range. On an in-order list submitted to an in-order queue of a
 * device that runs chains (backend.h), the launches are prepared once,
 * on the first submission, as a struct accel_chain: checked, their
 * arguments snapshotted and bound, launch_prepare()d. Each run of
 * consecutive launches is then ONE command (ACCEL_CMD_CHAIN) whose steps
 * the backend runs back to back: a replay costs no per-launch command,
 * fence, queue lock or check. Updates (accel_cmdlist_update_launch())
 * mark their launch for preparing again on the next submission; the
 * other steps are shared with the chain before, which replays still
 * running keep. Other commands, other orders and lists touching dma-bufs
 * go through the queue's own entry points, so such a command is exactly
 * the command a caller could have submitted, without the caller's
 * per-command work (argument setting, checks of the OpenCL layer, event
 * objects).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

enum entry_type { E_LAUNCH, E_COPY, E_FILL, E_BARRIER, E_HOST_FN };

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

struct entry {
	enum entry_type type;
	uint32_t n_deps;
	uint32_t *deps;       /* earlier indices, for out-of-order lists */
	union {
		struct {
			struct accel_kernel *kernel;  /* the frozen clone */
			struct accel_ndrange range;
			/* updated since the chain was prepared */
			bool dirty;
		} launch;
		struct {
			struct accel_buffer *src, *dst;
			uint64_t src_offset, dst_offset, size;
		} copy;
		struct {
			struct accel_buffer *buf;
			uint64_t offset, size;
			uint32_t pattern_size;
			uint8_t pattern[128];
		} fill;
		struct host_fn *host;
	} u;
};

struct accel_cmdlist {
	atomic_int refcount;
	/*
	 * Submissions read recorded launches, accel_cmdlist_update_launch()
	 * replaces them: readers and the one writer.
	 */
	pthread_rwlock_t launch_lock;
	struct accel_device *dev;      /* reference */
	uint32_t flags;
	bool finalized;
	/* out-of-order lists: the latest barrier, which later ones follow */
	bool have_barrier;
	uint32_t barrier;
	uint32_t n, cap;
	struct entry *e;
	uint32_t n_launches;

	/*
	 * The launches prepared for in-order replays, made by the first
	 * submission (under chain_lock, with launch_lock read-held); stale
	 * after an update (set under launch_lock write-held), when the next
	 * submission prepares the updated launches again.
	 */
	pthread_mutex_t chain_lock;
	struct accel_chain *chain;
	bool chain_stale;
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
static int submit_entry(struct accel_queue *q, const struct entry *e,
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

/* ---- chains: the launches of in-order replays, prepared once ---- */

static void step_put(struct accel_chain_step *st)
{
	if (!st || atomic_fetch_sub_explicit(&st->refcount, 1,
					     memory_order_acq_rel) != 1)
		return;
	accel_launch_template_free(st->cmd);
	free(st);
}

static struct accel_chain *chain_ref(struct accel_chain *c)
{
	atomic_fetch_add_explicit(&c->refcount, 1, memory_order_relaxed);
	return c;
}

void accel_chain_unref(struct accel_chain *c)
{
	if (!c || atomic_fetch_sub_explicit(&c->refcount, 1,
					    memory_order_acq_rel) != 1)
		return;
	for (uint32_t i = 0; i < c->n_steps; i++)
		step_put(c->steps[i]);
	free(c->steps);
	free(c->buffers);
	accel_device_unref(c->dev);
	free(c);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a;
	uintptr_t y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/* The distinct buffers @c's steps bind, sorted (by address). */
static int chain_buffers(struct accel_chain *c)
{
	size_t total = 0, k = 0;
	uint32_t i, j, n;

	for (i = 0; i < c->n_steps; i++)
		total += c->steps[i]->cmd->u.launch.n_buffers;
	if (total == 0)
		return 0;
	if (total > UINT32_MAX)
		return -EOVERFLOW;
	c->buffers = calloc(total, sizeof(*c->buffers));
	if (!c->buffers)
		return -ENOMEM;
	for (i = 0; i < c->n_steps; i++) {
		const struct accel_launch *la = &c->steps[i]->cmd->u.launch;

		for (j = 0; j < la->n_buffers; j++)
			/* a chain of one buffer (the common case) stays one */
			if (!k || c->buffers[k - 1] != la->buffers[j])
				c->buffers[k++] = la->buffers[j];
	}
	qsort(c->buffers, k, sizeof(*c->buffers), cmp_ptr);
	for (i = n = 0; i < k; i++)
		if (!n || c->buffers[n - 1] != c->buffers[i])
			c->buffers[n++] = c->buffers[i];
	c->n_buffers = n;
	return 0;
}

/*
 * Prepare @l's launches for @q's device, reusing the steps of @old (the
 * chain before an update) whose launch did not change.
 */
static int chain_build(struct accel_queue *q, struct accel_cmdlist *l,
		       struct accel_chain *old, struct accel_chain **ret)
{
	struct accel_chain *c;
	uint32_t i, k = 0;
	int r = 0;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	atomic_init(&c->refcount, 1);
	c->dev = accel_device_ref(l->dev);
	c->steps = calloc(MAX(l->n_launches, 1u), sizeof(*c->steps));
	if (!c->steps) {
		accel_chain_unref(c);
		return -ENOMEM;
	}
	for (i = 0; i < l->n && r == 0; i++) {
		struct entry *e = &l->e[i];
		struct accel_chain_step *st;

		if (e->type != E_LAUNCH)
			continue;
		if (old && !e->u.launch.dirty) {
			st = old->steps[k];
			atomic_fetch_add_explicit(&st->refcount, 1,
						  memory_order_relaxed);
			c->steps[k++] = st;
			c->n_steps = k;
			continue;
		}
		st = malloc(sizeof(*st));
		if (!st) {
			r = -ENOMEM;
			break;
		}
		atomic_init(&st->refcount, 1);
		r = accel_launch_template(q, e->u.launch.kernel,
					  &e->u.launch.range, &st->cmd);
		if (r < 0) {
			free(st);
			break;
		}
		c->steps[k++] = st;
		c->n_steps = k;
	}
	if (r == 0)
		r = chain_buffers(c);
	if (r < 0) {
		accel_chain_unref(c);
		return r;
	}
	*ret = c;
	return 0;
}

/*
 * @l's chain (a reference), prepared now if there is none or an update
 * made it stale. Called with launch_lock read-held.
 */
static int chain_get(struct accel_queue *q, struct accel_cmdlist *l,
		     struct accel_chain **ret)
{
	struct accel_chain *c;
	int r = 0;

	pthread_mutex_lock(&l->chain_lock);
	if (!l->chain || l->chain_stale) {
		r = chain_build(q, l, l->chain, &c);
		if (r == 0) {
			for (uint32_t i = 0; i < l->n; i++)
				if (l->e[i].type == E_LAUNCH)
					l->e[i].u.launch.dirty = false;
			accel_chain_unref(l->chain);
			l->chain = c;
			l->chain_stale = false;
		}
	}
	if (r == 0)
		*ret = chain_ref(l->chain);
	pthread_mutex_unlock(&l->chain_lock);
	return r;
}

/*
 * CPU access to a dma-buf is bracketed per command (and other devices'
 * fences on it waited for): lists binding one go launch by launch.
 */
static bool chain_touches_dmabuf(const struct accel_chain *c)
{
	for (uint32_t i = 0; i < c->n_buffers; i++)
		if (accel_buffer_dmabuf_fd(accel_buffer_root(c->buffers[i])) >=
		    0)
			return true;
	return false;
}

/* One command running steps [begin, end) of @chain. */
static int submit_steps(struct accel_queue *q, struct accel_chain *chain,
			uint32_t begin, uint32_t end, uint32_t n_wait,
			struct accel_fence *const *wait,
			struct accel_fence **ret)
{
	struct accel_cmd *cmd = accel_cmd_alloc(q, ACCEL_CMD_CHAIN);

	if (!cmd)
		return -ENOMEM;
	cmd->u.chain.chain = chain_ref(chain);
	cmd->u.chain.begin = begin;
	cmd->u.chain.end = end;
	return accel_cmd_submit(cmd, n_wait, wait, ret);
}

/*
 * In order on an in-order queue: the queue orders the commands; each
 * consecutive run of launches (in-order barriers order nothing more) is
 * one chain command where the device runs chains. Each command waits for
 * the wait list, and for the command before it with its error passed on:
 * a command that fails stops the rest, and the list's fence, the last
 * command's, has its error.
 */
static int submit_chained(struct accel_queue *q, struct accel_cmdlist *l,
			  uint32_t n_wait, struct accel_fence *const *wait,
			  struct accel_fence **ret)
{
	struct accel_fence *inline_w[8], **w = inline_w, *prev = NULL;
	struct accel_chain *chain = NULL;
	uint32_t i = 0, step = 0;
	int r = 0;

	if (q->dev->ops->runs_chains && l->n_launches) {
		r = chain_get(q, l, &chain);
		if (r < 0)
			return r;
		if (chain_touches_dmabuf(chain)) {
			accel_chain_unref(chain);
			chain = NULL;
		}
	}
	if (n_wait >= ARRAY_SIZE(inline_w)) {
		w = calloc((size_t)n_wait + 1, sizeof(*w));
		if (!w) {
			accel_chain_unref(chain);
			return -ENOMEM;
		}
	}
	if (n_wait)
		memcpy(w, wait, n_wait * sizeof(*w));
	while (i < l->n && r == 0) {
		const struct entry *e = &l->e[i];
		uint32_t nw = n_wait + (prev != NULL), begin = step, j = i;
		struct accel_fence *f = NULL;
		bool last;

		if (chain && e->type == E_LAUNCH) {
			for (; j < l->n && (l->e[j].type == E_LAUNCH ||
					    l->e[j].type == E_BARRIER); j++)
				step += l->e[j].type == E_LAUNCH;
		} else {
			j = i + 1;
		}
		last = j == l->n;
		if (e->type == E_BARRIER && !last) {
			i = j;
			continue;
		}
		w[n_wait] = prev;
		if (chain && e->type == E_LAUNCH)
			r = submit_steps(q, chain, begin, step, nw, w,
					 last ? ret : &f);
		else
			r = submit_entry(q, e, nw, w, last ? ret : &f);
		accel_fence_unref(prev);
		prev = f;
		i = j;
	}
	accel_fence_unref(prev);
	if (w != inline_w)
		free(w);
	accel_chain_unref(chain);
	return r;
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
		r = submit_entry(q, e, n, w, &fences[i]);
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
		return submit_entry(queue, &(struct entry){ .type = E_BARRIER },
				    n_wait, wait, ret_fence);
	pthread_rwlock_rdlock(&list->launch_lock);
	if (!(list->flags & ACCEL_CMDLIST_OUT_OF_ORDER) &&
	    !(accel_queue_get_flags(queue) & ACCEL_QUEUE_OUT_OF_ORDER))
		r = submit_chained(queue, list, n_wait, wait, ret_fence);
	else
		r = submit_graph(queue, list, n_wait, wait, ret_fence);
	pthread_rwlock_unlock(&list->launch_lock);
	return r;
}
