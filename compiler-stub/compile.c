/* SPDX-License-Identifier: MIT */
/* accelc_compile(): the pipeline, and the result object. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Target.h>

#include "accelc-private.h"

struct accelc_result {
	char *log;
	char *dir;  /* private temporary directory, removed on free */
	char *path; /* the shared object in it */
	void *binary;
	size_t binary_size;
	char *ir;
	char *asm_text;
	struct kernel_desc *kernels;
	uint32_t n_kernels;
};

static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

struct accelc_result *accelc_result_free(struct accelc_result *res)
{
	if (!res)
		return NULL;
	if (res->dir)
		rm_dir(res->dir);
	free(res->dir);
	free(res->path);
	free(res->log);
	free(res->binary);
	free(res->ir);
	free(res->asm_text);
	accelc_free_kernels(res->kernels, res->n_kernels);
	free(res);
	return NULL;
}

const char *accelc_result_get_log(const struct accelc_result *res)
{
	return res && res->log ? res->log : "";
}

const char *accelc_result_get_path(const struct accelc_result *res)
{
	return res ? res->path : NULL;
}

int accelc_result_get_binary(const struct accelc_result *res,
			     const void **data, size_t *size)
{
	if (!res || !res->binary)
		return -ENOENT;
	*data = res->binary;
	*size = res->binary_size;
	return 0;
}

const char *accelc_result_get_ir(const struct accelc_result *res)
{
	return res ? res->ir : NULL;
}

const char *accelc_result_get_asm(const struct accelc_result *res)
{
	return res ? res->asm_text : NULL;
}

uint32_t accelc_result_get_kernel_count(const struct accelc_result *res)
{
	return res ? res->n_kernels : 0;
}

const struct accelc_kernel_info *
accelc_result_get_kernel(const struct accelc_result *res, uint32_t index)
{
	if (!res || index >= res->n_kernels)
		return NULL;
	return &res->kernels[index].info;
}

const struct accelc_kernel_info *
accelc_result_find_kernel(const struct accelc_result *res, const char *name)
{
	for (uint32_t i = 0; res && name && i < res->n_kernels; i++)
		if (!strcmp(res->kernels[i].info.name, name))
			return &res->kernels[i].info;
	return NULL;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			int r = -errno;

			if (r == -EINTR)
				continue;
			close(fd);
			return r;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

static int read_file(const char *path, void **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t off = 0;
	char *buf;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -ENOMEM;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	*data = buf;
	*len = off;
	return 0;
}

/* Diagnostics from LLVM (e.g. linking) go to the build log. */
static void diag_handler(LLVMDiagnosticInfoRef di, void *data)
{
	struct strbuf *log = data;
	char *msg = LLVMGetDiagInfoDescription(di);
	const char *sev = "note";

	switch (LLVMGetDiagInfoSeverity(di)) {
	case LLVMDSError:
		sev = "error";
		break;
	case LLVMDSWarning:
		sev = "warning";
		break;
	case LLVMDSRemark:
		LLVMDisposeMessage(msg);
		return;
	default:
		break;
	}
	strbuf_printf(log, "%s: %s\n", sev, msg);
	LLVMDisposeMessage(msg);
}

/* Clang names the temporary file; users know their source as <source>. */
static char *clean_log(struct strbuf *log, const char *src_path)
{
	struct strbuf out = { 0 };
	size_t pl = src_path ? strlen(src_path) : 0;
	const char *p = log->buf ? log->buf : "";

	strbuf_append(&out, "", 0);
	while (*p) {
		const char *hit = pl ? strstr(p, src_path) : NULL;

		if (!hit) {
			strbuf_append(&out, p, strlen(p));
			break;
		}
		strbuf_append(&out, p, (size_t)(hit - p));
		strbuf_append(&out, "<source>", 8);
		p = hit + pl;
	}
	if (log->truncated)
		strbuf_printf(&out, "(build log truncated)\n");
	return out.buf ? out.buf : strdup("");
}

static char *mem_to_str(LLVMMemoryBufferRef mb)
{
	size_t n = LLVMGetBufferSize(mb);
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, LLVMGetBufferStart(mb), n);
		s[n] = '\0';
	}
	return s;
}

static int make_dir(const struct accelc_options *o, char **ret)
{
	const char *base = o->tmp_dir;
	char *d;

	if (!base)
		base = secure_getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&d, "%s/accelc-XXXXXX", base) < 0)
		return -ENOMEM;
	if (!mkdtemp(d)) {
		int r = -errno;

		free(d);
		return r;
	}
	*ret = d;
	return 0;
}

struct job {
	struct accelc_options o;
	struct accelc_result *res;
	struct strbuf *log;
	struct accelc_build_opts bo;
	char *clang, *src, *bc, *obj, *cpu, *features;
};

static int run_llvm(struct job *j)
{
	struct lower_state st = { .log = j->log };
	LLVMMemoryBufferRef mb = NULL, out = NULL;
	LLVMTargetMachineRef tm = NULL;
	char *err = NULL;
	bool opt = !j->bo.opt_disable;
	int r;

	st.ctx = LLVMContextCreate();
	if (!st.ctx)
		return -ENOMEM;
	LLVMContextSetDiagnosticHandler(st.ctx, diag_handler, j->log);
	if (LLVMCreateMemoryBufferWithContentsOfFile(j->bc, &mb, &err)) {
		strbuf_printf(j->log, "error: %s\n", err);
		LLVMDisposeMessage(err);
		r = -EIO;
		goto out;
	}
	if (LLVMParseBitcodeInContext2(st.ctx, mb, &st.mod)) {
		strbuf_printf(j->log, "error: cannot read clang's bitcode\n");
		r = -EIO;
		goto out;
	}
	st.td = LLVMGetModuleDataLayout(st.mod);
	r = accelc_read_kernels(&st);
	if (r)
		goto out;
	r = accelc_link_builtins(st.mod, false, j->log);
	if (r)
		goto out;
	r = accelc_find_barriers(&st);
	if (r)
		goto out;
	if (st.needs_fibers) {
		r = accelc_link_builtins(st.mod, true, j->log);
		if (r)
			goto out;
	}
	r = accelc_lower(&st);
	if (r)
		goto out;
	r = accelc_create_tm(j->cpu, j->features, opt, &tm, j->log);
	if (r)
		goto out;
	r = accelc_optimize(st.mod, tm, j->cpu, j->features, opt,
			    j->bo.fast_math, j->log);
	if (r)
		goto out;
	if (j->o.flags & ACCELC_FLAG_KEEP_IR) {
		j->res->ir = LLVMPrintModuleToString(st.mod);
		if (!j->res->ir) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (j->o.flags & ACCELC_FLAG_KEEP_ASM) {
		r = accelc_emit(st.mod, tm, LLVMAssemblyFile, &out, j->log);
		if (r)
			goto out;
		j->res->asm_text = mem_to_str(out);
		LLVMDisposeMemoryBuffer(out);
		out = NULL;
		if (!j->res->asm_text) {
			r = -ENOMEM;
			goto out;
		}
	}
	r = accelc_emit(st.mod, tm, LLVMObjectFile, &out, j->log);
	if (r)
		goto out;
	r = write_file(j->obj, LLVMGetBufferStart(out), LLVMGetBufferSize(out));
	if (r)
		goto out;
	j->res->kernels = st.kernels;
	j->res->n_kernels = st.n_kernels;
	st.kernels = NULL;
out:
	accelc_free_kernels(st.kernels, st.n_kernels);
	if (out)
		LLVMDisposeMemoryBuffer(out);
	if (tm)
		LLVMDisposeTargetMachine(tm);
	if (st.mod)
		LLVMDisposeModule(st.mod);
	/* LLVMParseBitcodeInContext2 does not take the buffer */
	if (mb)
		LLVMDisposeMemoryBuffer(mb);
	LLVMContextDispose(st.ctx);
	return r;
}

int accelc_compile(const struct accelc_options *opts, const char *source,
		   size_t len, struct accelc_result **ret)
{
	struct strbuf log = { 0 };
	struct job j = { 0 };
	char *so = NULL;
	int r;

	if (!source || !ret)
		return -EINVAL;
	if (opts) {
		if (opts->struct_size < sizeof(uint32_t) * 2 ||
		    opts->struct_size > sizeof(j.o))
			return -EINVAL;
		memcpy(&j.o, opts, opts->struct_size);
	}
	if (j.o.flags & ~ACCELC_FLAG_ALL)
		return -EINVAL;
	if (!j.o.timeout_ms)
		j.o.timeout_ms = ACCELC_DEFAULT_TIMEOUT_MS;
	j.log = &log;
	j.res = calloc(1, sizeof(*j.res));
	if (!j.res)
		return -ENOMEM;

	r = accelc_parse_options(j.o.build_options, &j.bo, &log);
	if (r)
		goto out;
	if (memchr(source, '\0', len)) {
		strbuf_printf(&log, "error: source contains a NUL byte\n");
		r = -EINVAL;
		goto out;
	}
	r = make_dir(&j.o, &j.res->dir);
	if (r)
		goto out;
	if (asprintf(&j.src, "%s/source.cl", j.res->dir) < 0 ||
	    asprintf(&j.bc, "%s/source.bc", j.res->dir) < 0 ||
	    asprintf(&j.obj, "%s/program.o", j.res->dir) < 0 ||
	    asprintf(&so, "%s/program.so", j.res->dir) < 0) {
		r = -ENOMEM;
		goto out;
	}
	r = write_file(j.src, source, len);
	if (r)
		goto out;
	r = accelc_find_clang(j.o.clang_path, &j.clang);
	if (r) {
		strbuf_printf(&log, "error: no clang-16 found (set "
			      "ACCEL_CLANG)\n");
		goto out;
	}
	if (j.o.cpu) {
		j.cpu = strdup(j.o.cpu);
		j.features = strdup(j.o.cpu_features ? j.o.cpu_features : "");
		r = j.cpu && j.features ? 0 : -ENOMEM;
	} else {
		r = accelc_host_cpu(&j.cpu, &j.features);
	}
	if (r)
		goto out;
	r = accelc_frontend(j.clang, &j.bo, j.src, j.bc, j.o.timeout_ms,
			    &log);
	if (r)
		goto out;
	r = run_llvm(&j);
	if (r)
		goto out;
	r = accelc_link_so(j.clang, j.obj, so, j.o.timeout_ms, &log);
	if (r)
		goto out;
	j.res->path = so;
	so = NULL;
	if (j.o.flags & ACCELC_FLAG_KEEP_BINARY) {
		r = read_file(j.res->path, &j.res->binary,
			      &j.res->binary_size);
		if (r)
			goto out;
	}
	/* intermediate files are not needed any more */
	unlink(j.src);
	unlink(j.bc);
	unlink(j.obj);
out:
	j.res->log = clean_log(&log, j.src);
	strbuf_free(&log);
	free(so);
	free(j.clang);
	free(j.src);
	free(j.bc);
	free(j.obj);
	free(j.cpu);
	free(j.features);
	accelc_build_opts_free(&j.bo);
	/* a failed build still has a log to show, unless memory ran out */
	if (r != -ENOMEM) {
		if (r) {
			free(j.res->path);
			j.res->path = NULL;
			accelc_free_kernels(j.res->kernels, j.res->n_kernels);
			j.res->kernels = NULL;
			j.res->n_kernels = 0;
		}
		*ret = j.res;
		return r;
	}
	accelc_result_free(j.res);
	return r;
}
