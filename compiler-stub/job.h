/* SPDX-License-Identifier: MIT */
/*
 * One build request, whichever entry made it (accelc_compile(), _object(),
 * accelc_link()): what compile.c, object.c and link.c share. They differ in
 * what comes before the bitcode; from bitcode on the steps are the same.
 */
#ifndef ACCELC_JOB_H
#define ACCELC_JOB_H

#include "cache.h"
#include "result.h"

struct job {
	struct accelc_options o;
	struct accelc_result *res;
	struct strbuf *log;
	struct accelc_build_opts bo;
	struct accelc_cache cache;
	char *dir, *clang, *src, *bc, *obj, *so;
	/* accelc-codegen, NULL if not installed (codegen in this process) */
	char *codegen;
	/* what code is generated for, and what this process runs on */
	char *cpu, *features, *host_cpu, *host_features;
	/* host_features if the code can run here, else NULL: not loaded */
	const char *load_features;
	struct kernel_desc *kernels;
	uint32_t n_kernels;
	uint64_t global_size;
	/* run_llvm() wrote the fiber stack size object (stack-size.c) */
	bool fiber_obj;
	/* measure frame sizes (accelc-codegen, whose stderr is a file) */
	bool measure_stack;
	/* split vectors in work-item loops (accelc-codegen, which set LLVM's
	 * -scalarize-load-store: codegen/split-vectors.c) */
	bool split_vectors;
	/* "<step> <ns>\n" per step run (accelc_result_get_timings()) */
	struct strbuf timings;
};

/* Monotonic nanoseconds, and a step's time since @p start. */
uint64_t job_now_ns(void);
void job_time(struct job *j, const char *step, uint64_t start);

/* Copy @p opts (may be NULL) and make the result. @return 0, -EINVAL,
 * -ENOMEM */
int job_start(struct job *j, const struct accelc_options *opts,
	      struct strbuf *log);
/* Build options, clang, the CPU to generate for, the cache. */
int job_prepare(struct job *j);
/* The private directory, the names in it, @p source (may be NULL) in it. */
int job_files(struct job *j, const char *source, size_t len);
/* After the key is set: a hit (the result is filled), or a miss with the
 * key held until the build is stored. */
bool job_cache_probe(struct job *j);
/* The bitcode at j->bc to an executable container in j->res, by the
 * helper accelc-codegen under the deadline (j->o.timeout_ms). */
int job_codegen(struct job *j);
/* The same in this process: what the helper runs. */
int job_codegen_here(struct job *j);

/*
 * stack-size.c, after code generation: each kernel's stack need and, for
 * a program with fibers, the object defining how large their stacks are
 * (at job_fiber_obj_path(), NULL without memory; j->fiber_obj set).
 */
struct accelc_stack;
struct lower_state;
int job_stack_sizes(struct job *j, struct lower_state *st,
		    struct accelc_stack *ss, LLVMTargetMachineRef tm);
char *job_fiber_obj_path(const struct job *j);

/* What accelc-codegen leaves in the private directory. */
#define ACCELC_CODEGEN_OPTIONS "options"
#define ACCELC_CODEGEN_CONTAINER "program.bin"
#define ACCELC_CODEGEN_IR "program.ll"
#define ACCELC_CODEGEN_ASM "program.s"
#define ACCELC_CODEGEN_TIMINGS "timings"
/* The bitcode at j->bc, free of temporary names, as an object container
 * in j->res (object.c). */
int job_object(struct job *j);
/* Set j->res's container from parts (code: the ELF object or bitcode). */
int job_container(struct job *j, uint32_t kind, const void *code,
		  size_t code_size);
/* Hand out the result (with its log on build failures), free the rest. */
int job_finish(struct job *j, int r, struct accelc_result **ret);

/* An LLVM diagnostic handler writing to the struct strbuf @p data. */
void accelc_diag_handler(LLVMDiagnosticInfoRef di, void *data);

/* A new file, 0600. @return 0, -errno */
int accelc_write_file(const char *path, const void *data, size_t len);

#endif /* ACCELC_JOB_H */
