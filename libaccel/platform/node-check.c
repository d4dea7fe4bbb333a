/* SPDX-License-Identifier: MIT */
/*
 * Why a device node does not open: stat it, open it through the caller's
 * environment and tell node permissions, the cgroup device controller of
 * containers, a missing node and an unbound driver apart (discovery's
 * diagnostics ask for the nodes no backend claimed).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"

static bool in_group(gid_t gid)
{
	gid_t groups[256];
	int i, n;

	if (getegid() == gid)
		return true;
	n = getgroups((int)ARRAY_SIZE(groups), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* Would the mode bits let this process read and write the node? */
static bool mode_allows(const struct stat *st)
{
	if (geteuid() == 0)
		return true;
	if (st->st_uid == geteuid())
		return (st->st_mode & 0600) == 0600;
	if (in_group(st->st_gid))
		return (st->st_mode & 0060) == 0060;
	return (st->st_mode & 0006) == 0006;
}

static char *group_name(gid_t gid)
{
	struct group grp, *res = NULL;
	char buf[1024], *s;

	if (getgrgid_r(gid, &grp, buf, sizeof(buf), &res) == 0 && res &&
	    res->gr_name)
		return strdup(res->gr_name);
	if (asprintf(&s, "%u", (unsigned)gid) < 0)
		return NULL;
	return s;
}

_printf_(3, 4)
static void set_reason(struct accel_node_verdict *v, int reason,
		       const char *fmt, ...)
{
	va_list args;

	v->reason = reason;
	va_start(args, fmt);
	/* The reason stands even when the words do not fit in memory. */
	if (vasprintf(&v->message, fmt, args) < 0)
		v->message = NULL;
	va_end(args);
}

static void diagnose_permission(struct accel_node_verdict *v, const char *path,
				const struct stat *st, const char *group)
{
	if (!in_group(st->st_gid)) {
		set_reason(v, ACCEL_NODE_PERMISSION_DENIED,
			   "%s (mode %04o, group '%s'): permission denied; you are not in group '%s': add yourself to group '%s' and log in again",
			   path, (unsigned)(st->st_mode & 07777), group, group,
			   group);
	} else if ((st->st_mode & 0060) != 0060) {
		set_reason(v, ACCEL_NODE_PERMISSION_DENIED,
			   "%s (mode %04o, group '%s'): permission denied; you are in group '%s' but it may not read and write the node",
			   path, (unsigned)(st->st_mode & 07777), group, group);
	} else {
		set_reason(v, ACCEL_NODE_PERMISSION_DENIED,
			   "%s (mode %04o, group '%s'): permission denied although you are in group '%s' (an ACL or security module denies it)",
			   path, (unsigned)(st->st_mode & 07777), group, group);
	}
}

void accel_node_check(const struct accel_platform_env *env,
		      const char *devnode, const char *render,
		      const char *driver, struct accel_node_verdict *v)
{
	const char *path, *group;
	struct stat st;
	int fd;

	*v = (struct accel_node_verdict){ 0 };
	/*
	 * The render node when there is one: opening it has no side effect,
	 * while the first opener of a primary node becomes DRM master.
	 */
	path = *render ? render : devnode;
	v->path = path;
	if (stat(path, &st) < 0) {
		int err = errno;

		v->open_errno = err;
		if (err == ENOENT)
			set_reason(v, ACCEL_NODE_MISSING,
				   "%s is listed in sysfs but the node does not exist (no devtmpfs or udev here, or the container does not pass it through)",
				   path);
		else
			set_reason(v, ACCEL_NODE_OPEN_FAILED,
				   "cannot stat %s: %s", path, strerror(err));
		return;
	}
	if (!*driver) {
		set_reason(v, ACCEL_NODE_NO_DRIVER,
			   "no kernel driver is bound to the device of %s",
			   path);
		return;
	}
	v->has_group = true;
	v->group = group_name(st.st_gid);
	group = v->group ? v->group : "?";

	fd = env->open(env->data, path, O_RDWR | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0) {
		env->close(env->data, fd);
		v->reason = ACCEL_NODE_OPENS;
		return;
	}
	v->open_errno = -fd;
	if (fd == -EACCES || (fd == -EPERM && !mode_allows(&st))) {
		diagnose_permission(v, path, &st, group);
	} else if (fd == -EPERM) {
		/* The mode bits allow it: only the device cgroup says EPERM. */
		set_reason(v, ACCEL_NODE_CGROUP_DENIED,
			   "opening %s fails with EPERM although its mode %04o allows it: the cgroup device controller denies it (a container needs the device passed through, e.g. --device %s)",
			   path, (unsigned)(st.st_mode & 07777), path);
	} else if (fd == -ENOENT) {
		set_reason(v, ACCEL_NODE_MISSING,
			   "%s vanished: %s", path, strerror(-fd));
	} else {
		set_reason(v, ACCEL_NODE_OPEN_FAILED,
			   "driver '%s' is bound but %s does not open: %s",
			   driver, path, strerror(-fd));
	}
}
