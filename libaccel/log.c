/* SPDX-License-Identifier: MIT */
/*
 * Per-context logging: a handler and a priority, never global state.
 */
#include <stdio.h>

#include "accel-private.h"

void accel_logv(struct accel_context *ctx, int priority, const char *file,
		int line, const char *fn, const char *format, va_list args)
{
	accel_log_fn log_fn;
	void *data;

	/* Copy under the lock; call without it (handlers may call back in). */
	pthread_mutex_lock(&ctx->lock);
	log_fn = ctx->log_fn;
	data = ctx->log_data;
	pthread_mutex_unlock(&ctx->lock);
	if (!log_fn)
		return;

	log_fn(ctx, priority, file, line, fn, format, args, data);
}

void accel_log(struct accel_context *ctx, int priority, const char *file,
	       int line, const char *fn, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	accel_logv(ctx, priority, file, line, fn, format, args);
	va_end(args);
}
