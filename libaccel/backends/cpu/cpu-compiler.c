/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's programs from OpenCL C source and from binaries: the
 * compiler (compiler-stub/, built as the module accel-compiler.so) is
 * loaded on the first build only, so that processes that never compile
 * never map LLVM. The module is found next to libaccel itself, in
 * libaccel-0/, or at $ACCEL_COMPILER.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-program.h"
#include "accelc.h"

#ifndef ACCEL_LLVM_SPIRV_DEFAULT
#define ACCEL_LLVM_SPIRV_DEFAULT "/usr/bin/llvm-spirv-15"
#endif

#define COMPILER_MODULE "libaccel-0/accel-compiler.so"

struct cpu_compiler {
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
	/* optional: a module older than it lacks it */
	const char *(*get_timings)(const struct accelc_result *);
	int (*compile_il)(const struct accelc_options *, const void *, size_t,
			  uint32_t, const struct accelc_spec_const *, uint32_t,
			  struct accelc_result **);
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

/*
 * Whether SPIR-V programs can be built: the translator the compiler
 * module runs (compiler-stub/frontend/spirv.c finds it the same way:
 * $ACCEL_LLVM_SPIRV, the installed llvm-spirv-15, $PATH).
 */
bool cpu_il_available(void)
{
	const char *env = secure_getenv("ACCEL_LLVM_SPIRV");
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (env && *env)
		return access(env, X_OK) == 0;
	if (access(ACCEL_LLVM_SPIRV_DEFAULT, X_OK) == 0)
		return true;
	while (path && *path) {
		const char *end = strchrnul(path, ':');
		int n = snprintf(buf, sizeof(buf), "%.*s/llvm-spirv-15",
				 (int)(end - path), path);

		if (end > path && n > 0 && (size_t)n < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		path = *end ? end + 1 : end;
	}
	return false;
}

bool cpu_compiler_locate(char *buf, size_t size)
{
	char path[PATH_MAX];
	int r = compiler_path(path, sizeof(path));

	if (r < 0) {
		snprintf(buf, size, "%s: %s",
			 r == -ENAMETOOLONG ? "its path" : "libaccel's path",
			 strerror(-r));
		return false;
	}
	if (access(path, R_OK) < 0) {
		snprintf(buf, size, "%s: %s", path, strerror(errno));
		return false;
	}
	snprintf(buf, size, "%s", path);
	return true;
}

bool cpu_compiler_available(void)
{
	char buf[PATH_MAX + 64];

	return cpu_compiler_locate(buf, sizeof(buf));
}

static void compiler_unload(struct cpu_compiler *c)
{
	if (c->handle)
		dlclose(c->handle);
	free(c);
}

static int compiler_load(struct accel_context *ctx, struct cpu_compiler **ret)
{
	struct cpu_compiler *c;
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
	*(void **)&c->compile_il = dlsym(c->handle, "accelc_compile_il");
	*(void **)&c->get_timings =
		dlsym(c->handle, "accelc_result_get_timings");
	if (!c->compile || !c->result_free || !c->get_log || !c->get_path ||
	    !c->get_kernel_count || !c->get_kernel || !c->load_binary ||
	    !c->get_container || !c->get_cache_status ||
	    !c->compile_object || !c->link || !c->get_kind ||
	    !c->get_global_size || !c->compile_il) {
		log_err(ctx, "%s: not a libaccel compiler module\n", path);
		compiler_unload(c);
		return -EOPNOTSUPP;
	}
	*ret = c;
	return 0;
}

/* The device's compiler, loaded on first use. */
static int device_compiler(struct accel_device *dev, struct cpu_compiler **ret)
{
	struct cpu_device *cpu = dev->backend_data;
	struct cpu_compiler *c, *spare = NULL;
	int r;

	c = atomic_load_explicit(&cpu->compiler, memory_order_acquire);
	if (c) {
		*ret = c;
		return 0;
	}
	/*
	 * Loaded without the lock: mapping LLVM takes a while, and the
	 * device's lock also guards starting the pool. Two first users may
	 * both load; one copy is kept (the module itself is mapped once).
	 */
	r = compiler_load(dev->ctx, &c);
	if (r < 0)
		return r;
	pthread_mutex_lock(&cpu->lock);
	if (atomic_load_explicit(&cpu->compiler, memory_order_relaxed))
		spare = c;
	else
		atomic_store_explicit(&cpu->compiler, c, memory_order_release);
	*ret = atomic_load_explicit(&cpu->compiler, memory_order_relaxed);
	pthread_mutex_unlock(&cpu->lock);
	if (spare)
		compiler_unload(spare);
	return 0;
}

void cpu_compiler_destroy(struct cpu_compiler *c)
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

/* Free what describe_kernels() made for the first @n kernels. */
static void free_infos(struct accel_kernel_info *infos, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		free((void *)infos[i].args);
		free(infos[i].handle);
	}
	free(infos);
}

/* An image argument's access qualifier as ACCEL_IMAGE_ACCESS_* bits. */
static uint32_t image_access(const struct accelc_arg_info *a)
{
	uint32_t bits = 0;

	switch (a->access) {
	case ACCELC_ACCESS_READ_ONLY:
		bits = ACCEL_IMAGE_ACCESS_READ;
		break;
	case ACCELC_ACCESS_WRITE_ONLY:
		bits = ACCEL_IMAGE_ACCESS_WRITE;
		break;
	case ACCELC_ACCESS_READ_WRITE:
		bits = ACCEL_IMAGE_ACCESS_READ | ACCEL_IMAGE_ACCESS_WRITE;
		break;
	default: /* none: the program is refused (accel_program_create()) */
		break;
	}
	if (a->image_flags & ACCELC_IMAGE_DEPTH)
		bits |= ACCEL_KERNEL_ARG_IMAGE_DEPTH;
	return bits;
}

/*
 * Kernel descriptions for accel_program_create(), pointing into @res,
 * each with its code (struct cpu_kernel) as the handle.
 */
static int describe_kernels(struct cpu_compiler *c,
			    const struct accelc_result *res,
			    struct cpu_program *cp,
			    struct accel_kernel_info **ret, uint32_t *n)
{
	void *handle = cp->handle;
	struct accel_kernel_info *infos;
	uint32_t i, j, count = c->get_kernel_count(res);

	infos = calloc(count ? count : 1, sizeof(*infos));
	if (!infos)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		const struct accelc_kernel_info *k = c->get_kernel(res, i);
		struct accel_kernel_info *info = &infos[i];
		struct accel_kernel_arg_desc *args = NULL;
		struct cpu_kernel *ck;

		if (k->n_args) {
			args = calloc(k->n_args, sizeof(*args));
			if (!args)
				goto fail;
		}
		info->args = args;
		for (j = 0; j < k->n_args; j++) {
			args[j].struct_size = sizeof(args[j]);
			args[j].kind = k->args[j].kind;
			args[j].size = k->args[j].size;
			args[j].address_space = k->args[j].address_space;
			args[j].type_qualifiers = k->args[j].type_qualifiers;
			args[j].name = k->args[j].name;
			args[j].type_name = k->args[j].type_name;
			if (args[j].kind == ACCEL_KERNEL_ARG_IMAGE) {
				args[j].image_type = k->args[j].image_type;
				args[j].image_access =
					image_access(&k->args[j]);
			}
		}
		ck = calloc(1, sizeof(*ck));
		if (!ck)
			goto fail;
		info->handle = ck;
		*(void **)&ck->fn = dlsym(handle, k->wg_symbol);
		if (!ck->fn)
			goto fail;
		ck->streaming_fn = variant(handle, k->wg_symbol,
					   ACCEL_WG_STREAMING_SUFFIX);
		ck->ids32_fn = variant(handle, k->wg_symbol,
				       ACCEL_WG_IDS32_SUFFIX);
		if (k->flags & ACCELC_KERNEL_USES_PRINTF)
			ck->flags |= CPU_KERNEL_PRINTF;
		if (k->flags & ACCELC_KERNEL_DENORMS_ZERO)
			ck->flags |= CPU_KERNEL_DENORMS_ZERO;
		if (k->flags & ACCELC_KERNEL_FIBERS)
			ck->flags |= CPU_KERNEL_FIBERS;
		if ((k->flags & ACCELC_KERNEL_STREAMING_LATER) && cp->source) {
			cp->names[i] = strdup(k->name);
			if (!cp->names[i])
				goto fail;
			ck->later = cp;
			ck->later_index = i;
		}
		/*
		 * Compiled kernels handle barriers inside the generated code
		 * (work-item loops over barrier-free regions, fibers as the
		 * fallback), so they need nothing from the runtime's barrier
		 * hook: ACCEL_KERNEL_HAS_BARRIERS is not set.
		 */
		info->flags = k->flags & ACCELC_KERNEL_GROUP_INVARIANT ?
				      ACCEL_KERNEL_GROUP_INVARIANT :
				      0;
		info->name = k->name;
		info->n_args = k->n_args;
		info->static_local_size = k->static_local_size;
		memcpy(info->reqd_wg_size, k->reqd_work_group_size,
		       sizeof(info->reqd_wg_size));
		memcpy(info->wg_size_hint, k->work_group_size_hint,
		       sizeof(info->wg_size_hint));
		info->vec_type_hint = k->vec_type_hint;
		info->private_size = k->private_size;
		info->private_per_item = k->private_per_item;
		info->sub_group_size = k->sub_group_size;
		info->reqd_sub_group_size = k->reqd_sub_group_size;
		info->private_size_known =
			!(k->flags & ACCELC_KERNEL_STACK_UNKNOWN);
	}
	*ret = infos;
	*n = count;
	return 0;
fail:
	free_infos(infos, i + 1);
	return -EIO;
}

/*
 * A program from a successful result: its code dlopen()ed (the mapping
 * outlives the result's memfd), its kernels described, its container kept
 * for accel_program_get_binary().
 */
static int program_from_result(struct accel_device *dev,
			       struct cpu_compiler *c,
			       const struct accelc_result *res,
			       const struct accel_build_request *later,
			       struct accel_program **ret)
{
	struct accel_program_desc desc = { .kind = c->get_kind(res) };
	struct accel_kernel_info *infos = NULL;
	struct cpu_program *cp;
	uint32_t i, count;
	void *handle;
	int r;

	if (c->get_container(res, &desc.binary, &desc.binary_size) < 0)
		return -EIO;
	/* objects and libraries: bitcode to link, nothing to load */
	if (desc.kind != ACCELC_KIND_EXECUTABLE)
		return accel_program_create(dev, &desc, ret);
	if (!c->get_path(res))
		return -EIO;
	r = cpu_program_dlopen(dev->ctx, c->get_path(res), &handle);
	if (r < 0)
		return r;
	count = c->get_kernel_count(res);
	cp = cpu_program_new(dev, handle, count);
	if (!cp) {
		dlclose(handle);
		return -ENOMEM;
	}
	for (i = 0; later && i < count; i++)
		if (c->get_kernel(res, i)->flags &
		    ACCELC_KERNEL_STREAMING_LATER)
			break;
	if (later && i < count &&
	    !cpu_program_keep_source(cp, later->source, later->length,
				     later->options)) {
		cpu_program_free(cp);
		return -ENOMEM;
	}
	r = describe_kernels(c, res, cp, &infos, &desc.n_kernels);
	if (r < 0) {
		cpu_program_free(cp);
		return r;
	}
	desc.kernels = infos;
	desc.global_size = c->get_global_size(res);
	desc.backend_data = cp;
	/* on failure too the handles are the core's to free */
	r = accel_program_create(dev, &desc, ret);
	for (i = 0; i < desc.n_kernels; i++)
		free((void *)infos[i].args);
	free(infos);
	/* after the kernels: their code is in it */
	if (r < 0)
		cpu_program_free(cp);
	return r;
}

int cpu_compiler_build_variants(struct cpu_program *cp)
{
	struct accelc_options opts = {
		.struct_size = sizeof(opts),
		.build_options = cp->options,
	};
	struct accelc_result *res = NULL;
	struct cpu_compiler *c;
	uint32_t i, j, count;
	accel_wg_fn fn;
	void *handle;
	int r, made = 0;

	/* loaded: the program was built with it */
	r = device_compiler(cp->dev, &c);
	if (r < 0)
		return r;
	r = c->compile(&opts, cp->source, cp->length, &res);
	if (r < 0 || !c->get_path(res)) {
		if (res)
			log_dbg(cp->dev->ctx, "%s", c->get_log(res));
		c->result_free(res);
		return r < 0 ? r : -EIO;
	}
	handle = dlopen(c->get_path(res), RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		log_dbg(cp->dev->ctx, "streaming variants: %s\n", dlerror());
		c->result_free(res);
		return -EIO;
	}
	count = c->get_kernel_count(res);
	for (i = 0; i < count; i++) {
		const struct accelc_kernel_info *k = c->get_kernel(res, i);

		/* the same source: the same kernels, matched by name */
		for (j = 0; j < cp->n_kernels; j++)
			if (cp->names[j] && !strcmp(cp->names[j], k->name))
				break;
		if (j == cp->n_kernels)
			continue;
		fn = variant(handle, k->wg_symbol, ACCEL_WG_STREAMING_SUFFIX);
		/* release: its code mapped before a launch can call it */
		atomic_store_explicit(&cp->streaming[j], fn,
				      memory_order_release);
		made += fn != NULL;
	}
	c->result_free(res);
	cp->later_handle = handle;
	return made;
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

/* the same layout: accelc mirrors the public struct (ACCEL_BUILD_IL) */
_Static_assert(sizeof(struct accelc_spec_const) ==
		       sizeof(struct accel_spec_constant),
	       "spec constant layouts differ");

/*
 * What every build call does with the compiler's answer: the log to the
 * caller (build failures too), the program made on success.
 */
/*
 * A build that took ACCEL_BUILD_REPORT_MS or more says at info where the
 * time went: the steps of 1% of it or more, in the order they ran
 * (loading the compiler module first, on the device's first build).
 */
static void report_slow(struct accel_device *dev, struct cpu_compiler *c,
			const struct accelc_result *res, uint64_t ns,
			uint64_t load_ns)
{
	const struct cpu_device *cpu = dev->backend_data;
	char steps[512], step[64];
	unsigned long long t;
	const char *p;
	size_t len = 0;
	int n;

	if (ns < cpu->build_report_ns || !c->get_timings || !res ||
	    !accel_log_enabled(dev->ctx, ACCEL_LOG_INFO))
		return;
	p = c->get_timings(res);
	if (!p)
		return; /* nothing was built: a cache hit */
	steps[0] = '\0';
	if (load_ns * 100 >= ns)
		len = (size_t)snprintf(steps, sizeof(steps),
				       " loading the compiler %.0f ms",
				       (double)load_ns / 1e6);
	while (sscanf(p, "%63s %llu%n", step, &t, &n) == 2) {
		p += n;
		p += strspn(p, "\n");
		if (t * 100 < ns || len >= sizeof(steps))
			continue;
		n = snprintf(steps + len, sizeof(steps) - len, "%s %s %.0f ms",
			     len ? "," : "", step, (double)t / 1e6);
		if (n > 0)
			len += (size_t)n;
	}
	log_info(dev->ctx, "building the program took %.2f s:%s\n",
		 (double)ns / 1e9, steps);
}

static int build_done(struct accel_device *dev, struct cpu_compiler *c,
		      int r, struct accelc_result *res,
		      const struct accel_build_request *later, char **ret_log,
		      struct accel_program **ret, uint64_t start, uint64_t load)
{
	uint32_t cs;

	report_slow(dev, c, res, accel_now_ns() - start, load);
	if (res && ret_log) {
		*ret_log = strdup(c->get_log(res));
		if (!*ret_log)
			r = r < 0 ? r : -ENOMEM;
	}
	if (r == 0) {
		cs = c->get_cache_status(res);
		log_dbg(dev->ctx, "program cache: %s\n",
			cs < 3 ? cache_status[cs] : "?");
		r = program_from_result(dev, c, res, later, ret);
		/* compiled, but not loadable here: the log says why */
		if (r < 0 && ret_log)
			append_load_error(dev, r, ret_log);
	}
	c->result_free(res);
	return r;
}

int cpu_program_build(struct accel_device *dev,
		      const struct accel_build_request *req, char **ret_log,
		      struct accel_program **ret)
{
	struct accelc_options opts = {
		.struct_size = sizeof(opts),
		.build_options = req->options,
	};
	const struct accel_build_request *later = NULL;
	struct accelc_result *res = NULL;
	struct cpu_compiler *c;
	const void **data;
	size_t *sizes;
	uint32_t i, n = req->n_inputs;
	uint64_t start = accel_now_ns(), load;
	int r;

	r = device_compiler(dev, &c);
	if (r < 0)
		return r;
	load = accel_now_ns() - start;
	switch (req->kind) {
	case ACCEL_BUILD_SOURCE:
		/* streaming variants when a launch wants them, unless all do */
		if (cpu_streaming_min(dev) > 0) {
			opts.flags |= ACCELC_FLAG_STREAMING_LATER;
			later = req;
		}
		r = c->compile(&opts, req->source, req->length, &res);
		break;
	case ACCEL_BUILD_OBJECT:
		r = c->compile_object(&opts, req->source, req->length,
				      req->n_headers, req->header_names,
				      req->header_sources, &res);
		break;
	case ACCEL_BUILD_IL:
		r = c->compile_il(&opts, req->il, req->il_size, req->n_spec,
				  (const struct accelc_spec_const *)req->spec,
				  req->il_flags & ACCEL_IL_OBJECT ?
					  ACCELC_IL_OBJECT : 0,
				  &res);
		break;
	case ACCEL_BUILD_LINK:
		data = calloc(n, sizeof(*data));
		sizes = calloc(n, sizeof(*sizes));
		if (!data || !sizes) {
			free(data);
			free(sizes);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++) {
			data[i] = req->inputs[i]->binary;
			sizes[i] = req->inputs[i]->binary_size;
		}
		r = c->link(&opts, n, data, sizes,
			    req->link_flags & ACCEL_LINK_LIBRARY ?
				    ACCELC_LINK_LIBRARY :
				    0,
			    &res);
		free(data);
		free(sizes);
		break;
	default:
		return -EINVAL;
	}
	return build_done(dev, c, r, res, later, ret_log, ret, start, load);
}

int cpu_program_load_binary(struct accel_device *dev, const void *data,
			    size_t size, struct accel_program **ret)
{
	struct accelc_result *res = NULL;
	struct cpu_compiler *c;
	int r;

	r = device_compiler(dev, &c);
	if (r < 0)
		return r;
	r = c->load_binary(NULL, data, size, &res);
	if (r < 0 && res)
		log_dbg(dev->ctx, "%s", c->get_log(res));
	if (r == 0)
		r = program_from_result(dev, c, res, NULL, ret);
	c->result_free(res);
	return r;
}
