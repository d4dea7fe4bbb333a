/* SPDX-License-Identifier: MIT */
/*
 * accelc-codegen: LLVM's passes and code generation of one build, in a
 * process of its own so that the build's deadline can end it (job_codegen()
 * in compile.c runs it like clang, killed after the deadline).
 *
 *   accelc-codegen DIR CLANG CPU FEATURES FLAGS TIMEOUT_MS
 *
 * DIR is the build's private directory: source.bc and the build options
 * (file "options") in, the container (and the IR or assembly that FLAGS
 * ask for) out. The build log goes to stdout. Exit status: 0, the
 * errno of the failure, or 125 for another failure.
 *
 * stderr goes to DIR/codegen.err while LLVM runs: LLVM 16 prints a line
 * there for every frame size it reports (stack-size.c). What else is
 * there joins the log when the build ends, or, after a crash, when the
 * parent finds the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Support.h>

#include "job.h"

static int write_out(const char *dir, const char *name, const void *data,
		     size_t len)
{
	char *path;
	int r;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	r = accelc_write_file(path, data, len);
	free(path);
	return r;
}

static int outputs(const char *dir, const struct job *j)
{
	const struct accelc_result *res = j->res;
	int r = write_out(dir, ACCELC_CODEGEN_CONTAINER, res->container,
			  res->container_size);

	/* the parent reports them (accelc_result_get_timings()) */
	if (!r && j->timings.len)
		r = write_out(dir, ACCELC_CODEGEN_TIMINGS, j->timings.buf,
			      j->timings.len);

	if (!r && res->ir)
		r = write_out(dir, ACCELC_CODEGEN_IR, res->ir,
			      strlen(res->ir));
	if (!r && res->asm_text)
		r = write_out(dir, ACCELC_CODEGEN_ASM, res->asm_text,
			      strlen(res->asm_text));
	return r;
}

/* stderr to DIR/codegen.err; @return its path or NULL (stderr kept) */
static char *stderr_to_file(const char *dir)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s/" ACCELC_CODEGEN_STDERR, dir) < 0)
		return NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static int run(char **argv, struct strbuf *log)
{
	struct job j = { 0 };
	char *opts_path = NULL, *opts = NULL;
	size_t len;
	int r = -ENOMEM;

	j.log = log;
	j.o.flags = (uint32_t)strtoul(argv[5], NULL, 10);
	j.o.timeout_ms = (uint32_t)strtoul(argv[6], NULL, 10);
	j.clang = strdup(argv[2]);
	j.cpu = strdup(argv[3]);
	j.features = strdup(argv[4]);
	j.res = accelc_result_new(j.o.flags);
	if (!j.clang || !j.cpu || !j.features || !j.res ||
	    asprintf(&opts_path, "%s/" ACCELC_CODEGEN_OPTIONS, argv[1]) < 0 ||
	    asprintf(&j.bc, "%s/source.bc", argv[1]) < 0 ||
	    asprintf(&j.obj, "%s/program.o", argv[1]) < 0 ||
	    asprintf(&j.so, "%s/program.so", argv[1]) < 0)
		goto out;
	r = accelc_read_file(opts_path, (void **)&opts, &len);
	if (r == 0) {
		j.o.build_options = opts;
		r = accelc_parse_options(opts, &j.bo, log);
	}
	if (r == 0) {
		char *err = stderr_to_file(argv[1]);

		/* without the file, frame sizes would print to the log */
		j.measure_stack = err != NULL;
		j.split_vectors = true;
		r = job_codegen_here(&j);
		if (err) {
			fflush(stderr);
			accelc_stack_copy_stderr(err, log);
			unlink(err);
			free(err);
		}
	}
	if (r == 0)
		r = outputs(argv[1], &j);
	accelc_build_opts_free(&j.bo);
out:
	accelc_free_kernels(j.kernels, j.n_kernels);
	accelc_result_free(j.res);
	strbuf_free(&j.timings);
	free(opts);
	free(opts_path);
	free(j.clang);
	free(j.cpu);
	free(j.features);
	free(j.bc);
	free(j.obj);
	free(j.so);
	return r;
}

static const char *const llvm_args[] = { "accelc-codegen",
					 "-scalarize-load-store" };

int main(int argc, char **argv)
{
	struct strbuf log = { 0 };
	int r;

	if (argc != 7) {
		fprintf(stderr, "usage: %s DIR CLANG CPU FEATURES FLAGS "
			"TIMEOUT_MS\n(run by the OpenCL C compiler)\n",
			argv[0]);
		return 125;
	}
	/* this process's own LLVM: the scalariser may split loads and
	 * stores (codegen/split-vectors.c) */
	LLVMParseCommandLineOptions(2, llvm_args, NULL);
	r = run(argv, &log);
	if (log.buf)
		fputs(log.buf, stdout);
	strbuf_free(&log);
	if (fflush(stdout) && !r)
		r = -EIO;
	return r > -125 && r < 0 ? -r : r ? 125 : 0;
}
