/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy dma-buf sharing, end to end, through the public API only: the
 * acceptance tests of the sharing issue. The other side of each share is
 * a raw kernel peer (peer.c: the system heap, udmabuf, vgem through
 * libdrm) or libaccel's own DRM device on vgem.
 *
 * - round trips: every exporter x every importer, written on one side by
 *   every way it has (host map, queue write, kernel, the peer's own
 *   mapping) and read back on the other by every way, then the reverse;
 * - implicit sync: a vgem fence holding a buffer busy keeps our kernel
 *   from starting (and keeps no worker thread busy) until it signals; a
 *   read fence holds back writers only;
 * - sync_file import: a command waiting on a vgem fence's sync_file;
 * - bad input: every kind of fd that is not a dma-buf or sync_file,
 *   ranges beyond an import, writes into read-only imports, bad export
 *   flags and ranges; no fd leaked over 10,000 cycles.
 *
 * Meant for the kernel test tier (Debian's 6.12 kernel under QEMU, with
 * vgem, udmabuf and the system heap). On a host without them the cases
 * that need them skip; the binary exits 77 if none could run at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"
#include "peer.h"

#define PAGE 4096u
#define MS 1000000ll
/* Buffers of the round trips: 16 pages. */
#define RT_SIZE (16u * PAGE)
/* Cycles of the fd-leak checks. */
#define LEAK_CYCLES 10000u
/* Pending sync_file imports held at once in the leak check. */
#define LEAK_BATCH 100u

/* Cases that ran (not skipped): none at all makes the binary exit 77. */
static unsigned n_ran;

/* ---- kernels ------------------------------------------------------------ */

/* Word @i of the pattern @seed; seed 0 is all zeros (fresh memory). */
static uint32_t word(uint64_t i, uint32_t seed)
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

/* ---- environment ------------------------------------------------------- */

struct env {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *cpu;
	struct accel_device *drm;   /* vgem through libaccel, or NULL */
	struct accel_queue *cq;     /* on cpu */
	struct accel_queue *dq;     /* on drm, or NULL */
	struct accel_program *prog; /* the kernels above, on cpu */
	int card;                   /* vgem, opened by the test, or -1 */
	char what[192];             /* the step in progress, for failures */
};

/* Fail with the step in progress when @expr is not 0. */
#define OK(env, expr)                                                          \
	do {                                                                   \
		int r_ = (expr);                                               \
		if (r_ != 0)                                                   \
			fail_msg("%s: %s = %d (%s)", (env)->what, #expr, r_,   \
				 strerror(r_ < 0 ? -r_ : r_));                 \
	} while (0)

static uint64_t now_ms(void)
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

static int env_teardown(void **state)
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

static int env_setup(void **state)
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
static int env_setup_one_worker(void **state)
{
	int r;

	setenv("ACCEL_CPU_THREADS", "1", 1);
	r = env_setup(state);
	unsetenv("ACCEL_CPU_THREADS");
	return r;
}

static void ran_case(void)
{
	n_ran++;
}

/* ---- synchronous helpers --------------------------------------------- */

static int wait_unref(struct accel_fence *f, int64_t timeout_ns)
{
	int r = accel_fence_wait(f, timeout_ns);

	accel_fence_unref(f);
	return r;
}

static struct accel_buffer *cpu_buffer(struct env *env, uint64_t size)
{
	struct accel_buffer *buf = NULL;

	OK(env, accel_buffer_new(env->cpu, size, 0, &buf));
	return buf;
}

static struct accel_kernel *kernel(struct env *env, const char *name)
{
	struct accel_kernel *k = NULL;

	OK(env, accel_kernel_new(env->prog, name, &k));
	return k;
}

static struct accel_ndrange range1(uint64_t n)
{
	struct accel_ndrange r = {
		.struct_size = sizeof(r),
		.work_dim = 1,
		.global_size = { n, 1, 1 },
	};

	return r;
}

/* Launch pattern_u32 over @n words of @buf on @q; returns the fence. */
static struct accel_fence *launch_pattern(struct env *env,
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
static int launch_mark(struct env *env, struct accel_buffer *buf, uint64_t n,
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
static uint32_t kernel_check(struct env *env, struct accel_buffer *buf,
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

static void fill_words(uint32_t *p, uint64_t n, uint32_t seed)
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
static void expect_range(struct env *env, const uint32_t *p, uint64_t base,
			 uint64_t n, uint32_t seed)
{
	uint64_t i = first_mismatch(p, base, n, seed);

	if (i < n)
		fail_msg("%s: word %llu of %llu is 0x%08x, expected 0x%08x",
			 env->what, (unsigned long long)(base + i),
			 (unsigned long long)(base + n), p[i],
			 word(base + i, seed));
}

static void expect_words(struct env *env, const uint32_t *p, uint64_t n,
			 uint32_t seed)
{
	expect_range(env, p, 0, n, seed);
}

/* ---- the two sides of a share --------------------------------------- */

enum method { BY_MAP, BY_QUEUE, BY_KERNEL, BY_PEER };

static const char *const method_name[] = {
	[BY_MAP] = "host map",
	[BY_QUEUE] = "queue",
	[BY_KERNEL] = "kernel",
	[BY_PEER] = "peer mapping",
};

struct side {
	char name[48];
	/* A libaccel buffer... */
	struct accel_buffer *buf;
	struct accel_queue *queue;
	bool kernels;
	/* ...or a peer with a mapping of its own. */
	uint32_t *map;
	uint64_t map_len;
	int sync_fd;        /* the dma-buf bracketing peer access, or -1 */
	/* Released with the side. */
	int own_fd[2];
	int card;
	uint32_t handle;    /* vgem handle (card >= 0) */
	uint64_t size;      /* bytes shared */
};

static void side_init(struct side *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->sync_fd = -1;
	s->own_fd[0] = s->own_fd[1] = -1;
	s->card = -1;
}

static void side_free(struct side *s)
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

static unsigned side_methods(const struct side *s, enum method *m)
{
	unsigned n = 0;

	if (!s->buf) {
		m[n++] = BY_PEER;
		return n;
	}
	m[n++] = BY_MAP;
	m[n++] = BY_QUEUE;
	if (s->kernels)
		m[n++] = BY_KERNEL;
	return n;
}

static void side_write(struct env *env, struct side *s, enum method m,
		       uint32_t seed)
{
	uint64_t n = s->size / 4;
	struct accel_fence *f = NULL;
	uint32_t *p = NULL;

	switch (m) {
	case BY_MAP:
		OK(env, accel_buffer_map(s->buf, 0, s->size, ACCEL_MAP_WRITE,
					 (void **)&p));
		fill_words(p, n, seed);
		OK(env, accel_buffer_unmap(s->buf, p));
		break;
	case BY_QUEUE:
		p = malloc(s->size);
		assert_non_null(p);
		fill_words(p, n, seed);
		OK(env, accel_queue_write(s->queue, s->buf, 0, s->size, p, 0,
					  NULL, &f));
		OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
		free(p);
		break;
	case BY_KERNEL:
		f = launch_pattern(env, s->queue, s->buf, n, seed);
		OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
		break;
	case BY_PEER:
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, true, false,
						 true));
		fill_words(s->map, n, seed);
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, false, false,
						 true));
		break;
	}
}

static void side_check(struct env *env, struct side *s, enum method m,
		       uint32_t seed)
{
	uint64_t n = s->size / 4;
	struct accel_fence *f = NULL;
	uint32_t *p = NULL, bad;

	switch (m) {
	case BY_MAP:
		OK(env, accel_buffer_map(s->buf, 0, s->size, ACCEL_MAP_READ,
					 (void **)&p));
		expect_words(env, p, n, seed);
		OK(env, accel_buffer_unmap(s->buf, p));
		break;
	case BY_QUEUE:
		p = calloc(1, s->size);
		assert_non_null(p);
		OK(env, accel_queue_read(s->queue, s->buf, 0, s->size, p, 0,
					 NULL, &f));
		OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
		expect_words(env, p, n, seed);
		free(p);
		break;
	case BY_KERNEL:
		bad = kernel_check(env, s->buf, n, seed);
		if (bad)
			fail_msg("%s: the kernel saw %u wrong words",
				 env->what, bad);
		break;
	case BY_PEER:
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, true, true,
						 false));
		expect_words(env, s->map, n, seed);
		if (s->sync_fd >= 0)
			OK(env, peer_dmabuf_sync(s->sync_fd, false, true,
						 false));
		break;
	}
}

/* Exporters. */
enum src {
	SRC_CPU,        /* CPU buffer (memfd) exported through udmabuf */
	SRC_CPU_HEAP,   /* CPU buffer allocated from the system heap */
	SRC_DRM,        /* libaccel's vgem device, PRIME export */
	SRC_HEAP,       /* a raw system heap buffer */
	SRC_UDMABUF,    /* a raw udmabuf of a memfd */
	SRC_VGEM,       /* a raw vgem dumb buffer, libdrm */
};

static const char *const src_name[] = {
	[SRC_CPU] = "cpu-udmabuf",
	[SRC_CPU_HEAP] = "cpu-heap",
	[SRC_DRM] = "libaccel-vgem",
	[SRC_HEAP] = "raw-heap",
	[SRC_UDMABUF] = "raw-udmabuf",
	[SRC_VGEM] = "raw-vgem",
};

/* Importers. */
enum imp {
	IMP_CPU,   /* the CPU device */
	IMP_DRM,   /* libaccel's vgem device */
	IMP_MMAP,  /* a raw mmap of the dma-buf */
	IMP_VGEM,  /* raw vgem: PRIME import (a device attachment) */
};

static const char *const imp_name[] = {
	[IMP_CPU] = "cpu",
	[IMP_DRM] = "libaccel-vgem",
	[IMP_MMAP] = "raw-mmap",
	[IMP_VGEM] = "raw-vgem-import",
};

/* Why @src cannot be made here, or NULL. */
static const char *src_missing(struct env *env, enum src src)
{
	switch (src) {
	case SRC_CPU:
	case SRC_UDMABUF:
		return peer_have_udmabuf() ? NULL : "no /dev/udmabuf";
	case SRC_CPU_HEAP:
	case SRC_HEAP:
		return peer_have_heap() ? NULL : "no /dev/dma_heap/system";
	case SRC_DRM:
		return env->drm ? NULL : "libaccel found no vgem device";
	case SRC_VGEM:
		return env->card >= 0 ? NULL : "no vgem card";
	}
	return "?";
}

static const char *imp_missing(struct env *env, enum imp imp)
{
	switch (imp) {
	case IMP_CPU:
	case IMP_MMAP:
		return NULL;
	case IMP_DRM:
		return env->drm ? NULL : "libaccel found no vgem device";
	case IMP_VGEM:
		return env->card >= 0 ? NULL : "no vgem card";
	}
	return "?";
}

/* Make the exporting side; *ret_fd: a dma-buf of it owned by the caller. */
static void make_source(struct env *env, enum src src, uint64_t size,
			struct side *s, int *ret_fd)
{
	struct accel_device *dev = src == SRC_DRM ? env->drm : env->cpu;
	int64_t got;
	int fd = -1;

	side_init(s, src_name[src]);
	s->size = size;
	snprintf(env->what, sizeof(env->what), "making %s", src_name[src]);
	switch (src) {
	case SRC_CPU:
	case SRC_CPU_HEAP:
	case SRC_DRM:
		OK(env, accel_buffer_new(dev, size,
					 src == SRC_CPU_HEAP ?
						 ACCEL_BUFFER_DMA_HEAP : 0,
					 &s->buf));
		s->queue = src == SRC_DRM ? env->dq : env->cq;
		s->kernels = src != SRC_DRM;
		OK(env, accel_buffer_export_dmabuf(s->buf, 0, &fd));
		break;
	case SRC_HEAP:
		OK(env, peer_heap_alloc(size, O_RDWR, &s->own_fd[0]));
		fd = fcntl(s->own_fd[0], F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->sync_fd = s->own_fd[0];
		break;
	case SRC_UDMABUF:
		/* The peer writes the memfd itself: udmabuf adds no copy. */
		OK(env, peer_memfd(size, &s->own_fd[0]));
		OK(env, peer_udmabuf(s->own_fd[0], 0, size, &s->own_fd[1]));
		fd = fcntl(s->own_fd[1], F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->sync_fd = s->own_fd[1];
		break;
	case SRC_VGEM:
		OK(env, peer_vgem_create(env->card, size, &s->handle, &s->size));
		s->card = env->card;
		OK(env, peer_vgem_export(env->card, s->handle, true, &fd));
		s->map = peer_vgem_map(env->card, s->handle, s->size);
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->sync_fd = s->own_fd[0];
		break;
	}
	assert_true(fd >= 0);
	if (!s->buf) {
		assert_non_null(s->map);
		s->map_len = s->size;
	}
	/* Every exporter's dma-buf is exactly the size asked for. */
	got = peer_dmabuf_size(fd);
	if (got != (int64_t)size)
		fail_msg("%s: dma-buf of %lld bytes, expected %llu",
			 src_name[src], (long long)got,
			 (unsigned long long)size);
	*ret_fd = fd;
}

/* Make the importing side of @fd (borrowed). */
static void make_importer(struct env *env, enum imp imp, int fd,
			  uint64_t size, struct side *s)
{
	side_init(s, imp_name[imp]);
	s->size = size;
	snprintf(env->what, sizeof(env->what), "import into %s",
		 imp_name[imp]);
	switch (imp) {
	case IMP_CPU:
	case IMP_DRM:
		OK(env, accel_buffer_import_dmabuf(imp == IMP_CPU ? env->cpu :
								    env->drm,
						   fd, 0, &s->buf));
		/* The size comes from the fd. */
		assert_int_equal(accel_buffer_get_size(s->buf), size);
		s->queue = imp == IMP_CPU ? env->cq : env->dq;
		s->kernels = imp == IMP_CPU;
		break;
	case IMP_MMAP:
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->map_len = size;
		s->sync_fd = s->own_fd[0];
		assert_non_null(s->map);
		break;
	case IMP_VGEM:
		/*
		 * The driver attaches to the dma-buf and maps it for its
		 * device. It refuses a CPU mapping of its own (MAP_DUMB) of
		 * a foreign object: the CPU goes through the dma-buf, which
		 * is what DRM does for imported objects anyway.
		 */
		OK(env, peer_vgem_import(env->card, fd, &s->handle));
		s->card = env->card;
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->map = peer_mmap(s->own_fd[0], size, true);
		s->map_len = size;
		s->sync_fd = s->own_fd[0];
		assert_non_null(s->map);
		break;
	}
}

/* Write on @w by every method it has, read on @r by every method. */
static unsigned one_way(struct env *env, struct side *w, struct side *r,
			uint32_t *seed)
{
	enum method wm[4], rm[4];
	unsigned nw = side_methods(w, wm), nr = side_methods(r, rm), i, j;

	for (i = 0; i < nw; i++) {
		for (j = 0; j < nr; j++) {
			*seed += 0x101;
			snprintf(env->what, sizeof(env->what),
				 "%s -> %s: written by %s, read by %s",
				 w->name, r->name, method_name[wm[i]],
				 method_name[rm[j]]);
			side_write(env, w, wm[i], *seed);
			side_check(env, r, rm[j], *seed);
		}
	}
	return nw * nr;
}

static void roundtrip(struct env *env, enum src src)
{
	static const enum imp imps[] = { IMP_CPU, IMP_DRM, IMP_MMAP, IMP_VGEM };
	const char *why = src_missing(env, src);
	bool src_accel = src == SRC_CPU || src == SRC_CPU_HEAP ||
			 src == SRC_DRM;
	uint32_t seed = 0x5eed0000u + (uint32_t)src * 0x1000000u;
	unsigned i, checks;

	if (why) {
		printf("# %s: %s\n", src_name[src], why);
		skip();
	}
	for (i = 0; i < TEST_ARRAY_SIZE(imps); i++) {
		enum imp imp = imps[i];
		struct side a, b;
		int fd;

		/* A share between two raw peers does not test libaccel. */
		if (!src_accel && (imp == IMP_MMAP || imp == IMP_VGEM))
			continue;
		why = imp_missing(env, imp);
		if (why) {
			printf("# %s -> %s: skipped, %s\n", src_name[src],
			       imp_name[imp], why);
			continue;
		}
		make_source(env, src, RT_SIZE, &a, &fd);
		make_importer(env, imp, fd, a.size, &b);
		/* The importer holds its own reference (a dup or a handle). */
		close(fd);
		checks = one_way(env, &a, &b, &seed);
		checks += one_way(env, &b, &a, &seed);
		printf("# %s <-> %s: %u content checks\n", a.name, b.name,
		       checks);
		side_free(&b);
		side_free(&a);
	}
	ran_case();
}

static void test_roundtrip_cpu_udmabuf(void **state)
{
	roundtrip(*state, SRC_CPU);
}

static void test_roundtrip_cpu_heap(void **state)
{
	roundtrip(*state, SRC_CPU_HEAP);
}

static void test_roundtrip_raw_heap(void **state)
{
	roundtrip(*state, SRC_HEAP);
}

static void test_roundtrip_raw_udmabuf(void **state)
{
	roundtrip(*state, SRC_UDMABUF);
}

static void test_roundtrip_libaccel_vgem(void **state)
{
	roundtrip(*state, SRC_DRM);
}

static void test_roundtrip_raw_vgem(void **state)
{
	roundtrip(*state, SRC_VGEM);
}

/* ---- exports: identity, ranges, names -------------------------------- */

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The value of "@key:\t" in /proc/self/fdinfo/@fd, "" if absent. */
static void fdinfo(int fd, const char *key, char *val, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;

	val[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			const char *v = line + klen + 2;
			size_t n = strcspn(v, "\n");

			n = n < len - 1 ? n : len - 1;
			memcpy(val, v, n);
			val[n] = '\0';
			break;
		}
	}
	fclose(f);
}

static void test_export_identity(void **state)
{
	struct env *env = *state;
	const uint64_t size = 3 * PAGE + 100;
	struct accel_buffer *buf, *imp, *sub, *sub_imp, *tail;
	int fd1, fd2, fd3, fd_sub, fd_tail;
	char name[64];
	uint32_t *p, *q;

	if (!peer_have_udmabuf()) {
		printf("# no /dev/udmabuf\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "export identity");
	buf = cpu_buffer(env, size);
	OK(env, accel_buffer_map(buf, 0, size, ACCEL_MAP_WRITE, (void **)&p));
	fill_words(p, size / 4, 1);
	OK(env, accel_buffer_unmap(buf, p));

	/* The memfd's whole pages: the dma-buf is 4 pages. */
	OK(env, accel_buffer_export_dmabuf(buf, 0, &fd1));
	assert_int_equal(peer_dmabuf_size(fd1), 4 * PAGE);
	assert_true(fcntl(fd1, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd1, F_GETFL) & O_ACCMODE, O_RDWR);
	/* The buffer keeps its dma-buf: a second export is the same one. */
	OK(env, accel_buffer_export_dmabuf(buf, 0, &fd2));
	assert_int_not_equal(fd1, fd2);
	assert_true(same_file(fd1, fd2));

	/* Named "libaccel" by default, renamed on request. */
	fdinfo(fd1, "name", name, sizeof(name));
	assert_string_equal(name, "libaccel");
	OK(env, accel_buffer_set_name(buf, "frames-in"));
	fdinfo(fd1, "name", name, sizeof(name));
	assert_string_equal(name, "frames-in");

	/* An import exports its own dma-buf again, same access mode. */
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd1, 0, &imp));
	assert_int_equal(accel_buffer_get_size(imp), 4 * PAGE);
	OK(env, accel_buffer_export_dmabuf(imp, 0, &fd3));
	assert_true(same_file(fd1, fd3));
	assert_int_equal(fcntl(fd3, F_GETFL) & O_ACCMODE, O_RDWR);
	assert_true(fcntl(fd3, F_GETFD) & FD_CLOEXEC);
	OK(env, accel_buffer_map(imp, 0, size, ACCEL_MAP_READ, (void **)&q));
	expect_words(env, q, size / 4, 1);
	OK(env, accel_buffer_unmap(imp, q));

	/* A page-aligned sub-buffer exports just its pages. */
	OK(env, accel_buffer_new_sub(buf, PAGE, 2 * PAGE, 0, &sub));
	OK(env, accel_buffer_export_dmabuf(sub, 0, &fd_sub));
	assert_int_equal(peer_dmabuf_size(fd_sub), 2 * PAGE);
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd_sub, 0, &sub_imp));
	snprintf(env->what, sizeof(env->what), "sub-buffer export");
	OK(env, accel_buffer_map(sub_imp, 0, 2 * PAGE, ACCEL_MAP_READ |
				 ACCEL_MAP_WRITE, (void **)&q));
	/* The same pages: the parent's words of pages 1 and 2... */
	expect_range(env, q, PAGE / 4, 2 * PAGE / 4, 1);
	/* ...and what is written there lands in the parent, only there. */
	fill_words(q, 2 * PAGE / 4, 2);
	OK(env, accel_buffer_unmap(sub_imp, q));
	OK(env, accel_buffer_map(buf, 0, size, ACCEL_MAP_READ, (void **)&p));
	expect_range(env, p, 0, PAGE / 4, 1);
	expect_range(env, p + PAGE / 4, 0, 2 * PAGE / 4, 2);
	expect_range(env, p + 3 * PAGE / 4, 3 * PAGE / 4, 100 / 4, 1);
	OK(env, accel_buffer_unmap(buf, p));
	accel_buffer_unref(sub_imp);
	close(fd_sub);
	accel_buffer_unref(sub);

	/* A sub-buffer up to an odd end takes the rest of the last page. */
	OK(env, accel_buffer_new_sub(buf, 2 * PAGE, size - 2 * PAGE, 0, &tail));
	OK(env, accel_buffer_export_dmabuf(tail, 0, &fd_tail));
	assert_int_equal(peer_dmabuf_size(fd_tail), 2 * PAGE);
	close(fd_tail);
	accel_buffer_unref(tail);

	accel_buffer_unref(imp);
	close(fd3);
	close(fd2);
	close(fd1);
	accel_buffer_unref(buf);
	ran_case();
}

/* ---- implicit synchronisation ----------------------------------------- */

/*
 * A vgem buffer of @size bytes holding pattern @seed, and its dma-buf
 * (read-only unless @writable: vgem keeps the dma-buf of its first
 * export, so that decides the access mode of all later ones).
 */
static void vgem_buffer_mode(struct env *env, uint64_t size, uint32_t seed,
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

static void vgem_buffer(struct env *env, uint64_t size, uint32_t seed,
			struct side *s, int *ret_fd)
{
	vgem_buffer_mode(env, size, seed, true, s, ret_fd);
}

static uint64_t ran_count(const uint64_t *ran)
{
	return __atomic_load_n(ran, __ATOMIC_ACQUIRE);
}

/*
 * An unrelated kernel on another queue completes meanwhile: no worker is
 * stuck waiting for the foreign fence.
 */
static void expect_workers_free(struct env *env)
{
	struct accel_buffer *other = cpu_buffer(env, 16 * PAGE);
	struct accel_queue *q2 = NULL;
	struct accel_fence *f;

	snprintf(env->what, sizeof(env->what),
		 "an unrelated kernel while a fence is pending");
	OK(env, accel_queue_new(env->cpu, 0, &q2));
	f = launch_pattern(env, q2, other, 16 * PAGE / 4, 77);
	OK(env, wait_unref(f, 5000 * MS));
	accel_queue_unref(q2);
	accel_buffer_unref(other);
}

/*
 * The "GPU" still writes the buffer (a vgem write fence): our kernel,
 * which reads and writes it, must not start before the fence signals,
 * and must finish promptly once it does.
 */
static void test_implicit_sync_write_fence(void **state)
{
	struct env *env = *state;
	const uint64_t n = 16 * PAGE / 4;
	uint64_t ran = 0, t_attach, t_signal, t_done, i;
	struct accel_buffer *imp;
	struct accel_fence *f = NULL;
	struct side g;
	uint32_t fence;
	int fd;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "implicit sync, write fence");
	vgem_buffer(env, 16 * PAGE, 3, &g, &fd);
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp));

	OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
	t_attach = now_ms();
	OK(env, launch_mark(env, imp, n, 5, &ran, NULL, &f));

	expect_workers_free(env);
	snprintf(env->what, sizeof(env->what), "implicit sync, write fence");
	assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(ran_count(&ran), 0);
	/* The GPU's data is still untouched. */
	expect_words(env, g.map, n, 3);

	OK(env, peer_vgem_signal(env->card, fence));
	t_signal = now_ms();
	OK(env, wait_unref(f, 5000 * MS));
	t_done = now_ms();
	assert_true(ran_count(&ran) > 0);
	/* Well before vgem's own 10 s timeout would have signalled it. */
	assert_true(t_done - t_attach < 8000);
	printf("# kernel held back %llu ms, done %llu ms after the signal\n",
	       (unsigned long long)(t_signal - t_attach),
	       (unsigned long long)(t_done - t_signal));

	OK(env, peer_dmabuf_sync(fd, true, true, false));
	for (i = 0; i < n; i++)
		if (g.map[i] != word(i, 3) * 3 + 5)
			fail_msg("word %llu: 0x%08x, expected 0x%08x",
				 (unsigned long long)i, g.map[i],
				 word(i, 3) * 3 + 5);
	OK(env, peer_dmabuf_sync(fd, false, true, false));

	accel_buffer_unref(imp);
	close(fd);
	side_free(&g);
	ran_case();
}

/*
 * The "GPU" only reads the buffer (a vgem read fence): our reads go
 * ahead at once, our writes wait.
 */
static void test_implicit_sync_read_fence(void **state)
{
	struct env *env = *state;
	const uint64_t n = 16 * PAGE / 4;
	struct accel_buffer *imp, *imp_ro;
	struct accel_fence *fr = NULL, *fw = NULL, *fk = NULL;
	uint32_t fence, *host, v = 0xabcd0123;
	uint64_t ran = 0, i;
	struct side g;
	int fd;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "implicit sync, read fence");
	vgem_buffer(env, 16 * PAGE, 4, &g, &fd);
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp));
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd,
					   ACCEL_BUFFER_READ_ONLY, &imp_ro));
	host = calloc(n, sizeof(*host));
	assert_non_null(host);

	OK(env, peer_vgem_attach(env->card, g.handle, false, &fence));

	/* Readers do not wait for readers. */
	OK(env, accel_queue_read(env->cq, imp, 0, n * 4, host, 0, NULL, &fr));
	OK(env, wait_unref(fr, 5000 * MS));
	expect_words(env, host, n, 4);
	snprintf(env->what, sizeof(env->what),
		 "a kernel reading a read-only import under a read fence");
	assert_int_equal(kernel_check(env, imp_ro, n, 4), 0);

	/* Writers do: a queue write and a kernel writing the buffer. */
	snprintf(env->what, sizeof(env->what), "implicit sync, read fence");
	OK(env, accel_queue_write(env->cq, imp, 0, sizeof(v), &v, 0, NULL,
				  &fw));
	OK(env, launch_mark(env, imp, n, 9, &ran, NULL, &fk));
	assert_int_equal(accel_fence_wait(fw, 300 * MS), -ETIME);
	assert_int_equal(accel_fence_get_status(fk), 0);
	assert_int_equal(ran_count(&ran), 0);
	expect_words(env, g.map, n, 4);

	OK(env, peer_vgem_signal(env->card, fence));
	OK(env, wait_unref(fw, 5000 * MS));
	OK(env, wait_unref(fk, 5000 * MS));
	assert_true(ran_count(&ran) > 0);
	OK(env, peer_dmabuf_sync(fd, true, true, false));
	assert_int_equal(g.map[0], v * 3 + 9);
	for (i = 1; i < n; i++)
		assert_int_equal(g.map[i], word(i, 4) * 3 + 9);
	OK(env, peer_dmabuf_sync(fd, false, true, false));

	free(host);
	accel_buffer_unref(imp_ro);
	accel_buffer_unref(imp);
	close(fd);
	side_free(&g);
	ran_case();
}

/*
 * The other direction: the "GPU" imports a buffer libaccel exported and
 * writes it (a vgem write fence on its handle): our kernel on our own
 * buffer waits for it too; with a read fence our reads do not.
 */
static void test_implicit_sync_exported(void **state)
{
	static const uint32_t kinds[] = { 0, ACCEL_BUFFER_DMA_HEAP };
	struct env *env = *state;
	const uint64_t n = 8 * PAGE / 4;
	unsigned k, tested = 0;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	for (k = 0; k < TEST_ARRAY_SIZE(kinds); k++) {
		struct accel_buffer *buf = NULL;
		struct accel_fence *f = NULL, *fr = NULL;
		uint32_t handle, fence, *p, *host;
		uint64_t ran = 0, i;
		int fd, r;

		snprintf(env->what, sizeof(env->what),
			 "implicit sync on an exported %s buffer",
			 kinds[k] ? "heap" : "udmabuf");
		r = accel_buffer_new(env->cpu, n * 4, kinds[k], &buf);
		if (r == 0) {
			r = accel_buffer_export_dmabuf(buf, 0, &fd);
			if (r < 0)
				accel_buffer_unref(buf);
		}
		if (r == -EOPNOTSUPP) {
			printf("# %s: cannot export here\n", env->what);
			continue;
		}
		OK(env, r);
		OK(env, accel_buffer_map(buf, 0, n * 4, ACCEL_MAP_WRITE,
					 (void **)&p));
		fill_words(p, n, 11);
		OK(env, accel_buffer_unmap(buf, p));
		OK(env, peer_vgem_import(env->card, fd, &handle));

		/* The GPU writes: our kernel waits. */
		OK(env, peer_vgem_attach(env->card, handle, true, &fence));
		OK(env, launch_mark(env, buf, n, 2, &ran, NULL, &f));
		assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
		assert_int_equal(ran_count(&ran), 0);
		OK(env, peer_vgem_signal(env->card, fence));
		OK(env, wait_unref(f, 5000 * MS));
		assert_true(ran_count(&ran) > 0);

		/* The GPU reads: our read goes ahead, our write waits. */
		OK(env, peer_vgem_attach(env->card, handle, false, &fence));
		host = calloc(n, sizeof(*host));
		assert_non_null(host);
		OK(env, accel_queue_read(env->cq, buf, 0, n * 4, host, 0, NULL,
					 &fr));
		OK(env, wait_unref(fr, 5000 * MS));
		for (i = 0; i < n; i++)
			assert_int_equal(host[i], word(i, 11) * 3 + 2);
		f = launch_pattern(env, env->cq, buf, n, 12);
		assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
		OK(env, peer_vgem_signal(env->card, fence));
		OK(env, wait_unref(f, 5000 * MS));
		OK(env, accel_buffer_map(buf, 0, n * 4, ACCEL_MAP_READ,
					 (void **)&p));
		expect_words(env, p, n, 12);
		OK(env, accel_buffer_unmap(buf, p));

		free(host);
		peer_vgem_close(env->card, handle);
		close(fd);
		accel_buffer_unref(buf);
		tested++;
	}
	if (!tested)
		skip();
	ran_case();
}

/* ---- sync_file import -------------------------------------------------- */

static void count_cb(struct accel_fence *fence, int status, void *data)
{
	(void)fence;
	if (status == 0)
		__atomic_fetch_add((unsigned *)data, 1, __ATOMIC_RELEASE);
}

static void test_sync_file_wait(void **state)
{
	struct env *env = *state;
	const uint64_t n = 4 * PAGE / 4;
	struct accel_fence *sf = NULL, *sf2 = NULL, *f = NULL;
	struct accel_buffer *plain;
	struct pollfd pfd = { .events = POLLIN };
	uint64_t ran = 0, t_signal;
	unsigned called = 0;
	uint32_t fence, *p;
	struct side g;
	int fd, sync_fd;

	if (env->card < 0) {
		printf("# no vgem card\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "sync_file import");
	vgem_buffer(env, PAGE, 0, &g, &fd);
	OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
	OK(env, peer_export_sync_file(fd, false, &sync_fd));

	OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &sf));
	/* Borrowed: ours can go at once. */
	close(sync_fd);
	assert_int_equal(accel_fence_get_status(sf), 0);
	assert_int_equal(accel_fence_wait(sf, 0), -ETIME);
	assert_ptr_equal(accel_fence_get_context(sf), env->ctx);
	OK(env, accel_fence_add_callback(sf, count_cb, &called));
	OK(env, accel_fence_export_poll_fd(sf, &pfd.fd));
	assert_int_equal(poll(&pfd, 1, 0), 0);

	/* A kernel on a plain buffer, waiting for the GPU's fence. */
	plain = cpu_buffer(env, n * 4);
	OK(env, launch_mark(env, plain, n, 7, &ran, sf, &f));
	assert_int_equal(accel_fence_wait(f, 300 * MS), -ETIME);
	assert_int_equal(ran_count(&ran), 0);
	assert_int_equal(__atomic_load_n(&called, __ATOMIC_ACQUIRE), 0);

	OK(env, peer_vgem_signal(env->card, fence));
	t_signal = now_ms();
	OK(env, wait_unref(f, 5000 * MS));
	printf("# command done %llu ms after the signal\n",
	       (unsigned long long)(now_ms() - t_signal));
	assert_true(ran_count(&ran) > 0);
	assert_int_equal(accel_fence_get_status(sf), 1);
	assert_int_equal(__atomic_load_n(&called, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_true(pfd.revents & POLLIN);
	OK(env, accel_buffer_map(plain, 0, n * 4, ACCEL_MAP_READ, (void **)&p));
	assert_int_equal(p[0], 7);
	assert_int_equal(p[n - 1], 7);
	OK(env, accel_buffer_unmap(plain, p));

	/* A sync_file already signalled imports as a signalled fence. */
	OK(env, peer_export_sync_file(fd, true, &sync_fd));
	OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &sf2));
	close(sync_fd);
	assert_int_equal(accel_fence_get_status(sf2), 1);
	assert_int_equal(accel_fence_wait(sf2, 0), 0);

	accel_fence_unref(sf2);
	close(pfd.fd);
	accel_fence_unref(sf);
	accel_buffer_unref(plain);
	close(fd);
	side_free(&g);
	ran_case();
}

/* ---- bad input ---------------------------------------------------------- */

/*
 * A number that was an fd a moment ago; high, so that fds opened later
 * (always the lowest free number) do not bring it back to life.
 */
static int closed_fd(void)
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

struct misc_fds {
	int memfd, pipe[2], sock[2], event, devnull, dir, opath;
};

static void misc_open(struct misc_fds *m)
{
	assert_int_equal(peer_memfd(PAGE, &m->memfd), 0);
	assert_int_equal(pipe2(m->pipe, O_CLOEXEC), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    m->sock), 0);
	m->event = eventfd(0, EFD_CLOEXEC);
	m->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	m->dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m->opath = open("/dev/null", O_PATH | O_CLOEXEC);
	assert_true(m->event >= 0 && m->devnull >= 0 && m->dir >= 0 &&
		    m->opath >= 0);
}

static void misc_close(struct misc_fds *m)
{
	close(m->memfd);
	close(m->pipe[0]);
	close(m->pipe[1]);
	close(m->sock[0]);
	close(m->sock[1]);
	close(m->event);
	close(m->devnull);
	close(m->dir);
	close(m->opath);
}

static void expect_import(struct env *env, int fd, uint32_t flags, int err,
			  const char *what)
{
	struct accel_buffer *b = TEST_SENTINEL_PTR;
	int r = accel_buffer_import_dmabuf(env->cpu, fd, flags, &b);

	if (r != err)
		fail_msg("import of %s: %d (%s), expected %d (%s)", what, r,
			 strerror(-r), err, strerror(-err));
	assert_ptr_equal(b, TEST_SENTINEL_PTR);
	if (env->drm) {
		r = accel_buffer_import_dmabuf(env->drm, fd, flags, &b);
		if (r != err)
			fail_msg("import of %s into vgem: %d, expected %d",
				 what, r, err);
		assert_ptr_equal(b, TEST_SENTINEL_PTR);
	}
}

static void expect_sync_import(struct env *env, int fd, int err,
			       const char *what)
{
	struct accel_fence *f = TEST_SENTINEL_PTR;
	int r = accel_fence_import_sync_file(env->ctx, fd, &f);

	if (r != err)
		fail_msg("sync_file import of %s: %d (%s), expected %d (%s)",
			 what, r, strerror(-r), err, strerror(-err));
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
}

/* What any host can check: fds that are no dma-buf, bad arguments. */
static void test_bad_import(void **state)
{
	struct env *env = *state;
	struct accel_buffer *b = TEST_SENTINEL_PTR;
	struct misc_fds m;

	expect_import(env, closed_fd(), 0, -EBADF, "a closed fd");
	expect_import(env, -1, 0, -EBADF, "fd -1");
	expect_import(env, 1 << 20, 0, -EBADF, "fd 1<<20");
	misc_open(&m);
	expect_import(env, m.memfd, 0, -ENOTTY, "a memfd");
	expect_import(env, m.pipe[0], 0, -ENOTTY, "a pipe's read end");
	expect_import(env, m.pipe[1], 0, -ENOTTY, "a pipe's write end");
	expect_import(env, m.sock[0], 0, -ENOTTY, "a socket");
	expect_import(env, m.event, 0, -ENOTTY, "an eventfd");
	expect_import(env, m.devnull, 0, -ENOTTY, "/dev/null");
	expect_import(env, m.dir, 0, -ENOTTY, "a directory");
	expect_import(env, m.opath, 0, -ENOTTY, "an O_PATH fd");

	/* Arguments are checked before the fd is. */
	expect_import(env, m.memfd, ACCEL_BUFFER_DMA_HEAP, -EINVAL,
		      "a memfd with DMA_HEAP");
	expect_import(env, m.memfd, 1u << 31, -EINVAL,
		      "a memfd with an unknown flag");
	expect_import(env, m.memfd,
		      ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_WRITE_ONLY,
		      -EINVAL, "a memfd, READ_ONLY|WRITE_ONLY");
	assert_int_equal(accel_buffer_import_dmabuf(NULL, m.memfd, 0, &b),
			 -EINVAL);
	assert_int_equal(accel_buffer_import_dmabuf(env->cpu, m.memfd, 0,
						    NULL), -EINVAL);
	assert_ptr_equal(b, TEST_SENTINEL_PTR);

	/* Still usable afterwards. */
	assert_int_equal(write(m.pipe[1], "x", 1), 1);
	misc_close(&m);
	ran_case();
}

static void test_bad_sync_file_import(void **state)
{
	struct env *env = *state;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct misc_fds m;

	expect_sync_import(env, closed_fd(), -EBADF, "a closed fd");
	expect_sync_import(env, -1, -EBADF, "fd -1");
	misc_open(&m);
	expect_sync_import(env, m.pipe[0], -EINVAL, "a pipe");
	expect_sync_import(env, m.pipe[1], -EINVAL, "a pipe's write end");
	expect_sync_import(env, m.memfd, -EINVAL, "a memfd");
	expect_sync_import(env, m.sock[0], -EINVAL, "a socket");
	expect_sync_import(env, m.event, -EINVAL, "an eventfd");
	expect_sync_import(env, m.devnull, -EINVAL, "/dev/null");
	expect_sync_import(env, m.dir, -EINVAL, "a directory");
	assert_int_equal(accel_fence_import_sync_file(NULL, m.pipe[0], &f),
			 -EINVAL);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, m.pipe[0],
						      NULL), -EINVAL);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);
	misc_close(&m);
	ran_case();
}

/* Kernel objects of the wrong kind: needs the VM's kernel. */
static void test_bad_kernel_fds(void **state)
{
	struct env *env = *state;
	int heap_fd = -1, sync_fd = -1, dev;
	bool any = false;

	if (peer_have_heap()) {
		assert_int_equal(peer_heap_alloc(PAGE, O_RDWR, &heap_fd), 0);
	} else if (peer_have_udmabuf()) {
		int memfd;

		assert_int_equal(peer_memfd(PAGE, &memfd), 0);
		assert_int_equal(peer_udmabuf(memfd, 0, PAGE, &heap_fd), 0);
		close(memfd);
	}
	if (heap_fd >= 0) {
		/* A dma-buf is no sync_file, a sync_file no dma-buf. */
		expect_sync_import(env, heap_fd, -EINVAL, "a dma-buf");
		assert_int_equal(peer_export_sync_file(heap_fd, true,
						       &sync_fd), 0);
		expect_import(env, sync_fd, 0, -ENOTTY, "a sync_file");
		close(sync_fd);
		close(heap_fd);
		any = true;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev >= 0) {
		expect_import(env, dev, 0, -ENOTTY, "/dev/udmabuf");
		expect_sync_import(env, dev, -EINVAL, "/dev/udmabuf");
		close(dev);
		any = true;
	}
	dev = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (dev >= 0) {
		expect_import(env, dev, 0, -ENOTTY, "/dev/dma_heap/system");
		close(dev);
		any = true;
	}
	if (env->card >= 0) {
		expect_import(env, env->card, 0, -ENOTTY, "a DRM card");
		expect_sync_import(env, env->card, -EINVAL, "a DRM card");
		any = true;
	}
	if (!any) {
		printf("# no dma-buf, heap, udmabuf or DRM device here\n");
		skip();
	}
	ran_case();
}

/* Any dma-buf of @size bytes holding pattern @seed (heap or udmabuf). */
static int some_dmabuf(struct env *env, uint64_t size, uint32_t seed,
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

static void test_import_ranges(void **state)
{
	struct env *env = *state;
	const uint64_t size = 3 * PAGE;
	struct accel_buffer *imp, *sub, *b = TEST_SENTINEL_PTR, *plain;
	uint32_t host[8], *p;
	void *ptr = TEST_SENTINEL_PTR;
	struct accel_fence *f = TEST_SENTINEL_PTR;
	int fd;

	if (some_dmabuf(env, size, 6, &fd) < 0) {
		printf("# no dma-buf heap or udmabuf\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "import ranges");
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp));
	assert_int_equal(accel_buffer_get_size(imp), size);

	/* Sub-buffers beyond the dma-buf. */
	assert_int_equal(accel_buffer_new_sub(imp, 0, size + 1, 0, &b),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, PAGE, 2 * PAGE + 1, 0, &b),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, size, 128, 0, &b), -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, size + PAGE, 128, 0, &b),
			 -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, UINT64_MAX & ~127ull, 256,
					      0, &b), -ERANGE);
	assert_int_equal(accel_buffer_new_sub(imp, 128, UINT64_MAX - 127, 0,
					      &b), -ERANGE);
	assert_ptr_equal(b, TEST_SENTINEL_PTR);

	/* Accesses beyond it. */
	assert_int_equal(accel_buffer_map(imp, 0, size + 1, ACCEL_MAP_READ,
					  &ptr), -ERANGE);
	assert_int_equal(accel_buffer_map(imp, size, 1, ACCEL_MAP_READ, &ptr),
			 -ERANGE);
	assert_ptr_equal(ptr, TEST_SENTINEL_PTR);
	assert_int_equal(accel_queue_read(env->cq, imp, size - 4, 8, host, 0,
					  NULL, &f), -ERANGE);
	assert_int_equal(accel_queue_write(env->cq, imp, size, 4, host, 0,
					   NULL, &f), -ERANGE);
	assert_int_equal(accel_queue_fill(env->cq, imp, size - 4, 8, host, 4,
					  0, NULL, &f), -ERANGE);
	plain = cpu_buffer(env, 2 * size);
	assert_int_equal(accel_queue_copy(env->cq, plain, 0, imp, 0, size + 4,
					  0, NULL, &f), -ERANGE);
	assert_int_equal(accel_queue_copy(env->cq, imp, PAGE, plain, 0,
					  size, 0, NULL, &f), -ERANGE);
	assert_ptr_equal(f, TEST_SENTINEL_PTR);

	/* A sub-buffer within it sees its range, and only that. */
	OK(env, accel_buffer_new_sub(imp, PAGE, PAGE, 0, &sub));
	assert_int_equal(accel_buffer_map(sub, 0, PAGE + 1, ACCEL_MAP_READ,
					  &ptr), -ERANGE);
	assert_int_equal(accel_queue_read(env->cq, sub, PAGE - 4, 8, host, 0,
					  NULL, &f), -ERANGE);
	assert_int_equal(accel_buffer_new_sub(sub, 0, 128, 0, &b), -EINVAL);
	OK(env, accel_buffer_map(sub, 0, PAGE, ACCEL_MAP_READ, (void **)&p));
	expect_range(env, p, PAGE / 4, PAGE / 4, 6);
	OK(env, accel_buffer_unmap(sub, p));
	assert_int_equal(kernel_check(env, imp, size / 4, 6), 0);

	accel_buffer_unref(sub);
	accel_buffer_unref(plain);
	accel_buffer_unref(imp);
	close(fd);
	ran_case();
}

/* Collects unexpected results, so one failure lists all of them. */
struct verdicts {
	char text[1024];
	size_t len;
};

static void verdict_text(struct verdicts *v, const char *text)
{
	int n;

	if (v->len >= sizeof(v->text) - 1)
		return;
	n = snprintf(v->text + v->len, sizeof(v->text) - v->len, "\n    %s",
		     text);
	if (n > 0)
		v->len += (size_t)n;
	if (v->len >= sizeof(v->text))
		v->len = sizeof(v->text) - 1;
}

static void verdict(struct verdicts *v, const char *what, int got, int want)
{
	char text[160];

	if (got == want)
		return;
	snprintf(text, sizeof(text), "%s: %d (%s), expected %d (%s)", what,
		 got, strerror(-got), want, strerror(-want));
	verdict_text(v, text);
}

/*
 * Record the result of a command that must be refused with -EACCES; drop
 * the fence it returned if it was accepted after all.
 */
static void refused(struct verdicts *v, const char *what, int rc,
		    struct accel_fence **f)
{
	verdict(v, what, rc, -EACCES);
	if (*f == TEST_SENTINEL_PTR)
		return;
	if (rc < 0) {
		verdict_text(v, "a failed command wrote its fence out-param");
	} else {
		accel_fence_wait(*f, ACCEL_TIMEOUT_INFINITE);
		accel_fence_unref(*f);
	}
	*f = TEST_SENTINEL_PTR;
}

/*
 * Every way of writing into @ro is refused, reading works. Returns false
 * (having printed what was let through, and released what it made) when
 * a write was not refused, so that the caller can clean up before failing.
 */
static bool expect_read_only(struct env *env, struct accel_buffer *ro,
			     struct accel_queue *q, bool with_kernels,
			     uint32_t seed)
{
	uint64_t size = accel_buffer_get_size(ro);
	struct accel_fence *f = TEST_SENTINEL_PTR;
	struct accel_buffer *plain = NULL, *sub;
	struct accel_kernel *k;
	struct accel_ndrange r = range1(size / 4);
	struct verdicts v = { .len = 0 };
	void *ptr = TEST_SENTINEL_PTR;
	uint32_t val = 0x0badf00d, *p, *host;
	int rc;

	if (!(accel_buffer_get_flags(ro) & ACCEL_BUFFER_READ_ONLY))
		verdict_text(&v, "flags lack ACCEL_BUFFER_READ_ONLY");
	rc = accel_buffer_map(ro, 0, size, ACCEL_MAP_WRITE, &ptr);
	verdict(&v, "map WRITE", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(ro, ptr);
	ptr = TEST_SENTINEL_PTR;
	rc = accel_buffer_map(ro, 0, size, ACCEL_MAP_READ | ACCEL_MAP_WRITE,
			      &ptr);
	verdict(&v, "map READ|WRITE", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(ro, ptr);
	ptr = TEST_SENTINEL_PTR;
	rc = accel_buffer_map(ro, 0, 4, ACCEL_MAP_WRITE_INVALIDATE, &ptr);
	verdict(&v, "map WRITE_INVALIDATE", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(ro, ptr);
	/* Writes below would change the data: nothing may be enqueued. */
	refused(&v, "queue write",
		accel_queue_write(q, ro, 0, 4, &val, 0, NULL, &f), &f);
	refused(&v, "queue fill",
		accel_queue_fill(q, ro, 0, 4, &val, 4, 0, NULL, &f), &f);
	OK(env, accel_buffer_new(accel_queue_get_device(q), size, 0, &plain));
	refused(&v, "copy into it",
		accel_queue_copy(q, plain, 0, ro, 0, 4, 0, NULL, &f), &f);
	/* A sub-buffer of it is no way around. */
	OK(env, accel_buffer_new_sub(ro, PAGE, PAGE, 0, &sub));
	refused(&v, "queue write into a sub-buffer",
		accel_queue_write(q, sub, 0, 4, &val, 0, NULL, &f), &f);
	ptr = TEST_SENTINEL_PTR;
	rc = accel_buffer_map(sub, 0, 4, ACCEL_MAP_WRITE, &ptr);
	verdict(&v, "map WRITE of a sub-buffer", rc, -EACCES);
	if (rc == 0)
		accel_buffer_unmap(sub, ptr);
	accel_buffer_unref(sub);
	if (with_kernels) {
		/* A non-const argument could write: refused at launch. */
		k = kernel(env, "pattern_u32");
		OK(env, accel_kernel_set_arg_buffer(k, 0, ro));
		OK(env, accel_kernel_set_arg_value(k, 1, sizeof(val), &val));
		refused(&v, "launch with a non-const buffer argument",
			accel_queue_launch(q, k, &r, 0, NULL, &f), &f);
		accel_kernel_unref(k);
	}
	if (v.len) {
		printf("# FAILED %s:%s\n", env->what, v.text);
		accel_buffer_unref(plain);
		return false;
	}
	/* A const one reads. */
	if (with_kernels)
		assert_int_equal(kernel_check(env, ro, size / 4, seed), 0);

	/* Reads work: map, queue read, copy out. */
	OK(env, accel_buffer_map(ro, 0, size, ACCEL_MAP_READ, (void **)&p));
	expect_words(env, p, size / 4, seed);
	OK(env, accel_buffer_unmap(ro, p));
	host = calloc(1, size);
	assert_non_null(host);
	f = NULL;
	OK(env, accel_queue_read(q, ro, 0, size, host, 0, NULL, &f));
	OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
	expect_words(env, host, size / 4, seed);
	f = NULL;
	OK(env, accel_queue_copy(q, ro, 0, plain, 0, size, 0, NULL, &f));
	OK(env, wait_unref(f, ACCEL_TIMEOUT_INFINITE));
	OK(env, accel_buffer_map(plain, 0, size, ACCEL_MAP_READ, (void **)&p));
	expect_words(env, p, size / 4, seed);
	OK(env, accel_buffer_unmap(plain, p));
	free(host);
	accel_buffer_unref(plain);
	return true;
}

/* A dma-buf fd opened read-only imports read-only. */
static void test_readonly_fd_import(void **state)
{
	struct env *env = *state;
	struct accel_buffer *ro, *b = TEST_SENTINEL_PTR;
	bool any = false, ok = true;
	struct side g;
	int fd;

	if (peer_have_heap()) {
		/*
		 * Nothing can write it: heap memory starts zeroed, the
		 * pattern of seed 0.
		 */
		snprintf(env->what, sizeof(env->what), "read-only heap fd");
		OK(env, peer_heap_alloc(4 * PAGE, O_RDONLY, &fd));
		assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &ro));
		ok &= expect_read_only(env, ro, env->cq, true, 0);
		accel_buffer_unref(ro);
		/* No write access may be asked for. */
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, fd,
				ACCEL_BUFFER_WRITE_ONLY, &b), -EACCES);
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, fd,
				ACCEL_BUFFER_HOST_WRITE_ONLY, &b), -EACCES);
		assert_ptr_equal(b, TEST_SENTINEL_PTR);
		close(fd);
		any = true;
	}
	if (env->card >= 0) {
		/* PRIME without DRM_RDWR: a read-only dma-buf. */
		snprintf(env->what, sizeof(env->what), "read-only vgem fd");
		vgem_buffer_mode(env, 4 * PAGE, 8, false, &g, &fd);
		assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0, &ro));
		ok &= expect_read_only(env, ro, env->cq, true, 8);
		accel_buffer_unref(ro);
		if (env->drm) {
			snprintf(env->what, sizeof(env->what),
				 "read-only vgem fd in libaccel's vgem");
			OK(env, accel_buffer_import_dmabuf(env->drm, fd, 0,
							   &ro));
			ok &= expect_read_only(env, ro, env->dq, false, 8);
			accel_buffer_unref(ro);
		}
		/* Nothing was written. */
		if (ok)
			expect_words(env, g.map, 4 * PAGE / 4, 8);
		close(fd);
		side_free(&g);
		any = true;
	}
	if (!any) {
		printf("# no dma-buf heap, no vgem\n");
		skip();
	}
	ran_case();
	if (!ok)
		fail_msg("writes into a read-only import were let through "
			 "(listed above)");
}

/*
 * A read-write fd imported with ACCEL_BUFFER_READ_ONLY: accel-buffer.h
 * says such a buffer "is mapped read-only and host writes are refused
 * with -EACCES", and accel-queue.h that writes into a buffer imported
 * read-only fail with -EACCES.
 */
static void test_readonly_flag_import(void **state)
{
	struct env *env = *state;
	struct accel_buffer *ro;
	bool ok = true;
	uint32_t *p;
	int fd;

	if (some_dmabuf(env, 4 * PAGE, 10, &fd) < 0) {
		printf("# no dma-buf heap or udmabuf\n");
		skip();
	}
	/* Read-only for kernels and for the host. */
	snprintf(env->what, sizeof(env->what), "read-write fd imported "
		 "READ_ONLY|HOST_READ_ONLY into the CPU device");
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd,
					   ACCEL_BUFFER_READ_ONLY |
						   ACCEL_BUFFER_HOST_READ_ONLY,
					   &ro));
	ok &= expect_read_only(env, ro, env->cq, true, 10);
	accel_buffer_unref(ro);
	if (env->drm) {
		snprintf(env->what, sizeof(env->what),
			 "read-write fd imported READ_ONLY into vgem");
		OK(env, accel_buffer_import_dmabuf(env->drm, fd,
						   ACCEL_BUFFER_READ_ONLY,
						   &ro));
		ok &= expect_read_only(env, ro, env->dq, false, 10);
		accel_buffer_unref(ro);
	}
	/* READ_ONLY alone, as accel-buffer.h describes it. */
	snprintf(env->what, sizeof(env->what),
		 "read-write fd imported READ_ONLY into the CPU device");
	OK(env, accel_buffer_import_dmabuf(env->cpu, fd,
					   ACCEL_BUFFER_READ_ONLY, &ro));
	ok &= expect_read_only(env, ro, env->cq, true, 10);
	accel_buffer_unref(ro);
	if (ok) {
		/* Nothing was written. */
		p = peer_mmap(fd, 4 * PAGE, false);
		assert_non_null(p);
		expect_words(env, p, 4 * PAGE / 4, 10);
		munmap(p, 4 * PAGE);
	}
	close(fd);
	ran_case();
	if (!ok)
		fail_msg("writes into a read-only import were let through "
			 "(listed above)");
}

static void test_export_flags(void **state)
{
	struct env *env = *state;
	struct accel_buffer *buf = cpu_buffer(env, 2 * PAGE), *imp;
	int fd = 12345, dfd;

	assert_int_equal(accel_buffer_export_dmabuf(buf, 1, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(buf, 1u << 31, &fd),
			 -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(buf, ~0u, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(NULL, 0, &fd), -EINVAL);
	assert_int_equal(accel_buffer_export_dmabuf(buf, 0, NULL), -EINVAL);
	assert_int_equal(fd, 12345);
	if (some_dmabuf(env, PAGE, 0, &dfd) == 0) {
		OK(env, accel_buffer_import_dmabuf(env->cpu, dfd, 0, &imp));
		assert_int_equal(accel_buffer_export_dmabuf(imp, 1, &fd),
				 -EINVAL);
		assert_int_equal(fd, 12345);
		accel_buffer_unref(imp);
		close(dfd);
	}
	if (env->drm) {
		struct accel_buffer *g = NULL;

		OK(env, accel_buffer_new(env->drm, PAGE, 0, &g));
		assert_int_equal(accel_buffer_export_dmabuf(g, 2, &fd),
				 -EINVAL);
		assert_int_equal(fd, 12345);
		accel_buffer_unref(g);
	}
	accel_buffer_unref(buf);
	ran_case();
}

/* Sub-buffers of a CPU buffer export whole pages or nothing. */
static void test_export_misaligned(void **state)
{
	static const struct {
		uint64_t offset, size;
	} bad[] = {
		{ 128, PAGE },          /* start inside a page */
		{ 0, 100 },             /* end inside a page */
		{ PAGE, PAGE + 128 },
		{ PAGE + 128, PAGE - 128 },
		{ 128, 4 * PAGE - 128 }, /* to the end, misaligned start */
		{ 2 * PAGE, PAGE + 50 }, /* end inside the last full page */
	};
	struct env *env = *state;
	struct accel_buffer *buf = cpu_buffer(env, 4 * PAGE), *odd, *sub;
	int fd = 12345;
	size_t i;

	for (i = 0; i < TEST_ARRAY_SIZE(bad); i++) {
		OK(env, accel_buffer_new_sub(buf, bad[i].offset, bad[i].size, 0,
					     &sub));
		if (accel_buffer_export_dmabuf(sub, 0, &fd) != -EINVAL)
			fail_msg("export of [%llu, +%llu): not -EINVAL",
				 (unsigned long long)bad[i].offset,
				 (unsigned long long)bad[i].size);
		assert_int_equal(fd, 12345);
		accel_buffer_unref(sub);
	}
	/* An odd-sized buffer: its tail from a misaligned start. */
	odd = cpu_buffer(env, 3 * PAGE + 100);
	OK(env, accel_buffer_new_sub(odd, 256, 3 * PAGE + 100 - 256, 0, &sub));
	assert_int_equal(accel_buffer_export_dmabuf(sub, 0, &fd), -EINVAL);
	assert_int_equal(fd, 12345);
	accel_buffer_unref(sub);
	accel_buffer_unref(odd);
	accel_buffer_unref(buf);
	ran_case();
}

/* ---- no fd leaked -------------------------------------------------------- */

static void test_leak_buffers(void **state)
{
	struct env *env = *state;
	bool udmabuf = peer_have_udmabuf(), heap = peer_have_heap();
	struct accel_buffer *keep = NULL, *b, *i1, *i2, *sub;
	int heap_fd = -1, fd, fd2, before, after, bad = closed_fd(), p[2];
	uint32_t handle = 0;
	uint64_t vsize;
	unsigned n;

	if (!udmabuf && !heap && env->card < 0) {
		printf("# no udmabuf, heap or vgem\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "leak check, buffers");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	keep = cpu_buffer(env, 4 * PAGE);
	OK(env, accel_buffer_new_sub(keep, 128, PAGE, 0, &sub));
	if (heap)
		OK(env, peer_heap_alloc(PAGE, O_RDWR, &heap_fd));
	if (env->card >= 0)
		OK(env, peer_vgem_create(env->card, PAGE, &handle, &vsize));
	/* From its first export on, a buffer keeps its dma-buf open. */
	if (udmabuf) {
		OK(env, accel_buffer_export_dmabuf(keep, 0, &fd));
		close(fd);
	}

	before = test_count_fds();
	for (n = 0; n < LEAK_CYCLES; n++) {
		if (udmabuf) {
			/* A new buffer: export, import, all gone. */
			b = cpu_buffer(env, PAGE);
			OK(env, accel_buffer_export_dmabuf(b, 0, &fd));
			OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0,
							   &i1));
			close(fd);
			accel_buffer_unref(b);
			accel_buffer_unref(i1);
			/* The long-lived one, exported again and again. */
			OK(env, accel_buffer_export_dmabuf(keep, 0, &fd));
			OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0,
							   &i1));
			OK(env, accel_buffer_export_dmabuf(i1, 0, &fd2));
			accel_buffer_unref(i1);
			close(fd2);
			close(fd);
		}
		if (heap_fd >= 0) {
			OK(env, accel_buffer_import_dmabuf(env->cpu, heap_fd,
							   0, &i1));
			accel_buffer_unref(i1);
		}
		if (env->card >= 0) {
			OK(env, peer_vgem_export(env->card, handle, true,
						 &fd));
			OK(env, accel_buffer_import_dmabuf(env->cpu, fd, 0,
							   &i1));
			if (env->drm) {
				OK(env, accel_buffer_import_dmabuf(env->drm,
								   fd, 0,
								   &i2));
				accel_buffer_unref(i2);
			}
			accel_buffer_unref(i1);
			close(fd);
		}
		/* Failures leak nothing either. */
		b = TEST_SENTINEL_PTR;
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, bad, 0,
							    &b), -EBADF);
		assert_int_equal(accel_buffer_import_dmabuf(env->cpu, p[0], 0,
							    &b), -ENOTTY);
		fd = 12345;
		assert_int_equal(accel_buffer_export_dmabuf(sub, 0, &fd),
				 -EINVAL);
		assert_int_equal(fd, 12345);
	}
	after = test_count_fds();
	printf("# %u cycles: %d fds before, %d after\n", LEAK_CYCLES, before,
	       after);
	assert_int_equal(after, before);

	if (env->card >= 0)
		peer_vgem_close(env->card, handle);
	if (heap_fd >= 0)
		close(heap_fd);
	accel_buffer_unref(sub);
	accel_buffer_unref(keep);
	close(p[0]);
	close(p[1]);
	ran_case();
}

static void test_leak_sync_files(void **state)
{
	struct env *env = *state;
	struct accel_fence *fences[LEAK_BATCH], *f;
	int dmabuf, sync_fd, before, after, bad = closed_fd(), p[2];
	unsigned n, i, pending = 0;
	struct side g;

	side_init(&g, "");
	if (some_dmabuf(env, PAGE, 0, &dmabuf) < 0) {
		printf("# no dma-buf heap or udmabuf\n");
		skip();
	}
	snprintf(env->what, sizeof(env->what), "leak check, sync_files");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	if (env->card >= 0) {
		int vfd;

		vgem_buffer(env, PAGE, 0, &g, &vfd);
		close(vfd);
	}
	/* The first pending import starts the context's poller thread. */
	if (env->card >= 0) {
		uint32_t fence;
		int vfd;

		OK(env, peer_vgem_export(env->card, g.handle, true, &vfd));
		OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
		OK(env, peer_export_sync_file(vfd, false, &sync_fd));
		OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &f));
		OK(env, peer_vgem_signal(env->card, fence));
		OK(env, wait_unref(f, 5000 * MS));
		close(sync_fd);
		close(vfd);
	}

	before = test_count_fds();
	/* Signalled sync_files (nothing attached to a fresh dma-buf). */
	for (n = 0; n < LEAK_CYCLES; n++) {
		OK(env, peer_export_sync_file(dmabuf, true, &sync_fd));
		OK(env, accel_fence_import_sync_file(env->ctx, sync_fd, &f));
		close(sync_fd);
		assert_int_equal(accel_fence_get_status(f), 1);
		accel_fence_unref(f);
		f = TEST_SENTINEL_PTR;
		assert_int_equal(accel_fence_import_sync_file(env->ctx, bad,
							      &f), -EBADF);
		assert_int_equal(accel_fence_import_sync_file(env->ctx, p[0],
							      &f), -EINVAL);
	}
	/* Pending ones, watched by the poller until vgem signals them. */
	for (n = 0; env->card >= 0 && n < LEAK_CYCLES / LEAK_BATCH; n++) {
		uint32_t fence;
		int vfd;

		OK(env, peer_vgem_export(env->card, g.handle, true, &vfd));
		OK(env, peer_vgem_attach(env->card, g.handle, true, &fence));
		OK(env, peer_export_sync_file(vfd, false, &sync_fd));
		for (i = 0; i < LEAK_BATCH; i++)
			OK(env, accel_fence_import_sync_file(env->ctx, sync_fd,
							     &fences[i]));
		close(sync_fd);
		close(vfd);
		for (i = 0; i < LEAK_BATCH; i++)
			pending += accel_fence_get_status(fences[i]) == 0;
		OK(env, peer_vgem_signal(env->card, fence));
		for (i = 0; i < LEAK_BATCH; i++)
			OK(env, wait_unref(fences[i], 5000 * MS));
	}
	after = test_count_fds();
	printf("# %u signalled and %u pending sync_file imports: %d fds "
	       "before, %d after\n", LEAK_CYCLES, pending, before, after);
	assert_int_equal(after, before);
	if (env->card >= 0) {
		assert_int_equal(pending, LEAK_CYCLES);
		side_free(&g);
	}
	close(p[0]);
	close(p[1]);
	close(dmabuf);
	ran_case();
}

int main(void)
{
#define CASE(fn) cmocka_unit_test_setup_teardown(fn, env_setup, env_teardown)
	const struct CMUnitTest tests[] = {
		CASE(test_roundtrip_cpu_udmabuf),
		CASE(test_roundtrip_cpu_heap),
		CASE(test_roundtrip_raw_heap),
		CASE(test_roundtrip_raw_udmabuf),
		CASE(test_roundtrip_libaccel_vgem),
		CASE(test_roundtrip_raw_vgem),
		CASE(test_export_identity),
		cmocka_unit_test_setup_teardown(test_implicit_sync_write_fence,
						env_setup_one_worker,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_implicit_sync_read_fence,
						env_setup_one_worker,
						env_teardown),
		CASE(test_implicit_sync_exported),
		CASE(test_sync_file_wait),
		CASE(test_bad_import),
		CASE(test_bad_sync_file_import),
		CASE(test_bad_kernel_fds),
		CASE(test_import_ranges),
		CASE(test_readonly_fd_import),
		CASE(test_readonly_flag_import),
		CASE(test_export_flags),
		CASE(test_export_misaligned),
		CASE(test_leak_buffers),
		CASE(test_leak_sync_files),
	};
#undef CASE
	int r;

	r = TEST_RUN_GROUP("sharing", tests);
	if (r == 0 && n_ran == 0) {
		printf("# SKIP: no case could run here (needs udmabuf, the "
		       "system dma-buf heap or vgem: the kernel test tier)\n");
		return TEST_EXIT_SKIP;
	}
	return r ? 1 : 0;
}
