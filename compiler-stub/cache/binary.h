/* SPDX-License-Identifier: MIT */
/*
 * The program binary container: what a compiled program is on disk, in the
 * cache and in CL_PROGRAM_BINARIES. Everything a program's kernel
 * descriptions need, plus the shared object, in one versioned blob.
 *
 * Layout (all integers little-endian; "str" is a u32 length n, n bytes
 * and a NUL, with no NUL among the n bytes):
 *
 *   magic "ACCELBIN", u32 format (ACCELC_BINARY_FORMAT),
 *   u32 work-group ABI (ACCEL_WG_ABI_VERSION),
 *   u8 sha256[32] of all that follows,
 *   str cpu name, str cpu features (LLVM's "+a,-b" form),
 *   str build options, u32 kind (ACCELC_KIND_*), u64 bytes of program-scope
 *   global variables, u32 kernel count, kernels, u64 code size, code
 *
 *   kernel: str name, str wg symbol, u32 flags, u64 reqd_work_group_size[3],
 *   u64 work_group_size_hint[3], str vec_type_hint ("" if none),
 *   u64 static local size, u64 private size, u64 private bytes per
 *   work-item, u32 required sub-group size (0 if none), u32 sub-group
 *   size of the code, u32 argument count, arguments
 *
 *   argument: u32 kind, u32 address space, u32 access, u32 type
 *   qualifiers, u32 size, u32 alignment, str type name, str name,
 *   u32 image type (0 but for images), u32 image flags (ACCELC_IMAGE_*)
 *
 * The code ends the container exactly: an ELF shared object for an
 * executable, LLVM bitcode with no kernel table for a compiled object or a
 * library (clCompileProgram's and -create-library's output, linked later). The parser
 * trusts nothing: every length is checked against what is left, counts
 * are bounded by it, enums and flags must be known values. The checksum catches
 * damage (ld.so is not robust against a damaged ELF file), not forgery:
 * like a shared library, a binary is code, to be loaded only if trusted.
 */
#ifndef ACCELC_BINARY_H
#define ACCELC_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "accelc.h"

#define ACCELC_BINARY_MAGIC "ACCELBIN"
/* where the checksum is, and where what it covers starts */
#define ACCELC_BINARY_SUM_OFFSET 16
#define ACCELC_BINARY_BODY_OFFSET 48
/* 1 had no kind and global size: executables only; 2 no private sizes;
 * 3 no required sub-group size; 4 no sub-group size of the code; 5 no
 * image arguments */
#define ACCELC_BINARY_FORMAT 6u
/*
 * Sanity cap: far above what a real program has. The kernel count has
 * none but the input's size (each kernel takes some bytes).
 */
#define ACCELC_BINARY_MAX_ARGS 1024u

/* A parsed container. Strings and the kernel table are owned. */
struct accelc_binary {
	char *cpu;
	char *features;
	char *options;
	uint32_t kind; /* ACCELC_KIND_* */
	uint64_t global_size;
	struct accelc_kernel_info *kernels;
	uint32_t n_kernels;
	/* points into the parsed buffer: valid as long as it is */
	const void *code;
	size_t code_size;
};

/* What goes into a container. */
struct accelc_binary_in {
	const char *cpu, *features, *options;
	uint32_t kind;
	uint64_t global_size;
	const struct accelc_kernel_info *const *kernels;
	uint32_t n_kernels;
	const void *code;
	size_t code_size;
};

/* Serialise @p in into a malloc'ed buffer. @return 0, -EINVAL, -ENOMEM */
int accelc_binary_write(const struct accelc_binary_in *in, void **ret,
			size_t *ret_size);

/*
 * Parse @p data. On failure @p err (may be NULL) gets a one-line reason.
 * @return 0; -EINVAL (malformed: truncated, bad checksum, length, count,
 *         string, enum or flag); -ENOEXEC (well-formed but another format or
 *         work-group ABI version); -ENOMEM
 */
int accelc_binary_parse(const void *data, size_t size,
			struct accelc_binary *ret, char *err, size_t err_size);

void accelc_binary_clear(struct accelc_binary *b);

/* Free @p n kernel infos made by the parser, and the array. */
void accelc_binary_free_kernels(struct accelc_kernel_info *k, uint32_t n);

/*
 * Can code for @p features run on a CPU with @p host_features? Every
 * feature the code enables ("+x") must be enabled on the host.
 * @return 0, -ENOEXEC (@p err names the first missing feature), -ENOMEM
 */
int accelc_binary_check_cpu(const char *features, const char *host_features,
			    char *err, size_t err_size);

/*
 * Can this machine map the shared object @p code (an executable's code)?
 * Every loadable segment must be aligned to its page size.
 * @return 0, -ENOEXEC (@p err says the page sizes), -EINVAL (not an ELF
 * object)
 */
int accelc_elf_check_pages(const void *code, size_t size, char *err,
			   size_t err_size);

#endif /* ACCELC_BINARY_H */
