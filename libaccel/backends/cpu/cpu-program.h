/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's programs: its kernel handle, the compiler module
 * (cpu-compiler.c), the program ops (cpu-program.c) and the launch policy
 * (cpu-launch.c).
 */
#ifndef LIBACCEL_CPU_PROGRAM_H
#define LIBACCEL_CPU_PROGRAM_H

#include <pthread.h>

#include "backend.h"

struct cpu_program;

/*
 * A kernel's handle (accel_kernel_def.handle): the code of a compiled,
 * native or built-in kernel.
 */
struct cpu_kernel {
	accel_wg_fn fn;
	accel_wg_fn streaming_fn;           /* NULL if none (accel-wg.h) */
	accel_wg_fn ids32_fn;               /* NULL if none (accel-wg.h) */
	uint32_t flags;                     /* CPU_KERNEL_* */
	/* the program that can build its streaming variant later, or NULL */
	struct cpu_program *later;
	uint32_t later_index;               /* its kernel there */
};

/*
 * A compiled program's backend_data: its code, and what its kernels'
 * streaming variants are built from later (cpu-variants.c).
 */
struct cpu_program {
	void *handle;                       /* the code, dlopen()ed */
	struct accel_device *dev;
	/* The source and options built again; NULL: nothing to build later. */
	char *source;
	size_t length;
	char *options;
	uint32_t n_kernels;
	char **names;                       /* the kernels' names */
	/* Per kernel: its streaming variant once built, else NULL. */
	_Atomic(accel_wg_fn) *streaming;
	pthread_mutex_t lock;               /* one build at a time */
	atomic_bool done;                   /* built, or failed for good */
	void *later_handle;                 /* the variants' code */
};

/*
 * What cpu_launch_prepare() decides for one launch, in the command's
 * scratch (struct cpu_exec_job, accel_cmd_priv()).
 */
struct cpu_launch {
	accel_wg_fn fn;
	/* fn's streaming variant, set when this launch meets its contract */
	accel_wg_fn streaming_fn;
	/* bytes of the buffers bound to the arguments */
	uint64_t buffer_bytes;
	/* caller's stack one work-group call needs (a lower bound if not
	 * known), without fiber stacks */
	uint64_t stack_size;
	uint32_t kernel_flags;              /* CPU_KERNEL_* */
};

/* A compiled kernel built with -cl-denorms-are-zero (flushes denormals). */
#define CPU_KERNEL_DENORMS_ZERO (1u << 0)
/* Its work-items run as fibers: private_per_item is not on the caller's stack. */
#define CPU_KERNEL_FIBERS (1u << 1)
/* It calls printf. */
#define CPU_KERNEL_PRINTF (1u << 2)

/* ---- the compiler module (cpu-compiler.c) ---- */

struct cpu_compiler;
/* The module is installed: the device offers ACCEL_DEVICE_CAP_COMPILER. */
bool cpu_compiler_available(void);
/*
 * The same, with the module's path in @buf, or why there is none
 * ("<path>: <reason>"): ACCEL_DEVICE_STRING_COMPILER.
 */
bool cpu_compiler_locate(char *buf, size_t size);
/* Whether the SPIR-V translator is there (ACCEL_DEVICE_CAP_IL). */
bool cpu_il_available(void);
void cpu_compiler_destroy(struct cpu_compiler *c);
/*
 * Build @cp's source with streaming variants; publish each kernel's in
 * cp->streaming[], keep their code in cp->later_handle. Returns how many
 * kernels have one (the compiler keeps only those with aligned stores).
 */
int cpu_compiler_build_variants(struct cpu_program *cp);
/* program_build: build, compile or link OpenCL C. */
int cpu_program_build(struct accel_device *dev,
		      const struct accel_build_request *req, char **ret_log,
		      struct accel_program **ret);
/* program_load_binary: a program binary container. */
int cpu_program_load_binary(struct accel_device *dev, const void *data,
			    size_t size, struct accel_program **ret);

/* ---- program ops and launches (cpu-program.c, cpu-launch.c) ---- */

/*
 * dlopen() a program's code: 0, -ENOMEM (no mapping or address space
 * left), -EIO (the object does not load); the reason logged.
 */
int cpu_program_dlopen(struct accel_context *ctx, const char *path,
		       void **ret);
int cpu_kernel_from_native(struct accel_device *dev,
			   const struct accel_native_kernel_desc *desc,
			   void **ret_handle);
void cpu_kernel_free(struct accel_device *dev, void *handle);
void cpu_program_fini(struct accel_program *prog);
int cpu_launch_prepare(struct accel_queue *queue, struct accel_cmd *cmd);

/* ---- streaming variants built later (cpu-variants.c) ---- */

/* A program with @n_kernels kernels, its code at @handle. */
struct cpu_program *cpu_program_new(struct accel_device *dev, void *handle,
				    uint32_t n_kernels);
/* Keep what @cp's streaming variants are built from; false: no memory. */
bool cpu_program_keep_source(struct cpu_program *cp, const char *source,
			     size_t length, const char *options);
void cpu_program_free(struct cpu_program *cp);
/*
 * @ck's streaming variant for a launch that would run one, or NULL; the
 * first such launch builds it (waits for the build).
 */
accel_wg_fn cpu_kernel_streaming_fn(const struct cpu_kernel *ck);

#endif /* LIBACCEL_CPU_PROGRAM_H */
