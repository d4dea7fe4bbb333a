/* SPDX-License-Identifier: MIT */
/*
 * accel_strerror(): the meaning libaccel gives each errno it returns
 * (docs/design.md, "Errors"), for the values whose C library text would
 * mislead ("Exec format error" for a failed build).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "accel-private.h"

static const char *const meanings[] = {
	[EINVAL] = "invalid argument: a NULL object or pointer, unknown flag "
		   "bits, a zero size or a malformed description",
	[ERANGE] = "offset, size or index outside the object",
	[E2BIG] = "above a device limit (allocation size, local memory, "
		  "argument count, stack of a work-group)",
	[EXDEV] = "an object of another device or context, or a buffer the "
		  "device cannot reach",
	[ENOEXEC] = "a failed build (see the build log), a kernel argument "
		    "never set, or a program binary of another format, ABI "
		    "or CPU",
	[ENODEV] = "the device was unplugged",
	[ETIMEDOUT] = "a build step passed its deadline "
		      "(ACCEL_COMPILE_TIMEOUT_MS)",
	[ENOTTY] = "a kernel argument set as the wrong kind (buffer, value "
		   "or local memory)",
	[EACCES] = "access refused: a host mapping against the buffer's "
		   "host-access flags, a write to a read-only buffer, or a "
		   "device node without permission",
	[EOPNOTSUPP] = "the device lacks the capability (accel-info, and "
		       "the context's log, say why)",
	[ETIME] = "the wait timed out",
	[EALREADY] = "the user fence was signalled already",
	[ENODATA] = "the object has nothing of that kind (no binary, no "
		    "such property)",
	[EAGAIN] = "not yet: the point has not been reached",
	[EMFILE] = "out of file descriptors (each buffer and fence may hold "
		   "one; raise RLIMIT_NOFILE)",
	[EIO] = "the device's driver failed",
	[ENOMEM] = "out of memory",
};

ACCEL_EXPORT const char *accel_strerror(int error)
{
	const char *s;

	if (error == 0)
		return "success";
	if (error == INT_MIN)
		return "unknown error";
	if (error < 0)
		error = -error;
	if ((size_t)error < ARRAY_SIZE(meanings) && meanings[error])
		return meanings[error];
	/* glibc's text: constant, untranslated, thread-safe */
	s = strerrordesc_np(error);
	return s ? s : "unknown error";
}
