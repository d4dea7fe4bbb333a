/* SPDX-License-Identifier: MIT */
/*
 * Programs from OpenCL C source: the compiler (compiler-stub/, built as the
 * module accel-compiler.so) is loaded on the first build only, so that
 * processes that never compile never map LLVM. The module is found next to
 * libaccel itself, in libaccel-0/, or at $ACCEL_COMPILER.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "accelc.h"

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
	if (!c->compile || !c->result_free || !c->get_log || !c->get_path ||
	    !c->get_kernel_count || !c->get_kernel) {
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
	int r = 0;

	pthread_mutex_lock(&ctx->lock);
	if (!ctx->compiler)
		r = compiler_load(ctx, &ctx->compiler);
	*ret = ctx->compiler;
	pthread_mutex_unlock(&ctx->lock);
	return r;
}

void accel_compiler_destroy(struct accel_compiler *c)
{
	if (c)
		compiler_unload(c);
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
		 * Compiled kernels run barriers on fibers inside the generated
		 * code itself, so they need nothing from the runtime's
		 * barrier hook: ACCEL_KERNEL_HAS_BARRIERS is not set.
		 */
		descs[i].flags = 0;
		descs[i].name = k->name;
		*(void **)&descs[i].fn = dlsym(handle, k->wg_symbol);
		descs[i].n_args = k->n_args;
		descs[i].args = args;
		descs[i].static_local_size = k->static_local_size;
		memcpy(descs[i].reqd_work_group_size, k->reqd_work_group_size,
		       sizeof(descs[i].reqd_work_group_size));
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

int accel_compile_program(struct accel_device *dev, const char *source,
			  size_t length, const char *options, char **ret_log,
			  struct accel_program **ret)
{
	struct accelc_options opts = {
		.struct_size = sizeof(opts),
		.build_options = options,
	};
	struct accel_native_kernel_desc *descs = NULL;
	struct accelc_result *res = NULL;
	struct accel_compiler *c;
	struct accel_program *prog;
	uint32_t n = 0, i;
	void *handle;
	int r;

	r = context_compiler(dev->ctx, &c);
	if (r < 0)
		return r;
	r = c->compile(&opts, source, length, &res);
	if (res && ret_log) {
		*ret_log = strdup(c->get_log(res));
		if (!*ret_log)
			r = r < 0 ? r : -ENOMEM;
	}
	if (r < 0) {
		c->result_free(res);
		return r;
	}

	/* The mapping outlives the file, which the result deletes. */
	handle = dlopen(c->get_path(res), RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		log_err(dev->ctx, "cannot load compiled program: %s\n",
			dlerror());
		r = -EIO;
		goto out;
	}
	r = describe_kernels(c, res, handle, &descs, &n);
	if (r == 0)
		r = accel_program_create(dev, descs, n, &prog);
	if (r < 0) {
		dlclose(handle);
		goto out;
	}
	prog->dl_handle = handle;
	*ret = prog;
out:
	for (i = 0; i < n; i++)
		free((void *)descs[i].args);
	free(descs);
	c->result_free(res);
	if (r < 0 && ret_log) {
		free(*ret_log);
		*ret_log = NULL;
	}
	return r;
}
