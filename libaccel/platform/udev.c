/* SPDX-License-Identifier: MIT */
/*
 * Discovery through libudev: accel nodes (/dev/accel/accel*) and DRM
 * primary/render nodes, described from sysfs before anything is opened.
 * libdrm's own device listing does not know /dev/accel, and opening nodes
 * just to look at them has side effects (a first opener of a primary node
 * becomes DRM master), so everything here comes from attributes.
 *
 * One udev context per call: no state outlives the enumeration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libudev.h>

#include "platform/platform.h"

enum node_kind {
	NODE_ACCEL,
	NODE_CARD,
	NODE_RENDER,
};

/* One physical device: an accel node, or a DRM card and/or render node. */
struct entry {
	struct udev_device *node;   /* accel, card, or a lone render node */
	struct udev_device *render; /* the render node of a card, or NULL */
	struct udev_device *parent; /* borrowed from node (udev keeps it) */
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

/* "prefix" followed by one or more digits and nothing else. */
static bool is_numbered(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);

	if (strncmp(name, prefix, len))
		return false;
	name += len;
	return *name && strspn(name, "0123456789") == strlen(name);
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * Which kind of node @dev is, or -1 to skip it: DRM connectors
 * (card0-HDMI-A-1, devtype drm_connector), the long-gone control nodes
 * (controlD64) and anything without a device node.
 */
static int classify(struct udev_device *dev)
{
	const char *subsystem = str_or_empty(udev_device_get_subsystem(dev));
	const char *sysname = str_or_empty(udev_device_get_sysname(dev));
	const char *devtype = str_or_empty(udev_device_get_devtype(dev));

	if (!udev_device_get_devnode(dev))
		return -1;
	if (!strcmp(subsystem, "accel"))
		return is_numbered(sysname, "accel") ? NODE_ACCEL : -1;
	if (strcmp(subsystem, "drm") || strcmp(devtype, "drm_minor"))
		return -1;
	if (is_numbered(sysname, "card"))
		return NODE_CARD;
	if (is_numbered(sysname, "renderD"))
		return NODE_RENDER;
	return -1;
}

static const char *parent_syspath(const struct entry *e)
{
	return e->parent ? str_or_empty(udev_device_get_syspath(e->parent)) :
			   "";
}

/* The DRM entry of the same parent device, if there is one already. */
static struct entry *find_sibling(struct entries *list,
				  struct udev_device *parent)
{
	const char *path;
	size_t i;

	if (!parent)
		return NULL;
	path = udev_device_get_syspath(parent);
	if (!path)
		return NULL;
	for (i = 0; i < list->n; i++) {
		struct entry *e = &list->v[i];

		if (!strcmp(str_or_empty(udev_device_get_subsystem(e->node)),
			    "drm") &&
		    !strcmp(parent_syspath(e), path))
			return e;
	}
	return NULL;
}

static int entries_push(struct entries *list, struct udev_device *node)
{
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct entry *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n++] = (struct entry){
		.node = node,
		.parent = udev_device_get_parent(node),
	};
	return 0;
}

static bool node_is(struct udev_device *dev, const char *prefix)
{
	return dev && is_numbered(str_or_empty(udev_device_get_sysname(dev)),
				  prefix);
}

/* Takes over the reference on @dev in every case. */
static int entries_add(struct entries *list, struct udev_device *dev,
		       int kind)
{
	struct entry *e = NULL;
	int r;

	if (kind != NODE_ACCEL)
		e = find_sibling(list, udev_device_get_parent(dev));
	if (e && kind == NODE_RENDER && node_is(e->node, "card") &&
	    !e->render) {
		/* The usual order (sorted syspaths): card first, then render. */
		e->render = dev;
		return 0;
	}
	if (e && kind == NODE_CARD && node_is(e->node, "renderD") &&
	    !e->render) {
		/* A lone render node seen first: the card takes the lead. */
		e->render = e->node;
		e->node = dev;
		e->parent = udev_device_get_parent(dev);
		return 0;
	}
	/* Accel nodes, and DRM nodes without a partner, stand alone. */
	r = entries_push(list, dev);
	if (r < 0)
		udev_device_unref(dev);
	return r;
}

static void entries_free(struct entries *list)
{
	size_t i;

	for (i = 0; i < list->n; i++) {
		udev_device_unref(list->v[i].node);
		udev_device_unref(list->v[i].render);
	}
	free(list->v);
}

/* A hex sysfs attribute ("0x8086"), 0 when absent or malformed. */
static uint32_t attr_hex(struct udev_device *dev, const char *name)
{
	const char *s = dev ? udev_device_get_sysattr_value(dev, name) : NULL;
	unsigned long v;
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno || end == s || (*end && *end != '\n') || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

static int attr_numa_node(struct udev_device *dev)
{
	const char *s = dev ? udev_device_get_sysattr_value(dev, "numa_node") :
			      NULL;
	long v;
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || (*end && *end != '\n') || v < 0 ||
	    v > 1 << 20)
		return -1;
	return (int)v;
}

static void fill_info(const struct entry *e, struct accel_udev_info *info)
{
	struct udev_device *node = e->node, *parent = e->parent;
	bool pci;

	*info = (struct accel_udev_info){
		.subsystem = str_or_empty(udev_device_get_subsystem(node)),
		.syspath = str_or_empty(udev_device_get_syspath(node)),
		.sysname = str_or_empty(udev_device_get_sysname(node)),
		.devnode = str_or_empty(udev_device_get_devnode(node)),
		.render_devnode = e->render ?
			str_or_empty(udev_device_get_devnode(e->render)) : "",
		.driver = parent ?
			str_or_empty(udev_device_get_driver(parent)) : "",
		.parent_syspath = parent_syspath(e),
		.bus = parent ?
			str_or_empty(udev_device_get_subsystem(parent)) : "",
		.pci_slot = "",
		.numa_node = attr_numa_node(parent),
		.devnum = udev_device_get_devnum(node),
	};

	/* A lone render node stands for the device: say so in both fields. */
	if (!e->render && node_is(node, "renderD"))
		info->render_devnode = info->devnode;

	pci = !strcmp(info->bus, "pci");
	if (pci) {
		info->vendor_id = attr_hex(parent, "vendor");
		info->device_id = attr_hex(parent, "device");
		info->subsystem_vendor_id = attr_hex(parent, "subsystem_vendor");
		info->subsystem_device_id = attr_hex(parent, "subsystem_device");
		info->pci_slot = str_or_empty(
			udev_device_get_property_value(parent, "PCI_SLOT_NAME"));
	}
}

static int scan(const struct accel_platform_env *env, struct udev *udev,
		struct entries *list)
{
	static const char *const subsystems[] = { "accel", "drm" };
	struct udev_enumerate *en;
	struct udev_list_entry *item;
	size_t i;
	int r;

	en = udev_enumerate_new(udev);
	if (!en)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(subsystems); i++) {
		r = udev_enumerate_add_match_subsystem(en, subsystems[i]);
		if (r < 0)
			goto out;
	}
	r = udev_enumerate_scan_devices(en);
	if (r < 0) {
		plat_dbg(env, "udev scan failed: %s\n", strerror(-r));
		goto out;
	}

	/* Sorted by syspath, so card0 comes before its renderD128. */
	udev_list_entry_foreach(item, udev_enumerate_get_list_entry(en)) {
		const char *path = udev_list_entry_get_name(item);
		struct udev_device *dev;
		int kind;

		dev = udev_device_new_from_syspath(udev, path);
		if (!dev) {
			/* Removed meanwhile, or out of memory. */
			if (errno == ENOMEM) {
				r = -ENOMEM;
				goto out;
			}
			continue;
		}
		kind = classify(dev);
		if (kind < 0) {
			udev_device_unref(dev);
			continue;
		}
		r = entries_add(list, dev, kind);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	udev_enumerate_unref(en);
	return r;
}

int accel_udev_enumerate(const struct accel_platform_env *env,
			 int (*fn)(const struct accel_udev_info *info,
				   void *data),
			 void *data)
{
	struct entries list = { 0 };
	struct udev *udev;
	size_t i;
	int r;

	/* No sysfs (some containers): nothing udev could tell us. */
	if (access("/sys/class", F_OK) < 0) {
		r = -errno;
		plat_dbg(env, "no /sys/class (%s): device discovery skipped\n",
			strerror(-r));
		return -EOPNOTSUPP;
	}
	udev = udev_new();
	if (!udev)
		return errno > 0 ? -errno : -ENOMEM;

	r = scan(env, udev, &list);
	for (i = 0; r >= 0 && i < list.n; i++) {
		struct accel_udev_info info;

		fill_info(&list.v[i], &info);
		plat_dbg(env,
			"found %s %s (%s%s%s) on %s, driver '%s', pci %04x:%04x, numa %d\n",
			info.subsystem, info.sysname, info.devnode,
			list.v[i].render ? ", " : "",
			list.v[i].render ? info.render_devnode : "",
			*info.bus ? info.bus : "no bus", info.driver,
			info.vendor_id, info.device_id, info.numa_node);
		r = fn(&info, data);
	}
	entries_free(&list);
	udev_unref(udev);
	return r < 0 ? r : 0;
}

/* ---- hot-plug ----------------------------------------------------------- */

/*
 * Unlike enumeration, the monitor lives as long as the context: the
 * udev context and netlink socket are its own, freed with it.
 */
struct accel_udev_monitor {
	struct udev *udev;
	struct udev_monitor *mon;
};

void accel_udev_monitor_free(struct accel_udev_monitor *mon)
{
	if (!mon)
		return;
	udev_monitor_unref(mon->mon);
	udev_unref(mon->udev);
	free(mon);
}

int accel_udev_monitor_new(const struct accel_platform_env *env,
			   struct accel_udev_monitor **ret)
{
	struct accel_udev_monitor *mon;
	const char *source;
	int r;

	mon = calloc(1, sizeof(*mon));
	if (!mon)
		return -ENOMEM;
	mon->udev = udev_new();
	if (!mon->udev) {
		free(mon);
		return -ENOMEM;
	}
	/*
	 * "udev": events after udev's rules ran, so the node has its mode.
	 * Without udevd (minimal systems, VMs, some containers) nothing is
	 * ever sent there: take the kernel's own uevents instead.
	 */
	source = access("/run/udev/control", F_OK) ? "kernel" : "udev";
	plat_dbg(env, "udev monitor on the \"%s\" source\n", source);
	mon->mon = udev_monitor_new_from_netlink(mon->udev, source);
	if (!mon->mon) {
		r = errno > 0 ? -errno : -EOPNOTSUPP;
		plat_info(env, "no udev monitor: %s\n", strerror(-r));
		goto fail;
	}
	r = udev_monitor_filter_add_match_subsystem_devtype(mon->mon, "accel",
							   NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(mon->mon,
								   "drm", NULL);
	if (r >= 0)
		r = udev_monitor_enable_receiving(mon->mon);
	if (r < 0) {
		plat_info(env, "udev monitor setup failed: %s\n", strerror(-r));
		goto fail;
	}
	*ret = mon;
	return 0;
fail:
	accel_udev_monitor_free(mon);
	return r;
}

int accel_udev_monitor_fd(struct accel_udev_monitor *mon)
{
	return udev_monitor_get_fd(mon->mon);
}

int accel_udev_monitor_dispatch(const struct accel_platform_env *env,
				struct accel_udev_monitor *mon,
				accel_udev_event_fn fn, void *data)
{
	struct udev_device *dev;
	int n = 0;

	/* The monitor socket is non-blocking: NULL when drained. */
	while ((dev = udev_monitor_receive_device(mon->mon))) {
		const char *action = str_or_empty(udev_device_get_action(dev));
		bool add = !strcmp(action, "add");

		if ((add || !strcmp(action, "remove")) && classify(dev) >= 0) {
			plat_dbg(env, "hot-plug: %s %s\n", action,
				 str_or_empty(udev_device_get_sysname(dev)));
			if (fn)
				fn(add,
				   str_or_empty(udev_device_get_subsystem(dev)),
				   str_or_empty(udev_device_get_sysname(dev)),
				   str_or_empty(udev_device_get_devnode(dev)),
				   data);
			n++;
		}
		udev_device_unref(dev);
	}
	return n;
}
