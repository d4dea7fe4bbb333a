/* SPDX-License-Identifier: MIT */
/*
 * zero-copy-pipeline: a GPU's buffer processed by libaccel in place.
 *
 * What a program that shares frames between a GPU driver and libaccel
 * does, step by step:
 *   1. the "GPU" (vgem, the kernel's virtual GEM driver, driven through
 *      libdrm on /dev/dri/card*, as any real GPU's buffers would be)
 *      allocates a frame and draws into it through its own mapping;
 *   2. it exports the frame as a dma-buf (PRIME);
 *   3. libaccel imports the dma-buf into its CPU device: no copy, the
 *      libaccel buffer *is* the GPU's pages;
 *   4. the example proves it: both mappings are views of one dma-buf,
 *      a write through either is seen through the other, and where
 *      /proc/self/pagemap shows them (root, not VM_PFNMAP) both resolve
 *      to the same physical page frames;
 *   5. the GPU is still busy with the frame (a vgem fence); libaccel's
 *      kernel waits for that fence by itself (implicit synchronisation);
 *   6. a native kernel inverts the frame's colours in place;
 *   7. the GPU's own mapping sees the result.
 *
 * Needs vgem, which build machines lack: run it in the kernel test tier,
 *     tests/kernel/vm-run.sh -- build/examples/zero-copy-pipeline
 * Exit status: 0 verified with no copy, 1 on any failure (or if a copy was
 * made), 77 if this machine has no vgem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include <libaccel/libaccel.h>

#define WIDTH 256
#define HEIGHT 256
#define EXIT_SKIP 77

/*
 * vgem's fence ioctls (the kernel's include/uapi/drm/vgem_drm.h), which
 * stand in for "the GPU is still rendering into this buffer".
 */
struct vgem_fence_attach {
	uint32_t handle;
	uint32_t flags;
	uint32_t out_fence;
	uint32_t pad;
};

struct vgem_fence_signal {
	uint32_t fence;
	uint32_t flags;
};

#define VGEM_FENCE_WRITE 0x1
#define VGEM_IOCTL_FENCE_ATTACH                                                \
	DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct vgem_fence_attach)
#define VGEM_IOCTL_FENCE_SIGNAL                                                \
	DRM_IOW(DRM_COMMAND_BASE + 0x2, struct vgem_fence_signal)

/* ---- the "GPU" side: plain libdrm ---------------------------------------- */

struct gpu_frame {
	int card;        /* vgem's primary node */
	uint32_t handle; /* the GEM buffer */
	uint32_t pitch;  /* bytes per row */
	uint64_t size;
	uint32_t *map;   /* the GPU driver's own CPU mapping */
	int dmabuf;      /* its PRIME export */
};

static int open_vgem(void)
{
	char path[32];
	int i;

	for (i = 0; i < 16; i++) {
		drmVersionPtr v;
		bool vgem;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		vgem = v && !strcmp(v->name, "vgem");
		drmFreeVersion(v);
		if (vgem)
			return fd;
		close(fd);
	}
	return -1;
}

static int gpu_frame_new(int card, struct gpu_frame *g)
{
	struct drm_mode_create_dumb create = {
		.width = WIDTH, .height = HEIGHT, .bpp = 32,
	};
	struct drm_mode_map_dumb map = { 0 };
	void *p;

	memset(g, 0, sizeof(*g));
	g->card = card;
	g->dmabuf = -1;
	if (drmIoctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		return -errno;
	g->handle = create.handle;
	g->pitch = create.pitch;
	g->size = create.size;
	map.handle = g->handle;
	if (drmIoctl(card, DRM_IOCTL_MODE_MAP_DUMB, &map))
		return -errno;
	p = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_SHARED, card,
		 (off_t)map.offset);
	if (p == MAP_FAILED)
		return -errno;
	g->map = p;
	/* Read-write, so libaccel may write the result into it. */
	if (drmPrimeHandleToFD(card, g->handle, DRM_CLOEXEC | DRM_RDWR,
			       &g->dmabuf))
		return -errno;
	return 0;
}

static void gpu_frame_free(struct gpu_frame *g)
{
	struct drm_gem_close gem_close = { .handle = g->handle };

	if (g->dmabuf >= 0)
		close(g->dmabuf);
	if (g->map)
		munmap(g->map, g->size);
	if (g->handle)
		drmIoctl(g->card, DRM_IOCTL_GEM_CLOSE, &gem_close);
}

/* CPU access through the GPU's mapping, bracketed as dma-buf wants it. */
static void gpu_cpu_access(struct gpu_frame *g, bool start, bool write)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 (write ? DMA_BUF_SYNC_RW : DMA_BUF_SYNC_READ),
	};

	drmIoctl(g->dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

static uint32_t *pixel(struct gpu_frame *g, uint32_t *base, unsigned x,
		       unsigned y)
{
	return (uint32_t *)((uint8_t *)base + (size_t)y * g->pitch) + x;
}

/* The "rendering": an XRGB8888 gradient. */
static uint32_t drawn(unsigned x, unsigned y)
{
	return (uint32_t)(x << 16 | y << 8 | ((x ^ y) & 0xff));
}

/* ---- the kernel: invert the colours of a frame in place ------------------- */

/*
 * invert(global uint *frame, uint pitch_px), 2-D over (WIDTH, HEIGHT):
 *     frame[y * pitch_px + x] ^= 0x00ffffff
 */
static void invert_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *frame = *(uint32_t *const *)args[0];
	uint32_t pitch_px = *(const uint32_t *)args[1];
	uint64_t x0 = ctx->global_offset[0] +
		      ctx->group_id[0] * ctx->enqueued_local_size[0];
	uint64_t y0 = ctx->global_offset[1] +
		      ctx->group_id[1] * ctx->enqueued_local_size[1];
	uint64_t x, y;

	for (y = y0; y < y0 + ctx->local_size[1]; y++)
		for (x = x0; x < x0 + ctx->local_size[0]; x++)
			frame[y * pitch_px + x] ^= 0x00ffffffu;
}

static const struct accel_kernel_arg_desc invert_args[] = {
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.name = "frame",
		.type_name = "uint*",
	},
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_VALUE,
		.size = sizeof(uint32_t),
		.address_space = ACCEL_KERNEL_ARG_ADDR_PRIVATE,
		.name = "pitch_px",
		.type_name = "uint",
	},
};

static const struct accel_native_kernel_desc invert_desc = {
	.struct_size = sizeof(invert_desc),
	.name = "invert",
	.fn = invert_wg,
	.n_args = 2,
	.args = invert_args,
};

/* ---- proving that nothing was copied -------------------------------------- */

/* The line of /proc/self/maps describing @addr, or "" if none. */
static void mapping_of(const void *addr, char *line, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	char buf[512];
	FILE *f;

	line[0] = '\0';
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		uintptr_t lo, hi;

		if (sscanf(buf, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2 &&
		    a >= lo && a < hi) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(line, len, "%s", buf);
			break;
		}
	}
	fclose(f);
}

/*
 * The physical frame behind @addr from /proc/self/pagemap: > 0, or 0 when
 * the kernel hides frame numbers (without CAP_SYS_ADMIN), or -1 when it
 * does not describe the mapping at all (VM_PFNMAP mappings, which is how
 * many drivers map their buffers, show as holes).
 */
static int64_t frame_of(const void *addr)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, &entry, sizeof(entry),
		  (off_t)((uintptr_t)addr / (uintptr_t)page * 8)) !=
	    sizeof(entry))
		entry = 0;
	close(fd);
	/* Bit 63: present; bits 0-54: the page frame number. */
	if (!(entry >> 63))
		return -1;
	return (int64_t)(entry & ((1ull << 55) - 1));
}

/*
 * Is @host (libaccel's mapping of the import) the GPU's memory itself?
 * Prints what it found; returns false if a copy is in the way.
 */
static bool prove_no_copy(struct gpu_frame *g, uint32_t *host)
{
	char line[512];
	uint32_t saved, *gp = pixel(g, g->map, 17, 200);
	uint32_t *hp = pixel(g, host, 17, 200);
	int64_t pfn_gpu, pfn_host;
	bool ok = true;

	/* 1. libaccel's pointer lies in a shared mapping of a dma-buf. */
	mapping_of(host, line, sizeof(line));
	printf("  libaccel's map: %s\n", line);
	if (!strstr(line, "dmabuf") || !strstr(line, " rw-s ")) {
		printf("  -> not a shared mapping of the dma-buf\n");
		ok = false;
	}
	mapping_of(g->map, line, sizeof(line));
	printf("  the GPU's map:  %s\n", line);

	/* 2. What is written through one mapping is read through the other. */
	saved = *gp;
	*gp = 0xc0ffee01;
	if (*hp != 0xc0ffee01) {
		printf("  -> a write through the GPU's map is not seen by "
		       "libaccel's\n");
		ok = false;
	}
	*hp = 0xc0ffee02;
	if (*gp != 0xc0ffee02) {
		printf("  -> a write through libaccel's map is not seen by "
		       "the GPU's\n");
		ok = false;
	}
	*gp = saved;
	if (ok)
		printf("  writes through either mapping show in the other\n");

	/* 3. The same physical page frames, where the kernel shows them. */
	pfn_gpu = frame_of(gp);
	pfn_host = frame_of(hp);
	if (pfn_gpu > 0 && pfn_host > 0) {
		printf("  physical frame: 0x%" PRIx64 " (GPU), 0x%" PRIx64
		       " (libaccel)\n", (uint64_t)pfn_gpu,
		       (uint64_t)pfn_host);
		if (pfn_gpu != pfn_host)
			ok = false;
	} else if (pfn_gpu == 0 || pfn_host == 0) {
		printf("  physical frames: hidden (needs CAP_SYS_ADMIN)\n");
	} else {
		printf("  physical frames: not in /proc/self/pagemap (the "
		       "driver maps them as VM_PFNMAP)\n");
	}
	return ok;
}

/* ---- the pipeline ------------------------------------------------------- */

static struct accel_device *cpu_device(struct accel_context *ctx)
{
	struct accel_device *devs[16], *cpu = NULL;
	int n, i;

	n = accel_context_get_devices(ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		uint64_t type = 0;

		accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE, &type);
		if (!cpu && type == ACCEL_DEVICE_TYPE_CPU)
			cpu = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return cpu;
}

static int fail(const char *what, int r)
{
	fprintf(stderr, "zero-copy-pipeline: %s: %s\n", what, strerror(-r));
	return 1;
}

int main(void)
{
	struct accel_context *ctx = NULL;
	struct accel_device *cpu = NULL;
	struct accel_program *prog = NULL;
	struct accel_kernel *kernel = NULL;
	struct accel_buffer *frame = NULL;
	struct accel_fence *done = NULL;
	struct vgem_fence_attach busy = { 0 };
	struct vgem_fence_signal release = { 0 };
	struct gpu_frame g;
	uint64_t caps = 0;
	uint32_t *host, pitch_px;
	unsigned x, y, wrong = 0;
	int card, r, ret = 1;

	/* 1. The GPU draws a frame. */
	card = open_vgem();
	if (card < 0) {
		printf("zero-copy-pipeline: SKIP: no vgem device (modprobe "
		       "vgem, or run it in the kernel test tier: "
		       "tests/kernel/vm-run.sh -- %s)\n",
		       "build/examples/zero-copy-pipeline");
		return EXIT_SKIP;
	}
	r = gpu_frame_new(card, &g);
	if (r < 0) {
		ret = fail("allocating the GPU frame", r);
		goto out_frame;
	}
	gpu_cpu_access(&g, true, true);
	for (y = 0; y < HEIGHT; y++)
		for (x = 0; x < WIDTH; x++)
			*pixel(&g, g.map, x, y) = drawn(x, y);
	gpu_cpu_access(&g, false, true);
	printf("GPU: drew a %ux%u frame (%" PRIu64 " bytes, pitch %u) into "
	       "GEM buffer %u, exported as dma-buf fd %d\n", WIDTH, HEIGHT,
	       g.size, g.pitch, g.handle, g.dmabuf);

	/* 2.-3. libaccel takes the dma-buf as it is. */
	r = accel_context_new(0, &ctx);
	if (r < 0) {
		ret = fail("accel_context_new", r);
		goto out_frame;
	}
	cpu = cpu_device(ctx);
	if (cpu)
		accel_device_query_u64(cpu, ACCEL_DEVICE_U64_CAPS, &caps);
	if (!(caps & ACCEL_DEVICE_CAP_DMABUF_IMPORT)) {
		printf("zero-copy-pipeline: SKIP: the CPU device cannot "
		       "import dma-bufs\n");
		ret = EXIT_SKIP;
		goto out;
	}
	r = accel_buffer_import_dmabuf(cpu, g.dmabuf, 0, &frame);
	if (r < 0) {
		ret = fail("importing the dma-buf", r);
		goto out;
	}
	printf("libaccel: imported it as a %" PRIu64 "-byte buffer\n",
	       accel_buffer_get_size(frame));

	/* 4. No copy: libaccel's view is the GPU's memory. */
	r = accel_buffer_map(frame, 0, g.size,
			     ACCEL_MAP_READ | ACCEL_MAP_WRITE, (void **)&host);
	if (r < 0) {
		ret = fail("mapping the import", r);
		goto out;
	}
	if (!prove_no_copy(&g, host)) {
		printf("zero-copy: a copy was made\n");
		accel_buffer_unmap(frame, host);
		goto out;
	}
	accel_buffer_unmap(frame, host);

	/* 5. The GPU is still working on the frame... */
	busy.handle = g.handle;
	busy.flags = VGEM_FENCE_WRITE;
	if (drmIoctl(card, VGEM_IOCTL_FENCE_ATTACH, &busy)) {
		ret = fail("VGEM_FENCE_ATTACH", -errno);
		goto out;
	}

	/* 6. ...when libaccel is asked to invert it in place. */
	r = accel_program_new_native(cpu, &invert_desc, 1, &prog);
	if (r == 0)
		r = accel_kernel_new(prog, "invert", &kernel);
	pitch_px = g.pitch / 4;
	if (r == 0)
		r = accel_kernel_set_arg_buffer(kernel, 0, frame);
	if (r == 0)
		r = accel_kernel_set_arg_value(kernel, 1, sizeof(pitch_px),
					       &pitch_px);
	if (r == 0) {
		struct accel_queue *queue = NULL;
		const struct accel_ndrange range = {
			.struct_size = sizeof(range),
			.work_dim = 2,
			.global_size = { WIDTH, HEIGHT, 1 },
		};

		r = accel_queue_new(cpu, 0, &queue);
		if (r == 0)
			r = accel_queue_launch(queue, kernel, &range, 0, NULL,
					       &done);
		accel_queue_unref(queue);
	}
	if (r < 0) {
		release.fence = busy.out_fence;
		drmIoctl(card, VGEM_IOCTL_FENCE_SIGNAL, &release);
		ret = fail("launching the kernel", r);
		goto out;
	}
	/* The kernel waits for the GPU's fence without being told to. */
	usleep(200 * 1000);
	if (accel_fence_get_status(done) != 0) {
		printf("implicit sync: the kernel ran while the GPU was "
		       "still busy\n");
		release.fence = busy.out_fence;
		drmIoctl(card, VGEM_IOCTL_FENCE_SIGNAL, &release);
		goto out;
	}
	release.fence = busy.out_fence;
	if (drmIoctl(card, VGEM_IOCTL_FENCE_SIGNAL, &release)) {
		ret = fail("VGEM_FENCE_SIGNAL", -errno);
		goto out;
	}
	r = accel_fence_wait(done, 5000 * 1000000ll);
	if (r < 0) {
		ret = fail("waiting for the kernel", r);
		goto out;
	}
	printf("implicit sync: the kernel waited for the GPU's fence, then "
	       "ran\n");

	/* 7. The GPU's own mapping holds the result. */
	gpu_cpu_access(&g, true, false);
	for (y = 0; y < HEIGHT; y++)
		for (x = 0; x < WIDTH; x++)
			wrong += *pixel(&g, g.map, x, y) !=
				 (drawn(x, y) ^ 0x00ffffffu);
	gpu_cpu_access(&g, false, false);
	if (wrong) {
		printf("GPU: %u of %u pixels are wrong\n", wrong,
		       WIDTH * HEIGHT);
		goto out;
	}
	printf("zero-copy: no copy made\n");
	printf("verified: all %u pixels inverted in place, seen through the "
	       "GPU's mapping (pixel (17,200): 0x%08" PRIx32 " -> 0x%08"
	       PRIx32 ")\n", WIDTH * HEIGHT, drawn(17, 200),
	       *pixel(&g, g.map, 17, 200));
	ret = 0;
out:
	accel_fence_unref(done);
	accel_kernel_unref(kernel);
	accel_program_unref(prog);
	accel_buffer_unref(frame);
	accel_device_unref(cpu);
	accel_context_unref(ctx);
out_frame:
	gpu_frame_free(&g);
	close(card);
	return ret;
}
