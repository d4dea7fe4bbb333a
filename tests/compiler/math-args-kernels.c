/* SPDX-License-Identifier: MIT */
/*
 * The kernels of compiler-math-args-*: the OpenCL C source of each
 * function's kernel per width and shape, all in one program.
 */
#include <stdio.h>
#include <string.h>

#include "test-math-args.h"

const char shape_names[] = "VGPL";

struct src_ctx {
	struct ct_str *s;
	enum shape shape;
	unsigned w;
	char vt[16], vi[16]; /* T and int at width w */
};

/* "p[i]", "vload4(i, p)" or "((global const float4 *)p)[i]" */
static void emit_load(struct src_ctx *c, const char *p, bool is_int)
{
	if (c->w == 1)
		ct_printf(c->s, "%s[i]", p);
	else if (c->shape == S_G)
		ct_printf(c->s, "((global const %s *)%s)[i]",
			  is_int ? c->vi : c->vt, p);
	else
		ct_printf(c->s, "vload%u(i, %s)", c->w, p);
}

/* opens the store of a value to p; emit_store_end() closes it */
static void emit_store(struct src_ctx *c, const char *p, bool is_int)
{
	if (c->w == 1)
		ct_printf(c->s, "\t%s[i] = ", p);
	else if (c->shape == S_G)
		ct_printf(c->s, "\t((global %s *)%s)[i] = ",
			  is_int ? c->vi : c->vt, p);
	else
		ct_printf(c->s, "\tvstore%u(", c->w);
}

static void emit_store_end(struct src_ctx *c, const char *p)
{
	if (c->w == 1 || c->shape == S_G)
		ct_printf(c->s, ";\n");
	else
		ct_printf(c->s, ", i, %s);\n", p);
}

void kernel_name(char *buf, size_t n, size_t fi, enum shape sh, unsigned w)
{
	snprintf(buf, n, "k%zu_%c%u", fi, shape_names[sh], w);
}

void emit_kernel(struct ct_str *s, size_t fi, enum shape sh, unsigned w)
{
	const struct fn *f = &fns[fi];
	struct src_ctx c = { .s = s, .shape = sh, .w = w };
	bool ires = f->kind == K_FPI || f->kind == K_RQ;
	const char *pt = ires ? c.vi : c.vt; /* the pointer result's type */
	const char *pout = ires ? "ri" : "r2";
	char name[32];

	if (w == 1) {
		snprintf(c.vt, sizeof(c.vt), "%s", TNAME);
		snprintf(c.vi, sizeof(c.vi), "int");
	} else {
		snprintf(c.vt, sizeof(c.vt), "%s%u", TNAME, w);
		snprintf(c.vi, sizeof(c.vi), "int%u", w);
	}
	kernel_name(name, sizeof(name), fi, sh, w);
	ct_printf(s,
		  "kernel void %s(global const T *a, global const T *b,\n"
		  "\tglobal const T *c, global const int *n, global T *r,\n"
		  "\tglobal T *r2, global int *ri, uint base)\n{\n"
		  "\tsize_t i = get_global_id(0);\n",
		  name);
	if (sh == S_L)
		ct_printf(s, "\tlocal %s lt[64];\n"
			  "\tsize_t l = get_local_id(0);\n", pt);
	ct_printf(s, "\ta += base; b += base; c += base; n += base;\n"
		  "\tr += base; r2 += base; ri += base;\n");
	if (has_ptr(f->kind) && sh == S_P)
		ct_printf(s, "\t%s t;\n", pt);

	/* the result */
	emit_store(&c, f->kind == K_IF ? "ri" : "r", f->kind == K_IF);
	ct_printf(s, "%s(", f->name);
	switch (f->kind) {
	case K_NAN:
		/* as_uint4(): the width is the end of the type's name */
		ct_printf(s, "as_%s%s(", UNAME, c.vt + strlen(TNAME));
		emit_load(&c, "c", false);
		ct_printf(s, ")");
		break;
	default:
		emit_load(&c, "a", false);
		break;
	}
	switch (f->kind) {
	case K_2:
	case K_3:
	case K_RQ:
		ct_printf(s, ", ");
		emit_load(&c, "b", false);
		if (f->kind == K_3) {
			ct_printf(s, ", ");
			emit_load(&c, "c", false);
		}
		break;
	case K_2S:
		ct_printf(s, ", b[i * %u]", w);
		break;
	case K_FI:
		ct_printf(s, ", ");
		emit_load(&c, "n", true);
		break;
	case K_FIS:
		ct_printf(s, ", n[i * %u]", w);
		break;
	default:
		break;
	}
	if (has_ptr(f->kind)) {
		if (sh == S_P)
			ct_printf(s, ", &t");
		else if (sh == S_L)
			ct_printf(s, ", &lt[l]");
		else if (w == 1)
			ct_printf(s, ", &%s[i]", pout);
		else
			ct_printf(s, ", &((global %s *)%s)[i]", pt, pout);
	}
	ct_printf(s, ")");
	emit_store_end(&c, f->kind == K_IF ? "ri" : "r");

	/* the pointer result, from private or local memory */
	if (has_ptr(f->kind) && (sh == S_P || sh == S_L)) {
		emit_store(&c, pout, ires);
		ct_printf(s, "%s", sh == S_P ? "t" : "lt[l]");
		emit_store_end(&c, pout);
	}
	ct_printf(s, "}\n");
}

const unsigned widths[N_WIDTHS] = { 1, 2, 3, 4, 8, 16 };

bool kernel_exists(const struct fn *f, enum shape sh, unsigned w)
{
	if ((f->kind == K_2S || f->kind == K_FIS) && w == 1)
		return false; /* the same as F(a, b) */
	if (has_ptr(f->kind))
		return sh != S_V;
	return sh == S_V || (sh == S_G && f->kind != K_2S &&
			     f->kind != K_FIS);
}
