/* SPDX-License-Identifier: MIT */
/**
 * @file accelc.h
 * @brief accelc: OpenCL C source to native work-group functions.
 *
 * A small internal library (static, linked into libaccel and the accelc
 * CLI). One call compiles a program: clang-16 turns the source into LLVM
 * IR, the builtins library is linked in, one work-group function per
 * kernel is generated (see <libaccel/accel-wg.h> for its ABI), the module
 * is optimised for the CPU this process runs on and linked into a shared
 * object that the caller dlopen()s.
 *
 * Enum and flag values mirror <libaccel/accel-program.h> so that kernel
 * information passes straight through.
 *
 * Thread-safety: accelc_compile() may run concurrently from several
 * threads (each call has its own LLVM context and temporary directory).
 * A result is immutable after it is returned.
 */
#ifndef ACCELC_H
#define ACCELC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The API is exported from the compiler module that libaccel dlopen()s
 * (accel-compiler.so); everything else in it stays hidden.
 */
#define ACCELC_API __attribute__((visibility("default")))

/** Argument kinds, equal to enum accel_kernel_arg_kind. */
enum accelc_arg_kind {
	ACCELC_ARG_BUFFER = 1,
	ACCELC_ARG_VALUE = 2,
	ACCELC_ARG_LOCAL = 3,
	ACCELC_ARG_IMAGE = 4,
	ACCELC_ARG_SAMPLER = 5,
};

/** struct accelc_arg_info.image_flags: a depth image type */
#define ACCELC_IMAGE_DEPTH (1u << 0)

/** Address spaces, equal to enum accel_kernel_arg_addr. */
enum accelc_arg_addr {
	ACCELC_ADDR_PRIVATE = 0,
	ACCELC_ADDR_GLOBAL = 1,
	ACCELC_ADDR_CONSTANT = 2,
	ACCELC_ADDR_LOCAL = 3,
};

/** Access qualifiers (OpenCL's; only images and pipes have others). */
enum accelc_arg_access {
	ACCELC_ACCESS_NONE = 0,
	ACCELC_ACCESS_READ_ONLY = 1,
	ACCELC_ACCESS_WRITE_ONLY = 2,
	ACCELC_ACCESS_READ_WRITE = 3,
};

/** Type qualifier bits, equal to ACCEL_KERNEL_ARG_TYPE_*. */
#define ACCELC_TYPE_CONST (1u << 0)
#define ACCELC_TYPE_RESTRICT (1u << 1)
#define ACCELC_TYPE_VOLATILE (1u << 2)
#define ACCELC_TYPE_PIPE (1u << 3)

/** Kernel flag, equal to ACCEL_KERNEL_HAS_BARRIERS. */
#define ACCELC_KERNEL_HAS_BARRIERS (1u << 0)
/** Kernel flag: it calls printf (its launches need a printf buffer). */
#define ACCELC_KERNEL_USES_PRINTF (1u << 1)
/**
 * Kernel flag: its results cannot depend on how the NDRange is cut into
 * work-groups (no local ids or sizes, group ids or counts, barriers or
 * local memory), so a runtime may choose the cut.
 */
#define ACCELC_KERNEL_GROUP_INVARIANT (1u << 2)
/**
 * Kernel flag: built with -cl-denorms-are-zero, so denormal inputs and
 * results of float and double arithmetic may be taken as zero; the CPU
 * device runs it with the FPU's flush modes (MXCSR DAZ and FTZ) on.
 */
#define ACCELC_KERNEL_DENORMS_ZERO (1u << 3)
/**
 * Kernel flag: its stack need is not known at build time (a dynamic
 * alloca, __builtin_alloca; or code generated in the calling process,
 * where frame sizes are not measured); private_size is a lower bound.
 */
#define ACCELC_KERNEL_STACK_UNKNOWN (1u << 4)
/**
 * Kernel flag: its work-items run as fibers, each on a stack of its own
 * (private_per_item bytes each), not on the caller's.
 */
#define ACCELC_KERNEL_FIBERS (1u << 5)

/** Option flags (struct accelc_options.flags). */
/** keep the optimised LLVM IR as text in the result */
#define ACCELC_FLAG_KEEP_IR (1u << 0)
/** keep the generated assembly as text in the result */
#define ACCELC_FLAG_KEEP_ASM (1u << 1)
/** keep the shared object's bytes in memory (accelc_result_get_binary) */
#define ACCELC_FLAG_KEEP_BINARY (1u << 2)
/** neither look up nor store the build in the on-disk cache */
#define ACCELC_FLAG_NO_CACHE (1u << 3)
#define ACCELC_FLAG_ALL                                                        \
	(ACCELC_FLAG_KEEP_IR | ACCELC_FLAG_KEEP_ASM | ACCELC_FLAG_KEEP_BINARY |  \
	 ACCELC_FLAG_NO_CACHE)

struct accelc_options {
	/** sizeof(struct accelc_options) as the caller knows it */
	uint32_t struct_size;
	/** ACCELC_FLAG_* */
	uint32_t flags;
	/** OpenCL build options (clBuildProgram's), may be NULL */
	const char *build_options;
	/** clang executable; NULL: $ACCEL_CLANG, the build's, clang-16 */
	const char *clang_path;
	/** parent of the private temporary directory; NULL: $TMPDIR, /tmp */
	const char *tmp_dir;
	/** CPU name/features to generate for; NULL: the host's */
	const char *cpu;
	const char *cpu_features;
	/** deadline of each build step (clang, optimisation and code
	 *  generation, linking) in milliseconds; 0: $ACCEL_COMPILE_TIMEOUT_MS,
	 *  else 60000 */
	uint32_t timeout_ms;
	/** reserved, 0 */
	uint32_t reserved;
	/** cache directory; NULL: $ACCEL_CACHE_DIR, $XDG_CACHE_HOME/libaccel,
	 *  ~/.cache/libaccel */
	const char *cache_dir;
	/** cache size cap in bytes; 0: $ACCEL_CACHE_MAX_SIZE, 256 MiB */
	uint64_t cache_max_size;
	/**
	 * target to generate for when @c cpu is NULL: "host", a code tier
	 * of the architecture ("x86-64" ... "x86-64-v4"; "armv8-a",
	 * "armv8.2-a+sve") or a CPU name (see accelc_target_resolve());
	 * NULL: $ACCEL_CPU_TARGET, else "host"
	 */
	const char *target;
};

/** What the on-disk cache did for a build (accelc_result_get_cache_status). */
enum accelc_cache_status {
	/** not used: disabled (ACCEL_CACHE=0, ACCELC_FLAG_NO_CACHE, IR or
	 *  assembly asked for) or its directory is not private to us */
	ACCELC_CACHE_OFF = 0,
	/** built, and stored when the build succeeded */
	ACCELC_CACHE_MISS = 1,
	/** loaded from the cache, nothing compiled */
	ACCELC_CACHE_HIT = 2,
};

struct accelc_arg_info {
	/** enum accelc_arg_kind */
	uint32_t kind;
	/** enum accelc_arg_addr */
	uint32_t address_space;
	/** enum accelc_arg_access */
	uint32_t access;
	/** ACCELC_TYPE_* */
	uint32_t type_qualifiers;
	/**
	 * by value: bytes as the host lays them out (float3: 16); image:
	 * sizeof(struct accel_wg_image); else 8
	 */
	uint32_t size;
	/** by value: required alignment; else 8 */
	uint32_t alignment;
	/** type as written ("float*", "float4", "struct foo") */
	const char *type_name;
	/** argument name */
	const char *name;
	/** images: enum accel_image_type (OpenCL's value); 0 otherwise */
	uint32_t image_type;
	/** images: ACCELC_IMAGE_* */
	uint32_t image_flags;
};

struct accelc_kernel_info {
	/** the kernel's name in the source */
	const char *name;
	/** symbol of its accel_wg_fn in the shared object */
	const char *wg_symbol;
	/** ACCELC_KERNEL_* */
	uint32_t flags;
	uint32_t n_args;
	const struct accelc_arg_info *args;
	/** reqd_work_group_size, all 0 if none */
	uint64_t reqd_work_group_size[3];
	/** work_group_size_hint, all 0 if none */
	uint64_t work_group_size_hint[3];
	/** vec_type_hint as an OpenCL type name ("float4"), NULL if none */
	const char *vec_type_hint;
	/** bytes of kernel-scope __local variables (accel_wg_ctx.local_mem) */
	uint64_t static_local_size;
	/**
	 * Bytes of stack one call of the work-group function needs: the
	 * frames of its deepest call chain, calls out of the program counted
	 * at a fixed allowance
	 */
	uint64_t private_size;
	/**
	 * More stack bytes per work-item of the group, on top of
	 * private_size: values kernels with barriers keep across them, or
	 * with ACCELC_KERNEL_FIBERS each work-item's fiber stack
	 */
	uint64_t private_per_item;
	/**
	 * Work-items per sub-group (the last of a group may have fewer):
	 * reqd_sub_group_size if set, else the lanes of a float vector of
	 * the code's target, halved while they do not divide a
	 * reqd_work_group_size x above 1; the code is built for it
	 */
	uint32_t sub_group_size;
	/**
	 * intel_reqd_sub_group_size, 0 if none: a power of two up to
	 * ACCELC_MAX_SUB_GROUP_SIZE
	 */
	uint32_t reqd_sub_group_size;
};

/** The largest sub-group a kernel may ask for (intel_reqd_sub_group_size);
 * the sub-group functions track lanes in 64-bit masks. */
#define ACCELC_MAX_SUB_GROUP_SIZE 64u

/** What a result holds (accelc_result_get_kind). */
enum accelc_kind {
	/** a shared object of work-group functions, ready to load */
	ACCELC_KIND_EXECUTABLE = 0,
	/** one source compiled to LLVM bitcode, to be linked */
	ACCELC_KIND_OBJECT = 1,
	/** objects linked into LLVM bitcode, to be linked again */
	ACCELC_KIND_LIBRARY = 2,
};

/** accelc_link() flag: make a library, not an executable. */
#define ACCELC_LINK_LIBRARY (1u << 0)

struct accelc_result;

/**
 * Compile OpenCL C source into a shared object of work-group functions.
 *
 * @param opts options, may be NULL for defaults
 * @param source the source text (need not be NUL-terminated)
 * @param len its length in bytes
 * @param ret the result, to be freed with accelc_result_free(); set on
 *        success and on every build failure (to carry the build log);
 *        untouched on invalid arguments and -ENOMEM
 * @return 0; -EINVAL (bad argument or build option: the log names it);
 *         -ENOEXEC (the source does not compile: see the log);
 *         -ETIMEDOUT (a subprocess ran out of time); -ENOENT (no clang);
 *         -ENOMEM; -EIO (LLVM or the linker failed unexpectedly);
 *         another negative errno from the system
 */
ACCELC_API int accelc_compile(const struct accelc_options *opts, const char *source,
		   size_t len, struct accelc_result **ret);

/**
 * Compile one OpenCL C source to an object (clCompileProgram): LLVM
 * bitcode in a container of kind ACCELC_KIND_OBJECT, with its own build
 * options. Embedded headers are files for the duration of the call:
 * `#include "name"` finds header @p i under @p header_names[i] (relative
 * names, '/' separated, no "." or ".." parts).
 *
 * @param n_headers number of headers; @p header_names and
 *        @p header_sources (NUL-terminated texts) hold them
 * @return as accelc_compile(); -EINVAL also for a bad header name
 */
ACCELC_API int accelc_compile_object(const struct accelc_options *opts,
				     const char *source, size_t len,
				     uint32_t n_headers,
				     const char *const *header_names,
				     const char *const *header_sources,
				     struct accelc_result **ret);

/** A SPIR-V specialization constant's value (accelc_compile_il()). */
struct accelc_spec_const {
	/** its SpecId */
	uint32_t id;
	/** bytes of its type: 1 (bool, char), 2, 4 or 8 */
	uint32_t size;
	/** the value's bits (a float's as they are), little-endian */
	uint64_t value;
};

/** accelc_compile_il() flag: make an object, not an executable. */
#define ACCELC_IL_OBJECT (1u << 0)

/**
 * Build a SPIR-V module (OpenCL environment, SPIR-V 1.0 to 1.4, the
 * latter without OpDecorateString, OpPtrDiff, OpPtrEqual and
 * OpCopyLogical; 64-bit addressing) into an executable, or with ACCELC_IL_OBJECT into an object
 * to link. The module goes through llvm-spirv-15 (a child process, under
 * the deadline) and then the same pipeline as a source; build options are
 * the code generation ones. A module the translator refuses (malformed,
 * an unknown capability, a bad specialization constant id or size) fails
 * with -ENOEXEC and the translator's message in the log.
 *
 * @param spec @p n_spec specialization constant values, a later one for
 *        the same id winning
 * @param ret as for accelc_compile()
 * @return as accelc_compile(); -ENOENT also when llvm-spirv-15 is missing
 */
ACCELC_API int accelc_compile_il(const struct accelc_options *opts,
				 const void *il, size_t size, uint32_t n_spec,
				 const struct accelc_spec_const *spec,
				 uint32_t flags, struct accelc_result **ret);

/** @return whether accelc_compile_il() finds its translator (1 or 0) */
ACCELC_API int accelc_il_available(void);

/**
 * Link objects and libraries (containers of those kinds, as
 * accelc_result_get_container() gives them) into an executable, or with
 * ACCELC_LINK_LIBRARY into a library. opts->build_options are the link
 * options (code generation flags such as -cl-fast-relaxed-math).
 *
 * @param ret as for accelc_compile(): set on link failures, with the log
 * @return 0; -EINVAL (bad argument, option, flag or container, or a
 *         container that is not an object or library); -ENOEXEC (the link
 *         failed: an undefined function, a symbol defined twice; see the
 *         log); -ENOMEM; -EIO; -ETIMEDOUT
 */
ACCELC_API int accelc_link(const struct accelc_options *opts, uint32_t n,
			   const void *const *objects, const size_t *sizes,
			   uint32_t flags, struct accelc_result **ret);

/** @return enum accelc_kind of a result (executable for NULL) */
ACCELC_API uint32_t accelc_result_get_kind(const struct accelc_result *res);

/** @return bytes of the program-scope global variables of an executable */
ACCELC_API uint64_t
accelc_result_get_global_size(const struct accelc_result *res);

/** Free a result and delete its files. Accepts NULL; returns NULL. */
ACCELC_API struct accelc_result *accelc_result_free(struct accelc_result *res);

/** @return the build log (NUL-terminated, possibly empty, never NULL) */
ACCELC_API const char *accelc_result_get_log(const struct accelc_result *res);

/**
 * What the build spent its time on: one line per step in the order they
 * ran, "<step> <nanoseconds>\n" (clang, each pass of --print-passes that
 * ran, link, codegen-process: starting the code generator and what no
 * step covers). NULL when nothing was built (a cache hit, a binary).
 */
ACCELC_API const char *
accelc_result_get_timings(const struct accelc_result *res);

/**
 * @return path of the shared object (lives until accelc_result_free(),
 *         which deletes it), NULL if the build failed
 */
ACCELC_API const char *accelc_result_get_path(const struct accelc_result *res);

/**
 * The shared object's bytes (only with ACCELC_FLAG_KEEP_BINARY).
 * @return 0, -ENOENT (not kept or no binary)
 */
ACCELC_API int accelc_result_get_binary(const struct accelc_result *res,
			     const void **data, size_t *size);

/** @return optimised IR text (ACCELC_FLAG_KEEP_IR), else NULL */
ACCELC_API const char *accelc_result_get_ir(const struct accelc_result *res);

/** @return assembly text (ACCELC_FLAG_KEEP_ASM), else NULL */
ACCELC_API const char *accelc_result_get_asm(const struct accelc_result *res);

/** @return the number of kernels (0 when the build failed) */
ACCELC_API uint32_t accelc_result_get_kernel_count(const struct accelc_result *res);

/** @return kernel @p index, NULL if out of range; lives with @p res */
ACCELC_API const struct accelc_kernel_info *
accelc_result_get_kernel(const struct accelc_result *res, uint32_t index);

/** @return the kernel called @p name, NULL if none */
ACCELC_API const struct accelc_kernel_info *
accelc_result_find_kernel(const struct accelc_result *res, const char *name);

/**
 * The CPU name and feature string code is generated for when the options
 * name none (what a cache key must include). Caller frees both with free().
 * @return 0 or -ENOMEM
 */
ACCELC_API int accelc_host_cpu(char **name, char **features);

/**
 * The CPU name and feature string of a code-generation target: "host" (or
 * "native"), a code tier of the architecture accelc is built for, with
 * exactly the tier's features and every other feature off (x86-64: a
 * micro-architecture level of the psABI, "x86-64", "x86-64-v2",
 * "x86-64-v3", "x86-64-v4", LLVM's CPU of that name; AArch64: "armv8-a",
 * NEON, and "armv8.2-a+sve", LLVM's "generic" CPU), or a CPU clang knows
 * ("rocketlake", "znver4", "neoverse-v1": the features clang's
 * -march=NAME, on AArch64 -mcpu=NAME, enables, asked of clang). Caller
 * frees @p cpu and @p features.
 *
 * @param target the name; NULL: $ACCEL_CPU_TARGET, else "host"
 * @param runs if not NULL, set to whether this CPU can run the code
 * @return 0; -EINVAL (unknown name); -ENOENT (a CPU name, and no clang);
 *         -ENOMEM; another -errno
 */
ACCELC_API int accelc_target_resolve(const char *target, char **cpu,
				     char **features, int *runs);

/**
 * The names accelc_target_resolve() knows, "host" first.
 * @return name @p index, NULL past the last
 */
ACCELC_API const char *accelc_target_name(unsigned index);

/** @return enum accelc_cache_status of the build that made @p res */
ACCELC_API uint32_t accelc_result_get_cache_status(const struct accelc_result *res);

/**
 * The program binary container (compiler-stub/binary.h has the format):
 * kernel descriptions plus the shared object. Lives with @p res.
 * @return 0, -ENOENT (the build failed)
 */
ACCELC_API int accelc_result_get_container(const struct accelc_result *res,
				const void **data, size_t *size);

/**
 * A sealed memfd holding the shared object, to dlopen() through
 * /proc/self/fd (dup() it to keep it beyond the result: while a library
 * is loaded under a path, dlopen() of the same path returns it).
 * @return the fd (owned by @p res), -ENOENT (no code loaded: the build
 *         failed, or it was for another CPU)
 */
ACCELC_API int accelc_result_get_fd(const struct accelc_result *res);

/**
 * Load a program binary container: parse it strictly, check that the
 * CPU can run it (@p opts->cpu_features when @p opts->cpu is set, else
 * this host) and put the code in a memfd. Only @p opts->struct_size,
 * cpu and cpu_features are read.
 *
 * @param ret set on success and on -EINVAL/-ENOEXEC (the log says why)
 * @return 0; -EINVAL (NULL argument, malformed container); -ENOEXEC
 *         (another format or work-group ABI version, or the CPU lacks a
 *         feature the code was built for); -ENOMEM; another -errno
 */
ACCELC_API int accelc_load_binary(const struct accelc_options *opts,
				  const void *data, size_t size,
				  struct accelc_result **ret);

#ifdef __cplusplus
}
#endif

#endif /* ACCELC_H */
