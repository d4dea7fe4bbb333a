/* SPDX-License-Identifier: MIT */
/*
 * The DLPack data structures, version 1.0: an ABI definition, written here
 * from the DLPack specification (dmlc/dlpack, "C API" and "Python
 * specification") because Debian 12's libdlpack-dev (0.6) lacks the
 * versioned structures. Only what the exchange needs; names follow the
 * specification so that the code reads against it.
 */
#ifndef PYACCEL_DLPACK_ABI_H
#define PYACCEL_DLPACK_ABI_H

#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

/* DLDeviceType: an enum in the specification, i.e. an int in the ABI */
enum {
	kDLCPU = 1,
};

/* DLDataTypeCode */
enum {
	kDLInt = 0,
	kDLUInt = 1,
	kDLFloat = 2,
	kDLOpaqueHandle = 3,
	kDLBfloat = 4,
	kDLComplex = 5,
	kDLBool = 6,
};

/* DLManagedTensorVersioned.flags */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

typedef struct {
	uint32_t major;
	uint32_t minor;
} DLPackVersion;

typedef struct {
	int32_t device_type; /* DLDeviceType */
	int32_t device_id;
} DLDevice;

typedef struct {
	uint8_t code;
	uint8_t bits;
	uint16_t lanes;
} DLDataType;

typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape;
	int64_t *strides; /* in elements; NULL means compact row-major */
	uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
	DLTensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct DLManagedTensorVersioned {
	DLPackVersion version;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensorVersioned *self);
	uint64_t flags;
	DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif /* PYACCEL_DLPACK_ABI_H */
