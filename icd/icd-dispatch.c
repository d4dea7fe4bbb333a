/* SPDX-License-Identifier: MIT */
/*
 * The ICD contract: the dispatch table every object points to, the name
 * lookup a cl_khr_icd 2.0.0 loader fills its own table with, and
 * clGetExtensionFunctionAddress, the one entry point every loader finds
 * with dlsym().
 */
#include <string.h>

#include "icd.h"
#include "icd-sharing.h"
#include "cl-mutable-dispatch.h"

/* Every dispatch slot that holds a function on Linux, in table order. */
#define ICD_FUNCTIONS(X)                                                       \
	X(clGetPlatformInfo)                                                   \
	X(clGetDeviceIDs)                                                      \
	X(clGetDeviceInfo)                                                     \
	X(clCreateContext)                                                     \
	X(clCreateContextFromType)                                             \
	X(clRetainContext)                                                     \
	X(clReleaseContext)                                                    \
	X(clGetContextInfo)                                                    \
	X(clCreateCommandQueue)                                                \
	X(clRetainCommandQueue)                                                \
	X(clReleaseCommandQueue)                                               \
	X(clGetCommandQueueInfo)                                               \
	X(clSetCommandQueueProperty)                                           \
	X(clCreateBuffer)                                                      \
	X(clCreateImage2D)                                                     \
	X(clCreateImage3D)                                                     \
	X(clRetainMemObject)                                                   \
	X(clReleaseMemObject)                                                  \
	X(clGetSupportedImageFormats)                                          \
	X(clGetMemObjectInfo)                                                  \
	X(clGetImageInfo)                                                      \
	X(clCreateSampler)                                                     \
	X(clRetainSampler)                                                     \
	X(clReleaseSampler)                                                    \
	X(clGetSamplerInfo)                                                    \
	X(clCreateProgramWithSource)                                           \
	X(clCreateProgramWithBinary)                                           \
	X(clRetainProgram)                                                     \
	X(clReleaseProgram)                                                    \
	X(clBuildProgram)                                                      \
	X(clUnloadCompiler)                                                    \
	X(clGetProgramInfo)                                                    \
	X(clGetProgramBuildInfo)                                               \
	X(clCreateKernel)                                                      \
	X(clCreateKernelsInProgram)                                            \
	X(clRetainKernel)                                                      \
	X(clReleaseKernel)                                                     \
	X(clSetKernelArg)                                                      \
	X(clGetKernelInfo)                                                     \
	X(clGetKernelWorkGroupInfo)                                            \
	X(clWaitForEvents)                                                     \
	X(clGetEventInfo)                                                      \
	X(clRetainEvent)                                                       \
	X(clReleaseEvent)                                                      \
	X(clGetEventProfilingInfo)                                             \
	X(clFlush)                                                             \
	X(clFinish)                                                            \
	X(clEnqueueReadBuffer)                                                 \
	X(clEnqueueWriteBuffer)                                                \
	X(clEnqueueCopyBuffer)                                                 \
	X(clEnqueueReadImage)                                                  \
	X(clEnqueueWriteImage)                                                 \
	X(clEnqueueCopyImage)                                                  \
	X(clEnqueueCopyImageToBuffer)                                          \
	X(clEnqueueCopyBufferToImage)                                          \
	X(clEnqueueMapBuffer)                                                  \
	X(clEnqueueMapImage)                                                   \
	X(clEnqueueUnmapMemObject)                                             \
	X(clEnqueueNDRangeKernel)                                              \
	X(clEnqueueTask)                                                       \
	X(clEnqueueNativeKernel)                                               \
	X(clEnqueueMarker)                                                     \
	X(clEnqueueWaitForEvents)                                              \
	X(clEnqueueBarrier)                                                    \
	X(clGetExtensionFunctionAddress)                                       \
	X(clCreateFromGLBuffer)                                                \
	X(clCreateFromGLTexture2D)                                             \
	X(clCreateFromGLTexture3D)                                             \
	X(clCreateFromGLRenderbuffer)                                          \
	X(clGetGLObjectInfo)                                                   \
	X(clGetGLTextureInfo)                                                  \
	X(clEnqueueAcquireGLObjects)                                           \
	X(clEnqueueReleaseGLObjects)                                           \
	X(clGetGLContextInfoKHR)                                               \
	X(clSetEventCallback)                                                  \
	X(clCreateSubBuffer)                                                   \
	X(clSetMemObjectDestructorCallback)                                    \
	X(clCreateUserEvent)                                                   \
	X(clSetUserEventStatus)                                                \
	X(clEnqueueReadBufferRect)                                             \
	X(clEnqueueWriteBufferRect)                                            \
	X(clEnqueueCopyBufferRect)                                             \
	X(clCreateSubDevicesEXT)                                               \
	X(clRetainDeviceEXT)                                                   \
	X(clReleaseDeviceEXT)                                                  \
	X(clCreateEventFromGLsyncKHR)                                          \
	X(clCreateSubDevices)                                                  \
	X(clRetainDevice)                                                      \
	X(clReleaseDevice)                                                     \
	X(clCreateImage)                                                       \
	X(clCreateProgramWithBuiltInKernels)                                   \
	X(clCompileProgram)                                                    \
	X(clLinkProgram)                                                       \
	X(clUnloadPlatformCompiler)                                            \
	X(clGetKernelArgInfo)                                                  \
	X(clEnqueueFillBuffer)                                                 \
	X(clEnqueueFillImage)                                                  \
	X(clEnqueueMigrateMemObjects)                                          \
	X(clEnqueueMarkerWithWaitList)                                         \
	X(clEnqueueBarrierWithWaitList)                                        \
	X(clGetExtensionFunctionAddressForPlatform)                            \
	X(clCreateFromGLTexture)                                               \
	X(clCreateFromEGLImageKHR)                                             \
	X(clEnqueueAcquireEGLObjectsKHR)                                       \
	X(clEnqueueReleaseEGLObjectsKHR)                                       \
	X(clCreateEventFromEGLSyncKHR)                                         \
	X(clCreateCommandQueueWithProperties)                                  \
	X(clCreatePipe)                                                        \
	X(clGetPipeInfo)                                                       \
	X(clSVMAlloc)                                                          \
	X(clSVMFree)                                                           \
	X(clEnqueueSVMFree)                                                    \
	X(clEnqueueSVMMemcpy)                                                  \
	X(clEnqueueSVMMemFill)                                                 \
	X(clEnqueueSVMMap)                                                     \
	X(clEnqueueSVMUnmap)                                                   \
	X(clCreateSamplerWithProperties)                                       \
	X(clSetKernelArgSVMPointer)                                            \
	X(clSetKernelExecInfo)                                                 \
	X(clGetKernelSubGroupInfoKHR)                                          \
	X(clCloneKernel)                                                       \
	X(clCreateProgramWithIL)                                               \
	X(clEnqueueSVMMigrateMem)                                              \
	X(clGetDeviceAndHostTimer)                                             \
	X(clGetHostTimer)                                                      \
	X(clGetKernelSubGroupInfo)                                             \
	X(clSetDefaultDeviceCommandQueue)                                      \
	X(clSetProgramReleaseCallback)                                         \
	X(clSetProgramSpecializationConstant)                                  \
	X(clCreateBufferWithProperties)                                        \
	X(clCreateImageWithProperties)                                         \
	X(clSetContextDestructorCallback)

#define ICD_SLOT(fn) .fn = fn,

const struct _cl_icd_dispatch icd_dispatch = {
	/*
	 * cl_khr_icd 2.0.0: the tag in this slot tells a new loader that our
	 * objects carry its dispatch data. Loaders implement
	 * clGetPlatformIDs themselves, so old ones never call the slot.
	 */
	.clGetPlatformIDs = (cl_api_clGetPlatformIDs)ICD2_TAG,
	ICD_FUNCTIONS(ICD_SLOT)
};

struct icd_function {
	const char *name;
	void *fn;
};

#define ICD_ENTRY(fn) { #fn, (void *)fn },

static const struct icd_function core_functions[] = {
	ICD_FUNCTIONS(ICD_ENTRY)
	{ "clGetPlatformIDs", (void *)clGetPlatformIDs },
};

/* What clGetExtensionFunctionAddress hands out: cl_khr_icd's functions. */
static const struct icd_function extension_functions[] = {
	{ "clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR },
	{ "clIcdGetFunctionAddressForPlatformKHR",
	  (void *)clIcdGetFunctionAddressForPlatformKHR },
	{ "clIcdSetPlatformDispatchDataKHR",
	  (void *)clIcdSetPlatformDispatchDataKHR },
	/* cl_khr_semaphore, cl_khr_external_semaphore(_sync_fd) */
	{ "clCreateSemaphoreWithPropertiesKHR",
	  (void *)clCreateSemaphoreWithPropertiesKHR },
	{ "clEnqueueWaitSemaphoresKHR", (void *)clEnqueueWaitSemaphoresKHR },
	{ "clEnqueueSignalSemaphoresKHR", (void *)clEnqueueSignalSemaphoresKHR },
	{ "clGetSemaphoreInfoKHR", (void *)clGetSemaphoreInfoKHR },
	{ "clRetainSemaphoreKHR", (void *)clRetainSemaphoreKHR },
	{ "clReleaseSemaphoreKHR", (void *)clReleaseSemaphoreKHR },
	{ "clGetSemaphoreHandleForTypeKHR",
	  (void *)clGetSemaphoreHandleForTypeKHR },
	{ "clReImportSemaphoreSyncFdKHR", (void *)clReImportSemaphoreSyncFdKHR },
	/* cl_khr_external_memory(_dma_buf) */
	{ "clEnqueueAcquireExternalMemObjectsKHR",
	  (void *)clEnqueueAcquireExternalMemObjectsKHR },
	{ "clEnqueueReleaseExternalMemObjectsKHR",
	  (void *)clEnqueueReleaseExternalMemObjectsKHR },
	/* cl_khr_il_program */
	{ "clCreateProgramWithILKHR", (void *)clCreateProgramWithILKHR },
	/* cl_khr_subgroups */
	{ "clGetKernelSubGroupInfoKHR", (void *)clGetKernelSubGroupInfoKHR },
	/* cl_khr_command_buffer 0.9.8 (cl-command-buffer.h) */
#define CB_ENTRY(fn) { #fn, (void *)icd_##fn },
	CB_ENTRY(clCreateCommandBufferKHR)
	CB_ENTRY(clFinalizeCommandBufferKHR)
	CB_ENTRY(clRetainCommandBufferKHR)
	CB_ENTRY(clReleaseCommandBufferKHR)
	CB_ENTRY(clEnqueueCommandBufferKHR)
	CB_ENTRY(clGetCommandBufferInfoKHR)
	CB_ENTRY(clCommandBarrierWithWaitListKHR)
	CB_ENTRY(clCommandCopyBufferKHR)
	CB_ENTRY(clCommandCopyBufferRectKHR)
	CB_ENTRY(clCommandCopyBufferToImageKHR)
	CB_ENTRY(clCommandCopyImageKHR)
	CB_ENTRY(clCommandCopyImageToBufferKHR)
	CB_ENTRY(clCommandFillBufferKHR)
	CB_ENTRY(clCommandFillImageKHR)
	CB_ENTRY(clCommandNDRangeKernelKHR)
	CB_ENTRY(clCommandSVMMemcpyKHR)
	CB_ENTRY(clCommandSVMMemFillKHR)
	/* cl_khr_command_buffer_mutable_dispatch 0.9.5 (its own header) */
	CB_ENTRY(clUpdateMutableCommandsKHR)
	CB_ENTRY(clGetMutableCommandInfoKHR)
#undef CB_ENTRY
	/* cl_arm_import_memory(_dma_buf) */
	{ "clImportMemoryARM", (void *)clImportMemoryARM },
};

static void *lookup(const struct icd_function *table, size_t n,
		    const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return table[i].fn;
	return NULL;
}

void *icd_extension_address(const char *name)
{
	if (!name)
		return NULL;
	return lookup(extension_functions, ICD_ARRAY_SIZE(extension_functions),
		      name);
}

void *icd_function_address(const char *name)
{
	void *fn = lookup(core_functions, ICD_ARRAY_SIZE(core_functions), name);

	return fn ? fn : icd_extension_address(name);
}

ICD_EXPORT void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
	return icd_extension_address(name);
}

void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id p,
							   const char *name)
{
	if (!icd_platform_valid(p))
		return NULL;
	return icd_extension_address(name);
}
