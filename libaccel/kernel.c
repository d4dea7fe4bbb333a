/* SPDX-License-Identifier: MIT */
/*
 * Kernels: a program's function plus the argument values set so far.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static int kernel_alloc(struct accel_program *prog,
			const struct accel_kernel_def *def,
			struct accel_kernel **ret)
{
	struct accel_kernel *k;
	uint32_t i, off = 0;

	/* over-aligned (ACCEL_CACHE_LINE) */
	k = aligned_alloc(_Alignof(struct accel_kernel), sizeof(*k));
	if (!k)
		return -ENOMEM;
	memset(k, 0, sizeof(*k));
	if (def->n_args) {
		k->args = calloc(def->n_args, sizeof(*k->args));
		if (!k->args)
			goto fail;
	}
	for (i = 0; i < def->n_args; i++) {
		if (def->args[i].kind != ACCEL_KERNEL_ARG_VALUE)
			continue;
		k->args[i].value_offset = off;
		off += ALIGN_UP(def->args[i].size, 16u);
	}
	if (off) {
		k->values = aligned_alloc(16, off);
		if (!k->values)
			goto fail;
		memset(k->values, 0, off);
	}
	k->values_size = off;
	atomic_init(&k->refcount, 1);
	k->def = def;
	k->prog = accel_program_ref(prog);
	*ret = k;
	return 0;
fail:
	free(k->args);
	free(k);
	return -ENOMEM;
}

ACCEL_EXPORT int accel_kernel_new(struct accel_program *prog, const char *name,
				  struct accel_kernel **ret)
{
	uint32_t i;

	if (!prog || !name || !ret)
		return -EINVAL;
	for (i = 0; i < prog->n_kernels; i++)
		if (!strcmp(prog->kernels[i].name, name))
			return kernel_alloc(prog, &prog->kernels[i], ret);
	return -ENOENT;
}

ACCEL_EXPORT int accel_kernel_clone(struct accel_kernel *kernel,
				    struct accel_kernel **ret)
{
	struct accel_kernel *k;
	uint32_t i;
	int r;

	if (!kernel || !ret)
		return -EINVAL;
	r = kernel_alloc(kernel->prog, kernel->def, &k);
	if (r < 0)
		return r;
	for (i = 0; i < kernel->def->n_args; i++) {
		k->args[i] = kernel->args[i];
		accel_buffer_ref(k->args[i].buf);
	}
	if (kernel->values_size)
		memcpy(k->values, kernel->values, kernel->values_size);
	*ret = k;
	return 0;
}

ACCEL_EXPORT struct accel_kernel *accel_kernel_ref(struct accel_kernel *kernel)
{
	if (kernel)
		atomic_fetch_add_explicit(&kernel->refcount, 1,
					  memory_order_relaxed);
	return kernel;
}

ACCEL_EXPORT struct accel_kernel *accel_kernel_unref(struct accel_kernel *kernel)
{
	uint32_t i;

	if (!kernel)
		return NULL;
	if (atomic_fetch_sub_explicit(&kernel->refcount, 1,
				      memory_order_acq_rel) != 1)
		return NULL;
	for (i = 0; i < kernel->def->n_args; i++)
		accel_buffer_unref(kernel->args[i].buf);
	free(kernel->args);
	free(kernel->values);
	accel_program_unref(kernel->prog);
	free(kernel);
	return NULL;
}

ACCEL_EXPORT const char *accel_kernel_get_name(struct accel_kernel *kernel)
{
	return kernel ? kernel->def->name : NULL;
}

ACCEL_EXPORT struct accel_program *
accel_kernel_get_program(struct accel_kernel *kernel)
{
	return kernel ? kernel->prog : NULL;
}

ACCEL_EXPORT int accel_kernel_get_arg_count(struct accel_kernel *kernel)
{
	if (!kernel)
		return -EINVAL;
	return (int)kernel->def->n_args;
}

ACCEL_EXPORT int accel_kernel_get_arg_desc(struct accel_kernel *kernel,
					   uint32_t index,
					   struct accel_kernel_arg_desc *desc)
{
	struct accel_kernel_arg_desc copy;
	size_t n;

	if (!kernel || !desc ||
	    desc->struct_size < offsetof(struct accel_kernel_arg_desc, size))
		return -EINVAL;
	if (index >= kernel->def->n_args)
		return -ERANGE;
	copy = kernel->def->args[index];
	n = MIN((size_t)desc->struct_size, sizeof(copy));
	copy.struct_size = (uint32_t)n;
	memcpy(desc, &copy, n);
	return 0;
}

ACCEL_EXPORT int accel_kernel_get_wg_info(struct accel_kernel *kernel,
					  uint64_t *static_local_size,
					  uint64_t reqd_work_group_size[3],
					  uint32_t *flags)
{
	if (!kernel)
		return -EINVAL;
	if (static_local_size)
		*static_local_size = kernel->def->static_local_size;
	if (reqd_work_group_size)
		memcpy(reqd_work_group_size, kernel->def->reqd_wg_size,
		       sizeof(kernel->def->reqd_wg_size));
	if (flags)
		*flags = kernel->def->flags & ACCEL_KERNEL_PUBLIC_FLAGS;
	return 0;
}

ACCEL_EXPORT int accel_kernel_get_private_mem(struct accel_kernel *kernel,
					      uint64_t *private_size,
					      uint64_t *per_work_item,
					      bool *known)
{
	if (!kernel)
		return -EINVAL;
	if (private_size)
		*private_size = kernel->def->private_size;
	if (per_work_item)
		*per_work_item = kernel->def->private_per_item;
	if (known)
		*known = !(kernel->def->flags & ACCEL_KERNEL_DEF_STACK_UNKNOWN);
	return 0;
}

ACCEL_EXPORT int accel_kernel_get_hints(struct accel_kernel *kernel,
					uint64_t work_group_size_hint[3],
					const char **vec_type_hint)
{
	if (!kernel)
		return -EINVAL;
	if (work_group_size_hint)
		memcpy(work_group_size_hint, kernel->def->wg_size_hint,
		       sizeof(kernel->def->wg_size_hint));
	if (vec_type_hint)
		*vec_type_hint = kernel->def->vec_type_hint;
	return 0;
}

ACCEL_EXPORT int accel_kernel_get_sub_group_size(struct accel_kernel *kernel,
						 uint32_t *ret)
{
	if (!kernel || !ret)
		return -EINVAL;
	*ret = kernel->def->sub_group_size;
	return 0;
}

ACCEL_EXPORT int
accel_kernel_get_reqd_sub_group_size(struct accel_kernel *kernel,
				     uint32_t *ret)
{
	if (!kernel || !ret)
		return -EINVAL;
	*ret = kernel->def->reqd_sub_group_size;
	return 0;
}

/* Common checks of the set_arg calls: index, then kind. */
static int arg_check(struct accel_kernel *kernel, uint32_t index,
		     enum accel_kernel_arg_kind kind)
{
	if (!kernel)
		return -EINVAL;
	if (index >= kernel->def->n_args)
		return -ERANGE;
	if (kernel->def->args[index].kind != kind)
		return -ENOTTY;
	return 0;
}

ACCEL_EXPORT int accel_kernel_set_arg_buffer(struct accel_kernel *kernel,
					     uint32_t index,
					     struct accel_buffer *buf)
{
	struct accel_kernel_arg *arg;
	int r;

	r = arg_check(kernel, index, ACCEL_KERNEL_ARG_BUFFER);
	if (r < 0)
		return r;
	if (buf && buf->dev->ctx != kernel->prog->dev->ctx)
		return -EINVAL;
	/* Kept as the kernel's device reaches it (buffer-attach.c). */
	if (buf) {
		r = accel_buffer_on_device(buf, kernel->prog->dev, &buf);
		if (r < 0)
			return r;
	}
	arg = &kernel->args[index];
	accel_buffer_ref(buf);
	accel_buffer_unref(arg->buf);
	arg->buf = buf;
	arg->is_host_ptr = false;
	arg->host_ptr = NULL;
	arg->set = true;
	return 0;
}

ACCEL_EXPORT int accel_kernel_set_arg_host_ptr(struct accel_kernel *kernel,
					       uint32_t index, void *ptr)
{
	struct accel_kernel_arg *arg;
	int r;

	r = arg_check(kernel, index, ACCEL_KERNEL_ARG_BUFFER);
	if (r < 0)
		return r;
	if (!(kernel->prog->dev->u64[ACCEL_DEVICE_U64_CAPS] &
	      ACCEL_DEVICE_CAP_HOST_SVM))
		return -EOPNOTSUPP;
	arg = &kernel->args[index];
	arg->buf = accel_buffer_unref(arg->buf);
	arg->is_host_ptr = true;
	arg->host_ptr = ptr;
	arg->set = true;
	return 0;
}

ACCEL_EXPORT int accel_kernel_set_arg_value(struct accel_kernel *kernel,
					    uint32_t index, size_t size,
					    const void *value)
{
	struct accel_kernel_arg *arg;
	int r;

	r = arg_check(kernel, index, ACCEL_KERNEL_ARG_VALUE);
	if (r < 0)
		return r;
	if (!value || size != kernel->def->args[index].size)
		return -EINVAL;
	arg = &kernel->args[index];
	memcpy(kernel->values + arg->value_offset, value, size);
	arg->set = true;
	return 0;
}

ACCEL_EXPORT int accel_kernel_set_arg_local(struct accel_kernel *kernel,
					    uint32_t index, size_t size)
{
	int r;

	r = arg_check(kernel, index, ACCEL_KERNEL_ARG_LOCAL);
	if (r < 0)
		return r;
	if (size == 0)
		return -EINVAL;
	if (size > kernel->prog->dev->u64[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE])
		return -E2BIG;
	kernel->args[index].local_size = size;
	kernel->args[index].set = true;
	return 0;
}

/* An image of @l fits argument @d: its type, depth images for depth ones. */
static bool image_matches(const struct accel_kernel_arg_desc *d,
			  const struct accel_image_layout *l)
{
	bool depth = l->channel_order == ACCEL_IMAGE_ORDER_DEPTH;

	return l->type == d->image_type &&
	       depth == !!(d->image_access & ACCEL_KERNEL_ARG_IMAGE_DEPTH);
}

ACCEL_EXPORT int accel_kernel_set_arg_image(struct accel_kernel *kernel,
					    uint32_t index,
					    struct accel_buffer *buf,
					    const struct accel_image_layout *layout)
{
	struct accel_image_layout l;
	struct accel_kernel_arg *arg;
	uint64_t span;
	int r;

	r = arg_check(kernel, index, ACCEL_KERNEL_ARG_IMAGE);
	if (r < 0)
		return r;
	if (!buf || !layout || buf->dev->ctx != kernel->prog->dev->ctx)
		return -EINVAL;
	r = accel_image_layout_resolve(kernel->prog->dev, layout, &l, &span);
	if (r < 0)
		return r;
	if (!image_matches(&kernel->def->args[index], &l) || span > buf->size)
		return -EINVAL;
	r = accel_buffer_on_device(buf, kernel->prog->dev, &buf);
	if (r < 0)
		return r;
	arg = &kernel->args[index];
	accel_buffer_ref(buf);
	accel_buffer_unref(arg->buf);
	arg->buf = buf;
	/* check_limits() kept every size within 32 bits */
	arg->image = (struct accel_wg_image){
		.row_pitch = l.row_pitch,
		.slice_pitch = l.slice_pitch,
		.width = (uint32_t)l.width,
		.height = (uint32_t)l.height,
		.depth = (uint32_t)l.depth,
		.array_size = (uint32_t)l.array_size,
		.type = l.type,
		.channel_order = l.channel_order,
		.channel_type = l.channel_type,
		.texel_size = (uint32_t)accel_image_texel_size(
			l.channel_order, l.channel_type),
	};
	arg->image_offset = l.offset;
	arg->set = true;
	return 0;
}

ACCEL_EXPORT int accel_kernel_set_arg_sampler(struct accel_kernel *kernel,
					      uint32_t index, uint32_t sampler)
{
	uint32_t filter = sampler & ACCEL_SAMPLER_FILTER_MASK;
	uint32_t address = sampler & ACCEL_SAMPLER_ADDRESS_MASK;
	int r;

	r = arg_check(kernel, index, ACCEL_KERNEL_ARG_SAMPLER);
	if (r < 0)
		return r;
	if ((sampler & ~(ACCEL_SAMPLER_NORMALIZED_COORDS |
			 ACCEL_SAMPLER_ADDRESS_MASK |
			 ACCEL_SAMPLER_FILTER_MASK)) ||
	    (filter != ACCEL_SAMPLER_FILTER_NEAREST &&
	     filter != ACCEL_SAMPLER_FILTER_LINEAR) ||
	    address > ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT)
		return -EINVAL;
	kernel->args[index].sampler = sampler;
	kernel->args[index].set = true;
	return 0;
}
