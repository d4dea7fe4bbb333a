/* SPDX-License-Identifier: MIT */
/*
 * Kernel launches: NDRange validation, work-group size selection and the
 * argument snapshot handed to the backend, whose launch_prepare adds its
 * own policy (the CPU's: backends/cpu/cpu-launch.c).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* Alignment of local-memory blocks (see accel-wg.h). */
#define LOCAL_ALIGN 128u

/* Largest divisor of @n that is <= @limit (>= 1). */
static uint64_t largest_divisor(uint64_t n, uint64_t limit)
{
	uint64_t d;

	if (limit >= n)
		return n;
	for (d = limit; d > 1; d--)
		if (n % d == 0)
			return d;
	return 1;
}

/*
 * Pick a work-group size when the caller left it to us. Work-groups are run
 * by one call each, so larger groups amortise the call, but we want enough
 * groups (4 per compute unit) to balance the load. Groups are uniform (a
 * divisor of the global size) because OpenCL 1.2 kernels assume it.
 */
static void pick_local_size(struct accel_device *dev, uint32_t dim,
			    const uint64_t global[3], uint64_t total,
			    uint64_t local[3])
{
	uint64_t cus = MAX(dev->u64[ACCEL_DEVICE_U64_COMPUTE_UNITS], 1);
	uint64_t max_wg = dev->u64[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE];
	uint64_t budget = MAX(MIN(max_wg, total / (cus * 4)), 1);
	uint32_t d;

	for (d = 0; d < 3; d++) {
		uint64_t limit = MIN(budget,
			dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X + d]);

		/* Leave room for the other dimensions: square-ish tiles. */
		if (d == 0 && dim > 1)
			limit = MIN(limit, 64);
		local[d] = d < dim ? largest_divisor(global[d], limit) : 1;
		budget = MAX(budget / local[d], 1);
	}
}

/*
 * Work-groups per dimension and in all: a division rounding up that
 * cannot wrap (global + local - 1 does, for a global size near 2^64), and
 * a checked product.
 */
int accel_launch_count_groups(struct accel_launch *l)
{
	uint32_t d;

	l->total_groups = 1;
	for (d = 0; d < 3; d++) {
		uint64_t g = l->global_size[d], ls = l->local_size[d];

		l->num_groups[d] = g / ls + (g % ls != 0);
		if (__builtin_mul_overflow(l->total_groups, l->num_groups[d],
					   &l->total_groups))
			return -EOVERFLOW;
	}
	return 0;
}

/* The verdict so far: the first refusal wins. */
static int refuse(struct accel_launch_check *v, int error, uint32_t reason,
		  uint32_t dim, uint32_t arg_index)
{
	v->error = error;
	v->reason = reason;
	v->dim = dim;
	v->arg_index = arg_index;
	return error;
}

/* Every argument set (ENOEXEC comes before the geometry). */
static int check_args_set(const struct accel_kernel *k,
			  struct accel_launch_check *v)
{
	for (uint32_t i = 0; i < k->def->n_args; i++)
		if (!k->args[i].set)
			return refuse(v, -ENOEXEC, ACCEL_LAUNCH_ARG_NOT_SET, 0,
				      i);
	return 0;
}

/* The local sizes the caller gave. */
static int check_local(struct accel_device *dev,
		       const struct accel_kernel_def *def,
		       const struct accel_ndrange *range, bool uniform,
		       struct accel_launch *l, struct accel_launch_check *v)
{
	const uint64_t *reqd = def->reqd_wg_size;
	uint64_t total = 1;

	for (uint32_t d = 0; d < 3; d++) {
		uint64_t ls = d < l->work_dim ? range->local_size[d] : 1;

		if (ls == 0)
			return refuse(v, -EINVAL,
				      ACCEL_LAUNCH_WORK_GROUP_SIZE, d, 0);
		if (ls > dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X + d])
			return refuse(v, -EINVAL,
				      ACCEL_LAUNCH_WORK_ITEM_SIZE, d, 0);
		if (reqd[0] && ls != reqd[d])
			return refuse(v, -EINVAL,
				      ACCEL_LAUNCH_REQD_WORK_GROUP_SIZE, d, 0);
		if (uniform && l->global_size[d] % ls)
			return refuse(v, -EINVAL, ACCEL_LAUNCH_NON_UNIFORM,
				      d, 0);
		if (__builtin_mul_overflow(total, ls, &total))
			return refuse(v, -EINVAL,
				      ACCEL_LAUNCH_WORK_GROUP_SIZE, d, 0);
		l->local_size[d] = ls;
	}
	if (total > dev->u64[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE])
		return refuse(v, -EINVAL, ACCEL_LAUNCH_WORK_GROUP_SIZE, 0, 0);
	return 0;
}

/*
 * The geometry: @range checked into @l, the local size picked when the
 * caller left it open.
 */
static int check_range(struct accel_device *dev,
		       const struct accel_kernel_def *def,
		       const struct accel_ndrange *range, struct accel_launch *l,
		       struct accel_launch_check *v)
{
	const uint64_t *reqd = def->reqd_wg_size;
	bool pick = true, uniform;
	uint64_t items = 1;
	uint32_t d, dim = range->work_dim;
	int r;

	uniform = range->struct_size >= offsetof(struct accel_ndrange, flags) +
					sizeof(range->flags) &&
		  (range->flags & ACCEL_NDRANGE_UNIFORM);
	for (d = 0; d < 3; d++) {
		if (d < dim) {
			if (range->global_size[d] == 0)
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_GLOBAL_SIZE, d, 0);
			if (range->global_offset[d] >
			    UINT64_MAX - range->global_size[d])
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_GLOBAL_OFFSET, d, 0);
			if (range->local_size[d])
				pick = false;
			l->global_size[d] = range->global_size[d];
			l->global_offset[d] = range->global_offset[d];
		} else {
			if (range->global_size[d] > 1)
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_GLOBAL_SIZE, d, 0);
			if (range->local_size[d] > 1)
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_WORK_ITEM_SIZE, d, 0);
			if (range->global_offset[d])
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_GLOBAL_OFFSET, d, 0);
			l->global_size[d] = 1;
			l->global_offset[d] = 0;
		}
		/* Work-items (so work-groups) are counted in 64 bits. */
		if (__builtin_mul_overflow(items, l->global_size[d], &items))
			return refuse(v, -EOVERFLOW, ACCEL_LAUNCH_GLOBAL_SIZE,
				      d, 0);
	}
	l->work_dim = dim;

	if (pick && reqd[0]) {
		for (d = 0; d < 3; d++) {
			if (uniform && l->global_size[d] % reqd[d])
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_NON_UNIFORM, d, 0);
			l->local_size[d] = reqd[d];
		}
	} else if (pick) {
		pick_local_size(dev, dim, l->global_size, items,
				l->local_size);
	} else {
		r = check_local(dev, def, range, uniform, l, v);
		if (r < 0)
			return r;
	}
	if (reqd[0])
		for (d = dim; d < 3; d++)
			if (reqd[d] != 1)
				return refuse(v, -EINVAL,
					      ACCEL_LAUNCH_REQD_WORK_GROUP_SIZE,
					      d, 0);
	if (accel_launch_count_groups(l) < 0)
		return refuse(v, -EOVERFLOW, ACCEL_LAUNCH_GLOBAL_SIZE, 0, 0);
	return 0;
}

/*
 * Point the launch's arrays at the command's inline storage, or at one
 * heap block when they do not fit: small launches allocate nothing.
 */
static int launch_arrays(struct accel_launch *l, uint32_t n_args,
			 uint32_t n_buf, uint32_t n_local, size_t storage)
{
	size_t off_args, off_buf, off_off, off_idx, off_bidx, total;
	uint8_t *p;

	if (n_args <= ACCEL_LAUNCH_INLINE_ARGS &&
	    n_local <= ACCEL_LAUNCH_INLINE_LOCAL &&
	    storage <= ACCEL_LAUNCH_INLINE_STORAGE) {
		l->args = l->inline_args;
		l->arg_storage = l->inline_storage;
		l->buffers = l->inline_buffers;
		l->buffer_arg_index = l->inline_buffer_index;
		l->local_arg_index = l->inline_local_index;
		l->local_arg_offset = l->inline_local_offset;
		return 0;
	}
	/* Storage first (16-aligned), then the 8- and 4-byte arrays. */
	off_args = storage;
	off_buf = off_args + (size_t)n_args * sizeof(void *);
	off_off = off_buf + (size_t)n_buf * sizeof(struct accel_buffer *);
	off_idx = off_off + (size_t)n_local * sizeof(uint64_t);
	off_bidx = off_idx + (size_t)n_local * sizeof(uint32_t);
	total = ALIGN_UP(off_bidx + (size_t)n_buf * sizeof(uint32_t),
			 (size_t)16);
	p = aligned_alloc(16, total);
	if (!p)
		return -ENOMEM;
	l->heap = p;
	l->arg_storage = p;
	l->args = (void **)(p + off_args);
	l->buffers = (struct accel_buffer **)(p + off_buf);
	l->local_arg_offset = (uint64_t *)(p + off_off);
	l->local_arg_index = (uint32_t *)(p + off_idx);
	l->buffer_arg_index = (uint32_t *)(p + off_bidx);
	return 0;
}

/*
 * The end of a local block of @size bytes placed at @off; saturates at
 * UINT64_MAX, which is above any device's local memory (-E2BIG).
 */
static uint64_t local_end(uint64_t off, uint64_t size)
{
	uint64_t blk = ALIGN_UP(size, (uint64_t)LOCAL_ALIGN), end;

	if (blk < size || __builtin_add_overflow(off, blk, &end))
		return UINT64_MAX;
	return end;
}

/* Argument @d only reads the memory bound to it. */
static bool arg_reads_only(const struct accel_kernel_arg_desc *d)
{
	if (d->kind == ACCEL_KERNEL_ARG_IMAGE)
		return !(d->image_access & ACCEL_IMAGE_ACCESS_WRITE);
	return d->address_space == ACCEL_KERNEL_ARG_ADDR_CONSTANT ||
	       (d->type_qualifiers & ACCEL_KERNEL_ARG_TYPE_CONST);
}

/*
 * What the bound arguments ask of the device: writable buffers that can
 * be written, local memory that fits.
 */
static int check_args_use(const struct accel_kernel *k,
			  struct accel_launch_check *v)
{
	const struct accel_kernel_def *def = k->def;
	uint64_t local = local_end(0, def->static_local_size);

	for (uint32_t i = 0; i < def->n_args; i++) {
		const struct accel_kernel_arg_desc *d = &def->args[i];
		struct accel_buffer *b = k->args[i].buf;

		/* A writable pointer into a read-only mapping would fault. */
		if (b && accel_buffer_root(b)->readonly_mapping &&
		    !arg_reads_only(d))
			return refuse(v, -EACCES, ACCEL_LAUNCH_ARG_READ_ONLY,
				      0, i);
		if (d->kind == ACCEL_KERNEL_ARG_LOCAL)
			local = local_end(local, k->args[i].local_size);
	}
	if (local > k->prog->dev->u64[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE])
		return refuse(v, -E2BIG, ACCEL_LAUNCH_LOCAL_MEM, 0, 0);
	return 0;
}

/*
 * Every check of a launch of @k over @range, in the order the verdict
 * takes them; @l gets the geometry.
 */
static int check_launch(struct accel_kernel *k,
			const struct accel_ndrange *range,
			struct accel_launch *l, struct accel_launch_check *v)
{
	uint32_t flags = 0;
	int r;

	refuse(v, 0, ACCEL_LAUNCH_OK, 0, 0);
	if (range->struct_size < offsetof(struct accel_ndrange, flags))
		return -EINVAL;
	if (range->struct_size >= offsetof(struct accel_ndrange, flags) +
					  sizeof(range->flags))
		flags = range->flags;
	if (flags & ~ACCEL_NDRANGE_FLAGS_ALL)
		return -EINVAL;
	if (range->work_dim < 1 || range->work_dim > 3)
		return refuse(v, -EINVAL, ACCEL_LAUNCH_WORK_DIM, 0, 0);
	r = check_args_set(k, v);
	if (r == 0)
		r = check_range(k->prog->dev, k->def, range, l, v);
	if (r == 0)
		r = check_args_use(k, v);
	return r;
}

/* Snapshot the kernel's (checked) arguments into the launch. */
static int snapshot_args(struct accel_kernel *k, struct accel_launch *l)
{
	const struct accel_kernel_def *def = k->def;
	size_t storage = 0, off = 0;
	uint32_t i, n_local = 0, n_buf = 0;
	uint64_t local_off;
	int r;

	for (i = 0; i < def->n_args; i++) {
		storage += ALIGN_UP((size_t)def->args[i].size, 16u);
		n_local += def->args[i].kind == ACCEL_KERNEL_ARG_LOCAL;
		n_buf += k->args[i].buf != NULL;
	}

	l->n_args = def->n_args;
	r = launch_arrays(l, def->n_args, n_buf, n_local, storage);
	if (r < 0)
		return r;

	local_off = local_end(0, def->static_local_size);
	for (i = 0; i < def->n_args; i++) {
		const struct accel_kernel_arg *arg = &k->args[i];
		void *slot = l->arg_storage + off;

		switch (def->args[i].kind) {
		case ACCEL_KERNEL_ARG_BUFFER:
			/* the backend writes the address (launch_prepare) */
			memset(slot, 0, def->args[i].size);
			/* a host address goes in as it is (HOST_SVM) */
			if (arg->is_host_ptr)
				memcpy(slot, &arg->host_ptr,
				       MIN(sizeof(arg->host_ptr),
					   (size_t)def->args[i].size));
			if (arg->buf) {
				l->buffer_arg_index[l->n_buffers] = i;
				l->buffers[l->n_buffers++] =
					accel_buffer_ref(arg->buf);
			}
			break;
		case ACCEL_KERNEL_ARG_VALUE:
			memcpy(slot, k->values + arg->value_offset,
			       def->args[i].size);
			break;
		case ACCEL_KERNEL_ARG_IMAGE: {
			/*
			 * data holds the offset of texel 0 in the buffer
			 * until the backend adds the buffer's address
			 */
			struct accel_wg_image img = arg->image;

			img.data = (void *)(uintptr_t)arg->image_offset;
			memcpy(slot, &img, sizeof(img));
			l->buffer_arg_index[l->n_buffers] = i;
			l->buffers[l->n_buffers++] = accel_buffer_ref(arg->buf);
			break;
		}
		case ACCEL_KERNEL_ARG_SAMPLER: {
			uintptr_t bits = arg->sampler;

			memcpy(slot, &bits, sizeof(bits));
			break;
		}
		case ACCEL_KERNEL_ARG_LOCAL:
			memset(slot, 0, sizeof(void *));
			l->local_arg_index[l->n_local_args] = i;
			l->local_arg_offset[l->n_local_args++] = local_off;
			local_off = local_end(local_off, arg->local_size);
			break;
		}
		l->args[i] = slot;
		off += ALIGN_UP((size_t)def->args[i].size, 16u);
	}
	l->static_local_size = def->static_local_size;
	l->local_mem_size = local_off;
	return 0;
}

ACCEL_EXPORT int accel_kernel_check_launch(struct accel_kernel *kernel,
					   const struct accel_ndrange *range,
					   struct accel_launch_check *ret)
{
	struct accel_launch_check v;
	struct accel_launch l;
	int r;

	if (!kernel || !range || !ret ||
	    ret->struct_size < sizeof(struct accel_launch_check))
		return -EINVAL;
	memset(&l, 0, sizeof(l));
	r = check_launch(kernel, range, &l, &v);
	if (r < 0 && v.error == 0)
		return -EINVAL;   /* a malformed range, not a verdict */
	ret->error = v.error;
	ret->reason = v.reason;
	ret->dim = v.dim;
	ret->arg_index = v.arg_index;
	return 0;
}

int accel_launch_template(struct accel_queue *queue,
			  struct accel_kernel *kernel,
			  const struct accel_ndrange *range,
			  struct accel_cmd **ret)
{
	struct accel_launch_check v;
	struct accel_cmd *cmd;
	int r;

	cmd = aligned_alloc(16, ALIGN_UP(sizeof(*cmd), (size_t)16) +
				ALIGN_UP(queue->dev->ops->cmd_priv_size,
					 (size_t)16));
	if (!cmd)
		return -ENOMEM;
	memset(cmd, 0, sizeof(*cmd));
	cmd->type = ACCEL_CMD_LAUNCH;
	cmd->queue = queue;   /* for launch_prepare() only */
	cmd->u.launch.kernel = accel_kernel_ref(kernel);
	r = check_launch(kernel, range, &cmd->u.launch, &v);
	if (r == 0)
		r = snapshot_args(kernel, &cmd->u.launch);
	if (r == 0 && queue->dev->ops->launch_prepare)
		r = queue->dev->ops->launch_prepare(queue, cmd);
	cmd->queue = NULL;    /* a template outlives the queue */
	if (r < 0) {
		accel_launch_template_free(cmd);
		return r;
	}
	*ret = cmd;
	return 0;
}

void accel_launch_template_free(struct accel_cmd *cmd)
{
	if (!cmd)
		return;
	accel_launch_release(&cmd->u.launch);
	free(cmd);
}

ACCEL_EXPORT int accel_queue_launch(struct accel_queue *queue,
				    struct accel_kernel *kernel,
				    const struct accel_ndrange *range,
				    uint32_t n_wait,
				    struct accel_fence *const *wait,
				    struct accel_fence **ret_fence)
{
	struct accel_launch_check v;
	struct accel_launch *l;
	struct accel_cmd *cmd;
	int r;

	r = accel_queue_check_wait(queue, n_wait, wait);
	if (r < 0)
		return r;
	if (!kernel || !range)
		return -EINVAL;
	if (kernel->prog->dev != queue->dev)
		return -EXDEV;

	cmd = accel_cmd_alloc(queue, ACCEL_CMD_LAUNCH);
	if (!cmd)
		return -ENOMEM;
	l = &cmd->u.launch;
	l->kernel = accel_kernel_ref(kernel);
	r = check_launch(kernel, range, l, &v);
	if (r == 0)
		r = snapshot_args(kernel, l);
	if (r == 0 && queue->dev->ops->launch_prepare)
		r = queue->dev->ops->launch_prepare(queue, cmd);
	if (r < 0) {
		accel_cmd_discard(cmd);
		return r;
	}
	return accel_cmd_submit(cmd, n_wait, wait, ret_fence);
}
