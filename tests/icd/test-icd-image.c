/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers through the ICD loader: device queries, formats,
 * creation and information for every type, images from buffers and
 * images, transfers (read, write, copy, fill, map, image<->buffer) with
 * pitches, the command-buffer image commands, samplers, kernels that
 * sample and write images, and the errors of each (hostile sizes
 * included). Skips on a device without images.
 *
 * One binary; the cases live in test-icd-image-*.c by concern (create,
 * transfer, kernel, command-buffer), declared in icd-image-test.h.
 */
#include "icd-image-test.h"

void need_images(struct icd_env *env)
{
	cl_bool images = CL_FALSE;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT,
			      sizeof(images), &images, NULL));
	if (!images)
		skip();
}

cl_mem make_image(struct icd_env *env, cl_mem_flags flags,
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

size_t image_size(cl_mem m, cl_image_info param)
{
	size_t v = 12345;

	CL_OK(clGetImageInfo(m, param, sizeof(v), &v, NULL));
	return v;
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
