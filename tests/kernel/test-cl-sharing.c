/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL sharing extensions through the real loader: cl_khr_semaphore
 * (signal/wait ordering between queues, spec errors),
 * cl_khr_external_semaphore_sync_fd (export as a sync_file, import of a
 * vgem fence that gates later commands, re-import) and
 * cl_arm_import_memory_dma_buf (a dma-buf as a cl_mem without copy).
 * Semaphores alone run on any host; the kernel-fence and dma-buf cases
 * skip without vgem / a dma-buf heap (they run in the VM tier).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "icd-test.h"
#include "peer.h"

#define MS 1000000ll

typedef cl_int(CL_API_CALL *reimport_fn)(cl_semaphore_khr, cl_properties *,
					 int);
typedef cl_mem(CL_API_CALL *import_arm_fn)(cl_context, cl_mem_flags,
					   const cl_import_properties_arm *,
					   void *, size_t, cl_int *);

/* The extension entry points, as an application finds them. */
static struct {
	clCreateSemaphoreWithPropertiesKHR_fn create;
	clEnqueueWaitSemaphoresKHR_fn wait;
	clEnqueueSignalSemaphoresKHR_fn signal;
	clGetSemaphoreInfoKHR_fn info;
	clReleaseSemaphoreKHR_fn release;
	clRetainSemaphoreKHR_fn retain;
	clGetSemaphoreHandleForTypeKHR_fn handle;
	reimport_fn reimport;
	import_arm_fn import_arm;
} ext;

static bool has_ext(struct icd_env *env, const char *name)
{
	char buf[4096];

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(buf),
			      buf, NULL));
	return strstr(buf, name) != NULL;
}

static void *fn(struct icd_env *env, const char *name)
{
	void *p = clGetExtensionFunctionAddressForPlatform(env->platform,
							   name);

	assert_non_null(p);
	return p;
}

static int setup(void **state)
{
	struct icd_env *env;

	if (icd_env_setup(state) < 0)
		return -1;
	env = *state;
	ext.create = fn(env, "clCreateSemaphoreWithPropertiesKHR");
	ext.wait = fn(env, "clEnqueueWaitSemaphoresKHR");
	ext.signal = fn(env, "clEnqueueSignalSemaphoresKHR");
	ext.info = fn(env, "clGetSemaphoreInfoKHR");
	ext.release = fn(env, "clReleaseSemaphoreKHR");
	ext.retain = fn(env, "clRetainSemaphoreKHR");
	ext.handle = fn(env, "clGetSemaphoreHandleForTypeKHR");
	ext.reimport = (reimport_fn)fn(env, "clReImportSemaphoreSyncFdKHR");
	ext.import_arm = (import_arm_fn)fn(env, "clImportMemoryARM");
	return 0;
}

static cl_semaphore_khr sema_new(struct icd_env *env, bool exportable,
				 int import_fd)
{
	cl_semaphore_properties_khr props[8];
	cl_semaphore_khr s;
	cl_int err = 1;
	int n = 0;

	props[n++] = CL_SEMAPHORE_TYPE_KHR;
	props[n++] = CL_SEMAPHORE_TYPE_BINARY_KHR;
	if (exportable) {
		props[n++] = CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR;
		props[n++] = CL_SEMAPHORE_HANDLE_SYNC_FD_KHR;
		props[n++] = CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR;
	}
	if (import_fd >= 0) {
		props[n++] = CL_SEMAPHORE_HANDLE_SYNC_FD_KHR;
		props[n++] = import_fd;
	}
	props[n] = 0;
	s = ext.create(env->ctx, props, &err);
	assert_int_equal(err, CL_SUCCESS);
	assert_non_null(s);
	return s;
}

static cl_int event_status(cl_event e)
{
	cl_int s = 1;

	CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s),
			     &s, NULL));
	return s;
}

/* ---- cl_khr_semaphore -------------------------------------------------- */

static void test_signal_wait_order(void **state)
{
	struct icd_env *env = *state;
	cl_command_queue q2;
	cl_semaphore_khr s;
	cl_event gate, sig = NULL, wt = NULL, after = NULL;
	cl_mem buf;
	cl_int err, v = 42, out = 0;
	cl_command_type type = 0;

	assert_true(has_ext(env, "cl_khr_semaphore"));
	q2 = clCreateCommandQueueWithProperties(env->ctx, env->device, NULL,
						&err);
	CL_OK(err);
	buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
	CL_OK(err);
	s = sema_new(env, false, -1);
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);

	/* Queue 1 signals once the gate opens; queue 2 waits, then writes. */
	CL_OK(ext.signal(env->queue, 1, &s, NULL, 1, &gate, &sig));
	CL_OK(ext.wait(q2, 1, &s, NULL, 0, NULL, &wt));
	CL_OK(clEnqueueWriteBuffer(q2, buf, CL_FALSE, 0, 4, &v, 0, NULL,
				   &after));
	CL_OK(clGetEventInfo(wt, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_SEMAPHORE_WAIT_KHR);
	CL_OK(clFlush(q2));
	usleep(100000);
	assert_true(event_status(after) > CL_COMPLETE);
	assert_true(event_status(wt) > CL_COMPLETE);

	CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
	CL_OK(clWaitForEvents(1, &after));
	assert_int_equal(event_status(sig), CL_COMPLETE);
	CL_OK(clEnqueueReadBuffer(q2, buf, CL_TRUE, 0, 4, &out, 0, NULL, NULL));
	assert_int_equal(out, 42);

	clReleaseEvent(gate);
	clReleaseEvent(sig);
	clReleaseEvent(wt);
	clReleaseEvent(after);
	CL_OK(ext.release(s));
	clReleaseMemObject(buf);
	clReleaseCommandQueue(q2);
}

static void test_semaphore_errors(void **state)
{
	struct icd_env *env = *state;
	cl_semaphore_properties_khr no_type[] = { 0 };
	cl_semaphore_properties_khr bad_type[] = {
		CL_SEMAPHORE_TYPE_KHR, 7, 0
	};
	cl_semaphore_properties_khr unknown[] = {
		CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0x7777, 1,
		0
	};
	cl_semaphore_properties_khr bad_fd[] = {
		CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
		CL_SEMAPHORE_HANDLE_SYNC_FD_KHR, 0, 0
	};
	cl_semaphore_khr s, got = NULL;
	cl_uint refs = 0;
	cl_int err;
	int fd = -1, ev = eventfd(0, EFD_CLOEXEC);
	size_t sz = 0;

	assert_null(ext.create(NULL, no_type, &err));
	assert_int_equal(err, CL_INVALID_CONTEXT);
	assert_null(ext.create(env->ctx, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(ext.create(env->ctx, no_type, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(ext.create(env->ctx, bad_type, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_null(ext.create(env->ctx, unknown, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	/* An eventfd is no sync_file; it is left open for its owner. */
	bad_fd[3] = ev;
	if (has_ext(env, "cl_khr_external_semaphore_sync_fd")) {
		assert_null(ext.create(env->ctx, bad_fd, &err));
		assert_int_equal(err, CL_INVALID_VALUE);
		assert_true(fcntl(ev, F_GETFD) >= 0);
	}
	close(ev);

	s = sema_new(env, false, -1);
	CL_OK(ext.info(s, CL_SEMAPHORE_CONTEXT_KHR, sizeof(got), &got, NULL));
	assert_ptr_equal(got, env->ctx);
	CL_OK(ext.info(s, CL_SEMAPHORE_PROPERTIES_KHR, 0, NULL, &sz));
	assert_int_equal(sz, 3 * sizeof(cl_semaphore_properties_khr));
	assert_int_equal(ext.info(s, 0x1234, 0, NULL, &sz), CL_INVALID_VALUE);
	/* Nothing signalled: no wait, no export. */
	assert_int_equal(ext.wait(env->queue, 1, &s, NULL, 0, NULL, NULL),
			 CL_INVALID_OPERATION);
	assert_int_equal(ext.wait(env->queue, 0, &s, NULL, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(ext.wait(NULL, 1, &s, NULL, 0, NULL, NULL),
			 CL_INVALID_COMMAND_QUEUE);
	assert_int_equal(ext.handle(s, env->device,
				    CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
				    sizeof(fd), &fd, NULL),
			 CL_INVALID_VALUE); /* not made exportable */
	assert_int_equal(fd, -1);
	/* Only a semaphore made from a sync_fd can take another. */
	assert_int_equal(ext.reimport(s, NULL, 0), CL_INVALID_SEMAPHORE_KHR);
	CL_OK(ext.retain(s));
	CL_OK(ext.info(s, CL_SEMAPHORE_REFERENCE_COUNT_KHR, sizeof(refs),
		       &refs, NULL));
	assert_int_equal(refs, 2);
	CL_OK(ext.release(s));
	CL_OK(ext.release(s));
	assert_int_equal(ext.release(NULL), CL_INVALID_SEMAPHORE_KHR);

	/* One device in the list; two, or something else, fail. */
	{
		static const uint64_t junk[16];
		cl_semaphore_properties_khr one[] = {
			CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
			0x2053 /* CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR */,
			(cl_semaphore_properties_khr)env->device, 0, 0
		};
		cl_semaphore_properties_khr two[] = {
			CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
			0x2053, (cl_semaphore_properties_khr)env->device,
			(cl_semaphore_properties_khr)env->device, 0, 0
		};
		cl_semaphore_properties_khr bogus[] = {
			CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
			0x2053, (cl_semaphore_properties_khr)junk, 0, 0
		};

		s = ext.create(env->ctx, one, &err);
		CL_OK(err);
		CL_OK(ext.release(s));
		assert_null(ext.create(env->ctx, two, &err));
		assert_int_equal(err, CL_INVALID_PROPERTY);
		assert_null(ext.create(env->ctx, bogus, &err));
		assert_int_equal(err, CL_INVALID_DEVICE);
	}
}

/* ---- sync_fd: export and import ---------------------------------------- */

static bool can_export(struct icd_env *env)
{
	size_t sz = 0;

	if (!has_ext(env, "cl_khr_external_semaphore_sync_fd"))
		return false;
	CL_OK(clGetDeviceInfo(env->device,
			      CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, 0,
			      NULL, &sz));
	return sz > 0;
}

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void test_export_sync_fd(void **state)
{
	struct icd_env *env = *state;
	cl_semaphore_khr s;
	cl_event gate;
	cl_int err;
	int fd = -1;

	if (!can_export(env))
		skip();
	s = sema_new(env, true, -1);
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(ext.signal(env->queue, 1, &s, NULL, 1, &gate, NULL));
	CL_OK(ext.handle(s, env->device, CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
			 sizeof(fd), &fd, NULL));
	assert_true(fd >= 0);
	assert_false(readable(fd, 100));
	CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
	assert_true(readable(fd, 5000));
	close(fd);
	/* The export consumed the signal. */
	assert_int_equal(ext.handle(s, env->device,
				    CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
				    sizeof(fd), &fd, NULL),
			 CL_INVALID_OPERATION);
	clReleaseEvent(gate);
	CL_OK(ext.release(s));
	CL_OK(clFinish(env->queue));
}

/* A vgem "GPU job" gates a write through an imported semaphore. */
static void test_import_vgem(void **state)
{
	struct icd_env *env = *state;
	uint32_t handle, fence, fence2;
	uint64_t size;
	int card, dmabuf, sync_fd, sync2;
	cl_semaphore_khr s;
	cl_event after = NULL;
	cl_mem buf;
	cl_int err, v = 5;

	if (!has_ext(env, "cl_khr_external_semaphore_sync_fd") ||
	    peer_vgem_open(&card) < 0)
		skip();
	assert_int_equal(peer_vgem_create(card, 4096, &handle, &size), 0);
	assert_int_equal(peer_vgem_export(card, handle, true, &dmabuf), 0);
	assert_int_equal(peer_vgem_attach(card, handle, true, &fence), 0);
	assert_int_equal(peer_export_sync_file(dmabuf, false, &sync_fd), 0);

	buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
	CL_OK(err);
	/* Import transfers the fd to OpenCL. */
	s = sema_new(env, false, sync_fd);
	CL_OK(ext.wait(env->queue, 1, &s, NULL, 0, NULL, NULL));
	CL_OK(clEnqueueWriteBuffer(env->queue, buf, CL_FALSE, 0, 4, &v, 0,
				   NULL, &after));
	CL_OK(clFlush(env->queue));
	usleep(200000);
	assert_true(event_status(after) > CL_COMPLETE);
	assert_int_equal(peer_vgem_signal(card, fence), 0);
	CL_OK(clWaitForEvents(1, &after));
	clReleaseEvent(after);

	/* Re-import a second job's fence into the same semaphore. */
	assert_int_equal(peer_vgem_attach(card, handle, true, &fence2), 0);
	assert_int_equal(peer_export_sync_file(dmabuf, false, &sync2), 0);
	assert_int_equal(ext.reimport(s, NULL, -1), CL_INVALID_VALUE);
	CL_OK(ext.reimport(s, NULL, sync2));
	CL_OK(ext.wait(env->queue, 1, &s, NULL, 0, NULL, NULL));
	CL_OK(clEnqueueWriteBuffer(env->queue, buf, CL_FALSE, 0, 4, &v, 0,
				   NULL, &after));
	CL_OK(clFlush(env->queue));
	usleep(100000);
	assert_true(event_status(after) > CL_COMPLETE);
	assert_int_equal(peer_vgem_signal(card, fence2), 0);
	CL_OK(clWaitForEvents(1, &after));
	clReleaseEvent(after);

	CL_OK(ext.release(s));
	clReleaseMemObject(buf);
	close(dmabuf);
	peer_vgem_close(card, handle);
	close(card);
}

/* ---- cl_arm_import_memory_dma_buf -------------------------------------- */

static void test_import_dmabuf(void **state)
{
	struct icd_env *env = *state;
	cl_import_properties_arm props[] = {
		CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_DMA_BUF_ARM, 0
	};
	cl_import_properties_arm bad[] = { CL_IMPORT_TYPE_ARM, 0x9999, 0 };
	uint32_t *view, v = 0xabcd1234, out = 0;
	size_t sz = 0;
	cl_mem m;
	cl_int err;
	int fd, ev = eventfd(0, EFD_CLOEXEC);

	if (!has_ext(env, "cl_arm_import_memory_dma_buf") ||
	    peer_heap_alloc(8192, O_RDWR, &fd) < 0)
		skip();
	assert_null(ext.import_arm(env->ctx, 0, bad, &fd, 8192, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_null(ext.import_arm(env->ctx, 0, props, &ev, 4096, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(ext.import_arm(env->ctx, 0, props, &fd, 3 * 4096, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(ext.import_arm(env->ctx, 0, props, NULL, 4096, &err));
	assert_int_equal(err, CL_INVALID_VALUE);

	m = ext.import_arm(env->ctx, CL_MEM_READ_WRITE, props, &fd,
			   CL_IMPORT_MEMORY_WHOLE_ALLOCATION_ARM, &err);
	CL_OK(err);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(sz), &sz, NULL));
	assert_int_equal(sz, 8192);
	/* A write through OpenCL lands in the dma-buf itself. */
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 4096, 4, &v, 0,
				   NULL, NULL));
	view = peer_mmap(fd, 8192, false);
	assert_non_null(view);
	assert_int_equal(view[1024], 0xabcd1234);
	munmap(view, 8192);
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 4096, 4, &out, 0,
				  NULL, NULL));
	assert_int_equal(out, v);
	CL_OK(clReleaseMemObject(m));
	close(fd);
	close(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_signal_wait_order, setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_semaphore_errors, setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_export_sync_fd, setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_import_vgem, setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_import_dmabuf, setup,
						icd_env_teardown),
	};

	return ICD_TEST_RUN("cl-sharing", tests);
}
