/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_semaphore, cl_khr_external_semaphore and its sync_fd handle type.
 *
 * A binary semaphore's payload is a libaccel fence: a signal operation is
 * a barrier whose fence becomes the payload, a wait is a barrier that
 * depends on it and takes it (the semaphore is unsignalled again). A
 * sync_fd import makes the payload a fence imported from the sync_file;
 * an export hands out accel_fence_export_sync_file() of the payload and,
 * as in Vulkan, resets the semaphore. Waiting on, or exporting, a
 * semaphore with no signal pending is CL_INVALID_OPERATION: libaccel has
 * no way to wait for a signal that has not been enqueued.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icd-sharing.h"

/* Not in icd.h's enum: semaphores manage their own lifetime here. */
#define SEMAPHORE_MAGIC 0x4153454du /* "ASEM" */

struct _cl_semaphore_khr {
	struct icd_object obj;
	cl_context ctx;               /* held */
	cl_device_id dev;             /* CL_DEVICE_HANDLE_LIST_KHR, or NULL */
	bool exportable;              /* sync_fd in the export handle types */
	bool imported;                /* made from a sync_fd: re-importable */
	cl_semaphore_properties_khr *props; /* as given, with the 0 */
	size_t n_props;
	pthread_mutex_t lock;
	struct accel_fence *payload;  /* pending or done signal; NULL: none */
};

static bool sema_valid(cl_semaphore_khr s)
{
	return icd_object_valid(s, (enum icd_magic)SEMAPHORE_MAGIC);
}

static bool can_import(cl_device_id d)
{
	return d->u64[ACCEL_DEVICE_U64_CAPS] &
	       ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT;
}

static bool can_export(cl_device_id d)
{
	return d->u64[ACCEL_DEVICE_U64_CAPS] &
	       ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT;
}

/* Every device the semaphore may be used with passes @p ok. */
static bool devices_ok(cl_semaphore_khr s, bool (*ok)(cl_device_id))
{
	cl_uint i;

	if (s->dev)
		return ok(s->dev);
	for (i = 0; i < s->ctx->n_devices; i++)
		if (!ok(s->ctx->devices[i]))
			return false;
	return true;
}

static void sema_free(cl_semaphore_khr s)
{
	accel_fence_unref(s->payload);
	icd_put(s->ctx);
	free(s->props);
	pthread_mutex_destroy(&s->lock);
	s->obj.magic = ICD_MAGIC_FREED;
	free(s);
}

/* Replace the payload (NULL: unsignalled); takes @p fence's reference. */
static void set_payload(cl_semaphore_khr s, struct accel_fence *fence)
{
	struct accel_fence *old;

	pthread_mutex_lock(&s->lock);
	old = s->payload;
	s->payload = fence;
	pthread_mutex_unlock(&s->lock);
	accel_fence_unref(old);
}

static struct accel_fence *take_payload(cl_semaphore_khr s)
{
	struct accel_fence *f;

	pthread_mutex_lock(&s->lock);
	f = s->payload;
	s->payload = NULL;
	pthread_mutex_unlock(&s->lock);
	return f;
}

/* Import @p fd as the payload; the fd is ours from here (closed). */
static cl_int import_sync_fd(cl_semaphore_khr s, int fd)
{
	struct accel_context *actx = s->ctx->platform->actx;
	struct accel_fence *fence = NULL;
	int r;

	if (!devices_ok(s, can_import))
		return CL_INVALID_OPERATION;
	r = accel_fence_import_sync_file(actx, fd, &fence);
	if (r < 0)
		return r == -EBADF || r == -EINVAL ? CL_INVALID_VALUE :
						     icd_error(r);
	/* sync_fd import transfers the fd to the implementation. */
	close(fd);
	set_payload(s, fence);
	return CL_SUCCESS;
}

/* Parse the properties; the import fd, if any, in *ret_fd. */
static cl_int parse_props(cl_semaphore_khr s,
			  const cl_semaphore_properties_khr *props,
			  int *ret_fd)
{
	bool have_type = false;
	size_t i, j;

	*ret_fd = -1;
	if (!props)
		return CL_INVALID_VALUE; /* the type is required */
	for (i = 0; props[i]; i += 2) {
		cl_semaphore_properties_khr v = props[i + 1];

		switch (props[i]) {
		case CL_SEMAPHORE_TYPE_KHR:
			if (have_type || v != CL_SEMAPHORE_TYPE_BINARY_KHR)
				return CL_INVALID_PROPERTY;
			have_type = true;
			break;
		case CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR:
		case CL_DEVICE_HANDLE_LIST_KHR: /* its provisional name */
			/* The spec allows a single device. */
			if (s->dev || !v || props[i + 2] !=
				    CL_SEMAPHORE_DEVICE_HANDLE_LIST_END_KHR)
				return CL_INVALID_PROPERTY;
			s->dev = (cl_device_id)v;
			if (!icd_object_valid(s->dev, ICD_MAGIC_DEVICE))
				return CL_INVALID_DEVICE;
			if (!icd_context_has_device(s->ctx, s->dev))
				return CL_INVALID_DEVICE;
			i++;
			break;
		case CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR:
			for (j = i + 1; props[j]; j++) { /* ..._LIST_END_KHR */
				if (props[j] != CL_SEMAPHORE_HANDLE_SYNC_FD_KHR)
					return CL_INVALID_PROPERTY;
				s->exportable = true;
			}
			i = j - 1;
			break;
		case CL_SEMAPHORE_HANDLE_SYNC_FD_KHR:
			if (*ret_fd >= 0 || (cl_long)v < 0 || v > INT32_MAX)
				return CL_INVALID_PROPERTY;
			*ret_fd = (int)v;
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
	}
	s->n_props = i + 1;
	if (!have_type)
		return CL_INVALID_VALUE;
	/* Without a device list, every device of the context: one only. */
	if (!s->dev && s->ctx->n_devices > 1)
		return CL_INVALID_PROPERTY;
	if (s->exportable && !devices_ok(s, can_export))
		return CL_INVALID_DEVICE;
	return CL_SUCCESS;
}

cl_semaphore_khr CL_API_CALL clCreateSemaphoreWithPropertiesKHR(
	cl_context ctx, const cl_semaphore_properties_khr *props, cl_int *err)
{
	cl_semaphore_khr s;
	cl_int r;
	int fd;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	s = calloc(1, sizeof(*s));
	if (!s)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	icd_object_init(&s->obj, ctx->platform,
			(enum icd_magic)SEMAPHORE_MAGIC);
	s->ctx = ctx;
	icd_hold(ctx);
	pthread_mutex_init(&s->lock, NULL);

	r = parse_props(s, props, &fd);
	if (r == CL_SUCCESS) {
		s->props = calloc(s->n_props, sizeof(*s->props));
		if (s->props)
			memcpy(s->props, props, s->n_props * sizeof(*props));
		else
			r = CL_OUT_OF_HOST_MEMORY;
	}
	if (r == CL_SUCCESS && fd >= 0) {
		r = import_sync_fd(s, fd);
		s->imported = true;
	}
	if (r != CL_SUCCESS) {
		sema_free(s);
		ICD_RETURN_ERR(err, r, NULL);
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, s);
}

cl_int CL_API_CALL clRetainSemaphoreKHR(cl_semaphore_khr s)
{
	if (!sema_valid(s) || atomic_load(&s->obj.refs) == 0)
		return CL_INVALID_SEMAPHORE_KHR;
	atomic_fetch_add(&s->obj.refs, 1);
	return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseSemaphoreKHR(cl_semaphore_khr s)
{
	unsigned old;

	if (!sema_valid(s))
		return CL_INVALID_SEMAPHORE_KHR;
	do {
		old = atomic_load(&s->obj.refs);
		if (old == 0)
			return CL_INVALID_SEMAPHORE_KHR;
	} while (!atomic_compare_exchange_weak(&s->obj.refs, &old, old - 1));
	if (old == 1)
		sema_free(s);
	return CL_SUCCESS;
}

/* Common checks of the enqueue calls. */
static cl_int check_semas(cl_command_queue q, cl_uint n,
			  const cl_semaphore_khr *semas)
{
	cl_uint i;

	if (!icd_object_valid(q, ICD_MAGIC_QUEUE))
		return CL_INVALID_COMMAND_QUEUE;
	if (n == 0 || !semas)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++) {
		if (!sema_valid(semas[i]))
			return CL_INVALID_SEMAPHORE_KHR;
		if (semas[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
		if (semas[i]->dev && semas[i]->dev != q->dev)
			return CL_INVALID_COMMAND_QUEUE;
	}
	return CL_SUCCESS;
}

/*
 * The wait list of the enqueue calls. Unlike the core enqueue calls, which
 * report a failed event only when they block (the command fails with it
 * otherwise), these return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
 * for an event already failed, and enqueue nothing.
 */
static cl_int check_wait_list(cl_command_queue q, cl_uint n,
			      const cl_event *wait)
{
	cl_uint i;

	if ((n && !wait) || (!n && wait))
		return CL_INVALID_EVENT_WAIT_LIST;
	for (i = 0; i < n; i++) {
		if (!icd_object_valid(wait[i], ICD_MAGIC_EVENT))
			return CL_INVALID_EVENT_WAIT_LIST;
		if (wait[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < n; i++)
		if (icd_event_status(wait[i]) < 0)
			return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	return CL_SUCCESS;
}

/* A barrier after @p wait (+ @p extra fences); its event in *ret. */
static cl_int barrier(cl_command_queue q, cl_uint n_wait, const cl_event *wait,
		      struct accel_fence **extra, cl_uint n_extra,
		      cl_event *ret)
{
	cl_event stack[16], *list = stack;
	cl_uint i, n = 0;
	cl_int r = CL_SUCCESS;

	if (n_wait + n_extra > ICD_ARRAY_SIZE(stack)) {
		list = calloc(n_wait + n_extra, sizeof(*list));
		if (!list)
			return CL_OUT_OF_HOST_MEMORY;
	}
	for (i = 0; i < n_wait; i++)
		list[n++] = wait[i];
	/* The payload fences as events, so the barrier honours them. */
	for (i = 0; i < n_extra && r == CL_SUCCESS; i++) {
		r = icd_event_new(q, CL_COMMAND_SEMAPHORE_WAIT_KHR, extra[i],
				  &list[n]);
		if (r == CL_SUCCESS)
			n++;
	}
	if (r == CL_SUCCESS)
		r = clEnqueueBarrierWithWaitList(q, n, n ? list : NULL, ret);
	for (i = n_wait; i < n; i++)
		clReleaseEvent(list[i]);
	if (list != stack)
		free(list);
	return r;
}

/* Hand the barrier's fence out as an event of @p type. */
static cl_int give_event(cl_command_queue q, cl_event tmp, cl_command_type type,
			 cl_event *event)
{
	cl_int r = CL_SUCCESS;

	if (event)
		r = icd_event_new(q, type, tmp->fence, event);
	clReleaseEvent(tmp);
	return r;
}

cl_int CL_API_CALL clEnqueueWaitSemaphoresKHR(
	cl_command_queue q, cl_uint n, const cl_semaphore_khr *semas,
	const cl_semaphore_payload_khr *payloads, cl_uint n_wait,
	const cl_event *wait, cl_event *event)
{
	struct accel_fence *stack[16], **fences = stack;
	cl_event tmp = NULL;
	cl_uint i;
	cl_int r;

	(void)payloads; /* binary semaphores have none */
	r = check_semas(q, n, semas);
	if (r == CL_SUCCESS)
		r = check_wait_list(q, n_wait, wait);
	if (r != CL_SUCCESS)
		return r;
	if (n > ICD_ARRAY_SIZE(stack)) {
		fences = calloc(n, sizeof(*fences));
		if (!fences)
			return CL_OUT_OF_HOST_MEMORY;
	}
	for (i = 0; i < n; i++) {
		fences[i] = take_payload(semas[i]);
		if (!fences[i]) {
			r = CL_INVALID_OPERATION; /* nothing to wait for */
			break;
		}
	}
	if (r == CL_SUCCESS)
		r = barrier(q, n_wait, wait, fences, n, &tmp);
	if (r == CL_SUCCESS) {
		r = give_event(q, tmp, CL_COMMAND_SEMAPHORE_WAIT_KHR, event);
		for (i = 0; i < n; i++)
			accel_fence_unref(fences[i]);
	} else {
		/* Nothing was enqueued: the semaphores keep their payloads. */
		while (i--)
			set_payload(semas[i], fences[i]);
	}
	if (fences != stack)
		free(fences);
	return r;
}

cl_int CL_API_CALL clEnqueueSignalSemaphoresKHR(
	cl_command_queue q, cl_uint n, const cl_semaphore_khr *semas,
	const cl_semaphore_payload_khr *payloads, cl_uint n_wait,
	const cl_event *wait, cl_event *event)
{
	cl_event tmp = NULL;
	cl_uint i;
	cl_int r;

	(void)payloads;
	r = check_semas(q, n, semas);
	if (r == CL_SUCCESS)
		r = check_wait_list(q, n_wait, wait);
	if (r == CL_SUCCESS)
		r = barrier(q, n_wait, wait, NULL, 0, &tmp);
	if (r != CL_SUCCESS)
		return r;
	for (i = 0; i < n; i++)
		set_payload(semas[i], accel_fence_ref(tmp->fence));
	return give_event(q, tmp, CL_COMMAND_SEMAPHORE_SIGNAL_KHR, event);
}

cl_int CL_API_CALL clGetSemaphoreHandleForTypeKHR(
	cl_semaphore_khr s, cl_device_id dev,
	cl_external_semaphore_handle_type_khr type, size_t size, void *value,
	size_t *size_ret)
{
	struct accel_fence *fence;
	int fd = -1, r;

	if (!sema_valid(s))
		return CL_INVALID_SEMAPHORE_KHR;
	if (!icd_object_valid(dev, ICD_MAGIC_DEVICE) ||
	    !icd_context_has_device(s->ctx, dev) || (s->dev && s->dev != dev))
		return CL_INVALID_DEVICE;
	if (type != CL_SEMAPHORE_HANDLE_SYNC_FD_KHR || !s->exportable)
		return CL_INVALID_VALUE;
	if (value && size < sizeof(int))
		return CL_INVALID_VALUE;
	if (size_ret)
		*size_ret = sizeof(int);
	if (!value)
		return CL_SUCCESS;

	fence = take_payload(s);
	if (!fence)
		return CL_INVALID_OPERATION; /* no signal pending */
	r = accel_fence_export_sync_file(fence, &fd);
	if (r < 0) {
		set_payload(s, fence);
		return icd_error(r);
	}
	/* Like Vulkan's SYNC_FD: exporting consumes the payload. */
	accel_fence_unref(fence);
	memcpy(value, &fd, sizeof(fd));
	return CL_SUCCESS;
}

cl_int CL_API_CALL clReImportSemaphoreSyncFdKHR(
	cl_semaphore_khr s, icd_semaphore_reimport_properties *props, int fd)
{
	if (!sema_valid(s) || !s->imported)
		return CL_INVALID_SEMAPHORE_KHR;
	if ((props && props[0]) || fd < 0)
		return CL_INVALID_VALUE;
	return import_sync_fd(s, fd);
}

cl_int CL_API_CALL clGetSemaphoreInfoKHR(cl_semaphore_khr s,
					 cl_semaphore_info_khr param,
					 size_t size, void *value,
					 size_t *size_ret)
{
	static const cl_external_semaphore_handle_type_khr sync_fd[] = {
		CL_SEMAPHORE_HANDLE_SYNC_FD_KHR,
		CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR,
	};
	cl_semaphore_payload_khr payload;

	if (!sema_valid(s))
		return CL_INVALID_SEMAPHORE_KHR;
	switch (param) {
	case CL_SEMAPHORE_CONTEXT_KHR:
		return icd_info_ptr(size, value, size_ret, s->ctx);
	case CL_SEMAPHORE_REFERENCE_COUNT_KHR:
		return icd_info_uint(size, value, size_ret,
				     atomic_load(&s->obj.refs));
	case CL_SEMAPHORE_PROPERTIES_KHR:
		return icd_info(size, value, size_ret, s->props,
				s->n_props * sizeof(*s->props));
	case CL_SEMAPHORE_TYPE_KHR:
		return icd_info_uint(size, value, size_ret,
				     CL_SEMAPHORE_TYPE_BINARY_KHR);
	case CL_SEMAPHORE_PAYLOAD_KHR:
		/* Binary: 1 once the pending signal has happened. */
		pthread_mutex_lock(&s->lock);
		payload = s->payload &&
			  accel_fence_get_status(s->payload) == 1;
		pthread_mutex_unlock(&s->lock);
		return icd_info(size, value, size_ret, &payload,
				sizeof(payload));
	case CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR:
	case CL_DEVICE_HANDLE_LIST_KHR:
		/* Without a list: the context's devices (one, see above). */
		if (s->dev)
			return icd_info(size, value, size_ret, &s->dev,
					sizeof(s->dev));
		return icd_info(size, value, size_ret, s->ctx->devices,
				s->ctx->n_devices * sizeof(*s->ctx->devices));
	case CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR:
		return icd_info(size, value, size_ret,
				s->exportable ? sync_fd : NULL,
				s->exportable ? sizeof(sync_fd[0]) : 0);
	case CL_SEMAPHORE_EXPORTABLE_KHR:
		return icd_info_bool(size, value, size_ret, s->exportable);
	default:
		return CL_INVALID_VALUE;
	}
}
