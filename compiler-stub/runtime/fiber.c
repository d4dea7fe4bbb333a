/* SPDX-License-Identifier: MIT */
/*
 * Fibers for kernels with barriers, linked (as bitcode) into programs that
 * need them: every work-item of a work-group runs on its own small stack;
 * a barrier or a sub-group function switches to the next work-item,
 * round robin, and the work-item waits there, switching on, until the
 * others it waits for have come. One turn of the round robin over the
 * live work-items is a pass; every work-item runs once in each, in the
 * order of their ids.
 *
 * A barrier waits for every live work-item to reach a barrier (those that
 * returned are done with the group's barriers).
 *
 * A sub-group function (builtins/sub-group.h) publishes its argument
 * and waits for its sub-group: the work-items of it that reached the same
 * call, site, before the current pass are its active ones. The first of
 * them is the leader: it does the function's step for them all, then
 * releases them; they run after it in the same pass. A function that all
 * of the sub-group must reach waits until its live work-items all came.
 * One that needs not (cl_khr_subgroup_non_uniform_*, ballot) takes those
 * that came once the others of the sub-group all wait too (at another
 * sub-group function, a barrier or in a waiting loop) and none at a
 * non-uniform function of a smaller site number (lower/wg-sites.c: the
 * side of a branch before the join): lanes that would run it together on
 * a SIMD machine take it together, the two sides of a branch apart. A
 * pass in which nothing came, left or returned is a stall (a sub-group
 * function not reached by all, undefined in OpenCL): the waiting
 * functions then take those that came, so that the group ends.
 *
 * A loop that waits for other work-items (compiler-stub/lower/wg-spin.c)
 * switches on each time round, so that they make progress independently.
 *
 * Stack sets (a guard page below each stack) are cached in a few slots
 * of the shared object, taken and given back with atomic exchanges, and
 * freed by its destructor. No thread-local storage: a TLS cache freed at
 * thread exit would pin the object until every worker thread ends.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <libaccel/accel-wg.h>

#include "fiber-stack.h"

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * The stack the largest work-item function of the program needs, as the
 * compiler measured it (stack-size.c); defined in the shared object.
 */
extern const uint64_t __accelc_fiber_stack HIDDEN;

#define GUARD FIBER_GUARD
#define FIBER_STACK accelc_fiber_stack_bytes(__accelc_fiber_stack)

typedef void (*item_fn)(void **args, const struct accel_wg_ctx *ctx,
			uint64_t lx, uint64_t ly, uint64_t lz, void *fg);

/*
 * a work-item's state: running (or about to, once released: SG_DONE),
 * waiting in a sub-group function, at a barrier or in a waiting loop
 */
enum { SG_RUN, SG_WAIT, SG_DONE, SG_BARRIER, SG_SPIN };

/* per work-item: saved stack pointer, pass of its arrival at a sub-group
 * function, that function's site, finished flag, state, whether that
 * function needs all of the sub-group */
#define ITEM_META (sizeof(void *) + sizeof(uint64_t) + sizeof(uint32_t) + 3)

struct fiber_group {
	void *main_sp;
	void **args;
	const struct accel_wg_ctx *ctx;
	item_fn fn;
	uint64_t n, cur, done;
	uint64_t pass;        /* passes of the round robin so far */
	uint64_t events;      /* arrivals, releases and returns so far */
	uint64_t events_seen; /* ... at the start of this pass */
	uint64_t at_barrier, barrier_gen;
	int stalled;          /* the last pass saw no event */
	void **sp;
	uint64_t *arrived;
	uint32_t *site;
	uint8_t *finished;
	uint8_t *sg_state;
	uint8_t *all;
};

struct stack_cache {
	uint8_t *base;
	size_t n;      /* stacks mapped */
	void *meta;    /* n ITEM_META records, array by array */
};

HIDDEN void accelc_fiber_switch(void **save, void *to);
/*
 * accelc_fiber_switch() and a new stack's first frame, per architecture:
 * fiber_initial_frame(top, g) returns the stack pointer a switch to the
 * new stack resumes, which enters accelc_fiber_main(g) with the
 * floating-point mode of the caller.
 */
#if defined(__x86_64__)
#include "fiber-x86_64.h"
#elif defined(__aarch64__)
#include "fiber-aarch64.h"
#else
#error "fibers know x86-64 and AArch64"
#endif

#define CACHE_SLOTS 8

static struct stack_cache *_Atomic cache_slots[CACHE_SLOTS];

static void cache_destroy(struct stack_cache *c)
{
	munmap(c->base, c->n * (FIBER_STACK + GUARD));
	/* the record itself lives at the start of the metadata mapping */
	munmap(c, sizeof(*c) + c->n * ITEM_META);
}

/* A set of at least @p n stacks, cached or new; NULL when out of memory. */
static struct stack_cache *cache_take(uint64_t n)
{
	size_t bytes;
	struct stack_cache *c;
	uint8_t *base;
	void *meta;

	for (int i = 0; i < CACHE_SLOTS; i++) {
		c = atomic_exchange(&cache_slots[i], NULL);
		if (!c)
			continue;
		if (c->n >= n)
			return c;
		cache_destroy(c);
	}
	if (__builtin_mul_overflow(n, FIBER_STACK + GUARD, &bytes))
		return NULL;
	base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
		    -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	meta = mmap(NULL, sizeof(*c) + n * ITEM_META,
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (meta == MAP_FAILED) {
		munmap(base, bytes);
		return NULL;
	}
	/* the guard page sits below each stack: stacks grow down */
	for (uint64_t i = 0; i < n; i++)
		mprotect(base + i * (FIBER_STACK + GUARD), GUARD, PROT_NONE);
	c = meta;
	c->base = base;
	c->n = n;
	c->meta = c + 1;
	return c;
}

static void cache_give(struct stack_cache *c)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		struct stack_cache *empty = NULL;

		if (atomic_compare_exchange_strong(&cache_slots[i], &empty, c))
			return;
	}
	cache_destroy(c);
}

static void cache_fini(void)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		struct stack_cache *c = atomic_exchange(&cache_slots[i], NULL);

		if (c)
			cache_destroy(c);
	}
}

/*
 * Run at dlclose() by the dynamic loader, which runs .fini_array. Not a
 * destructor attribute: the compiler's target machine (LLVM's C API)
 * emits those into .dtors, which glibc does not run.
 */
__attribute__((used, section(".fini_array"))) static void (*const
	cache_fini_entry)(void) = cache_fini;

static uint64_t next_live(struct fiber_group *g, uint64_t me)
{
	for (uint64_t k = 1; k <= g->n; k++) {
		uint64_t i = (me + k) % g->n;

		if (!g->finished[i])
			return i;
	}
	return me;
}

/* The work-item to run after @p me; a new pass when the turn wraps. */
static uint64_t advance(struct fiber_group *g, uint64_t me)
{
	uint64_t next = next_live(g, me);

	if (next <= me) {
		g->pass++;
		g->stalled = g->events == g->events_seen;
		g->events_seen = g->events;
	}
	return next;
}

/* Lets the other work-items run once. */
static void yield(struct fiber_group *g)
{
	uint64_t me = g->cur, next = advance(g, me);

	if (next == me)
		return;
	g->cur = next;
	accelc_fiber_switch(&g->sp[me], g->sp[next]);
}

static void barrier_release(struct fiber_group *g)
{
	g->at_barrier = 0;
	g->barrier_gen++;
	g->events++;
}

__attribute__((used, noinline, noreturn)) HIDDEN void
accelc_fiber_main(struct fiber_group *g)
{
	const struct accel_wg_ctx *ctx = g->ctx;
	uint64_t i = g->cur, ls0 = ctx->local_size[0];
	uint64_t ls1 = ctx->local_size[1];
	void *dead;

	g->fn(g->args, ctx, i % ls0, i / ls0 % ls1, i / (ls0 * ls1), g);
	g->events++;
	if (++g->done == g->n) {
		g->finished[i] = 1;
		accelc_fiber_switch(&dead, g->main_sp);
	} else {
		/* the rest may all be at a barrier now */
		if (g->at_barrier && g->at_barrier == g->n - g->done)
			barrier_release(g);
		g->cur = advance(g, i);
		g->finished[i] = 1;
		accelc_fiber_switch(&dead, g->sp[g->cur]);
	}
	__builtin_unreachable();
}

__attribute__((noinline)) void __accelc_fiber_barrier(void *fg)
{
	struct fiber_group *g = fg;
	uint64_t gen = g->barrier_gen;

	g->events++;
	if (++g->at_barrier == g->n - g->done) {
		barrier_release(g);
		return;
	}
	g->sg_state[g->cur] = SG_BARRIER;
	do
		yield(g);
	while (g->barrier_gen == gen);
	g->sg_state[g->cur] = SG_RUN;
}

/*
 * A loop waiting for other work-items (compiler-stub/lower/wg-spin.c).
 * It may yet see what it waits for: no stall while one spins.
 */
__attribute__((noinline)) void __accelc_fiber_yield(void *fg)
{
	struct fiber_group *g = fg;

	g->events++;
	g->sg_state[g->cur] = SG_SPIN;
	yield(g);
	g->sg_state[g->cur] = SG_RUN;
}

/*
 * May the non-uniform function at @p site take the work-items of @p mask
 * (the sub-group of @p n from @p b)? When every other live one waits,
 * none of them to come to this site or at a non-uniform function of a
 * smaller site number.
 */
static int others_settled(const struct fiber_group *g, uint64_t b,
			  uint64_t n, uint32_t site, uint64_t mask)
{
	for (uint64_t k = 0; k < n; k++) {
		uint64_t x = b + k;

		if ((mask >> k & 1) || g->finished[x])
			continue;
		switch (g->sg_state[x]) {
		case SG_BARRIER:
		case SG_SPIN:
			continue;
		case SG_WAIT:
			if (g->site[x] == site ||
			    (!g->all[x] && g->site[x] < site))
				return 0;
			continue;
		default:
			return 0;
		}
	}
	return 1;
}

/*
 * Waits in the sub-group function at @p site, its argument published,
 * for its sub-group (@p width wide; @p all: that all of it must reach).
 * @return 0 when the leader did the step, else the active work-items as
 * bits from the sub-group's first: the caller is the leader, does the
 * step and calls __accelc_fiber_sg_done().
 */
__attribute__((noinline)) uint64_t
__accelc_fiber_sg_wait(void *fg, uint32_t site, uint32_t width, uint32_t all)
{
	struct fiber_group *g = fg;
	uint64_t me = g->cur, b, n;

	width = width ? width : 1;
	b = me - me % width;
	n = g->n - b < width ? g->n - b : width;
	g->site[me] = site;
	g->all[me] = (uint8_t)all;
	g->arrived[me] = g->pass;
	g->sg_state[me] = SG_WAIT;
	g->events++;
	for (;;) {
		uint64_t mask = 0;
		int complete = 1;

		yield(g);
		if (g->sg_state[me] == SG_DONE) {
			g->sg_state[me] = SG_RUN;
			return 0;
		}
		for (uint64_t k = 0; k < n; k++) {
			uint64_t x = b + k;

			if (g->sg_state[x] == SG_WAIT && g->site[x] == site &&
			    g->arrived[x] < g->pass)
				mask |= (uint64_t)1 << k;
			else if (!g->finished[x])
				complete = 0;
		}
		/* the leader: the first that came before this pass */
		if (!mask || b + (uint64_t)__builtin_ctzll(mask) != me)
			continue;
		if (all && !complete && !g->stalled)
			continue;
		if (!all && !g->stalled &&
		    !others_settled(g, b, n, site, mask))
			continue;
		g->sg_state[me] = SG_RUN;
		return mask;
	}
}

/* The leader has done the step for @p mask (from __accelc_fiber_sg_wait). */
__attribute__((noinline)) void __accelc_fiber_sg_done(void *fg, uint32_t width,
						       uint64_t mask)
{
	struct fiber_group *g = fg;
	uint64_t b = g->cur - g->cur % (width ? width : 1);

	for (uint64_t m = mask; m; m &= m - 1) {
		uint64_t x = b + (uint64_t)__builtin_ctzll(m);

		if (x != g->cur)
			g->sg_state[x] = SG_DONE;
	}
	g->events++;
}

/* Runs the whole work-group; @return 0, -1 when stacks are unavailable
 * (then nothing ran). */
int __accelc_fiber_run(void **args, const struct accel_wg_ctx *ctx,
		       item_fn fn)
{
	struct fiber_group g = {
		.args = args, .ctx = ctx, .fn = fn,
		.n = ctx->local_size[0] * ctx->local_size[1] *
		     ctx->local_size[2],
	};
	struct stack_cache *c;

	if (g.n == 0)
		return 0;
	if (g.n == 1) {
		uint8_t fin = 0, state = SG_RUN, all;
		uint64_t arrived;
		uint32_t site;

		g.finished = &fin;
		g.sg_state = &state;
		g.all = &all;
		g.arrived = &arrived;
		g.site = &site;
		fn(args, ctx, 0, 0, 0, &g);
		return 0;
	}
	c = cache_take(g.n);
	if (!c)
		return -1;
	g.sp = c->meta;
	g.arrived = (uint64_t *)(g.sp + g.n);
	g.site = (uint32_t *)(g.arrived + g.n);
	g.finished = (uint8_t *)(g.site + g.n);
	g.sg_state = g.finished + g.n;
	g.all = g.sg_state + g.n;
	for (uint64_t i = 0; i < g.n; i++) {
		uint8_t *top = c->base + (i + 1) * (FIBER_STACK + GUARD);

		g.sp[i] = fiber_initial_frame(top, &g);
		g.finished[i] = 0;
		g.sg_state[i] = SG_RUN;
	}
	g.cur = 0;
	accelc_fiber_switch(&g.main_sp, g.sp[0]);
	cache_give(c);
	return 0;
}
