/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers (builtins/image-*.cl, the image and sampler
 * arguments of kernel-info.c and wg-wrappers.c): work-group functions run
 * directly on hand-made struct accel_wg_image descriptors with pitches
 * larger than tight, checked against a host reference written here from
 * the OpenCL specification: every format written and read back, sampling
 * in every addressing and filter mode, every image type's addressing,
 * the queries, and the arguments' descriptions.
 *
 * One binary; the cases live in test-image-*.c by concern (format,
 * sampling, access, args), the host reference in image-ref.c, all
 * declared in image-test.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image-test.h"

static const char source[] =
	"int2 xy(int w) { int g = get_global_id(0);"
	" return (int2)(g % w, g / w); }\n"
	"kernel void wf(write_only image2d_t im, global const float4 *in,"
	" int w) { write_imagef(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void wi(write_only image2d_t im, global const int4 *in,"
	" int w) { write_imagei(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void wu(write_only image2d_t im, global const uint4 *in,"
	" int w) { write_imageui(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void rf(read_only image2d_t im, global float4 *out, int w)"
	" { out[get_global_id(0)] = read_imagef(im, xy(w)); }\n"
	"kernel void ri(read_only image2d_t im, global int4 *out, int w)"
	" { out[get_global_id(0)] = read_imagei(im, xy(w)); }\n"
	"kernel void ru(read_only image2d_t im, global uint4 *out, int w)"
	" { out[get_global_id(0)] = read_imageui(im, xy(w)); }\n"
	"kernel void rh(read_only image2d_t im, sampler_t s,"
	" global float4 *out, int w) {"
	" out[get_global_id(0)] = convert_float4(read_imageh(im, s, xy(w)));"
	" }\n"
	"kernel void wh(write_only image2d_t im, global const float4 *in,"
	" int w) { write_imageh(im, xy(w),"
	" convert_half4(in[get_global_id(0)])); }\n"
	/* depth images */
	"kernel void wd(write_only image2d_depth_t im, global const float *in,"
	" int w) { write_imagef(im, xy(w), in[get_global_id(0)]); }\n"
	"kernel void rd(read_only image2d_depth_t im, sampler_t s,"
	" global float *out, int w) {"
	" out[get_global_id(0)] = read_imagef(im, s, xy(w)); }\n"
	/* sampled reads of each type, float coordinates */
	"kernel void s1(read_only image1d_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].x); }\n"
	"kernel void s1a(read_only image1d_array_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].xy); }\n"
	"kernel void s2(read_only image2d_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].xy); }\n"
	"kernel void s2a(read_only image2d_array_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g]); }\n"
	"kernel void s3(read_only image3d_t im, sampler_t s,"
	" global const float4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g]); }\n"
	"kernel void s2u(read_only image2d_t im, sampler_t s,"
	" global const float4 *c, global uint4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imageui(im, s, c[g].xy); }\n"
	/* integer coordinates through a sampler */
	"kernel void i2(read_only image2d_t im, sampler_t s,"
	" global const int4 *c, global float4 *o) { size_t g ="
	" get_global_id(0); o[g] = read_imagef(im, s, c[g].xy); }\n"
	/* sampler-less reads and writes of each type */
	"kernel void c1(read_only image1d_t a, write_only image1d_t b,"
	" global const int4 *c) { int4 p = c[get_global_id(0)];"
	" write_imagef(b, p.x, read_imagef(a, p.x)); }\n"
	"kernel void c1b(read_only image1d_buffer_t a,"
	" write_only image1d_buffer_t b, global const int4 *c) {"
	" int4 p = c[get_global_id(0)];"
	" write_imageui(b, p.x, read_imageui(a, p.x)); }\n"
	"kernel void c1a(read_only image1d_array_t a,"
	" write_only image1d_array_t b, global const int4 *c) {"
	" int4 p = c[get_global_id(0)];"
	" write_imagef(b, p.xy, read_imagef(a, p.xy)); }\n"
	"kernel void c2a(read_only image2d_array_t a,"
	" write_only image2d_array_t b, global const int4 *c) {"
	" int4 p = c[get_global_id(0)];"
	" write_imagei(b, p, read_imagei(a, p)); }\n"
	"kernel void c3(read_only image3d_t a, write_only image3d_t b,"
	" global const int4 *c) { int4 p = c[get_global_id(0)];"
	" write_imagef(b, p, read_imagef(a, p)); }\n"
	/* read_write: in place */
	"kernel void rw(read_write image2d_t a, int w) {"
	" float4 v = read_imagef(a, xy(w));"
	" write_imagef(a, xy(w), v * 0.5f); }\n"
	/* samplers of the source: program scope and kernel scope */
	"constant sampler_t ps = CLK_NORMALIZED_COORDS_TRUE |"
	" CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
	"kernel void sp(read_only image2d_t im, global const float4 *c,"
	" global float4 *o) { size_t g = get_global_id(0);"
	" const sampler_t ks = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;"
	" o[2 * g] = read_imagef(im, ps, c[g].xy);"
	" o[2 * g + 1] = read_imagef(im, ks, c[g].xy); }\n"
	/* through local memory across a barrier: the regions wrapper */
	"kernel void rev(read_only image1d_t a, write_only image1d_t b,"
	" local float4 *t) { int l = get_local_id(0), n = get_local_size(0);"
	" int g0 = get_group_id(0) * n; t[l] = read_imagef(a, g0 + l);"
	" barrier(CLK_LOCAL_MEM_FENCE);"
	" write_imagef(b, g0 + l, t[n - 1 - l]); }\n"
	/* queries */
	"kernel void q(read_only image1d_array_t a, write_only image2d_t b,"
	" read_write image2d_array_depth_t c, read_only image3d_t d,"
	" write_only image1d_buffer_t e, global int *o) {"
	" o[0] = get_image_width(a); o[1] = get_image_array_size(a);"
	" o[2] = get_image_dim(b).x; o[3] = get_image_dim(b).y;"
	" o[4] = get_image_height(c); o[5] = get_image_array_size(c);"
	" o[6] = get_image_channel_order(c);"
	" o[7] = get_image_channel_data_type(c);"
	" o[8] = get_image_dim(d).z; o[9] = get_image_depth(d);"
	" o[10] = get_image_width(e);"
	" o[11] = get_image_channel_order(b);"
	" o[12] = get_image_channel_data_type(b);"
	" o[13] = get_image_dim(c).y; }\n";

/* ---- running kernels -------------------------------------------------- */

struct wg_prog image_prog;

static int setup(void **state)
{
	(void)state;
	wg_build(&image_prog, source, "-cl-std=CL3.0");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	wg_unbuild(&image_prog);
	return 0;
}

void run(const char *kernel, void **args, uint64_t n)
{
	wg_run_1d(wg_find(&image_prog, kernel, ""), args, 0, n, 16);
}

/* every (order, type) of OpenCL's list */
size_t all_formats(struct fmt *out)
{
	static const uint32_t all[] = {
		ACCEL_IMAGE_DATA_SNORM_INT8, ACCEL_IMAGE_DATA_SNORM_INT16,
		ACCEL_IMAGE_DATA_UNORM_INT8, ACCEL_IMAGE_DATA_UNORM_INT16,
		ACCEL_IMAGE_DATA_SIGNED_INT8, ACCEL_IMAGE_DATA_SIGNED_INT16,
		ACCEL_IMAGE_DATA_SIGNED_INT32, ACCEL_IMAGE_DATA_UNSIGNED_INT8,
		ACCEL_IMAGE_DATA_UNSIGNED_INT16,
		ACCEL_IMAGE_DATA_UNSIGNED_INT32, ACCEL_IMAGE_DATA_HALF_FLOAT,
		ACCEL_IMAGE_DATA_FLOAT,
	};
	static const uint32_t any[] = {
		ACCEL_IMAGE_ORDER_R, ACCEL_IMAGE_ORDER_A, ACCEL_IMAGE_ORDER_RG,
		ACCEL_IMAGE_ORDER_RA, ACCEL_IMAGE_ORDER_RGBA,
	};
	static const uint32_t b8[] = {
		ACCEL_IMAGE_DATA_SNORM_INT8, ACCEL_IMAGE_DATA_UNORM_INT8,
		ACCEL_IMAGE_DATA_SIGNED_INT8, ACCEL_IMAGE_DATA_UNSIGNED_INT8,
	};
	static const uint32_t o8[] = {
		ACCEL_IMAGE_ORDER_BGRA, ACCEL_IMAGE_ORDER_ARGB,
		ACCEL_IMAGE_ORDER_ABGR,
	};
	static const uint32_t il[] = {
		ACCEL_IMAGE_DATA_SNORM_INT8, ACCEL_IMAGE_DATA_SNORM_INT16,
		ACCEL_IMAGE_DATA_UNORM_INT8, ACCEL_IMAGE_DATA_UNORM_INT16,
		ACCEL_IMAGE_DATA_HALF_FLOAT, ACCEL_IMAGE_DATA_FLOAT,
	};
	size_t n = 0;

	for (size_t o = 0; o < 5; o++)
		for (size_t t = 0; t < 12; t++)
			out[n++] = (struct fmt){ any[o], all[t] };
	for (size_t o = 0; o < 3; o++)
		for (size_t t = 0; t < 4; t++)
			out[n++] = (struct fmt){ o8[o], b8[t] };
	for (size_t t = 0; t < 6; t++) {
		out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_INTENSITY, il[t] };
		out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_LUMINANCE, il[t] };
	}
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGB,
				 ACCEL_IMAGE_DATA_UNORM_SHORT_565 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGB,
				 ACCEL_IMAGE_DATA_UNORM_SHORT_555 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGB,
				 ACCEL_IMAGE_DATA_UNORM_INT_101010 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_RGBA,
				 ACCEL_IMAGE_DATA_UNORM_INT_101010_2 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_sRGBA,
				 ACCEL_IMAGE_DATA_UNORM_INT8 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_sBGRA,
				 ACCEL_IMAGE_DATA_UNORM_INT8 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_DEPTH,
				 ACCEL_IMAGE_DATA_UNORM_INT16 };
	out[n++] = (struct fmt){ ACCEL_IMAGE_ORDER_DEPTH,
				 ACCEL_IMAGE_DATA_FLOAT };
	return n;
}

bool feq(float a, float b, float tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (a == b)
		return true;
	return fabsf(a - b) <= tol * fmaxf(1.0f, fabsf(b));
}

/*
 * Every format: the kernel writes colours, the stored bytes must be the
 * host's encoding (sRGB within one step: the encoding's pow is not
 * exact), and the kernel's reads must decode what is stored.
 */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_sampling),
		cmocka_unit_test(test_sampling_int),
		cmocka_unit_test(test_source_samplers),
		cmocka_unit_test(test_addressing),
		cmocka_unit_test(test_read_write),
		cmocka_unit_test(test_barrier),
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_cl12),
		cmocka_unit_test(test_spirv),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_image_named_struct),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
