/* SPDX-License-Identifier: MIT */
/*
 * The work-group functions' scratch memory (wg-collective.cl): one slot
 * per work-item of the largest work-group, 8 bytes each, and one more.
 * OpenCL C has no program-scope __local variable, so it is defined here,
 * in C, in the local address space (3 with -ffake-address-space-map).
 * Like a kernel's own __local variables it is placed in the work-group's
 * local memory by the lowering (accelc_lower_locals()), in every kernel
 * whose code reaches it.
 */
#include <stdint.h>

#define LOCAL __attribute__((address_space(3)))

/* the CPU device's largest work-group (cpu-device.c); the runtime
 * refuses larger ones before any code runs */
#define ACCEL_WG_SCRATCH_ITEMS 4096

static LOCAL uint64_t scratch[ACCEL_WG_SCRATCH_ITEMS + 1];

LOCAL void *__accel_wg_scratch(void)
{
	return scratch;
}
