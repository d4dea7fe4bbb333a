/* SPDX-License-Identifier: MIT */
/*
 * The accel-node backend on refaccel, through the public API: discovery,
 * buffers, PRIME with the CPU device, vgem and udmabuf, in-fences from
 * sync_files, out-fences exported as sync_files before the job ran,
 * implicit sync, 1,000 chained jobs, built-in kernels (the engine's
 * copy and fill, and its factorial job as factorial_u32). Runs in the VM
 * tier after load.sh; exits 77 where no refaccel device exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test-common.h"
#include "../sharing/peer.h"
#include "accel-node-util.h"
#include "refaccel-sysfs.h"

#define MS 1000000ll
#define SZ 65536u

/*
 * The bus the device of @node sits on, as sysfs says ("platform" for
 * refaccel's software personality, "pci" for edu); NULL if unknown.
 */
static const char *node_bus(const struct refaccel_node *node)
{
	static char path[4096];
	char *real;
	const char *slash;

	snprintf(path, sizeof(path), "%s/device/subsystem", node->sysfs);
	real = realpath(path, NULL);

	if (!real)
		return NULL;
	slash = strrchr(real, '/');
	snprintf(path, sizeof(path), "%s", slash ? slash + 1 : real);
	free(real);
	return path;
}

static int setup(void **state)
{
	struct node_env *env = calloc(1, sizeof(*env));

	assert_non_null(env);
	node_env_init(env);
	*state = env;
	return 0;
}

static int teardown(void **state)
{
	node_env_fini(*state);
	free(*state);
	return 0;
}

static void test_discovery(void **state)
{
	struct node_env *env = *state;
	struct refaccel_node node;
	const char *s = NULL;
	uint64_t v = 0;
	int n, i, seen = 0;
	bool accel;

	/*
	 * An accel node, or where the kernel has no accel subsystem a render
	 * node (discovery's entry then is the DRM card with its render node).
	 */
	assert_int_equal(refaccel_node_find(0, &node), 0);
	accel = !strncmp(node.node, "/dev/accel/", 11);

	assert_int_equal(accel_device_query_u64(env->acc, ACCEL_DEVICE_U64_TYPE,
						&v), 0);
	assert_int_equal(v, ACCEL_DEVICE_TYPE_ACCELERATOR);
	assert_int_equal(accel_device_query_u64(env->acc, ACCEL_DEVICE_U64_CAPS,
						&v), 0);
	assert_true(v & ACCEL_DEVICE_CAP_BUILT_IN_KERNELS);
	assert_true(v & ACCEL_DEVICE_CAP_DMABUF_EXPORT);
	assert_true(v & ACCEL_DEVICE_CAP_DMABUF_IMPORT);
	assert_true(v & ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT);
	assert_false(v & ACCEL_DEVICE_CAP_COMPILER);
	assert_int_equal(accel_device_query_string(env->acc,
			 ACCEL_DEVICE_STRING_BACKEND, &s), 0);
	assert_string_equal(s, "accel");
	assert_int_equal(accel_device_query_string(env->acc,
			 ACCEL_DEVICE_STRING_DEVNODE, &s), 0);
	assert_string_equal(s, node.node);
	assert_int_equal(accel_device_query_string(env->acc,
			 ACCEL_DEVICE_STRING_BUILT_IN_KERNELS, &s), 0);
	assert_string_equal(s, "copy_u8;fill_u32;factorial_u32");

	/* udev's view of it. */
	n = accel_context_get_candidate_count(env->ctx);
	assert_true(n >= 1);
	for (i = 0; i < n; i++) {
		const char *sub = NULL, *drv = NULL;

		assert_int_equal(accel_context_get_candidate_string(env->ctx, i,
				 ACCEL_CANDIDATE_STRING_SUBSYSTEM, &sub), 0);
		assert_int_equal(accel_context_get_candidate_string(env->ctx, i,
				 ACCEL_CANDIDATE_STRING_DRIVER, &drv), 0);
		if (strcmp(sub, accel ? "accel" : "drm") ||
		    strcmp(drv, "refaccel"))
			continue;
		assert_int_equal(accel_context_get_candidate_string(env->ctx, i,
				 ACCEL_CANDIDATE_STRING_RENDER_DEVNODE, &s), 0);
		if (!accel && strcmp(s, node.node))
			continue; /* another refaccel device */
		seen++;
		assert_int_equal(accel_context_get_candidate_string(env->ctx, i,
				 ACCEL_CANDIDATE_STRING_SYSNAME, &s), 0);
		if (accel)
			assert_string_equal(s, node.name);
		else
			assert_true(!strncmp(s, "card", 4));
		assert_int_equal(accel_context_get_candidate_string(env->ctx, i,
				 ACCEL_CANDIDATE_STRING_BUS, &s), 0);
		assert_non_null(node_bus(&node));
		assert_string_equal(s, node_bus(&node));
		assert_int_equal(accel_context_get_candidate_string(env->ctx, i,
				 ACCEL_CANDIDATE_STRING_BACKEND, &s), 0);
		assert_string_equal(s, "accel");
		assert_int_equal(accel_context_get_candidate_u64(env->ctx, i,
				 ACCEL_CANDIDATE_U64_REASON, &v), 0);
		assert_int_equal(v, ACCEL_CANDIDATE_OK);
		assert_int_equal(accel_context_get_candidate_u64(env->ctx, i,
				 ACCEL_CANDIDATE_U64_DEVNUM, &v), 0);
		assert_int_not_equal(v, 0);
	}
	assert_int_equal(seen, 1);
}

static void test_buffers(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, SZ), *b = buf_new(env->acc,
								     SZ);
	struct accel_buffer *sub = NULL, *nohost = NULL;
	struct accel_fence *f = NULL;
	uint32_t *p = NULL, words[4] = { 1, 2, 3, 4 };

	expect_u32(env->q, a, 0, SZ, 0); /* zeroed */
	fill_u32(env->q, a, 0, SZ, 0x11111111);
	fill_u32(env->q, a, 4096, 4096, 0x22222222);
	assert_int_equal(accel_queue_copy(env->q, a, 0, b, 0, SZ, 0, NULL, &f),
			 0);
	wait_ok(f);
	expect_u32(env->q, b, 0, 4096, 0x11111111);
	expect_u32(env->q, b, 4096, 4096, 0x22222222);
	expect_u32(env->q, b, 8192, SZ - 8192, 0x11111111);

	/* Sub-buffers address their parent's object at their offset. */
	assert_int_equal(accel_buffer_new_sub(b, 8192, 4096, 0, &sub), 0);
	fill_u32(env->q, sub, 0, 4096, 0x33333333);
	expect_u32(env->q, b, 8192, 4096, 0x33333333);
	assert_int_equal(accel_queue_write(env->q, sub, 16, 16, words, 0, NULL,
					   &f), 0);
	wait_ok(f);
	assert_int_equal(accel_buffer_map(b, 8192 + 16, 16, ACCEL_MAP_READ,
					  (void **)&p), 0);
	assert_memory_equal(p, words, 16);
	assert_int_equal(accel_buffer_unmap(b, p), 0);

	/* No host mapping asked for: the engine still works on it. */
	assert_int_equal(accel_buffer_new(env->acc, SZ,
					  ACCEL_BUFFER_HOST_NO_ACCESS,
					  &nohost), 0);
	assert_int_equal(accel_queue_copy(env->q, a, 0, nohost, 0, SZ, 0, NULL,
					  &f), 0);
	wait_ok(f);
	assert_int_equal(accel_queue_copy(env->q, nohost, 0, b, 0, SZ, 0,
					  NULL, &f), 0);
	wait_ok(f);
	expect_u32(env->q, b, 4096, 4096, 0x22222222);

	accel_buffer_unref(nohost);
	accel_buffer_unref(sub);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

/* Our buffer read by the CPU device, the CPU device's written by us. */
static void test_prime_cpu(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, SZ), *c, *imp = NULL;
	struct accel_fence *f = NULL;
	int fd;

	if (!peer_have_udmabuf())
		skip(); /* the CPU device exports through udmabuf */
	fill_u32(env->q, a, 0, SZ, 0xa5a5a5a5);
	assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
	assert_int_equal(accel_buffer_import_dmabuf(env->cpu, fd, 0, &imp), 0);
	close(fd);
	expect_u32(env->cq, imp, 0, SZ, 0xa5a5a5a5);
	accel_buffer_unref(imp);

	c = buf_new(env->cpu, SZ);
	fill_u32(env->cq, c, 0, SZ, 0x5a5a5a5a);
	assert_int_equal(accel_buffer_export_dmabuf(c, 0, &fd), 0);
	assert_int_equal(accel_buffer_import_dmabuf(env->acc, fd, 0, &imp), 0);
	close(fd);
	assert_int_equal(accel_queue_copy(env->q, imp, 0, a, 0, SZ, 0, NULL,
					  &f), 0);
	wait_ok(f);
	expect_u32(env->q, a, 0, SZ, 0x5a5a5a5a);
	/* And the engine writes into the CPU device's memory. */
	fill_u32(env->q, imp, 0, 4096, 0x77777777);
	expect_u32(env->cq, c, 0, 4096, 0x77777777);
	accel_buffer_unref(imp);
	accel_buffer_unref(c);
	accel_buffer_unref(a);
}

static void test_prime_vgem_udmabuf(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, SZ), *imp = NULL;
	struct accel_fence *f = NULL;
	uint32_t vh;
	uint64_t vsize;
	uint8_t *map;
	int card, fd, memfd;

	if (peer_vgem_open(&card) == 0) {
		assert_int_equal(peer_vgem_create(card, SZ, &vh, &vsize), 0);
		map = peer_vgem_map(card, vh, vsize);
		assert_non_null(map);
		memset(map, 0x42, SZ);
		assert_int_equal(peer_vgem_export(card, vh, true, &fd), 0);
		assert_int_equal(accel_buffer_import_dmabuf(env->acc, fd, 0,
							    &imp), 0);
		assert_int_equal(accel_queue_copy(env->q, imp, 0, a, 0, SZ, 0,
						  NULL, &f), 0);
		wait_ok(f);
		expect_u32(env->q, a, 0, SZ, 0x42424242);
		fill_u32(env->q, imp, 0, 4096, 0x01010101);
		assert_int_equal(map[4095], 1);
		accel_buffer_unref(imp);
		close(fd);
		munmap(map, vsize);
		peer_vgem_close(card, vh);

		/*
		 * The other way: vgem takes our buffer, and what it shares
		 * again (its PRIME export) is the engine's data.
		 */
		assert_int_equal(accel_buffer_export_dmabuf(a, 0, &fd), 0);
		assert_int_equal(peer_vgem_import(card, fd, &vh), 0);
		close(fd);
		assert_int_equal(peer_vgem_export(card, vh, false, &fd), 0);
		map = peer_mmap(fd, SZ, false);
		assert_non_null(map);
		assert_int_equal(map[SZ - 1], 0x42);
		munmap(map, SZ);
		close(fd);
		peer_vgem_close(card, vh);
		close(card);
	}
	if (peer_have_udmabuf()) {
		assert_int_equal(peer_memfd(SZ, &memfd), 0);
		assert_int_equal(peer_udmabuf(memfd, 0, SZ, &fd), 0);
		assert_int_equal(accel_buffer_import_dmabuf(env->acc, fd, 0,
							    &imp), 0);
		fill_u32(env->q, imp, 0, SZ, 0x99999999);
		map = mmap(NULL, SZ, PROT_READ, MAP_SHARED, memfd, 0);
		assert_true(map != MAP_FAILED);
		assert_int_equal(map[SZ - 1], 0x99);
		munmap(map, SZ);
		accel_buffer_unref(imp);
		close(fd);
		close(memfd);
	}
	accel_buffer_unref(a);
}

/*
 * A job held back in the kernel by a vgem write fence on its source
 * (implicit sync): its fence exports as a refaccel sync_file at once,
 * unsignalled, also visible on the destination's dma-buf; all of them
 * signal when vgem's does.
 */
static void test_out_fence_implicit(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, SZ), *imp = NULL;
	struct accel_sync_fence_info fi;
	struct accel_sync_file_info info;
	struct accel_fence *f = NULL;
	uint32_t vh, vfence;
	uint64_t vsize;
	uint8_t *map;
	int card, vfd, afd, sf, rsf;

	if (peer_vgem_open(&card) < 0)
		skip();
	assert_int_equal(peer_vgem_create(card, SZ, &vh, &vsize), 0);
	map = peer_vgem_map(card, vh, vsize);
	assert_non_null(map);
	memset(map, 0x24, SZ);
	assert_int_equal(peer_vgem_export(card, vh, true, &vfd), 0);
	assert_int_equal(accel_buffer_import_dmabuf(env->acc, vfd, 0, &imp),
			 0);
	assert_int_equal(accel_buffer_export_dmabuf(a, 0, &afd), 0);
	assert_int_equal(peer_vgem_attach(card, vh, true, &vfence), 0);

	assert_int_equal(accel_queue_copy(env->q, imp, 0, a, 0, SZ, 0, NULL,
					  &f), 0);
	assert_int_equal(accel_fence_export_sync_file(f, &sf), 0);
	assert_int_equal(accel_sync_file_get_info(sf, &info, &fi, 1), 1);
	assert_string_equal(fi.driver, "refaccel");
	assert_int_equal(accel_sync_file_wait(sf, 200 * MS), -ETIME);
	assert_int_equal(accel_fence_get_status(f), 0);
	/* Implicit sync outwards: a reader of our dma-buf waits for us. */
	assert_int_equal(peer_export_sync_file(afd, false, &rsf), 0);
	assert_int_equal(accel_sync_file_wait(rsf, 0), -ETIME);

	assert_int_equal(peer_vgem_signal(card, vfence), 0);
	assert_int_equal(accel_sync_file_wait(sf, 10000 * MS), 0);
	assert_int_equal(accel_sync_file_wait(rsf, 10000 * MS), 0);
	wait_ok(f);
	expect_u32(env->q, a, 0, SZ, 0x24242424);

	close(rsf);
	close(sf);
	close(afd);
	close(vfd);
	accel_buffer_unref(imp);
	munmap(map, vsize);
	peer_vgem_close(card, vh);
	close(card);
	accel_buffer_unref(a);
}

/* A sync_file as an explicit in-fence of a job. */
static void test_in_fence(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, SZ);
	struct accel_fence *in = NULL, *f = NULL;
	uint32_t vh, vfence;
	uint64_t vsize;
	int card, vfd, sf;

	if (peer_vgem_open(&card) < 0)
		skip();
	assert_int_equal(peer_vgem_create(card, 4096, &vh, &vsize), 0);
	assert_int_equal(peer_vgem_export(card, vh, true, &vfd), 0);
	assert_int_equal(peer_vgem_attach(card, vh, true, &vfence), 0);
	assert_int_equal(peer_export_sync_file(vfd, false, &sf), 0);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, sf, &in), 0);
	close(sf);

	assert_int_equal(accel_queue_fill(env->q, a, 0, SZ,
					  &(uint32_t){ 0x13579bdf }, 4, 1, &in,
					  &f), 0);
	assert_int_equal(accel_fence_wait(f, 200 * MS), -ETIME);
	assert_int_equal(peer_vgem_signal(card, vfence), 0);
	wait_ok(f);
	expect_u32(env->q, a, 0, SZ, 0x13579bdf);
	accel_fence_unref(in);
	close(vfd);
	peer_vgem_close(card, vh);
	close(card);
	accel_buffer_unref(a);
}

/* 1,000 jobs, each depending on the one before (in-order queue). */
static void test_chain(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *b[2] = { buf_new(env->acc, 4096),
				      buf_new(env->acc, 4096) };
	struct accel_fence *f = NULL;
	int i;

	fill_u32(env->q, b[0], 0, 4096, 0xc0ffee00);
	for (i = 1; i <= 1000; i++) {
		assert_int_equal(accel_queue_copy(env->q, b[(i - 1) % 2], 0,
						  b[i % 2], 0, 4096, 0, NULL,
						  i == 1000 ? &f : NULL), 0);
		/* Each job changes the data, so order shows. */
		if (i % 100 == 0)
			fill_u32(env->q, b[i % 2], 0, 4, 0xc0ffee00 + i);
	}
	wait_ok(f);
	expect_u32(env->q, b[0], 0, 4, 0xc0ffee00 + 1000);
	expect_u32(env->q, b[0], 4, 4092, 0xc0ffee00);
	accel_buffer_unref(b[0]);
	accel_buffer_unref(b[1]);
}

struct worker {
	struct node_env *env;
	uint32_t seed;
	int failures;
};

/* Fills and copies on a queue of its own; checks every round. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct accel_queue *q = NULL;
	struct accel_buffer *a = NULL, *b = NULL;
	struct accel_fence *f = NULL;
	uint32_t v, got[256];
	int i, j;

	if (accel_queue_new(w->env->acc, 0, &q) ||
	    accel_buffer_new(w->env->acc, sizeof(got), 0, &a) ||
	    accel_buffer_new(w->env->acc, sizeof(got), 0, &b)) {
		w->failures++;
		goto out;
	}
	for (i = 0; i < 200; i++) {
		v = w->seed + (uint32_t)i;
		if (accel_queue_fill(q, a, 0, sizeof(got), &v, 4, 0, NULL,
				     NULL) ||
		    accel_queue_copy(q, a, 0, b, 0, sizeof(got), 0, NULL,
				     NULL) ||
		    accel_queue_read(q, b, 0, sizeof(got), got, 0, NULL, &f) ||
		    accel_fence_wait(f, 30000 * MS)) {
			w->failures++;
			break;
		}
		accel_fence_unref(f);
		f = NULL;
		for (j = 0; j < 256; j++)
			w->failures += got[j] != v;
	}
out:
	accel_fence_unref(f);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
	accel_queue_unref(q);
	return NULL;
}

/* Two threads, two queues, one engine: each sees its own order. */
static void test_threads(void **state)
{
	struct worker w[2] = { { *state, 0x1000, 0 }, { *state, 0x9000, 0 } };
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker_main,
						&w[i]), 0);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
}

static void test_built_ins(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, SZ), *b = buf_new(env->acc,
								     SZ);
	struct accel_program *prog = NULL, *src = NULL;
	struct accel_kernel *fill = NULL, *copy = NULL;
	struct accel_ndrange r = { .struct_size = sizeof(r), .work_dim = 1 };
	struct accel_fence *f = NULL;
	uint32_t v = 0xdeadbeef;

	assert_int_equal(accel_program_new_source(env->acc, "kernel void k(){}",
						  0, NULL, NULL, &src),
			 -EOPNOTSUPP);
	assert_int_equal(accel_program_new_built_in(env->acc,
						    "fill_u32;copy_u8", &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "fill_u32", &fill), 0);
	assert_int_equal(accel_kernel_new(prog, "copy_u8", &copy), 0);

	assert_int_equal(accel_kernel_set_arg_buffer(fill, 0, a), 0);
	assert_int_equal(accel_kernel_set_arg_value(fill, 1, 4, &v), 0);
	r.global_offset[0] = 1024;
	r.global_size[0] = 2048; /* words 1024..3071 */
	assert_int_equal(accel_queue_launch(env->q, fill, &r, 0, NULL, &f), 0);
	wait_ok(f);
	expect_u32(env->q, a, 0, 4096, 0);
	expect_u32(env->q, a, 4096, 8192, 0xdeadbeef);
	expect_u32(env->q, a, 12288, SZ - 12288, 0);

	assert_int_equal(accel_kernel_set_arg_buffer(copy, 0, b), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(copy, 1, a), 0);
	r.global_offset[0] = 0;
	r.global_size[0] = SZ;
	assert_int_equal(accel_queue_launch(env->q, copy, &r, 0, NULL, &f), 0);
	wait_ok(f);
	expect_u32(env->q, b, 4096, 8192, 0xdeadbeef);

	/* Past the end of the buffer: the command fails, nothing runs. */
	r.global_offset[0] = 1;
	assert_int_equal(accel_queue_launch(env->q, copy, &r, 0, NULL, &f), 0);
	assert_int_equal(accel_fence_wait(f, 10000 * MS), -EINVAL);
	accel_fence_unref(f);

	accel_kernel_unref(fill);
	accel_kernel_unref(copy);
	accel_program_unref(prog);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

/* Words and their factorials modulo 2^32 (REFACCEL_OP_FACTORIAL). */
static const uint32_t fact_w[] = { 0, 1, 2, 12, 13, 33, 34, 1000,
				   0xffffffff };
static const uint32_t fact_f[] = { 1, 1, 2, 479001600, 1932053504,
				   0x80000000, 0, 0, 0 };

#define NW TEST_ARRAY_SIZE(fact_w)

/* Words [first, first + NW) of @b hold fact_f (the rest not checked). */
static void expect_fact(struct accel_queue *q, struct accel_buffer *b,
			uint64_t first)
{
	uint32_t got[NW];
	struct accel_fence *f = NULL;
	size_t i;

	assert_int_equal(accel_queue_read(q, b, first * 4, sizeof(got), got, 0,
					  NULL, &f), 0);
	wait_ok(f);
	for (i = 0; i < NW; i++)
		if (got[i] != fact_f[i])
			fail_msg("word %llu (%u!): 0x%08x, want 0x%08x",
				 (unsigned long long)(first + i), fact_w[i],
				 got[i], fact_f[i]);
}

/*
 * factorial_u32(dst, src), the engine's factorial job: its description,
 * out of place over a range of global ids, in place (one buffer as both
 * arguments), and a range past the buffer's end failing the command.
 */
static void test_built_in_factorial(void **state)
{
	struct node_env *env = *state;
	struct accel_buffer *a = buf_new(env->acc, 4096);
	struct accel_buffer *b = buf_new(env->acc, 4096);
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_kernel_arg_desc arg = { .struct_size = sizeof(arg) };
	struct accel_ndrange r = { .struct_size = sizeof(r), .work_dim = 1 };
	struct accel_fence *f = NULL;

	assert_int_equal(accel_program_new_built_in(env->acc, "factorial_u32",
						    &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "factorial_u32", &k), 0);
	assert_int_equal(accel_kernel_get_arg_count(k), 2);
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &arg), 0);
	assert_int_equal(arg.kind, ACCEL_KERNEL_ARG_BUFFER);
	assert_string_equal(arg.name, "src");
	assert_string_equal(arg.type_name, "uint*");

	fill_u32(env->q, b, 0, 4096, 0x5a5a5a5a);
	assert_int_equal(accel_queue_write(env->q, a, 40 * 4, sizeof(fact_w),
					   fact_w, 0, NULL, &f), 0);
	wait_ok(f);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, b), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, a), 0);
	r.global_offset[0] = 40;
	r.global_size[0] = NW;
	assert_int_equal(accel_queue_launch(env->q, k, &r, 0, NULL, &f), 0);
	wait_ok(f);
	expect_fact(env->q, b, 40);
	expect_u32(env->q, b, 0, 40 * 4, 0x5a5a5a5a);
	expect_u32(env->q, b, (40 + NW) * 4, 4096 - (40 + NW) * 4,
		   0x5a5a5a5a);

	/* In place: the words of a become their factorials. */
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, a), 0);
	assert_int_equal(accel_queue_launch(env->q, k, &r, 0, NULL, &f), 0);
	wait_ok(f);
	expect_fact(env->q, a, 40);

	/* Past the end of the buffer: the command fails, nothing runs. */
	r.global_offset[0] = 1024 - NW + 1;
	assert_int_equal(accel_queue_launch(env->q, k, &r, 0, NULL, &f), 0);
	assert_int_equal(accel_fence_wait(f, 10000 * MS), -EINVAL);
	accel_fence_unref(f);

	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_discovery, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prime_cpu, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prime_vgem_udmabuf, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_out_fence_implicit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_in_fence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_built_ins, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_built_in_factorial, setup,
						teardown),
	};

	if (!have_refaccel()) {
		printf("SKIP: no refaccel device (not in the VM tier)\n");
		return TEST_EXIT_SKIP;
	}
	return TEST_RUN_GROUP("accel-node", tests);
}
