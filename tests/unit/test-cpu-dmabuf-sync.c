/* SPDX-License-Identifier: MIT */
/*
 * The CPU device brackets every command's CPU access to a dma-buf with
 * DMA_BUF_IOCTL_SYNC: start (right directions) before the first piece
 * runs, end after the last one and before the fence signals, failures
 * fail the command without leaving an access open.
 *
 * This host cannot make dma-bufs, so buffers get a memfd as their
 * "dma-buf" and the test is linked with -Wl,--wrap=accel_ioctl: the
 * wrapper plays the kernel for those fds (sync bookkeeping, injected
 * errors, sync_files from eventfds) and passes everything else on.
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
#include <time.h>
#include <unistd.h>

#include "test-common.h"

#include "accel-private.h"
#include "platform/platform.h"
#include "uapi/linux/dma-buf.h"
#include "uapi/linux/sync_file.h"

int __real_accel_ioctl(int fd, unsigned long request, void *arg);
int __wrap_accel_ioctl(int fd, unsigned long request, void *arg);

#define N_SLOTS 2
#define N_BUSY 8
#define RW (DMA_BUF_SYNC_READ | DMA_BUF_SYNC_WRITE)

/* What the fake kernel knows about one fake dma-buf. */
struct slot {
	int fd;                 /* -1: unused */
	unsigned started;       /* DMA_BUF_SYNC_READ/WRITE while open */
	unsigned last_start;    /* flags of the latest start */
	unsigned n_start, n_end;
	unsigned violations;    /* nested start, end without/unlike start */
	int fail_start, fail_end; /* errno to inject, once */
};

static struct {
	pthread_mutex_t lock;
	struct slot slots[N_SLOTS];
	/* Implicit sync: hand out unsignalled sync_files (eventfds). */
	bool busy;
	int busy_fds[N_BUSY];   /* dups, to signal them */
	unsigned n_busy;
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct slot *find_slot(int fd)
{
	unsigned i;

	for (i = 0; i < N_SLOTS; i++)
		if (fake.slots[i].fd == fd && fd >= 0)
			return &fake.slots[i];
	return NULL;
}

static bool is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

static int fake_sync(struct slot *s, const struct dma_buf_sync *sync)
{
	unsigned rw = (unsigned)(sync->flags & RW);
	int r;

	if (!(sync->flags & DMA_BUF_SYNC_END)) {
		if (s->fail_start) {
			r = -s->fail_start;
			s->fail_start = 0;
			return r;
		}
		if (s->started)
			s->violations++;
		s->started = rw;
		s->last_start = rw;
		s->n_start++;
		return 0;
	}
	if (s->started != rw)
		s->violations++;
	s->started = 0;
	s->n_end++;
	if (s->fail_end) {
		r = -s->fail_end;
		s->fail_end = 0;
		return r;
	}
	return 0;
}

static int fake_export_sync_file(struct dma_buf_export_sync_file *arg)
{
	int fd = eventfd(fake.busy ? 0 : 1, EFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fake.busy) {
		assert_true(fake.n_busy < N_BUSY);
		fake.busy_fds[fake.n_busy] = dup(fd);
		assert_true(fake.busy_fds[fake.n_busy] >= 0);
		fake.n_busy++;
	}
	arg->fd = fd;
	return 0;
}

int __wrap_accel_ioctl(int fd, unsigned long request, void *arg)
{
	struct slot *s;
	int r = -ENOTTY;

	pthread_mutex_lock(&fake.lock);
	s = find_slot(fd);
	if (s) {
		if (request == DMA_BUF_IOCTL_SYNC)
			r = fake_sync(s, arg);
		else if (request == DMA_BUF_IOCTL_EXPORT_SYNC_FILE)
			r = fake_export_sync_file(arg);
		pthread_mutex_unlock(&fake.lock);
		return r;
	}
	pthread_mutex_unlock(&fake.lock);

	/* Our sync_files: signalled once the eventfd is readable. */
	if (request == SYNC_IOC_FILE_INFO && is_eventfd(fd)) {
		struct sync_file_info *info = arg;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		info->status = poll(&pfd, 1, 0) > 0 ? 1 : 0;
		return 0;
	}
	return __real_accel_ioctl(fd, request, arg);
}

/* ---- helpers ------------------------------------------------------------- */

/* out[gid] = open accesses of slot 0 | slot 1 << 4, as the piece sees them. */
static void observe(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *out = *(uint32_t *const *)args[0];
	uint64_t base = c->global_offset[0] +
			c->group_id[0] * c->enqueued_local_size[0], i;
	uint32_t word;

	pthread_mutex_lock(&fake.lock);
	word = fake.slots[0].started | fake.slots[1].started << 4;
	pthread_mutex_unlock(&fake.lock);
	for (i = 0; i < c->local_size[0]; i++)
		out[base + i] = word;
}

static const struct accel_kernel_arg_desc observe_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL, .name = "out" },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .type_qualifiers = ACCEL_KERNEL_ARG_TYPE_CONST, .name = "in" },
};

static const struct accel_native_kernel_desc observe_desc = {
	.struct_size = sizeof(observe_desc),
	.name = "observe",
	.fn = observe,
	.n_args = 2,
	.args = observe_args,
};

#define N_ITEMS 256u

static struct accel_buffer *new_buf(struct test_env *env, uint32_t flags)
{
	struct accel_buffer *buf = NULL;

	assert_int_equal(accel_buffer_new(env->dev, N_ITEMS * 4, flags, &buf),
			 0);
	memset(buf->host_ptr, 0xaa, N_ITEMS * 4);
	return buf;
}

/* Give @buf a fake dma-buf watched by slot @i. */
static void attach(struct accel_buffer *buf, unsigned i)
{
	int fd = memfd_create("fake-dmabuf", MFD_CLOEXEC);

	assert_true(fd >= 0);
	pthread_mutex_lock(&fake.lock);
	memset(&fake.slots[i], 0, sizeof(fake.slots[i]));
	fake.slots[i].fd = fd;
	pthread_mutex_unlock(&fake.lock);
	/* As the core publishes an export: under the buffer's lock. */
	pthread_mutex_lock(&buf->lock);
	buf->dmabuf_fd = fd;
	pthread_mutex_unlock(&buf->lock);
}

/* Forget slot @i (the buffer's unref closes the fd). */
static void detach(unsigned i)
{
	pthread_mutex_lock(&fake.lock);
	fake.slots[i].fd = -1;
	pthread_mutex_unlock(&fake.lock);
}

static struct slot get_slot(unsigned i)
{
	struct slot s;

	pthread_mutex_lock(&fake.lock);
	s = fake.slots[i];
	pthread_mutex_unlock(&fake.lock);
	return s;
}

/* Every access opened was closed, by the rules. */
static void assert_balanced(unsigned i)
{
	struct slot s = get_slot(i);

	assert_int_equal(s.started, 0);
	assert_int_equal(s.n_start, s.n_end);
	assert_int_equal(s.violations, 0);
}

static int setup(void **state)
{
	unsigned i;

	for (i = 0; i < N_SLOTS; i++)
		fake.slots[i].fd = -1;
	fake.busy = false;
	fake.n_busy = 0;
	return test_env_setup(state);
}

static int teardown(void **state)
{
	unsigned i;

	for (i = 0; i < N_SLOTS; i++)
		detach(i);
	return test_env_teardown(state);
}

static struct accel_kernel *observe_kernel(struct test_env *env,
					   struct accel_program **prog,
					   struct accel_buffer *out,
					   struct accel_buffer *in)
{
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_program_new_native(env->dev, &observe_desc, 1,
						  prog),
			 0);
	assert_int_equal(accel_kernel_new(*prog, "observe", &k), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, in), 0);
	return k;
}

static int launch_wait(struct test_env *env, struct accel_kernel *k,
		       uint64_t n)
{
	struct accel_ndrange r = test_ndrange(1, n, 0, 0, 16, 0, 0);
	struct accel_fence *f = NULL;
	int ret;

	ret = accel_queue_launch(env->queue, k, &r, 0, NULL, &f);
	if (ret < 0)
		return ret;
	return test_wait_unref(f);
}

static void assert_all(const struct accel_buffer *buf, uint64_t first,
		       uint64_t n, uint32_t value)
{
	const uint32_t *p = (const uint32_t *)buf->host_ptr + first;
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i] != value)
			fail_msg("word %llu is %#x, expected %#x",
				 (unsigned long long)(first + i), p[i], value);
}

/* ---- tests -------------------------------------------------------------- */

static void test_launch(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0);
	struct accel_buffer *b = new_buf(env, ACCEL_BUFFER_READ_ONLY);
	struct accel_program *prog;
	struct accel_kernel *k = observe_kernel(env, &prog, a, b);

	attach(a, 0);
	attach(b, 1);
	assert_int_equal(launch_wait(env, k, N_ITEMS), 0);
	/* Every work-group ran inside both accesses. */
	assert_all(a, 0, N_ITEMS, RW | DMA_BUF_SYNC_READ << 4);
	assert_int_equal(get_slot(0).n_start, 1);
	assert_int_equal(get_slot(0).last_start, RW);
	assert_int_equal(get_slot(1).n_start, 1);
	assert_int_equal(get_slot(1).last_start, DMA_BUF_SYNC_READ);
	assert_balanced(0);
	assert_balanced(1);

	accel_kernel_unref(k);
	accel_program_unref(prog);
	detach(0);
	detach(1);
	accel_buffer_unref(b);
	accel_buffer_unref(a);
}

static void test_sub_buffer(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0), *sub = NULL;
	struct accel_buffer *b = new_buf(env, ACCEL_BUFFER_READ_ONLY);
	struct accel_program *prog;
	struct accel_kernel *k;

	/* Work-items 32..95 of the parent's words. */
	assert_int_equal(accel_buffer_new_sub(a, 128, 64 * 4, 0, &sub), 0);
	k = observe_kernel(env, &prog, sub, b);
	attach(a, 0);
	attach(b, 1);
	assert_int_equal(launch_wait(env, k, 64), 0);
	assert_all(a, 32, 64, RW | DMA_BUF_SYNC_READ << 4);
	assert_all(a, 0, 32, 0xaaaaaaaau);
	assert_all(a, 96, N_ITEMS - 96, 0xaaaaaaaau);
	assert_int_equal(get_slot(0).last_start, RW);
	assert_balanced(0);
	assert_balanced(1);

	accel_kernel_unref(k);
	accel_program_unref(prog);
	accel_buffer_unref(sub);
	detach(0);
	detach(1);
	accel_buffer_unref(b);
	accel_buffer_unref(a);
}

static void fill_wait(struct test_env *env, struct accel_buffer *buf,
		      uint64_t offset, uint64_t size, uint32_t pattern)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_fill(env->queue, buf, offset, size,
					  &pattern, sizeof(pattern), 0, NULL,
					  &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
}

static void copy_wait(struct test_env *env, struct accel_buffer *src,
		      uint64_t src_offset, struct accel_buffer *dst,
		      uint64_t dst_offset, uint64_t size)
{
	struct accel_fence *f = NULL;

	assert_int_equal(accel_queue_copy(env->queue, src, src_offset, dst,
					  dst_offset, size, 0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
}

/* Since @before starts, exactly one more, with @flags, and closed. */
static void assert_one_access(unsigned before, unsigned flags)
{
	assert_int_equal(get_slot(0).n_start, before + 1);
	assert_int_equal(get_slot(0).last_start, flags);
	assert_balanced(0);
}

static void test_transfers(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0), *c = new_buf(env, 0);
	uint8_t host[512];
	unsigned n = 0;

	attach(a, 0);
	memset(host, 0x11, sizeof(host));

	test_write(env, a, 0, sizeof(host), host);
	assert_one_access(n++, DMA_BUF_SYNC_WRITE);
	assert_int_equal(((uint8_t *)a->host_ptr)[100], 0x11);
	test_read(env, a, 0, sizeof(host), host);
	assert_one_access(n++, DMA_BUF_SYNC_READ);
	fill_wait(env, a, 0, 64, 0x01020304);
	assert_one_access(n++, DMA_BUF_SYNC_WRITE);
	/* Within one buffer: one access, both ways. */
	copy_wait(env, a, 0, a, 512, 256);
	assert_one_access(n++, RW);
	assert_all(a, 128, 16, 0x01020304);
	copy_wait(env, a, 0, c, 0, 256);
	assert_one_access(n++, DMA_BUF_SYNC_READ);
	copy_wait(env, c, 0, a, 0, 256);
	assert_one_access(n++, DMA_BUF_SYNC_WRITE);

	detach(0);
	accel_buffer_unref(c);
	accel_buffer_unref(a);
}

static void test_start_fails(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0);
	struct accel_buffer *b = new_buf(env, ACCEL_BUFFER_READ_ONLY);
	struct accel_program *prog;
	struct accel_kernel *k = observe_kernel(env, &prog, a, b);
	unsigned i;

	attach(a, 0);
	attach(b, 1);
	/* Whichever is started first, the other failing must close it. */
	for (i = 0; i < N_SLOTS; i++) {
		pthread_mutex_lock(&fake.lock);
		fake.slots[i].fail_start = EIO;
		pthread_mutex_unlock(&fake.lock);
		assert_int_equal(launch_wait(env, k, N_ITEMS), -EIO);
		/* No piece ran. */
		assert_all(a, 0, N_ITEMS, 0xaaaaaaaau);
		assert_balanced(0);
		assert_balanced(1);
		assert_int_equal(accel_queue_finish(env->queue), -EIO);
	}
	/* And the next command works. */
	assert_int_equal(launch_wait(env, k, N_ITEMS), 0);
	assert_all(a, 0, N_ITEMS, RW | DMA_BUF_SYNC_READ << 4);

	accel_kernel_unref(k);
	accel_program_unref(prog);
	detach(0);
	detach(1);
	accel_buffer_unref(b);
	accel_buffer_unref(a);
}

static void test_end_fails(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0);
	struct accel_fence *f = NULL;
	uint8_t host[64];

	attach(a, 0);
	pthread_mutex_lock(&fake.lock);
	fake.slots[0].fail_end = EPERM;
	pthread_mutex_unlock(&fake.lock);
	memset(host, 0x22, sizeof(host));
	assert_int_equal(accel_queue_write(env->queue, a, 0, sizeof(host), host,
					   0, NULL, &f),
			 0);
	assert_int_equal(test_wait_unref(f), -EPERM);
	/* The work itself was done; the failure is reported. */
	assert_int_equal(((uint8_t *)a->host_ptr)[63], 0x22);
	assert_balanced(0);
	assert_int_equal(accel_queue_finish(env->queue), -EPERM);

	detach(0);
	accel_buffer_unref(a);
}

/* Submission or execution refuses it with -EACCES. */
static void assert_refused(int submit, struct accel_fence **f)
{
	if (submit == 0)
		submit = test_wait_unref(*f);
	*f = NULL;
	assert_int_equal(submit, -EACCES);
}

static void test_readonly_mapping(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0), *c = new_buf(env, 0);
	struct accel_buffer *ro = new_buf(env, ACCEL_BUFFER_READ_ONLY);
	struct accel_program *prog;
	struct accel_kernel *k = observe_kernel(env, &prog, c, a);
	struct accel_fence *f = NULL;
	uint32_t pattern = 0;
	uint8_t host[64] = { 0 };
	int r;

	/* As an import through a read-only fd would leave them. */
	a->readonly_mapping = true;
	ro->readonly_mapping = true;

	r = accel_queue_write(env->queue, a, 0, 64, host, 0, NULL, &f);
	assert_refused(r, &f);
	r = accel_queue_fill(env->queue, a, 0, 64, &pattern, 4, 0, NULL, &f);
	assert_refused(r, &f);
	r = accel_queue_copy(env->queue, c, 0, a, 0, 64, 0, NULL, &f);
	assert_refused(r, &f);
	/* A kernel argument that may be written. */
	assert_int_equal(launch_wait(env, k, N_ITEMS), -EACCES);
	assert_all(c, 0, N_ITEMS, 0xaaaaaaaau);
	assert_all(a, 0, N_ITEMS, 0xaaaaaaaau);
	(void)accel_queue_finish(env->queue);

	/* Reading is fine, and so is a kernel that only reads. */
	test_read(env, a, 0, sizeof(host), host);
	assert_int_equal(host[5], 0xaa);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, ro), 0);
	assert_int_equal(launch_wait(env, k, N_ITEMS), 0);
	assert_all(c, 0, N_ITEMS, 0);

	accel_kernel_unref(k);
	accel_program_unref(prog);
	a->readonly_mapping = false;
	ro->readonly_mapping = false;
	accel_buffer_unref(ro);
	accel_buffer_unref(c);
	accel_buffer_unref(a);
}

/*
 * Implicit sync (the core's): a fence attached to the dma-buf holds the
 * kernel back until it signals; only then does the access start.
 */
static void test_implicit_wait(void **state)
{
	struct test_env *env = *state;
	struct accel_buffer *a = new_buf(env, 0);
	struct accel_buffer *b = new_buf(env, ACCEL_BUFFER_READ_ONLY);
	struct accel_program *prog;
	struct accel_kernel *k = observe_kernel(env, &prog, a, b);
	struct accel_ndrange r = test_ndrange(1, N_ITEMS, 0, 0, 16, 0, 0);
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	struct accel_fence *f = NULL;
	uint64_t one = 1;
	unsigned i, n_busy;

	attach(a, 0);
	attach(b, 1);
	pthread_mutex_lock(&fake.lock);
	fake.busy = true;
	pthread_mutex_unlock(&fake.lock);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL, &f), 0);
	pthread_mutex_lock(&fake.lock);
	fake.busy = false;
	pthread_mutex_unlock(&fake.lock);

	nanosleep(&ts, NULL);
	assert_int_equal(accel_fence_get_status(f), 0);
	assert_int_equal(get_slot(0).n_start, 0);
	assert_all(a, 0, N_ITEMS, 0xaaaaaaaau);

	pthread_mutex_lock(&fake.lock);
	n_busy = fake.n_busy;
	pthread_mutex_unlock(&fake.lock);
	assert_true(n_busy > 0);
	for (i = 0; i < n_busy; i++) {
		assert_int_equal(write(fake.busy_fds[i], &one, sizeof(one)),
				 sizeof(one));
		close(fake.busy_fds[i]);
	}
	assert_int_equal(test_wait_unref(f), 0);
	assert_all(a, 0, N_ITEMS, RW | DMA_BUF_SYNC_READ << 4);
	assert_balanced(0);
	assert_balanced(1);

	accel_kernel_unref(k);
	accel_program_unref(prog);
	detach(0);
	detach(1);
	accel_buffer_unref(b);
	accel_buffer_unref(a);
}

/* ---- the first export published while commands run ---------------------- */

struct submitter {
	struct test_env *env;
	struct accel_buffer *buf;
	unsigned n;
};

static void *submitter_main(void *data)
{
	struct submitter *s = data;
	uint8_t host[64];
	unsigned i;

	memset(host, 0x33, sizeof(host));
	for (i = 0; i < s->n; i++) {
		struct accel_fence *f = NULL;

		if (accel_queue_write(s->env->queue, s->buf, 0, sizeof(host),
				      host, 0, NULL, &f) < 0 ||
		    accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE) < 0) {
			accel_fence_unref(f);
			return (void *)1;
		}
		accel_fence_unref(f);
	}
	return NULL;
}

static void test_publish_race(void **state)
{
	struct test_env *env = *state;
	struct submitter s = { .env = env, .n = 300 };
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	pthread_t thread;
	void *ret;

	s.buf = new_buf(env, 0);
	assert_int_equal(pthread_create(&thread, NULL, submitter_main, &s), 0);
	nanosleep(&ts, NULL);
	attach(s.buf, 0);
	pthread_join(thread, &ret);
	assert_null(ret);
	/* Whatever saw the fd bracketed its access properly. */
	assert_balanced(0);

	detach(0);
	accel_buffer_unref(s.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_launch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sub_buffer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_transfers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_start_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_end_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_readonly_mapping, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_implicit_wait, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_publish_race, setup,
						teardown),
	};

	return TEST_RUN_GROUP("cpu-dmabuf-sync", tests) ? 1 : 0;
}
