/* SPDX-License-Identifier: MIT */
/*
 * accel-info's property tables: what the text and JSON outputs show, in
 * which order, under which label and key.
 */
#include <string.h>

#include "accel-info.h"

/*
 * Scalar u64 properties in output order. The vector widths and the
 * work-item sizes are grouped (arrays/objects) and listed separately.
 * A property is only in one table, so every ACCEL_DEVICE_U64_* appears
 * exactly once in the output.
 */
const struct u64_prop u64_props[] = {
	{ ACCEL_DEVICE_U64_VENDOR_ID, "vendor_id", "Vendor ID", FMT_HEX16 },
	{ ACCEL_DEVICE_U64_DEVICE_ID, "device_id", "Device ID", FMT_HEX16 },
	{ ACCEL_DEVICE_U64_COMPUTE_UNITS, "compute_units", "Compute units",
	  FMT_NUM },
	{ ACCEL_DEVICE_U64_CLOCK_MHZ, "clock_mhz", "Max clock", FMT_MHZ },
	{ ACCEL_DEVICE_U64_NUMA_NODE, "numa_node", "NUMA node", FMT_NUMA },
	{ ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE, "global_mem_size", "Global memory",
	  FMT_BYTES },
	{ ACCEL_DEVICE_U64_LOCAL_MEM_SIZE, "local_mem_size",
	  "Local memory per work-group", FMT_BYTES },
	{ ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE, "private_mem_size",
	  "Private memory (stack)", FMT_BYTES },
	{ ACCEL_DEVICE_U64_MAX_ALLOC_SIZE, "max_alloc_size",
	  "Max buffer size", FMT_BYTES },
	{ ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN, "mem_base_addr_align",
	  "Sub-buffer alignment", FMT_BYTES },
	{ ACCEL_DEVICE_U64_CACHE_LINE_SIZE, "cache_line_size",
	  "Cache line", FMT_BYTES },
	{ ACCEL_DEVICE_U64_CACHE_SIZE, "cache_size",
	  "Cache (last level)", FMT_BYTES },
	{ ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE, "max_work_group_size",
	  "Max work-group size", FMT_NUM },
	{ ACCEL_DEVICE_U64_SUB_GROUP_SIZE, "sub_group_size",
	  "Sub-group size", FMT_NUM },
	{ ACCEL_DEVICE_U64_SUB_GROUP_SIZES, "sub_group_sizes",
	  "Sub-group sizes (required)", FMT_POW2S },
	{ ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS, "max_work_item_dims",
	  "Max work-item dimensions", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_KERNEL_ARGS, "max_kernel_args",
	  "Max kernel arguments", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_ARG_BYTES, "max_arg_bytes",
	  "Max argument bytes", FMT_BYTES },
	{ ACCEL_DEVICE_U64_TIMER_RESOLUTION_NS, "timer_resolution_ns",
	  "Timer resolution", FMT_NS },
	{ ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE, "printf_buffer_size",
	  "printf buffer", FMT_BYTES },
	{ ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH, "image2d_max_width",
	  "Image 1D/2D max width", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE2D_MAX_HEIGHT, "image2d_max_height",
	  "Image 2D max height", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE3D_MAX_WIDTH, "image3d_max_width",
	  "Image 3D max width", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE3D_MAX_HEIGHT, "image3d_max_height",
	  "Image 3D max height", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE3D_MAX_DEPTH, "image3d_max_depth",
	  "Image 3D max depth", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE, "image_max_buffer_size",
	  "Image 1D buffer max texels", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE_MAX_ARRAY_SIZE, "image_max_array_size",
	  "Image array max layers", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE_PITCH_ALIGNMENT, "image_pitch_alignment",
	  "Image pitch align (texels)", FMT_NUM },
	{ ACCEL_DEVICE_U64_IMAGE_BASE_ADDRESS_ALIGNMENT,
	  "image_base_address_alignment", "Image offset alignment",
	  FMT_BYTES },
	{ ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS, "max_read_image_args",
	  "Max read image arguments", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_WRITE_IMAGE_ARGS, "max_write_image_args",
	  "Max write image arguments", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_SAMPLERS, "max_samplers", "Max samplers",
	  FMT_NUM },
};

const enum accel_device_u64 work_item_props[] = {
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X,
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y,
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z,
};

const char *const vector_types[] = {
	"char", "short", "int", "long", "float", "double", "half",
};

const enum accel_device_u64 preferred_width_props[] = {
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_CHAR,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_SHORT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_INT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_LONG,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_FLOAT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_DOUBLE,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_HALF,
};

const enum accel_device_u64 native_width_props[] = {
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_CHAR,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_SHORT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_INT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_LONG,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_FLOAT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_DOUBLE,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_HALF,
};

_Static_assert(ARRAY_SIZE(vector_types) == ARRAY_SIZE(preferred_width_props),
	       "one preferred width per vector type");
_Static_assert(ARRAY_SIZE(vector_types) == ARRAY_SIZE(native_width_props),
	       "one native width per vector type");

/* String properties in output order (BUILT_IN_KERNELS is a list, below). */
const struct string_prop string_props[] = {
	{ ACCEL_DEVICE_STRING_NAME, "name", "Name" },
	{ ACCEL_DEVICE_STRING_VENDOR, "vendor", "Vendor" },
	{ ACCEL_DEVICE_STRING_DRIVER, "driver", "Driver" },
	{ ACCEL_DEVICE_STRING_DRIVER_VERSION, "driver_version",
	  "Driver version" },
	{ ACCEL_DEVICE_STRING_BACKEND, "backend", "Backend" },
	{ ACCEL_DEVICE_STRING_DEVNODE, "devnode", "Device node" },
	{ ACCEL_DEVICE_STRING_SYSPATH, "syspath", "Sysfs path" },
	{ ACCEL_DEVICE_STRING_CODE_TARGET, "code_target", "Code target" },
	{ ACCEL_DEVICE_STRING_COMPILER, "compiler", "Compiler" },
};

/* Capability names; stable, they are part of the JSON schema. */
const char *const cap_names[] = {
	[0] = "dmabuf_export",
	[1] = "dmabuf_import",
	[2] = "sync_file_export",
	[3] = "sync_file_import",
	[4] = "compiler",
	[5] = "native_kernels",
	[6] = "built_in_kernels",
	[7] = "fp64",
	[8] = "host_unified_memory",
	[9] = "user_ptr",
	[10] = "fp16",
	[11] = "il",
	[12] = "host_svm",
	[13] = "images",
};

_Static_assert(ACCEL_DEVICE_CAP_IMAGES == 1u << 13,
	       "cap_names[] follows the ACCEL_DEVICE_CAP_* bits");

const char *info_type_name(uint64_t type)
{
	switch (type) {
	case ACCEL_DEVICE_TYPE_CPU:
		return "cpu";
	case ACCEL_DEVICE_TYPE_ACCELERATOR:
		return "accelerator";
	case ACCEL_DEVICE_TYPE_GPU:
		return "gpu";
	default:
		return "unknown";
	}
}

/*
 * Walk a ';'-separated list: returns the next non-empty item (not
 * NUL-terminated, *len bytes) or NULL at the end.
 */
const char *info_list_next(const char **cursor, size_t *len)
{
	const char *p = *cursor;

	while (p && *p == ';')
		p++;
	if (!p || !*p)
		return NULL;
	*len = strcspn(p, ";");
	*cursor = p + *len;
	return p;
}

/* Candidate string properties in output order, with their JSON keys. */
const struct cand_string_prop cand_string_props[] = {
	{ ACCEL_CANDIDATE_STRING_SYSNAME, "sysname", "Name" },
	{ ACCEL_CANDIDATE_STRING_SUBSYSTEM, "subsystem", "Subsystem" },
	{ ACCEL_CANDIDATE_STRING_DEVNODE, "devnode", "Device node" },
	{ ACCEL_CANDIDATE_STRING_RENDER_DEVNODE, "render_devnode",
	  "Render node" },
	{ ACCEL_CANDIDATE_STRING_DRIVER, "driver", "Driver" },
	{ ACCEL_CANDIDATE_STRING_BUS, "bus", "Bus" },
	{ ACCEL_CANDIDATE_STRING_PCI_SLOT, "pci_slot", "PCI slot" },
	{ ACCEL_CANDIDATE_STRING_SYSPATH, "syspath", "Sysfs path" },
	{ ACCEL_CANDIDATE_STRING_BACKEND, "backend", "Backend" },
	{ ACCEL_CANDIDATE_STRING_NODE_GROUP, "node_group", "Node group" },
	{ ACCEL_CANDIDATE_STRING_REASON_MESSAGE, "message", "Diagnosis" },
};

const size_t n_u64_props = ARRAY_SIZE(u64_props);
const size_t n_work_item_props = ARRAY_SIZE(work_item_props);
const size_t n_vector_types = ARRAY_SIZE(vector_types);
const size_t n_preferred_width_props = ARRAY_SIZE(preferred_width_props);
const size_t n_native_width_props = ARRAY_SIZE(native_width_props);
const size_t n_string_props = ARRAY_SIZE(string_props);
const size_t n_cap_names = ARRAY_SIZE(cap_names);
const size_t n_cand_string_props = ARRAY_SIZE(cand_string_props);
