/* SPDX-License-Identifier: MIT */
/*
 * fuzz-accel's shared pieces: the per-process state (the CPU device and
 * the program built once), the tables of objects an input works on, the
 * result checks and fence helpers every operation uses, and the
 * operations the dispatch in fuzz-accel.c calls.
 */
#ifndef ACCEL_FUZZ_ACCEL_H
#define ACCEL_FUZZ_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libaccel/libaccel.h>

#include "fuzz-input.h"

#define N_QUEUE 2
#define N_BUF 6
#define N_MAP 4
#define N_PROG 3
#define N_KERN 3
#define N_FENCE 6

#define BUF_CAP 65536u
#define KERNEL_MIN_BUFFER 64u
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* sentinel for out-parameters that failing calls must leave alone */
#define UNTOUCHED ((void *)(uintptr_t)0x5a5a5a5a5a5a5a5aull)

/* Per process, set up by LLVMFuzzerInitialize. */
struct fac_state {
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_program *built;
	void *binary;
	size_t binary_size;
	uint64_t max_alloc, local_mem, max_wg;
	bool ok;
};

extern struct fac_state fac_g;
/* the kernels every program is made of (fuzz-accel-kernel.c) */
extern const char fac_kernel_source[];
/* fill patterns and kernel argument values */
extern uint8_t fac_value_buf[256];

struct buf_slot {
	struct accel_buffer *b;
	uint64_t size;
};

struct map_slot {
	struct accel_buffer *b;
	void *ptr;
};

struct fence_slot {
	struct accel_fence *f;
	bool user;    /* a user fence not yet signalled */
};

/* One input: its bytes and the objects it made. */
struct run {
	struct fz in;
	struct accel_queue *q[N_QUEUE];
	struct buf_slot buf[N_BUF];
	struct map_slot map[N_MAP];
	struct accel_program *prog[N_PROG];
	struct accel_kernel *kern[N_KERN];
	struct fence_slot fence[N_FENCE];
};

/* ---- checks, operands, fences and buffers (fuzz-accel.c) --------------- */

void fac_die(const char *what, int r);
int fac_chk(int r);
void fac_settle(struct run *r);
void fac_drop_fence(struct fence_slot *s);
uint32_t fac_pick_wait(struct run *r, struct accel_fence **list,
		       struct accel_fence *const **ret);
struct fence_slot *fac_pick_fence_out(struct run *r,
				      struct accel_fence **tmp);
void fac_take_fence(struct fence_slot *s, int err, struct accel_fence *f);
uint32_t fac_pick_flags(struct fz *f, uint32_t all);
void fac_drop_buf(struct run *r, struct buf_slot *s);

/* ---- operations -------------------------------------------------------- */

/* buffers, maps and transfers (fuzz-accel-mem.c) */
void fac_op_buffer_new(struct run *r);
void fac_op_map(struct run *r);
void fac_op_transfer(struct run *r);

/* launches, programs and kernels (fuzz-accel-kernel.c) */
void fac_op_launch(struct run *r);
void fac_op_program(struct run *r);
void fac_op_kernel(struct run *r);

/* flushes, finishes and fences (fuzz-accel-fence.c) */
void fac_op_sync(struct run *r);

#endif /* ACCEL_FUZZ_ACCEL_H */
