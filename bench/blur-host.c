/* SPDX-License-Identifier: MIT */
/*
 * A 5x5 Gaussian blur of a 2048 x 2048 RGBA8 frame, the way image
 * processing code writes it (OpenCV, darktable, GEGL): once through
 * images (read_imagef with a clamp-to-edge sampler, write_imagef) and
 * once through buffers (uchar4, clamped indices, convert_uchar4_sat_rte).
 * One platform per process, like ocl-host (bench/perf-compare.sh).
 * Both results are checked against a host reference (within 1 of 255).
 *
 *   result blur-image   ms  one blur through images, median of the runs
 *   result blur-buffer  ms  the same through buffers
 *
 * A device without image support prints only the buffer row.
 */
#define CL_TARGET_OPENCL_VERSION 120
/* clCreateImage2D: the OpenCL 1.1 call, which every platform has */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define _GNU_SOURCE
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-cl.h"
#include "bench-util.h"

#define W 2048u
#define H 2048u
#define RUNS 15u

/* 5x5 binomial weights (1 4 6 4 1)^2 / 256, as the kernels spell them. */
#define WEIGHTS                                                          \
	"constant float wt[5] = { 1.0f / 16, 4.0f / 16, 6.0f / 16,\n"    \
	"			  4.0f / 16, 1.0f / 16 };\n"

static const char image_src[] =
	WEIGHTS
	"const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE |\n"
	"	CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
	"kernel void blur(read_only image2d_t src, write_only image2d_t dst)\n"
	"{\n"
	"	int x = get_global_id(0), y = get_global_id(1);\n"
	"	float4 acc = 0.0f;\n"
	"	for (int j = -2; j <= 2; j++)\n"
	"		for (int i = -2; i <= 2; i++)\n"
	"			acc += wt[j + 2] * wt[i + 2] *\n"
	"			       read_imagef(src, edge, (int2)(x + i, y + j));\n"
	"	write_imagef(dst, (int2)(x, y), acc);\n"
	"}\n";

static const char buffer_src[] =
	WEIGHTS
	"kernel void blur(global const uchar4 *src, global uchar4 *dst,\n"
	"		  int w, int h)\n"
	"{\n"
	"	int x = get_global_id(0), y = get_global_id(1);\n"
	"	float4 acc = 0.0f;\n"
	"	for (int j = -2; j <= 2; j++) {\n"
	"		int yy = clamp(y + j, 0, h - 1);\n"
	"		for (int i = -2; i <= 2; i++) {\n"
	"			int xx = clamp(x + i, 0, w - 1);\n"
	"			acc += wt[j + 2] * wt[i + 2] *\n"
	"			       convert_float4(src[yy * w + xx]);\n"
	"		}\n"
	"	}\n"
	"	dst[y * w + x] = convert_uchar4_sat_rte(acc);\n"
	"}\n";

struct ocl {
	cl_device_id d;
	cl_context c;
	cl_command_queue q;
};

static cl_kernel build(struct ocl *o, const char *src, cl_program *ret)
{
	cl_int e;
	cl_program p = clCreateProgramWithSource(o->c, 1, &src, NULL, &e);
	cl_kernel k;

	CHECK(e);
	e = clBuildProgram(p, 1, &o->d, "", NULL, NULL);
	if (e != CL_SUCCESS) {
		char log[8192] = "";

		clGetProgramBuildInfo(p, o->d, CL_PROGRAM_BUILD_LOG,
				      sizeof(log) - 1, log, NULL);
		fprintf(stderr, "build failed:\n%s\n", log);
		exit(1);
	}
	k = clCreateKernel(p, "blur", &e);
	CHECK(e);
	*ret = p;
	return k;
}

static unsigned clampi(int v, unsigned max)
{
	return v < 0 ? 0 : v > (int)max ? max : (unsigned)v;
}

/* The host's blur in the kernels' arithmetic (0..255 floats). */
static void reference(const uint8_t *src, float *want)
{
	static const float wt[5] = { 1.0f / 16, 4.0f / 16, 6.0f / 16,
				     4.0f / 16, 1.0f / 16 };

	for (unsigned y = 0; y < H; y++)
		for (unsigned x = 0; x < W; x++)
			for (unsigned c = 0; c < 4; c++) {
				float acc = 0.0f;

				for (int j = -2; j <= 2; j++)
					for (int i = -2; i <= 2; i++)
						acc += wt[j + 2] * wt[i + 2] *
						       src[(clampi((int)y + j, H - 1) * W +
							    clampi((int)x + i, W - 1)) * 4 + c];
				want[(y * W + x) * 4 + c] = acc;
			}
}

static void check(const char *what, const uint8_t *got, const float *want)
{
	for (size_t i = 0; i < (size_t)W * H * 4; i++)
		if (fabsf((float)got[i] - want[i]) > 1.0f) {
			fprintf(stderr, "%s: byte %zu = %u, want %.2f\n", what,
				i, got[i], want[i]);
			exit(1);
		}
}

/* Median time of RUNS launches of @k over the frame, in ms. */
static double time_blur(struct ocl *o, cl_kernel k)
{
	size_t g[2] = { W, H };
	uint64_t t[RUNS], t0;

	CHECK(clEnqueueNDRangeKernel(o->q, k, 2, NULL, g, NULL, 0, NULL,
				     NULL));
	CHECK(clFinish(o->q));
	for (unsigned r = 0; r < RUNS; r++) {
		t0 = bench_now_ns();
		CHECK(clEnqueueNDRangeKernel(o->q, k, 2, NULL, g, NULL, 0, NULL,
					     NULL));
		CHECK(clFinish(o->q));
		t[r] = bench_now_ns() - t0;
	}
	qsort(t, RUNS, sizeof(t[0]), bench_cmp_u64);
	return (double)t[RUNS / 2] / 1e6;
}

static void bench_images(struct ocl *o, const uint8_t *src,
			 const float *want, uint8_t *out)
{
	const cl_image_format fmt = { CL_RGBA, CL_UNORM_INT8 };
	size_t origin[3] = { 0, 0, 0 }, region[3] = { W, H, 1 };
	cl_mem in, res;
	cl_program p;
	cl_kernel k;
	cl_int e;

	in = clCreateImage2D(o->c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			     &fmt, W, H, 0, (void *)src, &e);
	CHECK(e);
	res = clCreateImage2D(o->c, CL_MEM_WRITE_ONLY, &fmt, W, H, 0, NULL,
			      &e);
	CHECK(e);
	k = build(o, image_src, &p);
	CHECK(clSetKernelArg(k, 0, sizeof(in), &in));
	CHECK(clSetKernelArg(k, 1, sizeof(res), &res));
	bench_result("blur-image", time_blur(o, k), "ms");
	CHECK(clEnqueueReadImage(o->q, res, CL_TRUE, origin, region, 0, 0,
				 out, 0, NULL, NULL));
	check("blur-image", out, want);
	clReleaseKernel(k);
	clReleaseProgram(p);
	clReleaseMemObject(res);
	clReleaseMemObject(in);
}

static void bench_buffers(struct ocl *o, const uint8_t *src,
			  const float *want, uint8_t *out)
{
	size_t bytes = (size_t)W * H * 4;
	cl_int w = W, h = H, e;
	cl_mem in, res;
	cl_program p;
	cl_kernel k;

	in = clCreateBuffer(o->c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			    bytes, (void *)src, &e);
	CHECK(e);
	res = clCreateBuffer(o->c, CL_MEM_WRITE_ONLY, bytes, NULL, &e);
	CHECK(e);
	k = build(o, buffer_src, &p);
	CHECK(clSetKernelArg(k, 0, sizeof(in), &in));
	CHECK(clSetKernelArg(k, 1, sizeof(res), &res));
	CHECK(clSetKernelArg(k, 2, sizeof(w), &w));
	CHECK(clSetKernelArg(k, 3, sizeof(h), &h));
	bench_result("blur-buffer", time_blur(o, k), "ms");
	CHECK(clEnqueueReadBuffer(o->q, res, CL_TRUE, 0, bytes, out, 0, NULL,
				  NULL));
	check("blur-buffer", out, want);
	clReleaseKernel(k);
	clReleaseProgram(p);
	clReleaseMemObject(res);
	clReleaseMemObject(in);
}

int main(void)
{
	size_t n = (size_t)W * H * 4;
	uint8_t *src = malloc(n), *out = malloc(n);
	float *want = malloc(n * sizeof(float));
	cl_platform_id plat;
	cl_bool images = CL_FALSE;
	struct ocl o;
	char name[256] = "";
	cl_int e;

	if (!src || !out || !want)
		return 1;
	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)((i * 2654435761u) >> 24);
	reference(src, want);

	CHECK(clGetPlatformIDs(1, &plat, NULL));
	CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &o.d, NULL));
	CHECK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof(name), name,
				NULL));
	printf("platform \"%s\"\n", name);
	o.c = clCreateContext(NULL, 1, &o.d, NULL, NULL, &e);
	CHECK(e);
	o.q = clCreateCommandQueue(o.c, o.d, 0, &e);
	CHECK(e);
	CHECK(clGetDeviceInfo(o.d, CL_DEVICE_IMAGE_SUPPORT, sizeof(images),
			      &images, NULL));
	if (images)
		bench_images(&o, src, want, out);
	else
		printf("no image support: no blur-image row\n");
	bench_buffers(&o, src, want, out);
	clReleaseCommandQueue(o.q);
	clReleaseContext(o.c);
	free(want);
	free(out);
	free(src);
	return 0;
}
