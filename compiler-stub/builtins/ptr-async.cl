/* SPDX-License-Identifier: MIT */
/* async_work_group_copy, async_work_group_strided_copy, wait_group_events
 * and prefetch (6.15.14). Work-items run as fibers of one thread, so the
 * copy is synchronous: each work-item copies its share, strided by its
 * linear local id, and wait_group_events() is the barrier after which
 * the whole work-group sees the data. The event is returned unchanged.
 * Built twice (see FOR_PTR_AS) for wait_group_events' pointer; the rest
 * has named address spaces in every version and is defined once. */
#include "builtins.h"

#ifdef __opencl_c_generic_address_space
void OVL wait_group_events(int n, event_t *events)
#else
void OVL wait_group_events(int n, __private event_t *events)
#endif
{
	(void)n;
	(void)events;
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

#ifdef __opencl_c_generic_address_space

/* this work-item's first element and the step between its elements */
#define SHARE(i, step)                                                         \
	size_t i = get_local_linear_id(),                                      \
	       step = get_local_size(0) * get_local_size(1) * get_local_size(2)

/* one direction: the stride applies to the __global side (DI or SI) */
#define COPY(T, DA, SA, DI, SI)                                                \
	event_t OVL async_work_group_strided_copy(DA T *dst,                   \
						  const SA T *src, size_t n,   \
						  size_t stride, event_t e)    \
	{                                                                      \
		SHARE(i, step);                                                \
		for (; i < n; i += step)                                       \
			dst[DI] = src[SI];                                     \
		return e;                                                      \
	}                                                                      \
	event_t OVL async_work_group_copy(DA T *dst, const SA T *src,          \
					  size_t n, event_t e)                 \
	{                                                                      \
		return async_work_group_strided_copy(dst, src, n, 1, e);       \
	}
#define ASYNC(T)                                                               \
	COPY(T, __local, __global, i, i * stride)                              \
	COPY(T, __global, __local, i * stride, i)                              \
	void OVL prefetch(const __global T *p, size_t n)                       \
	{                                                                      \
		(void)p;                                                       \
		(void)n;                                                       \
	}

FOR_ALL(ASYNC, char) FOR_ALL(ASYNC, uchar) FOR_ALL(ASYNC, short)
FOR_ALL(ASYNC, ushort) FOR_ALL(ASYNC, int) FOR_ALL(ASYNC, uint)
FOR_ALL(ASYNC, long) FOR_ALL(ASYNC, ulong) FOR_ALL(ASYNC, float)
FOR_ALL(ASYNC, double) FOR_ALL(ASYNC, half)

#endif
