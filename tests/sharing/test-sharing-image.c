/* SPDX-License-Identifier: MIT */
/*
 * Frames as images: a vgem dumb buffer holding an RGBA8888 frame (the way
 * a GPU or a camera hands one over) is imported as a linear 2D image
 * (accel_image_layout_from_drm()), blurred by an OpenCL C kernel reading
 * it through a sampler, and the result, written as an image into
 *  - a second vgem frame, is checked through vgem's own mapping;
 *  - a libaccel buffer exported as a dma-buf and imported by vgem, is
 *    checked through the dma-buf's mapping,
 * with DMA_BUF_IOCTL_SYNC around every CPU access. The driver picks the
 * pitch of its frames; the image is narrower than the frame, so the
 * kernel must honour the row pitch.
 */
#include <drm_fourcc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sharing-common.h"

#define FRAME_W 300u  /* the image */
#define ALLOC_W 320u  /* the frame the driver allocates */
#define FRAME_H 200u

static const char blur_src[] =
	"const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE |\n"
	"	CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
	"kernel void blur(read_only image2d_t src, write_only image2d_t dst)\n"
	"{\n"
	"	int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
	"	float4 acc = 0.0f;\n"
	"	for (int dy = -1; dy <= 1; dy++)\n"
	"		for (int dx = -1; dx <= 1; dx++)\n"
	"			acc += read_imagef(src, edge, p + (int2)(dx, dy));\n"
	"	write_imagef(dst, p, acc / 9.0f);\n"
	"}\n";

/* Pixel (x, y) of the source frame, bytes R, G, B, A in memory. */
static void src_pixel(uint32_t x, uint32_t y, uint8_t px[4])
{
	px[0] = (uint8_t)(x * 7 + y * 3);
	px[1] = (uint8_t)(x ^ y);
	px[2] = (uint8_t)(y * 5);
	px[3] = (uint8_t)(255 - x / 2);
}

static uint32_t clampu(int64_t v, uint32_t max)
{
	return v < 0 ? 0 : v > (int64_t)max ? max : (uint32_t)v;
}

/* What the kernel computes for channel @c of pixel (x, y). */
static float expect_channel(uint32_t x, uint32_t y, unsigned c)
{
	float acc = 0.0f;
	uint8_t px[4];

	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++) {
			src_pixel(clampu((int64_t)x + dx, FRAME_W - 1),
				  clampu((int64_t)y + dy, FRAME_H - 1), px);
			acc += (float)px[c] / 255.0f;
		}
	return acc / 9.0f * 255.0f;
}

/* A vgem frame, mapped, filled with the source pattern when @fill. */
static void vgem_frame(struct env *env, bool fill, struct side *s,
		       uint32_t *ret_pitch, int *ret_fd)
{
	side_init(s, "vgem-frame");
	OK(env, peer_vgem_create_frame(env->card, ALLOC_W, FRAME_H, 32,
				       &s->handle, ret_pitch, &s->size));
	s->card = env->card;
	s->map = peer_vgem_map(env->card, s->handle, s->size);
	assert_non_null(s->map);
	s->map_len = s->size;
	memset(s->map, fill ? 0 : 0xa5, s->size);
	for (uint32_t y = 0; fill && y < FRAME_H; y++)
		for (uint32_t x = 0; x < FRAME_W; x++)
			src_pixel(x, y, (uint8_t *)s->map + y * *ret_pitch +
						x * 4u);
	OK(env, peer_vgem_export(env->card, s->handle, true, ret_fd));
}

/* A frame of @pitch as a 2D image of the CPU device. */
static struct accel_image_layout frame_layout(struct env *env,
					      uint32_t pitch)
{
	struct accel_image_layout lay;

	OK(env, accel_image_layout_from_drm(DRM_FORMAT_ABGR8888,
					    DRM_FORMAT_MOD_LINEAR, FRAME_W,
					    FRAME_H, pitch, 0, &lay));
	assert_int_equal(lay.type, ACCEL_IMAGE_2D);
	assert_int_equal(lay.channel_order, ACCEL_IMAGE_ORDER_RGBA);
	assert_int_equal(lay.channel_type, ACCEL_IMAGE_DATA_UNORM_INT8);
	OK(env, accel_image_layout_resolve(env->cpu, &lay, &lay, NULL));
	assert_int_equal(lay.row_pitch, pitch);
	return lay;
}

/* Run the blur from @src into @dst (both CPU buffers), and wait. */
static void blur(struct env *env, struct accel_buffer *src,
		 const struct accel_image_layout *src_lay,
		 struct accel_buffer *dst,
		 const struct accel_image_layout *dst_lay)
{
	struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 2,
		.global_size = { FRAME_W, FRAME_H, 1 },
	};
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_fence *f = NULL;
	char *log = NULL;
	int r;

	snprintf(env->what, sizeof(env->what), "build the blur kernel");
	r = accel_program_new_source(env->cpu, blur_src, 0, NULL, &log, &prog);
	if (r < 0)
		fail_msg("build: %d\n%s", r, log ? log : "");
	free(log);
	OK(env, accel_kernel_new(prog, "blur", &k));
	snprintf(env->what, sizeof(env->what), "set the image arguments");
	OK(env, accel_kernel_set_arg_image(k, 0, src, src_lay));
	OK(env, accel_kernel_set_arg_image(k, 1, dst, dst_lay));
	snprintf(env->what, sizeof(env->what), "blur");
	OK(env, accel_queue_launch(env->cq, k, &range, 0, NULL, &f));
	OK(env, wait_unref(f, 10000 * MS));
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/*
 * Check the blurred frame at @p (row pitch @pitch), bracketed by
 * DMA_BUF_IOCTL_SYNC on @fd; the bytes beyond the image's width must be
 * untouched (@pad).
 */
static void check_frame(struct env *env, const uint8_t *p, uint32_t pitch,
			int fd, uint8_t pad)
{
	uint64_t bad = 0;

	snprintf(env->what, sizeof(env->what), "check the frame");
	OK(env, peer_dmabuf_sync(fd, true, true, false));
	for (uint32_t y = 0; y < FRAME_H; y++) {
		for (uint32_t x = 0; x < FRAME_W; x++)
			for (unsigned c = 0; c < 4; c++) {
				float want = expect_channel(x, y, c);
				uint8_t got = p[y * pitch + x * 4u + c];

				if (fabsf((float)got - want) > 1.0f &&
				    bad++ < 5)
					printf("# (%u,%u).%u = %u, want %.2f\n",
					       x, y, c, got, want);
			}
		for (uint32_t i = FRAME_W * 4u; i < pitch; i++)
			bad += p[y * pitch + i] != pad;
	}
	OK(env, peer_dmabuf_sync(fd, false, true, false));
	assert_int_equal(bad, 0);
}

/* vgem frame -> blur -> vgem frame, checked through vgem's mapping. */
void test_image_vgem_frames(void **state)
{
	struct env *env = *state;
	struct accel_buffer *src = NULL, *dst = NULL;
	struct accel_image_layout src_lay, dst_lay;
	uint32_t src_pitch, dst_pitch;
	struct side a, b;
	int src_fd, dst_fd;

	if (env->card < 0) {
		printf("# no vgem: the kernel test tier has it\n");
		skip();
	}
	vgem_frame(env, true, &a, &src_pitch, &src_fd);
	vgem_frame(env, false, &b, &dst_pitch, &dst_fd);
	snprintf(env->what, sizeof(env->what), "import the frames");
	OK(env, accel_buffer_import_dmabuf(env->cpu, src_fd,
					   ACCEL_BUFFER_READ_ONLY, &src));
	OK(env, accel_buffer_import_dmabuf(env->cpu, dst_fd, 0, &dst));
	src_lay = frame_layout(env, src_pitch);
	dst_lay = frame_layout(env, dst_pitch);
	blur(env, src, &src_lay, dst, &dst_lay);
	check_frame(env, (const uint8_t *)b.map, dst_pitch, dst_fd, 0xa5);
	accel_buffer_unref(src);
	accel_buffer_unref(dst);
	close(src_fd);
	close(dst_fd);
	side_free(&b);
	side_free(&a);
	ran_case();
}

/*
 * vgem frame -> blur -> a libaccel buffer, exported and imported by vgem,
 * checked through the dma-buf's mapping.
 */
void test_image_export_frame(void **state)
{
	struct env *env = *state;
	struct accel_buffer *src = NULL, *dst = NULL;
	struct accel_image_layout src_lay, dst_lay;
	uint32_t src_pitch, dst_pitch = ALLOC_W * 4u, handle;
	/* whole pages, as a dma-buf has them */
	uint64_t dst_size = ((uint64_t)dst_pitch * FRAME_H + PAGE - 1) &
			    ~(uint64_t)(PAGE - 1);
	struct side a;
	int src_fd, dst_fd = -1;
	uint8_t *p;

	if (env->card < 0) {
		printf("# no vgem: the kernel test tier has it\n");
		skip();
	}
	vgem_frame(env, true, &a, &src_pitch, &src_fd);
	snprintf(env->what, sizeof(env->what), "import the frame");
	OK(env, accel_buffer_import_dmabuf(env->cpu, src_fd,
					   ACCEL_BUFFER_READ_ONLY, &src));
	dst = cpu_buffer(env, dst_size);
	OK(env, accel_queue_fill(env->cq, dst, 0, dst_size, "\x5a", 1, 0,
				 NULL, NULL));
	src_lay = frame_layout(env, src_pitch);
	dst_lay = frame_layout(env, dst_pitch);
	blur(env, src, &src_lay, dst, &dst_lay);
	snprintf(env->what, sizeof(env->what), "export the result");
	OK(env, accel_buffer_export_dmabuf(dst, 0, &dst_fd));
	OK(env, peer_vgem_import(env->card, dst_fd, &handle));
	p = peer_mmap(dst_fd, dst_size, false);
	assert_non_null(p);
	check_frame(env, p, dst_pitch, dst_fd, 0x5a);
	munmap(p, dst_size);
	peer_vgem_close(env->card, handle);
	accel_buffer_unref(src);
	accel_buffer_unref(dst);
	close(src_fd);
	close(dst_fd);
	side_free(&a);
	ran_case();
}
