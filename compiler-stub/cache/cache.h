/* SPDX-License-Identifier: MIT */
/*
 * The on-disk program cache: one file per build, named by the hex SHA-256
 * of everything the build depends on (cache-key.c), in a directory private
 * to the user. An entry is
 *
 *   magic "ACCELCCH", u32 version, u32 0, key[32], sha256(payload)[32],
 *   u64 log length, u64 container length, payload = log, container
 *
 * (little-endian). Entries are written to a temporary file and renamed,
 * so readers never see half of one; anything that does not check out
 * (size, key, checksum, owner, mode) is ignored and rebuilt.
 */
#ifndef ACCELC_CACHE_H
#define ACCELC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accelc-private.h"
#include "sha256.h"

#define ACCELC_CACHE_DEFAULT_MAX (256ull << 20)

struct accelc_cache {
	int dirfd;        /* -1: the cache is off */
	int lockfd;       /* the directory's lock file */
	bool key_locked;
	uint64_t max_size;
	uint8_t key[ACCELC_SHA256_SIZE];
};

/*
 * Open the cache @p opts asks for. Never fails a build: when the cache is
 * disabled or its directory is unusable, c->dirfd is -1 (a reason goes to
 * @p log only for an unusable directory). @return 0 or -ENOMEM
 */
int accelc_cache_open(const struct accelc_options *opts,
		      struct accelc_cache *c, struct strbuf *log);
void accelc_cache_close(struct accelc_cache *c);

/*
 * Look up c->key. @return 0 (hit: the stored log and container, both
 * malloc'ed), -ENOENT (miss, including ignored bad entries), -ENOMEM
 */
int accelc_cache_lookup(struct accelc_cache *c, char **log, void **data,
			size_t *size);

/*
 * Hold c->key against other builders (threads and processes) until
 * accelc_cache_close(), so that one builds and the others then hit.
 */
void accelc_cache_lock_key(struct accelc_cache *c);

/* Store a successful build under c->key, then keep the size under the cap.
 * Failures are not errors (the build is done either way). */
void accelc_cache_store(struct accelc_cache *c, const char *log,
			const void *data, size_t size);

/*
 * The key: SHA-256 over the preprocessed source (clang -E, with the
 * predefined macros, so the clang version and language options count),
 * the build options, the target CPU and features, the work-group ABI and
 * container versions, the LLVM version, the identity of clang, of the
 * code generator @p codegen (NULL: none, the build runs it in process),
 * libLLVM and this compiler, the environment clang reads, and the
 * builtins. A
 * source @p text whose words show that it includes nothing and reads no
 * clock (nothing that could hide a word from a text search either: line
 * splices, ##, digraphs, trigraphs) is hashed as it is; otherwise clang -E
 * runs on the file @p src with its output in @p dir.
 * @return 0, -EAGAIN (the source includes files: give @p src and @p dir),
 *         -ENOEXEC (clang -E failed: build uncached), -ENOMEM, -errno
 */
int accelc_cache_key(const char *clang, const char *codegen,
		     const struct accelc_build_opts *bo,
		     const struct accelc_options *o, const char *cpu,
		     const char *features, const char *text, size_t len,
		     const char *src, const char *dir,
		     uint8_t key[ACCELC_SHA256_SIZE]);

/*
 * The key of a link: the linked bitcode @p data (objects are made free of
 * temporary names, object.c) and everything accelc_cache_key() takes but
 * the source. @return 0, -ENOMEM
 */
int accelc_cache_key_bitcode(const char *clang, const char *codegen,
			     const struct accelc_options *o, const char *cpu,
			     const char *features, const void *data,
			     size_t len, uint8_t key[ACCELC_SHA256_SIZE]);

/*
 * The key of a SPIR-V build: the module's bytes, the specialization
 * constants, the translator's identity and everything
 * accelc_cache_key_bitcode() takes. @return 0, -ENOMEM
 */
int accelc_cache_key_il(const char *clang, const char *codegen,
			const char *translator,
			const struct accelc_options *o, const char *cpu,
			const char *features, const void *il, size_t len,
			uint32_t n_spec, const struct accelc_spec_const *spec,
			uint8_t key[ACCELC_SHA256_SIZE]);

/* A whole file, malloc'ed, NUL-terminated (compile.c). @return 0, -errno */
int accelc_read_file(const char *path, void **data, size_t *len);

#endif /* ACCELC_CACHE_H */
