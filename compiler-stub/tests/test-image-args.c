/* SPDX-License-Identifier: MIT */
/*
 * The arguments' descriptions, OpenCL C 1.2, SPIR-V modules and the
 * sources that are refused.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image-test.h"

/* ---- kernel information, hostile sources -------------------------------- */

static const char every_type[] =
	"kernel void all(read_only image1d_t a, write_only image1d_buffer_t b,"
	" read_write image1d_array_t c, read_only image2d_t d,"
	" write_only image2d_array_t e, read_write image3d_t f,"
	" read_only image2d_depth_t g, write_only image2d_array_depth_t h,"
	" sampler_t s, global int *o) {"
	" o[0] = get_image_width(a) + get_image_width(b) +"
	" get_image_width(c) + get_image_width(d) + get_image_width(e) +"
	" get_image_width(f) + get_image_width(g) + get_image_width(h);"
	" o[1] = read_imagei(d, s, (int2)(0)).x; }\n";

void test_arguments(void **state)
{
	static const struct {
		uint32_t type, flags, access;
	} want[] = {
		{ ACCEL_IMAGE_1D, 0, ACCELC_ACCESS_READ_ONLY },
		{ ACCEL_IMAGE_1D_BUFFER, 0, ACCELC_ACCESS_WRITE_ONLY },
		{ ACCEL_IMAGE_1D_ARRAY, 0, ACCELC_ACCESS_READ_WRITE },
		{ ACCEL_IMAGE_2D, 0, ACCELC_ACCESS_READ_ONLY },
		{ ACCEL_IMAGE_2D_ARRAY, 0, ACCELC_ACCESS_WRITE_ONLY },
		{ ACCEL_IMAGE_3D, 0, ACCELC_ACCESS_READ_WRITE },
		{ ACCEL_IMAGE_2D, ACCELC_IMAGE_DEPTH,
		  ACCELC_ACCESS_READ_ONLY },
		{ ACCEL_IMAGE_2D_ARRAY, ACCELC_IMAGE_DEPTH,
		  ACCELC_ACCESS_WRITE_ONLY },
	};
	const char *stds[] = { "-cl-std=CL2.0", "-cl-std=CL3.0" };

	(void)state;
	for (int s = 0; s < 2; s++) {
		struct wg_prog p;
		const struct accelc_kernel_info *k;

		wg_build(&p, every_type, stds[s]);
		k = accelc_result_find_kernel(p.res, "all");
		assert_non_null(k);
		assert_int_equal(k->n_args, 10);
		for (int i = 0; i < 8; i++) {
			const struct accelc_arg_info *a = &k->args[i];

			assert_int_equal(a->kind, ACCELC_ARG_IMAGE);
			assert_int_equal(a->size,
					 sizeof(struct accel_wg_image));
			assert_int_equal(a->alignment, 8);
			assert_int_equal(a->image_type, want[i].type);
			assert_int_equal(a->image_flags, want[i].flags);
			assert_int_equal(a->access, want[i].access);
		}
		assert_int_equal(k->args[8].kind, ACCELC_ARG_SAMPLER);
		assert_int_equal(k->args[8].size, 8);
		assert_int_equal(k->args[8].image_type, 0);
		assert_int_equal(k->args[9].kind, ACCELC_ARG_BUFFER);
		wg_unbuild(&p);
	}
}

/* OpenCL C 1.2 image code builds (3D writes: cl_khr_3d_image_writes),
 * and __IMAGE_SUPPORT__ says so. */
void test_cl12(void **state)
{
	struct wg_prog p;

	(void)state;
	wg_build(&p,
		 "#ifndef __IMAGE_SUPPORT__\n#error no images\n#endif\n"
		 "#ifndef cl_khr_3d_image_writes\n#error no 3D writes\n#endif\n"
		 "#ifndef cl_khr_depth_images\n#error no depth\n#endif\n"
		 "__constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE |"
		 " CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;\n"
		 "kernel void k(read_only image2d_t a, write_only image3d_t b,"
		 " image2d_array_depth_t d) { write_imagef(b, (int4)(0),"
		 " read_imagef(a, s, (float2)(0.5f)) +"
		 " read_imagef(d, s, (float4)(0.5f))); }\n",
		 "-cl-std=CL1.2");
	wg_unbuild(&p);
}

/*
 * A SPIR-V module's images, sampler argument and literal samplers read
 * as the same kernels of OpenCL C do (test_source_samplers, s2).
 */
void test_spirv(void **state)
{
#ifdef IMAGE_SPV
	enum { N = 64 };
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_UNORM_INT8 };
	struct accelc_result *res = NULL;
	struct himg h;
	float co[N][4], out[2 * N][4], ref[2 * N][4];
	uint64_t seed = 17;
	void *cop = co, *outp = out, *refp = ref;
	void *smp = (void *)(uintptr_t)(ACCEL_SAMPLER_NORMALIZED_COORDS |
					ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT |
					ACCEL_SAMPLER_FILTER_LINEAR);
	void *args[] = { &h.d, &cop, &outp }, *rargs[] = { &h.d, &cop, &refp };
	void *sargs[] = { &h.d, &smp, &cop, &outp };
	void *srargs[] = { &h.d, &smp, &cop, &refp };
	FILE *fp = fopen(IMAGE_SPV, "rb");
	char il[65536];
	size_t n;
	void *dl;

	(void)state;
	assert_non_null(fp);
	n = fread(il, 1, sizeof(il), fp);
	fclose(fp);
	if (!accelc_il_available())
		skip();
	if (accelc_compile_il(&o, il, n, 0, NULL, 0, &res) < 0) {
		fprintf(stderr, "%s\n", res ? accelc_result_get_log(res) : "");
		fail();
	}
	dl = dlopen(accelc_result_get_path(res), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(dl);
	himg_init(&h, ACCEL_IMAGE_2D, f, 7, 5, 1, 1);
	himg_fill_random(&h, &seed);
	for (int k = 0; k < N; k++) {
		co[k][0] = frand(&seed, -1.0f, 2.0f);
		co[k][1] = frand(&seed, -1.0f, 2.0f);
	}
	wg_run_1d((accel_wg_fn)dlsym(dl, "sp__wg"), args, 0, N, 16);
	run("sp", rargs, N);
	assert_memory_equal(out, ref, sizeof(out));
	wg_run_1d((accel_wg_fn)dlsym(dl, "s2__wg"), sargs, 0, N, 16);
	run("s2", srargs, N);
	assert_memory_equal(out, ref, N * sizeof(out[0]));
	dlclose(dl);
	accelc_result_free(res);
	free(h.mem);
#else
	(void)state;
	skip();
#endif
}

void test_refused(void **state)
{
	static const char pipe_src[] =
		"kernel void p(read_only pipe int x, global int *o) {"
		" o[0] = 1; }\n";
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE,
				    .build_options = "-cl-std=CL2.0" };
	struct accelc_result *res = NULL;

	(void)state;
	assert_int_equal(accelc_compile(&o, pipe_src, strlen(pipe_src), &res),
			 -ENOEXEC);
	assert_non_null(res);
	assert_non_null(strstr(accelc_result_get_log(res),
			       "'x': pipes are not supported"));
	accelc_result_free(res);
}

/*
 * A user's type whose name starts with "image" is no image, and
 * CLK_UNORM_INT_101010_2 is defined (both as the CTS's kernels have it).
 */
void test_image_named_struct(void **state)
{
	static const char src[] =
		"typedef struct { int width; } image_kernel_data;\n"
		"kernel void k(read_only image1d_t in,\n"
		"	       global image_kernel_data *out)\n"
		"{ out->width = get_image_width(in) +\n"
		"	(get_image_channel_data_type(in) == CLK_UNORM_INT_101010_2);"
		" }\n";
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_NO_CACHE };
	const struct accelc_kernel_info *k;
	struct accelc_result *res = NULL;

	(void)state;
	if (accelc_compile(&o, src, strlen(src), &res) < 0)
		fail_msg("%s", res ? accelc_result_get_log(res) : "");
	k = accelc_result_get_kernel(res, 0);
	assert_non_null(k);
	assert_int_equal(k->n_args, 2);
	assert_int_equal(k->args[0].kind, ACCELC_ARG_IMAGE);
	assert_int_equal(k->args[1].kind, ACCELC_ARG_BUFFER);
	accelc_result_free(res);
}
