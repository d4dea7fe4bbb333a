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

#define CLASS "/sys/class/accel"
#define DRIVER "refaccel"

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

int refaccel_sysfs_get(const char *minor, struct refaccel_sysfs_dev *d)
{
	char path[PATH_MAX], *sub;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), CLASS "/%s/device", minor);
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
	char minor[32];
	int n = 0;

	/* accel minors are 0..63 */
	for (int i = 0; i < 64 && n < max; i++) {
		snprintf(minor, sizeof(minor), "accel%d", i);
		if (refaccel_sysfs_get(minor, &d[n]) == 0)
			n++;
	}
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

int refaccel_sysfs_open(const struct refaccel_sysfs_dev *d, int timeout_ms)
{
	char dir[PATH_MAX], node[PATH_MAX + 300];
	struct dirent *e;
	DIR *dd;

	snprintf(dir, sizeof(dir), "%s/accel", d->dev);
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		dd = opendir(dir);
		while (dd && (e = readdir(dd))) {
			int fd;

			if (strncmp(e->d_name, "accel", 5))
				continue;
			snprintf(node, sizeof(node), "/dev/accel/%s",
				 e->d_name);
			fd = open(node, O_RDWR | O_CLOEXEC);
			if (fd >= 0) {
				closedir(dd);
				return fd;
			}
		}
		if (dd)
			closedir(dd);
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	return -ENOENT;
}
