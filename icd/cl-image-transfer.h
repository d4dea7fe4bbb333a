/* SPDX-License-Identifier: MIT */
/*
 * The checks and commands of the image transfers, shared by their enqueue
 * versions (cl-image-transfer.c) and cl_khr_command_buffer's recording
 * calls (cl-command-buffer.c).
 */
#ifndef ACCEL_ICD_CL_IMAGE_TRANSFER_H
#define ACCEL_ICD_CL_IMAGE_TRANSFER_H

#include "icd.h"

/*
 * The byte box of texels @p origin to @p origin + @p region of image
 * @p m (its buffer's bytes [start, end)), with the region in bytes, rows,
 * slices; CL_INVALID_VALUE for a box outside the image, a region with a 0
 * or an origin or region a type lacks (origin 0, region 1 there).
 */
cl_int icd_image_box(cl_mem m, const size_t *origin, const size_t *region,
		     struct icd_rect *r, size_t bregion[3], size_t *start,
		     size_t *end);

/*
 * clEnqueueCopyImage's checks past the objects (valid images of one
 * context) for a device @p dev, and the command (icd_rect_run()).
 */
cl_int icd_image_copy_prepare(cl_device_id dev, cl_mem src, cl_mem dst,
			      const size_t *src_origin,
			      const size_t *dst_origin, const size_t *region,
			      struct icd_rect_cmd **ret);
/* The same for a copy between @p image and buffer @p buf. */
cl_int icd_image_buffer_prepare(cl_device_id dev, cl_mem image, cl_mem buf,
				const size_t *origin, const size_t *region,
				size_t offset, bool to_buffer,
				struct icd_rect_cmd **ret);
/* clEnqueueFillImage's: a host function's data for icd_image_fill_run(). */
cl_int icd_image_fill_prepare(cl_device_id dev, cl_mem m, const void *color,
			      const size_t *origin, const size_t *region,
			      void **ret);
int icd_image_fill_run(void *c);
void icd_image_fill_free(void *c);

#endif
