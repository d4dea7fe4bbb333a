/* SPDX-License-Identifier: MIT */
/*
 * Programs: validated, deep-copied kernel descriptions, each with its
 * backend's handle; made by the backend (built from source, loaded from a
 * binary, its built-in kernels) or from the caller's native functions.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* Fields a caller must provide in struct accel_native_kernel_desc. */
#define KERNEL_DESC_MIN_SIZE                                                   \
	(offsetof(struct accel_native_kernel_desc, reqd_work_group_size) +     \
	 sizeof(((struct accel_native_kernel_desc *)0)->reqd_work_group_size))
/* Fields a caller must provide in struct accel_kernel_arg_desc. */
#define ARG_DESC_MIN_SIZE offsetof(struct accel_kernel_arg_desc, name)

static void kernel_def_clear(struct accel_kernel_def *def)
{
	uint32_t i;

	for (i = 0; def->args && i < def->n_args; i++) {
		free((char *)def->args[i].name);
		free((char *)def->args[i].type_name);
	}
	free(def->args);
	free(def->name);
	free(def->vec_type_hint);
}

/* Fields an image argument's description needs. */
#define IMAGE_ARG_DESC_MIN_SIZE                                                \
	(offsetof(struct accel_kernel_arg_desc, image_access) +                \
	 sizeof(((struct accel_kernel_arg_desc *)0)->image_access))

/*
 * Image and sampler arguments: only on a device with images (its backend
 * passes them: launch_prepare), an image's type and access known.
 */
static int check_image_arg(struct accel_device *dev,
			   const struct accel_kernel_arg_desc *in)
{
	uint32_t access;

	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IMAGES))
		return -EINVAL;
	if (in->kind == ACCEL_KERNEL_ARG_SAMPLER)
		return in->size != 0 && in->size != sizeof(void *) ? -EINVAL :
								     0;
	if ((in->size != 0 && in->size != sizeof(struct accel_wg_image)) ||
	    in->struct_size < IMAGE_ARG_DESC_MIN_SIZE ||
	    !accel_image_type_valid(in->image_type))
		return -EINVAL;
	access = in->image_access & ~ACCEL_KERNEL_ARG_IMAGE_DEPTH;
	if (access == 0 ||
	    (access & ~(ACCEL_IMAGE_ACCESS_READ | ACCEL_IMAGE_ACCESS_WRITE)))
		return -EINVAL;
	if ((in->image_access & ACCEL_KERNEL_ARG_IMAGE_DEPTH) &&
	    !accel_image_format_for_type(in->image_type,
					 ACCEL_IMAGE_ORDER_DEPTH))
		return -EINVAL;
	return 0;
}

static int copy_arg(struct accel_device *dev,
		    const struct accel_kernel_arg_desc *in,
		    struct accel_kernel_arg_desc *out)
{
	const char *name = NULL, *type_name = NULL;
	int r;

	if (in->struct_size < ARG_DESC_MIN_SIZE)
		return -EINVAL;
	if (in->address_space > ACCEL_KERNEL_ARG_ADDR_LOCAL ||
	    (in->type_qualifiers & ~0xfu) || in->reserved)
		return -EINVAL;
	switch (in->kind) {
	case ACCEL_KERNEL_ARG_BUFFER:
	case ACCEL_KERNEL_ARG_LOCAL:
		if (in->size != 0 && in->size != sizeof(void *))
			return -EINVAL;
		break;
	case ACCEL_KERNEL_ARG_VALUE:
		if (in->size == 0)
			return -EINVAL;
		if (in->size > dev->u64[ACCEL_DEVICE_U64_MAX_ARG_BYTES])
			return -E2BIG;
		break;
	case ACCEL_KERNEL_ARG_IMAGE:
	case ACCEL_KERNEL_ARG_SAMPLER:
		r = check_image_arg(dev, in);
		if (r < 0)
			return r;
		break;
	default:
		return -EINVAL;
	}
	if (in->struct_size >= offsetof(struct accel_kernel_arg_desc, name) +
				       sizeof(in->name))
		name = in->name;
	if (in->struct_size >= offsetof(struct accel_kernel_arg_desc, type_name) +
				       sizeof(in->type_name))
		type_name = in->type_name;

	memset(out, 0, sizeof(*out));
	out->struct_size = sizeof(*out);
	out->kind = in->kind;
	if (in->kind == ACCEL_KERNEL_ARG_VALUE)
		out->size = in->size;
	else if (in->kind == ACCEL_KERNEL_ARG_IMAGE)
		out->size = (uint32_t)sizeof(struct accel_wg_image);
	else
		out->size = (uint32_t)sizeof(void *);
	if (in->kind == ACCEL_KERNEL_ARG_IMAGE) {
		out->image_type = in->image_type;
		out->image_access = in->image_access;
	}
	out->address_space = in->address_space;
	out->type_qualifiers = in->type_qualifiers;
	out->name = strdup(name ? name : "");
	out->type_name = strdup(type_name ? type_name : "");
	if (!out->name || !out->type_name)
		return -ENOMEM;
	return 0;
}

/*
 * What an argument counts for in ACCEL_DEVICE_U64_MAX_ARG_BYTES: an image
 * as a pointer, as OpenCL counts a cl_mem, so that a kernel may take as
 * many images as the image limits say.
 */
static uint32_t arg_bytes_of(const struct accel_kernel_arg_desc *d)
{
	return d->kind == ACCEL_KERNEL_ARG_IMAGE ? (uint32_t)sizeof(void *) :
						   d->size;
}

/* Count read images [0], written (or read-write) ones [1], samplers [2]. */
static void count_images(const struct accel_kernel_arg_desc *d,
			 uint64_t images[3])
{
	if (d->kind == ACCEL_KERNEL_ARG_SAMPLER)
		images[2]++;
	else if (d->kind == ACCEL_KERNEL_ARG_IMAGE)
		images[d->image_access & ACCEL_IMAGE_ACCESS_WRITE ? 1 : 0]++;
}

static int copy_kernel(struct accel_device *dev,
		       const struct accel_kernel_info *in,
		       struct accel_kernel_def *out)
{
	const uint64_t *reqd = in->reqd_wg_size;
	uint64_t arg_bytes = 0, images[3] = { 0 };
	uint32_t i;
	int r;

	if (!in->name || !*in->name ||
	    (in->flags & ~ACCEL_KERNEL_PUBLIC_FLAGS) ||
	    (in->n_args && !in->args))
		return -EINVAL;
	if (in->n_args > dev->u64[ACCEL_DEVICE_U64_MAX_KERNEL_ARGS] ||
	    in->static_local_size > dev->u64[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE])
		return -E2BIG;
	if (reqd[0] || reqd[1] || reqd[2]) {
		if (!reqd[0] || !reqd[1] || !reqd[2] ||
		    reqd[0] > dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X] ||
		    reqd[1] > dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y] ||
		    reqd[2] > dev->u64[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z] ||
		    reqd[0] * reqd[1] * reqd[2] >
			    dev->u64[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE])
			return -EINVAL;
	}

	memset(out, 0, sizeof(*out));
	out->handle = in->handle;
	out->flags = in->flags;
	out->static_local_size = in->static_local_size;
	memcpy(out->reqd_wg_size, reqd, sizeof(out->reqd_wg_size));
	memcpy(out->wg_size_hint, in->wg_size_hint, sizeof(out->wg_size_hint));
	out->private_size = in->private_size;
	out->private_per_item = in->private_per_item;
	out->sub_group_size = in->sub_group_size;
	out->reqd_sub_group_size = in->reqd_sub_group_size;
	if (!in->private_size_known)
		out->flags |= ACCEL_KERNEL_DEF_STACK_UNKNOWN;
	out->name = strdup(in->name);
	out->vec_type_hint = strdup(in->vec_type_hint ? in->vec_type_hint : "");
	if (!out->name || !out->vec_type_hint)
		return -ENOMEM;
	if (in->n_args) {
		out->args = calloc(in->n_args, sizeof(*out->args));
		if (!out->args)
			return -ENOMEM;
	}
	for (i = 0; i < in->n_args; i++) {
		/* Count as we go so kernel_def_clear() frees what was made. */
		out->n_args = i + 1;
		r = copy_arg(dev, &in->args[i], &out->args[i]);
		if (r < 0)
			return r;
		arg_bytes += ALIGN_UP((uint64_t)arg_bytes_of(&out->args[i]), 16);
		count_images(&out->args[i], images);
	}
	if (arg_bytes > dev->u64[ACCEL_DEVICE_U64_MAX_ARG_BYTES] ||
	    images[0] > dev->u64[ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS] ||
	    images[1] > dev->u64[ACCEL_DEVICE_U64_MAX_WRITE_IMAGE_ARGS] ||
	    images[2] > dev->u64[ACCEL_DEVICE_U64_MAX_SAMPLERS])
		return -E2BIG;
	return 0;
}

/* Release the backend's kernel handles of a program's first @n kernels. */
static void free_handles(struct accel_device *dev, bool static_handles,
			 const struct accel_kernel_info *infos,
			 const struct accel_kernel_def *defs, uint32_t n)
{
	uint32_t i;

	if (static_handles || !dev->ops->kernel_free)
		return;
	for (i = 0; i < n; i++) {
		void *h = infos ? infos[i].handle : defs[i].handle;

		if (h)
			dev->ops->kernel_free(dev, h);
	}
}

int accel_program_create(struct accel_device *dev,
			 const struct accel_program_desc *desc,
			 struct accel_program **ret)
{
	struct accel_program *prog = NULL;
	uint32_t i, j, n = desc->n_kernels;
	int r;

	r = accel_device_alive(dev);
	if (r < 0)
		goto fail_handles;
	r = -ENOMEM;
	prog = calloc(1, sizeof(*prog));
	if (!prog)
		goto fail_handles;
	/* A program may have no kernels (OpenCL C with only functions). */
	prog->kernels = calloc(n ? n : 1, sizeof(*prog->kernels));
	if (!prog->kernels)
		goto fail_handles;
	if (desc->binary_size) {
		prog->binary = malloc(desc->binary_size);
		if (!prog->binary)
			goto fail_handles;
		memcpy(prog->binary, desc->binary, desc->binary_size);
		prog->binary_size = desc->binary_size;
	}
	r = 0;
	for (i = 0; i < n && r == 0; i++) {
		prog->n_kernels = i + 1;
		r = copy_kernel(dev, &desc->kernels[i], &prog->kernels[i]);
		for (j = 0; j < i && r == 0; j++)
			if (!strcmp(prog->kernels[j].name,
				    prog->kernels[i].name))
				r = -EINVAL;
	}
	if (r < 0) {
		log_dbg(dev->ctx, "kernel description %u rejected: %s\n", i - 1,
			strerror(-r));
		goto fail_handles;
	}
	atomic_init(&prog->refcount, 1);
	prog->dev = accel_device_ref(dev);
	prog->kind = desc->kind;
	prog->global_size = desc->global_size;
	prog->static_handles = desc->static_handles;
	prog->backend_data = desc->backend_data;
	*ret = prog;
	return 0;

fail_handles:
	free_handles(dev, desc->static_handles, desc->kernels, NULL, n);
	if (prog) {
		for (i = 0; i < prog->n_kernels; i++)
			kernel_def_clear(&prog->kernels[i]);
		free(prog->kernels);
		free(prog->binary);
		free(prog);
	}
	return r;
}

/*
 * A caller's kernel description: what only a native description can get
 * wrong, then the backend's handle. The rest is checked as for every
 * program (copy_kernel()).
 */
static int native_info(struct accel_device *dev,
		       const struct accel_native_kernel_desc *in,
		       struct accel_kernel_info *out)
{
	if (in->struct_size < KERNEL_DESC_MIN_SIZE || !in->name || !*in->name ||
	    !in->fn || (in->flags & ~ACCEL_KERNEL_PUBLIC_FLAGS) ||
	    in->reserved || (in->n_args && !in->args))
		return -EINVAL;
	/*
	 * No device has a barrier hook for native functions: refuse here,
	 * not at launch, where the failure would only reach the fence.
	 */
	if (in->flags & ACCEL_KERNEL_HAS_BARRIERS)
		return -EOPNOTSUPP;

	memset(out, 0, sizeof(*out));
	out->name = in->name;
	out->flags = in->flags;
	out->n_args = in->n_args;
	out->args = in->args;
	out->static_local_size = in->static_local_size;
	memcpy(out->reqd_wg_size, in->reqd_work_group_size,
	       sizeof(out->reqd_wg_size));
	if (in->struct_size >= offsetof(struct accel_native_kernel_desc,
					work_group_size_hint) +
				       sizeof(in->work_group_size_hint))
		memcpy(out->wg_size_hint, in->work_group_size_hint,
		       sizeof(out->wg_size_hint));
	if (in->struct_size >= offsetof(struct accel_native_kernel_desc,
					vec_type_hint) +
				       sizeof(in->vec_type_hint))
		out->vec_type_hint = in->vec_type_hint;
	if (in->struct_size >= offsetof(struct accel_native_kernel_desc,
					private_size) +
				       sizeof(in->private_size))
		out->private_size = in->private_size;
	out->private_size_known = out->private_size != 0;
	return dev->ops->kernel_from_native(dev, in, &out->handle);
}

ACCEL_EXPORT int
accel_program_new_native(struct accel_device *dev,
			 const struct accel_native_kernel_desc *kernels,
			 uint32_t n, struct accel_program **ret)
{
	struct accel_program_desc desc = { .kind = ACCEL_PROGRAM_EXECUTABLE };
	struct accel_kernel_info *infos;
	uint32_t i;
	int r = 0;

	if (!dev || !kernels || n == 0 || !ret)
		return -EINVAL;
	/* an unplugged device says so before what it lacks */
	r = accel_device_alive(dev);
	if (r < 0)
		return r;
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] &
	      ACCEL_DEVICE_CAP_NATIVE_KERNELS) ||
	    !dev->ops->kernel_from_native)
		return -EOPNOTSUPP;
	infos = calloc(n, sizeof(*infos));
	if (!infos)
		return -ENOMEM;
	for (i = 0; i < n && r == 0; i++)
		r = native_info(dev, &kernels[i], &infos[i]);
	if (r < 0) {
		log_dbg(dev->ctx, "kernel description %u rejected: %s\n", i - 1,
			strerror(-r));
		free_handles(dev, false, infos, NULL, i - 1);
		free(infos);
		return r;
	}
	desc.n_kernels = n;
	desc.kernels = infos;
	r = accel_program_create(dev, &desc, ret);
	free(infos);
	return r;
}

/*
 * Whether @dev builds programs: the capability and the op. A device that
 * has the op but not its compiler says why, once.
 */
static bool can_build(struct accel_device *dev, bool op)
{
	const char *why = dev->strings[ACCEL_DEVICE_STRING_COMPILER];

	if (dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_COMPILER)
		return op;
	if (op && why && *why)
		log_gap(dev->ctx, ACCEL_GAP_COMPILER,
			"%s builds no OpenCL C: its compiler module %s "
			"(ACCEL_COMPILER names another)\n",
			dev->strings[ACCEL_DEVICE_STRING_NAME], why);
	return false;
}

ACCEL_EXPORT int accel_program_new_source(struct accel_device *dev,
					  const char *source, size_t length,
					  const char *options, char **ret_log,
					  struct accel_program **ret)
{
	struct accel_build_request req = { 0 };

	if (ret_log)
		*ret_log = NULL;
	if (!dev || !source || !ret)
		return -EINVAL;
	if (!can_build(dev, dev->ops->program_build))
		return -EOPNOTSUPP;
	req.kind = ACCEL_BUILD_SOURCE;
	req.options = options;
	req.source = source;
	req.length = length ? length : strlen(source);
	return dev->ops->program_build(dev, &req, ret_log, ret);
}

ACCEL_EXPORT int accel_program_new_binary(struct accel_device *dev,
					  const void *binary, size_t size,
					  struct accel_program **ret)
{
	if (!dev || !binary || !size || !ret)
		return -EINVAL;
	/* parsing and the CPU check are the backend's */
	if (!can_build(dev, dev->ops->program_load_binary))
		return -EOPNOTSUPP;
	return dev->ops->program_load_binary(dev, binary, size, ret);
}

ACCEL_EXPORT int accel_program_get_binary(struct accel_program *prog,
					  const void **ret_data,
					  size_t *ret_size)
{
	if (!prog || !ret_data || !ret_size)
		return -EINVAL;
	if (!prog->binary)
		return -ENODATA;
	*ret_data = prog->binary;
	*ret_size = prog->binary_size;
	return 0;
}

ACCEL_EXPORT int accel_program_compile(struct accel_device *dev,
				       const char *source, size_t length,
				       const char *options, uint32_t n_headers,
				       const char *const *header_names,
				       const char *const *header_sources,
				       char **ret_log,
				       struct accel_program **ret)
{
	struct accel_build_request req = { 0 };
	uint32_t i;

	if (ret_log)
		*ret_log = NULL;
	if (!dev || !source || !ret ||
	    (n_headers && (!header_names || !header_sources)))
		return -EINVAL;
	for (i = 0; i < n_headers; i++)
		if (!header_names[i] || !header_sources[i])
			return -EINVAL;
	if (!can_build(dev, dev->ops->program_build))
		return -EOPNOTSUPP;
	req.kind = ACCEL_BUILD_OBJECT;
	req.options = options;
	req.source = source;
	req.length = length ? length : strlen(source);
	req.n_headers = n_headers;
	req.header_names = header_names;
	req.header_sources = header_sources;
	return dev->ops->program_build(dev, &req, ret_log, ret);
}

ACCEL_EXPORT int accel_program_link(struct accel_device *dev, uint32_t n,
				    struct accel_program *const *inputs,
				    const char *options, uint32_t flags,
				    char **ret_log, struct accel_program **ret)
{
	struct accel_build_request req = { 0 };
	uint32_t i;

	if (ret_log)
		*ret_log = NULL;
	if (!dev || !n || !inputs || !ret || (flags & ~ACCEL_LINK_LIBRARY))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!inputs[i])
			return -EINVAL;
		if (inputs[i]->dev != dev)
			return -EXDEV;
		if (inputs[i]->kind == ACCEL_PROGRAM_EXECUTABLE ||
		    !inputs[i]->binary)
			return -EINVAL;
	}
	if (!can_build(dev, dev->ops->program_build))
		return -EOPNOTSUPP;
	req.kind = ACCEL_BUILD_LINK;
	req.options = options;
	req.n_inputs = n;
	req.inputs = inputs;
	req.link_flags = flags;
	return dev->ops->program_build(dev, &req, ret_log, ret);
}

ACCEL_EXPORT int accel_program_new_il(struct accel_device *dev, const void *il,
				      size_t size, const char *options,
				      uint32_t n_spec,
				      const struct accel_spec_constant *spec,
				      uint32_t flags, char **ret_log,
				      struct accel_program **ret)
{
	struct accel_build_request req = { 0 };
	uint32_t i;

	if (ret_log)
		*ret_log = NULL;
	if (!dev || !il || !size || !ret || (n_spec && !spec) ||
	    (flags & ~ACCEL_IL_OBJECT))
		return -EINVAL;
	for (i = 0; i < n_spec; i++)
		if (spec[i].size != 1 && spec[i].size != 2 &&
		    spec[i].size != 4 && spec[i].size != 8)
			return -EINVAL;
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_IL) ||
	    !can_build(dev, dev->ops->program_build))
		return -EOPNOTSUPP;
	req.kind = ACCEL_BUILD_IL;
	req.options = options;
	req.il = il;
	req.il_size = size;
	req.n_spec = n_spec;
	req.spec = spec;
	req.il_flags = flags;
	return dev->ops->program_build(dev, &req, ret_log, ret);
}

ACCEL_EXPORT int accel_program_get_kind(struct accel_program *prog)
{
	return prog ? (int)prog->kind : -EINVAL;
}

ACCEL_EXPORT int
accel_program_get_global_variable_size(struct accel_program *prog,
				       uint64_t *ret)
{
	if (!prog || !ret)
		return -EINVAL;
	*ret = prog->global_size;
	return 0;
}

ACCEL_EXPORT int accel_program_new_built_in(struct accel_device *dev,
					    const char *names,
					    struct accel_program **ret)
{
	struct accel_program_desc desc = { .kind = ACCEL_PROGRAM_EXECUTABLE,
					   .static_handles = true };
	const struct accel_kernel_info *table;
	struct accel_kernel_info *chosen;
	uint32_t n_table, n = 0, i;
	const char *p, *end;
	int r;

	if (!dev || !names || !*names || !ret)
		return -EINVAL;
	if (!(dev->u64[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_BUILT_IN_KERNELS) ||
	    !dev->ops->get_built_in_kernels)
		return -EOPNOTSUPP;
	r = dev->ops->get_built_in_kernels(dev, &table, &n_table);
	if (r < 0)
		return r;

	/* One slot per ';'-separated entry at most. */
	for (p = names, i = 1; *p; p++)
		i += *p == ';';
	chosen = calloc(i, sizeof(*chosen));
	if (!chosen)
		return -ENOMEM;

	for (p = names;; p = end + 1) {
		size_t len;

		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len == 0) {
			r = -EINVAL; /* empty entry: ";x", "x;;y", "x;" */
			goto out;
		}
		for (i = 0; i < n_table; i++)
			if (strlen(table[i].name) == len &&
			    !strncmp(table[i].name, p, len))
				break;
		if (i == n_table) {
			log_dbg(dev->ctx, "no built-in kernel '%.*s'\n",
				(int)len, p);
			r = -ENOENT;
			goto out;
		}
		chosen[n++] = table[i];
		if (!*end)
			break;
	}
	desc.n_kernels = n;
	desc.kernels = chosen;
	r = accel_program_create(dev, &desc, ret);
out:
	free(chosen);
	return r;
}

ACCEL_EXPORT struct accel_program *accel_program_ref(struct accel_program *prog)
{
	if (prog)
		atomic_fetch_add_explicit(&prog->refcount, 1,
					  memory_order_relaxed);
	return prog;
}

ACCEL_EXPORT struct accel_program *
accel_program_unref(struct accel_program *prog)
{
	uint32_t i;

	if (!prog)
		return NULL;
	if (atomic_fetch_sub_explicit(&prog->refcount, 1,
				      memory_order_acq_rel) != 1)
		return NULL;
	/*
	 * No kernel or launch holds the program: the handles go, then what
	 * their code may live in (the CPU: a dlopen()ed object).
	 */
	free_handles(prog->dev, prog->static_handles, NULL, prog->kernels,
		     prog->n_kernels);
	if (prog->dev->ops->program_fini)
		prog->dev->ops->program_fini(prog);
	for (i = 0; i < prog->n_kernels; i++)
		kernel_def_clear(&prog->kernels[i]);
	free(prog->kernels);
	free(prog->binary);
	accel_device_unref(prog->dev);
	free(prog);
	return NULL;
}

ACCEL_EXPORT struct accel_device *
accel_program_get_device(struct accel_program *prog)
{
	return prog ? prog->dev : NULL;
}

ACCEL_EXPORT int accel_program_get_kernel_count(struct accel_program *prog)
{
	if (!prog)
		return -EINVAL;
	return (int)prog->n_kernels;
}

ACCEL_EXPORT int accel_program_get_kernel_name(struct accel_program *prog,
					       uint32_t index, const char **ret)
{
	if (!prog || !ret)
		return -EINVAL;
	if (index >= prog->n_kernels)
		return -ERANGE;
	*ret = prog->kernels[index].name;
	return 0;
}
