/* SPDX-License-Identifier: MIT */
/* The frontend: Debian's clang-16 as a subprocess, OpenCL C to bitcode.
 * A subprocess, not libclang, so that a crash or a runaway compile of a
 * hostile source takes down only the child, and is bounded in time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelc-private.h"
#include "target-arch.h"
#include "job.h"

#ifndef ACCELC_CLANG_DEFAULT
#define ACCELC_CLANG_DEFAULT "/usr/lib/llvm-16/bin/clang"
#endif

/* What the CPU device implements; clang's x86 default claims everything
 * (pipes, device enqueue), which the builtins do not provide. Images
 * (builtins/image-*.cl): read-write ones, 3D writes and depth images. */
#define ACCELC_CL_EXTENSIONS                                                   \
	"-cl-ext=-all,+cl_khr_fp64,+__opencl_c_fp64,+__opencl_c_int64,"       \
	"+cl_khr_fp16,+__opencl_c_fp16,"                                       \
	"+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,"          \
	"+cl_khr_global_int32_base_atomics,"                                   \
	"+cl_khr_global_int32_extended_atomics,"                               \
	"+cl_khr_local_int32_base_atomics,"                                    \
	"+cl_khr_local_int32_extended_atomics,"                                \
	"+cl_khr_byte_addressable_store,"                                      \
	"+__opencl_c_generic_address_space,"                                   \
	"+__opencl_c_program_scope_global_variables,"                          \
	"+__opencl_c_subgroups,"                                               \
	"+__opencl_c_images,+__opencl_c_read_write_images,"                    \
	"+__opencl_c_3d_image_writes,+cl_khr_3d_image_writes,"                 \
	"+cl_khr_depth_images"

static int try_path(const char *p, char **ret)
{
	if (!p || !*p || access(p, X_OK) < 0)
		return -ENOENT;
	*ret = strdup(p);
	return *ret ? 0 : -ENOMEM;
}

static int search_path(const char *name, char **ret)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		const char *end = strchrnul(path, ':');
		int n = snprintf(buf, sizeof(buf), "%.*s/%s",
				 (int)(end - path), path, name);

		if (end > path && n > 0 && (size_t)n < sizeof(buf) &&
		    try_path(buf, ret) == 0)
			return 0;
		path = *end ? end + 1 : end;
	}
	return -ENOENT;
}

int accelc_find_clang(const char *override, char **ret)
{
	if (override)
		return try_path(override, ret);
	if (try_path(secure_getenv("ACCEL_CLANG"), ret) == 0 ||
	    try_path(ACCELC_CLANG_DEFAULT, ret) == 0 ||
	    search_path("clang-16", ret) == 0 ||
	    try_path("/usr/lib/llvm-16/bin/clang", ret) == 0)
		return 0;
	return -ENOENT;
}

/*
 * builtins/program-prelude.h, the declarations clang's builtin table
 * lacks, as a file beside @p src_path (in the build's private directory)
 * for -include: clang as a subprocess has no virtual files. A name no
 * program's #include would pick by chance.
 */
static int write_prelude(const char *src_path, char **ret)
{
	const char *slash = strrchr(src_path, '/');
	int dl = slash ? (int)(slash - src_path) + 1 : 0;
	char *path;
	int r;

	if (asprintf(&path, "%.*s__accelc_prelude.h", dl, src_path) < 0)
		return -ENOMEM;
	r = accelc_write_file(path, accelc_program_prelude,
			      strlen(accelc_program_prelude));
	if (r) {
		free(path);
		return r;
	}
	*ret = path;
	return 0;
}

int accelc_frontend(const char *clang, const struct accelc_build_opts *bo,
		    const char *src_path, const char *bc_path,
		    uint32_t timeout_ms, struct strbuf *log)
{
	struct argv a = { 0 };
	char std[32], *prelude;
	int r;

	r = write_prelude(src_path, &prelude);
	if (r)
		return r;
	snprintf(std, sizeof(std), "-cl-std=CL%u.%u", bo->cl_std / 100,
		 bo->cl_std / 10 % 10);
	argv_add(&a, clang);
	argv_add(&a, "-x");
	argv_add(&a, "cl");
	argv_add(&a, std);
	argv_add(&a, "-Xclang");
	argv_add(&a, "-finclude-default-header");
	/* SPIR address space numbers: __local globals are recognisable */
	argv_add(&a, "-Xclang");
	argv_add(&a, "-ffake-address-space-map");
	argv_add(&a, "-Xclang");
	argv_add(&a, ACCELC_CL_EXTENSIONS);
	argv_add(&a, "-target");
	argv_add(&a, accelc_arch_triple);
	argv_add(&a, "-emit-llvm");
	argv_add(&a, "-c");
	/*
	 * not -O0, which marks everything optnone; -funroll-loops, as -O1
	 * alone tags every loop llvm.loop.unroll.disable, and our O3 must
	 * unroll a kernel's small loops for the work-item loop around them
	 * to vectorise
	 */
	argv_add(&a, "-O1");
	argv_add(&a, "-funroll-loops");
	argv_add(&a, "-Xclang");
	argv_add(&a, "-disable-llvm-passes");
	argv_add(&a, "-fPIC");
	argv_add(&a, "-cl-kernel-arg-info");
	argv_add(&a, "-fno-color-diagnostics");
	argv_add(&a, "-ferror-limit=50");
	argv_add(&a, "-include");
	argv_add(&a, prelude);
	for (size_t i = 0; i < bo->clang_args.n; i++)
		argv_add(&a, bo->clang_args.v[i]);
	argv_add(&a, "-o");
	argv_add(&a, bc_path);
	argv_add(&a, src_path);
	if (a.oom) {
		argv_free(&a);
		unlink(prelude);
		free(prelude);
		return -ENOMEM;
	}
	r = accelc_spawn(a.v, log, timeout_ms);
	argv_free(&a);
	unlink(prelude);
	free(prelude);
	if (r > 0)
		return -ENOEXEC;
	return r;
}
