/* SPDX-License-Identifier: MIT */
/*
 * Devices: libaccel devices that can run kernels, with their properties
 * translated into OpenCL's. Features a device lacks (images, SVM,
 * sub-groups) and those libaccel lacks (pipes, device-side enqueue) are
 * reported absent, as OpenCL 3.0 allows.
 */
#include <stdlib.h>
#include <string.h>

#include "icd.h"
#include "icd-sharing.h"
#include "cl-mutable-dispatch.h"

/* OpenCL C extensions the compiler module implements (compiler-stub/). */
static const char compiler_extensions[] =
	"cl_khr_byte_addressable_store"
	" cl_khr_global_int32_base_atomics"
	" cl_khr_global_int32_extended_atomics"
	" cl_khr_local_int32_base_atomics"
	" cl_khr_local_int32_extended_atomics"
	" cl_khr_int64_base_atomics"
	" cl_khr_int64_extended_atomics";

static const char device_version[] = "OpenCL 3.0 libaccel";
/* The highest OpenCL C 1.x version, as OpenCL 3.0 asks. */
static const char opencl_c_version[] = "OpenCL C 1.2 libaccel";
static const char no_conformance[] = "v0000-01-01-00";

static const struct {
	const char *name;
	cl_version version;
} opencl_c_versions[] = {
	{ "OpenCL C", CL_MAKE_VERSION(1, 0, 0) },
	{ "OpenCL C", CL_MAKE_VERSION(1, 1, 0) },
	{ "OpenCL C", CL_MAKE_VERSION(1, 2, 0) },
	{ "OpenCL C", CL_MAKE_VERSION(3, 0, 0) },
};

static cl_device_type device_type(uint64_t type)
{
	switch (type) {
	case ACCEL_DEVICE_TYPE_CPU:
		return CL_DEVICE_TYPE_CPU;
	case ACCEL_DEVICE_TYPE_GPU:
		return CL_DEVICE_TYPE_GPU;
	default:
		return CL_DEVICE_TYPE_ACCELERATOR;
	}
}

int icd_device_init(cl_platform_id p, struct accel_device *dev,
		    cl_device_id *ret)
{
	cl_device_id d = calloc(1, sizeof(*d));
	const char *driver = "";
	uint32_t i;
	int r = 0;

	if (!d)
		return -1;
	icd_object_init(&d->obj, p, ICD_MAGIC_DEVICE);
	d->platform = p;
	d->dev = accel_device_ref(dev);
	for (i = 0; i < ACCEL_DEVICE_U64_COUNT && r == 0; i++)
		r = accel_device_query_u64(dev, i, &d->u64[i]);
	if (r == 0)
		r = accel_device_query_string(dev, ACCEL_DEVICE_STRING_NAME,
					      &d->name);
	if (r == 0)
		r = accel_device_query_string(dev, ACCEL_DEVICE_STRING_VENDOR,
					      &d->vendor);
	if (r == 0)
		r = accel_device_query_string(dev,
					      ACCEL_DEVICE_STRING_DRIVER_VERSION,
					      &d->driver_version);
	if (r == 0)
		r = accel_device_query_string(dev, ACCEL_DEVICE_STRING_DRIVER,
					      &driver);
	if (r == 0)
		r = accel_device_query_string(dev,
					      ACCEL_DEVICE_STRING_BUILT_IN_KERNELS,
					      &d->built_in_kernels);
	if (r < 0) {
		icd_device_free(d);
		return -1;
	}
	d->type = device_type(d->u64[ACCEL_DEVICE_U64_TYPE]);
	d->compiler = d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_COMPILER;

	d->extensions = strdup("cl_khr_extended_versioning");
	if (d->compiler)
		icd_strcat(&d->extensions, " %s", compiler_extensions);
	if (d->compiler && (d->u64[ACCEL_DEVICE_U64_CAPS] &
			    ACCEL_DEVICE_CAP_FP64))
		icd_strcat(&d->extensions, " cl_khr_fp64");
	if (d->compiler && (d->u64[ACCEL_DEVICE_U64_CAPS] &
			    ACCEL_DEVICE_CAP_FP16))
		icd_strcat(&d->extensions, " cl_khr_fp16");
	/*
	 * compiler-stub/builtins/sub-group*.cl, as the compiler declares them
	 * (frontend/options.c), on OpenCL C 3.0's __opencl_c_subgroups; with
	 * independent forward progress, which cl_khr_subgroups promises.
	 */
	if (d->compiler && d->u64[ACCEL_DEVICE_U64_SUB_GROUP_SIZE])
		icd_strcat(&d->extensions, " cl_khr_subgroups "
			   "cl_khr_subgroup_extended_types "
			   "cl_khr_subgroup_shuffle "
			   "cl_khr_subgroup_shuffle_relative "
			   "cl_khr_subgroup_clustered_reduce "
			   "cl_khr_subgroup_rotate "
			   "cl_khr_subgroup_ballot "
			   "cl_khr_subgroup_non_uniform_vote "
			   "cl_khr_subgroup_non_uniform_arithmetic");
	/*
	 * intel_reqd_sub_group_size for the sizes of
	 * ACCEL_DEVICE_U64_SUB_GROUP_SIZES. Not cl_intel_subgroups, which
	 * the compiler implements (sub-group-intel.cl) but which clients
	 * take as the sign of cheap shuffles: here each costs a work-group
	 * barrier pair, and their Intel paths (OpenCV's intel_gemm) would
	 * be far slower than their generic ones.
	 */
	if (d->compiler && d->u64[ACCEL_DEVICE_U64_SUB_GROUP_SIZE] &&
	    d->u64[ACCEL_DEVICE_U64_SUB_GROUP_SIZES])
		icd_strcat(&d->extensions, " cl_intel_required_subgroup_size");
	if (d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IL)
		icd_strcat(&d->extensions, " cl_khr_il_program");
	/* images (cl-image.c): from buffers, 3D writes, depth formats */
	if (d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IMAGES)
		icd_strcat(&d->extensions, " cl_khr_image2d_from_buffer"
			   " cl_khr_3d_image_writes cl_khr_depth_images");
	/* Semaphores and dma-buf import, where the device can (cl-sharing.c). */
	icd_sharing_extensions(d, &d->extensions);
	/* on libaccel's command lists (cl-command-buffer.c) */
	icd_strcat(&d->extensions, " cl_khr_command_buffer"
		   " cl_khr_command_buffer_mutable_dispatch");
	/* "libaccel 0.1.0 (cpu 0.1.0)": the runtime, then the driver. */
	icd_strcat(&d->driver_version_full, "%s (%s %s)", accel_get_version(),
		   driver, d->driver_version);
	if (!d->extensions || !d->driver_version_full) {
		icd_device_free(d);
		return -1;
	}
	*ret = d;
	return 0;
}

void icd_device_free(cl_device_id d)
{
	if (!d)
		return;
	accel_device_unref(d->dev);
	free(d->extensions);
	free(d->driver_version_full);
	d->obj.magic = ICD_MAGIC_FREED;
	free(d);
}

#define VALID_TYPES                                                            \
	(CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |    \
	 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM)

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id p, cl_device_type type,
				  cl_uint num_entries, cl_device_id *devices,
				  cl_uint *num_devices)
{
	cl_uint i, n = 0;

	if (!p)
		p = icd_platform_get();
	if (!icd_platform_valid(p))
		return CL_INVALID_PLATFORM;
	/* no type bit at all is no valid type either */
	if (type == 0 || (type != CL_DEVICE_TYPE_ALL &&
			  (type & ~(cl_device_type)VALID_TYPES)))
		return CL_INVALID_DEVICE_TYPE;
	if ((num_entries == 0 && devices) || (!devices && !num_devices))
		return CL_INVALID_VALUE;

	for (i = 0; i < p->n_devices; i++) {
		cl_device_id d = p->devices[i];
		bool match = type == CL_DEVICE_TYPE_ALL ||
			     (type & d->type) ||
			     ((type & CL_DEVICE_TYPE_DEFAULT) && i == 0);

		if (!match)
			continue;
		if (devices && n < num_entries)
			devices[n] = d;
		n++;
	}
	if (num_devices)
		*num_devices = n;
	return n ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

static cl_int info_opencl_c_versions(size_t size, void *value,
				     size_t *size_ret)
{
	cl_name_version nv[ICD_ARRAY_SIZE(opencl_c_versions)];
	size_t i;

	memset(nv, 0, sizeof(nv));
	for (i = 0; i < ICD_ARRAY_SIZE(nv); i++) {
		strcpy(nv[i].name, opencl_c_versions[i].name);
		nv[i].version = opencl_c_versions[i].version;
	}
	return icd_info(size, value, size_ret, nv, sizeof(nv));
}

/*
 * The optional atomics the compiler defines for OpenCL C 3.0
 * (compiler-stub/frontend/options.c): every order and scope, x86 locked
 * instructions being sequentially consistent machine-wide. The memory and
 * fence capabilities say the same, the CTS checks that they agree.
 */
static const char *const atomic_features[] = {
	"__opencl_c_atomic_order_acq_rel",
	"__opencl_c_atomic_order_seq_cst",
	"__opencl_c_atomic_scope_device",
	"__opencl_c_atomic_scope_all_devices",
};

#define ATOMIC_CAPABILITIES                                                    \
	(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |     \
	 CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |  \
	 CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES)

static cl_int info_opencl_c_features(cl_device_id d, size_t size,
				     void *value, size_t *size_ret)
{
	cl_name_version nv[10 + ICD_ARRAY_SIZE(atomic_features)];
	size_t i, n = 0;

	memset(nv, 0, sizeof(nv));
	if (d->compiler) {
		/* 64-bit integers are required of a full profile device. */
		strcpy(nv[n].name, "__opencl_c_int64");
		nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		if (d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_FP64) {
			strcpy(nv[n].name, "__opencl_c_fp64");
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		}
		if (d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_FP16) {
			strcpy(nv[n].name, "__opencl_c_fp16");
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		}
		for (i = 0; i < ICD_ARRAY_SIZE(atomic_features); i++) {
			strcpy(nv[n].name, atomic_features[i]);
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		}
		/* Variables in the program's own data, per program object. */
		strcpy(nv[n].name, "__opencl_c_program_scope_global_variables");
		nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		/* to_global() and friends: compiler-stub/lower/wg-generic.c */
		strcpy(nv[n].name, "__opencl_c_generic_address_space");
		nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		/* work_group_reduce_add() and friends: wg-collective.cl */
		strcpy(nv[n].name,
		       "__opencl_c_work_group_collective_functions");
		nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		/* sub_group_reduce_add() and friends: sub-group.cl */
		if (d->u64[ACCEL_DEVICE_U64_SUB_GROUP_SIZE]) {
			strcpy(nv[n].name, "__opencl_c_subgroups");
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		}
		/* read_image*() and friends: compiler-stub's image built-ins */
		if (icd_device_has_images(d)) {
			strcpy(nv[n].name, "__opencl_c_images");
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
			strcpy(nv[n].name, "__opencl_c_read_write_images");
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
			strcpy(nv[n].name, "__opencl_c_3d_image_writes");
			nv[n++].version = CL_MAKE_VERSION(3, 0, 0);
		}
	}
	return icd_info(size, value, size_ret, nv, n * sizeof(nv[0]));
}

static cl_version built_in_kernel_version(const char *name _unused_)
{
	return CL_MAKE_VERSION(1, 0, 0);
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info param,
				   size_t size, void *value, size_t *size_ret)
{
	const uint64_t *u = d ? d->u64 : NULL;
	bool fp64, fp16;

	if (!icd_object_valid(d, ICD_MAGIC_DEVICE))
		return CL_INVALID_DEVICE;
	fp64 = d->compiler && (u[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_FP64);
	fp16 = d->compiler && (u[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_FP16);

#define UINT(v) icd_info_uint(size, value, size_ret, (cl_uint)(v))
#define ULONG(v) icd_info_ulong(size, value, size_ret, (cl_ulong)(v))
#define SIZE(v) icd_info_size(size, value, size_ret, (size_t)(v))
#define BOOL(v) icd_info_bool(size, value, size_ret, (v))
#define STRING(v) icd_info_string(size, value, size_ret, (v))
#define U64(p) (u[ACCEL_DEVICE_U64_##p])

	switch (param) {
	case CL_DEVICE_TYPE:
		return ULONG(d->type);
	case CL_DEVICE_VENDOR_ID:
		return UINT(U64(VENDOR_ID));
	case CL_DEVICE_MAX_COMPUTE_UNITS:
		return UINT(ICD_MAX(U64(COMPUTE_UNITS), 1));
	case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
		return UINT(U64(MAX_WORK_ITEM_DIMS));
	case CL_DEVICE_MAX_WORK_GROUP_SIZE:
		return SIZE(U64(MAX_WORK_GROUP_SIZE));
	case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
		size_t s[3] = { U64(MAX_WORK_ITEM_SIZE_X),
				U64(MAX_WORK_ITEM_SIZE_Y),
				U64(MAX_WORK_ITEM_SIZE_Z) };

		return icd_info(size, value, size_ret, s, sizeof(s));
	}
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
		return UINT(U64(PREFERRED_VECTOR_WIDTH_CHAR));
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
		return UINT(U64(PREFERRED_VECTOR_WIDTH_SHORT));
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
		return UINT(U64(PREFERRED_VECTOR_WIDTH_INT));
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
		return UINT(U64(PREFERRED_VECTOR_WIDTH_LONG));
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
		return UINT(U64(PREFERRED_VECTOR_WIDTH_FLOAT));
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
		return UINT(fp64 ? U64(PREFERRED_VECTOR_WIDTH_DOUBLE) : 0);
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
		return UINT(fp16 ? U64(PREFERRED_VECTOR_WIDTH_HALF) : 0);
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
		return UINT(U64(NATIVE_VECTOR_WIDTH_CHAR));
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
		return UINT(U64(NATIVE_VECTOR_WIDTH_SHORT));
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
		return UINT(U64(NATIVE_VECTOR_WIDTH_INT));
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
		return UINT(U64(NATIVE_VECTOR_WIDTH_LONG));
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
		return UINT(U64(NATIVE_VECTOR_WIDTH_FLOAT));
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
		return UINT(fp64 ? U64(NATIVE_VECTOR_WIDTH_DOUBLE) : 0);
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
		return UINT(fp16 ? U64(NATIVE_VECTOR_WIDTH_HALF) : 0);
	case CL_DEVICE_MAX_CLOCK_FREQUENCY:
		return UINT(U64(CLOCK_MHZ));
	case CL_DEVICE_ADDRESS_BITS:
		return UINT(sizeof(void *) * 8);
	case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
		return ULONG(U64(MAX_ALLOC_SIZE));
	case CL_DEVICE_GLOBAL_MEM_SIZE:
		return ULONG(U64(GLOBAL_MEM_SIZE));
	case CL_DEVICE_MAX_PARAMETER_SIZE:
		/*
		 * OpenCL has no argument count limit, libaccel has: promise
		 * only what that many 8-byte arguments fill.
		 */
		return SIZE(ICD_MIN(U64(MAX_ARG_BYTES),
				    U64(MAX_KERNEL_ARGS) * sizeof(cl_long)));
	case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
		/* in bits */
		return UINT(U64(MEM_BASE_ADDR_ALIGN) * 8);
	case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
		return UINT(128); /* long16, the largest type */
	case CL_DEVICE_SINGLE_FP_CONFIG:
		return ULONG(CL_FP_DENORM | CL_FP_INF_NAN |
			     CL_FP_ROUND_TO_NEAREST);
	case CL_DEVICE_DOUBLE_FP_CONFIG:
		/* what cl_khr_fp64 requires; host doubles provide it */
		return ULONG(fp64 ? CL_FP_FMA | CL_FP_ROUND_TO_NEAREST |
					    CL_FP_ROUND_TO_ZERO |
					    CL_FP_ROUND_TO_INF | CL_FP_INF_NAN |
					    CL_FP_DENORM :
				    0);
	case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
		return UINT(U64(CACHE_LINE_SIZE) ? CL_READ_WRITE_CACHE :
						   CL_NONE);
	case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
		return UINT(U64(CACHE_LINE_SIZE));
	case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
		return ULONG(U64(CACHE_SIZE));
	case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
		/* __constant is ordinary device memory */
		return ULONG(U64(MAX_ALLOC_SIZE));
	case CL_DEVICE_MAX_CONSTANT_ARGS:
		return UINT(ICD_MIN(U64(MAX_KERNEL_ARGS), 64));
	case CL_DEVICE_LOCAL_MEM_TYPE:
		return UINT(d->type == CL_DEVICE_TYPE_CPU ? CL_GLOBAL :
							    CL_LOCAL);
	case CL_DEVICE_LOCAL_MEM_SIZE:
		return ULONG(U64(LOCAL_MEM_SIZE));
	case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
		return BOOL(false);
	case CL_DEVICE_HOST_UNIFIED_MEMORY:
		return BOOL(U64(CAPS) & ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY);
	case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
		return SIZE(ICD_MAX(U64(TIMER_RESOLUTION_NS), 1));
	case CL_DEVICE_ENDIAN_LITTLE:
		return BOOL(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
	case CL_DEVICE_AVAILABLE:
		return BOOL(true);
	case CL_DEVICE_COMPILER_AVAILABLE:
	case CL_DEVICE_LINKER_AVAILABLE:
		return BOOL(d->compiler);
	case CL_DEVICE_EXECUTION_CAPABILITIES:
		return ULONG(CL_EXEC_KERNEL);
	case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
		return ULONG(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
			     CL_QUEUE_PROFILING_ENABLE);
	case CL_DEVICE_PLATFORM:
		return icd_info_ptr(size, value, size_ret, d->platform);
	case CL_DEVICE_NAME:
		return STRING(d->name);
	case CL_DEVICE_VENDOR:
		return STRING(d->vendor);
	case CL_DRIVER_VERSION:
		return STRING(d->driver_version_full);
	case CL_DEVICE_PROFILE:
		/* a device without a compiler is an embedded one */
		return STRING(d->compiler ? "FULL_PROFILE" :
					    "EMBEDDED_PROFILE");
	case CL_DEVICE_VERSION:
		return STRING(device_version);
	case CL_DEVICE_NUMERIC_VERSION:
		return UINT(ICD_CL_VERSION);
	case CL_DEVICE_OPENCL_C_VERSION:
		return STRING(opencl_c_version);
	case CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR:
		/* cl_khr_extended_versioning: the CL_DEVICE_OPENCL_C_VERSION */
		return UINT(CL_MAKE_VERSION(1, 2, 0));
	case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
		return info_opencl_c_versions(size, value, size_ret);
	case CL_DEVICE_OPENCL_C_FEATURES:
		return info_opencl_c_features(d, size, value, size_ret);
	case CL_DEVICE_EXTENSIONS:
		return STRING(d->extensions);
	case CL_DEVICE_EXTENSIONS_WITH_VERSION:
		return icd_info_name_versions(size, value, size_ret,
					      d->extensions, ' ',
					      icd_extension_version);
	case CL_DEVICE_BUILT_IN_KERNELS:
		return STRING(d->built_in_kernels);
	case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
		return icd_info_name_versions(size, value, size_ret,
					      d->built_in_kernels, ';',
					      built_in_kernel_version);
	case CL_DEVICE_IL_VERSION:
	case CL_DEVICE_ILS_WITH_VERSION:
		return icd_device_il_info(d, param, size, value, size_ret);
	case CL_DEVICE_PRINTF_BUFFER_SIZE:
		return SIZE(d->u64[ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE]);
	case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
		return BOOL(true);
	case CL_DEVICE_PARENT_DEVICE:
		return icd_info_ptr(size, value, size_ret, NULL);
	case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
		return UINT(0);
	case CL_DEVICE_PARTITION_PROPERTIES: {
		cl_device_partition_property none = 0;

		return icd_info(size, value, size_ret, &none, sizeof(none));
	}
	case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
		return ULONG(0);
	case CL_DEVICE_PARTITION_TYPE:
		/* a root device: no partition type */
		return icd_info(size, value, size_ret, NULL, 0);
	case CL_DEVICE_REFERENCE_COUNT:
		return UINT(1); /* root devices are not counted */
	case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		return SIZE(ICD_MAX(U64(NATIVE_VECTOR_WIDTH_FLOAT), 1));
	case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
		/* libaccel runs trailing partial work-groups */
		return BOOL(true);
	case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
		return ULONG(d->compiler ? ATOMIC_CAPABILITIES :
					   CL_DEVICE_ATOMIC_ORDER_RELAXED |
					   CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
	case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
		/* OpenCL 3.0's minimum, plus what the atomics can do */
		return ULONG((d->compiler ? ATOMIC_CAPABILITIES : 0) |
			     CL_DEVICE_ATOMIC_ORDER_RELAXED |
			     CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
			     CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
	case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
		return STRING(no_conformance);
	case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
		/* the compiler's, as __opencl_c_generic_address_space */
		return BOOL(d->compiler);
	case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
		/* the compiler's builtins/wg-collective.cl */
		return BOOL(d->compiler);

	case CL_DEVICE_IMAGE_SUPPORT:
		return BOOL(icd_device_has_images(d));
	case CL_DEVICE_MAX_READ_IMAGE_ARGS:
		return UINT(U64(MAX_READ_IMAGE_ARGS));
	case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
	case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
		/* read_write arguments count as written ones */
		return UINT(U64(MAX_WRITE_IMAGE_ARGS));
	case CL_DEVICE_MAX_SAMPLERS:
		return UINT(U64(MAX_SAMPLERS));
	case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
		return UINT(U64(IMAGE_PITCH_ALIGNMENT));
	case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
		return UINT(U64(IMAGE_BASE_ADDRESS_ALIGNMENT));
	case CL_DEVICE_IMAGE2D_MAX_WIDTH:
		return SIZE(U64(IMAGE2D_MAX_WIDTH));
	case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
		return SIZE(U64(IMAGE2D_MAX_HEIGHT));
	case CL_DEVICE_IMAGE3D_MAX_WIDTH:
		return SIZE(U64(IMAGE3D_MAX_WIDTH));
	case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
		return SIZE(U64(IMAGE3D_MAX_HEIGHT));
	case CL_DEVICE_IMAGE3D_MAX_DEPTH:
		return SIZE(U64(IMAGE3D_MAX_DEPTH));
	case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
		return SIZE(U64(IMAGE_MAX_BUFFER_SIZE));
	case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
		return SIZE(U64(IMAGE_MAX_ARRAY_SIZE));
	/* optional OpenCL 2.x/3.0 features, absent */
	case CL_DEVICE_PIPE_SUPPORT:
		return BOOL(false);
	case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
		/* kernels with loops that wait for other work-items run as
		 * fibers that switch there (compiler-stub/lower/wg-spin.c) */
		return BOOL(d->compiler &&
			    u[ACCEL_DEVICE_U64_SUB_GROUP_SIZE] != 0);
	case CL_DEVICE_MAX_NUM_SUB_GROUPS: {
		/* for any kernel: those asking for the smallest size too */
		uint64_t sg = u[ACCEL_DEVICE_U64_SUB_GROUP_SIZE];

		if (u[ACCEL_DEVICE_U64_SUB_GROUP_SIZES])
			sg = 1ull << __builtin_ctzll(
				     u[ACCEL_DEVICE_U64_SUB_GROUP_SIZES]);
		return UINT(d->compiler && sg ?
			(u[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE] + sg - 1) /
				sg : 0);
	}
	case CL_DEVICE_SUB_GROUP_SIZES_INTEL: {
		size_t s[64];
		size_t n = 0;

		if (!d->compiler || !u[ACCEL_DEVICE_U64_SUB_GROUP_SIZE])
			return CL_INVALID_VALUE;
		for (unsigned b = 0; b < 64; b++)
			if (u[ACCEL_DEVICE_U64_SUB_GROUP_SIZES] >> b & 1)
				s[n++] = (size_t)1 << b;
		if (!n)
			return CL_INVALID_VALUE;
		return icd_info(size, value, size_ret, s, n * sizeof(*s));
	}
	case CL_DEVICE_MAX_PIPE_ARGS:
	case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
	case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
	case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
	case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
	case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
	case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
	case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
	case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
	case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
		return UINT(0);
	case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
	case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
		/*
		 * Program-scope variables live in the program's shared
		 * object, as big as memory allows; we promise the
		 * specification's minimum, 64 KiB.
		 */
		return SIZE(d->compiler ? 64 * 1024 : 0);
	case CL_DEVICE_SVM_CAPABILITIES:
		return ULONG(icd_device_svm_caps(d));
	case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
	case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
		return ULONG(0);
	case CL_DEVICE_HALF_FP_CONFIG:
		/*
		 * Arithmetic in float rounded once to half (or native
		 * AVX512-FP16): round to nearest, subnormals, a fused fma.
		 */
		return ULONG(fp16 ? CL_FP_FMA | CL_FP_ROUND_TO_NEAREST |
					    CL_FP_INF_NAN | CL_FP_DENORM :
				    0);
	case CL_DEVICE_SEMAPHORE_TYPES_KHR:
	case CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR:
	case CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR:
	case CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR:
	case CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR:
		return icd_sharing_device_info(d, param, size, value, size_ret);
	case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
	case CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR:
	case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR:
	case CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR:
		return icd_command_buffer_device_info(d, param, size, value,
						      size_ret);
	default:
		return CL_INVALID_VALUE;
	}
#undef UINT
#undef ULONG
#undef SIZE
#undef BOOL
#undef STRING
#undef U64
}

cl_int CL_API_CALL clCreateSubDevices(cl_device_id d,
				      const cl_device_partition_property *props,
				      cl_uint num_entries _unused_,
				      cl_device_id *out _unused_,
				      cl_uint *num_out _unused_)
{
	if (!icd_object_valid(d, ICD_MAGIC_DEVICE))
		return CL_INVALID_DEVICE;
	(void)props;
	/* No partitioning scheme is supported. */
	return CL_INVALID_VALUE;
}

cl_int CL_API_CALL clRetainDevice(cl_device_id d)
{
	/* root devices: a no-op, as the specification says */
	return icd_object_valid(d, ICD_MAGIC_DEVICE) ? CL_SUCCESS :
						       CL_INVALID_DEVICE;
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id d)
{
	return icd_object_valid(d, ICD_MAGIC_DEVICE) ? CL_SUCCESS :
						       CL_INVALID_DEVICE;
}
