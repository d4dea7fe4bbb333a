/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's shared virtual memory operations: clSVMAlloc() with fuzzed
 * flags, sizes and alignments (a refusal is NULL; an allocation honours
 * its alignment), copies, fills, maps, unmaps and migrations on ranges
 * inside the run's allocations (what a valid program may touch) with
 * fuzzed sizes, patterns and wait lists, SVM kernel arguments, and frees,
 * plain and enqueued. A call that must fail (an overlapping copy, a
 * misaligned fill) must not succeed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-cl.h"

/* what a kernel given an SVM argument may index: never freed */
static _Alignas(128) uint8_t arg_pool[256];
static uint8_t pattern_pool[128];

static cl_svm_mem_flags pick_svm_flags(struct fz *f)
{
	static const cl_svm_mem_flags bits[] = {
		CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY,
		CL_MEM_SVM_FINE_GRAIN_BUFFER, CL_MEM_SVM_ATOMICS,
	};
	uint8_t sel = fz_u8(f);
	cl_svm_mem_flags flags = 0;

	if (sel >= 0xf0)
		return fz_u64(f);
	for (unsigned i = 0; i < ICD_ARRAY_SIZE(bits); i++)
		if (sel & (1u << i))
			flags |= bits[i];
	return flags;
}

/* Nothing queued may still use the memory a free takes away. */
static void quiesce(struct run *r)
{
	fcl_settle(r);
	for (int i = 0; i < N_QUEUE; i++)
		if (r->q[i] && clFinish(r->q[i]))
			abort();
}

void fcl_release_svm(struct run *r, struct svm_slot *s)
{
	if (!s->ptr)
		return;
	clSVMFree(fcl_g.ctx[s->ctx], s->ptr);
	memset(s, 0, sizeof(*s));
}

static void svm_alloc(struct run *r)
{
	struct svm_slot *s = &r->svm[fz_pick(&r->in, N_SVM)];
	int ctx = fz_u8(&r->in) & 1;
	cl_svm_mem_flags flags = pick_svm_flags(&r->in);
	uint64_t size = fz_size(&r->in);
	uint8_t asel = fz_u8(&r->in);
	cl_uint align = asel < 0xf0 ? 1u << (asel % 24) : fz_u32(&r->in);
	void *p;

	/* really allocated only up to MEM_CAP; larger sizes must fail */
	if (size > MEM_CAP && size <= fcl_g.max_alloc)
		size = size % MEM_CAP + 1;
	if (size > SIZE_MAX)
		return;
	p = clSVMAlloc(fcl_g.ctx[ctx], flags, (size_t)size, align);
	if (!p)
		return;
	if (size == 0 || size > fcl_g.max_alloc || (align & (align - 1)) ||
	    (uintptr_t)p % (align ? align : 1))
		abort();
	memset(p, 0x5a, (size_t)size); /* all of it is ours */
	quiesce(r);
	fcl_release_svm(r, s);
	s->ptr = p;
	s->ctx = ctx;
	s->size = (size_t)size;
}

/* A range inside an allocation (or the whole arg pool), or NULL. */
static uint8_t *pick_range(struct run *r, size_t *len)
{
	struct svm_slot *s = &r->svm[fz_pick(&r->in, N_SVM + 1)];
	uint8_t *base = s < r->svm + N_SVM ? s->ptr : arg_pool;
	size_t size = s < r->svm + N_SVM ? s->size : sizeof(arg_pool);
	size_t off;

	if (!base) {
		*len = fz_size(&r->in) & 0xff;
		return NULL;
	}
	off = (size_t)(fz_size(&r->in) % size);
	*len = (size_t)(fz_size(&r->in) % (size - off + 1));
	return base + off;
}

static void svm_copy_fill(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	uint8_t sel = fz_u8(&r->in);
	size_t dlen, slen;
	uint8_t *dst = pick_range(r, &dlen), *src = pick_range(r, &slen);
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	if (sel & 1) {
		size_t len = dlen < slen ? dlen : slen;
		bool overlap = dst && src && len &&
			       dst < src + len && src < dst + len;

		if (sel & 2)
			fcl_settle(r);
		err = clEnqueueSVMMemcpy(q, sel & 2, dst, src, len, n, wait,
					 out);
		if (err == CL_SUCCESS && (overlap || !dst || !src))
			abort();
	} else {
		size_t psize = (sel >> 1) < 0x70 ? (size_t)1 << ((sel >> 1) % 8)
						 : (size_t)fz_size(&r->in);
		size_t len = dlen;

		if (psize > sizeof(pattern_pool) && psize <= 128)
			return;
		if (sel & 0x80)
			len -= len % (psize ? psize : 1);
		err = clEnqueueSVMMemFill(q, dst, pattern_pool, psize, len, n,
					  wait, out);
		if (err == CL_SUCCESS &&
		    (!dst || !psize || psize > 128 || (psize & (psize - 1)) ||
		     (uintptr_t)dst % psize || len % psize))
			abort();
	}
	fcl_take_event(r, out, err, tmp);
}

static void svm_map(struct run *r)
{
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	uint8_t sel = fz_u8(&r->in);
	size_t len;
	uint8_t *p = pick_range(r, &len);
	cl_map_flags flags = (sel & 0x80) ? fz_u64(&r->in) : (sel >> 4) & 7;
	cl_event list[4], tmp, *out;
	const cl_event *wait;
	cl_uint n = fcl_pick_wait(r, list, &wait);
	const void *ptrs[2] = { p, arg_pool };
	cl_int err;

	out = fcl_pick_event_out(r, &tmp);
	switch (sel % 3) {
	case 0:
		if (sel & 8)
			fcl_settle(r);
		err = clEnqueueSVMMap(q, sel & 8, flags, p, len, n, wait, out);
		if (err == CL_SUCCESS && (!p || !len))
			abort();
		break;
	case 1:
		err = clEnqueueSVMUnmap(q, p, n, wait, out);
		break;
	default:
		err = clEnqueueSVMMigrateMem(q, (sel >> 3) % 3, ptrs, NULL,
					     flags & 3, n, wait, out);
		break;
	}
	fcl_take_event(r, out, err, tmp);
}

static void svm_free(struct run *r)
{
	struct svm_slot *s = &r->svm[fz_pick(&r->in, N_SVM)];
	uint8_t sel = fz_u8(&r->in);
	int qctx;
	cl_command_queue q = fcl_pick_queue(r, &qctx);
	void *ptrs[1];

	quiesce(r);
	/* a queue of the allocation's own context frees it */
	if (!(sel & 1) || !s->ptr || qctx != s->ctx) {
		fcl_release_svm(r, s);
		return;
	}
	/* enqueued: the queue frees it; the slot lets go now */
	ptrs[0] = s->ptr;
	if (clEnqueueSVMFree(q, 1, ptrs, NULL, NULL, 0, NULL, NULL) ==
	    CL_SUCCESS) {
		if (clFinish(q))
			abort();
		memset(s, 0, sizeof(*s));
	} else {
		fcl_release_svm(r, s);
	}
}

/* An SVM pointer argument: the arg pool, which kernels may index. */
static void svm_kernel_arg(struct run *r)
{
	struct kern_slot *k = &r->kern[fz_pick(&r->in, N_KERN)];
	cl_uint index = fz_u8(&r->in) % (N_ARGS + 1);
	cl_int err;

	err = clSetKernelArgSVMPointer(k->k, index, arg_pool);
	if (err == CL_SUCCESS && index < N_ARGS)
		k->bound[index] = NULL;
}

void fcl_op_svm(struct run *r)
{
	switch (fz_u8(&r->in) % 5) {
	case 0: svm_alloc(r); break;
	case 1: svm_copy_fill(r); break;
	case 2: svm_map(r); break;
	case 3: svm_free(r); break;
	default: svm_kernel_arg(r); break;
	}
}
