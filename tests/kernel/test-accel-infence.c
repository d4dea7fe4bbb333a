/* SPDX-License-Identifier: MIT */
/*
 * Kernel in-fences on an accel node: a job whose dependency is a pending
 * sync_file (imported, or another job's out-fence) goes to the kernel at
 * once with it as an in-syncobj, instead of waiting in user space. Proof
 * that it was submitted before its in-fence signalled: its own fence
 * exports as a pending refaccel sync_file (made by the submit), and the
 * core logs the hand-over. Also: exports of fences that have a kernel
 * fence are that fence, failures and timeouts, no fd leak over 1,000
 * such jobs. Runs in the VM tier after load.sh (needs vgem as the
 * producer); exits 77 where no refaccel device exists.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"
#include "../sharing/peer.h"
#include "accel-node-util.h"

#define MS 1000000ll
#define SZ 65536u
#define HANDED "left to the kernel"

struct env {
	struct node_env n;
	struct accel_queue *q2, *ooo;
	/* A vgem buffer whose write fences stand for a producer. */
	int card, vfd;
	uint32_t vh;
};

static int setup(void **state)
{
	struct env *env = calloc(1, sizeof(*env));
	uint64_t vsize;

	assert_non_null(env);
	assert_int_equal(peer_vgem_open(&env->card), 0);
	assert_int_equal(peer_vgem_create(env->card, 4096, &env->vh, &vsize),
			 0);
	assert_int_equal(peer_vgem_export(env->card, env->vh, true, &env->vfd),
			 0);
	node_env_init(&env->n);
	assert_int_equal(accel_queue_new(env->n.acc, 0, &env->q2), 0);
	assert_int_equal(accel_queue_new(env->n.acc, ACCEL_QUEUE_OUT_OF_ORDER,
					 &env->ooo), 0);
	*state = env;
	return 0;
}

static int teardown(void **state)
{
	struct env *env = *state;

	accel_queue_unref(env->q2);
	accel_queue_unref(env->ooo);
	node_env_fini(&env->n);
	close(env->vfd);
	peer_vgem_close(env->card, env->vh);
	close(env->card);
	free(env);
	return 0;
}

/* A pending producer: a vgem fence, imported. Its vgem id in *vfence. */
static struct accel_fence *producer(struct env *env, uint32_t *vfence)
{
	struct accel_fence *in = NULL;
	int sf;

	assert_int_equal(peer_vgem_attach(env->card, env->vh, true, vfence),
			 0);
	assert_int_equal(peer_export_sync_file(env->vfd, false, &sf), 0);
	assert_int_equal(accel_fence_import_sync_file(env->n.ctx, sf, &in), 0);
	close(sf);
	assert_int_equal(accel_fence_get_status(in), 0);
	return in;
}

/*
 * @f's kernel fence: a refaccel sync_file that has not signalled. Only a
 * submitted job has one (another would be vgem's, via the exporter).
 */
static void expect_in_kernel(struct accel_fence *f)
{
	struct accel_sync_fence_info fi;
	struct accel_sync_file_info info;
	int sf;

	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(accel_fence_export_sync_file(f, &sf), 0);
	assert_int_equal(accel_sync_file_get_info(sf, &info, &fi, 1), 1);
	assert_string_equal(fi.driver, "refaccel");
	assert_string_equal(fi.timeline, "engine");
	assert_int_equal(fi.status, 0);
	close(sf);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Back to @want open fds, given a moment: other threads drop references too. */
static void expect_fds(int want)
{
	int i, n = count_fds();

	for (i = 0; i < 200 && n != want; i++) {
		usleep(10000);
		n = count_fds();
	}
	assert_int_equal(n, want);
}

/*
 * One import and signal, so the context's sync_file poller exists; then
 * the open fds once steady (the poller's own fds stay with the context).
 */
static int settle(struct env *env)
{
	struct accel_fence *in;
	uint32_t vfence;
	int n, same = 0, last = -1;

	in = producer(env, &vfence);
	assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
	assert_int_equal(accel_fence_wait(in, 5000 * MS), 0);
	accel_fence_unref(in);
	while (same < 5) {
		usleep(10000);
		n = count_fds();
		same = n == last ? same + 1 : 0;
		last = n;
	}
	return last;
}

/*
 * A copy waiting for an imported sync_file is in the kernel before the
 * producer signals; the in-order queue's next job and a job of another
 * queue that waits for it follow it there without a round trip.
 */
static void test_job_waits_in_kernel(void **state)
{
	struct env *env = *state;
	struct accel_buffer *a = buf_new(env->n.acc, SZ);
	struct accel_buffer *b = buf_new(env->n.acc, SZ);
	struct accel_buffer *c = buf_new(env->n.acc, SZ);
	struct accel_fence *in, *f = NULL, *g = NULL, *h = NULL, *rd = NULL;
	uint32_t vfence, *tmp = malloc(SZ);
	int i;

	assert_non_null(tmp);
	fill_u32(env->n.q, a, 0, SZ, 0x600df00d);
	in = producer(env, &vfence);
	test_log_reset(&env->n.log);

	assert_int_equal(accel_queue_copy(env->n.q, a, 0, b, 0, SZ, 1, &in, &f),
			 0);
	expect_in_kernel(f);
	assert_true(test_log_contains(&env->n.log, HANDED));
	/* Same queue, in order: no wait at all, the engine keeps order. */
	assert_int_equal(accel_queue_fill(env->n.q, a, 0, SZ,
					  &(uint32_t){ 0xbad0bad0 }, 4, 0,
					  NULL, &g), 0);
	expect_in_kernel(g);
	/* Another queue, waiting for the first job: an in-syncobj. */
	assert_int_equal(accel_queue_copy(env->q2, b, 0, c, 0, SZ, 1, &f, &h),
			 0);
	expect_in_kernel(h);
	/* A host read behind them in the engine's FIFO. */
	assert_int_equal(accel_queue_read(env->n.q, b, 0, SZ, tmp, 0, NULL,
					  &rd), 0);

	assert_int_equal(accel_fence_wait(f, 200 * MS), -ETIME);
	assert_int_equal(accel_fence_get_status(rd), 0);
	assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
	wait_ok(f);
	wait_ok(g);
	wait_ok(h);
	wait_ok(rd);
	for (i = 0; i < (int)(SZ / 4); i++)
		if (tmp[i] != 0x600df00d)
			fail_msg("word %d: 0x%08x", i, tmp[i]);
	/* The copy ran before the fill that came after it. */
	expect_u32(env->n.q, c, 0, SZ, 0x600df00d);
	expect_u32(env->n.q, a, 0, SZ, 0xbad0bad0);
	assert_int_equal(accel_fence_wait(in, 5000 * MS), 0);

	free(tmp);
	accel_fence_unref(in);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
	accel_buffer_unref(c);
}

/*
 * The CPU device's work as the producer: its fence, exported through
 * vgem and imported again, gates an engine fill in the kernel. (Not on a
 * buffer the CPU work writes: the job's fence, published on the buffer
 * at submit, would make the CPU device's implicit sync wait for the job
 * that waits for it, until vgem's 10 s guard; see docs/design.md.)
 */
static void test_cpu_producer(void **state)
{
	struct env *env = *state;
	struct accel_buffer *c = buf_new(env->n.cpu, SZ);
	struct accel_buffer *dst = buf_new(env->n.acc, SZ);
	struct accel_fence *gate = NULL, *cf = NULL, *in = NULL, *f = NULL;
	int sf;

	assert_int_equal(accel_fence_new_user(env->n.ctx, &gate), 0);
	assert_int_equal(accel_queue_fill(env->n.cq, c, 0, SZ,
					  &(uint32_t){ 0x0dd0ba11 }, 4, 1,
					  &gate, &cf), 0);
	assert_int_equal(accel_fence_export_sync_file(cf, &sf), 0);
	assert_int_equal(accel_fence_import_sync_file(env->n.ctx, sf, &in), 0);
	close(sf);
	test_log_reset(&env->n.log);
	assert_int_equal(accel_queue_fill(env->n.q, dst, 0, SZ,
					  &(uint32_t){ 0xca11ab1e }, 4, 1, &in,
					  &f), 0);
	expect_in_kernel(f);
	assert_true(test_log_contains(&env->n.log, HANDED));
	assert_int_equal(accel_fence_wait(f, 200 * MS), -ETIME);

	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(accel_fence_wait(f, 30000 * MS), 0);
	/* The job ran once the CPU work had ended. */
	assert_int_equal(accel_fence_get_status(cf), 1);
	accel_fence_unref(f);
	expect_u32(env->n.q, dst, 0, SZ, 0xca11ab1e);
	expect_u32(env->n.cq, c, 0, SZ, 0x0dd0ba11);
	accel_fence_unref(cf);
	accel_fence_unref(in);
	accel_fence_unref(gate);
	accel_buffer_unref(c);
	accel_buffer_unref(dst);
}

/*
 * Failures: an in-fence that does not signal leaves the job pending (a
 * wait times out) until it does; a command that fails before or instead
 * of its submit closes the in-fences it carried.
 */
static void test_errors(void **state)
{
	struct env *env = *state;
	struct accel_buffer *a = buf_new(env->n.acc, SZ);
	struct accel_buffer *b = buf_new(env->n.acc, SZ);
	struct accel_program *prog = NULL;
	struct accel_kernel *copy = NULL;
	struct accel_ndrange r = { .struct_size = sizeof(r), .work_dim = 1 };
	struct accel_fence *in, *user = NULL, *f = NULL, *w[2];
	uint32_t vfence;
	int base;

	fill_u32(env->n.q, a, 0, SZ, 0x12345678);
	base = settle(env);
	in = producer(env, &vfence);

	/* Not signalled: the job waits in the kernel, the caller times out. */
	assert_int_equal(accel_queue_copy(env->n.q, a, 0, b, 0, SZ, 1, &in, &f),
			 0);
	assert_int_equal(accel_fence_wait(f, 500 * MS), -ETIME);
	expect_in_kernel(f);
	assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
	wait_ok(f);
	expect_u32(env->n.q, b, 0, SZ, 0x12345678);
	accel_fence_unref(in);

	/* A failed wait-list fence fails the command; its in-fence closes. */
	in = producer(env, &vfence);
	assert_int_equal(accel_fence_new_user(env->n.ctx, &user), 0);
	w[0] = user;
	w[1] = in;
	assert_int_equal(accel_queue_copy(env->ooo, a, 0, b, 0, SZ, 2, w, &f),
			 0);
	assert_int_equal(accel_fence_signal(user, -EIO), 0);
	assert_int_equal(accel_fence_wait(f, 5000 * MS), -EIO);
	accel_fence_unref(f);
	accel_fence_unref(user);

	/* A launch the engine refuses (past the end) with an in-fence. */
	assert_int_equal(accel_program_new_built_in(env->n.acc, "copy_u8",
						    &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "copy_u8", &copy), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(copy, 0, b), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(copy, 1, a), 0);
	r.global_offset[0] = 1;
	r.global_size[0] = SZ;
	assert_int_equal(accel_queue_launch(env->ooo, copy, &r, 1, &in, &f), 0);
	assert_int_equal(accel_fence_wait(f, 5000 * MS), -EINVAL);
	accel_fence_unref(f);
	assert_int_equal(accel_fence_get_status(in), 0);

	assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
	assert_int_equal(accel_fence_wait(in, 5000 * MS), 0);
	accel_fence_unref(in);
	expect_fds(base);
	accel_kernel_unref(copy);
	accel_program_unref(prog);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

/* A host transfer's in-fence is waited for by the engine thread. */
static void test_host_transfer(void **state)
{
	struct env *env = *state;
	struct accel_buffer *a = buf_new(env->n.acc, SZ);
	struct accel_fence *in, *f = NULL;
	uint32_t vfence, words[4] = { 5, 6, 7, 8 }, got[4];

	in = producer(env, &vfence);
	test_log_reset(&env->n.log);
	assert_int_equal(accel_queue_write(env->ooo, a, 0, sizeof(words),
					   words, 1, &in, &f), 0);
	assert_true(test_log_contains(&env->n.log, HANDED));
	assert_int_equal(accel_fence_wait(f, 200 * MS), -ETIME);
	assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
	wait_ok(f);
	assert_int_equal(accel_queue_read(env->n.q, a, 0, sizeof(got), got, 0,
					  NULL, &f), 0);
	wait_ok(f);
	assert_memory_equal(got, words, sizeof(got));
	accel_fence_unref(in);
	accel_buffer_unref(a);
}

/*
 * Exports of fences that stand for a kernel fence are that fence: a
 * job's is refaccel's (twice the same), an imported one is the original
 * (it signalled at the same instant), not a vgem fence of ours.
 */
static void test_export_same_fence(void **state)
{
	struct env *env = *state;
	struct accel_buffer *a = buf_new(env->n.acc, SZ);
	struct accel_buffer *b = buf_new(env->n.acc, SZ);
	struct accel_sync_fence_info fi[3];
	struct accel_sync_file_info info;
	struct accel_fence *in, *f = NULL;
	uint32_t vfence;
	int orig, e1, e2, e3;

	assert_int_equal(peer_vgem_attach(env->card, env->vh, true, &vfence),
			 0);
	assert_int_equal(peer_export_sync_file(env->vfd, false, &orig), 0);
	assert_int_equal(accel_fence_import_sync_file(env->n.ctx, orig, &in),
			 0);
	assert_int_equal(accel_fence_export_sync_file(in, &e1), 0);
	assert_int_equal(accel_queue_copy(env->n.q, a, 0, b, 0, SZ, 1, &in, &f),
			 0);
	assert_int_equal(accel_fence_export_sync_file(f, &e2), 0);
	assert_int_equal(accel_fence_export_sync_file(f, &e3), 0);
	assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
	assert_int_equal(accel_fence_wait(f, 5000 * MS), 0);
	assert_int_equal(accel_sync_file_wait(e1, 5000 * MS), 0);
	assert_int_equal(accel_sync_file_wait(e2, 0), 0);

	assert_int_equal(accel_sync_file_get_info(orig, &info, &fi[0], 1), 1);
	assert_int_equal(accel_sync_file_get_info(e1, &info, &fi[1], 1), 1);
	assert_string_equal(fi[1].driver, fi[0].driver);
	assert_string_equal(fi[1].timeline, fi[0].timeline);
	assert_true(fi[0].timestamp_ns != 0);
	assert_true(fi[1].timestamp_ns == fi[0].timestamp_ns);

	assert_int_equal(accel_sync_file_get_info(e2, &info, &fi[1], 1), 1);
	assert_int_equal(accel_sync_file_get_info(e3, &info, &fi[2], 1), 1);
	assert_string_equal(fi[1].driver, "refaccel");
	assert_string_equal(fi[1].timeline, "engine");
	assert_int_equal(fi[1].status, 1);
	assert_true(fi[1].timestamp_ns == fi[2].timestamp_ns);

	/* Signalled since: a signalled sync_file of its own. */
	close(e3);
	assert_int_equal(accel_fence_export_sync_file(f, &e3), 0);
	assert_int_equal(accel_sync_file_wait(e3, 0), 0);
	close(e3);
	close(e2);
	close(e1);
	close(orig);
	accel_fence_unref(f);
	accel_fence_unref(in);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

/* 1,000 jobs gated by in-fences, 100 in flight at a time: no fd leak. */
static void test_fd_leak(void **state)
{
	struct env *env = *state;
	struct accel_buffer *a = buf_new(env->n.acc, 4096);
	struct accel_buffer *b = buf_new(env->n.acc, 4096);
	struct accel_fence *in, *f[100];
	uint32_t vfence;
	int base, round, i;

	fill_u32(env->n.q, a, 0, 4096, 0xfeedface);
	base = settle(env);
	for (round = 0; round < 10; round++) {
		in = producer(env, &vfence);
		for (i = 0; i < 100; i++)
			assert_int_equal(accel_queue_copy(env->ooo, a, 0, b, 0,
							  4096, 1, &in, &f[i]),
					 0);
		expect_in_kernel(f[99]);
		assert_int_equal(peer_vgem_signal(env->card, vfence), 0);
		for (i = 0; i < 100; i++)
			wait_ok(f[i]);
		assert_int_equal(accel_fence_wait(in, 5000 * MS), 0);
		accel_fence_unref(in);
	}
	expect_fds(base);
	expect_u32(env->n.q, b, 0, 4096, 0xfeedface);
	accel_buffer_unref(a);
	accel_buffer_unref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_job_waits_in_kernel, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cpu_producer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_transfer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_export_same_fence, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fd_leak, setup, teardown),
	};
	int card;

	if (!have_refaccel()) {
		printf("SKIP: no refaccel device (not in the VM tier)\n");
		return TEST_EXIT_SKIP;
	}
	if (peer_vgem_open(&card) < 0) {
		printf("SKIP: no vgem to produce kernel fences\n");
		return TEST_EXIT_SKIP;
	}
	close(card);
	return TEST_RUN_GROUP("accel-infence", tests);
}
