/* SPDX-License-Identifier: MIT */
/*
 * Image transfers through the ICD: read, write, copy, fill, map and
 * image<->buffer copies, with pitches, and the errors of regions.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-image-test.h"

/* Texel (x, y, z) of a test pattern. */
static uint32_t texel(size_t x, size_t y, size_t z)
{
	return (uint32_t)(x | y << 8 | z << 16 | 0x80000000u);
}

/* Write a whole image with host pitches, read it back with others. */
static void round_trip(struct icd_env *env, cl_mem m, size_t w, size_t h,
		       size_t d, bool array1d)
{
	/* 1D arrays: layers are region[1], and the host slice pitch */
	size_t region[3] = { w, h, d }, origin[3] = { 0, 0, 0 };
	size_t rp = w * 4 + 12, sp = rp * (array1d ? 1 : h) + 20;
	size_t rp2 = w * 4, sp2 = 0, x, y, z;
	uint32_t *in, *out;
	char *p;

	in = calloc(1, sp * d * (array1d ? h : 1) + sp);
	out = calloc(4, w * h * d);
	assert_non_null(in);
	assert_non_null(out);
	for (z = 0; z < d; z++)
		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++) {
				p = (char *)in + (array1d ? y * sp :
							    z * sp + y * rp);
				memcpy(p + x * 4, &(uint32_t){ texel(x, y, z) },
				       4);
			}
	CL_OK(clEnqueueWriteImage(env->queue, m, CL_FALSE, origin, region, rp,
				  array1d || d > 1 ? sp : 0, in, 0, NULL,
				  NULL));
	CL_OK(clEnqueueReadImage(env->queue, m, CL_TRUE, origin, region, rp2,
				 sp2, out, 0, NULL, NULL));
	for (z = 0; z < d; z++)
		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++)
				assert_int_equal(out[(z * h + y) * w + x],
						 texel(x, y, z));
	/* one texel inside, by origin */
	origin[0] = w - 1;
	origin[1] = h - 1;
	origin[2] = d - 1;
	region[0] = region[1] = region[2] = 1;
	CL_OK(clEnqueueReadImage(env->queue, m, CL_TRUE, origin, region, 0, 0,
				 out, 0, NULL, NULL));
	assert_int_equal(out[0], texel(w - 1, h - 1, d - 1));
	free(in);
	free(out);
}

void test_read_write(void **state)
{
	struct icd_env *env = *state;
	cl_image_format f = RGBA8;
	cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D,
			       .image_width = 5,
			       .image_height = 3,
			       .image_row_pitch = 32 };
	uint32_t host[8 * 3], out[5 * 3], v;
	size_t origin[3] = { 0, 0, 0 }, region[3] = { 5, 3, 1 }, x, y;
	void *hp = NULL;
	cl_mem m;
	cl_int err;

	need_images(env);
	m = make_image(env, 0, CL_MEM_OBJECT_IMAGE1D, 33, 0, 0, 0, NULL);
	round_trip(env, m, 33, 1, 1, false);
	CL_OK(clReleaseMemObject(m));
	m = make_image(env, 0, CL_MEM_OBJECT_IMAGE1D_ARRAY, 9, 0, 0, 4, NULL);
	round_trip(env, m, 9, 4, 1, true);
	CL_OK(clReleaseMemObject(m));
	m = make_image(env, 0, CL_MEM_OBJECT_IMAGE2D, 7, 5, 0, 0, NULL);
	round_trip(env, m, 7, 5, 1, false);
	CL_OK(clReleaseMemObject(m));
	m = make_image(env, 0, CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 5, 0, 3, NULL);
	round_trip(env, m, 7, 5, 3, false);
	CL_OK(clReleaseMemObject(m));
	m = make_image(env, 0, CL_MEM_OBJECT_IMAGE3D, 6, 4, 3, 0, NULL);
	round_trip(env, m, 6, 4, 3, false);
	CL_OK(clReleaseMemObject(m));

	/* USE_HOST_PTR with a row pitch: the host memory is the image */
	for (y = 0; y < 3; y++)
		for (x = 0; x < 8; x++)
			host[y * 8 + x] = x < 5 ? texel(x, y, 0) : 0xdeadbeef;
	m = clCreateImage(env->ctx, CL_MEM_USE_HOST_PTR, &f, &desc, host,
			  &err);
	CL_OK(err);
	assert_int_equal(image_size(m, CL_IMAGE_ROW_PITCH), 32);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
	assert_ptr_equal(hp, host);
	CL_OK(clEnqueueReadImage(env->queue, m, CL_TRUE, origin, region, 0, 0,
				 out, 0, NULL, NULL));
	for (y = 0; y < 3; y++)
		for (x = 0; x < 5; x++)
			assert_int_equal(out[y * 5 + x], texel(x, y, 0));
	v = 0x01020304;
	origin[0] = 4;
	origin[1] = 2;
	region[0] = region[1] = 1;
	CL_OK(clEnqueueWriteImage(env->queue, m, CL_TRUE, origin, region, 0, 0,
				  &v, 0, NULL, NULL));
	assert_int_equal(host[2 * 8 + 4], v);
	assert_int_equal(host[2 * 8 + 5], 0xdeadbeef);
	CL_OK(clReleaseMemObject(m));

	/* COPY_HOST_PTR with a row pitch: copied in, tight afterwards */
	m = clCreateImage(env->ctx, CL_MEM_COPY_HOST_PTR, &f, &desc, host,
			  &err);
	CL_OK(err);
	memset(host, 0, sizeof(host));
	origin[0] = origin[1] = 0;
	region[0] = 5;
	region[1] = 3;
	CL_OK(clEnqueueReadImage(env->queue, m, CL_TRUE, origin, region, 0, 0,
				 out, 0, NULL, NULL));
	for (y = 0; y < 3; y++)
		for (x = 0; x < 5; x++)
			assert_int_equal(out[y * 5 + x],
					 y == 2 && x == 4 ? 0x01020304 :
							    texel(x, y, 0));
	CL_OK(clReleaseMemObject(m));
}

void test_region_errors(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 0, 0, 0 }, r[3] = { 4, 4, 1 };
	uint32_t buf[64];
	cl_mem m, m1, ro;
	cl_int err;

	need_images(env);
	m = make_image(env, 0, CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, NULL);
	m1 = make_image(env, 0, CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 2, NULL);
#define RD(img, oo, rr, rp, sp, p)                                             \
	clEnqueueReadImage(env->queue, img, CL_TRUE, oo, rr, rp, sp, p, 0,     \
			   NULL, NULL)
	CL_OK(RD(m, o, r, 0, 0, buf));
	assert_int_equal(RD(NULL, o, r, 0, 0, buf), CL_INVALID_MEM_OBJECT);
	assert_int_equal(clEnqueueReadImage(NULL, m, CL_TRUE, o, r, 0, 0, buf,
					    0, NULL, NULL),
			 CL_INVALID_COMMAND_QUEUE);
	assert_int_equal(RD(m, NULL, r, 0, 0, buf), CL_INVALID_VALUE);
	assert_int_equal(RD(m, o, NULL, 0, 0, buf), CL_INVALID_VALUE);
	assert_int_equal(RD(m, o, r, 0, 0, NULL), CL_INVALID_VALUE);
	/* beyond the image, a region of 0, a 2D image's third dimension */
	o[0] = 1;
	assert_int_equal(RD(m, o, r, 0, 0, buf), CL_INVALID_VALUE);
	o[0] = SIZE_MAX;
	assert_int_equal(RD(m, o, r, 0, 0, buf), CL_INVALID_VALUE);
	o[0] = 0;
	r[0] = 0;
	assert_int_equal(RD(m, o, r, 0, 0, buf), CL_INVALID_VALUE);
	r[0] = 4;
	r[2] = 2;
	assert_int_equal(RD(m, o, r, 0, 0, buf), CL_INVALID_VALUE);
	r[2] = 1;
	o[2] = 1;
	assert_int_equal(RD(m, o, r, 0, 0, buf), CL_INVALID_VALUE);
	o[2] = 0;
	/* host pitches: short rows, a slice pitch for a 2D image */
	assert_int_equal(RD(m, o, r, 15, 0, buf), CL_INVALID_VALUE);
	assert_int_equal(RD(m, o, r, 16, 64, buf), CL_INVALID_VALUE);
	/* a host end past the address space */
	assert_int_equal(RD(m, o, r, SIZE_MAX / 2, 0, buf), CL_INVALID_VALUE);
	/* 1D arrays: origin[1] is the layer */
	r[1] = 2;
	CL_OK(RD(m1, o, r, 0, 0, buf));
	o[1] = 1;
	assert_int_equal(RD(m1, o, r, 0, 0, buf), CL_INVALID_VALUE);
	r[1] = 1;
	CL_OK(RD(m1, o, r, 0, 0, buf));
	o[1] = 0;
	assert_int_equal(RD(m1, o, r, 16, 8, buf), CL_INVALID_VALUE);
	/* host access */
	ro = clCreateImage2D(env->ctx, CL_MEM_HOST_WRITE_ONLY,
			     &(cl_image_format)RGBA8, 4, 4, 0, NULL, &err);
	CL_OK(err);
	r[1] = 4;
	assert_int_equal(RD(ro, o, r, 0, 0, buf), CL_INVALID_OPERATION);
	CL_OK(clEnqueueWriteImage(env->queue, ro, CL_TRUE, o, r, 0, 0, buf, 0,
				  NULL, NULL));
	assert_null(clEnqueueMapImage(env->queue, ro, CL_TRUE, CL_MAP_READ, o,
				      r, &(size_t){ 0 }, NULL, 0, NULL, NULL,
				      &err));
	assert_int_equal(err, CL_INVALID_OPERATION);
	CL_OK(clReleaseMemObject(ro));
	/* wait lists */
	assert_int_equal(clEnqueueReadImage(env->queue, m, CL_TRUE, o, r, 0, 0,
					    buf, 1, NULL, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
#undef RD
	CL_OK(clReleaseMemObject(m1));
	CL_OK(clReleaseMemObject(m));
}

void test_copy_fill(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 0, 0, 0 }, o2[3] = { 0, 0, 0 }, r[3] = { 4, 4, 1 };
	float red[4] = { 1.0f, 0.0f, 0.0f, 1.0f };
	cl_image_format u32 = { CL_RGBA, CL_UNSIGNED_INT32 };
	uint32_t in[16], out[64], ucol[4] = { 1, 2, 3, 0xffffffffu };
	cl_mem a, b3, c, other;
	cl_event ev;
	cl_int err;
	size_t i;

	need_images(env);
	for (i = 0; i < 16; i++)
		in[i] = texel(i % 4, i / 4, 0);
	a = make_image(env, 0, CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, NULL);
	b3 = make_image(env, 0, CL_MEM_OBJECT_IMAGE3D, 4, 4, 3, 0, NULL);
	CL_OK(clEnqueueWriteImage(env->queue, a, CL_FALSE, o, r, 0, 0, in, 0,
				  NULL, NULL));
	/* a 2D image into slice 2 of a 3D image */
	o2[2] = 2;
	CL_OK(clEnqueueCopyImage(env->queue, a, b3, o, o2, r, 0, NULL, &ev));
	CL_OK(clEnqueueReadImage(env->queue, b3, CL_TRUE, o2, r, 0, 0, out, 1,
				 &ev, NULL));
	assert_memory_equal(in, out, sizeof(in));
	CL_OK(clReleaseEvent(ev));
	/* overlap within one image, region beyond, format mismatch */
	r[0] = 3;
	o2[2] = 0;
	o2[0] = 1;
	assert_int_equal(clEnqueueCopyImage(env->queue, a, a, o, o2, r, 0,
					    NULL, NULL),
			 CL_MEM_COPY_OVERLAP);
	r[0] = 4;
	assert_int_equal(clEnqueueCopyImage(env->queue, a, a, o, o2, r, 0,
					    NULL, NULL),
			 CL_INVALID_VALUE);
	o2[0] = 0;
	c = clCreateImage2D(env->ctx, 0, &u32, 4, 4, 0, NULL, &err);
	CL_OK(err);
	assert_int_equal(clEnqueueCopyImage(env->queue, a, c, o, o2, r, 0,
					    NULL, NULL),
			 CL_IMAGE_FORMAT_MISMATCH);

	/* fill: the colour as write_imagef would store it */
	r[0] = 2;
	r[1] = 3;
	o[0] = 1;
	o[1] = 1;
	CL_OK(clEnqueueFillImage(env->queue, a, red, o, r, 0, NULL, NULL));
	o[0] = o[1] = 0;
	r[0] = r[1] = 4;
	CL_OK(clEnqueueReadImage(env->queue, a, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	for (i = 0; i < 16; i++) {
		bool in_box = i % 4 >= 1 && i % 4 <= 2 && i / 4 >= 1;
		uint32_t want = in_box ? 0xff0000ffu : in[i];

		assert_int_equal(out[i], want);
	}
	CL_OK(clEnqueueFillImage(env->queue, c, ucol, o, r, 0, NULL, NULL));
	CL_OK(clEnqueueReadImage(env->queue, c, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	for (i = 0; i < 16; i++)
		assert_memory_equal(&out[i * 4], ucol, sizeof(ucol));
	assert_int_equal(clEnqueueFillImage(env->queue, a, NULL, o, r, 0, NULL,
					    NULL),
			 CL_INVALID_VALUE);
	r[0] = 5;
	assert_int_equal(clEnqueueFillImage(env->queue, a, red, o, r, 0, NULL,
					    NULL),
			 CL_INVALID_VALUE);
	/* a buffer is no image */
	other = clCreateBuffer(env->ctx, 0, 16, NULL, &err);
	CL_OK(err);
	r[0] = 4;
	assert_int_equal(clEnqueueFillImage(env->queue, other, red, o, r, 0,
					    NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	CL_OK(clReleaseMemObject(other));
	CL_OK(clReleaseMemObject(c));
	CL_OK(clReleaseMemObject(b3));
	CL_OK(clReleaseMemObject(a));
}

void test_image_buffer_copies(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 1, 0, 1 }, r[3] = { 3, 2, 2 }, i;
	uint32_t in[4 * 3 * 3], out[64];
	cl_mem img, buf;
	cl_int err;

	need_images(env);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(in); i++)
		in[i] = (uint32_t)i * 0x01010101u;
	img = make_image(env, 0, CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 0, 3, NULL);
	buf = clCreateBuffer(env->ctx, 0, 256, NULL, &err);
	CL_OK(err);
	{
		size_t zo[3] = { 0, 0, 0 }, all[3] = { 4, 3, 3 };

		CL_OK(clEnqueueWriteImage(env->queue, img, CL_FALSE, zo, all,
					  0, 0, in, 0, NULL, NULL));
	}
	/* the box lands tightly at the buffer offset */
	CL_OK(clEnqueueCopyImageToBuffer(env->queue, img, buf, o, r, 8, 0,
					 NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 8, 12 * 4, out, 0,
				  NULL, NULL));
	for (i = 0; i < 12; i++) {
		size_t x = 1 + i % 3, y = i / 3 % 2, z = 1 + i / 6;

		assert_int_equal(out[i], in[(z * 3 + y) * 4 + x]);
	}
	/* and back, somewhere else */
	o[0] = 0;
	o[2] = 0;
	CL_OK(clEnqueueCopyBufferToImage(env->queue, buf, img, 8, o, r, 0,
					 NULL, NULL));
	CL_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	for (i = 0; i < 12; i++) {
		size_t x = 1 + i % 3, y = i / 3 % 2, z = 1 + i / 6;

		assert_int_equal(out[i], in[(z * 3 + y) * 4 + x]);
	}
	/* errors: beyond the buffer, wrong kinds of objects */
	assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, img, buf, o, r,
						    256 - 12 * 4 + 4, 0, NULL,
						    NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, buf, buf, o, r,
						    0, 0, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(clEnqueueCopyBufferToImage(env->queue, img, img, 0, o,
						    r, 0, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(clEnqueueCopyBufferToImage(env->queue, buf, img,
						    SIZE_MAX, o, r, 0, NULL,
						    NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseMemObject(buf));
	CL_OK(clReleaseMemObject(img));
}

void test_map(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 1, 1, 1 }, r[3] = { 2, 2, 2 }, rp = 0, sp = 0, x, y,
	       z;
	uint32_t out[4 * 4 * 3];
	cl_mem img;
	cl_uint count;
	cl_int err;
	char *p;

	need_images(env);
	img = make_image(env, 0, CL_MEM_OBJECT_IMAGE3D, 4, 4, 3, 0, NULL);
	p = clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_WRITE, o, r,
			      &rp, &sp, 0, NULL, NULL, &err);
	CL_OK(err);
	assert_non_null(p);
	assert_true(rp >= 16 && sp >= rp * 4);
	CL_OK(clGetMemObjectInfo(img, CL_MEM_MAP_COUNT, sizeof(count), &count,
				 NULL));
	assert_int_equal(count, 1);
	for (z = 0; z < 2; z++)
		for (y = 0; y < 2; y++)
			for (x = 0; x < 2; x++) {
				uint32_t t = texel(x + 1, y + 1, z + 1);

				memcpy(p + z * sp + y * rp + x * 4, &t, 4);
			}
	CL_OK(clEnqueueUnmapMemObject(env->queue, img, p, 0, NULL, NULL));
	CL_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	for (z = 0; z < 2; z++)
		for (y = 0; y < 2; y++)
			for (x = 0; x < 2; x++)
				assert_int_equal(out[(z * 2 + y) * 2 + x],
						 texel(x + 1, y + 1, z + 1));
	/* a 3D image needs the slice pitch; all need the row pitch */
	assert_null(clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ, o,
				      r, &rp, NULL, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ, o,
				      r, NULL, &sp, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	r[2] = 3;
	assert_null(clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ, o,
				      r, &rp, &sp, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	r[2] = 1;
	assert_null(clEnqueueMapImage(env->queue, img, CL_TRUE,
				      CL_MAP_READ |
					      CL_MAP_WRITE_INVALIDATE_REGION,
				      o, r, &rp, &sp, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	CL_OK(clGetMemObjectInfo(img, CL_MEM_MAP_COUNT, sizeof(count), &count,
				 NULL));
	assert_int_equal(count, 0);
	/* a 2D image: no slice pitch needed, 0 if given */
	CL_OK(clReleaseMemObject(img));
	img = make_image(env, 0, CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, NULL);
	o[2] = 0;
	sp = 99;
	p = clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ, o, r, &rp,
			      &sp, 0, NULL, NULL, &err);
	CL_OK(err);
	assert_int_equal(sp, 0);
	CL_OK(clEnqueueUnmapMemObject(env->queue, img, p, 0, NULL, NULL));
	CL_OK(clReleaseMemObject(img));
}
