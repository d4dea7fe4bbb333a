/* SPDX-License-Identifier: MIT */
/*
 * refaccel, the reference accel driver (tests/kernel/refaccel/): its
 * ioctls and its engine's operations as built-in kernels.
 */
#include <string.h>

#include "backend.h"
#include "accelnode-private.h"
#include "uapi/drm/refaccel_accel.h"

/* The engine's factorial job, a driver operation (ACCELNODE_OP_DRIVER). */
#define OP_FACTORIAL (ACCELNODE_OP_DRIVER + 0)

static int refaccel_bo_create(int fd, uint64_t size, uint32_t *ret_handle)
{
	struct drm_refaccel_bo_create arg = { .size = size };
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_REFACCEL_BO_CREATE, &arg);
	if (r < 0)
		return r;
	*ret_handle = arg.handle;
	return 0;
}

static int refaccel_bo_info(int fd, uint32_t handle, uint64_t *ret_size,
			    uint64_t *ret_mmap_offset)
{
	struct drm_refaccel_bo_info arg = { .handle = handle };
	int r;

	r = accel_ioctl(fd, DRM_IOCTL_REFACCEL_BO_INFO, &arg);
	if (r < 0)
		return r;
	*ret_size = arg.size;
	*ret_mmap_offset = arg.mmap_offset;
	return 0;
}

/* Every in-fence a command can carry fits one submit. */
_Static_assert(ACCEL_CMD_MAX_IN_SYNC <= REFACCEL_MAX_IN_SYNCOBJS,
	       "refaccel takes fewer in-syncobjs than a command carries");

static int refaccel_submit(int fd, const struct accelnode_job *job)
{
	struct drm_refaccel_submit arg = {
		.dst_handle = job->dst,
		.dst_offset = job->dst_offset,
		.size = job->size,
		.in_syncobjs = (uintptr_t)job->in_syncobjs,
		.in_syncobj_count = job->n_in_syncobjs,
		.out_syncobj = job->out_syncobj,
	};

	switch ((int)job->op) {
	case ACCELNODE_OP_COPY:
	case OP_FACTORIAL:
		arg.op = job->op == ACCELNODE_OP_COPY ? REFACCEL_OP_COPY :
							REFACCEL_OP_FACTORIAL;
		arg.src_handle = job->src;
		arg.src_offset = job->src_offset;
		break;
	case ACCELNODE_OP_FILL:
		if (job->pattern_size > sizeof(arg.pattern))
			return -EINVAL;
		arg.op = REFACCEL_OP_FILL;
		arg.pattern_size = job->pattern_size;
		memcpy(arg.pattern, job->pattern, job->pattern_size);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return accel_ioctl(fd, DRM_IOCTL_REFACCEL_SUBMIT, &arg);
}

/*
 * The built-ins, each's handle the engine operation it is (an id, not an
 * address): semantics as the CPU device's built-ins of the same names,
 * over global ids [offset, offset + size) of dimension 0:
 *   copy_u8(global uchar *dst, global const uchar *src): dst[i] = src[i]
 *   fill_u32(global uint *dst, uint value):            dst[i] = value
 * and one of the engine's own (REFACCEL_OP_FACTORIAL):
 *   factorial_u32(global uint *dst, global const uint *src):
 *     dst[i] = src[i]! modulo 2^32 (0! = 1, 0 from 34 on); dst and src
 *     may be one buffer, overlapping ranges read as if src came first
 */
#define OP_HANDLE(op) ((void *)(uintptr_t)(op))

#define ARG(kind_, size_, qual_, name_, type_)                                 \
	{                                                                      \
		.struct_size = sizeof(struct accel_kernel_arg_desc),           \
		.kind = ACCEL_KERNEL_ARG_##kind_, .size = (size_),              \
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,                  \
		.type_qualifiers = (qual_), .name = (name_),                    \
		.type_name = (type_),                                           \
	}

static const struct accel_kernel_arg_desc copy_u8_args[] = {
	ARG(BUFFER, sizeof(void *), 0, "dst", "uchar*"),
	ARG(BUFFER, sizeof(void *), ACCEL_KERNEL_ARG_TYPE_CONST, "src",
	    "uchar*"),
};

static const struct accel_kernel_arg_desc fill_u32_args[] = {
	ARG(BUFFER, sizeof(void *), 0, "dst", "uint*"),
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_VALUE,
		.size = sizeof(uint32_t),
		.address_space = ACCEL_KERNEL_ARG_ADDR_PRIVATE,
		.name = "value",
		.type_name = "uint",
	},
};

static const struct accel_kernel_arg_desc factorial_u32_args[] = {
	ARG(BUFFER, sizeof(void *), 0, "dst", "uint*"),
	ARG(BUFFER, sizeof(void *), ACCEL_KERNEL_ARG_TYPE_CONST, "src",
	    "uint*"),
};

static const struct accel_kernel_info built_ins[] = {
	{
		.name = "copy_u8",
		.handle = OP_HANDLE(ACCELNODE_OP_COPY),
		.n_args = ARRAY_SIZE(copy_u8_args),
		.args = copy_u8_args,
	},
	{
		.name = "fill_u32",
		.handle = OP_HANDLE(ACCELNODE_OP_FILL),
		.n_args = ARRAY_SIZE(fill_u32_args),
		.args = fill_u32_args,
	},
	{
		.name = "factorial_u32",
		.handle = OP_HANDLE(OP_FACTORIAL),
		.n_args = ARRAY_SIZE(factorial_u32_args),
		.args = factorial_u32_args,
	},
};

static int refaccel_launch_job(struct accel_cmd *cmd,
			       struct accelnode_job *job,
			       struct accel_buffer **ret_dst,
			       struct accel_buffer **ret_src)
{
	const struct accel_launch *l = &cmd->u.launch;
	uint64_t first = l->global_offset[0], n = l->global_size[0];
	uintptr_t op = (uintptr_t)l->kernel->def->handle;
	uint32_t need = op == ACCELNODE_OP_FILL ? 1 : 2;

	if (op != ACCELNODE_OP_COPY && op != ACCELNODE_OP_FILL &&
	    op != OP_FACTORIAL)
		return -EOPNOTSUPP;
	/* Buffer arguments in order; a NULL one is not there. */
	if (l->n_buffers != need)
		return -EINVAL;
	if (op == ACCELNODE_OP_COPY) {
		job->op = ACCELNODE_OP_COPY;
		job->dst_offset = first;
		job->src_offset = first;
		job->size = n;
		*ret_src = l->buffers[1];
		*ret_dst = l->buffers[0];
		return 0;
	}
	/* 32-bit words: byte offsets and size four times the ids. */
	if (first > UINT64_MAX / 4 || n > UINT64_MAX / 4 - first)
		return -EINVAL;
	job->dst_offset = first * 4;
	job->size = n * 4;
	if (op == OP_FACTORIAL) {
		job->op = (enum accelnode_op)OP_FACTORIAL;
		job->src_offset = first * 4;
		*ret_src = l->buffers[1];
	} else {
		job->op = ACCELNODE_OP_FILL;
		job->pattern = l->args[1];
		job->pattern_size = 4;
		*ret_src = NULL;
	}
	*ret_dst = l->buffers[0];
	return 0;
}

const struct accelnode_driver accelnode_refaccel = {
	.name = REFACCEL_DRIVER_NAME,
	.max_pattern = REFACCEL_MAX_PATTERN,
	.bo_create = refaccel_bo_create,
	.bo_info = refaccel_bo_info,
	.submit = refaccel_submit,
	.built_ins = built_ins,
	.n_built_ins = ARRAY_SIZE(built_ins),
	.launch_job = refaccel_launch_job,
};
