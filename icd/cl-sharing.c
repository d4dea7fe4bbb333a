/* SPDX-License-Identifier: MIT */
/*
 * Which sharing extensions a device advertises, and their clGetDeviceInfo
 * queries. Each follows a libaccel capability bit, so an extension is
 * listed only where its calls can work:
 *   cl_khr_semaphore                     every device (fences)
 *   cl_khr_external_semaphore(_sync_fd)  ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT;
 *                                        export types only with _EXPORT
 *   cl_khr_external_memory(_dma_buf)     ACCEL_DEVICE_CAP_DMABUF_IMPORT
 *   cl_arm_import_memory                 ACCEL_DEVICE_CAP_USER_PTR
 *   cl_arm_import_memory_dma_buf         ACCEL_DEVICE_CAP_DMABUF_IMPORT
 */
#include "icd-sharing.h"

static bool has(cl_device_id d, uint64_t cap)
{
	return (d->u64[ACCEL_DEVICE_U64_CAPS] & cap) == cap;
}

void icd_sharing_extensions(cl_device_id d, char **ext)
{
	static const struct {
		const char *name;
		uint64_t need;
	} table[] = {
		{ "cl_khr_semaphore", 0 },
		{ "cl_khr_external_semaphore",
		  ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT },
		{ "cl_khr_external_semaphore_sync_fd",
		  ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT },
		{ "cl_khr_external_memory", ACCEL_DEVICE_CAP_DMABUF_IMPORT },
		{ "cl_khr_external_memory_dma_buf",
		  ACCEL_DEVICE_CAP_DMABUF_IMPORT },
		{ "cl_arm_import_memory", ACCEL_DEVICE_CAP_USER_PTR },
		{ "cl_arm_import_memory_dma_buf",
		  ACCEL_DEVICE_CAP_USER_PTR | ACCEL_DEVICE_CAP_DMABUF_IMPORT },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (has(d, table[i].need))
			icd_strcat(ext, " %s", table[i].name);
}

/* The one semaphore type and the handle types the queries report. */
static const cl_semaphore_type_khr types[] = {
	CL_SEMAPHORE_TYPE_BINARY_KHR,
};
static const cl_external_semaphore_handle_type_khr sync_fd[] = {
	CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
};
static const cl_external_memory_handle_type_khr dma_buf[] = {
	CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR,
};

cl_int icd_sharing_device_info(cl_device_id d, cl_device_info param,
			       size_t size, void *value, size_t *size_ret)
{
	switch (param) {
	case CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR:
		if (!has(d, ACCEL_DEVICE_CAP_DMABUF_IMPORT))
			return CL_INVALID_VALUE;
		return icd_info(size, value, size_ret, dma_buf,
				sizeof(dma_buf));
	case CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR:
		/* no images */
		if (!has(d, ACCEL_DEVICE_CAP_DMABUF_IMPORT))
			return CL_INVALID_VALUE;
		return icd_info(size, value, size_ret, NULL, 0);
	case CL_DEVICE_SEMAPHORE_TYPES_KHR:
		return icd_info(size, value, size_ret, types, sizeof(types));
	case CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR:
		if (!has(d, ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT))
			return CL_INVALID_VALUE;
		return icd_info(size, value, size_ret, sync_fd,
				sizeof(sync_fd));
	case CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR:
		if (!has(d, ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT))
			return CL_INVALID_VALUE;
		/* An empty list where no kernel driver makes our fences. */
		return icd_info(size, value, size_ret, sync_fd,
				has(d, ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT) ?
					sizeof(sync_fd) :
					0);
	default:
		return CL_INVALID_VALUE;
	}
}

/* Platform queries: what every device of the platform offers. */
cl_int icd_sharing_platform_info(cl_platform_id p, cl_platform_info param,
				 size_t size, void *value, size_t *size_ret)
{
	uint64_t need;
	bool all = true;
	cl_uint i;

	switch (param) {
	case CL_PLATFORM_SEMAPHORE_TYPES_KHR:
		return icd_info(size, value, size_ret, types, sizeof(types));
	case CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR:
		for (i = 0; i < p->n_devices; i++)
			all = all && has(p->devices[i],
					 ACCEL_DEVICE_CAP_DMABUF_IMPORT);
		return icd_info(size, value, size_ret, dma_buf,
				all ? sizeof(dma_buf) : 0);
	case CL_PLATFORM_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR:
		need = ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT;
		break;
	case CL_PLATFORM_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR:
		need = ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT |
		       ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT;
		break;
	default:
		return CL_INVALID_VALUE;
	}
	for (i = 0; i < p->n_devices; i++)
		all = all && has(p->devices[i], need);
	return icd_info(size, value, size_ret, sync_fd,
			all ? sizeof(sync_fd) : 0);
}
