/* SPDX-License-Identifier: MIT */
/*
 * Program binaries (clCreateProgramWithBinary, CL_PROGRAM_BINARIES): a
 * small header, the build options, then the payload:
 * - executables: libaccel's program binary (accel_program_get_binary():
 *   kernel descriptions and native code for one CPU), loaded at creation
 *   without compiling, so a broken or foreign one fails there with
 *   CL_INVALID_BINARY for its device;
 * - compiled objects and libraries: libaccel's program binary too (LLVM
 *   bitcode for accel_program_link(), no kernels), of the matching kind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cl-program.h"

#define BINARY_MAGIC "ACCELCL"
/* 1 carried source for executables too, 2 for objects and libraries */
#define BINARY_FORMAT 3u

struct binary_header {
	char magic[8];
	uint32_t format;
	uint32_t binary_type; /* cl_program_binary_type */
	uint64_t options_len;
	uint64_t payload_len;
};

static cl_int parse_binary(const unsigned char *bin, size_t len,
			   struct binary_header *h, const char **options,
			   const char **payload)
{
	if (!bin || len < sizeof(*h))
		return CL_INVALID_BINARY;
	memcpy(h, bin, sizeof(*h));
	if (memcmp(h->magic, BINARY_MAGIC, sizeof(h->magic)) ||
	    h->format != BINARY_FORMAT ||
	    h->options_len > len - sizeof(*h) ||
	    h->payload_len != len - sizeof(*h) - h->options_len ||
	    memchr(bin + sizeof(*h), '\0', h->options_len) ||
	    (h->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE &&
	     h->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
	     h->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY))
		return CL_INVALID_BINARY;
	*options = (const char *)bin + sizeof(*h);
	*payload = *options + h->options_len;
	return CL_SUCCESS;
}

/* The libaccel program kind a binary type holds. */
static int binary_kind(cl_program_binary_type t)
{
	switch (t) {
	case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT:
		return ACCEL_PROGRAM_OBJECT;
	case CL_PROGRAM_BINARY_TYPE_LIBRARY:
		return ACCEL_PROGRAM_LIBRARY;
	default:
		return ACCEL_PROGRAM_EXECUTABLE;
	}
}

/* Device @p i's binary: loaded now, without compiling. */
static cl_int take_binary(cl_program p, cl_uint i,
			  const struct binary_header *h, const char *opts,
			  const char *payload)
{
	struct icd_build *b = &p->builds[i];
	struct accel_program *prog = NULL;
	int e;

	if (!p->binary_options) {
		p->binary_options = strndup(opts, h->options_len);
		if (!p->binary_options)
			return CL_OUT_OF_HOST_MEMORY;
	}
	e = accel_program_new_binary(p->devices[i]->dev, payload,
				     h->payload_len, &prog);
	if (e == -ENOMEM)
		return CL_OUT_OF_HOST_MEMORY;
	/* malformed, other format or ABI, CPU lacks a feature, no compiler
	 * module to check it, or not what the header says: unusable here */
	if (e < 0 || accel_program_get_kind(prog) !=
			     binary_kind(h->binary_type)) {
		accel_program_unref(prog);
		return CL_INVALID_BINARY;
	}
	b->binary_type = h->binary_type;
	if (h->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
		b->binary_prog = prog;
	else
		b->object = prog;
	return CL_SUCCESS;
}

cl_program CL_API_CALL clCreateProgramWithBinary(
	cl_context ctx, cl_uint n, const cl_device_id *devices,
	const size_t *lengths, const unsigned char **binaries,
	cl_int *binary_status, cl_int *err)
{
	struct binary_header h;
	const char *opts = NULL, *payload = NULL;
	cl_program p;
	cl_int r, first = CL_SUCCESS;
	cl_uint i;

	if (!icd_object_valid(ctx, ICD_MAGIC_CONTEXT))
		ICD_RETURN_ERR(err, CL_INVALID_CONTEXT, NULL);
	r = icd_program_check_devices(ctx, n, devices);
	if (r != CL_SUCCESS)
		ICD_RETURN_ERR(err, r, NULL);
	if (!lengths || !binaries)
		ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);
	for (i = 0; i < n; i++)
		if (!lengths[i] || !binaries[i])
			ICD_RETURN_ERR(err, CL_INVALID_VALUE, NULL);

	p = icd_program_alloc(ctx, ICD_PROGRAM_BINARY, n, devices);
	if (!p)
		ICD_RETURN_ERR(err, CL_OUT_OF_HOST_MEMORY, NULL);
	for (i = 0; i < n; i++) {
		r = parse_binary(binaries[i], lengths[i], &h, &opts, &payload);
		if (r == CL_SUCCESS)
			r = take_binary(p, i, &h, opts, payload);
		if (binary_status)
			binary_status[i] = r;
		if (r != CL_SUCCESS && first == CL_SUCCESS)
			first = r;
	}
	if (first != CL_SUCCESS) {
		icd_put(p);
		ICD_RETURN_ERR(err, first, NULL);
	}
	ICD_RETURN_ERR(err, CL_SUCCESS, p);
}

/* What device @p i's binary carries after the header and options. */
static bool binary_payload(cl_program p, cl_uint i, const void **data,
			   size_t *size)
{
	const struct icd_build *b = &p->builds[i];
	struct accel_program *prog = b->prog ? b->prog : b->binary_prog;

	switch (b->binary_type) {
	case CL_PROGRAM_BINARY_TYPE_EXECUTABLE:
		/* built-in kernels have none: -ENODATA */
		return prog && accel_program_get_binary(prog, data, size) == 0;
	case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT:
	case CL_PROGRAM_BINARY_TYPE_LIBRARY:
		return b->object &&
		       accel_program_get_binary(b->object, data, size) == 0;
	default:
		return false;
	}
}

static const char *binary_options(cl_program p, cl_uint i)
{
	const struct icd_build *b = &p->builds[i];
	const char *opts = b->options ? b->options : p->binary_options;

	return opts ? opts : "";
}

size_t icd_program_binary_size(cl_program p, cl_uint i)
{
	const void *data;
	size_t size;

	if (!binary_payload(p, i, &data, &size))
		return 0;
	return sizeof(struct binary_header) + strlen(binary_options(p, i)) +
	       size;
}

void icd_program_binary_write(cl_program p, cl_uint i, unsigned char *out)
{
	struct binary_header h = { .format = BINARY_FORMAT };
	const char *opts = binary_options(p, i);
	const void *data;
	size_t size;

	if (!binary_payload(p, i, &data, &size))
		return;
	memcpy(h.magic, BINARY_MAGIC, sizeof(h.magic));
	h.binary_type = (uint32_t)p->builds[i].binary_type;
	h.options_len = strlen(opts);
	h.payload_len = size;
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), opts, h.options_len);
	memcpy(out + sizeof(h) + h.options_len, data, size);
}
