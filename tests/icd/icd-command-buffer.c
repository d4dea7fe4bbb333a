/* SPDX-License-Identifier: MIT */
/* Looking up the command-buffer entry points (icd-command-buffer.h). */
#include <string.h>

#include "icd-command-buffer.h"

void icd_cb_load(cl_platform_id platform, struct icd_cb_fns *cb)
{
#define GET(field, name)                                                       \
	do {                                                                   \
		void *fn = clGetExtensionFunctionAddressForPlatform(           \
			platform, name);                                       \
		assert_non_null(fn);                                           \
		memcpy(&cb->field, &fn, sizeof(fn));                            \
	} while (0)
	GET(create, "clCreateCommandBufferKHR");
	GET(finalize, "clFinalizeCommandBufferKHR");
	GET(retain, "clRetainCommandBufferKHR");
	GET(release, "clReleaseCommandBufferKHR");
	GET(enqueue, "clEnqueueCommandBufferKHR");
	GET(info, "clGetCommandBufferInfoKHR");
	GET(barrier, "clCommandBarrierWithWaitListKHR");
	GET(copy, "clCommandCopyBufferKHR");
	GET(copy_rect, "clCommandCopyBufferRectKHR");
	GET(copy_image, "clCommandCopyImageKHR");
	GET(image_to_buffer, "clCommandCopyImageToBufferKHR");
	GET(fill_image, "clCommandFillImageKHR");
	GET(fill, "clCommandFillBufferKHR");
	GET(ndrange, "clCommandNDRangeKernelKHR");
	GET(svm_memcpy, "clCommandSVMMemcpyKHR");
	GET(svm_fill, "clCommandSVMMemFillKHR");
	GET(update, "clUpdateMutableCommandsKHR");
	GET(cmd_info, "clGetMutableCommandInfoKHR");
#undef GET
}
