/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the compiler's own cmocka tests that call generated
 * work-group functions directly: build a source (no cache, IR kept),
 * look functions up, read their IR, run one over a 1-D range.
 */
#ifndef ACCELC_WG_TEST_H
#define ACCELC_WG_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include <libaccel/accel-wg.h>

#include "accelc.h"

struct wg_prog {
	struct accelc_result *res;
	void *dl;
};

/* Build @source with @opts (NULL: none); fail the test with the log. */
void wg_build(struct wg_prog *p, const char *source, const char *opts);
void wg_unbuild(struct wg_prog *p);
/* The work-group function of @kernel with symbol suffix @suffix ("" for
 * K__wg itself), NULL if the program has none. */
accel_wg_fn wg_find(struct wg_prog *p, const char *kernel,
		    const char *suffix);
/* The definition of function @fn in the kept IR contains @needle (the
 * function must be there). */
bool wg_ir_has(struct wg_prog *p, const char *fn, const char *needle);
/* Run @fn over [@off, @off + @gs) in groups of @ls, the last partial. */
void wg_run_1d(accel_wg_fn fn, void **args, uint64_t off, uint64_t gs,
	       uint64_t ls);

#endif
