/* SPDX-License-Identifier: MIT */
/*
 * fenced-pipeline --opencl: the middle stage as an OpenCL program writes
 * it, with only standard extensions:
 *   - cl_khr_external_semaphore_sync_fd: the producer's sync_file becomes
 *     a semaphore the queue waits on (clEnqueueWaitSemaphoresKHR);
 *   - a kernel (the device's built-in copy_u8, so no compiler is needed)
 *     copies the input after that wait;
 *   - a second semaphore is signalled after the kernel and exported as a
 *     sync_file (clGetSemaphoreHandleForTypeKHR) for the consumer.
 * The OpenCL platform is found through the ICD loader (OCL_ICD_VENDORS in
 * the build tree).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "fenced-pipeline.h"

#define BYTES 65536

struct cl_stage {
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	cl_mem src, dst;
	cl_program prog;
	cl_kernel kernel;
	cl_semaphore_khr in, out;
	cl_event copied;
	clCreateSemaphoreWithPropertiesKHR_fn create_sema;
	clEnqueueWaitSemaphoresKHR_fn wait_sema;
	clEnqueueSignalSemaphoresKHR_fn signal_sema;
	clGetSemaphoreHandleForTypeKHR_fn export_sema;
	clReleaseSemaphoreKHR_fn release_sema;
};

static int cl_fail(const char *what, cl_int err)
{
	fprintf(stderr, "fenced-pipeline: %s: OpenCL error %d\n", what, err);
	return 1;
}

/* libaccel's platform and device, if they have what this needs. */
static int find_device(struct cl_stage *s, cl_platform_id *ret)
{
	cl_platform_id ps[16];
	cl_uint n = 0, i;
	char buf[4096];
	size_t export_types = 0;

	if (clGetPlatformIDs(16, ps, &n) != CL_SUCCESS)
		n = 0;
	for (i = 0; i < n && i < 16; i++) {
		if (clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(buf),
				      buf, NULL) != CL_SUCCESS ||
		    !strstr(buf, "libaccel") ||
		    clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_CPU, 1, &s->dev,
				   NULL) != CL_SUCCESS)
			continue;
		if (clGetDeviceInfo(s->dev, CL_DEVICE_EXTENSIONS, sizeof(buf),
				    buf, NULL) != CL_SUCCESS ||
		    !strstr(buf, "cl_khr_external_semaphore_sync_fd"))
			return -EOPNOTSUPP;
		/* Export needs a kernel driver that can make fences. */
		clGetDeviceInfo(s->dev,
				CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, 0,
				NULL, &export_types);
		if (!export_types)
			return -EOPNOTSUPP;
		*ret = ps[i];
		return 0;
	}
	return -ENODEV;
}

static void *ext(cl_platform_id p, const char *name)
{
	return clGetExtensionFunctionAddressForPlatform(p, name);
}

static cl_int setup(struct cl_stage *s, cl_platform_id p)
{
	unsigned char *data = malloc(BYTES);
	cl_int err;
	size_t i;

	s->create_sema = ext(p, "clCreateSemaphoreWithPropertiesKHR");
	s->wait_sema = ext(p, "clEnqueueWaitSemaphoresKHR");
	s->signal_sema = ext(p, "clEnqueueSignalSemaphoresKHR");
	s->export_sema = ext(p, "clGetSemaphoreHandleForTypeKHR");
	s->release_sema = ext(p, "clReleaseSemaphoreKHR");
	if (!data || !s->create_sema || !s->wait_sema || !s->signal_sema ||
	    !s->export_sema || !s->release_sema) {
		free(data);
		return CL_INVALID_PLATFORM;
	}
	for (i = 0; i < BYTES; i++)
		data[i] = (unsigned char)(i * 7);

	s->ctx = clCreateContext(NULL, 1, &s->dev, NULL, NULL, &err);
	if (err == CL_SUCCESS)
		s->q = clCreateCommandQueueWithProperties(s->ctx, s->dev, NULL,
							  &err);
	if (err == CL_SUCCESS)
		s->src = clCreateBuffer(s->ctx, CL_MEM_COPY_HOST_PTR, BYTES,
					data, &err);
	if (err == CL_SUCCESS)
		s->dst = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, BYTES, NULL,
					&err);
	if (err == CL_SUCCESS)
		s->prog = clCreateProgramWithBuiltInKernels(s->ctx, 1, &s->dev,
							    "copy_u8", &err);
	if (err == CL_SUCCESS)
		s->kernel = clCreateKernel(s->prog, "copy_u8", &err);
	if (err == CL_SUCCESS)
		err = clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->dst);
	if (err == CL_SUCCESS)
		err = clSetKernelArg(s->kernel, 1, sizeof(cl_mem), &s->src);
	free(data);
	return err;
}

static void teardown(struct cl_stage *s)
{
	if (s->q)
		clFinish(s->q);
	if (s->copied)
		clReleaseEvent(s->copied);
	if (s->in)
		s->release_sema(s->in);
	if (s->out)
		s->release_sema(s->out);
	if (s->kernel)
		clReleaseKernel(s->kernel);
	if (s->prog)
		clReleaseProgram(s->prog);
	if (s->src)
		clReleaseMemObject(s->src);
	if (s->dst)
		clReleaseMemObject(s->dst);
	if (s->q)
		clReleaseCommandQueue(s->q);
	if (s->ctx)
		clReleaseContext(s->ctx);
}

/* Wait for @in_fd, copy, signal a semaphore; its sync_file in *ret_fd. */
static cl_int enqueue(struct cl_stage *s, int *in_fd, int *ret_fd)
{
	cl_semaphore_properties_khr in_props[] = {
		CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
		CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
		(cl_semaphore_properties_khr)*in_fd,
		0
	};
	cl_semaphore_properties_khr out_props[] = {
		CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
		CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR,
		CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
		CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR, 0
	};
	size_t global = BYTES;
	cl_int err;

	s->in = s->create_sema(s->ctx, in_props, &err);
	if (err != CL_SUCCESS)
		return err;
	*in_fd = -1; /* the import owns it now */
	s->out = s->create_sema(s->ctx, out_props, &err);
	if (err == CL_SUCCESS)
		err = s->wait_sema(s->q, 1, &s->in, NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueNDRangeKernel(s->q, s->kernel, 1, NULL, &global,
					     NULL, 0, NULL, &s->copied);
	if (err == CL_SUCCESS)
		err = s->signal_sema(s->q, 1, &s->out, NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clFlush(s->q);
	if (err == CL_SUCCESS)
		err = s->export_sema(s->out, s->dev,
				     CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
				     sizeof(*ret_fd), ret_fd, NULL);
	return err;
}

static cl_int copy_status(struct cl_stage *s)
{
	cl_int st = CL_QUEUED;

	clGetEventInfo(s->copied, CL_EVENT_COMMAND_EXECUTION_STATUS,
		       sizeof(st), &st, NULL);
	return st;
}

static bool copy_ran(void *data)
{
	cl_int st = copy_status(data);

	return st == CL_RUNNING || st == CL_COMPLETE;
}

static int check(struct cl_stage *s)
{
	unsigned char *out = malloc(BYTES);
	size_t i, wrong = 0;

	if (!out || clEnqueueReadBuffer(s->q, s->dst, CL_TRUE, 0, BYTES, out,
					0, NULL, NULL) != CL_SUCCESS) {
		free(out);
		return -EIO;
	}
	for (i = 0; i < BYTES; i++)
		wrong += out[i] != (unsigned char)(i * 7);
	free(out);
	return wrong ? -EIO : 0;
}

int pipeline_opencl(struct producer *prod, int *in_fd)
{
	struct cl_stage s = { 0 };
	cl_platform_id p;
	int out_fd = -1, r, ret = 1;
	cl_int err;

	r = find_device(&s, &p);
	if (r < 0) {
		printf("fenced-pipeline: SKIP: %s\n",
		       r == -ENODEV ? "no libaccel OpenCL platform (set "
				      "OCL_ICD_VENDORS)" :
				      "the device cannot export sync_fds");
		return EXIT_SKIP;
	}
	err = setup(&s, p);
	if (err != CL_SUCCESS) {
		ret = cl_fail("setting up OpenCL", err);
		goto out;
	}
	err = enqueue(&s, in_fd, &out_fd);
	if (err != CL_SUCCESS) {
		ret = cl_fail("enqueueing wait, kernel, signal", err);
		goto out;
	}
	printf("OpenCL: wait (imported sync_fd) -> copy_u8 -> signal; "
	       "exported as sync_file fd %d\n", out_fd);

	ret = consumer_check_order(prod, out_fd, copy_ran, &s);
	if (ret)
		goto out;
	ret = 1;
	if (copy_status(&s) != CL_COMPLETE) {
		fprintf(stderr, "fenced-pipeline: the sync_file signalled "
			"before the copy completed\n");
		goto out;
	}
	print_info(out_fd);
	r = check(&s);
	if (r < 0) {
		ret = fail("checking the result", r);
		goto out;
	}
	printf("consumer: %d bytes copied correctly through OpenCL\n", BYTES);
	ret = 0;
out:
	if (out_fd >= 0)
		close(out_fd);
	teardown(&s);
	return ret;
}
