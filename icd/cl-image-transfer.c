/* SPDX-License-Identifier: MIT */
/*
 * Image commands: read, write, copy (image to image, to and from
 * buffers), fill and map. A box of texels is a box of bytes of the
 * image's buffer (struct icd_rect: x in bytes, then rows, then slices or
 * layers), so they run as the rectangular buffer transfers do: host
 * functions in queue order (icd-rect.c). The layer of a 1D array is its
 * origin[1]: its byte box steps from layer to layer by the slice pitch
 * where others step from row to row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"
#include "cl-image-transfer.h"

/* The image's extent in region terms: width, rows or layers, slices. */
static void image_dims(cl_mem m, size_t dims[3])
{
	const struct accel_image_layout *l = &m->layout;

	dims[0] = l->width;
	dims[1] = dims[2] = 1;
	switch (m->type) {
	case CL_MEM_OBJECT_IMAGE1D_ARRAY:
		dims[1] = l->array_size;
		break;
	case CL_MEM_OBJECT_IMAGE2D:
		dims[1] = l->height;
		break;
	case CL_MEM_OBJECT_IMAGE2D_ARRAY:
		dims[1] = l->height;
		dims[2] = l->array_size;
		break;
	case CL_MEM_OBJECT_IMAGE3D:
		dims[1] = l->height;
		dims[2] = l->depth;
		break;
	default:
		break;
	}
}

cl_int icd_image_box(cl_mem m, const size_t *origin, const size_t *region,
		     struct icd_rect *r, size_t bregion[3], size_t *start,
		     size_t *end)
{
	const struct accel_image_layout *l = &m->layout;
	size_t dims[3], x, i, e;

	if (!origin || !region)
		return CL_INVALID_VALUE;
	image_dims(m, dims);
	/* a dimension the type lacks: origin 0, region 1 */
	for (i = 0; i < 3; i++) {
		if (!region[i] || __builtin_add_overflow(origin[i], region[i],
							 &e) ||
		    e > dims[i])
			return CL_INVALID_VALUE;
	}
	if (__builtin_mul_overflow(origin[0], m->texel_size, &x) ||
	    __builtin_add_overflow(x, (size_t)l->offset, &x) ||
	    __builtin_mul_overflow(region[0], m->texel_size, &bregion[0]))
		return CL_INVALID_VALUE;
	bregion[1] = region[1];
	bregion[2] = region[2];
	r->origin[0] = x;
	r->origin[1] = origin[1];
	r->origin[2] = origin[2];
	r->row_pitch = l->row_pitch;
	r->slice_pitch = l->slice_pitch;
	if (m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
		r->row_pitch = l->slice_pitch;
	if (!icd_rect_span(r, bregion, start, end) || *end > m->size)
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

/* Queue and image belong together; the queue's device has images. */
static cl_int check_queue_image(cl_command_queue q, cl_mem m)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!icd_object_valid(m, ICD_MAGIC_MEM) || !icd_mem_is_image(m))
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	return CL_SUCCESS;
}

static cl_int check_queue_buffer(cl_command_queue q, cl_mem m)
{
	if (!icd_object_valid(m, ICD_MAGIC_MEM) || icd_mem_is_image(m))
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	return CL_SUCCESS;
}

/*
 * The host side of a read or write: rows @p row_pitch apart (0: tight),
 * slices or layers @p slice_pitch apart (0: tight; only images with
 * slices or layers have one).
 */
static cl_int host_box(cl_mem m, const size_t *bregion, size_t row_pitch,
		       size_t slice_pitch, struct icd_rect *r)
{
	size_t plane;

	if (row_pitch == 0)
		row_pitch = bregion[0];
	else if (row_pitch < bregion[0])
		return CL_INVALID_VALUE;
	memset(r, 0, sizeof(*r));
	switch (m->type) {
	case CL_MEM_OBJECT_IMAGE1D_ARRAY:
		if (slice_pitch == 0)
			slice_pitch = row_pitch;
		else if (slice_pitch < row_pitch)
			return CL_INVALID_VALUE;
		/* layers are this box's rows */
		r->row_pitch = r->slice_pitch = slice_pitch;
		return CL_SUCCESS;
	case CL_MEM_OBJECT_IMAGE2D_ARRAY:
	case CL_MEM_OBJECT_IMAGE3D:
		if (__builtin_mul_overflow(row_pitch, bregion[1], &plane))
			return CL_INVALID_VALUE;
		if (slice_pitch == 0)
			slice_pitch = plane;
		else if (slice_pitch < plane)
			return CL_INVALID_VALUE;
		break;
	default:
		/* 1D and 2D images have no slices */
		if (slice_pitch)
			return CL_INVALID_VALUE;
		break;
	}
	r->row_pitch = row_pitch;
	r->slice_pitch = slice_pitch;
	return CL_SUCCESS;
}

static cl_int image_rw(cl_command_queue q, cl_mem m, bool read,
		       cl_bool blocking, const size_t *origin,
		       const size_t *region, size_t row_pitch,
		       size_t slice_pitch, void *ptr, cl_uint n,
		       const cl_event *list, cl_event *event)
{
	struct icd_rect ibox, hbox;
	size_t bregion[3], is, ie, hs, he;
	struct icd_rect_cmd *c;
	cl_int r;

	r = check_queue_image(q, m);
	if (r != CL_SUCCESS)
		return r;
	r = icd_image_box(m, origin, region, &ibox, bregion, &is, &ie);
	if (r == CL_SUCCESS)
		r = host_box(m, bregion, row_pitch, slice_pitch, &hbox);
	if (r != CL_SUCCESS)
		return r;
	if (!ptr || !icd_rect_span(&hbox, bregion, &hs, &he) ||
	    he > UINTPTR_MAX - (uintptr_t)ptr)
		return CL_INVALID_VALUE;
	if (!icd_device_has_images(q->dev))
		return CL_INVALID_OPERATION;
	if (read ? !icd_host_may_read(m) : !icd_host_may_write(m))
		return CL_INVALID_OPERATION;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	memcpy(c->region, bregion, sizeof(c->region));
	c->src = read ? ibox : hbox;
	c->dst = read ? hbox : ibox;
	icd_rect_host_ends(c, read, m->buf, is, ie, ptr);
	return icd_rect_submit(q, c, read ? CL_COMMAND_READ_IMAGE :
					    CL_COMMAND_WRITE_IMAGE,
			       blocking, n, list, event);
}

cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue q, cl_mem image,
				      cl_bool blocking, const size_t *origin,
				      const size_t *region, size_t row_pitch,
				      size_t slice_pitch, void *ptr, cl_uint n,
				      const cl_event *list, cl_event *event)
{
	return image_rw(q, image, true, blocking, origin, region, row_pitch,
			slice_pitch, ptr, n, list, event);
}

cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue q, cl_mem image,
				       cl_bool blocking, const size_t *origin,
				       const size_t *region, size_t row_pitch,
				       size_t slice_pitch, const void *ptr,
				       cl_uint n, const cl_event *list,
				       cl_event *event)
{
	return image_rw(q, image, false, blocking, origin, region, row_pitch,
			slice_pitch, (void *)ptr, n, list, event);
}

cl_int icd_image_copy_prepare(cl_device_id dev, cl_mem src, cl_mem dst,
			      const size_t *src_origin,
			      const size_t *dst_origin, const size_t *region,
			      struct icd_rect_cmd **ret)
{
	struct icd_rect_cmd *c;
	size_t sreg[3];
	cl_int r;

	if (src->format.image_channel_order !=
		    dst->format.image_channel_order ||
	    src->format.image_channel_data_type !=
		    dst->format.image_channel_data_type)
		return CL_IMAGE_FORMAT_MISMATCH;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	r = icd_image_box(src, src_origin, region, &c->src, sreg,
			  &c->src_start, &c->src_end);
	if (r == CL_SUCCESS)
		r = icd_image_box(dst, dst_origin, region, &c->dst, c->region,
				  &c->dst_start, &c->dst_end);
	if (r == CL_SUCCESS && !icd_device_has_images(dev))
		r = CL_INVALID_OPERATION;
	if (r != CL_SUCCESS) {
		free(c);
		return r;
	}
	return icd_rect_copy_finish(src, dst, c, ret);
}

cl_int icd_image_buffer_prepare(cl_device_id dev, cl_mem image, cl_mem buf,
				const size_t *origin, const size_t *region,
				size_t offset, bool to_buffer,
				struct icd_rect_cmd **ret)
{
	struct icd_rect_cmd *c;
	struct icd_rect *ibox, *bbox;
	size_t *is, *ie, *bs, *be;
	cl_int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	ibox = to_buffer ? &c->src : &c->dst;
	bbox = to_buffer ? &c->dst : &c->src;
	is = to_buffer ? &c->src_start : &c->dst_start;
	ie = to_buffer ? &c->src_end : &c->dst_end;
	bs = to_buffer ? &c->dst_start : &c->src_start;
	be = to_buffer ? &c->dst_end : &c->src_end;
	r = icd_image_box(image, origin, region, ibox, c->region, is, ie);
	if (r == CL_SUCCESS) {
		/* the buffer holds the box tightly, from @p offset */
		bbox->origin[0] = offset;
		bbox->row_pitch = c->region[0];
		bbox->slice_pitch = c->region[0] * c->region[1];
		if (!icd_rect_span(bbox, c->region, bs, be) || *be > buf->size)
			r = CL_INVALID_VALUE;
	}
	if (r == CL_SUCCESS && !icd_device_has_images(dev))
		r = CL_INVALID_OPERATION;
	if (r != CL_SUCCESS) {
		free(c);
		return r;
	}
	return to_buffer ? icd_rect_copy_finish(image, buf, c, ret) :
			   icd_rect_copy_finish(buf, image, c, ret);
}

cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue q, cl_mem src,
				      cl_mem dst, const size_t *src_origin,
				      const size_t *dst_origin,
				      const size_t *region, cl_uint n,
				      const cl_event *list, cl_event *event)
{
	struct icd_rect_cmd *c;
	cl_int r;

	r = check_queue_image(q, src);
	if (r == CL_SUCCESS)
		r = check_queue_image(q, dst);
	if (r == CL_SUCCESS)
		r = icd_image_copy_prepare(q->dev, src, dst, src_origin,
					   dst_origin, region, &c);
	if (r != CL_SUCCESS)
		return r;
	return icd_rect_submit(q, c, CL_COMMAND_COPY_IMAGE, false, n, list,
			       event);
}

/* A copy between @p image and buffer @p buf, the image checked first. */
static cl_int image_buffer_copy(cl_command_queue q, cl_mem image, cl_mem buf,
				const size_t *origin, const size_t *region,
				size_t offset, bool to_buffer, cl_uint n,
				const cl_event *list, cl_event *event)
{
	struct icd_rect_cmd *c;
	cl_int r;

	r = check_queue_image(q, image);
	if (r == CL_SUCCESS)
		r = check_queue_buffer(q, buf);
	if (r == CL_SUCCESS)
		r = icd_image_buffer_prepare(q->dev, image, buf, origin, region,
					     offset, to_buffer, &c);
	if (r != CL_SUCCESS)
		return r;
	return icd_rect_submit(q, c,
			       to_buffer ? CL_COMMAND_COPY_IMAGE_TO_BUFFER :
					   CL_COMMAND_COPY_BUFFER_TO_IMAGE,
			       false, n, list, event);
}

cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
	cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
	const size_t *region, size_t dst_offset, cl_uint n,
	const cl_event *list, cl_event *event)
{
	return image_buffer_copy(q, src, dst, src_origin, region, dst_offset,
				 true, n, list, event);
}

cl_int CL_API_CALL clEnqueueCopyBufferToImage(
	cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
	const size_t *dst_origin, const size_t *region, cl_uint n,
	const cl_event *list, cl_event *event)
{
	return image_buffer_copy(q, dst, src, dst_origin, region, src_offset,
				 false, n, list, event);
}

/* ---- fill ---------------------------------------------------------------- */

struct fill_cmd {
	struct accel_buffer *buf;
	struct icd_rect box;
	size_t start, end;
	size_t region[3]; /* bytes, rows, slices */
	size_t texel_size;
	unsigned char texel[16];
};

int icd_image_fill_run(void *p)
{
	struct fill_cmd *c = p;
	size_t x, y, z;
	char *base, *row;
	void *v;
	int e;

	e = accel_buffer_map(c->buf, c->start, c->end - c->start,
			     ACCEL_MAP_WRITE, &v);
	if (e < 0)
		return e;
	base = (char *)v - c->start;
	for (z = 0; z < c->region[2]; z++)
		for (y = 0; y < c->region[1]; y++) {
			row = base + icd_rect_offset(&c->box, y, z);
			for (x = 0; x < c->region[0]; x += c->texel_size)
				memcpy(row + x, c->texel, c->texel_size);
		}
	accel_buffer_unmap(c->buf, v);
	return 0;
}

void icd_image_fill_free(void *p)
{
	struct fill_cmd *c = p;

	accel_buffer_unref(c->buf);
	free(c);
}

cl_int icd_image_fill_prepare(cl_device_id dev, cl_mem m, const void *color,
			      const size_t *origin, const size_t *region,
			      void **ret)
{
	struct accel_image_format f;
	struct fill_cmd *c;
	cl_int r;

	if (!color)
		return CL_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	r = icd_image_box(m, origin, region, &c->box, c->region, &c->start,
			  &c->end);
	if (r == CL_SUCCESS && !icd_device_has_images(dev))
		r = CL_INVALID_OPERATION;
	/* the colour as a kernel's write_image*() would store it */
	f.channel_order = m->format.image_channel_order;
	f.channel_type = m->format.image_channel_data_type;
	if (r == CL_SUCCESS && accel_image_pack_texel(&f, color, c->texel) < 0)
		r = CL_INVALID_VALUE;
	if (r != CL_SUCCESS) {
		free(c);
		return r;
	}
	c->texel_size = m->texel_size;
	c->buf = accel_buffer_ref(m->buf);
	*ret = c;
	return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue q, cl_mem image,
				      const void *color, const size_t *origin,
				      const size_t *region, cl_uint n,
				      const cl_event *list, cl_event *event)
{
	void *c;
	cl_int r;

	r = check_queue_image(q, image);
	if (r == CL_SUCCESS)
		r = icd_image_fill_prepare(q->dev, image, color, origin, region,
					   &c);
	if (r != CL_SUCCESS)
		return r;
	return icd_enqueue_host_fn(q, CL_COMMAND_FILL_IMAGE,
				   icd_image_fill_run, c, icd_image_fill_free,
				   false, n, list, event);
}

/* ---- map ----------------------------------------------------------------- */

/*
 * The mapping starts at the origin's texel and keeps the image's pitches
 * (the buffer is mapped in place); unmapping is clEnqueueUnmapMemObject.
 */
void *CL_API_CALL clEnqueueMapImage(cl_command_queue q, cl_mem m,
				    cl_bool blocking, cl_map_flags flags,
				    const size_t *origin, const size_t *region,
				    size_t *row_pitch, size_t *slice_pitch,
				    cl_uint n, const cl_event *list,
				    cl_event *event, cl_int *err)
{
	size_t bregion[3], start, end;
	bool slices;
	struct icd_rect box;
	void *p;
	cl_int r;

	r = check_queue_image(q, m);
	if (r == CL_SUCCESS)
		r = icd_image_box(m, origin, region, &box, bregion, &start,
				  &end);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	slices = m->type == CL_MEM_OBJECT_IMAGE3D ||
		 m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
		 m->type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
	if (!row_pitch || (slices && !slice_pitch))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	if (!icd_device_has_images(q->dev))
		ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
	p = icd_mem_map(q, m, blocking, flags, start, end - start, n, list,
			event, CL_COMMAND_MAP_IMAGE, err);
	if (p) {
		*row_pitch = m->layout.row_pitch;
		if (slice_pitch)
			*slice_pitch = slices ? m->layout.slice_pitch : 0;
	}
	return p;
}
