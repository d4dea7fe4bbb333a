/* SPDX-License-Identifier: MIT */
/*
 * Memory objects: buffers and sub-buffers over libaccel buffers. A buffer
 * lives on the context's first device.
 *
 * Host access flags (CL_MEM_HOST_*) are checked here, not handed to
 * libaccel: OpenCL still lets the implementation write the initial
 * contents of a CL_MEM_HOST_NO_ACCESS buffer (CL_MEM_COPY_HOST_PTR).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"
#include "icd-sharing.h"

#define ACCESS_FLAGS                                                           \
	(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_PTR_FLAGS                                                         \
	(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define HOST_FLAGS                                                             \
	(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY |                      \
	 CL_MEM_HOST_NO_ACCESS)
#define ALL_FLAGS (ACCESS_FLAGS | HOST_PTR_FLAGS | HOST_FLAGS)

static bool one_at_most(cl_mem_flags f)
{
	return (f & (f - 1)) == 0;
}

cl_int icd_mem_check_flags(cl_mem_flags flags)
{
	if (flags & ~(cl_mem_flags)ALL_FLAGS)
		return CL_INVALID_VALUE;
	if (!one_at_most(flags & ACCESS_FLAGS) ||
	    !one_at_most(flags & HOST_FLAGS) ||
	    ((flags & CL_MEM_USE_HOST_PTR) &&
	     (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

uint32_t icd_mem_accel_flags(cl_mem_flags flags)
{
	if (flags & CL_MEM_READ_ONLY)
		return ACCEL_BUFFER_READ_ONLY;
	if (flags & CL_MEM_WRITE_ONLY)
		return ACCEL_BUFFER_WRITE_ONLY;
	return 0;
}

cl_mem icd_mem_alloc(cl_context ctx, cl_mem_flags flags, size_t size)
{
	cl_mem m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	icd_object_init(&m->obj, ctx->platform, ICD_MAGIC_MEM);
	m->ctx = ctx;
	icd_hold(ctx);
	m->type = CL_MEM_OBJECT_BUFFER;
	m->flags = flags;
	m->size = size;
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

static cl_int fill_from_host(struct accel_buffer *buf, const void *src,
			     size_t size)
{
	void *p;
	int r;

	r = accel_buffer_map(buf, 0, size, ACCEL_MAP_WRITE_INVALIDATE, &p);
	if (r < 0)
		return r == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
				      CL_MEM_OBJECT_ALLOCATION_FAILURE;
	memcpy(p, src, size);
	accel_buffer_unmap(buf, p);
	return CL_SUCCESS;
}

static cl_mem buffer_new(cl_context ctx, const cl_mem_properties *props,
			 cl_mem_flags flags, size_t size, void *host_ptr,
			 cl_int *err)
{
	struct accel_buffer *external = NULL;
	struct accel_device *dev;
	size_t n_props = 0;
	cl_mem m;
	cl_int r;
	int e, fd;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	/* cl_khr_external_memory_dma_buf is the one kind of property. */
	r = icd_mem_props_parse(ctx, props, &fd, &n_props);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	/* CL_MEM_FLAGS reports the flags as given, 0 included */
	r = icd_mem_check_flags(flags);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	dev = ctx->devices[0]->dev;
	if (fd >= 0) {
		/* the dma-buf's own size is the limit */
		r = icd_mem_import_dmabuf(ctx, fd, flags, size, host_ptr,
					  &external);
		if (r != CL_SUCCESS)
			ICD_RETURN_ERR(err, r, NULL);
	} else {
		if (size == 0 ||
		    size > ctx->devices[0]->u64[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE])
			ICD_RETURN_ERR(err, CL_INVALID_BUFFER_SIZE, NULL);
		if (!host_ptr !=
		    !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
			ICD_RETURN_ERR(err, CL_INVALID_HOST_PTR, NULL);
		/* a buffer on SVM memory stays inside its allocation */
		if (flags & CL_MEM_USE_HOST_PTR) {
			size_t room = icd_svm_room(ctx, host_ptr);

			if (room && size > room)
				ICD_RETURN_ERR(err, CL_INVALID_BUFFER_SIZE,
					       NULL);
		}
	}

	m = icd_mem_alloc(ctx, flags, size);
	if (!m) {
		accel_buffer_unref(external);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	if (props) {
		m->props = calloc(n_props, sizeof(*m->props));
		if (!m->props) {
			accel_buffer_unref(external);
			icd_put(m);
			ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
		}
		memcpy(m->props, props, n_props * sizeof(*m->props));
		m->n_props = n_props;
	}
	if (external) {
		m->buf = external;
		m->external = true;
		e = 0;
	} else if (flags & CL_MEM_USE_HOST_PTR) {
		e = accel_buffer_new_user_ptr(dev, host_ptr, size,
					      icd_mem_accel_flags(flags),
					      &m->buf);
		m->host_ptr = host_ptr;
	} else {
		e = accel_buffer_new(dev, size, icd_mem_accel_flags(flags),
				     &m->buf);
	}
	if (e < 0) {
		icd_put(m);
		ICD_RETURN_ERR(err, e == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
			       e == -E2BIG ? CL_INVALID_BUFFER_SIZE :
					     CL_MEM_OBJECT_ALLOCATION_FAILURE,
			       NULL);
	}
	if (flags & CL_MEM_COPY_HOST_PTR) {
		r = fill_from_host(m->buf, host_ptr, size);
		if (r != CL_SUCCESS) {
			icd_put(m);
			ICD_RETURN_ERR(err, r, NULL);
		}
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, m);
}

cl_mem CL_API_CALL clCreateBuffer(cl_context ctx, cl_mem_flags flags,
				  size_t size, void *host_ptr, cl_int *err)
{
	return buffer_new(ctx, NULL, flags, size, host_ptr, err);
}

cl_mem CL_API_CALL clCreateBufferWithProperties(
	cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags,
	size_t size, void *host_ptr, cl_int *err)
{
	return buffer_new(ctx, props, flags, size, host_ptr, err);
}

cl_mem CL_API_CALL clCreateSubBuffer(cl_mem parent, cl_mem_flags flags,
				     cl_buffer_create_type type,
				     const void *info, cl_int *err)
{
	const cl_buffer_region *region = info;
	cl_mem_flags pf;
	uint64_t align;
	cl_mem m;
	cl_int r;
	int e;

	if (!icd_object_valid(parent, ICD_MAGIC_MEM) || parent->parent ||
	    icd_mem_is_image(parent))
		ICD_RETURN_ERR(err, CL_INVALID_MEM_OBJECT, NULL);
	pf = parent->flags;
	/* host pointer flags cannot be given; both kinds of access inherit */
	if ((flags & HOST_PTR_FLAGS) || icd_mem_check_flags(flags) != CL_SUCCESS)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	if (((pf & CL_MEM_WRITE_ONLY) &&
	     (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
	    ((pf & CL_MEM_READ_ONLY) &&
	     (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
	    ((pf & CL_MEM_HOST_WRITE_ONLY) &&
	     (flags & CL_MEM_HOST_READ_ONLY)) ||
	    ((pf & CL_MEM_HOST_READ_ONLY) &&
	     (flags & CL_MEM_HOST_WRITE_ONLY)) ||
	    ((pf & CL_MEM_HOST_NO_ACCESS) &&
	     (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	if (type != CL_BUFFER_CREATE_TYPE_REGION || !region)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	if (region->size == 0)
		ICD_RETURN_ERR(err, CL_INVALID_BUFFER_SIZE, NULL);
	if (region->origin > parent->size ||
	    region->size > parent->size - region->origin)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	align = parent->ctx->devices[0]->u64[ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN];
	if (align && region->origin % align)
		ICD_RETURN_ERR(err, CL_MISALIGNED_SUB_BUFFER_OFFSET, NULL);

	if (!(flags & ACCESS_FLAGS))
		flags |= pf & ACCESS_FLAGS;
	if (!(flags & HOST_FLAGS))
		flags |= pf & HOST_FLAGS;
	flags |= pf & HOST_PTR_FLAGS;

	m = icd_mem_alloc(parent->ctx, flags, region->size);
	if (!m)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	e = accel_buffer_new_sub(parent->buf, region->origin, region->size,
				 icd_mem_accel_flags(flags), &m->buf);
	if (e < 0) {
		icd_put(m);
		r = e == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
		    e == -EINVAL ? CL_MISALIGNED_SUB_BUFFER_OFFSET :
				   CL_INVALID_VALUE;
		ICD_RETURN_ERR(err, r, NULL);
	}
	m->parent = parent;
	icd_hold(parent);
	m->offset = region->origin;
	if (parent->host_ptr)
		m->host_ptr = (char *)parent->host_ptr + region->origin;
	ICD_RETURN_ERR(err, CL_SUCCESS, m);
}

cl_int CL_API_CALL clRetainMemObject(cl_mem m)
{
	return icd_retain(m, ICD_MAGIC_MEM, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem m)
{
	return icd_release(m, ICD_MAGIC_MEM, CL_INVALID_MEM_OBJECT);
}

void icd_mem_free(cl_mem m)
{
	struct icd_callback *cb, *next;
	struct icd_mapping *map, *mnext;

	for (map = m->maps; map; map = mnext) {
		mnext = map->next;
		accel_buffer_unmap(m->buf, map->ptr);
		free(map);
	}
	/*
	 * Queued commands keep their own reference to the libaccel buffer,
	 * so dropping ours here never pulls memory from under them.
	 */
	accel_buffer_unref(m->buf);
	m->buf = NULL;
	/* Newest first; the memory is gone from our side by now. */
	for (cb = m->destructors; cb; cb = next) {
		next = cb->next;
		((void(CL_CALLBACK *)(cl_mem, void *))cb->fn)(m, cb->user_data);
		free(cb);
	}
	if (m->parent)
		icd_put(m->parent);
	icd_put(m->ctx);
	pthread_mutex_destroy(&m->lock);
	free(m->props);
	m->obj.magic = ICD_MAGIC_FREED;
	free(m);
}

cl_int CL_API_CALL clSetMemObjectDestructorCallback(
	cl_mem m, void(CL_CALLBACK *fn)(cl_mem, void *), void *user_data)
{
	if (!icd_object_valid(m, ICD_MAGIC_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (!fn)
		return CL_INVALID_VALUE;
	return icd_callback_push(&m->destructors, &m->lock,
				 (void (*)(void))fn, user_data);
}

/* Images made from a buffer (or image) share its memory: follow them. */
cl_mem icd_mem_root(cl_mem m)
{
	while (m->parent)
		m = m->parent;
	return m;
}

size_t icd_mem_root_offset(cl_mem m)
{
	size_t off = 0;

	for (; m->parent; m = m->parent)
		off += m->offset;
	return off;
}

cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info param,
				      size_t size, void *value,
				      size_t *size_ret)
{
	cl_uint count;

	if (!icd_object_valid(m, ICD_MAGIC_MEM))
		return CL_INVALID_MEM_OBJECT;
	switch (param) {
	case CL_MEM_TYPE:
		return icd_info_uint(size, value, size_ret, m->type);
	case CL_MEM_FLAGS:
		return icd_info_ulong(size, value, size_ret, m->flags);
	case CL_MEM_SIZE:
		return icd_info_size(size, value, size_ret, m->size);
	case CL_MEM_HOST_PTR:
		return icd_info_ptr(size, value, size_ret, m->host_ptr);
	case CL_MEM_MAP_COUNT:
		pthread_mutex_lock(&m->lock);
		count = m->map_count;
		pthread_mutex_unlock(&m->lock);
		return icd_info_uint(size, value, size_ret, count);
	case CL_MEM_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(m));
	case CL_MEM_CONTEXT:
		return icd_info_ptr(size, value, size_ret, m->ctx);
	case CL_MEM_ASSOCIATED_MEMOBJECT:
		return icd_info_ptr(size, value, size_ret, m->parent);
	case CL_MEM_OFFSET:
		return icd_info_size(size, value, size_ret, m->offset);
	case CL_MEM_USES_SVM_POINTER:
		/* made with CL_MEM_USE_HOST_PTR on an SVM allocation */
		return icd_info_bool(size, value, size_ret,
				     m->host_ptr &&
					     icd_svm_room(m->ctx, m->host_ptr));
	case CL_MEM_PROPERTIES:
		return icd_info(size, value, size_ret, m->props,
				m->n_props * sizeof(*m->props));
	default:
		return CL_INVALID_VALUE;
	}
}
