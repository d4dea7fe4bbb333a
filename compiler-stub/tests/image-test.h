/* SPDX-License-Identifier: MIT */
/*
 * The host reference, host images and kernels shared by the accelc-image
 * binary's cases (test-image*.c, image-ref.c).
 */
#ifndef ACCELC_TEST_IMAGE_H
#define ACCELC_TEST_IMAGE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libaccel/accel-image.h>
#include <libaccel/accel-wg.h>

#include "wg-test.h"

struct fmt {
	uint32_t order, type;
};

/* An image with padded rows and slices, its descriptor and its bytes. */
struct himg {
	struct accel_wg_image d;
	struct fmt f;
	uint8_t *mem;
	size_t size;
};

/* image-ref.c: the host reference, images in host memory */
bool is_int_type(uint32_t t);
bool is_signed_int(uint32_t t);
const int *slots(uint32_t order);
unsigned n_slots(uint32_t order);
unsigned chan_size(uint32_t t);
unsigned texel_size(const struct fmt *f);
bool is_srgb(uint32_t order);
long to_int_sat(float v, float lo, float hi);
double srgb_encode(double l);
double srgb_decode(double c);
void pack(const struct fmt *f, const void *color, uint8_t *t);
void unpack(const struct fmt *f, const uint8_t *t, void *color);
void himg_init(struct himg *h, uint32_t type, struct fmt f,
	       uint32_t w, uint32_t ht, uint32_t dp, uint32_t layers);
uint8_t *himg_at(struct himg *h, int x, int y, int z);
void himg_fill_random(struct himg *h, uint64_t *seed);
uint64_t rnd(uint64_t *s);
float frand(uint64_t *s, float lo, float hi);

/* test-image.c: the kernels of its source */
extern struct wg_prog image_prog;
void run(const char *kernel, void **args, uint64_t n);
size_t all_formats(struct fmt *out);
bool feq(float a, float b, float tol);

/* test-image-format.c */
void test_formats(void **state);
void test_half(void **state);

/* test-image-sampling.c */
void test_sampling(void **state);
void test_sampling_int(void **state);
void test_source_samplers(void **state);

/* test-image-access.c */
void test_addressing(void **state);
void test_read_write(void **state);
void test_barrier(void **state);
void test_queries(void **state);

/* test-image-args.c */
void test_arguments(void **state);
void test_cl12(void **state);
void test_spirv(void **state);
void test_refused(void **state);
void test_image_named_struct(void **state);

#endif /* ACCELC_TEST_IMAGE_H */
