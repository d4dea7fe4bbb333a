/* SPDX-License-Identifier: MIT */
/*
 * Fibers for kernels with barriers, linked (as bitcode) into programs that
 * need them: every work-item of a work-group runs on its own small stack;
 * a barrier switches to the next work-item, round robin, so that when
 * the last one reaches the barrier the first one resumes past it.
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

struct fiber_group {
	void *main_sp;
	void **args;
	const struct accel_wg_ctx *ctx;
	item_fn fn;
	uint64_t n, cur, done;
	void **sp;    /* saved stack pointer of each work-item */
	uint8_t *finished;
};

struct stack_cache {
	uint8_t *base;
	size_t n;      /* stacks mapped */
	void **sp;     /* n saved stack pointers, then n finished flags */
	uint8_t *finished;
};

HIDDEN void accelc_fiber_switch(void **save, void *to);

/* Saves callee-saved registers, MXCSR and the x87 control word on the
 * current stack, stores the stack pointer to *save (rdi) and resumes the
 * stack in rsi. A new stack starts in accelc_fiber_start. */
__asm__(".text\n"
	".p2align 4\n"
	".hidden accelc_fiber_switch\n"
	".type accelc_fiber_switch,@function\n"
	"accelc_fiber_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size accelc_fiber_switch, .-accelc_fiber_switch\n"
	".p2align 4\n"
	".type accelc_fiber_start,@function\n"
	"accelc_fiber_start:\n"
	"	movq %r12, %rdi\n"
	"	call accelc_fiber_main\n"
	"	ud2\n"
	".size accelc_fiber_start, .-accelc_fiber_start\n");

#define CACHE_SLOTS 8

static struct stack_cache *_Atomic cache_slots[CACHE_SLOTS];

static void cache_destroy(struct stack_cache *c)
{
	munmap(c->base, c->n * (FIBER_STACK + GUARD));
	/* the record itself lives at the start of the metadata mapping */
	munmap(c, sizeof(*c) + c->n * (sizeof(void *) + 1));
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
	meta = mmap(NULL, sizeof(*c) + n * (sizeof(void *) + 1),
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
	c->sp = (void **)(c + 1);
	c->finished = (uint8_t *)(c->sp + n);
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

__attribute__((destructor)) static void cache_fini(void)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		struct stack_cache *c = atomic_exchange(&cache_slots[i], NULL);

		if (c)
			cache_destroy(c);
	}
}

static uint64_t next_live(struct fiber_group *g, uint64_t me)
{
	for (uint64_t k = 1; k <= g->n; k++) {
		uint64_t i = (me + k) % g->n;

		if (!g->finished[i])
			return i;
	}
	return me;
}

__attribute__((used, noinline, noreturn)) HIDDEN void
accelc_fiber_main(struct fiber_group *g)
{
	const struct accel_wg_ctx *ctx = g->ctx;
	uint64_t i = g->cur, ls0 = ctx->local_size[0];
	uint64_t ls1 = ctx->local_size[1];
	void *dead;

	g->fn(g->args, ctx, i % ls0, i / ls0 % ls1, i / (ls0 * ls1), g);
	g->finished[i] = 1;
	if (++g->done == g->n) {
		accelc_fiber_switch(&dead, g->main_sp);
	} else {
		g->cur = next_live(g, i);
		accelc_fiber_switch(&dead, g->sp[g->cur]);
	}
	__builtin_unreachable();
}

__attribute__((noinline)) void __accelc_fiber_barrier(void *fg)
{
	struct fiber_group *g = fg;
	uint64_t me = g->cur, next = next_live(g, me);

	if (next == me)
		return;
	g->cur = next;
	accelc_fiber_switch(&g->sp[me], g->sp[next]);
}

static void *initial_frame(uint8_t *top, struct fiber_group *g)
{
	extern char accelc_fiber_start[] HIDDEN;
	uint64_t *sp = (uint64_t *)top;
	uint32_t csr[2];

	__asm__ volatile("stmxcsr %0\n\tfnstcw %1"
			 : "=m"(csr[0]), "=m"(csr[1]));
	/* after the ret, rsp = top: 16-aligned before accelc_fiber_start's
	 * call, as the ABI wants */
	*--sp = (uint64_t)accelc_fiber_start;   /* ret address */
	*--sp = 0;                              /* rbp */
	*--sp = 0;                              /* rbx */
	*--sp = (uint64_t)g;                    /* r12 */
	*--sp = 0;                              /* r13 */
	*--sp = 0;                              /* r14 */
	*--sp = 0;                              /* r15 */
	*--sp = (uint64_t)csr[0] | (uint64_t)csr[1] << 32;
	return sp;
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
		uint8_t fin = 0;

		g.finished = &fin;
		fn(args, ctx, 0, 0, 0, &g);
		return 0;
	}
	c = cache_take(g.n);
	if (!c)
		return -1;
	g.sp = c->sp;
	g.finished = c->finished;
	for (uint64_t i = 0; i < g.n; i++) {
		uint8_t *top = c->base + (i + 1) * (FIBER_STACK + GUARD);

		g.sp[i] = initial_frame(top, &g);
		g.finished[i] = 0;
	}
	g.cur = 0;
	accelc_fiber_switch(&g.main_sp, g.sp[0]);
	cache_give(c);
	return 0;
}
