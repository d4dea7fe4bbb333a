/* SPDX-License-Identifier: MIT */
/*
 * launch-latency: what one command costs on the CPU reference device,
 * through the public C API.
 *
 * For three commands - an empty kernel launch (one work-item), a marker
 * and a 4-byte write - and for a command list of LIST_LEN empty launches
 * submitted at once (accel_queue_submit_list(); its numbers are per
 * launch), it measures:
 *   - latency: submit one command, wait on its fence; median and p90 (and
 *     min/p99) over many iterations after a warm-up;
 *   - throughput: submit N commands back to back without fences, then one
 *     accel_queue_finish(); reported as microseconds per command (the
 *     best of a few rounds, the least disturbed by other load).
 *
 * The machine's load and CPU count are printed before and after: numbers
 * taken on a busy machine are not comparable.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libaccel/libaccel.h>

#include "bench-util.h"

struct bench_opts {
	unsigned iterations; /* latency samples */
	unsigned warmup;     /* untimed commands before each measurement */
	unsigned batch;      /* commands per throughput round */
	unsigned rounds;     /* throughput rounds */
};

/* Everything a command needs, so one function per kind can submit it. */
struct bench_ctx {
	struct accel_queue *queue;
	struct accel_kernel *empty;
	struct accel_buffer *buf;
	struct accel_cmdlist *list; /* LIST_LEN empty launches */
	uint32_t word; /* source of the 4-byte write; lives past each submit */
};

#define LIST_LEN 1000

typedef int (*submit_fn)(struct bench_ctx *b, struct accel_fence **ret_fence);

/* ---- the commands -------------------------------------------------------- */

/* The cheapest possible kernel: a work-group function doing nothing. */
static void empty_wg(void **args, const struct accel_wg_ctx *ctx)
{
	(void)args;
	(void)ctx;
}

static const struct accel_ndrange one_item = {
	.struct_size = sizeof(one_item),
	.work_dim = 1,
	.global_size = { 1, 1, 1 },
};

static int submit_launch(struct bench_ctx *b, struct accel_fence **ret_fence)
{
	return accel_queue_launch(b->queue, b->empty, &one_item, 0, NULL,
				  ret_fence);
}

static int submit_list(struct bench_ctx *b, struct accel_fence **ret_fence)
{
	return accel_queue_submit_list(b->queue, b->list, 0, NULL, ret_fence);
}

static int submit_marker(struct bench_ctx *b, struct accel_fence **ret_fence)
{
	return accel_queue_marker(b->queue, 0, NULL, ret_fence);
}

static int submit_write4(struct bench_ctx *b, struct accel_fence **ret_fence)
{
	return accel_queue_write(b->queue, b->buf, 0, sizeof(b->word),
				 &b->word, 0, NULL, ret_fence);
}

static const struct command {
	const char *name;
	submit_fn submit;
	unsigned per;  /* commands per submission */
} commands[] = {
	{ "empty kernel", submit_launch, 1 },
	{ "marker", submit_marker, 1 },
	{ "4-byte write", submit_write4, 1 },
	{ "list of 1000", submit_list, LIST_LEN },
};

/* ---- measuring ----------------------------------------------------------- */

/* Nearest-rank percentile of sorted samples, in microseconds. */
static double pct_us(const uint64_t *sorted, size_t n, double pct)
{
	size_t rank = (size_t)(pct / 100.0 * (double)n + 0.5);

	if (rank > 0)
		rank--;
	if (rank >= n)
		rank = n - 1;
	return (double)sorted[rank] / 1000.0;
}

struct result {
	double min_us, median_us, p90_us, p99_us; /* submit + wait */
	double per_cmd_us;                        /* back to back */
};

static int one_round_trip(struct bench_ctx *b, submit_fn submit,
			  uint64_t *ret_ns)
{
	struct accel_fence *fence = NULL;
	uint64_t t0 = bench_now_ns();
	int r;

	r = submit(b, &fence);
	if (r < 0)
		return r;
	r = accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);
	if (ret_ns)
		*ret_ns = bench_now_ns() - t0;
	accel_fence_unref(fence);
	return r;
}

static int measure(struct bench_ctx *b, const struct bench_opts *o,
		   const struct command *cmd, uint64_t *samples,
		   struct result *res)
{
	submit_fn submit = cmd->submit;
	/* a list counts as many commands: as many fewer submissions */
	unsigned iterations = o->iterations / cmd->per ?
				      o->iterations / cmd->per : 1;
	unsigned warmup = o->warmup / cmd->per;
	unsigned batch = o->batch / cmd->per ? o->batch / cmd->per : 1;
	double per = (double)cmd->per;
	uint64_t best = UINT64_MAX;
	unsigned i, round;
	int r;

	for (i = 0; i < warmup; i++) {
		r = one_round_trip(b, submit, NULL);
		if (r < 0)
			return r;
	}
	for (i = 0; i < iterations; i++) {
		r = one_round_trip(b, submit, &samples[i]);
		if (r < 0)
			return r;
	}
	qsort(samples, iterations, sizeof(*samples), bench_cmp_u64);
	res->min_us = (double)samples[0] / 1000.0 / per;
	res->median_us = pct_us(samples, iterations, 50.0) / per;
	res->p90_us = pct_us(samples, iterations, 90.0) / per;
	res->p99_us = pct_us(samples, iterations, 99.0) / per;

	for (round = 0; round < o->rounds; round++) {
		uint64_t t0 = bench_now_ns(), dt;

		for (i = 0; i < batch; i++) {
			r = submit(b, NULL);
			if (r < 0) {
				accel_queue_finish(b->queue);
				return r;
			}
		}
		r = accel_queue_finish(b->queue);
		if (r < 0)
			return r;
		dt = bench_now_ns() - t0;
		if (dt < best)
			best = dt;
	}
	res->per_cmd_us = (double)best / 1000.0 / ((double)batch * per);
	return 0;
}

/* ---- environment --------------------------------------------------------- */

/*
 * The settings that shape the numbers. The CPU device runs
 * ACCEL_CPU_THREADS workers (default: one per CPU it may use, which is
 * also its compute-unit count) that spin ACCEL_CPU_SPIN_US before
 * sleeping; every other ACCEL_* variable is listed too.
 */
static void print_settings(struct accel_device *dev, char **envp)
{
	const char *name = "?", *threads = getenv("ACCEL_CPU_THREADS");
	const char *spin = getenv("ACCEL_CPU_SPIN_US");
	uint64_t cu = 0;
	char **e;
	bool any = false;

	accel_device_query_string(dev, ACCEL_DEVICE_STRING_NAME, &name);
	accel_device_query_u64(dev, ACCEL_DEVICE_U64_COMPUTE_UNITS, &cu);
	printf("libaccel %s: device \"%s\", %" PRIu64 " compute units\n",
	       ACCEL_VERSION_STRING, name, cu);
	if (threads && *threads)
		printf("settings: worker threads %s (ACCEL_CPU_THREADS)",
		       threads);
	else
		printf("settings: worker threads %" PRIu64 " (default)", cu);
	if (spin && *spin)
		printf(", spin %s us (ACCEL_CPU_SPIN_US)\n", spin);
	else
		printf(", spin before sleep: default\n");
	printf("environment:");
	for (e = envp; *e; e++) {
		if (strncmp(*e, "ACCEL_", 6) == 0) {
			printf(" %s", *e);
			any = true;
		}
	}
	printf("%s\n", any ? "" : " no ACCEL_* variables");
}

/* ---- setup --------------------------------------------------------------- */

static int make_empty_kernel(struct accel_device *dev,
			     struct accel_kernel **ret)
{
	const struct accel_native_kernel_desc desc = {
		.struct_size = sizeof(desc),
		.name = "empty",
		.fn = empty_wg,
	};
	struct accel_program *prog = NULL;
	int r;

	r = accel_program_new_native(dev, &desc, 1, &prog);
	if (r < 0)
		return r;
	r = accel_kernel_new(prog, "empty", ret);
	/* The kernel keeps its program alive. */
	accel_program_unref(prog);
	return r;
}

/* LIST_LEN launches of @empty, recorded once */
static int make_list(struct accel_device *dev, struct accel_kernel *empty,
		     struct accel_cmdlist **ret)
{
	struct accel_cmdlist *l = NULL;
	int r = accel_cmdlist_new(dev, 0, &l);

	for (unsigned i = 0; i < LIST_LEN && r == 0; i++)
		r = accel_cmdlist_launch(l, empty, &one_item, 0, NULL, NULL);
	if (r == 0)
		r = accel_cmdlist_finalize(l);
	if (r < 0) {
		accel_cmdlist_unref(l);
		return r;
	}
	*ret = l;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: launch-latency [-n ITERATIONS] [-w WARMUP] "
		"[-b BATCH] [-r ROUNDS]\n"
		"  -n  latency samples per command (default 20000)\n"
		"  -w  warm-up commands before each measurement "
		"(default 2000)\n"
		"  -b  commands per back-to-back round (default 20000)\n"
		"  -r  back-to-back rounds, the best is kept (default 5)\n");
}

/* envp: the ACCEL_* settings are listed without relying on _GNU_SOURCE. */
int main(int argc, char **argv, char **envp)
{
	struct bench_opts o = {
		.iterations = 20000,
		.warmup = 2000,
		.batch = 20000,
		.rounds = 5,
	};
	struct accel_context *ctx = NULL;
	struct accel_device *dev = NULL;
	struct bench_ctx b = { .word = 0x12345678u };
	struct result res[sizeof(commands) / sizeof(commands[0])];
	uint64_t *samples = NULL;
	size_t i;
	int c, r, status = 1;

	while ((c = getopt(argc, argv, "n:w:b:r:h")) != -1) {
		switch (c) {
		case 'n':
			o.iterations = bench_parse_count("launch-latency", optarg,
				"iteration count", 100000000ul);
			break;
		case 'w':
			o.warmup = bench_parse_count("launch-latency", optarg,
				"warm-up count", 100000000ul);
			break;
		case 'b':
			o.batch = bench_parse_count("launch-latency", optarg,
				"batch size", 100000000ul);
			break;
		case 'r':
			o.rounds = bench_parse_count("launch-latency", optarg,
				"round count", 100000000ul);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	bench_print_machine("start");

	samples = calloc(o.iterations, sizeof(*samples));
	if (!samples) {
		fprintf(stderr, "launch-latency: out of memory\n");
		return 1;
	}
	r = accel_context_new(0, &ctx);
	if (r < 0)
		goto fail;
	r = bench_find_cpu_device(ctx, &dev);
	if (r < 0)
		goto fail;
	print_settings(dev, envp);
	r = accel_queue_new(dev, 0, &b.queue);
	if (r < 0)
		goto fail;
	r = make_empty_kernel(dev, &b.empty);
	if (r < 0)
		goto fail;
	r = accel_buffer_new(dev, 4096, 0, &b.buf);
	if (r < 0)
		goto fail;
	r = make_list(dev, b.empty, &b.list);
	if (r < 0)
		goto fail;

	printf("iterations %u, warm-up %u, back-to-back %u x best of %u\n\n",
	       o.iterations, o.warmup, o.batch, o.rounds);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		r = measure(&b, &o, &commands[i], samples, &res[i]);
		if (r < 0) {
			fprintf(stderr, "launch-latency: %s: %s\n",
				commands[i].name, strerror(-r));
			goto out;
		}
	}

	printf("%-14s | %31s | %s\n", "", "submit + wait (us)",
	       "back to back");
	printf("%-14s | %7s %7s %7s %7s | %s\n", "command", "min", "median",
	       "p90", "p99", "us/command");
	printf("---------------+---------------------------------+"
	       "-------------\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("%-14s | %7.2f %7.2f %7.2f %7.2f | %8.3f\n",
		       commands[i].name, res[i].min_us, res[i].median_us,
		       res[i].p90_us, res[i].p99_us, res[i].per_cmd_us);
	printf("\n");
	status = 0;
	goto out;

fail:
	fprintf(stderr, "launch-latency: setup failed: %s\n", strerror(-r));
out:
	accel_cmdlist_unref(b.list);
	accel_buffer_unref(b.buf);
	accel_kernel_unref(b.empty);
	accel_queue_unref(b.queue);
	accel_device_unref(dev);
	accel_context_unref(ctx);
	free(samples);
	bench_print_machine("end");
	return status;
}
