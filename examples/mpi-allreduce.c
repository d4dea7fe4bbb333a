/* SPDX-License-Identifier: MIT */
/*
 * mpi-allreduce: the gradient exchange of data-parallel training, on
 * libaccel buffers, with MPI as the transport.
 *
 * Every rank, every round:
 *   1. a libaccel kernel computes a gradient-like vector into `grad`;
 *   2. MPI_Allreduce(MPI_IN_PLACE, SUM) adds the ranks' vectors together
 *      in `grad` itself;
 *   3. a second kernel consumes the sum where it lies, updating the
 *      weights: w[i] -= 0.125 * grad[i];
 *   4. the host checks every element of `grad` and `w`.
 * No user code copies the data: MPI reads and writes the libaccel buffer.
 *
 * Which memory MPI is given: the buffer's host mapping
 * (accel_buffer_map()), registered by MPI's transport as ordinary host
 * memory. A dma-buf would only help memory the host cannot map, and
 * nothing below MPI would take one here: Open MPI 4.1 knows no memory
 * type but host (and CUDA/ROCm), UCP's ucp_mem_map() takes an address,
 * and UCX 1.13 has no dma-buf registration at any layer. CPU-device
 * buffers are host memory, so the mapping is the zero-copy path.
 *
 * Usage: mpirun -np N mpi-allreduce [-n ELEMENTS] [-r ROUNDS] [--fresh]
 *                                   [--check-leaks]
 *   -n      floats per buffer (default 262144, 1 MiB)
 *   -r      rounds (default 3)
 *   --fresh new buffers (and mappings) every round, so that the transport
 *           registers and releases memory each time
 *   --check-leaks  compare this process's open fds, and the MRs of all
 *           RDMA devices (rdma netlink), after the first round and after
 *           the last; a growth is a failure
 * Exit status: 0 if verified on every rank, 77 when a facility is
 * missing (printed), 1 on failure. The kernel tier runs it across two
 * network namespaces over soft-RoCE and TCP (tests/mpi, kernel-mpi).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <libaccel/libaccel.h>

#include "kernel-arg.h"
#include "leak-check.h"

/* ---- the kernels: native work-group functions (accel-wg.h) --------------- */

static uint64_t group_first(const struct accel_wg_ctx *ctx)
{
	return ctx->global_offset[0] +
	       ctx->group_id[0] * ctx->enqueued_local_size[0];
}

/*
 * The gradient of rank r in round k, element i. Multiples of 1/4 below
 * 2^20: every partial sum is exact in float, so each rank can check the
 * reduced result bit for bit whatever order MPI adds in.
 */
static float grad_value(uint32_t rank, uint32_t round, uint64_t i)
{
	return 0.25f * (float)((rank + 1) * (((i + round) & 1023) + 1));
}

/* kernel void grad(global float *g, uint rank, uint round) */
static void grad_wg(void **args, const struct accel_wg_ctx *ctx)
{
	float *g = *(float *const *)args[0];
	uint32_t rank = *(const uint32_t *)args[1];
	uint32_t round = *(const uint32_t *)args[2];
	uint64_t i, first = group_first(ctx);

	for (i = first; i < first + ctx->local_size[0]; i++)
		g[i] = grad_value(rank, round, i);
}

/* The update: a fixed learning rate folds the 1/N of the mean in. */
static float sgd_value(float w, float g)
{
	return w - 0.125f * g;
}

/* kernel void sgd(global float *w, global const float *g) */
static void sgd_wg(void **args, const struct accel_wg_ctx *ctx)
{
	float *w = *(float *const *)args[0];
	const float *g = *(const float *const *)args[1];
	uint64_t i, first = group_first(ctx);

	for (i = first; i < first + ctx->local_size[0]; i++)
		w[i] = sgd_value(w[i], g[i]);
}

#define BUF(n, q) \
	KERNEL_ARG(ACCEL_KERNEL_ARG_BUFFER, n, "float*", sizeof(void *), q)
#define UINT(n) \
	KERNEL_ARG(ACCEL_KERNEL_ARG_VALUE, n, "uint", sizeof(uint32_t), 0)

static const struct accel_kernel_arg_desc grad_args[] = {
	BUF("g", 0), UINT("rank"), UINT("round"),
};
static const struct accel_kernel_arg_desc sgd_args[] = {
	BUF("w", 0), BUF("g", ACCEL_KERNEL_ARG_TYPE_CONST),
};

static const struct accel_native_kernel_desc kernels[] = {
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "grad", .fn = grad_wg, .n_args = 3, .args = grad_args },
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "sgd", .fn = sgd_wg, .n_args = 2, .args = sgd_args },
};

/* ---- libaccel ------------------------------------------------------------ */

struct node {
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_queue *queue;
	struct accel_kernel *grad, *sgd;
	/* the gradient, the weights, and their host mappings */
	struct accel_buffer *g, *w;
	float *gmap, *wmap;
};

static int find_cpu(struct accel_context *ctx, struct accel_device **ret)
{
	struct accel_device *devs[16];
	int n, i, found = -ENODEV;
	uint64_t type;

	n = accel_context_get_devices(ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		if (found < 0 &&
		    accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU) {
			*ret = devs[i];
			found = 0;
			continue;
		}
		accel_device_unref(devs[i]);
	}
	return n < 0 ? n : found;
}

static int node_open(struct node *nd)
{
	struct accel_program *prog = NULL;
	int r;

	r = accel_context_new(0, &nd->ctx);
	if (r == 0)
		r = find_cpu(nd->ctx, &nd->dev);
	if (r == 0)
		r = accel_queue_new(nd->dev, 0, &nd->queue);
	if (r == 0)
		r = accel_program_new_native(nd->dev, kernels, 2, &prog);
	if (r == 0)
		r = accel_kernel_new(prog, "grad", &nd->grad);
	if (r == 0)
		r = accel_kernel_new(prog, "sgd", &nd->sgd);
	/* The kernels hold the program. */
	accel_program_unref(prog);
	return r;
}

/*
 * The two buffers, mapped for as long as they live: MPI's transport
 * registers the mapping once and finds it in its cache in later rounds.
 */
static int buffers_new(struct node *nd, uint64_t n)
{
	const uint32_t rw = ACCEL_MAP_READ | ACCEL_MAP_WRITE;
	uint64_t bytes = n * sizeof(float);
	void *g, *w;
	int r;

	r = accel_buffer_new(nd->dev, bytes, 0, &nd->g);
	if (r == 0)
		r = accel_buffer_new(nd->dev, bytes, 0, &nd->w);
	if (r == 0)
		r = accel_buffer_map(nd->g, 0, bytes, rw, &g);
	if (r < 0)
		return r;
	nd->gmap = g;
	r = accel_buffer_map(nd->w, 0, bytes, rw, &w);
	if (r == 0)
		nd->wmap = w;
	return r;
}

static void buffers_free(struct node *nd)
{
	/* The kernels hold their last arguments: let the buffers go. */
	if (nd->grad)
		accel_kernel_set_arg_buffer(nd->grad, 0, NULL);
	if (nd->sgd) {
		accel_kernel_set_arg_buffer(nd->sgd, 0, NULL);
		accel_kernel_set_arg_buffer(nd->sgd, 1, NULL);
	}
	if (nd->gmap)
		accel_buffer_unmap(nd->g, nd->gmap);
	if (nd->wmap)
		accel_buffer_unmap(nd->w, nd->wmap);
	nd->gmap = nd->wmap = NULL;
	nd->g = accel_buffer_unref(nd->g);
	nd->w = accel_buffer_unref(nd->w);
}

static void node_close(struct node *nd)
{
	buffers_free(nd);
	accel_kernel_unref(nd->grad);
	accel_kernel_unref(nd->sgd);
	accel_queue_unref(nd->queue);
	accel_device_unref(nd->dev);
	accel_context_unref(nd->ctx);
}

/* Launch @k over @n items and wait for it. */
static int run_kernel(struct node *nd, struct accel_kernel *k, uint64_t n)
{
	const struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 1,
		.global_size = { n, 1, 1 },
	};
	int r;

	r = accel_queue_launch(nd->queue, k, &range, 0, NULL, NULL);
	return r < 0 ? r : accel_queue_finish(nd->queue);
}

/* ---- one round ----------------------------------------------------------- */

struct opts {
	uint64_t n;
	uint32_t rounds;
	bool fresh, check_leaks;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * grad -> allreduce -> sgd, then the check. @expect_w holds what w should
 * be before the round and is advanced by it. Returns the number of wrong
 * elements, or -errno; *@t_mpi accumulates the time spent in MPI.
 */
static int64_t round_run(struct node *nd, const struct opts *o, int rank,
			 int size, uint32_t round, float *expect_w,
			 double *t_mpi)
{
	/* sum over ranks of (rank + 1) */
	const uint32_t s = (uint32_t)size * (uint32_t)(size + 1) / 2;
	uint32_t rk = (uint32_t)rank;
	int64_t bad = 0;
	uint64_t i;
	double t;
	int r;

	r = accel_kernel_set_arg_buffer(nd->grad, 0, nd->g);
	if (r == 0)
		r = accel_kernel_set_arg_value(nd->grad, 1, 4, &rk);
	if (r == 0)
		r = accel_kernel_set_arg_value(nd->grad, 2, 4, &round);
	if (r == 0)
		r = run_kernel(nd, nd->grad, o->n);
	if (r < 0)
		return r;

	/* The kernel has finished: the mapping shows its result. */
	t = now();
	r = MPI_Allreduce(MPI_IN_PLACE, nd->gmap, (int)o->n, MPI_FLOAT,
			  MPI_SUM, MPI_COMM_WORLD);
	*t_mpi += now() - t;
	if (r != MPI_SUCCESS)
		return -EIO;

	r = accel_kernel_set_arg_buffer(nd->sgd, 0, nd->w);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(nd->sgd, 1, nd->g);
	if (r == 0)
		r = run_kernel(nd, nd->sgd, o->n);
	if (r < 0)
		return r;

	for (i = 0; i < o->n; i++) {
		/* grad_value() of rank 0 is the (rank + 1) = 1 term */
		float sum = (float)s * grad_value(0, round, i);

		expect_w[i] = sgd_value(expect_w[i], sum);
		if (nd->gmap[i] != sum || nd->wmap[i] != expect_w[i]) {
			if (bad == 0)
				fprintf(stderr,
					"mpi-allreduce: rank %d round %" PRIu32
					" element %" PRIu64
					": grad %g (want %g), w %g (want %g)\n",
					rank, round, i, (double)nd->gmap[i],
					(double)sum, (double)nd->wmap[i],
					(double)expect_w[i]);
			bad++;
		}
	}
	return bad;
}

/* ---- main ---------------------------------------------------------------- */

static int parse(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			o->n = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			o->rounds = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--fresh") == 0)
			o->fresh = true;
		else if (strcmp(argv[i], "--check-leaks") == 0)
			o->check_leaks = true;
		else
			return -EINVAL;
	}
	/* MPI counts are ints; grad_value() stays exact below 2^20. */
	if (o->n == 0 || o->n > (1u << 28) || o->rounds == 0 ||
	    o->rounds > (1u << 20))
		return -EINVAL;
	return 0;
}

/* Where the leak check stands: fds of this rank, MRs of the machine. */
struct usage {
	int fds;
	int64_t mrs;
};

/* @before: the first round's, which the last's fds settle to or below
 * (NULL for the first round itself) */
static void usage_take(struct usage *u, const struct usage *before)
{
	/* Every rank between the same two rounds. */
	MPI_Barrier(MPI_COMM_WORLD);
	u->fds = before ? leak_count_fds_settled(before->fds, 2000) :
			  leak_count_fds();
	u->mrs = leak_count_rdma_mrs();
	MPI_Barrier(MPI_COMM_WORLD);
}

/* Runs the rounds; 0 verified here, 77 skipped, 1 failed. */
static int run(const struct opts *o, int rank, int size)
{
	struct node nd = { 0 };
	struct usage before = { 0 }, after = { 0 };
	float *expect_w = calloc(o->n, sizeof(float));
	double t_mpi = 0;
	int64_t bad = 0;
	uint32_t k;
	int r;

	if (!expect_w)
		return 1;
	r = node_open(&nd);
	if (r == -ENODEV) {
		printf("mpi-allreduce: rank %d: no CPU device: skipped\n",
		       rank);
		free(expect_w);
		node_close(&nd);
		return 77;
	}
	for (k = 0; r >= 0 && k < o->rounds; k++) {
		if (!nd.g || o->fresh) {
			buffers_free(&nd);
			/* New weights start at 0, as do their expectations. */
			memset(expect_w, 0, o->n * sizeof(float));
			r = buffers_new(&nd, o->n);
			if (r < 0)
				break;
		}
		r = (int)round_run(&nd, o, rank, size, k, expect_w, &t_mpi);
		if (r > 0) {
			bad += r;
			r = 0;
		}
		if (o->check_leaks && k == 0)
			usage_take(&before, NULL);
	}
	if (r >= 0 && o->check_leaks) {
		usage_take(&after, &before);
		if (after.fds > before.fds) {
			fprintf(stderr, "mpi-allreduce: rank %d: %d fds after "
				"round 1, %d after round %" PRIu32 "\n",
				rank, before.fds, after.fds, o->rounds);
			leak_print_fds("mpi-allreduce");
			bad++;
		}
		if (before.mrs >= 0 && after.mrs > before.mrs) {
			fprintf(stderr, "mpi-allreduce: rank %d: %" PRId64
				" MRs after round 1, %" PRId64
				" after round %" PRIu32 "\n",
				rank, before.mrs, after.mrs, o->rounds);
			bad++;
		}
	}
	if (r < 0) {
		/* The other ranks wait in MPI for this one: end them all. */
		fprintf(stderr, "mpi-allreduce: rank %d: %s\n", rank,
			strerror(-r));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	printf("mpi-allreduce: rank %d/%d: %" PRIu32 " rounds of %" PRIu64
	       " floats, %s, %.3f ms per allreduce%s\n",
	       rank, size, o->rounds, o->n, bad ? "MISMATCH" : "verified",
	       t_mpi * 1e3 / o->rounds,
	       o->fresh ? ", new buffers every round" : "");
	if (o->check_leaks && rank == 0)
		printf("mpi-allreduce: leak check: fds %d -> %d (rank 0), "
		       "MRs of all ranks %" PRId64 " -> %" PRId64 "%s\n",
		       before.fds, after.fds, before.mrs, after.mrs,
		       before.mrs < 0 ? " (no RDMA devices)" : "");
	node_close(&nd);
	free(expect_w);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 262144, .rounds = 3 };
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int rank, size, len, rc, worst;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (parse(argc, argv, &o) < 0) {
		if (rank == 0)
			fprintf(stderr, "usage: %s [-n ELEMENTS (1..2^28)] "
				"[-r ROUNDS] [--fresh] [--check-leaks]\n",
				argv[0]);
		MPI_Finalize();
		return 2;
	}
	if (rank == 0) {
		MPI_Get_library_version(lib, &len);
		lib[strcspn(lib, ",\n")] = '\0';
		printf("mpi-allreduce: %d ranks, %s; MPI is given the "
		       "libaccel buffers' host mappings (zero-copy for "
		       "host-visible memory; no dma-buf memory type below "
		       "MPI to take them otherwise)\n", size, lib);
	}

	rc = run(&o, rank, size);

	/* Every rank's verdict: the worst one counts (1 > 77 > 0). */
	worst = rc == 1 ? 2 : rc == 77 ? 1 : 0;
	MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX,
		      MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi-allreduce: %s on all %d ranks\n",
		       worst == 2 ? "FAILED" :
		       worst == 1 ? "skipped" : "verified", size);
	MPI_Finalize();
	return worst == 2 ? 1 : worst == 1 ? 77 : 0;
}
