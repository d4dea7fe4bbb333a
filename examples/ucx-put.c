/* SPDX-License-Identifier: MIT */
/*
 * ucx-put: one node writes a libaccel buffer straight into another node's
 * libaccel buffer with a UCX RMA put; on the receiving node, a sync_file
 * fence holds the consuming kernel back until the data has landed.
 *
 * Sender:   a kernel fills `src`; ucp_mem_map() registers it; ucp_put_nbx()
 *           writes it into the receiver's `dst`, ucp_worker_fence(), then a
 *           second put raises a flag word behind the data.
 * Receiver: `dst` is registered with ucp_mem_map() and its rkey sent over.
 *           Before the data is asked for, a user fence is exported as a
 *           sync_file and attached to dst's dma-buf as a write fence, and
 *           the consuming kernel (out[i] = 3 * dst[i] + 1) is queued: it
 *           waits for that fence (implicit sync), as would any other
 *           device reading the dma-buf. When the flag arrives the fence
 *           is signalled, the kernel runs, and the host checks `out`.
 *
 * Registration path: ucp_mem_map() is given the buffers' host mappings.
 * UCX 1.13 has no dma-buf registration in UCP or UCT (no dma-buf field in
 * its memory-map or memory-domain parameters), so the mapping is the only
 * path there; the dma-buf still matters on the receiver, as the object
 * that carries the arrival fence to whoever consumes the data.
 *
 * Usage:
 *   ucx-put [-n N] [-r ROUNDS]                   both sides, two processes
 *   ucx-put --listen PORT [-n N] [-r ROUNDS]     the receiver
 *   ucx-put --connect HOST:PORT                  the sender
 * N uint32 elements (default 262144, 1 MiB) in each of ROUNDS rounds
 * (default 1); the sender learns both from the receiver. Every round uses
 * new buffers and registrations, and after the last one each side
 * compares its open fds, and the receiver the machine's RDMA MRs, with
 * those after round 1.
 * Exit status: 0 verified, 77 without a kernel fence to export (vgem) or
 * dma-bufs, 1 on failure. The kernel tier runs it across two network
 * namespaces (tests/mpi, kernel-mpi).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include <libaccel/libaccel.h>

#include "kernel-arg.h"
#include "leak-check.h"
#include "ucx-bootstrap.h"
#include "ucx-net.h"

#define TIMEOUT_S UCX_PUT_TIMEOUT_S

static const char *role = "ucx-put";

static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", role, what, strerror(-err));
	return err;
}

static int fail_ucs(const char *what, ucs_status_t st)
{
	fprintf(stderr, "%s: %s: %s\n", role, what, ucs_status_string(st));
	return -EIO;
}

/* ---- the kernels --------------------------------------------------------- */

static uint64_t group_first(const struct accel_wg_ctx *ctx)
{
	return ctx->global_offset[0] +
	       ctx->group_id[0] * ctx->enqueued_local_size[0];
}

static uint32_t produce_value(uint64_t i, uint32_t round)
{
	return (uint32_t)i * 2654435761u + round;
}

/* kernel void produce(global uint *dst, uint round) */
static void produce_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *dst = *(uint32_t *const *)args[0];
	uint32_t round = *(const uint32_t *)args[1];
	uint64_t i, first = group_first(ctx);

	for (i = first; i < first + ctx->local_size[0]; i++)
		dst[i] = produce_value(i, round);
}

/* kernel void consume(global uint *out, global const uint *in) */
static void consume_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint32_t *out = *(uint32_t *const *)args[0];
	const uint32_t *in = *(const uint32_t *const *)args[1];
	uint64_t i, first = group_first(ctx);

	for (i = first; i < first + ctx->local_size[0]; i++)
		out[i] = 3 * in[i] + 1;
}

#define BUF(n, q) \
	KERNEL_ARG(ACCEL_KERNEL_ARG_BUFFER, n, "uint*", sizeof(void *), q)

static const struct accel_kernel_arg_desc produce_args[] = {
	BUF("dst", 0),
	KERNEL_ARG(ACCEL_KERNEL_ARG_VALUE, "round", "uint", sizeof(uint32_t), 0),
};
static const struct accel_kernel_arg_desc consume_args[] = {
	BUF("out", 0), BUF("in", ACCEL_KERNEL_ARG_TYPE_CONST),
};

static const struct accel_native_kernel_desc kernels[] = {
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "produce", .fn = produce_wg, .n_args = 2,
	  .args = produce_args },
	{ .struct_size = sizeof(struct accel_native_kernel_desc),
	  .name = "consume", .fn = consume_wg, .n_args = 2,
	  .args = consume_args },
};

/* ---- libaccel ------------------------------------------------------------ */

struct dev {
	struct accel_context *ctx;
	struct accel_device *cpu;
	struct accel_queue *queue;
	struct accel_kernel *kernel;
};

static int dev_open(struct dev *d, const char *kernel)
{
	struct accel_device *devs[16];
	struct accel_program *prog = NULL;
	uint64_t type;
	int n, i, r;

	r = accel_context_new(0, &d->ctx);
	if (r < 0)
		return r;
	n = accel_context_get_devices(d->ctx, devs, 16);
	for (i = 0; i < n && i < 16; i++) {
		if (!d->cpu &&
		    accel_device_query_u64(devs[i], ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU)
			d->cpu = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!d->cpu)
		return -ENODEV;
	r = accel_queue_new(d->cpu, 0, &d->queue);
	if (r == 0)
		r = accel_program_new_native(d->cpu, kernels, 2, &prog);
	if (r == 0)
		r = accel_kernel_new(prog, kernel, &d->kernel);
	accel_program_unref(prog);
	return r;
}

static void dev_close(struct dev *d)
{
	accel_kernel_unref(d->kernel);
	accel_queue_unref(d->queue);
	accel_device_unref(d->cpu);
	accel_context_unref(d->ctx);
}

static int launch(struct dev *d, uint64_t n, struct accel_fence **ret)
{
	const struct accel_ndrange range = {
		.struct_size = sizeof(range),
		.work_dim = 1,
		.global_size = { n, 1, 1 },
	};

	return accel_queue_launch(d->queue, d->kernel, &range, 0, NULL, ret);
}

/* ---- the bootstrap messages (ucx-bootstrap.h) ----------------------------- */

enum msg_type {
	MSG_HELLO,   /* R->S: status (0 or 77), n, rounds, worker address */
	MSG_OFFER,   /* R->S: dst address, flag offset, packed rkey */
	MSG_READY,   /* S->R: the source is made and registered */
	MSG_GO,      /* R->S: the consumer is queued behind its fence */
	MSG_DONE,    /* S->R: data and flag put, flushed, source released */
	MSG_VERDICT, /* R->S: 0 verified, else failed */
	MSG_BYE,     /* S->R: the endpoint is closed */
};

struct hello {
	int32_t status;
	uint32_t rounds;
	uint64_t n;
};

struct offer {
	uint64_t addr;
	uint64_t flag_offset;
};

/* ---- the receiver -------------------------------------------------------- */

struct opts {
	uint64_t n;
	uint32_t rounds;
};

struct usage {
	int fds;
	int64_t mrs;
};

/* @before: the first round's, which the last's fds settle to or below
 * (NULL for the first round itself) */
static void usage_take(struct usage *u, const struct usage *before,
		       bool mrs)
{
	u->fds = before ? leak_count_fds_settled(before->fds, 2000) :
			  leak_count_fds();
	u->mrs = mrs ? leak_count_rdma_mrs() : 0;
}

/* Can this machine make what the receiver needs? NULL, or why not. */
static const char *receiver_facilities(struct dev *d)
{
	uint64_t caps = 0;

	accel_device_query_u64(d->cpu, ACCEL_DEVICE_U64_CAPS, &caps);
	if (!(caps & ACCEL_DEVICE_CAP_DMABUF_EXPORT))
		return "buffers cannot be dma-bufs here (no udmabuf or "
		       "dma-buf heaps)";
	if (!(caps & ACCEL_DEVICE_CAP_SYNC_FILE_EXPORT))
		return "no kernel fence to export as a sync_file (vgem is "
		       "not loaded; the kernel test tier has it)";
	return NULL;
}

/* One round on the receiving side; >0 is a failed check. */
static int receive_round(int fd, struct dev *d, struct net *nt,
			 const struct opts *o, uint32_t round)
{
	const uint64_t bytes = o->n * sizeof(uint32_t);
	/* The flag word sits in its own cache line behind the data. */
	const uint64_t flag_off = (bytes + 63) & ~(uint64_t)63;
	struct accel_buffer *dst = NULL, *out = NULL;
	struct accel_fence *landed = NULL, *consumed = NULL;
	ucp_mem_h memh = NULL;
	void *map = NULL, *rkey = NULL;
	const uint32_t *res;
	struct offer off;
	size_t rkey_len;
	uint64_t i, bad = 0;
	bool gated = false;
	int r, sync_fd = -1, dmabuf_fd = -1;
	ucs_status_t st;

	r = accel_buffer_new(d->cpu, flag_off + 64, 0, &dst);
	if (r == 0)
		r = accel_buffer_new(d->cpu, bytes, 0, &out);
	/*
	 * dst becomes a dma-buf, the object other devices share it by and
	 * the carrier of its implicit fences. The buffer keeps a reference.
	 */
	if (r == 0)
		r = accel_buffer_export_dmabuf(dst, 0, &dmabuf_fd);
	if (dmabuf_fd >= 0)
		close(dmabuf_fd);
	/* Mapped before any fence is attached: the map would wait for it. */
	if (r == 0)
		r = accel_buffer_map(dst, 0, flag_off + 64,
				     ACCEL_MAP_READ | ACCEL_MAP_WRITE, &map);
	if (r < 0) {
		fail("receiver buffers", r);
		goto out;
	}
	r = net_mem_map(nt, map, flag_off + 64, &memh);
	if (r < 0)
		goto out;
	st = ucp_rkey_pack(nt->ucp, memh, &rkey, &rkey_len);
	if (st != UCS_OK) {
		r = fail_ucs("ucp_rkey_pack", st);
		goto out;
	}
	off.addr = (uintptr_t)map;
	off.flag_offset = flag_off;
	r = boot_send(fd, MSG_OFFER, &off, sizeof(off), rkey,
		     (uint32_t)rkey_len);
	ucp_rkey_buffer_release(rkey);
	if (r == 0)
		r = boot_recv(fd, nt->worker, MSG_READY, NULL, NULL);
	if (r < 0) {
		fail("bootstrap", r);
		goto out;
	}

	/*
	 * The arrival fence: a user fence made a kernel sync_file, attached
	 * to dst's dma-buf as a write. The consumer queued now waits for it.
	 */
	r = accel_fence_new_user(d->ctx, &landed);
	if (r == 0)
		r = accel_fence_export_sync_file(landed, &sync_fd);
	if (r == 0)
		r = accel_buffer_import_sync_file(dst, sync_fd,
						  ACCEL_BUFFER_SYNC_WRITE);
	if (sync_fd >= 0)
		close(sync_fd);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(d->kernel, 0, out);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(d->kernel, 1, dst);
	if (r == 0)
		r = launch(d, o->n, &consumed);
	if (r < 0) {
		fail("gating the consumer", r);
		goto out;
	}
	r = boot_send(fd, MSG_GO, NULL, 0, NULL, 0);
	if (r < 0)
		goto out;

	/* The sender's fence orders the flag after the data. */
	{
		const uint64_t *flag =
			(const uint64_t *)((char *)map + flag_off);
		double deadline = boot_now() + TIMEOUT_S;

		while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != round + 1) {
			ucp_worker_progress(nt->worker);
			if (boot_now() > deadline) {
				r = fail("waiting for the data", -ETIMEDOUT);
				goto out;
			}
		}
	}
	gated = accel_fence_get_status(consumed) == 0;
	r = accel_fence_signal(landed, 0);
	if (r == 0)
		r = accel_fence_wait(consumed, (int64_t)TIMEOUT_S * 1000000000);
	if (r == 0)
		r = accel_buffer_map(out, 0, bytes, ACCEL_MAP_READ,
				     (void **)&res);
	if (r < 0) {
		fail("consumer", r);
		goto out;
	}
	for (i = 0; i < o->n; i++)
		if (res[i] != 3 * produce_value(i, round) + 1)
			bad++;
	accel_buffer_unmap(out, (void *)res);
	if (round == 0 || bad || !gated)
		printf("%s: round %" PRIu32 ": consumer %s until the data "
		       "landed; %" PRIu64 " elements %s\n",
		       role, round + 1,
		       gated ? "held back by the sync_file" : "NOT held back",
		       o->n, bad ? "MISMATCH" : "verified");
	r = bad || !gated ? 1 : 0;
out:
	if (landed && accel_fence_get_status(landed) == 0)
		accel_fence_signal(landed, -ECANCELED);
	if (consumed)
		accel_fence_wait(consumed, ACCEL_TIMEOUT_INFINITE);
	/* The kernel holds its arguments: let the buffers go now. */
	accel_kernel_set_arg_buffer(d->kernel, 0, NULL);
	accel_kernel_set_arg_buffer(d->kernel, 1, NULL);
	accel_fence_unref(consumed);
	accel_fence_unref(landed);
	if (memh)
		ucp_mem_unmap(nt->ucp, memh);
	if (map)
		accel_buffer_unmap(dst, map);
	accel_buffer_unref(out);
	accel_buffer_unref(dst);
	return r;
}

static int receiver(int fd, const struct opts *o)
{
	struct dev d = { 0 };
	struct net nt = { 0 };
	struct usage before = { 0 }, after = { 0 };
	struct hello hello = { .n = o->n, .rounds = o->rounds };
	const char *missing = NULL;
	ucp_address_t *addr = NULL;
	size_t addr_len = 0;
	uint32_t k, failed = 0;
	int32_t verdict;
	ucs_status_t st;
	int r;

	role = "ucx-put: receiver";
	nt.role = role;
	r = dev_open(&d, "consume");
	if (r < 0)
		fail("libaccel set-up", r);
	else if ((missing = receiver_facilities(&d)))
		r = 77;
	else
		r = net_open(&nt);
	if (r == 0) {
		st = ucp_worker_get_address(nt.worker, &addr, &addr_len);
		if (st != UCS_OK)
			r = fail_ucs("ucp_worker_get_address", st);
	}
	/* The sender learns the outcome of the set-up either way. */
	hello.status = r == 0 ? 0 : r == 77 ? 77 : 1;
	if (boot_send(fd, MSG_HELLO, &hello, sizeof(hello), addr,
		     (uint32_t)addr_len) < 0 && r == 0)
		r = -EPIPE;
	if (addr)
		ucp_worker_release_address(nt.worker, addr);
	if (r == 77)
		printf("%s: %s: skipped\n", role, missing);
	if (r != 0)
		goto out;

	printf("%s: %s; ucp_mem_map() of each libaccel buffer's host "
	       "mapping (UCX %s has no dma-buf registration); the "
	       "receiving buffer's dma-buf carries the arrival fence\n",
	       role, getenv("UCX_TLS") ? getenv("UCX_TLS") : "UCX_TLS unset",
	       ucp_get_version_string());
	for (k = 0; k < o->rounds; k++) {
		r = receive_round(fd, &d, &nt, o, k);
		if (r < 0)
			break;
		failed += (uint32_t)r;
		/* The sender has released its side of the round too. */
		r = boot_recv(fd, nt.worker, MSG_DONE, NULL, NULL);
		if (r == 0 && k == 0)
			usage_take(&before, NULL, true);
		if (r == 0 && k + 1 == o->rounds) {
			usage_take(&after, &before, true);
			if (after.fds > before.fds ||
			    (before.mrs >= 0 && after.mrs > before.mrs)) {
				fprintf(stderr, "%s: leak: fds %d -> %d, RDMA "
					"MRs %" PRId64 " -> %" PRId64 "\n",
					role, before.fds, after.fds,
					before.mrs, after.mrs);
				leak_print_fds(role);
				failed++;
			}
		}
		verdict = failed ? 1 : 0;
		if (r == 0)
			r = boot_send(fd, MSG_VERDICT, &verdict,
				     sizeof(verdict), NULL, 0);
		if (r < 0)
			break;
	}
	if (r == 0)
		r = boot_recv(fd, nt.worker, MSG_BYE, NULL, NULL);
	if (r < 0) {
		fail("bootstrap", r);
		goto out;
	}
	printf("%s: %" PRIu32 " rounds of %" PRIu64 " elements: %s; fds "
	       "%d -> %d, RDMA MRs %" PRId64 " -> %" PRId64 "%s\n", role,
	       o->rounds, o->n, failed ? "FAILED" : "verified", before.fds,
	       after.fds, before.mrs, after.mrs,
	       before.mrs < 0 ? " (no RDMA devices)" : "");
	r = failed ? 1 : 0;
out:
	net_close(&nt);
	dev_close(&d);
	return r < 0 ? 1 : r;
}

/* ---- the sender ---------------------------------------------------------- */

static int send_round(int fd, struct dev *d, struct net *nt,
		      const struct opts *o, uint32_t round)
{
	const uint64_t bytes = o->n * sizeof(uint32_t);
	ucp_request_param_t put = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_MEMH,
	};
	ucp_request_param_t plain = { 0 };
	struct accel_buffer *src = NULL;
	struct offer *off = NULL;
	ucp_rkey_h rkey = NULL;
	ucp_mem_h memh = NULL;
	uint64_t flag = round + 1;
	uint32_t len;
	void *map = NULL;
	ucs_status_t st;
	int r;

	r = accel_buffer_new(d->cpu, bytes, 0, &src);
	if (r == 0)
		r = accel_kernel_set_arg_buffer(d->kernel, 0, src);
	if (r == 0)
		r = accel_kernel_set_arg_value(d->kernel, 1, 4, &round);
	if (r == 0)
		r = launch(d, o->n, NULL);
	if (r == 0)
		r = accel_queue_finish(d->queue);
	if (r == 0)
		r = accel_buffer_map(src, 0, bytes, ACCEL_MAP_READ, &map);
	if (r < 0) {
		fail("producer", r);
		goto out;
	}
	r = net_mem_map(nt, map, bytes, &memh);
	if (r == 0)
		r = boot_recv(fd, nt->worker, MSG_OFFER, (void **)&off, &len);
	if (r == 0 && len <= sizeof(*off))
		r = -EPROTO;
	if (r < 0)
		goto out;
	st = ucp_ep_rkey_unpack(nt->ep, off + 1, &rkey);
	if (st != UCS_OK) {
		r = fail_ucs("ucp_ep_rkey_unpack", st);
		goto out;
	}
	r = boot_send(fd, MSG_READY, NULL, 0, NULL, 0);
	if (r == 0)
		r = boot_recv(fd, nt->worker, MSG_GO, NULL, NULL);
	if (r < 0)
		goto out;

	/* Zero-copy from the registered source, then the flag behind it. */
	put.memh = memh;
	r = net_req_wait(nt, "ucp_put_nbx", ucp_put_nbx(nt->ep, map, bytes,
						    off->addr, rkey, &put));
	if (r == 0) {
		st = ucp_worker_fence(nt->worker);
		if (st != UCS_OK)
			r = fail_ucs("ucp_worker_fence", st);
	}
	if (r == 0)
		r = net_req_wait(nt, "ucp_put_nbx (flag)",
			     ucp_put_nbx(nt->ep, &flag, sizeof(flag),
					 off->addr + off->flag_offset, rkey,
					 &plain));
	/* Remote completion of both before the source goes. */
	if (r == 0)
		r = net_req_wait(nt, "ucp_ep_flush_nbx",
			     ucp_ep_flush_nbx(nt->ep, &plain));
out:
	accel_kernel_set_arg_buffer(d->kernel, 0, NULL);
	if (rkey)
		ucp_rkey_destroy(rkey);
	free(off);
	if (memh)
		ucp_mem_unmap(nt->ucp, memh);
	if (map)
		accel_buffer_unmap(src, map);
	accel_buffer_unref(src);
	return r;
}

static int sender(int fd)
{
	struct dev d = { 0 };
	struct net nt = { 0 };
	struct usage before = { 0 }, after = { 0 };
	struct hello *hello = NULL;
	struct opts o;
	uint32_t len, k;
	int32_t *verdict = NULL;
	int r;

	role = "ucx-put: sender";
	nt.role = role;
	r = boot_recv(fd, NULL, MSG_HELLO, (void **)&hello, &len);
	if (r == 0 && len < sizeof(*hello))
		r = -EPROTO;
	if (r < 0) {
		fail("bootstrap", r);
		goto out;
	}
	if (hello->status) {
		r = hello->status == 77 ? 77 : 1;
		printf("%s: the receiver %s\n", role,
		       r == 77 ? "skipped" : "failed");
		goto out;
	}
	o.n = hello->n;
	o.rounds = hello->rounds;
	r = dev_open(&d, "produce");
	if (r < 0) {
		fail("libaccel set-up", r);
		goto out;
	}
	r = net_open(&nt);
	if (r == 0) {
		ucp_ep_params_t ep = {
			.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
			.address = (const ucp_address_t *)(hello + 1),
		};
		ucs_status_t st = ucp_ep_create(nt.worker, &ep, &nt.ep);

		if (st != UCS_OK)
			r = fail_ucs("ucp_ep_create", st);
	}
	for (k = 0; r == 0 && k < o.rounds; k++) {
		r = send_round(fd, &d, &nt, &o, k);
		if (r == 0 && k == 0)
			usage_take(&before, NULL, false);
		if (r == 0 && k + 1 == o.rounds)
			usage_take(&after, &before, false);
		if (r == 0)
			r = boot_send(fd, MSG_DONE, NULL, 0, NULL, 0);
		if (r == 0)
			r = boot_recv(fd, nt.worker, MSG_VERDICT, (void **)&verdict,
				     &len);
		if (r == 0 && (len != sizeof(*verdict) || *verdict))
			r = 1;
		free(verdict);
		verdict = NULL;
	}
	if (nt.ep) {
		ucp_request_param_t flush_mode = { 0 };
		int c = net_req_wait(&nt, "ucp_ep_close_nbx",
				 ucp_ep_close_nbx(nt.ep, &flush_mode));

		if (r == 0)
			r = c;
	}
	/* Also after a failure: the receiver is waiting for a word. */
	boot_send(fd, MSG_BYE, NULL, 0, NULL, 0);
	if (r == 0 && after.fds > before.fds) {
		fprintf(stderr, "%s: %d fds after round 1, %d after round "
			"%" PRIu32 "\n", role, before.fds, after.fds,
			o.rounds);
		leak_print_fds(role);
		r = 1;
	}
	if (r == 0)
		printf("%s: %" PRIu32 " rounds put from libaccel buffers; "
		       "fds %d -> %d\n", role, o.rounds, before.fds,
		       after.fds);
out:
	free(hello);
	net_close(&nt);
	dev_close(&d);
	return r < 0 ? 1 : r;
}

/* ---- main ---------------------------------------------------------------- */

/* Both sides: a forked receiver on the loopback. */
static int both(const struct opts *o)
{
	char port[16];
	int lfd, fd, p, rc_r, rc_s, status;
	pid_t pid;

	lfd = boot_listen(0, &p);
	if (lfd < 0) {
		fail("listen", lfd);
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fail("fork", -errno);
		close(lfd);
		return 1;
	}
	if (pid == 0) {
		fd = boot_accept(lfd);
		close(lfd);
		if (fd < 0) {
			fail("accept", fd);
			_exit(1);
		}
		rc_r = receiver(fd, o);
		close(fd);
		fflush(stdout);
		_exit(rc_r);
	}
	close(lfd);
	snprintf(port, sizeof(port), "%d", p);
	fd = boot_connect(role, "127.0.0.1", port);
	if (fd < 0) {
		fail("connect", fd);
		rc_s = 1;
	} else {
		rc_s = sender(fd);
		close(fd);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	rc_r = WEXITSTATUS(status);
	if (rc_r == 1 || rc_s == 1)
		return 1;
	return rc_r == 77 || rc_s == 77 ? 77 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 262144, .rounds = 1 };
	const char *listen_port = NULL, *connect_to = NULL;
	char host[256];
	int i, fd, lfd, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			o.n = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			o.rounds = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc)
			listen_port = argv[++i];
		else if (strcmp(argv[i], "--connect") == 0 && i + 1 < argc)
			connect_to = argv[++i];
		else
			break;
	}
	if (i < argc || o.n == 0 || o.n > (1u << 26) || o.rounds == 0 ||
	    (listen_port && connect_to) ||
	    (listen_port && (atoi(listen_port) <= 0 ||
			     atoi(listen_port) > 65535))) {
		fprintf(stderr, "usage: %s [-n N (1..2^26)] [-r ROUNDS] "
			"[--listen PORT | --connect HOST:PORT]\n", argv[0]);
		return 2;
	}

	if (listen_port) {
		lfd = boot_listen(atoi(listen_port), NULL);
		fd = lfd < 0 ? lfd : boot_accept(lfd);
		if (lfd >= 0)
			close(lfd);
		if (fd < 0) {
			fail("listening", fd);
			return 1;
		}
		rc = receiver(fd, &o);
		close(fd);
		return rc;
	}
	if (connect_to) {
		const char *colon = strrchr(connect_to, ':');

		if (!colon || (size_t)(colon - connect_to) >= sizeof(host)) {
			fprintf(stderr, "%s: HOST:PORT expected\n", argv[0]);
			return 2;
		}
		memcpy(host, connect_to, (size_t)(colon - connect_to));
		host[colon - connect_to] = '\0';
		fd = boot_connect(role, host, colon + 1);
		if (fd < 0) {
			fail("connect", fd);
			return 1;
		}
		rc = sender(fd);
		close(fd);
		return rc;
	}
	return both(&o);
}
