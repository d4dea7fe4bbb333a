/* SPDX-License-Identifier: MIT */
/*
 * Linking a program with the pieces of the builtins library it calls.
 *
 * Reading the whole library, even lazily, makes LLVM create all of its
 * 13,000 function declarations: about 65 ms of every build. A program
 * calls few of them: the pieces (one per builtins source file) that
 * define what it still lacks are linked, then what those call in other
 * pieces, until nothing the index knows is missing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include "accelc-private.h"
#include "builtins-chunks.h"

static int sym_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct accelc_builtin_sym *)elem)->name);
}

/* The index entry of @name, or NULL. */
static const struct accelc_builtin_sym *sym_of(const char *name)
{
	return bsearch(name, accelc_builtin_syms, accelc_n_builtin_syms,
		       sizeof(struct accelc_builtin_sym), sym_cmp);
}

const void *accelc_builtin_chunk_bits(unsigned i, size_t *size,
				      const char **name)
{
	if (i >= accelc_n_builtin_chunks)
		return NULL;
	*size = (size_t)(accelc_builtin_chunks[i].end -
			 accelc_builtin_chunks[i].start);
	if (name)
		*name = accelc_builtin_chunks[i].name;
	return accelc_builtin_chunks[i].start;
}

/*
 * Mark in @want the piece defining @v if @v is a declaration of one of
 * the library's symbols; keep the first such entry in *@first.
 */
static void want_if_missing(LLVMValueRef v, bool *want,
			    const struct accelc_builtin_sym **first)
{
	const struct accelc_builtin_sym *s;
	const char *name;
	size_t len;

	if (!LLVMIsDeclaration(v))
		return;
	name = LLVMGetValueName2(v, &len);
	if (!len || !strncmp(name, "llvm.", 5))
		return;
	s = sym_of(name);
	if (!s)
		return;
	want[s->chunk] = true;
	if (!*first)
		*first = s;
}

/* A declaration the pieces define (NULL: none), their pieces in @want. */
static const struct accelc_builtin_sym *missing(LLVMModuleRef mod,
						bool *want)
{
	const struct accelc_builtin_sym *first = NULL;

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f))
		want_if_missing(f, want, &first);
	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g;
	     g = LLVMGetNextGlobal(g))
		want_if_missing(g, want, &first);
	return first;
}

int accelc_link_builtin_chunks(LLVMModuleRef mod, struct strbuf *log)
{
	unsigned n = accelc_n_builtin_chunks;
	bool *want = calloc(n, sizeof(*want));
	const struct accelc_builtin_sym *s, *prev = NULL;
	int r = 0;

	if (!want)
		return -ENOMEM;
	/*
	 * Each round defines at least the declaration it found first (its
	 * piece is linked), so rounds end; a piece that does not define
	 * what the index says it does would loop: an error.
	 */
	while ((s = missing(mod, want))) {
		if (s == prev) {
			strbuf_printf(log, "error: the builtins index names "
				      "symbols its pieces do not define\n");
			r = -EIO;
			break;
		}
		prev = s;
		for (unsigned c = 0; c < n && !r; c++) {
			if (!want[c])
				continue;
			want[c] = false;
			r = accelc_link_bitcode(mod, accelc_builtin_chunks[c].start,
						accelc_builtin_chunks[c].end,
						accelc_builtin_chunks[c].name,
						true, log);
		}
		if (r)
			break;
	}
	free(want);
	return r;
}

const char *accelc_builtin_find(const char *name)
{
	const struct accelc_builtin_sym *s = sym_of(name);

	return s ? s->name : NULL;
}

const struct accelc_builtin_sym *accelc_builtin_prefix(const char *prefix,
						       size_t len,
						       size_t *count)
{
	size_t lo = 0, hi = accelc_n_builtin_syms, end;

	/* the first name not below the prefix: the run of names with it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *n = accelc_builtin_syms[mid].name;
		int c = strncmp(n, prefix, len);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < accelc_n_builtin_syms &&
		       !strncmp(accelc_builtin_syms[end].name, prefix, len);
	     end++)
		;
	*count = end - lo;
	return &accelc_builtin_syms[lo];
}

int accelc_builtins_set_target(LLVMModuleRef mod)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	const struct accelc_builtin_chunk *small = &accelc_builtin_chunks[0];
	LLVMMemoryBufferRef mb;
	LLVMModuleRef src;

	/* the smallest piece: they all have the library's target */
	for (unsigned c = 1; c < accelc_n_builtin_chunks; c++)
		if (accelc_builtin_chunks[c].end - accelc_builtin_chunks[c].start <
		    small->end - small->start)
			small = &accelc_builtin_chunks[c];
	mb = LLVMCreateMemoryBufferWithMemoryRange(
		small->start, (size_t)(small->end - small->start), small->name,
		0);
	if (!mb)
		return -ENOMEM;
	if (LLVMGetBitcodeModuleInContext2(ctx, mb, &src)) {
		LLVMDisposeMemoryBuffer(mb);
		return -EIO;
	}
	LLVMSetTarget(mod, LLVMGetTarget(src));
	LLVMSetDataLayout(mod, LLVMGetDataLayoutStr(src));
	/* the lazy module owns the buffer */
	LLVMDisposeModule(src);
	return 0;
}
