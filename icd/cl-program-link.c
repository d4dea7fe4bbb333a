/* SPDX-License-Identifier: MIT */
/*
 * clCompileProgram and clLinkProgram: separate compilation through
 * accel_program_compile() (one object per device, with its own options and
 * embedded headers) and accel_program_link() (objects and libraries into
 * an executable, or with -create-library into a library).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-program.h"

/* Compile for device @p i. Returns a CL error for the whole call. */
static cl_int compile_one(cl_program p, cl_uint i, const char *options,
			  cl_uint n, const char **names, const char **texts)
{
	struct icd_build *b = &p->builds[i];
	char *log = NULL;
	int e;

	icd_build_clear(b);
	b->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
	b->options = strdup(options ? options : "");
	if (!b->options)
		return CL_OUT_OF_HOST_MEMORY;
	if (!p->devices[i]->compiler) {
		b->status = CL_BUILD_ERROR;
		return CL_COMPILER_NOT_AVAILABLE;
	}
	if (p->origin == ICD_PROGRAM_IL)
		e = accel_program_new_il(p->devices[i]->dev, p->il, p->il_size,
					 options, p->n_spec, p->spec,
					 ACCEL_IL_OBJECT, &log, &b->object);
	else
		e = accel_program_compile(p->devices[i]->dev, p->source, 0,
					  options, n, names, texts, &log,
					  &b->object);
	b->log = log ? log : strdup("");
	b->status = e == 0 ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
	if (e == 0) {
		b->binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
		b->arg_info = p->origin == ICD_PROGRAM_SOURCE &&
			      icd_options_arg_info(options);
	}
	if (!b->log)
		return CL_OUT_OF_HOST_MEMORY;
	return e == 0 ? CL_SUCCESS :
			icd_program_error(e, CL_INVALID_COMPILER_OPTIONS,
					  CL_COMPILER_NOT_AVAILABLE,
					  CL_COMPILE_PROGRAM_FAILURE);
}

static cl_int check_headers(cl_uint n, const cl_program *headers,
			    const char **names, const char ***texts)
{
	cl_uint i;

	if ((n && (!headers || !names)) || (!n && (headers || names)))
		return CL_INVALID_VALUE;
	*texts = calloc(n ? n : 1, sizeof(**texts));
	if (!*texts)
		return CL_OUT_OF_HOST_MEMORY;
	for (i = 0; i < n; i++) {
		if (!icd_object_valid(headers[i], ICD_MAGIC_PROGRAM) ||
		    !headers[i]->source || !names[i] ||
		    headers[i]->origin != ICD_PROGRAM_SOURCE) {
			free(*texts);
			return CL_INVALID_VALUE;
		}
		(*texts)[i] = headers[i]->source;
	}
	return CL_SUCCESS;
}

cl_int CL_API_CALL clCompileProgram(cl_program p, cl_uint n,
				    const cl_device_id *list,
				    const char *options, cl_uint num_headers,
				    const cl_program *headers,
				    const char **header_names,
				    void(CL_CALLBACK *notify)(cl_program,
							      void *),
				    void *user_data)
{
	const char **texts = NULL;
	bool *sel = NULL;
	cl_int r, e;
	cl_uint i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!notify && user_data)
		return CL_INVALID_VALUE;
	r = check_headers(num_headers, headers, header_names, &texts);
	if (r != CL_SUCCESS)
		return r;
	if (p->origin != ICD_PROGRAM_SOURCE && p->origin != ICD_PROGRAM_IL) {
		free(texts);
		return CL_INVALID_OPERATION;
	}
	r = icd_program_select_devices(p, n, list, &sel);
	if (r != CL_SUCCESS) {
		free(texts);
		return r;
	}
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->n_kernels)) {
		r = CL_INVALID_OPERATION;
		goto out;
	}
	for (i = 0; i < p->n_devices; i++)
		if (sel[i] && p->builds[i].status == CL_BUILD_IN_PROGRESS)
			r = CL_INVALID_OPERATION;
	if (r != CL_SUCCESS)
		goto out;
	p->uniform_wg = icd_options_uniform_wg(options);
	for (i = 0; i < p->n_devices; i++) {
		if (!sel[i])
			continue;
		e = compile_one(p, i, options, num_headers, header_names,
				texts);
		if (e != CL_SUCCESS && r == CL_SUCCESS)
			r = e;
	}
	/* an object has no kernels: the names of an earlier build go */
	icd_program_collect_kernel_names(p);
out:
	pthread_mutex_unlock(&p->lock);
	free(sel);
	free(texts);
	if (notify && r != CL_INVALID_OPERATION)
		notify(p, user_data);
	return r;
}

/*
 * Link options: -create-library, -enable-link-options (with it only), and
 * the code generation flags, handed to the link.
 */
static cl_int link_options(const char *options, char **ret, bool *library)
{
	static const char *const allowed[] = {
		"-cl-denorms-are-zero", "-cl-no-signed-zeros",
		"-cl-unsafe-math-optimizations", "-cl-finite-math-only",
		"-cl-fast-relaxed-math", "-cl-no-subgroup-ifp",
	};
	char *copy = strdup(options ? options : ""), *save = NULL, *w;
	char *out = strdup("");
	bool ok = true, enable = false;
	size_t i;

	*library = false;
	for (w = copy ? strtok_r(copy, " \t\n", &save) : NULL; w && out && ok;
	     w = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(w, "-create-library")) {
			*library = true;
			continue;
		}
		if (!strcmp(w, "-enable-link-options")) {
			enable = true;
			continue;
		}
		for (i = 0, ok = false; i < ICD_ARRAY_SIZE(allowed); i++)
			ok = ok || !strcmp(w, allowed[i]);
		/* -cl-no-subgroup-ifp: no sub-groups, nothing to pass */
		if (ok && strcmp(w, "-cl-no-subgroup-ifp"))
			icd_strcat(&out, "%s%s", *out ? " " : "", w);
	}
	free(copy);
	if (!ok || (enable && !*library)) {
		free(out);
		return CL_INVALID_LINKER_OPTIONS;
	}
	if (!out)
		return CL_OUT_OF_HOST_MEMORY;
	*ret = out;
	return CL_SUCCESS;
}

/*
 * The inputs' objects for device @p d, referenced, in @p objs. Either all
 * inputs have one for it or none does (then @p *count is 0); anything
 * else is CL_INVALID_OPERATION. @p *arg_info: one of them has argument
 * information (libaccel does not say which object a kernel comes from).
 */
static cl_int gather(cl_device_id d, cl_uint n, const cl_program *inputs,
		     struct accel_program **objs, cl_uint *count,
		     bool *arg_info)
{
	cl_uint i, have = 0;

	*arg_info = false;
	for (i = 0; i < n; i++) {
		cl_program in = inputs[i];
		int idx = icd_program_device_index(in, d);

		objs[i] = NULL;
		pthread_mutex_lock(&in->lock);
		/* compiled, linked as a library, or loaded from a binary */
		if (idx >= 0 && in->builds[idx].object) {
			objs[i] = accel_program_ref(in->builds[idx].object);
			*arg_info = *arg_info || in->builds[idx].arg_info;
		}
		pthread_mutex_unlock(&in->lock);
		have += objs[i] != NULL;
	}
	*count = have;
	if (have == 0 || have == n)
		return CL_SUCCESS;
	for (i = 0; i < n; i++)
		accel_program_unref(objs[i]);
	*count = 0;
	return CL_INVALID_OPERATION;
}

/* Link for device @p i of @p p. CL_SUCCESS with @p *linked false: the
 * inputs have nothing for this device. */
static cl_int link_one(cl_program p, cl_uint i, cl_uint n,
		       const cl_program *inputs, const char *options,
		       bool library, bool *linked)
{
	struct icd_build *b = &p->builds[i];
	struct accel_program *objs[n], *out = NULL;
	char *log = NULL;
	cl_uint count;
	bool arg_info;
	cl_int r;
	int e;

	*linked = false;
	r = gather(p->devices[i], n, inputs, objs, &count, &arg_info);
	if (r != CL_SUCCESS || !count)
		return r;
	*linked = true;
	b->options = strdup(options);
	if (!b->options)
		r = CL_OUT_OF_HOST_MEMORY;
	if (r == CL_SUCCESS && !p->devices[i]->compiler)
		r = CL_LINKER_NOT_AVAILABLE;
	if (r == CL_SUCCESS) {
		e = accel_program_link(p->devices[i]->dev, n, objs, options,
				       library ? ACCEL_LINK_LIBRARY : 0, &log,
				       &out);
		r = e == 0 ? CL_SUCCESS :
			icd_program_error(e, CL_INVALID_LINKER_OPTIONS,
					  CL_LINKER_NOT_AVAILABLE,
					  CL_LINK_PROGRAM_FAILURE);
	}
	for (cl_uint k = 0; k < n; k++)
		accel_program_unref(objs[k]);
	b->log = log ? log : strdup("");
	b->status = r == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
	b->arg_info = r == CL_SUCCESS && arg_info;
	if (r == CL_SUCCESS && library) {
		b->object = out;
		b->binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
	} else if (r == CL_SUCCESS) {
		b->prog = out;
		b->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
	}
	if (!b->log)
		r = CL_OUT_OF_HOST_MEMORY;
	return r;
}

static cl_int check_inputs(cl_context ctx, cl_uint n, const cl_program *in)
{
	cl_uint i;

	if (!n || !in)
		return CL_INVALID_VALUE;
	for (i = 0; i < n; i++)
		if (!icd_object_valid(in[i], ICD_MAGIC_PROGRAM) ||
		    in[i]->ctx != ctx)
			return CL_INVALID_PROGRAM;
	return CL_SUCCESS;
}

cl_program CL_API_CALL clLinkProgram(cl_context ctx, cl_uint n,
				     const cl_device_id *list,
				     const char *options, cl_uint num_inputs,
				     const cl_program *inputs,
				     void(CL_CALLBACK *notify)(cl_program,
							       void *),
				     void *user_data, cl_int *err)
{
	char *lopts = NULL;
	bool library, linked, any = false;
	cl_program p;
	cl_int r, e;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	if ((!notify && user_data) || (n && !list) || (!n && list))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < n; i++)
		if (!icd_object_valid(list[i], ICD_MAGIC_DEVICE) ||
		    !icd_context_has_device(ctx, list[i]))
			ICD_RETURN_ERR(err, CL_INVALID_DEVICE, NULL);
	r = check_inputs(ctx, num_inputs, inputs);
	if (r == CL_SUCCESS)
		r = link_options(options, &lopts, &library);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	p = icd_program_alloc(ctx, ICD_PROGRAM_LINKED, n ? n : ctx->n_devices,
			      n ? list : ctx->devices);
	if (!p) {
		free(lopts);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	for (i = 0; i < p->n_devices; i++) {
		e = link_one(p, i, num_inputs, inputs, lopts, library, &linked);
		any = any || linked;
		if (e != CL_SUCCESS && r == CL_SUCCESS)
			r = e;
	}
	free(lopts);
	/* no device had objects from all inputs */
	if (r == CL_SUCCESS && !any)
		r = CL_INVALID_OPERATION;
	if (r == CL_INVALID_OPERATION || r == CL_OUT_OF_HOST_MEMORY) {
		icd_put(p);
		ICD_RETURN_ERR(err, r, NULL);
	}
	/* uniform work-groups if any input was compiled for them */
	p->uniform_wg = false;
	for (i = 0; i < num_inputs; i++)
		p->uniform_wg = p->uniform_wg || inputs[i]->uniform_wg;
	e = icd_program_collect_kernel_names(p);
	if (r == CL_SUCCESS)
		r = e;
	if (notify)
		notify(p, user_data);
	/* A failed link still returns the program, for its log. */
	ICD_RETURN_ERR(err, r, p);
}
