/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_command_buffer_mutable_dispatch: the extension's ABI at version
 * 0.9.5, written out as cl-command-buffer.h does for its base. Debian 12's
 * headers have 0.9.0, whose clUpdateMutableCommandsKHR takes one
 * cl_mutable_base_config_khr and whose cl_mutable_dispatch_config_khr
 * starts with `type` and `next` (0.9.2 passes arrays of configs instead,
 * and CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR went from 1 to 0): the
 * changed types and that value have names of our own here. The rest is
 * guarded, so newer headers win (the values are the registry's).
 */
#ifndef ACCEL_ICD_MUTABLE_DISPATCH_H
#define ACCEL_ICD_MUTABLE_DISPATCH_H

#include "cl-command-buffer.h"

/* The version we implement (the CTS asks for exactly this one). */
#define ICD_MUTABLE_DISPATCH_VERSION CL_MAKE_VERSION(0, 9, 5)

#ifndef cl_khr_command_buffer_mutable_dispatch
typedef cl_bitfield cl_mutable_dispatch_fields_khr;
typedef cl_uint cl_mutable_command_info_khr;
typedef struct _cl_mutable_dispatch_arg_khr {
	cl_uint arg_index;
	size_t arg_size;
	const void *arg_value;
} cl_mutable_dispatch_arg_khr;
typedef struct _cl_mutable_dispatch_exec_info_khr {
	cl_uint param_name;
	size_t param_value_size;
	const void *param_value;
} cl_mutable_dispatch_exec_info_khr;
#endif

/* 0.9.2: no `type` and `next` */
typedef struct {
	cl_mutable_command_khr command;
	cl_uint num_args;
	cl_uint num_svm_args;
	cl_uint num_exec_infos;
	cl_uint work_dim;
	const cl_mutable_dispatch_arg_khr *arg_list;
	const cl_mutable_dispatch_arg_khr *arg_svm_list;
	const cl_mutable_dispatch_exec_info_khr *exec_info_list;
	const size_t *global_work_offset;
	const size_t *global_work_size;
	const size_t *local_work_size;
} icd_mutable_dispatch_config_khr;
typedef cl_uint icd_command_buffer_update_type_khr;
#define ICD_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR 0
typedef cl_bitfield icd_mutable_dispatch_asserts_khr;

#ifndef CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR
#define CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR (1 << 0)
#endif
#ifndef CL_COMMAND_BUFFER_MUTABLE_KHR
#define CL_COMMAND_BUFFER_MUTABLE_KHR (1 << 1)
#endif
#ifndef CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR
#define CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR (1 << 2)
#endif
#ifndef CL_INVALID_MUTABLE_COMMAND_KHR
#define CL_INVALID_MUTABLE_COMMAND_KHR -1141
#endif
#ifndef CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR
#define CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR 0x12B0
#endif
#ifndef CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR
#define CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR 0x12B1
#endif
#ifndef CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
#define CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR (1 << 0)
#define CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR (1 << 1)
#define CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR (1 << 2)
#define CL_MUTABLE_DISPATCH_ARGUMENTS_KHR (1 << 3)
#define CL_MUTABLE_DISPATCH_EXEC_INFO_KHR (1 << 4)
#endif
#ifndef CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR
#define CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR 0x12A0
#define CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR 0x12A1
#define CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR 0x12AD
#define CL_MUTABLE_DISPATCH_KERNEL_KHR 0x12A3
#define CL_MUTABLE_DISPATCH_DIMENSIONS_KHR 0x12A4
#define CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR 0x12A5
#define CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR 0x12A6
#define CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR 0x12A7
#endif
/* 0.9.3's name of CL_MUTABLE_DISPATCH_PROPERTIES_ARRAY_KHR */
#ifndef CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR
#define CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR 0x12A2
#endif
#ifndef CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B7
#define CL_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B8
#define CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR (1 << 0)
#endif
/* short */
#define ICD_NO_MORE_GROUPS                                                     \
	((cl_bitfield)CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR)
#ifndef CL_COMMAND_BUFFER_STATE_FINALIZED_KHR
#define CL_COMMAND_BUFFER_STATE_FINALIZED_KHR 2
#endif

/*
 * A mutable-dispatch: an ND-range command of a command-buffer, recorded as
 * the launch at `point` of its list. The geometry is kept as the
 * application gave it (the queries answer with it; an update replaces
 * parts of it). Freed with its command-buffer.
 */
struct _cl_mutable_command_khr {
	uint32_t magic;
	cl_command_buffer_khr cb; /* owner */
	cl_kernel kernel;         /* held: CL_MUTABLE_DISPATCH_KERNEL_KHR */
	uint32_t point;
	bool empty;               /* recorded as a command that does nothing */
	cl_mutable_dispatch_fields_khr fields;
	icd_command_properties_khr *props; /* as given, with the 0 */
	size_t n_props;
	cl_uint dim;
	size_t offset[3], global[3], local[3];
	bool have_local;
	cl_uint n_args;
	bool *unset;              /* arguments never set (0.9.5) */
	cl_uint n_unset;
	struct _cl_mutable_command_khr *next;
};

/* What CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR reports for @p d. */
cl_mutable_dispatch_fields_khr icd_mutable_dispatch_caps(cl_device_id d);

/*
 * Check the properties of clCommandNDRangeKernelKHR for @p cb: the fields
 * and asserts they give (the defaults if absent) and their length with
 * the 0 (0 for NULL).
 */
cl_int icd_mutable_parse_props(cl_command_buffer_khr cb,
			       const icd_command_properties_khr *props,
			       cl_mutable_dispatch_fields_khr *fields,
			       icd_mutable_dispatch_asserts_khr *asserts,
			       size_t *n_props);

/*
 * Record @p k over the range at the list's end, as a mutable-dispatch
 * when @p ret is not NULL; arguments not set are allowed when the fields
 * have CL_MUTABLE_DISPATCH_ARGUMENTS_KHR and @p cb is mutable. Called with
 * cb->lock held.
 */
cl_int icd_mutable_record(cl_command_buffer_khr cb,
			  const icd_command_properties_khr *props,
			  size_t n_props, cl_mutable_dispatch_fields_khr fields,
			  cl_kernel k, cl_uint dim, const size_t *offset,
			  const size_t *global, const size_t *local,
			  cl_uint n_deps, const cl_sync_point_khr *deps,
			  uint32_t *point, cl_mutable_command_khr *ret);

/* Free the mutable-dispatches of @p cb. */
void icd_mutable_free_all(cl_command_buffer_khr cb);

cl_int CL_API_CALL icd_clUpdateMutableCommandsKHR(
	cl_command_buffer_khr cb, cl_uint num_configs,
	const icd_command_buffer_update_type_khr *config_types,
	const void **configs);
cl_int CL_API_CALL icd_clGetMutableCommandInfoKHR(
	cl_mutable_command_khr command, cl_mutable_command_info_khr param,
	size_t size, void *value, size_t *size_ret);

#endif /* ACCEL_ICD_MUTABLE_DISPATCH_H */
