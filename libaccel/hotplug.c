/* SPDX-License-Identifier: MIT */
/*
 * Hot-plug refresh: after udev reported add or remove events, discovery
 * runs again so that the device list and the candidates match the
 * machine before the application's handler sees the events. Devices that
 * went away leave the list but stay allocated until the context goes:
 * buffers, queues and programs made on them still point at them, and
 * from now on refuse new work with -ENODEV.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

struct strset {
	char **v;
	size_t n, cap;
};

static int strset_add(struct strset *set, const char *s)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 8;
		char **v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		set->v = v;
		set->cap = cap;
	}
	set->v[set->n] = strdup(s);
	if (!set->v[set->n])
		return -ENOMEM;
	set->n++;
	return 0;
}

static bool strset_has(const struct strset *set, const char *s)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], s))
			return true;
	return false;
}

static void strset_fini(struct strset *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
	*set = (struct strset){ 0 };
}

static int note_present(const struct accel_udev_info *info, void *data)
{
	return strset_add(data, info->syspath);
}

/* Move device @idx to the gone list (enum_lock held, takes ctx->lock). */
static int device_unplug(struct accel_context *ctx, size_t idx)
{
	struct accel_device **gone, *dev;

	pthread_mutex_lock(&ctx->lock);
	gone = realloc(ctx->gone, (ctx->n_gone + 1) * sizeof(*gone));
	if (!gone) {
		pthread_mutex_unlock(&ctx->lock);
		return -ENOMEM;
	}
	ctx->gone = gone;
	dev = ctx->devices[idx];
	atomic_store_explicit(&dev->removed, true, memory_order_release);
	gone[ctx->n_gone++] = dev;
	memmove(&ctx->devices[idx], &ctx->devices[idx + 1],
		(ctx->n_devices - idx - 1) * sizeof(*ctx->devices));
	ctx->n_devices--;
	pthread_mutex_unlock(&ctx->lock);
	log_info(ctx, "%s (%s): unplugged\n",
		 dev->strings[ACCEL_DEVICE_STRING_NAME],
		 dev->strings[ACCEL_DEVICE_STRING_DEVNODE]);
	return 0;
}

/*
 * Whether a device made from discovery must go: its sysfs device is no
 * longer listed, or a remove event named its node. Built-in devices
 * (no sysfs path) never go.
 */
static bool device_gone(struct accel_device *dev, const struct strset *present,
			const struct strset *removed)
{
	const char *syspath = dev->strings[ACCEL_DEVICE_STRING_SYSPATH];
	const char *devnode = dev->strings[ACCEL_DEVICE_STRING_DEVNODE];

	if (!*syspath)
		return false;
	return !strset_has(present, syspath) ||
	       (*devnode && strset_has(removed, devnode));
}

/* The live device discovered at @syspath, or NULL. */
static struct accel_device *device_at(struct accel_context *ctx,
				      const char *syspath)
{
	struct accel_device *dev = NULL;
	size_t i;

	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < ctx->n_devices && !dev; i++)
		if (!strcmp(ctx->devices[i]->strings[ACCEL_DEVICE_STRING_SYSPATH],
			    syspath))
			dev = ctx->devices[i];
	pthread_mutex_unlock(&ctx->lock);
	return dev;
}

/* Known devices are recorded again; new ones are offered to backends. */
static int rescan_one(const struct accel_udev_info *info, void *data)
{
	struct accel_context *ctx = data;
	struct accel_device *dev = device_at(ctx, info->syspath);

	if (!dev)
		return accel_context_probe(ctx, info);
	accel_candidate_add(ctx, info, dev);
	return 0;
}

/*
 * Discovery again (enum_lock held): first which devices are still there,
 * then the candidates from scratch, probing only what is new.
 */
static void context_rescan(struct accel_context *ctx,
			   const struct strset *removed)
{
	struct strset present = { 0 };
	size_t i;
	int r;

	r = accel_udev_enumerate(accel_context_env(ctx), note_present,
				 &present);
	if (r < 0) {
		log_warn(ctx, "hot-plug: rescan failed: %s\n", strerror(-r));
		strset_fini(&present);
		return;
	}
	i = 0;
	for (;;) {
		struct accel_device *dev = NULL;

		pthread_mutex_lock(&ctx->lock);
		if (i < ctx->n_devices)
			dev = ctx->devices[i];
		pthread_mutex_unlock(&ctx->lock);
		if (!dev)
			break;
		if (device_gone(dev, &present, removed) &&
		    device_unplug(ctx, i) == 0)
			continue;
		i++;
	}
	strset_fini(&present);

	accel_candidates_clear(ctx);
	r = accel_udev_enumerate(accel_context_env(ctx), rescan_one, ctx);
	if (r < 0)
		log_warn(ctx, "hot-plug: rescan failed: %s\n", strerror(-r));
}

struct hotplug_event {
	enum accel_hotplug_event event;
	char *subsystem, *sysname, *devnode;
};

struct hotplug_events {
	struct hotplug_event *v;
	size_t n, cap;
	int error;
};

static void event_fini(struct hotplug_event *e)
{
	free(e->subsystem);
	free(e->sysname);
	free(e->devnode);
}

static void collect(bool add, const char *subsystem, const char *sysname,
		    const char *devnode, void *data)
{
	struct hotplug_events *events = data;
	struct hotplug_event *e;

	if (events->n == events->cap) {
		size_t cap = events->cap ? events->cap * 2 : 8;
		struct hotplug_event *v = realloc(events->v, cap * sizeof(*v));

		if (!v) {
			events->error = -ENOMEM;
			return;
		}
		events->v = v;
		events->cap = cap;
	}
	e = &events->v[events->n];
	e->event = add ? ACCEL_HOTPLUG_ADD : ACCEL_HOTPLUG_REMOVE;
	e->subsystem = strdup(subsystem);
	e->sysname = strdup(sysname);
	e->devnode = strdup(devnode);
	if (!e->subsystem || !e->sysname || !e->devnode) {
		event_fini(e);
		events->error = -ENOMEM;
		return;
	}
	events->n++;
}

int accel_hotplug_dispatch(struct accel_context *ctx,
			   struct accel_udev_monitor *mon, accel_hotplug_fn fn,
			   void *data)
{
	struct hotplug_events events = { 0 };
	struct strset removed = { 0 };
	size_t i;
	int r;

	r = accel_udev_monitor_dispatch(accel_context_env(ctx), mon, collect,
					&events);
	if (r < 0 || events.error) {
		/* Without the events the lists may be stale: say so. */
		log_err(ctx, "hot-plug: events lost: %s\n",
			strerror(events.error ? -events.error : -r));
	}
	for (i = 0; i < events.n; i++)
		if (events.v[i].event == ACCEL_HOTPLUG_REMOVE &&
		    *events.v[i].devnode)
			strset_add(&removed, events.v[i].devnode);

	/* Nothing to refresh before the first enumeration: it will see all. */
	if (r > 0 &&
	    atomic_load_explicit(&ctx->enumerated, memory_order_acquire)) {
		pthread_mutex_lock(&ctx->enum_lock);
		context_rescan(ctx, &removed);
		pthread_mutex_unlock(&ctx->enum_lock);
	}
	strset_fini(&removed);

	for (i = 0; i < events.n; i++) {
		struct hotplug_event *e = &events.v[i];

		if (fn)
			fn(ctx, e->event, e->subsystem, e->sysname, e->devnode,
			   data);
		event_fini(e);
	}
	free(events.v);
	if (r < 0)
		return r;
	return events.n > INT32_MAX ? INT32_MAX : (int)events.n;
}
