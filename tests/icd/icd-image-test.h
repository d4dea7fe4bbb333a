/* SPDX-License-Identifier: MIT */
/*
 * The shared helpers and the cases of the icd-image binary
 * (test-icd-image*.c).
 */
#ifndef ICD_IMAGE_TEST_H
#define ICD_IMAGE_TEST_H

#include "icd-command-buffer.h"

#define RGBA8 { CL_RGBA, CL_UNORM_INT8 }

/* Skip the case on a device without images. */
void need_images(struct icd_env *env);

/* An RGBA8 image of @p type and size, or fail the test. */
cl_mem make_image(struct icd_env *env, cl_mem_flags flags,
		  cl_mem_object_type type, size_t w, size_t h, size_t d,
		  size_t layers, void *host);

/* A size_t of clGetImageInfo(). */
size_t image_size(cl_mem m, cl_image_info param);

/* test-icd-image-create.c */
void test_device_info(void **state);
void test_formats(void **state);
void test_create_info(void **state);
void test_from_buffer(void **state);
void test_create_errors(void **state);

/* test-icd-image-transfer.c */
void test_read_write(void **state);
void test_region_errors(void **state);
void test_copy_fill(void **state);
void test_image_buffer_copies(void **state);
void test_map(void **state);

/* test-icd-image-kernel.c */
void test_samplers(void **state);
void test_kernels(void **state);
void test_depth_and_events(void **state);

/* test-icd-image-command-buffer.c */
void test_command_buffer(void **state);
void test_mutable_dispatch(void **state);

#endif /* ICD_IMAGE_TEST_H */
