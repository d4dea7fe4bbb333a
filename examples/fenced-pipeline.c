/* SPDX-License-Identifier: MIT */
/*
 * fenced-pipeline: three stages agree on *when* data is ready through
 * kernel fences (sync_files), with no CPU thread waiting in between.
 *
 *   producer  a "GPU job" still running: a vgem fence, handed over as a
 *             sync_file (what a real driver's out-fence looks like);
 *   libaccel  imports the sync_file as a fence and queues a kernel behind
 *             it, then exports the kernel's completion as a sync_file;
 *   consumer  an event loop that polls that sync_file (a display, an
 *             encoder or another process would do the same).
 *
 * The example checks the order: the kernel does not start before the
 * producer signals, the consumer's sync_file does not signal before the
 * kernel has ended, and the consumer then finds the result. It prints
 * what SYNC_IOC_FILE_INFO says about the exported fence.
 *
 * With --opencl the middle stage is OpenCL instead, through the
 * extensions an OpenCL program would use (fenced-pipeline-cl.c):
 * cl_khr_external_semaphore_sync_fd semaphores around a built-in kernel.
 *
 * Needs vgem (run it in the kernel test tier:
 *     tests/kernel/vm-run.sh -- build/examples/fenced-pipeline [--opencl]).
 * Exit status: 0 verified, 1 failure, 77 no vgem or no fence export here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include <libaccel/libaccel.h>

#include "fenced-pipeline.h"

#define N 4096

/* ---- producer: a job on vgem (include/uapi/drm/vgem_drm.h) -------------- */

struct vgem_attach_arg {
	uint32_t handle, flags, out_fence, pad;
};

struct vgem_signal_arg {
	uint32_t fence, flags;
};

#define VGEM_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 1, struct vgem_attach_arg)
#define VGEM_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 2, struct vgem_signal_arg)

/* Start a "job" that writes the producer's buffer; its out-fence fd. */
int producer_start(struct producer *p, int *ret_sync_fd)
{
	struct drm_mode_create_dumb dumb = { .width = 1024, .height = 1,
					     .bpp = 32 };
	struct vgem_attach_arg attach = { .flags = 1 /* write */ };
	struct dma_buf_export_sync_file out = { .flags = DMA_BUF_SYNC_READ };

	/* libdrm finds the node by driver name. */
	p->card = drmOpenWithType("vgem", NULL, DRM_NODE_PRIMARY);
	if (p->card < 0)
		return -ENODEV;
	if (drmIoctl(p->card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb) ||
	    drmPrimeHandleToFD(p->card, dumb.handle, DRM_CLOEXEC, &p->dmabuf))
		return -errno;
	p->bo = dumb.handle;
	attach.handle = p->bo;
	if (drmIoctl(p->card, VGEM_ATTACH, &attach))
		return -errno;
	p->job = attach.out_fence;
	/* Readers wait for the writer: READ gives the job's fence. */
	out.fd = -1;
	if (drmIoctl(p->dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &out))
		return -errno;
	*ret_sync_fd = out.fd;
	return 0;
}

int producer_finish(struct producer *p)
{
	struct vgem_signal_arg sig = { .fence = p->job };

	return drmIoctl(p->card, VGEM_SIGNAL, &sig) ? -errno : 0;
}

static void producer_close(struct producer *p)
{
	struct drm_gem_close gem_close = { .handle = p->bo };

	if (p->card < 0)
		return;
	if (p->dmabuf >= 0)
		close(p->dmabuf);
	if (p->bo)
		drmIoctl(p->card, DRM_IOCTL_GEM_CLOSE, &gem_close);
	drmClose(p->card);
}

/* ---- libaccel: square(global uint *v), 1-D ------------------------------ */

static void square_wg(void **args, const struct accel_wg_ctx *c)
{
	uint32_t *v = *(uint32_t *const *)args[0];
	uint64_t i = c->global_offset[0] +
		     c->group_id[0] * c->enqueued_local_size[0];
	uint64_t end = i + c->local_size[0];

	for (; i < end; i++)
		v[i] *= v[i];
}

static const struct accel_kernel_arg_desc square_arg = {
	.struct_size = sizeof(struct accel_kernel_arg_desc),
	.kind = ACCEL_KERNEL_ARG_BUFFER,
	.size = sizeof(void *),
	.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	.name = "v",
	.type_name = "uint*",
};

static const struct accel_native_kernel_desc square_desc = {
	.struct_size = sizeof(square_desc),
	.name = "square",
	.fn = square_wg,
	.n_args = 1,
	.args = &square_arg,
};

struct stage {
	struct accel_context *ctx;
	struct accel_device *cpu;
	struct accel_queue *queue;
	struct accel_kernel *kernel;
	struct accel_buffer *buf;
};

static int stage_new(struct stage *s)
{
	struct accel_device *devs[16];
	struct accel_program *prog = NULL;
	uint64_t type, caps = 0;
	int n, i, r;

	r = accel_context_new(0, &s->ctx);
	if (r < 0)
		return r;
	n = accel_context_get_devices(s->ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		if (accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU && !s->cpu)
			s->cpu = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!s->cpu)
		return -ENODEV;
	accel_device_query_u64(s->cpu, ACCEL_DEVICE_U64_CAPS, &caps);
	/* Asked up front, before any work is queued. */
	if (!(caps & ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT))
		return -EOPNOTSUPP;
	r = accel_queue_new(s->cpu, ACCEL_QUEUE_PROFILING, &s->queue);
	if (r == 0)
		r = accel_program_new_native(s->cpu, &square_desc, 1, &prog);
	if (r == 0)
		r = accel_kernel_new(prog, "square", &s->kernel);
	accel_program_unref(prog);
	if (r == 0)
		r = accel_buffer_new(s->cpu, N * sizeof(uint32_t), 0, &s->buf);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(s->kernel, 0, s->buf);
	return r;
}

static void stage_free(struct stage *s)
{
	if (s->queue)
		accel_queue_finish(s->queue);
	accel_buffer_unref(s->buf);
	accel_kernel_unref(s->kernel);
	accel_queue_unref(s->queue);
	accel_device_unref(s->cpu);
	accel_context_unref(s->ctx);
}

/* Import @in_fd, queue the kernel behind it, export its completion. */
static int stage_run(struct stage *s, int in_fd, struct accel_fence **ret,
		     int *ret_out_fd)
{
	struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 1,
		.global_size = { N },
	};
	struct accel_fence *in = NULL;
	uint32_t *v;
	int r, i;

	/* Fill the input (host-visible memory of the CPU device). */
	r = accel_buffer_map(s->buf, 0, N * sizeof(uint32_t), ACCEL_MAP_WRITE,
			     (void **)&v);
	if (r < 0)
		return r;
	for (i = 0; i < N; i++)
		v[i] = (uint32_t)i;
	accel_buffer_unmap(s->buf, v);

	r = accel_fence_import_sync_file(s->ctx, in_fd, &in);
	if (r < 0)
		return r;
	r = accel_queue_launch(s->queue, s->kernel, &range, 1, &in, ret);
	accel_fence_unref(in);
	if (r < 0)
		return r;
	return accel_fence_export_sync_file(*ret, ret_out_fd);
}

/* ---- consumer: an event loop's poll ------------------------------------ */

int consumer_poll(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r > 0 && (pfd.revents & POLLIN);
}

static int check_result(struct stage *s)
{
	uint32_t *v;
	int r, i, wrong = 0;

	r = accel_buffer_map(s->buf, 0, N * sizeof(uint32_t), ACCEL_MAP_READ,
			     (void **)&v);
	if (r < 0)
		return r;
	for (i = 0; i < N; i++)
		wrong += v[i] != (uint32_t)i * (uint32_t)i;
	accel_buffer_unmap(s->buf, v);
	return wrong ? -EIO : 0;
}

void print_info(int fd)
{
	struct accel_sync_fence_info f[4];
	struct accel_sync_file_info info;
	int n, i;

	n = accel_sync_file_get_info(fd, &info, f, 4);
	if (n < 0)
		return;
	printf("consumer: sync_file '%s', status %d, %d fence(s):\n",
	       info.name, info.status, n);
	for (i = 0; i < n && i < 4; i++)
		printf("  driver %s, timeline %s, status %d, signalled at %" PRIu64
		       " ns\n", f[i].driver, f[i].timeline, f[i].status,
		       f[i].timestamp_ns);
}

int fail(const char *what, int r)
{
	fprintf(stderr, "fenced-pipeline: %s: %s\n", what, strerror(-r));
	return 1;
}

int consumer_check_order(struct producer *prod, int out_fd,
			 bool (*ran)(void *data), void *data)
{
	int r;

	/* Nothing may move while the producer's job runs. */
	if (consumer_poll(out_fd, 200) != 0 || ran(data)) {
		fprintf(stderr, "fenced-pipeline: work ran before the "
			"producer signalled\n");
		return 1;
	}
	printf("consumer: nothing ready after 200 ms, as it should be\n");
	r = producer_finish(prod);
	if (r < 0)
		return fail("VGEM_FENCE_SIGNAL", r);
	printf("producer: job done (fence signalled)\n");
	r = consumer_poll(out_fd, 10000);
	if (r != 1)
		return fail("the exported sync_file never signalled",
			    r < 0 ? r : -ETIME);
	return 0;
}

static bool kernel_started(void *data)
{
	uint64_t t;

	return accel_fence_get_time(data, ACCEL_FENCE_TIME_STARTED, &t) !=
	       -EAGAIN;
}

/* The middle stage through libaccel's C API. */
static int pipeline_c(struct producer *prod, int in_fd)
{
	struct stage st = { 0 };
	struct accel_fence *done = NULL;
	uint64_t started, ended;
	int out_fd = -1, r, ret = 1;

	r = stage_new(&st);
	if (r == -EOPNOTSUPP) {
		printf("fenced-pipeline: SKIP: no device here exports fences\n");
		ret = EXIT_SKIP;
		goto out;
	}
	if (r < 0) {
		ret = fail("setting up libaccel", r);
		goto out;
	}
	r = stage_run(&st, in_fd, &done, &out_fd);
	if (r < 0) {
		ret = fail("queueing the kernel", r);
		goto out;
	}
	printf("libaccel: kernel queued behind it; completion exported as "
	       "sync_file fd %d\n", out_fd);

	ret = consumer_check_order(prod, out_fd, kernel_started, done);
	if (ret)
		goto out;
	ret = 1;
	/* The kernel ran after the producer and ended before the signal. */
	if (accel_fence_get_status(done) != 1 ||
	    accel_fence_get_time(done, ACCEL_FENCE_TIME_STARTED, &started) ||
	    accel_fence_get_time(done, ACCEL_FENCE_TIME_ENDED, &ended)) {
		fprintf(stderr, "fenced-pipeline: sync_file signalled before "
			"the kernel ended\n");
		goto out;
	}
	print_info(out_fd);
	r = check_result(&st);
	if (r < 0) {
		ret = fail("checking the result", r);
		goto out;
	}
	printf("consumer: %d results correct; kernel ran %" PRIu64 " us\n", N,
	       (ended - started) / 1000);
	ret = 0;
out:
	if (out_fd >= 0)
		close(out_fd);
	accel_fence_unref(done);
	stage_free(&st);
	return ret;
}

int main(int argc, char **argv)
{
	struct producer prod = { .card = -1, .dmabuf = -1 };
	bool opencl = argc > 1 && !strcmp(argv[1], "--opencl");
	int in_fd = -1, r, ret;

	if (argc > 2 || (argc == 2 && !opencl)) {
		fprintf(stderr, "usage: %s [--opencl]\n", argv[0]);
		return 2;
	}
	r = producer_start(&prod, &in_fd);
	if (r == -ENODEV) {
		printf("fenced-pipeline: SKIP: no vgem (run it in the kernel "
		       "test tier)\n");
		return EXIT_SKIP;
	}
	if (r < 0) {
		ret = fail("starting the producer's job", r);
	} else {
		printf("producer: job running, out-fence sync_file fd %d\n",
		       in_fd);
		/* The OpenCL stage takes the fd (sync_fd import). */
		ret = opencl ? pipeline_opencl(&prod, &in_fd) :
			       pipeline_c(&prod, in_fd);
	}
	/* A job left unsignalled would hold vgem's fence for 10 s. */
	if (ret != 0)
		producer_finish(&prod);
	if (in_fd >= 0)
		close(in_fd);
	producer_close(&prod);
	return ret;
}
