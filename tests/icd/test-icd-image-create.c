/* SPDX-License-Identifier: MIT */
/*
 * Images through the ICD: the device queries, formats, creation and
 * information of every type, images from buffers and images, and the
 * errors of creation.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-image-test.h"

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

void test_device_info(void **state)
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

void test_formats(void **state)
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

void test_create_info(void **state)
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
		m = make_image(env, CL_MEM_READ_WRITE, c[i].type, c[i].w, c[i].h,
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

void test_from_buffer(void **state)
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
	/* a row pitch over a buffer (the CTS gives one): checked, no more */
	desc.image_row_pitch = sizeof(in);
	img2 = clCreateImage(env->ctx, 0, &f, &desc, NULL, &err);
	CL_OK(err);
	CL_OK(clGetImageInfo(img2, CL_IMAGE_ROW_PITCH, sizeof(size), &size,
			     NULL));
	assert_int_equal(size, sizeof(in));
	CL_OK(clReleaseMemObject(img2));
	desc.image_row_pitch = sizeof(in) - 4;
	assert_null(clCreateImage(env->ctx, 0, &f, &desc, NULL, &err));
	assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
	desc.image_row_pitch = 0;
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
	img2 = make_image(env, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0,
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

void test_create_errors(void **state)
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
