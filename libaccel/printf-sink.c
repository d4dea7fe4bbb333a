/* SPDX-License-Identifier: MIT */
/*
 * Where kernels' printf output goes: the context's handler, or stdout.
 * Backends format the text (the CPU device: cpu-printf.c) and hand it
 * over here, a launch at a time.
 */
#include <stdio.h>

#include "backend.h"

void accel_printf_begin(struct accel_context *ctx, struct accel_printf_sink *s)
{
	s->ctx = ctx;
	pthread_mutex_lock(&ctx->lock);
	s->fn = ctx->printf_fn;
	s->data = ctx->printf_data;
	pthread_mutex_unlock(&ctx->lock);
	if (!s->fn)
		flockfile(stdout);
}

void accel_printf_emit(struct accel_printf_sink *s, const char *text,
		       size_t len)
{
	if (s->fn)
		s->fn(s->ctx, text, len, s->data);
	else
		fwrite_unlocked(text, 1, len, stdout);
}

void accel_printf_end(struct accel_printf_sink *s)
{
	if (!s->fn) {
		fflush_unlocked(stdout);
		funlockfile(stdout);
	}
}

ACCEL_EXPORT int accel_context_set_printf_fn(struct accel_context *ctx,
					     accel_printf_fn fn,
					     void *user_data)
{
	if (!ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	ctx->printf_fn = fn;
	ctx->printf_data = user_data;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}
