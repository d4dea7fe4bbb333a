/* SPDX-License-Identifier: MIT */
/*
 * The work-group and sub-group functions' scratch memory (wg-collective.cl,
 * sub-group.cl): two arrays of one 8-byte slot per work-item of the
 * largest work-group, published values and results (64 KiB). OpenCL C
 * has no program-scope __local variable, so it is defined here, in C, in
 * the local address space (3 with -ffake-address-space-map). Like a
 * kernel's own __local variables it is placed in the work-group's local
 * memory by the lowering (accelc_lower_locals()), in every kernel whose
 * code reaches it.
 */
#include <stdint.h>

#define LOCAL __attribute__((address_space(3)))

/* the CPU device's largest work-group (cpu-device.c); the runtime
 * refuses larger ones before any code runs. ITEMS in the .cl files */
#define ACCEL_WG_SCRATCH_ITEMS 4096

static LOCAL uint64_t scratch[2 * ACCEL_WG_SCRATCH_ITEMS];

LOCAL void *__accel_wg_scratch(void)
{
	return scratch;
}
