/* SPDX-License-Identifier: MIT */
/*
 * cl_khr_command_buffer_mutable_dispatch 0.9.5 on libaccel's command
 * lists: a mutable-dispatch is the launch its clCommandNDRangeKernelKHR
 * recorded, and an update is accel_cmdlist_update_launch() with a clone of
 * the recorded kernel (accel_cmdlist_get_launch()) whose arguments the
 * update sets, over the geometry the update gives. Enqueues made before
 * keep the launch they had, so an update may come while they run, and two
 * enqueues may overlap (simultaneous use).
 *
 * Arguments left unset at recording (0.9.5, for commands whose arguments
 * may be updated) are recorded as placeholders (a NULL buffer, zeros, one
 * byte of local memory); the command-buffer stays in the Finalized state,
 * which cannot be enqueued, until updates have set them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-mutable-dispatch.h"

#define MUTABLE_MAGIC 0x414d4443u /* "AMDC" */

#define FIELDS_ALL                                                             \
	((cl_mutable_dispatch_fields_khr)0x1f) /* offset ... exec info */

static bool mutable_valid(cl_mutable_command_khr m)
{
	return m && m->magic == MUTABLE_MAGIC;
}

/* A command that does nothing: an empty range. */
static int nothing_run(void *p)
{
	(void)p;
	return 0;
}

cl_mutable_dispatch_fields_khr icd_mutable_dispatch_caps(cl_device_id d)
{
	cl_mutable_dispatch_fields_khr f =
		CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR |
		CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |
		CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR |
		CL_MUTABLE_DISPATCH_ARGUMENTS_KHR;

	/* execution info is the SVM pointer lists of clSetKernelExecInfo */
	if (icd_device_svm_caps(d))
		f |= CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;
	return f;
}

cl_int icd_mutable_parse_props(cl_command_buffer_khr cb,
			       const icd_command_properties_khr *props,
			       cl_mutable_dispatch_fields_khr *fields,
			       icd_mutable_dispatch_asserts_khr *asserts,
			       size_t *n_props)
{
	cl_mutable_dispatch_fields_khr caps =
		icd_mutable_dispatch_caps(cb->queue->dev);
	bool fields_seen = false, asserts_seen = false;
	size_t i = 0;

	/* without the property, the fields the device can update */
	*fields = caps;
	*asserts = 0;
	*n_props = 0;
	if (!props)
		return CL_SUCCESS;
	for (; props[i]; i += 2) {
		switch (props[i]) {
		case CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR:
			if (fields_seen || (props[i + 1] & ~FIELDS_ALL))
				return CL_INVALID_VALUE;
			if (props[i + 1] & ~caps)
				return CL_INVALID_OPERATION;
			fields_seen = true;
			*fields = props[i + 1];
			break;
		case CL_MUTABLE_DISPATCH_ASSERTS_KHR:
			if (asserts_seen ||
			    (props[i + 1] & ~ICD_NO_MORE_GROUPS))
				return CL_INVALID_VALUE;
			asserts_seen = true;
			*asserts = props[i + 1];
			break;
		default:
			return CL_INVALID_VALUE;
		}
	}
	*n_props = i + 1;
	return CL_SUCCESS;
}

static void mutable_free(cl_mutable_command_khr m)
{
	if (!m)
		return;
	if (m->kernel)
		icd_put(m->kernel);
	free(m->props);
	free(m->unset);
	m->magic = 0;
	free(m);
}

void icd_mutable_free_all(cl_command_buffer_khr cb)
{
	cl_mutable_command_khr m, next;

	for (m = cb->mutables; m; m = next) {
		next = m->next;
		mutable_free(m);
	}
	cb->mutables = NULL;
}

/*
 * An image argument's placeholder: one texel of the argument's type in a
 * small buffer of @p dev (the kernel holds the buffer).
 */
static int image_placeholder(struct accel_device *dev, struct accel_kernel *ak,
			     cl_uint i, const struct accel_kernel_arg_desc *d)
{
	bool depth = d->image_access & ACCEL_KERNEL_ARG_IMAGE_DEPTH;
	struct accel_image_layout l = {
		.struct_size = sizeof(l),
		.type = d->image_type,
		.channel_order = depth ? ACCEL_IMAGE_ORDER_DEPTH :
					 ACCEL_IMAGE_ORDER_RGBA,
		.channel_type = depth ? ACCEL_IMAGE_DATA_FLOAT :
					ACCEL_IMAGE_DATA_UNORM_INT8,
		.width = 1, .height = 1, .depth = 1, .array_size = 1,
	};
	struct accel_buffer *buf;
	int e;

	e = accel_buffer_new(dev, 64, 0, &buf);
	if (e < 0)
		return e;
	e = accel_kernel_set_arg_image(ak, i, buf, &l);
	accel_buffer_unref(buf);
	return e;
}

/* Arguments never set get values a launch accepts; updates replace them. */
static cl_int placeholders(cl_kernel k, struct accel_device *dev,
			   struct accel_kernel *ak)
{
	static const uint8_t zeros[256];
	cl_uint i;
	int e = 0;

	for (i = 0; i < k->n_args && e == 0; i++) {
		const struct accel_kernel_arg_desc *d = &k->args[i].desc;

		if (k->args[i].set)
			continue;
		if (d->kind == ACCEL_KERNEL_ARG_LOCAL) {
			e = accel_kernel_set_arg_local(ak, i, 1);
		} else if (d->kind == ACCEL_KERNEL_ARG_BUFFER) {
			e = accel_kernel_set_arg_buffer(ak, i, NULL);
		} else if (d->kind == ACCEL_KERNEL_ARG_IMAGE) {
			e = image_placeholder(dev, ak, i, d);
		} else if (d->kind == ACCEL_KERNEL_ARG_SAMPLER) {
			e = accel_kernel_set_arg_sampler(
				ak, i, ACCEL_SAMPLER_FILTER_NEAREST);
		} else if (d->size <= sizeof(zeros)) {
			e = accel_kernel_set_arg_value(ak, i, d->size, zeros);
		} else {
			void *z = calloc(1, d->size);

			if (!z)
				return CL_OUT_OF_HOST_MEMORY;
			e = accel_kernel_set_arg_value(ak, i, d->size, z);
			free(z);
		}
	}
	return e < 0 ? icd_error(e) : CL_SUCCESS;
}

/* The geometry as given: unused dimensions and absent arrays are 0. */
static void copy_dims(size_t *to, const size_t *from, cl_uint dim)
{
	cl_uint d;

	for (d = 0; d < 3; d++)
		to[d] = from && d < dim ? from[d] : 0;
}

cl_int icd_mutable_record(cl_command_buffer_khr cb,
			  const icd_command_properties_khr *props,
			  size_t n_props, cl_mutable_dispatch_fields_khr fields,
			  cl_kernel k, cl_uint dim, const size_t *offset,
			  const size_t *global, const size_t *local,
			  cl_uint n_deps, const cl_sync_point_khr *deps,
			  uint32_t *point, cl_mutable_command_khr *ret)
{
	struct accel_kernel *ak = NULL, *clone = NULL;
	cl_mutable_command_khr m = NULL;
	struct accel_ndrange range;
	cl_uint i, n_unset = 0;
	bool empty = false;
	cl_int r;
	int e;

	r = icd_ndrange_prepare(cb->queue, k, dim, offset, global, local,
				&range, &ak, &empty);
	if (r != CL_SUCCESS)
		return r;
	for (i = 0; i < k->n_args; i++)
		n_unset += !k->args[i].set;
	/* without argument updates, libaccel refuses unset arguments */
	if (!(cb->flags & CL_COMMAND_BUFFER_MUTABLE_KHR) ||
	    !(fields & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR) || empty)
		n_unset = 0;
	if (ret || n_unset) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return CL_OUT_OF_HOST_MEMORY;
		m->unset = calloc(k->n_args ? k->n_args : 1,
				  sizeof(*m->unset));
		if (n_props)
			m->props = calloc(n_props, sizeof(*m->props));
		if (!m->unset || (n_props && !m->props)) {
			mutable_free(m);
			return CL_OUT_OF_HOST_MEMORY;
		}
	}
	if (n_unset) {
		e = accel_kernel_clone(ak, &clone);
		r = e < 0 ? icd_error(e) :
			    placeholders(k, cb->queue->dev->dev, clone);
		if (r != CL_SUCCESS) {
			accel_kernel_unref(clone);
			mutable_free(m);
			return r;
		}
		ak = clone;
	}
	e = empty ? accel_cmdlist_host_fn(cb->list, nothing_run, NULL, NULL,
					  n_deps, deps, point) :
		    accel_cmdlist_launch(cb->list, ak, &range, n_deps, deps,
					 point);
	if (e == -EOVERFLOW && empty)
		r = CL_OUT_OF_RESOURCES;
	else if (e < 0)
		r = icd_launch_refused(ak, &range, e);
	/* the list keeps a clone of its own */
	accel_kernel_unref(clone);
	if (r != CL_SUCCESS) {
		mutable_free(m);
		return r;
	}
	if (!m)
		return CL_SUCCESS;
	m->magic = MUTABLE_MAGIC;
	m->cb = cb;
	m->kernel = k;
	icd_hold(k);
	m->point = *point;
	m->empty = empty;
	m->fields = fields;
	if (n_props)
		memcpy(m->props, props, n_props * sizeof(*props));
	m->n_props = n_props;
	m->dim = dim;
	copy_dims(m->offset, offset, dim);
	copy_dims(m->global, global, dim);
	copy_dims(m->local, local, dim);
	m->have_local = local != NULL;
	m->n_args = k->n_args;
	for (i = 0; n_unset && i < k->n_args; i++)
		m->unset[i] = !k->args[i].set;
	m->n_unset = n_unset;
	if (n_unset)
		cb->n_deferred++;
	m->next = cb->mutables;
	cb->mutables = m;
	if (ret)
		*ret = m;
	return CL_SUCCESS;
}

/* ---- updates ------------------------------------------------------------- */

/* A command's launch as the updates of one call leave it. */
struct pending {
	cl_mutable_command_khr m;
	struct accel_kernel *ak; /* clone of the recorded kernel */
	size_t offset[3], global[3], local[3];
	bool have_local;
	bool *unset;
	cl_uint n_unset;
};

static void pending_fini(struct pending *p)
{
	accel_kernel_unref(p->ak);
	free(p->unset);
}

static cl_int pending_init(cl_command_buffer_khr cb, struct pending *p,
			   cl_mutable_command_khr m)
{
	struct accel_ndrange range = { .struct_size = sizeof(range) };
	int e;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->unset = calloc(m->n_args ? m->n_args : 1, sizeof(*p->unset));
	if (!p->unset)
		return CL_OUT_OF_HOST_MEMORY;
	memcpy(p->unset, m->unset, m->n_args * sizeof(*p->unset));
	p->n_unset = m->n_unset;
	memcpy(p->offset, m->offset, sizeof(p->offset));
	memcpy(p->global, m->global, sizeof(p->global));
	memcpy(p->local, m->local, sizeof(p->local));
	p->have_local = m->have_local;
	if (m->empty)
		return CL_SUCCESS;
	e = accel_cmdlist_get_launch(cb->list, m->point, &p->ak, &range);
	return e < 0 ? icd_error(e) : CL_SUCCESS;
}

/* (count == 0) == (list == NULL), as the spec asks of each list */
static bool list_ok(cl_uint n, const void *list)
{
	return (n == 0) == (list == NULL);
}

/* Apply one config to the command's pending launch. */
static cl_int apply(cl_command_buffer_khr cb, struct pending *p,
		    const icd_mutable_dispatch_config_khr *c)
{
	cl_mutable_command_khr m = p->m;
	cl_uint i, d;
	cl_int r;

	if (c->work_dim && c->work_dim != m->dim)
		return CL_INVALID_OPERATION;
	if ((c->global_work_offset &&
	     !(m->fields & CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR)) ||
	    (c->global_work_size &&
	     !(m->fields & CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR)) ||
	    (c->local_work_size &&
	     !(m->fields & CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR)) ||
	    ((c->num_args || c->num_svm_args) &&
	     !(m->fields & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR)) ||
	    (c->num_exec_infos &&
	     !(m->fields & CL_MUTABLE_DISPATCH_EXEC_INFO_KHR)))
		return CL_INVALID_OPERATION;
	if (!list_ok(c->num_args, c->arg_list) ||
	    !list_ok(c->num_svm_args, c->arg_svm_list) ||
	    !list_ok(c->num_exec_infos, c->exec_info_list))
		return CL_INVALID_VALUE;
	/* a range that is empty stays so (README: no launch to update) */
	if (m->empty && (c->num_args || c->num_svm_args || c->num_exec_infos ||
			 c->global_work_offset || c->global_work_size ||
			 c->local_work_size))
		return CL_INVALID_OPERATION;
	for (i = 0; i < c->num_args; i++) {
		const cl_mutable_dispatch_arg_khr *a = &c->arg_list[i];

		r = icd_kernel_arg_apply(m->kernel, p->ak, a->arg_index,
					 a->arg_size, a->arg_value);
		if (r != CL_SUCCESS)
			return r;
		p->n_unset -= p->unset[a->arg_index];
		p->unset[a->arg_index] = false;
	}
	for (i = 0; i < c->num_svm_args; i++) {
		const cl_mutable_dispatch_arg_khr *a = &c->arg_svm_list[i];

		r = icd_kernel_svm_arg_apply(m->kernel, cb->queue->dev, p->ak,
					     a->arg_index, a->arg_value);
		if (r != CL_SUCCESS)
			return r;
		p->n_unset -= p->unset[a->arg_index];
		p->unset[a->arg_index] = false;
	}
	/* the checks of clSetKernelExecInfo, which changes nothing here */
	for (i = 0; i < c->num_exec_infos; i++) {
		const cl_mutable_dispatch_exec_info_khr *x =
			&c->exec_info_list[i];

		r = clSetKernelExecInfo(m->kernel, x->param_name,
					x->param_value_size, x->param_value);
		if (r != CL_SUCCESS)
			return r;
	}
	for (d = 0; d < m->dim; d++) {
		if (c->global_work_offset)
			p->offset[d] = c->global_work_offset[d];
		if (c->global_work_size)
			p->global[d] = c->global_work_size[d];
		if (c->local_work_size)
			p->local[d] = c->local_work_size[d];
	}
	if (c->local_work_size)
		p->have_local = true;
	return CL_SUCCESS;
}

/* Every work-group the same size: local size given and dividing. */
static bool uniform(const size_t *global, const size_t *local, cl_uint dim)
{
	cl_uint d;

	for (d = 0; d < dim; d++)
		if (!local[d] || global[d] % local[d])
			return false;
	return true;
}

/* The geometry of @p p checked as an enqueue checks it, into @p range. */
static cl_int pending_range(cl_command_buffer_khr cb, struct pending *p,
			    struct accel_ndrange *range)
{
	struct accel_launch_check chk = { .struct_size = sizeof(chk) };
	cl_mutable_command_khr m = p->m;
	struct accel_kernel *unused;
	bool empty = false;
	cl_int r;
	int e;

	if (m->empty)
		return CL_SUCCESS;
	if (m->have_local && p->have_local &&
	    uniform(m->global, m->local, m->dim) !=
		    uniform(p->global, p->local, m->dim))
		return CL_INVALID_OPERATION;
	r = icd_ndrange_prepare(cb->queue, m->kernel, m->dim, p->offset,
				p->global, p->have_local ? p->local : NULL,
				range, &unused, &empty);
	if (r != CL_SUCCESS)
		return r;
	/* a launch cannot become a command that does nothing (README) */
	if (empty)
		return CL_INVALID_OPERATION;
	e = accel_kernel_check_launch(p->ak, range, &chk);
	if (e < 0)
		return icd_error(e);
	return icd_launch_error(&chk);
}

/* Make the pending launches the recorded ones. */
static cl_int commit(cl_command_buffer_khr cb, struct pending *p, size_t n)
{
	struct accel_ndrange *ranges;
	cl_int r = CL_SUCCESS;
	size_t i;
	int e;

	ranges = calloc(n, sizeof(*ranges));
	if (!ranges)
		return CL_OUT_OF_HOST_MEMORY;
	/* every check before the first change: all or nothing */
	for (i = 0; i < n && r == CL_SUCCESS; i++)
		r = pending_range(cb, &p[i], &ranges[i]);
	for (i = 0; i < n && r == CL_SUCCESS; i++) {
		cl_mutable_command_khr m = p[i].m;

		if (!m->empty) {
			/* checked above: only memory may fail here */
			e = accel_cmdlist_update_launch(cb->list, m->point,
							p[i].ak, &ranges[i]);
			if (e < 0) {
				r = icd_error(e);
				break;
			}
		}
		memcpy(m->offset, p[i].offset, sizeof(m->offset));
		memcpy(m->global, p[i].global, sizeof(m->global));
		memcpy(m->local, p[i].local, sizeof(m->local));
		m->have_local = p[i].have_local;
		memcpy(m->unset, p[i].unset, m->n_args * sizeof(*m->unset));
		if (m->n_unset && !p[i].n_unset)
			cb->n_deferred--;
		m->n_unset = p[i].n_unset;
	}
	free(ranges);
	return r;
}

cl_int CL_API_CALL icd_clUpdateMutableCommandsKHR(
	cl_command_buffer_khr cb, cl_uint num_configs,
	const icd_command_buffer_update_type_khr *config_types,
	const void **configs)
{
	struct pending *p = NULL;
	size_t n = 0, i, j;
	cl_int r = CL_SUCCESS;

	if (!icd_command_buffer_valid(cb))
		return CL_INVALID_COMMAND_BUFFER_KHR;
	pthread_mutex_lock(&cb->lock);
	if (!cb->finalized || !(cb->flags & CL_COMMAND_BUFFER_MUTABLE_KHR))
		r = CL_INVALID_OPERATION;
	else if (!list_ok(num_configs, config_types) ||
		 !list_ok(num_configs, configs))
		r = CL_INVALID_VALUE;
	for (i = 0; r == CL_SUCCESS && i < num_configs; i++)
		if (config_types[i] !=
			    ICD_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR ||
		    !configs[i])
			r = CL_INVALID_VALUE;
	if (r == CL_SUCCESS && num_configs) {
		p = calloc(num_configs, sizeof(*p));
		if (!p)
			r = CL_OUT_OF_HOST_MEMORY;
	}
	/* configs for one command apply in order, to one pending launch */
	for (i = 0; r == CL_SUCCESS && i < num_configs; i++) {
		const icd_mutable_dispatch_config_khr *c = configs[i];

		if (!mutable_valid(c->command) || c->command->cb != cb) {
			r = CL_INVALID_MUTABLE_COMMAND_KHR;
			break;
		}
		for (j = 0; j < n && p[j].m != c->command; j++)
			;
		if (j == n) {
			r = pending_init(cb, &p[n++], c->command);
			if (r != CL_SUCCESS)
				break;
		}
		r = apply(cb, &p[j], c);
	}
	if (r == CL_SUCCESS && n)
		r = commit(cb, p, n);
	pthread_mutex_unlock(&cb->lock);
	for (i = 0; i < n; i++)
		pending_fini(&p[i]);
	free(p);
	return r;
}

/* ---- queries ------------------------------------------------------------- */

cl_int CL_API_CALL icd_clGetMutableCommandInfoKHR(
	cl_mutable_command_khr m, cl_mutable_command_info_khr param,
	size_t size, void *value, size_t *size_ret)
{
	cl_command_buffer_khr cb;
	size_t dims[3];
	cl_int r;

	if (!mutable_valid(m))
		return CL_INVALID_MUTABLE_COMMAND_KHR;
	cb = m->cb;
	switch (param) {
	case CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR:
		return icd_info_ptr(size, value, size_ret, cb->queue);
	case CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR:
		return icd_info_ptr(size, value, size_ret, cb);
	case CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR:
		return icd_info_uint(size, value, size_ret,
				     CL_COMMAND_NDRANGE_KERNEL);
	case CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR:
		/* as given; nothing for NULL */
		return icd_info(size, value, size_ret, m->props,
				m->n_props * sizeof(*m->props));
	case CL_MUTABLE_DISPATCH_KERNEL_KHR:
		return icd_info_ptr(size, value, size_ret, m->kernel);
	case CL_MUTABLE_DISPATCH_DIMENSIONS_KHR:
		return icd_info_uint(size, value, size_ret, m->dim);
	case CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR:
	case CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR:
	case CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR:
		/* updates change them under the lock */
		pthread_mutex_lock(&cb->lock);
		memcpy(dims,
		       param == CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR ?
			       m->offset :
		       param == CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR ?
			       m->global :
			       m->local,
		       sizeof(dims));
		pthread_mutex_unlock(&cb->lock);
		r = icd_info(size, value, size_ret, dims,
			     m->dim * sizeof(*dims));
		return r;
	default:
		return CL_INVALID_VALUE;
	}
}
