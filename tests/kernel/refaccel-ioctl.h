/* SPDX-License-Identifier: MIT */
/*
 * refaccel's ioctls, raw, for the kernel tier's driver tests: buffers,
 * their CPU mapping and the three jobs. Functions return 0 or a negative
 * errno (interrupted ioctls are restarted); out-parameters are written on
 * success only.
 */
#ifndef ACCEL_TEST_REFACCEL_IOCTL_H
#define ACCEL_TEST_REFACCEL_IOCTL_H

#include <stdint.h>

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
/*
 * Waits for the fence in syncobj @h: 1 if it signalled without error,
 * else the error it signalled with (or that of the wait).
 */
int refaccel_syncobj_result(int fd, uint32_t h);

#endif
