/* SPDX-License-Identifier: MIT */
/*
 * Every image type's addressing, reads and writes in one kernel,
 * barriers between them and the image queries.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image-test.h"

void test_addressing(void **state)
{
	static const struct {
		const char *kernel;
		uint32_t type;
		struct fmt f;
		uint32_t w, h, d, layers;
	} t[] = {
		{ "c1", ACCEL_IMAGE_1D,
		  { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_UNORM_INT8 },
		  9, 1, 1, 1 },
		{ "c1b", ACCEL_IMAGE_1D_BUFFER,
		  { ACCEL_IMAGE_ORDER_RG, ACCEL_IMAGE_DATA_UNSIGNED_INT16 },
		  13, 1, 1, 1 },
		{ "c1a", ACCEL_IMAGE_1D_ARRAY,
		  { ACCEL_IMAGE_ORDER_BGRA, ACCEL_IMAGE_DATA_UNORM_INT8 },
		  6, 1, 1, 4 },
		{ "c2a", ACCEL_IMAGE_2D_ARRAY,
		  { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_SIGNED_INT32 },
		  5, 3, 1, 3 },
		{ "c3", ACCEL_IMAGE_3D,
		  { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT },
		  4, 3, 5, 1 },
	};
	uint64_t seed = 11;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct himg a, b;
		uint32_t rows = t[i].type == ACCEL_IMAGE_1D_ARRAY ?
				t[i].layers : t[i].h;
		uint32_t slices = t[i].type == ACCEL_IMAGE_3D ? t[i].d :
				  t[i].type == ACCEL_IMAGE_2D_ARRAY ?
				  t[i].layers : 1;
		uint32_t n = t[i].w * rows * slices + 3;
		int32_t (*co)[4] = calloc(n, sizeof(*co));
		uint8_t *before;
		void *cop = co;
		void *args[] = { &a.d, &b.d, &cop };

		assert_non_null(co);
		himg_init(&a, t[i].type, t[i].f, t[i].w, t[i].h, t[i].d,
			  t[i].layers);
		himg_init(&b, t[i].type, t[i].f, t[i].w, t[i].h, t[i].d,
			  t[i].layers);
		himg_fill_random(&a, &seed);
		himg_fill_random(&b, &seed);
		before = malloc(b.size);
		assert_non_null(before);
		memcpy(before, b.mem, b.size);
		for (uint32_t k = 0; k < n - 3; k++) {
			uint32_t x = k % t[i].w, r = k / t[i].w % rows,
				 s = k / t[i].w / rows;

			co[k][0] = (int32_t)x;
			if (t[i].type == ACCEL_IMAGE_1D_ARRAY) {
				co[k][1] = (int32_t)r; /* the layer */
			} else {
				co[k][1] = (int32_t)r;
				co[k][2] = (int32_t)s;
			}
		}
		/* outside: reads clamp, writes are dropped */
		co[n - 3][0] = -1;
		co[n - 2][0] = (int32_t)t[i].w;
		co[n - 1][1] = 1000;
		run(t[i].kernel, args, n);
		for (size_t off = 0; off < b.size; off++) {
			uint64_t z = off / b.d.slice_pitch;
			uint64_t y = off % b.d.slice_pitch / b.d.row_pitch;
			uint64_t x = off % b.d.slice_pitch % b.d.row_pitch /
				     b.d.texel_size;
			bool texel = y < (t[i].type == ACCEL_IMAGE_1D_ARRAY ?
					  1 : t[i].h) &&
				     x < t[i].w &&
				     off % b.d.slice_pitch < b.d.row_pitch *
					     b.d.height;

			assert_int_equal(b.mem[off],
					 texel ? a.mem[off] : before[off]);
			(void)z;
		}
		free(before);
		free(co);
		free(a.mem);
		free(b.mem);
	}
}

/* A read_write image read and written in place. */
void test_read_write(void **state)
{
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg h;
	int w = 6;
	void *args[] = { &h.d, &w };
	float *copy;
	uint64_t seed = 3;

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, 6, 4, 1, 1);
	for (size_t b = 0; b < h.size; b += 4) {
		float v = frand(&seed, -10.0f, 10.0f);

		memcpy(h.mem + b, &v, 4);
	}
	copy = malloc(h.size);
	assert_non_null(copy);
	memcpy(copy, h.mem, h.size);
	run("rw", args, 24);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 6; x++)
			for (int c = 0; c < 4; c++) {
				size_t off = (size_t)(himg_at(&h, x, y, 0) -
						      h.mem) / 4 + c;

				assert_true(((float *)h.mem)[off] ==
					    copy[off] * 0.5f);
			}
	free(copy);
	free(h.mem);
}

/* Images in a kernel with a barrier (work-item loops over regions). */
void test_barrier(void **state)
{
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg a, b;
	float tmem[16][4] __attribute__((aligned(128)));
	void *tp = tmem;
	void *args[] = { &a.d, &b.d, &tp };
	uint64_t seed = 8;

	(void)state;
	himg_init(&a, ACCEL_IMAGE_1D, f, 64, 1, 1, 1);
	himg_init(&b, ACCEL_IMAGE_1D, f, 64, 1, 1, 1);
	for (size_t i = 0; i < a.size; i += 4) {
		float v = frand(&seed, 0.0f, 1.0f);

		memcpy(a.mem + i, &v, 4);
	}
	wg_run_1d(wg_find(&image_prog, "rev", ""), args, 0, 64, 16);
	for (int x = 0; x < 64; x++)
		assert_memory_equal(himg_at(&b, x, 0, 0),
				    himg_at(&a, x / 16 * 16 + 15 - x % 16, 0,
					    0), 16);
	free(a.mem);
	free(b.mem);
}

void test_queries(void **state)
{
	struct himg a, b, c, d, e;
	int out[14];
	void *outp = out;
	void *args[] = { &a.d, &b.d, &c.d, &d.d, &e.d, &outp };
	struct fmt f = { ACCEL_IMAGE_ORDER_sBGRA, ACCEL_IMAGE_DATA_UNORM_INT8 };
	struct fmt df = { ACCEL_IMAGE_ORDER_DEPTH, ACCEL_IMAGE_DATA_FLOAT };

	(void)state;
	himg_init(&a, ACCEL_IMAGE_1D_ARRAY, f, 17, 1, 1, 6);
	himg_init(&b, ACCEL_IMAGE_2D, f, 11, 7, 1, 1);
	himg_init(&c, ACCEL_IMAGE_2D_ARRAY, df, 3, 9, 1, 2);
	himg_init(&d, ACCEL_IMAGE_3D, f, 2, 3, 4, 1);
	himg_init(&e, ACCEL_IMAGE_1D_BUFFER, f, 100, 1, 1, 1);
	run("q", args, 1);
	assert_int_equal(out[0], 17);
	assert_int_equal(out[1], 6);
	assert_int_equal(out[2], 11);
	assert_int_equal(out[3], 7);
	assert_int_equal(out[4], 9);
	assert_int_equal(out[5], 2);
	assert_int_equal(out[6], ACCEL_IMAGE_ORDER_DEPTH);
	assert_int_equal(out[7], ACCEL_IMAGE_DATA_FLOAT);
	assert_int_equal(out[8], 4);
	assert_int_equal(out[9], 4);
	assert_int_equal(out[10], 100);
	assert_int_equal(out[11], ACCEL_IMAGE_ORDER_sBGRA);
	assert_int_equal(out[12], ACCEL_IMAGE_DATA_UNORM_INT8);
	assert_int_equal(out[13], 9);
	free(a.mem);
	free(b.mem);
	free(c.mem);
	free(d.mem);
	free(e.mem);
}
