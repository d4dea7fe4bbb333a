/* SPDX-License-Identifier: MIT */
/*
 * The sharing extensions: semaphores over sync_files (cl-semaphore.c) and
 * dma-buf import (cl-external-memory.c). What each device advertises
 * follows libaccel's capability bits, asked once at device set-up.
 */
#ifndef ACCEL_ICD_SHARING_H
#define ACCEL_ICD_SHARING_H

#include "icd.h"

#include <CL/cl_ext.h>

/* Newer than Debian 12's headers (OpenCL-Headers 2023.02). */
#ifndef CL_SEMAPHORE_EXPORTABLE_KHR
#define CL_SEMAPHORE_EXPORTABLE_KHR 0x2054
#endif
/* cl_khr_semaphore 1.0 renamed CL_DEVICE_HANDLE_LIST_KHR (0x2051). */
#ifndef CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR
#define CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR 0x2053
#define CL_SEMAPHORE_DEVICE_HANDLE_LIST_END_KHR 0
#endif
typedef cl_properties icd_semaphore_reimport_properties;
/* cl_khr_external_memory 1.0 (newer than Debian 12's headers). */
#ifndef CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR
#define CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR \
	0x2052
#endif

/*
 * The cl_mem_properties of clCreateBufferWithProperties(): a dma-buf
 * (CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR) in @p ret_fd (-1 if none) and
 * the number of entries with the terminating 0 in @p ret_n (0 for NULL).
 */
cl_int icd_mem_props_parse(cl_context ctx, const cl_mem_properties *props,
			   int *ret_fd, size_t *ret_n);

/*
 * The buffer of an external dma-buf @p fd for clCreateBufferWithProperties
 * (cl_khr_external_memory_dma_buf): its first @p size bytes, no copy.
 */
cl_int icd_mem_import_dmabuf(cl_context ctx, int fd, cl_mem_flags flags,
			     size_t size, void *host_ptr,
			     struct accel_buffer **ret);

/* Append " cl_khr_semaphore ..." (the sharing extensions @p d supports). */
void icd_sharing_extensions(cl_device_id d, char **ext);

/*
 * clGetDeviceInfo for the sharing extensions' queries; CL_INVALID_VALUE
 * for anything else (and for queries of extensions @p d lacks).
 */
cl_int icd_sharing_device_info(cl_device_id d, cl_device_info param,
			       size_t size, void *value, size_t *size_ret);

/* clGetPlatformInfo for the sharing queries (all devices' common part). */
cl_int icd_sharing_platform_info(cl_platform_id p, cl_platform_info param,
				 size_t size, void *value, size_t *size_ret);

/*
 * The extension entry points are declared by CL/cl_ext.h; this one is
 * newer than Debian 12's copy (cl_khr_external_semaphore_sync_fd 0.9).
 */
cl_int CL_API_CALL clReImportSemaphoreSyncFdKHR(
	cl_semaphore_khr s, icd_semaphore_reimport_properties *props, int fd);

#endif /* ACCEL_ICD_SHARING_H */
