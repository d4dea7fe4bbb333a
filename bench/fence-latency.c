/* SPDX-License-Identifier: MIT */
/*
 * fence-latency: how long kernel fences take to cross libaccel.
 *
 * One sample: a vgem "GPU job" (a vgem fence) is handed to libaccel as a
 * sync_file, an empty kernel is queued behind it on a profiling queue of
 * the CPU device, and the kernel's fence is exported as a sync_file. With
 * everything queued and idle, the job is signalled (VGEM_FENCE_SIGNAL) and
 * the exported sync_file is polled until it signals. Columns:
 *
 *   signal->start   producer signal to the kernel's STARTED time (the
 *                   sync_file poller thread wakes, signals the imported
 *                   fence, the command is handed to a worker)
 *   end->sync_file  the kernel's ENDED time to the exported vgem fence's
 *                   own signal time (SYNC_IOC_FILE_INFO timestamp)
 *   end->consumer   ENDED to the consumer's poll() returning
 *   total           producer signal to the consumer waking
 *   kernel only     producer signal to a poll() on the producer's own
 *                   sync_file returning: the floor (no libaccel at all)
 *
 * Needs vgem: tests/kernel/vm-run.sh -- build/bench/fence-latency [-n N]
 * (TCG makes absolute numbers several times slower than real hardware;
 * compare columns with "kernel only"). Exit status 77 without vgem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include <libaccel/libaccel.h>

#include "bench-util.h"

#define EXIT_SKIP 77

enum col { C_START, C_SYNC, C_CONSUMER, C_TOTAL, C_FLOOR, N_COLS };

static const char *const col_names[N_COLS] = {
	"signal->start", "end->sync_file", "end->consumer", "total",
	"kernel only",
};

/* vgem's job fences (include/uapi/drm/vgem_drm.h). */
struct job_attach {
	uint32_t handle, flags, out_fence, pad;
};
struct job_signal {
	uint32_t fence, flags;
};
#define JOB_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 1, struct job_attach)
#define JOB_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 2, struct job_signal)

struct gpu {
	int card, dmabuf;
	uint32_t bo;
};

static int gpu_open(struct gpu *g)
{
	struct drm_mode_create_dumb dumb = { .width = 1024, .height = 1,
					     .bpp = 32 };

	g->card = drmOpenWithType("vgem", NULL, DRM_NODE_PRIMARY);
	if (g->card < 0)
		return -ENODEV;
	if (drmIoctl(g->card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb) ||
	    drmPrimeHandleToFD(g->card, dumb.handle, DRM_CLOEXEC, &g->dmabuf))
		return -errno;
	g->bo = dumb.handle;
	return 0;
}

/* A job in flight: its fence id and its sync_file. */
static int gpu_job(struct gpu *g, uint32_t *ret_job, int *ret_fd)
{
	struct job_attach a = { .handle = g->bo, .flags = 1 };
	struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_READ,
					      .fd = -1 };

	if (drmIoctl(g->card, JOB_ATTACH, &a) ||
	    drmIoctl(g->dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e))
		return -errno;
	*ret_job = a.out_fence;
	*ret_fd = e.fd;
	return 0;
}

static int gpu_signal(struct gpu *g, uint32_t job)
{
	struct job_signal s = { .fence = job };

	return drmIoctl(g->card, JOB_SIGNAL, &s) ? -errno : 0;
}

static uint64_t poll_wake(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, 20000) < 0 && errno == EINTR)
		;
	return bench_now_ns();
}

static void noop_wg(void **args, const struct accel_wg_ctx *c)
{
	(void)args;
	(void)c;
}

static const struct accel_native_kernel_desc noop_desc = {
	.struct_size = sizeof(noop_desc),
	.name = "noop",
	.fn = noop_wg,
};

struct bench {
	struct gpu gpu;
	struct accel_context *ctx;
	struct accel_queue *queue;
	struct accel_kernel *kernel;
};

static int bench_setup(struct bench *b)
{
	struct accel_device *cpu = NULL;
	struct accel_program *prog = NULL;
	uint64_t caps = 0;
	int r;

	r = accel_context_new(0, &b->ctx);
	if (r == 0)
		r = bench_find_cpu_device(b->ctx, &cpu);
	if (r < 0)
		return r;
	accel_device_query_u64(cpu, ACCEL_DEVICE_U64_CAPS, &caps);
	if (!(caps & ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT)) {
		accel_device_unref(cpu);
		return -EOPNOTSUPP;
	}
	r = accel_queue_new(cpu, ACCEL_QUEUE_PROFILING, &b->queue);
	if (r == 0)
		r = accel_program_new_native(cpu, &noop_desc, 1, &prog);
	if (r == 0)
		r = accel_kernel_new(prog, "noop", &b->kernel);
	accel_program_unref(prog);
	accel_device_unref(cpu);
	return r;
}

/* One sample through libaccel; fills t[C_START..C_TOTAL]. */
static int sample(struct bench *b, uint64_t t[N_COLS])
{
	struct accel_ndrange range = { .struct_size = sizeof(range),
				       .work_dim = 1, .global_size = { 1 } };
	struct accel_fence *in = NULL, *out = NULL;
	struct accel_sync_fence_info fi;
	struct accel_sync_file_info info;
	uint64_t t0, wake, started, ended;
	int in_fd = -1, out_fd = -1, r;
	uint32_t job = 0;

	r = gpu_job(&b->gpu, &job, &in_fd);
	if (r < 0)
		return r;
	r = accel_fence_import_sync_file(b->ctx, in_fd, &in);
	close(in_fd);
	if (r == 0)
		r = accel_queue_launch(b->queue, b->kernel, &range, 1, &in,
				       &out);
	if (r == 0)
		r = accel_fence_export_sync_file(out, &out_fd);
	if (r < 0) {
		gpu_signal(&b->gpu, job);
		goto out;
	}
	/* Let every thread involved go idle, as in a real pipeline. */
	usleep(2000);
	t0 = bench_now_ns();
	r = gpu_signal(&b->gpu, job);
	if (r < 0)
		goto out;
	wake = poll_wake(out_fd);
	if (accel_fence_get_time(out, ACCEL_FENCE_TIME_STARTED, &started) ||
	    accel_fence_get_time(out, ACCEL_FENCE_TIME_ENDED, &ended) ||
	    accel_sync_file_get_info(out_fd, &info, &fi, 1) != 1 ||
	    fi.status != 1) {
		r = -EIO;
		goto out;
	}
	t[C_START] = started - t0;
	t[C_SYNC] = fi.timestamp_ns > ended ? fi.timestamp_ns - ended : 0;
	t[C_CONSUMER] = wake - ended;
	t[C_TOTAL] = wake - t0;
out:
	if (out_fd >= 0)
		close(out_fd);
	accel_fence_unref(in);
	accel_fence_unref(out);
	return r;
}

/* The same wake-up with no libaccel in the way. */
static int floor_sample(struct gpu *g, uint64_t *ret)
{
	uint64_t t0;
	uint32_t job = 0;
	int fd = -1, r;

	r = gpu_job(g, &job, &fd);
	if (r < 0)
		return r;
	usleep(2000);
	t0 = bench_now_ns();
	r = gpu_signal(g, job);
	if (r == 0)
		*ret = poll_wake(fd) - t0;
	close(fd);
	return r;
}

static double pct_us(uint64_t *v, unsigned n, double pct)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	return (double)v[(unsigned)(pct / 100.0 * (n - 1) + 0.5)] / 1000.0;
}

int main(int argc, char **argv)
{
	struct bench b = { .gpu = { .card = -1, .dmabuf = -1 } };
	unsigned n = 300, i, c;
	uint64_t *v[N_COLS], t[N_COLS];
	int opt, r;

	while ((opt = getopt(argc, argv, "n:h")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: %s [-n SAMPLES]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
		n = bench_parse_count("fence-latency", optarg, "samples",
				      100000);
	}
	r = gpu_open(&b.gpu);
	if (r == -ENODEV) {
		printf("fence-latency: SKIP: no vgem (run it in the kernel "
		       "test tier)\n");
		return EXIT_SKIP;
	}
	if (r == 0)
		r = bench_setup(&b);
	if (r == -EOPNOTSUPP) {
		printf("fence-latency: SKIP: no device exports fences here\n");
		return EXIT_SKIP;
	}
	if (r < 0) {
		fprintf(stderr, "fence-latency: setup: %s\n", strerror(-r));
		return 1;
	}
	for (c = 0; c < N_COLS; c++) {
		v[c] = calloc(n, sizeof(uint64_t));
		if (!v[c])
			return 1;
	}
	bench_print_machine("start");
	/* Warm-up: the poller thread, the exporter's buffers, the workers. */
	for (i = 0; i < 10 && r == 0; i++)
		r = sample(&b, t);
	for (i = 0; i < n && r == 0; i++) {
		r = sample(&b, t);
		if (r == 0)
			r = floor_sample(&b.gpu, &t[C_FLOOR]);
		for (c = 0; c < N_COLS; c++)
			v[c][i] = t[c];
	}
	if (r < 0) {
		fprintf(stderr, "fence-latency: sample %u: %s\n", i,
			strerror(-r));
		return 1;
	}
	printf("fence-latency: %u samples, microseconds\n", n);
	printf("%-16s %10s %10s %10s %10s\n", "", "min", "median", "p90",
	       "p99");
	for (c = 0; c < N_COLS; c++)
		printf("%-16s %10.1f %10.1f %10.1f %10.1f\n", col_names[c],
		       pct_us(v[c], n, 0), pct_us(v[c], n, 50),
		       pct_us(v[c], n, 90), pct_us(v[c], n, 99));
	bench_print_machine("end");
	for (c = 0; c < N_COLS; c++)
		free(v[c]);
	accel_kernel_unref(b.kernel);
	accel_queue_unref(b.queue);
	accel_context_unref(b.ctx);
	close(b.gpu.dmabuf);
	drmClose(b.gpu.card);
	return 0;
}
