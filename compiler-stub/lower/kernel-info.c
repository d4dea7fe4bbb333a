/* SPDX-License-Identifier: MIT */
/* Kernel information from clang's !kernel_arg_* and attribute metadata. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include <libaccel/accel-image.h>
#include <libaccel/accel-wg.h>

#include "accelc-private.h"
#include "binary.h"

struct md_list {
	LLVMValueRef node;
	unsigned n;
	LLVMValueRef *ops;
};

static void md_get(LLVMContextRef ctx, LLVMValueMetadataEntry *e, size_t ne,
		   const char *name, struct md_list *out)
{
	unsigned kind = LLVMGetMDKindIDInContext(ctx, name, strlen(name));

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ne; i++) {
		if (LLVMValueMetadataEntriesGetKind(e, i) != kind)
			continue;
		out->node = LLVMMetadataAsValue(
			ctx, LLVMValueMetadataEntriesGetMetadata(e, i));
		out->n = LLVMGetMDNodeNumOperands(out->node);
		out->ops = calloc(out->n ? out->n : 1, sizeof(*out->ops));
		if (out->ops)
			LLVMGetMDNodeOperands(out->node, out->ops);
		else
			out->n = 0;
		return;
	}
}

static const char *md_str(struct md_list *l, unsigned i)
{
	unsigned len;
	const char *s;

	if (i >= l->n || !l->ops[i])
		return NULL;
	s = LLVMGetMDString(l->ops[i], &len);
	return s;
}

static char *md_strdup(struct md_list *l, unsigned i)
{
	unsigned len = 0;
	const char *s = NULL;

	if (i < l->n && l->ops[i])
		s = LLVMGetMDString(l->ops[i], &len);
	return strndup(s ? s : "", s ? len : 0);
}

static uint64_t md_int(struct md_list *l, unsigned i)
{
	if (i >= l->n || !l->ops[i] || !LLVMIsAConstantInt(l->ops[i]))
		return 0;
	return LLVMConstIntGetZExtValue(l->ops[i]);
}

static bool md_str_is(struct md_list *l, unsigned i, const char *want)
{
	unsigned len = 0;
	const char *s = NULL;

	if (i < l->n && l->ops[i])
		s = LLVMGetMDString(l->ops[i], &len);
	return s && len == strlen(want) && !memcmp(s, want, len);
}

static uint32_t type_quals(struct md_list *l, unsigned i)
{
	unsigned len = 0;
	const char *s = NULL;
	uint32_t q = 0;

	if (i < l->n && l->ops[i])
		s = LLVMGetMDString(l->ops[i], &len);
	for (unsigned p = 0; s && p < len;) {
		unsigned e = p;

		while (e < len && s[e] != ' ')
			e++;
		if (e - p == 5 && !memcmp(s + p, "const", 5))
			q |= ACCELC_TYPE_CONST;
		else if (e - p == 8 && !memcmp(s + p, "restrict", 8))
			q |= ACCELC_TYPE_RESTRICT;
		else if (e - p == 8 && !memcmp(s + p, "volatile", 8))
			q |= ACCELC_TYPE_VOLATILE;
		else if (e - p == 4 && !memcmp(s + p, "pipe", 4))
			q |= ACCELC_TYPE_PIPE;
		p = e + 1;
	}
	return q;
}

static void md_free(struct md_list *l)
{
	free(l->ops);
}

/* OpenCL C spelling of a vec_type_hint type. */
static char *hint_name(LLVMTypeRef t, bool is_signed)
{
	unsigned n = 0;
	const char *base = "?";
	char buf[32];

	if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
		n = LLVMGetVectorSize(t);
		t = LLVMGetElementType(t);
	}
	switch (LLVMGetTypeKind(t)) {
	case LLVMHalfTypeKind:
		base = "half";
		break;
	case LLVMFloatTypeKind:
		base = "float";
		break;
	case LLVMDoubleTypeKind:
		base = "double";
		break;
	case LLVMIntegerTypeKind:
		switch (LLVMGetIntTypeWidth(t)) {
		case 8:
			base = is_signed ? "char" : "uchar";
			break;
		case 16:
			base = is_signed ? "short" : "ushort";
			break;
		case 32:
			base = is_signed ? "int" : "uint";
			break;
		case 64:
			base = is_signed ? "long" : "ulong";
			break;
		}
		break;
	default:
		break;
	}
	if (n)
		snprintf(buf, sizeof(buf), "%s%u", base, n);
	else
		snprintf(buf, sizeof(buf), "%s", base);
	return strdup(buf);
}

/*
 * Does @p fn flush denormals? clang writes -fdenormal-fp-math (what
 * -cl-denorms-are-zero becomes, options.c) as "denormal-fp-math", and a
 * float-only mode as "denormal-fp-math-f32", which then rules for float:
 * "OUTPUT[,INPUT]", each "ieee", "preserve-sign", "positive-zero" or
 * "dynamic". Read from clang's bitcode, before the builtins are linked,
 * so a kernel keeps the mode of the source it came from, also through
 * separate compilation.
 */
static bool flushes_denormals(LLVMValueRef fn)
{
	static const char *const attrs[] = { "denormal-fp-math-f32",
					     "denormal-fp-math" };

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
			fn, LLVMAttributeFunctionIndex, attrs[i],
			(unsigned)strlen(attrs[i]));
		unsigned len = 0;
		const char *v;

		if (!a)
			continue;
		v = LLVMGetStringAttributeValue(a, &len);
		return (len >= 13 && !memcmp(v, "preserve-sign", 13)) ||
		       (len >= 13 && !memcmp(v, "positive-zero", 13));
	}
	return false;
}

/*
 * The image types of OpenCL C (base type names as clang writes them) and
 * their enum accel_image_type; depth images are 2D ones of the DEPTH
 * channel order. Multi-sample images (cl_khr_gl_msaa_sharing) are not.
 */
/*
 * A multi-sample image type (image2d_msaa_t, image2d_array_msaa_depth_t,
 * ...): by its whole name, as a user's type may start with "image" too
 * ("struct image_info *").
 */
static bool msaa_image_type(const char *bt)
{
	size_t n = strlen(bt);

	return !strncmp(bt, "image2d_", 8) && strstr(bt, "_msaa") &&
	       n > 2 && !strcmp(bt + n - 2, "_t");
}

static bool image_type(const char *bt, uint32_t *type, uint32_t *flags)
{
	static const struct {
		const char *name;
		uint32_t type, flags;
	} types[] = {
		{ "image1d_t", ACCEL_IMAGE_1D, 0 },
		{ "image1d_buffer_t", ACCEL_IMAGE_1D_BUFFER, 0 },
		{ "image1d_array_t", ACCEL_IMAGE_1D_ARRAY, 0 },
		{ "image2d_t", ACCEL_IMAGE_2D, 0 },
		{ "image2d_array_t", ACCEL_IMAGE_2D_ARRAY, 0 },
		{ "image3d_t", ACCEL_IMAGE_3D, 0 },
		{ "image2d_depth_t", ACCEL_IMAGE_2D, ACCELC_IMAGE_DEPTH },
		{ "image2d_array_depth_t", ACCEL_IMAGE_2D_ARRAY,
		  ACCELC_IMAGE_DEPTH },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(bt, types[i].name)) {
			*type = types[i].type;
			*flags = types[i].flags;
			return true;
		}
	return false;
}

static int read_kernel(struct lower_state *st, LLVMValueRef fn,
		       struct kernel_desc *k)
{
	struct md_list addr, access, type, base, qual, name, reqd, hint, vth;
	struct md_list sgs;
	LLVMValueMetadataEntry *e;
	unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
	size_t fnlen, ne = 0;
	const char *fname = LLVMGetValueName2(fn, &fnlen);
	unsigned nparams = LLVMCountParams(fn);
	int r = 0;

	k->fn = fn;
	k->info.name = strndup(fname, fnlen);
	if (asprintf((char **)&k->info.wg_symbol, "%.*s__wg", (int)fnlen,
		     fname) < 0)
		k->info.wg_symbol = NULL;
	if (!k->info.name || !k->info.wg_symbol)
		return -ENOMEM;
	if (flushes_denormals(fn))
		k->info.flags |= ACCELC_KERNEL_DENORMS_ZERO;

	e = LLVMGlobalCopyAllMetadata(fn, &ne);
	md_get(st->ctx, e, ne, "kernel_arg_addr_space", &addr);
	md_get(st->ctx, e, ne, "kernel_arg_access_qual", &access);
	md_get(st->ctx, e, ne, "kernel_arg_type", &type);
	md_get(st->ctx, e, ne, "kernel_arg_base_type", &base);
	md_get(st->ctx, e, ne, "kernel_arg_type_qual", &qual);
	md_get(st->ctx, e, ne, "kernel_arg_name", &name);
	md_get(st->ctx, e, ne, "reqd_work_group_size", &reqd);
	md_get(st->ctx, e, ne, "work_group_size_hint", &hint);
	md_get(st->ctx, e, ne, "vec_type_hint", &vth);
	md_get(st->ctx, e, ne, "intel_reqd_sub_group_size", &sgs);
	if (e)
		LLVMDisposeValueMetadataEntries(e);

	if (nparams && (addr.n != nparams || type.n != nparams)) {
		strbuf_printf(st->log, "error: kernel '%s': argument "
			      "information missing\n", k->info.name);
		r = -EIO;
		goto out;
	}
	/* the container's cap, said here before code generation runs */
	if (nparams > ACCELC_BINARY_MAX_ARGS) {
		strbuf_printf(st->log, "error: kernel '%s' has %u arguments, "
			      "more than the %u this compiler supports\n",
			      k->info.name, nparams, ACCELC_BINARY_MAX_ARGS);
		r = -ENOEXEC;
		goto out;
	}
	k->info.n_args = nparams;
	k->info.args = calloc(nparams ? nparams : 1, sizeof(*k->info.args));
	if (!k->info.args) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < nparams; i++) {
		struct accelc_arg_info *a =
			(struct accelc_arg_info *)&k->info.args[i];
		LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, i));
		LLVMAttributeRef bv = LLVMGetEnumAttributeAtIndex(fn, i + 1,
								   byval);
		const char *bt = md_str(&base, i);

		a->address_space = (uint32_t)md_int(&addr, i);
		a->type_name = md_strdup(&type, i);
		a->name = md_strdup(&name, i);
		if (!a->type_name || !a->name) {
			r = -ENOMEM;
			goto out;
		}
		a->type_qualifiers = type_quals(&qual, i);
		if (md_str_is(&access, i, "read_only"))
			a->access = ACCELC_ACCESS_READ_ONLY;
		else if (md_str_is(&access, i, "write_only"))
			a->access = ACCELC_ACCESS_WRITE_ONLY;
		else if (md_str_is(&access, i, "read_write"))
			a->access = ACCELC_ACCESS_READ_WRITE;
		if (bt && !strcmp(bt, "sampler_t")) {
			a->kind = ACCELC_ARG_SAMPLER;
			a->address_space = ACCELC_ADDR_PRIVATE;
			a->size = a->alignment = sizeof(void *);
			continue;
		}
		if (bt && image_type(bt, &a->image_type, &a->image_flags)) {
			/* args[i] points at the struct accel_wg_image */
			a->kind = ACCELC_ARG_IMAGE;
			a->address_space = ACCELC_ADDR_GLOBAL;
			if (!a->access)
				a->access = ACCELC_ACCESS_READ_ONLY;
			a->size = sizeof(struct accel_wg_image);
			a->alignment = 8;
			continue;
		}
		if ((bt && (msaa_image_type(bt) || !strcmp(bt, "queue_t"))) ||
		    (a->type_qualifiers & ACCELC_TYPE_PIPE)) {
			strbuf_printf(st->log, "error: kernel '%s' argument "
				      "'%s': %s are not supported\n",
				      k->info.name, a->name,
				      (a->type_qualifiers & ACCELC_TYPE_PIPE) ?
				      "pipes" : !strcmp(bt, "queue_t") ?
				      "device queues" : "multi-sample images");
			r = -ENOEXEC;
			goto out;
		}
		if (LLVMGetTypeKind(t) == LLVMPointerTypeKind && !bv) {
			a->kind = a->address_space == ACCELC_ADDR_LOCAL ?
				ACCELC_ARG_LOCAL : ACCELC_ARG_BUFFER;
			a->size = a->alignment = sizeof(void *);
		} else {
			if (bv)
				t = LLVMGetTypeAttributeValue(bv);
			a->kind = ACCELC_ARG_VALUE;
			a->address_space = ACCELC_ADDR_PRIVATE;
			a->size = (uint32_t)LLVMABISizeOfType(st->td, t);
			a->alignment = LLVMABIAlignmentOfType(st->td, t);
		}
	}
	for (unsigned d = 0; d < 3; d++) {
		k->info.reqd_work_group_size[d] = md_int(&reqd, d);
		k->info.work_group_size_hint[d] = md_int(&hint, d);
	}
	/* cl_intel_required_subgroup_size: one of the sizes the device
	 * lists (CL_DEVICE_SUB_GROUP_SIZES_INTEL) */
	if (sgs.n >= 1) {
		uint64_t s = md_int(&sgs, 0);

		if (!s || s > ACCELC_MAX_SUB_GROUP_SIZE || (s & (s - 1))) {
			strbuf_printf(st->log, "error: kernel '%s': "
				      "intel_reqd_sub_group_size(%llu): "
				      "sub-groups of 1, 2, 4 ... %u "
				      "work-items only\n", k->info.name,
				      (unsigned long long)s,
				      ACCELC_MAX_SUB_GROUP_SIZE);
			r = -ENOEXEC;
			goto out;
		}
		k->info.reqd_sub_group_size = (uint32_t)s;
	}
	if (vth.n >= 1 && vth.ops[0]) {
		k->info.vec_type_hint = hint_name(LLVMTypeOf(vth.ops[0]),
						  md_int(&vth, 1) != 0);
		if (!k->info.vec_type_hint)
			r = -ENOMEM;
	}
out:
	md_free(&addr);
	md_free(&access);
	md_free(&type);
	md_free(&base);
	md_free(&qual);
	md_free(&name);
	md_free(&reqd);
	md_free(&hint);
	md_free(&vth);
	md_free(&sgs);
	return r;
}

int accelc_read_kernels(struct lower_state *st)
{
	uint32_t n = 0, i = 0;
	int r;

	for (LLVMValueRef f = LLVMGetFirstFunction(st->mod); f;
	     f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) &&
		    LLVMGetFunctionCallConv(f) == LLVMSPIRKERNELCallConv)
			n++;
	st->kernels = calloc(n ? n : 1, sizeof(*st->kernels));
	if (!st->kernels)
		return -ENOMEM;
	st->n_kernels = n;
	for (LLVMValueRef f = LLVMGetFirstFunction(st->mod); f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f) ||
		    LLVMGetFunctionCallConv(f) != LLVMSPIRKERNELCallConv)
			continue;
		r = read_kernel(st, f, &st->kernels[i++]);
		if (r < 0)
			return r;
	}
	return 0;
}

void accelc_free_kernels(struct kernel_desc *k, uint32_t n)
{
	for (uint32_t i = 0; k && i < n; i++) {
		struct accelc_kernel_info *in = &k[i].info;

		for (uint32_t a = 0; in->args && a < in->n_args; a++) {
			free((char *)in->args[a].type_name);
			free((char *)in->args[a].name);
		}
		free((void *)in->args);
		free((char *)in->name);
		free((char *)in->wg_symbol);
		free((char *)in->vec_type_hint);
	}
	free(k);
}
