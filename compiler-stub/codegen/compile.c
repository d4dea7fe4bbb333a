/* SPDX-License-Identifier: MIT */
/*
 * accelc_compile(): source to container; run_llvm() sets up the table of
 * passes (passes.c) and runs it, the codegen steps being in pass-steps.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Target.h>

#include "binary.h"
#include "job.h"
#include "pipeline.h"

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* The private directory, with the headers' subdirectories (object.c). */
static void rm_dir(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int accelc_write_file(const char *path, const void *data, size_t len)
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
void accelc_diag_handler(LLVMDiagnosticInfoRef di, void *data)
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

/* @p in with every @p needle replaced by @p with, appended to @p out. */
static void replace_all(struct strbuf *out, const char *in, const char *needle,
			const char *with)
{
	size_t nl = needle ? strlen(needle) : 0;

	while (*in) {
		const char *hit = nl ? strstr(in, needle) : NULL;

		if (!hit) {
			strbuf_append(out, in, strlen(in));
			break;
		}
		strbuf_append(out, in, (size_t)(hit - in));
		strbuf_append(out, with, strlen(with));
		in = hit + nl;
	}
}

/*
 * Clang names the temporary files; users know their source as <source>
 * and embedded headers by their include names (object.c puts them in
 * <dir>/h/).
 */
static char *clean_log(struct strbuf *log, const char *src_path,
		       const char *dir)
{
	struct strbuf mid = { 0 }, out = { 0 };
	char *hdr = NULL;

	if (dir && asprintf(&hdr, "%s/h/", dir) < 0)
		hdr = NULL;
	strbuf_append(&mid, "", 0);
	replace_all(&mid, log->buf ? log->buf : "", hdr, "");
	strbuf_append(&out, "", 0);
	replace_all(&out, mid.buf ? mid.buf : "", src_path, "<source>");
	strbuf_free(&mid);
	free(hdr);
	if (log->truncated)
		strbuf_printf(&out, "(build log truncated)\n");
	return out.buf ? out.buf : strdup("");
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

/* The bitcode at j->bc to the object at j->obj: the table of passes. */
static int run_llvm(struct job *j)
{
	struct accelc_pass_ctx c = {
		.j = j,
		.st = { .log = j->log, .opt = !j->bo.opt_disable },
		.ss = { .log = j->log, .measure = j->measure_stack },
	};
	int r;

	c.st.ctx = LLVMContextCreate();
	if (!c.st.ctx)
		return -ENOMEM;
	LLVMContextSetDiagnosticHandler(c.st.ctx, accelc_diag_handler, j->log);
	r = accelc_run_pipeline(&c);
	if (r == 0) {
		j->kernels = c.st.kernels;
		j->n_kernels = c.st.n_kernels;
		c.st.kernels = NULL;
	}
	accelc_lower_free(&c);
	accelc_stack_free(&c.ss);
	accelc_free_kernels(c.st.kernels, c.st.n_kernels);
	if (c.tm)
		LLVMDisposeTargetMachine(c.tm);
	if (c.st.mod)
		LLVMDisposeModule(c.st.mod);
	/* LLVMParseBitcodeInContext2 does not take the buffer */
	if (c.mb)
		LLVMDisposeMemoryBuffer(c.mb);
	LLVMContextDispose(c.st.ctx);
	return r;
}

int job_container(struct job *j, uint32_t kind, const void *code,
		  size_t code_size)
{
	const struct accelc_kernel_info **k;
	struct accelc_binary_in in = {
		.cpu = j->cpu,
		.features = j->features,
		.options = j->o.build_options,
		.kind = kind,
		.global_size = j->global_size,
		.n_kernels = j->n_kernels,
		.code = code,
		.code_size = code_size,
	};
	void *out = NULL;
	size_t size = 0;
	int r;

	k = calloc(j->n_kernels ? j->n_kernels : 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (uint32_t i = 0; i < j->n_kernels; i++)
		k[i] = &j->kernels[i].info;
	in.kernels = k;
	r = accelc_binary_write(&in, &out, &size);
	free(k);
	if (r)
		return r;
	return accelc_result_set_container(j->res, out, size, j->load_features,
					   j->log);
}

/* The kernels and the shared object, in one container. */
static int make_container(struct job *j)
{
	void *so = NULL;
	size_t so_size = 0;
	int r;

	r = accelc_read_file(j->so, &so, &so_size);
	if (r == 0)
		r = job_container(j, ACCELC_KIND_EXECUTABLE, so, so_size);
	free(so);
	return r;
}

int job_codegen_here(struct job *j)
{
	char *fiber = NULL;
	uint64_t t;
	int r = run_llvm(j);

	if (r == 0 && j->fiber_obj && !(fiber = job_fiber_obj_path(j)))
		r = -ENOMEM;
	if (r == 0) {
		t = job_now_ns();
		r = accelc_link_so(j->clang, j->obj, fiber, j->so,
				   j->o.timeout_ms, j->log);
		job_time(j, "link", t);
	}
	free(fiber);
	if (r == 0)
		r = make_container(j);
	return r;
}

/*
 * accelc-codegen of the prefix this compiler is installed in: the prefix
 * is what is left of the directory of @self (resolved: merged /usr,
 * links to accelc) without LIBDIR/libaccel-0 (the module) or BINDIR
 * (accelc), so that a prefix given only at install time, or a tree moved
 * whole, finds its own. @return the path (free() it), NULL if @self is in
 * neither or the file is not there
 */
static char *codegen_in_prefix(const char *self)
{
	static const char *const homes[] = { ACCELC_INSTALL_MODULE_HOME,
					     ACCELC_INSTALL_BIN_HOME };
	static const char rel[] = ACCELC_CODEGEN_RELATIVE;
	char *dir, *slash, *ret = NULL;
	size_t i, n, h;

	if (!rel[0] || !(dir = realpath(self, NULL)))
		return NULL;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	n = strlen(dir);
	for (i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
		h = strlen(homes[i]);
		if (h == 0 || n <= h || dir[n - h - 1] != '/' ||
		    strcmp(dir + n - h, homes[i]))
			continue;
		dir[n - h - 1] = '\0';
		if (asprintf(&ret, "%s/%s", dir, rel) < 0)
			ret = NULL;
		else if (access(ret, X_OK)) {
			free(ret);
			ret = NULL;
		}
		break;
	}
	free(dir);
	return ret;
}

/*
 * The code generator, accelc-codegen: in the build tree for a compiler
 * that runs from there (the tests, the module beside libaccel), else in
 * the prefix the compiler is installed in, else at the path of the
 * configured prefix. Not from $PATH or the environment: it runs with the
 * caller's privileges on every build.
 */
char *accelc_codegen_path(void)
{
	size_t bl = strlen(ACCELC_BUILD_DIR);
	char exe[4096], *ret;
	const char *self = NULL;
	Dl_info info;
	ssize_t n;

	if (dladdr((void *)accelc_codegen_path, &info) && info.dli_fname)
		self = info.dli_fname;
	/* the main program is named as it was run: ask the kernel */
	if (!self || *self != '/') {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		self = exe;
	}
	if (!strncmp(self, ACCELC_BUILD_DIR, bl) && self[bl] == '/' &&
	    access(ACCELC_CODEGEN_BUILD, X_OK) == 0)
		return strdup(ACCELC_CODEGEN_BUILD);
	ret = codegen_in_prefix(self);
	if (ret)
		return ret;
	if (access(ACCELC_CODEGEN_INSTALL, X_OK) == 0)
		return strdup(ACCELC_CODEGEN_INSTALL);
	return NULL;
}

/* A file of the private directory the helper wrote. @return 0, -errno */
static int read_output(struct job *j, const char *name, void **ret,
		       size_t *len)
{
	char *path;
	int r;

	if (asprintf(&path, "%s/%s", j->dir, name) < 0)
		return -ENOMEM;
	r = accelc_read_file(path, ret, len);
	free(path);
	return r;
}

/*
 * Code generation's work grows with the number of kernels (each is
 * lowered, optimised and compiled, several times over for its variants):
 * the deadline is the build's for each 1000 kernels begun, so a program
 * of thousands of small kernels is not cut off by a limit meant for one
 * runaway kernel. The kernels are counted from the bitcode's function
 * table alone (a lazy load reads no function body).
 */
#define CODEGEN_KERNELS_PER_DEADLINE 1000u

static uint32_t codegen_deadline(const struct job *j)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef mb = NULL;
	LLVMModuleRef mod = NULL;
	uint64_t n = 0, d;
	char *err = NULL;

	if (ctx && !LLVMCreateMemoryBufferWithContentsOfFile(j->bc, &mb, &err)) {
		/* the module owns the buffer from here, even on failure */
		if (!LLVMGetBitcodeModuleInContext2(ctx, mb, &mod)) {
			for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
			     f = LLVMGetNextFunction(f))
				n += LLVMGetFunctionCallConv(f) ==
				     LLVMSPIRKERNELCallConv;
			LLVMDisposeModule(mod);
		}
	}
	LLVMDisposeMessage(err);
	if (ctx)
		LLVMContextDispose(ctx);
	n = n ? (n + CODEGEN_KERNELS_PER_DEADLINE - 1) /
			CODEGEN_KERNELS_PER_DEADLINE :
		1;
	if (__builtin_mul_overflow((uint64_t)j->o.timeout_ms, n, &d) ||
	    d > UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)d;
}

/*
 * LLVM's passes and code generation run in the child accelc-codegen
 * (codegen-main.c), under the deadline and resource limits of the clang
 * runs: a loop unrolled 100000 times or a switch of 200000 cases would
 * otherwise run for minutes in the caller with nothing to stop it. The
 * child leaves the container (and IR or assembly if asked for) in the
 * private directory.
 */
uint64_t job_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void job_time(struct job *j, const char *step, uint64_t start)
{
	strbuf_printf(&j->timings, "%s %llu\n", step,
		      (unsigned long long)(job_now_ns() - start));
}

/*
 * The code generator's step times (its file), then the rest of the
 * @p total it took as codegen-process: starting it, LLVM's set-up.
 */
static void codegen_timings(struct job *j, uint64_t total)
{
	char *path, *text = NULL, *line, *save = NULL;
	unsigned long long ns, sum = 0;
	size_t len;

	if (asprintf(&path, "%s/" ACCELC_CODEGEN_TIMINGS, j->dir) < 0)
		return;
	if (accelc_read_file(path, (void **)&text, &len) == 0) {
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char name[64];

			/* Our own helper wrote it; still, parse it strictly. */
			if (sscanf(line, "%63s %llu", name, &ns) != 2)
				continue;
			strbuf_printf(&j->timings, "%s %llu\n", name, ns);
			sum += ns;
		}
	}
	free(text);
	free(path);
	strbuf_printf(&j->timings, "codegen-process %llu\n",
		      total > sum ? (unsigned long long)(total - sum) : 0ull);
}

int job_codegen(struct job *j)
{
	struct argv a = { 0 };
	char flags[16], timeout[16], *opts;
	void *data = NULL;
	uint32_t deadline;
	uint64_t t;
	size_t size;
	int r;

	if (!j->codegen) {
		strbuf_printf(j->log, "note: %s not found: code generation "
			      "runs in this process, without a deadline, and "
			      "stack sizes are not measured\n",
			      ACCELC_CODEGEN_INSTALL);
		return job_codegen_here(j);
	}
	if (asprintf(&opts, "%s/" ACCELC_CODEGEN_OPTIONS, j->dir) < 0)
		return -ENOMEM;
	r = accelc_write_file(opts, j->o.build_options ? j->o.build_options :
			      "", strlen(j->o.build_options ?
					 j->o.build_options : ""));
	free(opts);
	deadline = codegen_deadline(j);
	snprintf(flags, sizeof(flags), "%u", j->o.flags);
	snprintf(timeout, sizeof(timeout), "%u", deadline);
	argv_add(&a, j->codegen);
	argv_add(&a, j->dir);
	argv_add(&a, j->clang);
	argv_add(&a, j->cpu);
	argv_add(&a, j->features);
	argv_add(&a, flags);
	argv_add(&a, timeout);
	t = job_now_ns();
	if (!r)
		r = a.oom ? -ENOMEM : accelc_spawn(a.v, j->log, deadline);
	argv_free(&a);
	if (r == 0)
		codegen_timings(j, job_now_ns() - t);
	if (r != 0 && asprintf(&opts, "%s/" ACCELC_CODEGEN_STDERR, j->dir) > 0) {
		/* what it could not copy to the log itself: a crash */
		accelc_stack_copy_stderr(opts, j->log);
		free(opts);
	}
	if (r == -ETIMEDOUT)
		strbuf_printf(j->log, "error: optimisation and code "
			      "generation did not finish within the deadline "
			      "of %u ms\n", deadline);
	else if (r >= 125)
		strbuf_printf(j->log, "error: code generation failed "
			      "(status %d)\n", r);
	/* the helper exits with the errno of its failure */
	if (r > 0)
		r = r < 125 ? -r : -EIO;
	if (r)
		return r;
	r = read_output(j, ACCELC_CODEGEN_CONTAINER, &data, &size);
	if (r) {
		strbuf_printf(j->log, "error: no program from the code "
			      "generator\n");
		return r == -ENOMEM ? r : -EIO;
	}
	r = accelc_result_set_container(j->res, data, size, j->load_features,
					j->log);
	if (!r && (j->o.flags & ACCELC_FLAG_KEEP_IR))
		r = read_output(j, ACCELC_CODEGEN_IR, (void **)&j->res->ir,
				&size);
	if (!r && (j->o.flags & ACCELC_FLAG_KEEP_ASM))
		r = read_output(j, ACCELC_CODEGEN_ASM,
				(void **)&j->res->asm_text, &size);
	return r;
}

/*
 * The private directory and the source file the tools need: made only
 * when the build runs (or its key needs clang -E), not for cache hits.
 */
int job_files(struct job *j, const char *source, size_t len)
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
	return source ? accelc_write_file(j->src, source, len) : 0;
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

bool job_cache_probe(struct job *j)
{
	if (cache_hit(j))
		return true;
	accelc_cache_lock_key(&j->cache);
	if (cache_hit(j))
		return true;
	j->res->cache_status = ACCELC_CACHE_MISS;
	return false;
}

/* Hit, or miss with the key held until this build is stored. */
static bool cache_begin(struct job *j, const char *source, size_t len)
{
	uint8_t *key = j->cache.key;
	int r;

	if (j->cache.dirfd < 0)
		return false;
	r = accelc_cache_key(j->clang, j->codegen, &j->bo, &j->o, j->cpu,
			     j->features, source, len, NULL, NULL, key);
	/* includes: the key is over clang -E's output, which needs files */
	if (r == -EAGAIN) {
		r = job_files(j, source, len);
		if (r == 0)
			r = accelc_cache_key(j->clang, j->codegen, &j->bo,
					     &j->o, j->cpu, j->features,
					     source, len, j->src, j->dir,
					     key);
	}
	if (r) {
		/* clang -E failed: the build reports why, uncached */
		accelc_cache_close(&j->cache);
		return false;
	}
	return job_cache_probe(j);
}

int job_prepare(struct job *j)
{
	char err[160];
	int r;

	r = accelc_parse_options(j->o.build_options, &j->bo, j->log);
	if (r)
		return r;
	r = accelc_find_clang(j->o.clang_path, &j->clang);
	if (r) {
		strbuf_printf(j->log, "error: no clang-16 found (set "
			      "ACCEL_CLANG)\n");
		return r;
	}
	/* resolved once: the key covers the helper the build runs */
	j->codegen = accelc_codegen_path();
	r = accelc_host_cpu(&j->host_cpu, &j->host_features);
	if (r)
		return r;
	if (j->o.cpu) {
		j->cpu = strdup(j->o.cpu);
		j->features = strdup(j->o.cpu_features ? j->o.cpu_features :
				     "");
		if (!j->cpu || !j->features)
			return -ENOMEM;
	} else {
		const char *t = j->o.target ? j->o.target :
					      accelc_target_default();

		r = accelc_target_resolve(t, &j->cpu, &j->features, NULL);
		if (r == -EINVAL)
			strbuf_printf(j->log, "error: unknown target '%.64s'%s "
				      "(host, a tier accelc --list-targets "
				      "names, or a CPU clang knows)\n", t,
				      j->o.target ? "" : " in ACCEL_CPU_TARGET");
		if (r)
			return r;
	}
	/* code for another CPU is kept (accelc -o), not loaded */
	if (!accelc_binary_check_cpu(j->features, j->host_features, err,
				     sizeof(err)))
		j->load_features = j->host_features;
	else
		strbuf_printf(j->log, "note: code for CPU '%.64s' is not "
			      "loaded: %s\n", j->cpu, err);
	return accelc_cache_open(&j->o, &j->cache, j->log);
}

static void job_free(struct job *j)
{
	strbuf_free(&j->timings);
	accelc_cache_close(&j->cache);
	if (j->dir)
		rm_dir(j->dir);
	free(j->dir);
	free(j->so);
	free(j->clang);
	free(j->codegen);
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

/* $ACCEL_COMPILE_TIMEOUT_MS: the deadline of each step of a build, for
 * programs that cannot set accelc_options.timeout_ms (libaccel, the ICD);
 * 0 if unset or malformed. */
static uint32_t env_timeout(void)
{
	const char *env = secure_getenv("ACCEL_COMPILE_TIMEOUT_MS");
	unsigned long v;
	char *end;

	if (!env || *env < '0' || *env > '9')
		return 0;
	errno = 0;
	v = strtoul(env, &end, 10);
	return errno || *end || v > UINT32_MAX ? 0 : (uint32_t)v;
}

int job_start(struct job *j, const struct accelc_options *opts,
	      struct strbuf *log)
{
	memset(j, 0, sizeof(*j));
	j->cache.dirfd = -1;
	j->cache.lockfd = -1;
	if (opts) {
		if (opts->struct_size < sizeof(uint32_t) * 2 ||
		    opts->struct_size > sizeof(j->o))
			return -EINVAL;
		memcpy(&j->o, opts, opts->struct_size);
	}
	if (j->o.flags & ~ACCELC_FLAG_ALL)
		return -EINVAL;
	if (!j->o.timeout_ms)
		j->o.timeout_ms = env_timeout();
	if (!j->o.timeout_ms)
		j->o.timeout_ms = ACCELC_DEFAULT_TIMEOUT_MS;
	j->log = log;
	j->res = accelc_result_new(j->o.flags);
	return j->res ? 0 : -ENOMEM;
}

int job_finish(struct job *j, int r, struct accelc_result **ret)
{
	struct accelc_result *res = j->res;

	if (!res->log)
		res->log = clean_log(j->log, j->src, j->dir);
	if (!res->timings && j->timings.len && !j->timings.truncated) {
		res->timings = j->timings.buf;
		j->timings.buf = NULL;
	}
	if (r == 0 && res->cache_status == ACCELC_CACHE_MISS)
		accelc_cache_store(&j->cache, res->log, res->container,
				   res->container_size);
	strbuf_free(j->log);
	job_free(j);
	/* a failed build still has a log to show, unless memory ran out */
	if (r != -ENOMEM && res->log) {
		if (r) {
			accelc_free_kernels(res->kernels, res->n_kernels);
			res->kernels = NULL;
			res->n_kernels = 0;
		}
		*ret = res;
		return r;
	}
	accelc_result_free(res);
	return r ? r : -ENOMEM;
}

int accelc_compile(const struct accelc_options *opts, const char *source,
		   size_t len, struct accelc_result **ret)
{
	struct strbuf log = { 0 };
	struct job j;
	uint64_t t;
	int r;

	if (!source || !ret)
		return -EINVAL;
	r = job_start(&j, opts, &log);
	if (r)
		return r;
	r = job_prepare(&j);
	if (r == 0 && memchr(source, '\0', len)) {
		strbuf_printf(&log, "error: source contains a NUL byte\n");
		r = -EINVAL;
	}
	if (r || cache_begin(&j, source, len))
		goto out;
	if (!j.dir) {
		r = job_files(&j, source, len);
		if (r)
			goto out;
	}
	t = job_now_ns();
	r = accelc_frontend(j.clang, &j.bo, j.src, j.bc, j.o.timeout_ms,
			    &log);
	job_time(&j, "clang", t);
	if (r == 0)
		r = job_codegen(&j);
out:
	return job_finish(&j, r, ret);
}
