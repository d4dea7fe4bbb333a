/* SPDX-License-Identifier: MIT */
/* Linking the builtins, optimising for the host CPU, emitting an object
 * and linking it into a shared object. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "accelc-private.h"
#include "link-line.h"
#include "o3-pipeline.h"
#include "target-arch.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

void accelc_llvm_init(void)
{
	pthread_once(&init_once, accelc_arch_init_llvm);
}

int accelc_host_cpu(char **name, char **features)
{
	char *n = LLVMGetHostCPUName(), *f = LLVMGetHostCPUFeatures();

	*name = n ? strdup(n) : NULL;
	*features = f ? accelc_arch_host_features(f) : NULL;
	LLVMDisposeMessage(n);
	LLVMDisposeMessage(f);
	if (!*name || !*features) {
		free(*name);
		free(*features);
		*name = *features = NULL;
		return -ENOMEM;
	}
	return 0;
}

int accelc_link_bitcode(LLVMModuleRef mod, const char *start,
			const char *end, const char *what, bool only_needed,
			struct strbuf *log)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(
		start, (size_t)(end - start), what, 0);
	LLVMModuleRef src;

	if (!mb)
		return -ENOMEM;
	/* lazily: only the functions the program calls are materialised */
	if (LLVMGetBitcodeModuleInContext2(ctx, mb, &src)) {
		LLVMDisposeMemoryBuffer(mb);
		strbuf_printf(log, "error: cannot read the %s\n", what);
		return -EIO;
	}
	/* linkonce_odr: the linker takes only what is referenced */
	for (LLVMValueRef f = LLVMGetFirstFunction(src); only_needed && f;
	     f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) &&
		    LLVMGetLinkage(f) == LLVMExternalLinkage)
			LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
	if (LLVMLinkModules2(mod, src)) {
		strbuf_printf(log, "error: linking the %s failed\n", what);
		return -EIO;
	}
	return 0;
}

int accelc_link_builtins(LLVMModuleRef mod, bool fibers, struct strbuf *log)
{
	if (!fibers)
		return accelc_link_builtin_chunks(mod, log);
	return accelc_link_bitcode(mod, accelc_fiber_bc, accelc_fiber_bc_end,
				   "fiber runtime", false, log);
}

/* clang's defaults (the architecture's baseline) become the CPU this
 * code runs on */
static void set_target_attrs(LLVMModuleRef mod, const char *cpu,
			     const char *features, bool fast_math)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
	LLVMAttributeRef a_cpu = LLVMCreateStringAttribute(
		c, "target-cpu", 10, cpu, strlen(cpu));
	LLVMAttributeRef a_tune = LLVMCreateStringAttribute(
		c, "tune-cpu", 8, cpu, strlen(cpu));
	LLVMAttributeRef a_feat = LLVMCreateStringAttribute(
		c, "target-features", 15, features, strlen(features));
	LLVMAttributeRef a_vec = LLVMCreateStringAttribute(
		c, "min-legal-vector-width", 22, "0", 1);

	/*
	 * Relaxed math lets the x86 backend turn x / y into a reciprocal
	 * estimate (rcpps, 12 bits) and one Newton step: up to 3 ulp, where
	 * OpenCL allows 2.5 for x / y and 1 / x. Two steps stay within 1.3 ulp.
	 */
	static const char recip[] = "divf:2,vec-divf:2";
	LLVMAttributeRef a_recip = LLVMCreateStringAttribute(
		c, "reciprocal-estimates", 20, recip, sizeof(recip) - 1);

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a_cpu);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a_tune);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a_feat);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a_vec);
		if (fast_math)
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						a_recip);
		/* nothing convergent is left once barriers are lowered, and
		 * the attribute would block unrolling and unswitching */
		LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					       conv);
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
			     i = LLVMGetNextInstruction(i))
				if (LLVMIsACallInst(i))
					LLVMRemoveCallSiteEnumAttribute(
						i, LLVMAttributeFunctionIndex,
						conv);
	}
}

/*
 * Appends @p f to @llvm.compiler.used (the C API has no helper). The list
 * grows with the libmvec table times the ISAs (three at x86-64-v4): a
 * variant left out of it is gone before the vectoriser looks for it.
 */
static void append_compiler_used(LLVMModuleRef mod, LLVMValueRef f)
{
	LLVMValueRef old = LLVMGetNamedGlobal(mod, "llvm.compiler.used");
	LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(mod),
						   0);
	LLVMValueRef init = old ? LLVMGetInitializer(old) : NULL;
	int k = init ? LLVMGetNumOperands(init) : 0;
	LLVMValueRef *elems = malloc(((size_t)k + 1) * sizeof(*elems));
	LLVMValueRef arr, g;

	if (!elems)
		return; /* the scalar call stays: slower, still right */
	for (int i = 0; i < k; i++)
		elems[i] = LLVMGetOperand(init, i);
	elems[k] = f;
	if (old)
		LLVMDeleteGlobal(old);
	arr = LLVMConstArray(ptr, elems, (unsigned)k + 1);
	free(elems);
	g = LLVMAddGlobal(mod, LLVMTypeOf(arr), "llvm.compiler.used");
	LLVMSetInitializer(g, arr);
	LLVMSetLinkage(g, LLVMAppendingLinkage);
	LLVMSetSection(g, "llvm.metadata");
}

/*
 * Vector math through glibc's libmvec: calls to sin/cos/exp/log/pow get
 * the "vector-function-abi-variant" attribute naming the libmvec entry
 * points this CPU can run (libmvec.c), so the loop vectoriser widens them
 * (per module, no global -vector-library option). Every narrower ISA's
 * variant is offered too: an AVX-512 CPU that prefers 256-bit vectors
 * vectorises float loops 8 wide and needs the AVX2 variant then, or it
 * calls the scalar function 8 times.
 */
static void add_vector_variants(LLVMModuleRef mod, const char *features)
{
	const struct accelc_vec_isa *isas;
	size_t n_isas = accelc_vec_isas(features, &isas);
	LLVMContextRef c = LLVMGetModuleContext(mod);
	LLVMTypeRef f32 = LLVMFloatTypeInContext(c);
	LLVMTypeRef f64 = LLVMDoubleTypeInContext(c);
	for (size_t i = 0; i < accelc_n_vec_fns; i++) {
		const struct accelc_vec_fn *v = &accelc_vec_fns[i];
		LLVMValueRef f = LLVMGetNamedFunction(mod, v->name);
		char attr[512];
		size_t len = 0;
		LLVMAttributeRef a;

		if (!f || !LLVMGetFirstUse(f))
			continue;
		for (size_t k = 0; k < n_isas; k++) {
			unsigned n = v->dbl ? isas[k].lanes / 2 :
					      isas[k].lanes;
			LLVMTypeRef vt = LLVMVectorType(v->dbl ? f64 : f32, n);
			LLVMTypeRef params[2] = { vt, vt };
			char vname[64];

			accelc_vec_variant_name(v, isas[k].isa, isas[k].lanes,
						vname, sizeof(vname));
			len += (size_t)snprintf(attr + len, sizeof(attr) - len,
						"%s_ZGV_LLVM_N%u%s_%s(%s)",
						len ? "," : "", n,
						v->nargs == 2 ? "vv" : "v",
						v->name, vname);
			if (!LLVMGetNamedFunction(mod, vname)) {
				LLVMValueRef vf = LLVMAddFunction(
					mod, vname,
					LLVMFunctionType(vt, params, v->nargs,
							 0));

				/* kept until the vectoriser had its chance */
				append_compiler_used(mod, vf);
			}
		}
		a = LLVMCreateStringAttribute(c, "vector-function-abi-variant",
					      27, attr, strlen(attr));
		for (LLVMUseRef u = LLVMGetFirstUse(f); u;
		     u = LLVMGetNextUse(u)) {
			LLVMValueRef call = LLVMGetUser(u);

			if (LLVMIsACallInst(call) &&
			    LLVMGetCalledValue(call) == f)
				LLVMAddCallSiteAttribute(
					call, LLVMAttributeFunctionIndex, a);
		}
	}
}

/* Bits of @p t if it is a vector, else 0. */
static unsigned vector_bits(LLVMTargetDataRef td, LLVMTypeRef t)
{
	if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
		return 0;
	return (unsigned)LLVMSizeOfTypeInBits(td, t);
}

/* The widest vector @p f takes or returns. */
static unsigned signature_bits(LLVMTargetDataRef td, LLVMTypeRef fty)
{
	unsigned w = vector_bits(td, LLVMGetReturnType(fty));
	unsigned n = LLVMCountParamTypes(fty);
	LLVMTypeRef params[64];

	if (n > 64)
		return 512; /* no vector call ABI has that many: be safe */
	LLVMGetParamTypes(fty, params);
	for (unsigned i = 0; i < n; i++) {
		unsigned b = vector_bits(td, params[i]);

		w = b > w ? b : w;
	}
	return w;
}

/*
 * Vector arguments and return values travel in registers only as wide as
 * the caller's "min-legal-vector-width" allows where the CPU prefers
 * 256-bit vectors (Intel's AVX-512 CPUs, x86-64-v4): a <16 x float> is
 * then split into two ymm registers, while glibc's 512-bit libmvec
 * variants (_ZGVe*) read one zmm register per argument. Clang raises the
 * attribute to the widest vector a function passes; the loop vectoriser
 * adds such calls after set_target_attrs(), so do the same here, after
 * optimisation and before code generation, for callers and callees alike.
 */
static void raise_legal_vector_width(LLVMModuleRef mod,
				     LLVMTargetMachineRef tm)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		unsigned w;
		char num[16];

		if (LLVMIsDeclaration(f))
			continue;
		w = signature_bits(td, LLVMGlobalGetValueType(f));
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
			     i = LLVMGetNextInstruction(i)) {
				unsigned b;

				if (!LLVMIsACallInst(i))
					continue;
				b = signature_bits(td,
						   LLVMGetCalledFunctionType(i));
				w = b > w ? b : w;
			}
		if (!w)
			continue;
		snprintf(num, sizeof(num), "%u", w);
		LLVMAddAttributeAtIndex(
			f, LLVMAttributeFunctionIndex,
			LLVMCreateStringAttribute(c, "min-legal-vector-width",
						  22, num, strlen(num)));
	}
	LLVMDisposeTargetData(td);
}

int accelc_create_tm(const char *cpu, const char *features, bool opt,
		     LLVMTargetMachineRef *ret, struct strbuf *log)
{
	LLVMTargetRef t;
	char *err = NULL;

	accelc_llvm_init();
	if (LLVMGetTargetFromTriple(accelc_arch_triple, &t, &err)) {
		strbuf_printf(log, "error: %s\n", err);
		LLVMDisposeMessage(err);
		return -EIO;
	}
	*ret = LLVMCreateTargetMachine(t, accelc_arch_triple, cpu, features,
				       opt ? LLVMCodeGenLevelAggressive :
					     LLVMCodeGenLevelNone,
				       LLVMRelocPIC, LLVMCodeModelDefault);
	return *ret ? 0 : -EIO;
}

/* empty when the build found no opt to spell them (o3-pipeline.h) */
static const char o3_simplify[] = ACCELC_O3_SIMPLIFY;
static const char o3_optimise[] = ACCELC_O3_OPTIMISE;

int accelc_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		    const char *cpu, const char *features, bool opt,
		    bool fast_math, bool split_vectors, struct strbuf *log)
{
	LLVMPassBuilderOptionsRef o;
	LLVMErrorRef e;
	char *err = NULL;
	int r = 0;

	set_target_attrs(mod, cpu, features, fast_math);
	if (opt)
		add_vector_variants(mod, features);
	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
		strbuf_printf(log, "error: internal: invalid IR: %.2000s\n",
			      err);
		LLVMDisposeMessage(err);
		return -EIO;
	}
	LLVMDisposeMessage(err);
	o = LLVMCreatePassBuilderOptions();
	LLVMPassBuilderOptionsSetLoopVectorization(o, opt);
	LLVMPassBuilderOptionsSetSLPVectorization(o, opt);
	LLVMPassBuilderOptionsSetLoopInterleaving(o, opt);
	LLVMPassBuilderOptionsSetLoopUnrolling(o, opt);
	/*
	 * globaldce also at O0: unused internal code must go, above all the
	 * fiber runtime of kernels that run as regions, whose thread-local
	 * stack cache would pin the object until every worker thread exits.
	 */
	if (opt && o3_simplify[0]) {
		/*
		 * default<O3> in its halves: between them, address-space
		 * casts folded (flat-casts.c), vectors split and width hints
		 * for the loops of math calls (vector-calls.c)
		 */
		e = LLVMRunPasses(mod, o3_simplify, tm, o);
		if (!e)
			r = accelc_flat_casts(mod);
		if (!e && !r && split_vectors)
			r = accelc_split_vectors(mod, tm, log);
		if (!e && !r)
			accelc_vector_calls(mod, LLVMGetMDKindIDInContext(
				LLVMGetModuleContext(mod), "llvm.loop", 9));
		if (!e && !r)
			e = LLVMRunPasses(mod, o3_optimise, tm, o);
	} else {
		e = LLVMRunPasses(mod, opt ? "default<O3>" :
				  "default<O0>,globaldce", tm, o);
	}
	LLVMDisposePassBuilderOptions(o);
	if (!e && !r && opt)
		accelc_splat_gathers(mod);
	if (r)
		return r;
	if (e) {
		char *msg = LLVMGetErrorMessage(e);

		strbuf_printf(log, "error: optimiser: %s\n", msg);
		LLVMDisposeErrorMessage(msg);
		return -EIO;
	}
	raise_legal_vector_width(mod, tm);
	return 0;
}

int accelc_emit(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		LLVMCodeGenFileType type, LLVMMemoryBufferRef *ret,
		struct strbuf *log)
{
	char *err = NULL;

	if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, type, &err, ret)) {
		strbuf_printf(log, "error: code generation: %s\n", err);
		LLVMDisposeMessage(err);
		return -EIO;
	}
	return 0;
}

/*
 * "max-page-size=N" for this machine's page size. Linkers align segments
 * to the architecture's largest page otherwise (64 KiB on AArch64): the
 * gaps between them cost a mapping each, and a process holding thousands
 * of programs reaches vm.max_map_count. The cache key holds the page size
 * and a binary's check compares it (accelc_elf_check_pages()).
 */
static void max_page_size(char *buf, size_t size)
{
	snprintf(buf, size, "max-page-size=%ld", sysconf(_SC_PAGESIZE));
}

/*
 * The driver's link line recorded at build time (link-line.h), for the
 * clang it was recorded with: its placeholders become @obj (and @obj2)
 * and @so. False if there is none to use.
 */
static bool direct_link(struct argv *a, const char *clang, const char *obj,
			const char *obj2, const char *so)
{
	bool in = false, out = false;
	char page[32];

	if (!accelc_ld_argv[0] || strcmp(clang, ACCELC_LD_CLANG) ||
	    access(accelc_ld_argv[0], X_OK))
		return false;
	for (size_t i = 0; accelc_ld_argv[i]; i++) {
		const char *s = accelc_ld_argv[i];

		if (!strcmp(s, ACCELC_LD_OBJ)) {
			argv_add(a, obj);
			if (obj2)
				argv_add(a, obj2);
			in = true;
		} else if (!strcmp(s, ACCELC_LD_SO)) {
			argv_add(a, so);
			out = true;
		} else {
			argv_add(a, s);
		}
	}
	max_page_size(page, sizeof(page));
	argv_add(a, "-z");
	argv_add(a, page);
	return in && out;
}

/*
 * The text of a GNU ld quote, `NAME', that starts at @p q (after the
 * backquote), up to @p end: its length, or 0 if it does not close.
 */
static size_t quoted(const char *q, const char *end)
{
	const char *close = memchr(q, '\'', (size_t)(end - q));

	return close ? (size_t)(close - q) : 0;
}

/*
 * The caller of an undefined symbol, as the program names it: a kernel's
 * work-group functions (K__wg, K__wg_id32, ...) are kernel K.
 */
static void say_caller(const char *fn, size_t len, struct strbuf *log)
{
	const char *wg = memmem(fn, len, "__wg", 4);

	if (wg)
		strbuf_printf(log, " (called in kernel '%.*s')",
			      (int)(wg - fn), fn);
	else
		strbuf_printf(log, " (called in '%.*s')", (int)len, fn);
}

/*
 * A link that failed on undefined symbols only is the program's fault:
 * a function declared and called but defined nowhere. Say so in the
 * program's terms, once per symbol, without the linker's temporary
 * paths. GNU ld says "OBJ: in function `CALLER':" before the references
 * it makes, then "...: undefined reference to `SYMBOL'" for each; linking
 * through clang's driver adds its "linker command failed". False (nothing
 * said) for any other failure.
 */
static bool explain_undefined(const struct strbuf *out, struct strbuf *log)
{
	static const char undef[] = "undefined reference to `";
	static const char in_fn[] = ": in function `";
	const char *p = out->buf, *end = out->buf + out->len;
	const char *caller = NULL;
	size_t caller_len = 0;
	struct strbuf msg = { 0 };
	bool any = false;

	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *u, *f;

		if (!eol)
			eol = end;
		u = memmem(p, (size_t)(eol - p), undef, sizeof(undef) - 1);
		f = memmem(p, (size_t)(eol - p), in_fn, sizeof(in_fn) - 1);
		if (u) {
			char *seen = NULL;
			size_t n;

			u += sizeof(undef) - 1;
			n = quoted(u, eol);
			if (!n)
				goto other;
			if (asprintf(&seen, "'%.*s' is called", (int)n, u) < 0)
				goto other;
			if (!msg.buf || !strstr(msg.buf, seen)) {
				if (any)
					strbuf_printf(&msg, "\n");
				strbuf_printf(&msg, "error: %s but not defined "
					      "in the program", seen);
				if (caller)
					say_caller(caller, caller_len, &msg);
				any = true;
			}
			free(seen);
		} else if (f) {
			caller = f + sizeof(in_fn) - 1;
			caller_len = quoted(caller, eol);
			if (!caller_len)
				caller = NULL;
		} else if (eol > p && !memmem(p, (size_t)(eol - p),
					      "linker command failed", 21)) {
			goto other;
		}
		p = eol + 1;
	}
	if (any && msg.buf)
		strbuf_printf(log, "%s\n", msg.buf);
	strbuf_free(&msg);
	return any;
other:
	strbuf_free(&msg);
	return false;
}

/*
 * Run a link: 0, a negative errno (-ENOEXEC: the program calls what it
 * does not define, said in @log), or > 0 when the linker failed (its
 * output in @log).
 */
static int run_linker(char *const argv[], uint32_t timeout_ms,
		      struct strbuf *log)
{
	struct strbuf out = { 0 };
	int r = accelc_spawn(argv, &out, timeout_ms);

	if (r > 0 && explain_undefined(&out, log))
		r = -ENOEXEC;
	else if (out.len)
		strbuf_append(log, out.buf, out.len);
	strbuf_free(&out);
	return r;
}

int accelc_link_so(const char *clang, const char *obj, const char *obj2,
		   const char *so, uint32_t timeout_ms, struct strbuf *log)
{
	struct argv a = { 0 };
	char page[48] = "-Wl,-z,";
	int r;

	if (direct_link(&a, clang, obj, obj2, so) && !a.oom) {
		r = run_linker(a.v, timeout_ms, log);
		argv_free(&a);
		if (r <= 0)
			return r;
		/* the system changed since the build: ask the driver */
		strbuf_printf(log, "note: the linker as recorded failed, "
			      "linking through %s\n", clang);
	}
	argv_free(&a);
	argv_add(&a, clang);
	argv_add(&a, "-target");
	argv_add(&a, accelc_arch_triple);
	argv_add(&a, "-shared");
	argv_add(&a, "-fuse-ld=bfd");
	argv_add(&a, "-Wl,-z,defs");
	argv_add(&a, "-Wl,-z,noexecstack");
	argv_add(&a, "-Wl,-z,now");
	argv_add(&a, "-Wl,--as-needed");
	max_page_size(page + strlen(page), sizeof(page) - strlen(page));
	argv_add(&a, page);
	argv_add(&a, "-o");
	argv_add(&a, so);
	argv_add(&a, obj);
	if (obj2)
		argv_add(&a, obj2);
	if (accelc_n_vec_fns)
		argv_add(&a, "-lmvec");
	argv_add(&a, "-lm");
	if (a.oom) {
		argv_free(&a);
		return -ENOMEM;
	}
	r = run_linker(a.v, timeout_ms, log);
	argv_free(&a);
	if (r > 0) {
		strbuf_printf(log, "error: linking the shared object failed\n");
		return -EIO;
	}
	return r;
}
