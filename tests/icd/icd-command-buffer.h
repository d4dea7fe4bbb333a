/* SPDX-License-Identifier: MIT */
/*
 * The cl_khr_command_buffer (0.9.8) and mutable-dispatch (0.9.5) entry
 * points as the ICD tests call them: typed as those versions define them
 * (Debian 12's headers predate them), looked up through the loader.
 */
#ifndef ICD_COMMAND_BUFFER_H
#define ICD_COMMAND_BUFFER_H

#include "icd-test.h"

typedef cl_properties cmd_props;

#define TAIL                                                                   \
	cl_uint, const cl_sync_point_khr *, cl_sync_point_khr *,               \
		cl_mutable_command_khr *

struct icd_cb_fns {
	cl_command_buffer_khr(CL_API_CALL *create)(
		cl_uint, const cl_command_queue *,
		const cl_command_buffer_properties_khr *, cl_int *);
	cl_int(CL_API_CALL *finalize)(cl_command_buffer_khr);
	cl_int(CL_API_CALL *retain)(cl_command_buffer_khr);
	cl_int(CL_API_CALL *release)(cl_command_buffer_khr);
	cl_int(CL_API_CALL *enqueue)(cl_uint, cl_command_queue *,
				     cl_command_buffer_khr, cl_uint,
				     const cl_event *, cl_event *);
	cl_int(CL_API_CALL *info)(cl_command_buffer_khr,
				  cl_command_buffer_info_khr, size_t, void *,
				  size_t *);
	cl_int(CL_API_CALL *barrier)(cl_command_buffer_khr, cl_command_queue,
				     const cmd_props *, TAIL);
	cl_int(CL_API_CALL *copy)(cl_command_buffer_khr, cl_command_queue,
				  const cmd_props *, cl_mem, cl_mem, size_t,
				  size_t, size_t, TAIL);
	cl_int(CL_API_CALL *copy_rect)(cl_command_buffer_khr, cl_command_queue,
				       const cmd_props *, cl_mem, cl_mem,
				       const size_t *, const size_t *,
				       const size_t *, size_t, size_t, size_t,
				       size_t, TAIL);
	cl_int(CL_API_CALL *copy_image)(cl_command_buffer_khr,
					cl_command_queue, const cmd_props *,
					cl_mem, cl_mem, const size_t *,
					const size_t *, const size_t *, TAIL);
	cl_int(CL_API_CALL *image_to_buffer)(cl_command_buffer_khr,
					     cl_command_queue,
					     const cmd_props *, cl_mem, cl_mem,
					     const size_t *, const size_t *,
					     size_t, TAIL);
	cl_int(CL_API_CALL *fill_image)(cl_command_buffer_khr,
					cl_command_queue, const cmd_props *,
					cl_mem, const void *, const size_t *,
					const size_t *, TAIL);
	cl_int(CL_API_CALL *fill)(cl_command_buffer_khr, cl_command_queue,
				  const cmd_props *, cl_mem, const void *,
				  size_t, size_t, size_t, TAIL);
	cl_int(CL_API_CALL *ndrange)(cl_command_buffer_khr, cl_command_queue,
				     const cmd_props *, cl_kernel, cl_uint,
				     const size_t *, const size_t *,
				     const size_t *, TAIL);
	cl_int(CL_API_CALL *svm_memcpy)(cl_command_buffer_khr,
					cl_command_queue, const cmd_props *,
					void *, const void *, size_t, TAIL);
	cl_int(CL_API_CALL *svm_fill)(cl_command_buffer_khr, cl_command_queue,
				      const cmd_props *, void *, const void *,
				      size_t, size_t, TAIL);
	cl_int(CL_API_CALL *update)(cl_command_buffer_khr, cl_uint,
				    const cl_uint *, const void **);
	cl_int(CL_API_CALL *cmd_info)(cl_mutable_command_khr, cl_uint, size_t,
				      void *, size_t *);
};

/* A mutable-dispatch config as 0.9.2 and later define it: no type, next
 * (Debian's struct has them). */
struct icd_mutable_config {
	cl_mutable_command_khr command;
	cl_uint num_args;
	cl_uint num_svm_args;
	cl_uint num_exec_infos;
	cl_uint work_dim;
	const cl_mutable_dispatch_arg_khr *arg_list;
	const cl_mutable_dispatch_arg_khr *arg_svm_list;
	const cl_mutable_dispatch_exec_info_khr *exec_info_list;
	const size_t *global_work_offset;
	const size_t *global_work_size;
	const size_t *local_work_size;
};

/* Every function of both extensions, from @platform (fails the test if
 * one is missing). */
void icd_cb_load(cl_platform_id platform, struct icd_cb_fns *cb);

#endif /* ICD_COMMAND_BUFFER_H */
