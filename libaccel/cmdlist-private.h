/* SPDX-License-Identifier: MIT */
/*
 * Command lists inside libaccel: the recorded entries and the list, which
 * recording and submission (cmdlist.c) share with the chains of in-order
 * replays (cmdlist-chain.c).
 */
#ifndef LIBACCEL_CMDLIST_PRIVATE_H
#define LIBACCEL_CMDLIST_PRIVATE_H

#include "accel-private.h"

enum entry_type { E_LAUNCH, E_COPY, E_FILL, E_BARRIER, E_HOST_FN };

/* A recorded host function (cmdlist.c). */
struct host_fn;

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

/* cmdlist.c: submit entry @e of a list after @n_wait fences. */
int accel_cmdlist_submit_entry(struct accel_queue *q, const struct entry *e,
			       uint32_t n_wait, struct accel_fence *const *wait,
			       struct accel_fence **ret);

/*
 * cmdlist-chain.c: submit @l, an in-order list, in order on @q, an
 * in-order queue. Called with l->launch_lock read-held.
 */
int accel_cmdlist_submit_chained(struct accel_queue *q,
				 struct accel_cmdlist *l, uint32_t n_wait,
				 struct accel_fence *const *wait,
				 struct accel_fence **ret);

#endif /* LIBACCEL_CMDLIST_PRIVATE_H */
