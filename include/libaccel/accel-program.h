/* SPDX-License-Identifier: MIT */
/**
 * @file accel-program.h
 * @brief Programs (sets of kernels) and kernels (a function plus arguments).
 *
 * Programs come from:
 * - native work-group functions registered by the caller
 *   (accel_program_new_native(), see accel-wg.h for the ABI);
 * - OpenCL C source (accel_program_new_source()), and the binaries such
 *   programs give (accel_program_get_binary(), accel_program_new_binary());
 * - SPIR-V modules (accel_program_new_il());
 * - the device's built-in kernels (accel_program_new_built_in(), OpenCL's
 *   "built-in kernels"); the CPU device offers:
 *     - `fill_u32(global uint *dst, uint value)`: dst[gid] = value
 *     - `copy_u8(global uchar *dst, global const uchar *src)`: dst[gid] = src[gid]
 *     - `sgemm(global float *C, global const float *A, global const float *B,
 *        uint M, uint N, uint K)`: C = A * B, row-major, M x K times K x N;
 *       launched as 2-D with global size (N, M), local size chosen freely.
 *
 * Thread-safety: programs are immutable and may be shared. A kernel's
 * arguments must not be set from two threads at once; launching captures
 * the arguments, so a kernel may be relaunched with new arguments while
 * earlier launches are pending.
 */
#ifndef LIBACCEL_ACCEL_PROGRAM_H
#define LIBACCEL_ACCEL_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libaccel/accel-wg.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_device;
struct accel_buffer;
struct accel_program;
struct accel_kernel;

/** How an argument is passed (struct accel_kernel_arg_desc.kind). */
enum accel_kernel_arg_kind {
	ACCEL_KERNEL_ARG_BUFFER = 1, /**< a global/constant buffer */
	ACCEL_KERNEL_ARG_VALUE = 2,  /**< bytes copied by value */
	ACCEL_KERNEL_ARG_LOCAL = 3,  /**< a __local block sized at set time */
	ACCEL_KERNEL_ARG_IMAGE = 4,  /**< an image (accel-image.h) */
	ACCEL_KERNEL_ARG_SAMPLER = 5, /**< a sampler (accel-image.h) */
};

/** Address space of a pointer argument (OpenCL's arg address qualifier). */
enum accel_kernel_arg_addr {
	ACCEL_KERNEL_ARG_ADDR_PRIVATE = 0,
	ACCEL_KERNEL_ARG_ADDR_GLOBAL = 1,
	ACCEL_KERNEL_ARG_ADDR_CONSTANT = 2,
	ACCEL_KERNEL_ARG_ADDR_LOCAL = 3,
};

/** Type qualifier bits (OpenCL's arg type qualifiers). */
#define ACCEL_KERNEL_ARG_TYPE_CONST (1u << 0)
#define ACCEL_KERNEL_ARG_TYPE_RESTRICT (1u << 1)
#define ACCEL_KERNEL_ARG_TYPE_VOLATILE (1u << 2)
#define ACCEL_KERNEL_ARG_TYPE_PIPE (1u << 3)

/** Description of one kernel argument. */
struct accel_kernel_arg_desc {
	/** sizeof(struct accel_kernel_arg_desc) as the caller knows it */
	uint32_t struct_size;
	/** enum accel_kernel_arg_kind */
	uint32_t kind;
	/**
	 * by-value: exact size in bytes; buffer/local/sampler:
	 * sizeof(void *); image: sizeof(struct accel_wg_image)
	 */
	uint32_t size;
	/** enum accel_kernel_arg_addr */
	uint32_t address_space;
	/** ACCEL_KERNEL_ARG_TYPE_* */
	uint32_t type_qualifiers;
	/** reserved, 0 */
	uint32_t reserved;
	/** argument name, may be NULL */
	const char *name;
	/** type name as written in the source (e.g. "float*"), may be NULL */
	const char *type_name;
	/** images: enum accel_image_type of the argument; 0 otherwise */
	uint32_t image_type;
	/**
	 * images: ACCEL_IMAGE_ACCESS_* bits (both for read_write), and
	 * ACCEL_KERNEL_ARG_IMAGE_DEPTH; 0 otherwise
	 */
	uint32_t image_access;
};

/** struct accel_kernel_arg_desc.image_access: a depth image type */
#define ACCEL_KERNEL_ARG_IMAGE_DEPTH (1u << 8)

/**
 * The kernel uses work-group barriers and needs the runtime's barrier
 * hook. No device has one: program creation refuses such a native kernel
 * with -EOPNOTSUPP. Compiled kernels handle their barriers in the
 * generated code and are not flagged.
 */
#define ACCEL_KERNEL_HAS_BARRIERS (1u << 0)
/**
 * The kernel's results cannot depend on how the NDRange is cut into
 * work-groups: it reads no local ids or sizes, group ids or counts, and
 * uses neither barriers nor local memory. The runtime may then run it in
 * larger (and non-uniform) groups than enqueued; the work-group function
 * is told the groups it actually runs.
 */
#define ACCEL_KERNEL_GROUP_INVARIANT (1u << 1)

/** Description of one native kernel for accel_program_new_native(). */
struct accel_native_kernel_desc {
	/** sizeof(struct accel_native_kernel_desc) as the caller knows it */
	uint32_t struct_size;
	/** ACCEL_KERNEL_* flags */
	uint32_t flags;
	/** kernel name, unique within the program */
	const char *name;
	/** the work-group function */
	accel_wg_fn fn;
	/** number of arguments (up to ACCEL_DEVICE_U64_MAX_KERNEL_ARGS) */
	uint32_t n_args;
	/** reserved, 0 */
	uint32_t reserved;
	/** @p n_args argument descriptions (copied) */
	const struct accel_kernel_arg_desc *args;
	/** bytes of static __local memory the function needs */
	uint64_t static_local_size;
	/** required work-group size, all 0 if none */
	uint64_t reqd_work_group_size[3];
	/*
	 * Optional from here on (a smaller struct_size leaves them unset).
	 */
	/** work-group size hint, all 0 if none */
	uint64_t work_group_size_hint[3];
	/** vector type hint as an OpenCL C type name ("float4"), or NULL */
	const char *vec_type_hint;
	/**
	 * a streaming variant of @p fn, or NULL: the runtime may call it
	 * instead when the launch meets the conditions in accel-wg.h
	 */
	accel_wg_fn streaming_fn;
	/**
	 * a 32-bit ids variant of @p fn, or NULL: the runtime calls it
	 * instead for launches whose global ids stay below
	 * ACCEL_WG_IDS32_LIMIT (accel-wg.h)
	 */
	accel_wg_fn ids32_fn;
	/**
	 * bytes of stack one call of @p fn (or a variant) needs, 0 if not
	 * known: the runtime gives launches at least this much, or refuses
	 * them (accel_queue_launch())
	 */
	uint64_t private_size;
};

/**
 * Create a program from native work-group functions (device needs
 * ACCEL_DEVICE_CAP_NATIVE_KERNELS). All descriptions are copied.
 *
 * @return 0, -EINVAL (NULL argument, n 0, a malformed description: bad
 *         struct_size, NULL name or fn, duplicate name, bad argument kind or
 *         size, unknown flags), -E2BIG (too many arguments, static local
 *         memory above the device's), -EOPNOTSUPP (the device has no
 *         ACCEL_DEVICE_CAP_NATIVE_KERNELS, or a kernel is flagged
 *         ACCEL_KERNEL_HAS_BARRIERS), -ENODEV (the device was unplugged),
 *         -ENOMEM
 */
int accel_program_new_native(struct accel_device *dev,
			     const struct accel_native_kernel_desc *kernels,
			     uint32_t n, struct accel_program **ret);

/**
 * Build a program from OpenCL C source (device needs
 * ACCEL_DEVICE_CAP_COMPILER). The compiler is loaded on the first call.
 *
 * @param source the source text
 * @param length its length in bytes, or 0 if NUL-terminated
 * @param options OpenCL build options (-D, -I, -cl-std=, -cl-opt-disable,
 *        -cl-mad-enable, -cl-fast-relaxed-math, -cl-finite-math-only,
 *        -cl-denorms-are-zero, -w, -Werror, -cl-kernel-arg-info), may be NULL
 * @param[out] ret_log if not NULL: the build log (free() it), set on
 *        success and on build failures (-ENOEXEC, -EINVAL for a bad option)
 *        so that diagnostics reach the caller; NULL otherwise
 * @param[out] ret the program
 * @return 0, -EINVAL (NULL argument, unknown build option), -ENOEXEC (the
 *         source does not compile), -E2BIG (a kernel's arguments or
 *         __local memory above the device's limits), -EOPNOTSUPP (no
 *         compiler on this device or installation), -ENOENT,
 *         -ENAMETOOLONG (the compiler module's path cannot be made: no
 *         path for libaccel itself, or $ACCEL_COMPILER or the path too
 *         long), -ENODEV (the device was unplugged), -ETIMEDOUT, -ENOMEM,
 *         -EIO
 */
int accel_program_new_source(struct accel_device *dev, const char *source,
			     size_t length, const char *options,
			     char **ret_log, struct accel_program **ret);

/**
 * Create a program from a program binary, as accel_program_get_binary()
 * returns it (device needs ACCEL_DEVICE_CAP_COMPILER: the compiler module
 * checks and loads it, without compiling anything). A binary is a
 * versioned container of kernel descriptions and native code for one CPU
 * architecture and feature set; docs/design.md describes it. The binary
 * of an object or library gives a program of that kind again
 * (accel_program_get_kind()), to be linked. The bytes are copied.
 *
 * @return 0; -EINVAL (NULL argument, size 0, malformed binary: truncated,
 *         bad lengths, counts, strings or values); -ENOEXEC (a well-formed
 *         binary this library cannot run: another container format or
 *         work-group ABI version, or code using a CPU feature this CPU
 *         lacks); -E2BIG (a kernel's arguments or __local memory above
 *         the device's limits); -EOPNOTSUPP (no compiler on this device or
 *         installation); -ENOENT, -ENAMETOOLONG (the compiler module's
 *         path, as for accel_program_new_source()); -ENODEV (the device
 *         was unplugged); -ENOMEM; -EIO (the code does not load)
 */
int accel_program_new_binary(struct accel_device *dev, const void *binary,
			     size_t size, struct accel_program **ret);

/**
 * The program binary of a program built from source, compiled, linked or
 * loaded from a binary, for accel_program_new_binary() in this or a later
 * process.
 *
 * @param[out] ret_data the bytes, living as long as the program
 * @param[out] ret_size their number
 * @return 0, -EINVAL (NULL argument), -ENODATA (the program has no binary:
 *         native or built-in kernels)
 */
int accel_program_get_binary(struct accel_program *prog,
			     const void **ret_data, size_t *ret_size);

/**
 * The newest SPIR-V version accel_program_new_il() implements (1.3).
 * Version 1.4 modules are read too, but the translator lacks some of
 * 1.4's instructions (OpPtrDiff, OpPtrEqual, OpCopyLogical,
 * OpDecorateString), so 1.4 is not offered.
 */
#define ACCEL_IL_SPIRV_MAX_VERSION 0x00010300u

/** A specialization constant's value (accel_program_new_il()). */
struct accel_spec_constant {
	/** its SpecId in the module */
	uint32_t id;
	/** bytes of its type: 1 for bool, else the type's size */
	uint32_t size;
	/** the value's bits, in the low @p size bytes (a float's as they are) */
	uint64_t value;
};

/** accel_program_new_il() flag: compile to an object, to be linked. */
#define ACCEL_IL_OBJECT (1u << 0)

/**
 * Build a program from a SPIR-V module (OpenCL environment, versions 1.0
 * to ACCEL_IL_SPIRV_MAX_VERSION, Physical64 addressing); the device needs
 * ACCEL_DEVICE_CAP_IL. With ACCEL_IL_OBJECT the result is an object for
 * accel_program_link() (OpenCL's clCompileProgram), else an executable.
 * A module that does not build (malformed, an unknown capability, a
 * specialization constant it does not have or of another size) fails
 * with -ENOEXEC and says why in the log.
 *
 * @param il the module's bytes (copied where needed)
 * @param size their number
 * @param options code generation options, as for accel_program_new_source()
 *        (-D and -I have nothing to act on), may be NULL
 * @param n_spec number of specialization constants set
 * @param spec their values (a later one for the same id wins); the
 *        others keep the module's defaults
 * @param flags 0 or ACCEL_IL_OBJECT
 * @param[out] ret_log as for accel_program_new_source()
 * @param[out] ret the program
 * @return 0, -EINVAL (NULL argument, size 0, unknown flag or option, a
 *         constant size other than 1, 2, 4, 8), -ENOEXEC (the module does
 *         not build: see the log), -E2BIG, -EOPNOTSUPP (no
 *         ACCEL_DEVICE_CAP_IL: no compiler or no SPIR-V translator),
 *         -ENOENT, -ENAMETOOLONG, -ENODEV (as for
 *         accel_program_new_source()), -ETIMEDOUT, -ENOMEM, -EIO
 */
int accel_program_new_il(struct accel_device *dev, const void *il,
			 size_t size, const char *options, uint32_t n_spec,
			 const struct accel_spec_constant *spec,
			 uint32_t flags, char **ret_log,
			 struct accel_program **ret);

/**
 * The size of the specialization constant @p spec_id of a SPIR-V module
 * (OpSpecConstant* decorated SpecId): 1 for bool, else its type's bytes.
 * Reads only the module's declarations; needs no device.
 *
 * @return 0; -EINVAL (NULL argument, not a SPIR-V module: too short, no
 *         magic, an instruction running past the end); -ENOENT (no
 *         constant with that id)
 */
int accel_il_get_spec_constant_size(const void *il, size_t size,
				    uint32_t spec_id, uint32_t *ret_size);

/** What a program holds (accel_program_get_kind()). */
enum accel_program_kind {
	/** kernels ready to launch (every program but the two below) */
	ACCEL_PROGRAM_EXECUTABLE = 0,
	/** one source compiled, to be linked (accel_program_compile()) */
	ACCEL_PROGRAM_OBJECT = 1,
	/** objects linked into a unit to be linked again */
	ACCEL_PROGRAM_LIBRARY = 2,
};

/** accel_program_link() flag: make a library, not an executable. */
#define ACCEL_LINK_LIBRARY (1u << 0)

/**
 * Compile OpenCL C source to an object, for accel_program_link() (OpenCL's
 * clCompileProgram). The object has no kernels; its binary
 * (accel_program_get_binary()) loads again with accel_program_new_binary().
 * Device needs ACCEL_DEVICE_CAP_COMPILER.
 *
 * @param source the source text
 * @param length its length in bytes, or 0 if NUL-terminated
 * @param options compile options, as for accel_program_new_source()
 * @param n_headers number of embedded headers
 * @param header_names the name `#include "name"` finds header i by: a
 *        relative path ('/'-separated, no "." or ".." parts)
 * @param header_sources header i's NUL-terminated text
 * @param[out] ret_log as for accel_program_new_source()
 * @param[out] ret the object (kind ACCEL_PROGRAM_OBJECT)
 * @return 0, -EINVAL (NULL argument, unknown option, bad header name),
 *         -ENOEXEC (the source does not compile: see the log), -E2BIG,
 *         -EOPNOTSUPP, -ENOENT, -ENAMETOOLONG, -ENODEV (as for
 *         accel_program_new_source()), -ETIMEDOUT, -ENOMEM, -EIO
 */
int accel_program_compile(struct accel_device *dev, const char *source,
			  size_t length, const char *options,
			  uint32_t n_headers, const char *const *header_names,
			  const char *const *header_sources, char **ret_log,
			  struct accel_program **ret);

/**
 * Link objects and libraries into an executable program or, with
 * ACCEL_LINK_LIBRARY, into a library (OpenCL's clLinkProgram). Each input
 * keeps the options it was compiled with.
 *
 * @param n number of inputs (> 0)
 * @param inputs programs of kind ACCEL_PROGRAM_OBJECT or _LIBRARY, all of
 *        device @p dev (not consumed)
 * @param options link options: code generation flags
 *        (-cl-denorms-are-zero, -cl-no-signed-zeros, -cl-finite-math-only,
 *        -cl-unsafe-math-optimizations, -cl-fast-relaxed-math), may be NULL
 * @param flags 0 or ACCEL_LINK_LIBRARY
 * @param[out] ret_log if not NULL: the link log (free() it), set on success
 *        and on link failures (-ENOEXEC)
 * @return 0, -EINVAL (NULL argument, n 0, unknown flag or option, an input
 *         that is not an object or library), -EXDEV (an input of another
 *         device), -ENOEXEC (the link failed: a function undefined or
 *         defined twice; see the log), -E2BIG, -EOPNOTSUPP, -ENOENT,
 *         -ENAMETOOLONG, -ENODEV (as for accel_program_new_source()),
 *         -ETIMEDOUT, -ENOMEM, -EIO
 */
int accel_program_link(struct accel_device *dev, uint32_t n,
		       struct accel_program *const *inputs,
		       const char *options, uint32_t flags, char **ret_log,
		       struct accel_program **ret);

/** @return the program's enum accel_program_kind, -EINVAL for NULL */
int accel_program_get_kind(struct accel_program *prog);

/**
 * Bytes of the program-scope variables in the global address space
 * (OpenCL's CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE); 0 for programs
 * that are not compiled executables.
 * @return 0, -EINVAL (NULL argument)
 */
int accel_program_get_global_variable_size(struct accel_program *prog,
					   uint64_t *ret);

/**
 * Create a program from some of the device's built-in kernels.
 * @param names ';'-separated names from ACCEL_DEVICE_STRING_BUILT_IN_KERNELS
 * @return 0, -EINVAL (NULL argument, empty or malformed list), -ENOENT (a
 *         name the device does not offer), -EOPNOTSUPP, -ENODEV (the
 *         device was unplugged), -ENOMEM
 */
int accel_program_new_built_in(struct accel_device *dev, const char *names,
			       struct accel_program **ret);

/** Take a reference. Returns @p prog (NULL stays NULL). */
struct accel_program *accel_program_ref(struct accel_program *prog);

/** Drop a reference. Returns NULL. Kernels keep their program alive. */
struct accel_program *accel_program_unref(struct accel_program *prog);

/** @return the device (no new reference), NULL for NULL */
struct accel_device *accel_program_get_device(struct accel_program *prog);

/** @return number of kernels, -EINVAL for NULL */
int accel_program_get_kernel_count(struct accel_program *prog);

/**
 * Name of the kernel at @p index; lives as long as the program.
 * @return 0, -EINVAL (NULL argument), -ERANGE (index out of range)
 */
int accel_program_get_kernel_name(struct accel_program *prog, uint32_t index,
				  const char **ret);

/**
 * Create a kernel object for launching the kernel called @p name.
 * @return 0, -EINVAL (NULL argument), -ENOENT (no such kernel), -ENOMEM
 */
int accel_kernel_new(struct accel_program *prog, const char *name,
		     struct accel_kernel **ret);

/**
 * Create a kernel with the same function and a copy of the arguments set
 * so far (OpenCL's clCloneKernel).
 * @return 0, -EINVAL, -ENOMEM
 */
int accel_kernel_clone(struct accel_kernel *kernel, struct accel_kernel **ret);

/** Take a reference. Returns @p kernel (NULL stays NULL). */
struct accel_kernel *accel_kernel_ref(struct accel_kernel *kernel);

/** Drop a reference. Returns NULL. Launches keep what they need. */
struct accel_kernel *accel_kernel_unref(struct accel_kernel *kernel);

/** @return the kernel's name (lives as long as the kernel), NULL for NULL */
const char *accel_kernel_get_name(struct accel_kernel *kernel);

/** @return the program (no new reference), NULL for NULL */
struct accel_program *accel_kernel_get_program(struct accel_kernel *kernel);

/** @return the number of arguments, -EINVAL for NULL */
int accel_kernel_get_arg_count(struct accel_kernel *kernel);

/**
 * Describe argument @p index. The caller sets desc->struct_size; fields
 * beyond it are not written. Strings live as long as the kernel.
 * @return 0, -EINVAL (NULL argument, struct_size too small), -ERANGE (index)
 */
int accel_kernel_get_arg_desc(struct accel_kernel *kernel, uint32_t index,
			      struct accel_kernel_arg_desc *desc);

/**
 * Work-group facts: static local memory bytes, required work-group size,
 * flags. Any out-pointer may be NULL.
 * @return 0 or -EINVAL (NULL @p kernel)
 */
int accel_kernel_get_wg_info(struct accel_kernel *kernel,
			     uint64_t *static_local_size,
			     uint64_t reqd_work_group_size[3], uint32_t *flags);

/**
 * The kernel's private memory: the stack one call of its work-group
 * function needs (@p private_size), plus @p per_work_item bytes for each
 * work-item of the group. OpenCL's CL_KERNEL_PRIVATE_MEM_SIZE is their
 * sum. Any out-pointer may be NULL.
 *
 * @param[out] known false when the need has no bound known at build time
 *             (a dynamic alloca, code from a native kernel that gave no
 *             size): the sizes are then a lower bound
 * @return 0 or -EINVAL (NULL @p kernel)
 */
int accel_kernel_get_private_mem(struct accel_kernel *kernel,
				 uint64_t *private_size,
				 uint64_t *per_work_item, bool *known);

/**
 * The kernel's hints for the runtime (OpenCL's work_group_size_hint and
 * vec_type_hint attributes). Any out-pointer may be NULL.
 *
 * @param[out] work_group_size_hint all 0 if the kernel gives none
 * @param[out] vec_type_hint type name ("float4"), "" if none; lives as
 *             long as the kernel
 * @return 0 or -EINVAL (NULL @p kernel)
 */
int accel_kernel_get_hints(struct accel_kernel *kernel,
			   uint64_t work_group_size_hint[3],
			   const char **vec_type_hint);

/**
 * Work-items per sub-group of the kernel (OpenCL C 6.15.19): consecutive
 * local linear ids, the last sub-group of a work-group shorter when this
 * does not divide its size. It follows the code the kernel holds, which
 * a program binary may have made for another level of the CPU than the
 * device's ACCEL_DEVICE_U64_SUB_GROUP_SIZE.
 *
 * @param[out] ret the size, 0 for kernels without sub-groups (native and
 *             built-in kernels)
 * @return 0 or -EINVAL (NULL argument)
 */
int accel_kernel_get_sub_group_size(struct accel_kernel *kernel,
				    uint32_t *ret);

/**
 * The sub-group size the kernel's source asked for
 * (intel_reqd_sub_group_size, cl_intel_required_subgroup_size), which is
 * then accel_kernel_get_sub_group_size()'s answer too.
 *
 * @param[out] ret the size, 0 if the kernel asks for none
 * @return 0 or -EINVAL (NULL argument)
 */
int accel_kernel_get_reqd_sub_group_size(struct accel_kernel *kernel,
					 uint32_t *ret);

/**
 * Set a buffer argument. @p buf may be NULL (the kernel sees NULL); it
 * may be a buffer of any device of the kernel's context (accel-buffer.h).
 * The kernel holds a reference on the buffer until it is replaced or the
 * kernel is freed.
 * @return 0, -EINVAL (NULL @p kernel, buffer of another context), -ERANGE
 *         (index), -ENOTTY (argument is not a buffer), -EXDEV (a buffer
 *         the kernel's device cannot reach), -ENODEV (that device was
 *         unplugged), -ENOMEM
 */
int accel_kernel_set_arg_buffer(struct accel_kernel *kernel, uint32_t index,
				struct accel_buffer *buf);

/**
 * Set a buffer argument to a host address (shared virtual memory): the
 * kernel sees @p ptr itself, which may point anywhere in memory the
 * process owns (NULL included). The device must have
 * ACCEL_DEVICE_CAP_HOST_SVM. Unlike a buffer, the memory is not held:
 * the caller keeps it valid until the launches that use it completed.
 * The argument replaces a buffer set before, and a buffer set later
 * replaces it.
 * @return 0, -EINVAL (NULL @p kernel), -ERANGE (index), -ENOTTY (argument
 *         is not a buffer), -EOPNOTSUPP (the kernel's device has no
 *         ACCEL_DEVICE_CAP_HOST_SVM)
 */
int accel_kernel_set_arg_host_ptr(struct accel_kernel *kernel, uint32_t index,
				  void *ptr);

/**
 * Set a by-value argument; the bytes are copied.
 * @return 0, -EINVAL (NULL @p kernel or @p value, @p size differs from
 *         the argument's), -ERANGE (index), -ENOTTY (not a by-value argument)
 */
int accel_kernel_set_arg_value(struct accel_kernel *kernel, uint32_t index,
			       size_t size, const void *value);

/**
 * Set the size of a local-memory argument.
 * @return 0, -EINVAL (NULL @p kernel, size 0), -E2BIG (above the device's
 *         local memory), -ERANGE (index), -ENOTTY (not a local argument)
 */
int accel_kernel_set_arg_local(struct accel_kernel *kernel, uint32_t index,
			       size_t size);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_PROGRAM_H */
