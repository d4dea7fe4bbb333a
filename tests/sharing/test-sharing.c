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

static uint32_t word(uint64_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 0x9e3779b1u ^ seed;

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

static const struct accel_native_kernel_desc kernels[] = {
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
	    accel_program_new_native(env->cpu, kernels,
				     TEST_ARRAY_SIZE(kernels), &env->prog) < 0) {
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
	IMP_VGEM,  /* raw vgem: PRIME import, its own dumb mapping */
};

static const char *const imp_name[] = {
	[IMP_CPU] = "cpu",
	[IMP_DRM] = "libaccel-vgem",
	[IMP_MMAP] = "raw-mmap",
	[IMP_VGEM] = "raw-vgem",
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
		OK(env, peer_vgem_import(env->card, fd, &s->handle));
		s->card = env->card;
		s->map = peer_vgem_map(env->card, s->handle, size);
		s->map_len = size;
		s->own_fd[0] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		s->sync_fd = s->own_fd[0];
		if (!s->map)
			fail_msg("raw-vgem: map of an imported buffer: %s",
				 strerror(errno));
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
			snprintf(val, len, "%s", line + klen + 2);
			val[strcspn(val, "\n")] = '\0';
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
