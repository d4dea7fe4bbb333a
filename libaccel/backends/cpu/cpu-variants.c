// SPDX-License-Identifier: MIT
/*
 * Streaming variants built later. A build from source asks the compiler
 * for none (ACCELC_FLAG_STREAMING_LATER): they cost as much code
 * generation as the kernels themselves, and pay only for launches whose
 * buffers exceed the last-level cache, which most small programs never
 * make. The first launch that would run one (cpu-launch.c) builds the same
 * source with them, as PoCL generates code at a kernel's first launch:
 * that launch's enqueue waits for the build (the program cache has it
 * after the first process), and it and every later one get the variants.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-program.h"

struct cpu_program *cpu_program_new(struct accel_device *dev, void *handle,
				    uint32_t n_kernels)
{
	struct cpu_program *cp = calloc(1, sizeof(*cp));

	if (!cp)
		return NULL;
	cp->handle = handle;
	cp->dev = dev;
	cp->n_kernels = n_kernels;
	pthread_mutex_init(&cp->lock, NULL);
	atomic_init(&cp->done, false);
	return cp;
}

bool cpu_program_keep_source(struct cpu_program *cp, const char *source,
			     size_t length, const char *options)
{
	uint32_t i;

	cp->source = malloc(length + 1);
	cp->options = strdup(options ? options : "");
	cp->names = calloc(cp->n_kernels ? cp->n_kernels : 1,
			   sizeof(*cp->names));
	cp->streaming = calloc(cp->n_kernels ? cp->n_kernels : 1,
			       sizeof(*cp->streaming));
	if (!cp->source || !cp->options || !cp->names || !cp->streaming)
		return false;
	memcpy(cp->source, source, length);
	cp->source[length] = '\0';
	cp->length = length;
	for (i = 0; i < cp->n_kernels; i++)
		atomic_init(&cp->streaming[i], NULL);
	return true;
}

void cpu_program_free(struct cpu_program *cp)
{
	uint32_t i;

	if (!cp)
		return;
	if (cp->later_handle)
		dlclose(cp->later_handle);
	if (cp->handle)
		dlclose(cp->handle);
	for (i = 0; cp->names && i < cp->n_kernels; i++)
		free(cp->names[i]);
	free(cp->names);
	free((void *)cp->streaming);
	free(cp->source);
	free(cp->options);
	pthread_mutex_destroy(&cp->lock);
	free(cp);
}

/* Build the variants once; a failure leaves them unbuilt for good. */
static void later_build(struct cpu_program *cp)
{
	int r;

	pthread_mutex_lock(&cp->lock);
	if (!atomic_load_explicit(&cp->done, memory_order_relaxed)) {
		r = cpu_compiler_build_variants(cp);
		if (r < 0)
			log_info(cp->dev->ctx, "streaming variants: the build "
				 "failed (%s): launches keep ordinary "
				 "stores\n", strerror(-r));
		else
			log_dbg(cp->dev->ctx, "streaming variants: built for "
				"%d kernel(s)\n", r);
		atomic_store_explicit(&cp->done, true, memory_order_release);
	}
	pthread_mutex_unlock(&cp->lock);
}

accel_wg_fn cpu_kernel_streaming_fn(const struct cpu_kernel *ck)
{
	struct cpu_program *cp = ck->later;
	accel_wg_fn fn;

	if (ck->streaming_fn || !cp)
		return ck->streaming_fn;
	/* acquire: the code the build dlopen()ed is mapped for this thread */
	fn = atomic_load_explicit(&cp->streaming[ck->later_index],
				  memory_order_acquire);
	if (fn || atomic_load_explicit(&cp->done, memory_order_acquire))
		return fn;
	later_build(cp);
	return atomic_load_explicit(&cp->streaming[ck->later_index],
				    memory_order_acquire);
}
