/* SPDX-License-Identifier: MIT */
/*
 * Programs: OpenCL C source built per device with
 * accel_program_new_source(), built-in kernels, and "binaries" that carry
 * the source and options (a rebuild from the compiler's cache is cheap, and
 * the round trip through CL_PROGRAM_BINARIES works as applications expect).
 *
 * clCompileProgram keeps the source, options and headers; clLinkProgram
 * joins the sources of its inputs and builds the result, so compile errors
 * are reported when linking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

/* Our binary format: a header, the options, the source (no NULs). */
#define BINARY_MAGIC "ACCELCL"
#define BINARY_FORMAT 1u

struct binary_header {
	char magic[8];
	uint32_t format;
	uint32_t binary_type; /* cl_program_binary_type */
	uint64_t options_len;
	uint64_t source_len;
};

static cl_program program_alloc(cl_context ctx, enum icd_program_origin origin,
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

static void build_clear(struct icd_build *b)
{
	accel_program_unref(b->prog);
	b->prog = NULL;
	free(b->log);
	b->log = NULL;
	free(b->options);
	b->options = NULL;
}

void icd_program_free(cl_program p)
{
	cl_uint i;

	for (i = 0; i < p->n_devices; i++)
		build_clear(&p->builds[i]);
	free(p->builds);
	free(p->devices);
	free(p->source);
	free(p->binary_options);
	free(p->kernel_names);
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
	p = program_alloc(ctx, ICD_PROGRAM_SOURCE, ctx->n_devices,
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

/* Devices given to a program constructor: all in @p ctx. */
static cl_int check_devices(cl_context ctx, cl_uint n,
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

static cl_int parse_binary(const unsigned char *bin, size_t len,
			   struct binary_header *h, const char **options,
			   const char **source)
{
	if (!bin || len < sizeof(*h))
		return CL_INVALID_BINARY;
	memcpy(h, bin, sizeof(*h));
	if (memcmp(h->magic, BINARY_MAGIC, sizeof(h->magic)) ||
	    h->format != BINARY_FORMAT ||
	    h->options_len > len - sizeof(*h) ||
	    h->source_len != len - sizeof(*h) - h->options_len ||
	    (h->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE &&
	     h->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
	     h->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY))
		return CL_INVALID_BINARY;
	*options = (const char *)bin + sizeof(*h);
	*source = *options + h->options_len;
	return CL_SUCCESS;
}

cl_program CL_API_CALL clCreateProgramWithBinary(
	cl_context ctx, cl_uint n, const cl_device_id *devices,
	const size_t *lengths, const unsigned char **binaries,
	cl_int *binary_status, cl_int *err)
{
	struct binary_header h;
	const char *opts = NULL, *src = NULL;
	cl_program p;
	cl_int r, first = CL_SUCCESS;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	r = check_devices(ctx, n, devices);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!lengths || !binaries)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < n; i++)
		if (!lengths[i] || !binaries[i])
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);

	p = program_alloc(ctx, ICD_PROGRAM_BINARY, n, devices);
	if (!p)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	for (i = 0; i < n; i++) {
		r = parse_binary(binaries[i], lengths[i], &h, &opts, &src);
		if (binary_status)
			binary_status[i] = r;
		if (r != CL_SUCCESS) {
			if (first == CL_SUCCESS)
				first = r;
			continue;
		}
		p->builds[i].binary_type = h.binary_type;
		/* One program, one source: the first binary's. */
		if (!p->source) {
			p->source = strndup(src, h.source_len);
			p->binary_options = strndup(opts, h.options_len);
			if (!p->source || !p->binary_options)
				first = CL_OUT_OF_HOST_MEMORY;
		}
	}
	if (first != CL_SUCCESS) {
		icd_put(p);
		ICD_RETURN_ERR(err, first, NULL);
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, p);
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
	r = check_devices(ctx, n, devices);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!names)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < n; i++)
		if (!built_in_list_ok(devices[i], names))
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	p = program_alloc(ctx, ICD_PROGRAM_BUILT_IN, n, devices);
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

cl_program CL_API_CALL clCreateProgramWithIL(cl_context ctx,
					     const void *il _unused_,
					     size_t length _unused_,
					     cl_int *err)
{
	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	/* No device takes an intermediate language (CL_DEVICE_IL_VERSION). */
	ICD_RETURN_ERR(err, CL_INVALID_OPERATION, NULL);
}

cl_int CL_API_CALL clRetainProgram(cl_program p)
{
	return icd_retain(p, ICD_MAGIC_PROGRAM, CL_INVALID_PROGRAM);
}

cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
	return icd_release(p, ICD_MAGIC_PROGRAM, CL_INVALID_PROGRAM);
}

/* ---- building ------------------------------------------------------------ */

/*
 * OpenCL C 2.0 and later allow non-uniform work-groups unless the program
 * asks for uniform ones; 1.x (the default) does not.
 */
static bool options_uniform_wg(const char *options)
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

/* Build for one device. Returns a CL error for the whole call. */
static cl_int build_one(cl_program p, cl_uint i, const char *source,
			const char *options)
{
	struct icd_build *b = &p->builds[i];
	cl_device_id d = p->devices[i];
	char *log = NULL;
	int e;

	build_clear(b);
	b->options = strdup(options ? options : "");
	if (!b->options)
		return CL_OUT_OF_HOST_MEMORY;
	if (!d->compiler) {
		b->status = CL_BUILD_ERROR;
		return CL_COMPILER_NOT_AVAILABLE;
	}
	b->status = CL_BUILD_IN_PROGRESS;
	e = accel_program_new_source(d->dev, source, 0, options, &log,
				     &b->prog);
	b->log = log ? log : strdup("");
	if (e == 0) {
		b->status = CL_BUILD_SUCCESS;
		b->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
		return CL_SUCCESS;
	}
	b->status = CL_BUILD_ERROR;
	b->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
	switch (e) {
	case -EINVAL:
		return CL_INVALID_BUILD_OPTIONS;
	case -EOPNOTSUPP:
		return CL_COMPILER_NOT_AVAILABLE;
	case -ENOMEM:
		return CL_OUT_OF_HOST_MEMORY;
	default:
		return CL_BUILD_PROGRAM_FAILURE;
	}
}

/* Kernel names of the first successful build, ';'-separated. */
static cl_int collect_kernel_names(cl_program p)
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

/* Resolve a device list argument into indices (all if empty). */
static cl_int select_devices(cl_program p, cl_uint n,
			     const cl_device_id *list, bool *sel)
{
	cl_uint i;

	if ((n && !list) || (!n && list))
		return CL_INVALID_VALUE;
	for (i = 0; i < p->n_devices; i++)
		sel[i] = n == 0;
	for (i = 0; i < n; i++) {
		int idx = icd_object_valid(list[i], ICD_MAGIC_DEVICE) ?
				  icd_program_device_index(p, list[i]) :
				  -1;

		if (idx < 0)
			return CL_INVALID_DEVICE;
		sel[idx] = true;
	}
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
	sel = calloc(p->n_devices, sizeof(*sel));
	if (!sel)
		return CL_OUT_OF_HOST_MEMORY;
	r = select_devices(p, n, list, sel);
	if (r != CL_SUCCESS) {
		free(sel);
		return r;
	}
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->n_kernels)) {
		result = CL_INVALID_OPERATION;
		goto out;
	}
	if (p->origin == ICD_PROGRAM_BUILT_IN) {
		/* nothing to build; they were made at creation */
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
	/* A binary is rebuilt with the options it was built with. */
	if (p->origin == ICD_PROGRAM_BINARY && (!options || !*options))
		options = p->binary_options;
	for (i = 0; i < p->n_devices; i++) {
		if (!sel[i])
			continue;
		r = build_one(p, i, p->source, options);
		if (r != CL_SUCCESS && result == CL_SUCCESS)
			result = r;
	}
	p->uniform_wg = options_uniform_wg(options);
	r = collect_kernel_names(p);
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

/* ---- compile and link ---------------------------------------------------- */

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
	sel = calloc(p->n_devices, sizeof(*sel));
	if (!sel)
		return CL_OUT_OF_HOST_MEMORY;
	r = select_devices(p, n, list, sel);
	if (r != CL_SUCCESS) {
		free(sel);
		return r;
	}
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
			build_clear(b);
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
	p = program_alloc(ctx, ICD_PROGRAM_SOURCE, n ? n : ctx->n_devices,
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
		if (build_one(p, i, p->source, opts) != CL_SUCCESS &&
		    r == CL_SUCCESS)
			r = CL_LINK_PROGRAM_FAILURE;
	}
	p->uniform_wg = options_uniform_wg(opts);
	free(opts);
	free(sel);
	if (r == CL_SUCCESS)
		r = collect_kernel_names(p);
	if (notify)
		notify(p, user_data);
	if (r == CL_OUT_OF_HOST_MEMORY) {
		icd_put(p);
		ICD_RETURN_ERR(err, r, NULL);
	}
	/* A failed link still returns the program, for its log. */
	ICD_RETURN_ERR(err, r, p);
}

/* ---- queries ------------------------------------------------------------- */

static size_t binary_size(cl_program p, cl_uint i)
{
	const struct icd_build *b = &p->builds[i];
	const char *opts = b->options ? b->options : p->binary_options;

	if (p->origin == ICD_PROGRAM_BUILT_IN || !p->source ||
	    b->binary_type == CL_PROGRAM_BINARY_TYPE_NONE)
		return 0;
	return sizeof(struct binary_header) + strlen(opts ? opts : "") +
	       strlen(p->source);
}

static void binary_write(cl_program p, cl_uint i, unsigned char *out)
{
	const struct icd_build *b = &p->builds[i];
	const char *opts = b->options ? b->options : p->binary_options;
	struct binary_header h = { .format = BINARY_FORMAT };

	if (!opts)
		opts = "";
	memcpy(h.magic, BINARY_MAGIC, sizeof(h.magic));
	h.binary_type = (uint32_t)b->binary_type;
	h.options_len = strlen(opts);
	h.source_len = strlen(p->source);
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), opts, h.options_len);
	memcpy(out + sizeof(h) + h.options_len, p->source, h.source_len);
}

static bool program_built(cl_program p)
{
	cl_uint i;

	for (i = 0; i < p->n_devices; i++)
		if (p->builds[i].prog)
			return true;
	return false;
}

cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param,
				    size_t size, void *value,
				    size_t *size_ret)
{
	cl_int r;
	cl_uint i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	switch (param) {
	case CL_PROGRAM_REFERENCE_COUNT:
		return icd_info_uint(size, value, size_ret, icd_refcount(p));
	case CL_PROGRAM_CONTEXT:
		return icd_info_ptr(size, value, size_ret, p->ctx);
	case CL_PROGRAM_NUM_DEVICES:
		return icd_info_uint(size, value, size_ret, p->n_devices);
	case CL_PROGRAM_DEVICES:
		return icd_info(size, value, size_ret, p->devices,
				p->n_devices * sizeof(*p->devices));
	case CL_PROGRAM_SOURCE:
		return icd_info_string(size, value, size_ret,
				       p->origin == ICD_PROGRAM_SOURCE ?
					       p->source : "");
	case CL_PROGRAM_IL:
		return icd_info(size, value, size_ret, NULL, 0);
	case CL_PROGRAM_BINARY_SIZES: {
		size_t sizes[p->n_devices];

		pthread_mutex_lock(&p->lock);
		for (i = 0; i < p->n_devices; i++)
			sizes[i] = binary_size(p, i);
		pthread_mutex_unlock(&p->lock);
		return icd_info(size, value, size_ret, sizes, sizeof(sizes));
	}
	case CL_PROGRAM_BINARIES: {
		unsigned char **out = value;

		if (size_ret)
			*size_ret = p->n_devices * sizeof(*out);
		if (!value)
			return CL_SUCCESS;
		if (size < p->n_devices * sizeof(*out))
			return CL_INVALID_VALUE;
		pthread_mutex_lock(&p->lock);
		for (i = 0; i < p->n_devices; i++)
			if (out[i] && binary_size(p, i))
				binary_write(p, i, out[i]);
		pthread_mutex_unlock(&p->lock);
		return CL_SUCCESS;
	}
	case CL_PROGRAM_NUM_KERNELS:
	case CL_PROGRAM_KERNEL_NAMES:
		pthread_mutex_lock(&p->lock);
		if (!program_built(p)) {
			r = CL_INVALID_PROGRAM_EXECUTABLE;
		} else if (param == CL_PROGRAM_NUM_KERNELS) {
			r = icd_info_size(size, value, size_ret,
					  p->n_kernel_names);
		} else {
			r = icd_info_string(size, value, size_ret,
					    p->kernel_names);
		}
		pthread_mutex_unlock(&p->lock);
		return r;
	case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
	case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
		return icd_info_bool(size, value, size_ret, false);
	default:
		return CL_INVALID_VALUE;
	}
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id d,
					 cl_program_build_info param,
					 size_t size, void *value,
					 size_t *size_ret)
{
	struct icd_build *b;
	cl_int r;
	int i;

	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	i = icd_object_valid(d, ICD_MAGIC_DEVICE) ?
		    icd_program_device_index(p, d) : -1;
	if (i < 0)
		return CL_INVALID_DEVICE;
	b = &p->builds[i];
	pthread_mutex_lock(&p->lock);
	switch (param) {
	case CL_PROGRAM_BUILD_STATUS:
		r = icd_info(size, value, size_ret, &b->status,
			     sizeof(b->status));
		break;
	case CL_PROGRAM_BUILD_OPTIONS:
		r = icd_info_string(size, value, size_ret, b->options);
		break;
	case CL_PROGRAM_BUILD_LOG:
		r = icd_info_string(size, value, size_ret, b->log);
		break;
	case CL_PROGRAM_BINARY_TYPE:
		r = icd_info_uint(size, value, size_ret, b->binary_type);
		break;
	case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
		r = icd_info_size(size, value, size_ret, 0);
		break;
	default:
		r = CL_INVALID_VALUE;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

cl_int CL_API_CALL clSetProgramReleaseCallback(
	cl_program p, void(CL_CALLBACK *fn)(cl_program, void *) _unused_,
	void *user_data _unused_)
{
	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	/* No device has program-scope global destructors. */
	return CL_INVALID_OPERATION;
}

cl_int CL_API_CALL clSetProgramSpecializationConstant(
	cl_program p, cl_uint id _unused_, size_t size _unused_,
	const void *value _unused_)
{
	if (!icd_object_valid(p, ICD_MAGIC_PROGRAM))
		return CL_INVALID_PROGRAM;
	/* Only programs from an intermediate language have them. */
	return CL_INVALID_PROGRAM;
}
