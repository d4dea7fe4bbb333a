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

#include "binary.h"
#include "cache.h"
#include "result.h"

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

int accelc_read_file(const char *path, void **data, size_t *len)
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
	buf[off] = '\0';
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
	struct accelc_cache cache;
	char *dir, *clang, *src, *bc, *obj, *so;
	/* what code is generated for, and what this process runs on */
	char *cpu, *features, *host_cpu, *host_features;
	/* host_features if the code can run here, else NULL: not loaded */
	const char *load_features;
	struct kernel_desc *kernels;
	uint32_t n_kernels;
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
	j->kernels = st.kernels;
	j->n_kernels = st.n_kernels;
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

/* The kernels and the shared object, in one container. */
static int make_container(struct job *j)
{
	const struct accelc_kernel_info **k;
	struct accelc_binary_in in = {
		.cpu = j->cpu,
		.features = j->features,
		.options = j->o.build_options,
		.n_kernels = j->n_kernels,
	};
	void *so = NULL, *out = NULL;
	size_t so_size = 0, size = 0;
	int r;

	k = calloc(j->n_kernels ? j->n_kernels : 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (uint32_t i = 0; i < j->n_kernels; i++)
		k[i] = &j->kernels[i].info;
	in.kernels = k;
	r = accelc_read_file(j->so, &so, &so_size);
	if (r == 0) {
		in.code = so;
		in.code_size = so_size;
		r = accelc_binary_write(&in, &out, &size);
	}
	free(so);
	free(k);
	if (r)
		return r;
	return accelc_result_set_container(j->res, out, size, j->load_features,
					   j->log);
}

/*
 * The private directory and the source file the tools need: made only
 * when the build runs (or its key needs clang -E), not for cache hits.
 */
static int prepare_files(struct job *j, const char *source, size_t len)
{
	int r;

	r = make_dir(&j->o, &j->dir);
	if (r)
		return r;
	if (asprintf(&j->src, "%s/source.cl", j->dir) < 0 ||
	    asprintf(&j->bc, "%s/source.bc", j->dir) < 0 ||
	    asprintf(&j->obj, "%s/program.o", j->dir) < 0 ||
	    asprintf(&j->so, "%s/program.so", j->dir) < 0)
		return -ENOMEM;
	return write_file(j->src, source, len);
}

/* The cache's copy of this build, if it has a good one. */
static bool cache_hit(struct job *j)
{
	struct strbuf scratch = { 0 };
	char *log = NULL;
	void *data = NULL;
	size_t size = 0;

	if (accelc_cache_lookup(&j->cache, &log, &data, &size))
		return false;
	if (accelc_result_set_container(j->res, data, size, j->load_features,
					&scratch)) {
		free(log);
		strbuf_free(&scratch);
		return false;
	}
	strbuf_free(&scratch);
	j->res->log = log;
	j->res->cache_status = ACCELC_CACHE_HIT;
	return true;
}

/* Hit, or miss with the key held until this build is stored. */
static bool cache_begin(struct job *j, const char *source, size_t len)
{
	uint8_t *key = j->cache.key;
	int r;

	if (j->cache.dirfd < 0)
		return false;
	r = accelc_cache_key(j->clang, &j->bo, &j->o, j->cpu, j->features,
			     source, len, NULL, NULL, key);
	/* includes: the key is over clang -E's output, which needs files */
	if (r == -EAGAIN) {
		r = prepare_files(j, source, len);
		if (r == 0)
			r = accelc_cache_key(j->clang, &j->bo, &j->o, j->cpu,
					     j->features, source, len, j->src,
					     j->dir, key);
	}
	if (r) {
		/* clang -E failed: the build reports why, uncached */
		accelc_cache_close(&j->cache);
		return false;
	}
	if (cache_hit(j))
		return true;
	accelc_cache_lock_key(&j->cache);
	if (cache_hit(j))
		return true;
	j->res->cache_status = ACCELC_CACHE_MISS;
	return false;
}

static int prepare(struct job *j, const char *source, size_t len)
{
	int r;

	r = accelc_parse_options(j->o.build_options, &j->bo, j->log);
	if (r)
		return r;
	if (memchr(source, '\0', len)) {
		strbuf_printf(j->log, "error: source contains a NUL byte\n");
		return -EINVAL;
	}
	r = accelc_find_clang(j->o.clang_path, &j->clang);
	if (r) {
		strbuf_printf(j->log, "error: no clang-16 found (set "
			      "ACCEL_CLANG)\n");
		return r;
	}
	r = accelc_host_cpu(&j->host_cpu, &j->host_features);
	if (r)
		return r;
	if (j->o.cpu) {
		j->cpu = strdup(j->o.cpu);
		j->features = strdup(j->o.cpu_features ? j->o.cpu_features :
				     "");
	} else {
		j->cpu = strdup(j->host_cpu);
		j->features = strdup(j->host_features);
	}
	if (!j->cpu || !j->features)
		return -ENOMEM;
	/* code for another CPU is kept (accelc -o), not loaded */
	if (!accelc_binary_check_cpu(j->features, j->host_features, NULL, 0))
		j->load_features = j->host_features;
	return accelc_cache_open(&j->o, &j->cache, j->log);
}

static void job_free(struct job *j)
{
	accelc_cache_close(&j->cache);
	if (j->dir)
		rm_dir(j->dir);
	free(j->dir);
	free(j->so);
	free(j->clang);
	free(j->src);
	free(j->bc);
	free(j->obj);
	free(j->cpu);
	free(j->features);
	free(j->host_cpu);
	free(j->host_features);
	accelc_free_kernels(j->kernels, j->n_kernels);
	accelc_build_opts_free(&j->bo);
}

int accelc_compile(const struct accelc_options *opts, const char *source,
		   size_t len, struct accelc_result **ret)
{
	struct strbuf log = { 0 };
	struct job j = { .cache = { .dirfd = -1, .lockfd = -1 } };
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
	j.res = accelc_result_new(j.o.flags);
	if (!j.res)
		return -ENOMEM;

	r = prepare(&j, source, len);
	if (r || cache_begin(&j, source, len))
		goto out;
	if (!j.dir) {
		r = prepare_files(&j, source, len);
		if (r)
			goto out;
	}
	r = accelc_frontend(j.clang, &j.bo, j.src, j.bc, j.o.timeout_ms,
			    &log);
	if (r)
		goto out;
	r = run_llvm(&j);
	if (r)
		goto out;
	r = accelc_link_so(j.clang, j.obj, j.so, j.o.timeout_ms, &log);
	if (r)
		goto out;
	r = make_container(&j);
out:
	if (!j.res->log)
		j.res->log = clean_log(&log, j.src);
	if (r == 0 && j.res->cache_status == ACCELC_CACHE_MISS)
		accelc_cache_store(&j.cache, j.res->log, j.res->container,
				   j.res->container_size);
	strbuf_free(&log);
	job_free(&j);
	/* a failed build still has a log to show, unless memory ran out */
	if (r != -ENOMEM && j.res->log) {
		if (r) {
			accelc_free_kernels(j.res->kernels, j.res->n_kernels);
			j.res->kernels = NULL;
			j.res->n_kernels = 0;
		}
		*ret = j.res;
		return r;
	}
	accelc_result_free(j.res);
	return r ? r : -ENOMEM;
}
