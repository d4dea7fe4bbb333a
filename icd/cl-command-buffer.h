/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_command_buffer: the extension's ABI as its specification gives it
 * at version 0.9.8, written out here because Debian 12's OpenCL headers
 * (2023.02) predate it: from 0.9.5 every clCommand*KHR function takes a
 * `const cl_command_properties_khr *properties` after the queue. Each
 * definition is guarded, so newer headers that have it win (the values
 * are the registry's, the same in both).
 *
 * The entry points have names of our own (icd_clCommandCopyBufferKHR,
 * ...): a header of either age declares prototypes under the real names,
 * and the old ones have other signatures. icd-dispatch.c hands them out
 * under the real names.
 */
#ifndef ACCEL_ICD_COMMAND_BUFFER_H
#define ACCEL_ICD_COMMAND_BUFFER_H

#include "icd.h"

#include <CL/cl_ext.h>

/* The version we implement. */
#define ICD_COMMAND_BUFFER_VERSION CL_MAKE_VERSION(0, 9, 8)

/* Types (Debian 12's headers have all but the command properties). */
#ifndef cl_khr_command_buffer
typedef cl_bitfield cl_device_command_buffer_capabilities_khr;
typedef struct _cl_command_buffer_khr *cl_command_buffer_khr;
typedef cl_uint cl_sync_point_khr;
typedef cl_uint cl_command_buffer_info_khr;
typedef cl_uint cl_command_buffer_state_khr;
typedef cl_properties cl_command_buffer_properties_khr;
typedef cl_bitfield cl_command_buffer_flags_khr;
typedef struct _cl_mutable_command_khr *cl_mutable_command_khr;
#endif
/* 0.9.5: no header has a macro to test for it; ours has its own name. */
typedef cl_properties icd_command_properties_khr;

#ifndef CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR 0x12A9
#endif
#ifndef CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR 0x12AA
#endif
#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif
#ifndef CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR
#define CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR (1 << 0)
#endif
#ifndef CL_COMMAND_BUFFER_FLAGS_KHR
#define CL_COMMAND_BUFFER_FLAGS_KHR 0x1293
#endif
#ifndef CL_INVALID_COMMAND_BUFFER_KHR
#define CL_INVALID_COMMAND_BUFFER_KHR -1138
#endif
#ifndef CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
#define CL_INVALID_SYNC_POINT_WAIT_LIST_KHR -1139
#endif
#ifndef CL_INCOMPATIBLE_COMMAND_QUEUE_KHR
#define CL_INCOMPATIBLE_COMMAND_QUEUE_KHR -1140
#endif
#ifndef CL_COMMAND_BUFFER_QUEUES_KHR
#define CL_COMMAND_BUFFER_QUEUES_KHR 0x1294
#define CL_COMMAND_BUFFER_NUM_QUEUES_KHR 0x1295
#define CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR 0x1296
#define CL_COMMAND_BUFFER_STATE_KHR 0x1297
#define CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR 0x1298
#endif
#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif
#ifndef CL_COMMAND_BUFFER_STATE_RECORDING_KHR
#define CL_COMMAND_BUFFER_STATE_RECORDING_KHR 0
#define CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR 1
#endif
#ifndef CL_COMMAND_COMMAND_BUFFER_KHR
#define CL_COMMAND_COMMAND_BUFFER_KHR 0x12A8
#endif

/* Not in icd.h's enum: command-buffers manage their own lifetime here. */
#define COMMAND_BUFFER_MAGIC 0x4143424du /* "ACBM" */

struct _cl_mutable_command_khr;

struct _cl_command_buffer_khr {
	struct icd_object obj;
	cl_command_queue queue;       /* held */
	struct accel_cmdlist *list;
	cl_command_buffer_properties_khr *props; /* as given, with the 0 */
	size_t n_props;
	cl_command_buffer_flags_khr flags;
	/* CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR */
	bool assert_no_more_groups;
	pthread_mutex_t lock;         /* recording, finalizing, updates */
	bool finalized;
	/* cl-mutable-dispatch.c: ND-range commands, those with unset args */
	struct _cl_mutable_command_khr *mutables;
	size_t n_deferred;
};

bool icd_command_buffer_valid(cl_command_buffer_khr cb);

/* The common tail of every recording call. */
#define ICD_CB_TAIL                                                            \
	cl_uint num_sync_points, const cl_sync_point_khr *sync_points,         \
		cl_sync_point_khr *sync_point,                                 \
		cl_mutable_command_khr *mutable_handle

cl_command_buffer_khr CL_API_CALL icd_clCreateCommandBufferKHR(
	cl_uint num_queues, const cl_command_queue *queues,
	const cl_command_buffer_properties_khr *properties,
	cl_int *errcode_ret);
cl_int CL_API_CALL icd_clFinalizeCommandBufferKHR(cl_command_buffer_khr cb);
cl_int CL_API_CALL icd_clRetainCommandBufferKHR(cl_command_buffer_khr cb);
cl_int CL_API_CALL icd_clReleaseCommandBufferKHR(cl_command_buffer_khr cb);
cl_int CL_API_CALL icd_clEnqueueCommandBufferKHR(
	cl_uint num_queues, cl_command_queue *queues, cl_command_buffer_khr cb,
	cl_uint n, const cl_event *list, cl_event *event);
cl_int CL_API_CALL icd_clGetCommandBufferInfoKHR(
	cl_command_buffer_khr cb, cl_command_buffer_info_khr param,
	size_t size, void *value, size_t *size_ret);
cl_int CL_API_CALL icd_clCommandBarrierWithWaitListKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandCopyBufferKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem dst,
	size_t src_offset, size_t dst_offset, size_t size, ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandCopyBufferRectKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem dst,
	const size_t *src_origin, const size_t *dst_origin,
	const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
	size_t dst_row_pitch, size_t dst_slice_pitch, ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandCopyBufferToImageKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem image,
	size_t src_offset, const size_t *dst_origin, const size_t *region,
	ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandCopyImageKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem dst,
	const size_t *src_origin, const size_t *dst_origin,
	const size_t *region, ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandCopyImageToBufferKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem image, cl_mem dst,
	const size_t *src_origin, const size_t *region, size_t dst_offset,
	ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandFillBufferKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem m, const void *pattern,
	size_t pattern_size, size_t offset, size_t size, ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandFillImageKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem image,
	const void *color, const size_t *origin, const size_t *region,
	ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandNDRangeKernelKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_kernel k, cl_uint dim,
	const size_t *offset, const size_t *global, const size_t *local,
	ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandSVMMemcpyKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, void *dst, const void *src,
	size_t size, ICD_CB_TAIL);
cl_int CL_API_CALL icd_clCommandSVMMemFillKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, void *ptr,
	const void *pattern, size_t pattern_size, size_t size, ICD_CB_TAIL);

/* The device queries of the extension; CL_INVALID_VALUE for others. */
cl_int icd_command_buffer_device_info(cl_device_id d, cl_device_info param,
				      size_t size, void *value,
				      size_t *size_ret);

#endif /* ACCEL_ICD_COMMAND_BUFFER_H */
