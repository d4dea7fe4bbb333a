/* SPDX-License-Identifier: MIT */
/*
 * The command-buffer image commands, and image and sampler arguments of
 * mutable ND-range commands.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-image-test.h"

void test_command_buffer(void **state)
{
	struct icd_env *env = *state;
	size_t o[3] = { 0, 0, 0 }, r[3] = { 4, 4, 1 };
	cl_uint color[4] = { 9, 8, 7, 6 };
	cl_image_format u8 = { CL_RGBA, CL_UNSIGNED_INT8 };
	cl_sync_point_khr sp = 0;
	cl_command_buffer_khr b;
	unsigned char out[64];
	struct icd_cb_fns cb;
	cl_mem img, buf;
	cl_int err;
	size_t i;

	need_images(env);
	icd_cb_load(env->platform, &cb);
	img = clCreateImage2D(env->ctx, 0, &u8, 4, 4, 0, NULL, &err);
	CL_OK(err);
	buf = clCreateBuffer(env->ctx, 0, sizeof(out), NULL, &err);
	CL_OK(err);
	b = cb.create(1, &env->queue, NULL, &err);
	CL_OK(err);
	CL_OK(cb.fill_image(b, NULL, NULL, img, color, o, r, 0, NULL, &sp,
			    NULL));
	CL_OK(cb.image_to_buffer(b, NULL, NULL, img, buf, o, r, 0, 1, &sp,
				 NULL, NULL));
	/* the checks of the enqueue versions */
	r[0] = 5;
	assert_int_equal(cb.fill_image(b, NULL, NULL, img, color, o, r, 0,
				       NULL, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(cb.fill_image(b, NULL, NULL, buf, color, o, r, 0,
				       NULL, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	r[0] = 4;
	CL_OK(cb.finalize(b));
	CL_OK(cb.enqueue(0, NULL, b, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, sizeof(out),
				  out, 0, NULL, NULL));
	for (i = 0; i < sizeof(out); i++)
		assert_int_equal(out[i], color[i % 4]);
	CL_OK(cb.release(b));
	CL_OK(clReleaseMemObject(buf));
	CL_OK(clReleaseMemObject(img));
}

/*
 * Image and sampler arguments of a mutable command: unset at recording
 * (placeholders), set and changed by updates, checked as clSetKernelArg.
 */
void test_mutable_dispatch(void **state)
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
	struct icd_mutable_config c = { 0 };
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
