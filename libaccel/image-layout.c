/* SPDX-License-Identifier: MIT */
/*
 * Image layouts: checking one against a device (sizes, pitches, limits)
 * and completing it, and the layouts of DRM frames (fourcc + modifier).
 */
#include <string.h>

#include <drm_fourcc.h>

#include "accel-private.h"

/* Which sizes a type has: rows, slices (3D), layers (arrays). */
static void type_dims(uint32_t type, bool *rows, bool *slices, bool *layers)
{
	*rows = type == ACCEL_IMAGE_2D || type == ACCEL_IMAGE_2D_ARRAY ||
		type == ACCEL_IMAGE_3D;
	*slices = type == ACCEL_IMAGE_3D;
	*layers = type == ACCEL_IMAGE_1D_ARRAY || type == ACCEL_IMAGE_2D_ARRAY;
}

/* A size the type has must be >= 1; one it lacks 0 or 1 (becomes 1). */
static int check_dim(uint64_t *v, bool has)
{
	if (has ? *v == 0 : *v > 1)
		return -EINVAL;
	*v = has ? *v : 1;
	return 0;
}

/* A given pitch is at least the tight one and whole texels; 0: tight. */
static int resolve_pitch(uint64_t *pitch, uint64_t tight, uint32_t texel)
{
	if (*pitch == 0) {
		*pitch = tight;
		return 0;
	}
	if (*pitch < tight || *pitch % texel)
		return -EINVAL;
	return 0;
}

/* The device's limits for @l (sizes already completed): 0 or -E2BIG. */
static int check_limits(const struct accel_device *dev,
			const struct accel_image_layout *l)
{
	const uint64_t *u = dev->u64;
	uint64_t max_w, max_h = 1, max_d = 1, max_a = 1;

	switch (l->type) {
	case ACCEL_IMAGE_3D:
		max_w = u[ACCEL_DEVICE_U64_IMAGE3D_MAX_WIDTH];
		max_h = u[ACCEL_DEVICE_U64_IMAGE3D_MAX_HEIGHT];
		max_d = u[ACCEL_DEVICE_U64_IMAGE3D_MAX_DEPTH];
		break;
	case ACCEL_IMAGE_1D_BUFFER:
		max_w = u[ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE];
		break;
	default:
		max_w = u[ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH];
		if (l->type == ACCEL_IMAGE_2D ||
		    l->type == ACCEL_IMAGE_2D_ARRAY)
			max_h = u[ACCEL_DEVICE_U64_IMAGE2D_MAX_HEIGHT];
		if (l->type == ACCEL_IMAGE_1D_ARRAY ||
		    l->type == ACCEL_IMAGE_2D_ARRAY)
			max_a = u[ACCEL_DEVICE_U64_IMAGE_MAX_ARRAY_SIZE];
		break;
	}
	/*
	 * struct accel_wg_image holds 32-bit sizes: a device's limits must
	 * keep below that, and a device that says otherwise still cannot
	 * pass more.
	 */
	if (l->width > MIN(max_w, (uint64_t)INT32_MAX) ||
	    l->height > MIN(max_h, (uint64_t)INT32_MAX) ||
	    l->depth > MIN(max_d, (uint64_t)INT32_MAX) ||
	    l->array_size > MIN(max_a, (uint64_t)INT32_MAX))
		return -E2BIG;
	return 0;
}

ACCEL_EXPORT int
accel_image_layout_resolve(struct accel_device *dev,
			   const struct accel_image_layout *layout,
			   struct accel_image_layout *ret, uint64_t *ret_size)
{
	struct accel_image_layout l;
	bool rows, slices, layers;
	uint64_t tight, span, last;
	int texel, r;

	if (!dev || !layout || !ret ||
	    layout->struct_size < sizeof(struct accel_image_layout))
		return -EINVAL;
	memcpy(&l, layout, sizeof(l));
	if (!accel_image_type_valid(l.type))
		return -EINVAL;
	texel = accel_image_texel_size(l.channel_order, l.channel_type);
	if (texel < 0)
		return texel;
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IMAGES) ||
	    !accel_image_format_for_type(l.type, l.channel_order))
		return -EOPNOTSUPP;

	type_dims(l.type, &rows, &slices, &layers);
	if (l.width == 0)
		return -EINVAL;
	r = check_dim(&l.height, rows);
	if (r == 0)
		r = check_dim(&l.depth, slices);
	if (r == 0)
		r = check_dim(&l.array_size, layers);
	if (r < 0)
		return r;

	/* a 1D buffer image's row is its texels, whatever was given */
	if (l.type == ACCEL_IMAGE_1D_BUFFER)
		l.row_pitch = 0;
	if (__builtin_mul_overflow(l.width, (uint64_t)texel, &tight))
		return -EINVAL;
	r = resolve_pitch(&l.row_pitch, tight, (uint32_t)texel);
	if (r < 0)
		return r;
	/* slices or layers follow whole planes (1D arrays: rows) */
	if (__builtin_mul_overflow(l.row_pitch, l.height, &tight))
		return -EINVAL;
	r = resolve_pitch(&l.slice_pitch, tight, (uint32_t)texel);
	if (r < 0)
		return r;

	/* offset + the last plane, row and texel: what a kernel may touch */
	if (__builtin_mul_overflow(l.depth * l.array_size - 1, l.slice_pitch,
				   &span) ||
	    __builtin_mul_overflow(l.height - 1, l.row_pitch, &last) ||
	    __builtin_add_overflow(span, last, &span) ||
	    __builtin_add_overflow(span, l.width * (uint64_t)texel, &span) ||
	    __builtin_add_overflow(span, l.offset, &span))
		return -EINVAL;

	r = check_limits(dev, &l);
	if (r < 0)
		return r;
	l.struct_size = layout->struct_size;
	memcpy(ret, &l, sizeof(l));
	if (ret_size)
		*ret_size = span;
	return 0;
}

/* The DRM formats a kernel can read as an image (plane 0, linear). */
static const struct {
	uint32_t fourcc;
	uint32_t order;
	uint32_t type;
} drm_formats[] = {
	/* DRM names the bits of a little-endian word, high to low */
	{ DRM_FORMAT_ABGR8888, ACCEL_IMAGE_ORDER_RGBA,
	  ACCEL_IMAGE_DATA_UNORM_INT8 },
	{ DRM_FORMAT_ARGB8888, ACCEL_IMAGE_ORDER_BGRA,
	  ACCEL_IMAGE_DATA_UNORM_INT8 },
	{ DRM_FORMAT_R8, ACCEL_IMAGE_ORDER_R, ACCEL_IMAGE_DATA_UNORM_INT8 },
	{ DRM_FORMAT_GR88, ACCEL_IMAGE_ORDER_RG, ACCEL_IMAGE_DATA_UNORM_INT8 },
	{ DRM_FORMAT_R16, ACCEL_IMAGE_ORDER_R, ACCEL_IMAGE_DATA_UNORM_INT16 },
	{ DRM_FORMAT_GR1616, ACCEL_IMAGE_ORDER_RG,
	  ACCEL_IMAGE_DATA_UNORM_INT16 },
	{ DRM_FORMAT_RGB565, ACCEL_IMAGE_ORDER_RGB,
	  ACCEL_IMAGE_DATA_UNORM_SHORT_565 },
	{ DRM_FORMAT_ABGR16161616, ACCEL_IMAGE_ORDER_RGBA,
	  ACCEL_IMAGE_DATA_UNORM_INT16 },
	{ DRM_FORMAT_ABGR16161616F, ACCEL_IMAGE_ORDER_RGBA,
	  ACCEL_IMAGE_DATA_HALF_FLOAT },
};

ACCEL_EXPORT int accel_image_layout_from_drm(uint32_t drm_format,
					     uint64_t modifier, uint64_t width,
					     uint64_t height, uint64_t pitch,
					     uint64_t offset,
					     struct accel_image_layout *ret)
{
	if (!ret || width == 0 || height == 0)
		return -EINVAL;
	/* tiled and compressed layouts are the driver's secret */
	if (modifier != DRM_FORMAT_MOD_LINEAR)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < ARRAY_SIZE(drm_formats); i++) {
		if (drm_formats[i].fourcc != drm_format)
			continue;
		*ret = (struct accel_image_layout){
			.struct_size = sizeof(*ret),
			.type = ACCEL_IMAGE_2D,
			.channel_order = drm_formats[i].order,
			.channel_type = drm_formats[i].type,
			.width = width,
			.height = height,
			.depth = 1,
			.array_size = 1,
			.row_pitch = pitch,
			.offset = offset,
		};
		return 0;
	}
	return -EOPNOTSUPP;
}
