/* SPDX-License-Identifier: MIT */
/* What every architecture's libmvec table (libmvec-<arch>.c) shares. */
#include "accelc-private.h"

char accelc_vec_isa(const char *features, unsigned *lanes)
{
	const struct accelc_vec_isa *isas;

	accelc_vec_isas(features, &isas);
	*lanes = isas[0].lanes;
	return isas[0].isa;
}
