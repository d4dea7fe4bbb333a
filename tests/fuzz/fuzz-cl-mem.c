/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's memory operations: buffers (flags, host pointers, properties)
 * and sub-buffers, reads and writes (and their rect variants), copies,
 * fills, maps and unmaps. Each checks that a call which must fail (a range
 * outside its buffer, an overflowing offset + size) does, and hands the
 * call no more host memory than a valid call may touch.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-cl.h"

#define XFER_POOL (2 * MEM_CAP)
#define PATTERN_POOL 256u

static uint8_t xfer_pool[XFER_POOL];
static uint8_t use_pool[N_MEM][MEM_CAP];
static uint8_t pattern_pool[PATTERN_POOL];

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

void fcl_op_buffer_new(struct run *r)
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
	if (size > MEM_CAP && size <= fcl_g.max_alloc)
		size = size % MEM_CAP + 1;
	if ((flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ||
	    (sel & 1))
		host = (sel & 2) ? NULL : use_pool[i];
	if (sel & 4) {
		cl_mem_properties props[3] = { fz_u64(&r->in), 0, 0 };

		m = clCreateBufferWithProperties(fcl_g.ctx[ctx],
						 (sel & 8) ? NULL : props,
						 flags, size, host, &err);
	} else {
		m = clCreateBuffer(fcl_g.ctx[ctx], flags, size, host, &err);
	}
	if ((err == CL_SUCCESS) != (m != NULL))
		abort();
	if (!m)
		return;
	if (size > MEM_CAP)
		abort(); /* larger than the largest allocation */
	fcl_release_mem(r, &r->mem[i]);
	r->mem[i] = (struct mem_slot){ .m = m, .ctx = ctx, .size = size };
}

void fcl_op_sub_buffer(struct run *r)
{
	struct mem_slot *p = fcl_pick_mem(r);
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
	fcl_release_mem(r, &r->mem[i]);
	r->mem[i] = (struct mem_slot){ .m = m, .ctx = p->ctx,
				       .size = reg.size };
}

/* Does [off, off + size) lie outside a buffer of @mem_size (no overflow)? */
static bool outside(uint64_t off, uint64_t size, size_t mem_size)
{
	return off > mem_size || size > mem_size - off;
}

void fcl_op_read_write(struct run *r, bool write)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct mem_slot *m = fcl_pick_mem(r);
	uint8_t sel = fz_u8(&r->in);
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	size_t host_off = fz_u8(&r->in) * 64u;
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	cl_bool blocking = sel & 1;
	void *ptr = (sel & 2) ? NULL : xfer_pool + host_off;
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	/*
	 * The host memory must be as large as a valid call would touch;
	 * beyond it only calls that must fail (range outside the buffer).
	 */
	if (size > XFER_POOL - host_off && m->m && q &&
	    !outside(off, size, m->size))
		return;
	if (blocking)
		fcl_settle(r);
	if (write)
		err = clEnqueueWriteBuffer(q, m->m, blocking, off, size, ptr,
					   n, wait, out);
	else
		err = clEnqueueReadBuffer(q, m->m, blocking, off, size, ptr,
					  n, wait, out);
	if (err == CL_SUCCESS && outside(off, size, m->size))
		abort();
	fcl_take_event(r, out, err, tmp);
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


void fcl_op_rect(struct run *r, int kind)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct mem_slot *m = fcl_pick_mem(r), *m2 = fcl_pick_mem(r);
	uint8_t sel = fz_u8(&r->in);
	size_t bo[3], ho[3], reg[3];
	size_t brow = fz_size(&r->in), bslice = fz_size(&r->in);
	size_t hrow = fz_size(&r->in), hslice = fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n;
	cl_bool blocking = sel & 1;
	cl_int err;

	fcl_pick3(&r->in, bo);
	fcl_pick3(&r->in, ho);
	fcl_pick3(&r->in, reg);
	n = fcl_pick_wait(r, list, &wait);
	out = fcl_pick_event_out(r, &tmp);
	if (kind == 2) {
		err = clEnqueueCopyBufferRect(q, m->m, m2->m, bo, ho, reg,
					      brow, bslice, hrow, hslice, n,
					      wait, out);
	} else {
		u128 he = rect_extent(ho, reg, hrow, hslice);
		u128 be = rect_extent(bo, reg, brow, bslice);
		void *ptr = (sel & 2) ? NULL : xfer_pool;

		/* as with fcl_op_read_write: no lies about the host memory */
		if (he > XFER_POOL && be && be <= m->size && m->m && q)
			return;
		if (blocking)
			fcl_settle(r);
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
	fcl_take_event(r, out, err, tmp);
}

void fcl_op_copy(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct mem_slot *a = fcl_pick_mem(r), *b = fcl_pick_mem(r);
	uint64_t ao = fz_size(&r->in), bo = fz_size(&r->in);
	uint64_t size = fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	err = clEnqueueCopyBuffer(q, a->m, b->m, ao, bo, size, n, wait, out);
	if (err == CL_SUCCESS &&
	    (outside(ao, size, a->size) || outside(bo, size, b->size)))
		abort();
	fcl_take_event(r, out, err, tmp);
}

void fcl_op_fill(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct mem_slot *m = fcl_pick_mem(r);
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	uint8_t psel = fz_u8(&r->in);
	size_t psize = psel < 0xf0 ? (size_t)1 << (psel % 9)
				   : (size_t)fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	if (psize > PATTERN_POOL && psize <= 128)
		return; /* never: the pool holds every valid pattern */
	err = clEnqueueFillBuffer(q, m->m, (psel & 0x80) && psel >= 0xe0
				  ? NULL : pattern_pool, psize, off, size, n,
				  wait, out);
	if (err == CL_SUCCESS && outside(off, size, m->size))
		abort();
	fcl_take_event(r, out, err, tmp);
}

void fcl_op_map(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct mem_slot *m = fcl_pick_mem(r);
	struct map_slot *s = &r->map[fz_pick(&r->in, N_MAP)];
	uint8_t sel = fz_u8(&r->in);
	cl_map_flags flags = sel >> 4;
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	cl_bool blocking = sel & 1;
	cl_int err;
	uint8_t *p;

	out = fcl_pick_event_out(r, &tmp);
	if (sel & 2)
		flags = fz_u64(&r->in);
	if (blocking)
		fcl_settle(r);
	p = clEnqueueMapBuffer(q, m->m, blocking, flags, off, size, n, wait,
			       out, &err);
	if ((err == CL_SUCCESS) != (p != NULL))
		abort();
	fcl_take_event(r, out, err, tmp);
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
		if (clEnqueueUnmapMemObject(fcl_g.cleanup_queue[s->ctx], s->m,
					    s->ptr, 0, NULL, NULL))
			abort();
	}
	*s = (struct map_slot){ .m = m->m, .ctx = m->ctx, .ptr = p };
}

void fcl_op_unmap(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	struct map_slot *s = &r->map[fz_pick(&r->in, N_MAP)];
	uint8_t sel = fz_u8(&r->in);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	void *ptr = s->ptr;
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	if (sel & 1)
		/* not a mapping: must be refused */
		ptr = (void *)((uintptr_t)ptr + 1 + (sel >> 1));
	err = clEnqueueUnmapMemObject(q, s->m, ptr, n, wait, out);
	fcl_take_event(r, out, err, tmp);
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
