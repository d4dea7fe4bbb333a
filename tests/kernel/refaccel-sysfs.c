/* SPDX-License-Identifier: MIT */
/* refaccel's devices in sysfs: see refaccel-sysfs.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "refaccel-sysfs.h"

#define DRIVER "refaccel"

/*
 * Where a refaccel node may be, searched in this order: an accel node, or
 * a render node where the kernel has no accel subsystem. Also the folder
 * of a device's sysfs entry that holds its node of that kind.
 */
static const struct node_kind {
	const char *class, *prefix, *dev, *subdir;
} kinds[] = {
	{ "/sys/class/accel", "accel", "/dev/accel", "accel" },
	{ "/sys/class/drm", "renderD", "/dev/dri", "drm" },
};

#define MAX_NODES 256

/* realpath of @dir/@file, NULL if it does not resolve. */
static char *resolve(const char *dir, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return realpath(path, NULL);
}

static bool is_refaccel(const char *drv)
{
	const char *base = drv ? strrchr(drv, '/') : NULL;

	return base && !strcmp(base + 1, DRIVER);
}

/* @name is @prefix followed by a number; that number, else -1. */
static int node_number(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *num = name + len;

	if (strncmp(name, prefix, len) || !*num ||
	    strspn(num, "0123456789") != strlen(num) || strlen(num) > 6)
		return -1;
	return atoi(num);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The numbers of @k's nodes in sysfs, sorted, into @v; how many. */
static int node_numbers(const struct node_kind *k, int *v, int max)
{
	struct dirent *e;
	DIR *d = opendir(k->class);
	int n = 0;

	while (d && n < max && (e = readdir(d))) {
		int num = node_number(e->d_name, k->prefix);

		if (num >= 0)
			v[n++] = num;
	}
	if (d)
		closedir(d);
	qsort(v, (size_t)n, sizeof(*v), cmp_int);
	return n;
}

int refaccel_node_find(int index, struct refaccel_node *ret)
{
	int nums[MAX_NODES];

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct node_kind *kind = &kinds[k];
		int n = node_numbers(kind, nums, MAX_NODES);

		for (int i = 0; i < n; i++) {
			struct refaccel_node node;
			char *drv;
			bool ours;

			snprintf(node.sysfs, sizeof(node.sysfs), "%s/%s%d",
				 kind->class, kind->prefix, nums[i]);
			drv = resolve(node.sysfs, "device/driver");
			ours = is_refaccel(drv);
			free(drv);
			if (!ours || index-- > 0)
				continue;
			snprintf(node.node, sizeof(node.node), "%s/%s%d",
				 kind->dev, kind->prefix, nums[i]);
			*ret = node;
			ret->name = strrchr(ret->sysfs, '/') + 1;
			return 0;
		}
	}
	return -ENODEV;
}

int refaccel_sysfs_get(const struct refaccel_node *node,
		       struct refaccel_sysfs_dev *d)
{
	char path[PATH_MAX], *sub;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/device", node->sysfs);
	d->dev = realpath(path, NULL);
	if (!d->dev)
		return -ENODEV;
	d->drv = resolve(d->dev, "driver");
	if (!is_refaccel(d->drv)) {
		refaccel_sysfs_put(d);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "%s/unbind", d->drv);
	if (access(path, W_OK)) {
		refaccel_sysfs_put(d);
		return -EACCES;
	}
	d->name = strrchr(d->dev, '/') + 1;
	sub = resolve(d->dev, "subsystem");
	snprintf(d->busbuf, sizeof(d->busbuf), "%s",
		 sub ? strrchr(sub, '/') + 1 : "?");
	free(sub);
	d->bus = d->busbuf;
	return 0;
}

void refaccel_sysfs_put(struct refaccel_sysfs_dev *d)
{
	free(d->dev);
	free(d->drv);
	memset(d, 0, sizeof(*d));
}

int refaccel_sysfs_list(struct refaccel_sysfs_dev *d, int max)
{
	struct refaccel_node node;
	int n = 0;

	for (int i = 0; n < max && refaccel_node_find(i, &node) == 0; i++)
		if (refaccel_sysfs_get(&node, &d[n]) == 0)
			n++;
	return n;
}

bool refaccel_sysfs_bound(const struct refaccel_sysfs_dev *d)
{
	char *drv = resolve(d->dev, "driver");
	bool bound = drv && !strcmp(drv, d->drv);

	free(drv);
	return bound;
}

static int write_file(const char *dir, const char *file, const char *s)
{
	char path[PATH_MAX];
	ssize_t n;
	int f, r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = open(path, O_WRONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	n = write(f, s, strlen(s));
	if (n < 0)
		r = -errno;
	else if ((size_t)n != strlen(s))
		r = -EIO;
	close(f);
	return r;
}

int refaccel_sysfs_unbind(const struct refaccel_sysfs_dev *d)
{
	/* never another driver's device, whatever happened since the get */
	if (!is_refaccel(d->drv) || !refaccel_sysfs_bound(d))
		return -ENODEV;
	return write_file(d->drv, "unbind", d->name);
}

int refaccel_sysfs_bind(const struct refaccel_sysfs_dev *d)
{
	return write_file(d->drv, "bind", d->name);
}

/* Opens a node of kind @k of the device @dev, if it has one. */
static int open_kind(const char *dev, const struct node_kind *k)
{
	char dir[PATH_MAX], node[PATH_MAX + 300];
	struct dirent *e;
	int fd = -ENOENT;
	DIR *dd;

	snprintf(dir, sizeof(dir), "%s/%s", dev, k->subdir);
	dd = opendir(dir);
	while (dd && fd < 0 && (e = readdir(dd))) {
		if (node_number(e->d_name, k->prefix) < 0)
			continue;
		snprintf(node, sizeof(node), "%s/%s", k->dev, e->d_name);
		fd = open(node, O_RDWR | O_CLOEXEC);
	}
	if (dd)
		closedir(dd);
	return fd < 0 ? -ENOENT : fd;
}

int refaccel_sysfs_open(const struct refaccel_sysfs_dev *d, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			int fd = open_kind(d->dev, &kinds[k]);

			if (fd >= 0)
				return fd;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	return -ENOENT;
}
