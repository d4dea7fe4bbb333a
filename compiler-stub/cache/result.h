/* SPDX-License-Identifier: MIT */
/* The result object shared by compile.c and result.c. */
#ifndef ACCELC_RESULT_H
#define ACCELC_RESULT_H

#include "accelc-private.h"

struct accelc_result {
	uint32_t flags; /* ACCELC_FLAG_* of the request */
	uint32_t cache_status;
	uint32_t kind; /* ACCELC_KIND_* of the container */
	uint64_t global_size;
	char *log;
	void *container; /* the program binary container */
	size_t container_size;
	const void *code; /* the shared object, inside container */
	size_t code_size;
	int code_fd;      /* sealed memfd with the code, -1 */
	char *path;       /* /proc/self/fd/<code_fd>, see code_path() */
	char *ir;
	char *asm_text;
	char *timings; /* "<step> <ns>\n" lines, NULL if nothing ran */
	struct kernel_desc *kernels;
	uint32_t n_kernels;
};

struct accelc_result *accelc_result_new(uint32_t flags);

/*
 * Take @p container (malloc'ed, freed on failure too): parse it into the
 * kernel table and, unless @p features is NULL, check it against them and
 * put the code in a memfd (executables only: objects are bitcode). Reasons go to @p log.
 * @return 0, -EINVAL, -ENOEXEC, -ENOMEM, -errno
 */
int accelc_result_set_container(struct accelc_result *res, void *container,
				size_t size, const char *features,
				struct strbuf *log);

#endif /* ACCELC_RESULT_H */
