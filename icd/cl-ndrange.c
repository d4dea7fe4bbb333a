/* SPDX-License-Identifier: MIT */
/*
 * Kernel launches. The geometry is checked here so that each mistake gets
 * the error code the specification gives it; libaccel then picks the
 * work-group size when the application leaves it open.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "icd.h"

static cl_int check_geometry(cl_kernel k, cl_device_id dev, cl_uint dim,
			     const size_t *offset, const size_t *global,
			     const size_t *local)
{
	const uint64_t *u = dev->u64;
	size_t items = 1, total = 1;
	cl_uint d;

	for (d = 0; d < dim; d++)
		if (offset && offset[d] > SIZE_MAX - global[d])
			return CL_INVALID_GLOBAL_OFFSET;
	/*
	 * The work-items (global_work_size[0] x ... x [dim - 1]), so the
	 * work-groups too, must be countable in a size_t: a wrapped count
	 * would launch nothing and report success.
	 */
	for (d = 0; d < dim; d++)
		if (__builtin_mul_overflow(items, global[d], &items))
			return CL_INVALID_GLOBAL_WORK_SIZE;

	if (!local) {
		/* libaccel uses the required size; it must fit exactly */
		if (k->reqd[0] && k->prog->uniform_wg)
			for (d = 0; d < dim; d++)
				if (global[d] % k->reqd[d])
					return CL_INVALID_WORK_GROUP_SIZE;
		return CL_SUCCESS;
	}
	for (d = 0; d < dim; d++) {
		if (local[d] == 0)
			return CL_INVALID_WORK_GROUP_SIZE;
		if (local[d] > u[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X + d])
			return CL_INVALID_WORK_ITEM_SIZE;
		if (k->reqd[0] && local[d] != k->reqd[d])
			return CL_INVALID_WORK_GROUP_SIZE;
		if (k->prog->uniform_wg && global[d] % local[d])
			return CL_INVALID_WORK_GROUP_SIZE;
		if (__builtin_mul_overflow(total, local[d], &total))
			return CL_INVALID_WORK_GROUP_SIZE;
	}
	if (k->reqd[0])
		for (d = dim; d < 3; d++)
			if (k->reqd[d] != 1)
				return CL_INVALID_WORK_GROUP_SIZE;
	if (total > u[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE])
		return CL_INVALID_WORK_GROUP_SIZE;
	return CL_SUCCESS;
}

static cl_int launch_error(int e)
{
	switch (e) {
	case -ENOEXEC:
		return CL_INVALID_KERNEL_ARGS;
	case -E2BIG:
		return CL_OUT_OF_RESOURCES; /* local memory */
	case -EXDEV:
		return CL_INVALID_CONTEXT;
	case -EINVAL:
		return CL_INVALID_WORK_GROUP_SIZE;
	case -EOVERFLOW: /* more work-items than 64 bits count */
		return CL_INVALID_GLOBAL_WORK_SIZE;
	case -EACCES:
		return CL_INVALID_OPERATION;
	default:
		return icd_error(e);
	}
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
					  cl_uint dim, const size_t *offset,
					  const size_t *global,
					  const size_t *local, cl_uint n,
					  const cl_event *list, cl_event *event)
{
	static const size_t no_work[3];
	struct accel_ndrange range = { .struct_size = sizeof(range) };
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	bool empty = false;
	cl_uint d;
	cl_int r;
	int idx, e;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	if (k->prog->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	idx = icd_program_device_index(k->prog, q->dev);
	if (idx < 0 || !k->k[idx])
		return CL_INVALID_PROGRAM_EXECUTABLE;
	if (dim < 1 || dim > q->dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS])
		return CL_INVALID_WORK_DIMENSION;
	/* OpenCL 2.1: no global size, like a 0 in it, means no work */
	if (!global)
		global = no_work;
	for (d = 0; d < k->n_args; d++)
		if (!k->args[d].set)
			return CL_INVALID_KERNEL_ARGS;
	r = check_geometry(k, q->dev, dim, offset, global, local);
	if (r != CL_SUCCESS)
		return r;
	if (icd_kernel_local_mem(k) >
	    q->dev->u64[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE])
		return CL_OUT_OF_RESOURCES;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;

	range.work_dim = dim;
	for (d = 0; d < 3; d++) {
		range.global_size[d] = d < dim ? global[d] : 1;
		range.global_offset[d] = d < dim && offset ? offset[d] : 0;
		range.local_size[d] = local ? (d < dim ? local[d] : 1) : 0;
		/* OpenCL 2.1: an empty range is a command that does nothing */
		if (d < dim && global[d] == 0)
			empty = true;
	}
	/* No event wanted: no fence reference to take and drop. */
	if (empty)
		e = accel_queue_marker(q->q, w.n, w.fences,
				       event ? &fence : NULL);
	else
		e = accel_queue_launch(q->q, k->k[idx], &range, w.n, w.fences,
				       event ? &fence : NULL);
	icd_wait_fini(&w);
	if (e < 0)
		return launch_error(e);
	return icd_enqueue_done(q, CL_COMMAND_NDRANGE_KERNEL, fence, false,
				event);
}

cl_int CL_API_CALL clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n,
				 const cl_event *list, cl_event *event)
{
	static const size_t one[1] = { 1 };
	cl_int r;

	r = clEnqueueNDRangeKernel(q, k, 1, NULL, one, one, n, list, event);
	if (r == CL_SUCCESS && event && *event)
		(*event)->type = CL_COMMAND_TASK;
	return r;
}

cl_int CL_API_CALL clEnqueueNativeKernel(
	cl_command_queue q, void(CL_CALLBACK *fn)(void *) _unused_,
	void *args _unused_, size_t cb_args _unused_,
	cl_uint num_mems _unused_, const cl_mem *mems _unused_,
	const void **mem_locs _unused_, cl_uint n _unused_,
	const cl_event *list _unused_, cl_event *event _unused_)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	/* CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL. */
	return CL_INVALID_OPERATION;
}
