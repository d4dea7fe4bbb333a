/* SPDX-License-Identifier: MIT */
/*
 * accelc_compile_object(): one source to LLVM bitcode (clCompileProgram),
 * with its own options and embedded headers. The headers become files in
 * the build's private directory (0700, removed with it) under <dir>/h,
 * which clang searches with -I: clang as a subprocess has no virtual files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include "job.h"

/* A relative name of '/'-separated parts, none empty, "." or "..". */
static bool header_name_ok(const char *name)
{
	const char *p = name;

	if (!name || !*name || *name == '/')
		return false;
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if (!n || (n == 1 && *p == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p = *end ? end + 1 : end;
	}
	return true;
}

/* <dir>/h/@p name with its parent directories. */
static int write_header(struct job *j, const char *name, const char *text)
{
	char *path, *slash;
	int r = 0;

	if (asprintf(&path, "%s/h/%s", j->dir, name) < 0)
		return -ENOMEM;
	/* the parents, from <dir>/h down; existing ones are fine */
	for (slash = path + strlen(j->dir) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			r = -errno;
		*slash = '/';
		if (r)
			break;
	}
	if (r == 0)
		r = accelc_write_file(path, text, strlen(text));
	/* the same name twice: the first one counts, as with a search path */
	if (r == -EEXIST)
		r = 0;
	free(path);
	return r;
}

static int write_headers(struct job *j, uint32_t n, const char *const *names,
			 const char *const *texts)
{
	char *inc;
	int r;

	for (uint32_t i = 0; i < n; i++) {
		if (!header_name_ok(names[i]) || !texts[i]) {
			strbuf_printf(j->log, "error: bad header name '%s'\n",
				      names[i] ? names[i] : "(null)");
			return -EINVAL;
		}
	}
	if (!n)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		r = write_header(j, names[i], texts[i]);
		if (r)
			return r;
	}
	if (asprintf(&inc, "-I%s/h", j->dir) < 0)
		return -ENOMEM;
	argv_add(&j->bo.clang_args, inc);
	free(inc);
	return j->bo.clang_args.oom ? -ENOMEM : 0;
}

/*
 * clang's bitcode, with the names of our temporary files taken out (so an
 * object is the same bytes on every compile, and link cache keys over
 * objects work), as the object container.
 */
int job_object(struct job *j)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef mb = NULL, out = NULL;
	LLVMModuleRef mod = NULL;
	char *err = NULL;
	int r = -EIO;

	if (!ctx)
		return -ENOMEM;
	if (LLVMCreateMemoryBufferWithContentsOfFile(j->bc, &mb, &err)) {
		strbuf_printf(j->log, "error: %s\n", err);
		LLVMDisposeMessage(err);
		goto out;
	}
	if (LLVMParseBitcodeInContext2(ctx, mb, &mod)) {
		strbuf_printf(j->log, "error: cannot read clang's bitcode\n");
		goto out;
	}
	LLVMSetModuleIdentifier(mod, "<source>", 8);
	LLVMSetSourceFileName(mod, "<source>", 8);
	out = LLVMWriteBitcodeToMemoryBuffer(mod);
	if (!out) {
		r = -ENOMEM;
		goto out;
	}
	r = job_container(j, ACCELC_KIND_OBJECT, LLVMGetBufferStart(out),
			  LLVMGetBufferSize(out));
out:
	if (out)
		LLVMDisposeMemoryBuffer(out);
	if (mod)
		LLVMDisposeModule(mod);
	if (mb)
		LLVMDisposeMemoryBuffer(mb);
	LLVMContextDispose(ctx);
	return r;
}

int accelc_compile_object(const struct accelc_options *opts,
			  const char *source, size_t len, uint32_t n_headers,
			  const char *const *header_names,
			  const char *const *header_sources,
			  struct accelc_result **ret)
{
	struct strbuf log = { 0 };
	struct job j;
	int r;

	if (!source || !ret ||
	    (n_headers && (!header_names || !header_sources)))
		return -EINVAL;
	r = job_start(&j, opts, &log);
	if (r)
		return r;
	/* clang -c alone is quick: objects are not cached, links are */
	j.o.flags |= ACCELC_FLAG_NO_CACHE;
	r = job_prepare(&j);
	if (r == 0 && memchr(source, '\0', len)) {
		strbuf_printf(&log, "error: source contains a NUL byte\n");
		r = -EINVAL;
	}
	if (r == 0)
		r = job_files(&j, source, len);
	if (r == 0)
		r = write_headers(&j, n_headers, header_names, header_sources);
	if (r == 0) {
		uint64_t t = job_now_ns();

		r = accelc_frontend(j.clang, &j.bo, j.src, j.bc,
				    j.o.timeout_ms, &log);
		job_time(&j, "clang", t);
	}
	if (r == 0)
		r = job_object(&j);
	return job_finish(&j, r, ret);
}
