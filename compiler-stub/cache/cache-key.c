/* SPDX-License-Identifier: MIT */
/* The program cache key: everything a build's output depends on. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libaccel/accel-wg.h>

#include "binary.h"
#include "cache.h"
#include "target-arch.h"

#define KEY_VERSION "accelc cache key 1"

/* Which file, in which version: device, inode, size, modification time. */
static void hash_file_id(struct accelc_sha256 *h, const char *path)
{
	struct stat st;
	uint64_t id[5] = { 0 };

	if (path && stat(path, &st) == 0) {
		id[0] = (uint64_t)st.st_dev;
		id[1] = (uint64_t)st.st_ino;
		id[2] = (uint64_t)st.st_size;
		id[3] = (uint64_t)st.st_mtim.tv_sec;
		id[4] = (uint64_t)st.st_mtim.tv_nsec;
	}
	accelc_sha256_str(h, path);
	accelc_sha256_update(h, id, sizeof(id));
}

/* The file a symbol comes from (this compiler, libLLVM). */
static void hash_object_of(struct accelc_sha256 *h, const void *sym)
{
	Dl_info info;

	/* the main program reports its argv[0]: use the kernel's name */
	if (!dladdr(sym, &info) || !info.dli_fname ||
	    !strchr(info.dli_fname, '/'))
		hash_file_id(h, "/proc/self/exe");
	else
		hash_file_id(h, info.dli_fname);
}

/* clang -E with the predefined macros (-dD): the source with its
 * #includes, clang's version and the language options. */
static int preprocess(const char *clang, const struct accelc_build_opts *bo,
		      const char *src, const char *out, uint32_t timeout_ms)
{
	static const char *const fixed[] = {
		"-E", "-P", "-dD", "-x", "cl", "-target",
	};
	struct strbuf log = { 0 };
	struct argv a = { 0 };
	char std[32];
	int r;

	snprintf(std, sizeof(std), "-cl-std=CL%u.%u", bo->cl_std / 100,
		 bo->cl_std / 10 % 10);
	argv_add(&a, clang);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv_add(&a, fixed[i]);
	argv_add(&a, accelc_arch_triple);
	argv_add(&a, std);
	/* -D, -I, -cl-std and the others, as the frontend gets them */
	for (size_t i = 0; i < bo->clang_args.n; i++)
		argv_add(&a, bo->clang_args.v[i]);
	argv_add(&a, "-o");
	argv_add(&a, out);
	argv_add(&a, src);
	r = a.oom ? -ENOMEM : accelc_spawn(a.v, &log, timeout_ms);
	argv_free(&a);
	strbuf_free(&log);
	return r > 0 ? -ENOEXEC : r;
}

/* Hash @p path's text with the private directory's name masked out
 * (__FILE__ names it, and it differs on every build). */
static int hash_text(struct accelc_sha256 *h, const char *path,
		     const char *dir)
{
	size_t dl = strlen(dir), len;
	char *buf, *p;
	int r;

	r = accelc_read_file(path, (void **)&buf, &len);
	if (r)
		return r;
	for (p = buf; dl;) {
		char *hit = memmem(p, len - (size_t)(p - buf), dir, dl);

		if (!hit)
			break;
		accelc_sha256_update(h, p, (size_t)(hit - p));
		accelc_sha256_str(h, "<dir>");
		p = hit + dl;
	}
	accelc_sha256_update(h, p, len - (size_t)(p - buf));
	free(buf);
	return 0;
}

/*
 * Whether a backslash at @p p (of @p end) splices lines or spells a
 * character by number: either can hide a word from the scan below
 * ("#inc\\<newline>lude", "__TI\\<newline>ME__"). clang splices after
 * blanks too (with a warning). Escapes in strings ("\\n") are fine.
 */
static bool hiding_backslash(const char *p, const char *end)
{
	if (++p == end || *p == 'u' || *p == 'U')
		return true;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\f' ||
			   *p == '\v'))
		p++;
	return p == end || *p == '\n' || *p == '\r';
}

/*
 * Whether the text alone decides what clang -E makes of it (with the
 * options and clang's identity, which the key holds anyway): no #include
 * or #import reaching other files, no macro that changes with the time.
 * Such sources, the common case of OpenCL programs built from strings,
 * skip the preprocessor run that otherwise dominates a cache hit.
 *
 * A plain text search for the words, so nothing may build a word the
 * preprocessor sees but the search does not: line splices and universal
 * character names (hiding_backslash()), token pasting ("##", which
 * makes __TIME__ of __TI and ME__), digraphs ("%:" is '#') and trigraphs
 * ("??=" is '#', "??/" a backslash; clang honours both for OpenCL C).
 * Any of these sends the source through the preprocessor. __FILE__ needs
 * nothing: it names the private directory, which the preprocessed key
 * masks out as well.
 */
static bool self_contained(const char *text, size_t len)
{
	static const char *const words[] = {
		"include", "import", "embed", "__DATE__", "__TIME__",
		"__TIMESTAMP__", "__COUNTER__", "##", "%:", "??",
		/* #pragma GCC dependency: a file's age decides a warning */
		"dependency",
	};
	const char *end = text + len;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memmem(text, len, words[i], strlen(words[i])))
			return false;
	for (const char *p = memchr(text, '\\', len); p;
	     p = memchr(p + 1, '\\', (size_t)(end - p - 1)))
		if (hiding_backslash(p, end))
			return false;
	return true;
}

/* -D values are text as well: HAS=__has_include(...), T=__TIME__ */
static bool defines_self_contained(const struct argv *args)
{
	for (size_t i = 0; i + 1 < args->n; i++)
		if (!strcmp(args->v[i], "-D") &&
		    !self_contained(args->v[i + 1], strlen(args->v[i + 1])))
			return false;
	return true;
}

/*
 * The environment clang reads: CCC_OVERRIDE_OPTIONS edits its command
 * line (it may add "-include file"), the others are include paths or fix
 * __DATE__ and __TIME__. The key holds their values, and a source is never
 * taken as self-contained while clang's options are edited.
 */
static const char *const clang_env[] = {
	"CCC_OVERRIDE_OPTIONS", "CPATH", "C_INCLUDE_PATH",
	"OBJC_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "SOURCE_DATE_EPOCH",
};

static void hash_env(struct accelc_sha256 *h)
{
	for (size_t i = 0; i < sizeof(clang_env) / sizeof(clang_env[0]); i++) {
		const char *v = getenv(clang_env[i]);

		accelc_sha256_str(h, clang_env[i]);
		accelc_sha256_str(h, v ? v : "");
		accelc_sha256_update(h, v ? "=" : "-", 1);
	}
}

static bool options_edited(void)
{
	const char *v = getenv("CCC_OVERRIDE_OPTIONS");

	return v && *v;
}

/*
 * The builtins library and fiber runtime (megabytes of bitcode), the
 * programs' prelude, this module's and libLLVM's files are part of every
 * key but never change in a process (dladdr() alone is a visible cost):
 * hash them once.
 */
static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;
static uint8_t runtime_digest[ACCELC_SHA256_SIZE];

static void hash_runtime(void)
{
	struct accelc_sha256 h;
	const void *bits;
	size_t size;

	accelc_sha256_init(&h);
	for (unsigned i = 0; (bits = accelc_builtin_chunk_bits(i, &size, NULL));
	     i++)
		accelc_sha256_update(&h, bits, size);
	accelc_sha256_update(&h, accelc_fiber_bc,
			     (size_t)(accelc_fiber_bc_end - accelc_fiber_bc));
	accelc_sha256_str(&h, accelc_program_prelude);
	/* on failure the digest stays zero: keys are still per source */
	/* this compiler and libLLVM as loaded: they cannot change either */
	hash_object_of(&h, (const void *)accelc_cache_key);
	hash_object_of(&h, (const void *)LLVMContextCreate);
	accelc_sha256_final(&h, runtime_digest);
}

/* Everything but the source itself. */
static void hash_build(struct accelc_sha256 *h, const char *kind,
		       const struct accelc_options *o, const char *clang,
		       const char *codegen, const char *cpu,
		       const char *features)
{
	uint32_t v[7] = { ACCELC_BINARY_FORMAT, ACCEL_WG_ABI_VERSION };
	unsigned maj, min, pat;

	LLVMGetVersion(&maj, &min, &pat);
	v[2] = maj;
	v[3] = min;
	v[4] = pat;
	/* the one flag that changes the code: the others skip the cache */
	v[5] = o->flags & ACCELC_FLAG_STREAMING_LATER;
	/* the code is linked for it (codegen.c) */
	v[6] = (uint32_t)sysconf(_SC_PAGESIZE);
	accelc_sha256_init(h);
	accelc_sha256_str(h, KEY_VERSION);
	accelc_sha256_str(h, kind);
	accelc_sha256_update(h, v, sizeof(v));
	accelc_sha256_str(h, o->build_options);
	accelc_sha256_str(h, cpu);
	accelc_sha256_str(h, features);
	hash_file_id(h, clang);
	hash_file_id(h, codegen);
	hash_env(h);
	pthread_once(&runtime_once, hash_runtime);
	accelc_sha256_update(h, runtime_digest, sizeof(runtime_digest));
}

int accelc_cache_key(const char *clang, const char *codegen,
		     const struct accelc_build_opts *bo,
		     const struct accelc_options *o, const char *cpu,
		     const char *features, const char *text, size_t len,
		     const char *src, const char *dir,
		     uint8_t key[ACCELC_SHA256_SIZE])
{
	struct accelc_sha256 h;
	char *out;
	int r;

	if (!options_edited() && self_contained(text, len) &&
	    defines_self_contained(&bo->clang_args)) {
		hash_build(&h, "source", o, clang, codegen, cpu, features);
		accelc_sha256_update(&h, text, len);
		return accelc_sha256_final(&h, key);
	}
	if (!src || !dir)
		return -EAGAIN;

	if (asprintf(&out, "%s/source.i", dir) < 0)
		return -ENOMEM;
	r = preprocess(clang, bo, src, out, o->timeout_ms);
	if (r) {
		unlink(out);
		free(out);
		return r;
	}
	hash_build(&h, "preprocessed", o, clang, codegen, cpu, features);
	r = hash_text(&h, out, dir);
	unlink(out);
	free(out);
	if (r) {
		accelc_sha256_final(&h, key);
		return r;
	}
	return accelc_sha256_final(&h, key);
}

int accelc_cache_key_bitcode(const char *clang, const char *codegen,
			     const struct accelc_options *o, const char *cpu,
			     const char *features, const void *data,
			     size_t len, uint8_t key[ACCELC_SHA256_SIZE])
{
	struct accelc_sha256 h;

	hash_build(&h, "linked", o, clang, codegen, cpu, features);
	accelc_sha256_update(&h, data, len);
	return accelc_sha256_final(&h, key);
}

int accelc_cache_key_il(const char *clang, const char *codegen,
			const char *translator,
			const struct accelc_options *o, const char *cpu,
			const char *features, const void *il, size_t len,
			uint32_t n_spec, const struct accelc_spec_const *spec,
			uint8_t key[ACCELC_SHA256_SIZE])
{
	struct accelc_sha256 h;
	uint64_t n = len;

	hash_build(&h, "spirv", o, clang, codegen, cpu, features);
	hash_file_id(&h, translator);
	accelc_sha256_update(&h, &n, sizeof(n));
	accelc_sha256_update(&h, il, len);
	/* in order: a later value for the same id wins */
	for (uint32_t i = 0; i < n_spec; i++) {
		uint64_t v[3] = { spec[i].id, spec[i].size, spec[i].value };

		accelc_sha256_update(&h, v, sizeof(v));
	}
	return accelc_sha256_final(&h, key);
}
