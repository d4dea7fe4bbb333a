/* SPDX-License-Identifier: MIT */
/*
 * opencl-c: an OpenCL C kernel through libaccel's C API, no OpenCL loader.
 *
 *   1. the CPU device, and whether (and why not) it compiles OpenCL C;
 *   2. a program built from source with a -D option; on failure the
 *      build log and accel_strerror()'s meaning of the error;
 *   3. the program binary, reloaded as a second program: what a client
 *      would keep on disk to skip the build next time;
 *   4. buffers, a kernel, a profiled launch (queued/start/end times);
 *   5. verification on the host.
 *
 * Usage: opencl-c [N]     (N elements, default 1000003)
 * Exit status: 0 on success, 1 on error or a wrong result, 77 when the
 * device has no OpenCL C compiler.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/libaccel.h>

/* SCALE comes from the build options, as clBuildProgram's -D would. */
static const char source[] =
	"kernel void saxpy(global const float *x, global float *y,\n"
	"                  float a, uint n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"\n"
	"	if (i < n)\n"
	"		y[i] = SCALE * a * x[i] + y[i];\n"
	"}\n";

static int fail(const char *what, int err)
{
	fprintf(stderr, "opencl-c: %s: %s\n", what, accel_strerror(err));
	return 1;
}

static int cpu_device(struct accel_context *ctx, struct accel_device **ret)
{
	struct accel_device *devs[16];
	int n = accel_context_get_devices(ctx, devs, 16);

	if (n < 0)
		return n;
	for (int i = 0; i < (n < 16 ? n : 16); i++) {
		uint64_t type = 0;

		accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE, &type);
		if (!*ret && type == ACCEL_DEVICE_TYPE_CPU)
			*ret = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	return *ret ? 0 : -ENODEV;
}

/* Build from source; print the log when the build fails. */
static int build(struct accel_device *dev, struct accel_program **ret)
{
	char *log = NULL;
	int r = accel_program_new_source(dev, source, 0, "-DSCALE=2.0f", &log,
					 ret);

	if (r < 0 && log)
		fprintf(stderr, "opencl-c: build log:\n%s", log);
	free(log);
	return r;
}

/* The same program again from its binary (no compiler run). */
static int reload(struct accel_device *dev, struct accel_program *built,
		  struct accel_program **ret)
{
	const void *bin;
	size_t size;
	int r = accel_program_get_binary(built, &bin, &size);

	if (r < 0)
		return r;
	printf("program binary: %zu bytes\n", size);
	return accel_program_new_binary(dev, bin, size, ret);
}

static int fill(struct accel_buffer *buf, uint32_t n, float (*f)(uint32_t))
{
	float *p;
	int r = accel_buffer_map(buf, 0, (uint64_t)n * sizeof(float),
				 ACCEL_MAP_WRITE_INVALIDATE, (void **)&p);

	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n; i++)
		p[i] = f(i);
	return accel_buffer_unmap(buf, p);
}

static float x_of(uint32_t i)
{
	return (float)(i % 1024) * 0.25f;
}

static float y_of(uint32_t i)
{
	return (float)(i % 333);
}

/* y = 2 * a * x + y, exactly representable for these inputs */
static int check(struct accel_buffer *y, uint32_t n, float a)
{
	const float *p;
	uint32_t bad = 0;
	int r = accel_buffer_map(y, 0, (uint64_t)n * sizeof(float),
				 ACCEL_MAP_READ, (void **)&p);

	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != 2.0f * a * x_of(i) + y_of(i) && bad++ < 5)
			fprintf(stderr, "opencl-c: y[%" PRIu32 "] = %g\n", i,
				(double)p[i]);
	accel_buffer_unmap(y, (void *)p);
	return bad ? -EIO : 0;
}

static double us_between(struct accel_fence *f, enum accel_fence_time from,
			 enum accel_fence_time to)
{
	uint64_t t0, t1;

	if (accel_fence_get_time(f, from, &t0) < 0 ||
	    accel_fence_get_time(f, to, &t1) < 0)
		return -1.0;
	return (double)(t1 - t0) / 1000.0;
}

/* Buffers, arguments, one profiled launch, the check. */
static int run(struct accel_device *dev, struct accel_program *prog,
	       uint32_t n)
{
	struct accel_buffer *x = NULL, *y = NULL;
	struct accel_kernel *k = NULL;
	struct accel_queue *q = NULL;
	struct accel_fence *done = NULL;
	struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 1,
		.global_size = { n, 1, 1 },   /* local size left to libaccel */
	};
	const float a = 1.5f;
	uint64_t bytes = (uint64_t)n * sizeof(float);
	int r;

	if ((r = accel_buffer_new(dev, bytes, 0, &x)) < 0 ||
	    (r = accel_buffer_new(dev, bytes, 0, &y)) < 0 ||
	    (r = fill(x, n, x_of)) < 0 || (r = fill(y, n, y_of)) < 0) {
		fail("buffers", r);
		goto out;
	}
	if ((r = accel_kernel_new(prog, "saxpy", &k)) < 0 ||
	    (r = accel_kernel_set_arg_buffer(k, 0, x)) < 0 ||
	    (r = accel_kernel_set_arg_buffer(k, 1, y)) < 0 ||
	    (r = accel_kernel_set_arg_value(k, 2, sizeof(a), &a)) < 0 ||
	    (r = accel_kernel_set_arg_value(k, 3, sizeof(n), &n)) < 0) {
		fail("kernel", r);
		goto out;
	}
	if ((r = accel_queue_new(dev, ACCEL_QUEUE_PROFILING, &q)) < 0 ||
	    (r = accel_queue_launch(q, k, &range, 0, NULL, &done)) < 0 ||
	    (r = accel_fence_wait(done, ACCEL_TIMEOUT_INFINITE)) < 0) {
		fail("launch", r);
		goto out;
	}
	printf("saxpy of %" PRIu32 " floats: %.1f us queued to end, "
	       "%.1f us running\n", n,
	       us_between(done, ACCEL_FENCE_TIME_QUEUED, ACCEL_FENCE_TIME_ENDED),
	       us_between(done, ACCEL_FENCE_TIME_STARTED,
			  ACCEL_FENCE_TIME_ENDED));
	r = check(y, n, a);
	if (r < 0)
		fail("result", r);
out:
	accel_fence_unref(done);
	accel_queue_unref(q);
	accel_kernel_unref(k);
	accel_buffer_unref(y);
	accel_buffer_unref(x);
	return r;
}

int main(int argc, char **argv)
{
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct accel_program *built = NULL, *prog = NULL;
	uint64_t caps = 0;
	const char *why = "";
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000003;
	int r, status = 1;

	if (n == 0 || n > UINT32_MAX) {
		fprintf(stderr, "usage: opencl-c [N], 0 < N < 2^32\n");
		return 2;
	}
	r = accel_context_new(0, &ctx);
	if (r < 0)
		return fail("context", r);
	r = cpu_device(ctx, &dev);
	if (r < 0) {
		fail("CPU device", r);
		goto out;
	}
	accel_device_query_u64(dev, ACCEL_DEVICE_U64_CAPS, &caps);
	if (!(caps & ACCEL_DEVICE_CAP_COMPILER)) {
		accel_device_query_string(dev, ACCEL_DEVICE_STRING_COMPILER,
					  &why);
		fprintf(stderr, "opencl-c: no OpenCL C compiler: %s\n", why);
		status = 77;
		goto out;
	}
	if ((r = build(dev, &built)) < 0) {
		fail("build", r);
		goto out;
	}
	if ((r = reload(dev, built, &prog)) < 0) {
		fail("program binary", r);
		goto out;
	}
	if (run(dev, prog, (uint32_t)n) == 0) {
		printf("opencl-c: %lu results correct\n", n);
		status = 0;
	}
out:
	accel_program_unref(prog);
	accel_program_unref(built);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	return status;
}
