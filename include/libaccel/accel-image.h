/* SPDX-License-Identifier: MIT */
/**
 * @file accel-image.h
 * @brief Images: a buffer seen through a layout (type, format, size,
 *        pitches), and samplers.
 *
 * An image is not an object of its own: it is a buffer plus a struct
 * accel_image_layout saying where texel (x, y, z or layer) lies and how
 * its bytes encode a colour. So an image can live in any buffer: one
 * allocated for it, a sub-range of another, user memory or an imported
 * dma-buf (a frame from a GPU or a camera: accel_image_layout_from_drm()
 * reads its DRM format and modifier).
 *
 * Kernels take images and samplers as arguments
 * (accel_kernel_set_arg_image(), accel_kernel_set_arg_sampler()); the
 * work-group ABI they see is struct accel_wg_image (accel-wg.h).
 *
 * The numeric values of the types, channel orders and channel data types
 * are OpenCL's (CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, ...), and
 * sampler bits are OpenCL C's CLK_* values, so OpenCL code converts
 * nothing.
 *
 * Thread-safety: the functions here only read their arguments, except
 * accel_kernel_set_arg_*(), which follow the kernel's rules
 * (accel-program.h).
 */
#ifndef LIBACCEL_ACCEL_IMAGE_H
#define LIBACCEL_ACCEL_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_device;
struct accel_buffer;
struct accel_kernel;

/** Image types (struct accel_image_layout.type). */
enum accel_image_type {
	ACCEL_IMAGE_2D = 0x10F1,
	ACCEL_IMAGE_3D = 0x10F2,
	ACCEL_IMAGE_2D_ARRAY = 0x10F3,
	ACCEL_IMAGE_1D = 0x10F4,
	ACCEL_IMAGE_1D_ARRAY = 0x10F5,
	/** a 1D image over a buffer's bytes; no sampler, no filtering */
	ACCEL_IMAGE_1D_BUFFER = 0x10F6,
};

/** Channel orders (struct accel_image_layout.channel_order). */
enum accel_image_order {
	ACCEL_IMAGE_ORDER_R = 0x10B0,
	ACCEL_IMAGE_ORDER_A = 0x10B1,
	ACCEL_IMAGE_ORDER_RG = 0x10B2,
	ACCEL_IMAGE_ORDER_RA = 0x10B3,
	/** only with UNORM_SHORT_565, UNORM_SHORT_555, UNORM_INT_101010 */
	ACCEL_IMAGE_ORDER_RGB = 0x10B4,
	ACCEL_IMAGE_ORDER_RGBA = 0x10B5,
	/** only with 8-bit channel types */
	ACCEL_IMAGE_ORDER_BGRA = 0x10B6,
	/** only with 8-bit channel types */
	ACCEL_IMAGE_ORDER_ARGB = 0x10B7,
	/** only with UNORM/SNORM 8/16, HALF_FLOAT, FLOAT */
	ACCEL_IMAGE_ORDER_INTENSITY = 0x10B8,
	/** only with UNORM/SNORM 8/16, HALF_FLOAT, FLOAT */
	ACCEL_IMAGE_ORDER_LUMINANCE = 0x10B9,
	/** only with UNORM_INT16 and FLOAT (2D and 2D-array images) */
	ACCEL_IMAGE_ORDER_DEPTH = 0x10BD,
	/** sRGB-encoded UNORM_INT8; reads convert to linear */
	ACCEL_IMAGE_ORDER_sRGBA = 0x10C1,
	/** sRGB-encoded UNORM_INT8; reads convert to linear */
	ACCEL_IMAGE_ORDER_sBGRA = 0x10C2,
	/** only with 8-bit channel types */
	ACCEL_IMAGE_ORDER_ABGR = 0x10C3,
};

/** Channel data types (struct accel_image_layout.channel_type). */
enum accel_image_data {
	ACCEL_IMAGE_DATA_SNORM_INT8 = 0x10D0,
	ACCEL_IMAGE_DATA_SNORM_INT16 = 0x10D1,
	ACCEL_IMAGE_DATA_UNORM_INT8 = 0x10D2,
	ACCEL_IMAGE_DATA_UNORM_INT16 = 0x10D3,
	/** one 16-bit texel: R in bits 15:11, G 10:5, B 4:0 */
	ACCEL_IMAGE_DATA_UNORM_SHORT_565 = 0x10D4,
	/** one 16-bit texel: R in bits 14:10, G 9:5, B 4:0 */
	ACCEL_IMAGE_DATA_UNORM_SHORT_555 = 0x10D5,
	/** one 32-bit texel: R in bits 29:20, G 19:10, B 9:0 */
	ACCEL_IMAGE_DATA_UNORM_INT_101010 = 0x10D6,
	ACCEL_IMAGE_DATA_SIGNED_INT8 = 0x10D7,
	ACCEL_IMAGE_DATA_SIGNED_INT16 = 0x10D8,
	ACCEL_IMAGE_DATA_SIGNED_INT32 = 0x10D9,
	ACCEL_IMAGE_DATA_UNSIGNED_INT8 = 0x10DA,
	ACCEL_IMAGE_DATA_UNSIGNED_INT16 = 0x10DB,
	ACCEL_IMAGE_DATA_UNSIGNED_INT32 = 0x10DC,
	ACCEL_IMAGE_DATA_HALF_FLOAT = 0x10DD,
	ACCEL_IMAGE_DATA_FLOAT = 0x10DE,
	/** one 32-bit texel: R in bits 31:22, G 21:12, B 11:2, A 1:0 */
	ACCEL_IMAGE_DATA_UNORM_INT_101010_2 = 0x10E0,
};

/** A channel order and data type. */
struct accel_image_format {
	/** enum accel_image_order */
	uint32_t channel_order;
	/** enum accel_image_data */
	uint32_t channel_type;
};

/**
 * Where an image's texels lie in a buffer. Texel (x, y, z) of a 3D image
 * (or texel x of row y of layer z of an array) starts at
 * offset + z * slice_pitch + y * row_pitch + x * texel size.
 */
struct accel_image_layout {
	/** sizeof(struct accel_image_layout) as the caller knows it */
	uint32_t struct_size;
	/** enum accel_image_type */
	uint32_t type;
	/** enum accel_image_order */
	uint32_t channel_order;
	/** enum accel_image_data */
	uint32_t channel_type;
	/** texels per row, >= 1 */
	uint64_t width;
	/** rows: >= 1 for 2D, 2D-array and 3D images, 0 or 1 otherwise */
	uint64_t height;
	/** slices: >= 1 for 3D images, 0 or 1 otherwise */
	uint64_t depth;
	/** layers: >= 1 for array images, 0 or 1 otherwise */
	uint64_t array_size;
	/**
	 * bytes from one row to the next, >= width * texel size;
	 * 0: exactly that
	 */
	uint64_t row_pitch;
	/**
	 * bytes from one slice (3D) or layer (arrays) to the next,
	 * >= row_pitch * height (>= row_pitch for 1D arrays); 0: exactly that
	 */
	uint64_t slice_pitch;
	/** bytes from the buffer's start to the first texel */
	uint64_t offset;
};

/**
 * The size in bytes of one texel of @p format.
 * @param[out] ret the size (1 to 16)
 * @return 0, -EINVAL (NULL argument, an unknown or invalid combination
 *         of order and data type)
 */
int accel_image_format_get_texel_size(const struct accel_image_format *format,
				      uint32_t *ret);

/** accel_device_get_image_formats() access: kernels read the images */
#define ACCEL_IMAGE_ACCESS_READ (1u << 0)
/** accel_device_get_image_formats() access: kernels write the images */
#define ACCEL_IMAGE_ACCESS_WRITE (1u << 1)

/**
 * The formats @p dev supports for images of @p type used with @p access
 * (both bits: read_write images).
 *
 * @param n capacity of @p formats (may be 0 with @p formats NULL)
 * @param[out] formats the first min(n, count) formats
 * @return the number of formats (>= 0; 0 on a device without
 *         ACCEL_DEVICE_CAP_IMAGES), -EINVAL (NULL @p dev, unknown type,
 *         access 0 or with unknown bits, NULL @p formats with n > 0)
 */
int accel_device_get_image_formats(struct accel_device *dev, uint32_t type,
				   uint32_t access, uint32_t n,
				   struct accel_image_format *formats);

/**
 * Check @p layout against @p dev's image support and limits, and complete
 * it: zero pitches become the tight ones, height/depth/array_size that
 * do not apply become 1.
 *
 * @param[out] ret the completed layout (may be @p layout itself); its
 *             struct_size is the caller's
 * @param[out] ret_size bytes of the buffer the image spans, from the
 *             buffer's start (offset included); may be NULL
 * @return 0, -EINVAL (NULL argument, short struct_size, unknown type or
 *         format, a size of 0, a pitch below the tight one or not a
 *         multiple of the texel size, an overflow), -EOPNOTSUPP (format
 *         not supported for the type, or a device without
 *         ACCEL_DEVICE_CAP_IMAGES), -E2BIG (beyond the device's image
 *         limits)
 */
int accel_image_layout_resolve(struct accel_device *dev,
			       const struct accel_image_layout *layout,
			       struct accel_image_layout *ret,
			       uint64_t *ret_size);

/**
 * A 2D image layout for a buffer holding a frame in DRM format
 * @p drm_format (a fourcc of drm_fourcc.h) with modifier @p modifier, as
 * a GPU, display or camera exports it as a dma-buf: plane 0 at @p offset
 * with rows @p pitch bytes apart.
 *
 * Supported: DRM_FORMAT_MOD_LINEAR with ABGR8888 (RGBA, UNORM_INT8),
 * ARGB8888 (BGRA, UNORM_INT8), R8, GR88 (RG), R16, GR1616 (RG,
 * UNORM_INT16), RGB565, ABGR16161616 (RGBA, UNORM_INT16) and
 * ABGR16161616F (RGBA, HALF_FLOAT).
 *
 * @param[out] ret the layout (not yet checked against a device:
 *             accel_image_layout_resolve())
 * @return 0, -EINVAL (NULL @p ret, width or height 0), -EOPNOTSUPP (a
 *         format or modifier not listed)
 */
int accel_image_layout_from_drm(uint32_t drm_format, uint64_t modifier,
				uint64_t width, uint64_t height,
				uint64_t pitch, uint64_t offset,
				struct accel_image_layout *ret);

/**
 * Encode one colour as a texel of @p format, as a write_image*() of a
 * kernel would (OpenCL's rules: round to nearest even, saturate; sRGB
 * orders encode). @p color is float[4] for the normalized, half and
 * float types, int32_t[4] for SIGNED_INT*, uint32_t[4] for
 * UNSIGNED_INT*, in R, G, B, A order whatever the channel order
 * (DEPTH reads only the first).
 *
 * @param[out] texel accel_image_format_get_texel_size() bytes
 * @return 0, -EINVAL (NULL argument, invalid format)
 */
int accel_image_pack_texel(const struct accel_image_format *format,
			   const void *color, void *texel);

/**
 * Decode one texel of @p format as a read_image*() without filtering
 * would: into float[4], int32_t[4] or uint32_t[4] as for
 * accel_image_pack_texel(), missing channels 0 and alpha 1.
 * @return 0, -EINVAL (NULL argument, invalid format)
 */
int accel_image_unpack_texel(const struct accel_image_format *format,
			     const void *texel, void *color);

/**
 * Set an image argument: the kernel sees @p buf through @p layout, which
 * is resolved against the kernel's device (accel_image_layout_resolve())
 * and copied. The image's type must be the argument's (an image2d_t
 * argument takes ACCEL_IMAGE_2D; an image2d_depth_t one takes a 2D image
 * of ACCEL_IMAGE_ORDER_DEPTH). The kernel holds a reference on @p buf as
 * for accel_kernel_set_arg_buffer().
 *
 * @return 0, -EINVAL (NULL argument, a layout
 *         accel_image_layout_resolve() refuses, or one reaching past the
 *         end of @p buf, a buffer of another context), -ERANGE (index),
 *         -ENOTTY (argument is not an image), -EOPNOTSUPP (format not
 *         supported), -E2BIG (beyond the device's limits), -EXDEV,
 *         -ENODEV, -ENOMEM as for accel_kernel_set_arg_buffer()
 */
int accel_kernel_set_arg_image(struct accel_kernel *kernel, uint32_t index,
			       struct accel_buffer *buf,
			       const struct accel_image_layout *layout);

/**
 * Set a sampler argument to @p sampler, ACCEL_SAMPLER_* bits
 * (accel-wg.h: OpenCL C's CLK_* values): one addressing mode, one filter
 * and optionally normalized coordinates.
 * @return 0, -EINVAL (NULL @p kernel, unknown bits, no filter or two),
 *         -ERANGE (index), -ENOTTY (argument is not a sampler)
 */
int accel_kernel_set_arg_sampler(struct accel_kernel *kernel, uint32_t index,
				 uint32_t sampler);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_IMAGE_H */
