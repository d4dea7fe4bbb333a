/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's programs: a kernel's handle is its code (struct
 * cpu_kernel); a compiled program's backend_data is a struct cpu_program,
 * its dlopen()ed object, closed after its kernels.
 */
#include <stdlib.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-program.h"

int cpu_kernel_from_native(struct accel_device *dev _unused_,
			   const struct accel_native_kernel_desc *desc,
			   void **ret_handle)
{
	struct cpu_kernel *ck = calloc(1, sizeof(*ck));

	if (!ck)
		return -ENOMEM;
	ck->fn = desc->fn;
	/* older callers' descriptions end before the variants */
	if (desc->struct_size >= offsetof(struct accel_native_kernel_desc,
					  streaming_fn) +
					 sizeof(desc->streaming_fn))
		ck->streaming_fn = desc->streaming_fn;
	if (desc->struct_size >= offsetof(struct accel_native_kernel_desc,
					  ids32_fn) +
					 sizeof(desc->ids32_fn))
		ck->ids32_fn = desc->ids32_fn;
	*ret_handle = ck;
	return 0;
}

void cpu_kernel_free(struct accel_device *dev _unused_, void *handle)
{
	free(handle);
}

void cpu_program_fini(struct accel_program *prog)
{
	cpu_program_free(prog->backend_data);
}
