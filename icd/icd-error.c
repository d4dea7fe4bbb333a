/* SPDX-License-Identifier: MIT */
/*
 * The one table from libaccel's negative errno values to OpenCL error
 * codes. It gives each errno its generic meaning (docs/design.md, "Errors");
 * entry points that know better (E2BIG of an allocation is
 * CL_INVALID_BUFFER_SIZE, ENOEXEC of a launch CL_INVALID_KERNEL_ARGS) check
 * those cases before falling back to it.
 */
#include <errno.h>

#include "icd.h"

static const struct {
	int err;
	cl_int cl;
} errno_table[] = {
	{ EINVAL, CL_INVALID_VALUE },
	{ ERANGE, CL_INVALID_VALUE },
	{ ENOMEM, CL_OUT_OF_HOST_MEMORY },
	{ E2BIG, CL_OUT_OF_RESOURCES },
	{ EMFILE, CL_OUT_OF_RESOURCES },
	{ ENFILE, CL_OUT_OF_RESOURCES },
	{ ENOSPC, CL_OUT_OF_RESOURCES },
	{ EXDEV, CL_INVALID_CONTEXT },
	{ ENOEXEC, CL_INVALID_KERNEL_ARGS },
	{ ENOTTY, CL_INVALID_ARG_VALUE },
	{ EACCES, CL_INVALID_OPERATION },
	{ EPERM, CL_INVALID_OPERATION },
	{ EOPNOTSUPP, CL_INVALID_OPERATION },
	{ ENOENT, CL_INVALID_VALUE },
	{ EALREADY, CL_INVALID_OPERATION },
	{ ETIME, CL_OUT_OF_RESOURCES },
	{ ETIMEDOUT, CL_OUT_OF_RESOURCES },
	{ EIO, CL_OUT_OF_RESOURCES },
	{ ENODEV, CL_DEVICE_NOT_AVAILABLE },
	/* a command skipped because an event it waited for failed */
	{ ECANCELED, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST },
};

cl_int icd_error(int err)
{
	size_t i;

	if (err >= 0)
		return CL_SUCCESS;
	for (i = 0; i < ICD_ARRAY_SIZE(errno_table); i++)
		if (errno_table[i].err == -err)
			return errno_table[i].cl;
	/* Anything else is a failure of the device or the system. */
	return CL_OUT_OF_RESOURCES;
}
