/* SPDX-License-Identifier: MIT */
/*
 * The intermediate languages a device takes (CL_DEVICE_IL_VERSION,
 * CL_DEVICE_ILS_WITH_VERSION): SPIR-V 1.0 up to what libaccel's
 * translator reads, on devices with ACCEL_DEVICE_CAP_IL; none elsewhere.
 */
#include <stdio.h>
#include <string.h>

#include "icd.h"

#define IL_MINOR_MAX ((ACCEL_IL_SPIRV_MAX_VERSION >> 8) & 0xffu)

cl_int icd_device_il_info(cl_device_id d, cl_device_info param, size_t size,
			  void *value, size_t *size_ret)
{
	bool il = d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IL;
	cl_name_version nv[IL_MINOR_MAX + 1];
	char list[16 * (IL_MINOR_MAX + 1)] = "";
	unsigned n = il ? IL_MINOR_MAX + 1 : 0;

	memset(nv, 0, sizeof(nv));
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(list);

		snprintf(list + len, sizeof(list) - len, "%sSPIR-V_1.%u",
			 i ? " " : "", i);
		nv[i].version = CL_MAKE_VERSION(1, i, 0);
		snprintf(nv[i].name, sizeof(nv[i].name), "SPIR-V");
	}
	if (param == CL_DEVICE_IL_VERSION)
		return icd_info_string(size, value, size_ret, list);
	return icd_info(size, value, size_ret, n ? nv : NULL,
			n * sizeof(nv[0]));
}
