/* SPDX-License-Identifier: MIT */
/* OpenCL build options. Only options from the OpenCL specification are
 * accepted; each becomes a clang argument or a flag for the back end.
 * Anything else is an error, so that an option a program relies on is
 * never silently dropped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelc-private.h"

/* Options handed to clang unchanged. */
static const char *const passthrough[] = {
	"-cl-mad-enable",
	"-cl-fast-relaxed-math",
	"-cl-finite-math-only",
	"-cl-no-signed-zeros",
	"-cl-unsafe-math-optimizations",
	"-cl-single-precision-constant",
	"-cl-fp32-correctly-rounded-divide-sqrt",
	"-cl-uniform-work-group-size",
	"-w",
	"-Werror",
};

/*
 * OpenCL C 3.0 optional features the CPU device implements beyond what
 * frontend.c enables: all memory orders and scopes of the atomics (x86
 * locked instructions are sequentially consistent and coherent across the
 * whole machine) and the work-group functions (builtins/wg-collective.cl).
 * clang 16 takes the two orders as -cl-ext features but has the scopes
 * and the work-group functions only as header macros, hence -D. Must
 * match the device's CL_DEVICE_OPENCL_C_FEATURES,
 * CL_DEVICE_ATOMIC_*_CAPABILITIES and
 * CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT.
 */
static const char *const cl30_features[] = {
	"-Xclang",
	("-cl-ext=+__opencl_c_atomic_order_acq_rel,"
	 "+__opencl_c_atomic_order_seq_cst"),
	"-D__opencl_c_atomic_scope_device=1",
	"-D__opencl_c_atomic_scope_all_devices=1",
	"-D__opencl_c_work_group_collective_functions=1",
};

/*
 * The sub-group extensions builtins/sub-group*.cl implement, with the
 * independent forward progress cl_khr_subgroups promises
 * (lower/wg-spin.c): clang 16 defines their macros only for SPIR targets.
 * Must match the device's extension list.
 */
static const char *const subgroup_extensions[] = {
	"-Dcl_khr_subgroups=1",
	"-Dcl_khr_subgroup_extended_types=1",
	"-Dcl_khr_subgroup_shuffle=1",
	"-Dcl_khr_subgroup_shuffle_relative=1",
	"-Dcl_khr_subgroup_clustered_reduce=1",
	"-Dcl_khr_subgroup_rotate=1",
	"-Dcl_khr_subgroup_ballot=1",
	"-Dcl_khr_subgroup_non_uniform_vote=1",
	"-Dcl_khr_subgroup_non_uniform_arithmetic=1",
	/* an attribute, no builtins. cl_intel_subgroups(_short) are not
	 * listed (cl-device.c): a program that defines their macros gets
	 * their declarations (builtins/program-prelude.h) */
	"-Dcl_intel_required_subgroup_size=1",
};

/* Split like a shell would for words and quotes, without expansion. */
static int next_word(const char **pp, char **ret)
{
	const char *p = *pp;
	struct strbuf w = { 0 };
	char q = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (!*p)
		return 0;
	strbuf_append(&w, "", 0);
	for (; *p; p++) {
		if (q) {
			if (*p == q)
				q = 0;
			else if (*p == '\\' && q == '"' && p[1])
				strbuf_append(&w, ++p, 1);
			else
				strbuf_append(&w, p, 1);
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == ' ' || *p == '\t' || *p == '\n' ||
			   *p == '\r') {
			break;
		} else if (*p == '\\' && p[1]) {
			strbuf_append(&w, ++p, 1);
		} else {
			strbuf_append(&w, p, 1);
		}
	}
	if (!w.buf || w.truncated) {
		strbuf_free(&w);
		return -ENOMEM;
	}
	if (q) {
		strbuf_free(&w);
		return -EINVAL;
	}
	*pp = p;
	*ret = w.buf;
	return 1;
}

static bool ident_start(char c)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * Past the ')' of a macro's parameter list (@p s is past its '('), NULL
 * if malformed: identifiers split by commas, the last one possibly "..."
 * or GNU's "name...", none at all.
 */
static const char *macro_params(const char *s)
{
	s = skip_blanks(s);
	if (*s == ')')
		return s + 1;
	for (;;) {
		if (ident_start(*s))
			while (ident_char(*s))
				s++;
		else if (strncmp(s, "...", 3))
			return NULL;
		if (!strncmp(s, "...", 3)) {
			s = skip_blanks(s + 3);
			return *s == ')' ? s + 1 : NULL;
		}
		s = skip_blanks(s);
		if (*s == ')')
			return s + 1;
		if (*s != ',')
			return NULL;
		s = skip_blanks(s + 1);
	}
}

/*
 * What -D takes, as clang does: NAME or NAME(params), then nothing or
 * '=' and any value (clang cuts it at a newline). clang copies the part
 * before '=' into a "#define" line as it is, so that part may hold the
 * name and parameters only (a newline there would add lines of any kind).
 * Starting with an identifier also keeps the argument from being taken
 * for clang's "@file" (options read from a file).
 */
static bool valid_macro(const char *s)
{
	if (!ident_start(*s))
		return false;
	while (ident_char(*s))
		s++;
	if (*s == '(')
		s = macro_params(s + 1);
	return s && (!*s || *s == '=');
}

static int parse_std(const char *v, unsigned *std)
{
	static const struct {
		const char *name;
		unsigned v;
	} stds[] = {
		{ "CL1.0", 100 }, { "CL1.1", 110 }, { "CL1.2", 120 },
		{ "CL2.0", 200 }, { "CL3.0", 300 },
	};

	for (size_t i = 0; i < sizeof(stds) / sizeof(stds[0]); i++)
		if (!strcmp(v, stds[i].name)) {
			*std = stds[i].v;
			return 0;
		}
	return -EINVAL;
}

int accelc_parse_options(const char *options, struct accelc_build_opts *out,
			 struct strbuf *log)
{
	struct accelc_build_opts o = { .cl_std = 120 };
	const char *p = options ? options : "";
	char *w = NULL, *arg = NULL;
	int r;

	while ((r = next_word(&p, &w)) > 0) {
		bool known = false;

		if (!strcmp(w, "-D") || !strcmp(w, "-I")) {
			r = next_word(&p, &arg);
			if (r <= 0) {
				strbuf_printf(log, "error: option '%s' needs "
					      "an argument\n", w);
				r = r < 0 ? r : -EINVAL;
				goto fail;
			}
		} else if (!strncmp(w, "-D", 2) || !strncmp(w, "-I", 2)) {
			arg = strdup(w + 2);
			if (!arg) {
				r = -ENOMEM;
				goto fail;
			}
		}
		if (arg) {
			if (w[1] == 'D' && !valid_macro(arg)) {
				strbuf_printf(log, "error: invalid macro "
					      "definition '-D%s'\n", arg);
				r = -EINVAL;
				goto fail;
			}
			argv_add(&o.clang_args, w[1] == 'D' ? "-D" : "-I");
			/* clang takes an argument "@x" for a file of more
			 * options; "./@x" is the same directory */
			if (w[1] == 'I' && arg[0] == '@') {
				char *dot = NULL;

				if (asprintf(&dot, "./%s", arg) < 0) {
					r = -ENOMEM;
					goto fail;
				}
				free(arg);
				arg = dot;
			}
			argv_add(&o.clang_args, arg);
			free(arg);
			arg = NULL;
			known = true;
		} else if (!strncmp(w, "-cl-std=", 8)) {
			if (parse_std(w + 8, &o.cl_std) < 0) {
				strbuf_printf(log, "error: unsupported OpenCL "
					      "C version '%s'\n", w + 8);
				r = -EINVAL;
				goto fail;
			}
			known = true;
		} else if (!strcmp(w, "-cl-opt-disable")) {
			o.opt_disable = true;
			known = true;
		} else if (!strcmp(w, "-cl-denorms-are-zero")) {
			/*
			 * clang applies this one for AMD GPUs only and calls
			 * it unused for x86 (an error with -Werror). Its
			 * meaning for code generation and constant folding:
			 * for float and double alike, as the CPU device
			 * flushes both (MXCSR; kernel-info.c marks kernels
			 * of this mode).
			 */
			argv_add(&o.clang_args,
				 "-fdenormal-fp-math=preserve-sign");
			known = true;
		} else if (!strcmp(w, "-cl-kernel-arg-info") ||
			   !strcmp(w, "-cl-strict-aliasing") ||
			   !strcmp(w, "-cl-no-subgroup-ifp")) {
			/* always on / deprecated no-op / waits keep their
			 * fibers all the same (lower/wg-spin.c) */
			known = true;
		} else {
			for (size_t i = 0; i < sizeof(passthrough) /
			     sizeof(passthrough[0]); i++)
				if (!strcmp(w, passthrough[i])) {
					argv_add(&o.clang_args, w);
					known = true;
				}
			if (!strcmp(w, "-cl-fast-relaxed-math") ||
			    !strcmp(w, "-cl-unsafe-math-optimizations"))
				o.fast_math = true;
		}
		if (!known) {
			strbuf_printf(log, "error: unsupported build option "
				      "'%s'\n", w);
			r = -EINVAL;
			goto fail;
		}
		free(w);
		w = NULL;
	}
	if (r < 0) {
		if (r == -EINVAL)
			strbuf_printf(log, "error: unterminated quote in "
				      "build options\n");
		goto fail;
	}
	/* the vector ABI warnings concern calls between objects, and every
	 * call here is inlined: they would only make -Werror fail */
	argv_add(&o.clang_args, "-Wno-psabi");
	/* the device's OpenCL version, which clang leaves to us */
	argv_add(&o.clang_args, "-D__OPENCL_VERSION__=300");
	/* the device has images (frontend.c), which clang 16 does not say */
	argv_add(&o.clang_args, "-D__IMAGE_SUPPORT__=1");
	/* cl_khr_subgroups brings them to every OpenCL C version */
	for (size_t i = 0;
	     i < sizeof(subgroup_extensions) / sizeof(subgroup_extensions[0]);
	     i++)
		argv_add(&o.clang_args, subgroup_extensions[i]);
	if (o.cl_std >= 300)
		for (size_t i = 0; i < sizeof(cl30_features) /
		     sizeof(cl30_features[0]); i++)
			argv_add(&o.clang_args, cl30_features[i]);
	if (o.clang_args.oom) {
		r = -ENOMEM;
		goto fail;
	}
	*out = o;
	return 0;
fail:
	free(w);
	free(arg);
	accelc_build_opts_free(&o);
	return r;
}

void accelc_build_opts_free(struct accelc_build_opts *o)
{
	argv_free(&o->clang_args);
}
