/* SPDX-License-Identifier: MIT */
/*
 * Fences and sync_files against real kernel fences made by vgem (the VM
 * tier; on a host without vgem the binary exits 77): imported fences
 * gate kernels, exported fences signal when the work ends, merge and info
 * report what the kernel holds, bad input gives clean errors, nothing
 * leaks over many rounds, and fences signalled from other threads race
 * cleanly.
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

#include "test-common.h"
#include "peer.h"

#define MS 1000000ll

/* A producer: a vgem buffer whose write fences play a GPU's jobs. */
struct producer {
	int card;
	uint32_t handle;
	int dmabuf;
};

struct fixture {
	struct test_env *env;
	struct producer prod;
	int fds_at_setup;
};

static void producer_open(struct producer *p)
{
	uint64_t size;

	assert_int_equal(peer_vgem_open(&p->card), 0);
	assert_int_equal(peer_vgem_create(p->card, 4096, &p->handle, &size), 0);
	assert_int_equal(peer_vgem_export(p->card, p->handle, true, &p->dmabuf),
			 0);
}

static void producer_close(struct producer *p)
{
	close(p->dmabuf);
	peer_vgem_close(p->card, p->handle);
	close(p->card);
}

/* An unsignalled vgem fence as a sync_file; *ret_fence signals it. */
static int producer_fence(struct producer *p, uint32_t *ret_fence)
{
	int fd = -1;

	assert_int_equal(peer_vgem_attach(p->card, p->handle, true, ret_fence),
			 0);
	assert_int_equal(peer_export_sync_file(p->dmabuf, false, &fd), 0);
	return fd;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	void *env = NULL;

	assert_non_null(f);
	f->fds_at_setup = test_count_fds();
	assert_int_equal(test_env_setup(&env), 0);
	f->env = env;
	producer_open(&f->prod);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	void *env = f->env;

	int i;

	producer_close(&f->prod);
	test_env_teardown(&env);
	/*
	 * The sync_file thread may hold the last context reference (an
	 * imported fence's) a moment after a waiter woke: let it close.
	 */
	for (i = 0; i < 200 && test_count_fds() > f->fds_at_setup; i++)
		usleep(10000);
	free(f);
	return 0;
}

static uint64_t caps_of(struct accel_device *dev)
{
	return test_dev_u64(dev, ACCEL_DEVICE_U64_CAPS);
}

/* ---- import: ordering ------------------------------------------------ */

static void test_import_gates_kernel(void **state)
{
	struct fixture *f = *state;
	struct test_env *env = f->env;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 64 * sizeof(uint32_t));
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange r = test_ndrange(1, 64, 1, 1, 16, 1, 1);
	struct accel_fence *in = NULL, *out = NULL;
	uint32_t fence, v = 7, data[64];
	uint64_t t;
	int sync, i;

	memset(data, 0, sizeof(data));
	test_write(env, buf, 0, sizeof(data), data);
	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_PROFILING, &q),
			 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(v), &v), 0);

	sync = producer_fence(&f->prod, &fence);
	assert_int_equal(accel_fence_import_sync_file(env->ctx, sync, &in), 0);
	/* Borrowed: ours to close at once. */
	close(sync);
	assert_int_equal(accel_fence_get_status(in), 0);
	assert_int_equal(accel_queue_launch(q, k, &r, 1, &in, &out), 0);

	/* The producer has not signalled: the kernel must not start. */
	assert_int_equal(accel_fence_wait(out, 300 * MS), -ETIME);
	assert_int_equal(accel_fence_get_time(out, ACCEL_FENCE_TIME_STARTED,
					      &t), -EAGAIN);
	test_read(env, buf, 0, sizeof(data), data);
	for (i = 0; i < 64; i++)
		assert_int_equal(data[i], 0);

	assert_int_equal(peer_vgem_signal(f->prod.card, fence), 0);
	assert_int_equal(accel_fence_wait(out, 10000 * MS), 0);
	assert_int_equal(accel_fence_get_status(in), 1);
	test_read(env, buf, 0, sizeof(data), data);
	for (i = 0; i < 64; i++)
		assert_int_equal(data[i], 7);

	accel_fence_unref(in);
	accel_fence_unref(out);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_queue_unref(q);
}

/* ---- export ---------------------------------------------------------- */

static void test_export_caps(void **state)
{
	struct fixture *f = *state;
	struct accel_device *devs[16];
	int n, i;

	/* vgem is here, so every device of the context must say so. */
	n = accel_context_get_devices(f->env->ctx, devs, 16);
	assert_true(n >= 2);
	for (i = 0; i < n && i < 16; i++) {
		assert_true(caps_of(devs[i]) &
			    ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT);
		accel_device_unref(devs[i]);
	}
}

static void test_export_signals_at_end(void **state)
{
	struct fixture *f = *state;
	struct test_env *env = f->env;
	struct accel_fence *gate = test_user_fence(env), *out = NULL;
	struct accel_buffer *buf = test_buffer_new(env, 64 * sizeof(uint32_t));
	struct accel_kernel *k = test_kernel_new(env, "add_u32");
	struct accel_ndrange r = test_ndrange(1, 64, 1, 1, 16, 1, 1);
	struct accel_sync_file_info info;
	struct accel_sync_fence_info fi[2];
	uint32_t v = 3, data[64];
	int fd = -1;

	memset(data, 0, sizeof(data));
	test_write(env, buf, 0, sizeof(data), data);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(v), &v), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 1, &gate, &out),
			 0);
	assert_int_equal(accel_fence_export_sync_file(out, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);

	/* Work not done: the sync_file is active, one vgem fence. */
	assert_int_equal(accel_sync_file_wait(fd, 100 * MS), -ETIME);
	assert_int_equal(accel_sync_file_get_info(fd, &info, fi, 2), 1);
	assert_int_equal(info.status, 0);
	assert_int_equal(info.n_fences, 1);
	assert_string_equal(fi[0].driver, "vgem");
	assert_int_equal(fi[0].status, 0);
	assert_true(fi[0].timestamp_ns == 0);

	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(accel_sync_file_wait(fd, 5000 * MS), 0);
	/* It signalled because the kernel ended: the data is there. */
	assert_int_equal(accel_fence_get_status(out), 1);
	test_read(env, buf, 0, sizeof(data), data);
	assert_int_equal(data[0], 3);
	assert_int_equal(data[63], 3);
	assert_int_equal(accel_sync_file_get_info(fd, &info, fi, 2), 1);
	assert_int_equal(info.status, 1);
	assert_int_equal(fi[0].status, 1);
	assert_true(fi[0].timestamp_ns > 0);

	close(fd);
	accel_fence_unref(gate);
	accel_fence_unref(out);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
}

static void test_export_signalled_and_failed(void **state)
{
	struct fixture *f = *state;
	struct accel_fence *ok = test_user_fence(f->env);
	struct accel_fence *bad = test_user_fence(f->env);
	int fd = 1234;

	assert_int_equal(accel_fence_signal(ok, 0), 0);
	assert_int_equal(accel_fence_export_sync_file(ok, &fd), 0);
	assert_int_equal(accel_sync_file_wait(fd, 0), 0);
	close(fd);

	fd = 1234;
	assert_int_equal(accel_fence_signal(bad, -EIO), 0);
	assert_int_equal(accel_fence_export_sync_file(bad, &fd), -EIO);
	assert_int_equal(fd, 1234);

	assert_int_equal(accel_fence_export_sync_file(NULL, &fd), -EINVAL);
	assert_int_equal(accel_fence_export_sync_file(ok, NULL), -EINVAL);
	accel_fence_unref(ok);
	accel_fence_unref(bad);
}

/* Export, re-import: a round trip through the kernel. */
static void test_export_reimport(void **state)
{
	struct fixture *f = *state;
	struct accel_fence *a = test_user_fence(f->env), *b = NULL;
	int fd;

	assert_int_equal(accel_fence_export_sync_file(a, &fd), 0);
	assert_int_equal(accel_fence_import_sync_file(f->env->ctx, fd, &b), 0);
	close(fd);
	assert_int_equal(accel_fence_wait(b, 50 * MS), -ETIME);
	assert_int_equal(accel_fence_signal(a, 0), 0);
	assert_int_equal(accel_fence_wait(b, 5000 * MS), 0);
	accel_fence_unref(a);
	accel_fence_unref(b);
}

/*
 * vgem's 10 s guard: an export that outlives it signals early (the
 * documented limit); the late signal is then harmless and the exporter
 * keeps working.
 */
static void test_export_past_vgem_timeout(void **state)
{
	struct fixture *f = *state;
	struct accel_fence *a = test_user_fence(f->env);
	struct accel_fence *b = test_user_fence(f->env);
	int fd, fd2;

	assert_int_equal(accel_fence_export_sync_file(a, &fd), 0);
	assert_int_equal(accel_sync_file_wait(fd, 9000 * MS), -ETIME);
	assert_int_equal(accel_sync_file_wait(fd, 5000 * MS), 0);
	assert_int_equal(accel_fence_get_status(a), 0);
	assert_int_equal(accel_fence_signal(a, 0), 0);
	assert_true(test_log_contains(&f->env->log, "10 s"));

	assert_int_equal(accel_fence_export_sync_file(b, &fd2), 0);
	assert_int_equal(accel_sync_file_wait(fd2, 50 * MS), -ETIME);
	assert_int_equal(accel_fence_signal(b, 0), 0);
	assert_int_equal(accel_sync_file_wait(fd2, 5000 * MS), 0);
	close(fd);
	close(fd2);
	accel_fence_unref(a);
	accel_fence_unref(b);
}

/* ---- merge, info, deadline ------------------------------------------- */

static void test_merge_info(void **state)
{
	struct fixture *f = *state;
	struct accel_fence *a = test_user_fence(f->env);
	struct accel_fence *b = test_user_fence(f->env);
	struct accel_sync_file_info info;
	struct accel_sync_fence_info fi[4];
	uint32_t pf;
	int fa, fb, fp, m1, m2, r;

	assert_int_equal(accel_fence_export_sync_file(a, &fa), 0);
	assert_int_equal(accel_fence_export_sync_file(b, &fb), 0);
	fp = producer_fence(&f->prod, &pf);
	assert_int_equal(accel_sync_file_merge("ab", fa, fb, &m1), 0);
	assert_int_equal(accel_sync_file_merge(NULL, m1, fp, &m2), 0);

	assert_int_equal(accel_sync_file_get_info(m2, &info, NULL, 0), 3);
	assert_string_equal(info.name, "libaccel");
	assert_int_equal(info.n_fences, 3);
	assert_int_equal(info.status, 0);
	/* Fewer slots than fences: the count still says 3. */
	assert_int_equal(accel_sync_file_get_info(m1, &info, fi, 1), 2);
	assert_string_equal(info.name, "ab");
	assert_string_equal(fi[0].driver, "vgem");

	/* Each part signals on its own; the merge only with all. */
	assert_int_equal(accel_fence_signal(a, 0), 0);
	assert_int_equal(accel_sync_file_wait(fa, 5000 * MS), 0);
	assert_int_equal(accel_sync_file_wait(m1, 50 * MS), -ETIME);
	assert_int_equal(accel_fence_signal(b, 0), 0);
	assert_int_equal(accel_sync_file_wait(m1, 5000 * MS), 0);
	assert_int_equal(accel_sync_file_wait(m2, 50 * MS), -ETIME);
	assert_int_equal(accel_sync_file_get_info(m2, &info, fi, 4), 3);
	assert_int_equal(info.status, 0);
	assert_int_equal(fi[0].status + fi[1].status + fi[2].status, 2);

	/* A hint, on an active fence; older kernels have none. */
	r = accel_sync_file_set_deadline(m2, 0);
	assert_true(r == 0 || r == -EOPNOTSUPP);

	assert_int_equal(peer_vgem_signal(f->prod.card, pf), 0);
	assert_int_equal(accel_sync_file_wait(m2, 5000 * MS), 0);
	assert_int_equal(accel_sync_file_get_info(m2, &info, fi, 4), 3);
	assert_int_equal(info.status, 1);
	assert_int_equal(fi[0].status + fi[1].status + fi[2].status, 3);

	close(fa);
	close(fb);
	close(fp);
	close(m1);
	close(m2);
	accel_fence_unref(a);
	accel_fence_unref(b);
}

/* ---- bad input -------------------------------------------------------- */

static int closed_fd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	close(fd);
	return fd;
}

static void test_bad_fds(void **state)
{
	struct fixture *f = *state;
	struct accel_sync_file_info info;
	struct accel_fence *fence = TEST_SENTINEL_PTR;
	int memfd = memfd_create("x", MFD_CLOEXEC);
	int ev = eventfd(0, EFD_CLOEXEC);
	int bad[] = { memfd, ev, f->prod.dmabuf, f->prod.card };
	int out = 4321, sync;
	uint32_t pf;
	size_t i;

	assert_true(memfd >= 0 && ev >= 0);
	sync = producer_fence(&f->prod, &pf);

	assert_int_equal(accel_fence_import_sync_file(f->env->ctx, -1, &fence),
			 -EBADF);
	assert_int_equal(accel_fence_import_sync_file(f->env->ctx, closed_fd(),
						      &fence), -EBADF);
	assert_int_equal(accel_sync_file_wait(closed_fd(), 0), -EBADF);
	assert_int_equal(accel_sync_file_get_info(-1, &info, NULL, 0), -EBADF);
	assert_int_equal(accel_sync_file_set_deadline(closed_fd(), 1), -EBADF);
	assert_int_equal(accel_sync_file_merge("x", sync, closed_fd(), &out),
			 -EBADF);
	for (i = 0; i < TEST_ARRAY_SIZE(bad); i++) {
		assert_int_equal(accel_fence_import_sync_file(f->env->ctx,
							      bad[i], &fence),
				 -EINVAL);
		assert_int_equal(accel_sync_file_wait(bad[i], 0), -EINVAL);
		assert_int_equal(accel_sync_file_get_info(bad[i], &info, NULL,
							  0), -EINVAL);
		assert_int_equal(accel_sync_file_set_deadline(bad[i], 1),
				 -EINVAL);
		assert_int_equal(accel_sync_file_merge("x", sync, bad[i], &out),
				 -EINVAL);
		assert_int_equal(accel_sync_file_merge("x", bad[i], sync, &out),
				 -EINVAL);
	}
	assert_ptr_equal(fence, TEST_SENTINEL_PTR);
	assert_int_equal(out, 4321);
	assert_int_equal(accel_sync_file_wait(sync, -1), -EINVAL);
	assert_int_equal(accel_sync_file_get_info(sync, NULL, NULL, 0),
			 -EINVAL);
	assert_int_equal(accel_sync_file_get_info(sync, &info, NULL, 1),
			 -EINVAL);
	assert_int_equal(accel_sync_file_merge("x", sync, sync, NULL), -EINVAL);

	/* Timeouts on an active fence, then it signals. */
	assert_int_equal(accel_sync_file_wait(sync, 0), -ETIME);
	assert_int_equal(accel_sync_file_wait(sync, 30 * MS), -ETIME);
	assert_int_equal(peer_vgem_signal(f->prod.card, pf), 0);
	assert_int_equal(accel_sync_file_wait(sync, ACCEL_TIMEOUT_INFINITE), 0);
	/* A signalled one imports as a signalled fence. */
	assert_int_equal(accel_fence_import_sync_file(f->env->ctx, sync,
						      &fence), 0);
	assert_int_equal(accel_fence_get_status(fence), 1);
	accel_fence_unref(fence);

	close(sync);
	close(memfd);
	close(ev);
}

/* ---- leaks ------------------------------------------------------------ */

#define CYCLES 10000

/* Export, merge with a producer fence, import, signal all. */
static void cycles(struct fixture *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct accel_fence *a = test_user_fence(f->env), *b = NULL;
		uint32_t pf;
		int fd, sync, m;

		assert_int_equal(accel_fence_export_sync_file(a, &fd), 0);
		sync = producer_fence(&f->prod, &pf);
		assert_int_equal(accel_sync_file_merge("m", fd, sync, &m), 0);
		assert_int_equal(accel_fence_import_sync_file(f->env->ctx, m,
							      &b), 0);
		close(m);
		close(sync);
		assert_int_equal(accel_fence_signal(a, 0), 0);
		assert_int_equal(peer_vgem_signal(f->prod.card, pf), 0);
		assert_int_equal(accel_fence_wait(b, 5000 * MS), 0);
		assert_int_equal(accel_sync_file_wait(fd, 0), 0);
		close(fd);
		accel_fence_unref(a);
		accel_fence_unref(b);
	}
}

static void test_no_fd_leak(void **state)
{
	struct fixture *f = *state;
	int before;

	/*
	 * The first rounds open what lives as long as the context: the
	 * sync_file poller's epoll and eventfd, the exporter's idle buffers.
	 */
	cycles(f, 16);
	before = test_count_fds();
	cycles(f, CYCLES);
	/*
	 * The poller thread closes its duplicate of an imported sync_file
	 * before it signals the fence, so none is left when wait() returns
	 * (nor, in the warm-up, when "before" is counted). What other
	 * threads drop just after a signal gets a moment, not more (10 s:
	 * an emulated guest beside other work has seen 2 s go by first).
	 */
	for (int ms = 0; ms < 10000 && test_count_fds() != before; ms += 10)
		usleep(10 * 1000);
	assert_int_equal(test_count_fds(), before);
}

/* ---- threads ---------------------------------------------------------- */

#define N_FENCES 64

/* Signals user fences, or producers' vgem fences, last first. */
struct signaller {
	struct accel_fence **fences;
	struct producer *prods;
	uint32_t *vgem;
};

static void *signal_main(void *data)
{
	struct signaller *s = data;
	int i;

	for (i = N_FENCES - 1; i >= 0; i--) {
		if (s->fences)
			assert_int_equal(accel_fence_signal(s->fences[i], 0),
					 0);
		else
			assert_int_equal(peer_vgem_signal(s->prods[i].card,
							  s->vgem[i]), 0);
		if (!(i & 7))
			usleep(1000);
	}
	return NULL;
}

/* Exported fences signalled from another thread, waited on here. */
static void test_threads_export(void **state)
{
	struct fixture *f = *state;
	struct accel_fence *fences[N_FENCES];
	struct signaller s = { .fences = fences };
	int fds[N_FENCES], i;
	pthread_t t;

	for (i = 0; i < N_FENCES; i++) {
		fences[i] = test_user_fence(f->env);
		assert_int_equal(
			accel_fence_export_sync_file(fences[i], &fds[i]), 0);
	}
	assert_int_equal(pthread_create(&t, NULL, signal_main, &s), 0);
	for (i = 0; i < N_FENCES; i++) {
		assert_int_equal(accel_sync_file_wait(fds[i], 10000 * MS), 0);
		close(fds[i]);
	}
	pthread_join(t, NULL);
	for (i = 0; i < N_FENCES; i++)
		accel_fence_unref(fences[i]);
}

/* Kernels gated by producer fences that another thread signals. */
static void test_threads_import(void **state)
{
	struct fixture *f = *state;
	struct test_env *env = f->env;
	struct accel_queue *q = NULL;
	struct accel_buffer *buf = test_buffer_new(env, N_FENCES * 4);
	struct accel_kernel *k = test_kernel_new(env, "inc_slot");
	struct accel_fence *in[N_FENCES], *out[N_FENCES];
	struct accel_ndrange r = test_ndrange(1, 1, 1, 1, 1, 1, 1);
	struct producer prods[N_FENCES];
	uint32_t vgem[N_FENCES], data[N_FENCES];
	struct signaller s = { .prods = prods, .vgem = vgem };
	pthread_t t;
	int i;

	memset(data, 0, sizeof(data));
	test_write(env, buf, 0, sizeof(data), data);
	assert_int_equal(accel_queue_new(env->dev, ACCEL_QUEUE_OUT_OF_ORDER,
					 &q), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	for (i = 0; i < N_FENCES; i++) {
		uint32_t slot = (uint32_t)i;
		int sync;

		/* One buffer each: a vgem write fence waits for the last. */
		producer_open(&prods[i]);
		sync = producer_fence(&prods[i], &vgem[i]);
		assert_int_equal(accel_fence_import_sync_file(env->ctx, sync,
							      &in[i]), 0);
		close(sync);
		assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(slot),
							    &slot), 0);
		assert_int_equal(accel_queue_launch(q, k, &r, 1, &in[i],
						    &out[i]), 0);
	}
	/* vgem fence ids are per file: each through its producer. */
	assert_int_equal(pthread_create(&t, NULL, signal_main, &s), 0);
	for (i = 0; i < N_FENCES; i++) {
		assert_int_equal(accel_fence_wait(out[i], 10000 * MS), 0);
		accel_fence_unref(in[i]);
		accel_fence_unref(out[i]);
	}
	pthread_join(t, NULL);
	for (i = 0; i < N_FENCES; i++)
		producer_close(&prods[i]);
	test_read(env, buf, 0, sizeof(data), data);
	for (i = 0; i < N_FENCES; i++)
		assert_int_equal(data[i], 1);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_queue_unref(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_import_gates_kernel, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_export_caps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_export_signals_at_end,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_signalled_and_failed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_reimport, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_export_past_vgem_timeout,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_info, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_fd_leak, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_threads_export, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_threads_import, setup,
						teardown),
	};
	int card;

	if (peer_vgem_open(&card) < 0) {
		fprintf(stderr, "no vgem here (the kernel test tier has "
			"it): skipped\n");
		return TEST_EXIT_SKIP;
	}
	close(card);
	return TEST_RUN_GROUP("fence-vgem", tests);
}
