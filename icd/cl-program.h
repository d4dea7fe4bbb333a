/* SPDX-License-Identifier: MIT */
/* What the cl-program*.c files share; the objects themselves are in icd.h. */
#ifndef ICD_CL_PROGRAM_H
#define ICD_CL_PROGRAM_H

#include "icd.h"

/* cl-program.c */
cl_program icd_program_alloc(cl_context ctx, enum icd_program_origin origin,
			     cl_uint n_devices, const cl_device_id *devices);
/* Drop a build's program, log and options (not its loaded binary). */
void icd_build_clear(struct icd_build *b);
/* Devices given to a program constructor: all in @p ctx. */
cl_int icd_program_check_devices(cl_context ctx, cl_uint n,
				 const cl_device_id *devices);

/* cl-program-build.c */
bool icd_options_uniform_wg(const char *options);
/* A libaccel build error as the CL code of the call (options, no
 * compiler/linker, failure; -ENOMEM is CL_OUT_OF_HOST_MEMORY). */
cl_int icd_program_error(int e, cl_int bad_options, cl_int unavailable,
			 cl_int failure);
/* Build for one device. Returns a CL error for the whole call. */
cl_int icd_program_build_one(cl_program p, cl_uint i, const char *source,
			     const char *options);
/* Kernel names of the first successful build, ';'-separated. */
cl_int icd_program_collect_kernel_names(cl_program p);
/* Resolve a device list argument into a calloc'ed flag per program
 * device (all if the list is empty). */
cl_int icd_program_select_devices(cl_program p, cl_uint n,
				  const cl_device_id *list, bool **ret);

/* cl-program-binary.c: CL_PROGRAM_BINARY_SIZES and CL_PROGRAM_BINARIES */
size_t icd_program_binary_size(cl_program p, cl_uint i);
void icd_program_binary_write(cl_program p, cl_uint i, unsigned char *out);

#endif /* ICD_CL_PROGRAM_H */
