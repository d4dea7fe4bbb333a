/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: sequences of libaccel C API calls on the CPU device.
 *
 * Like fuzz-cl.c, an input is a byte-coded program over small tables of
 * objects (queues, buffers and sub-buffers, mappings, programs, kernels,
 * fences), with fuzzed sizes, offsets, flags and geometry. Beyond not
 * crashing, every call must keep the API's promises: 0 or a negative
 * errno, and out-parameters untouched on failure. Only calls with defined
 * outcomes are made (see fuzz-cl.c); everything is released at the end.
 *
 * This file holds the set-up, the result checks, the fence and buffer
 * helpers, queues and releases, the teardown and the dispatch; the other
 * operations live in fuzz-accel-<what>.c (fuzz-accel.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-accel.h"
#include "fuzz-fds.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fac_state fac_g;

uint8_t fac_value_buf[256];

void fac_die(const char *what, int r)
{
	fprintf(stderr, "fuzz-accel: %s failed: %d\n", what, r);
	abort();
}

/* An int result: 0 or a negative errno, nothing else. */
int fac_chk(int r)
{
	if (r > 0 || r < -4095)
		fac_die("result is not 0 or -errno", r);
	return r;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct accel_device *devs[8];
	const void *bin;
	int n, i, r;

	(void)argc;
	(void)argv;
	r = accel_context_new(0, &fac_g.ctx);
	if (r)
		fac_die("accel_context_new", r);
	n = accel_context_get_devices(fac_g.ctx, devs, ARRAY_SIZE(devs));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(devs); i++) {
		uint64_t type = 0;

		if (!accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					    &type) &&
		    type == ACCEL_DEVICE_TYPE_CPU && !fac_g.dev)
			fac_g.dev = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!fac_g.dev)
		fac_die("no CPU device", n);
	r = accel_program_new_source(fac_g.dev, fac_kernel_source, 0, NULL,
				     NULL, &fac_g.built);
	if (r)
		fac_die("accel_program_new_source", r);
	r = accel_program_get_binary(fac_g.built, &bin, &fac_g.binary_size);
	if (r)
		fac_die("accel_program_get_binary", r);
	fac_g.binary = malloc(fac_g.binary_size);
	if (!fac_g.binary)
		fac_die("malloc", 0);
	memcpy(fac_g.binary, bin, fac_g.binary_size);
	if (accel_device_query_u64(fac_g.dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE,
				   &fac_g.max_alloc) ||
	    accel_device_query_u64(fac_g.dev, ACCEL_DEVICE_U64_LOCAL_MEM_SIZE,
				   &fac_g.local_mem) ||
	    accel_device_query_u64(fac_g.dev,
				   ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE,
				   &fac_g.max_wg))
		fac_die("accel_device_query_u64", 0);
	fac_g.ok = true;
	return 0;
}

/* ---- fences ------------------------------------------------------------ */

/* Signal every user fence: blocking calls could wait forever otherwise. */
void fac_settle(struct run *r)
{
	int i;

	for (i = 0; i < N_FENCE; i++) {
		struct fence_slot *s = &r->fence[i];

		if (s->f && s->user) {
			fac_chk(accel_fence_signal(s->f, (fz_u8(&r->in) & 1)
							    ? 0 : -EIO));
			s->user = false;
		}
	}
}

void fac_drop_fence(struct fence_slot *s)
{
	if (s->f && s->user)
		fac_chk(accel_fence_signal(s->f, 0));
	accel_fence_unref(s->f);
	memset(s, 0, sizeof(*s));
}

uint32_t fac_pick_wait(struct run *r, struct accel_fence **list,
		       struct accel_fence *const **ret)
{
	uint8_t sel = fz_u8(&r->in);
	uint32_t n = sel & 7, i;

	*ret = list;
	if (n > 4) {
		*ret = NULL;
		return n == 7 ? 0 : n;
	}
	for (i = 0; i < n; i++)
		list[i] = r->fence[fz_pick(&r->in, N_FENCE)].f;
	return n;
}

/* Where a returned fence goes: a slot, or nowhere (NULL). */
struct fence_slot *fac_pick_fence_out(struct run *r,
				      struct accel_fence **tmp)
{
	unsigned i = fz_pick(&r->in, N_FENCE + 2);

	*tmp = UNTOUCHED;
	return i < N_FENCE ? &r->fence[i] : NULL;
}

/* After a call with a fence out-parameter: check and store it. */
void fac_take_fence(struct fence_slot *s, int err, struct accel_fence *f)
{
	fac_chk(err);
	if (!s)
		return;
	if (err) {
		if (f != UNTOUCHED)
			fac_die("fence out-parameter set on failure", err);
		return;
	}
	if (!f || f == UNTOUCHED)
		fac_die("no fence on success", err);
	fac_drop_fence(s);
	s->f = f;
}

/* ---- buffers ------------------------------------------------------------ */

static void unmap_of(struct run *r, struct accel_buffer *b)
{
	int i;

	for (i = 0; i < N_MAP; i++) {
		if (r->map[i].ptr && (!b || r->map[i].b == b)) {
			if (fac_chk(accel_buffer_unmap(r->map[i].b,
						       r->map[i].ptr)))
				fac_die("accel_buffer_unmap", -1);
			memset(&r->map[i], 0, sizeof(r->map[i]));
		}
	}
}

void fac_drop_buf(struct run *r, struct buf_slot *s)
{
	if (!s->b)
		return;
	unmap_of(r, s->b);
	/* kernels hold their own references to bound buffers */
	accel_buffer_unref(s->b);
	memset(s, 0, sizeof(*s));
}

uint32_t fac_pick_flags(struct fz *f, uint32_t all)
{
	uint8_t sel = fz_u8(f);

	return sel >= 0xf0 ? fz_u32(f) : sel & all;
}

/* ---- queues and releases ----------------------------------------------- */

static void op_queue_new(struct run *r)
{
	unsigned i = fz_pick(&r->in, N_QUEUE);
	uint32_t flags = fac_pick_flags(&r->in, ACCEL_QUEUE_FLAGS_ALL);
	struct accel_queue *q = UNTOUCHED;
	int err = fac_chk(accel_queue_new(fac_g.dev, flags, &q));

	if (err) {
		if (q != UNTOUCHED)
			fac_die("queue out-parameter set on failure", err);
		return;
	}
	if (r->q[i]) {
		fac_settle(r);
		accel_queue_unref(r->q[i]);
	}
	r->q[i] = q;
}

static void op_release(struct run *r)
{
	uint8_t sel = fz_u8(&r->in);
	unsigned i = fz_pick(&r->in, N_BUF);

	switch (sel & 3) {
	case 0:
		fac_drop_buf(r, &r->buf[i]);
		break;
	case 1:
		i %= N_PROG;
		r->prog[i] = accel_program_unref(r->prog[i]);
		break;
	case 2:
		i %= N_QUEUE;
		if (r->q[i]) {
			fac_settle(r);
			r->q[i] = accel_queue_unref(r->q[i]);
		}
		break;
	default: {
		char name[16];

		fz_bytes(&r->in, name, sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		fac_chk(accel_buffer_set_name(r->buf[i].b, (sel & 4) ? NULL
								    : name));
		break;
	}
	}
}

static void release_all(struct run *r)
{
	int i;

	fac_settle(r);
	unmap_of(r, NULL);
	for (i = 0; i < N_QUEUE; i++) {
		if (r->q[i]) {
			fac_chk(accel_queue_finish(r->q[i]));
			accel_queue_unref(r->q[i]);
		}
	}
	for (i = 0; i < N_KERN; i++)
		accel_kernel_unref(r->kern[i]);
	for (i = 0; i < N_BUF; i++)
		fac_drop_buf(r, &r->buf[i]);
	for (i = 0; i < N_PROG; i++)
		accel_program_unref(r->prog[i]);
	for (i = 0; i < N_FENCE; i++)
		fac_drop_fence(&r->fence[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r = { .in = { data, size } };

	if (!fac_g.ok)
		abort();
	while (fz_more(&r.in)) {
		switch (fz_u8(&r.in) % 9) {
		case 0: op_queue_new(&r); break;
		case 1: fac_op_buffer_new(&r); break;
		case 2: fac_op_map(&r); break;
		case 3: fac_op_transfer(&r); break;
		case 4: fac_op_launch(&r); break;
		case 5: fac_op_sync(&r); break;
		case 6: fac_op_program(&r); break;
		case 7: fac_op_kernel(&r); break;
		default: op_release(&r); break;
		}
	}
	release_all(&r);
	fz_check_fds("fuzz-accel");
	return 0;
}
