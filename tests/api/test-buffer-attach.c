/* SPDX-License-Identifier: MIT */
/*
 * Buffers used by every device of their context (buffer-attach.c), on a
 * machine with only the CPU device: the test puts two toy devices into the
 * context the way a backend's probe would.
 * - "shelf" keeps buffers in host memory and takes user pointers, so a
 *   CPU buffer reaches it by address, and its own buffers reach the CPU
 *   the same way (the CPU takes user pointers);
 * - "wall" takes neither user pointers nor dma-bufs: nothing of another
 *   device reaches it (-EXDEV), though the CPU reaches its buffers.
 * Both run transfers and one built-in, "add1" (buf[i] += 1 over the
 * global range), on the host, synchronously.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#include "internal/test-toy-device.h"

#define N 64

/* ---- the toy backends ---- */

static const struct accel_kernel_arg_desc add1_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .name = "buf", .type_name = "uint*" },
};

static const char add1_id;

static const struct accel_kernel_info toy_built_ins[] = {
	{ .name = "add1", .n_args = 1, .args = add1_args,
	  .handle = (void *)&add1_id },
};

static int toy_buffer_alloc(struct accel_buffer *buf)
{
	buf->host_ptr = calloc(1, buf->size);
	return buf->host_ptr ? 0 : -ENOMEM;
}

static int toy_wrap_user_ptr(struct accel_buffer *buf _unused_)
{
	return 0;
}

static void toy_buffer_free(struct accel_buffer *buf)
{
	if (!buf->user_ptr)
		free(buf->host_ptr);
}

static int toy_built_ins_get(struct accel_device *dev _unused_,
			     const struct accel_kernel_info **ret,
			     uint32_t *n)
{
	*ret = toy_built_ins;
	*n = TEST_ARRAY_SIZE(toy_built_ins);
	return 0;
}

/* Byte @off of @buf as this device reaches it (its own record). */
static uint8_t *at(struct accel_buffer *buf, uint64_t off)
{
	return (uint8_t *)buf->host_ptr + off;
}

static int toy_execute(struct accel_queue *queue, struct accel_cmd *cmd)
{
	const struct accel_launch *l = &cmd->u.launch;
	uint32_t *p;
	uint64_t i;
	int r = 0;

	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		/* every buffer the toy sees is one of its own records */
		if (l->buffers[0]->dev != queue->dev) {
			r = -EXDEV;
			break;
		}
		p = l->buffers[0]->host_ptr;
		for (i = l->global_offset[0];
		     i < l->global_offset[0] + l->global_size[0]; i++)
			p[i] += 1;
		break;
	case ACCEL_CMD_WRITE:
	case ACCEL_CMD_READ:
		if (cmd->u.rw.buf->dev != queue->dev) {
			r = -EXDEV;
			break;
		}
		if (cmd->type == ACCEL_CMD_WRITE)
			memcpy(at(cmd->u.rw.buf, cmd->u.rw.offset),
			       cmd->u.rw.host, cmd->u.rw.size);
		else
			memcpy(cmd->u.rw.host,
			       at(cmd->u.rw.buf, cmd->u.rw.offset),
			       cmd->u.rw.size);
		break;
	case ACCEL_CMD_COPY:
		if (cmd->u.copy.src->dev != queue->dev ||
		    cmd->u.copy.dst->dev != queue->dev) {
			r = -EXDEV;
			break;
		}
		memmove(at(cmd->u.copy.dst, cmd->u.copy.dst_offset),
			at(cmd->u.copy.src, cmd->u.copy.src_offset),
			cmd->u.copy.size);
		break;
	case ACCEL_CMD_FILL:
		if (cmd->u.fill.buf->dev != queue->dev) {
			r = -EXDEV;
			break;
		}
		accel_fill_pattern(at(cmd->u.fill.buf, cmd->u.fill.offset),
				   cmd->u.fill.size, cmd->u.fill.pattern,
				   cmd->u.fill.pattern_size);
		break;
	default:
		break;
	}
	accel_cmd_complete(cmd, r);
	return 0;
}

static const struct accel_backend_ops shelf_ops = {
	.name = "shelf",
	.buffer_alloc = toy_buffer_alloc,
	.buffer_wrap_user_ptr = toy_wrap_user_ptr,
	.buffer_free = toy_buffer_free,
	.get_built_in_kernels = toy_built_ins_get,
	.execute = toy_execute,
};

static const struct accel_backend_ops wall_ops = {
	.name = "wall",
	.buffer_alloc = toy_buffer_alloc,
	.buffer_free = toy_buffer_free,
	.get_built_in_kernels = toy_built_ins_get,
	.execute = toy_execute,
};

/* ---- fixture: the CPU device and both toys in one context ---- */

struct toy {
	struct accel_device *dev;
	struct accel_queue *q;
	struct accel_program *prog;
	struct accel_kernel *add1;
};

struct fixture {
	struct test_env *env;        /* the CPU device, queue, test kernels */
	struct toy shelf, wall;
};

static struct accel_device *find_dev(struct accel_context *ctx,
				     const char *backend)
{
	struct accel_device *devs[8], *found = NULL;
	const char *name;
	int n, i;

	n = accel_context_get_devices(ctx, devs, TEST_ARRAY_SIZE(devs));
	assert_in_range(n, 1, TEST_ARRAY_SIZE(devs));
	for (i = 0; i < n; i++) {
		if (!found &&
		    accel_device_query_string(devs[i],
					      ACCEL_DEVICE_STRING_BACKEND,
					      &name) == 0 &&
		    !strcmp(name, backend))
			found = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	assert_non_null(found);
	return found;
}

static void toy_open(struct accel_context *ctx, const char *backend,
		     struct toy *t)
{
	t->dev = find_dev(ctx, backend);
	assert_int_equal(accel_queue_new(t->dev, 0, &t->q), 0);
	assert_int_equal(accel_program_new_built_in(t->dev, "add1", &t->prog),
			 0);
	assert_int_equal(accel_kernel_new(t->prog, "add1", &t->add1), 0);
}

static void toy_close(struct toy *t)
{
	if (t->q)
		accel_queue_finish(t->q);
	accel_kernel_unref(t->add1);
	accel_program_unref(t->prog);
	accel_queue_unref(t->q);
	accel_device_unref(t->dev);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	void *env_state = NULL;

	if (!f)
		return -1;
	/* the CPU device first: enumeration is done when the toys come */
	if (test_env_setup(&env_state) < 0) {
		free(f);
		return -1;
	}
	f->env = env_state;
	test_add_toy_device(f->env->ctx, &shelf_ops,
			    ACCEL_DEVICE_CAP_USER_PTR);
	test_add_toy_device(f->env->ctx, &wall_ops, 0);
	toy_open(f->env->ctx, "shelf", &f->shelf);
	toy_open(f->env->ctx, "wall", &f->wall);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	void *env_state = f->env;

	toy_close(&f->shelf);
	toy_close(&f->wall);
	test_env_teardown(&env_state);
	free(f);
	return 0;
}

/* ---- helpers ---- */

static struct accel_buffer *buffer_on(struct accel_device *dev,
				      struct accel_queue *q, uint32_t first)
{
	struct accel_buffer *buf;
	uint32_t v[N];

	for (uint32_t i = 0; i < N; i++)
		v[i] = first + i;
	assert_int_equal(accel_buffer_new(dev, sizeof(v), 0, &buf), 0);
	assert_int_equal(accel_queue_write(q, buf, 0, sizeof(v), v, 0, NULL,
					   NULL), 0);
	assert_int_equal(accel_queue_finish(q), 0);
	return buf;
}

static void read_all(struct accel_queue *q, struct accel_buffer *buf,
		     uint32_t *out, uint64_t size)
{
	assert_int_equal(accel_queue_read(q, buf, 0, size, out, 0, NULL, NULL),
			 0);
	assert_int_equal(accel_queue_finish(q), 0);
}

static unsigned n_attached(struct accel_buffer *buf)
{
	unsigned n = 0;

	pthread_mutex_lock(&buf->lock);
	for (struct accel_buffer *a = buf->attached; a; a = a->attach_next)
		n++;
	pthread_mutex_unlock(&buf->lock);
	return n;
}

static void toy_add1(struct toy *t, struct accel_buffer *buf, uint64_t off,
		     uint64_t size)
{
	struct accel_ndrange r = test_ndrange(1, size, 0, 0, 0, 0, 0);

	r.global_offset[0] = off;
	assert_int_equal(accel_kernel_set_arg_buffer(t->add1, 0, buf), 0);
	assert_int_equal(accel_queue_launch(t->q, t->add1, &r, 0, NULL, NULL),
			 0);
	assert_int_equal(accel_queue_finish(t->q), 0);
}

/* The CPU's add_u32 (buf[i] += value) over [off, off + size). */
static void cpu_add(struct test_env *env, struct accel_buffer *buf,
		    uint32_t value, uint64_t off, uint64_t size)
{
	struct accel_ndrange r = test_ndrange(1, size, 0, 0, 0, 0, 0);
	struct accel_kernel *k = test_kernel_new(env, "add_u32");

	r.global_offset[0] = off;
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, sizeof(value),
						    &value), 0);
	assert_int_equal(accel_queue_launch(env->queue, k, &r, 0, NULL, NULL),
			 0);
	assert_int_equal(accel_queue_finish(env->queue), 0);
	accel_kernel_unref(k);
}

/* ---- tests ---- */

/* A CPU buffer on the shelf: transfers and a kernel, seen by the CPU. */
static void test_cpu_buffer_on_toy(void **state)
{
	struct fixture *f = *state;
	struct accel_buffer *buf = buffer_on(f->env->dev, f->env->queue, 100);
	const uint32_t pattern = 0xabababab, seven = 7;
	uint32_t out[N];
	void *map;

	read_all(f->shelf.q, buf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(out[i], 100 + i);

	toy_add1(&f->shelf, buf, 8, 8);                   /* [8, 16) + 1 */
	assert_int_equal(accel_queue_fill(f->shelf.q, buf, 0, 16, &pattern,
					  sizeof(pattern), 0, NULL, NULL), 0);
	assert_int_equal(accel_queue_write(f->shelf.q, buf, 60 * 4, 4, &seven,
					   0, NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->shelf.q), 0);

	/* the CPU sees it all, through its queue and a map */
	read_all(f->env->queue, buf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want = 100 + i;

		if (i < 4)
			want = pattern;
		else if (i >= 8 && i < 16)
			want += 1;
		else if (i == 60)
			want = 7;
		assert_int_equal(out[i], want);
	}
	assert_int_equal(accel_buffer_map(buf, 0, sizeof(out), ACCEL_MAP_READ,
					  &map), 0);
	assert_memory_equal(map, out, sizeof(out));
	assert_int_equal(accel_buffer_unmap(buf, map), 0);

	/* one attachment, made once, of the shelf; the home is unchanged */
	assert_int_equal(n_attached(buf), 1);
	assert_ptr_equal(buf->attached->dev, f->shelf.dev);
	assert_ptr_equal(buf->attached->host_ptr, buf->host_ptr);
	assert_ptr_equal(accel_buffer_get_device(buf), f->env->dev);
	accel_buffer_unref(buf);
}

/* A shelf buffer on the CPU: transfers and a CPU kernel. */
static void test_toy_buffer_on_cpu(void **state)
{
	struct fixture *f = *state;
	struct accel_buffer *buf = buffer_on(f->shelf.dev, f->shelf.q, 0);
	const uint16_t pattern = 0x5a5a;
	uint32_t out[N];

	cpu_add(f->env, buf, 1000, 0, 32);                /* [0, 32) + 1000 */
	assert_int_equal(accel_queue_fill(f->env->queue, buf, 48 * 4, 16 * 4,
					  &pattern, sizeof(pattern), 0, NULL,
					  NULL), 0);
	assert_int_equal(accel_queue_finish(f->env->queue), 0);

	read_all(f->shelf.q, buf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want = i < 32 ? 1000 + i : i;

		if (i >= 48)
			want = 0x5a5a5a5a;
		assert_int_equal(out[i], want);
	}
	read_all(f->env->queue, buf, out, sizeof(out));
	assert_int_equal(out[0], 1000);
	assert_int_equal(out[63], 0x5a5a5a5a);
	assert_int_equal(n_attached(buf), 1);
	assert_ptr_equal(buf->attached->dev, f->env->dev);
	accel_buffer_unref(buf);
}

/* Sub-buffers: their root's attachment at their offset. */
static void test_sub_buffers(void **state)
{
	struct fixture *f = *state;
	struct accel_buffer *buf = buffer_on(f->env->dev, f->env->queue, 0);
	struct accel_buffer *tbuf = buffer_on(f->shelf.dev, f->shelf.q, 0);
	uint64_t align = test_dev_u64(f->env->dev,
				      ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN);
	uint64_t off = align > 64 ? align : 64; /* bytes: a multiple of both */
	struct accel_buffer *sub, *tsub;
	const uint32_t nine = 9;
	uint32_t out[N];

	if (off + 16 * 4 > sizeof(out))
		skip();
	assert_int_equal(accel_buffer_new_sub(buf, off, 16 * 4, 0, &sub), 0);
	assert_int_equal(accel_buffer_new_sub(tbuf, off, 16 * 4, 0, &tsub), 0);

	toy_add1(&f->shelf, sub, 0, 16);         /* root [off/4, +16) */
	assert_int_equal(accel_queue_write(f->shelf.q, sub, 4, 4, &nine, 0,
					   NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->shelf.q), 0);
	read_all(f->env->queue, buf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want = i;

		if (i >= off / 4 && i < off / 4 + 16)
			want += 1;
		if (i == off / 4 + 1)
			want = 9;
		assert_int_equal(out[i], want);
	}

	cpu_add(f->env, tsub, 50, 2, 3);               /* root [off/4+2, +3) */
	read_all(f->shelf.q, tbuf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want = i;

		if (i >= off / 4 + 2 && i < off / 4 + 5)
			want += 50;
		assert_int_equal(out[i], want);
	}

	/* the views are the sub-buffers', over the roots' attachments */
	assert_int_equal(n_attached(sub), 1);
	assert_int_equal(n_attached(buf), 1);
	assert_ptr_equal(sub->attached->parent, buf->attached);
	assert_int_equal(n_attached(tsub), 1);
	assert_int_equal(n_attached(tbuf), 1);
	assert_ptr_equal(tsub->attached->parent, tbuf->attached);

	/* the root goes first: the sub-buffer keeps it and its attachment */
	accel_buffer_unref(buf);
	toy_add1(&f->shelf, sub, 15, 1);
	assert_int_equal(accel_queue_read(f->shelf.q, sub, 0, 16 * 4, out, 0,
					  NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->shelf.q), 0);
	assert_int_equal(out[15], off / 4 + 15 + 2);
	accel_buffer_unref(sub);
	accel_buffer_unref(tsub);
	accel_buffer_unref(tbuf);
}

/* Copies between buffers of different homes, on either device's queue. */
static void test_copy_across(void **state)
{
	struct fixture *f = *state;
	struct accel_buffer *cbuf = buffer_on(f->env->dev, f->env->queue, 0);
	struct accel_buffer *tbuf = buffer_on(f->shelf.dev, f->shelf.q, 1000);
	struct accel_buffer *sub;
	uint32_t out[N];

	/* CPU queue: shelf [0, 8) -> CPU [8, 16) */
	assert_int_equal(accel_queue_copy(f->env->queue, tbuf, 0, cbuf, 8 * 4,
					  8 * 4, 0, NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->env->queue), 0);
	/* shelf queue: CPU [32, 40) -> shelf [40, 48) */
	assert_int_equal(accel_queue_copy(f->shelf.q, cbuf, 32 * 4, tbuf,
					  40 * 4, 8 * 4, 0, NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->shelf.q), 0);

	read_all(f->env->queue, cbuf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(out[i], i >= 8 && i < 16 ? 1000 + i - 8 : i);
	read_all(f->env->queue, tbuf, out, sizeof(out));
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(out[i],
				 i >= 40 && i < 48 ? i - 8 : 1000 + i);

	/* overlap within one buffer is refused on another device too */
	assert_int_equal(accel_queue_copy(f->shelf.q, cbuf, 0, cbuf, 4, 16, 0,
					  NULL, NULL), -EINVAL);
	assert_int_equal(accel_buffer_new_sub(cbuf, 0, 64, 0, &sub), 0);
	assert_int_equal(accel_queue_copy(f->shelf.q, sub, 0, cbuf, 32, 64, 0,
					  NULL, NULL), -EINVAL);
	assert_int_equal(accel_queue_copy(f->shelf.q, sub, 0, cbuf, 64, 64, 0,
					  NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->shelf.q), 0);
	accel_buffer_unref(sub);
	accel_buffer_unref(cbuf);
	accel_buffer_unref(tbuf);
}

/* Where no attachment can be made: -EXDEV, and nothing is kept. */
static void test_unreachable(void **state)
{
	struct fixture *f = *state;
	struct accel_buffer *cbuf = buffer_on(f->env->dev, f->env->queue, 0);
	struct accel_buffer *tbuf = buffer_on(f->shelf.dev, f->shelf.q, 0);
	struct accel_buffer *wbuf = buffer_on(f->wall.dev, f->wall.q, 500);
	struct accel_buffer *user, *sub;
	struct accel_context *other;
	struct accel_device *odev;
	struct accel_buffer *obuf;
	const uint32_t one = 1;
	static uint32_t mem[N];
	uint32_t out[N];

	assert_int_equal(accel_queue_write(f->wall.q, cbuf, 0, 4, &one, 0, NULL,
					   NULL), -EXDEV);
	assert_int_equal(accel_queue_read(f->wall.q, tbuf, 0, 4, out, 0, NULL,
					  NULL), -EXDEV);
	assert_int_equal(accel_queue_fill(f->wall.q, cbuf, 0, 4, &one, 4, 0,
					  NULL, NULL), -EXDEV);
	assert_int_equal(accel_queue_copy(f->wall.q, wbuf, 0, cbuf, 0, 4, 0,
					  NULL, NULL), -EXDEV);
	assert_int_equal(accel_queue_copy(f->wall.q, cbuf, 0, wbuf, 0, 4, 0,
					  NULL, NULL), -EXDEV);
	assert_int_equal(accel_kernel_set_arg_buffer(f->wall.add1, 0, cbuf),
			 -EXDEV);
	assert_int_equal(accel_buffer_new_sub(cbuf, 0, 64, 0, &sub), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(f->wall.add1, 0, sub),
			 -EXDEV);
	assert_int_equal(n_attached(cbuf), 0);
	assert_int_equal(n_attached(sub), 0);
	assert_int_equal(n_attached(tbuf), 0);
	accel_buffer_unref(sub);

	/* the other way works: the CPU takes the wall's memory by address */
	read_all(f->env->queue, wbuf, out, sizeof(out));
	assert_int_equal(out[3], 503);

	/* user memory reaches a device that takes user pointers */
	assert_int_equal(accel_buffer_new_user_ptr(f->env->dev, mem,
						   sizeof(mem), 0, &user), 0);
	toy_add1(&f->shelf, user, 0, 2);
	assert_int_equal(mem[0], 1);
	assert_int_equal(mem[1], 1);
	assert_int_equal(accel_queue_write(f->wall.q, user, 0, 4, &one, 0, NULL,
					   NULL), -EXDEV);
	accel_buffer_unref(user);

	/* a buffer of another context stays foreign */
	assert_int_equal(test_context_new(&f->env->log, &other), 0);
	assert_int_equal(test_get_cpu_device(other, &odev), 0);
	assert_int_equal(accel_buffer_new(odev, 64, 0, &obuf), 0);
	assert_int_equal(accel_queue_write(f->shelf.q, obuf, 0, 4, &one, 0,
					   NULL, NULL), -EXDEV);
	assert_int_equal(accel_queue_write(f->env->queue, obuf, 0, 4, &one, 0,
					   NULL, NULL), -EXDEV);
	assert_int_equal(accel_kernel_set_arg_buffer(f->shelf.add1, 0, obuf),
			 -EINVAL);
	assert_int_equal(n_attached(obuf), 0);
	accel_buffer_unref(obuf);
	accel_device_unref(odev);
	accel_context_unref(other);

	accel_buffer_unref(cbuf);
	accel_buffer_unref(tbuf);
	accel_buffer_unref(wbuf);
}

/* A kernel argument keeps the buffer (and so its attachment) alive. */
static void test_lifetime(void **state)
{
	struct fixture *f = *state;
	struct accel_buffer *buf = buffer_on(f->env->dev, f->env->queue, 0);
	struct accel_buffer *again = buffer_on(f->env->dev, f->env->queue, 0);
	struct accel_ndrange r = test_ndrange(1, N, 0, 0, 0, 0, 0);
	struct accel_fence *gate, *done;
	uint32_t out[N];

	assert_int_equal(accel_kernel_set_arg_buffer(f->shelf.add1, 0, buf), 0);
	/* references to the view are the buffer's */
	assert_ptr_equal(accel_buffer_ref(buf->attached), buf->attached);
	assert_int_equal(atomic_load(&buf->refcount), 3);
	accel_buffer_unref(buf->attached);
	accel_buffer_unref(buf);          /* the kernel's reference remains */
	assert_int_equal(accel_queue_launch(f->shelf.q, f->shelf.add1, &r, 0,
					    NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->shelf.q), 0);

	/* a queued command's reference, behind a gate */
	gate = test_user_fence(f->env);
	assert_int_equal(accel_queue_launch(f->shelf.q, f->shelf.add1, &r, 1,
					    &gate, &done), 0);
	/* replacing the argument drops the kernel's: only the command's */
	assert_int_equal(accel_kernel_set_arg_buffer(f->shelf.add1, 0, again),
			 0);
	assert_int_equal(accel_fence_signal(gate, 0), 0);
	assert_int_equal(test_wait_unref(done), 0);
	accel_fence_unref(gate);

	read_all(f->shelf.q, again, out, sizeof(out));
	assert_int_equal(out[5], 5);
	assert_int_equal(accel_kernel_set_arg_buffer(f->shelf.add1, 0, NULL),
			 0);
	accel_buffer_unref(again);
}

struct race {
	struct accel_queue *q;
	struct accel_buffer *buf;
	int r;
};

static void *race_read(void *p)
{
	struct race *rc = p;
	uint32_t v;

	rc->r = accel_queue_read(rc->q, rc->buf, 0, sizeof(v), &v, 0, NULL,
				 NULL);
	if (rc->r == 0)
		rc->r = accel_queue_finish(rc->q);
	return NULL;
}

/* Threads making the first attachment at once: one is kept. */
static void test_attach_race(void **state)
{
	struct fixture *f = *state;
	struct race rc[4];
	pthread_t t[4];

	for (int round = 0; round < 8; round++) {
		struct accel_buffer *buf =
			buffer_on(f->env->dev, f->env->queue, 0);

		for (int i = 0; i < 4; i++) {
			rc[i].q = f->shelf.q;
			rc[i].buf = buf;
			assert_int_equal(pthread_create(&t[i], NULL, race_read,
							&rc[i]), 0);
		}
		for (int i = 0; i < 4; i++) {
			assert_int_equal(pthread_join(t[i], NULL), 0);
			assert_int_equal(rc[i].r, 0);
		}
		assert_int_equal(n_attached(buf), 1);
		accel_buffer_unref(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cpu_buffer_on_toy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_toy_buffer_on_cpu, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sub_buffers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copy_across, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unreachable, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lifetime, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_attach_race, setup,
						teardown),
	};

	return TEST_RUN_GROUP("buffer-attach", tests);
}
