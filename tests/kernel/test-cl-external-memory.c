/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_external_memory with cl_khr_external_memory_dma_buf through the
 * real loader: clCreateBufferWithProperties() on a dma-buf fd (no copy),
 * the acquire/release commands, the queries, and the specification's
 * errors. Errors and queries run on any host; the dma-buf round trip needs
 * a dma-buf heap and runs in the VM tier (kernel-cl-sharing).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "icd-test.h"
#include "peer.h"

static struct {
	clEnqueueAcquireExternalMemObjectsKHR_fn acquire;
	clEnqueueReleaseExternalMemObjectsKHR_fn release;
} ext;

static bool has_ext(struct icd_env *env, const char *name)
{
	char buf[4096];

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(buf),
			      buf, NULL));
	return strstr(buf, name) != NULL;
}

static int setup(void **state)
{
	struct icd_env *env;

	if (icd_env_setup(state) < 0)
		return -1;
	env = *state;
	ext.acquire = (clEnqueueAcquireExternalMemObjectsKHR_fn)
		clGetExtensionFunctionAddressForPlatform(env->platform,
			"clEnqueueAcquireExternalMemObjectsKHR");
	ext.release = (clEnqueueReleaseExternalMemObjectsKHR_fn)
		clGetExtensionFunctionAddressForPlatform(env->platform,
			"clEnqueueReleaseExternalMemObjectsKHR");
	return 0;
}

static void need_ext(struct icd_env *env)
{
	if (!has_ext(env, "cl_khr_external_memory_dma_buf"))
		skip();
	assert_true(has_ext(env, "cl_khr_external_memory"));
	assert_non_null(ext.acquire);
	assert_non_null(ext.release);
}

static void test_queries(void **state)
{
	struct icd_env *env = *state;
	cl_external_memory_handle_type_khr types[4];
	size_t size = 0;

	need_ext(env);
	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
			      sizeof(types), types, &size));
	assert_int_equal(size, sizeof(types[0]));
	assert_int_equal(types[0], CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR);
	CL_OK(clGetPlatformInfo(env->platform,
				CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
				sizeof(types), types, &size));
	assert_int_equal(size, sizeof(types[0]));
	assert_int_equal(types[0], CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR);
}

static void test_errors(void **state)
{
	struct icd_env *env = *state;
	int ev = eventfd(0, EFD_CLOEXEC), closed = dup(0);
	cl_mem_properties unknown[] = { 0x7777, 1, 0 };
	cl_mem_properties twice[] = {
		CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, (cl_mem_properties)ev,
		CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, (cl_mem_properties)ev, 0
	};
	cl_mem_properties bad_dev[] = {
		CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, (cl_mem_properties)ev,
		CL_DEVICE_HANDLE_LIST_KHR, (cl_mem_properties)(uintptr_t)&ev,
		CL_DEVICE_HANDLE_LIST_END_KHR, 0
	};
	cl_mem_properties list_only[] = {
		CL_DEVICE_HANDLE_LIST_KHR,
		(cl_mem_properties)(uintptr_t)env->device,
		CL_DEVICE_HANDLE_LIST_END_KHR, 0
	};
	cl_mem_properties not_dmabuf[] = {
		CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, (cl_mem_properties)ev, 0
	};
	cl_mem_properties gone[] = {
		CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, 0, 0
	};
	char host[64];
	cl_mem plain;
	cl_int err;

	need_ext(env);
	assert_true(ev >= 0 && closed >= 0);
	close(closed);
	gone[1] = (cl_mem_properties)closed;

	assert_null(clCreateBufferWithProperties(env->ctx, unknown, 0, 64,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_null(clCreateBufferWithProperties(env->ctx, twice, 0, 64, NULL,
						 &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_null(clCreateBufferWithProperties(env->ctx, bad_dev, 0, 64,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_DEVICE);
	assert_null(clCreateBufferWithProperties(env->ctx, list_only, 0, 64,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	/* the memory exists: no host pointer, no host-pointer flags */
	assert_null(clCreateBufferWithProperties(env->ctx, not_dmabuf, 0, 64,
						 host, &err));
	assert_int_equal(err, CL_INVALID_HOST_PTR);
	assert_null(clCreateBufferWithProperties(env->ctx, not_dmabuf,
						 CL_MEM_ALLOC_HOST_PTR, 64,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	/* fds that are no dma-buf */
	assert_null(clCreateBufferWithProperties(env->ctx, not_dmabuf, 0, 64,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateBufferWithProperties(env->ctx, gone, 0, 64, NULL,
						 &err));
	assert_int_equal(err, CL_INVALID_VALUE);

	/* acquire/release: external memory objects only */
	plain = clCreateBuffer(env->ctx, 0, 64, NULL, &err);
	CL_OK(err);
	assert_int_equal(ext.acquire(env->queue, 1, &plain, 0, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(ext.release(env->queue, 1, &plain, 0, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(ext.acquire(env->queue, 0, &plain, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(ext.acquire(env->queue, 1, NULL, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(ext.acquire(NULL, 0, NULL, 0, NULL, NULL),
			 CL_INVALID_COMMAND_QUEUE);
	/* nothing to acquire is fine: an ordering point */
	CL_OK(ext.acquire(env->queue, 0, NULL, 0, NULL, NULL));
	CL_OK(clReleaseMemObject(plain));
	close(ev);
}

/* A heap dma-buf as a cl_mem: writes land in the dma-buf itself. */
static void test_dmabuf_round_trip(void **state)
{
	struct icd_env *env = *state;
	cl_mem_properties props[] = {
		CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR, 0,
		CL_DEVICE_HANDLE_LIST_KHR, 0, CL_DEVICE_HANDLE_LIST_END_KHR, 0
	};
	cl_mem_properties got[8];
	uint32_t *view, v = 0x5eedf00d, pattern = 0x01020304, out = 0;
	cl_command_type type = 0;
	cl_event acq, rel;
	size_t size = 0;
	cl_mem m, part;
	cl_int err;
	int fd;

	need_ext(env);
	if (peer_heap_alloc(8192, O_RDWR, &fd) < 0)
		skip();
	props[1] = (cl_mem_properties)fd;
	props[3] = (cl_mem_properties)(uintptr_t)env->device;

	/* larger than the dma-buf: no */
	assert_null(clCreateBufferWithProperties(env->ctx, props, 0, 3 * 4096,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	assert_null(clCreateBufferWithProperties(env->ctx, props, 0, 0, NULL,
						 &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);

	m = clCreateBufferWithProperties(env->ctx, props, CL_MEM_READ_WRITE,
					 8192, NULL, &err);
	CL_OK(err);
	/* the fd stays the application's: the buffer holds its own */
	part = clCreateBufferWithProperties(env->ctx, props, 0, 4096, NULL,
					    &err);
	CL_OK(err);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, sizeof(got), got,
				 &size));
	assert_int_equal(size, sizeof(props));
	assert_memory_equal(got, props, sizeof(props));

	CL_OK(ext.acquire(env->queue, 1, &m, 0, NULL, &acq));
	CL_OK(clGetEventInfo(acq, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_ACQUIRE_EXTERNAL_MEM_OBJECTS_KHR);
	CL_OK(clEnqueueFillBuffer(env->queue, m, &pattern, 4, 0, 8192, 1, &acq,
				  NULL));
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_FALSE, 4096, 4, &v, 0,
				   NULL, NULL));
	CL_OK(ext.release(env->queue, 1, &m, 0, NULL, &rel));
	CL_OK(clWaitForEvents(1, &rel));
	CL_OK(clGetEventInfo(rel, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR);

	view = peer_mmap(fd, 8192, false);
	assert_non_null(view);
	assert_int_equal(view[0], pattern);
	assert_int_equal(view[1024], v);
	assert_int_equal(view[2047], pattern);
	munmap(view, 8192);
	/* the smaller buffer is the same memory */
	CL_OK(clEnqueueReadBuffer(env->queue, part, CL_TRUE, 4092, 4, &out, 0,
				  NULL, NULL));
	assert_int_equal(out, pattern);
	CL_OK(clReleaseEvent(acq));
	CL_OK(clReleaseEvent(rel));
	CL_OK(clReleaseMemObject(part));
	CL_OK(clReleaseMemObject(m));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_queries, setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_dmabuf_round_trip, setup,
						icd_env_teardown),
	};

	return ICD_TEST_RUN("cl-external-memory", tests);
}
