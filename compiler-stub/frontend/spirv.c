/* SPDX-License-Identifier: MIT */
/*
 * accelc_compile_il(): SPIR-V modules. Debian's llvm-spirv-15 turns the
 * module into LLVM 15 bitcode (a child process under the same deadline
 * and limits as clang: the translator asserts on some malformed modules),
 * which LLVM 16 reads. The bitcode is then made to look like clang's for
 * this target (fixup()) and goes through the same pipeline as a source.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include "builtins-chunks.h"
#include "job.h"

#ifndef ACCELC_LLVM_SPIRV_DEFAULT
#define ACCELC_LLVM_SPIRV_DEFAULT "/usr/bin/llvm-spirv-15"
#endif

/* from libstdc++ (LLVM's C++ runtime is loaded with us anyway) */
extern char *__cxa_demangle(const char *name, char *buf, size_t *len,
			    int *status);

#define SPIRV_MAGIC 0x07230203u

static int try_exec(const char *p, char **ret)
{
	if (!p || !*p || access(p, X_OK) < 0)
		return -ENOENT;
	*ret = strdup(p);
	return *ret ? 0 : -ENOMEM;
}

int accelc_find_translator(char **ret)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (try_exec(secure_getenv("ACCEL_LLVM_SPIRV"), ret) == 0 ||
	    try_exec(ACCELC_LLVM_SPIRV_DEFAULT, ret) == 0)
		return 0;
	while (path && *path) {
		const char *end = strchrnul(path, ':');
		int n = snprintf(buf, sizeof(buf), "%.*s/llvm-spirv-15",
				 (int)(end - path), path);

		if (end > path && n > 0 && (size_t)n < sizeof(buf) &&
		    try_exec(buf, ret) == 0)
			return 0;
		path = *end ? end + 1 : end;
	}
	return -ENOENT;
}

/* llvm-spirv -r: the module at @p spv to bitcode at @p bc. */
static int translate(struct job *j, const char *tool, const char *spv,
		     uint32_t n_spec, const struct accelc_spec_const *spec)
{
	struct strbuf out = { 0 };
	struct argv a = { 0 };
	char *arg = NULL;
	int r;

	argv_add(&a, tool);
	argv_add(&a, "-r");
	/* OpenCL C 2.0 names: atomics keep their scopes, and the
	 * builtins library defines both the 1.2 and 2.0 ones */
	argv_add(&a, "--spirv-target-env=CL2.0");
	/* one option: a second --spec-const replaces the first */
	for (uint32_t i = 0; i < n_spec; i++) {
		unsigned bits = spec[i].size * 8;
		uint64_t v = bits < 64 ? spec[i].value &
						 ((UINT64_C(1) << bits) - 1) :
					 spec[i].value;
		char val[48], *next;
		double d;

		/*
		 * Integers of the constant's width, unsigned: the translator
		 * takes a float's bits as they are. It reads no integer of
		 * 17 digits or more, so larger 8-byte values go as the
		 * double of the same bits (whose bits it keeps too), unless
		 * those are a NaN's.
		 */
		memcpy(&d, &v, sizeof(d));
		if (bits < 64 || v < UINT64_C(10000000000000000) || isnan(d))
			snprintf(val, sizeof(val), "i%u:%" PRIu64, bits, v);
		else
			snprintf(val, sizeof(val), "f64:%a", d);
		if (asprintf(&next, "%s%s%" PRIu32 ":%s",
			     arg ? arg : "--spec-const=", arg ? " " : "",
			     spec[i].id, val) < 0) {
			free(arg);
			argv_free(&a);
			return -ENOMEM;
		}
		free(arg);
		arg = next;
	}
	if (arg)
		argv_add(&a, arg);
	free(arg);
	argv_add(&a, "-o");
	argv_add(&a, j->bc);
	argv_add(&a, spv);
	r = a.oom ? -ENOMEM : accelc_spawn(a.v, &out, j->o.timeout_ms);
	argv_free(&a);
	if (r > 0) {
		strbuf_printf(j->log, "error: the SPIR-V module does not "
			      "translate:\n");
		r = -ENOEXEC;
	}
	if (out.buf)
		strbuf_append(j->log, out.buf, out.len);
	if (r == -ENOEXEC && (!out.len || out.buf[out.len - 1] != '\n'))
		strbuf_printf(j->log, "\n");
	strbuf_free(&out);
	return r;
}

/*
 * A demangled builtin name in one spelling for both manglings: the
 * translator writes address spaces as numbers (AS1) and leaves private
 * pointers unqualified; our library, from clang's CPU target, names them
 * (CLglobal, CLprivate).
 */
static char *normalise(const char *mangled)
{
	static const char *const from[] = { " CLprivate", " CLglobal",
					    " CLconstant", " CLlocal",
					    " CLgeneric" };
	static const char *const to[] = { "", " AS1", " AS2", " AS3",
					  " AS4" };
	char *d = __cxa_demangle(mangled, NULL, NULL, NULL);

	for (size_t i = 0; d && i < sizeof(from) / sizeof(from[0]); i++) {
		size_t fl = strlen(from[i]), tl = strlen(to[i]);
		char *p;

		while ((p = strstr(d, from[i]))) {
			memmove(p + tl, p + fl, strlen(p + fl) + 1);
			memcpy(p, to[i], tl);
		}
	}
	return d;
}

/* "_Z10vload_half..." -> length of "_Z10vload_half" (0: not mangled) */
static size_t base_len(const char *n)
{
	char *end;
	unsigned long l;

	if (strncmp(n, "_Z", 2) || n[2] < '1' || n[2] > '9')
		return 0;
	l = strtoul(n + 2, &end, 10);
	return strnlen(end, l) == l ? (size_t)(end - n) + l : 0;
}

/*
 * The library's name of the function with @p want's demangled name, or
 * NULL: among the names with the same mangled base (one run of the
 * sorted index).
 */
static const char *lib_match(const char *want)
{
	size_t bl = base_len(want), count = 0;
	const struct accelc_builtin_sym *s =
		bl ? accelc_builtin_prefix(want, bl, &count) : NULL;
	char *w = count ? normalise(want) : NULL;
	const char *hit = NULL;

	for (size_t i = 0; w && i < count && !hit; i++) {
		const char *n = s[i].name;
		char *d;

		if (strlen(n) <= bl || base_len(n) != bl)
			continue;
		d = normalise(n);
		if (d && !strcmp(d, w))
			hit = n;
		free(d);
	}
	free(w);
	return hit;
}

/* Declarations of builtins renamed to the library's names for them. */
static void rename_builtins(LLVMModuleRef mod)
{
	LLVMValueRef f = LLVMGetFirstFunction(mod), next;

	for (; f; f = next) {
		size_t len, tl;
		const char *n = LLVMGetValueName2(f, &len);
		LLVMValueRef old;
		const char *tn;

		next = LLVMGetNextFunction(f);
		if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) ||
		    accelc_builtin_find(n))
			continue;
		tn = lib_match(n);
		if (!tn)
			continue;
		tl = strlen(tn);
		old = LLVMGetNamedFunction(mod, tn);
		if (old && old != f) {
			LLVMReplaceAllUsesWith(f, old);
			LLVMDeleteFunction(f);
		} else {
			LLVMSetValueName2(f, tn, tl);
		}
	}
}

/* The translator's spir_func calls: plain C calls on this target. */
static void plain_calls(LLVMModuleRef mod)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMGetFunctionCallConv(f) == LLVMSPIRFUNCCallConv)
			LLVMSetFunctionCallConv(f, LLVMCCallConv);
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
		     b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
			     i = LLVMGetNextInstruction(i))
				if (LLVMIsACallInst(i) &&
				    LLVMGetInstructionCallConv(i) ==
					    LLVMSPIRFUNCCallConv)
					LLVMSetInstructionCallConv(
						i, LLVMCCallConv);
	}
}

/*
 * Variables of the constant address space are constants, as clang marks
 * them (the printf lowering reads formats only from constants); a module
 * need not decorate them Constant.
 */
static void constant_globals(LLVMModuleRef mod)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g;
	     g = LLVMGetNextGlobal(g))
		if (LLVMGetInitializer(g) &&
		    LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 2)
			LLVMSetGlobalConstant(g, 1);
}

/*
 * An executable must define what it imports (Linkage): unmangled
 * functions other than printf and __translate_sampler_initializer (the
 * translator's literal samplers, builtins/image-query.cl) are the
 * module's own, and a module that only declares one is to be compiled
 * and linked with its definition.
 */
static int check_imports(struct job *j, LLVMModuleRef mod)
{
	int r = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		size_t len;
		const char *n = LLVMGetValueName2(f, &len);

		if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f) ||
		    LLVMGetIntrinsicID(f) || (len > 2 && !strncmp(n, "_Z", 2)) ||
		    (len == 6 && !memcmp(n, "printf", 6)) ||
		    (len == 31 &&
		     !memcmp(n, "__translate_sampler_initializer", 31)))
			continue;
		strbuf_printf(j->log, "error: function '%.*s' is imported "
			      "but not defined (compile the module and link "
			      "it with one defining it)\n", (int)len, n);
		r = -ENOEXEC;
	}
	return r;
}

/* An OpenCL C spelling of a parameter's type, for argument info. */
static void type_name(LLVMTypeRef t, char *buf, size_t size)
{
	static const char *const ints[] = { "char", "short", "int", "long" };
	unsigned w;

	switch (LLVMGetTypeKind(t)) {
	case LLVMPointerTypeKind:
		snprintf(buf, size, "void*");
		return;
	case LLVMHalfTypeKind:
		snprintf(buf, size, "half");
		return;
	case LLVMFloatTypeKind:
		snprintf(buf, size, "float");
		return;
	case LLVMDoubleTypeKind:
		snprintf(buf, size, "double");
		return;
	case LLVMIntegerTypeKind:
		w = LLVMGetIntTypeWidth(t);
		snprintf(buf, size, "%s", w == 1 ? "bool" : w == 8 ? ints[0] :
			 w == 16 ? ints[1] : w == 32 ? ints[2] : ints[3]);
		return;
	case LLVMVectorTypeKind: {
		size_t n;

		type_name(LLVMGetElementType(t), buf, size);
		n = strlen(buf);
		snprintf(buf + n, size - n, "%u", LLVMGetVectorSize(t));
		return;
	}
	default:
		snprintf(buf, size, "struct");
	}
}

static LLVMMetadataRef md_str(LLVMContextRef ctx, const char *s)
{
	return LLVMMDStringInContext2(ctx, s, strlen(s));
}

static void set_md(LLVMContextRef ctx, LLVMValueRef fn, const char *kind,
		   LLVMMetadataRef *ops, unsigned n)
{
	unsigned k = LLVMGetMDKindIDInContext(ctx, kind,
					      (unsigned)strlen(kind));

	LLVMGlobalSetMetadata(fn, k, LLVMMDNodeInContext2(ctx, ops, n));
}

static bool has_md(LLVMContextRef ctx, LLVMValueRef fn, const char *kind)
{
	unsigned k = LLVMGetMDKindIDInContext(ctx, kind,
					      (unsigned)strlen(kind));
	LLVMValueMetadataEntry *e;
	size_t n = 0;
	bool found = false;

	e = LLVMGlobalCopyAllMetadata(fn, &n);
	for (size_t i = 0; i < n; i++)
		found |= LLVMValueMetadataEntriesGetKind(e, (unsigned)i) == k;
	if (e)
		LLVMDisposeValueMetadataEntries(e);
	return found;
}

/*
 * The argument information read-kernels needs, where the translator left
 * it out: address spaces and type names from the signature, names from
 * the parameters' names (SPIR-V OpName).
 */
static int kernel_args(LLVMContextRef ctx, LLVMValueRef fn)
{
	unsigned n = LLVMCountParams(fn);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMMetadataRef *as, *ty, *nm, *ac, *tq;
	char buf[64];
	int r = 0;

	if (!n)
		return 0;
	as = calloc(n, sizeof(*as));
	ty = calloc(n, sizeof(*ty));
	nm = calloc(n, sizeof(*nm));
	ac = calloc(n, sizeof(*ac));
	tq = calloc(n, sizeof(*tq));
	if (!as || !ty || !nm || !ac || !tq) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef p = LLVMGetParam(fn, i);
		LLVMTypeRef t = LLVMTypeOf(p);
		unsigned space = LLVMGetTypeKind(t) == LLVMPointerTypeKind ?
					 LLVMGetPointerAddressSpace(t) : 0;
		size_t len;
		const char *name = LLVMGetValueName2(p, &len);

		/* byval structs are private pointers: by value */
		as[i] = LLVMValueAsMetadata(LLVMConstInt(i32, space, 0));
		type_name(t, buf, sizeof(buf));
		ty[i] = md_str(ctx, buf);
		nm[i] = LLVMMDStringInContext2(ctx, name, len);
		ac[i] = md_str(ctx, "none");
		tq[i] = md_str(ctx, "");
	}
	if (!has_md(ctx, fn, "kernel_arg_addr_space"))
		set_md(ctx, fn, "kernel_arg_addr_space", as, n);
	if (!has_md(ctx, fn, "kernel_arg_type"))
		set_md(ctx, fn, "kernel_arg_type", ty, n);
	if (!has_md(ctx, fn, "kernel_arg_base_type"))
		set_md(ctx, fn, "kernel_arg_base_type", ty, n);
	if (!has_md(ctx, fn, "kernel_arg_name"))
		set_md(ctx, fn, "kernel_arg_name", nm, n);
	if (!has_md(ctx, fn, "kernel_arg_access_qual"))
		set_md(ctx, fn, "kernel_arg_access_qual", ac, n);
	if (!has_md(ctx, fn, "kernel_arg_type_qual"))
		set_md(ctx, fn, "kernel_arg_type_qual", tq, n);
out:
	free(as);
	free(ty);
	free(nm);
	free(ac);
	free(tq);
	return r;
}

/*
 * The translator's bitcode made like clang's for the target (with
 * -ffake-address-space-map, whose address space numbers are SPIR's, as
 * the translator's are): the target, C calls, the library's builtin
 * names, constants, full argument information; for an executable,
 * every import defined. Written back to j->bc.
 */
static int fixup(struct job *j, bool object)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef mb = NULL;
	LLVMModuleRef mod = NULL;
	char *err = NULL;
	int r = -EIO;

	if (!ctx)
		return -ENOMEM;
	LLVMContextSetDiagnosticHandler(ctx, accelc_diag_handler, j->log);
	if (LLVMCreateMemoryBufferWithContentsOfFile(j->bc, &mb, &err)) {
		strbuf_printf(j->log, "error: %s\n", err);
		LLVMDisposeMessage(err);
		goto out;
	}
	if (LLVMParseBitcodeInContext2(ctx, mb, &mod)) {
		strbuf_printf(j->log, "error: cannot read the translator's "
			      "bitcode\n");
		goto out;
	}
	if (accelc_builtins_set_target(mod)) {
		strbuf_printf(j->log, "error: cannot read the builtins\n");
		goto out;
	}
	plain_calls(mod);
	rename_builtins(mod);
	constant_globals(mod);
	r = object ? 0 : check_imports(j, mod);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && r == 0;
	     f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) &&
		    LLVMGetFunctionCallConv(f) == LLVMSPIRKERNELCallConv)
			r = kernel_args(ctx, f);
	if (r == 0) {
		unlink(j->bc);
		r = LLVMWriteBitcodeToFile(mod, j->bc) ? -EIO : 0;
	}
out:
	if (mod)
		LLVMDisposeModule(mod);
	if (mb)
		LLVMDisposeMemoryBuffer(mb);
	LLVMContextDispose(ctx);
	return r;
}

/*
 * The capabilities (SPIR-V's numbers) the CPU device implements for
 * OpenCL: the translator reads modules declaring others, or numbers no
 * specification has, without a word.
 */
static bool capability_ok(uint32_t cap)
{
	static const uint32_t ok[] = {
		4,    /* Addresses */
		5,    /* Linkage */
		6,    /* Kernel */
		7,    /* Vector16 */
		8,    /* Float16Buffer */
		9,    /* Float16 */
		10,   /* Float64 */
		11,   /* Int64 */
		12,   /* Int64Atomics */
		13,   /* ImageBasic (builtins/image-*.cl) */
		14,   /* ImageReadWrite */
		18,   /* Groups (work-group collectives) */
		20,   /* LiteralSampler: samplers of the source */
		22,   /* Int16 */
		38,   /* GenericPointer */
		39,   /* Int8 */
		43,   /* Sampled1D */
		44,   /* Image1D */
		46,   /* SampledBuffer */
		47,   /* ImageBuffer */
		/* sub-groups: the cl_khr_subgroup_* extensions, and the
		 * SubgroupSize execution mode (intel_reqd_sub_group_size) */
		58,   /* SubgroupDispatch */
		61,   /* GroupNonUniform */
		62,   /* GroupNonUniformVote */
		63,   /* GroupNonUniformArithmetic */
		64,   /* GroupNonUniformBallot */
		65,   /* GroupNonUniformShuffle */
		66,   /* GroupNonUniformShuffleRelative */
		67,   /* GroupNonUniformClustered */
		/* cl_intel_subgroups: shuffles, buffer block reads/writes */
		5568, /* SubgroupShuffleINTEL */
		5569, /* SubgroupBufferBlockIOINTEL */
		5629, /* ExpectAssumeKHR */
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i] == cap)
			return true;
	return false;
}

/*
 * What can be said of a module before the translator sees it: the
 * header, whole instructions (the translator asserts on a truncated
 * stream) and the capabilities.
 */
static int check_module(struct job *j, const void *il, size_t size)
{
	const unsigned char *p = il;
	size_t n = size / 4;
	uint32_t w[2];

	if (size < 20 || size % 4) {
		strbuf_printf(j->log, "error: a SPIR-V module is a whole "
			      "number of 32-bit words, 5 or more; this one "
			      "is %zu bytes\n", size);
		return -ENOEXEC;
	}
	memcpy(w, il, sizeof(w));
	if (w[0] != SPIRV_MAGIC) {
		strbuf_printf(j->log, "error: not a SPIR-V module (magic "
			      "0x%08" PRIx32 ")%s\n", w[0],
			      __builtin_bswap32(w[0]) == SPIRV_MAGIC ?
				      ": big-endian modules are not read" :
				      "");
		return -ENOEXEC;
	}
	for (size_t i = 5; i < n;) {
		uint32_t op, cap;

		memcpy(&op, p + i * 4, 4);
		if (!(op >> 16) || (op >> 16) > n - i) {
			strbuf_printf(j->log, "error: SPIR-V module truncated "
				      "or malformed: the instruction at word "
				      "%zu has %" PRIu32 " words, %zu are "
				      "left\n", i, op >> 16, n - i);
			return -ENOEXEC;
		}
		if ((op & 0xffff) == 17 && (op >> 16) >= 2) {
			memcpy(&cap, p + (i + 1) * 4, 4);
			if (!capability_ok(cap)) {
				strbuf_printf(j->log, "error: SPIR-V "
					      "capability %" PRIu32 " is not "
					      "supported by this device\n",
					      cap);
				return -ENOEXEC;
			}
		}
		i += op >> 16;
	}
	return 0;
}

static int check_spec(struct job *j, uint32_t n,
		      const struct accelc_spec_const *spec)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = spec[i].size;

		if (s != 1 && s != 2 && s != 4 && s != 8) {
			strbuf_printf(j->log, "error: specialization constant "
				      "%" PRIu32 ": size %" PRIu32 " (1, 2, 4 "
				      "or 8)\n", spec[i].id, s);
			return -EINVAL;
		}
	}
	return 0;
}

int accelc_compile_il(const struct accelc_options *opts, const void *il,
		      size_t size, uint32_t n_spec,
		      const struct accelc_spec_const *spec, uint32_t flags,
		      struct accelc_result **ret)
{
	struct strbuf log = { 0 };
	char *tool = NULL, *spv = NULL;
	struct job j;
	int r;

	if (!il || !ret || (n_spec && !spec) || (flags & ~ACCELC_IL_OBJECT))
		return -EINVAL;
	r = job_start(&j, opts, &log);
	if (r)
		return r;
	/* objects are quick to make; their links are cached */
	if (flags & ACCELC_IL_OBJECT)
		j.o.flags |= ACCELC_FLAG_NO_CACHE;
	r = job_prepare(&j);
	if (r == 0)
		r = check_module(&j, il, size);
	if (r == 0)
		r = check_spec(&j, n_spec, spec);
	if (r == 0 && accelc_find_translator(&tool) < 0) {
		strbuf_printf(&log, "error: no SPIR-V translator "
			      "(llvm-spirv-15) found (set ACCEL_LLVM_SPIRV)\n");
		r = -ENOENT;
	}
	if (r == 0 && j.cache.dirfd >= 0 &&
	    accelc_cache_key_il(j.clang, j.codegen, tool, &j.o, j.cpu,
				j.features, il, size, n_spec, spec,
				j.cache.key) == 0 &&
	    job_cache_probe(&j))
		goto out;
	if (r == 0)
		r = job_files(&j, NULL, 0);
	if (r == 0 && asprintf(&spv, "%s/module.spv", j.dir) < 0)
		r = -ENOMEM;
	if (r == 0)
		r = accelc_write_file(spv, il, size);
	if (r == 0) {
		uint64_t t = job_now_ns();

		r = translate(&j, tool, spv, n_spec, spec);
		job_time(&j, "llvm-spirv", t);
	}
	if (r == 0)
		r = fixup(&j, flags & ACCELC_IL_OBJECT);
	if (r == 0 && (flags & ACCELC_IL_OBJECT))
		r = job_object(&j);
	else if (r == 0)
		r = job_codegen(&j);
out:
	free(spv);
	free(tool);
	return job_finish(&j, r, ret);
}

int accelc_il_available(void)
{
	char *tool = NULL;
	int r = accelc_find_translator(&tool);

	free(tool);
	return r == 0;
}
