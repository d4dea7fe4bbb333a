/* SPDX-License-Identifier: MIT */
/*
 * Every format written and read back, and half floats, against the host
 * reference.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image-test.h"

void test_formats(void **state)
{
	enum { W = 7, H = 3, N = W * H };
	struct fmt fmts[128];
	size_t nf = all_formats(fmts);
	uint64_t seed = 0x1234567;
	int w = W;

	(void)state;
	for (size_t i = 0; i < nf; i++) {
		const struct fmt *f = &fmts[i];
		bool ints = is_int_type(f->type);
		bool depth = f->order == ACCEL_IMAGE_ORDER_DEPTH;
		float in[N][4], out[N][4], dep[N], dout[N];
		uint32_t iin[N][4], iout[N][4];
		struct himg h;
		void *inp = ints ? (void *)iin : depth ? (void *)dep : in;
		void *outp = ints ? (void *)iout : depth ? (void *)dout : out;
		void *smp = (void *)(uintptr_t)(ACCEL_SAMPLER_FILTER_NEAREST |
				ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE);
		void *wargs[] = { &h.d, &inp, &w };
		void *rargs[] = { &h.d, &outp, &w };
		void *dargs[] = { &h.d, &smp, &outp, &w };

		himg_init(&h, ACCEL_IMAGE_2D, *f, W, H, 1, 1);
		for (int k = 0; k < N; k++)
			for (int c = 0; c < 4; c++) {
				in[k][c] = frand(&seed, -0.25f, 1.25f);
				iin[k][c] = (uint32_t)rnd(&seed);
				/* small values too, which do not saturate */
				if (k & 1)
					iin[k][c] = (uint32_t)(int32_t)
						((int)(rnd(&seed) % 301) - 150);
			}
		in[0][0] = NAN;
		in[1][1] = 0.5f / 255.0f; /* ties of the rounding */
		in[2][2] = 1.5f / 255.0f;
		for (int k = 0; k < N; k++)
			dep[k] = in[k][0];
		dep[0] = 0.5f;
		if (ints)
			run(is_signed_int(f->type) ? "wi" : "wu", wargs, N);
		else
			run(depth ? "wd" : "wf", wargs, N);
		for (int k = 0; k < N; k++) {
			uint8_t want[16];
			const uint8_t *have = himg_at(&h, k % W, k / W, 0);
			float dc[4] = { dep[k] };

			pack(f, ints ? (void *)iin[k] : depth ? dc : in[k],
			     want);
			for (unsigned b = 0; b < texel_size(f); b++) {
				int diff = have[b] - want[b];

				if (diff && !(is_srgb(f->order) &&
					      abs(diff) == 1)) {
					fprintf(stderr, "format %#x/%#x texel"
						" %d byte %u: %#x, want %#x\n",
						f->order, f->type, k, b,
						have[b], want[b]);
					fail();
				}
			}
		}
		/* a texel with every bit pattern the writes may miss */
		himg_fill_random(&h, &seed);
		if (ints)
			run(is_signed_int(f->type) ? "ri" : "ru", rargs, N);
		else if (depth)
			run("rd", dargs, N);
		else
			run("rf", rargs, N);
		for (int k = 0; k < N; k++) {
			float want[4];
			uint32_t *iw = (uint32_t *)want;

			unpack(f, himg_at(&h, k % W, k / W, 0), want);
			for (int c = 0; c < (depth ? 1 : 4); c++) {
				bool ok = ints ? iout[k][c] == iw[c] :
					  feq(depth ? dout[k] : out[k][c],
					      want[c], is_srgb(f->order) ?
					      1e-5f : 0.0f);

				if (!ok) {
					fprintf(stderr, "format %#x/%#x read"
						" %d.%d: %a, want %a\n",
						f->order, f->type, k, c,
						ints ? (double)iout[k][c] :
						(double)out[k][c],
						ints ? (double)iw[c] :
						(double)want[c]);
					fail();
				}
			}
		}
		free(h.mem);
	}
}

/* read_imageh and write_imageh: through half, rounded to nearest even */
void test_half(void **state)
{
	enum { W = 5, H = 2, N = W * H };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg h;
	float in[N][4], out[N][4];
	uint64_t seed = 99;
	int w = W;
	void *inp = in, *outp = out;
	void *smp = (void *)(uintptr_t)ACCEL_SAMPLER_FILTER_NEAREST;
	void *wargs[] = { &h.d, &inp, &w };
	void *rargs[] = { &h.d, &smp, &outp, &w };

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, W, H, 1, 1);
	for (int k = 0; k < N; k++)
		for (int c = 0; c < 4; c++)
			in[k][c] = frand(&seed, -70000.0f, 70000.0f) /
				   (float)(1 << (k % 16));
	run("wh", wargs, N);
	for (int k = 0; k < N; k++)
		for (int c = 0; c < 4; c++) {
			float v;

			memcpy(&v, himg_at(&h, k % W, k / W, 0) + 4 * c, 4);
			assert_true(v == (float)(_Float16)in[k][c] ||
				    (isinf(v) && isinf((float)(_Float16)
							in[k][c])));
		}
	himg_fill_random(&h, &seed);
	run("rh", rargs, N);
	for (int k = 0; k < N; k++)
		for (int c = 0; c < 4; c++) {
			float v;

			memcpy(&v, himg_at(&h, k % W, k / W, 0) + 4 * c, 4);
			if (!feq(out[k][c], (float)(_Float16)v, 0.0f)) {
				fprintf(stderr, "read_imageh %a: %a, want %a\n",
					(double)v, (double)out[k][c],
					(double)(float)(_Float16)v);
				fail();
			}
		}
	free(h.mem);
}
