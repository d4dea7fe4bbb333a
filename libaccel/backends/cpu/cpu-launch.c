/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's launch policy (launch_prepare): which variant of the
 * kernel's code runs, and whether its stack fits. The core has checked the
 * range and the arguments and taken their snapshot.
 */
#include <string.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-program.h"

/* Every global id of @l is below ACCEL_WG_IDS32_LIMIT (accel-wg.h). */
static bool ids_fit_32(const struct accel_launch *l)
{
	for (uint32_t d = 0; d < 3; d++)
		if (l->global_offset[d] + l->global_size[d] >
		    ACCEL_WG_IDS32_LIMIT)
			return false;
	return true;
}

/*
 * Whether @l meets the streaming variant's contract (accel-wg.h); sums
 * the bound buffers' sizes for execution, which decides whether
 * streaming pays.
 */
static bool streaming_allowed(const struct accel_kernel_def *def,
			      const struct cpu_kernel *ck,
			      struct accel_launch *l, bool ids32)
{
	uint32_t i;

	l->buffer_bytes = 0;
	if (!ck->streaming_fn || !ids32 ||
	    l->local_size[0] % ACCEL_WG_STREAMING_X_MULTIPLE ||
	    l->global_offset[0] % ACCEL_WG_STREAMING_X_MULTIPLE)
		return false;
	for (i = 0; i < l->n_args; i++) {
		void *addr;

		if (def->args[i].kind != ACCEL_KERNEL_ARG_BUFFER)
			continue;
		memcpy(&addr, l->args[i], sizeof(addr));
		if ((uintptr_t)addr % ACCEL_WG_STREAMING_ADDR_ALIGN)
			return false;
	}
	for (i = 0; i < l->n_buffers; i++)
		l->buffer_bytes += l->buffers[i]->size;
	return true;
}

/*
 * The stack one work-group needs: the kernel's own, and more per
 * work-item. Above the device's limit (or 64 bits) the launch is refused
 * here, with a log line, not at run time.
 */
static int check_stack(struct accel_device *dev,
		       const struct accel_kernel_def *def,
		       const struct cpu_kernel *ck, struct accel_launch *l)
{
	uint64_t max = dev->u64[ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE];
	uint64_t items = l->local_size[0] * l->local_size[1] * l->local_size[2];
	uint64_t need;

	/* items is at most the device's work-group size: no overflow */
	if (__builtin_mul_overflow(def->private_per_item, items, &need) ||
	    __builtin_add_overflow(need, def->private_size, &need) ||
	    (max && need > max)) {
		log_info(dev->ctx,
			 "kernel %s: a work-group of %llu work-items needs "
			 "%llu + %llu x %llu bytes of stack, above the "
			 "device's %llu\n",
			 def->name, (unsigned long long)items,
			 (unsigned long long)def->private_size,
			 (unsigned long long)def->private_per_item,
			 (unsigned long long)items, (unsigned long long)max);
		return -E2BIG;
	}
	/* fibers have stacks of their own: not the caller's */
	l->stack_size = ck->flags & CPU_KERNEL_FIBERS ? def->private_size :
							 need;
	return 0;
}

int cpu_launch_prepare(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct accel_launch *l = &cmd->u.launch;
	const struct accel_kernel_def *def = l->kernel->def;
	const struct cpu_kernel *ck = def->handle;
	bool ids32;
	int r;

	r = check_stack(queue->dev, def, ck, l);
	if (r < 0)
		return r;
	ids32 = ids_fit_32(l);
	l->fn = ids32 && ck->ids32_fn ? ck->ids32_fn : ck->fn;
	l->streaming_fn = streaming_allowed(def, ck, l, ids32) ?
				  ck->streaming_fn :
				  NULL;
	l->kernel_flags = ck->flags;
	return 0;
}
