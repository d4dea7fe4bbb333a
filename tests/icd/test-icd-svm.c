/* SPDX-License-Identifier: MIT */
/*
 * Shared virtual memory through the ICD loader: allocation and its
 * errors, the SVM commands (copy, fill, map, unmap, migrate, free) in
 * queue order, kernels on SVM pointers (at an offset, through pointers
 * stored in SVM memory, on plain malloc() memory, with atomics), buffers
 * made on SVM memory, what the context frees when it goes, and two
 * kernels of an out-of-order queue running at once, seen through SVM.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "icd-test.h"

static const char *const src =
	"kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
	"typedef struct node { global struct node *next; int value; } node;\n"
	"kernel void walk(global node *head, global int *sum) {\n"
	"  int s = 0;\n"
	"  for (global node *n = head; n; n = n->next) s += n->value;\n"
	"  *sum = s;\n"
	"}\n"
	"kernel void count(volatile global atomic_int *c) {\n"
	"  atomic_fetch_add_explicit(c, 1, memory_order_relaxed,\n"
	"                            memory_scope_all_svm_devices);\n"
	"}\n"
	/* flags[0]: started, flags[1]: set by the other kernel */
	"kernel void wait_flag(volatile global atomic_int *flags,\n"
	"                      global int *seen) {\n"
	"  atomic_store_explicit(&flags[0], 1, memory_order_release,\n"
	"                        memory_scope_all_svm_devices);\n"
	"  for (ulong n = 0; n < 4000000000ul; n++)\n"
	"    if (atomic_load_explicit(&flags[1], memory_order_acquire,\n"
	"                             memory_scope_all_svm_devices))\n"
	"      break;\n"
	"  *seen = atomic_load_explicit(&flags[1], memory_order_acquire,\n"
	"                               memory_scope_all_svm_devices);\n"
	"}\n"
	"kernel void set_flag(volatile global atomic_int *flags) {\n"
	"  atomic_store_explicit(&flags[1], 1, memory_order_release,\n"
	"                        memory_scope_all_svm_devices);\n"
	"}\n";

static bool has_svm(struct icd_env *env, cl_device_svm_capabilities want)
{
	cl_device_svm_capabilities caps = 0;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES,
			      sizeof(caps), &caps, NULL));
	return (caps & want) == want;
}

static cl_kernel kernel(struct icd_env *env, cl_program *p, const char *name)
{
	cl_int err = CL_SUCCESS;
	cl_kernel k;

	*p = icd_test_build(env, src, "-cl-std=CL3.0");
	k = clCreateKernel(*p, name, &err);
	CL_OK(err);
	return k;
}

static void test_alloc(void **state)
{
	struct icd_env *env = *state;
	cl_ulong max_alloc = 0;
	void *p, *q;

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		skip();
	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
			      sizeof(max_alloc), &max_alloc, NULL));
	/* the default alignment is the largest type's, long16 */
	p = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 100, 0);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % 128, 0);
	q = clSVMAlloc(env->ctx, CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER |
					 CL_MEM_SVM_ATOMICS,
		       64, 4096);
	assert_non_null(q);
	assert_int_equal((uintptr_t)q % 4096, 0);
	clSVMFree(env->ctx, q);

	/* each refusal returns NULL */
	assert_null(clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0));
	assert_null(clSVMAlloc((cl_context)env->queue, CL_MEM_READ_WRITE, 64,
			       0));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 0, 0));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_READ_WRITE,
			       (size_t)max_alloc + 1, 0));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, SIZE_MAX, 0));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 3));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 1u << 31));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
			       64, 0));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_SVM_ATOMICS, 64, 0));
	assert_null(clSVMAlloc(env->ctx, CL_MEM_USE_HOST_PTR, 64, 0));

	/* freeing NULL, a foreign pointer or an inner one does nothing */
	clSVMFree(env->ctx, NULL);
	clSVMFree(env->ctx, (char *)p + 1);
	clSVMFree(NULL, p);
	memset(p, 0x5a, 100); /* still ours */
	clSVMFree(env->ctx, p);
}

static void test_commands(void **state)
{
	struct icd_env *env = *state;
	int *a, *b, pattern[2] = { 7, -7 }, i;
	cl_command_type type = 0;
	cl_event ev = NULL;
	const void *ptrs[2];
	size_t sizes[2] = { 64, 64 };

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		skip();
	a = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 1024 * sizeof(int), 0);
	b = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 1024 * sizeof(int), 0);
	assert_non_null(a);
	assert_non_null(b);

	/* fill: a two-int pattern over 1000 ints (not a power of two) */
	CL_OK(clEnqueueSVMMemFill(env->queue, a, pattern, sizeof(pattern),
				  1000 * sizeof(int), 0, NULL, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_SVM_MEMFILL);
	CL_OK(clReleaseEvent(ev));
	/* copy, blocking, after the fill in queue order */
	CL_OK(clEnqueueSVMMemcpy(env->queue, CL_TRUE, b, a, 1024 * sizeof(int),
				 0, NULL, NULL));
	CL_OK(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, b,
			      1024 * sizeof(int), 0, NULL, NULL));
	for (i = 0; i < 1000; i++)
		assert_int_equal(b[i], pattern[i % 2]);
	CL_OK(clEnqueueSVMUnmap(env->queue, b, 0, NULL, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_SVM_UNMAP);
	CL_OK(clReleaseEvent(ev));
	ptrs[0] = a;
	ptrs[1] = b;
	CL_OK(clEnqueueSVMMigrateMem(env->queue, 2, ptrs, sizes,
				     CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL,
				     NULL));
	CL_OK(clFinish(env->queue));

	/* errors */
	assert_int_equal(clEnqueueSVMMemcpy(env->queue, CL_TRUE, a + 1, a, 8,
					    0, NULL, NULL),
			 CL_MEM_COPY_OVERLAP);
	assert_int_equal(clEnqueueSVMMemcpy(env->queue, CL_TRUE, NULL, a, 8, 0,
					    NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMemcpy(NULL, CL_TRUE, b, a, 8, 0, NULL,
					    NULL),
			 CL_INVALID_COMMAND_QUEUE);
	assert_int_equal(clEnqueueSVMMemcpy(env->queue, CL_TRUE, b, a, 8, 1,
					    NULL, NULL),
			 CL_INVALID_EVENT_WAIT_LIST);
	assert_int_equal(clEnqueueSVMMemFill(env->queue, a, pattern, 3, 12, 0,
					     NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMemFill(env->queue, a, pattern, 8, 12, 0,
					     NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMemFill(env->queue, (char *)a + 4,
					     pattern, 8, 16, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMemFill(env->queue, a, NULL, 4, 16, 0,
					     NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, a, 0,
					 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMap(env->queue, CL_TRUE,
					 CL_MAP_READ |
						 CL_MAP_WRITE_INVALIDATE_REGION,
					 a, 4, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMUnmap(env->queue, NULL, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMigrateMem(env->queue, 0, ptrs, NULL, 0,
						0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMMigrateMem(env->queue, 1, ptrs, NULL,
						1u << 20, 0, NULL, NULL),
			 CL_INVALID_VALUE);
	assert_int_equal(clEnqueueSVMFree(env->queue, 1, NULL, NULL, NULL, 0,
					  NULL, NULL),
			 CL_INVALID_VALUE);
	clSVMFree(env->ctx, a);
	clSVMFree(env->ctx, b);
}

/* A user event holds the copy back: nothing is read before it fires. */
static void test_copy_waits(void **state)
{
	struct icd_env *env = *state;
	cl_int err = CL_SUCCESS;
	cl_event gate, done = NULL;
	int *a, *b;

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		skip();
	a = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 0);
	b = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 0);
	assert_non_null(a);
	assert_non_null(b);
	memset(b, 0, 64);
	a[0] = 1;
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(clEnqueueSVMMemcpy(env->queue, CL_FALSE, b, a, 64, 1, &gate,
				 &done));
	a[0] = 2; /* read when the copy runs, not when it was queued */
	assert_int_equal(b[0], 0);
	CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
	CL_OK(clWaitForEvents(1, &done));
	assert_int_equal(b[0], 2);
	CL_OK(clReleaseEvent(done));
	CL_OK(clReleaseEvent(gate));
	clSVMFree(env->ctx, a);
	clSVMFree(env->ctx, b);
}

static int frees_seen;

static void CL_CALLBACK free_cb(cl_command_queue q, cl_uint n, void *ptrs[],
				void *user_data)
{
	struct icd_env *env = user_data;

	assert_ptr_equal(q, env->queue);
	for (cl_uint i = 0; i < n; i++)
		clSVMFree(env->ctx, ptrs[i]);
	frees_seen += (int)n;
}

static void test_enqueue_free(void **state)
{
	struct icd_env *env = *state;
	void *p[2];
	cl_event ev = NULL;
	cl_command_type type = 0;

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		skip();
	p[0] = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 0);
	p[1] = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 0);
	assert_non_null(p[0]);
	assert_non_null(p[1]);
	frees_seen = 0;
	CL_OK(clEnqueueSVMFree(env->queue, 2, p, free_cb, env, 0, NULL, &ev));
	/* the list was copied: ours may change now */
	p[0] = p[1] = NULL;
	CL_OK(clWaitForEvents(1, &ev));
	CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
			     NULL));
	assert_int_equal(type, CL_COMMAND_SVM_FREE);
	CL_OK(clReleaseEvent(ev));
	assert_int_equal(frees_seen, 2);

	/* without a callback, the ICD frees them */
	p[0] = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64, 0);
	assert_non_null(p[0]);
	CL_OK(clEnqueueSVMFree(env->queue, 1, p, NULL, NULL, 0, NULL, NULL));
	CL_OK(clEnqueueSVMFree(env->queue, 0, NULL, NULL, NULL, 0, NULL,
			       NULL));
	CL_OK(clFinish(env->queue));
}

static void test_kernel_pointers(void **state)
{
	struct icd_env *env = *state;
	cl_program p;
	cl_kernel k = NULL;
	int *a, v = 3, i;

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) ||
	    !icd_test_have_compiler(env))
		skip();
	k = kernel(env, &p, "add");
	a = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), 0);
	assert_non_null(a);
	for (i = 0; i < 64; i++)
		a[i] = i;
	/* an address inside the allocation, not its base */
	CL_OK(clSetKernelArgSVMPointer(k, 0, a + 8));
	CL_OK(clSetKernelArg(k, 1, sizeof(v), &v));
	{
		size_t gws = 16;

		CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &gws,
					     NULL, 0, NULL, NULL));
	}
	CL_OK(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, a,
			      64 * sizeof(int), 0, NULL, NULL));
	for (i = 0; i < 64; i++)
		assert_int_equal(a[i], i >= 8 && i < 24 ? i + 3 : i);
	CL_OK(clEnqueueSVMUnmap(env->queue, a, 0, NULL, NULL));
	CL_OK(clFinish(env->queue));
	clSVMFree(env->ctx, a);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

struct node {
	struct node *next;
	int value;
};

/* Pointers stored in SVM memory are the kernel's pointers too. */
static void test_linked_list(void **state)
{
	struct icd_env *env = *state;
	struct node *nodes;
	cl_program p;
	cl_kernel k;
	int *sum, i;
	size_t one = 1;

	if (!has_svm(env, CL_DEVICE_SVM_FINE_GRAIN_BUFFER) ||
	    !icd_test_have_compiler(env))
		skip();
	k = kernel(env, &p, "walk");
	nodes = clSVMAlloc(env->ctx,
			   CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
			   10 * sizeof(*nodes), 0);
	sum = clSVMAlloc(env->ctx,
			 CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
			 sizeof(int), 0);
	assert_non_null(nodes);
	assert_non_null(sum);
	/* linked backwards through the array */
	for (i = 0; i < 10; i++) {
		nodes[i].value = i + 1;
		nodes[i].next = i ? &nodes[i - 1] : NULL;
	}
	CL_OK(clSetKernelArgSVMPointer(k, 0, &nodes[9]));
	CL_OK(clSetKernelArgSVMPointer(k, 1, sum));
	CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS,
				  sizeof(void *), (void *[]){ nodes }));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0,
				     NULL, NULL));
	CL_OK(clFinish(env->queue));
	assert_int_equal(*sum, 55);
	clSVMFree(env->ctx, nodes);
	clSVMFree(env->ctx, sum);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

/* Fine-grain system SVM: memory from malloc(), atomics shared with it. */
static void test_system_atomics(void **state)
{
	struct icd_env *env = *state;
	cl_bool on = CL_TRUE;
	cl_program p;
	cl_kernel k;
	atomic_int *c = malloc(sizeof(*c));
	size_t gws = 10000;

	assert_non_null(c);
	if (!has_svm(env, CL_DEVICE_SVM_FINE_GRAIN_SYSTEM |
				  CL_DEVICE_SVM_ATOMICS) ||
	    !icd_test_have_compiler(env)) {
		free(c);
		skip();
	}
	atomic_init(c, 5);
	k = kernel(env, &p, "count");
	CL_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
				  sizeof(on), &on));
	CL_OK(clSetKernelArgSVMPointer(k, 0, c));
	CL_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &gws, NULL, 0,
				     NULL, NULL));
	CL_OK(clFinish(env->queue));
	assert_int_equal(atomic_load(c), 10005);
	free(c);
	CL_OK(clReleaseKernel(k));
	CL_OK(clReleaseProgram(p));
}

/* CL_MEM_USE_HOST_PTR on SVM memory: a buffer that says so. */
static void test_buffer_on_svm(void **state)
{
	struct icd_env *env = *state;
	cl_int err = CL_SUCCESS;
	cl_bool uses = CL_FALSE;
	char host[64];
	char *s;
	cl_mem m;

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		skip();
	s = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, 4096, 0);
	assert_non_null(s);
	m = clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR, 1024, s + 1024,
			   &err);
	CL_OK(err);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof(uses),
				 &uses, NULL));
	assert_true(uses);
	memset(host, 0x33, sizeof(host));
	CL_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, sizeof(host),
				   host, 0, NULL, NULL));
	assert_int_equal(s[1024], 0x33);
	CL_OK(clReleaseMemObject(m));
	/* not past the allocation's end */
	assert_null(clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR, 3073,
				   s + 1024, &err));
	assert_int_equal(err, CL_INVALID_BUFFER_SIZE);

	m = clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR, sizeof(host), host,
			   &err);
	CL_OK(err);
	CL_OK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof(uses),
				 &uses, NULL));
	assert_false(uses);
	CL_OK(clReleaseMemObject(m));
	clSVMFree(env->ctx, s);
}

/* Allocations left when the context goes are freed with it (ASan). */
static void test_context_frees(void **state)
{
	struct icd_env *env = *state;
	cl_int err = CL_SUCCESS;
	cl_context ctx;

	if (!has_svm(env, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		skip();
	ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
	CL_OK(err);
	for (int i = 0; i < 100; i++)
		assert_non_null(clSVMAlloc(ctx, CL_MEM_READ_WRITE,
					   (size_t)(i + 1) * 100, 0));
	CL_OK(clReleaseContext(ctx));
}

/*
 * An out-of-order queue runs independent kernels at once: the first spins
 * (bounded) until the second, released only once the first has started,
 * sets a flag. Run one after the other, the first would give up unseen.
 */
static void test_out_of_order_concurrent(void **state)
{
	struct icd_env *env = *state;
	cl_queue_properties props[] = {
		CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0
	};
	cl_uint units = 0;
	cl_int err = CL_SUCCESS;
	cl_command_queue q;
	cl_program p, p2;
	cl_kernel wait_k, set_k;
	cl_event gate, ev[2];
	atomic_int *flags;
	int *seen;
	size_t one = 1;
	time_t t0;

	CL_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS,
			      sizeof(units), &units, NULL));
	if (units < 2 ||
	    !has_svm(env, CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
				  CL_DEVICE_SVM_ATOMICS) ||
	    !icd_test_have_compiler(env))
		skip();
	q = clCreateCommandQueueWithProperties(env->ctx, env->device, props,
					       &err);
	CL_OK(err);
	wait_k = kernel(env, &p, "wait_flag");
	set_k = kernel(env, &p2, "set_flag");
	flags = clSVMAlloc(env->ctx,
			   CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER |
				   CL_MEM_SVM_ATOMICS,
			   2 * sizeof(*flags), 0);
	seen = clSVMAlloc(env->ctx, CL_MEM_READ_WRITE, sizeof(*seen), 0);
	assert_non_null(flags);
	assert_non_null(seen);
	atomic_init(&flags[0], 0);
	atomic_init(&flags[1], 0);
	*seen = -1;
	gate = clCreateUserEvent(env->ctx, &err);
	CL_OK(err);
	CL_OK(clSetKernelArgSVMPointer(wait_k, 0, flags));
	CL_OK(clSetKernelArgSVMPointer(wait_k, 1, seen));
	CL_OK(clSetKernelArgSVMPointer(set_k, 0, flags));
	CL_OK(clEnqueueNDRangeKernel(q, wait_k, 1, NULL, &one, &one, 0, NULL,
				     &ev[0]));
	CL_OK(clEnqueueNDRangeKernel(q, set_k, 1, NULL, &one, &one, 1, &gate,
				     &ev[1]));
	CL_OK(clFlush(q));
	for (t0 = time(NULL); !atomic_load(&flags[0]) && time(NULL) - t0 < 30;)
		usleep(1000);
	assert_int_equal(atomic_load(&flags[0]), 1);
	CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
	CL_OK(clWaitForEvents(2, ev));
	assert_int_equal(*seen, 1);
	CL_OK(clReleaseEvent(ev[0]));
	CL_OK(clReleaseEvent(ev[1]));
	CL_OK(clReleaseEvent(gate));
	clSVMFree(env->ctx, flags);
	clSVMFree(env->ctx, seen);
	CL_OK(clReleaseKernel(wait_k));
	CL_OK(clReleaseKernel(set_k));
	CL_OK(clReleaseProgram(p));
	CL_OK(clReleaseProgram(p2));
	CL_OK(clReleaseCommandQueue(q));
}

#define T(f) cmocka_unit_test_setup_teardown(f, icd_env_setup, icd_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_alloc),
		T(test_commands),
		T(test_copy_waits),
		T(test_enqueue_free),
		T(test_kernel_pointers),
		T(test_linked_list),
		T(test_system_atomics),
		T(test_buffer_on_svm),
		T(test_context_frees),
		T(test_out_of_order_concurrent),
	};

	return ICD_TEST_RUN("icd-svm", tests);
}
