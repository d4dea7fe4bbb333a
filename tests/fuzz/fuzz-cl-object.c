/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's operations on objects as such: queues made with fuzzed
 * properties, info queries over every kind of object, releases (a buffer
 * is first unbound from every kernel) and contexts that must not be made.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-cl.h"

#define INFO_SIZE 65536u

static uint8_t info_buf[INFO_SIZE];

void fcl_op_queue_new(struct run *r)
{
	unsigned i = fz_pick(&r->in, N_QUEUE);
	int ctx = fz_u8(&r->in) & 1;
	cl_queue_properties props[7] = { 0 };
	uint8_t sel = fz_u8(&r->in);
	cl_command_queue q;
	cl_int err;

	switch (sel & 3) {
	case 0:
		break;
	case 1:
		props[0] = CL_QUEUE_PROPERTIES;
		props[1] = (sel & 4 ? CL_QUEUE_PROFILING_ENABLE : 0) |
			   (sel & 8 ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
				    : 0);
		break;
	case 2:
		props[0] = CL_QUEUE_PROPERTIES;
		props[1] = fz_u64(&r->in);
		props[2] = CL_QUEUE_SIZE;
		props[3] = fz_size(&r->in);
		break;
	default:
		props[0] = fz_u32(&r->in);
		props[1] = fz_u64(&r->in);
		props[2] = CL_QUEUE_PROPERTIES;
		props[3] = 0;
		break;
	}
	if (sel & 0x10) {
		q = clCreateCommandQueue(fcl_g.ctx[ctx], fcl_g.device, props[1],
					 &err);
	} else {
		cl_device_id dev = (sel & 0x20) ? NULL : fcl_g.device;

		q = clCreateCommandQueueWithProperties(
			fcl_g.ctx[ctx], dev, (sel & 0x40) ? NULL : props, &err);
	}
	if ((err == CL_SUCCESS) != (q != NULL))
		abort();
	if (!q)
		return;
	if (r->q[i]) {
		fcl_settle(r);
		clReleaseCommandQueue(r->q[i]);
	}
	r->q[i] = q;
	r->q_ctx[i] = ctx;
}

/* An info query: a known name or any number, any size up to INFO_SIZE. */
void fcl_op_info(struct run *r)
{
	static const cl_uint names[] = {
		CL_MEM_TYPE, CL_MEM_FLAGS, CL_MEM_SIZE, CL_MEM_HOST_PTR,
		CL_MEM_MAP_COUNT, CL_MEM_REFERENCE_COUNT, CL_MEM_CONTEXT,
		CL_MEM_ASSOCIATED_MEMOBJECT, CL_MEM_OFFSET,
		CL_MEM_USES_SVM_POINTER, CL_MEM_PROPERTIES,
		CL_KERNEL_FUNCTION_NAME, CL_KERNEL_NUM_ARGS,
		CL_KERNEL_ATTRIBUTES, CL_KERNEL_PROGRAM,
		CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
		CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_PRIVATE_MEM_SIZE,
		CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
		CL_KERNEL_GLOBAL_WORK_SIZE, CL_KERNEL_ARG_NAME,
		CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
		CL_KERNEL_ARG_ACCESS_QUALIFIER, CL_KERNEL_ARG_TYPE_QUALIFIER,
		CL_PROGRAM_NUM_DEVICES, CL_PROGRAM_SOURCE,
		CL_PROGRAM_BINARY_SIZES, CL_PROGRAM_BINARIES,
		CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES,
		CL_PROGRAM_IL, CL_PROGRAM_BUILD_STATUS,
		CL_PROGRAM_BUILD_LOG, CL_PROGRAM_BUILD_OPTIONS,
		CL_PROGRAM_BINARY_TYPE, CL_EVENT_COMMAND_QUEUE,
		CL_EVENT_COMMAND_TYPE, CL_EVENT_COMMAND_EXECUTION_STATUS,
		CL_EVENT_REFERENCE_COUNT, CL_EVENT_CONTEXT,
		CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_END,
		CL_PROFILING_COMMAND_COMPLETE, CL_QUEUE_CONTEXT,
		CL_QUEUE_DEVICE, CL_QUEUE_PROPERTIES,
		CL_QUEUE_PROPERTIES_ARRAY, CL_QUEUE_SIZE,
		CL_QUEUE_DEVICE_DEFAULT, CL_QUEUE_REFERENCE_COUNT,
	};
	uint8_t sel = fz_u8(&r->in);
	cl_uint name = (sel & 0x80) ? fz_u32(&r->in)
				    : names[fz_pick(&r->in,
						    ICD_ARRAY_SIZE(names))];
	size_t size = fz_size(&r->in) % (INFO_SIZE + 1);
	void *val = (sel & 0x40) ? NULL : info_buf;
	size_t ret, *retp = (sel & 0x20) ? NULL : &ret;
	cl_uint arg = fz_u8(&r->in) % 10;
	struct kern_slot *k = &r->kern[fz_pick(&r->in, N_KERN)];
	int qctx;

	memset(info_buf, 0, sizeof(info_buf));
	switch (sel & 7) {
	case 0:
		clGetMemObjectInfo(fcl_pick_mem(r)->m, name, size, val, retp);
		break;
	case 1:
		clGetKernelInfo(k->k, name, size, val, retp);
		break;
	case 2:
		clGetKernelWorkGroupInfo(k->k, (sel & 8) ? NULL : fcl_g.device,
					 name, size, val, retp);
		break;
	case 3:
		clGetKernelArgInfo(k->k, arg, name, size, val, retp);
		break;
	case 4:
		clGetProgramInfo(r->prog[fz_pick(&r->in, N_PROG)].p, name,
				 size, val, retp);
		break;
	case 5:
		clGetProgramBuildInfo(r->prog[fz_pick(&r->in, N_PROG)].p,
				      (sel & 8) ? NULL : fcl_g.device, name,
				      size, val, retp);
		break;
	case 6: {
		struct event_slot *e = &r->ev[fz_pick(&r->in, N_EVENT)];

		if (sel & 8)
			clGetEventProfilingInfo(e->e, name, size, val, retp);
		else
			clGetEventInfo(e->e, name, size, val, retp);
		break;
	}
	default:
		clGetCommandQueueInfo(fcl_pick_queue(r, &qctx), name, size, val,
				      retp);
		break;
	}
}

static void CL_CALLBACK mem_cb(cl_mem m, void *data)
{
	(void)m;
	(void)data;
	atomic_fetch_add(&fcl_callbacks_run, 1);
}

void fcl_op_release(struct run *r)
{
	uint8_t sel = fz_u8(&r->in);
	unsigned i = fz_pick(&r->in, N_MEM);

	switch (sel & 3) {
	case 0:
		if (sel & 4)
			clSetMemObjectDestructorCallback(r->mem[i].m,
				(sel & 8) ? NULL : mem_cb, NULL);
		else
			fcl_release_mem(r, &r->mem[i]);
		break;
	case 1:
		i %= N_KERN;
		if (r->kern[i].k && clReleaseKernel(r->kern[i].k))
			abort();
		memset(&r->kern[i], 0, sizeof(r->kern[i]));
		break;
	case 2:
		i %= N_PROG;
		/* kernels keep their program */
		if (r->prog[i].p && clReleaseProgram(r->prog[i].p))
			abort();
		memset(&r->prog[i], 0, sizeof(r->prog[i]));
		break;
	default:
		i %= N_QUEUE;
		if (r->q[i]) {
			fcl_settle(r);
			if (clReleaseCommandQueue(r->q[i]))
				abort();
			r->q[i] = NULL;
		}
		break;
	}
}

static void CL_CALLBACK ctx_cb(const char *msg, const void *info, size_t cb,
			      void *data)
{
	(void)msg;
	(void)info;
	(void)cb;
	(void)data;
}

/* Only contexts that cannot be made: a context costs worker threads. */
void fcl_op_context(struct run *r)
{
	uint8_t sel = fz_u8(&r->in);
	cl_context_properties props[5] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)fcl_g.platform,
		0, 0, 0
	};
	cl_device_id devs[2] = { fcl_g.device, NULL };
	cl_uint ndev = 1;
	void (CL_CALLBACK *fn)(const char *, const void *, size_t, void *) =
		(sel & 0x10) ? ctx_cb : NULL;
	void *data = NULL;
	cl_context c;
	cl_int err;

	switch (sel % 6) {
	case 0:
		props[1] = 0;                   /* no platform */
		break;
	case 1:
		props[2] = 0x7fff0000 | fz_u8(&r->in); /* no such property */
		props[3] = fz_u64(&r->in);
		break;
	case 2:
		props[2] = CL_CONTEXT_PLATFORM; /* twice */
		props[3] = props[1];
		break;
	case 3:
		ndev = 0;
		break;
	case 4:
		ndev = 2;                       /* a NULL device */
		break;
	default:
		fn = NULL;                      /* user data, no callback */
		data = &err;
		break;
	}
	c = clCreateContext(props, ndev,
			    (sel & 0x40) ? NULL : devs, fn, data, &err);
	if (c || err == CL_SUCCESS)
		abort();
}
