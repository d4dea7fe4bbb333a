/* SPDX-License-Identifier: MIT */
/*
 * gpu-accel-pipeline: a GPU frame through an accelerator to the CPU
 * device, with kernel fences in between and no copy by the host.
 *
 *   1. the "GPU" (vgem, driven through libdrm as any GPU's buffers would
 *      be; vgem-gpu.c) renders a frame and shares it as a dma-buf (PRIME);
 *   2. libaccel imports that dma-buf into the accelerator (refaccel behind
 *      /dev/accel/accel0, the reference accel driver) and has its engine
 *      copy the frame into a buffer of its own;
 *   3. the copy's fence is exported as a sync_file right after the
 *      submit, before the job has run, which is the kernel's own fence:
 *      the GPU side waits on it before drawing the next frame over the
 *      one being read;
 *   4. the accelerator's buffer, exported as a dma-buf, is imported into
 *      the CPU reference device, whose kernel checksums the copy; it is
 *      ordered after the engine's job through the dma-buf alone
 *      (implicit sync), with no explicit wait.
 *
 * Needs vgem and refaccel, which only the kernel test tier has:
 *     tests/kernel/vm-run.sh -- sh -c 'tests/kernel/refaccel/load.sh \
 *         build/tests/kernel/refaccel/refaccel.ko && \
 *         build/examples/gpu-accel-pipeline'
 * Exit status: 0 verified, 1 on failure, 77 without vgem or refaccel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libaccel/libaccel.h>

#include "find-device.h"
#include "vgem-gpu.h"

#define WIDTH 512
#define HEIGHT 256
#define FRAME_BYTES (WIDTH * HEIGHT * 4u)
#define EXIT_SKIP 77
#define SECOND 1000000000ll

/* ---- the CPU device's consumer: a native checksum kernel ---------------- */

static void checksum_wg(void **args, const struct accel_wg_ctx *ctx)
{
	const uint32_t *in = *(const uint32_t *const *)args[0];
	uint64_t *sum = *(uint64_t *const *)args[1];
	uint64_t i = ctx->global_offset[0] +
		     ctx->group_id[0] * ctx->enqueued_local_size[0];
	uint64_t end = i + ctx->local_size[0], s = 0;

	for (; i < end; i++)
		s += in[i];
	__atomic_fetch_add(sum, s, __ATOMIC_RELAXED);
}

static const struct accel_kernel_arg_desc checksum_args[] = {
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.type_qualifiers = ACCEL_KERNEL_ARG_TYPE_CONST,
		.name = "in",
		.type_name = "uint*",
	},
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.name = "sum",
		.type_name = "ulong*",
	},
};

static const struct accel_native_kernel_desc checksum_desc = {
	.struct_size = sizeof(checksum_desc),
	.name = "checksum",
	.fn = checksum_wg,
	.n_args = 2,
	.args = checksum_args,
};

/* ---- libaccel ---------------------------------------------------------- */

static int fail(const char *what, int r)
{
	fprintf(stderr, "gpu-accel-pipeline: %s: %s\n", what, strerror(-r));
	return 1;
}

struct pipeline {
	struct accel_context *ctx;
	struct accel_device *acc, *cpu;
	struct accel_queue *aq, *cq;
	struct accel_buffer *frame, *copy, *shared, *sum;
	struct accel_program *prog;
	struct accel_kernel *kernel;
};

static void pipeline_free(struct pipeline *p)
{
	accel_kernel_unref(p->kernel);
	accel_program_unref(p->prog);
	accel_buffer_unref(p->sum);
	accel_buffer_unref(p->shared);
	accel_buffer_unref(p->copy);
	accel_buffer_unref(p->frame);
	accel_queue_unref(p->cq);
	accel_queue_unref(p->aq);
	accel_device_unref(p->cpu);
	accel_device_unref(p->acc);
	accel_context_unref(p->ctx);
}

/* Buffers on both sides; the accelerator's copy shared with the CPU. */
static int pipeline_setup(struct pipeline *p, int frame_fd)
{
	int r, fd;

	r = accel_queue_new(p->acc, 0, &p->aq);
	if (r == 0)
		r = accel_queue_new(p->cpu, 0, &p->cq);
	if (r == 0)
		r = accel_buffer_import_dmabuf(p->acc, frame_fd, 0, &p->frame);
	if (r == 0)
		r = accel_buffer_new(p->acc, FRAME_BYTES, 0, &p->copy);
	if (r == 0)
		r = accel_buffer_export_dmabuf(p->copy, 0, &fd);
	if (r < 0)
		return r;
	r = accel_buffer_import_dmabuf(p->cpu, fd, 0, &p->shared);
	close(fd);
	if (r == 0)
		r = accel_buffer_new(p->cpu, sizeof(uint64_t), 0, &p->sum);
	if (r == 0)
		r = accel_program_new_native(p->cpu, &checksum_desc, 1,
					     &p->prog);
	if (r == 0)
		r = accel_kernel_new(p->prog, "checksum", &p->kernel);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(p->kernel, 0, p->shared);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(p->kernel, 1, p->sum);
	return r;
}

int main(void)
{
	struct pipeline p = { 0 };
	struct gpu g = GPU_INIT;
	struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 1,
		.global_size = { WIDTH * HEIGHT },
	};
	struct accel_sync_fence_info fi = { 0 };
	struct accel_sync_file_info info;
	struct accel_fence *copied = NULL, *summed = NULL;
	uint64_t want = 0, got = 0, zero = 0;
	uint32_t x, y;
	int r, sf = -1, status = 1;

	if (gpu_open(&g) < 0) {
		printf("gpu-accel-pipeline: SKIP: no vgem\n");
		return EXIT_SKIP;
	}
	r = accel_context_new(0, &p.ctx);
	if (r < 0)
		return fail("accel_context_new", r);
	p.acc = find_device(p.ctx, ACCEL_DEVICE_TYPE_ACCELERATOR);
	p.cpu = find_device(p.ctx, ACCEL_DEVICE_TYPE_CPU);
	if (!p.acc || !p.cpu) {
		printf("gpu-accel-pipeline: SKIP: no accelerator device\n");
		pipeline_free(&p);
		gpu_close(&g);
		return EXIT_SKIP;
	}

	/* 1. The GPU renders frame 1 and shares it. */
	r = gpu_frame(&g, WIDTH, HEIGHT);
	if (r < 0) {
		status = fail("vgem frame", r);
		goto out;
	}
	gpu_draw(&g, 1);
	r = pipeline_setup(&p, g.dmabuf);
	if (r < 0) {
		status = fail("libaccel buffers", r);
		goto out;
	}

	/* 2.-3. The engine copies it; its kernel fence, right away. */
	r = accel_queue_write(p.cq, p.sum, 0, sizeof(zero), &zero, 0, NULL,
			      NULL);
	if (r == 0)
		r = accel_queue_copy(p.aq, p.frame, 0, p.copy, 0, FRAME_BYTES,
				     0, NULL, &copied);
	if (r == 0)
		r = accel_fence_export_sync_file(copied, &sf);
	if (r == 0)
		r = accel_sync_file_get_info(sf, &info, &fi, 1) < 0 ? -EIO : 0;
	if (r < 0) {
		status = fail("copy on the accelerator", r);
		goto out;
	}
	printf("copy submitted: sync_file of '%s' (%s), %s\n", fi.driver,
	       fi.timeline, info.status ? "already signalled" : "pending");

	/* 4. The CPU device consumes the copy; the dma-buf orders it. */
	r = accel_queue_launch(p.cq, p.kernel, &range, 0, NULL, &summed);
	if (r < 0) {
		status = fail("checksum launch", r);
		goto out;
	}

	/* The GPU may draw the next frame only once the engine has read. */
	r = accel_sync_file_wait(sf, 10 * SECOND);
	if (r < 0) {
		status = fail("GPU waiting for the engine", r);
		goto out;
	}
	gpu_draw(&g, 2);

	r = accel_fence_wait(summed, 10 * SECOND);
	if (r == 0)
		r = accel_queue_read(p.cq, p.sum, 0, sizeof(got), &got, 0,
				     NULL, NULL);
	if (r == 0)
		r = accel_queue_finish(p.cq);
	if (r < 0) {
		status = fail("checksum", r);
		goto out;
	}
	for (y = 0; y < HEIGHT; y++)
		for (x = 0; x < WIDTH; x++)
			want += gpu_pixel(x, y, 1);
	printf("checksum of frame 1 on the CPU device: %#" PRIx64
	       " (expected %#" PRIx64 ")\n", got, want);
	status = got == want ? 0 : 1;

out:
	if (sf >= 0)
		close(sf);
	accel_fence_unref(copied);
	accel_fence_unref(summed);
	pipeline_free(&p);
	gpu_close(&g);
	return status;
}
