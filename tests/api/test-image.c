/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers (accel-image.h): the format table and texel sizes,
 * OpenCL's conversion rules in pack/unpack, layouts (resolve, DRM), and
 * image and sampler arguments through a native kernel that looks at the
 * struct accel_wg_image it is given.
 *
 * One binary; the cases live in test-image-*.c by concern (format,
 * convert, layout, args), declared in test-image.h.
 */
#include "test-image.h"

struct accel_image_layout layout2d(uint64_t w, uint64_t h)
{
	return (struct accel_image_layout){
		.struct_size = sizeof(struct accel_image_layout),
		.type = ACCEL_IMAGE_2D,
		.channel_order = ACCEL_IMAGE_ORDER_RGBA,
		.channel_type = ACCEL_IMAGE_DATA_UNORM_INT8,
		.width = w,
		.height = h,
	};
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_env_setup, test_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texel_sizes),
		T(test_device_formats),
		T(test_device_limits),
		cmocka_unit_test(test_normalized),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_float_and_packed),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_srgb),
		T(test_roundtrip_all),
		T(test_resolve),
		T(test_drm),
		T(test_arg_desc),
		T(test_native_refused),
		T(test_max_read_images),
		T(test_set_arg_errors),
		T(test_native_launch),
		T(test_cmdlist),
	};

	return TEST_RUN_GROUP("image", tests);
}
