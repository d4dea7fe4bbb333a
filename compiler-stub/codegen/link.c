/* SPDX-License-Identifier: MIT */
/*
 * accelc_link(): objects and libraries (bitcode containers) linked with
 * LLVM's module linker. A library is the linked bitcode again; an
 * executable goes through the same lowering and code generation as a
 * program built from source, and is cached under a key over the linked
 * bitcode and the link options.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>

#include "binary.h"
#include "job.h"

/* Input @p i's bitcode as a module of @p ctx. */
static int load_input(struct job *j, LLVMContextRef ctx, uint32_t i,
		      const void *data, size_t size, LLVMModuleRef *ret)
{
	struct accelc_binary b;
	LLVMMemoryBufferRef mb;
	char err[160];
	int r;

	r = accelc_binary_parse(data, size, &b, err, sizeof(err));
	if (r) {
		strbuf_printf(j->log, "error: input %u: %s\n", i, err);
		return r == -ENOMEM ? r : -EINVAL;
	}
	if (b.kind == ACCELC_KIND_EXECUTABLE) {
		strbuf_printf(j->log, "error: input %u is an executable, not "
			      "an object or library\n", i);
		accelc_binary_clear(&b);
		return -EINVAL;
	}
	mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(b.code, b.code_size,
						       "input");
	accelc_binary_clear(&b);
	if (!mb)
		return -ENOMEM;
	r = LLVMParseBitcodeInContext2(ctx, mb, ret) ? -EINVAL : 0;
	LLVMDisposeMemoryBuffer(mb);
	if (r)
		strbuf_printf(j->log, "error: input %u: bad bitcode\n", i);
	return r;
}

/*
 * What an executable may leave undefined: OpenCL's builtins (mangled, as
 * clang declares them overloadable), printf and LLVM's intrinsics. Any
 * other function or variable used but not defined is a link error.
 */
static bool may_be_undefined(LLVMValueRef v, bool fn)
{
	size_t len;
	const char *n = LLVMGetValueName2(v, &len);

	if (!LLVMIsDeclaration(v) || !LLVMGetFirstUse(v))
		return true;
	if (!fn)
		return false;
	return LLVMGetIntrinsicID(v) || (len > 2 && !strncmp(n, "_Z", 2)) ||
	       !strcmp(n, "printf") || !strncmp(n, "llvm.", 5);
}

static int check_list(struct job *j, LLVMValueRef v,
		      LLVMValueRef (*next)(LLVMValueRef), bool fn)
{
	int r = 0;

	for (; v; v = next(v)) {
		if (may_be_undefined(v, fn))
			continue;
		strbuf_printf(j->log, "error: undefined %s '%s'\n",
			      fn ? "function" : "variable",
			      LLVMGetValueName2(v, &(size_t){ 0 }));
		r = -ENOEXEC;
	}
	return r;
}

static int check_defined(struct job *j, LLVMModuleRef mod)
{
	int r = check_list(j, LLVMGetFirstFunction(mod), LLVMGetNextFunction,
			   true);
	int r2 = check_list(j, LLVMGetFirstGlobal(mod), LLVMGetNextGlobal,
			    false);

	return r ? r : r2;
}

/* All inputs linked into one module, as bitcode in @p ret. */
static int link_inputs(struct job *j, uint32_t n, const void *const *objs,
		       const size_t *sizes, bool library,
		       LLVMMemoryBufferRef *ret)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef dst = NULL, src;
	int r = 0;

	if (!ctx)
		return -ENOMEM;
	LLVMContextSetDiagnosticHandler(ctx, accelc_diag_handler, j->log);
	for (uint32_t i = 0; i < n && r == 0; i++) {
		r = load_input(j, ctx, i, objs[i], sizes[i],
			       dst ? &src : &dst);
		/* the linker reports what clashes (defined twice ...) */
		if (r == 0 && i && LLVMLinkModules2(dst, src))
			r = -ENOEXEC;
	}
	/* a library may leave symbols to a later link */
	if (r == 0 && !library)
		r = check_defined(j, dst);
	if (r == 0) {
		*ret = LLVMWriteBitcodeToMemoryBuffer(dst);
		r = *ret ? 0 : -ENOMEM;
	}
	if (dst)
		LLVMDisposeModule(dst);
	LLVMContextDispose(ctx);
	return r;
}

/* An executable from the linked bitcode: cached, else built. */
static int executable(struct job *j, const void *bc, size_t size)
{
	int r;

	if (j->cache.dirfd >= 0 &&
	    accelc_cache_key_bitcode(j->clang, j->codegen, &j->o, j->cpu,
				     j->features, bc, size,
				     j->cache.key) == 0 &&
	    job_cache_probe(j))
		return 0;
	r = job_files(j, NULL, 0);
	if (r == 0)
		r = accelc_write_file(j->bc, bc, size);
	if (r == 0)
		r = job_codegen(j);
	return r;
}

int accelc_link(const struct accelc_options *opts, uint32_t n,
		const void *const *objects, const size_t *sizes,
		uint32_t flags, struct accelc_result **ret)
{
	LLVMMemoryBufferRef bc = NULL;
	struct strbuf log = { 0 };
	struct job j;
	int r;

	if (!n || !objects || !sizes || !ret || (flags & ~ACCELC_LINK_LIBRARY))
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!objects[i] || !sizes[i])
			return -EINVAL;
	r = job_start(&j, opts, &log);
	if (r)
		return r;
	if (flags & ACCELC_LINK_LIBRARY)
		j.o.flags |= ACCELC_FLAG_NO_CACHE;
	r = job_prepare(&j);
	if (r == 0)
		r = link_inputs(&j, n, objects, sizes,
				flags & ACCELC_LINK_LIBRARY, &bc);
	if (r == 0 && (flags & ACCELC_LINK_LIBRARY))
		r = job_container(&j, ACCELC_KIND_LIBRARY,
				  LLVMGetBufferStart(bc),
				  LLVMGetBufferSize(bc));
	else if (r == 0)
		r = executable(&j, LLVMGetBufferStart(bc),
			       LLVMGetBufferSize(bc));
	if (bc)
		LLVMDisposeMemoryBuffer(bc);
	return job_finish(&j, r, ret);
}
