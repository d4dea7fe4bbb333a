/* SPDX-License-Identifier: MIT */
/*
 * The glibc libmvec variants generated code may call on AArch64, named by
 * the AArch64 vector function ABI: _ZGVnN<lanes><args>_<name> for NEON
 * (128-bit, unmasked), one 'v' per vector argument, in v0/v1. None: the
 * first glibc with AArch64 libmvec is 2.38; Debian 12's 2.36 has no
 * libmvec.so on arm64 at all, so the table is empty, programs are not
 * linked against libmvec, and the vectoriser calls the scalar libm
 * functions. Entries go here, with their measured errors against
 * OpenCL's limits as libmvec-x86_64.c gives them, once the glibc the
 * package depends on has them. SVE's variants (_ZGVsMxv_<name>) are
 * scalable and masked: LLVM 16 maps them only with a mask argument and
 * <vscale x N> types, which add_vector_variants() does not make; NEON's
 * serve SVE code too.
 */
#include <stdio.h>

#include "accelc-private.h"

/* an empty table still needs an element in C */
const struct accelc_vec_fn accelc_vec_fns[1] = { { NULL, NULL, 0, false } };

const size_t accelc_n_vec_fns = 0;

static const struct accelc_vec_isa isas[] = { { 'n', 4 } };

size_t accelc_vec_isas(const char *features,
		       const struct accelc_vec_isa **ret)
{
	(void)features;
	*ret = isas;
	return 1;
}

void accelc_vec_variant_name(const struct accelc_vec_fn *v, char isa,
			     unsigned lanes, char *buf, size_t size)
{
	snprintf(buf, size, "_ZGV%cN%u%s_%s", isa, v->dbl ? lanes / 2 : lanes,
		 v->nargs == 2 ? "vv" : "v", v->base);
}
