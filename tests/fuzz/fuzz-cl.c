/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: sequences of OpenCL calls into the ICD's entry points
 * (compiled into this program), on the CPU device.
 *
 * An input is a byte-coded program over small tables of objects (queues,
 * buffers and sub-buffers, programs, kernels, events, user events, maps);
 * operands are fuzzed, including huge and near-SIZE_MAX sizes, offsets,
 * pitches and geometry. Only calls whose outcome the specification defines
 * are made: no released object is used, host memory handed over is as
 * large as the call may touch (or the call is one that must fail), blocking
 * calls first complete every user event (else they would wait forever),
 * and work that would really run is kept tiny. Every object is released at
 * the end of the input, so LeakSanitizer and the fd check see leaks.
 *
 * Programs are built once (LLVMFuzzerInitialize); inputs make programs
 * from that binary and kernels from it, never compile.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"
#include "fuzz-fds.h"
#include "fuzz-input.h"
#include "fuzz-launch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_QUEUE 3
#define N_MEM 8
#define N_PROG 3
#define N_KERN 4
#define N_EVENT 8
#define N_MAP 8
#define N_ARGS 8

/* buffers that really get allocated are at most this large */
#define MEM_CAP 65536u
/* a bound buffer must hold what the kernels index: 16 x 4, 8 x 8 bytes */
#define KERNEL_MIN_BUFFER 64u
#define XFER_POOL (2 * MEM_CAP)
#define INFO_SIZE 65536u
#define PATTERN_POOL 256u

static const char kernel_source[] =
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

static struct {
	cl_platform_id platform;
	cl_device_id device;
	cl_context ctx[2];
	cl_command_queue cleanup_queue[2];
	cl_program built; /* from kernel_source, in ctx[0] */
	unsigned char *binary;
	size_t binary_size;
	cl_ulong max_alloc;
	cl_ulong local_mem;
	size_t max_wg;
	bool ok;
} g;

static _Atomic unsigned long callbacks_run;

struct mem_slot {
	cl_mem m;
	int ctx;
	size_t size;
};

struct map_slot {
	cl_mem m;
	int ctx;
	void *ptr;
};

struct kern_slot {
	cl_kernel k;
	int type;              /* index into kernel_args, -1 unknown */
	cl_mem bound[N_ARGS];  /* buffers set as arguments */
};

struct event_slot {
	cl_event e;
	bool user;
	bool set;             /* user event: status set */
};

struct prog_slot {
	cl_program p;
	bool source;          /* never built: that would compile */
};

struct run {
	struct fz in;
	cl_command_queue q[N_QUEUE];
	int q_ctx[N_QUEUE];
	struct mem_slot mem[N_MEM];
	struct prog_slot prog[N_PROG];
	struct kern_slot kern[N_KERN];
	struct event_slot ev[N_EVENT];
	struct map_slot map[N_MAP];
};

static uint8_t xfer_pool[XFER_POOL];
static uint8_t use_pool[N_MEM][MEM_CAP];
static uint8_t pattern_pool[PATTERN_POOL];
static uint8_t info_buf[INFO_SIZE];
static uint8_t arg_buf[256];

/* ---- initialisation ----------------------------------------------------- */

static void die(const char *what, cl_int err)
{
	fprintf(stderr, "fuzz-cl: %s failed: %d\n", what, err);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = kernel_source;
	cl_uint n = 0;
	cl_int err;
	int i;

	(void)argc;
	(void)argv;
	err = clIcdGetPlatformIDsKHR(1, &g.platform, &n);
	if (err != CL_SUCCESS || !n)
		die("clIcdGetPlatformIDsKHR", err);
	err = clGetDeviceIDs(g.platform, CL_DEVICE_TYPE_CPU, 1, &g.device,
			     NULL);
	if (err != CL_SUCCESS)
		die("clGetDeviceIDs(CPU)", err);
	for (i = 0; i < 2; i++) {
		g.ctx[i] = clCreateContext(NULL, 1, &g.device, NULL, NULL,
					   &err);
		if (err != CL_SUCCESS)
			die("clCreateContext", err);
		g.cleanup_queue[i] = clCreateCommandQueueWithProperties(
			g.ctx[i], g.device, NULL, &err);
		if (err != CL_SUCCESS)
			die("clCreateCommandQueueWithProperties", err);
	}
	g.built = clCreateProgramWithSource(g.ctx[0], 1, &src, NULL, &err);
	if (err != CL_SUCCESS)
		die("clCreateProgramWithSource", err);
	err = clBuildProgram(g.built, 1, &g.device, NULL, NULL, NULL);
	if (err != CL_SUCCESS)
		die("clBuildProgram", err);
	err = clGetProgramInfo(g.built, CL_PROGRAM_BINARY_SIZES,
			       sizeof(g.binary_size), &g.binary_size, NULL);
	if (err != CL_SUCCESS || !g.binary_size)
		die("CL_PROGRAM_BINARY_SIZES", err);
	g.binary = malloc(g.binary_size);
	if (!g.binary)
		die("malloc", 0);
	err = clGetProgramInfo(g.built, CL_PROGRAM_BINARIES,
			       sizeof(g.binary), &g.binary, NULL);
	if (err != CL_SUCCESS)
		die("CL_PROGRAM_BINARIES", err);
	if (clGetDeviceInfo(g.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
			    sizeof(g.max_alloc), &g.max_alloc, NULL) ||
	    clGetDeviceInfo(g.device, CL_DEVICE_LOCAL_MEM_SIZE,
			    sizeof(g.local_mem), &g.local_mem, NULL) ||
	    clGetDeviceInfo(g.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
			    sizeof(g.max_wg), &g.max_wg, NULL))
		die("clGetDeviceInfo", 0);
	g.ok = true;
	return 0;
}

/* ---- operands ---------------------------------------------------------- */

static cl_command_queue pick_queue(struct run *r, int *ctx)
{
	unsigned i = fz_pick(&r->in, N_QUEUE + 1);

	if (i == N_QUEUE) {
		*ctx = -1;
		return NULL;
	}
	*ctx = r->q_ctx[i];
	return r->q[i];
}

static struct mem_slot *pick_mem(struct run *r)
{
	return &r->mem[fz_pick(&r->in, N_MEM)];
}

/* A wait list of up to 4 event slots (empty slots give NULL entries). */
static cl_uint pick_wait(struct run *r, cl_event *list, const cl_event **ret)
{
	uint8_t sel = fz_u8(&r->in);
	cl_uint n = sel & 7, i;

	*ret = list;
	if (n > 4) {
		/* a count without a list, or a list without a count */
		*ret = NULL;
		return n == 7 ? 0 : n;
	}
	for (i = 0; i < n; i++)
		list[i] = r->ev[fz_pick(&r->in, N_EVENT)].e;
	if (!n && (sel & 8))
		*ret = NULL;
	return n;
}

/* Where a returned event goes: an event slot, or nowhere. */
static cl_event *pick_event_out(struct run *r, cl_event *tmp)
{
	unsigned i = fz_pick(&r->in, N_EVENT + 2);

	if (i >= N_EVENT)
		return NULL;
	*tmp = NULL;
	return tmp;
}

/*
 * Drop a slot's event. A user event is completed first: commands waiting
 * on it could never run otherwise.
 */
static void drop_event(struct event_slot *s)
{
	if (!s->e)
		return;
	if (s->user && !s->set && clSetUserEventStatus(s->e, CL_COMPLETE))
		abort();
	if (clReleaseEvent(s->e))
		abort();
	memset(s, 0, sizeof(*s));
}

static void store_event(struct run *r, cl_event e)
{
	struct event_slot *s = &r->ev[fz_pick(&r->in, N_EVENT)];

	if (!e)
		return;
	drop_event(s);
	s->e = e;
}

/*
 * After a call with an event out-parameter: an event on success, none on
 * failure, also for a blocking call whose wait list failed
 * (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST): the caller could not
 * know to release it.
 */
static void take_event(struct run *r, cl_event *out, cl_int err, cl_event e)
{
	if (!out)
		return;
	if (err == CL_SUCCESS) {
		if (!e)
			abort();
		store_event(r, e);
	} else if (e) {
		abort(); /* an event from a failed call */
	}
}

/* ---- blocking calls ---------------------------------------------------- */

/*
 * A blocking call may wait on a user event nothing will ever complete:
 * complete them all first (with a fuzzed status: success or an error).
 */
static void settle(struct run *r)
{
	int i;

	for (i = 0; i < N_EVENT; i++) {
		struct event_slot *s = &r->ev[i];

		if (s->e && s->user && !s->set) {
			cl_int st = (fz_u8(&r->in) & 1) ? CL_COMPLETE : -5;

			if (clSetUserEventStatus(s->e, st) != CL_SUCCESS)
				abort();
			s->set = true;
		}
	}
}

/* ---- releasing --------------------------------------------------------- */

static void unmap_all_of(struct run *r, cl_mem m)
{
	int i;

	for (i = 0; i < N_MAP; i++) {
		struct map_slot *s = &r->map[i];

		if (!s->ptr || (m && s->m != m))
			continue;
		if (clEnqueueUnmapMemObject(g.cleanup_queue[s->ctx], s->m,
					    s->ptr, 0, NULL, NULL))
			abort();
		memset(s, 0, sizeof(*s));
	}
}

static void release_mem(struct run *r, struct mem_slot *s)
{
	int i, j;

	if (!s->m)
		return;
	unmap_all_of(r, s->m);
	/* a kernel must not be launched with a released buffer bound */
	for (i = 0; i < N_KERN; i++) {
		for (j = 0; j < N_ARGS; j++) {
			cl_mem none = NULL;

			if (r->kern[i].bound[j] != s->m)
				continue;
			if (clSetKernelArg(r->kern[i].k, j, sizeof(none),
					   &none))
				abort();
			r->kern[i].bound[j] = NULL;
		}
	}
	if (clReleaseMemObject(s->m))
		abort();
	memset(s, 0, sizeof(*s));
}

static void release_all(struct run *r)
{
	int i;

	settle(r);
	unmap_all_of(r, NULL);
	for (i = 0; i < N_QUEUE; i++) {
		if (r->q[i] && clFinish(r->q[i]))
			abort();
	}
	for (i = 0; i < 2; i++) {
		if (clFinish(g.cleanup_queue[i]))
			abort();
	}
	for (i = 0; i < N_KERN; i++) {
		if (r->kern[i].k && clReleaseKernel(r->kern[i].k))
			abort();
		memset(&r->kern[i], 0, sizeof(r->kern[i]));
	}
	for (i = 0; i < N_MEM; i++)
		release_mem(r, &r->mem[i]);
	for (i = 0; i < N_PROG; i++) {
		if (r->prog[i].p && clReleaseProgram(r->prog[i].p))
			abort();
	}
	for (i = 0; i < N_EVENT; i++)
		drop_event(&r->ev[i]);
	for (i = 0; i < N_QUEUE; i++) {
		if (r->q[i] && clReleaseCommandQueue(r->q[i]))
			abort();
	}
}

/* ---- operations -------------------------------------------------------- */

static void op_queue_new(struct run *r)
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
		q = clCreateCommandQueue(g.ctx[ctx], g.device, props[1], &err);
	} else {
		cl_device_id dev = (sel & 0x20) ? NULL : g.device;

		q = clCreateCommandQueueWithProperties(
			g.ctx[ctx], dev, (sel & 0x40) ? NULL : props, &err);
	}
	if ((err == CL_SUCCESS) != (q != NULL))
		abort();
	if (!q)
		return;
	if (r->q[i]) {
		settle(r);
		clReleaseCommandQueue(r->q[i]);
	}
	r->q[i] = q;
	r->q_ctx[i] = ctx;
}

static cl_mem_flags pick_mem_flags(struct fz *f)
{
	static const cl_mem_flags bits[] = {
		CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY,
		CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
		CL_MEM_COPY_HOST_PTR, CL_MEM_HOST_WRITE_ONLY,
		CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS,
	};
	uint16_t sel = fz_u8(f) | (uint16_t)fz_u8(f) << 8;
	cl_mem_flags flags = 0;
	unsigned i;

	if ((sel >> 12) == 0xf)
		return fz_u64(f);
	for (i = 0; i < ICD_ARRAY_SIZE(bits); i++) {
		if (sel & (1u << i))
			flags |= bits[i];
	}
	return flags;
}

static void op_buffer_new(struct run *r)
{
	unsigned i = fz_pick(&r->in, N_MEM);
	int ctx = fz_u8(&r->in) & 1;
	cl_mem_flags flags = pick_mem_flags(&r->in);
	uint64_t size = fz_size(&r->in);
	uint8_t sel = fz_u8(&r->in);
	void *host = NULL;
	cl_int err;
	cl_mem m;

	/* really allocated only up to MEM_CAP; larger sizes must fail */
	if (size > MEM_CAP && size <= g.max_alloc)
		size = size % MEM_CAP + 1;
	if ((flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ||
	    (sel & 1))
		host = (sel & 2) ? NULL : use_pool[i];
	if (sel & 4) {
		cl_mem_properties props[3] = { fz_u64(&r->in), 0, 0 };

		m = clCreateBufferWithProperties(g.ctx[ctx],
						 (sel & 8) ? NULL : props,
						 flags, size, host, &err);
	} else {
		m = clCreateBuffer(g.ctx[ctx], flags, size, host, &err);
	}
	if ((err == CL_SUCCESS) != (m != NULL))
		abort();
	if (!m)
		return;
	if (size > MEM_CAP)
		abort(); /* larger than the largest allocation */
	release_mem(r, &r->mem[i]);
	r->mem[i] = (struct mem_slot){ .m = m, .ctx = ctx, .size = size };
}

static void op_sub_buffer(struct run *r)
{
	struct mem_slot *p = pick_mem(r);
	unsigned i = fz_pick(&r->in, N_MEM);
	cl_mem_flags flags = pick_mem_flags(&r->in);
	cl_buffer_region reg;
	cl_buffer_create_type type = CL_BUFFER_CREATE_TYPE_REGION;
	uint8_t sel = fz_u8(&r->in);
	cl_int err;
	cl_mem m;

	reg.origin = fz_size(&r->in);
	reg.size = fz_size(&r->in);
	if (sel & 1)
		type = fz_u32(&r->in);
	m = clCreateSubBuffer(p->m, flags, type, (sel & 2) ? NULL : &reg,
			      &err);
	if ((err == CL_SUCCESS) != (m != NULL))
		abort();
	if (!m)
		return;
	if (reg.origin > p->size || reg.size > p->size - reg.origin)
		abort(); /* outside the parent */
	if (&r->mem[i] == p) {
		/* keep the parent's slot; the sub-buffer is not kept */
		clReleaseMemObject(m);
		return;
	}
	release_mem(r, &r->mem[i]);
	r->mem[i] = (struct mem_slot){ .m = m, .ctx = p->ctx,
				       .size = reg.size };
}

/* Does [off, off + size) lie outside a buffer of @mem_size (no overflow)? */
static bool outside(uint64_t off, uint64_t size, size_t mem_size)
{
	return off > mem_size || size > mem_size - off;
}

static void op_read_write(struct run *r, bool write)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct mem_slot *m = pick_mem(r);
	uint8_t sel = fz_u8(&r->in);
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	size_t host_off = fz_u8(&r->in) * 64u;
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = pick_wait(r, list, &wait);
	cl_bool blocking = sel & 1;
	void *ptr = (sel & 2) ? NULL : xfer_pool + host_off;
	cl_int err;

	out = pick_event_out(r, &tmp);
	/*
	 * The host memory must be as large as a valid call would touch;
	 * beyond it only calls that must fail (range outside the buffer).
	 */
	if (size > XFER_POOL - host_off && m->m && q &&
	    !outside(off, size, m->size))
		return;
	if (blocking)
		settle(r);
	if (write)
		err = clEnqueueWriteBuffer(q, m->m, blocking, off, size, ptr,
					   n, wait, out);
	else
		err = clEnqueueReadBuffer(q, m->m, blocking, off, size, ptr,
					  n, wait, out);
	if (err == CL_SUCCESS && outside(off, size, m->size))
		abort();
	take_event(r, out, err, tmp);
}

typedef unsigned __int128 u128;
#define U128_MAX (~(u128)0)

static u128 sat_mul(u128 a, u128 b)
{
	u128 v;

	return __builtin_mul_overflow(a, b, &v) ? U128_MAX : v;
}

static u128 sat_add(u128 a, u128 b)
{
	return a + b < a ? U128_MAX : a + b;
}

/* The bytes a rectangle spans: 0 for an invalid shape (saturating). */
static u128 rect_extent(const size_t o[3], const size_t reg[3], size_t row,
			size_t slice)
{
	u128 rp, sp, v;

	if (!reg[0] || !reg[1] || !reg[2])
		return 0;
	rp = row ? row : reg[0];
	sp = slice ? slice : rp * reg[1];
	if (rp < reg[0] || sp < rp * reg[1] || (slice && sp % rp))
		return 0;
	v = sat_mul((u128)o[2] + reg[2] - 1, sp);
	v = sat_add(v, sat_mul((u128)o[1] + reg[1] - 1, rp));
	return sat_add(v, (u128)o[0] + reg[0]);
}

static void pick3(struct fz *f, size_t v[3])
{
	int i;

	for (i = 0; i < 3; i++)
		v[i] = fz_size(f);
}

static void op_rect(struct run *r, int kind)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct mem_slot *m = pick_mem(r), *m2 = pick_mem(r);
	uint8_t sel = fz_u8(&r->in);
	size_t bo[3], ho[3], reg[3];
	size_t brow = fz_size(&r->in), bslice = fz_size(&r->in);
	size_t hrow = fz_size(&r->in), hslice = fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n;
	cl_bool blocking = sel & 1;
	cl_int err;

	pick3(&r->in, bo);
	pick3(&r->in, ho);
	pick3(&r->in, reg);
	n = pick_wait(r, list, &wait);
	out = pick_event_out(r, &tmp);
	if (kind == 2) {
		err = clEnqueueCopyBufferRect(q, m->m, m2->m, bo, ho, reg,
					      brow, bslice, hrow, hslice, n,
					      wait, out);
	} else {
		u128 he = rect_extent(ho, reg, hrow, hslice);
		u128 be = rect_extent(bo, reg, brow, bslice);
		void *ptr = (sel & 2) ? NULL : xfer_pool;

		/* as with op_read_write: no lies about the host memory */
		if (he > XFER_POOL && be && be <= m->size && m->m && q)
			return;
		if (blocking)
			settle(r);
		if (kind)
			err = clEnqueueWriteBufferRect(q, m->m, blocking, bo,
						       ho, reg, brow, bslice,
						       hrow, hslice, ptr, n,
						       wait, out);
		else
			err = clEnqueueReadBufferRect(q, m->m, blocking, bo,
						      ho, reg, brow, bslice,
						      hrow, hslice, ptr, n,
						      wait, out);
		if (err == CL_SUCCESS && (!be || be > m->size || !he))
			abort();
	}
	take_event(r, out, err, tmp);
}

static void op_copy(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct mem_slot *a = pick_mem(r), *b = pick_mem(r);
	uint64_t ao = fz_size(&r->in), bo = fz_size(&r->in);
	uint64_t size = fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = pick_wait(r, list, &wait);
	cl_int err;

	out = pick_event_out(r, &tmp);
	err = clEnqueueCopyBuffer(q, a->m, b->m, ao, bo, size, n, wait, out);
	if (err == CL_SUCCESS &&
	    (outside(ao, size, a->size) || outside(bo, size, b->size)))
		abort();
	take_event(r, out, err, tmp);
}

static void op_fill(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct mem_slot *m = pick_mem(r);
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	uint8_t psel = fz_u8(&r->in);
	size_t psize = psel < 0xf0 ? (size_t)1 << (psel % 9)
				   : (size_t)fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = pick_wait(r, list, &wait);
	cl_int err;

	out = pick_event_out(r, &tmp);
	if (psize > PATTERN_POOL && psize <= 128)
		return; /* never: the pool holds every valid pattern */
	err = clEnqueueFillBuffer(q, m->m, (psel & 0x80) && psel >= 0xe0
				  ? NULL : pattern_pool, psize, off, size, n,
				  wait, out);
	if (err == CL_SUCCESS && outside(off, size, m->size))
		abort();
	take_event(r, out, err, tmp);
}

static void op_map(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct mem_slot *m = pick_mem(r);
	struct map_slot *s = &r->map[fz_pick(&r->in, N_MAP)];
	uint8_t sel = fz_u8(&r->in);
	cl_map_flags flags = sel >> 4;
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = pick_wait(r, list, &wait);
	cl_bool blocking = sel & 1;
	cl_int err;
	uint8_t *p;

	out = pick_event_out(r, &tmp);
	if (sel & 2)
		flags = fz_u64(&r->in);
	if (blocking)
		settle(r);
	p = clEnqueueMapBuffer(q, m->m, blocking, flags, off, size, n, wait,
			       out, &err);
	if ((err == CL_SUCCESS) != (p != NULL))
		abort();
	take_event(r, out, err, tmp);
	if (!p)
		return;
	if (outside(off, size, m->size))
		abort();
	if (blocking) {
		/* the mapping must span what was asked for */
		volatile uint8_t sum = 0;
		size_t i;

		for (i = 0; i < size; i++)
			sum += p[i];
		if (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
			memset(p, sum, size);
	}
	if (s->ptr) {
		if (clEnqueueUnmapMemObject(g.cleanup_queue[s->ctx], s->m,
					    s->ptr, 0, NULL, NULL))
			abort();
	}
	*s = (struct map_slot){ .m = m->m, .ctx = m->ctx, .ptr = p };
}

static void op_unmap(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct map_slot *s = &r->map[fz_pick(&r->in, N_MAP)];
	uint8_t sel = fz_u8(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = pick_wait(r, list, &wait);
	void *ptr = s->ptr;
	cl_int err;

	out = pick_event_out(r, &tmp);
	if (sel & 1)
		/* not a mapping: must be refused */
		ptr = (void *)((uintptr_t)ptr + 1 + (sel >> 1));
	err = clEnqueueUnmapMemObject(q, s->m, ptr, n, wait, out);
	take_event(r, out, err, tmp);
	if (err == CL_SUCCESS) {
		/* the same buffer may be mapped again at ptr + k */
		unsigned i;

		for (i = 0; i < N_MAP; i++) {
			if (r->map[i].ptr == ptr && r->map[i].m == s->m)
				break;
		}
		if (i == N_MAP)
			abort(); /* unmapped what is no mapping */
		memset(&r->map[i], 0, sizeof(r->map[i]));
	}
}

static void op_program_new(struct run *r)
{
	struct prog_slot *s = &r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	cl_program p = NULL;
	cl_int err = CL_SUCCESS, status = CL_SUCCESS;

	switch (sel & 3) {
	case 0: {
		/* the binary, truncated or with one byte changed */
		unsigned char *bin = malloc(g.binary_size);
		const unsigned char *bins[1] = { bin };
		size_t size = g.binary_size;
		uint32_t at = fz_u32(&r->in);

		if (!bin)
			abort();
		memcpy(bin, g.binary, size);
		if (sel & 4)
			size = at % size;
		if (sel & 8)
			bin[at % g.binary_size] ^= fz_u8(&r->in) | 1;
		p = clCreateProgramWithBinary(g.ctx[0], 1, &g.device, &size,
					      bins, (sel & 16) ? &status : NULL,
					      &err);
		free(bin);
		break;
	}
	case 1: {
		const char *src[2] = { kernel_source, "kernel void x(" };
		size_t len[2] = { fz_size(&r->in), 0 };
		cl_uint count = 1 + ((sel >> 2) & 1);

		if (!(sel & 8) || len[0] > sizeof(kernel_source))
			len[0] = 0;
		p = clCreateProgramWithSource(g.ctx[0], count, src,
					      (sel & 16) ? len : NULL, &err);
		break;
	}
	case 2: {
		char names[32];

		fz_bytes(&r->in, names, sizeof(names) - 1);
		names[sizeof(names) - 1] = 0;
		p = clCreateProgramWithBuiltInKernels(g.ctx[0], 1, &g.device,
						      names, &err);
		break;
	}
	default:
		if (clRetainProgram(g.built))
			abort();
		p = g.built;
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

static void op_program_build(struct run *r)
{
	struct prog_slot *s = &r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	char opts[16];

	if (s->source)
		return; /* would compile */
	fz_bytes(&r->in, opts, sizeof(opts) - 1);
	opts[sizeof(opts) - 1] = 0;
	clBuildProgram(s->p, (sel & 1) ? 0 : 1, (sel & 2) ? NULL : &g.device,
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

static void op_kernel_new(struct run *r)
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

static void op_kernel_arg(struct run *r)
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
		struct mem_slot *m = pick_mem(r);

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
		if (size > 4096 && size <= g.local_mem)
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

static void op_ndrange(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	struct kern_slot *k = &r->kern[fz_pick(&r->in, N_KERN)];
	uint8_t sel = fz_u8(&r->in);
	cl_uint dim = (sel & 0x80) ? fz_u32(&r->in) : 1 + sel % 4;
	size_t off[3], gs[3], ls[3];
	bool overflow;
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n;
	cl_int err;

	pick3(&r->in, off);
	pick3(&r->in, gs);
	pick3(&r->in, ls);
	n = pick_wait(r, list, &wait);
	out = pick_event_out(r, &tmp);
	if (k->k && k->type < 0)
		return; /* a built-in kernel: its buffers' needs are unknown */
	/*
	 * A launch that may be valid really runs: keep it tiny. One whose
	 * passed offset + size overflows, or whose group is larger than
	 * any device's, must fail; those keep their huge values. (A huge
	 * one left running on a released queue would hold the device's
	 * workers for good: every later input's finish hung behind it.)
	 */
	overflow = fz_launch_shape(sel, dim, off, gs, ls, g.max_wg);
	if (sel & 0x40) {
		if (sel & 0x10)
			settle(r);
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
	take_event(r, out, err, tmp);
}

static void op_marker(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	uint8_t sel = fz_u8(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = pick_wait(r, list, &wait);
	cl_int err;

	out = pick_event_out(r, &tmp);
	switch (sel & 3) {
	case 0:
		err = clEnqueueMarkerWithWaitList(q, n, wait, out);
		break;
	case 1:
		err = clEnqueueBarrierWithWaitList(q, n, wait, out);
		break;
	case 2:
		err = clEnqueueWaitForEvents(q, n, wait);
		out = NULL; /* it returns no event */
		break;
	default:
		err = clEnqueueMarker(q, out);
		break;
	}
	take_event(r, out, err, tmp);
}

static void op_sync(struct run *r)
{
	int qctx;
	cl_command_queue q = pick_queue(r, &qctx);
	uint8_t sel = fz_u8(&r->in);
	cl_event list[4];
	const cl_event *wait;
	cl_uint n;

	switch (sel & 3) {
	case 0:
		clFlush(q);
		break;
	case 1:
		settle(r);
		clFinish(q);
		break;
	default:
		n = pick_wait(r, list, &wait);
		settle(r);
		clWaitForEvents(n, wait);
		break;
	}
}

static void CL_CALLBACK event_cb(cl_event e, cl_int status, void *data)
{
	(void)e;
	(void)status;
	(void)data;
	atomic_fetch_add(&callbacks_run, 1);
}

static void CL_CALLBACK mem_cb(cl_mem m, void *data)
{
	(void)m;
	(void)data;
	atomic_fetch_add(&callbacks_run, 1);
}

static void op_event(struct run *r)
{
	struct event_slot *s = &r->ev[fz_pick(&r->in, N_EVENT)];
	uint8_t sel = fz_u8(&r->in);
	cl_int err, st;

	switch (sel & 3) {
	case 0: { /* a user event, in either context */
		cl_event e = clCreateUserEvent(g.ctx[(sel >> 2) & 1], &err);

		if ((err == CL_SUCCESS) != (e != NULL))
			abort();
		if (!e)
			return;
		drop_event(s);
		*s = (struct event_slot){ .e = e, .user = true };
		return;
	}
	case 1: /* set its status: CL_COMPLETE, an error, or invalid */
		st = (sel & 4) ? CL_COMPLETE : (sel & 8) ? -(int)(sel >> 4) - 1
							 : (cl_int)fz_u32(&r->in);
		err = clSetUserEventStatus(s->e, st);
		if (err == CL_SUCCESS) {
			if (!s->user || s->set || st > 0)
				abort();
			s->set = true;
		}
		return;
	case 2:
		clSetEventCallback(s->e, (sel & 4) ? CL_COMPLETE
				   : (sel & 8) ? CL_SUBMITTED
				   : (cl_int)fz_u32(&r->in),
				   (sel & 0x10) ? NULL : event_cb, NULL);
		return;
	default:
		if (s->e) {
			clRetainEvent(s->e);
			clReleaseEvent(s->e);
			if (sel & 4)
				drop_event(s);
		}
		return;
	}
}

/* An info query: a known name or any number, any size up to INFO_SIZE. */
static void op_info(struct run *r)
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
		clGetMemObjectInfo(pick_mem(r)->m, name, size, val, retp);
		break;
	case 1:
		clGetKernelInfo(k->k, name, size, val, retp);
		break;
	case 2:
		clGetKernelWorkGroupInfo(k->k, (sel & 8) ? NULL : g.device,
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
				      (sel & 8) ? NULL : g.device, name, size,
				      val, retp);
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
		clGetCommandQueueInfo(pick_queue(r, &qctx), name, size, val,
				      retp);
		break;
	}
}

static void op_release(struct run *r)
{
	uint8_t sel = fz_u8(&r->in);
	unsigned i = fz_pick(&r->in, N_MEM);

	switch (sel & 3) {
	case 0:
		if (sel & 4)
			clSetMemObjectDestructorCallback(r->mem[i].m,
				(sel & 8) ? NULL : mem_cb, NULL);
		else
			release_mem(r, &r->mem[i]);
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
			settle(r);
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
static void op_context(struct run *r)
{
	uint8_t sel = fz_u8(&r->in);
	cl_context_properties props[5] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)g.platform, 0, 0, 0
	};
	cl_device_id devs[2] = { g.device, NULL };
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r = { .in = { data, size } };

	if (!g.ok)
		abort();
	while (fz_more(&r.in)) {
		switch (fz_u8(&r.in) % 19) {
		case 0: op_queue_new(&r); break;
		case 1: op_buffer_new(&r); break;
		case 2: op_sub_buffer(&r); break;
		case 3: op_read_write(&r, false); break;
		case 4: op_read_write(&r, true); break;
		case 5: op_rect(&r, fz_u8(&r.in) % 3); break;
		case 6: op_copy(&r); break;
		case 7: op_fill(&r); break;
		case 8: op_map(&r); break;
		case 9: op_unmap(&r); break;
		case 10: op_program_new(&r); break;
		case 11: op_program_build(&r); break;
		case 12: op_kernel_new(&r); break;
		case 13: op_kernel_arg(&r); break;
		case 14: op_ndrange(&r); break;
		case 15: op_marker(&r); break;
		case 16: op_sync(&r); break;
		case 17: op_event(&r); break;
		default:
			switch (fz_u8(&r.in) % 3) {
			case 0: op_info(&r); break;
			case 1: op_release(&r); break;
			default: op_context(&r); break;
			}
			break;
		}
	}
	release_all(&r);
	fz_check_fds("fuzz-cl");
	return 0;
}
