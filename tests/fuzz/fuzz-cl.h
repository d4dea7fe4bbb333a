/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cl's shared pieces: the per-process state (the device, contexts and
 * the program built once), the tables of objects an input works on, the
 * operand and event helpers every operation uses, and the operations the
 * dispatch in fuzz-cl.c calls.
 */
#ifndef ACCEL_FUZZ_CL_H
#define ACCEL_FUZZ_CL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "icd.h"
#include "fuzz-input.h"

#define N_QUEUE 3
#define N_MEM 8
#define N_PROG 3
#define N_KERN 4
#define N_EVENT 8
#define N_MAP 8
#define N_ARGS 8
#define N_SVM 4

/* buffers that really get allocated are at most this large */
#define MEM_CAP 65536u
/* a bound buffer must hold what the kernels index: 16 x 4, 8 x 8 bytes */
#define KERNEL_MIN_BUFFER 64u

/* Per process, set up by LLVMFuzzerInitialize. */
struct fcl_state {
	cl_platform_id platform;
	cl_device_id device;
	cl_context ctx[2];
	cl_command_queue cleanup_queue[2];
	cl_program built; /* from fcl_kernel_source, in ctx[0] */
	unsigned char *binary;
	size_t binary_size;
	cl_ulong max_alloc;
	cl_ulong local_mem;
	size_t max_wg;
	bool ok;
};

extern struct fcl_state fcl_g;
extern _Atomic unsigned long fcl_callbacks_run;
/* the kernels every program is made of (fuzz-cl-kernel.c) */
extern const char fcl_kernel_source[];

struct mem_slot {
	cl_mem m;
	int ctx;
	size_t size;
};

struct map_slot {
	cl_mem m;
	int ctx;
	void *ptr;
};

struct kern_slot {
	cl_kernel k;
	int type;              /* index into kernel_args, -1 unknown */
	cl_mem bound[N_ARGS];  /* buffers set as arguments */
};

struct event_slot {
	cl_event e;
	bool user;
	bool set;             /* user event: status set */
};

struct svm_slot {
	void *ptr;            /* clSVMAlloc() of ctx */
	int ctx;
	size_t size;
};

struct prog_slot {
	cl_program p;
	bool source;          /* never built: that would compile */
};

/* One input: its bytes and the objects it made. */
struct run {
	struct fz in;
	cl_command_queue q[N_QUEUE];
	int q_ctx[N_QUEUE];
	struct mem_slot mem[N_MEM];
	struct prog_slot prog[N_PROG];
	struct kern_slot kern[N_KERN];
	struct event_slot ev[N_EVENT];
	struct map_slot map[N_MAP];
	struct svm_slot svm[N_SVM];
};

/* ---- operands and events (fuzz-cl.c) ----------------------------------- */

cl_command_queue fcl_pick_queue(struct run *r, int *ctx);
struct mem_slot *fcl_pick_mem(struct run *r);
cl_uint fcl_pick_wait(struct run *r, cl_event *list, const cl_event **ret);
cl_event *fcl_pick_event_out(struct run *r, cl_event *tmp);
void fcl_pick3(struct fz *f, size_t v[3]);
void fcl_drop_event(struct event_slot *s);
void fcl_take_event(struct run *r, cl_event *out, cl_int err, cl_event e);
void fcl_settle(struct run *r);
void fcl_release_mem(struct run *r, struct mem_slot *s);
void fcl_release_svm(struct run *r, struct svm_slot *s);

/* ---- operations -------------------------------------------------------- */

/* buffers, transfers and maps (fuzz-cl-mem.c) */
void fcl_op_buffer_new(struct run *r);
void fcl_op_sub_buffer(struct run *r);
void fcl_op_read_write(struct run *r, bool write);
void fcl_op_rect(struct run *r, int kind);
void fcl_op_copy(struct run *r);
void fcl_op_fill(struct run *r);
void fcl_op_map(struct run *r);
void fcl_op_unmap(struct run *r);

/* shared virtual memory (fuzz-cl-svm.c) */
void fcl_op_svm(struct run *r);

/* programs, kernels and launches (fuzz-cl-kernel.c) */
void fcl_op_program_new(struct run *r);
void fcl_op_program_build(struct run *r);
void fcl_op_kernel_new(struct run *r);
void fcl_op_kernel_arg(struct run *r);
void fcl_op_ndrange(struct run *r);

/* markers, barriers, waits and events (fuzz-cl-event.c) */
void fcl_op_marker(struct run *r);
void fcl_op_sync(struct run *r);
void fcl_op_event(struct run *r);

/* queues, info queries, releases, contexts (fuzz-cl-object.c) */
void fcl_op_queue_new(struct run *r);
void fcl_op_info(struct run *r);
void fcl_op_release(struct run *r);
void fcl_op_context(struct run *r);

#endif /* ACCEL_FUZZ_CL_H */
