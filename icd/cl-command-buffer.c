/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_command_buffer 0.9.8: a command-buffer is a libaccel command list
 * (accel-cmdlist.h) for its queue's device. Sync points are the list's
 * command indices; a command-buffer recorded for an in-order queue is an
 * in-order list (each command after the one before), for an out-of-order
 * queue an out-of-order one. Kernel launches take the kernel's arguments
 * when recorded (the list keeps a clone); rectangular copies and the SVM
 * commands are host functions of the list, as their enqueue versions are
 * host functions of the queue.
 *
 * The list holds everything its commands use, and submitted commands hold
 * what they need, so a command-buffer released while an enqueue of it is
 * pending simply goes; the work completes. At 0.9.8 there is no pending
 * state: a command-buffer may be enqueued again at any time. ND-range
 * commands can be updated: cl-mutable-dispatch.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-image-transfer.h"
#include "cl-mutable-dispatch.h"

/* Queue properties an enqueue may use, and those it needs. */
#define SUPPORTED_QUEUE_PROPS                                                  \
	((cl_command_queue_properties)CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | \
	 CL_QUEUE_PROFILING_ENABLE)
#define REQUIRED_QUEUE_PROPS ((cl_command_queue_properties)0)

static bool cb_valid(cl_command_buffer_khr cb)
{
	return icd_object_valid(cb, (enum icd_magic)COMMAND_BUFFER_MAGIC);
}

bool icd_command_buffer_valid(cl_command_buffer_khr cb)
{
	return cb_valid(cb);
}

static void cb_free(cl_command_buffer_khr cb)
{
	icd_mutable_free_all(cb);
	accel_cmdlist_unref(cb->list);
	icd_put(cb->queue);
	free(cb->props);
	pthread_mutex_destroy(&cb->lock);
	cb->obj.magic = ICD_MAGIC_FREED;
	free(cb);
}

/* ---- device queries ------------------------------------------------------ */

cl_int icd_command_buffer_device_info(cl_device_id d, cl_device_info param,
				      size_t size, void *value,
				      size_t *size_ret)
{
	switch (param) {
	case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
		/*
		 * printf output comes when a launch completes, listed or not;
		 * each submission of a list runs the launches it had when
		 * submitted, so submissions may overlap (simultaneous use)
		 */
		return icd_info_ulong(
			size, value, size_ret,
			CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
			CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR);
	case CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR:
		return icd_info_ulong(size, value, size_ret,
				      icd_mutable_dispatch_caps(d));
	case CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR:
		return icd_info_ulong(size, value, size_ret,
				      SUPPORTED_QUEUE_PROPS);
	case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR:
		return icd_info_ulong(size, value, size_ret,
				      REQUIRED_QUEUE_PROPS);
	default:
		return CL_INVALID_VALUE;
	}
}

/* ---- creation and lifetime ---------------------------------------------- */

/*
 * CL_COMMAND_BUFFER_FLAGS_KHR (mutable, simultaneous use: both supported)
 * and CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, each once.
 */
#define CB_FLAGS_ALL                                                           \
	((cl_command_buffer_flags_khr)CL_COMMAND_BUFFER_MUTABLE_KHR |          \
	 CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR)

static cl_int parse_props(const cl_command_buffer_properties_khr *props,
			  cl_command_buffer_khr cb, size_t *ret_n)
{
	bool flags_seen = false, asserts_seen = false;
	size_t i = 0;

	*ret_n = 0;
	if (!props)
		return CL_SUCCESS;
	for (; props[i]; i += 2) {
		switch (props[i]) {
		case CL_COMMAND_BUFFER_FLAGS_KHR:
			if (flags_seen || (props[i + 1] & ~CB_FLAGS_ALL))
				return CL_INVALID_VALUE;
			flags_seen = true;
			cb->flags = props[i + 1];
			break;
		case CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR:
			if (asserts_seen ||
			    (props[i + 1] & ~ICD_NO_MORE_GROUPS))
				return CL_INVALID_VALUE;
			asserts_seen = true;
			cb->assert_no_more_groups = props[i + 1] != 0;
			break;
		default:
			return CL_INVALID_VALUE;
		}
	}
	*ret_n = i + 1;
	return CL_SUCCESS;
}

cl_command_buffer_khr CL_API_CALL icd_clCreateCommandBufferKHR(
	cl_uint num_queues, const cl_command_queue *queues,
	const cl_command_buffer_properties_khr *properties, cl_int *errcode_ret)
{
	cl_command_buffer_khr cb;
	cl_command_queue q;
	size_t n_props;
	bool ooo;
	cl_int r;
	int e;

	/* one queue: cl_khr_command_buffer_multi_device is not offered */
	if (num_queues != 1 || !queues)
		ICD_RETURN_ERR(errcode_ret, CL_INVALID_VALUE, NULL);
	q = queues[0];
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		ICD_RETURN_ERR(errcode_ret, CL_INVALID_COMMAND_QUEUE, NULL);
	/*
	 * Any queue may record (0.9.7): the queue properties are checked
	 * where the commands run, at enqueue.
	 */
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		ICD_RETURN_ERR(errcode_ret, CL_OUT_OF_HOST_MEMORY, NULL);
	r = parse_props(properties, cb, &n_props);
	if (r != CL_SUCCESS) {
		free(cb);
		ICD_RETURN_ERR(errcode_ret, r, NULL);
	}
	if (n_props) {
		cb->props = calloc(n_props, sizeof(*cb->props));
		if (!cb->props) {
			free(cb);
			ICD_RETURN_ERR(errcode_ret, CL_OUT_OF_HOST_MEMORY,
				       NULL);
		}
		memcpy(cb->props, properties, n_props * sizeof(*cb->props));
		cb->n_props = n_props;
	}
	ooo = q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
	e = accel_cmdlist_new(accel_queue_get_device(q->q),
			      ooo ? ACCEL_CMDLIST_OUT_OF_ORDER : 0, &cb->list);
	if (e < 0) {
		free(cb->props);
		free(cb);
		ICD_RETURN_ERR(errcode_ret, icd_error(e), NULL);
	}
	icd_object_init(&cb->obj, q->ctx->platform,
			(enum icd_magic)COMMAND_BUFFER_MAGIC);
	pthread_mutex_init(&cb->lock, NULL);
	cb->queue = q;
	icd_hold(q);
	ICD_RETURN_ERR(errcode_ret, CL_SUCCESS, cb);
}

cl_int CL_API_CALL icd_clRetainCommandBufferKHR(cl_command_buffer_khr cb)
{
	if (!cb_valid(cb) || atomic_load(&cb->obj.refs) == 0)
		return CL_INVALID_COMMAND_BUFFER_KHR;
	atomic_fetch_add_explicit(&cb->obj.refs, 1, memory_order_relaxed);
	return CL_SUCCESS;
}

cl_int CL_API_CALL icd_clReleaseCommandBufferKHR(cl_command_buffer_khr cb)
{
	unsigned old;

	if (!cb_valid(cb))
		return CL_INVALID_COMMAND_BUFFER_KHR;
	do {
		old = atomic_load(&cb->obj.refs);
		if (old == 0)
			return CL_INVALID_COMMAND_BUFFER_KHR;
	} while (!atomic_compare_exchange_weak(&cb->obj.refs, &old, old - 1));
	/* pending enqueues hold the list's commands, not the object */
	if (old == 1)
		cb_free(cb);
	return CL_SUCCESS;
}

cl_int CL_API_CALL icd_clFinalizeCommandBufferKHR(cl_command_buffer_khr cb)
{
	cl_int r = CL_SUCCESS;

	if (!cb_valid(cb))
		return CL_INVALID_COMMAND_BUFFER_KHR;
	pthread_mutex_lock(&cb->lock);
	if (cb->finalized)
		r = CL_INVALID_OPERATION;
	else if (accel_cmdlist_finalize(cb->list) < 0)
		r = CL_OUT_OF_RESOURCES;
	else
		cb->finalized = true;
	pthread_mutex_unlock(&cb->lock);
	return r;
}

cl_int CL_API_CALL icd_clGetCommandBufferInfoKHR(
	cl_command_buffer_khr cb, cl_command_buffer_info_khr param,
	size_t size, void *value, size_t *size_ret)
{
	bool finalized, deferred;

	if (!cb_valid(cb))
		return CL_INVALID_COMMAND_BUFFER_KHR;
	switch (param) {
	case CL_COMMAND_BUFFER_QUEUES_KHR:
		return icd_info(size, value, size_ret, &cb->queue,
				sizeof(cb->queue));
	case CL_COMMAND_BUFFER_NUM_QUEUES_KHR:
		return icd_info_uint(size, value, size_ret, 1);
	case CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR:
		return icd_info_uint(size, value, size_ret, icd_refcount(cb));
	case CL_COMMAND_BUFFER_STATE_KHR:
		pthread_mutex_lock(&cb->lock);
		finalized = cb->finalized;
		deferred = cb->n_deferred != 0;
		pthread_mutex_unlock(&cb->lock);
		/* no pending state; finalized with arguments still unset */
		return icd_info_uint(
			size, value, size_ret,
			!finalized ? CL_COMMAND_BUFFER_STATE_RECORDING_KHR :
			deferred   ? CL_COMMAND_BUFFER_STATE_FINALIZED_KHR :
				     CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
	case CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR:
		/* as given; nothing for NULL properties */
		return icd_info(size, value, size_ret, cb->props,
				cb->n_props * sizeof(*cb->props));
	case CL_COMMAND_BUFFER_CONTEXT_KHR:
		return icd_info(size, value, size_ret, &cb->queue->ctx,
				sizeof(cb->queue->ctx));
	default:
		return CL_INVALID_VALUE;
	}
}

/* ---- enqueue ------------------------------------------------------------- */

/* A command that does nothing (empty ranges, profiling's start). */
static int nothing_run(void *p)
{
	(void)p;
	return 0;
}


cl_int CL_API_CALL icd_clEnqueueCommandBufferKHR(
	cl_uint num_queues, cl_command_queue *queues, cl_command_buffer_khr cb,
	cl_uint n, const cl_event *list, cl_event *event)
{
	struct accel_fence *fence = NULL, *start = NULL;
	struct icd_wait w;
	cl_command_queue q;
	bool finalized;
	cl_int r;
	int e;

	if (!cb_valid(cb))
		return CL_INVALID_COMMAND_BUFFER_KHR;
	/* executable: finalized, every argument set */
	pthread_mutex_lock(&cb->lock);
	finalized = cb->finalized && !cb->n_deferred;
	pthread_mutex_unlock(&cb->lock);
	if (!finalized)
		return CL_INVALID_OPERATION;
	if ((num_queues == 0) != (queues == NULL) || num_queues > 1)
		return CL_INVALID_VALUE;
	q = num_queues ? queues[0] : cb->queue;
	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (q->ctx != cb->queue->ctx)
		return CL_INVALID_CONTEXT;
	/* a substitute queue: the same device, properties it may have */
	if (q->dev != cb->queue->dev ||
	    (q->props & REQUIRED_QUEUE_PROPS) != REQUIRED_QUEUE_PROPS ||
	    (q->props & ~SUPPORTED_QUEUE_PROPS))
		return CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
	r = icd_wait_init(q, n, list, &w);
	if (r != CL_SUCCESS)
		return r;
	/*
	 * Profiling: the event starts when the first command may, not when
	 * the last one did: a command that does nothing before the list,
	 * which the list waits for, gives the times up to the start.
	 */
	if (event && (q->props & CL_QUEUE_PROFILING_ENABLE)) {
		e = accel_queue_host_fn(q->q, nothing_run, NULL, NULL, w.n,
					w.fences, &start);
		if (e == 0)
			e = accel_queue_submit_list(q->q, cb->list, 1, &start,
						    &fence);
	} else {
		e = accel_queue_submit_list(q->q, cb->list, w.n, w.fences,
					    event ? &fence : NULL);
	}
	icd_wait_fini(&w);
	if (e < 0)
		accel_fence_unref(start);
	if (e == -EXDEV)
		return CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
	if (e < 0)
		return icd_buffer_submit_error(e);
	r = icd_enqueue_done(q, CL_COMMAND_COMMAND_BUFFER_KHR, fence, false,
			     event);
	if (r == CL_SUCCESS && event)
		(*event)->start = start;
	else
		accel_fence_unref(start);
	return r;
}

/* ---- recording ----------------------------------------------------------- */

/*
 * The checks every recording call starts with, in the specification's
 * order; on success the command-buffer's lock is held (record_end()).
 */
static cl_int record_begin(cl_command_buffer_khr cb, cl_command_queue q,
			   const icd_command_properties_khr *props,
			   cl_uint num_sync_points,
			   const cl_sync_point_khr *sync_points,
			   cl_mutable_command_khr *mutable_handle)
{
	uint32_t count;
	cl_uint i;

	if (!cb_valid(cb))
		return CL_INVALID_COMMAND_BUFFER_KHR;
	/* a queue other than the command-buffer's needs multi_device */
	if (q)
		return CL_INVALID_COMMAND_QUEUE;
	/* only ND-range commands have properties and handles */
	if (props && props[0])
		return CL_INVALID_VALUE;
	if (mutable_handle)
		return CL_INVALID_VALUE;
	if ((num_sync_points == 0) != (sync_points == NULL))
		return CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
	pthread_mutex_lock(&cb->lock);
	if (cb->finalized) {
		pthread_mutex_unlock(&cb->lock);
		return CL_INVALID_OPERATION;
	}
	count = accel_cmdlist_get_count(cb->list);
	for (i = 0; i < num_sync_points; i++)
		if (sync_points[i] >= count) {
			pthread_mutex_unlock(&cb->lock);
			return CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
		}
	return CL_SUCCESS;
}

/* Unlock; hand out the sync point when @p r is CL_SUCCESS. */
static cl_int record_end(cl_command_buffer_khr cb, cl_int r, uint32_t point,
			 cl_sync_point_khr *sync_point)
{
	pthread_mutex_unlock(&cb->lock);
	if (r == CL_SUCCESS && sync_point)
		*sync_point = point;
	return r;
}

/* What libaccel says about recording a command (@p e < 0). */
static cl_int record_error(int e)
{
	if (e == -EOVERFLOW)
		return CL_OUT_OF_RESOURCES;
	return icd_buffer_submit_error(e);
}

static cl_int record_result(int e)
{
	return e < 0 ? record_error(e) : CL_SUCCESS;
}

/*
 * Record the prepared host function @p c (the list owns it from here,
 * failure included) after @p r, the checks' verdict; unlock.
 */
static cl_int record_host_fn(cl_command_buffer_khr cb, cl_int r, void *c,
			     int (*run)(void *), void (*free_fn)(void *),
			     cl_uint num_sync_points,
			     const cl_sync_point_khr *sync_points,
			     cl_sync_point_khr *sync_point)
{
	uint32_t point = 0;

	if (r == CL_SUCCESS)
		r = record_result(accel_cmdlist_host_fn(cb->list, run, c,
							free_fn,
							num_sync_points,
							sync_points, &point));
	return record_end(cb, r, point, sync_point);
}

/* A buffer (@p image false) or an image of the command-buffer's context. */
static cl_int check_object(cl_command_buffer_khr cb, cl_mem m, bool image)
{
	if (!icd_object_valid(m, ICD_MAGIC_MEM) || icd_mem_is_image(m) != image)
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != cb->queue->ctx)
		return CL_INVALID_CONTEXT;
	return CL_SUCCESS;
}

/* A copy's objects, source first; each a buffer or an image. */
static cl_int check_copy(cl_command_buffer_khr cb, cl_mem src, bool src_image,
			 cl_mem dst, bool dst_image)
{
	cl_int r = check_object(cb, src, src_image);

	return r != CL_SUCCESS ? r : check_object(cb, dst, dst_image);
}

static bool range_ok(cl_mem m, size_t offset, size_t size)
{
	return size && offset <= m->size && size <= m->size - offset;
}

cl_int CL_API_CALL icd_clCommandBarrierWithWaitListKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, ICD_CB_TAIL)
{
	uint32_t point = 0;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = record_result(accel_cmdlist_barrier(cb->list, num_sync_points,
						sync_points, &point));
	return record_end(cb, r, point, sync_point);
}

cl_int CL_API_CALL icd_clCommandCopyBufferKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem dst,
	size_t src_offset, size_t dst_offset, size_t size, ICD_CB_TAIL)
{
	uint32_t point = 0;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_copy(cb, src, false, dst, false);
	if (r == CL_SUCCESS && (!range_ok(src, src_offset, size) ||
				!range_ok(dst, dst_offset, size)))
		r = CL_INVALID_VALUE;
	if (r == CL_SUCCESS && icd_mem_root(src) == icd_mem_root(dst)) {
		size_t x = icd_mem_root_offset(src) + src_offset;
		size_t y = icd_mem_root_offset(dst) + dst_offset;

		if (x < y + size && y < x + size)
			r = CL_MEM_COPY_OVERLAP;
	}
	if (r == CL_SUCCESS)
		r = record_result(accel_cmdlist_copy(
			cb->list, src->buf, src_offset, dst->buf, dst_offset,
			size, num_sync_points, sync_points, &point));
	return record_end(cb, r, point, sync_point);
}

cl_int CL_API_CALL icd_clCommandCopyBufferRectKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem dst,
	const size_t *src_origin, const size_t *dst_origin,
	const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
	size_t dst_row_pitch, size_t dst_slice_pitch, ICD_CB_TAIL)
{
	struct icd_rect_cmd *c = NULL;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_copy(cb, src, false, dst, false);
	if (r == CL_SUCCESS)
		r = icd_copy_rect_prepare(src, dst, src_origin, dst_origin,
					  region, src_row_pitch,
					  src_slice_pitch, dst_row_pitch,
					  dst_slice_pitch, &c);
	return record_host_fn(cb, r, c, icd_rect_run, icd_rect_free,
			      num_sync_points, sync_points, sync_point);
}

cl_int CL_API_CALL icd_clCommandFillBufferKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem m, const void *pattern,
	size_t pattern_size, size_t offset, size_t size, ICD_CB_TAIL)
{
	uint32_t point = 0;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_object(cb, m, false);
	if (r == CL_SUCCESS &&
	    (!pattern || pattern_size == 0 || pattern_size > 128 ||
	     (pattern_size & (pattern_size - 1)) || offset % pattern_size ||
	     size % pattern_size || !range_ok(m, offset, size)))
		r = CL_INVALID_VALUE;
	if (r == CL_SUCCESS)
		r = record_result(accel_cmdlist_fill(
			cb->list, m->buf, offset, size, pattern, pattern_size,
			num_sync_points, sync_points, &point));
	return record_end(cb, r, point, sync_point);
}

cl_int CL_API_CALL icd_clCommandNDRangeKernelKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_kernel k, cl_uint dim,
	const size_t *offset, const size_t *global, const size_t *local,
	ICD_CB_TAIL)
{
	cl_mutable_dispatch_fields_khr fields = 0;
	icd_mutable_dispatch_asserts_khr asserts = 0;
	uint32_t point = 0;
	size_t n_props = 0;
	cl_int r;

	/* properties and mutable_handle: cl-mutable-dispatch.c */
	r = record_begin(cb, q, NULL, num_sync_points, sync_points, NULL);
	if (r != CL_SUCCESS)
		return r;
	r = icd_mutable_parse_props(cb, props, &fields, &asserts, &n_props);
	/* the assertion needs a work-group count to hold the updates to */
	if (r == CL_SUCCESS && !local &&
	    (cb->assert_no_more_groups || (asserts & ICD_NO_MORE_GROUPS)))
		r = CL_INVALID_VALUE;
	if (r == CL_SUCCESS)
		r = icd_mutable_record(cb, props, n_props, fields, k, dim,
				       offset, global, local, num_sync_points,
				       sync_points, &point, mutable_handle);
	return record_end(cb, r, point, sync_point);
}

/* ---- SVM --------------------------------------------------------------- */

struct svm_copy {
	void *dst;
	const void *src;
	size_t size;
};

static int svm_copy_run(void *p)
{
	struct svm_copy *c = p;

	memcpy(c->dst, c->src, c->size);
	return 0;
}

struct svm_fill {
	void *ptr;
	size_t size;
	size_t pattern_size;
	uint8_t pattern[128];
};

static int svm_fill_run(void *p)
{
	struct svm_fill *f = p;
	uint8_t *d = f->ptr;
	size_t done;

	if (!f->size)
		return 0;
	memcpy(d, f->pattern, f->pattern_size);
	/* double what is written until the rest fits */
	for (done = f->pattern_size; done < f->size;) {
		size_t n = ICD_MIN(done, f->size - done);

		memcpy(d + done, d, n);
		done += n;
	}
	return 0;
}

/* SVM commands need a device with SVM (cl-svm.c). */
static cl_int check_svm(cl_command_buffer_khr cb)
{
	return icd_device_svm_caps(cb->queue->dev) ? CL_SUCCESS :
						     CL_INVALID_OPERATION;
}

cl_int CL_API_CALL icd_clCommandSVMMemcpyKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, void *dst, const void *src,
	size_t size, ICD_CB_TAIL)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
	struct svm_copy *c = NULL;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_svm(cb);
	if (r == CL_SUCCESS && (!dst || !src || size > UINTPTR_MAX - d ||
				size > UINTPTR_MAX - s))
		r = CL_INVALID_VALUE;
	if (r == CL_SUCCESS && size && d < s + size && s < d + size)
		r = CL_MEM_COPY_OVERLAP;
	if (r == CL_SUCCESS) {
		c = malloc(sizeof(*c));
		if (c)
			*c = (struct svm_copy){ dst, src, size };
		else
			r = CL_OUT_OF_HOST_MEMORY;
	}
	return record_host_fn(cb, r, c, svm_copy_run, free, num_sync_points,
			      sync_points, sync_point);
}

cl_int CL_API_CALL icd_clCommandSVMMemFillKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, void *ptr,
	const void *pattern, size_t pattern_size, size_t size, ICD_CB_TAIL)
{
	struct svm_fill *f = NULL;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_svm(cb);
	if (r == CL_SUCCESS &&
	    (!ptr || !pattern || pattern_size == 0 ||
	     pattern_size & (pattern_size - 1) || pattern_size > 128 ||
	     (uintptr_t)ptr % pattern_size || size % pattern_size ||
	     size > UINTPTR_MAX - (uintptr_t)ptr))
		r = CL_INVALID_VALUE;
	if (r == CL_SUCCESS) {
		f = malloc(sizeof(*f));
		if (!f)
			r = CL_OUT_OF_HOST_MEMORY;
	}
	if (r == CL_SUCCESS) {
		f->ptr = ptr;
		f->size = size;
		f->pattern_size = pattern_size;
		/* the caller may reuse the pattern once this returns */
		memcpy(f->pattern, pattern, pattern_size);
	}
	return record_host_fn(cb, r, f, svm_fill_run, free, num_sync_points,
			      sync_points, sync_point);
}

/* ---- images ------------------------------------------------------------ */

/* A copy between @p image and buffer @p buf, checked source first. */
static cl_int record_image_buffer(cl_command_buffer_khr cb, cl_command_queue q,
				  const icd_command_properties_khr *props,
				  cl_mem image, cl_mem buf,
				  const size_t *origin, const size_t *region,
				  size_t offset, bool to_buffer, ICD_CB_TAIL)
{
	struct icd_rect_cmd *c = NULL;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = to_buffer ? check_copy(cb, image, true, buf, false) :
			check_copy(cb, buf, false, image, true);
	if (r == CL_SUCCESS)
		r = icd_image_buffer_prepare(cb->queue->dev, image, buf, origin,
					     region, offset, to_buffer, &c);
	return record_host_fn(cb, r, c, icd_rect_run, icd_rect_free,
			      num_sync_points, sync_points, sync_point);
}

cl_int CL_API_CALL icd_clCommandCopyBufferToImageKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem image,
	size_t src_offset, const size_t *dst_origin, const size_t *region,
	ICD_CB_TAIL)
{
	return record_image_buffer(cb, q, props, image, src, dst_origin,
				   region, src_offset, false, num_sync_points,
				   sync_points, sync_point, mutable_handle);
}

cl_int CL_API_CALL icd_clCommandCopyImageToBufferKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem image, cl_mem dst,
	const size_t *src_origin, const size_t *region, size_t dst_offset,
	ICD_CB_TAIL)
{
	return record_image_buffer(cb, q, props, image, dst, src_origin,
				   region, dst_offset, true, num_sync_points,
				   sync_points, sync_point, mutable_handle);
}

cl_int CL_API_CALL icd_clCommandCopyImageKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem src, cl_mem dst,
	const size_t *src_origin, const size_t *dst_origin,
	const size_t *region, ICD_CB_TAIL)
{
	struct icd_rect_cmd *c = NULL;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_copy(cb, src, true, dst, true);
	if (r == CL_SUCCESS)
		r = icd_image_copy_prepare(cb->queue->dev, src, dst,
					   src_origin, dst_origin, region, &c);
	return record_host_fn(cb, r, c, icd_rect_run, icd_rect_free,
			      num_sync_points, sync_points, sync_point);
}

cl_int CL_API_CALL icd_clCommandFillImageKHR(
	cl_command_buffer_khr cb, cl_command_queue q,
	const icd_command_properties_khr *props, cl_mem image,
	const void *color, const size_t *origin, const size_t *region,
	ICD_CB_TAIL)
{
	void *c = NULL;
	cl_int r;

	r = record_begin(cb, q, props, num_sync_points, sync_points,
			 mutable_handle);
	if (r != CL_SUCCESS)
		return r;
	r = check_object(cb, image, true);
	if (r == CL_SUCCESS)
		r = icd_image_fill_prepare(cb->queue->dev, image, color, origin,
					   region, &c);
	return record_host_fn(cb, r, c, icd_image_fill_run,
			      icd_image_fill_free, num_sync_points,
			      sync_points, sync_point);
}
