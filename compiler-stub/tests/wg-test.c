/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "wg-test.h"

void wg_build(struct wg_prog *p, const char *source, const char *opts)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_KEEP_IR |
					     ACCELC_FLAG_NO_CACHE,
				    .build_options = opts };

	p->res = NULL;
	if (accelc_compile(&o, source, strlen(source), &p->res) < 0) {
		fprintf(stderr, "%s\n",
			p->res ? accelc_result_get_log(p->res) : "");
		fail();
	}
	p->dl = dlopen(accelc_result_get_path(p->res), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(p->dl);
}

void wg_unbuild(struct wg_prog *p)
{
	dlclose(p->dl);
	accelc_result_free(p->res);
}

accel_wg_fn wg_find(struct wg_prog *p, const char *kernel, const char *suffix)
{
	const struct accelc_kernel_info *k =
		accelc_result_find_kernel(p->res, kernel);
	char name[256];
	accel_wg_fn fn;

	assert_non_null(k);
	snprintf(name, sizeof(name), "%s%s", k->wg_symbol, suffix);
	*(void **)&fn = dlsym(p->dl, name);
	return fn;
}

bool wg_ir_has(struct wg_prog *p, const char *fn, const char *needle)
{
	const char *ir = accelc_result_get_ir(p->res);
	char def[256];
	const char *f, *end;

	snprintf(def, sizeof(def), "define void @%s(", fn);
	f = ir ? strstr(ir, def) : NULL;
	end = f ? strstr(f, "\n}\n") : NULL;
	assert_non_null(end);
	f = strstr(f, needle);
	return f && f < end;
}

void wg_run_1d(accel_wg_fn fn, void **args, uint64_t off, uint64_t gs,
	       uint64_t ls)
{
	struct accel_wg_ctx c = { .abi_version = ACCEL_WG_ABI_VERSION,
				  .work_dim = 1 };

	assert_non_null(fn);
	for (int d = 0; d < 3; d++) {
		c.local_size[d] = c.enqueued_local_size[d] = d ? 1 : ls;
		c.global_size[d] = d ? 1 : gs;
		c.num_groups[d] = d ? 1 : (gs + ls - 1) / ls;
	}
	c.global_offset[0] = off;
	for (uint64_t g = 0; g < c.num_groups[0]; g++) {
		c.group_id[0] = g;
		c.local_size[0] = gs - g * ls < ls ? gs - g * ls : ls;
		fn(args, &c);
	}
}
