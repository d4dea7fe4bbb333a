/* SPDX-License-Identifier: MIT */
/*
 * Kernel launches. libaccel checks the geometry and the arguments; when it
 * refuses a launch, accel_kernel_check_launch() says why, and the reason
 * gives the error code the specification has for it. libaccel also picks
 * the work-group size when the application leaves it open.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "icd.h"

/*
 * Why libaccel refused a launch of @ak over @range with @e: geometry,
 * arguments and local memory say so themselves.
 */
static cl_int launch_error(struct accel_kernel *ak,
			   const struct accel_ndrange *range, int e)
{
	struct accel_launch_check c = { .struct_size = sizeof(c) };

	if (e == -EXDEV)
		return CL_INVALID_CONTEXT;
	if (accel_kernel_check_launch(ak, range, &c) == 0 && c.error)
		return icd_launch_error(&c);
	/* not a verdict on the range: the device's (the stack: E2BIG) */
	return icd_error(e);
}

/*
 * An empty range (a global size of 0, OpenCL 2.1) runs nothing, but its
 * geometry and arguments are checked as a launch of one work-group
 * (or one work-item) in those dimensions would be.
 */
static cl_int check_empty(cl_kernel k, struct accel_kernel *ak,
			  struct accel_ndrange range)
{
	struct accel_launch_check c = { .struct_size = sizeof(c) };
	cl_uint d;
	int e;

	for (d = 0; d < range.work_dim; d++) {
		if (range.global_size[d])
			continue;
		range.global_offset[d] = 0;
		range.global_size[d] = range.local_size[d] ? range.local_size[d]
				       : k->reqd[0] ? k->reqd[d] : 1;
	}
	e = accel_kernel_check_launch(ak, &range, &c);
	return e < 0 ? icd_error(e) : icd_launch_error(&c);
}

cl_int icd_launch_refused(struct accel_kernel *ak,
			  const struct accel_ndrange *range, int e)
{
	return launch_error(ak, range, e);
}

cl_int icd_ndrange_prepare(cl_command_queue q, cl_kernel k, cl_uint dim,
			   const size_t *offset, const size_t *global,
			   const size_t *local, struct accel_ndrange *ret,
			   struct accel_kernel **ret_kernel, bool *ret_empty)
{
	static const size_t no_work[3];
	struct accel_ndrange range = { .struct_size = sizeof(range) };
	bool empty = false;
	cl_uint d;
	cl_int r;
	int idx;

	if (!icd_object_valid(k, ICD_MAGIC_KERNEL))
		return CL_INVALID_KERNEL;
	if (k->prog->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	idx = icd_program_device_index(k->prog, q->dev);
	if (idx < 0 || !k->k[idx])
		return CL_INVALID_PROGRAM_EXECUTABLE;
	/* before the arrays are read: dim entries each */
	if (dim < 1 || dim > q->dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS])
		return CL_INVALID_WORK_DIMENSION;
	/* OpenCL 2.1: no global size, like a 0 in it, means no work */
	if (!global)
		global = no_work;
	/* a size_t concern (32-bit hosts); libaccel counts in 64 bits */
	for (d = 0; d < dim; d++)
		if (offset && offset[d] > SIZE_MAX - global[d])
			return CL_INVALID_GLOBAL_OFFSET;

	range.work_dim = dim;
	range.flags = k->prog->uniform_wg ? ACCEL_NDRANGE_UNIFORM : 0;
	for (d = 0; d < 3; d++) {
		range.global_size[d] = d < dim ? global[d] : 1;
		range.global_offset[d] = d < dim && offset ? offset[d] : 0;
		range.local_size[d] = local ? (d < dim ? local[d] : 1) : 0;
		/* OpenCL 2.1: an empty range is a command that does nothing */
		if (d < dim && global[d] == 0)
			empty = true;
	}
	if (empty) {
		r = check_empty(k, k->k[idx], range);
		if (r != CL_SUCCESS)
			return r;
	}
	*ret = range;
	*ret_kernel = k->k[idx];
	*ret_empty = empty;
	return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
					  cl_uint dim, const size_t *offset,
					  const size_t *global,
					  const size_t *local, cl_uint n,
					  const cl_event *list, cl_event *event)
{
	struct accel_ndrange range;
	struct accel_kernel *ak;
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	bool empty;
	cl_int r;
	int e;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	r = icd_ndrange_prepare(q, k, dim, offset, global, local, &range, &ak,
				&empty);
	if (r != CL_SUCCESS)
		return r;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;

	/* No event wanted: no fence reference to take and drop. */
	if (empty)
		e = accel_queue_marker(q->q, w.n, w.fences,
				       event ? &fence : NULL);
	else
		e = accel_queue_launch(q->q, ak, &range, w.n, w.fences,
				       event ? &fence : NULL);
	icd_wait_fini(&w);
	if (e < 0)
		return launch_error(ak, &range, e);
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
