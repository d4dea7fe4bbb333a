/* SPDX-License-Identifier: MIT */
/*
 * The one table from libaccel's negative errno values to OpenCL error
 * codes. It gives each errno its generic meaning (docs/design.md, "Errors");
 * entry points that know better (E2BIG of an allocation is
 * CL_INVALID_BUFFER_SIZE) check those cases before falling back to it.
 * A refused launch says why (accel_kernel_check_launch()): a second table.
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

/* Why libaccel refuses a launch (enum accel_launch_reason), as a CL code. */
static const cl_int launch_table[] = {
	[ACCEL_LAUNCH_WORK_DIM] = CL_INVALID_WORK_DIMENSION,
	[ACCEL_LAUNCH_GLOBAL_OFFSET] = CL_INVALID_GLOBAL_OFFSET,
	[ACCEL_LAUNCH_GLOBAL_SIZE] = CL_INVALID_GLOBAL_WORK_SIZE,
	[ACCEL_LAUNCH_WORK_ITEM_SIZE] = CL_INVALID_WORK_ITEM_SIZE,
	[ACCEL_LAUNCH_WORK_GROUP_SIZE] = CL_INVALID_WORK_GROUP_SIZE,
	[ACCEL_LAUNCH_REQD_WORK_GROUP_SIZE] = CL_INVALID_WORK_GROUP_SIZE,
	[ACCEL_LAUNCH_NON_UNIFORM] = CL_INVALID_WORK_GROUP_SIZE,
	[ACCEL_LAUNCH_ARG_NOT_SET] = CL_INVALID_KERNEL_ARGS,
	[ACCEL_LAUNCH_ARG_READ_ONLY] = CL_INVALID_OPERATION,
	[ACCEL_LAUNCH_LOCAL_MEM] = CL_OUT_OF_RESOURCES,
};

cl_int icd_launch_error(const struct accel_launch_check *c)
{
	if (c->error == 0)
		return CL_SUCCESS;
	if (c->reason < ICD_ARRAY_SIZE(launch_table) &&
	    launch_table[c->reason])
		return launch_table[c->reason];
	return icd_error(c->error);
}
