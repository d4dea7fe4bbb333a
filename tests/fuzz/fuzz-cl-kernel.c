/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's programs, kernels and launches: the kernel source built once
 * and what each kernel's arguments are, programs from its binary (intact,
 * truncated or corrupted), from source or built-in names, kernels and
 * clones, their arguments, and NDRange launches and tasks whose geometry
 * fuzz-launch.h keeps tiny unless the launch must fail.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-cl.h"
#include "fuzz-launch.h"

/* built once by LLVMFuzzerInitialize (fuzz-cl.c): inputs use its binary */
const char fcl_kernel_source[] =
	"typedef struct { int a; float b; } S;\n"
	"kernel void k_fill(global uint *o, uint v)\n"
	"{ if (o) o[get_global_id(0) % 16] = v + (uint)get_global_id(1); }\n"
	"kernel void k_mix(global int *o, local int *t, S s, float4 v,\n"
	"		  constant int *c)\n"
	"{\n"
	"	t[get_local_id(0) % 16] = s.a + (int)v.x;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (o)\n"
	"		o[get_global_id(0) % 16] = t[0] +\n"
	"			(c ? c[get_global_id(2) % 16] : 0);\n"
	"}\n"
	"kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
	"void k_reqd(global long *o)\n"
	"{ if (o) o[get_local_id(0) % 8] = get_global_size(0); }\n"
	"kernel void k_empty(void) {}\n";

static const char *const kernel_names[] = {
	"k_fill", "k_mix", "k_reqd", "k_empty", "", "k_", "k_fill ",
};

/* Argument kinds of each kernel, by name: b buffer, l local, v value. */
static const struct {
	const char *name;
	const char *kinds;
	size_t sizes[N_ARGS];
} kernel_args[] = {
	{ "k_fill", "bv", { sizeof(cl_mem), 4 } },
	{ "k_mix", "blvvb", { sizeof(cl_mem), 0, 8, 16, sizeof(cl_mem) } },
	{ "k_reqd", "b", { sizeof(cl_mem) } },
	{ "k_empty", "", { 0 } },
};

static uint8_t arg_buf[256];

void fcl_op_program_new(struct run *r)
{
	struct prog_slot *s = &r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	cl_program p = NULL;
	cl_int err = CL_SUCCESS, status = CL_SUCCESS;

	switch (sel & 3) {
	case 0: {
		/* the binary, truncated or with one byte changed */
		unsigned char *bin = malloc(fcl_g.binary_size);
		const unsigned char *bins[1] = { bin };
		size_t size = fcl_g.binary_size;
		uint32_t at = fz_u32(&r->in);

		if (!bin)
			abort();
		memcpy(bin, fcl_g.binary, size);
		if (sel & 4)
			size = at % size;
		if (sel & 8)
			bin[at % fcl_g.binary_size] ^= fz_u8(&r->in) | 1;
		p = clCreateProgramWithBinary(fcl_g.ctx[0], 1, &fcl_g.device,
					      &size, bins,
					      (sel & 16) ? &status : NULL,
					      &err);
		free(bin);
		break;
	}
	case 1: {
		const char *src[2] = { fcl_kernel_source, "kernel void x(" };
		size_t len[2] = { fz_size(&r->in), 0 };
		cl_uint count = 1 + ((sel >> 2) & 1);

		if (!(sel & 8) || len[0] > sizeof(fcl_kernel_source))
			len[0] = 0;
		p = clCreateProgramWithSource(fcl_g.ctx[0], count, src,
					      (sel & 16) ? len : NULL, &err);
		break;
	}
	case 2: {
		char names[32];

		fz_bytes(&r->in, names, sizeof(names) - 1);
		names[sizeof(names) - 1] = 0;
		p = clCreateProgramWithBuiltInKernels(fcl_g.ctx[0], 1,
						      &fcl_g.device, names,
						      &err);
		break;
	}
	default:
		if (clRetainProgram(fcl_g.built))
			abort();
		p = fcl_g.built;
		break;
	}
	if ((err == CL_SUCCESS) != (p != NULL))
		abort();
	if (!p)
		return;
	if (s->p && clReleaseProgram(s->p))
		abort();
	s->p = p;
	/* from source, or the one built from it: building would compile */
	s->source = (sel & 3) == 1 || (sel & 3) == 3;
}

void fcl_op_program_build(struct run *r)
{
	struct prog_slot *s = &r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	char opts[16];

	if (s->source)
		return; /* would compile */
	fz_bytes(&r->in, opts, sizeof(opts) - 1);
	opts[sizeof(opts) - 1] = 0;
	clBuildProgram(s->p, (sel & 1) ? 0 : 1,
		       (sel & 2) ? NULL : &fcl_g.device,
		       (sel & 4) ? opts : NULL, NULL, NULL);
}

static int kernel_type(const char *name)
{
	unsigned i;

	for (i = 0; i < ICD_ARRAY_SIZE(kernel_args); i++) {
		if (!strcmp(kernel_args[i].name, name))
			return i;
	}
	return -1;
}

static void set_kernel(struct kern_slot *s, cl_kernel k)
{
	char name[32] = "";

	if (s->k && clReleaseKernel(s->k))
		abort();
	memset(s, 0, sizeof(*s));
	s->k = k;
	clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL);
	s->type = kernel_type(name);
}

void fcl_op_kernel_new(struct run *r)
{
	struct prog_slot *p = &r->prog[fz_pick(&r->in, N_PROG)];
	struct kern_slot *s = &r->kern[fz_pick(&r->in, N_KERN)];
	uint8_t sel = fz_u8(&r->in);
	cl_kernel k = NULL;
	cl_int err = CL_SUCCESS;

	if (sel & 1) {
		cl_kernel ks[N_KERN] = { NULL };
		cl_uint n = 0, i, want = (sel >> 1) % (N_KERN + 1);

		err = clCreateKernelsInProgram(p->p, want, (sel & 0x80) ? NULL
								       : ks,
					       &n);
		if (err != CL_SUCCESS)
			return;
		for (i = 0; i < n && i < want && !(sel & 0x80); i++)
			set_kernel(&r->kern[i], ks[i]);
		return;
	}
	if (sel & 2) {
		struct kern_slot *from = &r->kern[fz_pick(&r->in, N_KERN)];
		cl_mem bound[N_ARGS];

		k = clCloneKernel(from->k, &err);
		if ((err == CL_SUCCESS) != (k != NULL))
			abort();
		if (!k)
			return;
		memcpy(bound, from->bound, sizeof(bound));
		set_kernel(s, k);
		memcpy(s->bound, bound, sizeof(bound));
		return;
	}
	k = clCreateKernel(p->p, kernel_names[(sel >> 2) %
					      ICD_ARRAY_SIZE(kernel_names)],
			   &err);
	if ((err == CL_SUCCESS) != (k != NULL))
		abort();
	if (k)
		set_kernel(s, k);
}

void fcl_op_kernel_arg(struct run *r)
{
	struct kern_slot *s = &r->kern[fz_pick(&r->in, N_KERN)];
	uint8_t sel = fz_u8(&r->in);
	cl_uint idx = (sel & 0x80) ? fz_u32(&r->in) : sel % N_ARGS;
	char kind = 0;
	size_t size;

	if (s->type >= 0 && idx < strlen(kernel_args[s->type].kinds))
		kind = kernel_args[s->type].kinds[idx];
	switch ((sel >> 4) & 3) {
	case 0: { /* a buffer from a slot (or none) */
		struct mem_slot *m = fcl_pick_mem(r);

		if (m->m && m->size < KERNEL_MIN_BUFFER)
			return; /* the kernels would index past its end */
		if (clSetKernelArg(s->k, idx, sizeof(cl_mem), &m->m) ==
		    CL_SUCCESS && idx < N_ARGS)
			s->bound[idx] = m->m;
		return;
	}
	case 1: /* local memory */
		size = fz_size(&r->in);
		if (kind == 'l' && size && size < KERNEL_MIN_BUFFER)
			size = KERNEL_MIN_BUFFER;
		/* a size that fits runs for real: keep it small */
		if (size > 4096 && size <= fcl_g.local_mem)
			size = 4096;
		clSetKernelArg(s->k, idx, size, NULL);
		return;
	default: /* bytes; never a made-up memory object */
		size = (sel & 0x40) ? fz_size(&r->in) : fz_u8(&r->in) % 24;
		if (size > sizeof(arg_buf))
			return;
		fz_bytes(&r->in, arg_buf, size);
		if (kind == 'b' && size == sizeof(cl_mem)) {
			memset(arg_buf, 0, sizeof(cl_mem));
			if (clSetKernelArg(s->k, idx, size, arg_buf) ==
			    CL_SUCCESS)
				s->bound[idx] = NULL;
			return;
		}
		if (kind == 'b')
			return;
		if (kind == 0 && size == sizeof(cl_mem) && s->k)
			return; /* unknown kernel, maybe a buffer */
		clSetKernelArg(s->k, idx, size, (sel & 8) ? NULL : arg_buf);
		return;
	}
}

void fcl_op_ndrange(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct kern_slot *k = &r->kern[fz_pick(&r->in, N_KERN)];
	uint8_t sel = fz_u8(&r->in);
	cl_uint dim = (sel & 0x80) ? fz_u32(&r->in) : 1 + sel % 4;
	size_t off[3], gs[3], ls[3];
	bool overflow;
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n;
	cl_int err;

	fcl_pick3(&r->in, off);
	fcl_pick3(&r->in, gs);
	fcl_pick3(&r->in, ls);
	n = fcl_pick_wait(r, list, &wait);
	out = fcl_pick_event_out(r, &tmp);
	if (k->k && k->type < 0)
		return; /* a built-in kernel: its buffers' needs are unknown */
	/*
	 * A launch that may be valid really runs: keep it tiny. One whose
	 * passed offset + size overflows, or whose group is larger than
	 * any device's, must fail; those keep their huge values. (A huge
	 * one left running on a released queue would hold the device's
	 * workers for good: every later input's finish hung behind it.)
	 */
	overflow = fz_launch_shape(sel, dim, off, gs, ls, fcl_g.max_wg);
	if (sel & 0x40) {
		if (sel & 0x10)
			fcl_settle(r);
		err = clEnqueueTask(q, k->k, n, wait, out);
	} else {
		err = clEnqueueNDRangeKernel(
			q, k->k, dim, (sel & FZ_LAUNCH_NO_OFFSET) ? NULL : off,
			(sel & FZ_LAUNCH_NO_GLOBAL) ? NULL : gs,
			(sel & FZ_LAUNCH_NO_LOCAL) ? NULL : ls, n, wait, out);
		/* with no global size, nothing overflows: an empty launch */
		if (err == CL_SUCCESS && overflow &&
		    !(sel & FZ_LAUNCH_NO_GLOBAL))
			abort();
	}
	fcl_take_event(r, out, err, tmp);
}
