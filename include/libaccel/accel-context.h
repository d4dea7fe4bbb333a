/* SPDX-License-Identifier: MIT */
/**
 * @file accel-context.h
 * @brief The library context: logging, device-node access, lifetime root.
 *
 * Thread-safety: a context may be used from any number of threads. Its log
 * handler may be called from libaccel's worker threads, never with an
 * internal lock held.
 */
#ifndef LIBACCEL_ACCEL_CONTEXT_H
#define LIBACCEL_ACCEL_CONTEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_context;

/** Log priorities, the same values as syslog(3). */
enum accel_log_priority {
	ACCEL_LOG_ERR = 3,
	ACCEL_LOG_WARNING = 4,
	ACCEL_LOG_INFO = 6,
	ACCEL_LOG_DEBUG = 7,
};

/**
 * Log handler.
 * @param ctx the context that logs
 * @param priority one of enum accel_log_priority
 * @param file, line, fn source location inside libaccel
 * @param format, args printf-style message (ends with a newline)
 * @param user_data the pointer given to accel_context_set_log_fn()
 */
typedef void (*accel_log_fn)(struct accel_context *ctx, int priority,
			     const char *file, int line, const char *fn,
			     const char *format, va_list args, void *user_data);

/**
 * How libaccel opens device nodes (libinput's idea): a sandbox, a
 * compositor or logind can broker access. All callbacks are optional only
 * as a pair: set both or none.
 */
struct accel_open_interface {
	/** sizeof(struct accel_open_interface) as the caller knows it */
	uint32_t struct_size;
	/** Open @p path with open(2) @p flags; return an fd or a negative errno. */
	int (*open_restricted)(const char *path, int flags, void *user_data);
	/** Close an fd returned by open_restricted. */
	void (*close_restricted)(int fd, void *user_data);
};

/**
 * The version of the library that is running (the headers' version is
 * ACCEL_VERSION_STRING), e.g. "0.1.0". Never NULL.
 */
const char *accel_get_version(void);

/** Flags of accel_context_new(). None are defined yet; pass 0. */
#define ACCEL_CONTEXT_FLAGS_ALL 0u

/**
 * Create a context.
 *
 * The initial log priority is ACCEL_LOG_ERR, or the value of the
 * ACCEL_LOG environment variable ("err", "warning", "info", "debug" or a
 * number); the default handler prints to stderr.
 *
 * @param flags 0 (no flags are defined yet)
 * @param[out] ret the new context, one reference
 * @return 0, -EINVAL (NULL @p ret or unknown flags), -ENOMEM
 */
int accel_context_new(uint32_t flags, struct accel_context **ret);

/** Take a reference. Returns @p ctx (NULL stays NULL). */
struct accel_context *accel_context_ref(struct accel_context *ctx);

/** Drop a reference; frees the context with its last one. Returns NULL. */
struct accel_context *accel_context_unref(struct accel_context *ctx);

/**
 * Replace the log handler. A NULL @p fn silences logging.
 * @return 0 or -EINVAL (NULL @p ctx)
 */
int accel_context_set_log_fn(struct accel_context *ctx, accel_log_fn fn,
			     void *user_data);

/**
 * Set the highest priority that is still logged.
 * @return 0 or -EINVAL (NULL @p ctx, @p priority outside 0..7)
 */
int accel_context_set_log_priority(struct accel_context *ctx, int priority);

/** @return the log priority, or -EINVAL for a NULL @p ctx */
int accel_context_get_log_priority(struct accel_context *ctx);

/**
 * Set how device nodes are opened. The structure is copied. NULL restores
 * plain open(2)/close(2). Only devices enumerated afterwards are affected.
 * @return 0 or -EINVAL (NULL @p ctx, struct_size too small, only one of
 *         the two callbacks set)
 */
int accel_context_set_open_interface(struct accel_context *ctx,
				     const struct accel_open_interface *iface,
				     void *user_data);

/**
 * Receives what printf() in kernels prints: one call per printf() call
 * that succeeded, with its whole output.
 *
 * Called on a libaccel worker thread when the launch completes, before
 * its fence signals, never with an internal lock held: the calls of one
 * launch come one after the other, in the order the records were made
 * (a work-item's calls in program order); launches of an in-order queue
 * come in submission order. Launches on different queues may call it
 * concurrently.
 *
 * @param ctx the context of the launch
 * @param text the output, NUL-terminated (valid during the call only)
 * @param length bytes of @p text without the NUL
 * @param user_data the pointer given to accel_context_set_printf_fn()
 */
typedef void (*accel_printf_fn)(struct accel_context *ctx, const char *text,
				size_t length, void *user_data);

/**
 * Replace the handler of kernels' printf() output. The default (and a
 * NULL @p fn) writes it to stdout, flushed at the end of each launch.
 * Launches completing after the call use the new handler.
 * @return 0 or -EINVAL (NULL @p ctx)
 */
int accel_context_set_printf_fn(struct accel_context *ctx, accel_printf_fn fn,
				void *user_data);

/** Attach an opaque pointer. @return 0 or -EINVAL (NULL @p ctx) */
int accel_context_set_user_data(struct accel_context *ctx, void *user_data);

/** @return the opaque pointer, NULL if none or @p ctx is NULL */
void *accel_context_get_user_data(struct accel_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_CONTEXT_H */
