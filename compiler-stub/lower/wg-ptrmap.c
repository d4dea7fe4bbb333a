/* SPDX-License-Identifier: MIT */
/* A pointer -> pointer hash map for the region pass (wg-regions.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wg-regions.h"

static size_t ptr_hash(const void *k, size_t cap)
{
	return (size_t)(((uintptr_t)k >> 4) * 0x9e3779b97f4a7c15ull) &
	       (cap - 1);
}

void *ptrmap_get(const struct ptrmap *m, const void *k)
{
	if (!m->cap)
		return NULL;
	for (size_t i = ptr_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->k[i] == k)
			return m->v[i];
		if (!m->k[i])
			return NULL;
	}
}

int ptrmap_put(struct ptrmap *m, void *k, void *v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct ptrmap g = { .cap = m->cap ? m->cap * 2 : 64 };

		g.k = calloc(g.cap, sizeof(*g.k));
		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.k || !g.v) {
			ptrmap_free(&g);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++)
			if (m->k[i] && ptrmap_put(&g, m->k[i], m->v[i]))
				return -ENOMEM; /* cannot happen: room */
		ptrmap_free(m);
		*m = g;
	}
	for (i = ptr_hash(k, m->cap); m->k[i] && m->k[i] != k;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->k[i])
		m->n++;
	m->k[i] = k;
	m->v[i] = v;
	return 0;
}

void ptrmap_clear(struct ptrmap *m)
{
	if (m->cap) {
		memset(m->k, 0, m->cap * sizeof(*m->k));
		memset(m->v, 0, m->cap * sizeof(*m->v));
	}
	m->n = 0;
}

void ptrmap_free(struct ptrmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
