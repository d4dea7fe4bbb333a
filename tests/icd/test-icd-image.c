/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers through the ICD loader: device queries, formats,
 * creation and information for every type, images from buffers and
 * images, transfers (read, write, copy, fill, map, image<->buffer) with
 * pitches, the command-buffer image commands, samplers, kernels that
 * sample and write images, and the errors of each (hostile sizes
 * included). Skips on a device without images.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-command-buffer.h"

#define RGBA8 { CL_RGBA, CL_UNORM_INT8 }

static void need_images(struct icd_env *env)
{
	cl_bool images = CL_FALSE;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT,
			      sizeof(images), &images, NULL));
	if (!images)
		skip();
}

static cl_mem image(struct icd_env *env, cl_mem_flags flags,
		    cl_mem_object_type type, size_t w, size_t h, size_t d,
		    size_t layers, void *host)
{
	cl_image_format f = RGBA8;
	cl_image_desc desc = {
		.image_type = type,
		.image_width = w,
		.image_height = h,
		.image_depth = d,
		.image_array_size = layers,
	};
	cl_int err = CL_SUCCESS;
	cl_mem m = clCreateImage(env->ctx, flags, &f, &desc, host, &err);

	CL_OK(err);
	assert_non_null(m);
	return m;
}

static size_t image_size(cl_mem m, cl_image_info param)
{
	size_t v = 12345;

	CL_OK(clGetImageInfo(m, param, sizeof(v), &v, NULL));
	return v;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static void test_device_info(void **state)
{
	struct icd_env *env = *state;
	cl_name_version nv[64];
	char ext[8192];
	size_t s = 0, n;
	cl_uint u = 0;
	bool images = false, rw = false, w3d = false;

	need_images(env);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_WIDTH,
			      sizeof(s), &s, NULL));
	assert_true(s >= 2048);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_DEPTH,
			      sizeof(s), &s, NULL));
	assert_true(s >= 2);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE,
			      sizeof(s), &s, NULL));
	assert_true(s >= 2);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
			      sizeof(s), &s, NULL));
	assert_true(s >= 2048);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_READ_IMAGE_ARGS,
			      sizeof(u), &u, NULL));
	assert_true(u >= 8);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WRITE_IMAGE_ARGS,
			      sizeof(u), &u, NULL));
	assert_true(u >= 1);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_SAMPLERS, sizeof(u),
			      &u, NULL));
	assert_true(u >= 8);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT,
			      sizeof(u), &u, NULL));
	assert_true(u >= 1);
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext),
			      ext, NULL));
	assert_true(has_word(ext, "cl_khr_image2d_from_buffer"));
	assert_true(has_word(ext, "cl_khr_3d_image_writes"));
	assert_true(has_word(ext, "cl_khr_depth_images"));
	if (!icd_test_have_compiler(env))
		return;
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES,
			      sizeof(nv), nv, &s));
	for (n = 0; n < s / sizeof(nv[0]); n++) {
		images |= !strcmp(nv[n].name, "__opencl_c_images");
		rw |= !strcmp(nv[n].name, "__opencl_c_read_write_images");
		w3d |= !strcmp(nv[n].name, "__opencl_c_3d_image_writes");
	}
	assert_true(images && rw && w3d);
}

static void test_formats(void **state)
{
	static const cl_mem_object_type types[] = {
		CL_MEM_OBJECT_IMAGE1D,	     CL_MEM_OBJECT_IMAGE1D_BUFFER,
		CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
		CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D,
	};
	struct icd_env *env = *state;
	cl_image_format f[256];
	cl_uint n, m, i, t;
	bool rgba;

	need_images(env);
	for (t = 0; t < ICD_TEST_ARRAY_SIZE(types); t++) {
		n = 0;
		CL_OK(clGetSupportedImageFormats(env->ctx, CL_MEM_READ_WRITE,
						 types[t], 0, NULL, &n));
		assert_true(n > 0 && n <= 256);
		CL_OK(clGetSupportedImageFormats(env->ctx, CL_MEM_READ_WRITE,
						 types[t], n, f, &m));
		assert_int_equal(m, n);
		for (rgba = false, i = 0; i < n; i++)
			rgba |= f[i].image_channel_order == CL_RGBA &&
				f[i].image_channel_data_type == CL_UNORM_INT8;
		assert_true(rgba);
		/* read-only images: at least those of read and write */
		CL_OK(clGetSupportedImageFormats(env->ctx, CL_MEM_READ_ONLY,
						 types[t], 0, NULL, &m));
		assert_true(m >= n);
		CL_OK(clGetSupportedImageFormats(
			env->ctx, CL_MEM_KERNEL_READ_AND_WRITE, types[t], 0,
			NULL, &m));
		assert_true(m <= n);
	}
	/* fewer entries than formats: as many as fit */
	f[1].image_channel_order = 0x4242;
	CL_OK(clGetSupportedImageFormats(env->ctx, 0, CL_MEM_OBJECT_IMAGE2D, 1,
					 f, NULL));
	assert_int_equal(f[1].image_channel_order, 0x4242);
	assert_int_equal(clGetSupportedImageFormats(NULL, 0,
						    CL_MEM_OBJECT_IMAGE2D, 0,
						    NULL, &n),
			 CL_INVALID_CONTEXT);
	assert_int_equal(clGetSupportedImageFormats(env->ctx, 0,
						    CL_MEM_OBJECT_BUFFER, 0,
						    NULL, &n),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetSupportedImageFormats(env->ctx, 0, 0x4242, 0,
						    NULL, &n),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetSupportedImageFormats(env->ctx, 0,
						    CL_MEM_OBJECT_IMAGE2D, 0,
						    f, &n),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetSupportedImageFormats(env->ctx, (cl_mem_flags)1
								      << 40,
						    CL_MEM_OBJECT_IMAGE2D, 0,
						    NULL, &n),
			 CL_INVALID_VALUE);
	assert_int_equal(clGetSupportedImageFormats(
				 env->ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
				 CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
			 CL_INVALID_VALUE);
}

static void test_create_info(void **state)
{
	static const struct {
		cl_mem_object_type type;
		size_t w, h, d, layers;
		/* what clGetImageInfo answers */
		size_t qh, qd, qa;
	} c[] = {
		{ CL_MEM_OBJECT_IMAGE1D, 17, 0, 0, 0, 0, 0, 0 },
		{ CL_MEM_OBJECT_IMAGE1D_ARRAY, 17, 0, 0, 3, 0, 0, 3 },
		{ CL_MEM_OBJECT_IMAGE2D, 17, 5, 0, 0, 5, 0, 0 },
		{ CL_MEM_OBJECT_IMAGE2D_ARRAY, 17, 5, 0, 3, 5, 0, 3 },
		{ CL_MEM_OBJECT_IMAGE3D, 17, 5, 4, 0, 5, 4, 0 },
	};
	struct icd_env *env = *state;
	cl_image_format f = RGBA8, fq;
	cl_mem_object_type type;
	cl_mem m, assoc;
	cl_uint u;
	size_t i, size;

	need_images(env);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(c); i++) {
		m = image(env, CL_MEM_READ_WRITE, c[i].type, c[i].w, c[i].h,
			  c[i].d, c[i].layers, NULL);
		CL_OK(clGetImageInfo(m, CL_IMAGE_FORMAT, sizeof(fq), &fq,
				     NULL));
		assert_memory_equal(&fq, &f, sizeof(f));
		assert_int_equal(image_size(m, CL_IMAGE_ELEMENT_SIZE), 4);
		assert_int_equal(image_size(m, CL_IMAGE_WIDTH), 17);
		assert_int_equal(image_size(m, CL_IMAGE_HEIGHT), c[i].qh);
		assert_int_equal(image_size(m, CL_IMAGE_DEPTH), c[i].qd);
		assert_int_equal(image_size(m, CL_IMAGE_ARRAY_SIZE), c[i].qa);
		assert_true(image_size(m, CL_IMAGE_ROW_PITCH) >= 17 * 4);
		if (c[i].qd || c[i].qa)
			assert_true(image_size(m, CL_IMAGE_SLICE_PITCH) >=
				    image_size(m, CL_IMAGE_ROW_PITCH));
		else
			assert_int_equal(image_size(m, CL_IMAGE_SLICE_PITCH),
					 0);
		assert_null((void *)image_size(m, CL_IMAGE_BUFFER));
		CL_OK(clGetImageInfo(m, CL_IMAGE_NUM_MIP_LEVELS, sizeof(u), &u,
				     NULL));
		assert_int_equal(u, 0);
		CL_OK(clGetImageInfo(m, CL_IMAGE_NUM_SAMPLES, sizeof(u), &u,
				     NULL));
		assert_int_equal(u, 0);
		CL_OK(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof(type), &type,
					 NULL));
		assert_int_equal(type, c[i].type);
		CL_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size,
					 NULL));
		assert_true(size >= 17 * 4 * (c[i].qh ? c[i].qh : 1) *
					    (c[i].qd ? c[i].qd : 1) *
					    (c[i].qa ? c[i].qa : 1));
		CL_OK(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT,
					 sizeof(assoc), &assoc, NULL));
		assert_null(assoc);
		assert_int_equal(clGetImageInfo(m, 0x4242, sizeof(size), &size,
						NULL),
				 CL_INVALID_VALUE);
		CL_OK(clReleaseMemObject(m));
	}
	/* OpenCL 1.1 constructors */
	m = clCreateImage2D(env->ctx, CL_MEM_READ_WRITE, &f, 9, 7, 0, NULL,
			    NULL);
	assert_non_null(m);
	assert_int_equal(image_size(m, CL_IMAGE_HEIGHT), 7);
	CL_OK(clReleaseMemObject(m));
	m = clCreateImage3D(env->ctx, CL_MEM_READ_WRITE, &f, 9, 7, 3, 0, 0,
			    NULL, NULL);
	assert_non_null(m);
	assert_int_equal(image_size(m, CL_IMAGE_DEPTH), 3);
	CL_OK(clReleaseMemObject(m));
	/* clGetImageInfo on a buffer */
	m = clCreateBuffer(env->ctx, 0, 64, NULL, NULL);
	assert_int_equal(clGetImageInfo(m, CL_IMAGE_WIDTH, sizeof(size), &size,
					NULL),
			 CL_INVALID_MEM_OBJECT);
	CL_OK(clReleaseMemObject(m));
}

static void test_from_buffer(void **state)
{
	struct icd_env *env = *state;
	cl_image_format f = RGBA8;
	cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER,
			       .image_width = 64 };
	unsigned char in[64 * 4], out[64 * 4];
	size_t origin[3] = { 0, 0, 0 }, region[3] = { 64, 1, 1 }, size;
	cl_uint align = 0;
	cl_mem buf, img, img2, view, q;
	cl_mem_flags flags;
	cl_int err;
	unsigned i;

	need_images(env);
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7);
	buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			     sizeof(in), in, &err);
	CL_OK(err);
	desc.mem_object = buf;
	img = clCreateImage(env->ctx, 0, &f, &desc, NULL, &err);
	CL_OK(err);
	/* the buffer's memory: the texels it has, flags inherited */
	CL_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, region, 0,
				 0, out, 0, NULL, NULL));
	assert_memory_equal(in, out, sizeof(in));
	q = NULL;
	CL_OK(clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof(q), &q, NULL));
	assert_ptr_equal(q, buf);
	CL_OK(clGetMemObjectInfo(img, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(q),
				 &q, NULL));
	assert_ptr_equal(q, buf);
	CL_OK(clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof(flags), &flags,
				 NULL));
	assert_true(flags & CL_MEM_READ_ONLY);
	/* the buffer may go first: the image holds it */
	CL_OK(clReleaseMemObject(buf));
	memset(out, 0, sizeof(out));
	CL_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, region, 0,
				 0, out, 0, NULL, NULL));
	assert_memory_equal(in, out, sizeof(in));
	CL_OK(clReleaseMemObject(img));

	/* errors: wider than the buffer, host pointer flags, access */
	buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY, sizeof(in), NULL,
			     &err);
	CL_OK(err);
	desc.mem_object = buf;
	desc.image_width = 65;
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
	desc.image_width = 64;
	assert_null(clCreateImage(env->ctx, CL_MEM_USE_HOST_PTR, &f, &desc,
				  in, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateImage(env->ctx, CL_MEM_WRITE_ONLY, &f, &desc,
				  NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	/* a 1D buffer image needs a buffer; other types take none */
	desc.mem_object = NULL;
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	desc.image_type = CL_MEM_OBJECT_IMAGE3D;
	desc.image_height = desc.image_depth = 2;
	desc.mem_object = buf;
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);

	/* cl_khr_image2d_from_buffer: rows a multiple of the alignment */
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT,
			      sizeof(align), &align, NULL));
	desc.image_type = CL_MEM_OBJECT_IMAGE2D;
	desc.image_width = 4;
	desc.image_height = 4;
	desc.image_depth = 0;
	desc.image_row_pitch = (size_t)align * 4 * ((16 + align - 1) / align);
	if (desc.image_row_pitch * 4 <= sizeof(in)) {
		img = clCreateImage(env->ctx, 0, &f, &desc, NULL, &err);
		CL_OK(err);
		assert_int_equal(image_size(img, CL_IMAGE_ROW_PITCH),
				 desc.image_row_pitch);
		CL_OK(clReleaseMemObject(img));
	}
	if (align > 1) {
		desc.image_row_pitch = (size_t)align * 4 + 4;
		assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
		assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
	}
	CL_OK(clReleaseMemObject(buf));

	/* a 2D image seen with another channel order: sRGBA <-> RGBA */
	img2 = image(env, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0,
		     NULL);
	memset(&desc, 0, sizeof(desc));
	desc.image_type = CL_MEM_OBJECT_IMAGE2D;
	desc.image_width = 8;
	desc.image_height = 8;
	desc.mem_object = img2;
	f.image_channel_order = CL_sRGBA;
	view = clCreateImage(env->ctx, 0, &f, &desc, NULL, &err);
	if (err != CL_IMAGE_FORMAT_NOT_SUPPORTED) {
		CL_OK(err);
		CL_OK(clGetMemObjectInfo(view, CL_MEM_ASSOCIATED_MEMOBJECT,
					 sizeof(q), &q, NULL));
		assert_ptr_equal(q, img2);
		CL_OK(clGetMemObjectInfo(view, CL_MEM_SIZE, sizeof(size),
					 &size, NULL));
		assert_true(size >= 8 * 8 * 4);
		CL_OK(clReleaseMemObject(view));
	}
	f.image_channel_order = CL_BGRA;
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
	f.image_channel_order = CL_RGBA;
	desc.image_width = 4;
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	/* no sub-buffer of an image, no buffer command on one */
	{
		cl_buffer_region r = { 0, 16 };

		assert_null(clCreateSubBuffer(img2, 0,
					      CL_BUFFER_CREATE_TYPE_REGION, &r,
					      &err));
		assert_int_equal(err, CL_INVALID_MEM_OBJECT);
		assert_int_equal(clEnqueueReadBuffer(env->queue, img2, CL_TRUE,
						     0, 16, out, 0, NULL,
						     NULL),
				 CL_INVALID_MEM_OBJECT);
	}
	CL_OK(clReleaseMemObject(img2));
}

static void test_create_errors(void **state)
{
	struct icd_env *env = *state;
	cl_image_format f = RGBA8, bad = { CL_RGB, CL_UNORM_INT8 };
	cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D,
			       .image_width = 4,
			       .image_height = 4 };
	cl_mem_properties props[] = { 0x4242, 0, 0 };
	unsigned char host[4096];
	cl_image_desc d;
	cl_int err;

	need_images(env);
	assert_null(clCreateImage(NULL, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_CONTEXT);
	assert_null(clCreateImage(env->ctx, (cl_mem_flags)1 << 40, &f, &desc,
				  NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateImage(env->ctx, CL_MEM_READ_ONLY |
						    CL_MEM_WRITE_ONLY,
				  &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateImage(env->ctx, 0, NULL, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
	/* RGB only with the packed types */
	assert_null(clCreateImage(env->ctx, 0, &bad, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
	bad.image_channel_order = 0x4242;
	assert_null(clCreateImage(env->ctx, 0, &bad, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
	assert_null(clCreateImage(env->ctx, 0, &f, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	assert_null(clCreateImageWithProperties(env->ctx, props, 0, &f, &desc,
						NULL, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);

	/* descriptors: sizes of 0, mip-maps, pitches without host memory */
	d = desc;
	d.image_width = 0;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_height = 0;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_type = CL_MEM_OBJECT_BUFFER;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.num_mip_levels = 2;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.num_samples = 2;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_row_pitch = 64;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	/* with host memory: at least tight, whole texels */
	d.image_row_pitch = 12;
	assert_null(clCreateImage(env->ctx, CL_MEM_COPY_HOST_PTR, &f, &d, host,
				  &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d.image_row_pitch = 18;
	assert_null(clCreateImage(env->ctx, CL_MEM_COPY_HOST_PTR, &f, &d, host,
				  &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_type = CL_MEM_OBJECT_IMAGE3D;
	d.image_depth = 2;
	d.image_row_pitch = 16;
	d.image_slice_pitch = 32;
	assert_null(clCreateImage(env->ctx, CL_MEM_COPY_HOST_PTR, &f, &d, host,
				  &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	/* host pointer and flags agree */
	assert_null(clCreateImage(env->ctx, CL_MEM_USE_HOST_PTR, &f, &desc,
				  NULL, &err));
	assert_int_equal(err, CL_INVALID_HOST_PTR);
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, host, &err));
	assert_int_equal(err, CL_INVALID_HOST_PTR);

	/* hostile sizes: beyond the limits, products that wrap */
	d = desc;
	d.image_width = SIZE_MAX;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_true(err == CL_INVALID_IMAGE_SIZE ||
		    err == CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_width = (size_t)1 << 62;
	d.image_height = (size_t)1 << 62;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_true(err == CL_INVALID_IMAGE_SIZE ||
		    err == CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_type = CL_MEM_OBJECT_IMAGE3D;
	d.image_width = 1u << 14;
	d.image_height = 1u << 14;
	d.image_depth = 1u << 14;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
	d = desc;
	d.image_row_pitch = SIZE_MAX - 3;
	assert_null(clCreateImage(env->ctx, CL_MEM_USE_HOST_PTR, &f, &d, host,
				  &err));
	assert_true(err == CL_INVALID_IMAGE_SIZE ||
		    err == CL_INVALID_IMAGE_DESCRIPTOR);
	d = desc;
	d.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
	d.image_array_size = SIZE_MAX;
	assert_null(clCreateImage(env->ctx, 0, &f, &d, NULL, &err));
	assert_true(err == CL_INVALID_IMAGE_SIZE ||
		    err == CL_INVALID_IMAGE_DESCRIPTOR);
	/* 1.1 constructors: sizes of 0, a depth of 1 */
	assert_null(clCreateImage2D(env->ctx, 0, &f, 0, 4, 0, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
	assert_null(clCreateImage3D(env->ctx, 0, &f, 4, 4, 1, 0, 0, NULL,
				    &err));
	assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
}

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

static void test_read_write(void **state)
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
	m = image(env, 0, CL_MEM_OBJECT_IMAGE1D, 33, 0, 0, 0, NULL);
	round_trip(env, m, 33, 1, 1, false);
	CL_OK(clReleaseMemObject(m));
	m = image(env, 0, CL_MEM_OBJECT_IMAGE1D_ARRAY, 9, 0, 0, 4, NULL);
	round_trip(env, m, 9, 4, 1, true);
	CL_OK(clReleaseMemObject(m));
	m = image(env, 0, CL_MEM_OBJECT_IMAGE2D, 7, 5, 0, 0, NULL);
	round_trip(env, m, 7, 5, 1, false);
	CL_OK(clReleaseMemObject(m));
	m = image(env, 0, CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 5, 0, 3, NULL);
	round_trip(env, m, 7, 5, 3, false);
	CL_OK(clReleaseMemObject(m));
	m = image(env, 0, CL_MEM_OBJECT_IMAGE3D, 6, 4, 3, 0, NULL);
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

static void test_region_errors(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 0, 0, 0 }, r[3] = { 4, 4, 1 };
	uint32_t buf[64];
	cl_mem m, m1, ro;
	cl_int err;

	need_images(env);
	m = image(env, 0, CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, NULL);
	m1 = image(env, 0, CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 2, NULL);
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

static void test_copy_fill(void **state)
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
	a = image(env, 0, CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, NULL);
	b3 = image(env, 0, CL_MEM_OBJECT_IMAGE3D, 4, 4, 3, 0, NULL);
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

static void test_image_buffer_copies(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 1, 0, 1 }, r[3] = { 3, 2, 2 }, i;
	uint32_t in[4 * 3 * 3], out[64];
	cl_mem img, buf;
	cl_int err;

	need_images(env);
	for (i = 0; i < ICD_TEST_ARRAY_SIZE(in); i++)
		in[i] = (uint32_t)i * 0x01010101u;
	img = image(env, 0, CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 0, 3, NULL);
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

static void test_map(void **state)
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
	img = image(env, 0, CL_MEM_OBJECT_IMAGE3D, 4, 4, 3, 0, NULL);
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
	img = image(env, 0, CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, NULL);
	o[2] = 0;
	sp = 99;
	p = clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ, o, r, &rp,
			      &sp, 0, NULL, NULL, &err);
	CL_OK(err);
	assert_int_equal(sp, 0);
	CL_OK(clEnqueueUnmapMemObject(env->queue, img, p, 0, NULL, NULL));
	CL_OK(clReleaseMemObject(img));
}

static void test_samplers(void **state)
{
	struct icd_env *env = *state;
	cl_sampler_properties props[] = {
		CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
		CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_REPEAT,
		CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0,
	};
	cl_sampler_properties got[8], dup[] = {
		CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
		CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0,
	};
	cl_sampler_properties unknown[] = { 0x4242, 0, 0 };
	cl_sampler s;
	cl_context ctx;
	cl_uint u;
	size_t size;
	cl_int err;

	need_images(env);
	s = clCreateSampler(env->ctx, CL_TRUE, CL_ADDRESS_CLAMP_TO_EDGE,
			    CL_FILTER_NEAREST, &err);
	CL_OK(err);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(u), &u,
			       NULL));
	assert_int_equal(u, CL_TRUE);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(u), &u,
			       NULL));
	assert_int_equal(u, CL_ADDRESS_CLAMP_TO_EDGE);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(u), &u,
			       NULL));
	assert_int_equal(u, CL_FILTER_NEAREST);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof(ctx), &ctx,
			       NULL));
	assert_ptr_equal(ctx, env->ctx);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &size));
	assert_int_equal(size, 0);
	CL_OK(clRetainSampler(s));
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof(u), &u,
			       NULL));
	assert_int_equal(u, 2);
	assert_int_equal(clGetSamplerInfo(s, 0x4242, sizeof(u), &u, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseSampler(s));
	CL_OK(clReleaseSampler(s));
	assert_int_equal(clGetSamplerInfo(NULL, CL_SAMPLER_FILTER_MODE,
					  sizeof(u), &u, NULL),
			 CL_INVALID_SAMPLER);
	assert_int_equal(clRetainSampler(NULL), CL_INVALID_SAMPLER);
	assert_int_equal(clReleaseSampler(NULL), CL_INVALID_SAMPLER);

	s = clCreateSamplerWithProperties(env->ctx, props, &err);
	CL_OK(err);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof(got), got,
			       &size));
	assert_int_equal(size, sizeof(props));
	assert_memory_equal(got, props, sizeof(props));
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(u), &u,
			       NULL));
	assert_int_equal(u, CL_FILTER_LINEAR);
	CL_OK(clReleaseSampler(s));
	/* defaults: normalized, clamp, nearest */
	s = clCreateSamplerWithProperties(env->ctx, NULL, &err);
	CL_OK(err);
	CL_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(u), &u,
			       NULL));
	assert_int_equal(u, CL_ADDRESS_CLAMP);
	CL_OK(clReleaseSampler(s));

	assert_null(clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP,
				    CL_FILTER_NEAREST, &err));
	assert_int_equal(err, CL_INVALID_CONTEXT);
	assert_null(clCreateSampler(env->ctx, CL_TRUE, 0x4242,
				    CL_FILTER_NEAREST, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateSampler(env->ctx, CL_TRUE, CL_ADDRESS_CLAMP,
				    0x4242, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateSamplerWithProperties(env->ctx, dup, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateSamplerWithProperties(env->ctx, unknown, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
}

/* ---- command-buffers ----------------------------------------------------- */

typedef cl_int(CL_API_CALL *fill_image_fn)(
	cl_command_buffer_khr, cl_command_queue, const cl_properties *, cl_mem,
	const void *, const size_t *, const size_t *, cl_uint,
	const cl_sync_point_khr *, cl_sync_point_khr *,
	cl_mutable_command_khr *);
typedef cl_int(CL_API_CALL *image_to_buffer_fn)(
	cl_command_buffer_khr, cl_command_queue, const cl_properties *, cl_mem,
	cl_mem, const size_t *, const size_t *, size_t, cl_uint,
	const cl_sync_point_khr *, cl_sync_point_khr *,
	cl_mutable_command_khr *);
typedef cl_command_buffer_khr(CL_API_CALL *create_fn)(
	cl_uint, const cl_command_queue *,
	const cl_command_buffer_properties_khr *, cl_int *);
typedef cl_int(CL_API_CALL *cb_fn)(cl_command_buffer_khr);
typedef cl_int(CL_API_CALL *enqueue_fn)(cl_uint, cl_command_queue *,
					cl_command_buffer_khr, cl_uint,
					const cl_event *, cl_event *);

static void *fn(struct icd_env *env, const char *name)
{
	void *f = clGetExtensionFunctionAddressForPlatform(env->platform,
							   name);

	assert_non_null(f);
	return f;
}

static void test_command_buffer(void **state)
{
	struct icd_env *env = *state;
	create_fn create = fn(env, "clCreateCommandBufferKHR");
	cb_fn finalize = fn(env, "clFinalizeCommandBufferKHR");
	cb_fn release = fn(env, "clReleaseCommandBufferKHR");
	enqueue_fn enqueue = fn(env, "clEnqueueCommandBufferKHR");
	fill_image_fn fill = fn(env, "clCommandFillImageKHR");
	image_to_buffer_fn to_buffer = fn(env, "clCommandCopyImageToBufferKHR");
	size_t o[3] = { 0, 0, 0 }, r[3] = { 4, 4, 1 };
	cl_uint color[4] = { 9, 8, 7, 6 };
	cl_image_format u8 = { CL_RGBA, CL_UNSIGNED_INT8 };
	cl_sync_point_khr sp = 0;
	cl_command_buffer_khr b;
	unsigned char out[64];
	cl_mem img, buf;
	cl_int err;
	size_t i;

	need_images(env);
	img = clCreateImage2D(env->ctx, 0, &u8, 4, 4, 0, NULL, &err);
	CL_OK(err);
	buf = clCreateBuffer(env->ctx, 0, sizeof(out), NULL, &err);
	CL_OK(err);
	b = create(1, &env->queue, NULL, &err);
	CL_OK(err);
	CL_OK(fill(b, NULL, NULL, img, color, o, r, 0, NULL, &sp, NULL));
	CL_OK(to_buffer(b, NULL, NULL, img, buf, o, r, 0, 1, &sp, NULL,
			NULL));
	/* the checks of the enqueue versions */
	r[0] = 5;
	assert_int_equal(fill(b, NULL, NULL, img, color, o, r, 0, NULL, NULL,
			      NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(fill(b, NULL, NULL, buf, color, o, r, 0, NULL, NULL,
			      NULL),
			 CL_INVALID_MEM_OBJECT);
	r[0] = 4;
	CL_OK(finalize(b));
	CL_OK(enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, sizeof(out),
				  out, 0, NULL, NULL));
	for (i = 0; i < sizeof(out); i++)
		assert_int_equal(out[i], color[i % 4]);
	CL_OK(release(b));
	CL_OK(clReleaseMemObject(buf));
	CL_OK(clReleaseMemObject(img));
}

/* ---- kernels ------------------------------------------------------------- */

static const char kernel_src[] =
	"kernel void scale(read_only image2d_t in, sampler_t s,\n"
	"		   write_only image2d_t out, float k)\n"
	"{\n"
	"	int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
	"	float4 v = read_imagef(in, s, p);\n"
	"	write_imagef(out, p, v * k);\n"
	"}\n"
	"kernel void info(read_only image3d_t im, global int *o)\n"
	"{\n"
	"	o[0] = get_image_width(im);\n"
	"	o[1] = get_image_height(im);\n"
	"	o[2] = get_image_depth(im);\n"
	"	o[3] = get_image_channel_order(im);\n"
	"	o[4] = get_image_channel_data_type(im);\n"
	"}\n"
	"kernel void clamp(read_only image2d_t in, global float4 *o)\n"
	"{\n"
	"	const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
	"		CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
	"	o[0] = read_imagef(in, s, (int2)(-5, 100));\n"
	"}\n";

static void test_kernels(void **state)
{
	struct icd_env *env = *state;
	cl_image_format f = RGBA8;
	size_t o[3] = { 0, 0, 0 }, r[3] = { 8, 4, 1 }, g[2] = { 8, 4 }, i;
	uint32_t in[32], out[32];
	cl_uint q = 0;
	cl_int info[5], err;
	cl_float k = 0.5f, res[4];
	cl_kernel ks, ki, kc;
	cl_mem a, b, c3, obuf;
	cl_sampler s;
	cl_program p;

	need_images(env);
	if (!icd_test_have_compiler(env))
		skip();
	p = icd_test_build(env, kernel_src,
			   "-cl-std=CL1.2 -cl-kernel-arg-info");
	ks = clCreateKernel(p, "scale", &err);
	CL_OK(err);
	ki = clCreateKernel(p, "info", &err);
	CL_OK(err);
	kc = clCreateKernel(p, "clamp", &err);
	CL_OK(err);
	CL_OK(clGetKernelArgInfo(ks, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER,
				 sizeof(q), &q, NULL));
	assert_int_equal(q, CL_KERNEL_ARG_ACCESS_READ_ONLY);
	CL_OK(clGetKernelArgInfo(ks, 2, CL_KERNEL_ARG_ACCESS_QUALIFIER,
				 sizeof(q), &q, NULL));
	assert_int_equal(q, CL_KERNEL_ARG_ACCESS_WRITE_ONLY);
	CL_OK(clGetKernelArgInfo(ks, 3, CL_KERNEL_ARG_ACCESS_QUALIFIER,
				 sizeof(q), &q, NULL));
	assert_int_equal(q, CL_KERNEL_ARG_ACCESS_NONE);

	for (i = 0; i < 32; i++)
		in[i] = (uint32_t)(i * 2) * 0x01010101u;
	a = clCreateImage2D(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			    &f, 8, 4, 0, in, &err);
	CL_OK(err);
	b = clCreateImage2D(env->ctx, CL_MEM_WRITE_ONLY, &f, 8, 4, 0, NULL,
			    &err);
	CL_OK(err);
	s = clCreateSampler(env->ctx, CL_FALSE, CL_ADDRESS_NONE,
			    CL_FILTER_NEAREST, &err);
	CL_OK(err);
	/* argument errors */
	assert_int_equal(clSetKernelArg(ks, 0, sizeof(cl_mem), &b),
			 CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArg(ks, 2, sizeof(cl_mem), &a),
			 CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArg(ks, 0, sizeof(cl_mem) + 1, &a),
			 CL_INVALID_ARG_SIZE);
	assert_int_equal(clSetKernelArg(ks, 0, sizeof(cl_mem), NULL),
			 CL_INVALID_ARG_VALUE);
	assert_int_equal(clSetKernelArg(ks, 1, sizeof(cl_sampler), &a),
			 CL_INVALID_SAMPLER);
	assert_int_equal(clSetKernelArg(ks, 1, sizeof(cl_sampler), NULL),
			 CL_INVALID_SAMPLER);
	obuf = clCreateBuffer(env->ctx, 0, 64, NULL, &err);
	CL_OK(err);
	assert_int_equal(clSetKernelArg(ks, 0, sizeof(cl_mem), &obuf),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(clSetKernelArg(ki, 1, sizeof(cl_mem), &a),
			 CL_INVALID_MEM_OBJECT);
	/* a 2D image for an image3d_t */
	assert_int_equal(clSetKernelArg(ki, 0, sizeof(cl_mem), &a),
			 CL_INVALID_MEM_OBJECT);

	CL_OK(clSetKernelArg(ks, 0, sizeof(cl_mem), &a));
	CL_OK(clSetKernelArg(ks, 1, sizeof(cl_sampler), &s));
	CL_OK(clSetKernelArg(ks, 2, sizeof(cl_mem), &b));
	CL_OK(clSetKernelArg(ks, 3, sizeof(k), &k));
	CL_OK(clEnqueueNDRangeKernel(env->queue, ks, 2, NULL, g, NULL, 0, NULL,
				     NULL));
	CL_OK(clEnqueueReadImage(env->queue, b, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	for (i = 0; i < 32; i++)
		/* unorm8: v / 255 * 0.5, back to the nearest byte */
		assert_int_equal(out[i], (uint32_t)(i) * 0x01010101u);

	c3 = clCreateImage3D(env->ctx, 0, &f, 5, 6, 7, 0, 0, NULL, &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(ki, 0, sizeof(cl_mem), &c3));
	CL_OK(clSetKernelArg(ki, 1, sizeof(cl_mem), &obuf));
	CL_OK(clEnqueueTask(env->queue, ki, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, obuf, CL_TRUE, 0, sizeof(info),
				  info, 0, NULL, NULL));
	assert_int_equal(info[0], 5);
	assert_int_equal(info[1], 6);
	assert_int_equal(info[2], 7);
	assert_int_equal(info[3], CL_RGBA);
	assert_int_equal(info[4], CL_UNORM_INT8);

	/* a sampler declared in the source: clamp to edge */
	CL_OK(clSetKernelArg(kc, 0, sizeof(cl_mem), &a));
	CL_OK(clSetKernelArg(kc, 1, sizeof(cl_mem), &obuf));
	CL_OK(clEnqueueTask(env->queue, kc, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, obuf, CL_TRUE, 0, sizeof(res),
				  res, 0, NULL, NULL));
	/* texel (0, 3) = in[24] */
	assert_true(res[0] > 48.0f / 255 - 1e-6f &&
		    res[0] < 48.0f / 255 + 1e-6f);

	CL_OK(clReleaseMemObject(c3));
	CL_OK(clReleaseMemObject(obuf));
	CL_OK(clReleaseSampler(s));
	CL_OK(clReleaseMemObject(b));
	CL_OK(clReleaseMemObject(a));
	CL_OK(clReleaseKernel(kc));
	CL_OK(clReleaseKernel(ki));
	CL_OK(clReleaseKernel(ks));
	CL_OK(clReleaseProgram(p));
}

/*
 * Depth images (cl_khr_depth_images): a float per texel, filled from one
 * float, the only images an image2d_depth_t argument takes; and the
 * command types of the events of image commands.
 */
static void test_depth_and_events(void **state)
{
	static const char src[] =
		"kernel void d(read_only image2d_depth_t im, global float *o)\n"
		"{\n"
		"	int x = get_global_id(0);\n"
		"	o[x] = read_imagef(im, (int2)(x, 1));\n"
		"}\n";
	struct icd_env *env = *state;
	cl_image_format depth = { CL_DEPTH, CL_FLOAT }, rgba = RGBA8;
	size_t o[3] = { 0, 0, 0 }, r[3] = { 4, 2, 1 }, rp, i;
	float v = 0.25f, out[8];
	cl_command_type type;
	cl_mem d, c, obuf;
	cl_event ev;
	cl_program p;
	cl_kernel k;
	cl_int err;
	void *map;

	need_images(env);
	d = clCreateImage2D(env->ctx, 0, &depth, 4, 2, 0, NULL, &err);
	if (err == CL_IMAGE_FORMAT_NOT_SUPPORTED)
		skip();
	CL_OK(err);
	CL_OK(clEnqueueFillImage(env->queue, d, &v, o, r, 0, NULL, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_FILL_IMAGE);
	CL_OK(clReleaseEvent(ev));
	CL_OK(clEnqueueReadImage(env->queue, d, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_READ_IMAGE);
	CL_OK(clReleaseEvent(ev));
	for (i = 0; i < 8; i++)
		assert_true(out[i] == 0.25f);
	map = clEnqueueMapImage(env->queue, d, CL_TRUE, CL_MAP_READ, o, r, &rp,
				NULL, 0, NULL, &ev, &err);
	CL_OK(err);
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_MAP_IMAGE);
	CL_OK(clReleaseEvent(ev));
	CL_OK(clEnqueueUnmapMemObject(env->queue, d, map, 0, NULL, NULL));
	/* a 3D depth image is a valid format the type does not take */
	{
		cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE3D,
				       .image_width = 2,
				       .image_height = 2,
				       .image_depth = 2 };

		assert_null(clCreateImage(env->ctx, 0, &depth, &desc, NULL,
					  &err));
		assert_int_equal(err, CL_IMAGE_FORMAT_NOT_SUPPORTED);
	}
	if (!icd_test_have_compiler(env)) {
		CL_OK(clReleaseMemObject(d));
		return;
	}
	p = icd_test_build(env, src, "-cl-std=CL2.0");
	k = clCreateKernel(p, "d", &err);
	CL_OK(err);
	c = clCreateImage2D(env->ctx, 0, &rgba, 4, 2, 0, NULL, &err);
	CL_OK(err);
	obuf = clCreateBuffer(env->ctx, 0, sizeof(out), NULL, &err);
	CL_OK(err);
	/* an RGBA image for a depth argument */
	assert_int_equal(clSetKernelArg(k, 0, sizeof(cl_mem), &c),
			 CL_INVALID_MEM_OBJECT);
	CL_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &d));
	CL_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &obuf));
	r[0] = 4;
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, r, NULL, 0, NULL,
				     NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, obuf, CL_TRUE, 0,
				  4 * sizeof(float), out, 0, NULL, NULL));
	for (i = 0; i < 4; i++)
		assert_true(out[i] == 0.25f);
	CL_OK(clReleaseMemObject(obuf));
	CL_OK(clReleaseMemObject(c));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseMemObject(d));
}

/* cl_khr_command_buffer_mutable_dispatch 0.9.5's config (no type, next) */
struct mutable_config {
	cl_mutable_command_khr command;
	cl_uint num_args;
	cl_uint num_svm_args;
	cl_uint num_exec_infos;
	cl_uint work_dim;
	const cl_mutable_dispatch_arg_khr *arg_list;
	const cl_mutable_dispatch_arg_khr *arg_svm_list;
	const cl_mutable_dispatch_exec_info_khr *exec_info_list;
	const size_t *global_work_offset;
	const size_t *global_work_size;
	const size_t *local_work_size;
};

/*
 * Image and sampler arguments of a mutable command: unset at recording
 * (placeholders), set and changed by updates, checked as clSetKernelArg.
 */
static void test_mutable_dispatch(void **state)
{
	static const char src[] =
		"kernel void cp(read_only image2d_t in, sampler_t s,\n"
		"		write_only image2d_t out)\n"
		"{\n"
		"	int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
		"	write_imageui(out, p, read_imageui(in, s, p));\n"
		"}\n";
	struct icd_env *env = *state;
	cl_image_format f = { CL_RGBA, CL_UNSIGNED_INT8 };
	cl_command_buffer_properties_khr props[] = {
		CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR, 0
	};
	size_t g[2] = { 4, 2 }, o[3] = { 0, 0, 0 }, r[3] = { 4, 2, 1 };
	uint32_t in1[8], in2[8], out[8];
	cl_mutable_dispatch_arg_khr args[3];
	struct mutable_config c = { 0 };
	const void *configs[1] = { &c };
	cl_uint type = 0, i;
	struct icd_cb_fns cb;
	cl_mutable_command_khr h = NULL;
	cl_command_buffer_khr b;
	cl_mem a1, a2, dst, buf;
	cl_sampler s;
	cl_program p;
	cl_kernel k;
	cl_int err;

	need_images(env);
	if (!icd_test_have_compiler(env))
		skip();
	icd_cb_load(env->platform, &cb);
	for (i = 0; i < 8; i++) {
		in1[i] = i * 0x01010101u;
		in2[i] = (100 + i) * 0x01010101u;
	}
	a1 = clCreateImage2D(env->ctx, CL_MEM_COPY_HOST_PTR, &f, 4, 2, 0, in1,
			     &err);
	CL_OK(err);
	a2 = clCreateImage2D(env->ctx, CL_MEM_COPY_HOST_PTR, &f, 4, 2, 0, in2,
			     &err);
	CL_OK(err);
	dst = clCreateImage2D(env->ctx, 0, &f, 4, 2, 0, NULL, &err);
	CL_OK(err);
	buf = clCreateBuffer(env->ctx, 0, 64, NULL, &err);
	CL_OK(err);
	s = clCreateSampler(env->ctx, CL_FALSE, CL_ADDRESS_NONE,
			    CL_FILTER_NEAREST, &err);
	CL_OK(err);
	p = icd_test_build(env, src, NULL);
	k = clCreateKernel(p, "cp", &err);
	CL_OK(err);
	b = cb.create(1, &env->queue, props, &err);
	CL_OK(err);
	CL_OK(cb.ndrange(b, NULL, NULL, k, 2, NULL, g, NULL, 0, NULL, NULL,
			 &h));
	CL_OK(cb.finalize(b));

	args[0] = (cl_mutable_dispatch_arg_khr){ 0, sizeof(cl_mem), &a1 };
	args[1] = (cl_mutable_dispatch_arg_khr){ 1, sizeof(cl_sampler), &s };
	args[2] = (cl_mutable_dispatch_arg_khr){ 2, sizeof(cl_mem), &dst };
	c.command = h;
	c.num_args = 3;
	c.arg_list = args;
	/* a buffer for an image, an image for the sampler: nothing changes */
	args[0].arg_value = &buf;
	assert_int_equal(cb.update(b, 1, &type, configs),
			 CL_INVALID_MEM_OBJECT);
	args[0].arg_value = &a1;
	args[1].arg_value = &a2;
	assert_int_equal(cb.update(b, 1, &type, configs), CL_INVALID_SAMPLER);
	args[1].arg_value = &s;
	CL_OK(cb.update(b, 1, &type, configs));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clEnqueueReadImage(env->queue, dst, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	assert_memory_equal(out, in1, sizeof(out));
	/* another input image */
	c.num_args = 1;
	args[0].arg_value = &a2;
	CL_OK(cb.update(b, 1, &type, configs));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clEnqueueReadImage(env->queue, dst, CL_TRUE, o, r, 0, 0, out, 0,
				 NULL, NULL));
	assert_memory_equal(out, in2, sizeof(out));

	CL_OK(cb.release(b));
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseSampler(s));
	CL_OK(clReleaseMemObject(buf));
	CL_OK(clReleaseMemObject(dst));
	CL_OK(clReleaseMemObject(a2));
	CL_OK(clReleaseMemObject(a1));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_device_info),
		T(test_formats),
		T(test_create_info),
		T(test_from_buffer),
		T(test_create_errors),
		T(test_read_write),
		T(test_region_errors),
		T(test_copy_fill),
		T(test_image_buffer_copies),
		T(test_map),
		T(test_samplers),
		T(test_command_buffer),
		T(test_kernels),
		T(test_mutable_dispatch),
		T(test_depth_and_events),
	};
#undef T

	return ICD_TEST_RUN("icd-image", tests);
}
