/* SPDX-License-Identifier: MIT */
/**
 * @file accel-rdma.h
 * Registering libaccel buffers with an RDMA device (libaccel-rdma).
 *
 * One call does what every RDMA engine otherwise re-implements: register
 * the buffer's dma-buf with ibv_reg_dmabuf_mr() (the NIC reaches the
 * memory directly, whoever owns it), and where the provider cannot
 * (EOPNOTSUPP: soft-RoCE, older NICs) but the host can reach the memory,
 * register its host mapping with ibv_reg_mr() instead. The result says
 * which path was taken. Link with libaccel-rdma (pkg-config
 * libaccel-rdma), built when rdma-core's libibverbs is available.
 *
 * The MR keeps the buffer alive: release the MR with
 * accel_rdma_mr_release(), after the last work request using it is done.
 */
#ifndef LIBACCEL_ACCEL_RDMA_H
#define LIBACCEL_ACCEL_RDMA_H

#include <stdint.h>

#include <libaccel/accel-buffer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From <infiniband/verbs.h>; callers of this API include it anyway. */
struct ibv_pd;
struct ibv_mr;

/** A registration of a libaccel buffer (or sub-buffer) with a PD. */
struct accel_rdma_mr;

/** How the memory was registered. */
enum accel_rdma_path {
	/** ibv_reg_dmabuf_mr() on the buffer's dma-buf */
	ACCEL_RDMA_PATH_DMABUF = 1,
	/** ibv_reg_mr() on the buffer's host mapping (mapped until release) */
	ACCEL_RDMA_PATH_HOST = 2,
};

/** Flags of accel_buffer_register_rdma(). */
enum accel_rdma_flags {
	/** Fail rather than fall back to the host mapping. */
	ACCEL_RDMA_DMABUF_ONLY = 1u << 0,
	/** Skip the dma-buf attempt (e.g. to compare the paths). */
	ACCEL_RDMA_HOST_ONLY = 1u << 1,
};

/**
 * Register @p buf with protection domain @p pd.
 *
 * The dma-buf path exports the buffer's root (accel_buffer_export_dmabuf())
 * and registers the buffer's range of it, with iova 0; the host path maps
 * the whole range for reading and writing and registers that. Either way
 * the MR's addr field (accel_rdma_mr_get_ibv_mr()->addr) is what remote
 * peers address, and lkey/rkey are the MR's.
 *
 * @param buf a buffer or sub-buffer of any device
 * @param pd the protection domain
 * @param access IBV_ACCESS_* flags (remote write or atomic need
 *        IBV_ACCESS_LOCAL_WRITE, as verbs require)
 * @param flags ACCEL_RDMA_* flags
 * @param[out] ret the registration
 * @return 0; -EINVAL (NULL argument, unknown or inconsistent @p access or
 *         @p flags), -EOPNOTSUPP (neither path possible: the dma-buf path
 *         failed or was excluded and the host cannot reach the memory or
 *         the host path was excluded), -EACCES (the buffer's host-access
 *         flags forbid the mapping that remote writes need), -ENODEV (the
 *         device was unplugged), -ENOMEM, or the errno of
 *         ibv_reg_dmabuf_mr()/ibv_reg_mr() (e.g. -EPERM, -ENOMEM when the
 *         memlock limit is reached, -EFAULT when the host mapping cannot
 *         be pinned, as a GEM object's: an accel-node buffer's on rxe;
 *         -EIO when it sets none)
 */
int accel_buffer_register_rdma(struct accel_buffer *buf, struct ibv_pd *pd,
			       unsigned int access, uint32_t flags,
			       struct accel_rdma_mr **ret);

/** @return the verbs MR (lkey, rkey, addr, length), NULL for NULL */
struct ibv_mr *accel_rdma_mr_get_ibv_mr(struct accel_rdma_mr *mr);

/** @return enum accel_rdma_path, or -EINVAL for NULL */
int accel_rdma_mr_get_path(struct accel_rdma_mr *mr);

/**
 * Why the dma-buf path was not taken, for logs and tests.
 * @return 0 (it was taken), a negative errno (its failure: -EOPNOTSUPP
 *         when the provider or the buffer has no dma-buf support),
 *         -ECANCELED (excluded by ACCEL_RDMA_HOST_ONLY), -EINVAL for NULL
 */
int accel_rdma_mr_get_dmabuf_error(struct accel_rdma_mr *mr);

/** @return the registered buffer (no new reference), NULL for NULL */
struct accel_buffer *accel_rdma_mr_get_buffer(struct accel_rdma_mr *mr);

/**
 * Deregister, unmap (host path) and drop the buffer reference.
 * @return 0, or the negative errno of ibv_dereg_mr() (e.g. -EBUSY while
 *         memory windows are bound); the MR is then kept, call again
 *         later. -EINVAL for NULL.
 */
int accel_rdma_mr_release(struct accel_rdma_mr *mr);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_RDMA_H */
