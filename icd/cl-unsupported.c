/* SPDX-License-Identifier: MIT */
/*
 * Entry points of features no libaccel device offers: pipes, GL/EGL
 * sharing, device fission. Each validates what it can and
 * returns the error the specification gives when the feature is absent,
 * so every dispatch slot is callable.
 */
#include "icd.h"

/* Stubs ignore most of their arguments by nature. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* ---- pipes --------------------------------------------------------------- */

cl_mem CL_API_CALL clCreatePipe(cl_context ctx, cl_mem_flags flags,
				cl_uint packet_size, cl_uint max_packets,
				const cl_pipe_properties *props, cl_int *err)
{
	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	/* CL_DEVICE_PIPE_SUPPORT is false */
	ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
}

cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param,
				 size_t size, void *value, size_t *size_ret)
{
	return CL_INVALID_MEM_OBJECT;
}

/* ---- GL and EGL sharing -------------------------------------------------- */

/* No context is ever made from a GL or EGL one. */
static cl_int sharing_context(cl_context ctx)
{
	return CL_INVALID_CONTEXT;
}

cl_mem CL_API_CALL clCreateFromGLBuffer(cl_context ctx, cl_mem_flags flags,
					cl_GLuint bufobj, cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_mem CL_API_CALL clCreateFromGLTexture(cl_context ctx, cl_mem_flags flags,
					 cl_GLenum target, cl_GLint miplevel,
					 cl_GLuint texture, cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_mem CL_API_CALL clCreateFromGLTexture2D(cl_context ctx,
					   cl_mem_flags flags, cl_GLenum target,
					   cl_GLint miplevel, cl_GLuint texture,
					   cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_mem CL_API_CALL clCreateFromGLTexture3D(cl_context ctx,
					   cl_mem_flags flags, cl_GLenum target,
					   cl_GLint miplevel, cl_GLuint texture,
					   cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_mem CL_API_CALL clCreateFromGLRenderbuffer(cl_context ctx,
					      cl_mem_flags flags,
					      cl_GLuint renderbuffer,
					      cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_int CL_API_CALL clGetGLObjectInfo(cl_mem m, cl_gl_object_type *type,
				     cl_GLuint *name)
{
	/* no memory object comes from GL */
	return CL_INVALID_GL_OBJECT;
}

cl_int CL_API_CALL clGetGLTextureInfo(cl_mem m, cl_gl_texture_info param,
				      size_t size, void *value,
				      size_t *size_ret)
{
	return CL_INVALID_GL_OBJECT;
}

cl_int CL_API_CALL clEnqueueAcquireGLObjects(cl_command_queue q,
					     cl_uint num, const cl_mem *mems,
					     cl_uint n, const cl_event *list,
					     cl_event *event)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	return CL_INVALID_CONTEXT;
}

cl_int CL_API_CALL clEnqueueReleaseGLObjects(cl_command_queue q,
					     cl_uint num, const cl_mem *mems,
					     cl_uint n, const cl_event *list,
					     cl_event *event)
{
	return clEnqueueAcquireGLObjects(q, num, mems, n, list, event);
}

cl_int CL_API_CALL clGetGLContextInfoKHR(const cl_context_properties *props,
					 cl_gl_context_info param, size_t size,
					 void *value, size_t *size_ret)
{
	return CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR;
}

cl_event CL_API_CALL clCreateEventFromGLsyncKHR(cl_context ctx,
						cl_GLsync sync, cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_mem CL_API_CALL clCreateFromEGLImageKHR(
	cl_context ctx, CLeglDisplayKHR display, CLeglImageKHR image,
	cl_mem_flags flags, const cl_egl_image_properties_khr *props,
	cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

cl_int CL_API_CALL clEnqueueAcquireEGLObjectsKHR(cl_command_queue q,
						 cl_uint num,
						 const cl_mem *mems, cl_uint n,
						 const cl_event *list,
						 cl_event *event)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	return num ? CL_INVALID_MEM_OBJECT : CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueReleaseEGLObjectsKHR(cl_command_queue q,
						 cl_uint num,
						 const cl_mem *mems, cl_uint n,
						 const cl_event *list,
						 cl_event *event)
{
	return clEnqueueAcquireEGLObjectsKHR(q, num, mems, n, list, event);
}

cl_event CL_API_CALL clCreateEventFromEGLSyncKHR(cl_context ctx,
						 CLeglSyncKHR sync,
						 CLeglDisplayKHR display,
						 cl_int *err)
{
	ICD_RETURN_ERR(err, sharing_context(ctx), NULL);
}

/* ---- cl_ext_device_fission ----------------------------------------------- */

cl_int CL_API_CALL clCreateSubDevicesEXT(
	cl_device_id d, const cl_device_partition_property_ext *props,
	cl_uint num_entries, cl_device_id *out, cl_uint *num_out)
{
	if (!icd_object_valid(d, ICD_MAGIC_DEVICE))
		return CL_INVALID_DEVICE;
	return CL_INVALID_VALUE;
}

cl_int CL_API_CALL clRetainDeviceEXT(cl_device_id d)
{
	return clRetainDevice(d);
}

cl_int CL_API_CALL clReleaseDeviceEXT(cl_device_id d)
{
	return clReleaseDevice(d);
}

cl_int CL_API_CALL clGetKernelSubGroupInfoKHR(
	cl_kernel k, cl_device_id d, cl_kernel_sub_group_info param,
	size_t in_size, const void *in, size_t size, void *value,
	size_t *size_ret)
{
	return clGetKernelSubGroupInfo(k, d, param, in_size, in, size, value,
				       size_ret);
}
