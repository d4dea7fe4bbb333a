/* SPDX-License-Identifier: MIT */
/*
 * The glibc libmvec variants generated code may call, named by the x86
 * vector function ABI: _ZGV<isa><mask><lanes><args>_<name>, with isa 'b'
 * (SSE4, 128-bit), 'c' (AVX), 'd' (AVX2, 256-bit) or 'e' (AVX-512,
 * 512-bit), 'N' unmasked, one 'v' per vector argument. Arguments and the
 * result each travel in one register of the ISA's width (xmm0/xmm1,
 * ymm0/ymm1, zmm0/zmm1): the caller must treat that width as legal (see
 * raise_legal_vector_width() in codegen.c). Only unmasked variants with
 * vector arguments are used; glibc 2.36 has every one listed here for
 * 'b', 'd' and 'e', within 4 ulp. logf is left out: its variants are up
 * to 3.97 ulp off where OpenCL allows 3 (float log is the double one,
 * rounded). The accelc-targets test checks the table against the
 * machine's libmvec and the call ABI of each level.
 */
#include <stdio.h>
#include <string.h>

#include "accelc-private.h"

const struct accelc_vec_fn accelc_vec_fns[] = {
	{ "llvm.sin.f32", "sinf", 1, false }, { "sinf", "sinf", 1, false },
	{ "llvm.cos.f32", "cosf", 1, false }, { "cosf", "cosf", 1, false },
	{ "llvm.exp.f32", "expf", 1, false }, { "expf", "expf", 1, false },
	{ "llvm.pow.f32", "powf", 2, false }, { "powf", "powf", 2, false },
	{ "llvm.sin.f64", "sin", 1, true }, { "sin", "sin", 1, true },
	{ "llvm.cos.f64", "cos", 1, true }, { "cos", "cos", 1, true },
	{ "llvm.exp.f64", "exp", 1, true }, { "exp", "exp", 1, true },
	{ "llvm.log.f64", "log", 1, true }, { "log", "log", 1, true },
	{ "llvm.pow.f64", "pow", 2, true }, { "pow", "pow", 2, true },
};

const size_t accelc_n_vec_fns =
	sizeof(accelc_vec_fns) / sizeof(accelc_vec_fns[0]);

/* Is "+feat" in the feature string? */
static bool has(const char *features, const char *feat)
{
	size_t n = strlen(feat);

	for (const char *p = features; *p;) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == n + 1 && *p == '+' &&
		    !memcmp(p + 1, feat, n))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

char accelc_vec_isa(const char *features, unsigned *lanes)
{
	if (has(features, "avx512f")) {
		*lanes = 16;
		return 'e';
	}
	if (has(features, "avx2")) {
		*lanes = 8;
		return 'd';
	}
	*lanes = 4;
	return 'b';
}

void accelc_vec_variant_name(const struct accelc_vec_fn *v, char isa,
			     unsigned lanes, char *buf, size_t size)
{
	snprintf(buf, size, "_ZGV%cN%u%s_%s", isa, v->dbl ? lanes / 2 : lanes,
		 v->nargs == 2 ? "vv" : "v", v->base);
}
