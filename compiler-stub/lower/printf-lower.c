/* SPDX-License-Identifier: MIT */
/*
 * printf() in kernels (OpenCL C 3.0 6.15.14): each call becomes a call of
 * a small function made for its call site, which claims a record in the
 * launch's printf buffer (accel_wg_ctx.printf_buffer) with one atomic add
 * and stores the arguments as accelc-printf.h lays them out. The host
 * formats the records after the launch, so work-items never format text
 * and never take a lock.
 *
 * It runs after the work-group functions are built and inlined: every
 * call then sits in a wrapper, whose second parameter is the ctx. The
 * format is parsed here, at compile time (the specification requires a
 * format resolvable at compile time): the argument layout follows from it,
 * not from the LLVM types, which the target's ABI rewrites for variadic
 * calls (x86-64: int2 arrives as a double, float16 byval; AArch64:
 * float3 as <4 x i32>, float16 by a plain pointer to a copy). The formats go
 * into a table the program exports; records name them by index.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaccel/accel-wg.h>

#include "accelc-printf.h"
#include "accelc-private.h"

/* What one conversion stores, in payload order. */
enum item_kind {
	IT_STAR,  /* '*' width or precision: int64 */
	IT_SINT,  /* d, i, c: sign-extended int64 */
	IT_UINT,  /* o, u, x, X: zero-extended int64 */
	IT_FLOAT, /* double */
	IT_PTR,   /* %p: int64 */
	IT_STR,   /* %s: length, bytes */
	IT_VEC,   /* vector elements */
};

struct item {
	enum item_kind kind;
	unsigned arg;   /* index among the variadic arguments */
	unsigned bytes; /* IT_VEC: bytes stored */
};

/* One printf call and its plan. */
struct site {
	LLVMValueRef call, ctx;
	unsigned n_args;
	struct item *items;
	unsigned n_items;
	uint32_t format_id;
	uint64_t fixed_size; /* header and every item but the strings' bytes */
};

struct pl {
	struct lower *l;
	LLVMBuilderRef b;
	LLVMTypeRef i32, i64, dbl;
	LLVMValueRef strlen_fn;
	char **formats;
	uint32_t n_formats;
	uint32_t n_sites;
};

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/*
 * The constant string @p v points at: through casts, constant GEPs to
 * element 0 and, since the IR is not optimised yet, a private variable
 * stored once (a helper function's parameter after inlining).
 */
static const char *const_string(LLVMValueRef v, size_t *len)
{
	for (int depth = 0; v && depth < 16; depth++) {
		if (LLVMIsAAddrSpaceCastInst(v) || LLVMIsABitCastInst(v) ||
		    (LLVMIsAConstantExpr(v) &&
		     (LLVMGetConstOpcode(v) == LLVMAddrSpaceCast ||
		      LLVMGetConstOpcode(v) == LLVMBitCast))) {
			v = LLVMGetOperand(v, 0);
		} else if (LLVMIsAGetElementPtrInst(v) ||
			   (LLVMIsAConstantExpr(v) &&
			    LLVMGetConstOpcode(v) == LLVMGetElementPtr)) {
			int n = LLVMGetNumOperands(v);

			for (int i = 1; i < n; i++) {
				LLVMValueRef idx = LLVMGetOperand(v, i);

				if (!LLVMIsAConstantInt(idx) ||
				    LLVMConstIntGetZExtValue(idx))
					return NULL;
			}
			v = LLVMGetOperand(v, 0);
		} else if (LLVMIsALoadInst(v)) {
			LLVMValueRef a = LLVMGetOperand(v, 0), st = NULL;

			if (!LLVMIsAAllocaInst(a))
				return NULL;
			for (LLVMUseRef u = LLVMGetFirstUse(a); u;
			     u = LLVMGetNextUse(u)) {
				LLVMValueRef user = LLVMGetUser(u);

				/* the inliner adds lifetime markers */
				if (LLVMIsALoadInst(user) ||
				    accelc_calls(user, "llvm.lifetime."))
					continue;
				if (!LLVMIsAStoreInst(user) || st ||
				    LLVMGetOperand(user, 1) != a)
					return NULL;
				st = user;
			}
			v = st ? LLVMGetOperand(st, 0) : NULL;
		} else if (LLVMIsAGlobalVariable(v)) {
			LLVMValueRef init = LLVMGetInitializer(v);
			const char *s;

			if (!LLVMIsGlobalConstant(v) || !init ||
			    !LLVMIsAConstantDataSequential(init))
				return NULL;
			s = LLVMGetAsString(init, len);
			if (!s)
				return NULL;
			*len = strnlen(s, *len);
			return s;
		} else {
			return NULL;
		}
	}
	return NULL;
}

static LLVMTypeRef byval_type(LLVMValueRef call, unsigned operand)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
	LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, operand + 1,
							  kind);

	return a ? LLVMGetTypeAttributeValue(a) : NULL;
}

/*
 * The vector a vector conversion's argument passes by reference: byval
 * (x86-64), or a plain pointer to the caller's temporary copy (AArch64,
 * for vectors above 16 bytes); NULL when it is passed by value.
 */
static LLVMTypeRef vec_ref_type(LLVMValueRef call, unsigned operand)
{
	LLVMTypeRef bv = byval_type(call, operand);
	LLVMValueRef v = LLVMGetOperand(call, operand);
	LLVMTypeRef t;

	if (bv)
		return bv;
	if (!LLVMIsAAllocaInst(v))
		return NULL;
	t = LLVMGetAllocatedType(v);
	return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? t : NULL;
}

static uint64_t arg_bytes(struct pl *p, LLVMValueRef call, unsigned operand)
{
	LLVMTypeRef bv = vec_ref_type(call, operand);
	LLVMTypeRef t = bv ? bv : LLVMTypeOf(LLVMGetOperand(call, operand));

	return LLVMStoreSizeOfType(p->l->st->td, t);
}

static bool is_scalar_type(LLVMTypeRef t)
{
	switch (LLVMGetTypeKind(t)) {
	case LLVMIntegerTypeKind:
	case LLVMHalfTypeKind:
	case LLVMFloatTypeKind:
	case LLVMDoubleTypeKind:
	case LLVMPointerTypeKind:
		return true;
	default:
		return false;
	}
}

static int add_item(struct site *s, enum item_kind kind, unsigned arg,
		    unsigned bytes)
{
	struct item *n = realloc(s->items, (s->n_items + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->items = n;
	n[s->n_items++] = (struct item){ kind, arg, bytes };
	s->fixed_size += kind == IT_VEC ? align8(bytes) : 8;
	return 0;
}

/* A vector conversion: the element size, from the format or the value. */
static int plan_vector(struct pl *p, struct site *s, struct accelc_pf_spec *sp,
		       unsigned arg, struct strbuf *out)
{
	uint64_t have = arg_bytes(p, s->call, arg + 1);
	unsigned elem = accelc_pf_elem_size(sp);
	static const char *const mods[] = { [1] = "hh", [2] = "h", [4] = "hl",
					    [8] = "l" };

	if (!elem) {
		/* %v4d: the size of what was passed says which */
		if (have % sp->vec == 0)
			elem = (unsigned)(have / sp->vec);
		else if (sp->vec == 3 && have % 4 == 0)
			elem = (unsigned)(have / 4);
		if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
			return -EINVAL;
		if (accelc_pf_is_float(sp->conv) && elem == 1)
			return -EINVAL;
		strbuf_append(out, mods[elem], strlen(mods[elem]));
	}
	/* 3-element vectors take the room of 4 */
	if (have != (uint64_t)sp->vec * elem &&
	    !(sp->vec == 3 && have == 4ull * elem))
		return -EINVAL;
	/* a value is stored whole: it must fit its padded slot */
	if (!vec_ref_type(s->call, arg + 1) &&
	    have > align8((uint64_t)sp->vec * elem))
		return -EINVAL;
	return add_item(s, IT_VEC, arg, sp->vec * elem);
}

/*
 * Parse the format, plan the payload and write the format as the host
 * will read it (vector length modifiers made explicit) into @p out.
 */
static int plan(struct pl *p, struct site *s, const char *fmt, size_t n,
		struct strbuf *out)
{
	unsigned arg = 0;
	size_t i = 0;
	int r;

	while (i < n) {
		struct accelc_pf_spec sp;
		LLVMTypeRef t;

		if (fmt[i] != '%') {
			strbuf_append(out, fmt + i, 1);
			i++;
			continue;
		}
		if (accelc_pf_parse(fmt + i, n - i, &sp) < 0) {
			strbuf_printf(p->l->st->log, "error: printf: invalid "
				      "conversion '%.*s' in \"%.*s\"\n",
				      (int)(n - i < 8 ? n - i : 8), fmt + i,
				      (int)n, fmt);
			return -ENOEXEC;
		}
		strbuf_append(out, fmt + i, sp.len_pos);
		if (sp.conv == '%') {
			strbuf_append(out, fmt + i + sp.len_pos,
				      sp.len - sp.len_pos);
			i += sp.len;
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if ((k ? sp.prec : sp.width) != ACCELC_PF_STAR)
				continue;
			if (arg >= s->n_args)
				goto few;
			t = LLVMTypeOf(LLVMGetOperand(s->call, arg + 1));
			if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
				goto mismatch;
			r = add_item(s, IT_STAR, arg++, 8);
			if (r)
				return r;
		}
		if (arg >= s->n_args)
			goto few;
		t = LLVMTypeOf(LLVMGetOperand(s->call, arg + 1));
		if (sp.vec) {
			r = plan_vector(p, s, &sp, arg, out);
			if (r == -EINVAL)
				goto mismatch;
		} else if (!is_scalar_type(t) || byval_type(s->call, arg + 1)) {
			goto mismatch;
		} else if (sp.conv == 's') {
			if (LLVMGetTypeKind(t) != LLVMPointerTypeKind)
				goto mismatch;
			r = add_item(s, IT_STR, arg, 0);
		} else if (sp.conv == 'p') {
			r = add_item(s, IT_PTR, arg, 0);
		} else if (accelc_pf_is_float(sp.conv)) {
			r = add_item(s, IT_FLOAT, arg, 0);
		} else {
			r = add_item(s, accelc_pf_is_signed(sp.conv) ||
					sp.conv == 'c' ? IT_SINT : IT_UINT,
				     arg, 0);
		}
		if (r)
			return r;
		arg++;
		strbuf_append(out, fmt + i + sp.len_pos, sp.len - sp.len_pos);
		i += sp.len;
	}
	return 0;
few:
	strbuf_printf(p->l->st->log, "error: printf: \"%.*s\" needs more "
		      "arguments\n", (int)n, fmt);
	return -ENOEXEC;
mismatch:
	strbuf_printf(p->l->st->log, "error: printf: argument %u does not "
		      "match its conversion in \"%.*s\"\n", arg + 1, (int)n,
		      fmt);
	return -ENOEXEC;
}

/* The index of @p fmt in the table, added if new. */
static int format_id(struct pl *p, const char *fmt, uint32_t *id)
{
	char **n;

	for (uint32_t i = 0; i < p->n_formats; i++)
		if (!strcmp(p->formats[i], fmt)) {
			*id = i;
			return 0;
		}
	n = realloc(p->formats, (p->n_formats + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->formats = n;
	n[p->n_formats] = strdup(fmt);
	if (!n[p->n_formats])
		return -ENOMEM;
	*id = p->n_formats++;
	return 0;
}

static LLVMValueRef gep8(struct pl *p, LLVMValueRef base, LLVMValueRef off)
{
	return LLVMBuildGEP2(p->b, LLVMInt8TypeInContext(p->l->st->ctx), base,
			     &off, 1, "");
}

static LLVMValueRef load_at(struct pl *p, LLVMTypeRef t, LLVMValueRef base,
			    uint64_t off)
{
	LLVMValueRef v = LLVMBuildLoad2(
		p->b, t, gep8(p, base, LLVMConstInt(p->i64, off, 0)), "");

	LLVMSetAlignment(v, 4);
	return v;
}

static void store_at(struct pl *p, LLVMValueRef v, LLVMValueRef base,
		     LLVMValueRef off)
{
	LLVMSetAlignment(LLVMBuildStore(p->b, v, gep8(p, base, off)), 1);
}

/* An internal function with its blocks, named by @p names. */
static LLVMValueRef add_internal(struct pl *p, const char *name,
				 LLVMTypeRef ft, const char *const *names,
				 LLVMBasicBlockRef *bbs, unsigned n)
{
	LLVMValueRef f = LLVMAddFunction(p->l->st->mod, name, ft);

	LLVMSetLinkage(f, LLVMInternalLinkage);
	for (unsigned i = 0; i < n; i++)
		bbs[i] = LLVMAppendBasicBlockInContext(p->l->st->ctx, f,
						       names[i]);
	return f;
}

/* The bytes a string of @p len takes (none for NULL), and rounded to 8. */
static LLVMValueRef str_bytes(struct pl *p, LLVMValueRef len)
{
	LLVMValueRef null = LLVMConstInt(p->i64, ACCELC_PRINTF_NULL_STR, 0);

	return LLVMBuildSelect(p->b,
			       LLVMBuildICmp(p->b, LLVMIntEQ, len, null, ""),
			       LLVMConstInt(p->i64, 0, 0), len, "");
}

static LLVMValueRef round8(struct pl *p, LLVMValueRef v)
{
	return LLVMBuildAnd(p->b,
			    LLVMBuildAdd(p->b, v, LLVMConstInt(p->i64, 7, 0),
					 ""),
			    LLVMConstInt(p->i64, ~7ull, 0), "");
}

/* i64 strlen(s), ACCELC_PRINTF_NULL_STR for NULL, at most STR_MAX. */
static LLVMValueRef strlen_fn(struct pl *p)
{
	static const char *const names[] = { "entry", "loop", "more", "done",
					     "null" };
	LLVMTypeRef ptr = p->l->ptr;
	LLVMTypeRef i8 = LLVMInt8TypeInContext(p->l->st->ctx);
	LLVMValueRef f, s, i, ch, next, len;
	LLVMBasicBlockRef bb[5], entry, loop, more, done, null;

	if (p->strlen_fn)
		return p->strlen_fn;
	f = add_internal(p, "__accelc_printf_strlen",
			 LLVMFunctionType(p->i64, &ptr, 1, 0), names, bb, 5);
	entry = bb[0], loop = bb[1], more = bb[2], done = bb[3], null = bb[4];
	s = LLVMGetParam(f, 0);
	LLVMPositionBuilderAtEnd(p->b, entry);
	LLVMBuildCondBr(p->b, LLVMBuildIsNull(p->b, s, ""), null, loop);
	LLVMPositionBuilderAtEnd(p->b, loop);
	i = LLVMBuildPhi(p->b, p->i64, "i");
	ch = LLVMBuildLoad2(p->b, i8, gep8(p, s, i), "");
	LLVMBuildCondBr(p->b, LLVMBuildIsNull(p->b, ch, ""), done, more);
	LLVMPositionBuilderAtEnd(p->b, more);
	next = LLVMBuildNUWAdd(p->b, i, LLVMConstInt(p->i64, 1, 0), "");
	LLVMBuildCondBr(p->b,
			LLVMBuildICmp(p->b, LLVMIntULT, next,
				      LLVMConstInt(p->i64,
						   ACCELC_PRINTF_STR_MAX, 0),
				      ""),
			loop, done);
	LLVMPositionBuilderAtEnd(p->b, done);
	len = LLVMBuildPhi(p->b, p->i64, "len");
	LLVMAddIncoming(len, (LLVMValueRef[]){ i, next },
			(LLVMBasicBlockRef[]){ loop, more }, 2);
	LLVMBuildRet(p->b, len);
	LLVMPositionBuilderAtEnd(p->b, null);
	LLVMBuildRet(p->b, LLVMConstInt(p->i64, ACCELC_PRINTF_NULL_STR, 0));
	LLVMAddIncoming(i, (LLVMValueRef[]){ LLVMConstInt(p->i64, 0, 0), next },
			(LLVMBasicBlockRef[]){ entry, more }, 2);
	p->strlen_fn = f;
	return f;
}

static LLVMValueRef to_i64(struct pl *p, LLVMValueRef v, bool is_signed)
{
	LLVMTypeRef t = LLVMTypeOf(v);

	switch (LLVMGetTypeKind(t)) {
	case LLVMPointerTypeKind:
		return LLVMBuildPtrToInt(p->b, v, p->i64, "");
	case LLVMIntegerTypeKind:
		return LLVMBuildIntCast2(p->b, v, p->i64, is_signed, "");
	default: /* a floating value for an integer conversion */
		return is_signed ? LLVMBuildFPToSI(p->b, v, p->i64, "") :
				   LLVMBuildFPToUI(p->b, v, p->i64, "");
	}
}

static LLVMValueRef to_double(struct pl *p, LLVMValueRef v)
{
	switch (LLVMGetTypeKind(LLVMTypeOf(v))) {
	case LLVMPointerTypeKind:
		return LLVMBuildSIToFP(p->b, to_i64(p, v, true), p->dbl, "");
	case LLVMIntegerTypeKind:
		return LLVMBuildSIToFP(p->b, v, p->dbl, "");
	default:
		return LLVMBuildFPCast(p->b, v, p->dbl, "");
	}
}

/* Store the payload of @p s at @p rec; the string lengths are in @p lens. */
static void build_stores(struct pl *p, struct site *s, LLVMValueRef fn,
			 LLVMValueRef rec, LLVMValueRef *lens)
{
	LLVMValueRef pos = LLVMConstInt(p->i64, 8, 0);
	LLVMValueRef eight = LLVMConstInt(p->i64, 8, 0);

	for (unsigned i = 0; i < s->n_items; i++) {
		const struct item *it = &s->items[i];
		LLVMValueRef v = LLVMGetParam(fn, it->arg + 1), len;
		uint64_t step = 8;

		switch (it->kind) {
		case IT_STAR:
		case IT_SINT:
			store_at(p, to_i64(p, v, true), rec, pos);
			break;
		case IT_UINT:
		case IT_PTR:
			store_at(p, to_i64(p, v, false), rec, pos);
			break;
		case IT_FLOAT:
			store_at(p, to_double(p, v), rec, pos);
			break;
		case IT_VEC:
			if (vec_ref_type(s->call, it->arg + 1))
				LLVMBuildMemCpy(p->b, gep8(p, rec, pos), 1, v,
						1, LLVMConstInt(p->i64,
								it->bytes, 0));
			else
				store_at(p, v, rec, pos);
			step = align8(it->bytes);
			break;
		case IT_STR:
			len = *lens++;
			store_at(p, len, rec, pos);
			len = str_bytes(p, len);
			LLVMBuildMemCpy(p->b,
					gep8(p, rec, LLVMBuildAdd(p->b, pos,
								  eight, "")),
					1,
					LLVMBuildPointerCast(p->b, v, p->l->ptr,
							     ""),
					1, len);
			pos = LLVMBuildAdd(p->b, pos, round8(p, len), "");
			break;
		}
		pos = LLVMBuildAdd(p->b, pos, LLVMConstInt(p->i64, step, 0),
				   "");
	}
}

/*
 * i32 site(ctx, args...): claim a record, fill it, 0; -1 when the buffer
 * is missing (older runtime, no printf buffer) or full.
 */
static LLVMValueRef build_site(struct pl *p, struct site *s)
{
	static const char *const names[] = { "entry", "have", "claim", "write",
					     "full", "fail", "done" };
	LLVMTypeRef *params = calloc(s->n_args + 1, sizeof(*params));
	LLVMValueRef *lens = calloc(s->n_items + 1, sizeof(*lens));
	LLVMValueRef fn = NULL, pb, size, off, end, rec, r, sl;
	LLVMBasicBlockRef bb[7], entry, have, claim, write, full, fail, done;
	unsigned n_lens = 0;
	char name[48];

	if (!params || !lens)
		goto out;
	/* made first: it moves the builder */
	sl = strlen_fn(p);
	params[0] = p->l->ptr;
	for (unsigned i = 0; i < s->n_args; i++)
		params[i + 1] = LLVMTypeOf(LLVMGetOperand(s->call, i + 1));
	snprintf(name, sizeof(name), "__accelc_printf.%u", p->n_sites++);
	fn = add_internal(p, name,
			  LLVMFunctionType(p->i32, params, s->n_args + 1, 0),
			  names, bb, 7);
	entry = bb[0], have = bb[1], claim = bb[2], write = bb[3];
	full = bb[4], fail = bb[5], done = bb[6];

	/* a runtime older than the field has no buffer to offer */
	LLVMPositionBuilderAtEnd(p->b, entry);
	LLVMBuildCondBr(
		p->b,
		LLVMBuildICmp(p->b, LLVMIntUGE,
			      load_at(p, p->i32, LLVMGetParam(fn, 0),
				      offsetof(struct accel_wg_ctx,
					       abi_version)),
			      LLVMConstInt(p->i32, 2, 0), ""),
		have, fail);
	LLVMPositionBuilderAtEnd(p->b, have);
	pb = load_at(p, p->l->ptr, LLVMGetParam(fn, 0),
		     offsetof(struct accel_wg_ctx, printf_buffer));
	LLVMBuildCondBr(p->b, LLVMBuildIsNull(p->b, pb, ""), fail, claim);

	LLVMPositionBuilderAtEnd(p->b, claim);
	size = LLVMConstInt(p->i64, s->fixed_size, 0);
	for (unsigned i = 0; i < s->n_items; i++) {
		LLVMValueRef a, len;

		if (s->items[i].kind != IT_STR)
			continue;
		a = LLVMBuildPointerCast(p->b,
					 LLVMGetParam(fn, s->items[i].arg + 1),
					 p->l->ptr, "");
		len = LLVMBuildCall2(p->b, LLVMGlobalGetValueType(sl), sl, &a,
				     1, "len");
		lens[n_lens++] = len;
		size = LLVMBuildAdd(p->b, size, round8(p, str_bytes(p, len)),
				    "");
	}
	off = LLVMBuildAtomicRMW(p->b, LLVMAtomicRMWBinOpAdd,
				 gep8(p, pb, LLVMConstInt(p->i64,
					offsetof(struct accelc_printf_buffer,
						 used), 0)),
				 size, LLVMAtomicOrderingMonotonic, 0);
	end = LLVMBuildAdd(p->b, off, size, "");
	LLVMBuildCondBr(
		p->b,
		LLVMBuildICmp(p->b, LLVMIntULE, end,
			      load_at(p, p->i64, pb,
				      offsetof(struct accelc_printf_buffer,
					       capacity)),
			      ""),
		write, full);

	LLVMPositionBuilderAtEnd(p->b, full);
	LLVMBuildAtomicRMW(p->b, LLVMAtomicRMWBinOpUMin,
			   gep8(p, pb, LLVMConstInt(p->i64,
				offsetof(struct accelc_printf_buffer, limit),
				0)),
			   off, LLVMAtomicOrderingMonotonic, 0);
	LLVMBuildBr(p->b, fail);

	LLVMPositionBuilderAtEnd(p->b, write);
	rec = gep8(p, load_at(p, p->l->ptr, pb,
			      offsetof(struct accelc_printf_buffer, data)),
		   off);
	store_at(p, LLVMBuildTrunc(p->b, size, p->i32, ""), rec,
		 LLVMConstInt(p->i64, 0, 0));
	store_at(p, LLVMConstInt(p->i32, s->format_id, 0), rec,
		 LLVMConstInt(p->i64, 4, 0));
	build_stores(p, s, fn, rec, lens);
	LLVMBuildBr(p->b, done);

	LLVMPositionBuilderAtEnd(p->b, fail);
	LLVMBuildBr(p->b, done);
	LLVMPositionBuilderAtEnd(p->b, done);
	r = LLVMBuildPhi(p->b, p->i32, "");
	LLVMAddIncoming(r,
			(LLVMValueRef[]){ LLVMConstInt(p->i32, 0, 0),
					  LLVMConstInt(p->i32, (uint64_t)-1,
						       1) },
			(LLVMBasicBlockRef[]){ write, fail }, 2);
	LLVMBuildRet(p->b, r);
out:
	free(params);
	free(lens);
	return fn;
}

/* Replace @p s->call by a call of its own function. */
static int lower_site(struct pl *p, struct site *s)
{
	struct strbuf norm = { 0 };
	LLVMValueRef fn, nc, *args = NULL;
	const char *fmt;
	size_t len = 0;
	int r;

	s->n_args = LLVMGetNumArgOperands(s->call) - 1;
	s->fixed_size = sizeof(struct accelc_printf_record);
	fmt = const_string(LLVMGetOperand(s->call, 0), &len);
	if (!fmt) {
		strbuf_printf(p->l->st->log, "error: printf: the format must "
			      "be a string literal\n");
		return -ENOEXEC;
	}
	r = plan(p, s, fmt, len, &norm);
	if (r == 0 && norm.truncated)
		r = -E2BIG;
	if (r == 0)
		r = format_id(p, norm.buf ? norm.buf : "", &s->format_id);
	strbuf_free(&norm);
	if (r)
		return r;
	if (s->fixed_size > UINT32_MAX / 2)
		return -E2BIG;
	fn = build_site(p, s);
	args = calloc(s->n_args + 1, sizeof(*args));
	if (!fn || !args) {
		free(args);
		return -ENOMEM;
	}
	args[0] = s->ctx;
	for (unsigned i = 0; i < s->n_args; i++)
		args[i + 1] = LLVMGetOperand(s->call, i + 1);
	LLVMPositionBuilderBefore(p->b, s->call);
	nc = LLVMBuildCall2(p->b, LLVMGlobalGetValueType(fn), fn, args,
			    s->n_args + 1, "");
	free(args);
	LLVMReplaceAllUsesWith(s->call, nc);
	LLVMInstructionEraseFromParent(s->call);
	return 0;
}

/* The NULL-terminated table of formats the runtime looks up. */
static int build_table(struct pl *p)
{
	LLVMContextRef c = p->l->st->ctx;
	LLVMValueRef *elems = calloc(p->n_formats + 1, sizeof(*elems));
	LLVMTypeRef at = LLVMArrayType(p->l->ptr, p->n_formats + 1);
	LLVMValueRef table;

	if (!elems)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->n_formats; i++) {
		size_t n = strlen(p->formats[i]);
		LLVMValueRef str = LLVMConstStringInContext(c, p->formats[i],
							    (unsigned)n, 0);
		LLVMValueRef g = LLVMAddGlobal(p->l->st->mod,
					       LLVMTypeOf(str),
					       "__accelc_printf_format");

		LLVMSetInitializer(g, str);
		LLVMSetGlobalConstant(g, 1);
		LLVMSetLinkage(g, LLVMPrivateLinkage);
		LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
		elems[i] = g;
	}
	elems[p->n_formats] = LLVMConstPointerNull(p->l->ptr);
	table = LLVMAddGlobal(p->l->st->mod, at, ACCELC_PRINTF_TABLE);
	LLVMSetInitializer(table, LLVMConstArray(p->l->ptr, elems,
						 p->n_formats + 1));
	LLVMSetGlobalConstant(table, 1);
	free(elems);
	return 0;
}

/* Which wrapper @p f is, -1 if none. */
static int wrapper_of(struct wrapper *ws, uint32_t nw, LLVMValueRef f)
{
	for (uint32_t i = 0; i < nw; i++)
		if (ws[i].fn == f)
			return (int)i;
	return -1;
}

int accelc_lower_printf(struct lower *l, struct wrapper *ws, uint32_t nw)
{
	LLVMValueRef decl = LLVMGetNamedFunction(l->st->mod, "printf");
	struct pl p = { .l = l };
	struct site s;
	int r = 0;

	if (!decl || !LLVMGetFirstUse(decl))
		return 0;
	p.b = LLVMCreateBuilderInContext(l->st->ctx);
	p.i32 = LLVMInt32TypeInContext(l->st->ctx);
	p.i64 = LLVMInt64TypeInContext(l->st->ctx);
	p.dbl = LLVMDoubleTypeInContext(l->st->ctx);
	/* each rewrite removes one use */
	for (LLVMUseRef u; r == 0 && (u = LLVMGetFirstUse(decl));) {
		LLVMValueRef call = LLVMGetUser(u), f;
		int w;

		memset(&s, 0, sizeof(s));
		if (!LLVMIsACallInst(call) ||
		    LLVMGetCalledValue(call) != decl) {
			strbuf_printf(l->st->log, "error: printf may only be "
				      "called\n");
			r = -ENOEXEC;
			break;
		}
		f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
		w = wrapper_of(ws, nw, f);
		if (w < 0) {
			strbuf_printf(l->st->log, "error: internal: printf "
				      "outside a kernel\n");
			r = -EIO;
			break;
		}
		s.call = call;
		s.ctx = LLVMGetParam(f, 1);
		ws[w].k->info.flags |= ACCELC_KERNEL_USES_PRINTF;
		r = lower_site(&p, &s);
		free(s.items);
	}
	if (r == 0)
		r = build_table(&p);
	if (r == 0 && !LLVMGetFirstUse(decl))
		LLVMDeleteFunction(decl);
	for (uint32_t i = 0; i < p.n_formats; i++)
		free(p.formats[i]);
	free(p.formats);
	LLVMDisposeBuilder(p.b);
	return r;
}
