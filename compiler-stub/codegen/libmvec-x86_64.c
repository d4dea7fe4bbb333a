/* SPDX-License-Identifier: MIT */
/*
 * The glibc libmvec variants generated code may call on x86-64, named by
 * the x86 vector function ABI: _ZGV<isa><mask><lanes><args>_<name>, with isa 'b'
 * (SSE4, 128-bit), 'c' (AVX), 'd' (AVX2, 256-bit) or 'e' (AVX-512,
 * 512-bit), 'N' unmasked, one 'v' per vector argument. Arguments and the
 * result each travel in one register of the ISA's width (xmm0/xmm1,
 * ymm0/ymm1, zmm0/zmm1): the caller must treat that width as legal (see
 * raise_legal_vector_width() in codegen.c). Only unmasked variants with
 * vector arguments are used. The accelc-targets test checks the table
 * against the machine's libmvec and the call ABI of each level.
 *
 * A function is listed only where glibc 2.36 (the first with most of
 * these is 2.35) has its 'b', 'd' and 'e' variants, their measured
 * maxima (sysdeps/x86_64/fpu/libm-test-ulps, the _vlen4, _vlen8_avx2 and
 * _vlen16 entries for float, _vlen2, _vlen4_avx2 and _vlen8 for double;
 * a missing entry means 0) are within OpenCL's full-profile limit for
 * the builtin that calls it (OpenCL 3.0 7.4), and a sweep of the
 * variants against libm (every 64th float; 4M random doubles) found none
 * over it either. glibc's maxima, float / double, then OpenCL's limit:
 *   sin, cos 1 / 2 (4); exp 1 / 1 (3); pow 3 / 1 (16);
 *   log - / 1 (3): logf is left out, its variants are up to 3.97 ulp
 *     off (_ZGV*_logf(0x1.c3fd74p-1)), so float log is the double one,
 *     rounded, and only the double variants are named;
 *   acos, asin 2 / 1 (4); acosh 2 / 2 (4); asinh 1 / 1 (4);
 *   atan 1 / 1 (5); atanh 1 / 1 (5); atan2 2 / 3 (6);
 *   sinh 1 / 2, cosh 2 / 2 (4); tan 2 / 2 (5); tanh 1 / 1 (5);
 *   exp2 1 / 1, expm1 1 / 1 (3): the double 'b' and 'd' expm1 were up
 *     to 2.96 ulp off in the sweep, close to the limit but within;
 *   log2 1 / 1 (3); log1p 2 / 1 (2);
 *   erf 2 / 1, erfc 1 / 1 (16);
 *   exp10 - / 1, log10 - / 1 (3): double only, the float 'e' variants
 *     were 3.76 ulp (_ZGVeN16v_exp10f(-0x1.45958p-6)) and 3.15 ulp
 *     (_ZGVeN16v_log10f(0x1.7fff8p-1)) off;
 *   cbrt (2): left out, the float 'b' and 'd' variants were 2.84 ulp
 *     off (_ZGVbN4v_cbrtf(0x1.b0238p-124)), and double cbrt scales its
 *     argument with ilogb and ldexp, libm calls of their own (math.cl),
 *     so its loop is not vectorised anyway;
 *   hypot 1 / 1 (4): left out, within the limit, but the float 'b' and
 *     the double variants return hypot(0, y) 1 ulp off |y|, where
 *     OpenCL (C99 F.9.4.3) wants it exact.
 * sincos has variants too, but with pointer arguments; OpenCL's sincos
 * and the *pi functions reach libmvec through sin, cos, and so on.
 * exp2, log2 and log10 reach codegen as LLVM intrinsics, the rest as
 * libm calls (double exp10 as "exp10", math.cl).
 */
#include <stdio.h>
#include <string.h>

#include "accelc-private.h"
#include "feature-list.h"

/* float and double entries of a libm function @p f */
#define LIBM1(f) { #f "f", #f "f", 1, false }, { #f, #f, 1, true }
#define LIBM2(f) { #f "f", #f "f", 2, false }, { #f, #f, 2, true }
/* ... of an LLVM intrinsic too */
#define INTR1(f)                                                               \
	{ "llvm." #f ".f32", #f "f", 1, false },                               \
		{ "llvm." #f ".f64", #f, 1, true }, LIBM1(f)
#define INTR2(f)                                                               \
	{ "llvm." #f ".f32", #f "f", 2, false },                               \
		{ "llvm." #f ".f64", #f, 2, true }, LIBM2(f)

const struct accelc_vec_fn accelc_vec_fns[] = {
	INTR1(sin), INTR1(cos), INTR1(exp), INTR2(pow),
	INTR1(exp2), INTR1(log2),
	/* double only, see above */
	{ "llvm.log.f64", "log", 1, true }, { "log", "log", 1, true },
	{ "llvm.log10.f64", "log10", 1, true }, { "log10", "log10", 1, true },
	{ "exp10", "exp10", 1, true },
	LIBM1(acos), LIBM1(acosh), LIBM1(asin), LIBM1(asinh),
	LIBM1(atan), LIBM1(atanh), LIBM2(atan2),
	LIBM1(cosh), LIBM1(sinh), LIBM1(tan), LIBM1(tanh),
	LIBM1(erf), LIBM1(erfc), LIBM1(expm1),
	LIBM1(log1p),
};

const size_t accelc_n_vec_fns =
	sizeof(accelc_vec_fns) / sizeof(accelc_vec_fns[0]);

/* widest first; floats per register */
static const struct accelc_vec_isa isas[] = {
	{ 'e', 16 }, { 'd', 8 }, { 'b', 4 },
};

size_t accelc_vec_isas(const char *features,
		       const struct accelc_vec_isa **ret)
{
	size_t first = accelc_feature_listed(features, "avx512f", 7) ? 0 :
		       accelc_feature_listed(features, "avx2", 4)    ? 1 :
								       2;

	*ret = isas + first;
	return sizeof(isas) / sizeof(isas[0]) - first;
}

void accelc_vec_variant_name(const struct accelc_vec_fn *v, char isa,
			     unsigned lanes, char *buf, size_t size)
{
	snprintf(buf, size, "_ZGV%cN%u%s_%s", isa, v->dbl ? lanes / 2 : lanes,
		 v->nargs == 2 ? "vv" : "v", v->base);
}
