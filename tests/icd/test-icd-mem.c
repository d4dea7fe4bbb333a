/* SPDX-License-Identifier: MIT */
/*
 * Buffers through the ICD loader: creation flags, sub-buffers, transfers
 * (plain and rectangular), fill, copy, map/unmap, host access flags,
 * destructor callbacks, and the errors of each.
 */
#include <stdlib.h>
#include <string.h>

#include "icd-test.h"

#define N 4096

static cl_mem buffer(struct icd_env *env, cl_mem_flags flags, size_t size,
		     void *host)
{
	cl_int err = CL_SUCCESS;
	cl_mem m = clCreateBuffer(env->ctx, flags, size, host, &err);

	CL_OK(err);
	assert_non_null(m);
	return m;
}

static void test_create_flags(void **state)
{
	struct icd_env *env = *state;
	unsigned char host[256], out[256];
	cl_mem_flags flags = 0;
	cl_mem m;
	void *p = NULL;
	size_t size = 0;
	cl_uint refs = 0;
	cl_context ctx = NULL;
	unsigned i;

	for (i = 0; i < sizeof(host); i++)
		host[i] = (unsigned char)i;

	/* COPY_HOST_PTR: contents copied at creation, host memory free */
	m = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(host),
		   host);
	memset(host, 0xee, sizeof(host));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	for (i = 0; i < sizeof(out); i++)
		assert_int_equal(out[i], (unsigned char)i);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(flags), &flags,
				 NULL));
	assert_int_equal(flags, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL));
	assert_int_equal(size, sizeof(host));
	CL_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof(p), &p, NULL));
	assert_null(p);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL));
	assert_ptr_equal(ctx, env->ctx);
	CL_OK(clRetainMemObject(m));
	CL_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs),
				 &refs, NULL));
	assert_int_equal(refs, 2);
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseMemObject(m));

	/* USE_HOST_PTR: the buffer is the host memory */
	m = buffer(env, CL_MEM_USE_HOST_PTR, sizeof(host), host);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof(p), &p, NULL));
	assert_ptr_equal(p, host);
	memset(out, 0x5a, sizeof(out));
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 16, 16, out, 0,
				   NULL, NULL));
	assert_int_equal(host[16], 0x5a);
	assert_int_equal(host[15], 0xee);
	p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 16, 16, 0,
			       NULL, NULL, NULL);
	assert_ptr_equal(p, host + 16);
	CL_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, NULL));
	CL_OK(clReleaseMemObject(m));

	/* ALLOC_HOST_PTR and the 3.0 constructor */
	m = clCreateBufferWithProperties(env->ctx, NULL, CL_MEM_ALLOC_HOST_PTR,
					 64, NULL, NULL);
	assert_non_null(m);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &size));
	assert_int_equal(size, 0);
	CL_OK(clReleaseMemObject(m));
}

static void test_create_errors(void **state)
{
	struct icd_env *env = *state;
	cl_ulong max = 0;
	char host[16];
	cl_int err = CL_SUCCESS;
	cl_mem_properties bad_props[] = { 0x7777, 0, 0 };

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
			      sizeof(max), &max, NULL));
	assert_null(clCreateBuffer(env->ctx, 0, 0, NULL, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	assert_null(clCreateBuffer(env->ctx, 0, max + 1, NULL, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	assert_null(clCreateBuffer(env->ctx, CL_MEM_READ_ONLY |
				   CL_MEM_WRITE_ONLY, 16, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateBuffer(env->ctx, CL_MEM_HOST_READ_ONLY |
				   CL_MEM_HOST_NO_ACCESS, 16, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR |
				   CL_MEM_COPY_HOST_PTR, 16, host, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateBuffer(env->ctx, (cl_mem_flags)1 << 40, 16, NULL,
				   &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR, 16, NULL,
				   &err));
	assert_int_equal(err, CL_INVALID_HOST_PTR);
	assert_null(clCreateBuffer(env->ctx, 0, 16, host, &err));
	assert_int_equal(err, CL_INVALID_HOST_PTR);
	assert_null(clCreateBuffer((cl_context)env->queue, 0, 16, NULL, &err));
	assert_int_equal(err, CL_INVALID_CONTEXT);
	assert_null(clCreateBufferWithProperties(env->ctx, bad_props, 0, 16,
						 NULL, &err));
	assert_int_equal(err, CL_INVALID_PROPERTY);
	assert_int_equal(clRetainMemObject((cl_mem)env->ctx),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(clGetMemObjectInfo((cl_mem)env->queue, CL_MEM_SIZE,
					    0, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
}

static void test_read_write_copy_fill(void **state)
{
	struct icd_env *env = *state;
	static unsigned a[N], b[N];
	cl_mem x = buffer(env, 0, sizeof(a), NULL);
	cl_mem y = buffer(env, 0, sizeof(a), NULL);
	unsigned pattern = 0xdeadbeef;
	cl_event ev = NULL;
	cl_command_type type = 0;
	unsigned i;

	for (i = 0; i < N; i++)
		a[i] = i * 3;
	CL_OK(clEnqueueWriteBuffer(env->queue, x, CL_FALSE, 0, sizeof(a), a,
				   0, NULL, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_WRITE_BUFFER);
	CL_OK(clEnqueueCopyBuffer(env->queue, x, y, 0, 0, sizeof(a), 1, &ev,
				  NULL));
	CL_OK(clReleaseEvent(ev));
	CL_OK(clEnqueueFillBuffer(env->queue, y, &pattern, sizeof(pattern),
				  16 * sizeof(unsigned), 16 * sizeof(unsigned),
				  0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, y, CL_TRUE, 0, sizeof(b), b, 0,
				  NULL, NULL));
	for (i = 0; i < N; i++)
		assert_int_equal(b[i], i >= 16 && i < 32 ? pattern : i * 3);

	/* copy within one buffer, disjoint ranges */
	CL_OK(clEnqueueCopyBuffer(env->queue, y, y, 0, 2048, 1024, 0, NULL,
				  NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, y, CL_TRUE, 2048, 1024, b, 0,
				  NULL, NULL));
	assert_int_equal(b[0], 0);
	assert_int_equal(b[16], pattern);

	/* errors */
	assert_int_equal(clEnqueueCopyBuffer(env->queue, y, y, 0, 8, 16, 0,
					     NULL, NULL),
			 CL_MEM_COPY_OVERLAP);
	assert_int_equal(clEnqueueReadBuffer(env->queue, x, CL_TRUE,
					     sizeof(a) - 4, 8, b, 0, NULL,
					     NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueReadBuffer(env->queue, x, CL_TRUE, 0, 0, b,
					     0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueWriteBuffer(env->queue, x, CL_TRUE, 0, 4,
					      NULL, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueFillBuffer(env->queue, x, &pattern, 3, 0, 12,
					     0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueFillBuffer(env->queue, x, &pattern, 4, 2, 12,
					     0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueReadBuffer(env->queue, (cl_mem)env->ctx,
					     CL_TRUE, 0, 4, b, 0, NULL, NULL),
			 CL_INVALID_MEM_OBJECT);
	assert_int_equal(clEnqueueReadBuffer((cl_command_queue)x, x, CL_TRUE,
					     0, 4, b, 0, NULL, NULL),
			 CL_INVALID_COMMAND_QUEUE);
	/* wait lists */
	assert_int_equal(clEnqueueReadBuffer(env->queue, x, CL_TRUE, 0, 4, b,
					     1, NULL, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
	ev = (cl_event)x;
	assert_int_equal(clEnqueueReadBuffer(env->queue, x, CL_TRUE, 0, 4, b,
					     1, &ev, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
	assert_int_equal(clEnqueueReadBuffer(env->queue, x, CL_TRUE, 0, 4, b,
					     0, &ev, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
	CL_OK(clReleaseMemObject(x));
	CL_OK(clReleaseMemObject(y));
}

static void test_other_context(void **state)
{
	struct icd_env *env = *state;
	cl_int err = CL_SUCCESS;
	cl_context ctx2 = clCreateContext(NULL, 1, &env->device, NULL, NULL,
					  &err);
	cl_mem m;
	cl_event ev;
	char b[4];

	CL_OK(err);
	m = clCreateBuffer(ctx2, 0, 16, NULL, &err);
	CL_OK(err);
	assert_int_equal(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, 4, b,
					     0, NULL, NULL),
			 CL_INVALID_CONTEXT);
	ev = clCreateUserEvent(ctx2, &err);
	CL_OK(err);
	assert_int_equal(clEnqueueMarkerWithWaitList(env->queue, 1, &ev, NULL),
			 CL_INVALID_CONTEXT);
	CL_OK(clSetUserEventStatus(ev, CL_COMPLETE));
	CL_OK(clReleaseEvent(ev));
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseContext(ctx2));
}

static void test_host_access_flags(void **state)
{
	struct icd_env *env = *state;
	unsigned char b[16] = { 0 };
	cl_mem ro = buffer(env, CL_MEM_HOST_READ_ONLY, 16, NULL);
	cl_mem wo = buffer(env, CL_MEM_HOST_WRITE_ONLY, 16, NULL);
	cl_mem na = buffer(env, CL_MEM_HOST_NO_ACCESS | CL_MEM_COPY_HOST_PTR,
			   16, b);
	cl_int err = CL_SUCCESS;

	assert_int_equal(clEnqueueWriteBuffer(env->queue, ro, CL_TRUE, 0, 4, b,
					      0, NULL, NULL),
			 CL_INVALID_OPERATION);
	CL_OK(clEnqueueReadBuffer(env->queue, ro, CL_TRUE, 0, 4, b, 0, NULL,
				  NULL));
	assert_int_equal(clEnqueueReadBuffer(env->queue, wo, CL_TRUE, 0, 4, b,
					     0, NULL, NULL),
			 CL_INVALID_OPERATION);
	CL_OK(clEnqueueWriteBuffer(env->queue, wo, CL_TRUE, 0, 4, b, 0, NULL,
				   NULL));
	assert_null(clEnqueueMapBuffer(env->queue, na, CL_TRUE, CL_MAP_READ, 0,
				       4, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_OPERATION);
	assert_null(clEnqueueMapBuffer(env->queue, ro, CL_TRUE, CL_MAP_WRITE,
				       0, 4, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_OPERATION);
	CL_OK(clReleaseMemObject(ro));
	CL_OK(clReleaseMemObject(wo));
	CL_OK(clReleaseMemObject(na));
}

static void test_sub_buffers(void **state)
{
	struct icd_env *env = *state;
	cl_uint align_bits = 0;
	size_t align, off = 0;
	cl_buffer_region region;
	cl_mem parent, sub, child, assoc = NULL;
	cl_mem_flags flags = 0;
	unsigned char data[1024], out[64];
	cl_int err = CL_SUCCESS;
	unsigned i;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
			      sizeof(align_bits), &align_bits, NULL));
	align = align_bits / 8;
	assert_true(align && 4 * align <= sizeof(data));
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7);
	parent = buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
			sizeof(data), data);
	region.origin = align;
	region.size = 64;
	sub = clCreateSubBuffer(parent, CL_MEM_READ_ONLY,
				CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
	CL_OK(err);
	CL_OK(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 0, 64, out, 0,
				  NULL, NULL));
	for (i = 0; i < 64; i++)
		assert_int_equal(out[i], (unsigned char)((align + i) * 7));
	CL_OK(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT,
				 sizeof(assoc), &assoc, NULL));
	assert_ptr_equal(assoc, parent);
	CL_OK(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof(off), &off, NULL));
	assert_int_equal(off, align);
	CL_OK(clGetMemObjectInfo(sub, CL_MEM_FLAGS, sizeof(flags), &flags,
				 NULL));
	assert_true(flags & CL_MEM_READ_ONLY);
	/* a sub-buffer overlapping its parent: copies are refused */
	assert_int_equal(clEnqueueCopyBuffer(env->queue, parent, sub,
					     align + 8, 0, 16, 0, NULL, NULL),
			 CL_MEM_COPY_OVERLAP);

	/* errors */
	assert_null(clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION,
				      &region, &err));
	assert_int_equal(err, CL_INVALID_MEM_OBJECT);
	region.origin = 1;
	assert_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION,
				      &region, &err));
	assert_int_equal(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
	region.origin = 0;
	region.size = sizeof(data) + 1;
	assert_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION,
				      &region, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	region.size = 0;
	assert_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION,
				      &region, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
	region.size = 16;
	assert_null(clCreateSubBuffer(parent, CL_MEM_USE_HOST_PTR,
				      CL_BUFFER_CREATE_TYPE_REGION, &region,
				      &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateSubBuffer(parent, 0, 0x7777, &region, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	CL_OK(clReleaseMemObject(parent)); /* the sub-buffer keeps it */
	/* a read-only parent cannot have a writable child */
	parent = buffer(env, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 256,
			NULL);
	assert_null(clCreateSubBuffer(parent, CL_MEM_WRITE_ONLY,
				      CL_BUFFER_CREATE_TYPE_REGION, &region,
				      &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clCreateSubBuffer(parent, CL_MEM_HOST_WRITE_ONLY,
				      CL_BUFFER_CREATE_TYPE_REGION, &region,
				      &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	/* unspecified access is inherited */
	child = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION,
				  &region, &err);
	CL_OK(err);
	CL_OK(clGetMemObjectInfo(child, CL_MEM_FLAGS, sizeof(flags), &flags,
				 NULL));
	assert_int_equal(flags, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
	CL_OK(clReleaseMemObject(parent)); /* the child keeps it */
	CL_OK(clReleaseMemObject(child));
	CL_OK(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 0, 8, out, 0, NULL,
				  NULL));
	CL_OK(clReleaseMemObject(sub));
}

static void test_map_unmap(void **state)
{
	struct icd_env *env = *state;
	cl_mem m = buffer(env, 0, N, NULL);
	unsigned char *p, *q, out[N];
	cl_uint count = 9;
	cl_event ev = NULL;
	cl_int err = CL_SUCCESS;
	int x;

	p = clEnqueueMapBuffer(env->queue, m, CL_TRUE,
			       CL_MAP_WRITE_INVALIDATE_REGION, 0, N, 0, NULL,
			       NULL, &err);
	CL_OK(err);
	memset(p, 0x42, N);
	q = clEnqueueMapBuffer(env->queue, m, CL_FALSE, CL_MAP_READ, 128, 16, 0,
			       NULL, &ev, &err);
	CL_OK(err);
	CL_OK(clWaitForEvents(1, &ev));
	CL_OK(clReleaseEvent(ev));
	assert_int_equal(q[0], 0x42);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(count), &count,
				 NULL));
	assert_int_equal(count, 2);
	CL_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, &ev));
	CL_OK(clEnqueueUnmapMemObject(env->queue, m, q, 1, &ev, NULL));
	CL_OK(clReleaseEvent(ev));
	CL_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL,
				  NULL));
	assert_int_equal(out[N - 1], 0x42);

	/* errors */
	assert_int_equal(clEnqueueUnmapMemObject(env->queue, m, &x, 0, NULL,
						 NULL),
			 CL_INVALID_VALUE);
	assert_null(clEnqueueMapBuffer(env->queue, m, CL_TRUE,
				       CL_MAP_READ |
					       CL_MAP_WRITE_INVALIDATE_REGION,
				       0, 16, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	assert_null(clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, N,
				       16, 0, NULL, NULL, &err));
	assert_int_equal(err, CL_INVALID_VALUE);
	CL_OK(clReleaseMemObject(m));
}

static void test_rect(void **state)
{
	struct icd_env *env = *state;
	enum { W = 16, H = 8, D = 2 };
	unsigned char host[W * H * D], out[W * H * D];
	const size_t zero[3] = { 0, 0, 0 };
	const size_t whole[3] = { W, H, D };
	const size_t box_origin[3] = { 2, 1, 0 };
	const size_t box[3] = { 4, 3, 2 };
	const size_t dst_origin[3] = { 8, 4, 0 };
	cl_mem m = buffer(env, 0, sizeof(host), NULL);
	cl_mem c = buffer(env, 0, sizeof(host), NULL);
	unsigned x, y, z;

	for (x = 0; x < sizeof(host); x++)
		host[x] = (unsigned char)x;
	CL_OK(clEnqueueWriteBufferRect(env->queue, m, CL_FALSE, zero, zero,
				       whole, W, W * H, W, W * H, host, 0, NULL,
				       NULL));
	memset(out, 0, sizeof(out));
	/* a 4x3x2 box read into the same place of a host array */
	CL_OK(clEnqueueReadBufferRect(env->queue, m, CL_TRUE, box_origin,
				      box_origin, box, W, W * H, W, W * H, out,
				      0, NULL, NULL));
	for (z = 0; z < D; z++)
		for (y = 0; y < H; y++)
			for (x = 0; x < W; x++) {
				unsigned i = z * W * H + y * W + x;
				bool in = x >= 2 && x < 6 && y >= 1 && y < 4;

				assert_int_equal(out[i], in ? host[i] : 0);
			}
	/* copy the box elsewhere in another buffer */
	CL_OK(clEnqueueCopyBufferRect(env->queue, m, c, box_origin, dst_origin,
				      box, W, W * H, W, W * H, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, c, CL_TRUE, 0, sizeof(out), out,
				  0, NULL, NULL));
	assert_int_equal(out[1 * W * H + 4 * W + 8],
			 host[1 * W * H + 1 * W + 2]);
	assert_int_equal(out[0], 0);
	/* within one buffer: disjoint boxes work, overlapping ones not */
	CL_OK(clEnqueueCopyBufferRect(env->queue, m, m, box_origin, dst_origin,
				      box, W, W * H, W, W * H, 0, NULL, NULL));
	assert_int_equal(clEnqueueCopyBufferRect(env->queue, m, m, zero,
						 box_origin, box, W, W * H, W,
						 W * H, 0, NULL, NULL),
			 CL_MEM_COPY_OVERLAP);
	/* errors: pitches, bounds */
	assert_int_equal(clEnqueueReadBufferRect(env->queue, m, CL_TRUE, zero,
						 zero, whole, W - 1, 0, W, 0,
						 out, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueReadBufferRect(env->queue, m, CL_TRUE,
						 box_origin, zero, whole, W,
						 W * H, W, W * H, out, 0, NULL,
						 NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueReadBufferRect(env->queue, m, CL_TRUE, zero,
						 zero, zero, W, 0, W, 0, out,
						 0, NULL, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseMemObject(m));
	CL_OK(clReleaseMemObject(c));
}

static unsigned mem_destructor_calls;

static void CL_CALLBACK mem_destructor(cl_mem m, void *data)
{
	(void)m;
	mem_destructor_calls = mem_destructor_calls * 10 +
			       (unsigned)(uintptr_t)data;
}

static void test_destructor_and_migrate(void **state)
{
	struct icd_env *env = *state;
	cl_mem m = buffer(env, 0, 64, NULL);
	cl_event ev = NULL;
	cl_command_type type = 0;

	CL_OK(clEnqueueMigrateMemObjects(env->queue, 1, &m,
					 CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL,
					 &ev));
	CL_OK(clWaitForEvents(1, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_MIGRATE_MEM_OBJECTS);
	CL_OK(clReleaseEvent(ev));
	assert_int_equal(clEnqueueMigrateMemObjects(env->queue, 0, &m, 0, 0,
						    NULL, NULL),
			 CL_INVALID_VALUE);

	mem_destructor_calls = 0;
	CL_OK(clSetMemObjectDestructorCallback(m, mem_destructor, (void *)1));
	CL_OK(clSetMemObjectDestructorCallback(m, mem_destructor, (void *)2));
	assert_int_equal(clSetMemObjectDestructorCallback(m, NULL, NULL),
			 CL_INVALID_VALUE);
	CL_OK(clReleaseMemObject(m));
	assert_int_equal(mem_destructor_calls, 21);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)
	const struct CMUnitTest tests[] = {
		T(test_create_flags),
		T(test_create_errors),
		T(test_read_write_copy_fill),
		T(test_other_context),
		T(test_host_access_flags),
		T(test_sub_buffers),
		T(test_map_unmap),
		T(test_rect),
		T(test_destructor_and_migrate),
	};
#undef T

	return ICD_TEST_RUN("icd-mem", tests);
}
