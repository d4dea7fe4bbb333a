/* SPDX-License-Identifier: MIT */
/*
 * fuzz-accel's memory operations: buffers (plain, over caller memory,
 * sub-buffers), maps and unmaps, and queued reads, writes, copies, fills
 * and markers. Each checks that a call which must fail (a range outside
 * its buffer) does and that out-parameters stay untouched on failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz-accel.h"

#define XFER_POOL (2 * BUF_CAP)

static uint8_t xfer_pool[XFER_POOL];
static uint8_t user_pool[N_BUF][BUF_CAP] __attribute__((aligned(4096)));

void fac_op_buffer_new(struct run *r)
{
	unsigned i = fz_pick(&r->in, N_BUF);
	uint8_t sel = fz_u8(&r->in);
	uint32_t flags = fac_pick_flags(&r->in, ACCEL_BUFFER_FLAGS_ALL);
	uint64_t size = fz_size(&r->in), off = fz_size(&r->in);
	struct accel_buffer *b = UNTOUCHED;
	struct buf_slot *p = &r->buf[fz_pick(&r->in, N_BUF)];
	int err;

	if (size > BUF_CAP && size <= fac_g.max_alloc)
		size = size % BUF_CAP + 1;
	switch (sel % 3) {
	case 0:
		err = accel_buffer_new(fac_g.dev, size, flags, &b);
		break;
	case 1: {
		/* caller memory: as large as the buffer, or refused */
		size_t hoff = off & 0xfff;

		if (size > BUF_CAP - hoff && size <= fac_g.max_alloc)
			size = size % (BUF_CAP - hoff) + 1;
		err = accel_buffer_new_user_ptr(fac_g.dev, (sel & 8) ? NULL
					       : user_pool[i] + hoff, size,
					       flags, &b);
		break;
	}
	default:
		err = accel_buffer_new_sub(p->b, off, size, flags, &b);
		if (!err && (off > p->size || size > p->size - off))
			fac_die("sub-buffer outside its parent", 0);
		break;
	}
	fac_chk(err);
	if (err) {
		if (b != UNTOUCHED)
			fac_die("buffer out-parameter set on failure", err);
		return;
	}
	size = accel_buffer_get_size(b);
	if (size > BUF_CAP)
		fac_die("buffer larger than asked for", 0);
	if (p == &r->buf[i] && sel % 3 == 2) {
		accel_buffer_unref(b);  /* keep the parent's slot */
		return;
	}
	fac_drop_buf(r, &r->buf[i]);
	r->buf[i] = (struct buf_slot){ .b = b, .size = size };
}

static bool outside(uint64_t off, uint64_t size, uint64_t buf_size)
{
	return off > buf_size || size > buf_size - off;
}

void fac_op_map(struct run *r)
{
	struct buf_slot *b = &r->buf[fz_pick(&r->in, N_BUF)];
	struct map_slot *s = &r->map[fz_pick(&r->in, N_MAP)];
	uint32_t flags = fac_pick_flags(&r->in, ACCEL_MAP_FLAGS_ALL);
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	uint8_t sel = fz_u8(&r->in);
	volatile uint8_t sum = 0;
	uint8_t *p = UNTOUCHED;
	uint64_t i;
	int err;

	if (sel & 1) { /* unmap, maybe a pointer that is not a mapping */
		void *ptr = (void *)((uintptr_t)s->ptr + (sel >> 1 & 3));

		err = fac_chk(accel_buffer_unmap(s->b, ptr));
		if (err)
			return;
		/* the same buffer may be mapped again at ptr + k */
		for (i = 0; i < N_MAP; i++) {
			if (r->map[i].ptr == ptr && r->map[i].b == s->b)
				break;
		}
		if (i == N_MAP)
			fac_die("unmapped a pointer that is no mapping", 0);
		memset(&r->map[i], 0, sizeof(r->map[i]));
		return;
	}
	err = fac_chk(accel_buffer_map(b->b, off, size, flags, (void **)&p));
	if (err) {
		if (p != UNTOUCHED)
			fac_die("map out-parameter set on failure", err);
		return;
	}
	if (outside(off, size, b->size))
		fac_die("mapped outside the buffer", 0);
	for (i = 0; i < size; i++)
		sum += p[i];
	if (flags & (ACCEL_MAP_WRITE | ACCEL_MAP_WRITE_INVALIDATE))
		memset(p, sum, size);
	if (s->ptr)
		fac_chk(accel_buffer_unmap(s->b, s->ptr));
	*s = (struct map_slot){ .b = b->b, .ptr = p };
}

void fac_op_transfer(struct run *r)
{
	struct accel_queue *q = r->q[fz_pick(&r->in, N_QUEUE)];
	uint8_t sel = fz_u8(&r->in);
	struct buf_slot *a = &r->buf[fz_pick(&r->in, N_BUF)];
	struct buf_slot *b = &r->buf[fz_pick(&r->in, N_BUF)];
	uint64_t ao = fz_size(&r->in), bo = fz_size(&r->in);
	uint64_t size = fz_size(&r->in);
	size_t host = fz_u8(&r->in) * 64u;
	struct accel_fence *list[4], *f;
	struct accel_fence *const *wait;
	uint32_t n = fac_pick_wait(r, list, &wait);
	struct fence_slot *out = fac_pick_fence_out(r, &f);
	struct accel_fence **fp = out ? &f : NULL;
	uint8_t *ptr = (sel & 0x80) ? NULL : xfer_pool + host;
	size_t psize = (size_t)1 << (fz_u8(&r->in) % 9);
	int err;

	if (sel & 0x40)
		psize = fz_size(&r->in);
	switch (sel % 5) {
	case 0:
	case 1:
		/* host memory as large as a valid call touches */
		if (size > XFER_POOL - host && q && a->b &&
		    !outside(ao, size, a->size))
			return;
		err = (sel % 5) ? accel_queue_write(q, a->b, ao, size, ptr, n,
						    wait, fp)
				: accel_queue_read(q, a->b, ao, size, ptr, n,
						   wait, fp);
		if (!err && outside(ao, size, a->size))
			fac_die("transfer outside the buffer", 0);
		break;
	case 2:
		err = accel_queue_copy(q, a->b, ao, b->b, bo, size, n, wait,
				       fp);
		if (!err && (outside(ao, size, a->size) ||
			     outside(bo, size, b->size)))
			fac_die("copy outside a buffer", 0);
		break;
	case 3:
		if (psize > sizeof(fac_value_buf) && psize <= 128)
			return;
		err = accel_queue_fill(q, a->b, ao, size, ptr ? fac_value_buf
							     : NULL,
				       psize, n, wait, fp);
		if (!err && outside(ao, size, a->size))
			fac_die("fill outside the buffer", 0);
		break;
	default:
		err = accel_queue_marker(q, n, wait, fp);
		break;
	}
	fac_take_fence(out, err, f);
}
