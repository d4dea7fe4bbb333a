/* SPDX-License-Identifier: MIT */
/*
 * What the sharing cases share: the test kernels, the environment (a
 * context with its CPU device, libaccel's vgem device and a vgem card
 * when there are), synchronous helpers and the patterns they check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sharing-common.h"

/* ---- kernels ------------------------------------------------------------ */

/* Word @i of the pattern @seed; seed 0 is all zeros (fresh memory). */
uint32_t word(uint64_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 0x9e3779b1u ^ seed;

	if (!seed)
		return 0;

	return x ^ (x >> 15) ^ (uint32_t)(i >> 20);
}

static uint64_t first_gid(const struct accel_wg_ctx *ctx)
{
	return ctx->global_offset[0] +
	       ctx->group_id[0] * ctx->enqueued_local_size[0];
}

/* pattern_u32(global uint *p, uint seed): p[gid] = word(gid, seed) */
static void pattern_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *p = *(uint32_t *const *)args[0];
	uint32_t seed = *(const uint32_t *)args[1];
	uint64_t g = first_gid(ctx), i;

	for (i = g; i < g + ctx->local_size[0]; i++)
		p[i] = word(i, seed);
}

/*
 * check_u32(global const uint *p, uint seed, global uint *bad):
 * bad[0] += number of p[gid] != word(gid, seed)
 */
static void check_wg(void **args, const struct accel_wg_ctx *ctx)
{
	const uint32_t *p = *(const uint32_t *const *)args[0];
	uint32_t seed = *(const uint32_t *)args[1];
	uint32_t *bad = *(uint32_t *const *)args[2];
	uint64_t g = first_gid(ctx), i;
	uint32_t n = 0;

	for (i = g; i < g + ctx->local_size[0]; i++)
		n += p[i] != word(i, seed);
	if (n)
		__atomic_fetch_add(bad, n, __ATOMIC_RELAXED);
}

/*
 * mark_u32(global uint *p, uint value, ulong ran):
 * p[gid] = p[gid] * 3 + value; each work-group adds 1 to the uint64_t at
 * address @ran (in the test), which records that the kernel ran.
 */
static void mark_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *p = *(uint32_t *const *)args[0];
	uint32_t value = *(const uint32_t *)args[1];
	uint64_t ran = *(const uint64_t *)args[2];
	uint64_t g = first_gid(ctx), i;

	for (i = g; i < g + ctx->local_size[0]; i++)
		p[i] = p[i] * 3 + value;
	__atomic_fetch_add((uint64_t *)(uintptr_t)ran, 1, __ATOMIC_RELEASE);
}

#define ARG_BUFFER(qual, n)                                                    \
	{                                                                      \
		.struct_size = sizeof(struct accel_kernel_arg_desc),           \
		.kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),       \
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,                 \
		.type_qualifiers = (qual), .name = (n),                        \
	}
#define ARG_VALUE(sz, n)                                                       \
	{                                                                      \
		.struct_size = sizeof(struct accel_kernel_arg_desc),           \
		.kind = ACCEL_KERNEL_ARG_VALUE, .size = (sz),                  \
		.address_space = ACCEL_KERNEL_ARG_ADDR_PRIVATE, .name = (n),   \
	}

static const struct accel_kernel_arg_desc pattern_args[] = {
	ARG_BUFFER(0, "p"),
	ARG_VALUE(4, "seed"),
};
static const struct accel_kernel_arg_desc check_args[] = {
	ARG_BUFFER(ACCEL_KERNEL_ARG_TYPE_CONST, "p"),
	ARG_VALUE(4, "seed"),
	ARG_BUFFER(0, "bad"),
};
static const struct accel_kernel_arg_desc mark_args[] = {
	ARG_BUFFER(0, "p"),
	ARG_VALUE(4, "value"),
	ARG_VALUE(8, "ran"),
};

#define KERNEL(n, f, a)                                                        \
	{                                                                      \
		.struct_size = sizeof(struct accel_native_kernel_desc),        \
		.name = (n), .fn = (f), .n_args = TEST_ARRAY_SIZE(a),          \
		.args = (a),                                                   \
	}

static const struct accel_native_kernel_desc sharing_kernels[] = {
	KERNEL("pattern_u32", pattern_wg, pattern_args),
	KERNEL("check_u32", check_wg, check_args),
	KERNEL("mark_u32", mark_wg, mark_args),
};

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* libaccel's device of vgem, or NULL. */
static struct accel_device *find_vgem(struct accel_context *ctx)
{
	struct accel_device *devs[16], *found = NULL;
	int n, i;

	n = accel_context_get_devices(ctx, devs, TEST_ARRAY_SIZE(devs));
	for (i = 0; i < n && i < (int)TEST_ARRAY_SIZE(devs); i++) {
		const char *backend = "", *driver = "";

		accel_device_query_string(devs[i], ACCEL_DEVICE_STRING_BACKEND,
					  &backend);
		accel_device_query_string(devs[i], ACCEL_DEVICE_STRING_DRIVER,
					  &driver);
		if (!found && !strcmp(backend, "drm") && !strcmp(driver, "vgem"))
			found = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return found;
}

int env_teardown(void **state)
{
	struct env *env = *state;

	if (!env)
		return 0;
	/* Pending work first: it may use the log and the card's fences. */
	if (env->cq)
		accel_queue_finish(env->cq);
	if (env->dq)
		accel_queue_finish(env->dq);
	accel_program_unref(env->prog);
	accel_queue_unref(env->dq);
	accel_queue_unref(env->cq);
	accel_device_unref(env->drm);
	accel_device_unref(env->cpu);
	accel_context_unref(env->ctx);
	if (env->card >= 0)
		close(env->card);
	test_log_fini(&env->log);
	free(env);
	*state = NULL;
	return 0;
}

int env_setup(void **state)
{
	struct env *env = calloc(1, sizeof(*env));

	if (!env)
		return -1;
	env->card = -1;
	test_log_init(&env->log);
	*state = env;
	if (test_context_new(&env->log, &env->ctx) < 0 ||
	    test_get_cpu_device(env->ctx, &env->cpu) < 0 ||
	    accel_queue_new(env->cpu, 0, &env->cq) < 0 ||
	    accel_program_new_native(env->cpu, sharing_kernels,
				     TEST_ARRAY_SIZE(sharing_kernels),
				     &env->prog) < 0) {
		fprintf(stderr, "test environment setup failed\n");
		env_teardown(state);
		return -1;
	}
	env->drm = find_vgem(env->ctx);
	if (env->drm && accel_queue_new(env->drm, 0, &env->dq) < 0) {
		env_teardown(state);
		return -1;
	}
	if (peer_vgem_open(&env->card) < 0)
		env->card = -1;
	snprintf(env->what, sizeof(env->what), "setup");
	return 0;
}

/*
 * The same with a single CPU worker thread: a command that blocked a
 * worker while waiting for a foreign fence would then stall everything.
 */
int env_setup_one_worker(void **state)
{
	int r;

	setenv("ACCEL_CPU_THREADS", "1", 1);
	r = env_setup(state);
	unsetenv("ACCEL_CPU_THREADS");
	return r;
}

/* ---- synchronous helpers --------------------------------------------- */

int wait_unref(struct accel_fence *f, int64_t timeout_ns)
{
	int r = accel_fence_wait(f, timeout_ns);

	accel_fence_unref(f);
	return r;
}

struct accel_buffer *cpu_buffer(struct env *env, uint64_t size)
{
	struct accel_buffer *buf = NULL;

	OK(env, accel_buffer_new(env->cpu, size, 0, &buf));
	return buf;
}

struct accel_kernel *kernel(struct env *env, const char *name)
{
	struct accel_kernel *k = NULL;

	OK(env, accel_kernel_new(env->prog, name, &k));
	return k;
}

struct accel_ndrange range1(uint64_t n)
{
	struct accel_ndrange r = {
		.struct_size = sizeof(r),
		.work_dim = 1,
		.global_size = { n, 1, 1 },
	};

	return r;
}

/* Launch pattern_u32 over @n words of @buf on @q; returns the fence. */
struct accel_fence *launch_pattern(struct env *env,
				   struct accel_queue *q,
				   struct accel_buffer *buf, uint64_t n,
				   uint32_t seed)
{
	struct accel_kernel *k = kernel(env, "pattern_u32");
	struct accel_ndrange r = range1(n);
	struct accel_fence *f = NULL;

	OK(env, accel_kernel_set_arg_buffer(k, 0, buf));
	OK(env, accel_kernel_set_arg_value(k, 1, sizeof(seed), &seed));
	OK(env, accel_queue_launch(q, k, &r, 0, NULL, &f));
	accel_kernel_unref(k);
	return f;
}

/* Launch mark_u32 over @n words of @buf, waiting for @wait if any. */
int launch_mark(struct env *env, struct accel_buffer *buf, uint64_t n,
		uint32_t value, uint64_t *ran, struct accel_fence *wait,
		struct accel_fence **ret)
{
	struct accel_kernel *k = kernel(env, "mark_u32");
	struct accel_ndrange r = range1(n);
	uint64_t addr = (uint64_t)(uintptr_t)ran;
	int rc;

	OK(env, accel_kernel_set_arg_buffer(k, 0, buf));
	OK(env, accel_kernel_set_arg_value(k, 1, sizeof(value), &value));
	OK(env, accel_kernel_set_arg_value(k, 2, sizeof(addr), &addr));
	rc = accel_queue_launch(env->cq, k, &r, wait ? 1 : 0,
				wait ? &wait : NULL, ret);
	accel_kernel_unref(k);
	return rc;
}

/* Mismatches of check_u32 over @n words of @buf (a const argument). */
uint32_t kernel_check(struct env *env, struct accel_buffer *buf,
		      uint64_t n, uint32_t seed)
{
	struct accel_kernel *k = kernel(env, "check_u32");
	struct accel_buffer *bad = cpu_buffer(env, sizeof(uint32_t));
	struct accel_ndrange r = range1(n);
	struct accel_fence *f = NULL;
	uint32_t count = UINT32_MAX;

	OK(env, accel_kernel_set_arg_buffer(k, 0, buf));
	OK(env, accel_kernel_set_arg_value(k, 1, sizeof(seed), &seed));
	OK(env, accel_kernel_set_arg_buffer(k, 2, bad));
	OK(env, accel_queue_launch(env->cq, k, &r, 0, NULL, NULL));
	OK(env, accel_queue_read(env->cq, bad, 0, sizeof(count), &count, 0,
				 NULL, &f));
	OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
	accel_kernel_unref(k);
	accel_buffer_unref(bad);
	return count;
}

void fill_words(uint32_t *p, uint64_t n, uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = word(i, seed);
}

/* Index of the first word that differs from the pattern, or @n. */
static uint64_t first_mismatch(const uint32_t *p, uint64_t base, uint64_t n,
			       uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i] != word(base + i, seed))
			return i;
	return n;
}

/* @p holds words @base .. @base + @n - 1 of the pattern @seed. */
void expect_range(struct env *env, const uint32_t *p, uint64_t base,
		  uint64_t n, uint32_t seed)
{
	uint64_t i = first_mismatch(p, base, n, seed);

	if (i < n)
		fail_msg("%s: word %llu of %llu is 0x%08x, expected 0x%08x",
			 env->what, (unsigned long long)(base + i),
			 (unsigned long long)(base + n), p[i],
			 word(base + i, seed));
}

void expect_words(struct env *env, const uint32_t *p, uint64_t n,
		  uint32_t seed)
{
	expect_range(env, p, 0, n, seed);
}

/* ---- the two sides of a share, vgem buffers, odd fds ------------------ */

void side_init(struct side *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->sync_fd = -1;
	s->own_fd[0] = s->own_fd[1] = -1;
	s->card = -1;
}

void side_free(struct side *s)
{
	accel_buffer_unref(s->buf);
	if (s->map)
		munmap(s->map, s->map_len);
	if (s->card >= 0)
		peer_vgem_close(s->card, s->handle);
	if (s->own_fd[0] >= 0)
		close(s->own_fd[0]);
	if (s->own_fd[1] >= 0)
		close(s->own_fd[1]);
	side_init(s, "");
}

/*
 * A vgem buffer of @size bytes holding pattern @seed, and its dma-buf
 * (read-only unless @writable: vgem keeps the dma-buf of its first
 * export, so that decides the access mode of all later ones).
 */
void vgem_buffer_mode(struct env *env, uint64_t size, uint32_t seed,
		      bool writable, struct side *s, int *ret_fd)
{
	int fd = -1;

	side_init(s, "raw-vgem");
	OK(env, peer_vgem_create(env->card, size, &s->handle, &s->size));
	s->card = env->card;
	s->map = peer_vgem_map(env->card, s->handle, s->size);
	assert_non_null(s->map);
	s->map_len = s->size;
	fill_words(s->map, s->size / 4, seed);
	OK(env, peer_vgem_export(env->card, s->handle, writable, &fd));
	*ret_fd = fd;
}

void vgem_buffer(struct env *env, uint64_t size, uint32_t seed,
		 struct side *s, int *ret_fd)
{
	vgem_buffer_mode(env, size, seed, true, s, ret_fd);
}

/*
 * A number that was an fd a moment ago; high, so that fds opened later
 * (always the lowest free number) do not bring it back to life.
 */
int closed_fd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC), high;

	assert_true(fd >= 0);
	high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	close(fd);
	if (high < 0)
		return fd; /* a small fd limit: the best we can do */
	close(high);
	return high;
}

/* Any dma-buf of @size bytes holding pattern @seed (heap or udmabuf). */
int some_dmabuf(struct env *env, uint64_t size, uint32_t seed,
		int *ret_fd)
{
	int fd = -1, memfd;
	uint32_t *p;

	if (peer_have_heap()) {
		OK(env, peer_heap_alloc(size, O_RDWR, &fd));
	} else if (peer_have_udmabuf()) {
		OK(env, peer_memfd(size, &memfd));
		OK(env, peer_udmabuf(memfd, 0, size, &fd));
		close(memfd);
	} else {
		return -EOPNOTSUPP;
	}
	p = peer_mmap(fd, size, true);
	assert_non_null(p);
	fill_words(p, size / 4, seed);
	munmap(p, size);
	*ret_fd = fd;
	return 0;
}
