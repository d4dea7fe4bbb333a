/* SPDX-License-Identifier: MIT */
/*
 * What `accel-info top` reads: per-client usage from DRM fdinfo
 * (Documentation/gpu/drm-usage-stats.rst) of accel and DRM nodes, and
 * from libaccel's usage pages (include/libaccel/accel-stats.h).
 */
#ifndef ACCEL_INFO_USAGE_H
#define ACCEL_INFO_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USAGE_MAX_ENGINES 8
#define USAGE_MAX_REGIONS 4

enum usage_source {
	USAGE_KERNEL,   /* a node's fdinfo */
	USAGE_LIBACCEL, /* a libaccel context's usage page */
};

struct usage_engine {
	char name[32];
	uint64_t busy_ns;      /* drm-engine-<name> */
	uint64_t capacity;     /* drm-engine-capacity-<name>, default 1 */
	uint64_t cycles;       /* drm-cycles-<name> */
	uint64_t total_cycles; /* drm-total-cycles-<name> */
	bool has_busy, has_cycles, has_total_cycles;
};

/* Bytes; a field the source did not give stays 0 with its has_ bit off. */
struct usage_region {
	char name[32];
	uint64_t total, shared, resident, purgeable, active;
	bool has_total, has_shared, has_resident, has_purgeable, has_active;
};

struct usage_client {
	enum usage_source source;
	int pid;
	char command[32];     /* /proc/PID/comm */
	char driver[32];      /* drm-driver, or "libaccel" */
	char device[64];      /* the node, or the device's name */
	char pdev[64];        /* drm-pdev, "" if not given */
	uint64_t client_id;   /* drm-client-id, or the page's inode */
	unsigned n_engines, n_regions;
	struct usage_engine engines[USAGE_MAX_ENGINES];
	struct usage_region regions[USAGE_MAX_REGIONS];
	/* Usage pages only. */
	bool has_commands;
	uint64_t submitted, completed, failed, running, buffers;
};

struct usage_sample {
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	struct usage_client *clients;
	size_t n_clients;
	/* Processes whose fds could not be read (another user's). */
	unsigned n_denied;
};

/*
 * Parse fdinfo text into @c (source, pid, command and device are the
 * caller's). Returns 0, or -ENOENT if it is not a DRM client (no
 * drm-driver key).
 */
int usage_parse_fdinfo(const char *text, struct usage_client *c);

/*
 * Fill @c from a usage page read into @buf (@len bytes), device slot @i,
 * at CLOCK_MONOTONIC @now_ns. Returns 0, -EINVAL if the page is not one
 * (magic, version, sizes) or -ENOENT past its last device.
 */
int usage_parse_page(const void *buf, size_t len, unsigned i,
		     uint64_t now_ns, struct usage_client *c);

/*
 * Read every client under @proc (normally "/proc"), skipping @self_pid.
 * @watch asks libaccel pages for busy time (see accel-stats.h). Returns 0
 * or a negative errno; free with usage_sample_clear().
 */
int usage_sample_collect(const char *proc, int self_pid, bool watch,
			 struct usage_sample *s);
void usage_sample_clear(struct usage_sample *s);

/* The same client in another sample, or NULL. */
const struct usage_client *usage_find(const struct usage_sample *s,
				      const struct usage_client *c);

int top_main(int argc, char **argv);

#endif /* ACCEL_INFO_USAGE_H */
