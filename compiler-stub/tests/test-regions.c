/* SPDX-License-Identifier: MIT */
/*
 * Which way accelc runs kernels with barriers: as work-item loops over
 * barrier-free regions (no fiber in the work-group function), or, past
 * the regions' size limit, as fibers; both give the same results. The
 * kernels run here in one-dimensional groups, sequentially; the API test
 * tests/api/test-barriers.c covers the rest through the CPU device.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include <libaccel/accel-wg.h>

#include "accelc.h"

/* rounds of "acc += tmp[l + 1]; barrier; tmp[l] = acc; barrier" */
static char *chain_source(unsigned rounds)
{
	static const char head[] =
		"kernel void chain(global uint *out, local uint *tmp)\n"
		"{\n"
		"	size_t l = get_local_id(0), n = get_local_size(0);\n"
		"	uint acc = (uint)l;\n"
		"	tmp[l] = acc;\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n";
	static const char step[] =
		"	acc += tmp[(l + 1) % n];\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	tmp[l] = acc;\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n";
	static const char tail[] = "	out[get_global_id(0)] = acc;\n}\n";
	char *s = malloc(sizeof(head) + rounds * sizeof(step) + sizeof(tail));

	assert_non_null(s);
	strcpy(s, head);
	for (unsigned i = 0; i < rounds; i++)
		strcat(s, step);
	strcat(s, tail);
	return s;
}

/* Compiles chain_source(@p rounds), runs it in groups of @p ls over
 * 3 * @p ls items, checks the results; @return the final IR. */
static char *build_run(unsigned rounds, uint64_t ls, const char *opts)
{
	struct accelc_options o = { .struct_size = sizeof(o),
				    .flags = ACCELC_FLAG_KEEP_IR,
				    .build_options = opts };
	struct accelc_result *res = NULL;
	const struct accelc_kernel_info *k;
	struct accel_wg_ctx c = { .abi_version = ACCEL_WG_ABI_VERSION,
				  .work_dim = 1 };
	char *src = chain_source(rounds), *ir;
	unsigned out[3 * 64], acc[64], t[64];
	void *lmem = aligned_alloc(128, 1024), *lslot = lmem, *bslot = out;
	void *args[2] = { &bslot, &lslot };
	accel_wg_fn fn;
	void *dl;

	assert_non_null(lmem);
	assert_true(ls <= 64);
	if (accelc_compile(&o, src, strlen(src), &res) < 0) {
		fprintf(stderr, "%s\n", res ? accelc_result_get_log(res) : "");
		fail();
	}
	free(src);
	k = accelc_result_find_kernel(res, "chain");
	assert_non_null(k);
	assert_true(k->flags & ACCELC_KERNEL_HAS_BARRIERS);
	dl = dlopen(accelc_result_get_path(res), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(dl);
	fn = (accel_wg_fn)dlsym(dl, k->wg_symbol);
	assert_non_null(fn);
	for (int d = 0; d < 3; d++)
		c.local_size[d] = c.enqueued_local_size[d] =
			c.global_size[d] = c.num_groups[d] = 1;
	c.local_size[0] = c.enqueued_local_size[0] = ls;
	c.global_size[0] = 3 * ls;
	c.num_groups[0] = 3;
	c.local_mem = lmem;
	for (uint64_t g = 0; g < 3; g++) {
		c.group_id[0] = g;
		fn(args, &c);
	}
	for (uint64_t l = 0; l < ls; l++)
		t[l] = acc[l] = (unsigned)l;
	for (unsigned r = 0; r < rounds; r++) {
		for (uint64_t l = 0; l < ls; l++)
			acc[l] += t[(l + 1) % ls];
		memcpy(t, acc, ls * sizeof(*t));
	}
	for (uint64_t i = 0; i < 3 * ls; i++)
		assert_int_equal(out[i], acc[i % ls]);
	ir = strdup(accelc_result_get_ir(res));
	assert_non_null(ir);
	dlclose(dl);
	accelc_result_free(res);
	free(lmem);
	return ir;
}

static void test_regions(void **state)
{
	static const uint64_t sizes[] = { 1, 3, 16, 61 };

	(void)state;
	for (size_t i = 0; i < 2 * sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* also unoptimised: nothing cleans up after the regions */
		char *ir = build_run(5, sizes[i / 2],
				     i % 2 ? "-cl-opt-disable" : NULL);

		/* work-item loops: no per-item function, no fiber switch */
		assert_null(strstr(ir, "chain__item"));
		assert_null(strstr(ir, "call void @__accelc_fiber_run"));
		free(ir);
	}
}

static void test_fiber_fallback(void **state)
{
	static const uint64_t sizes[] = { 1, 7, 32 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *ir = build_run(40, sizes[i], NULL);

		assert_non_null(strstr(ir, "chain__item"));
		free(ir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_fiber_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
