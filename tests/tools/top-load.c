/* SPDX-License-Identifier: MIT */
/*
 * A process for accel-info top to watch: holds a buffer of the size asked
 * on the CPU device (or the device of the node given) and fills it back to
 * back for SECONDS after the first fill is done, when it prints "ready".
 * Usage: top-load SECONDS MiB [NODE]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libaccel/libaccel.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fill(struct accel_queue *queue, struct accel_buffer *buf,
		uint64_t size)
{
	static const uint32_t pattern = 0xa5a5a5a5;
	struct accel_fence *fence;
	int r;

	r = accel_queue_fill(queue, buf, 0, size, &pattern, sizeof(pattern), 0,
			     NULL, &fence);
	if (r < 0)
		return r;
	r = accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);
	accel_fence_unref(fence);
	return r;
}

int main(int argc, char **argv)
{
	struct accel_context *ctx;
	struct accel_device *devs[16], *dev = NULL;
	const char *node;
	struct accel_buffer *buf;
	struct accel_queue *queue;
	double end;
	uint64_t size, type;
	int n, i, r;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: top-load SECONDS MiB [NODE]\n");
		return 2;
	}
	size = strtoull(argv[2], NULL, 10) << 20;
	if (accel_context_new(0, &ctx) < 0)
		return 1;
	n = accel_context_get_devices(ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		bool match;

		if (argc == 4)
			match = accel_device_query_string(
					devs[i], ACCEL_DEVICE_STRING_DEVNODE,
					&node) == 0 &&
				!strcmp(node, argv[3]);
		else
			match = accel_device_query_u64(devs[i],
						       ACCEL_DEVICE_U64_TYPE,
						       &type) == 0 &&
				type == ACCEL_DEVICE_TYPE_CPU;
		if (!dev && match)
			dev = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!dev || accel_buffer_new(dev, size, 0, &buf) < 0 ||
	    accel_queue_new(dev, 0, &queue) < 0) {
		fprintf(stderr, "top-load: no such device, buffer or queue\n");
		return 1;
	}
	r = fill(queue, buf, size);
	/* from here: starting may take long on a loaded (or emulated) CPU */
	end = now() + atof(argv[1]);
	printf("ready\n");
	fflush(stdout);
	while (r == 0 && now() < end)
		r = fill(queue, buf, size);
	accel_queue_unref(queue);
	accel_buffer_unref(buf);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	if (r < 0)
		fprintf(stderr, "top-load: %s\n", accel_strerror(r));
	return r < 0;
}
