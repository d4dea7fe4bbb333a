/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's launch policy (launch_prepare): buffer arguments as
 * host addresses, wider work-groups for kernels that cannot see them,
 * which variant of the kernel's code runs, and whether its stack fits.
 * The core has checked the range and the arguments and taken their
 * snapshot.
 */
#include <string.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-program.h"

/* Work-items in x below which a group-invariant launch is re-cut. */
#define WIDEN_BELOW 16u
/* and the widest group the re-cut makes */
#define WIDEN_MAX 256u

/*
 * A kernel that cannot see its work-groups (ACCEL_KERNEL_GROUP_INVARIANT)
 * enqueued with tiny ones, or whose picked size is a small divisor of an
 * awkward global size (a prime gives 1), runs in groups of up to
 * WIDEN_MAX in x, a multiple of 16 so that the work-item loop vectorises,
 * with a smaller last group. Larger enqueued groups are left alone: they
 * already amortise the call per group.
 */
static int widen_groups(struct accel_device *dev, struct accel_launch *l)
{
	uint64_t cus = MAX(dev->u64[ACCEL_DEVICE_U64_COMPUTE_UNITS], 1);
	uint64_t x = l->global_size[0] / (cus * 8);

	if (l->local_size[0] >= WIDEN_BELOW)
		return 0;
	x = MIN(MAX(x, (uint64_t)WIDEN_BELOW), (uint64_t)WIDEN_MAX) &
	    ~(uint64_t)(WIDEN_BELOW - 1);
	x = MIN(x, l->global_size[0]);
	if (x <= l->local_size[0])
		return 0;
	l->local_size[0] = x;
	return accel_launch_count_groups(l);
}

/*
 * Kernels take buffers as host addresses, images as a struct
 * accel_wg_image whose data is the address of texel 0 (the snapshot left
 * its offset there).
 */
static void bind_buffers(const struct accel_kernel_def *def,
			 struct accel_launch *l)
{
	for (uint32_t j = 0; j < l->n_buffers; j++) {
		uint32_t i = l->buffer_arg_index[j];
		uint8_t *addr = l->buffers[j]->host_ptr;

		if (def->args[i].kind == ACCEL_KERNEL_ARG_IMAGE) {
			struct accel_wg_image *img = l->args[i];

			img->data = addr + (uintptr_t)img->data;
			continue;
		}
		memcpy(l->args[i], &addr, sizeof(addr));
	}
}

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
			      const struct accel_launch *l, bool ids32,
			      struct cpu_launch *cl)
{
	uint32_t i;

	if (!ids32 || l->local_size[0] % ACCEL_WG_STREAMING_X_MULTIPLE ||
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
		cl->buffer_bytes += l->buffers[i]->size;
	return true;
}

/*
 * The streaming variant @l runs, if any: one it meets the contract of and
 * binds enough bytes for. A variant built later (cpu-variants.c) is asked
 * for only then.
 */
static accel_wg_fn streaming_fn(struct accel_device *dev,
				const struct accel_kernel_def *def,
				const struct cpu_kernel *ck,
				const struct accel_launch *l, bool ids32,
				struct cpu_launch *cl)
{
	cl->buffer_bytes = 0;
	if ((!ck->streaming_fn && !ck->later) ||
	    !streaming_allowed(def, l, ids32, cl) ||
	    cl->buffer_bytes < cpu_streaming_min(dev))
		return NULL;
	return cpu_kernel_streaming_fn(ck);
}

/*
 * The stack one work-group needs: the kernel's own, and more per
 * work-item. Above the device's limit (or 64 bits) the launch is refused
 * here, with a log line, not at run time.
 */
static int check_stack(struct accel_device *dev,
		       const struct accel_kernel_def *def,
		       const struct cpu_kernel *ck,
		       const struct accel_launch *l, struct cpu_launch *cl)
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
	cl->stack_size = ck->flags & CPU_KERNEL_FIBERS ? def->private_size :
							 need;
	return 0;
}

int cpu_launch_prepare(struct accel_queue *queue, struct accel_cmd *cmd)
{
	struct accel_launch *l = &cmd->u.launch;
	struct cpu_launch *cl = &((struct cpu_exec_job *)accel_cmd_priv(cmd))
					 ->launch;
	const struct accel_kernel_def *def = l->kernel->def;
	const struct cpu_kernel *ck = def->handle;
	bool ids32;
	int r;

	bind_buffers(def, l);
	if (def->flags & ACCEL_KERNEL_GROUP_INVARIANT) {
		r = widen_groups(queue->dev, l);
		if (r < 0)
			return r;
	}
	r = check_stack(queue->dev, def, ck, l, cl);
	if (r < 0)
		return r;
	ids32 = ids_fit_32(l);
	cl->fn = ids32 && ck->ids32_fn ? ck->ids32_fn : ck->fn;
	cl->streaming_fn = streaming_fn(queue->dev, def, ck, l, ids32, cl);
	cl->kernel_flags = ck->flags;
	return 0;
}
