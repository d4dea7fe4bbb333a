/* SPDX-License-Identifier: MIT */
/**
 * @file accel-device.h
 * @brief Devices: enumeration and typed property queries.
 *
 * Thread-safety: devices are immutable after enumeration and may be used
 * from any thread.
 */
#ifndef LIBACCEL_ACCEL_DEVICE_H
#define LIBACCEL_ACCEL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_context;
struct accel_device;

/** What kind of device it is (ACCEL_DEVICE_U64_TYPE). */
enum accel_device_type {
	/** The CPU reference device built into libaccel. */
	ACCEL_DEVICE_TYPE_CPU = 1,
	/** A device behind a kernel accel node (/dev/accel/accel*). */
	ACCEL_DEVICE_TYPE_ACCELERATOR = 2,
	/** A device behind a DRM render node. */
	ACCEL_DEVICE_TYPE_GPU = 3,
};

/** Capability bits (ACCEL_DEVICE_U64_CAPS). */
#define ACCEL_DEVICE_CAP_DMABUF_EXPORT (1u << 0) /**< buffers export as dma-buf fds */
#define ACCEL_DEVICE_CAP_DMABUF_IMPORT (1u << 1) /**< dma-buf fds import as buffers */
#define ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT (1u << 2) /**< fences export as sync_files */
#define ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT (1u << 3) /**< sync_files import as fences */
#define ACCEL_DEVICE_CAP_COMPILER (1u << 4) /**< programs from OpenCL C source */
#define ACCEL_DEVICE_CAP_NATIVE_KERNELS (1u << 5) /**< accel_program_new_native() */
#define ACCEL_DEVICE_CAP_BUILT_IN_KERNELS (1u << 6) /**< accel_program_new_built_in() */
#define ACCEL_DEVICE_CAP_FP64 (1u << 7) /**< double precision in kernels */
#define ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY (1u << 8) /**< maps are zero-copy */
#define ACCEL_DEVICE_CAP_USER_PTR (1u << 9) /**< accel_buffer_new_user_ptr() */
#define ACCEL_DEVICE_CAP_FP16 (1u << 10) /**< half precision in kernels */
#define ACCEL_DEVICE_CAP_IL (1u << 11) /**< programs from SPIR-V (accel_program_new_il()) */
/**
 * Kernels read and write host memory at host addresses, coherently with the
 * host, atomics included (shared virtual memory: accel_kernel_set_arg_host_ptr()).
 */
#define ACCEL_DEVICE_CAP_HOST_SVM (1u << 12)
/** kernels take images and samplers (accel-image.h) */
#define ACCEL_DEVICE_CAP_IMAGES (1u << 13)

/** Integer properties, queried with accel_device_query_u64(). */
enum accel_device_u64 {
	ACCEL_DEVICE_U64_TYPE = 0,           /**< enum accel_device_type */
	ACCEL_DEVICE_U64_CAPS,               /**< ACCEL_DEVICE_CAP_* bits */
	ACCEL_DEVICE_U64_VENDOR_ID,          /**< PCI vendor id, 0 if none */
	ACCEL_DEVICE_U64_DEVICE_ID,          /**< PCI device id, 0 if none */
	ACCEL_DEVICE_U64_COMPUTE_UNITS,      /**< parallel compute units */
	ACCEL_DEVICE_U64_CLOCK_MHZ,          /**< max clock, 0 if unknown */
	ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE,    /**< bytes */
	ACCEL_DEVICE_U64_LOCAL_MEM_SIZE,     /**< bytes of local memory per work-group */
	ACCEL_DEVICE_U64_MAX_ALLOC_SIZE,     /**< largest single buffer, bytes */
	ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN, /**< sub-buffer offset alignment, bytes */
	ACCEL_DEVICE_U64_CACHE_LINE_SIZE,    /**< bytes, 0 if unknown */
	ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE, /**< work-items per work-group */
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS, /**< 3 */
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X,
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y,
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z,
	ACCEL_DEVICE_U64_MAX_KERNEL_ARGS,     /**< arguments per kernel */
	ACCEL_DEVICE_U64_MAX_ARG_BYTES,       /**< bytes of all arguments of a kernel */
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_CHAR,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_SHORT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_INT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_LONG,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_FLOAT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_DOUBLE,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_HALF,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_CHAR,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_SHORT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_INT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_LONG,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_FLOAT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_DOUBLE,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_HALF,
	ACCEL_DEVICE_U64_TIMER_RESOLUTION_NS, /**< profiling timestamp resolution */
	ACCEL_DEVICE_U64_NUMA_NODE,           /**< NUMA node, UINT64_MAX if none */
	ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE,  /**< bytes of kernel printf output per launch */
	ACCEL_DEVICE_U64_CACHE_SIZE,          /**< bytes of the last cache level before device memory, 0 if unknown */
	/**
	 * bytes of stack one work-group may use: its work-items' private
	 * memory together (accel_kernel_get_private_mem()); 0 if the device
	 * sets no limit
	 */
	ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE,
	/**
	 * work-items per sub-group in the OpenCL C kernels the device
	 * compiles (the last sub-group of a work-group may have fewer;
	 * accel_kernel_get_sub_group_size() gives a kernel's own); 0 if the
	 * device has no sub-groups
	 */
	ACCEL_DEVICE_U64_SUB_GROUP_SIZE,
	/**
	 * the sub-group sizes a kernel may ask for (OpenCL C
	 * intel_reqd_sub_group_size) as bits: bit n set for 2^n work-items;
	 * 0 if the device has no sub-groups
	 */
	ACCEL_DEVICE_U64_SUB_GROUP_SIZES,
	/*
	 * Image limits, in texels (layers for arrays); 0 on devices without
	 * ACCEL_DEVICE_CAP_IMAGES.
	 */
	ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH,   /**< 1D and 2D images and arrays */
	ACCEL_DEVICE_U64_IMAGE2D_MAX_HEIGHT,
	ACCEL_DEVICE_U64_IMAGE3D_MAX_WIDTH,
	ACCEL_DEVICE_U64_IMAGE3D_MAX_HEIGHT,
	ACCEL_DEVICE_U64_IMAGE3D_MAX_DEPTH,
	ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE, /**< texels of a 1D buffer image */
	ACCEL_DEVICE_U64_IMAGE_MAX_ARRAY_SIZE,
	ACCEL_DEVICE_U64_IMAGE_PITCH_ALIGNMENT, /**< row pitch of a 2D image from a buffer, texels */
	ACCEL_DEVICE_U64_IMAGE_BASE_ADDRESS_ALIGNMENT, /**< offset of such an image, bytes */
	ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS,  /**< image arguments a kernel reads */
	ACCEL_DEVICE_U64_MAX_WRITE_IMAGE_ARGS, /**< image arguments a kernel writes (or reads and writes) */
	ACCEL_DEVICE_U64_MAX_SAMPLERS,         /**< sampler arguments and declarations of a kernel */
	ACCEL_DEVICE_U64_COUNT                /**< number of properties, not one */
};

/** String properties, queried with accel_device_query_string(). */
enum accel_device_string {
	ACCEL_DEVICE_STRING_NAME = 0,    /**< human-readable model name */
	ACCEL_DEVICE_STRING_VENDOR,      /**< vendor name */
	ACCEL_DEVICE_STRING_DRIVER,      /**< kernel driver or "cpu" */
	ACCEL_DEVICE_STRING_DRIVER_VERSION, /**< driver version */
	ACCEL_DEVICE_STRING_BACKEND,     /**< libaccel backend name */
	ACCEL_DEVICE_STRING_DEVNODE,     /**< device node path, "" if none */
	ACCEL_DEVICE_STRING_SYSPATH,     /**< sysfs path, "" if none */
	ACCEL_DEVICE_STRING_BUILT_IN_KERNELS, /**< ';'-separated names, may be "" */
	/**
	 * what compiled OpenCL C code is generated for: on the CPU device
	 * "host (TIER)" (every feature of this CPU, TIER its highest code
	 * tier: "x86-64-v2" ... "x86-64-v4" on x86-64, "armv8-a" or
	 * "armv8.2-a+sve" on AArch64) or the tier $ACCEL_CPU_TARGET names
	 * ("x86-64-v2", "armv8-a", ...); "" where the device compiles
	 * nothing
	 */
	ACCEL_DEVICE_STRING_CODE_TARGET,
	/**
	 * the OpenCL C compiler: on the CPU device the path of the compiler
	 * module it loads, or, without ACCEL_DEVICE_CAP_COMPILER, why there
	 * is none ("<path tried>: <reason>"); "" where the device compiles
	 * nothing by design
	 */
	ACCEL_DEVICE_STRING_COMPILER,
	ACCEL_DEVICE_STRING_COUNT        /**< number of properties, not one */
};

/**
 * Enumerate the devices of a context.
 *
 * Fills up to @p max entries of @p devices with new references (release
 * each with accel_device_unref()) and returns the total number of devices,
 * which may be larger than @p max (call with max 0 to count). The CPU
 * reference device is always present, so the count is at least 1.
 *
 * @param ctx the context
 * @param devices array of @p max entries, may be NULL when @p max is 0
 * @param max number of entries in @p devices
 * @return number of devices (>= 1), -EINVAL (NULL @p ctx, NULL @p devices
 *         with @p max > 0), -ENOMEM, -EOVERFLOW (more devices than an int
 *         counts)
 */
int accel_context_get_devices(struct accel_context *ctx,
			      struct accel_device **devices, size_t max);

/** Take a reference. Returns @p dev (NULL stays NULL). */
struct accel_device *accel_device_ref(struct accel_device *dev);

/** Drop a reference. Returns NULL. */
struct accel_device *accel_device_unref(struct accel_device *dev);

/** @return the device's context (no new reference), NULL for NULL */
struct accel_context *accel_device_get_context(struct accel_device *dev);

/**
 * Query an integer property.
 * @param[out] ret the value
 * @return 0, -EINVAL (NULL @p dev or @p ret, unknown @p prop)
 */
int accel_device_query_u64(struct accel_device *dev, enum accel_device_u64 prop,
			   uint64_t *ret);

/**
 * Query a string property. The string lives as long as the device.
 * @param[out] ret the value, never NULL on success
 * @return 0, -EINVAL (NULL @p dev or @p ret, unknown @p prop)
 */
int accel_device_query_string(struct accel_device *dev,
			      enum accel_device_string prop, const char **ret);

/**
 * Whether the device is still there. A device found unplugged by
 * accel_context_dispatch() leaves the context's device list; objects made
 * on it stay valid to query and release, but new buffers, queues,
 * programs and submissions on it fail with -ENODEV.
 *
 * @return 0 (present), -ENODEV (unplugged), -EINVAL (NULL @p dev)
 */
int accel_device_get_status(struct accel_device *dev);

/** Attach an opaque pointer. @return 0 or -EINVAL (NULL @p dev) */
int accel_device_set_user_data(struct accel_device *dev, void *user_data);

/** @return the opaque pointer, NULL if none or @p dev is NULL */
void *accel_device_get_user_data(struct accel_device *dev);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_DEVICE_H */
