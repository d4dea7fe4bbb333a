/* SPDX-License-Identifier: MIT */
/*
 * The library context: root of every object's lifetime, logging settings,
 * the device-node open interface and the enumerated devices.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "backend.h"

/* The static table of backends, probed in this order. */
static const struct accel_backend_ops *const backends[] = {
	&accel_cpu_backend,
	&accel_drm_backend,
	&accel_accel_backend,
};

_printf_(6, 0)
static void log_stderr(struct accel_context *ctx _unused_, int priority,
		       const char *file _unused_, int line _unused_,
		       const char *fn, const char *format, va_list args,
		       void *user_data _unused_)
{
	static const char *const names[] = {
		[ACCEL_LOG_ERR] = "error", [ACCEL_LOG_WARNING] = "warning",
		[ACCEL_LOG_INFO] = "info", [ACCEL_LOG_DEBUG] = "debug",
	};
	const char *name = priority >= 0 && priority < (int)ARRAY_SIZE(names) &&
					   names[priority] ?
				   names[priority] :
				   "log";

	/* debug lines carry the time, to see where a slow call spends it */
	if (priority >= ACCEL_LOG_DEBUG) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		fprintf(stderr, "[%lld.%06ld] ", (long long)ts.tv_sec,
			ts.tv_nsec / 1000);
	}
	fprintf(stderr, "libaccel %s: %s: ", name, fn);
	vfprintf(stderr, format, args);
}

static int parse_priority(const char *s)
{
	char *end;
	long v;

	if (!strcasecmp(s, "err") || !strcasecmp(s, "error"))
		return ACCEL_LOG_ERR;
	if (!strcasecmp(s, "warning") || !strcasecmp(s, "warn"))
		return ACCEL_LOG_WARNING;
	if (!strcasecmp(s, "info"))
		return ACCEL_LOG_INFO;
	if (!strcasecmp(s, "debug"))
		return ACCEL_LOG_DEBUG;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 7)
		return -EINVAL;
	return (int)v;
}

ACCEL_EXPORT const char *accel_get_version(void)
{
	return ACCEL_VERSION_STRING;
}

static int env_open(void *data, const char *path, int flags)
{
	return accel_context_open(data, path, flags);
}

static void env_close(void *data, int fd)
{
	accel_context_close(data, fd);
}

static bool env_log_enabled(void *data, int priority)
{
	return accel_log_enabled(data, priority);
}

static void env_log(void *data, int priority, const char *file, int line,
		    const char *fn, const char *format, va_list ap)
{
	accel_logv(data, priority, file, line, fn, format, ap);
}

ACCEL_EXPORT int accel_context_new(uint32_t flags, struct accel_context **ret)
{
	struct accel_context *ctx;
	const char *env;
	int prio = ACCEL_LOG_ERR;

	if (!ret || (flags & ~ACCEL_CONTEXT_FLAGS_ALL))
		return -EINVAL;

	/* over-aligned (ACCEL_CACHE_LINE) */
	ctx = aligned_alloc(_Alignof(struct accel_context), sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	memset(ctx, 0, sizeof(*ctx));
	atomic_init(&ctx->refcount, 1);
	pthread_mutex_init(&ctx->lock, NULL);
	pthread_mutex_init(&ctx->enum_lock, NULL);
	accel_recycle_init(&ctx->fence_cache, ACCEL_FENCE_CACHE_MAX);
	ctx->log_fn = log_stderr;
	ctx->penv = (struct accel_platform_env){
		.open = env_open,
		.close = env_close,
		.log_enabled = env_log_enabled,
		.log = env_log,
		.data = ctx,
	};

	env = secure_getenv("ACCEL_LOG");
	if (env && *env) {
		int p = parse_priority(env);

		if (p >= 0)
			prio = p;
	}
	atomic_init(&ctx->log_priority, prio);
	atomic_init(&ctx->enumerated, false);

	log_dbg(ctx, "context %p created\n", (void *)ctx);
	*ret = ctx;
	return 0;
}

ACCEL_EXPORT struct accel_context *accel_context_ref(struct accel_context *ctx)
{
	if (ctx)
		atomic_fetch_add_explicit(&ctx->refcount, 1,
					  memory_order_relaxed);
	return ctx;
}

ACCEL_EXPORT struct accel_context *
accel_context_unref(struct accel_context *ctx)
{
	size_t i;

	if (!ctx)
		return NULL;
	if (atomic_fetch_sub_explicit(&ctx->refcount, 1,
				      memory_order_acq_rel) != 1)
		return NULL;

	/*
	 * Nothing can reach the devices any more: every object that could
	 * (buffers, queues, in-flight commands, fences) holds a context
	 * reference through them.
	 */
	accel_poller_destroy(ctx->poller);
	for (i = 0; i < ctx->n_devices; i++)
		accel_device_destroy(ctx->devices[i]);
	free(ctx->devices);
	for (i = 0; i < ctx->n_gone; i++)
		accel_device_destroy(ctx->gone[i]);
	free(ctx->gone);
	accel_candidates_free(ctx->candidates);
	accel_stats_free(ctx->stats);
	accel_fence_cache_drain(ctx);
	accel_recycle_fini(&ctx->fence_cache);
	pthread_mutex_destroy(&ctx->enum_lock);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
	return NULL;
}

ACCEL_EXPORT int accel_context_set_log_fn(struct accel_context *ctx,
					  accel_log_fn fn, void *user_data)
{
	if (!ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	ctx->log_fn = fn;
	ctx->log_data = user_data;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

ACCEL_EXPORT int accel_context_set_log_priority(struct accel_context *ctx,
						int priority)
{
	if (!ctx || priority < 0 || priority > 7)
		return -EINVAL;
	atomic_store_explicit(&ctx->log_priority, priority,
			      memory_order_relaxed);
	return 0;
}

ACCEL_EXPORT int accel_context_get_log_priority(struct accel_context *ctx)
{
	if (!ctx)
		return -EINVAL;
	return atomic_load_explicit(&ctx->log_priority, memory_order_relaxed);
}

ACCEL_EXPORT int
accel_context_set_open_interface(struct accel_context *ctx,
				 const struct accel_open_interface *iface,
				 void *user_data)
{
	struct accel_open_interface copy = { 0 };

	if (!ctx)
		return -EINVAL;
	if (iface) {
		size_t need = offsetof(struct accel_open_interface,
				       close_restricted) +
			      sizeof(iface->close_restricted);

		if (iface->struct_size < need)
			return -EINVAL;
		if (!iface->open_restricted != !iface->close_restricted)
			return -EINVAL;
		copy.struct_size = sizeof(copy);
		copy.open_restricted = iface->open_restricted;
		copy.close_restricted = iface->close_restricted;
	}

	pthread_mutex_lock(&ctx->lock);
	ctx->open_iface = copy;
	ctx->open_data = iface ? user_data : NULL;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

int accel_context_open(struct accel_context *ctx, const char *path, int flags)
{
	int (*open_fn)(const char *, int, void *);
	void *data;
	int fd;

	pthread_mutex_lock(&ctx->lock);
	open_fn = ctx->open_iface.open_restricted;
	data = ctx->open_data;
	pthread_mutex_unlock(&ctx->lock);

	flags |= O_CLOEXEC;
	if (open_fn) {
		/* A negative errno, as documented (-1 is -EPERM). */
		return open_fn(path, flags, data);
	}
	fd = open(path, flags);
	return fd < 0 ? -errno : fd;
}

void accel_context_close(struct accel_context *ctx, int fd)
{
	void (*close_fn)(int, void *);
	void *data;

	if (fd < 0)
		return;
	pthread_mutex_lock(&ctx->lock);
	close_fn = ctx->open_iface.close_restricted;
	data = ctx->open_data;
	pthread_mutex_unlock(&ctx->lock);

	if (close_fn)
		close_fn(fd, data);
	else
		close(fd);
}

ACCEL_EXPORT int accel_context_set_user_data(struct accel_context *ctx,
					     void *user_data)
{
	if (!ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	ctx->user_data = user_data;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

ACCEL_EXPORT void *accel_context_get_user_data(struct accel_context *ctx)
{
	void *data;

	if (!ctx)
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	data = ctx->user_data;
	pthread_mutex_unlock(&ctx->lock);
	return data;
}

int accel_context_add_device(struct accel_context *ctx,
			     struct accel_device *dev)
{
	struct accel_device **devices;

	pthread_mutex_lock(&ctx->lock);
	devices = realloc(ctx->devices,
			  (ctx->n_devices + 1) * sizeof(*ctx->devices));
	if (!devices) {
		pthread_mutex_unlock(&ctx->lock);
		return -ENOMEM;
	}
	devices[ctx->n_devices++] = dev;
	ctx->devices = devices;
	pthread_mutex_unlock(&ctx->lock);
	accel_stats_add_device(ctx, dev);
	return 0;
}

/* The device a claiming probe appended, or NULL if it added none. */
static struct accel_device *claimed_device(struct accel_context *ctx,
					   size_t before)
{
	struct accel_device *dev = NULL;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_devices > before)
		dev = ctx->devices[ctx->n_devices - 1];
	pthread_mutex_unlock(&ctx->lock);
	return dev;
}

int accel_context_probe(struct accel_context *ctx,
			const struct accel_udev_info *info)
{
	size_t i, before;

	pthread_mutex_lock(&ctx->lock);
	before = ctx->n_devices;
	pthread_mutex_unlock(&ctx->lock);

	for (i = 0; i < ARRAY_SIZE(backends); i++) {
		struct accel_device *dev;
		int r;

		if (!backends[i]->probe)
			continue;
		r = backends[i]->probe(ctx, info);
		if (r > 0) {
			dev = claimed_device(ctx, before);
			/* Hot-plug finds the device again by its sysfs path. */
			if (dev && !*dev->strings[ACCEL_DEVICE_STRING_SYSPATH])
				accel_device_set_string(
					dev, ACCEL_DEVICE_STRING_SYSPATH,
					info->syspath);
			accel_candidate_add(ctx, info, dev);
			return 0;
		}
		if (r < 0) {
			log_warn(ctx, "%s: backend %s failed: %s\n",
				 info->devnode, backends[i]->name, strerror(-r));
			accel_candidate_add(ctx, info, NULL);
			return 0;
		}
	}
	log_dbg(ctx, "%s (driver '%s'): no backend for it\n", info->devnode,
		info->driver);
	accel_candidate_add(ctx, info, NULL);
	return 0;
}

static int probe_one(const struct accel_udev_info *info, void *data)
{
	return accel_context_probe(data, info);
}

/* One-time enumeration, done on first use so that a context is cheap. */
static void context_enumerate(struct accel_context *ctx)
{
	size_t i;
	int r;

	if (atomic_load_explicit(&ctx->enumerated, memory_order_acquire))
		return;

	pthread_mutex_lock(&ctx->enum_lock);
	if (!atomic_load_explicit(&ctx->enumerated, memory_order_relaxed)) {
		for (i = 0; i < ARRAY_SIZE(backends); i++) {
			if (!backends[i]->enumerate_builtin)
				continue;
			r = backends[i]->enumerate_builtin(ctx);
			if (r < 0)
				log_err(ctx, "backend %s: enumeration failed: %s\n",
					backends[i]->name, strerror(-r));
		}
		r = accel_udev_enumerate(accel_context_env(ctx), probe_one,
					 ctx);
		if (r < 0)
			log_info(ctx, "device discovery failed: %s\n",
				 strerror(-r));
		atomic_store_explicit(&ctx->enumerated, true,
				      memory_order_release);
	}
	pthread_mutex_unlock(&ctx->enum_lock);
}

ACCEL_EXPORT int accel_context_get_devices(struct accel_context *ctx,
					   struct accel_device **devices,
					   size_t max)
{
	size_t i, n;

	if (!ctx || (!devices && max > 0))
		return -EINVAL;

	context_enumerate(ctx);

	pthread_mutex_lock(&ctx->lock);
	n = ctx->n_devices;
	for (i = 0; i < n && i < max; i++)
		devices[i] = accel_device_ref(ctx->devices[i]);
	pthread_mutex_unlock(&ctx->lock);

	if (n > INT32_MAX)
		return -EOVERFLOW;
	return (int)n;
}
