/* SPDX-License-Identifier: MIT */
/*
 * Images: a cl_mem whose libaccel buffer is seen through a resolved
 * struct accel_image_layout (accel-image.h). An image of its own gets a
 * buffer on the context's first device, as buffers do; with
 * CL_MEM_USE_HOST_PTR that buffer is the user's memory with the user's
 * pitches. An image made from a buffer (1D buffer images,
 * cl_khr_image2d_from_buffer) or from another 2D image (another channel
 * order) shares that object's libaccel buffer and holds the object.
 *
 * OpenCL's image types, orders and data types have libaccel's values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

#define HOST_PTR_FLAGS                                                         \
	(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define ACCESS_FLAGS                                                           \
	(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_FLAGS                                                             \
	(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY |                      \
	 CL_MEM_HOST_NO_ACCESS)

bool icd_device_has_images(cl_device_id d)
{
	return d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IMAGES;
}

bool icd_context_has_images(cl_context ctx)
{
	cl_uint i;

	for (i = 0; i < ctx->n_devices; i++)
		if (icd_device_has_images(ctx->devices[i]))
			return true;
	return false;
}

static bool valid_type(cl_mem_object_type t)
{
	switch (t) {
	case CL_MEM_OBJECT_IMAGE1D:
	case CL_MEM_OBJECT_IMAGE1D_BUFFER:
	case CL_MEM_OBJECT_IMAGE1D_ARRAY:
	case CL_MEM_OBJECT_IMAGE2D:
	case CL_MEM_OBJECT_IMAGE2D_ARRAY:
	case CL_MEM_OBJECT_IMAGE3D:
		return true;
	default:
		return false;
	}
}

static bool is_array(cl_mem_object_type t)
{
	return t == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
	       t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

/* Rows: 2D and 3D images and 2D arrays. */
static bool has_rows(cl_mem_object_type t)
{
	return t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
	       t == CL_MEM_OBJECT_IMAGE3D;
}

/* Slices or layers: a slice pitch that means something. */
static bool has_slices(cl_mem_object_type t)
{
	return is_array(t) || t == CL_MEM_OBJECT_IMAGE3D;
}

/* The texel size of a valid format, 0 for an invalid one. */
static size_t texel_size(const cl_image_format *f)
{
	struct accel_image_format af;
	uint32_t ts;

	if (!f)
		return 0;
	af.channel_order = f->image_channel_order;
	af.channel_type = f->image_channel_data_type;
	if (accel_image_format_get_texel_size(&af, &ts) < 0)
		return 0;
	return ts;
}

/*
 * The cl_image_desc rules of clCreateImage that do not depend on a
 * device: sizes that apply are >= 1, no mip-maps or samples, pitches only
 * with host memory (or a buffer's rows) and then at least tight, a
 * memory object only where a type takes one.
 */
static cl_int check_desc(const cl_image_desc *d, size_t ts, bool host)
{
	cl_mem_object_type t = d->image_type;
	cl_mem mo = d->mem_object;
	size_t row, min;

	if (!valid_type(t) || d->image_width == 0 ||
	    (has_rows(t) && d->image_height == 0) ||
	    (t == CL_MEM_OBJECT_IMAGE3D && d->image_depth == 0) ||
	    (is_array(t) && d->image_array_size == 0) ||
	    d->num_mip_levels || d->num_samples)
		return CL_INVALID_IMAGE_DESCRIPTOR;
	if (mo) {
		if (!icd_object_valid(mo, ICD_MAGIC_MEM))
			return CL_INVALID_IMAGE_DESCRIPTOR;
		if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
			if (icd_mem_is_image(mo))
				return CL_INVALID_IMAGE_DESCRIPTOR;
		} else if (t == CL_MEM_OBJECT_IMAGE2D) {
			if (mo->type != CL_MEM_OBJECT_BUFFER &&
			    mo->type != CL_MEM_OBJECT_IMAGE2D)
				return CL_INVALID_IMAGE_DESCRIPTOR;
		} else {
			return CL_INVALID_IMAGE_DESCRIPTOR;
		}
	} else if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
		return CL_INVALID_IMAGE_DESCRIPTOR;
	}
	/*
	 * Without host memory only an image over a memory object may give a
	 * row pitch: a 2D image's rows in a buffer, or the object's own
	 * (checked against it; a 1D buffer image's row is its texels).
	 */
	if (!host && !mo && d->image_row_pitch)
		return CL_INVALID_IMAGE_DESCRIPTOR;
	if (!host && d->image_slice_pitch)
		return CL_INVALID_IMAGE_DESCRIPTOR;
	if (__builtin_mul_overflow(d->image_width, ts, &min))
		return CL_INVALID_IMAGE_SIZE;
	row = d->image_row_pitch ? d->image_row_pitch : min;
	if (d->image_row_pitch && (row < min || row % ts))
		return CL_INVALID_IMAGE_DESCRIPTOR;
	if (host && has_slices(t) && d->image_slice_pitch) {
		if (t != CL_MEM_OBJECT_IMAGE1D_ARRAY &&
		    __builtin_mul_overflow(row, d->image_height, &min))
			return CL_INVALID_IMAGE_SIZE;
		if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY)
			min = row;
		if (d->image_slice_pitch < min || d->image_slice_pitch % row)
			return CL_INVALID_IMAGE_DESCRIPTOR;
	}
	return CL_SUCCESS;
}

/*
 * Flags of an image made from another memory object: no host pointer
 * flags, no access the object forbids; what is not given is inherited.
 */
static cl_int inherit_flags(cl_mem mo, cl_mem_flags *flags)
{
	cl_mem_flags f = *flags, pf = mo->flags;

	if ((f & HOST_PTR_FLAGS) ||
	    ((pf & CL_MEM_WRITE_ONLY) &&
	     (f & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
	    ((pf & CL_MEM_READ_ONLY) &&
	     (f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
	    ((pf & CL_MEM_HOST_WRITE_ONLY) && (f & CL_MEM_HOST_READ_ONLY)) ||
	    ((pf & CL_MEM_HOST_READ_ONLY) && (f & CL_MEM_HOST_WRITE_ONLY)) ||
	    ((pf & CL_MEM_HOST_NO_ACCESS) &&
	     (f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
		return CL_INVALID_VALUE;
	if (!(f & ACCESS_FLAGS))
		f |= pf & ACCESS_FLAGS;
	if (!(f & HOST_FLAGS))
		f |= pf & HOST_FLAGS;
	f |= pf & HOST_PTR_FLAGS;
	*flags = f;
	return CL_SUCCESS;
}

/* Channel orders a 2D image may be viewed as, besides its own. */
static bool orders_compatible(cl_channel_order a, cl_channel_order b)
{
	static const cl_channel_order pairs[][2] = {
		{ CL_sRGBA, CL_RGBA },
		{ CL_sBGRA, CL_BGRA },
		{ CL_DEPTH, CL_R },
	};
	size_t i;

	if (a == b)
		return true;
	for (i = 0; i < ICD_ARRAY_SIZE(pairs); i++)
		if ((a == pairs[i][0] && b == pairs[i][1]) ||
		    (a == pairs[i][1] && b == pairs[i][0]))
			return true;
	return false;
}

/* The layout of an image over @p mo (a buffer or a 2D image). */
static cl_int layout_from_object(cl_device_id dev, cl_mem mo,
				 const cl_image_format *f,
				 const cl_image_desc *d, size_t ts,
				 struct accel_image_layout *l)
{
	uint64_t align;

	if (icd_mem_is_image(mo)) {
		/* the same texels, another channel order (sRGB, depth) */
		if (f->image_channel_data_type !=
			    mo->format.image_channel_data_type ||
		    !orders_compatible(f->image_channel_order,
				       mo->format.image_channel_order))
			return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
		if (d->image_width != mo->layout.width ||
		    d->image_height != mo->layout.height ||
		    (d->image_row_pitch &&
		     d->image_row_pitch != mo->layout.row_pitch))
			return CL_INVALID_IMAGE_DESCRIPTOR;
		*l = mo->layout;
		l->channel_order = f->image_channel_order;
		return CL_SUCCESS;
	}
	if (d->image_type == CL_MEM_OBJECT_IMAGE2D) {
		/* cl_khr_image2d_from_buffer: rows and start aligned */
		align = dev->u64[ACCEL_DEVICE_U64_IMAGE_PITCH_ALIGNMENT];
		if (d->image_row_pitch && align &&
		    d->image_row_pitch % (align * ts))
			return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
		if (!d->image_row_pitch && align &&
		    (d->image_width * ts) % (align * ts))
			return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
		align = dev->u64[ACCEL_DEVICE_U64_IMAGE_BASE_ADDRESS_ALIGNMENT];
		if (align &&
		    ((mo->host_ptr && (uintptr_t)mo->host_ptr % align) ||
		     mo->offset % align))
			return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
		l->row_pitch = d->image_row_pitch;
	}
	return CL_SUCCESS;
}

/* Copy the user's texels (rows @p row, slices @p slice apart) in. */
static cl_int copy_in(cl_mem m, const char *src, size_t row, size_t slice)
{
	const struct accel_image_layout *l = &m->layout;
	size_t rows = l->height, slices = l->depth, y, z;
	size_t bytes = l->width * m->texel_size;
	char *p;
	void *v;
	int e;

	if (m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
	    m->type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
		slices = l->array_size;
	e = accel_buffer_map(m->buf, 0, m->size, ACCEL_MAP_WRITE_INVALIDATE,
			     &v);
	if (e < 0)
		return e == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
				      CL_MEM_OBJECT_ALLOCATION_FAILURE;
	p = (char *)v + l->offset;
	for (z = 0; z < slices; z++)
		for (y = 0; y < rows; y++)
			memcpy(p + z * l->slice_pitch + y * l->row_pitch,
			       src + z * slice + y * row, bytes);
	accel_buffer_unmap(m->buf, v);
	return CL_SUCCESS;
}

static cl_int resolve_error(int e)
{
	switch (e) {
	case -EOPNOTSUPP:
		return CL_IMAGE_FORMAT_NOT_SUPPORTED;
	case -E2BIG:
		return CL_INVALID_IMAGE_SIZE;
	case -ENOMEM:
		return CL_OUT_OF_HOST_MEMORY;
	default:
		return CL_INVALID_IMAGE_DESCRIPTOR;
	}
}

/*
 * Resolve @p l on the first device of @p ctx that takes it: the formats
 * of a context are those of any of its devices (clGetSupportedImageFormats).
 * Otherwise the first device's complaint.
 */
static cl_int resolve(cl_context ctx, cl_mem mo, const cl_image_format *f,
		      const cl_image_desc *d, size_t ts,
		      struct accel_image_layout *l, uint64_t *span)
{
	struct accel_image_layout t;
	cl_int r, first = CL_SUCCESS;
	cl_uint i;
	int e;

	for (i = 0; i < ctx->n_devices; i++) {
		if (!icd_device_has_images(ctx->devices[i]))
			continue;
		t = *l;
		r = mo ? layout_from_object(ctx->devices[i], mo, f, d, ts, &t) :
			 CL_SUCCESS;
		if (r == CL_SUCCESS) {
			e = accel_image_layout_resolve(ctx->devices[i]->dev,
						       &t, &t, span);
			if (e == 0) {
				*l = t;
				return CL_SUCCESS;
			}
			r = resolve_error(e);
		}
		if (first == CL_SUCCESS)
			first = r;
	}
	return first;
}

static cl_int parse_props(const cl_mem_properties *props, size_t *n)
{
	*n = 0;
	if (!props)
		return CL_SUCCESS;
	/* no image property is known: only the empty list */
	if (props[0])
		return CL_INVALID_PROPERTY;
	*n = 1;
	return CL_SUCCESS;
}

static cl_mem image_new(cl_context ctx, const cl_mem_properties *props,
			cl_mem_flags flags, const cl_image_format *format,
			const cl_image_desc *desc, void *host_ptr,
			cl_int *err)
{
	struct accel_image_layout l = { .struct_size = sizeof(l) };
	cl_mem mo, m;
	size_t ts, n_props, hrow, hslice;
	uint64_t span;
	cl_int r;
	int e;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	r = parse_props(props, &n_props);
	if (r == CL_SUCCESS)
		r = icd_mem_check_flags(flags);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	ts = texel_size(format);
	if (!ts)
		ICD_RETURN_ERR(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, NULL);
	if (!desc)
		ICD_RETURN_ERR(err, CL_INVALID_IMAGE_DESCRIPTOR, NULL);
	r = check_desc(desc, ts, host_ptr != NULL);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	mo = desc->mem_object;
	if (mo && mo->ctx != ctx)
		ICD_RETURN_ERR(err, CL_INVALID_IMAGE_DESCRIPTOR, NULL);
	if (mo) {
		r = inherit_flags(mo, &flags);
		if (r != CL_SUCCESS)
			ICD_RETURN_ERR(err, r, NULL);
	} else if (!host_ptr !=
		   !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))) {
		ICD_RETURN_ERR(err, CL_INVALID_HOST_PTR, NULL);
	}
	if (mo && host_ptr)
		ICD_RETURN_ERR(err, CL_INVALID_HOST_PTR, NULL);
	if (!icd_context_has_images(ctx))
		ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);

	l.type = desc->image_type;
	l.channel_order = format->image_channel_order;
	l.channel_type = format->image_channel_data_type;
	l.width = desc->image_width;
	l.height = has_rows(l.type) ? desc->image_height : 1;
	l.depth = l.type == CL_MEM_OBJECT_IMAGE3D ? desc->image_depth : 1;
	l.array_size = is_array(l.type) ? desc->image_array_size : 1;
	/* the user's memory is the image: its pitches are the image's */
	if (flags & CL_MEM_USE_HOST_PTR && !mo) {
		l.row_pitch = desc->image_row_pitch;
		l.slice_pitch = has_slices(l.type) ? desc->image_slice_pitch :
						     0;
	}
	r = resolve(ctx, mo, format, desc, ts, &l, &span);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (mo ? span > mo->size :
		 span > ctx->devices[0]->u64[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE])
		ICD_RETURN_ERR(err, CL_INVALID_IMAGE_SIZE, NULL);

	m = icd_mem_alloc(ctx, flags, span);
	if (!m)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	m->type = desc->image_type;
	m->layout = l;
	m->format = *format;
	m->texel_size = ts;
	if (props) {
		m->props = calloc(n_props, sizeof(*m->props));
		if (!m->props) {
			icd_put(m);
			ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
		}
		m->n_props = n_props;
	}
	if (mo) {
		m->buf = accel_buffer_ref(mo->buf);
		m->parent = mo;
		icd_hold(mo);
		m->host_ptr = mo->host_ptr;
		e = 0;
	} else if (flags & CL_MEM_USE_HOST_PTR) {
		e = accel_buffer_new_user_ptr(ctx->devices[0]->dev, host_ptr,
					      span, icd_mem_accel_flags(flags),
					      &m->buf);
		m->host_ptr = host_ptr;
	} else {
		e = accel_buffer_new(ctx->devices[0]->dev, span,
				     icd_mem_accel_flags(flags), &m->buf);
	}
	if (e < 0) {
		icd_put(m);
		ICD_RETURN_ERR(err, e == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
			       e == -E2BIG ? CL_INVALID_IMAGE_SIZE :
					     CL_MEM_OBJECT_ALLOCATION_FAILURE,
			       NULL);
	}
	/* (an image of another object inherits the flag, not the copy) */
	if (!mo && (flags & CL_MEM_COPY_HOST_PTR)) {
		hrow = desc->image_row_pitch ? desc->image_row_pitch :
					       l.width * ts;
		hslice = desc->image_slice_pitch;
		if (!hslice)
			hslice = l.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ?
					 hrow : hrow * l.height;
		r = copy_in(m, host_ptr, hrow, hslice);
		if (r != CL_SUCCESS) {
			icd_put(m);
			ICD_RETURN_ERR(err, r, NULL);
		}
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, m);
}

cl_mem CL_API_CALL clCreateImage(cl_context ctx, cl_mem_flags flags,
				 const cl_image_format *format,
				 const cl_image_desc *desc, void *host_ptr,
				 cl_int *err)
{
	return image_new(ctx, NULL, flags, format, desc, host_ptr, err);
}

cl_mem CL_API_CALL clCreateImageWithProperties(
	cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags,
	const cl_image_format *format, const cl_image_desc *desc,
	void *host_ptr, cl_int *err)
{
	return image_new(ctx, props, flags, format, desc, host_ptr, err);
}

/* OpenCL 1.1: sizes of 0 (and a depth of 1) are CL_INVALID_IMAGE_SIZE. */
cl_mem CL_API_CALL clCreateImage2D(cl_context ctx, cl_mem_flags flags,
				   const cl_image_format *format, size_t width,
				   size_t height, size_t row_pitch,
				   void *host_ptr, cl_int *err)
{
	cl_image_desc d = {
		.image_type = CL_MEM_OBJECT_IMAGE2D,
		.image_width = width,
		.image_height = height,
		.image_row_pitch = row_pitch,
	};

	if (icd_object_valid(ctx, ICD_MAGIC_CONTEXT) &&
	    icd_mem_check_flags(flags) == CL_SUCCESS && texel_size(format) &&
	    (!width || !height))
		ICD_RETURN_ERR(err, CL_INVALID_IMAGE_SIZE, NULL);
	return image_new(ctx, NULL, flags, format, &d, host_ptr, err);
}

cl_mem CL_API_CALL clCreateImage3D(cl_context ctx, cl_mem_flags flags,
				   const cl_image_format *format, size_t width,
				   size_t height, size_t depth,
				   size_t row_pitch, size_t slice_pitch,
				   void *host_ptr, cl_int *err)
{
	cl_image_desc d = {
		.image_type = CL_MEM_OBJECT_IMAGE3D,
		.image_width = width,
		.image_height = height,
		.image_depth = depth,
		.image_row_pitch = row_pitch,
		.image_slice_pitch = slice_pitch,
	};

	if (icd_object_valid(ctx, ICD_MAGIC_CONTEXT) &&
	    icd_mem_check_flags(flags) == CL_SUCCESS && texel_size(format) &&
	    (!width || !height || depth <= 1))
		ICD_RETURN_ERR(err, CL_INVALID_IMAGE_SIZE, NULL);
	return image_new(ctx, NULL, flags, format, &d, host_ptr, err);
}

cl_int CL_API_CALL clGetImageInfo(cl_mem m, cl_image_info param, size_t size,
				  void *value, size_t *size_ret)
{
	const struct accel_image_layout *l;

	if (!icd_object_valid(m, ICD_MAGIC_MEM) || !icd_mem_is_image(m))
		return CL_INVALID_MEM_OBJECT;
	l = &m->layout;
	switch (param) {
	case CL_IMAGE_FORMAT:
		return icd_info(size, value, size_ret, &m->format,
				sizeof(m->format));
	case CL_IMAGE_ELEMENT_SIZE:
		return icd_info_size(size, value, size_ret, m->texel_size);
	case CL_IMAGE_ROW_PITCH:
		return icd_info_size(size, value, size_ret, l->row_pitch);
	case CL_IMAGE_SLICE_PITCH:
		/* only images with slices or layers have one */
		return icd_info_size(size, value, size_ret,
				     has_slices(m->type) ? l->slice_pitch : 0);
	case CL_IMAGE_WIDTH:
		return icd_info_size(size, value, size_ret, l->width);
	case CL_IMAGE_HEIGHT:
		return icd_info_size(size, value, size_ret,
				     has_rows(m->type) ? l->height : 0);
	case CL_IMAGE_DEPTH:
		return icd_info_size(size, value, size_ret,
				     m->type == CL_MEM_OBJECT_IMAGE3D ?
					     l->depth : 0);
	case CL_IMAGE_ARRAY_SIZE:
		return icd_info_size(size, value, size_ret,
				     is_array(m->type) ? l->array_size : 0);
	case CL_IMAGE_BUFFER:
		return icd_info_ptr(size, value, size_ret,
				    m->parent && !icd_mem_is_image(m->parent) ?
					    m->parent : NULL);
	case CL_IMAGE_NUM_MIP_LEVELS:
	case CL_IMAGE_NUM_SAMPLES:
		return icd_info_uint(size, value, size_ret, 0);
	default:
		return CL_INVALID_VALUE;
	}
}

/* ---- supported formats --------------------------------------------------- */

#define FORMAT_FLAGS                                                           \
	(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |            \
	 CL_MEM_KERNEL_READ_AND_WRITE | HOST_PTR_FLAGS | HOST_FLAGS)

/* The formats one device offers for @p access, NULL on failure. */
static struct accel_image_format *device_formats(cl_device_id d,
						 uint32_t type,
						 uint32_t access, uint32_t *n)
{
	struct accel_image_format *f;
	int c;

	c = accel_device_get_image_formats(d->dev, type, access, 0, NULL);
	if (c < 0)
		return NULL;
	f = calloc(c ? (size_t)c : 1, sizeof(*f));
	if (!f)
		return NULL;
	c = accel_device_get_image_formats(d->dev, type, access, (uint32_t)c,
					   f);
	if (c < 0) {
		free(f);
		return NULL;
	}
	*n = (uint32_t)c;
	return f;
}

static bool format_in(const struct accel_image_format *list, uint32_t n,
		      const struct accel_image_format *f)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (list[i].channel_order == f->channel_order &&
		    list[i].channel_type == f->channel_type)
			return true;
	return false;
}

/*
 * Add to @p set (*n formats, room for *cap) those @p d offers for every
 * access of @p accesses (a list, 0-ended) that it lacks.
 */
static cl_int add_device_formats(cl_device_id d, uint32_t type,
				 const uint32_t *accesses,
				 struct accel_image_format **set, uint32_t *n,
				 uint32_t *cap)
{
	struct accel_image_format *f, *g, *grown;
	uint32_t i, j, k, c, cg;

	f = device_formats(d, type, accesses[0], &c);
	if (!f)
		return CL_OUT_OF_HOST_MEMORY;
	for (k = 1; accesses[k]; k++) {
		g = device_formats(d, type, accesses[k], &cg);
		if (!g) {
			free(f);
			return CL_OUT_OF_HOST_MEMORY;
		}
		for (i = j = 0; i < c; i++)
			if (format_in(g, cg, &f[i]))
				f[j++] = f[i];
		c = j;
		free(g);
	}
	for (i = 0; i < c; i++) {
		if (format_in(*set, *n, &f[i]))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			grown = realloc(*set, *cap * sizeof(**set));
			if (!grown) {
				free(f);
				return CL_OUT_OF_HOST_MEMORY;
			}
			*set = grown;
		}
		(*set)[(*n)++] = f[i];
	}
	free(f);
	return CL_SUCCESS;
}

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context ctx,
					      cl_mem_flags flags,
					      cl_mem_object_type type,
					      cl_uint num_entries,
					      cl_image_format *formats,
					      cl_uint *num_formats)
{
	struct accel_image_format *set = NULL;
	uint32_t accesses[4], n = 0, cap = 0, na = 0;
	cl_mem_flags access;
	cl_uint i;
	cl_int r = CL_SUCCESS;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		return CL_INVALID_CONTEXT;
	if ((flags & ~(cl_mem_flags)FORMAT_FLAGS) ||
	    icd_mem_check_flags(flags & ~(cl_mem_flags)
					CL_MEM_KERNEL_READ_AND_WRITE) !=
		    CL_SUCCESS ||
	    !valid_type(type) || (num_entries == 0 && formats))
		return CL_INVALID_VALUE;
	/*
	 * CL_MEM_READ_WRITE (the default): images kernels read and images
	 * they write; CL_MEM_KERNEL_READ_AND_WRITE: read_write images too.
	 */
	access = flags & (ACCESS_FLAGS | CL_MEM_KERNEL_READ_AND_WRITE);
	if (!(access & ACCESS_FLAGS) || (access & CL_MEM_READ_WRITE)) {
		accesses[na++] = ACCEL_IMAGE_ACCESS_READ;
		accesses[na++] = ACCEL_IMAGE_ACCESS_WRITE;
	} else if (access & CL_MEM_READ_ONLY) {
		accesses[na++] = ACCEL_IMAGE_ACCESS_READ;
	} else {
		accesses[na++] = ACCEL_IMAGE_ACCESS_WRITE;
	}
	if (access & CL_MEM_KERNEL_READ_AND_WRITE)
		accesses[na++] = ACCEL_IMAGE_ACCESS_READ |
				 ACCEL_IMAGE_ACCESS_WRITE;
	accesses[na] = 0;

	/*
	 * "a union of image formats supported by all devices in the
	 * context" (OpenCL 3.0): what one device or another offers
	 */
	for (i = 0; i < ctx->n_devices && r == CL_SUCCESS; i++)
		if (icd_device_has_images(ctx->devices[i]))
			r = add_device_formats(ctx->devices[i], type, accesses,
					       &set, &n, &cap);
	if (r == CL_SUCCESS && formats)
		for (i = 0; i < n && i < num_entries; i++) {
			formats[i].image_channel_order = set[i].channel_order;
			formats[i].image_channel_data_type =
				set[i].channel_type;
		}
	if (r == CL_SUCCESS && num_formats)
		*num_formats = n;
	free(set);
	return r;
}
