/* SPDX-License-Identifier: MIT */
/**
 * @file accel-discovery.h
 * @brief Discovery diagnostics: every device node discovery saw, and why
 * it is or is not usable.
 *
 * Enumeration (accel_context_get_devices()) lists accel nodes
 * (/dev/accel/accel*) and DRM card/render nodes through udev and offers
 * each to the backends. Every one of them is a *candidate*; the ones a
 * backend claimed became devices. For the others, libaccel tells why:
 * the node is missing, this user may not open it (and which group would
 * help), the cgroup device controller denies it, no kernel driver is
 * bound, or no backend handles the driver.
 *
 * The diagnosis of unclaimed candidates is made on the first candidate
 * query, not during enumeration: it opens (and at once closes) their
 * nodes through the context's open interface, which applications that
 * never ask should not pay for.
 *
 * Thread-safety: candidates are immutable once diagnosed; strings stay
 * valid until the context is released.
 */
#ifndef LIBACCEL_ACCEL_DISCOVERY_H
#define LIBACCEL_ACCEL_DISCOVERY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct accel_context;

/** Why a candidate is (not) usable, or how discovery as a whole went. */
enum accel_candidate_reason {
	/** Claimed by a backend: it is a device. Context: discovery works. */
	ACCEL_CANDIDATE_OK = 0,
	/** sysfs knows the device but its /dev node does not exist. */
	ACCEL_CANDIDATE_NODE_MISSING = 1,
	/** The node's permissions do not let this user open it. */
	ACCEL_CANDIDATE_PERMISSION_DENIED = 2,
	/** Opening fails with EPERM although the mode bits allow it. */
	ACCEL_CANDIDATE_CGROUP_DENIED = 3,
	/** No kernel driver is bound to the device. */
	ACCEL_CANDIDATE_NO_DRIVER = 4,
	/** A driver is bound, but no libaccel backend claimed the device. */
	ACCEL_CANDIDATE_NO_BACKEND = 5,
	/** Opening the node failed for another reason (see the message). */
	ACCEL_CANDIDATE_OPEN_FAILED = 6,
	/** Context only: no /sys/class, so no device can be discovered. */
	ACCEL_CANDIDATE_NO_SYSFS = 7,
	/**
	 * Context only: no /sys/class/accel (kernel without the accel
	 * subsystem, or a container hiding it): accel nodes cannot be seen.
	 */
	ACCEL_CANDIDATE_NO_ACCEL_CLASS = 8,
};

/** String properties of a candidate; "" when unknown, never NULL. */
enum accel_candidate_string {
	ACCEL_CANDIDATE_STRING_DEVNODE = 0, /**< "/dev/dri/card0" */
	ACCEL_CANDIDATE_STRING_RENDER_DEVNODE, /**< "/dev/dri/renderD128" or "" */
	ACCEL_CANDIDATE_STRING_SYSNAME,     /**< "card0", "accel0" */
	ACCEL_CANDIDATE_STRING_SYSPATH,     /**< sysfs path of the node */
	ACCEL_CANDIDATE_STRING_SUBSYSTEM,   /**< "accel" or "drm" */
	ACCEL_CANDIDATE_STRING_DRIVER,      /**< bound kernel driver or "" */
	ACCEL_CANDIDATE_STRING_BUS,         /**< "pci", "platform", ... */
	ACCEL_CANDIDATE_STRING_PCI_SLOT,    /**< "0000:00:02.0" or "" */
	ACCEL_CANDIDATE_STRING_BACKEND,     /**< claiming backend or "" */
	/** One line for humans: what is wrong and what would fix it. */
	ACCEL_CANDIDATE_STRING_REASON_MESSAGE,
	/** Group owning the node that was checked ("render"), or "". */
	ACCEL_CANDIDATE_STRING_NODE_GROUP,
	ACCEL_CANDIDATE_STRING_COUNT        /**< number of properties, not one */
};

/** "None" for the integer properties that may have no value. */
#define ACCEL_CANDIDATE_NONE UINT64_MAX

/** Integer properties of a candidate. */
enum accel_candidate_u64 {
	ACCEL_CANDIDATE_U64_REASON = 0,     /**< enum accel_candidate_reason */
	/**
	 * Index of the device it became in accel_context_get_devices(), or
	 * ACCEL_CANDIDATE_NONE ((uint64_t)-1) if unclaimed.
	 */
	ACCEL_CANDIDATE_U64_DEVICE_INDEX,
	ACCEL_CANDIDATE_U64_VENDOR_ID,      /**< PCI vendor id, 0 if none */
	ACCEL_CANDIDATE_U64_DEVICE_ID,      /**< PCI device id, 0 if none */
	ACCEL_CANDIDATE_U64_SUBSYSTEM_VENDOR_ID, /**< 0 if none */
	ACCEL_CANDIDATE_U64_SUBSYSTEM_DEVICE_ID, /**< 0 if none */
	ACCEL_CANDIDATE_U64_NUMA_NODE,      /**< ACCEL_CANDIDATE_NONE if none */
	ACCEL_CANDIDATE_U64_DEVNUM,         /**< dev_t of the node */
	/** errno of the diagnostic open (positive), 0 if none was made. */
	ACCEL_CANDIDATE_U64_OPEN_ERRNO,
	ACCEL_CANDIDATE_U64_COUNT           /**< number of properties, not one */
};

/**
 * Number of candidate devices discovery saw (enumerating first if that
 * has not happened yet), claimed or not. The CPU device is no candidate.
 *
 * @return the count, or -EINVAL (no @p ctx), -ENOMEM, -EOVERFLOW (more
 * candidates than an int counts).
 */
int accel_context_get_candidate_count(struct accel_context *ctx);

/**
 * A string property of candidate @p idx (0 <= idx < count), owned by the
 * context.
 *
 * @return 0, or -EINVAL (bad argument or property), -ENOENT (no such
 * candidate), -ENOMEM; @p ret is untouched on failure.
 */
int accel_context_get_candidate_string(struct accel_context *ctx, size_t idx,
				       enum accel_candidate_string prop,
				       const char **ret);

/**
 * An integer property of candidate @p idx.
 *
 * @return 0, or -EINVAL, -ENOENT, -ENOMEM as
 * accel_context_get_candidate_string().
 */
int accel_context_get_candidate_u64(struct accel_context *ctx, size_t idx,
				    enum accel_candidate_u64 prop,
				    uint64_t *ret);

/**
 * How discovery as a whole went: ACCEL_CANDIDATE_OK,
 * ACCEL_CANDIDATE_NO_SYSFS or ACCEL_CANDIDATE_NO_ACCEL_CLASS, with a
 * message for humans in @p ret_message (owned by the context; may be NULL
 * if not wanted).
 *
 * @return the reason (>= 0), or -EINVAL (NULL @p ctx), -ENOMEM.
 */
int accel_context_get_discovery_status(struct accel_context *ctx,
				       const char **ret_message);

/** A short stable name of @p reason ("permission-denied"), or NULL. */
const char *accel_candidate_reason_name(enum accel_candidate_reason reason);

/** @name Hot-plug
 * The libinput pattern: the caller owns the event loop. It polls the fd
 * of accel_context_get_monitor_fd() for POLLIN and then calls
 * accel_context_dispatch(), which runs the handler set with
 * accel_context_set_hotplug_fn() once per event, on the calling thread.
 *
 * Before the handlers run, a context that has enumerated runs discovery
 * again: new devices are probed and join accel_context_get_devices(),
 * devices that went away leave it, and the candidates are listed afresh
 * (so candidate indices may change). A device that went away while in use
 * is not freed: its buffers, queues and programs stay valid to query and
 * release, in-flight work completes or fails, and new work on it fails
 * with -ENODEV (see accel_device_get_status()).
 * @{
 */

/** What happened to a device node. */
enum accel_hotplug_event {
	ACCEL_HOTPLUG_ADD = 1,    /**< a node appeared */
	ACCEL_HOTPLUG_REMOVE = 2, /**< a node went away */
};

/**
 * A hot-plug handler.
 *
 * @param ctx the context
 * @param event enum accel_hotplug_event
 * @param subsystem "accel" or "drm"
 * @param sysname "accel0", "card1", "renderD129"
 * @param devnode "/dev/accel/accel0", or "" if udev did not say
 * @param user_data the pointer given to accel_context_set_hotplug_fn()
 *
 * The strings are valid during the call only. The handler may call any
 * libaccel function except accel_context_dispatch().
 */
typedef void (*accel_hotplug_fn)(struct accel_context *ctx,
				 enum accel_hotplug_event event,
				 const char *subsystem, const char *sysname,
				 const char *devnode, void *user_data);

/**
 * Set (or with NULL @p fn, clear) the hot-plug handler.
 * @return 0, -EINVAL (NULL @p ctx), -ENOMEM
 */
int accel_context_set_hotplug_fn(struct accel_context *ctx,
				 accel_hotplug_fn fn, void *user_data);

/**
 * A pollable fd that becomes readable when hot-plug events are pending.
 * The first call starts listening to udev (subsystems accel and drm);
 * events from before that call are not reported.
 *
 * @return a new O_CLOEXEC fd owned by the caller (every call returns a
 * new one onto the same monitor), or -EINVAL (NULL @p ctx), -ENOMEM,
 * -EOPNOTSUPP (no udev here), or another negative errno.
 */
int accel_context_get_monitor_fd(struct accel_context *ctx);

/**
 * Deliver every pending hot-plug event to the handler without blocking.
 * Events of other device kinds (DRM connectors, ...) are dropped. Call it
 * from one thread at a time.
 *
 * @return the number of events delivered (0 if none were pending), or
 * -EINVAL (NULL @p ctx), -ENODEV (accel_context_get_monitor_fd() was
 * never called).
 */
int accel_context_dispatch(struct accel_context *ctx);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_DISCOVERY_H */
