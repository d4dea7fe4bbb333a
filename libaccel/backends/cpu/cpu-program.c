/* SPDX-License-Identifier: MIT */
/*
 * The CPU device's programs: a kernel's handle is its code (struct
 * cpu_kernel); a compiled program's backend_data is a struct cpu_program,
 * its dlopen()ed object, closed after its kernels.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "cpu-private.h"
#include "cpu-program.h"

/* Memory mappings of this process, or 0 if unknown. */
static unsigned long count_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static unsigned long max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
	unsigned long n = 0;

	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/*
 * A process out of memory mappings (vm.max_map_count: each program's
 * code takes four or five) or of address space cannot load more code;
 * that is no bad program, and the caller hears -ENOMEM, not -EIO.
 */
int cpu_program_dlopen(struct accel_context *ctx, const char *path,
		       void **ret)
{
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int err = errno;
	unsigned long have, max;

	if (handle) {
		*ret = handle;
		return 0;
	}
	log_err(ctx, "cannot load compiled program: %s\n", dlerror());
	max = max_map_count();
	have = max ? count_mappings() : 0;
	if (max && have + 16 >= max) {
		log_err(ctx, "the process has %lu memory mappings, "
			"vm.max_map_count allows %lu\n", have, max);
		return -ENOMEM;
	}
	return err == ENOMEM ? -ENOMEM : -EIO;
}

int cpu_kernel_from_native(struct accel_device *dev _unused_,
			   const struct accel_native_kernel_desc *desc,
			   void **ret_handle)
{
	struct cpu_kernel *ck = calloc(1, sizeof(*ck));

	if (!ck)
		return -ENOMEM;
	ck->fn = desc->fn;
	/* older callers' descriptions end before the variants */
	if (desc->struct_size >= offsetof(struct accel_native_kernel_desc,
					  streaming_fn) +
					 sizeof(desc->streaming_fn))
		ck->streaming_fn = desc->streaming_fn;
	if (desc->struct_size >= offsetof(struct accel_native_kernel_desc,
					  ids32_fn) +
					 sizeof(desc->ids32_fn))
		ck->ids32_fn = desc->ids32_fn;
	*ret_handle = ck;
	return 0;
}

void cpu_kernel_free(struct accel_device *dev _unused_, void *handle)
{
	free(handle);
}

void cpu_program_fini(struct accel_program *prog)
{
	cpu_program_free(prog->backend_data);
}
