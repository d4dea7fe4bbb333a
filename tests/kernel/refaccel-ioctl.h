/* SPDX-License-Identifier: MIT */
/*
 * refaccel's ioctls, raw, for the kernel tier's driver tests: the node,
 * buffers, their CPU mapping, the three jobs and their fences; and what
 * those tests check with: a buffer's words, edu's fault injection.
 * Functions return 0 or a negative errno (interrupted ioctls are
 * restarted); out-parameters are written on success only.
 */
#ifndef ACCEL_TEST_REFACCEL_IOCTL_H
#define ACCEL_TEST_REFACCEL_IOCTL_H

#include <stdint.h>

struct refaccel_node;

/*
 * The first refaccel node (refaccel_node_find(), accel or render node)
 * opened read-write, or -1 after saying why a test that needs it skips
 * (refaccel not loaded); @ret_node (may be NULL): which node it is.
 */
int refaccel_open(struct refaccel_node *ret_node);
int refaccel_ioctl(int fd, unsigned long req, void *arg);
int refaccel_bo_new(int fd, uint64_t size, uint32_t *ret_handle);
/* The whole buffer, read-write and shared; its size in @ret_size. */
int refaccel_bo_map(int fd, uint32_t handle, uint8_t **ret_ptr,
		    uint64_t *ret_size);
int refaccel_bo_close(int fd, uint32_t handle);
/*
 * @in: a syncobj whose fence the job waits for, or 0; @out: a syncobj to
 * receive the job's fence, or 0.
 */
int refaccel_fill(int fd, uint32_t dst, uint64_t offset, uint64_t size,
		  uint32_t pattern, uint32_t in, uint32_t out);
int refaccel_copy(int fd, uint32_t dst, uint64_t dst_offset, uint32_t src,
		  uint64_t src_offset, uint64_t size, uint32_t out);
int refaccel_factorial(int fd, uint32_t dst, uint64_t dst_offset,
		       uint32_t src, uint64_t src_offset, uint64_t size,
		       uint32_t out);
/* The offset of the first 32-bit word of @p[0, @n) that is not @v, or @n. */
uint64_t refaccel_first_other_u32(const uint8_t *p, uint64_t n, uint32_t v);
/*
 * edu, tests: the next @n commands of the device go without their
 * interrupt (module parameter edu_drop_irqs).
 */
int refaccel_edu_drop_irqs(unsigned int n);
/*
 * Waits for the fence in syncobj @h: 1 if it signalled without error,
 * else the error it signalled with (or that of the wait).
 */
int refaccel_syncobj_result(int fd, uint32_t h);

#endif
