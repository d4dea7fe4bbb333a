/* SPDX-License-Identifier: MIT */
/**
 * @file accel-stats.h
 * @brief The usage page each context publishes, for viewers such as
 *        `accel-info top`.
 *
 * A DRM or accel node reports per-client usage in its fdinfo
 * (Documentation/gpu/drm-usage-stats.rst); the CPU reference device has no
 * node, so libaccel publishes the same kind of numbers itself. Every
 * context holds one memfd named ACCEL_STATS_MEMFD_NAME, one page laid out
 * as struct accel_stats_page, updated as commands and buffers come and go.
 * A viewer finds it through /proc/PID/fd (a link to
 * "/memfd:libaccel-stats (deleted)"), opens it there (the same access
 * rules as /proc/PID/fdinfo) and reads it with pread() or mmap().
 *
 * Fields are native-endian and written with atomic stores; read each with
 * one aligned load. Counters only grow; gauges go up and down. A viewer
 * checks magic, version and the sizes before trusting the rest, and skips
 * a device slot whose size is smaller than it expects. Later versions only
 * append fields (device_size or header_size grow).
 *
 * Busy time costs two clock reads per command, so it is measured only
 * once a viewer has asked for it by writing non-zero to `watched` (open
 * the memfd read-write): from then on, for the life of the context.
 */
#ifndef LIBACCEL_ACCEL_STATS_H
#define LIBACCEL_ACCEL_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** memfd_create() name of the page (the /proc link reads "/memfd:" + it). */
#define ACCEL_STATS_MEMFD_NAME "libaccel-stats"
/** "ACCELSTS" read as a little-endian 64-bit number. */
#define ACCEL_STATS_MAGIC 0x5354534c45434341ull
#define ACCEL_STATS_VERSION 1
/** Devices of one context the page has room for; later ones go unlisted. */
#define ACCEL_STATS_MAX_DEVICES 14

/** One device of the context, as this context uses it. */
struct accel_stats_device {
	/** Commands doing device work (launches, copies, fills, reads,
	 *  writes) submitted: a counter. Markers and host functions are not
	 *  counted. */
	uint64_t submitted;
	/** Of those, finished (failed or skipped ones included): a counter.
	 *  submitted - completed are queued or running. */
	uint64_t completed;
	/** Of those, finished with an error: a counter. */
	uint64_t failed;
	/** Commands running now: a gauge. */
	uint64_t running;
	/** Nanoseconds with at least one command of this context running on
	 *  the device, counted while watched (see above): a counter. */
	uint64_t busy_ns;
	/** CLOCK_MONOTONIC nanoseconds when the current busy period began, 0
	 *  when idle or not watched; add now - busy_since to busy_ns. */
	uint64_t busy_since;
	/** Bytes of buffers the context allocated on the device: a gauge. */
	uint64_t memory_bytes;
	/** Bytes of buffers it imported (dma-bufs, user pointers): a gauge. */
	uint64_t imported_bytes;
	/** Buffers of either kind alive: a gauge. */
	uint64_t buffers;
	uint64_t reserved[7];
	/** ACCEL_DEVICE_STRING_NAME, NUL-terminated (truncated). */
	char name[64];
	/** The device node (/dev/accel/accel0, /dev/dri/renderD128), or
	 *  empty for a device without one (the CPU device). */
	char node[64];
};

/** The page: a header and the device slots. */
struct accel_stats_page {
	uint64_t magic;        /**< ACCEL_STATS_MAGIC */
	uint32_t version;      /**< ACCEL_STATS_VERSION */
	uint32_t header_size;  /**< offset of devices[] */
	uint32_t device_size;  /**< sizeof(struct accel_stats_device) */
	uint32_t n_devices;    /**< slots in use (grows on hot-plug) */
	uint32_t pid;          /**< the process that made the context */
	/** Non-zero once a viewer asked for busy time. Written by viewers. */
	uint32_t watched;
	/** CLOCK_MONOTONIC nanoseconds when the context was made. */
	uint64_t created_ns;
	uint64_t reserved[4];
	struct accel_stats_device devices[ACCEL_STATS_MAX_DEVICES];
};

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_STATS_H */
