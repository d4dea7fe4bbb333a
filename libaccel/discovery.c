/* SPDX-License-Identifier: MIT */
/*
 * Discovery diagnostics: a record of every candidate device enumeration
 * offered to the backends, and for the unclaimed ones the reason, found
 * on the first query (lazily: it opens their nodes, which an application
 * that never asks should not pay for). The most common "where is my
 * device" causes are node permissions, the cgroup device controller of
 * containers and a missing /sys/class/accel; the node checks themselves
 * are the platform's (platform/node-check.c). Also the public hot-plug
 * calls, whose monitor lives with the candidates.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

struct candidate {
	char *s[ACCEL_CANDIDATE_STRING_COUNT];
	uint64_t u[ACCEL_CANDIDATE_U64_COUNT];
};

struct accel_candidates {
	struct candidate *v;
	size_t n, cap;
	bool diagnosed;   /* guarded by the context's enum_lock */
	int status;       /* enum accel_candidate_reason, context level */
	const char *status_message;

	/*
	 * Hot-plug, kept here with the rest of discovery's per-context
	 * state (made once, under enum_lock; freed with the context).
	 */
	struct accel_udev_monitor *monitor;
	accel_hotplug_fn hotplug_fn;
	void *hotplug_data;
};

static struct accel_candidates *list_get(struct accel_context *ctx)
{
	if (!ctx->candidates)
		ctx->candidates = calloc(1, sizeof(*ctx->candidates));
	return ctx->candidates;
}

static void candidate_fini(struct candidate *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c->s); i++)
		free(c->s[i]);
}

void accel_candidates_free(struct accel_candidates *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		candidate_fini(&list->v[i]);
	free(list->v);
	accel_udev_monitor_free(list->monitor);
	free(list);
}

void accel_candidates_clear(struct accel_context *ctx)
{
	struct accel_candidates *list = ctx->candidates;
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		candidate_fini(&list->v[i]);
	list->n = 0;
	list->diagnosed = false;
}

void accel_candidate_add(struct accel_context *ctx,
			 const struct accel_udev_info *info,
			 struct accel_device *dev)
{
	struct accel_candidates *list = list_get(ctx);
	const char *backend = dev ? dev->ops->name : NULL;
	const char *strings[ACCEL_CANDIDATE_STRING_COUNT] = {
		[ACCEL_CANDIDATE_STRING_DEVNODE] = info->devnode,
		[ACCEL_CANDIDATE_STRING_RENDER_DEVNODE] = info->render_devnode,
		[ACCEL_CANDIDATE_STRING_SYSNAME] = info->sysname,
		[ACCEL_CANDIDATE_STRING_SYSPATH] = info->syspath,
		[ACCEL_CANDIDATE_STRING_SUBSYSTEM] = info->subsystem,
		/*
		 * A bare platform parent (vgem) has no driver bound: the
		 * claiming backend asked the kernel driver its name.
		 */
		[ACCEL_CANDIDATE_STRING_DRIVER] =
			*info->driver || !dev ?
				info->driver :
				dev->strings[ACCEL_DEVICE_STRING_DRIVER],
		[ACCEL_CANDIDATE_STRING_BUS] = info->bus,
		[ACCEL_CANDIDATE_STRING_PCI_SLOT] = info->pci_slot,
		[ACCEL_CANDIDATE_STRING_BACKEND] = backend ? backend : "",
	};
	struct candidate *c;
	size_t i;

	if (!list)
		goto oom;
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct candidate *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			goto oom;
		list->v = v;
		list->cap = cap;
	}
	c = &list->v[list->n];
	*c = (struct candidate){ 0 };
	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		c->s[i] = strdup(strings[i] ? strings[i] : "");
		if (!c->s[i]) {
			candidate_fini(c);
			goto oom;
		}
	}
	c->u[ACCEL_CANDIDATE_U64_DEVICE_INDEX] = ACCEL_CANDIDATE_NONE;
	if (dev) {
		pthread_mutex_lock(&ctx->lock);
		for (i = 0; i < ctx->n_devices; i++)
			if (ctx->devices[i] == dev)
				c->u[ACCEL_CANDIDATE_U64_DEVICE_INDEX] = i;
		pthread_mutex_unlock(&ctx->lock);
	}
	c->u[ACCEL_CANDIDATE_U64_VENDOR_ID] = info->vendor_id;
	c->u[ACCEL_CANDIDATE_U64_DEVICE_ID] = info->device_id;
	c->u[ACCEL_CANDIDATE_U64_SUBSYSTEM_VENDOR_ID] =
		info->subsystem_vendor_id;
	c->u[ACCEL_CANDIDATE_U64_SUBSYSTEM_DEVICE_ID] =
		info->subsystem_device_id;
	c->u[ACCEL_CANDIDATE_U64_NUMA_NODE] =
		info->numa_node < 0 ? ACCEL_CANDIDATE_NONE :
				      (uint64_t)info->numa_node;
	c->u[ACCEL_CANDIDATE_U64_DEVNUM] = (uint64_t)info->devnum;
	list->n++;
	return;
oom:
	log_err(ctx, "%s: out of memory recording it for diagnostics\n",
		info->devnode);
}

/* ---- diagnosis ------------------------------------------------------ */

_printf_(3, 4)
static void set_reason(struct candidate *c, int reason, const char *fmt, ...)
{
	va_list args;
	char *msg;

	c->u[ACCEL_CANDIDATE_U64_REASON] = (uint64_t)reason;
	va_start(args, fmt);
	if (vasprintf(&msg, fmt, args) < 0)
		msg = NULL;
	va_end(args);
	/* The reason code stands even when the words do not fit in memory. */
	free(c->s[ACCEL_CANDIDATE_STRING_REASON_MESSAGE]);
	c->s[ACCEL_CANDIDATE_STRING_REASON_MESSAGE] = msg;
}

static void diagnose_one(struct accel_context *ctx, struct candidate *c)
{
	static const int reasons[] = {
		[ACCEL_NODE_OPENS] = ACCEL_CANDIDATE_NO_BACKEND,
		[ACCEL_NODE_MISSING] = ACCEL_CANDIDATE_NODE_MISSING,
		[ACCEL_NODE_PERMISSION_DENIED] =
			ACCEL_CANDIDATE_PERMISSION_DENIED,
		[ACCEL_NODE_CGROUP_DENIED] = ACCEL_CANDIDATE_CGROUP_DENIED,
		[ACCEL_NODE_NO_DRIVER] = ACCEL_CANDIDATE_NO_DRIVER,
		[ACCEL_NODE_OPEN_FAILED] = ACCEL_CANDIDATE_OPEN_FAILED,
	};
	const char *backend = c->s[ACCEL_CANDIDATE_STRING_BACKEND];
	struct accel_node_verdict v;

	if (*backend) {
		set_reason(c, ACCEL_CANDIDATE_OK, "usable: claimed by the %s backend",
			   backend);
		return;
	}
	accel_node_check(accel_context_env(ctx),
			 c->s[ACCEL_CANDIDATE_STRING_DEVNODE],
			 c->s[ACCEL_CANDIDATE_STRING_RENDER_DEVNODE],
			 c->s[ACCEL_CANDIDATE_STRING_DRIVER], &v);
	c->u[ACCEL_CANDIDATE_U64_REASON] = (uint64_t)reasons[v.reason];
	c->u[ACCEL_CANDIDATE_U64_OPEN_ERRNO] = (uint64_t)v.open_errno;
	if (v.has_group) {
		free(c->s[ACCEL_CANDIDATE_STRING_NODE_GROUP]);
		c->s[ACCEL_CANDIDATE_STRING_NODE_GROUP] = v.group;
	}
	if (v.reason == ACCEL_NODE_OPENS) {
		/* What the platform cannot know: no backend wanted it. */
		free(v.message);
		set_reason(c, ACCEL_CANDIDATE_NO_BACKEND,
			   "driver '%s' is bound and %s opens, but no libaccel backend took the device (none supports the driver, or one declined: ACCEL_LOG=debug says why)",
			   c->s[ACCEL_CANDIDATE_STRING_DRIVER], v.path);
		return;
	}
	free(c->s[ACCEL_CANDIDATE_STRING_REASON_MESSAGE]);
	c->s[ACCEL_CANDIDATE_STRING_REASON_MESSAGE] = v.message;
}

static void diagnose_context(struct accel_candidates *list)
{
	const char *msg;

	if (access("/sys/class", F_OK) < 0) {
		list->status = ACCEL_CANDIDATE_NO_SYSFS;
		msg = "no /sys/class (a container without sysfs?): no device can be discovered, only the CPU device is available";
	} else if (access("/sys/class/accel", F_OK) < 0) {
		list->status = ACCEL_CANDIDATE_NO_ACCEL_CLASS;
		msg = "no /sys/class/accel (kernel without the accel subsystem, no accel driver loaded, or a container hiding it): accel devices cannot be discovered";
	} else {
		list->status = ACCEL_CANDIDATE_OK;
		msg = "discovery sees accel and DRM devices";
	}
	list->status_message = msg;
}

/* Enumerate if needed, then diagnose once; returns the list locked. */
static int candidates_lock(struct accel_context *ctx,
			   struct accel_candidates **ret)
{
	struct accel_candidates *list;
	size_t i;

	if (!ctx)
		return -EINVAL;
	/*
	 * Called to enumerate. With a context it only fails for a count
	 * past INT32_MAX (-EOVERFLOW), which does not matter here.
	 */
	accel_context_get_devices(ctx, NULL, 0);

	pthread_mutex_lock(&ctx->enum_lock);
	list = list_get(ctx);
	if (!list) {
		pthread_mutex_unlock(&ctx->enum_lock);
		return -ENOMEM;
	}
	if (!list->diagnosed) {
		diagnose_context(list);
		for (i = 0; i < list->n; i++)
			diagnose_one(ctx, &list->v[i]);
		list->diagnosed = true;
	}
	*ret = list;
	return 0;
}

static void candidates_unlock(struct accel_context *ctx)
{
	pthread_mutex_unlock(&ctx->enum_lock);
}

ACCEL_EXPORT int accel_context_get_candidate_count(struct accel_context *ctx)
{
	struct accel_candidates *list;
	int r;

	r = candidates_lock(ctx, &list);
	if (r < 0)
		return r;
	r = list->n > INT32_MAX ? -EOVERFLOW : (int)list->n;
	candidates_unlock(ctx);
	return r;
}

/* Lock the list and find candidate @idx (-ENOENT past the end). */
static int candidate_lock(struct accel_context *ctx, size_t idx,
			  struct candidate **ret)
{
	struct accel_candidates *list;
	int r;

	r = candidates_lock(ctx, &list);
	if (r < 0)
		return r;
	if (idx >= list->n) {
		candidates_unlock(ctx);
		return -ENOENT;
	}
	*ret = &list->v[idx];
	return 0;
}

ACCEL_EXPORT int
accel_context_get_candidate_string(struct accel_context *ctx, size_t idx,
				   enum accel_candidate_string prop,
				   const char **ret)
{
	struct candidate *c;
	const char *s;
	int r;

	if (!ret || (unsigned)prop >= ACCEL_CANDIDATE_STRING_COUNT)
		return -EINVAL;
	r = candidate_lock(ctx, idx, &c);
	if (r < 0)
		return r;
	s = c->s[prop];
	candidates_unlock(ctx);
	/* Only a message lost to out-of-memory can be NULL. */
	*ret = s ? s : "";
	return 0;
}

ACCEL_EXPORT int accel_context_get_candidate_u64(struct accel_context *ctx,
						 size_t idx,
						 enum accel_candidate_u64 prop,
						 uint64_t *ret)
{
	struct candidate *c;
	uint64_t v;
	int r;

	if (!ret || (unsigned)prop >= ACCEL_CANDIDATE_U64_COUNT)
		return -EINVAL;
	r = candidate_lock(ctx, idx, &c);
	if (r < 0)
		return r;
	v = c->u[prop];
	candidates_unlock(ctx);
	*ret = v;
	return 0;
}

ACCEL_EXPORT int accel_context_get_discovery_status(struct accel_context *ctx,
						    const char **ret_message)
{
	struct accel_candidates *list;
	int r;

	r = candidates_lock(ctx, &list);
	if (r < 0)
		return r;
	r = list->status;
	if (ret_message)
		*ret_message = list->status_message;
	candidates_unlock(ctx);
	return r;
}

ACCEL_EXPORT const char *
accel_candidate_reason_name(enum accel_candidate_reason reason)
{
	static const char *const names[] = {
		[ACCEL_CANDIDATE_OK] = "ok",
		[ACCEL_CANDIDATE_NODE_MISSING] = "node-missing",
		[ACCEL_CANDIDATE_PERMISSION_DENIED] = "permission-denied",
		[ACCEL_CANDIDATE_CGROUP_DENIED] = "cgroup-denied",
		[ACCEL_CANDIDATE_NO_DRIVER] = "no-driver",
		[ACCEL_CANDIDATE_NO_BACKEND] = "no-backend",
		[ACCEL_CANDIDATE_OPEN_FAILED] = "open-failed",
		[ACCEL_CANDIDATE_NO_SYSFS] = "no-sysfs",
		[ACCEL_CANDIDATE_NO_ACCEL_CLASS] = "no-accel-class",
	};

	if ((unsigned)reason >= ARRAY_SIZE(names))
		return NULL;
	return names[reason];
}

/* ---- hot-plug ------------------------------------------------------- */

ACCEL_EXPORT int accel_context_set_hotplug_fn(struct accel_context *ctx,
					      accel_hotplug_fn fn,
					      void *user_data)
{
	struct accel_candidates *list;

	if (!ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->enum_lock);
	list = list_get(ctx);
	if (list) {
		list->hotplug_fn = fn;
		list->hotplug_data = fn ? user_data : NULL;
	}
	pthread_mutex_unlock(&ctx->enum_lock);
	return list ? 0 : -ENOMEM;
}

ACCEL_EXPORT int accel_context_get_monitor_fd(struct accel_context *ctx)
{
	struct accel_candidates *list;
	int r = 0, fd;

	if (!ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->enum_lock);
	list = list_get(ctx);
	if (!list)
		r = -ENOMEM;
	else if (!list->monitor)
		r = accel_udev_monitor_new(accel_context_env(ctx),
					   &list->monitor);
	if (r < 0) {
		pthread_mutex_unlock(&ctx->enum_lock);
		return r;
	}
	/* A new fd the caller owns, onto the socket the context keeps. */
	fd = fcntl(accel_udev_monitor_fd(list->monitor), F_DUPFD_CLOEXEC, 3);
	pthread_mutex_unlock(&ctx->enum_lock);
	return fd < 0 ? -errno : fd;
}

ACCEL_EXPORT int accel_context_dispatch(struct accel_context *ctx)
{
	struct accel_udev_monitor *mon;
	accel_hotplug_fn fn;
	void *data;

	if (!ctx)
		return -EINVAL;
	/* The handler runs unlocked: it may query the context. */
	pthread_mutex_lock(&ctx->enum_lock);
	mon = ctx->candidates ? ctx->candidates->monitor : NULL;
	fn = ctx->candidates ? ctx->candidates->hotplug_fn : NULL;
	data = ctx->candidates ? ctx->candidates->hotplug_data : NULL;
	pthread_mutex_unlock(&ctx->enum_lock);
	if (!mon)
		return -ENODEV;
	return accel_hotplug_dispatch(ctx, mon, fn, data);
}
