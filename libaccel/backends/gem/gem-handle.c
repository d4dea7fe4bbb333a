/* SPDX-License-Identifier: MIT */
/*
 * The per-file GEM handle table: a count of users per handle, since the
 * kernel hands out one handle per object per file and counts none.
 */
#include <search.h>
#include <stdlib.h>

#include "backend.h"
#include "gem.h"

struct gem_handle {
	uint32_t handle;
	uint32_t count;
};

static int handle_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct gem_handle *)a)->handle;
	uint32_t y = ((const struct gem_handle *)b)->handle;

	return x < y ? -1 : x > y;
}

void gem_device_init(struct gem_device *g, int fd, uint32_t prime_caps)
{
	g->fd = fd;
	g->prime_caps = prime_caps;
	g->handles = NULL;
	g->n_handles = 0;
	pthread_mutex_init(&g->handles_lock, NULL);
}

void gem_device_fini(struct gem_device *g)
{
	/* Every buffer held a device reference: the tree is empty. */
	tdestroy(g->handles, free);
	g->handles = NULL;
	pthread_mutex_destroy(&g->handles_lock);
}

/* Under handles_lock. */
static int handle_get(struct gem_device *g, uint32_t handle)
{
	struct gem_handle key = { .handle = handle }, *h, **slot;

	slot = tfind(&key, &g->handles, handle_cmp);
	if (slot) {
		(*slot)->count++;
		return 0;
	}
	h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	*h = (struct gem_handle){ .handle = handle, .count = 1 };
	if (!tsearch(h, &g->handles, handle_cmp)) {
		free(h);
		return -ENOMEM;
	}
	g->n_handles++;
	return 0;
}

/* Under handles_lock. */
static void handle_put(struct gem_device *g, uint32_t handle)
{
	struct gem_handle key = { .handle = handle }, **slot, *h;

	slot = tfind(&key, &g->handles, handle_cmp);
	if (slot) {
		h = *slot;
		if (--h->count > 0)
			return;
		tdelete(&key, &g->handles, handle_cmp);
		g->n_handles--;
		free(h);
	}
	/* Not in the tree: a handle that never made it in. */
	gem_close(g->fd, handle);
}

/*
 * Under handles_lock, right after the ioctl that gave @handle returned
 * @r: count the new user, or close a handle that cannot be counted.
 */
static int handle_take(struct gem_device *g, int r, uint32_t handle)
{
	if (r < 0)
		return r;
	r = handle_get(g, handle);
	if (r < 0)
		handle_put(g, handle);
	return r;
}

int gem_handle_create(struct gem_device *g,
		      int (*create)(int fd, void *arg, uint32_t *ret_handle),
		      void *arg, uint32_t *ret_handle)
{
	uint32_t handle = 0;
	int r;

	pthread_mutex_lock(&g->handles_lock);
	r = create(g->fd, arg, &handle);
	r = handle_take(g, r, handle);
	pthread_mutex_unlock(&g->handles_lock);
	if (r == 0)
		*ret_handle = handle;
	return r;
}

static int prime_import(int fd, void *arg, uint32_t *ret_handle)
{
	return gem_prime_fd_to_handle(fd, *(const int *)arg, ret_handle);
}

int gem_handle_import(struct gem_device *g, int dmabuf, uint32_t *ret_handle)
{
	/* Under the lock too: a known dma-buf gives a handle in use. */
	return gem_handle_create(g, prime_import, &dmabuf, ret_handle);
}

void gem_handle_put(struct gem_device *g, uint32_t handle)
{
	pthread_mutex_lock(&g->handles_lock);
	handle_put(g, handle);
	pthread_mutex_unlock(&g->handles_lock);
}
