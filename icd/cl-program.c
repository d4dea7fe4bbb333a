/* SPDX-License-Identifier: MIT */
/*
 * Programs: the object, and the constructors from source, built-in kernels
 * and intermediate language (SPIR-V). Building is in cl-program-build.c,
 * compiling and linking in cl-program-link.c, binaries in
 * cl-program-binary.c, queries in cl-program-info.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-program.h"

cl_program icd_program_alloc(cl_context ctx, enum icd_program_origin origin,
			     cl_uint n_devices, const cl_device_id *devices)
{
	cl_program p = calloc(1, sizeof(*p));
	cl_uint i;

	if (!p)
		return NULL;
	p->devices = calloc(n_devices, sizeof(*p->devices));
	p->builds = calloc(n_devices, sizeof(*p->builds));
	if (!p->devices || !p->builds) {
		free(p->devices);
		free(p->builds);
		free(p);
		return NULL;
	}
	icd_object_init(&p->obj, ctx->platform, ICD_MAGIC_PROGRAM);
	p->ctx = ctx;
	icd_hold(ctx);
	p->origin = origin;
	p->n_devices = n_devices;
	for (i = 0; i < n_devices; i++) {
		p->devices[i] = devices[i];
		p->builds[i].status = CL_BUILD_NONE;
		p->builds[i].binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
	}
	pthread_mutex_init(&p->lock, NULL);
	atomic_init(&p->n_kernels, 0);
	p->uniform_wg = true;
	return p;
}

void icd_build_clear(struct icd_build *b)
{
	accel_program_unref(b->prog);
	b->prog = NULL;
	accel_program_unref(b->object);
	b->object = NULL;
	free(b->log);
	b->log = NULL;
	free(b->options);
	b->options = NULL;
	b->arg_info = false;
}

void icd_program_free(cl_program p)
{
	cl_uint i;

	for (i = 0; i < p->n_devices; i++) {
		icd_build_clear(&p->builds[i]);
		accel_program_unref(p->builds[i].binary_prog);
	}
	free(p->builds);
	free(p->devices);
	free(p->source);
	free(p->binary_options);
	free(p->kernel_names);
	free(p->il);
	free(p->spec);
	pthread_mutex_destroy(&p->lock);
	icd_put(p->ctx);
	p->obj.magic = ICD_MAGIC_FREED;
	free(p);
}

int icd_program_device_index(cl_program p, cl_device_id dev)
{
	cl_uint i;

	for (i = 0; i < p->n_devices; i++)
		if (p->devices[i] == dev)
			return (int)i;
	return -1;
}

cl_program CL_API_CALL clCreateProgramWithSource(cl_context ctx,
						 cl_uint count,
						 const char **strings,
						 const size_t *lengths,
						 cl_int *err)
{
	size_t total = 0, len, off = 0;
	cl_program p;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	if (count == 0 || !strings)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < count; i++) {
		if (!strings[i])
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
		total += lengths && lengths[i] ? lengths[i] :
						 strlen(strings[i]);
	}
	p = icd_program_alloc(ctx, ICD_PROGRAM_SOURCE, ctx->n_devices,
			  ctx->devices);
	if (p)
		p->source = malloc(total + 1);
	if (!p || !p->source) {
		if (p)
			icd_put(p);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	for (i = 0; i < count; i++) {
		len = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(p->source + off, strings[i], len);
		off += len;
	}
	p->source[off] = '\0';
	ICD_RETURN_ERR(err, CL_SUCCESS, p);
}

cl_int icd_program_check_devices(cl_context ctx, cl_uint n,
				 const cl_device_id *devices)
{
	cl_uint i;

	if (n == 0 || !devices)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++)
		if (!icd_object_valid(devices[i], ICD_MAGIC_DEVICE) ||
		    !icd_context_has_device(ctx, devices[i]))
			return CL_INVALID_DEVICE;
	return CL_SUCCESS;
}

static bool built_in_list_ok(cl_device_id d, const char *names)
{
	const char *w = names, *end;

	if (!*names)
		return false;
	for (; *w; w = *end ? end + 1 : end) {
		size_t len;
		const char *have = d->built_in_kernels, *h;
		bool found = false;

		end = strchr(w, ';');
		if (!end)
			end = w + strlen(w);
		len = (size_t)(end - w);
		for (h = have; *h && !found; ) {
			const char *hend = strchr(h, ';');
			size_t hlen = hend ? (size_t)(hend - h) : strlen(h);

			found = hlen == len && !strncmp(h, w, len);
			h += hlen + (hend ? 1 : 0);
		}
		if (!found)
			return false;
	}
	return true;
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(
	cl_context ctx, cl_uint n, const cl_device_id *devices,
	const char *names, cl_int *err)
{
	cl_program p;
	cl_int r;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	r = icd_program_check_devices(ctx, n, devices);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!names)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < n; i++)
		if (!built_in_list_ok(devices[i], names))
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	p = icd_program_alloc(ctx, ICD_PROGRAM_BUILT_IN, n, devices);
	if (p)
		p->source = strdup(names);
	if (!p || !p->source) {
		if (p)
			icd_put(p);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	/* Built-in kernels are ready to use without a build. */
	for (i = 0; i < n; i++) {
		int e = accel_program_new_built_in(devices[i]->dev, names,
						   &p->builds[i].prog);

		if (e < 0) {
			icd_put(p);
			ICD_RETURN_ERR(err, e == -ENOMEM ?
				       CL_OUT_OF_HOST_MEMORY : CL_INVALID_VALUE,
				       NULL);
		}
		p->builds[i].status = CL_BUILD_SUCCESS;
		p->builds[i].binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, p);
}

/*
 * Whether @p il can be SPIR-V at all: whole words, a header, the magic in
 * this host's byte order. Not well-formed input is CL_INVALID_VALUE at
 * creation; whether well-formed SPIR-V builds is the build's question,
 * answered with CL_BUILD_PROGRAM_FAILURE and a log.
 */
static bool il_well_formed(const void *il, size_t length)
{
	uint32_t magic;

	if (length < 20 || length % 4)
		return false;
	memcpy(&magic, il, sizeof(magic));
	return magic == 0x07230203u;
}

cl_program CL_API_CALL clCreateProgramWithIL(cl_context ctx, const void *il,
					     size_t length, cl_int *err)
{
	bool any = false;
	cl_program p;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	if (!il || !length)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < ctx->n_devices; i++)
		any |= (ctx->devices[i]->u64[ACCEL_DEVICE_U64_CAPS] &
			ACCEL_DEVICE_CAP_IL) != 0;
	/* no device takes IL (CL_DEVICE_IL_VERSION is empty) */
	if (!any)
		ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
	if (!il_well_formed(il, length))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	p = icd_program_alloc(ctx, ICD_PROGRAM_IL, ctx->n_devices,
			      ctx->devices);
	if (p)
		p->il = malloc(length);
	if (!p || !p->il) {
		if (p)
			icd_put(p);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	memcpy(p->il, il, length);
	p->il_size = length;
	ICD_RETURN_ERR(err, CL_SUCCESS, p);
}

cl_program CL_API_CALL clCreateProgramWithILKHR(cl_context ctx,
						const void *il, size_t length,
						cl_int *err)
{
	return clCreateProgramWithIL(ctx, il, length, err);
}

cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program p,
						      cl_uint id, size_t size,
						      const void *value)
{
	struct accel_spec_constant *s;
	uint32_t want;
	cl_int r = CL_SUCCESS;
	cl_uint i;
	int e;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	/* not from IL: an invalid operation where no device takes IL */
	if (p->origin != ICD_PROGRAM_IL) {
		for (i = 0; i < p->n_devices; i++)
			if (p->devices[i]->u64[ACCEL_DEVICE_U64_CAPS] &
			    ACCEL_DEVICE_CAP_IL)
				return CL_INVALID_PROGRAM;
		return CL_INVALID_OPERATION;
	}
	e = accel_il_get_spec_constant_size(p->il, p->il_size, id, &want);
	if (e == -ENOENT || e == -EINVAL)
		return CL_INVALID_SPEC_ID;
	if (size != want || !value)
		return CL_INVALID_VALUE;
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n_spec && p->spec[i].id != id; i++)
		;
	if (i == p->n_spec) {
		s = realloc(p->spec, (p->n_spec + 1) * sizeof(*s));
		if (!s) {
			r = CL_OUT_OF_HOST_MEMORY;
			goto out;
		}
		p->spec = s;
		p->n_spec++;
	}
	p->spec[i].id = id;
	p->spec[i].size = (uint32_t)size;
	p->spec[i].value = 0;
	/* the low bytes of the value, little-endian as the host */
	memcpy(&p->spec[i].value, value, size);
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

cl_int CL_API_CALL clRetainProgram(cl_program p)
{
	return icd_retain(p, ICD_MAGIC_PROGRAM, CL_INVALID_PROGRAM);
}

cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
	return icd_release(p, ICD_MAGIC_PROGRAM, CL_INVALID_PROGRAM);
}

