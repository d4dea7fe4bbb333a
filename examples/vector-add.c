/* SPDX-License-Identifier: MIT */
/*
 * vector-add: c[i] = a[i] + b[i] on libaccel's CPU reference device.
 *
 * A tour of the whole public API in the order a program uses it:
 *   1. a context, with our own log handler;
 *   2. the CPU device, found by enumerating devices;
 *   3. a program made from a native work-group function (accel-wg.h);
 *   4. buffers, filled through zero-copy host maps;
 *   5. a kernel with its arguments set;
 *   6. a profiling queue, a 1-D launch with the work-group size left to
 *      libaccel, a fence with a callback, a wait;
 *   7. verification of every element on the host.
 *
 * Usage: vector-add [N]     (N elements, default 1048576)
 * Exit status: 0 if every element matched, 1 otherwise or on error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/libaccel.h>

/* ---- the kernel ---------------------------------------------------------- */

/*
 * A native work-group function: libaccel calls it once per work-group,
 * possibly from several worker threads at once (each with its own ctx).
 * It plays the role the compiler's generated code plays for OpenCL C:
 *
 *     kernel void vadd(global const float *a, global const float *b,
 *                      global float *c, ulong n)
 *     { size_t i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }
 *
 * args[k] points at argument k's value: for a buffer, at a `void *` that
 * holds the buffer's address; for a by-value argument, at its bytes.
 */
static void vadd_wg(void **args, const struct accel_wg_ctx *ctx)
{
	const float *a = *(const float *const *)args[0];
	const float *b = *(const float *const *)args[1];
	float *c = *(float *const *)args[2];
	uint64_t n = *(const uint64_t *)args[3];
	/*
	 * The first global id of this group. Use the *enqueued* local size
	 * to find where the group starts: the last group may be smaller
	 * (ctx->local_size) when the global size is not a multiple of it.
	 */
	uint64_t first = ctx->global_offset[0] +
			 ctx->group_id[0] * ctx->enqueued_local_size[0];
	uint64_t i;

	for (i = first; i < first + ctx->local_size[0]; i++) {
		/* OpenCL C code would have this guard; not needed here. */
		if (i < n)
			c[i] = a[i] + b[i];
	}
}

/* What libaccel needs to know about the kernel's arguments. */
static const struct accel_kernel_arg_desc vadd_args[] = {
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.type_qualifiers = ACCEL_KERNEL_ARG_TYPE_CONST,
		.name = "a",
		.type_name = "float*",
	},
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.type_qualifiers = ACCEL_KERNEL_ARG_TYPE_CONST,
		.name = "b",
		.type_name = "float*",
	},
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
		.name = "c",
		.type_name = "float*",
	},
	{
		.struct_size = sizeof(struct accel_kernel_arg_desc),
		.kind = ACCEL_KERNEL_ARG_VALUE,
		.size = sizeof(uint64_t),
		.address_space = ACCEL_KERNEL_ARG_ADDR_PRIVATE,
		.name = "n",
		.type_name = "ulong",
	},
};

/* The inputs, a function of the index so the host can recompute them. */
static float input_a(uint64_t i)
{
	return (float)(i % 1000) * 0.5f;
}

static float input_b(uint64_t i)
{
	return (float)(i % 777) * 0.25f + 1.0f;
}

/* ---- logging and callbacks ----------------------------------------------- */

/*
 * libaccel logs through the context, never globally. This handler may run
 * on libaccel's worker threads; one fprintf per message keeps lines whole.
 */
__attribute__((format(printf, 6, 0))) static void
log_handler(struct accel_context *ctx, int priority, const char *file,
	    int line, const char *fn, const char *format, va_list args,
	    void *user_data)
{
	const char *prog = user_data;
	char msg[512];

	(void)ctx;
	(void)file;
	(void)line;
	(void)fn;
	vsnprintf(msg, sizeof(msg), format, args);
	fprintf(stderr, "%s: libaccel (priority %d): %s", prog, priority, msg);
}

/*
 * Runs once when the launch's fence signals, usually on the libaccel
 * worker that finished the work, so it must be quick and thread-safe.
 * It hands its result to the main thread through a user fence: waiting
 * for the launch fence alone would not guarantee the callback has
 * returned.
 */
static void launch_done(struct accel_fence *fence, int status, void *user_data)
{
	struct accel_fence *done = user_data;

	(void)fence;
	/* A user fence signals with 0 or a negative errno, like any other. */
	accel_fence_signal(done, status);
	/* Drop the reference main() gave us along with the callback. */
	accel_fence_unref(done);
}

/* ---- helpers ------------------------------------------------------------- */

static int find_cpu_device(struct accel_context *ctx,
			   struct accel_device **ret)
{
	struct accel_device *devs[16];
	int n, i;

	n = accel_context_get_devices(ctx, devs, 16);
	if (n < 0)
		return n;
	if (n > 16)
		n = 16;
	for (i = 0; i < n; i++) {
		uint64_t type;

		if (!*ret && accel_device_query_u64(devs[i],
						    ACCEL_DEVICE_U64_TYPE,
						    &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU)
			*ret = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return *ret ? 0 : -ENODEV;
}

static double span_us(struct accel_fence *fence, enum accel_fence_time from,
		      enum accel_fence_time to)
{
	uint64_t t0, t1;

	if (accel_fence_get_time(fence, from, &t0) < 0 ||
	    accel_fence_get_time(fence, to, &t1) < 0)
		return -1.0;
	return (double)(t1 - t0) / 1000.0;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "vector-add: %s: %s\n", what, strerror(-err));
	return 1;
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct accel_program *prog = NULL;
	struct accel_kernel *kernel = NULL;
	struct accel_buffer *a = NULL, *b = NULL, *c = NULL;
	struct accel_queue *queue = NULL;
	struct accel_fence *fence = NULL, *cb_fence = NULL;
	const char *dev_name = "?";
	uint64_t n = UINT64_C(1) << 20, size, i;
	float *pa, *pb;
	const float *pc;
	void *map;
	int r, status = 1;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [N]\n", argv[0]);
		return 1;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		n = strtoull(argv[1], &end, 0);
		if (errno || end == argv[1] || *end || n == 0 ||
		    n > UINT64_MAX / sizeof(float) || argv[1][0] == '-') {
			fprintf(stderr, "vector-add: bad element count '%s'\n",
				argv[1]);
			return 1;
		}
	}
	size = n * sizeof(float);

	/* 1. The context: the root of everything, with our log handler. */
	r = accel_context_new(0, &ctx);
	if (r < 0)
		return fail("accel_context_new", r);
	accel_context_set_log_fn(ctx, log_handler, (void *)"vector-add");
	/* Warnings too, not only errors (ACCEL_LOG=debug still wins). */
	if (accel_context_get_log_priority(ctx) < ACCEL_LOG_WARNING)
		accel_context_set_log_priority(ctx, ACCEL_LOG_WARNING);

	/* 2. The CPU reference device is always present. */
	r = find_cpu_device(ctx, &dev);
	if (r < 0) {
		fail("no CPU device", r);
		goto out;
	}
	accel_device_query_string(dev, ACCEL_DEVICE_STRING_NAME, &dev_name);
	printf("vector-add: device \"%s\", %" PRIu64 " elements\n", dev_name,
	       n);

	/* 3. A program holding our native work-group function. */
	{
		const struct accel_native_kernel_desc desc = {
			.struct_size = sizeof(desc),
			.name = "vadd",
			.fn = vadd_wg,
			.n_args = sizeof(vadd_args) / sizeof(vadd_args[0]),
			.args = vadd_args,
		};

		r = accel_program_new_native(dev, &desc, 1, &prog);
		if (r < 0) {
			fail("accel_program_new_native", r);
			goto out;
		}
	}

	/*
	 * 4. Buffers. The flags tell libaccel how kernels and the host use
	 * them; on the CPU device the memory is shared, so a map is just a
	 * pointer into the buffer (zero-copy) and we write the inputs in
	 * place instead of copying them with accel_queue_write().
	 */
	r = accel_buffer_new(dev, size,
			     ACCEL_BUFFER_READ_ONLY |
				     ACCEL_BUFFER_HOST_WRITE_ONLY,
			     &a);
	if (r == 0)
		r = accel_buffer_new(dev, size,
				     ACCEL_BUFFER_READ_ONLY |
					     ACCEL_BUFFER_HOST_WRITE_ONLY,
				     &b);
	if (r == 0)
		r = accel_buffer_new(dev, size,
				     ACCEL_BUFFER_WRITE_ONLY |
					     ACCEL_BUFFER_HOST_READ_ONLY,
				     &c);
	if (r < 0) {
		fail("accel_buffer_new", r);
		goto out;
	}

	/* WRITE_INVALIDATE: we overwrite it all, old contents don't matter. */
	r = accel_buffer_map(a, 0, size, ACCEL_MAP_WRITE_INVALIDATE, &map);
	if (r < 0) {
		fail("accel_buffer_map(a)", r);
		goto out;
	}
	pa = map;
	r = accel_buffer_map(b, 0, size, ACCEL_MAP_WRITE_INVALIDATE, &map);
	if (r < 0) {
		accel_buffer_unmap(a, pa);
		fail("accel_buffer_map(b)", r);
		goto out;
	}
	pb = map;
	for (i = 0; i < n; i++) {
		pa[i] = input_a(i);
		pb[i] = input_b(i);
	}
	/* Unmap before the kernel uses the buffers. */
	accel_buffer_unmap(a, pa);
	accel_buffer_unmap(b, pb);

	/* 5. A kernel object: the function plus its argument values. */
	r = accel_kernel_new(prog, "vadd", &kernel);
	if (r < 0) {
		fail("accel_kernel_new", r);
		goto out;
	}
	if ((r = accel_kernel_set_arg_buffer(kernel, 0, a)) < 0 ||
	    (r = accel_kernel_set_arg_buffer(kernel, 1, b)) < 0 ||
	    (r = accel_kernel_set_arg_buffer(kernel, 2, c)) < 0 ||
	    (r = accel_kernel_set_arg_value(kernel, 3, sizeof(n), &n)) < 0) {
		fail("accel_kernel_set_arg", r);
		goto out;
	}

	/* 6. A queue that records timestamps, and the launch. */
	r = accel_queue_new(dev, ACCEL_QUEUE_PROFILING, &queue);
	if (r < 0) {
		fail("accel_queue_new", r);
		goto out;
	}
	{
		/* local_size all 0: libaccel picks the work-group size. */
		const struct accel_ndrange range = {
			.struct_size = sizeof(range),
			.work_dim = 1,
			.global_size = { n, 1, 1 },
		};

		r = accel_queue_launch(queue, kernel, &range, 0, NULL, &fence);
		if (r < 0) {
			fail("accel_queue_launch", r);
			goto out;
		}
	}

	/*
	 * A callback on the launch's fence. The callback signals a user
	 * fence; the main thread waits for that one below.
	 */
	r = accel_fence_new_user(ctx, &cb_fence);
	if (r == 0) {
		/*
		 * The callback gets its own reference: it may run after
		 * main() dropped its one.
		 */
		r = accel_fence_add_callback(fence, launch_done,
					     accel_fence_ref(cb_fence));
		if (r < 0)
			accel_fence_unref(cb_fence);
	}
	if (r < 0) {
		/* Wait for the launch before leaving: it uses our buffers. */
		accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);
		fail("fence callback", r);
		goto out;
	}

	/* Returns 0, or the negative errno the launch failed with. */
	r = accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);
	if (r < 0) {
		fail("the launch failed", r);
		goto out;
	}
	r = accel_fence_wait(cb_fence, ACCEL_TIMEOUT_INFINITE);
	printf("vector-add: fence callback ran (status %d)\n", r);

	printf("vector-add: profiling: queued->submitted %.1f us, "
	       "submitted->started %.1f us, started->ended %.1f us\n",
	       span_us(fence, ACCEL_FENCE_TIME_QUEUED,
		       ACCEL_FENCE_TIME_SUBMITTED),
	       span_us(fence, ACCEL_FENCE_TIME_SUBMITTED,
		       ACCEL_FENCE_TIME_STARTED),
	       span_us(fence, ACCEL_FENCE_TIME_STARTED,
		       ACCEL_FENCE_TIME_ENDED));

	/* 7. Read the result in place and check every element. */
	r = accel_buffer_map(c, 0, size, ACCEL_MAP_READ, &map);
	if (r < 0) {
		fail("accel_buffer_map(c)", r);
		goto out;
	}
	pc = map;
	for (i = 0; i < n; i++) {
		/* The same float addition on the host: exact equality holds. */
		float want = input_a(i) + input_b(i);

		if (pc[i] != want) {
			printf("vector-add: MISMATCH at element %" PRIu64
			       ": got %g, expected %g\n",
			       i, (double)pc[i], (double)want);
			break;
		}
	}
	accel_buffer_unmap(c, map);
	if (i == n) {
		printf("vector-add: %" PRIu64 " elements OK (verified)\n", n);
		status = 0;
	}

out:
	/* Any order works: children keep their parents alive. */
	accel_fence_unref(cb_fence);
	accel_fence_unref(fence);
	accel_queue_unref(queue);
	accel_kernel_unref(kernel);
	accel_program_unref(prog);
	accel_buffer_unref(c);
	accel_buffer_unref(b);
	accel_buffer_unref(a);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	return status;
}
