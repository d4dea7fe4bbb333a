/* SPDX-License-Identifier: MIT */
/*
 * gpu-accel-rdma-pipeline: a GPU frame through an accelerator onto the
 * network, with kernel fences in between and no copy by the host.
 *
 *   1. the "GPU" (vgem, vgem-gpu.c) draws a frame and shares it as a
 *      dma-buf (PRIME);
 *   2. libaccel imports that dma-buf into the accelerator (refaccel behind
 *      /dev/accel/accel0), whose engine copies the frame into the
 *      accelerator's own output buffer: on QEMU's edu device with
 *      refaccel's edu_dma=1, the device's DMA engine moves every byte;
 *   3. libaccel-rdma registers that output buffer with the RDMA device,
 *      and the receiver's buffer (a CPU-device buffer) the same way: by
 *      dma-buf where the provider has dma-buf MRs, else by the buffer's
 *      host mapping; the path taken is printed. Soft-RoCE (rxe) has no
 *      dma-buf MRs, and the host mapping of the accelerator's own memory
 *      (a GEM object, mapped page frame by page frame) is one that
 *      ibv_reg_mr() cannot pin (EFAULT). There the output buffer is
 *      host memory the accelerator imports instead (a CPU-device buffer
 *      shared as a dma-buf), registered by its host mapping: the engine
 *      and the NIC still work on the same pages;
 *   4. the copy's out-fence, exported as a sync_file right after the
 *      submit, is waited for before the RDMA WRITE is posted: the NIC
 *      reads the output only once the engine has written all of it. The
 *      GPU then draws its next frame over the one the engine has read;
 *   5. QP a RDMA-WRITEs the output into the receive buffer over a
 *      loopback reliable connection (rdma-loopback.c), and the receiver
 *      checks every pixel against the frame the GPU drew.
 * The host never copies the payload: the GPU's pixels reach the receive
 * buffer through the engine and the NIC only.
 *
 * Usage: gpu-accel-rdma-pipeline [WIDTHxHEIGHT]   (default 512x256; 32-bit
 * pixels. On edu's DMA engine each 2 KiB costs about 200 ms of guest
 * time, so keep the frame small there, e.g. 128x64: 32 KiB.)
 * Needs vgem, refaccel and an RDMA device, which only the kernel test
 * tier has (kernel-refaccel-edu-dma, with rxe0):
 *     tests/kernel/vm-run.sh --device edu --memory 256M -- sh -c \
 *         'tests/kernel/refaccel/load.sh \
 *         build/tests/kernel/refaccel/refaccel.ko edu_dma=1 && \
 *         build/examples/gpu-accel-rdma-pipeline 128x64'
 * Exit status: 0 verified, 1 on failure, 77 without vgem, an accelerator
 * or an RDMA device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <libaccel/libaccel.h>
#include <libaccel/accel-rdma.h>

#include "find-device.h"
#include "rdma-loopback.h"
#include "vgem-gpu.h"

#define PROG "gpu-accel-rdma-pipeline"
#define EXIT_SKIP 77
#define SECOND 1000000000ll
/* Large enough for any GPU frame, small enough for the 256 MiB edu VM. */
#define MAX_FRAME_BYTES (64u << 20)

static int fail(const char *what, int r)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(-r));
	return 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * SECOND + ts.tv_nsec;
}

/* "WIDTHxHEIGHT": 0, or -EINVAL for anything else or an oversized frame. */
static int parse_size(const char *s, uint32_t *w, uint32_t *h)
{
	unsigned long long x, y;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end != 'x')
		return -EINVAL;
	s = end + 1;
	y = strtoull(s, &end, 10);
	if (errno || end == s || *end || !x || !y ||
	    x > MAX_FRAME_BYTES / 4 / y)
		return -EINVAL;
	*w = (uint32_t)x;
	*h = (uint32_t)y;
	return 0;
}

enum { OUT, RECV, N_MRS };

struct pipeline {
	struct accel_context *ctx;
	struct accel_device *acc, *cpu;
	struct accel_queue *aq;
	/* @out: what the engine writes; @host_out: its memory, if the CPU's */
	struct accel_buffer *frame, *out, *host_out, *recv;
	struct accel_rdma_mr *mr[N_MRS];
};

static void pipeline_free(struct pipeline *p)
{
	int k;

	/* MRs first: each holds a mapping and a reference of its buffer. */
	for (k = 0; k < N_MRS; k++)
		if (p->mr[k] && accel_rdma_mr_release(p->mr[k]) < 0)
			fprintf(stderr, PROG ": an MR stayed registered\n");
	accel_buffer_unref(p->recv);
	accel_buffer_unref(p->host_out);
	accel_buffer_unref(p->out);
	accel_buffer_unref(p->frame);
	accel_queue_unref(p->aq);
	accel_device_unref(p->cpu);
	accel_device_unref(p->acc);
	accel_context_unref(p->ctx);
}

/*
 * The output in host memory the accelerator imports: a CPU-device buffer
 * (a memfd, whose pages ibv_reg_mr() can pin) shared as a dma-buf.
 */
static int output_in_host_memory(struct pipeline *p, uint32_t bytes)
{
	int fd, r;

	p->out = accel_buffer_unref(p->out);
	r = accel_buffer_new(p->cpu, bytes, 0, &p->host_out);
	if (r == 0)
		r = accel_buffer_export_dmabuf(p->host_out, 0, &fd);
	if (r < 0)
		return r;
	r = accel_buffer_import_dmabuf(p->acc, fd, 0, &p->out);
	close(fd);
	return r;
}

/*
 * The frame imported into the accelerator, the output buffer and the
 * receive buffer, both registered with @pd (see step 3). The NIC only
 * reads the output (RDMA WRITE's source: local access); the receive
 * buffer is written by the peer's RDMA WRITE.
 */
static int pipeline_setup(struct pipeline *p, struct ibv_pd *pd,
			  const char *nic, int frame_fd, uint32_t bytes)
{
	int r;

	r = accel_queue_new(p->acc, 0, &p->aq);
	if (r == 0)
		r = accel_buffer_import_dmabuf(p->acc, frame_fd, 0, &p->frame);
	if (r == 0)
		r = accel_buffer_new(p->acc, bytes, 0, &p->out);
	if (r == 0)
		r = accel_buffer_new(p->cpu, bytes, 0, &p->recv);
	if (r < 0)
		return fail("libaccel buffers", r);

	r = accel_buffer_register_rdma(p->out, pd, 0, 0, &p->mr[OUT]);
	if (r == -EFAULT || r == -EOPNOTSUPP) {
		printf(PROG ": the accelerator's own buffer cannot be "
		       "registered with %s (%s): the engine writes into a "
		       "CPU-device buffer it imports instead\n", nic,
		       strerror(-r));
		r = output_in_host_memory(p, bytes);
		if (r < 0)
			return fail("output buffer in host memory", r);
		r = accel_buffer_register_rdma(p->host_out, pd, 0, 0,
					       &p->mr[OUT]);
	}
	if (r < 0)
		return fail("registering the output buffer", r);
	rdma_print_path(PROG, p->host_out ? "output (CPU-device memory)" :
					    "output (accelerator memory)",
			p->mr[OUT]);

	r = accel_buffer_register_rdma(p->recv, pd,
				       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE,
				       0, &p->mr[RECV]);
	if (r < 0)
		return fail("registering the receive buffer", r);
	rdma_print_path(PROG, "receive buffer", p->mr[RECV]);
	return 0;
}

/* The receiver: every pixel of frame @n, counted where it differs. */
static int verify(struct pipeline *p, const struct gpu *g, uint32_t n)
{
	uint64_t bytes = (uint64_t)g->width * g->height * 4, bad = 0;
	const uint32_t *px;
	uint32_t x, y;
	void *map;
	int r;

	r = accel_buffer_map(p->recv, 0, bytes, ACCEL_MAP_READ, &map);
	if (r < 0)
		return fail("mapping the receive buffer", r);
	px = map;
	for (y = 0; y < g->height; y++)
		for (x = 0; x < g->width; x++)
			if (px[y * g->width + x] != gpu_pixel(x, y, n) &&
			    bad++ == 0)
				fprintf(stderr, PROG ": pixel (%u, %u) is "
					"%#x, drawn %#x\n", x, y,
					px[y * g->width + x],
					gpu_pixel(x, y, n));
	accel_buffer_unmap(p->recv, map);
	printf(PROG ": receiver: %" PRIu64 " of %" PRIu64 " pixels of frame "
	       "%u differ: %s\n", bad, bytes / 4, n,
	       bad ? "MISMATCH" : "verified");
	return bad ? 1 : 0;
}

/* Steps 2-5 on set-up objects; 0 verified, else 1. */
static int run(struct pipeline *p, struct gpu *g, struct rdma *net)
{
	uint32_t bytes = g->width * g->height * 4;
	struct accel_fence *copied = NULL;
	struct accel_sync_file_info info;
	int64_t t0, timeout;
	int r, sf = -1;

	/* 2. The engine copies the frame; its kernel fence, right away. */
	t0 = now_ns();
	r = accel_queue_copy(p->aq, p->frame, 0, p->out, 0, bytes, 0, NULL,
			     &copied);
	if (r == 0)
		r = accel_fence_export_sync_file(copied, &sf);
	accel_fence_unref(copied);
	if (r == 0)
		r = accel_sync_file_get_info(sf, &info, NULL, 0) < 0 ? -EIO : 0;
	if (r < 0) {
		if (sf >= 0)
			close(sf);
		return fail("copy on the accelerator", r);
	}
	printf(PROG ": copy of %u bytes submitted, its sync_file %s\n", bytes,
	       info.status ? "already signalled" : "pending");

	/*
	 * 4. Nothing may reach the NIC before the engine is done: wait for
	 * the out-fence (a DMA engine moves about 10 KiB a second; allow
	 * for that), which also reports a failed job.
	 */
	timeout = 10 * SECOND + (int64_t)(bytes / 2048 + 1) * SECOND / 2;
	r = accel_sync_file_wait(sf, timeout);
	close(sf);
	if (r < 0)
		return fail("waiting for the engine's out-fence", r);
	printf(PROG ": engine done after %" PRId64 " ms: posting the "
	       "RDMA WRITE\n", (now_ns() - t0) / 1000000);
	/* The GPU may draw over its frame now that the engine has read. */
	gpu_draw(g, 2);

	/* 5. The NIC moves the engine's output to the receiver. */
	r = rdma_op(net, IBV_WR_RDMA_WRITE,
		    accel_rdma_mr_get_ibv_mr(p->mr[OUT]),
		    accel_rdma_mr_get_ibv_mr(p->mr[RECV]), bytes);
	if (r < 0)
		return fail("RDMA WRITE", r);
	printf(PROG ": RDMA WRITE of %u bytes over %s completed\n", bytes,
	       ibv_get_device_name(net->ibv->device));
	return verify(p, g, 1);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [WIDTHxHEIGHT]   (default 512x256, at "
		"most %u MiB of 32-bit pixels)\n", MAX_FRAME_BYTES >> 20);
}

int main(int argc, char **argv)
{
	struct pipeline p = { 0 };
	struct gpu g = GPU_INIT;
	struct rdma net = { 0 };
	const char *node = NULL;
	uint32_t w = 512, h = 256;
	int r, status = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 || (argc == 2 && parse_size(argv[1], &w, &h) < 0)) {
		usage(stderr);
		return 1;
	}

	if (gpu_open(&g) < 0) {
		printf(PROG ": SKIP: no vgem\n");
		return EXIT_SKIP;
	}
	r = rdma_open(&net);
	if (r == -ENODEV) {
		printf(PROG ": SKIP: no RDMA device (try the kernel tier's "
		       "rxe0)\n");
		status = EXIT_SKIP;
		goto out;
	}
	if (r < 0) {
		fail("RDMA set-up", r);
		goto out;
	}
	r = accel_context_new(0, &p.ctx);
	if (r < 0) {
		fail("accel_context_new", r);
		goto out;
	}
	p.acc = find_device(p.ctx, ACCEL_DEVICE_TYPE_ACCELERATOR);
	p.cpu = find_device(p.ctx, ACCEL_DEVICE_TYPE_CPU);
	if (!p.acc || !p.cpu) {
		printf(PROG ": SKIP: no accelerator device\n");
		status = EXIT_SKIP;
		goto out;
	}
	accel_device_query_string(p.acc, ACCEL_DEVICE_STRING_DEVNODE, &node);

	/* 1. The GPU draws frame 1 and shares it. */
	r = gpu_frame(&g, w, h);
	if (r < 0) {
		fail("vgem frame", r);
		goto out;
	}
	gpu_draw(&g, 1);
	printf(PROG ": frame 1 from vgem, %ux%u (%u bytes), to the "
	       "accelerator %s\n", w, h, w * h * 4, node ? node : "?");

	/* 3. (set up before any work, as an application would) */
	if (pipeline_setup(&p, net.pd, ibv_get_device_name(net.ibv->device),
			   g.dmabuf, w * h * 4) == 0)
		status = run(&p, &g, &net);
out:
	pipeline_free(&p);
	rdma_close(&net);
	gpu_close(&g);
	return status;
}
