/* SPDX-License-Identifier: MIT */
/*
 * Buffer commands: read, write, copy, fill, map/unmap, the rectangular
 * variants and migration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

/* Queue and memory object (of any type) belong together. */
static cl_int check_queue_any(cl_command_queue q, cl_mem m)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!icd_object_valid(m, ICD_MAGIC_MEM))
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	return CL_SUCCESS;
}

/* The same for buffer commands: an image is no buffer. */
static cl_int check_queue_mem(cl_command_queue q, cl_mem m)
{
	cl_int r = check_queue_any(q, m);

	if (r == CL_SUCCESS && icd_mem_is_image(m))
		r = CL_INVALID_MEM_OBJECT;
	return r;
}

static bool range_ok(cl_mem m, size_t offset, size_t size)
{
	return size && offset <= m->size && size <= m->size - offset;
}

bool icd_host_may_read(cl_mem m)
{
	return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}

bool icd_host_may_write(cl_mem m)
{
	return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

/*
 * Errors of a submission that are specific to buffer commands. The
 * contexts were checked: -EXDEV says the queue's device cannot reach the
 * buffer's memory (no dma-buf it imports, no host pointer it takes).
 */
static cl_int submit_error(int e)
{
	if (e == -ERANGE)
		return CL_INVALID_VALUE;
	if (e == -EXDEV)
		return CL_MEM_OBJECT_ALLOCATION_FAILURE;
	if (e == -EACCES)
		return CL_INVALID_OPERATION;
	return icd_error(e);
}

cl_int icd_buffer_submit_error(int e)
{
	return submit_error(e);
}

/* clEnqueueReadBuffer and clEnqueueWriteBuffer: the same checks. */
static cl_int enqueue_rw(cl_command_queue q, cl_mem m, bool write,
			 cl_bool blocking, size_t offset, size_t size,
			 void *ptr, cl_uint n, const cl_event *list,
			 cl_event *event)
{
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	cl_int r;
	int e;

	r = check_queue_mem(q, m);
	if (r != CL_SUCCESS)
		return r;
	if (!range_ok(m, offset, size) || !ptr)
		return CL_INVALID_VALUE;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	if (write ? !icd_host_may_write(m) : !icd_host_may_read(m)) {
		icd_wait_fini(&w);
		return CL_INVALID_OPERATION;
	}
	if (write)
		e = accel_queue_write(q->q, m->buf, offset, size, ptr, w.n,
				      w.fences, &fence);
	else
		e = accel_queue_read(q->q, m->buf, offset, size, ptr, w.n,
				     w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return submit_error(e);
	return icd_enqueue_done(q, write ? CL_COMMAND_WRITE_BUFFER :
					   CL_COMMAND_READ_BUFFER,
				fence, blocking, event);
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem m,
				       cl_bool blocking, size_t offset,
				       size_t size, void *ptr, cl_uint n,
				       const cl_event *list, cl_event *event)
{
	return enqueue_rw(q, m, false, blocking, offset, size, ptr, n, list,
			  event);
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem m,
					cl_bool blocking, size_t offset,
					size_t size, const void *ptr, cl_uint n,
					const cl_event *list, cl_event *event)
{
	return enqueue_rw(q, m, true, blocking, offset, size, (void *)ptr, n,
			  list, event);
}

static bool overlap(cl_mem a, size_t a_off, cl_mem b, size_t b_off,
		    size_t size)
{
	size_t x, y;

	if (icd_mem_root(a) != icd_mem_root(b))
		return false;
	x = icd_mem_root_offset(a) + a_off;
	y = icd_mem_root_offset(b) + b_off;
	return x < y + size && y < x + size;
}

cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem src,
				       cl_mem dst, size_t src_offset,
				       size_t dst_offset, size_t size,
				       cl_uint n, const cl_event *list,
				       cl_event *event)
{
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	cl_int r;
	int e;

	r = check_queue_mem(q, src);
	if (r == CL_SUCCESS)
		r = check_queue_mem(q, dst);
	if (r != CL_SUCCESS)
		return r;
	if (!range_ok(src, src_offset, size) || !range_ok(dst, dst_offset, size))
		return CL_INVALID_VALUE;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	if (overlap(src, src_offset, dst, dst_offset, size)) {
		icd_wait_fini(&w);
		return CL_MEM_COPY_OVERLAP;
	}
	e = accel_queue_copy(q->q, src->buf, src_offset, dst->buf, dst_offset,
			     size, w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return submit_error(e);
	return icd_enqueue_done(q, CL_COMMAND_COPY_BUFFER, fence, false, event);
}

cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem m,
				       const void *pattern, size_t pattern_size,
				       size_t offset, size_t size, cl_uint n,
				       const cl_event *list, cl_event *event)
{
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	cl_int r;
	int e;

	r = check_queue_mem(q, m);
	if (r != CL_SUCCESS)
		return r;
	if (!pattern || pattern_size == 0 || pattern_size > 128 ||
	    (pattern_size & (pattern_size - 1)) ||
	    offset % pattern_size || size % pattern_size ||
	    !range_ok(m, offset, size))
		return CL_INVALID_VALUE;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	e = accel_queue_fill(q->q, m->buf, offset, size, pattern, pattern_size,
			     w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return submit_error(e);
	return icd_enqueue_done(q, CL_COMMAND_FILL_BUFFER, fence, false, event);
}

/* ---- map and unmap ------------------------------------------------------- */

#define MAP_FLAGS                                                              \
	(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)

void *icd_mem_map(cl_command_queue q, cl_mem m, cl_bool blocking,
		  cl_map_flags flags, size_t offset, size_t size, cl_uint n,
		  const cl_event *list, cl_event *event, cl_command_type type,
		  cl_int *err)
{
	struct accel_fence *fence = NULL;
	struct icd_mapping *map;
	uint32_t aflags = 0;
	struct icd_wait w;
	void *ptr = NULL;
	cl_int r;
	int e;

	if ((flags & ~(cl_map_flags)MAP_FLAGS) ||
	    ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
	     (flags & (CL_MAP_READ | CL_MAP_WRITE))))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (((flags & CL_MAP_READ) && !icd_host_may_read(m)) ||
	    ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
	     !icd_host_may_write(m))) {
		icd_wait_fini(&w);
		ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
	}
	/* OpenCL maps with no flags read and write. */
	if (!flags || (flags & CL_MAP_READ))
		aflags |= ACCEL_MAP_READ;
	if (!flags || (flags & CL_MAP_WRITE))
		aflags |= ACCEL_MAP_WRITE;
	if (flags & CL_MAP_WRITE_INVALIDATE_REGION)
		aflags |= ACCEL_MAP_WRITE_INVALIDATE;

	map = calloc(1, sizeof(*map));
	if (!map) {
		icd_wait_fini(&w);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	/*
	 * The pointer is needed now, the data once the command completes:
	 * libaccel maps without waiting, and on a unified-memory device the
	 * mapping is the buffer itself.
	 */
	e = accel_buffer_map(m->buf, offset, size, aflags, &ptr);
	if (e < 0) {
		icd_wait_fini(&w);
		free(map);
		ICD_RETURN_ERR(err, e == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
						   CL_MAP_FAILURE, NULL);
	}
	e = accel_queue_marker(q->q, w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0) {
		accel_buffer_unmap(m->buf, ptr);
		free(map);
		ICD_RETURN_ERR(err, icd_error(e), NULL);
	}
	map->ptr = ptr;
	map->flags = flags;
	pthread_mutex_lock(&m->lock);
	map->next = m->maps;
	m->maps = map;
	m->map_count++;
	pthread_mutex_unlock(&m->lock);

	r = icd_enqueue_done(q, type, fence, blocking, event);
	if (r != CL_SUCCESS) {
		/* No pointer reaches the caller: nothing will unmap it. */
		struct icd_mapping **pp;

		pthread_mutex_lock(&m->lock);
		for (pp = &m->maps; *pp; pp = &(*pp)->next)
			if (*pp == map) {
				*pp = map->next;
				m->map_count--;
				break;
			}
		pthread_mutex_unlock(&m->lock);
		accel_buffer_unmap(m->buf, ptr);
		free(map);
		ICD_RETURN_ERR(err, r, NULL);
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, ptr);
}

void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem m,
				     cl_bool blocking, cl_map_flags flags,
				     size_t offset, size_t size, cl_uint n,
				     const cl_event *list, cl_event *event,
				     cl_int *err)
{
	cl_int r;

	r = check_queue_mem(q, m);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!range_ok(m, offset, size))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	return icd_mem_map(q, m, blocking, flags, offset, size, n, list, event,
			   CL_COMMAND_MAP_BUFFER, err);
}

struct unmap_data {
	struct accel_buffer *buf;
	void *ptr;
};

static int unmap_run(void *p)
{
	struct unmap_data *d = p;

	return accel_buffer_unmap(d->buf, d->ptr);
}

static void unmap_free(void *p)
{
	struct unmap_data *d = p;

	accel_buffer_unref(d->buf);
	free(d);
}

cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m,
					   void *ptr, cl_uint n,
					   const cl_event *list,
					   cl_event *event)
{
	struct accel_fence *fence = NULL;
	struct icd_mapping **pp, *map = NULL;
	struct unmap_data *d;
	struct icd_wait w;
	cl_int r;
	int e;

	r = check_queue_any(q, m);
	if (r != CL_SUCCESS)
		return r;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	pthread_mutex_lock(&m->lock);
	for (pp = &m->maps; *pp; pp = &(*pp)->next)
		if ((*pp)->ptr == ptr) {
			map = *pp;
			*pp = map->next;
			m->map_count--;
			break;
		}
	pthread_mutex_unlock(&m->lock);
	if (!map) {
		icd_wait_fini(&w);
		return CL_INVALID_VALUE;
	}
	free(map);

	d = calloc(1, sizeof(*d));
	if (!d) {
		/* The mapping is gone from our list: undo it now. */
		accel_buffer_unmap(m->buf, ptr);
		icd_wait_fini(&w);
		return CL_OUT_OF_HOST_MEMORY;
	}
	d->buf = accel_buffer_ref(m->buf);
	d->ptr = ptr;
	e = accel_queue_host_fn(q->q, unmap_run, d, unmap_free, w.n, w.fences,
				&fence);
	icd_wait_fini(&w);
	if (e < 0)
		return icd_error(e);
	return icd_enqueue_done(q, CL_COMMAND_UNMAP_MEM_OBJECT, fence, false,
				event);
}

/* ---- rectangular transfers ----------------------------------------------- */

/*
 * clEnqueue*BufferRect's pitches: default them, check them (the slice
 * pitch a multiple of the row pitch) and the byte span [start, end) the
 * rectangle touches.
 */
static bool rect_setup(struct icd_rect *r, const size_t *origin,
		       const size_t *region, size_t row_pitch,
		       size_t slice_pitch, size_t *start, size_t *end)
{
	size_t plane;

	if (!origin)
		return false;
	if (row_pitch == 0)
		row_pitch = region[0];
	else if (row_pitch < region[0])
		return false;
	if (__builtin_mul_overflow(region[1], row_pitch, &plane))
		return false;
	if (slice_pitch == 0)
		slice_pitch = plane;
	else if (slice_pitch < plane || slice_pitch % row_pitch)
		return false;
	memcpy(r->origin, origin, sizeof(r->origin));
	r->row_pitch = row_pitch;
	r->slice_pitch = slice_pitch;
	return icd_rect_span(r, region, start, end);
}

static bool region_ok(const size_t *region)
{
	return region && region[0] && region[1] && region[2];
}

static cl_int rect_transfer(cl_command_queue q, cl_mem m, bool read,
			    cl_bool blocking, const size_t *buffer_origin,
			    const size_t *host_origin, const size_t *region,
			    size_t buffer_row_pitch, size_t buffer_slice_pitch,
			    size_t host_row_pitch, size_t host_slice_pitch,
			    void *ptr, cl_uint n, const cl_event *list,
			    cl_event *event)
{
	struct icd_rect_cmd *c;
	struct icd_rect *brect, *hrect;
	size_t bs, be, hs, he;
	cl_int r;

	r = check_queue_mem(q, m);
	if (r != CL_SUCCESS)
		return r;
	if (!ptr || !region_ok(region))
		return CL_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	brect = read ? &c->src : &c->dst;
	hrect = read ? &c->dst : &c->src;
	if (!rect_setup(brect, buffer_origin, region, buffer_row_pitch,
			buffer_slice_pitch, &bs, &be) ||
	    !rect_setup(hrect, host_origin, region, host_row_pitch,
			host_slice_pitch, &hs, &he) ||
	    be > m->size || he > UINTPTR_MAX - (uintptr_t)ptr) {
		free(c);
		return CL_INVALID_VALUE;
	}
	if (read ? !icd_host_may_read(m) : !icd_host_may_write(m)) {
		free(c);
		return CL_INVALID_OPERATION;
	}
	memcpy(c->region, region, sizeof(c->region));
	icd_rect_host_ends(c, read, m->buf, bs, be, ptr);
	return icd_rect_submit(q, c, read ? CL_COMMAND_READ_BUFFER_RECT :
					CL_COMMAND_WRITE_BUFFER_RECT,
			   blocking, n, list, event);
}

cl_int CL_API_CALL clEnqueueReadBufferRect(
	cl_command_queue q, cl_mem m, cl_bool blocking,
	const size_t *buffer_origin, const size_t *host_origin,
	const size_t *region, size_t buffer_row_pitch,
	size_t buffer_slice_pitch, size_t host_row_pitch,
	size_t host_slice_pitch, void *ptr, cl_uint n, const cl_event *list,
	cl_event *event)
{
	return rect_transfer(q, m, true, blocking, buffer_origin, host_origin,
			     region, buffer_row_pitch, buffer_slice_pitch,
			     host_row_pitch, host_slice_pitch, ptr, n, list,
			     event);
}

cl_int CL_API_CALL clEnqueueWriteBufferRect(
	cl_command_queue q, cl_mem m, cl_bool blocking,
	const size_t *buffer_origin, const size_t *host_origin,
	const size_t *region, size_t buffer_row_pitch,
	size_t buffer_slice_pitch, size_t host_row_pitch,
	size_t host_slice_pitch, const void *ptr, cl_uint n,
	const cl_event *list, cl_event *event)
{
	return rect_transfer(q, m, false, blocking, buffer_origin, host_origin,
			     region, buffer_row_pitch, buffer_slice_pitch,
			     host_row_pitch, host_slice_pitch, (void *)ptr, n,
			     list, event);
}

cl_int icd_copy_rect_prepare(cl_mem src, cl_mem dst, const size_t *src_origin,
			     const size_t *dst_origin, const size_t *region,
			     size_t src_row_pitch, size_t src_slice_pitch,
			     size_t dst_row_pitch, size_t dst_slice_pitch,
			     struct icd_rect_cmd **ret)
{
	struct icd_rect_cmd *c;

	if (!region_ok(region))
		return CL_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	if (!rect_setup(&c->src, src_origin, region, src_row_pitch,
			src_slice_pitch, &c->src_start, &c->src_end) ||
	    !rect_setup(&c->dst, dst_origin, region, dst_row_pitch,
			dst_slice_pitch, &c->dst_start, &c->dst_end) ||
	    c->src_end > src->size || c->dst_end > dst->size) {
		free(c);
		return CL_INVALID_VALUE;
	}
	/* the same buffer: pitches must agree (the specification's rule) */
	if (src == dst && (src_row_pitch != dst_row_pitch ||
			   src_slice_pitch != dst_slice_pitch)) {
		free(c);
		return CL_INVALID_VALUE;
	}
	memcpy(c->region, region, sizeof(c->region));
	return icd_rect_copy_finish(src, dst, c, ret);
}

cl_int CL_API_CALL clEnqueueCopyBufferRect(
	cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
	const size_t *dst_origin, const size_t *region, size_t src_row_pitch,
	size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
	cl_uint n, const cl_event *list, cl_event *event)
{
	struct icd_rect_cmd *c;
	cl_int r;

	r = check_queue_mem(q, src);
	if (r == CL_SUCCESS)
		r = check_queue_mem(q, dst);
	if (r == CL_SUCCESS)
		r = icd_copy_rect_prepare(src, dst, src_origin, dst_origin,
					  region, src_row_pitch,
					  src_slice_pitch, dst_row_pitch,
					  dst_slice_pitch, &c);
	if (r != CL_SUCCESS)
		return r;
	return icd_rect_submit(q, c, CL_COMMAND_COPY_BUFFER_RECT, false, n,
			       list, event);
}

/* ---- migration ----------------------------------------------------------- */

cl_int CL_API_CALL clEnqueueMigrateMemObjects(
	cl_command_queue q, cl_uint num_mems, const cl_mem *mems,
	cl_mem_migration_flags flags, cl_uint n, const cl_event *list,
	cl_event *event)
{
	struct accel_fence *fence = NULL;
	struct icd_wait w;
	cl_uint i;
	cl_int r;
	int e;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (num_mems == 0 || !mems ||
	    (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
			CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
		return CL_INVALID_VALUE;
	for (i = 0; i < num_mems; i++) {
		r = check_queue_any(q, mems[i]);
		if (r != CL_SUCCESS)
			return r;
	}
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	/* One memory for host and device: nothing to move. */
	e = accel_queue_marker(q->q, w.n, w.fences, &fence);
	icd_wait_fini(&w);
	if (e < 0)
		return icd_error(e);
	return icd_enqueue_done(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, fence, false,
				event);
}
