/* SPDX-License-Identifier: MIT */
/*
 * accel-info --list: one line per device, like clinfo -l or nvidia-smi -L,
 * for people and for scripts that want a count or a grep:
 *
 *   Device 0: NAME (BACKEND, NODE|builtin) usable  [CPU reference device]
 *   Not usable: SYSNAME (DRIVER|no driver, NODE|no node) REASON
 *
 * A device a backend claimed gets a "Device N:" line, N its index in the
 * API; a device discovery saw but cannot use has no index, so its line
 * says so and gives the reason name (the full diagnosis is in the default
 * output and in --json).
 */
#include <stdio.h>

#include "accel-info.h"

/* A string property for the line, or @fallback when empty or unreadable. */
static const char *dev_str(const struct dev_info *info,
			   enum accel_device_string prop, const char *fallback)
{
	const char *s = info->str[prop];

	return s && *s ? s : fallback;
}

/* The first failed query that made the device unusable. */
static int dev_error(const struct dev_info *info)
{
	if (info->u64_err[ACCEL_DEVICE_U64_TYPE] < 0)
		return info->u64_err[ACCEL_DEVICE_U64_TYPE];
	return info->str_err[ACCEL_DEVICE_STRING_NAME];
}

static void list_begin(struct listing *l, unsigned n_devices)
{
	(void)l;
	(void)n_devices;
}

static void list_device(struct listing *l, const struct dev_info *info)
{
	const char *node = info->str_err[ACCEL_DEVICE_STRING_DEVNODE] < 0 ?
				   "?" :
				   dev_str(info, ACCEL_DEVICE_STRING_DEVNODE,
					   "builtin");

	(void)l;
	printf("Device %u: %s (%s, %s) ", info->index,
	       dev_str(info, ACCEL_DEVICE_STRING_NAME, "(unnamed)"),
	       dev_str(info, ACCEL_DEVICE_STRING_BACKEND, "?"), node);
	if (info->usable)
		printf("usable");
	else
		printf("not usable: %s", accel_strerror(dev_error(info)));
	printf("%s\n", info->is_reference ? "  [CPU reference device]" : "");
}

static void list_end(struct listing *l)
{
	(void)l;
}

/* Discovery as a whole has no device, so no line; --json and -v say it. */
static void list_discovery(struct listing *l, int status, const char *msg)
{
	(void)l;
	(void)status;
	(void)msg;
}

/* A usable candidate is one of the devices above: no second line. */
static void list_candidate(struct listing *l, const struct cand_info *c)
{
	const char *name = c->str[ACCEL_CANDIDATE_STRING_SYSNAME];
	const char *driver = c->str[ACCEL_CANDIDATE_STRING_DRIVER];
	const char *node = c->str[ACCEL_CANDIDATE_STRING_DEVNODE];

	if (cand_usable(c))
		return;
	l->n_cand_printed++;
	printf("Not usable: %s (%s, %s) %s\n", *name ? name : "?",
	       *driver ? driver : "no driver", *node ? node : "no node",
	       cand_reason(c));
}

const struct output list_output = {
	.begin = list_begin,
	.device = list_device,
	.devices_end = list_end,
	.discovery = list_discovery,
	.candidate = list_candidate,
	.end = list_end,
};
