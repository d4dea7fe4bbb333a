/* SPDX-License-Identifier: MIT */
/*
 * Command lists in order on an in-order queue (cmdlist.c records and
 * submits them). On a device that runs chains (backend.h), the launches
 * are prepared once, on the first submission, as a struct accel_chain:
 * checked, their arguments snapshotted and bound, launch_prepare()d. Each
 * run of consecutive launches is then ONE command (ACCEL_CMD_CHAIN) whose
 * steps the backend runs back to back: a replay costs no per-launch
 * command, fence, queue lock or check. Updates
 * (accel_cmdlist_update_launch()) mark their launch for preparing again
 * on the next submission; the other steps are shared with the chain
 * before, which replays still running keep. Other commands, and lists
 * touching dma-bufs, go command by command.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cmdlist-private.h"

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
int accel_cmdlist_submit_chained(struct accel_queue *q,
				 struct accel_cmdlist *l, uint32_t n_wait,
				 struct accel_fence *const *wait,
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
			r = accel_cmdlist_submit_entry(q, e, nw, w,
						       last ? ret : &f);
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
