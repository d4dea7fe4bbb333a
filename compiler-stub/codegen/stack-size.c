/* SPDX-License-Identifier: MIT */
/*
 * Private memory: the stack each kernel's work-group function needs.
 *
 * The code generator knows every function's frame; LLVM reports it for
 * functions carrying "warn-stack-size" (clang's -Wframe-larger-than) as a
 * diagnostic, which a limit of 0 turns on for every function with a frame.
 * A kernel's need is then the deepest chain of frames through the call
 * graph of the final module: callees outside it (libm, libmvec, libc)
 * count STACK_EXTERN, an indirect call (only the fiber runtime makes one,
 * to a work-item function) the largest function whose address is taken.
 *
 * Recursion has no bound: OpenCL C does not allow it (a restriction of
 * the language) and a build with it fails here, before optimisation,
 * whatever the optimiser would make of it. A dynamic alloca
 * (__builtin_alloca) leaves the need unbounded too: the kernel is flagged
 * ACCELC_KERNEL_STACK_UNKNOWN and its size is a lower bound. The
 * context arrays of kernels with barriers (wg-context.c) are dynamic
 * allocas of a known size per work-item, counted in private_per_item.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include <libaccel/accel-wg.h>

#include "accelc-private.h"
#include "cache.h"
#include "job.h"
#include "runtime/fiber-stack.h"
#include "target-arch.h"

/* what a call out of the module may use: glibc's libm and libmvec */
#define STACK_EXTERN 8192u
/* each frame's return address, which LLVM's frame size leaves out */
#define RETURN_ADDRESS 8u
/* what the deepest function (a leaf) may use below the stack pointer */
#define RED_ZONE accelc_arch_red_zone

/* Name of @p f as a NUL-terminated copy; NULL without memory. */
static char *fn_name(LLVMValueRef f)
{
	size_t n;
	const char *s = LLVMGetValueName2(f, &n);

	return strndup(s, n);
}

/* ---- recursion ---------------------------------------------------------- */

/* The defined function @p call calls directly, or NULL. */
static LLVMValueRef direct_callee(LLVMValueRef call)
{
	LLVMValueRef f = LLVMGetCalledValue(call);

	if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f))
		return NULL;
	return f;
}

struct frame {
	LLVMValueRef fn;
	LLVMBasicBlockRef bb;
	LLVMValueRef inst;
};

/* Depth-first walk state: 0 unseen, 1 on the path, 2 done. */
struct walk {
	LLVMValueRef *fns;
	uint8_t *state;
	size_t n;
};

static size_t fn_index(const struct walk *w, LLVMValueRef f)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)w->fns[mid] < (uintptr_t)f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (LLVMValueRef const *)a;
	uintptr_t y = (uintptr_t) * (LLVMValueRef const *)b;

	return x < y ? -1 : x > y;
}

/* The module's defined functions, sorted by address (for fn_index). */
static int walk_init(struct walk *w, LLVMModuleRef mod)
{
	size_t cap = 0;

	memset(w, 0, sizeof(*w));
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		if (w->n == cap) {
			LLVMValueRef *nf;

			cap = cap ? cap * 2 : 64;
			nf = realloc(w->fns, cap * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			w->fns = nf;
		}
		w->fns[w->n++] = f;
	}
	if (w->n)
		qsort(w->fns, w->n, sizeof(*w->fns), cmp_ptr);
	w->state = calloc(w->n ? w->n : 1, 1);
	return w->state ? 0 : -ENOMEM;
}

static void walk_free(struct walk *w)
{
	free(w->fns);
	free(w->state);
}

/* The next call instruction at or after @p fr's position, or NULL. */
static LLVMValueRef next_call(struct frame *fr)
{
	while (fr->bb) {
		while (fr->inst) {
			LLVMValueRef i = fr->inst;

			fr->inst = LLVMGetNextInstruction(i);
			if (LLVMIsACallInst(i) || LLVMIsAInvokeInst(i))
				return i;
		}
		fr->bb = LLVMGetNextBasicBlock(fr->bb);
		fr->inst = fr->bb ? LLVMGetFirstInstruction(fr->bb) : NULL;
	}
	return NULL;
}

static void frame_start(struct frame *fr, LLVMValueRef f)
{
	fr->fn = f;
	fr->bb = LLVMGetFirstBasicBlock(f);
	fr->inst = fr->bb ? LLVMGetFirstInstruction(fr->bb) : NULL;
}

/*
 * Find a cycle of direct calls from @p root; an explicit stack, so that a
 * long chain of calls cannot exhaust this thread's. @return 0, 1 with the
 * function closing the cycle in *@p ret, or -ENOMEM.
 */
static int find_cycle(struct walk *w, LLVMValueRef root, LLVMValueRef *ret)
{
	struct frame *st;
	size_t depth = 0;

	if (w->state[fn_index(w, root)])
		return 0;
	st = malloc(w->n * sizeof(*st));
	if (!st)
		return -ENOMEM;
	frame_start(&st[depth++], root);
	w->state[fn_index(w, root)] = 1;
	while (depth) {
		struct frame *fr = &st[depth - 1];
		LLVMValueRef call = next_call(fr), g;
		size_t gi;

		if (!call) {
			w->state[fn_index(w, fr->fn)] = 2;
			depth--;
			continue;
		}
		g = direct_callee(call);
		if (!g)
			continue;
		gi = fn_index(w, g);
		if (w->state[gi] == 1) {
			*ret = g;
			free(st);
			return 1;
		}
		if (w->state[gi] == 0) {
			w->state[gi] = 1;
			frame_start(&st[depth++], g);
		}
	}
	free(st);
	return 0;
}

int accelc_check_recursion(LLVMModuleRef mod, struct strbuf *log)
{
	struct walk w;
	int r = walk_init(&w, mod);

	for (size_t i = 0; r == 0 && i < w.n; i++) {
		LLVMValueRef f;

		r = find_cycle(&w, w.fns[i], &f);
		if (r == 1) {
			char *name = fn_name(f);

			strbuf_printf(log,
				      "error: function '%s' calls itself, "
				      "directly or through other functions: "
				      "OpenCL C does not allow recursion\n",
				      name ? name : "?");
			free(name);
			r = -ENOEXEC;
		}
	}
	walk_free(&w);
	return r;
}

/* ---- frame sizes from the code generator -------------------------------- */

struct frame_size {
	char *name;
	uint64_t bytes;
};

static void record(struct accelc_stack *s, const char *msg)
{
	const char *p = strstr(msg, "stack frame size ("), *q, *e;
	struct frame_size *nf;
	char *end;
	uint64_t bytes;

	if (!p)
		return;
	bytes = strtoull(p + 18, &end, 10);
	if (end == p + 18 || *end != ')')
		return;
	/* "... in function 'NAME'" (LLVM 16), "... in 'NAME'" (later) */
	q = strchr(end, '\'');
	e = q ? strrchr(q + 1, '\'') : NULL;
	if (!e)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		nf = realloc(s->sizes, cap * sizeof(*nf));
		if (!nf) {
			s->oom = true;
			return;
		}
		s->sizes = nf;
		s->cap = cap;
	}
	s->sizes[s->n].name = strndup(q + 1, (size_t)(e - q - 1));
	if (!s->sizes[s->n].name) {
		s->oom = true;
		return;
	}
	s->sizes[s->n++].bytes = bytes;
}

/* Frame sizes are collected; everything else goes to the build log. */
static void stack_diag(LLVMDiagnosticInfoRef di, void *data)
{
	struct accelc_stack *s = data;
	char *msg;

	if (LLVMGetDiagInfoSeverity(di) != LLVMDSWarning) {
		/* LLVM's remark after each size: spills and variables */
		accelc_diag_handler(di, s->log);
		return;
	}
	msg = LLVMGetDiagInfoDescription(di);
	if (msg && strstr(msg, "stack frame size (") &&
	    strstr(msg, "exceeds limit (0)"))
		record(s, msg);
	else
		accelc_diag_handler(di, s->log);
	LLVMDisposeMessage(msg);
}

/*
 * Stack probes too: a frame larger than a page touches each page in
 * turn, so that a stack too small for it ends on its guard page, not in
 * whatever is mapped below.
 */
void accelc_stack_prepare(LLVMModuleRef mod, struct accelc_stack *s)
{
	LLVMContextRef c = LLVMGetModuleContext(mod);
	LLVMAttributeRef warn = LLVMCreateStringAttribute(c, "warn-stack-size",
							  15, "0", 1);
	LLVMAttributeRef probe = LLVMCreateStringAttribute(c, "probe-stack", 11,
							   "inline-asm", 10);

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, probe);
		if (s->measure)
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						warn);
	}
	if (s->measure)
		LLVMContextSetDiagnosticHandler(c, stack_diag, s);
}

/* "8/24 (33.33%) spills, 16/24 (66.67%) variables" */
static bool spills_line(const char *l, size_t n)
{
	unsigned long a, b;
	char buf[128];
	int end = 0;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, l, n);
	buf[n] = '\0';
	return sscanf(buf, "%lu/%lu (%*[0-9.]%%) spills,%n", &a, &b, &end) ==
		       2 && end > 0;
}

void accelc_stack_copy_stderr(const char *path, struct strbuf *log)
{
	char *text = NULL;
	const char *line, *next;
	size_t len;

	if (accelc_read_file(path, (void **)&text, &len) || !text)
		return;
	for (line = text; line < text + len; line = next) {
		const char *nl = memchr(line, '\n', (size_t)(text + len - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(text + len - line);

		next = line + n + (nl != NULL);
		if (spills_line(line, n))
			continue;
		strbuf_append(log, line, n);
		strbuf_append(log, "\n", 1);
	}
	free(text);
}

static int cmp_size(const void *a, const void *b)
{
	const struct frame_size *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* the largest first among equal names (emitted twice: -S and -c) */
	return c ? c : (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

static uint64_t frame_of(const struct accelc_stack *s, LLVMValueRef f)
{
	struct frame_size key, *hit;
	size_t lo = 0, hi = s->n;

	key.name = fn_name(f);
	if (!key.name)
		return 0;
	/* lower bound: the first (largest) entry of the name */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->sizes[mid].name, key.name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	hit = lo < s->n && !strcmp(s->sizes[lo].name, key.name) ?
		      &s->sizes[lo] : NULL;
	free(key.name);
	return hit ? hit->bytes : 0;
}

/* ---- the deepest chain -------------------------------------------------- */

/* Per function: its need once known, and whether it is unbounded. */
struct need {
	uint64_t bytes;
	bool unbounded;
};

/*
 * Whether @p f has a dynamic alloca other than the context arrays: an
 * alloca outside the entry block or of a size that is not a constant.
 */
static bool has_dynamic_alloca(LLVMValueRef f, unsigned ctx_kind)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			if (!LLVMIsAAllocaInst(i) ||
			    LLVMGetMetadata(i, ctx_kind))
				continue;
			if (bb != entry ||
			    !LLVMIsAConstantInt(LLVMGetOperand(i, 0)))
				return true;
		}
	return false;
}

/* A function's address is taken: it has a use other than being called. */
static bool address_taken(LLVMValueRef f)
{
	for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != f)
			return true;
	}
	return false;
}

struct chain {
	const struct accelc_stack *s;
	struct walk w;
	struct need *need;
	unsigned ctx_kind;
	/* what an indirect call may reach; computed before the rest */
	struct need indirect;
};

static void combine(struct need *acc, struct need callee)
{
	if (callee.bytes > acc->bytes)
		acc->bytes = callee.bytes;
	acc->unbounded |= callee.unbounded;
}

/*
 * Math intrinsics that code generation makes libm calls of (powf, sinf,
 * ...) unless the target has an instruction: where no libmvec variant
 * replaced them (AArch64 has none), they are calls out of the module.
 */
static bool libm_intrinsic(const char *name)
{
	static const char *const libm[] = {
		"llvm.sin.", "llvm.cos.", "llvm.pow.", "llvm.powi.",
		"llvm.exp.", "llvm.exp2.", "llvm.log.", "llvm.log2.",
		"llvm.log10.",
	};

	for (size_t i = 0; i < sizeof(libm) / sizeof(libm[0]); i++)
		if (!strncmp(name, libm[i], strlen(libm[i])))
			return true;
	return false;
}

/* What calling @p call adds below the caller's frame. */
static bool callee_need(struct chain *ch, LLVMValueRef call,
			struct need *ret, LLVMValueRef *ret_fn)
{
	LLVMValueRef g = LLVMGetCalledValue(call);
	size_t n;
	const char *name;

	*ret_fn = NULL;
	ret->bytes = 0;
	ret->unbounded = false;
	if (!g || !LLVMIsAFunction(g)) {
		*ret = ch->indirect;
		return true;
	}
	if (LLVMIsDeclaration(g)) {
		name = LLVMGetValueName2(g, &n);
		/* intrinsics are instructions, not calls, but for mem*() and
		 * the math the backend turns into libm calls */
		if (n > 5 && !strncmp(name, "llvm.", 5) &&
		    strncmp(name, "llvm.mem", 8) && !libm_intrinsic(name))
			return true;
		ret->bytes = STACK_EXTERN;
		return true;
	}
	*ret_fn = g;
	return false;
}

/* The need of @p root, every function below it computed on the way. */
static int chain_need(struct chain *ch, LLVMValueRef root)
{
	struct walk *w = &ch->w;
	struct frame *st;
	size_t depth = 0, ri = fn_index(w, root);

	if (w->state[ri] == 2)
		return 0;
	st = malloc(w->n * sizeof(*st));
	if (!st)
		return -ENOMEM;
	frame_start(&st[depth++], root);
	w->state[ri] = 1;
	ch->need[ri].bytes = 0;
	ch->need[ri].unbounded = has_dynamic_alloca(root, ch->ctx_kind);
	while (depth) {
		struct frame *fr = &st[depth - 1];
		size_t fi = fn_index(w, fr->fn), gi;
		LLVMValueRef call = next_call(fr), g;
		struct need cn;

		if (!call) {
			ch->need[fi].bytes +=
				frame_of(ch->s, fr->fn) + RETURN_ADDRESS;
			w->state[fi] = 2;
			depth--;
			if (depth)
				combine(&ch->need[fn_index(w, st[depth - 1].fn)],
					ch->need[fi]);
			continue;
		}
		if (callee_need(ch, call, &cn, &g)) {
			combine(&ch->need[fi], cn);
			continue;
		}
		gi = fn_index(w, g);
		if (w->state[gi] == 2) {
			combine(&ch->need[fi], ch->need[gi]);
		} else if (w->state[gi] == 1) {
			/* recursion the optimiser made: no bound */
			ch->need[fi].unbounded = true;
		} else {
			w->state[gi] = 1;
			ch->need[gi].bytes = 0;
			ch->need[gi].unbounded =
				has_dynamic_alloca(g, ch->ctx_kind);
			frame_start(&st[depth++], g);
		}
	}
	free(st);
	return 0;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

int accelc_stack_finish(struct lower_state *st, struct accelc_stack *s,
			uint64_t *fiber_stack)
{
	static const char *const suffixes[] = { "", ACCEL_WG_STREAMING_SUFFIX,
						ACCEL_WG_IDS32_SUFFIX };
	struct chain ch = { .s = s };
	int r;

	LLVMContextSetDiagnosticHandler(st->ctx, accelc_diag_handler, s->log);
	if (s->oom)
		return -ENOMEM;
	if (s->n)
		qsort(s->sizes, s->n, sizeof(*s->sizes), cmp_size);
	ch.ctx_kind = LLVMGetMDKindIDInContext(st->ctx, ACCELC_MD_CTX_ARRAY,
					       strlen(ACCELC_MD_CTX_ARRAY));
	r = walk_init(&ch.w, st->mod);
	if (r)
		goto out;
	ch.need = calloc(ch.w.n ? ch.w.n : 1, sizeof(*ch.need));
	if (!ch.need) {
		r = -ENOMEM;
		goto out;
	}
	/* address-taken functions first: indirect calls reach them */
	for (size_t i = 0; r == 0 && i < ch.w.n; i++)
		if (address_taken(ch.w.fns[i]))
			r = chain_need(&ch, ch.w.fns[i]);
	for (size_t i = 0; r == 0 && i < ch.w.n; i++)
		if (address_taken(ch.w.fns[i]))
			combine(&ch.indirect, ch.need[i]);
	*fiber_stack = s->measure ? ch.indirect.bytes : 0;
	for (uint32_t k = 0; r == 0 && k < st->n_kernels; k++) {
		struct accelc_kernel_info *info = &st->kernels[k].info;
		struct need kn = { 0 };

		for (size_t v = 0; r == 0 && v < 3; v++) {
			char *name = NULL;
			LLVMValueRef f;

			if (asprintf(&name, "%s%s", info->wg_symbol,
				     suffixes[v]) < 0) {
				r = -ENOMEM;
				break;
			}
			f = LLVMGetNamedFunction(st->mod, name);
			free(name);
			if (!f || LLVMIsDeclaration(f))
				continue;
			r = chain_need(&ch, f);
			if (r == 0)
				combine(&kn, ch.need[fn_index(&ch.w, f)]);
		}
		/* 16-byte stack alignment: sizes in whole slots */
		info->private_size = round_up(kn.bytes + RED_ZONE, 16);
		/* each work-item's own stack, when they run as fibers */
		if (st->kernels[k].fibers) {
			info->flags |= ACCELC_KERNEL_FIBERS;
			info->private_per_item +=
				accelc_fiber_stack_bytes(ch.indirect.bytes) +
				FIBER_GUARD;
		}
		if (kn.unbounded || !s->measure)
			info->flags |= ACCELC_KERNEL_STACK_UNKNOWN;
	}
out:
	free(ch.need);
	walk_free(&ch.w);
	return r;
}

void accelc_stack_free(struct accelc_stack *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->sizes[i].name);
	free(s->sizes);
	memset(s, 0, sizeof(*s));
}

int accelc_emit_fiber_stack(LLVMContextRef c, LLVMTargetMachineRef tm,
			    uint64_t bytes, const char *path,
			    struct strbuf *log)
{
	LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("fiber-stack", c);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
	LLVMMemoryBufferRef out = NULL;
	LLVMValueRef g;
	int r;

	if (!mod)
		return -ENOMEM;
	g = LLVMAddGlobal(mod, i64, ACCELC_FIBER_STACK);
	LLVMSetInitializer(g, LLVMConstInt(i64, bytes, 0));
	LLVMSetGlobalConstant(g, 1);
	LLVMSetVisibility(g, LLVMHiddenVisibility);
	r = accelc_emit(mod, tm, LLVMObjectFile, &out, log);
	if (r == 0)
		r = accelc_write_file(path, LLVMGetBufferStart(out),
				      LLVMGetBufferSize(out));
	if (out)
		LLVMDisposeMemoryBuffer(out);
	LLVMDisposeModule(mod);
	return r;
}

/* ---- the build's side: sizes into the kernels, the fiber object ---- */

char *job_fiber_obj_path(const struct job *j)
{
	char *p;

	return asprintf(&p, "%s.fiber.o", j->obj) < 0 ? NULL : p;
}

/*
 * After code generation: each kernel's stack need and, for a program
 * with fibers, an object defining how large their stacks are.
 */
int job_stack_sizes(struct job *j, struct lower_state *st,
		    struct accelc_stack *ss, LLVMTargetMachineRef tm)
{
	/* the fiber runtime (runtime/fiber.c) refers to it */
	LLVMValueRef used = LLVMGetNamedGlobal(st->mod, ACCELC_FIBER_STACK);
	uint64_t fiber = 0;
	char *path;
	int r;

	r = accelc_stack_finish(st, ss, &fiber);
	if (r || !used)
		return r;
	path = job_fiber_obj_path(j);
	if (!path)
		return -ENOMEM;
	r = accelc_emit_fiber_stack(st->ctx, tm, fiber, path, j->log);
	free(path);
	j->fiber_obj = r == 0;
	return r;
}
