/* SPDX-License-Identifier: MIT */
/**
 * @file accel-wg.h
 * @brief The work-group function ABI of the CPU reference device.
 *
 * This is the executable contract between code generators (the compiler in
 * compiler-stub/, or hand-written native kernels registered with
 * accel_program_new_native()) and the CPU device: one call runs one whole
 * work-group.
 *
 *     void kernel__wg(void **args, const struct accel_wg_ctx *ctx);
 *
 * @p args has one entry per kernel argument, each pointing at the
 * argument's value:
 * - a buffer argument: points at a `void *` holding the buffer's address
 *   (NULL for a NULL buffer);
 * - a by-value argument: points at the argument's bytes (aligned to 16);
 * - a local-memory argument: points at a `void *` holding the address of
 *   this work-group's block of the requested size (aligned to 128);
 * - an image argument: points at the image's struct accel_wg_image, which
 *   is what the generated code passes for the image;
 * - a sampler argument: points at a `void *` whose value (as uintptr_t)
 *   is the sampler's ACCEL_SAMPLER_* bits.
 *
 * The structure is versioned: a generator checks ACCEL_WG_ABI_VERSION at
 * build time and `abi_version` at run time. Fields are only ever added at
 * the end.
 */
#ifndef LIBACCEL_ACCEL_WG_H
#define LIBACCEL_ACCEL_WG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Version of struct accel_wg_ctx; bumped when fields are added.
 * 2: printf_buffer.
 * 3: local_mem_size.
 * 4: fail.
 */
#define ACCEL_WG_ABI_VERSION 4u

/** Barrier flags, OpenCL's CLK_LOCAL_MEM_FENCE/CLK_GLOBAL_MEM_FENCE. */
#define ACCEL_WG_BARRIER_LOCAL (1u << 0)
#define ACCEL_WG_BARRIER_GLOBAL (1u << 1)

struct accel_wg_ctx {
	/** ACCEL_WG_ABI_VERSION of the runtime that fills this in */
	uint32_t abi_version;
	/** 1, 2 or 3 */
	uint32_t work_dim;
	/** this work-group's id in each dimension */
	uint64_t group_id[3];
	/** number of work-groups in each dimension */
	uint64_t num_groups[3];
	/** work-items of this work-group (smaller in a trailing partial group) */
	uint64_t local_size[3];
	/** the work-group size given at launch (OpenCL's enqueued local size) */
	uint64_t enqueued_local_size[3];
	/** global size of the launch */
	uint64_t global_size[3];
	/** global offset of the launch */
	uint64_t global_offset[3];
	/**
	 * Per-work-group local memory: the kernel's static __local variables
	 * first (static_local_size bytes), then the local-memory arguments.
	 * Private to the thread running this work-group. Aligned to 128.
	 */
	void *local_mem;
	/** bytes at local_mem reserved for static __local variables */
	uint64_t static_local_size;
	/**
	 * Work-group barrier for generators that run work-items as fibers:
	 * suspends the calling work-item until all of the group's work-items
	 * reach it. NULL when the launch was not prepared for fibers (kernels
	 * without ACCEL_KERNEL_HAS_BARRIERS).
	 */
	void (*barrier)(const struct accel_wg_ctx *ctx, uint32_t flags);
	/** Opaque to generated code: the runtime's per-thread state. */
	void *runtime;
	/**
	 * The launch's printf buffer, for code from libaccel's own compiler
	 * (the layout is private to the two); NULL when the kernel does not
	 * print. Native kernels leave it alone. Since version 2.
	 */
	void *printf_buffer;
	/**
	 * Bytes at local_mem for this launch: the static __local variables
	 * and the local-memory arguments (to_local() and get_fence() tell
	 * local pointers by it). Since version 3.
	 */
	uint64_t local_mem_size;
	/**
	 * Fail the launch from inside it: the function cannot run this
	 * work-group (no memory for what it needs beside its stack, such as
	 * the stacks of work-items run as fibers). It calls this with a
	 * negative errno and returns; the runtime finishes the launch's other
	 * work-groups and completes the command with the error. Since
	 * version 4.
	 */
	void (*fail)(const struct accel_wg_ctx *ctx, int error);
};

/*
 * Sampler bits: OpenCL C's CLK_* values, which clang passes to
 * __translate_sampler_initializer() for samplers declared in the source.
 * One addressing mode, one filter, optionally normalized coordinates.
 */
#define ACCEL_SAMPLER_NORMALIZED_COORDS 0x01u
#define ACCEL_SAMPLER_ADDRESS_NONE 0x00u
#define ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE 0x02u
#define ACCEL_SAMPLER_ADDRESS_CLAMP 0x04u
#define ACCEL_SAMPLER_ADDRESS_REPEAT 0x06u
#define ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT 0x08u
#define ACCEL_SAMPLER_ADDRESS_MASK 0x0eu
#define ACCEL_SAMPLER_FILTER_NEAREST 0x10u
#define ACCEL_SAMPLER_FILTER_LINEAR 0x20u
#define ACCEL_SAMPLER_FILTER_MASK 0x30u

/*
 * An image as kernels see it: a struct accel_image_layout (accel-image.h)
 * resolved for one launch. Sizes that do not apply to the type are 1.
 * The values of type, channel_order and channel_type are OpenCL's (what
 * get_image_channel_order() and get_image_channel_data_type() return).
 */
struct accel_wg_image {
	/** address of texel (0, 0, 0) */
	void *data;
	/** bytes from one row to the next */
	uint64_t row_pitch;
	/** bytes from one slice (3D) or layer (arrays) to the next */
	uint64_t slice_pitch;
	/** texels per row */
	uint32_t width;
	/** rows */
	uint32_t height;
	/** slices */
	uint32_t depth;
	/** layers */
	uint32_t array_size;
	/** enum accel_image_type */
	uint32_t type;
	/** enum accel_image_order */
	uint32_t channel_order;
	/** enum accel_image_data */
	uint32_t channel_type;
	/** bytes per texel */
	uint32_t texel_size;
};

/** A work-group function. */
typedef void (*accel_wg_fn)(void **args, const struct accel_wg_ctx *ctx);

/*
 * A streaming variant of a work-group function does what the function
 * does, but writes global memory with non-temporal (cache-bypassing)
 * stores. A runtime may call it instead when:
 * - every global buffer argument is ACCEL_WG_STREAMING_ADDR_ALIGN aligned,
 * - enqueued_local_size[0] and global_offset[0] are multiples of
 *   ACCEL_WG_STREAMING_X_MULTIPLE,
 * and it then orders those stores (sfence on x86) before anything else
 * can see the launch complete. libaccel's compiler names the variant of
 * K__wg K__wg_nt (ACCEL_WG_STREAMING_SUFFIX).
 */
#define ACCEL_WG_STREAMING_ADDR_ALIGN 64u
#define ACCEL_WG_STREAMING_X_MULTIPLE 16u
#define ACCEL_WG_STREAMING_SUFFIX "_nt"

/*
 * A 32-bit ids variant of a work-group function does what the function
 * does for launches whose global ids all stay below ACCEL_WG_IDS32_LIMIT
 * (global_offset[d] + global_size[d] <= the limit in every dimension):
 * libaccel's compiler makes one (K__wg_id32) when a kernel guards on an id
 * truncated to 32 bits ("int i = get_global_id(0); if (i < n)"), which it
 * can then split off the work-item loop. Launches that run a streaming
 * variant meet this contract too (its code may be the 32-bit ids one).
 */
#define ACCEL_WG_IDS32_LIMIT 0x7fffffffull
#define ACCEL_WG_IDS32_SUFFIX "_id32"

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_WG_H */
