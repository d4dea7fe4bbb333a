/* SPDX-License-Identifier: MIT */
/*
 * Image and sampler arguments through a native kernel that looks at the
 * struct accel_wg_image it is given, in launches and command lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-image.h"

/* ---- kernel arguments -------------------------------------------------- */

/* What the kernel saw, written by work-item (0, 0) of group 0. */
struct seen {
	uint64_t data;
	uint64_t row_pitch, slice_pitch;
	uint32_t width, height, depth, array_size;
	uint32_t type, channel_order, channel_type, texel_size;
	uint64_t sampler;
	uint32_t texel; /* the texel at (1, 2) */
	uint32_t calls;
};

/* look_image(image2d_t img, sampler_t s, global struct seen *out) */
static void look_image(void **args, const struct accel_wg_ctx *c)
{
	const struct accel_wg_image *img = args[0];
	uintptr_t sampler = *(const uintptr_t *)args[1];
	struct seen *out = *(struct seen *const *)args[2];

	if (c->group_id[0] || c->group_id[1] || c->group_id[2])
		return;
	out->data = (uint64_t)(uintptr_t)img->data;
	out->row_pitch = img->row_pitch;
	out->slice_pitch = img->slice_pitch;
	out->width = img->width;
	out->height = img->height;
	out->depth = img->depth;
	out->array_size = img->array_size;
	out->type = img->type;
	out->channel_order = img->channel_order;
	out->channel_type = img->channel_type;
	out->texel_size = img->texel_size;
	out->sampler = sampler;
	memcpy(&out->texel,
	       (const uint8_t *)img->data + 2 * img->row_pitch +
		       1 * img->texel_size,
	       sizeof(out->texel));
	out->calls++;
}

static struct accel_kernel_arg_desc image_arg(uint32_t type, uint32_t access)
{
	return (struct accel_kernel_arg_desc){
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_IMAGE,
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.image_type = type,
		.image_access = access,
	};
}

static const struct accel_kernel_arg_desc look_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_IMAGE,
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .image_type = ACCEL_IMAGE_2D,
	  .image_access = ACCEL_IMAGE_ACCESS_READ },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_SAMPLER },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER,
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_IMAGE,
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .image_type = ACCEL_IMAGE_2D,
	  .image_access = ACCEL_IMAGE_ACCESS_WRITE |
			  ACCEL_KERNEL_ARG_IMAGE_DEPTH },
};

static struct accel_kernel *look_kernel(struct test_env *env,
					struct accel_program **ret_prog)
{
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "look_image",
		.fn = look_image,
		.n_args = TEST_ARRAY_SIZE(look_args),
		.args = look_args,
	};
	struct accel_kernel *k = NULL;

	assert_int_equal(accel_program_new_native(env->dev, &d, 1, ret_prog),
			 0);
	assert_int_equal(accel_kernel_new(*ret_prog, "look_image", &k), 0);
	return k;
}

void test_arg_desc(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog);
	struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };

	assert_int_equal(accel_kernel_get_arg_desc(k, 0, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_IMAGE);
	assert_int_equal(d.size, sizeof(struct accel_wg_image));
	assert_int_equal(d.image_type, ACCEL_IMAGE_2D);
	assert_int_equal(d.image_access, ACCEL_IMAGE_ACCESS_READ);
	assert_int_equal(accel_kernel_get_arg_desc(k, 1, &d), 0);
	assert_int_equal(d.kind, ACCEL_KERNEL_ARG_SAMPLER);
	assert_int_equal(d.size, sizeof(void *));
	assert_int_equal(d.image_type, 0);
	assert_int_equal(accel_kernel_get_arg_desc(k, 3, &d), 0);
	assert_int_equal(d.image_access, ACCEL_IMAGE_ACCESS_WRITE |
						 ACCEL_KERNEL_ARG_IMAGE_DEPTH);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* Native descriptions of image arguments the core refuses. */
void test_native_refused(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel_arg_desc a;
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "k",
		.fn = look_image,
		.n_args = 1,
		.args = &a,
	};
	struct accel_program *prog = TEST_SENTINEL_PTR;
	struct accel_kernel_arg_desc many[20];

	a = image_arg(0x10F0, ACCEL_IMAGE_ACCESS_READ); /* not an image */
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_2D, 0); /* no access */
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_2D, 1u << 4);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_3D,
		      ACCEL_IMAGE_ACCESS_READ | ACCEL_KERNEL_ARG_IMAGE_DEPTH);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = image_arg(ACCEL_IMAGE_2D, ACCEL_IMAGE_ACCESS_READ);
	a.size = 8;
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	/* an older description without image_type cannot be an image */
	a = image_arg(ACCEL_IMAGE_2D, ACCEL_IMAGE_ACCESS_READ);
	a.struct_size = offsetof(struct accel_kernel_arg_desc, image_type);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	a = (struct accel_kernel_arg_desc){
		.struct_size = sizeof(a),
		.kind = ACCEL_KERNEL_ARG_SAMPLER,
		.size = 4,
	};
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -EINVAL);
	/* more samplers than the device's 16 */
	for (size_t i = 0; i < TEST_ARRAY_SIZE(many); i++)
		many[i] = (struct accel_kernel_arg_desc){
			.struct_size = sizeof(many[i]),
			.kind = ACCEL_KERNEL_ARG_SAMPLER,
		};
	d.args = many;
	d.n_args = TEST_ARRAY_SIZE(many);
	assert_true(test_dev_u64(env->dev, ACCEL_DEVICE_U64_MAX_SAMPLERS) <
		    TEST_ARRAY_SIZE(many));
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -E2BIG);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
}

/* As many read images as the device allows fit in the argument bytes. */
void test_max_read_images(void **state)
{
	struct test_env *env = *state;
	uint64_t n = test_dev_u64(env->dev,
				  ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS);
	struct accel_kernel_arg_desc *a = calloc(n + 1, sizeof(*a));
	struct accel_native_kernel_desc d = {
		.struct_size = sizeof(d),
		.name = "k",
		.fn = look_image,
		.n_args = (uint32_t)n,
		.args = a,
	};
	struct accel_program *prog = NULL;

	assert_non_null(a);
	for (uint64_t i = 0; i <= n; i++)
		a[i] = image_arg(ACCEL_IMAGE_2D, ACCEL_IMAGE_ACCESS_READ);
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog), 0);
	accel_program_unref(prog);
	d.n_args = (uint32_t)n + 1;
	assert_int_equal(accel_program_new_native(env->dev, &d, 1, &prog),
			 -E2BIG);
	free(a);
}

void test_set_arg_errors(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog);
	struct accel_buffer *buf = test_buffer_new(env, 4096);
	struct accel_image_layout l = layout2d(16, 16), dl;
	struct accel_context *ctx2 = NULL;
	struct accel_device *dev2 = NULL;
	struct accel_buffer *buf2 = NULL;
	struct test_log log2;

	/* kinds and indices */
	assert_int_equal(accel_kernel_set_arg_image(k, 4, buf, &l), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_image(k, 1, buf, &l), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_image(k, 2, buf, &l), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_image(NULL, 0, buf, &l),
			 -EINVAL);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, NULL, &l), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, NULL), -EINVAL);
	/* 16 x 16 x 4 = 1024 bytes: fits, at 3072 just, at 3073 not */
	l.offset = 3072;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), 0);
	l.offset = 3073;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	l.offset = 0;
	l.row_pitch = 300;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	/* resolve's refusals */
	l = layout2d(16, 16);
	l.row_pitch = 8;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	l = layout2d(test_dev_u64(env->dev,
				  ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH) + 1, 1);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -E2BIG);
	/* the argument's type: image2d_t takes no 3D image, no depth one */
	l = layout2d(4, 4);
	l.type = ACCEL_IMAGE_3D;
	l.depth = 2;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &l), -EINVAL);
	dl = layout2d(4, 4);
	dl.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	dl.channel_type = ACCEL_IMAGE_DATA_FLOAT;
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf, &dl), -EINVAL);
	/* ... and image2d_depth_t only a depth one */
	assert_int_equal(accel_kernel_set_arg_image(k, 3, buf, &dl), 0);
	l = layout2d(4, 4);
	assert_int_equal(accel_kernel_set_arg_image(k, 3, buf, &l), -EINVAL);
	dl.type = ACCEL_IMAGE_2D_ARRAY;
	dl.array_size = 2;
	assert_int_equal(accel_kernel_set_arg_image(k, 3, buf, &dl), -EINVAL);

	/* a buffer of another context */
	test_log_init(&log2);
	assert_int_equal(test_context_new(&log2, &ctx2), 0);
	assert_int_equal(test_get_cpu_device(ctx2, &dev2), 0);
	assert_int_equal(accel_buffer_new(dev2, 4096, 0, &buf2), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, buf2, &l), -EINVAL);
	accel_buffer_unref(buf2);
	accel_device_unref(dev2);
	accel_context_unref(ctx2);
	test_log_fini(&log2);

	/* samplers */
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_FILTER_NEAREST), 0);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_NORMALIZED_COORDS |
			ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT |
			ACCEL_SAMPLER_FILTER_LINEAR), 0);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_ADDRESS_CLAMP), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_FILTER_MASK), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			0x0a | ACCEL_SAMPLER_FILTER_NEAREST), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			0x40 | ACCEL_SAMPLER_FILTER_NEAREST), -EINVAL);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 0,
			ACCEL_SAMPLER_FILTER_NEAREST), -ENOTTY);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 9,
			ACCEL_SAMPLER_FILTER_NEAREST), -ERANGE);
	assert_int_equal(accel_kernel_set_arg_sampler(NULL, 1,
			ACCEL_SAMPLER_FILTER_NEAREST), -EINVAL);

	accel_buffer_unref(buf);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* Fill @buf's image (@l resolved) with texel (x, y) = x | y << 8 | tag. */
static void fill_image(struct test_env *env, struct accel_buffer *buf,
		       const struct accel_image_layout *l, uint32_t tag)
{
	uint64_t size = l->offset + l->height * l->row_pitch;
	uint8_t *host = calloc(1, size);

	assert_non_null(host);
	for (uint64_t y = 0; y < l->height; y++)
		for (uint64_t x = 0; x < l->width; x++) {
			uint32_t v = (uint32_t)(x | y << 8) | tag;

			memcpy(host + l->offset + y * l->row_pitch + x * 4, &v,
			       4);
		}
	test_write(env, buf, 0, size, host);
	free(host);
}

static void *buffer_address(struct accel_buffer *buf)
{
	void *p = NULL;

	/* the CPU device maps its buffers where they are */
	assert_int_equal(accel_buffer_map(buf, 0, accel_buffer_get_size(buf),
					  ACCEL_MAP_READ, &p),
			 0);
	assert_int_equal(accel_buffer_unmap(buf, p), 0);
	return p;
}

static void check_seen(struct test_env *env, struct accel_buffer *out,
		       struct accel_buffer *img,
		       const struct accel_image_layout *l, uint32_t sampler,
		       uint32_t tag)
{
	struct seen s;

	test_read(env, out, 0, sizeof(s), &s);
	assert_int_equal(s.calls, 1);
	assert_true(s.data == (uint64_t)(uintptr_t)buffer_address(img) +
				      l->offset);
	assert_int_equal(s.row_pitch, l->row_pitch);
	assert_int_equal(s.slice_pitch, l->row_pitch * l->height);
	assert_int_equal(s.width, l->width);
	assert_int_equal(s.height, l->height);
	assert_int_equal(s.depth, 1);
	assert_int_equal(s.array_size, 1);
	assert_int_equal(s.type, ACCEL_IMAGE_2D);
	assert_int_equal(s.channel_order, l->channel_order);
	assert_int_equal(s.channel_type, l->channel_type);
	assert_int_equal(s.texel_size, 4);
	assert_int_equal(s.sampler, sampler);
	assert_int_equal(s.texel, 1u | 2u << 8 | tag);
}

void test_native_launch(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog), *clone = NULL;
	struct accel_buffer *img = test_buffer_new(env, 8192);
	struct accel_buffer *depth = test_buffer_new(env, 64);
	struct accel_buffer *out = test_buffer_new(env, sizeof(struct seen));
	struct accel_image_layout l = layout2d(5, 3);
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 1, 0, 0);
	struct accel_image_layout dl = layout2d(2, 2);
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	uint32_t sampler = ACCEL_SAMPLER_NORMALIZED_COORDS |
			   ACCEL_SAMPLER_ADDRESS_REPEAT |
			   ACCEL_SAMPLER_FILTER_LINEAR;
	struct seen zero = { 0 };

	l.row_pitch = 24; /* 5 texels and 4 bytes of padding */
	l.offset = 256;
	dl.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	dl.channel_type = ACCEL_IMAGE_DATA_FLOAT;
	fill_image(env, img, &l, 0xab000000u);
	test_write(env, out, 0, sizeof(zero), &zero);

	/* unset image and sampler arguments stop the launch */
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, out), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 3, depth, &dl), 0);
	assert_int_equal(accel_kernel_check_launch(k, &r, &c), 0);
	assert_int_equal(c.error, -ENOEXEC);
	assert_int_equal(c.reason, ACCEL_LAUNCH_ARG_NOT_SET);
	assert_int_equal(c.arg_index, 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, img, &l), 0);
	assert_int_equal(accel_kernel_check_launch(k, &r, &c), 0);
	assert_int_equal(c.arg_index, 1);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1, sampler), 0);

	test_launch_wait(env, k, &r);
	check_seen(env, out, img, &l, sampler, 0xab000000u);

	/*
	 * A clone holds its own reference on the image's buffer: the
	 * kernel's changes and the caller's unref do not reach it.
	 */
	assert_int_equal(accel_kernel_clone(k, &clone), 0);
	{
		struct accel_image_layout other = layout2d(3, 3);
		struct accel_buffer *img2 = test_buffer_new(env, 4096);

		assert_int_equal(accel_kernel_set_arg_image(k, 0, img2,
							    &other),
				 0);
		accel_buffer_unref(img2);
	}
	test_write(env, out, 0, sizeof(zero), &zero);
	test_launch_wait(env, clone, &r);
	check_seen(env, out, img, &l, sampler, 0xab000000u);

	/* a sub-buffer: data is the sub-buffer's address + the offset */
	{
		struct accel_buffer *sub = NULL;
		struct accel_image_layout sl = l;

		assert_int_equal(accel_buffer_new_sub(img, 128, 4096, 0, &sub),
				 0);
		sl.offset = 128; /* the same texels, from the sub-buffer */
		assert_int_equal(accel_kernel_set_arg_image(k, 0, sub, &sl),
				 0);
		test_write(env, out, 0, sizeof(zero), &zero);
		test_launch_wait(env, k, &r);
		check_seen(env, out, sub, &sl, sampler, 0xab000000u);
		accel_buffer_unref(sub);
	}

	accel_kernel_unref(clone);
	accel_buffer_unref(img);
	accel_buffer_unref(depth);
	accel_buffer_unref(out);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

/* A recorded launch keeps its image; an update replaces it. */
void test_cmdlist(void **state)
{
	struct test_env *env = *state;
	struct accel_program *prog = NULL;
	struct accel_kernel *k = look_kernel(env, &prog);
	struct accel_buffer *img = test_buffer_new(env, 4096);
	struct accel_buffer *img2 = test_buffer_new(env, 4096);
	struct accel_buffer *depth = test_buffer_new(env, 64);
	struct accel_buffer *out = test_buffer_new(env, sizeof(struct seen));
	struct accel_image_layout l = layout2d(4, 4), dl = layout2d(2, 2);
	struct accel_ndrange r = test_ndrange(1, 1, 0, 0, 1, 0, 0);
	struct accel_cmdlist *list = NULL;
	struct accel_fence *f = NULL;
	struct seen zero = { 0 };
	uint32_t point;

	assert_int_equal(accel_image_layout_resolve(env->dev, &l, &l, NULL),
			 0);
	dl.channel_order = ACCEL_IMAGE_ORDER_DEPTH;
	dl.channel_type = ACCEL_IMAGE_DATA_UNORM_INT16;
	fill_image(env, img, &l, 0x11000000u);
	fill_image(env, img2, &l, 0x22000000u);
	assert_int_equal(accel_kernel_set_arg_image(k, 0, img, &l), 0);
	assert_int_equal(accel_kernel_set_arg_sampler(k, 1,
			ACCEL_SAMPLER_FILTER_NEAREST), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 2, out), 0);
	assert_int_equal(accel_kernel_set_arg_image(k, 3, depth, &dl), 0);

	assert_int_equal(accel_cmdlist_new(env->dev, 0, &list), 0);
	assert_int_equal(accel_cmdlist_launch(list, k, &r, 0, NULL, &point),
			 0);
	assert_int_equal(accel_cmdlist_finalize(list), 0);
	/* changing the kernel after recording changes nothing recorded */
	assert_int_equal(accel_kernel_set_arg_image(k, 0, img2, &l), 0);
	test_write(env, out, 0, sizeof(zero), &zero);
	assert_int_equal(accel_queue_submit_list(env->queue, list, 0, NULL,
						 &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	check_seen(env, out, img, &l, ACCEL_SAMPLER_FILTER_NEAREST,
		   0x11000000u);

	assert_int_equal(accel_cmdlist_update_launch(list, point, k, NULL),
			 0);
	test_write(env, out, 0, sizeof(zero), &zero);
	assert_int_equal(accel_queue_submit_list(env->queue, list, 0, NULL,
						 &f),
			 0);
	assert_int_equal(test_wait_unref(f), 0);
	check_seen(env, out, img2, &l, ACCEL_SAMPLER_FILTER_NEAREST,
		   0x22000000u);

	accel_cmdlist_unref(list);
	accel_buffer_unref(img);
	accel_buffer_unref(img2);
	accel_buffer_unref(depth);
	accel_buffer_unref(out);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}
