/* SPDX-License-Identifier: MIT */
/*
 * clBuildProgram: OpenCL C source built per device with
 * accel_program_new_source(); a program from an executable binary takes
 * the code loaded at creation, without compiling.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-program.h"

/*
 * OpenCL C 2.0 and later allow non-uniform work-groups unless the program
 * asks for uniform ones; 1.x (the default) does not.
 */
bool icd_options_uniform_wg(const char *options)
{
	const char *std = NULL, *p;
	bool uniform = false;

	for (p = options; p && (p = strstr(p, "-cl-")); p++) {
		if (!strncmp(p, "-cl-std=", 8))
			std = p + 8;
		else if (!strncmp(p, "-cl-uniform-work-group-size", 27))
			uniform = true;
	}
	if (uniform || !std)
		return true;
	return !strncmp(std, "CL1.", 4);
}

bool icd_options_arg_info(const char *options)
{
	static const char opt[] = "-cl-kernel-arg-info";
	const size_t len = sizeof(opt) - 1;
	const char *p;

	for (p = options; p && (p = strstr(p, opt)); p += len) {
		if ((p == options || isspace((unsigned char)p[-1])) &&
		    (!p[len] || isspace((unsigned char)p[len])))
			return true;
	}
	return false;
}

cl_int icd_program_error(int e, cl_int bad_options, cl_int unavailable,
			 cl_int failure)
{
	switch (e) {
	case -EINVAL:
		return bad_options;
	case -EOPNOTSUPP:
		return unavailable;
	case -ENOMEM:
		return CL_OUT_OF_HOST_MEMORY;
	default:
		return failure;
	}
}

/* Build for one device. Returns a CL error for the whole call. */
cl_int icd_program_build_one(cl_program p, cl_uint i, const char *source,
			     const char *options)
{
	struct icd_build *b = &p->builds[i];
	cl_device_id d = p->devices[i];
	char *log = NULL;
	int e;

	icd_build_clear(b);
	b->options = strdup(options ? options : "");
	if (!b->options)
		return CL_OUT_OF_HOST_MEMORY;
	if (!d->compiler) {
		b->status = CL_BUILD_ERROR;
		return CL_COMPILER_NOT_AVAILABLE;
	}
	b->status = CL_BUILD_IN_PROGRESS;
	if (p->origin == ICD_PROGRAM_IL)
		e = accel_program_new_il(d->dev, p->il, p->il_size, options,
					 p->n_spec, p->spec, 0, &log,
					 &b->prog);
	else
		e = accel_program_new_source(d->dev, source, 0, options, &log,
					     &b->prog);
	b->log = log ? log : strdup("");
	if (e == 0) {
		b->status = CL_BUILD_SUCCESS;
		b->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
		/* from source (a binary's build is use_binary()); a
		 * module's names are not the source's */
		b->arg_info = p->origin == ICD_PROGRAM_SOURCE &&
			      icd_options_arg_info(options);
		return CL_SUCCESS;
	}
	b->status = CL_BUILD_ERROR;
	b->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
	return icd_program_error(e, CL_INVALID_BUILD_OPTIONS,
				 CL_COMPILER_NOT_AVAILABLE,
				 CL_BUILD_PROGRAM_FAILURE);
}

/* An executable binary: the code loaded at creation becomes the build. */
static cl_int use_binary(cl_program p, cl_uint i)
{
	struct icd_build *b = &p->builds[i];

	icd_build_clear(b);
	b->options = strdup(p->binary_options ? p->binary_options : "");
	b->log = strdup("");
	if (!b->options || !b->log)
		return CL_OUT_OF_HOST_MEMORY;
	b->prog = accel_program_ref(b->binary_prog);
	b->status = CL_BUILD_SUCCESS;
	return CL_SUCCESS;
}

/* Kernel names of the first successful build, ';'-separated. */
cl_int icd_program_collect_kernel_names(cl_program p)
{
	struct accel_program *prog = NULL;
	char *names = NULL;
	cl_uint i;
	int n, k;

	for (i = 0; i < p->n_devices && !prog; i++)
		prog = p->builds[i].prog;
	free(p->kernel_names);
	p->kernel_names = NULL;
	p->n_kernel_names = 0;
	if (!prog)
		return CL_SUCCESS;
	n = accel_program_get_kernel_count(prog);
	names = strdup("");
	for (k = 0; k < n && names; k++) {
		const char *name;

		if (accel_program_get_kernel_name(prog, (uint32_t)k, &name) < 0)
			continue;
		icd_strcat(&names, "%s%s", *names ? ";" : "", name);
	}
	if (!names)
		return CL_OUT_OF_HOST_MEMORY;
	p->kernel_names = names;
	p->n_kernel_names = n > 0 ? (cl_uint)n : 0;
	return CL_SUCCESS;
}

/* Resolve a device list argument into a calloc'ed flag per program
 * device (all if the list is empty). */
cl_int icd_program_select_devices(cl_program p, cl_uint n,
				  const cl_device_id *list, bool **ret)
{
	bool *sel;
	cl_uint i;

	if ((n && !list) || (!n && list))
		return CL_INVALID_VALUE;
	sel = calloc(p->n_devices, sizeof(*sel));
	if (!sel)
		return CL_OUT_OF_HOST_MEMORY;
	for (i = 0; i < p->n_devices; i++)
		sel[i] = n == 0;
	for (i = 0; i < n; i++) {
		int idx = icd_object_valid(list[i], ICD_MAGIC_DEVICE) ?
				  icd_program_device_index(p, list[i]) :
				  -1;

		if (idx < 0) {
			free(sel);
			return CL_INVALID_DEVICE;
		}
		sel[idx] = true;
	}
	*ret = sel;
	return CL_SUCCESS;
}

cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint n,
				  const cl_device_id *list,
				  const char *options,
				  void(CL_CALLBACK *notify)(cl_program, void *),
				  void *user_data)
{
	bool *sel;
	cl_int r, result = CL_SUCCESS;
	cl_uint i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	if (!notify && user_data)
		return CL_INVALID_VALUE;
	r = icd_program_select_devices(p, n, list, &sel);
	if (r != CL_SUCCESS)
		return r;
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->n_kernels)) {
		result = CL_INVALID_OPERATION;
		goto out;
	}
	if (p->origin == ICD_PROGRAM_BUILT_IN) {
		/* nothing to build; they were made at creation */
		goto out;
	}
	/* neither source nor binary: clLinkProgram made it */
	if (p->origin == ICD_PROGRAM_LINKED) {
		result = CL_INVALID_OPERATION;
		goto out;
	}
	for (i = 0; i < p->n_devices; i++) {
		if (p->builds[i].status == CL_BUILD_IN_PROGRESS) {
			result = CL_INVALID_OPERATION;
			goto out;
		}
		/* only executable binaries build; objects and libraries link */
		if (p->origin == ICD_PROGRAM_BINARY && sel[i] &&
		    p->builds[i].binary_type !=
			    CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
			result = CL_INVALID_BINARY;
			goto out;
		}
	}
	/* A binary's code was built with its own options; they stand. */
	if (p->origin == ICD_PROGRAM_BINARY)
		options = p->binary_options;
	for (i = 0; i < p->n_devices; i++) {
		if (!sel[i])
			continue;
		if (p->origin == ICD_PROGRAM_BINARY)
			r = use_binary(p, i);
		else
			r = icd_program_build_one(p, i, p->source, options);
		if (r != CL_SUCCESS && result == CL_SUCCESS)
			result = r;
	}
	p->uniform_wg = icd_options_uniform_wg(options);
	r = icd_program_collect_kernel_names(p);
	if (result == CL_SUCCESS)
		result = r;
out:
	pthread_mutex_unlock(&p->lock);
	free(sel);
	/* The build is synchronous: it is complete when notify runs. */
	if (notify && result != CL_INVALID_OPERATION)
		notify(p, user_data);
	return result;
}

