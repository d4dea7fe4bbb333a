/* SPDX-License-Identifier: MIT */
/*
 * clCompileProgram keeps the source, options and headers; clLinkProgram
 * joins the sources of its inputs and builds the result, so compile errors
 * are reported when linking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-program.h"

/*
 * Input headers are inlined: each `#include "name"` line naming one of
 * them becomes the header's text, so the compiled object needs no files.
 */
static char *inline_headers(const char *src, cl_uint n, const cl_program *hdrs,
			    const char **names)
{
	char *out = strdup("");
	const char *p = src;

	while (out && *p) {
		const char *line_end = strchr(p, '\n');
		size_t len = line_end ? (size_t)(line_end - p + 1) : strlen(p);
		const char *q = p;
		bool replaced = false;
		cl_uint i;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '#' && n) {
			q++;
			while (*q == ' ' || *q == '\t')
				q++;
			if (!strncmp(q, "include", 7)) {
				q += 7;
				while (*q == ' ' || *q == '\t')
					q++;
				for (i = 0; i < n && *q == '"'; i++) {
					size_t nl = strlen(names[i]);

					if (!strncmp(q + 1, names[i], nl) &&
					    q[1 + nl] == '"') {
						icd_strcat(&out, "%s\n",
							   hdrs[i]->source);
						replaced = true;
						break;
					}
				}
			}
		}
		if (!replaced && out)
			icd_strcat(&out, "%.*s", (int)len, p);
		p += len;
	}
	return out;
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
	char *src;
	bool *sel;
	cl_int r = CL_SUCCESS;
	cl_uint i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	if ((!notify && user_data) ||
	    (num_headers && (!headers || !header_names)) ||
	    (!num_headers && (headers || header_names)))
		return CL_INVALID_VALUE;
	for (i = 0; i < num_headers; i++)
		if (!icd_object_valid(headers[i], ICD_MAGIC_PROGRAM) ||
		    !headers[i]->source || !header_names[i])
			return CL_INVALID_VALUE;
	if (p->origin != ICD_PROGRAM_SOURCE)
		return CL_INVALID_OPERATION;
	r = icd_program_select_devices(p, n, list, &sel);
	if (r != CL_SUCCESS)
		return r;
	src = inline_headers(p->source, num_headers, headers, header_names);
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->n_kernels)) {
		r = CL_INVALID_OPERATION;
	} else if (!src) {
		r = CL_OUT_OF_HOST_MEMORY;
	} else {
		free(p->source);
		p->source = src;
		src = NULL;
		for (i = 0; i < p->n_devices; i++) {
			struct icd_build *b = &p->builds[i];

			if (!sel[i])
				continue;
			if (!p->devices[i]->compiler) {
				r = CL_COMPILER_NOT_AVAILABLE;
				continue;
			}
			icd_build_clear(b);
			b->options = strdup(options ? options : "");
			b->log = strdup("");
			b->status = CL_BUILD_SUCCESS;
			b->binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
			if (!b->options || !b->log)
				r = CL_OUT_OF_HOST_MEMORY;
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(src);
	free(sel);
	if (notify && r != CL_INVALID_OPERATION)
		notify(p, user_data);
	return r;
}

/* Link options that change code generation, handed to the build. */
static cl_int link_options(const char *options, char **ret, bool *library)
{
	static const char *const allowed[] = {
		"-cl-denorms-are-zero", "-cl-no-signed-zeros",
		"-cl-unsafe-math-optimizations", "-cl-finite-math-only",
		"-cl-fast-relaxed-math", "-cl-no-subgroup-ifp",
	};
	char *copy = strdup(options ? options : ""), *save = NULL, *w;
	char *out = strdup("");
	size_t i;

	*library = false;
	for (w = copy ? strtok_r(copy, " \t\n", &save) : NULL; w && out;
	     w = strtok_r(NULL, " \t\n", &save)) {
		bool ok = false;

		if (!strcmp(w, "-create-library")) {
			*library = true;
			continue;
		}
		if (!strcmp(w, "-enable-link-options"))
			continue;
		for (i = 0; i < ICD_ARRAY_SIZE(allowed); i++)
			ok = ok || !strcmp(w, allowed[i]);
		if (!ok) {
			free(copy);
			free(out);
			return CL_INVALID_LINKER_OPTIONS;
		}
		/* -cl-no-subgroup-ifp: no sub-groups, nothing to pass */
		if (strcmp(w, "-cl-no-subgroup-ifp"))
			icd_strcat(&out, "%s%s", *out ? " " : "", w);
	}
	free(copy);
	if (!out)
		return CL_OUT_OF_HOST_MEMORY;
	*ret = out;
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
	char *src = NULL, *lopts = NULL, *opts = NULL;
	bool library, *sel = NULL;
	cl_program p;
	cl_int r = CL_SUCCESS;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	if ((!notify && user_data) || !num_inputs || !inputs ||
	    (n && !list) || (!n && list))
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < n; i++)
		if (!icd_object_valid(list[i], ICD_MAGIC_DEVICE) ||
		    !icd_context_has_device(ctx, list[i]))
			ICD_RETURN_ERR(err, CL_INVALID_DEVICE, NULL);
	for (i = 0; i < num_inputs; i++) {
		cl_program in = inputs[i];
		cl_uint d;
		bool ok = false;

		if (!icd_object_valid(in, ICD_MAGIC_PROGRAM) ||
		    in->ctx != ctx)
			ICD_RETURN_ERR(err, CL_INVALID_PROGRAM, NULL);
		for (d = 0; d < in->n_devices; d++)
			ok = ok || in->builds[d].binary_type ==
					   CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
				   in->builds[d].binary_type ==
					   CL_PROGRAM_BINARY_TYPE_LIBRARY;
		if (!ok)
			ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
	}
	r = link_options(options, &lopts, &library);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);

	/* The inputs' sources, in order; compile options of the first. */
	src = strdup("");
	for (i = 0; i < num_inputs && src; i++)
		icd_strcat(&src, "%s\n", inputs[i]->source);
	opts = strdup(inputs[0]->builds[0].options ?
			      inputs[0]->builds[0].options : "");
	if (opts && *lopts)
		icd_strcat(&opts, " %s", lopts);
	free(lopts);
	p = icd_program_alloc(ctx, ICD_PROGRAM_SOURCE, n ? n : ctx->n_devices,
			  n ? list : ctx->devices);
	if (p)
		sel = calloc(p->n_devices, sizeof(*sel));
	if (!p || !src || !opts || !sel) {
		free(src);
		free(opts);
		free(sel);
		if (p)
			icd_put(p);
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	}
	p->source = src;
	for (i = 0; i < p->n_devices; i++) {
		struct icd_build *b = &p->builds[i];

		if (library) {
			b->options = strdup(opts);
			b->log = strdup("");
			b->status = CL_BUILD_SUCCESS;
			b->binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
			if (!b->options || !b->log)
				r = CL_OUT_OF_HOST_MEMORY;
			continue;
		}
		if (icd_program_build_one(p, i, p->source, opts) !=
			    CL_SUCCESS &&
		    r == CL_SUCCESS)
			r = CL_LINK_PROGRAM_FAILURE;
	}
	p->uniform_wg = icd_options_uniform_wg(opts);
	free(opts);
	free(sel);
	if (r == CL_SUCCESS)
		r = icd_program_collect_kernel_names(p);
	if (notify)
		notify(p, user_data);
	if (r == CL_OUT_OF_HOST_MEMORY) {
		icd_put(p);
		ICD_RETURN_ERR(err, r, NULL);
	}
	/* A failed link still returns the program, for its log. */
	ICD_RETURN_ERR(err, r, p);
}

