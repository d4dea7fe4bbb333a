/* SPDX-License-Identifier: MIT */
/*
 * The shared helpers and the cases of the api-image binary (test-image*.c).
 */
#ifndef ACCEL_TEST_API_IMAGE_H
#define ACCEL_TEST_API_IMAGE_H

#include <drm_fourcc.h>

#include "test-common.h"

#define F(o, t)                                                                \
	((struct accel_image_format){ ACCEL_IMAGE_ORDER_##o,                   \
				      ACCEL_IMAGE_DATA_##t })

/* A 2D RGBA8 layout of @p w x @p h texels, the rest to resolve. */
struct accel_image_layout layout2d(uint64_t w, uint64_t h);

/* test-image-format.c */
void test_texel_sizes(void **state);
void test_device_formats(void **state);
void test_device_limits(void **state);

/* test-image-convert.c */
void test_normalized(void **state);
void test_integers(void **state);
void test_half(void **state);
void test_float_and_packed(void **state);
void test_orders(void **state);
void test_srgb(void **state);
void test_roundtrip_all(void **state);

/* test-image-layout.c */
void test_resolve(void **state);
void test_drm(void **state);

/* test-image-args.c */
void test_arg_desc(void **state);
void test_native_refused(void **state);
void test_max_read_images(void **state);
void test_set_arg_errors(void **state);
void test_native_launch(void **state);
void test_cmdlist(void **state);

#endif /* ACCEL_TEST_API_IMAGE_H */
