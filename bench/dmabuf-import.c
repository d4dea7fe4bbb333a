/* SPDX-License-Identifier: MIT */
/*
 * dmabuf-import: what it costs to take a dma-buf into libaccel's CPU
 * device and look at it, by size. Zero-copy means the cost does not grow
 * with the buffer as a copy would.
 *
 * For dma-bufs of 4 KiB, 1 MiB, 16 MiB and 64 MiB, from the system heap
 * and from udmabuf (a memfd), each allocated once, one sample is
 *     accel_buffer_import_dmabuf() + accel_buffer_map() of the whole
 *     buffer + a read of its first and last word + accel_buffer_unmap()
 *     + accel_buffer_unref()
 * timed as a whole and by phase; the median over many samples is shown
 * next to what the kernel alone charges for the same (mmap, DMA_BUF_IOCTL_SYNC
 * around the two reads, munmap: what libaccel does underneath) and what
 * one memcpy() of the same size costs on this machine.
 *
 * Needs /dev/dma_heap/system or /dev/udmabuf, which build machines lack:
 *     tests/kernel/vm-run.sh -- build/bench/dmabuf-import
 * Exit status 77 (with the reason) where neither exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>

#include <libaccel/libaccel.h>

#include "bench-util.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)
#define EXIT_SKIP 77

static const uint64_t sizes[] = { 4 * KIB, 1 * MIB, 16 * MIB, 64 * MIB };
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

enum phase { PH_IMPORT, PH_MAP, PH_RELEASE, PH_TOTAL, N_PHASES };

struct result {
	double median[N_PHASES]; /* microseconds */
	double p90_total;
	double raw_us;           /* the same without libaccel (median) */
	double copy_us;          /* one memcpy() of the size */
};

/* The @pct percentile of @v (sorted in place), in microseconds. */
static double pct_us(uint64_t *v, size_t n, double pct)
{
	size_t i;

	qsort(v, n, sizeof(*v), bench_cmp_u64);
	i = (size_t)(pct / 100.0 * (double)(n - 1) + 0.5);
	return (double)v[i] / 1000.0;
}

/* ---- dma-bufs, made the way another program would make them ------------- */

static int heap_alloc(uint64_t size, int *ret_fd)
{
	struct dma_heap_allocation_data data = {
		.len = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap, r;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return -errno;
	r = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
	r = r < 0 ? -errno : 0;
	close(heap);
	if (r == 0)
		*ret_fd = (int)data.fd;
	return r;
}

static int udmabuf_alloc(uint64_t size, int *ret_fd)
{
	struct udmabuf_create create = {
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.size = size,
	};
	int memfd, dev, r;

	memfd = memfd_create("bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0)
		return -errno;
	if (ftruncate(memfd, (off_t)size) < 0 ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		r = -errno;
		close(memfd);
		return r;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		r = -errno;
		close(memfd);
		return r;
	}
	create.memfd = (uint32_t)memfd;
	r = ioctl(dev, UDMABUF_CREATE, &create);
	r = r < 0 ? -errno : r;
	close(dev);
	/* The udmabuf holds the pages; the memfd may go. */
	close(memfd);
	if (r >= 0)
		*ret_fd = r;
	return r < 0 ? r : 0;
}

struct source {
	const char *name;
	const char *node;
	int (*alloc)(uint64_t size, int *ret_fd);
};

static const struct source sources[] = {
	{ "heap", "/dev/dma_heap/system", heap_alloc },
	{ "udmabuf", "/dev/udmabuf", udmabuf_alloc },
};

/* ---- the measurement -------------------------------------------------------- */

/* One sample: import, map, touch, unmap, unref; phase times in @t. */
static int sample(struct accel_device *dev, int fd, uint64_t size,
		  uint64_t t[N_PHASES], volatile uint32_t *sink)
{
	struct accel_buffer *buf;
	uint64_t t0, t1, t2, t3;
	uint32_t *p;
	int r;

	t0 = bench_now_ns();
	r = accel_buffer_import_dmabuf(dev, fd, 0, &buf);
	if (r < 0)
		return r;
	t1 = bench_now_ns();
	r = accel_buffer_map(buf, 0, size, ACCEL_MAP_READ | ACCEL_MAP_WRITE,
			     (void **)&p);
	if (r < 0) {
		accel_buffer_unref(buf);
		return r;
	}
	/* The first and the last page really are there. */
	*sink += p[0] + p[size / 4 - 1];
	t2 = bench_now_ns();
	r = accel_buffer_unmap(buf, p);
	accel_buffer_unref(buf);
	t3 = bench_now_ns();
	t[PH_IMPORT] = t1 - t0;
	t[PH_MAP] = t2 - t1;
	t[PH_RELEASE] = t3 - t2;
	t[PH_TOTAL] = t3 - t0;
	return r;
}

/* Sync a dma-buf for CPU access (start or end), as libaccel does. */
static void cpu_access(int fd, bool start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 DMA_BUF_SYNC_RW,
	};

	ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * The floor: what the kernel charges for mapping the dma-buf, bracketing
 * two reads with DMA_BUF_IOCTL_SYNC and unmapping it. Median, in us.
 */
static double raw_us(int fd, uint64_t size, unsigned iterations,
		     volatile uint32_t *sink)
{
	uint64_t *t = calloc(iterations, sizeof(*t));
	unsigned i;
	double r;

	if (!t)
		return 0;
	for (i = 0; i < iterations; i++) {
		uint64_t t0 = bench_now_ns();
		uint32_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);

		if (p == MAP_FAILED) {
			free(t);
			return 0;
		}
		cpu_access(fd, true);
		*sink += p[0] + p[size / 4 - 1];
		cpu_access(fd, false);
		munmap(p, size);
		t[i] = bench_now_ns() - t0;
	}
	r = pct_us(t, iterations, 50);
	free(t);
	return r;
}

/* The median of a few memcpy()s of @size bytes out of the dma-buf @fd. */
static double copy_us(int fd, uint64_t size)
{
	uint64_t t[5];
	void *src, *dst;
	size_t i;

	src = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	dst = malloc(size);
	if (src == MAP_FAILED || !dst) {
		if (src != MAP_FAILED)
			munmap(src, size);
		free(dst);
		return 0;
	}
	/* Fault both in first: only the copy is timed. */
	memcpy(dst, src, size);
	for (i = 0; i < 5; i++) {
		uint64_t t0 = bench_now_ns();

		memcpy(dst, src, size);
		t[i] = bench_now_ns() - t0;
	}
	munmap(src, size);
	free(dst);
	return pct_us(t, 5, 50);
}

static int measure(struct accel_device *dev, const struct source *s,
		   uint64_t size, unsigned iterations, unsigned warmup,
		   struct result *res)
{
	uint64_t *v[N_PHASES], t[N_PHASES];
	static volatile uint32_t sink;
	unsigned i, ph;
	int fd, r;

	r = s->alloc(size, &fd);
	if (r < 0)
		return r;
	for (ph = 0; ph < N_PHASES; ph++)
		v[ph] = calloc(iterations, sizeof(uint64_t));
	for (ph = 0; ph < N_PHASES; ph++)
		if (!v[ph])
			r = -ENOMEM;
	for (i = 0; r == 0 && i < warmup; i++)
		r = sample(dev, fd, size, t, &sink);
	for (i = 0; r == 0 && i < iterations; i++) {
		r = sample(dev, fd, size, t, &sink);
		for (ph = 0; ph < N_PHASES; ph++)
			v[ph][i] = t[ph];
	}
	if (r == 0) {
		for (ph = 0; ph < N_PHASES; ph++)
			res->median[ph] = pct_us(v[ph], iterations, 50);
		res->p90_total = pct_us(v[PH_TOTAL], iterations, 90);
		res->raw_us = raw_us(fd, size, iterations, &sink);
		res->copy_us = copy_us(fd, size);
	}
	for (ph = 0; ph < N_PHASES; ph++)
		free(v[ph]);
	close(fd);
	return r;
}

/* ---- output ------------------------------------------------------------------ */

static void size_name(uint64_t size, char *buf, size_t len)
{
	if (size >= MIB)
		snprintf(buf, len, "%" PRIu64 " MiB", size / MIB);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", size / KIB);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dmabuf-import [-n SAMPLES] [-w WARMUP]\n"
		"  -n  samples per source and size (default 200)\n"
		"  -w  untimed samples first (default 20)\n"
		"(-b and -r of bench/run.sh are accepted and ignored)\n");
}

int main(int argc, char **argv)
{
	unsigned iterations = 200, warmup = 20, s, i, ran = 0;
	struct accel_context *ctx = NULL;
	struct accel_device *cpu = NULL;
	uint64_t caps = 0;
	int opt, r, ret = 0;

	while ((opt = getopt(argc, argv, "n:w:b:r:h")) != -1) {
		switch (opt) {
		case 'n':
			iterations = bench_parse_count("dmabuf-import", optarg,
				"sample count", 10000000);
			break;
		case 'w':
			warmup = bench_parse_count("dmabuf-import", optarg,
				"warm-up count", 10000000);
			break;
		case 'b':
		case 'r':
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	r = accel_context_new(0, &ctx);
	if (r < 0) {
		fprintf(stderr, "dmabuf-import: accel_context_new: %s\n",
			strerror(-r));
		return 1;
	}
	if (bench_find_cpu_device(ctx, &cpu) == 0)
		accel_device_query_u64(cpu, ACCEL_DEVICE_U64_CAPS, &caps);
	if (!(caps & ACCEL_DEVICE_CAP_DMABUF_IMPORT)) {
		printf("dmabuf-import: SKIP: the CPU device cannot import "
		       "dma-bufs\n");
		ret = EXIT_SKIP;
		goto out;
	}

	printf("dmabuf-import: libaccel %s, CPU device; %u samples after %u "
	       "warm-up per line\n", accel_get_version(), iterations, warmup);
	bench_print_machine("start");
	printf("sample = import + map whole buffer + read first/last word + "
	       "unmap + unref (us)\n"
	       "kernel = mmap + DMA_BUF_IOCTL_SYNC + the same reads + munmap, "
	       "no libaccel (us)\n"
	       "x copy = sample / one memcpy() of the size\n\n");
	printf("%-8s %7s | %9s %9s | %9s %9s %9s | %9s | %10s %8s\n",
	       "source", "size", "median", "p90", "import", "map", "release",
	       "kernel", "memcpy", "x copy");
	printf("-----------------+---------------------+"
	       "-------------------------------+-----------+"
	       "--------------------\n");
	for (s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
		double first = 0, last = 0, raw_first = 0, raw_last = 0;

		if (access(sources[s].node, R_OK) < 0) {
			printf("%-8s: skipped, no %s (%s)\n", sources[s].name,
			       sources[s].node, strerror(errno));
			continue;
		}
		for (i = 0; i < N_SIZES; i++) {
			struct result res;
			char name[32];

			memset(&res, 0, sizeof(res));
			size_name(sizes[i], name, sizeof(name));
			r = measure(cpu, &sources[s], sizes[i], iterations,
				    warmup, &res);
			if (r < 0) {
				printf("%-8s %7s | failed: %s\n",
				       sources[s].name, name, strerror(-r));
				ret = 1;
				continue;
			}
			printf("%-8s %7s | %9.1f %9.1f | %9.1f %9.1f %9.1f | "
			       "%9.1f | %10.1f %7.3fx\n", sources[s].name,
			       name, res.median[PH_TOTAL], res.p90_total,
			       res.median[PH_IMPORT], res.median[PH_MAP],
			       res.median[PH_RELEASE], res.raw_us, res.copy_us,
			       res.copy_us > 0 ?
				       res.median[PH_TOTAL] / res.copy_us :
				       0.0);
			if (i == 0) {
				first = res.median[PH_TOTAL];
				raw_first = res.raw_us;
			}
			if (i == N_SIZES - 1) {
				last = res.median[PH_TOTAL];
				raw_last = res.raw_us;
			}
			ran++;
		}
		if (first > 0 && last > 0 && raw_first > 0)
			printf("%-8s: 64 MiB is 16384x the size of 4 KiB and "
			       "costs %.1fx as much (the kernel alone: %.1fx)\n",
			       sources[s].name, last / first,
			       raw_last / raw_first);
	}
	printf("\n");
	bench_print_machine("end");
	if (!ran && ret == 0) {
		printf("dmabuf-import: SKIP: no dma-buf heap and no udmabuf "
		       "here (run it in the kernel test tier: "
		       "tests/kernel/vm-run.sh -- build/bench/dmabuf-import)\n");
		ret = EXIT_SKIP;
	}
out:
	accel_device_unref(cpu);
	accel_context_unref(ctx);
	return ret;
}
