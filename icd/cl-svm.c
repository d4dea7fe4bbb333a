/* SPDX-License-Identifier: MIT */
/*
 * Shared virtual memory on devices whose kernels work on host memory at
 * host addresses (ACCEL_DEVICE_CAP_HOST_SVM: the CPU device). There, every
 * kind of SVM is the same thing: an SVM allocation is host memory the
 * context keeps a record of, a kernel argument is the address itself
 * (accel_kernel_set_arg_host_ptr()), maps and migrations are only the
 * ordering points of the queue, and copies and fills are host functions
 * run in queue order. The context's allocations are an address-sorted
 * array under its lock, for clSVMFree() and CL_MEM_USES_SVM_POINTER.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

/* Above this, clSVMAlloc() refuses the alignment (2 MiB: a huge page). */
#define SVM_MAX_ALIGNMENT ((cl_uint)2 << 20)
/* The default: the largest OpenCL C type, long16 */
#define SVM_DEFAULT_ALIGNMENT 128u

cl_device_svm_capabilities icd_device_svm_caps(cl_device_id d)
{
	if (!(d->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_HOST_SVM))
		return 0;
	/* host memory, coherent: every kind, atomics included */
	return CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
	       CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
	       CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS;
}

cl_device_svm_capabilities icd_context_svm_caps(cl_context ctx)
{
	cl_device_svm_capabilities caps = 0;

	for (cl_uint i = 0; i < ctx->n_devices; i++)
		caps |= icd_device_svm_caps(ctx->devices[i]);
	return caps;
}

/* Index of the first allocation whose base is above @p (under the lock). */
static size_t svm_upper(cl_context ctx, const void *p)
{
	size_t lo = 0, hi = ctx->n_svm;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)ctx->svm[mid].ptr <= (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t icd_svm_room(cl_context ctx, const void *p)
{
	size_t room = 0, i;

	pthread_mutex_lock(&ctx->lock);
	i = svm_upper(ctx, p);
	if (i > 0) {
		const struct icd_svm *a = &ctx->svm[i - 1];
		uintptr_t off = (uintptr_t)p - (uintptr_t)a->ptr;

		if (off < a->size)
			room = a->size - off;
	}
	pthread_mutex_unlock(&ctx->lock);
	return room;
}

void icd_svm_free_all(cl_context ctx)
{
	for (size_t i = 0; i < ctx->n_svm; i++)
		free(ctx->svm[i].ptr);
	free(ctx->svm);
	ctx->svm = NULL;
	ctx->n_svm = ctx->cap_svm = 0;
}

static bool svm_flags_valid(cl_context ctx, cl_svm_mem_flags flags)
{
	const cl_svm_mem_flags known = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				       CL_MEM_READ_ONLY |
				       CL_MEM_SVM_FINE_GRAIN_BUFFER |
				       CL_MEM_SVM_ATOMICS;
	cl_svm_mem_flags access = flags & (CL_MEM_READ_WRITE |
					   CL_MEM_WRITE_ONLY |
					   CL_MEM_READ_ONLY);
	cl_device_svm_capabilities caps = icd_context_svm_caps(ctx);

	if (flags & ~known)
		return false;
	if (access & (access - 1)) /* more than one access flag */
		return false;
	if ((flags & CL_MEM_SVM_ATOMICS) &&
	    !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER))
		return false;
	if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
		return false;
	if ((flags & CL_MEM_SVM_FINE_GRAIN_BUFFER) &&
	    !(caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER))
		return false;
	return !(flags & CL_MEM_SVM_ATOMICS) || (caps & CL_DEVICE_SVM_ATOMICS);
}

/* The largest allocation every SVM device of the context takes. */
static uint64_t svm_max_size(cl_context ctx)
{
	uint64_t max = UINT64_MAX;

	for (cl_uint i = 0; i < ctx->n_devices; i++) {
		cl_device_id d = ctx->devices[i];

		if (icd_device_svm_caps(d))
			max = ICD_MIN(max,
				      d->u64[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE]);
	}
	return max;
}

void *CL_API_CALL clSVMAlloc(cl_context ctx, cl_svm_mem_flags flags,
			     size_t size, cl_uint alignment)
{
	struct icd_svm *slot;
	void *p = NULL;
	size_t i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		return NULL;
	if (!svm_flags_valid(ctx, flags) || size == 0 ||
	    size > svm_max_size(ctx))
		return NULL;
	if (alignment & (alignment - 1) || alignment > SVM_MAX_ALIGNMENT)
		return NULL;
	if (alignment < SVM_DEFAULT_ALIGNMENT)
		alignment = SVM_DEFAULT_ALIGNMENT;
	if (posix_memalign(&p, alignment, size))
		return NULL;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_svm == ctx->cap_svm) {
		size_t cap = ctx->cap_svm ? ctx->cap_svm * 2 : 16;
		struct icd_svm *a = reallocarray(ctx->svm, cap, sizeof(*a));

		if (!a) {
			pthread_mutex_unlock(&ctx->lock);
			free(p);
			return NULL;
		}
		ctx->svm = a;
		ctx->cap_svm = cap;
	}
	i = svm_upper(ctx, p);
	memmove(&ctx->svm[i + 1], &ctx->svm[i],
		(ctx->n_svm - i) * sizeof(*ctx->svm));
	slot = &ctx->svm[i];
	slot->ptr = p;
	slot->size = size;
	slot->flags = flags;
	ctx->n_svm++;
	pthread_mutex_unlock(&ctx->lock);
	return p;
}

void CL_API_CALL clSVMFree(cl_context ctx, void *ptr)
{
	void *found = NULL;
	size_t i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT) || !ptr)
		return;
	pthread_mutex_lock(&ctx->lock);
	i = svm_upper(ctx, ptr);
	/* only the base of an allocation of this context frees it */
	if (i > 0 && ctx->svm[i - 1].ptr == ptr) {
		found = ptr;
		memmove(&ctx->svm[i - 1], &ctx->svm[i],
			(ctx->n_svm - i) * sizeof(*ctx->svm));
		ctx->n_svm--;
	}
	pthread_mutex_unlock(&ctx->lock);
	free(found);
}

/* ---- commands ------------------------------------------------------------ */

/* A queue whose device reaches SVM, and its wait list. */
static cl_int svm_begin(cl_command_queue q, cl_uint n, const cl_event *list,
			struct icd_wait *w)
{
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!icd_device_svm_caps(q->dev))
		return CL_INVALID_OPERATION;
	return icd_wait_init(q, n, list, w);
}

/*
 * Queue @fn as a host function after @w; hand out the event. @data is the
 * command's, NULL if its allocation failed.
 */
static cl_int svm_host_fn(cl_command_queue q, cl_command_type type,
			  accel_host_fn fn, void *data, void (*free_fn)(void *),
			  struct icd_wait *w, bool blocking, cl_event *event)
{
	struct accel_fence *fence = NULL;
	int e;

	if (!data) {
		icd_wait_fini(w);
		return CL_OUT_OF_HOST_MEMORY;
	}
	e = accel_queue_host_fn(q->q, fn, data, free_fn, w->n, w->fences,
				&fence);
	icd_wait_fini(w);
	if (e < 0)
		return icd_error(e);
	return icd_enqueue_done(q, type, fence, blocking, event);
}

/* A command with nothing to do but order: maps, unmaps, migrations. */
static cl_int svm_marker(cl_command_queue q, cl_command_type type,
			 struct icd_wait *w, bool blocking, cl_event *event)
{
	struct accel_fence *fence = NULL;
	int e;

	e = accel_queue_marker(q->q, w->n, w->fences, &fence);
	icd_wait_fini(w);
	if (e < 0)
		return icd_error(e);
	return icd_enqueue_done(q, type, fence, blocking, event);
}

struct svm_copy {
	void *dst;
	const void *src;
	size_t size;
};

static int copy_run(void *data)
{
	struct svm_copy *c = data;

	memcpy(c->dst, c->src, c->size);
	return 0;
}

cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking,
				      void *dst, const void *src, size_t size,
				      cl_uint n, const cl_event *list,
				      cl_event *event)
{
	struct svm_copy *c;
	struct icd_wait w;
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
	cl_int r;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!dst || !src)
		return CL_INVALID_VALUE;
	if (size > UINTPTR_MAX - d || size > UINTPTR_MAX - s)
		return CL_INVALID_VALUE;
	if (size && d < s + size && s < d + size)
		return CL_MEM_COPY_OVERLAP;
	r = svm_begin(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	c = malloc(sizeof(*c));
	if (c)
		*c = (struct svm_copy){ dst, src, size };
	return svm_host_fn(q, CL_COMMAND_SVM_MEMCPY, copy_run, c, free, &w,
			   blocking, event);
}

struct svm_fill {
	void *ptr;
	size_t size;
	size_t pattern_size;
	uint8_t pattern[128];
};

static int fill_run(void *data)
{
	struct svm_fill *f = data;
	uint8_t *p = f->ptr;
	size_t done;

	if (!f->size)
		return 0;
	memcpy(p, f->pattern, f->pattern_size);
	/* double what is written until the rest fits */
	for (done = f->pattern_size; done < f->size;) {
		size_t n = ICD_MIN(done, f->size - done);

		memcpy(p + done, p, n);
		done += n;
	}
	return 0;
}

cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue q, void *ptr,
				       const void *pattern, size_t pattern_size,
				       size_t size, cl_uint n,
				       const cl_event *list, cl_event *event)
{
	struct svm_fill *f;
	struct icd_wait w;
	cl_int r;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!ptr || !pattern || pattern_size == 0 ||
	    pattern_size & (pattern_size - 1) || pattern_size > 128 ||
	    (uintptr_t)ptr % pattern_size || size % pattern_size ||
	    size > UINTPTR_MAX - (uintptr_t)ptr)
		return CL_INVALID_VALUE;
	r = svm_begin(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	f = malloc(sizeof(*f));
	if (f) {
		f->ptr = ptr;
		f->size = size;
		f->pattern_size = pattern_size;
		/* the caller may reuse the pattern once this returns */
		memcpy(f->pattern, pattern, pattern_size);
	}
	return svm_host_fn(q, CL_COMMAND_SVM_MEMFILL, fill_run, f, free, &w,
			   false, event);
}

cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue q, cl_bool blocking,
				   cl_map_flags flags, void *ptr, size_t size,
				   cl_uint n, const cl_event *list,
				   cl_event *event)
{
	struct icd_wait w;
	cl_int r;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!ptr || size == 0 ||
	    flags & ~(cl_map_flags)(CL_MAP_READ | CL_MAP_WRITE |
				    CL_MAP_WRITE_INVALIDATE_REGION) ||
	    ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
	     (flags & (CL_MAP_READ | CL_MAP_WRITE))))
		return CL_INVALID_VALUE;
	r = svm_begin(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	/* the host sees the memory as it is: the map only orders */
	return svm_marker(q, CL_COMMAND_SVM_MAP, &w, blocking, event);
}

cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue q, void *ptr,
				     cl_uint n, const cl_event *list,
				     cl_event *event)
{
	struct icd_wait w;
	cl_int r;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!ptr)
		return CL_INVALID_VALUE;
	r = svm_begin(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	return svm_marker(q, CL_COMMAND_SVM_UNMAP, &w, false, event);
}

cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue q, cl_uint num,
					  const void **ptrs,
					  const size_t *sizes,
					  cl_mem_migration_flags flags,
					  cl_uint n, const cl_event *list,
					  cl_event *event)
{
	struct icd_wait w;
	cl_int r;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (num == 0 || !ptrs ||
	    flags & ~(cl_mem_migration_flags)(
			    CL_MIGRATE_MEM_OBJECT_HOST |
			    CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
		return CL_INVALID_VALUE;
	for (cl_uint i = 0; i < num; i++)
		if (!ptrs[i])
			return CL_INVALID_VALUE;
	(void)sizes; /* host memory: nothing moves */
	r = svm_begin(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	return svm_marker(q, CL_COMMAND_SVM_MIGRATE_MEM, &w, false, event);
}

struct svm_free {
	cl_command_queue q; /* held */
	void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *);
	void *user_data;
	cl_uint num;
	void *ptrs[];
};

static int free_run(void *data)
{
	struct svm_free *f = data;

	if (f->fn)
		f->fn(f->q, f->num, f->ptrs, f->user_data);
	else
		for (cl_uint i = 0; i < f->num; i++)
			clSVMFree(f->q->ctx, f->ptrs[i]);
	return 0;
}

static void free_free(void *data)
{
	struct svm_free *f = data;

	icd_put(f->q);
	free(f);
}

cl_int CL_API_CALL clEnqueueSVMFree(
	cl_command_queue q, cl_uint num, void *ptrs[],
	void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *),
	void *user_data, cl_uint n, const cl_event *list, cl_event *event)
{
	struct svm_free *f;
	struct icd_wait w;
	cl_int r;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (!num != !ptrs)
		return CL_INVALID_VALUE;
	r = svm_begin(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	/* the list is copied: the caller's array may go once this returns */
	f = malloc(sizeof(*f) + (size_t)num * sizeof(void *));
	if (f) {
		icd_hold(q);
		f->q = q;
		f->fn = fn;
		f->user_data = user_data;
		f->num = num;
		if (num)
			memcpy(f->ptrs, ptrs, (size_t)num * sizeof(void *));
	}
	return svm_host_fn(q, CL_COMMAND_SVM_FREE, free_run, f, free_free, &w,
			   false, event);
}
