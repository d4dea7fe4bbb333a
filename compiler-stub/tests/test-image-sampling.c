/* SPDX-License-Identifier: MIT */
/*
 * Sampling in every addressing and filter mode against the host
 * reference, integer sampling and the samplers of a source.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image-test.h"

/* ---- sampling --------------------------------------------------------- */

struct axis_r {
	int i0, i1;
	float a;
};

/* OpenCL's addressing of one coordinate (the specification's steps). */
static struct axis_r ref_axis(uint32_t smp, float s, int n, bool linear)
{
	uint32_t am = smp & ACCEL_SAMPLER_ADDRESS_MASK;
	bool norm = smp & ACCEL_SAMPLER_NORMALIZED_COORDS;
	struct axis_r r = { 0, 0, 0 };
	float u;

	if (norm && am == ACCEL_SAMPLER_ADDRESS_REPEAT) {
		u = (s - floorf(s)) * (float)n;
		if (!linear) {
			r.i0 = (int)floorf(u);
			if (r.i0 > n - 1)
				r.i0 -= n;
			return r;
		}
		r.i0 = (int)floorf(u - 0.5f);
		r.i1 = r.i0 + 1;
		if (r.i0 < 0)
			r.i0 += n;
		if (r.i1 > n - 1)
			r.i1 -= n;
		r.a = (u - 0.5f) - floorf(u - 0.5f);
		return r;
	}
	if (norm && am == ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT) {
		float sp = 2.0f * rintf(0.5f * s);

		sp = fabsf(s - sp);
		u = sp * (float)n;
		if (!linear) {
			r.i0 = (int)floorf(u);
			if (r.i0 > n - 1)
				r.i0 = n - 1;
			return r;
		}
		r.i0 = (int)floorf(u - 0.5f);
		r.i1 = r.i0 + 1;
		r.a = (u - 0.5f) - floorf(u - 0.5f);
		if (r.i0 < 0)
			r.i0 = 0;
		if (r.i1 > n - 1)
			r.i1 = n - 1;
		return r;
	}
	u = norm ? s * (float)n : s;
	if (linear) {
		r.i0 = (int)floorf(u - 0.5f);
		r.i1 = r.i0 + 1;
		r.a = (u - 0.5f) - floorf(u - 0.5f);
	} else {
		r.i0 = (int)floorf(u);
	}
	int lo = am == ACCEL_SAMPLER_ADDRESS_CLAMP ? -1 : 0;
	int hi = am == ACCEL_SAMPLER_ADDRESS_CLAMP ? n : n - 1;

	r.i0 = r.i0 < lo ? lo : r.i0 > hi ? hi : r.i0;
	r.i1 = r.i1 < lo ? lo : r.i1 > hi ? hi : r.i1;
	return r;
}

static void ref_tap(struct himg *h, uint32_t smp, int x, int y, int z,
		    float *c)
{
	uint32_t zmax = h->d.type == ACCEL_IMAGE_3D ? h->d.depth :
			h->d.array_size;

	if (x < 0 || y < 0 || z < 0 || (uint32_t)x >= h->d.width ||
	    (uint32_t)y >= h->d.height || (uint32_t)z >= zmax) {
		/* only CLAMP leaves the image: the border colour */
		assert_int_equal(smp & ACCEL_SAMPLER_ADDRESS_MASK,
				 ACCEL_SAMPLER_ADDRESS_CLAMP);
		bool no_alpha = h->f.order == ACCEL_IMAGE_ORDER_R ||
				h->f.order == ACCEL_IMAGE_ORDER_RG ||
				h->f.order == ACCEL_IMAGE_ORDER_RGB ||
				h->f.order == ACCEL_IMAGE_ORDER_LUMINANCE;

		c[0] = c[1] = c[2] = 0;
		c[3] = no_alpha ? 1.0f : 0.0f;
		return;
	}
	unpack(&h->f, himg_at(h, x, y, z), c);
}

/* read_imagef(h, smp, coord): dims spatial ones, a layer at @p ld */
static void ref_sample(struct himg *h, uint32_t smp, const float *co,
		       int dims, int ld, float *out)
{
	bool linear = smp & ACCEL_SAMPLER_FILTER_LINEAR;
	struct axis_r ax[3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
	uint32_t n[3] = { h->d.width, h->d.height, h->d.depth };
	int layer = 0;

	for (int d = 0; d < dims; d++)
		ax[d] = ref_axis(smp, co[d], (int)n[d], linear);
	if (ld) {
		float l = rintf(co[ld]);

		layer = l < 0 ? 0 : l > (float)h->d.array_size - 1 ?
			(int)h->d.array_size - 1 : (int)l;
		ax[2].i0 = ax[2].i1 = layer;
	}
	if (!linear) {
		ref_tap(h, smp, ax[0].i0, ax[1].i0, ax[2].i0, out);
		return;
	}
	memset(out, 0, 4 * sizeof(float));
	for (int k = 0; k < 8; k++) {
		int bx = k & 1, by = k >> 1 & 1, bz = k >> 2 & 1;
		float wgt = (bx ? ax[0].a : 1 - ax[0].a), t[4];

		if ((dims < 2 && by) || (dims < 3 && bz))
			continue;
		if (dims >= 2)
			wgt *= by ? ax[1].a : 1 - ax[1].a;
		if (dims >= 3)
			wgt *= bz ? ax[2].a : 1 - ax[2].a;
		ref_tap(h, smp, bx ? ax[0].i1 : ax[0].i0,
			by ? ax[1].i1 : ax[1].i0,
			bz ? ax[2].i1 : ax[2].i0, t);
		for (int c = 0; c < 4; c++)
			out[c] += wgt * t[c];
	}
}

/*
 * Every addressing mode, filter and coordinate normalization on every
 * image type that takes a sampler, for a float and a UNORM_INT8 format
 * (its fast path), coordinates reaching well outside the image.
 */
void test_sampling(void **state)
{
	static const struct {
		const char *kernel;
		uint32_t type;
		int dims, ld;
	} types[] = {
		{ "s1", ACCEL_IMAGE_1D, 1, 0 },
		{ "s1a", ACCEL_IMAGE_1D_ARRAY, 1, 1 },
		{ "s2", ACCEL_IMAGE_2D, 2, 0 },
		{ "s2a", ACCEL_IMAGE_2D_ARRAY, 2, 2 },
		{ "s3", ACCEL_IMAGE_3D, 3, 0 },
	};
	static const struct fmt fmts[] = {
		{ ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT },
		{ ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_UNORM_INT8 },
		{ ACCEL_IMAGE_ORDER_RG, ACCEL_IMAGE_DATA_UNORM_INT16 },
		{ ACCEL_IMAGE_ORDER_sBGRA, ACCEL_IMAGE_DATA_UNORM_INT8 },
	};
	static const uint32_t modes[] = {
		ACCEL_SAMPLER_ADDRESS_NONE, ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE,
		ACCEL_SAMPLER_ADDRESS_CLAMP, ACCEL_SAMPLER_ADDRESS_REPEAT,
		ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT,
	};
	enum { N = 256 };
	float co[N][4], out[N][4];
	uint64_t seed = 42;

	(void)state;
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
	for (size_t fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++)
	for (size_t m = 0; m < 5; m++)
	for (int norm = 0; norm < 2; norm++)
	for (int lin = 0; lin < 2; lin++) {
		uint32_t smp = modes[m] | (norm ? ACCEL_SAMPLER_NORMALIZED_COORDS :
					   0) |
			(lin ? ACCEL_SAMPLER_FILTER_LINEAR :
			 ACCEL_SAMPLER_FILTER_NEAREST);
		uint32_t w = 5, ht = types[t].dims > 1 ? 4 : 1;
		uint32_t dp = types[t].dims > 2 ? 3 : 1;
		uint32_t layers = types[t].ld ? 3 : 1;
		bool none = modes[m] == ACCEL_SAMPLER_ADDRESS_NONE;
		struct himg h;
		void *smpp = (void *)(uintptr_t)smp, *cop = co, *outp = out;
		void *args[] = { &h.d, &smpp, &cop, &outp };

		/* REPEAT and MIRRORED_REPEAT need normalized coordinates */
		if (!norm && modes[m] >= ACCEL_SAMPLER_ADDRESS_REPEAT)
			continue;
		himg_init(&h, types[t].type, fmts[fi], w, ht, dp, layers);
		himg_fill_random(&h, &seed);
		if (fmts[fi].type == ACCEL_IMAGE_DATA_FLOAT)
			for (size_t b = 0; b < h.size; b += 4) {
				float v = frand(&seed, 0.0f, 1.0f);

				memcpy(h.mem + b, &v, 4);
			}
		for (int k = 0; k < N; k++) {
			uint32_t n[3] = { w, ht, dp };

			for (int d = 0; d < 3; d++) {
				/* NONE: inside only (else undefined) */
				float lo = none ? 0.0f : -1.5f;
				float hi = none ? 1.0f : 2.5f;

				co[k][d] = frand(&seed, lo, hi);
				if (!norm)
					co[k][d] *= (float)n[d];
				/* exact texel edges and centres too */
				if (k % 4 == 1)
					co[k][d] = norm ? (float)(k % 9) / 4 :
						   (float)(k % 11) / 2;
			}
			if (none && !lin)
				; /* nearest stays inside */
			else if (none)
				/* linear NONE reads the texel beyond too */
				for (int d = 0; d < types[t].dims; d++) {
					float c0 = norm ? 0.5f / (float)n[d] :
						   0.5f;
					float c1 = norm ? 1 - c0 :
						   (float)n[d] - 0.5f;

					co[k][d] = c0 + (c1 - c0) *
						   frand(&seed, 0, 1);
				}
			if (types[t].ld)
				co[k][types[t].ld] = frand(&seed, -1.0f, 4.0f);
			co[k][3] = 0;
		}
		run(types[t].kernel, args, N);
		for (int k = 0; k < N; k++) {
			float want[4];

			ref_sample(&h, smp, co[k], types[t].dims, types[t].ld,
				   want);
			for (int c = 0; c < 4; c++)
				if (!feq(out[k][c], want[c], 1e-5f)) {
					fprintf(stderr, "%s fmt %zu sampler "
						"%#x coord (%a %a %a) ch %d:"
						" %a, want %a\n",
						types[t].kernel, fi, smp,
						(double)co[k][0],
						(double)co[k][1],
						(double)co[k][2], c,
						(double)out[k][c],
						(double)want[c]);
					fail();
				}
		}
		free(h.mem);
	}
}

/* Integer formats sample nearest; integer coordinates with CLAMP. */
void test_sampling_int(void **state)
{
	enum { N = 128 };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA,
			 ACCEL_IMAGE_DATA_UNSIGNED_INT16 };
	struct fmt g = { ACCEL_IMAGE_ORDER_R, ACCEL_IMAGE_DATA_UNORM_INT8 };
	struct himg h;
	float co[N][4], out[N][4];
	int32_t ico[N][4];
	uint32_t uo[N][4];
	uint64_t seed = 7;
	void *cop = co, *icop = ico, *outp = out, *uop = uo;

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, 6, 5, 1, 1);
	himg_fill_random(&h, &seed);
	for (uint32_t smp = 0; smp < 0x40; smp++) {
		uint32_t am = smp & ACCEL_SAMPLER_ADDRESS_MASK;
		void *smpp = (void *)(uintptr_t)smp;
		void *args[] = { &h.d, &smpp, &cop, &uop };

		if ((smp & ~0x3fu) || am > ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT ||
		    (smp & ACCEL_SAMPLER_FILTER_MASK) != ACCEL_SAMPLER_FILTER_NEAREST ||
		    (!(smp & 1) && am >= ACCEL_SAMPLER_ADDRESS_REPEAT) ||
		    am == ACCEL_SAMPLER_ADDRESS_NONE)
			continue;
		for (int k = 0; k < N; k++) {
			co[k][0] = frand(&seed, -2, 8);
			co[k][1] = frand(&seed, -2, 7);
			if (smp & 1) {
				co[k][0] /= 6;
				co[k][1] /= 5;
			}
		}
		run("s2u", args, N);
		for (int k = 0; k < N; k++) {
			struct axis_r x = ref_axis(smp, co[k][0], 6, false);
			struct axis_r y = ref_axis(smp, co[k][1], 5, false);
			uint32_t want[4] = { 0, 0, 0, 0 };

			if (x.i0 >= 0 && x.i0 < 6 && y.i0 >= 0 && y.i0 < 5)
				unpack(&f, himg_at(&h, x.i0, y.i0, 0), want);
			assert_memory_equal(uo[k], want, sizeof(want));
		}
	}
	free(h.mem);

	/* integer coordinates: CLAMP gives R's border (0, 0, 0, 1) */
	himg_init(&h, ACCEL_IMAGE_2D, g, 4, 3, 1, 1);
	himg_fill_random(&h, &seed);
	for (int k = 0; k < N; k++) {
		ico[k][0] = (int)(rnd(&seed) % 8) - 2;
		ico[k][1] = (int)(rnd(&seed) % 7) - 2;
	}
	for (int mode = 0; mode < 2; mode++) {
		uint32_t smp = ACCEL_SAMPLER_FILTER_NEAREST |
			(mode ? ACCEL_SAMPLER_ADDRESS_CLAMP :
			 ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE);
		void *smpp = (void *)(uintptr_t)smp;
		void *args[] = { &h.d, &smpp, &icop, &outp };

		run("i2", args, N);
		for (int k = 0; k < N; k++) {
			int x = ico[k][0], y = ico[k][1];
			float want[4] = { 0, 0, 0, 1 };

			if (!mode || (x >= 0 && x < 4 && y >= 0 && y < 3))
				unpack(&g, himg_at(&h, x < 0 ? 0 : x > 3 ? 3 : x,
						   y < 0 ? 0 : y > 2 ? 2 : y, 0),
				       want);
			assert_memory_equal(out[k], want, sizeof(want));
		}
	}
	free(h.mem);
}

/* Samplers declared in the source mean what the same bits as an
 * argument mean. */
void test_source_samplers(void **state)
{
	enum { N = 64 };
	struct fmt f = { ACCEL_IMAGE_ORDER_RGBA, ACCEL_IMAGE_DATA_FLOAT };
	struct himg h;
	float co[N][4], out[2 * N][4];
	uint64_t seed = 5;
	void *cop = co, *outp = out;
	void *args[] = { &h.d, &cop, &outp };

	(void)state;
	himg_init(&h, ACCEL_IMAGE_2D, f, 5, 4, 1, 1);
	for (size_t b = 0; b < h.size; b += 4) {
		float v = frand(&seed, 0.0f, 1.0f);

		memcpy(h.mem + b, &v, 4);
	}
	for (int k = 0; k < N; k++) {
		co[k][0] = frand(&seed, -1.0f, 2.0f);
		co[k][1] = frand(&seed, -1.0f, 2.0f);
	}
	run("sp", args, N);
	for (int k = 0; k < N; k++) {
		float want[4], unnorm[2] = { co[k][0] * 5, co[k][1] * 4 };

		ref_sample(&h, ACCEL_SAMPLER_NORMALIZED_COORDS |
			   ACCEL_SAMPLER_ADDRESS_REPEAT |
			   ACCEL_SAMPLER_FILTER_LINEAR, co[k], 2, 0, want);
		for (int c = 0; c < 4; c++)
			assert_true(feq(out[2 * k][c], want[c], 1e-5f));
		(void)unnorm;
		ref_sample(&h, ACCEL_SAMPLER_ADDRESS_CLAMP |
			   ACCEL_SAMPLER_FILTER_NEAREST, co[k], 2, 0, want);
		assert_memory_equal(out[2 * k + 1], want, sizeof(want));
	}
	free(h.mem);
}

/*
 * Sampler-less reads and writes of every type find their texels through
 * the pitches: each texel is copied from one image to another of the
 * same shape; the padding stays untouched, writes outside are dropped.
 */
