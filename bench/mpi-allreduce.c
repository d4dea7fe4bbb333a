/* SPDX-License-Identifier: MIT */
/*
 * mpi-allreduce: what MPI_Allreduce costs on libaccel buffers against
 * plain malloc() buffers, by size, in one run.
 *
 * For each size (4 KiB to 64 MiB by default, x4 steps) and each kind of
 * buffer: MPI_Allreduce(MPI_IN_PLACE, SUM) of floats, one warm-up call,
 * then -r blocks (default 3) of back-to-back calls, each about -t / -r
 * seconds long (default -t 1; at least one call), the kinds taking turns
 * block by block. The slowest rank's time per call counts, and the best
 * block of each kind: a busy host only ever adds time. The libaccel
 * buffer is a CPU-device buffer of the largest size, handed to MPI
 * through its host mapping as examples/mpi-allreduce.c does; the malloc()
 * one is as large and touched first. Both start zeroed, so the sums stay
 * zero.
 *
 *   latency  microseconds per allreduce
 *   busbw    bytes * 2 (N - 1) / N / time: the bandwidth each rank's link
 *            carries in a ring allreduce (nccl-tests' "bus bandwidth"),
 *            comparable across rank counts
 *
 * Usage: mpirun -np N mpi-allreduce [-m MIN] [-M MAX] [-t SECONDS] [-r N]
 * bench/mpi-allreduce.sh runs it in the kernel tier across two network
 * namespaces over soft-RoCE and TCP (bench/README.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench-util.h"

enum kind { KIND_ACCEL, KIND_MALLOC, N_KINDS };

static void allreduce(float *buf, int count)
{
	MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM,
		      MPI_COMM_WORLD);
}

/* The slowest rank's @t. */
static double slowest(double t)
{
	double all;

	MPI_Allreduce(&t, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return all;
}

/*
 * Seconds for one call: the first one (connections, registrations, the
 * caches' first miss), which also sizes the timed blocks.
 */
static double warm_up(float *buf, int count)
{
	double t;

	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	allreduce(buf, count);
	return slowest(MPI_Wtime() - t);
}

/* Seconds per call over @iters back-to-back calls. */
static double timed_block(float *buf, int count, long iters)
{
	double t;
	long i;

	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	for (i = 0; i < iters; i++)
		allreduce(buf, count);
	return slowest((MPI_Wtime() - t) / (double)iters);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'm' || *end == 'M')
		v <<= 20;
	return v;
}

static void print_size(char *out, size_t len, uint64_t bytes)
{
	if (bytes >= (1u << 20))
		snprintf(out, len, "%" PRIu64 " MiB", bytes >> 20);
	else
		snprintf(out, len, "%" PRIu64 " KiB", bytes >> 10);
}

int main(int argc, char **argv)
{
	static const char *const names[N_KINDS] = { "libaccel", "malloc" };
	uint64_t min = 4 << 10, max = 64 << 20, bytes;
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct accel_buffer *abuf = NULL;
	float *buf[N_KINDS] = { NULL };
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
	double budget = 1.0;
	int reps = 3;
	int rank, size, len, i, k, r, step;
	void *map = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
			min = parse_size(argv[++i]);
		else if (strcmp(argv[i], "-M") == 0 && i + 1 < argc)
			max = parse_size(argv[++i]);
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			budget = strtod(argv[++i], NULL);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
			break;
	}
	if (i < argc || min < 4 || max < min || max > (1ull << 31) ||
	    budget <= 0 || reps < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: %s [-m MIN] [-M MAX (<= 2G)] "
				"[-t SECONDS] [-r BLOCKS]\n", argv[0]);
		MPI_Finalize();
		return 2;
	}

	r = accel_context_new(0, &ctx);
	if (r == 0)
		r = bench_find_cpu_device(ctx, &dev);
	if (r == 0)
		r = accel_buffer_new(dev, max, 0, &abuf);
	if (r == 0)
		r = accel_buffer_map(abuf, 0, max,
				     ACCEL_MAP_READ | ACCEL_MAP_WRITE, &map);
	buf[KIND_ACCEL] = map;
	buf[KIND_MALLOC] = calloc(1, max);
	if (r < 0 || !buf[KIND_MALLOC]) {
		fprintf(stderr, "mpi-allreduce: rank %d: %s\n", rank,
			strerror(r < 0 ? -r : ENOMEM));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* calloc() may leave pages unmapped; MPI's first touch is not ours. */
	memset(buf[KIND_MALLOC], 0, max);

	MPI_Get_processor_name(host, &len);
	if (rank == 0) {
		MPI_Get_library_version(lib, &len);
		lib[strcspn(lib, ",\n")] = '\0';
		bench_print_machine("start");
		printf("%s, %d ranks (rank 0 on %s), UCX_TLS=%s, "
		       "%.1f s per point in %d blocks, the best counts\n",
		       lib, size, host,
		       getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset)",
		       budget, reps);
		printf("%-8s %12s %12s %12s %12s %7s\n", "size",
		       "accel us", "accel MB/s", "malloc us", "malloc MB/s",
		       "ratio");
	}
	for (bytes = min, step = 0; bytes <= max; bytes *= 4, step++) {
		int count = (int)(bytes / sizeof(float));
		double t[N_KINDS], first[N_KINDS];
		long iters[N_KINDS];
		char sz[32];

		/*
		 * Blocks of about budget / reps seconds, the kinds taking
		 * turns (the first kind alternating with the size); the best
		 * block counts: a busy host only ever adds time.
		 */
		for (k = 0; k < N_KINDS; k++) {
			int kind = (k + step) % N_KINDS;

			first[kind] = warm_up(buf[kind], count);
			iters[kind] = (long)(budget / reps /
					     (first[kind] > 1e-9 ?
						      first[kind] : 1e-9));
			if (iters[kind] < 1)
				iters[kind] = 1;
			if (iters[kind] > 10000)
				iters[kind] = 10000;
			t[kind] = 1e30;
		}
		for (i = 0; i < reps; i++) {
			for (k = 0; k < N_KINDS; k++) {
				int kind = (k + step + i) % N_KINDS;
				double b = timed_block(buf[kind], count,
						       iters[kind]);

				if (b < t[kind])
					t[kind] = b;
			}
		}
		if (rank != 0)
			continue;
		print_size(sz, sizeof(sz), bytes);
		printf("%-8s %12.1f %12.1f %12.1f %12.1f %7.2f\n", sz,
		       t[KIND_ACCEL] * 1e6,
		       (double)bytes * 2 * (size - 1) / size / t[KIND_ACCEL] /
			       1e6,
		       t[KIND_MALLOC] * 1e6,
		       (double)bytes * 2 * (size - 1) / size /
			       t[KIND_MALLOC] / 1e6,
		       t[KIND_ACCEL] / t[KIND_MALLOC]);
		fflush(stdout);
	}
	if (rank == 0) {
		printf("(ratio: libaccel time / malloc time; %s and %s "
		       "buffers)\n", names[KIND_ACCEL], names[KIND_MALLOC]);
		bench_print_machine("end");
	}

	free(buf[KIND_MALLOC]);
	if (map)
		accel_buffer_unmap(abuf, map);
	accel_buffer_unref(abuf);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	MPI_Finalize();
	return 0;
}
