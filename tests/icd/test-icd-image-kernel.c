/* SPDX-License-Identifier: MIT */
/*
 * Samplers, and kernels that sample and write images (depth images
 * included), with the command types of image events.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-image-test.h"

void test_samplers(void **state)
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

void test_kernels(void **state)
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
void test_depth_and_events(void **state)
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
