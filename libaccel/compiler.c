/* SPDX-License-Identifier: MIT */
/*
 * Programs from OpenCL C source: the compiler (compiler-stub/, built as the
 * module accel-compiler.so) is loaded on the first build only, so that
 * processes that never compile never map LLVM. The module is found next to
 * libaccel itself, in libaccel-0/, or at $ACCEL_COMPILER.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "accelc.h"
#include "kernel-printf.h"

#define COMPILER_MODULE "libaccel-0/accel-compiler.so"

struct accel_compiler {
	void *handle;
	int (*compile)(const struct accelc_options *, const char *, size_t,
		       struct accelc_result **);
	struct accelc_result *(*result_free)(struct accelc_result *);
	const char *(*get_log)(const struct accelc_result *);
	const char *(*get_path)(const struct accelc_result *);
	uint32_t (*get_kernel_count)(const struct accelc_result *);
	const struct accelc_kernel_info *(*get_kernel)(
		const struct accelc_result *, uint32_t);
	int (*load_binary)(const struct accelc_options *, const void *, size_t,
			   struct accelc_result **);
	int (*get_container)(const struct accelc_result *, const void **,
			     size_t *);
	uint32_t (*get_cache_status)(const struct accelc_result *);
	int (*compile_object)(const struct accelc_options *, const char *,
			      size_t, uint32_t, const char *const *,
			      const char *const *, struct accelc_result **);
	int (*link)(const struct accelc_options *, uint32_t,
		    const void *const *, const size_t *, uint32_t,
		    struct accelc_result **);
	uint32_t (*get_kind)(const struct accelc_result *);
	uint64_t (*get_global_size)(const struct accelc_result *);
};

/* Path of the module: $ACCEL_COMPILER, else beside this library. */
static int compiler_path(char *buf, size_t size)
{
	const char *env = secure_getenv("ACCEL_COMPILER");
	char self[PATH_MAX];
	Dl_info info;

	if (env && *env) {
		if (strlen(env) >= size)
			return -ENAMETOOLONG;
		strcpy(buf, env);
		return 0;
	}
	if (!dladdr((void *)compiler_path, &info) || !info.dli_fname)
		return -ENOENT;
	if (strlen(info.dli_fname) >= sizeof(self))
		return -ENAMETOOLONG;
	strcpy(self, info.dli_fname);
	if ((size_t)snprintf(buf, size, "%s/%s", dirname(self),
			     COMPILER_MODULE) >= size)
		return -ENAMETOOLONG;
	return 0;
}

bool accel_compiler_available(void)
{
	char path[PATH_MAX];

	return compiler_path(path, sizeof(path)) == 0 &&
	       access(path, R_OK) == 0;
}

static void compiler_unload(struct accel_compiler *c)
{
	if (c->handle)
		dlclose(c->handle);
	free(c);
}

static int compiler_load(struct accel_context *ctx, struct accel_compiler **ret)
{
	struct accel_compiler *c;
	char path[PATH_MAX];
	int r;

	r = compiler_path(path, sizeof(path));
	if (r < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/*
	 * NODELETE: LLVM registers global state (options, targets, static
	 * destructors) that does not survive an unload and reload, and
	 * mapping it again for every context would cost milliseconds.
	 */
	c->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!c->handle) {
		log_err(ctx, "cannot load the compiler: %s\n", dlerror());
		free(c);
		return -EOPNOTSUPP;
	}
	*(void **)&c->compile = dlsym(c->handle, "accelc_compile");
	*(void **)&c->result_free = dlsym(c->handle, "accelc_result_free");
	*(void **)&c->get_log = dlsym(c->handle, "accelc_result_get_log");
	*(void **)&c->get_path = dlsym(c->handle, "accelc_result_get_path");
	*(void **)&c->get_kernel_count =
		dlsym(c->handle, "accelc_result_get_kernel_count");
	*(void **)&c->get_kernel = dlsym(c->handle, "accelc_result_get_kernel");
	*(void **)&c->load_binary = dlsym(c->handle, "accelc_load_binary");
	*(void **)&c->get_container =
		dlsym(c->handle, "accelc_result_get_container");
	*(void **)&c->get_cache_status =
		dlsym(c->handle, "accelc_result_get_cache_status");
	*(void **)&c->compile_object =
		dlsym(c->handle, "accelc_compile_object");
	*(void **)&c->link = dlsym(c->handle, "accelc_link");
	*(void **)&c->get_kind = dlsym(c->handle, "accelc_result_get_kind");
	*(void **)&c->get_global_size =
		dlsym(c->handle, "accelc_result_get_global_size");
	if (!c->compile || !c->result_free || !c->get_log || !c->get_path ||
	    !c->get_kernel_count || !c->get_kernel || !c->load_binary ||
	    !c->get_container || !c->get_cache_status ||
	    !c->compile_object || !c->link || !c->get_kind ||
	    !c->get_global_size) {
		log_err(ctx, "%s: not a libaccel compiler module\n", path);
		compiler_unload(c);
		return -EOPNOTSUPP;
	}
	*ret = c;
	return 0;
}

/* The context's compiler, loaded on first use. */
static int context_compiler(struct accel_context *ctx,
			    struct accel_compiler **ret)
{
	struct accel_compiler *c, *spare = NULL;
	int r;

	pthread_mutex_lock(&ctx->lock);
	c = ctx->compiler;
	pthread_mutex_unlock(&ctx->lock);
	if (c) {
		*ret = c;
		return 0;
	}
	/*
	 * Loaded without the lock: loading logs on failure, and logging
	 * takes the context's lock. Two first users may both load; one
	 * copy is kept (the module itself is mapped once).
	 */
	r = compiler_load(ctx, &c);
	if (r < 0)
		return r;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->compiler)
		spare = c;
	else
		ctx->compiler = c;
	*ret = ctx->compiler;
	pthread_mutex_unlock(&ctx->lock);
	if (spare)
		compiler_unload(spare);
	return 0;
}

void accel_compiler_destroy(struct accel_compiler *c)
{
	if (c)
		compiler_unload(c);
}

/* The compiler's variant (@suffix) of @wg_symbol, if it made one. */
static accel_wg_fn variant(void *handle, const char *wg_symbol,
			   const char *suffix)
{
	char name[512];
	accel_wg_fn fn = NULL;

	if ((size_t)snprintf(name, sizeof(name), "%s%s", wg_symbol, suffix) >=
	    sizeof(name))
		return NULL;
	*(void **)&fn = dlsym(handle, name);
	return fn;
}

/* Kernel descriptions for program_create(), pointing into @res. */
static int describe_kernels(struct accel_compiler *c,
			    const struct accelc_result *res, void *handle,
			    struct accel_native_kernel_desc **ret, uint32_t *n)
{
	struct accel_native_kernel_desc *descs;
	uint32_t i, j, count = c->get_kernel_count(res);

	descs = calloc(count ? count : 1, sizeof(*descs));
	if (!descs)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		const struct accelc_kernel_info *k = c->get_kernel(res, i);
		struct accel_kernel_arg_desc *args = NULL;

		if (k->n_args) {
			args = calloc(k->n_args, sizeof(*args));
			if (!args)
				goto fail;
		}
		for (j = 0; j < k->n_args; j++) {
			args[j].struct_size = sizeof(args[j]);
			args[j].kind = k->args[j].kind;
			args[j].size = k->args[j].size;
			args[j].address_space = k->args[j].address_space;
			args[j].type_qualifiers = k->args[j].type_qualifiers;
			args[j].name = k->args[j].name;
			args[j].type_name = k->args[j].type_name;
		}
		descs[i].struct_size = sizeof(descs[i]);
		/*
		 * Compiled kernels handle barriers inside the generated code
		 * (work-item loops over barrier-free regions, fibers as the
		 * fallback), so they need nothing from the runtime's barrier
		 * hook: ACCEL_KERNEL_HAS_BARRIERS is not set.
		 */
		descs[i].flags = k->flags & ACCELC_KERNEL_GROUP_INVARIANT ?
					 ACCEL_KERNEL_GROUP_INVARIANT :
					 0;
		descs[i].name = k->name;
		*(void **)&descs[i].fn = dlsym(handle, k->wg_symbol);
		descs[i].streaming_fn = variant(handle, k->wg_symbol,
						ACCEL_WG_STREAMING_SUFFIX);
		descs[i].ids32_fn = variant(handle, k->wg_symbol,
					    ACCEL_WG_IDS32_SUFFIX);
		descs[i].n_args = k->n_args;
		descs[i].args = args;
		descs[i].static_local_size = k->static_local_size;
		memcpy(descs[i].reqd_work_group_size, k->reqd_work_group_size,
		       sizeof(descs[i].reqd_work_group_size));
		memcpy(descs[i].work_group_size_hint, k->work_group_size_hint,
		       sizeof(descs[i].work_group_size_hint));
		descs[i].vec_type_hint = k->vec_type_hint;
		descs[i].private_size = k->private_size;
		if (!descs[i].fn) {
			i++;
			goto fail;
		}
	}
	*ret = descs;
	*n = count;
	return 0;
fail:
	while (i--)
		free((void *)descs[i].args);
	free(descs);
	return -EIO;
}

/*
 * A program from a successful result: its code dlopen()ed (the mapping
 * outlives the result's memfd), its kernels described, its container kept
 * for accel_program_get_binary().
 */
static int program_from_result(struct accel_device *dev,
			       struct accel_compiler *c,
			       const struct accelc_result *res,
			       struct accel_program **ret)
{
	struct accel_native_kernel_desc *descs = NULL;
	struct accel_program *prog;
	const void *bin = NULL;
	size_t bin_size = 0;
	uint32_t n = 0, i;
	void *handle, *copy;
	int r;

	if (c->get_container(res, &bin, &bin_size) < 0)
		return -EIO;
	copy = malloc(bin_size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, bin, bin_size);
	/* objects and libraries: bitcode to link, nothing to load */
	if (c->get_kind(res) != ACCELC_KIND_EXECUTABLE) {
		r = accel_program_create(dev, NULL, 0, &prog);
		if (r < 0) {
			free(copy);
			return r;
		}
		prog->kind = c->get_kind(res);
		prog->binary = copy;
		prog->binary_size = bin_size;
		*ret = prog;
		return 0;
	}
	if (!c->get_path(res)) {
		free(copy);
		return -EIO;
	}
	handle = dlopen(c->get_path(res), RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		log_err(dev->ctx, "cannot load compiled program: %s\n",
			dlerror());
		free(copy);
		return -EIO;
	}
	r = describe_kernels(c, res, handle, &descs, &n);
	if (r == 0)
		r = accel_program_create(dev, descs, n, &prog);
	for (i = 0; i < n; i++)
		free((void *)descs[i].args);
	free(descs);
	if (r < 0) {
		dlclose(handle);
		free(copy);
		return r;
	}
	prog->dl_handle = handle;
	/* internal flags: public kernel descriptions cannot carry them */
	for (i = 0; i < prog->n_kernels; i++) {
		uint32_t f = c->get_kernel(res, i)->flags;

		if (f & ACCELC_KERNEL_USES_PRINTF)
			prog->kernels[i].flags |= ACCEL_KERNEL_DEF_PRINTF;
		if (f & ACCELC_KERNEL_DENORMS_ZERO)
			prog->kernels[i].flags |= ACCEL_KERNEL_DEF_DENORMS_ZERO;
		if (f & ACCELC_KERNEL_STACK_UNKNOWN)
			prog->kernels[i].flags |= ACCEL_KERNEL_DEF_STACK_UNKNOWN;
		if (f & ACCELC_KERNEL_FIBERS)
			prog->kernels[i].flags |= ACCEL_KERNEL_DEF_FIBERS;
		prog->kernels[i].private_per_item =
			c->get_kernel(res, i)->private_per_item;
	}
	prog->binary = copy;
	prog->binary_size = bin_size;
	prog->global_size = c->get_global_size(res);
	*ret = prog;
	return 0;
}

static const char *const cache_status[] = { "off", "miss", "hit" };

/* Add to a build log why the compiled program could not be made. */
static void append_load_error(struct accel_device *dev, int err, char **log)
{
	const uint64_t *u = dev->u64;
	char *s = NULL;
	int n;

	if (err == -E2BIG)
		n = asprintf(&s,
			     "%serror: a kernel is beyond this device's "
			     "limits: at most %" PRIu64 " arguments of %" PRIu64
			     " bytes in all, %" PRIu64
			     " bytes of __local variables\n",
			     *log ? *log : "",
			     u[ACCEL_DEVICE_U64_MAX_KERNEL_ARGS],
			     u[ACCEL_DEVICE_U64_MAX_ARG_BYTES],
			     u[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE]);
	else
		n = asprintf(&s, "%serror: loading the program failed: %s\n",
			     *log ? *log : "", strerror(-err));
	if (n < 0)
		return;
	free(*log);
	*log = s;
}

/*
 * What every build call does with the compiler's answer: the log to the
 * caller (build failures too), the program made on success.
 */
static int build_done(struct accel_device *dev, struct accel_compiler *c,
		      int r, struct accelc_result *res, char **ret_log,
		      struct accel_program **ret)
{
	uint32_t cs;

	if (res && ret_log) {
		*ret_log = strdup(c->get_log(res));
		if (!*ret_log)
			r = r < 0 ? r : -ENOMEM;
	}
	if (r == 0) {
		cs = c->get_cache_status(res);
		log_dbg(dev->ctx, "program cache: %s\n",
			cs < 3 ? cache_status[cs] : "?");
		r = program_from_result(dev, c, res, ret);
		/* compiled, but not loadable here: the log says why */
		if (r < 0 && ret_log)
			append_load_error(dev, r, ret_log);
	}
	c->result_free(res);
	return r;
}

/* One request to the compiler module: which entry point, with what. */
struct build_req {
	enum { REQ_SOURCE, REQ_OBJECT, REQ_LINK } what;
	const char *options;
	const char *source;
	size_t length;
	uint32_t n; /* headers or link inputs */
	const char *const *names, *const *texts;
	const void *const *data;
	const size_t *sizes;
	uint32_t flags;
};

static int build(struct accel_device *dev, const struct build_req *q,
		 char **ret_log, struct accel_program **ret)
{
	struct accelc_options opts = {
		.struct_size = sizeof(opts),
		.build_options = q->options,
	};
	struct accelc_result *res = NULL;
	struct accel_compiler *c;
	int r;

	r = context_compiler(dev->ctx, &c);
	if (r < 0)
		return r;
	switch (q->what) {
	case REQ_SOURCE:
		r = c->compile(&opts, q->source, q->length, &res);
		break;
	case REQ_OBJECT:
		r = c->compile_object(&opts, q->source, q->length, q->n,
				      q->names, q->texts, &res);
		break;
	default:
		r = c->link(&opts, q->n, q->data, q->sizes, q->flags, &res);
		break;
	}
	return build_done(dev, c, r, res, ret_log, ret);
}

int accel_compile_program(struct accel_device *dev, const char *source,
			  size_t length, const char *options, char **ret_log,
			  struct accel_program **ret)
{
	struct build_req q = { .what = REQ_SOURCE, .options = options,
			       .source = source, .length = length };

	return build(dev, &q, ret_log, ret);
}

int accel_compiler_compile_object(struct accel_device *dev,
				  const char *source, size_t length,
				  const char *options, uint32_t n_headers,
				  const char *const *header_names,
				  const char *const *header_sources,
				  char **ret_log, struct accel_program **ret)
{
	struct build_req q = { .what = REQ_OBJECT, .options = options,
			       .source = source, .length = length,
			       .n = n_headers, .names = header_names,
			       .texts = header_sources };

	return build(dev, &q, ret_log, ret);
}

int accel_compiler_link(struct accel_device *dev, uint32_t n,
			struct accel_program *const *inputs,
			const char *options, uint32_t flags, char **ret_log,
			struct accel_program **ret)
{
	struct build_req q = { .what = REQ_LINK, .options = options, .n = n };
	const void **data = calloc(n, sizeof(*data));
	size_t *sizes = calloc(n, sizeof(*sizes));
	int r = -ENOMEM;

	if (data && sizes) {
		for (uint32_t i = 0; i < n; i++) {
			data[i] = inputs[i]->binary;
			sizes[i] = inputs[i]->binary_size;
		}
		q.data = data;
		q.sizes = sizes;
		q.flags = flags & ACCEL_LINK_LIBRARY ? ACCELC_LINK_LIBRARY : 0;
		r = build(dev, &q, ret_log, ret);
	}
	free(data);
	free(sizes);
	return r;
}

int accel_compiler_load_binary(struct accel_device *dev, const void *data,
			       size_t size, struct accel_program **ret)
{
	struct accelc_result *res = NULL;
	struct accel_compiler *c;
	int r;

	r = context_compiler(dev->ctx, &c);
	if (r < 0)
		return r;
	r = c->load_binary(NULL, data, size, &res);
	if (r < 0 && res)
		log_dbg(dev->ctx, "%s", c->get_log(res));
	if (r == 0)
		r = program_from_result(dev, c, res, ret);
	c->result_free(res);
	return r;
}
