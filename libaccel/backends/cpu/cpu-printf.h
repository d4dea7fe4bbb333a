/* SPDX-License-Identifier: MIT */
/*
 * printf() in compiled kernels: the per-launch buffer and its output
 * (cpu-printf.c). The record layout is compiler-stub/accelc-printf.h.
 */
#ifndef LIBACCEL_CPU_PRINTF_H
#define LIBACCEL_CPU_PRINTF_H

#include "backend.h"
#include "accelc-printf.h"

/*
 * The printf buffer for a launch on @dev: NULL in *@ret when the kernel
 * does not print (CPU_KERNEL_PRINTF not in @kernel_flags). @return 0 or
 * -ENOMEM.
 */
int accel_printf_buffer_new(struct accel_device *dev, uint32_t kernel_flags,
			    struct accelc_printf_buffer **ret);

/*
 * Format the records of @buf (when @output) into the core's printf sink
 * (accel_printf_begin()), in buffer order, then free @buf. Accepts NULL. Called when the
 * launch completes, before its fence signals.
 */
void accel_printf_buffer_flush(struct accel_cmd *cmd,
			       struct accelc_printf_buffer *buf, bool output);
/* The same for a launch of @kernel whose output goes to @ctx (chains). */
void accel_printf_buffer_flush_launch(struct accel_context *ctx,
				      const struct accel_kernel *kernel,
				      struct accelc_printf_buffer *buf,
				      bool output);

/* Growing text of one record. */
struct accel_printf_text {
	char *buf;
	size_t len, cap;
};

/*
 * Format one record's payload (@size bytes) as @fmt says, appending to
 * @out. @return 0, -EBADMSG (payload shorter than the format needs, or a
 * malformed format), -ENOMEM.
 */
int accel_printf_format(const char *fmt, const uint8_t *payload, size_t size,
			struct accel_printf_text *out);

#endif /* LIBACCEL_CPU_PRINTF_H */
