/* SPDX-License-Identifier: MIT */
/*
 * Memory from elsewhere, without a copy:
 *  - cl_arm_import_memory with its dma_buf type: clImportMemoryARM() makes
 *    a cl_mem that *is* the dma-buf (accel_buffer_import_dmabuf()) or the
 *    host memory (CL_IMPORT_TYPE_HOST_ARM: accel_buffer_new_user_ptr());
 *  - cl_khr_external_memory(_dma_buf): clCreateBufferWithProperties() with
 *    CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR (cl-mem.c calls in here), and
 *    the acquire/release commands.
 * Implicit synchronisation with other devices' fences on the dma-buf is
 * libaccel's (every command waits for them), so acquire and release order
 * commands like markers and need no more.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "icd-sharing.h"

#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)

static cl_int check_flags(cl_mem_flags flags)
{
	cl_mem_flags access = flags & ACCESS;

	/* Host pointer flags make no sense for memory that exists already. */
	if (flags & ~(cl_mem_flags)(ACCESS | CL_MEM_HOST_WRITE_ONLY |
				    CL_MEM_HOST_READ_ONLY |
				    CL_MEM_HOST_NO_ACCESS))
		return CL_INVALID_VALUE;
	if (access & (access - 1))
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

static uint32_t accel_flags(cl_mem_flags flags)
{
	if (flags & CL_MEM_READ_ONLY)
		return ACCEL_BUFFER_READ_ONLY;
	if (flags & CL_MEM_WRITE_ONLY)
		return ACCEL_BUFFER_WRITE_ONLY;
	return 0;
}

/* The import type of @p props (default: host memory). */
static cl_int parse_props(const cl_import_properties_arm *props,
			  cl_import_properties_arm *ret_type)
{
	size_t i;

	*ret_type = CL_IMPORT_TYPE_HOST_ARM;
	for (i = 0; props && props[i]; i += 2) {
		switch (props[i]) {
		case CL_IMPORT_TYPE_ARM:
			if (props[i + 1] != CL_IMPORT_TYPE_HOST_ARM &&
			    props[i + 1] != CL_IMPORT_TYPE_DMA_BUF_ARM)
				return CL_INVALID_PROPERTY;
			*ret_type = props[i + 1];
			break;
		case CL_IMPORT_DMA_BUF_DATA_CONSISTENCY_WITH_HOST_ARM:
			/* Always: host maps bracket DMA_BUF_IOCTL_SYNC. */
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
	}
	return CL_SUCCESS;
}

static cl_int import_error(int e)
{
	switch (e) {
	case -EBADF:
	case -ENOTTY:
	case -EINVAL:
	case -EACCES: /* write access to a read-only dma-buf */
		return CL_INVALID_VALUE;
	case -EOPNOTSUPP:
		return CL_INVALID_OPERATION;
	case -ENOMEM:
		return CL_OUT_OF_HOST_MEMORY;
	default:
		return CL_MEM_OBJECT_ALLOCATION_FAILURE;
	}
}

cl_mem CL_API_CALL clImportMemoryARM(cl_context ctx, cl_mem_flags flags,
				     const cl_import_properties_arm *props,
				     void *memory, size_t size, cl_int *err)
{
	struct accel_buffer *buf = NULL, *whole = NULL;
	cl_import_properties_arm type;
	cl_device_id d;
	uint64_t caps, len;
	cl_mem m;
	cl_int r;
	int e, fd;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	r = check_flags(flags);
	if (r == CL_SUCCESS)
		r = parse_props(props, &type);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!memory || size == 0)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	/* Buffers live on the context's first device (as in cl-mem.c). */
	d = ctx->devices[0];
	caps = d->u64[ACCEL_DEVICE_U64_CAPS];

	if (type == CL_IMPORT_TYPE_DMA_BUF_ARM) {
		if (!(caps & ACCEL_DEVICE_CAP_DMABUF_IMPORT))
			ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
		fd = *(const int *)memory;
		e = accel_buffer_import_dmabuf(d->dev, fd, accel_flags(flags),
					       &whole);
		if (e < 0)
			ICD_RETURN_ERR(err, import_error(e), NULL);
		len = accel_buffer_get_size(whole);
		if (size == CL_IMPORT_MEMORY_WHOLE_ALLOCATION_ARM) {
			buf = whole;
			size = len;
		} else if (size > len) {
			accel_buffer_unref(whole);
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
		} else {
			/* The first @size bytes, still without a copy. */
			e = accel_buffer_new_sub(whole, 0, size,
						 accel_flags(flags), &buf);
			accel_buffer_unref(whole);
			if (e < 0)
				ICD_RETURN_ERR(err, import_error(e), NULL);
		}
	} else {
		if (!(caps & ACCEL_DEVICE_CAP_USER_PTR) ||
		    size == CL_IMPORT_MEMORY_WHOLE_ALLOCATION_ARM)
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
		e = accel_buffer_new_user_ptr(d->dev, memory, size,
					      accel_flags(flags), &buf);
		if (e < 0)
			ICD_RETURN_ERR(err, import_error(e), NULL);
	}

	m = calloc(1, sizeof(*m));
	if (!m) {
		accel_buffer_unref(buf);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	icd_object_init(&m->obj, ctx->platform, ICD_MAGIC_MEM);
	m->ctx = ctx;
	icd_hold(ctx);
	m->type = CL_MEM_OBJECT_BUFFER;
	m->flags = flags;
	m->size = size;
	m->buf = buf;
	pthread_mutex_init(&m->lock, NULL);
	ICD_RETURN_ERR(err, CL_SUCCESS, m);
}

/* ---- cl_khr_external_memory ------------------------------------------ */

static bool in_context(cl_context ctx, cl_device_id d)
{
	for (cl_uint i = 0; i < ctx->n_devices; i++)
		if (ctx->devices[i] == d)
			return true;
	return false;
}

cl_int icd_mem_props_parse(cl_context ctx, const cl_mem_properties *props,
			   int *ret_fd, size_t *ret_n)
{
	bool list = false;
	size_t i = 0;
	int fd = -1;

	*ret_fd = -1;
	*ret_n = 0;
	if (!props)
		return CL_SUCCESS;
	while (props[i]) {
		switch (props[i]) {
		case CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR:
			if (fd >= 0 || props[i + 1] > INT_MAX)
				return CL_INVALID_PROPERTY;
			/* only where a device takes dma-bufs in */
			if (!(ctx->devices[0]->u64[ACCEL_DEVICE_U64_CAPS] &
			      ACCEL_DEVICE_CAP_DMABUF_IMPORT))
				return CL_INVALID_PROPERTY;
			fd = (int)props[i + 1];
			i += 2;
			break;
		case CL_DEVICE_HANDLE_LIST_KHR:
			if (list)
				return CL_INVALID_PROPERTY;
			list = true;
			for (i++; props[i] != CL_DEVICE_HANDLE_LIST_END_KHR;
			     i++)
				if (!in_context(ctx,
						(cl_device_id)(uintptr_t)props[i]))
					return CL_INVALID_DEVICE;
			i++;
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
	}
	/* a device list says who uses a handle: not without one */
	if (list && fd < 0)
		return CL_INVALID_PROPERTY;
	*ret_fd = fd;
	*ret_n = i + 1;
	return CL_SUCCESS;
}

cl_int icd_mem_import_dmabuf(cl_context ctx, int fd, cl_mem_flags flags,
			     size_t size, void *host_ptr,
			     struct accel_buffer **ret)
{
	struct accel_buffer *whole, *buf;
	int e;

	if (host_ptr)
		return CL_INVALID_HOST_PTR;
	/* the memory exists: nothing to allocate, use or copy */
	if (check_flags(flags) != CL_SUCCESS)
		return CL_INVALID_VALUE;
	if (size == 0)
		return CL_INVALID_BUFFER_SIZE;
	e = accel_buffer_import_dmabuf(ctx->devices[0]->dev, fd,
				       accel_flags(flags), &whole);
	if (e < 0)
		return import_error(e);
	if (size > accel_buffer_get_size(whole)) {
		accel_buffer_unref(whole);
		return CL_INVALID_BUFFER_SIZE;
	}
	if (size == accel_buffer_get_size(whole)) {
		*ret = whole;
		return CL_SUCCESS;
	}
	e = accel_buffer_new_sub(whole, 0, size, accel_flags(flags), &buf);
	accel_buffer_unref(whole);
	if (e < 0)
		return import_error(e);
	*ret = buf;
	return CL_SUCCESS;
}

/* Whether @p m (or the buffer it is a sub-buffer of) is external memory. */
static bool is_external(cl_mem m)
{
	for (; m; m = m->parent)
		if (m->external)
			return true;
	return false;
}

static cl_int external_cmd(cl_command_queue q, cl_uint n, const cl_mem *mems,
			   cl_uint n_wait, const cl_event *wait,
			   cl_event *event, cl_command_type type)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!n != !mems)
		return CL_INVALID_VALUE;
	for (cl_uint i = 0; i < n; i++) {
		if (!icd_object_valid(mems[i], ICD_MAGIC_MEM) ||
		    !is_external(mems[i]))
			return CL_INVALID_MEM_OBJECT;
		if (mems[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	if (!n_wait != !wait)
		return CL_INVALID_EVENT_WAIT_LIST;
	return icd_enqueue_marker(q, n_wait, wait, event, type);
}

cl_int CL_API_CALL clEnqueueAcquireExternalMemObjectsKHR(
	cl_command_queue q, cl_uint n, const cl_mem *mems, cl_uint n_wait,
	const cl_event *wait, cl_event *event)
{
	return external_cmd(q, n, mems, n_wait, wait, event,
			    CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR);
}

cl_int CL_API_CALL clEnqueueReleaseExternalMemObjectsKHR(
	cl_command_queue q, cl_uint n, const cl_mem *mems, cl_uint n_wait,
	const cl_event *wait, cl_event *event)
{
	return external_cmd(q, n, mems, n_wait, wait, event,
			    CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR);
}
