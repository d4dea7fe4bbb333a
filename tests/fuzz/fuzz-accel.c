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
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libaccel/libaccel.h>
#include <libaccel/accel-wg.h>

#include "fuzz-fds.h"
#include "fuzz-input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_QUEUE 2
#define N_BUF 6
#define N_MAP 4
#define N_PROG 3
#define N_KERN 3
#define N_FENCE 6

#define BUF_CAP 65536u
#define KERNEL_MIN_BUFFER 64u
#define XFER_POOL (2 * BUF_CAP)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* sentinel for out-parameters that failing calls must leave alone */
#define UNTOUCHED ((void *)(uintptr_t)0x5a5a5a5a5a5a5a5aull)

static const char kernel_source[] =
	"kernel void k_fill(global uint *o, uint v)\n"
	"{ if (o) o[get_global_id(0) % 16] = v; }\n"
	"kernel void k_local(global int *o, local int *t)\n"
	"{\n"
	"	t[get_local_id(0) % 16] = 1;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (o) o[get_global_id(0) % 16] = t[0];\n"
	"}\n";

static const char *const kernel_names[] = {
	"k_fill", "k_local", "native", "", "k_fillx",
};

static struct {
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_program *built;
	void *binary;
	size_t binary_size;
	uint64_t max_alloc, local_mem, max_wg;
	bool ok;
} g;

struct buf_slot {
	struct accel_buffer *b;
	uint64_t size;
};

struct map_slot {
	struct accel_buffer *b;
	void *ptr;
};

struct fence_slot {
	struct accel_fence *f;
	bool user;    /* a user fence not yet signalled */
};

struct run {
	struct fz in;
	struct accel_queue *q[N_QUEUE];
	struct buf_slot buf[N_BUF];
	struct map_slot map[N_MAP];
	struct accel_program *prog[N_PROG];
	struct accel_kernel *kern[N_KERN];
	struct fence_slot fence[N_FENCE];
};

static uint8_t xfer_pool[XFER_POOL];
static uint8_t user_pool[N_BUF][BUF_CAP] __attribute__((aligned(4096)));
static uint8_t value_buf[256];

static void die(const char *what, int r)
{
	fprintf(stderr, "fuzz-accel: %s failed: %d\n", what, r);
	abort();
}

/* An int result: 0 or a negative errno, nothing else. */
static int chk(int r)
{
	if (r > 0 || r < -4095)
		die("result is not 0 or -errno", r);
	return r;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct accel_device *devs[8];
	const void *bin;
	int n, i, r;

	(void)argc;
	(void)argv;
	r = accel_context_new(0, &g.ctx);
	if (r)
		die("accel_context_new", r);
	n = accel_context_get_devices(g.ctx, devs, ARRAY_SIZE(devs));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(devs); i++) {
		uint64_t type = 0;

		if (!accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					    &type) &&
		    type == ACCEL_DEVICE_TYPE_CPU && !g.dev)
			g.dev = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!g.dev)
		die("no CPU device", n);
	r = accel_program_new_source(g.dev, kernel_source, 0, NULL, NULL,
				     &g.built);
	if (r)
		die("accel_program_new_source", r);
	r = accel_program_get_binary(g.built, &bin, &g.binary_size);
	if (r)
		die("accel_program_get_binary", r);
	g.binary = malloc(g.binary_size);
	if (!g.binary)
		die("malloc", 0);
	memcpy(g.binary, bin, g.binary_size);
	if (accel_device_query_u64(g.dev, ACCEL_DEVICE_U64_MAX_ALLOC_SIZE,
				   &g.max_alloc) ||
	    accel_device_query_u64(g.dev, ACCEL_DEVICE_U64_LOCAL_MEM_SIZE,
				   &g.local_mem) ||
	    accel_device_query_u64(g.dev,
				   ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE,
				   &g.max_wg))
		die("accel_device_query_u64", 0);
	g.ok = true;
	return 0;
}

/* ---- fences ------------------------------------------------------------ */

/* Signal every user fence: blocking calls could wait forever otherwise. */
static void settle(struct run *r)
{
	int i;

	for (i = 0; i < N_FENCE; i++) {
		struct fence_slot *s = &r->fence[i];

		if (s->f && s->user) {
			chk(accel_fence_signal(s->f, (fz_u8(&r->in) & 1)
							? 0 : -EIO));
			s->user = false;
		}
	}
}

static void drop_fence(struct fence_slot *s)
{
	if (s->f && s->user)
		chk(accel_fence_signal(s->f, 0));
	accel_fence_unref(s->f);
	memset(s, 0, sizeof(*s));
}

static uint32_t pick_wait(struct run *r, struct accel_fence **list,
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
static struct fence_slot *pick_fence_out(struct run *r,
					 struct accel_fence **tmp)
{
	unsigned i = fz_pick(&r->in, N_FENCE + 2);

	*tmp = UNTOUCHED;
	return i < N_FENCE ? &r->fence[i] : NULL;
}

/* After a call with a fence out-parameter: check and store it. */
static void take_fence(struct fence_slot *s, int err, struct accel_fence *f)
{
	chk(err);
	if (!s)
		return;
	if (err) {
		if (f != UNTOUCHED)
			die("fence out-parameter set on failure", err);
		return;
	}
	if (!f || f == UNTOUCHED)
		die("no fence on success", err);
	drop_fence(s);
	s->f = f;
}

/* ---- buffers ------------------------------------------------------------ */

static void unmap_of(struct run *r, struct accel_buffer *b)
{
	int i;

	for (i = 0; i < N_MAP; i++) {
		if (r->map[i].ptr && (!b || r->map[i].b == b)) {
			if (chk(accel_buffer_unmap(r->map[i].b,
						   r->map[i].ptr)))
				die("accel_buffer_unmap", -1);
			memset(&r->map[i], 0, sizeof(r->map[i]));
		}
	}
}

static void drop_buf(struct run *r, struct buf_slot *s)
{
	if (!s->b)
		return;
	unmap_of(r, s->b);
	/* kernels hold their own references to bound buffers */
	accel_buffer_unref(s->b);
	memset(s, 0, sizeof(*s));
}

static uint32_t pick_flags(struct fz *f, uint32_t all)
{
	uint8_t sel = fz_u8(f);

	return sel >= 0xf0 ? fz_u32(f) : sel & all;
}

static void op_buffer_new(struct run *r)
{
	unsigned i = fz_pick(&r->in, N_BUF);
	uint8_t sel = fz_u8(&r->in);
	uint32_t flags = pick_flags(&r->in, ACCEL_BUFFER_FLAGS_ALL);
	uint64_t size = fz_size(&r->in), off = fz_size(&r->in);
	struct accel_buffer *b = UNTOUCHED;
	struct buf_slot *p = &r->buf[fz_pick(&r->in, N_BUF)];
	int err;

	if (size > BUF_CAP && size <= g.max_alloc)
		size = size % BUF_CAP + 1;
	switch (sel % 3) {
	case 0:
		err = accel_buffer_new(g.dev, size, flags, &b);
		break;
	case 1: {
		/* caller memory: as large as the buffer, or refused */
		size_t hoff = off & 0xfff;

		if (size > BUF_CAP - hoff && size <= g.max_alloc)
			size = size % (BUF_CAP - hoff) + 1;
		err = accel_buffer_new_user_ptr(g.dev, (sel & 8) ? NULL
					       : user_pool[i] + hoff, size,
					       flags, &b);
		break;
	}
	default:
		err = accel_buffer_new_sub(p->b, off, size, flags, &b);
		if (!err && (off > p->size || size > p->size - off))
			die("sub-buffer outside its parent", 0);
		break;
	}
	chk(err);
	if (err) {
		if (b != UNTOUCHED)
			die("buffer out-parameter set on failure", err);
		return;
	}
	size = accel_buffer_get_size(b);
	if (size > BUF_CAP)
		die("buffer larger than asked for", 0);
	if (p == &r->buf[i] && sel % 3 == 2) {
		accel_buffer_unref(b);  /* keep the parent's slot */
		return;
	}
	drop_buf(r, &r->buf[i]);
	r->buf[i] = (struct buf_slot){ .b = b, .size = size };
}

static bool outside(uint64_t off, uint64_t size, uint64_t buf_size)
{
	return off > buf_size || size > buf_size - off;
}

static void op_map(struct run *r)
{
	struct buf_slot *b = &r->buf[fz_pick(&r->in, N_BUF)];
	struct map_slot *s = &r->map[fz_pick(&r->in, N_MAP)];
	uint32_t flags = pick_flags(&r->in, ACCEL_MAP_FLAGS_ALL);
	uint64_t off = fz_size(&r->in), size = fz_size(&r->in);
	uint8_t sel = fz_u8(&r->in);
	volatile uint8_t sum = 0;
	uint8_t *p = UNTOUCHED;
	uint64_t i;
	int err;

	if (sel & 1) { /* unmap, maybe a pointer that is not a mapping */
		void *ptr = (void *)((uintptr_t)s->ptr + (sel >> 1 & 3));

		err = chk(accel_buffer_unmap(s->b, ptr));
		if (err)
			return;
		/* the same buffer may be mapped again at ptr + k */
		for (i = 0; i < N_MAP; i++) {
			if (r->map[i].ptr == ptr && r->map[i].b == s->b)
				break;
		}
		if (i == N_MAP)
			die("unmapped a pointer that is no mapping", 0);
		memset(&r->map[i], 0, sizeof(r->map[i]));
		return;
	}
	err = chk(accel_buffer_map(b->b, off, size, flags, (void **)&p));
	if (err) {
		if (p != UNTOUCHED)
			die("map out-parameter set on failure", err);
		return;
	}
	if (outside(off, size, b->size))
		die("mapped outside the buffer", 0);
	for (i = 0; i < size; i++)
		sum += p[i];
	if (flags & (ACCEL_MAP_WRITE | ACCEL_MAP_WRITE_INVALIDATE))
		memset(p, sum, size);
	if (s->ptr)
		chk(accel_buffer_unmap(s->b, s->ptr));
	*s = (struct map_slot){ .b = b->b, .ptr = p };
}

/* ---- queue operations ---------------------------------------------------- */

static void op_queue_new(struct run *r)
{
	unsigned i = fz_pick(&r->in, N_QUEUE);
	uint32_t flags = pick_flags(&r->in, ACCEL_QUEUE_FLAGS_ALL);
	struct accel_queue *q = UNTOUCHED;
	int err = chk(accel_queue_new(g.dev, flags, &q));

	if (err) {
		if (q != UNTOUCHED)
			die("queue out-parameter set on failure", err);
		return;
	}
	if (r->q[i]) {
		settle(r);
		accel_queue_unref(r->q[i]);
	}
	r->q[i] = q;
}

static void op_transfer(struct run *r)
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
	uint32_t n = pick_wait(r, list, &wait);
	struct fence_slot *out = pick_fence_out(r, &f);
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
			die("transfer outside the buffer", 0);
		break;
	case 2:
		err = accel_queue_copy(q, a->b, ao, b->b, bo, size, n, wait,
				       fp);
		if (!err && (outside(ao, size, a->size) ||
			     outside(bo, size, b->size)))
			die("copy outside a buffer", 0);
		break;
	case 3:
		if (psize > sizeof(value_buf) && psize <= 128)
			return;
		err = accel_queue_fill(q, a->b, ao, size, ptr ? value_buf
							     : NULL,
				       psize, n, wait, fp);
		if (!err && outside(ao, size, a->size))
			die("fill outside the buffer", 0);
		break;
	default:
		err = accel_queue_marker(q, n, wait, fp);
		break;
	}
	take_fence(out, err, f);
}

static void native_wg(void **args, const struct accel_wg_ctx *ctx)
{
	(void)args;
	(void)ctx;
}

static void op_launch(struct run *r)
{
	struct accel_queue *q = r->q[fz_pick(&r->in, N_QUEUE)];
	struct accel_kernel *k = r->kern[fz_pick(&r->in, N_KERN)];
	uint8_t sel = fz_u8(&r->in);
	struct accel_ndrange nd = {
		.struct_size = sizeof(nd),
		.work_dim = (sel & 0x80) ? fz_u32(&r->in) : 1 + sel % 4,
	};
	struct accel_fence *list[4], *f;
	struct accel_fence *const *wait;
	uint32_t n, i;
	unsigned __int128 items = 1, group = 1;
	bool overflow = false;
	struct fence_slot *out;
	struct accel_launch_check check;
	int err, cr;

	if (sel & 0x40)
		nd.struct_size = fz_u32(&r->in);
	for (i = 0; i < 3; i++) {
		nd.global_offset[i] = fz_size(&r->in);
		nd.global_size[i] = fz_size(&r->in);
		nd.local_size[i] = (sel & 8) ? 0 : fz_size(&r->in);
	}
	n = pick_wait(r, list, &wait);
	out = pick_fence_out(r, &f);
	for (i = 0; i < 3 && i < nd.work_dim; i++) {
		if (nd.global_offset[i] + nd.global_size[i] <
		    nd.global_offset[i])
			overflow = true;
		items *= nd.global_size[i];
		group *= nd.local_size[i];
	}
	/* as in fuzz-cl.c: what may run stays tiny, what must fail is huge */
	if (!overflow && items > 512)
		for (i = 0; i < 3; i++)
			nd.global_size[i] = nd.global_size[i] % 8 + 1;
	if (!overflow && (sel & 0x20) && group <= g.max_wg)
		for (i = 0; i < 3; i++)
			nd.local_size[i] = nd.local_size[i] % 8 + 1;
	check.struct_size = sizeof(check);
	cr = chk(accel_kernel_check_launch(k, (sel & 0x10) ? NULL : &nd,
					   &check));
	err = accel_queue_launch(q, k, (sel & 0x10) ? NULL : &nd, n, wait,
				 out ? &f : NULL);
	if (!err && overflow)
		die("launch with offset + size overflowing", 0);
	/* the verdict holds: a refusal is one, and no other one comes */
	if (cr == 0 && check.error && !err)
		die("launch made that the check refused", check.error);
	if (cr == 0 && !check.error &&
	    (err == -ENOEXEC || err == -EACCES || err == -EOVERFLOW))
		die("launch refused that the check let through", err);
	take_fence(out, err, f);
}

static _Atomic unsigned long callbacks;

static void fence_cb(struct accel_fence *f, int status, void *data)
{
	(void)f;
	(void)status;
	atomic_fetch_add((_Atomic unsigned long *)data, 1);
}

static void op_sync(struct run *r)
{
	struct accel_queue *q = r->q[fz_pick(&r->in, N_QUEUE)];
	struct fence_slot *s = &r->fence[fz_pick(&r->in, N_FENCE)];
	uint8_t sel = fz_u8(&r->in);
	struct accel_fence *f = UNTOUCHED;
	int fd = -1, err;
	uint64_t t;

	switch (sel % 8) {
	case 0:
		chk(accel_queue_flush(q));
		break;
	case 1:
		settle(r);
		chk(accel_queue_finish(q));
		break;
	case 2:
		err = chk(accel_fence_new_user(g.ctx, &f));
		if (err) {
			if (f != UNTOUCHED)
				die("user fence set on failure", err);
			break;
		}
		drop_fence(s);
		*s = (struct fence_slot){ .f = f, .user = true };
		break;
	case 3: {
		/* 0, a negative errno, or a positive value (refused) */
		int st = (sel & 8) ? 0 : (sel & 16) ? -(int)(sel >> 5) - 1
			 : (sel & 32) ? -1 - (int)(fz_u32(&r->in) % 4095)
				      : (int)(fz_u32(&r->in) >> 2) + 1;

		err = chk(accel_fence_signal(s->f, st));
		if (!err) {
			if (!s->user || st > 0)
				die("signalled what cannot be", st);
			s->user = false;
		}
		break;
	}
	case 4:
		if (sel & 8)
			settle(r);
		chk(accel_fence_wait(s->f, (sel & 8) ? ACCEL_TIMEOUT_INFINITE
						    : (sel & 16) ? -1 : 0));
		err = accel_fence_get_status(s->f);
		if (err > 1 || err < -4095)
			die("accel_fence_get_status", err);
		break;
	case 5:
		if (sel & 8)
			chk(accel_fence_add_callback(s->f, (sel & 16) ? NULL
						     : fence_cb, &callbacks));
		else
			chk(accel_fence_get_time(s->f, fz_u8(&r->in) % 6, &t));
		break;
	case 6:
		err = (sel & 8) ? accel_fence_export_sync_file(s->f, &fd)
				: accel_fence_export_poll_fd(s->f, &fd);
		chk(err);
		if (!err)
			close(fd);
		else if (fd != -1)
			die("fd set on failure", err);
		break;
	default:
		if (s->f) {
			accel_fence_ref(s->f);
			accel_fence_unref(s->f);
			if (sel & 8)
				drop_fence(s);
		}
		break;
	}
}

/* ---- programs and kernels ------------------------------------------------ */

static void op_program(struct run *r)
{
	struct accel_program **s = &r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	struct accel_program *p = UNTOUCHED;
	int err;

	switch (sel % 4) {
	case 0: {
		uint8_t *bin = malloc(g.binary_size);
		size_t size = g.binary_size;
		uint32_t at = fz_u32(&r->in);

		if (!bin)
			abort();
		memcpy(bin, g.binary, size);
		if (sel & 4)
			size = at % size;
		if (sel & 8)
			bin[at % g.binary_size] ^= fz_u8(&r->in) | 1;
		err = accel_program_new_binary(g.dev, bin, size, &p);
		free(bin);
		break;
	}
	case 1: {
		char names[32];

		fz_bytes(&r->in, names, sizeof(names) - 1);
		names[sizeof(names) - 1] = 0;
		err = accel_program_new_built_in(g.dev, names, &p);
		break;
	}
	case 2: {
		struct accel_kernel_arg_desc args[3];
		struct accel_native_kernel_desc d = {
			.struct_size = sizeof(d), .name = "native",
			.fn = native_wg, .n_args = fz_u8(&r->in) % 4,
			.args = args,
		};
		struct accel_native_kernel_desc two[2];
		uint32_t i;

		for (i = 0; i < 3; i++) {
			args[i] = (struct accel_kernel_arg_desc){
				.struct_size = sizeof(args[i]),
				.kind = fz_u8(&r->in) % 4,
				.size = (uint32_t)fz_size(&r->in),
				.address_space = fz_u8(&r->in) % 5,
				.name = "a", .type_name = "int",
			};
		}
		if (d.n_args == 3)
			d.n_args = fz_u32(&r->in);
		if (d.n_args > 3)
			d.args = NULL; /* a count, no descriptions: refused */
		if (sel & 4)
			d.struct_size = fz_u32(&r->in) % (sizeof(d) + 16);
		if (sel & 8)
			d.flags = fz_u32(&r->in);
		if (sel & 16)
			d.static_local_size = fz_size(&r->in);
		if (sel & 32)
			for (i = 0; i < 3; i++)
				d.reqd_work_group_size[i] = fz_size(&r->in);
		/* a second kernel: the same name (refused) or another */
		two[0] = d;
		two[1] = d;
		two[1].name = (sel & 64) ? "native" : "native2";
		err = accel_program_new_native(g.dev, two, 1 + (sel >> 7), &p);
		break;
	}
	default:
		p = accel_program_ref(g.built);
		err = 0;
		break;
	}
	chk(err);
	if (err) {
		if (p != UNTOUCHED)
			die("program out-parameter set on failure", err);
		return;
	}
	accel_program_unref(*s);
	*s = p;
}

static void op_kernel(struct run *r)
{
	struct accel_kernel **s = &r->kern[fz_pick(&r->in, N_KERN)];
	struct accel_program *p = r->prog[fz_pick(&r->in, N_PROG)];
	uint8_t sel = fz_u8(&r->in);
	uint32_t idx = (sel & 0x80) ? fz_u32(&r->in) : (sel >> 4) & 3;
	struct accel_kernel *k = UNTOUCHED;
	struct buf_slot *b;
	uint64_t size;
	int err;

	switch (sel & 7) {
	case 0:
		err = chk(accel_kernel_new(p, kernel_names[(sel >> 3) %
				ARRAY_SIZE(kernel_names)], &k));
		break;
	case 1:
		err = chk(accel_kernel_clone(*s, &k));
		break;
	case 2:
		b = &r->buf[fz_pick(&r->in, N_BUF)];
		if (b->b && b->size < KERNEL_MIN_BUFFER)
			return; /* the kernels would index past its end */
		chk(accel_kernel_set_arg_buffer(*s, idx, b->b));
		return;
	case 3:
		size = (sel & 8) ? fz_size(&r->in) : fz_u8(&r->in) % 12;
		if (size > sizeof(value_buf))
			return;
		fz_bytes(&r->in, value_buf, size);
		chk(accel_kernel_set_arg_value(*s, idx, size, value_buf));
		return;
	case 4:
		size = fz_size(&r->in);
		if (size && size < KERNEL_MIN_BUFFER)
			size = KERNEL_MIN_BUFFER;
		if (size > 4096 && size <= g.local_mem)
			size = 4096;
		chk(accel_kernel_set_arg_local(*s, idx, size));
		return;
	case 5: {
		struct accel_kernel_arg_desc d;
		uint64_t sl, reqd[3];
		uint32_t fl;

		memset(&d, 0, sizeof(d));
		d.struct_size = (sel & 8) ? fz_u32(&r->in) : sizeof(d);
		chk(accel_kernel_get_arg_desc(*s, idx, &d));
		chk(accel_kernel_get_wg_info(*s, &sl, reqd, &fl));
		if (accel_kernel_get_arg_count(*s) < -4095)
			die("accel_kernel_get_arg_count", 0);
		return;
	}
	default:
		accel_kernel_unref(*s);
		*s = NULL;
		return;
	}
	if (err) {
		if (k != UNTOUCHED)
			die("kernel out-parameter set on failure", err);
		return;
	}
	accel_kernel_unref(*s);
	*s = k;
}

static void op_release(struct run *r)
{
	uint8_t sel = fz_u8(&r->in);
	unsigned i = fz_pick(&r->in, N_BUF);

	switch (sel & 3) {
	case 0:
		drop_buf(r, &r->buf[i]);
		break;
	case 1:
		i %= N_PROG;
		r->prog[i] = accel_program_unref(r->prog[i]);
		break;
	case 2:
		i %= N_QUEUE;
		if (r->q[i]) {
			settle(r);
			r->q[i] = accel_queue_unref(r->q[i]);
		}
		break;
	default: {
		char name[16];

		fz_bytes(&r->in, name, sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		chk(accel_buffer_set_name(r->buf[i].b, (sel & 4) ? NULL
								: name));
		break;
	}
	}
}

static void release_all(struct run *r)
{
	int i;

	settle(r);
	unmap_of(r, NULL);
	for (i = 0; i < N_QUEUE; i++) {
		if (r->q[i]) {
			chk(accel_queue_finish(r->q[i]));
			accel_queue_unref(r->q[i]);
		}
	}
	for (i = 0; i < N_KERN; i++)
		accel_kernel_unref(r->kern[i]);
	for (i = 0; i < N_BUF; i++)
		drop_buf(r, &r->buf[i]);
	for (i = 0; i < N_PROG; i++)
		accel_program_unref(r->prog[i]);
	for (i = 0; i < N_FENCE; i++)
		drop_fence(&r->fence[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r = { .in = { data, size } };

	if (!g.ok)
		abort();
	while (fz_more(&r.in)) {
		switch (fz_u8(&r.in) % 9) {
		case 0: op_queue_new(&r); break;
		case 1: op_buffer_new(&r); break;
		case 2: op_map(&r); break;
		case 3: op_transfer(&r); break;
		case 4: op_launch(&r); break;
		case 5: op_sync(&r); break;
		case 6: op_program(&r); break;
		case 7: op_kernel(&r); break;
		default: op_release(&r); break;
		}
	}
	release_all(&r);
	fz_check_fds("fuzz-accel");
	return 0;
}
