/* SPDX-License-Identifier: MIT */
/*
 * The geometry of an NDRange launch made by fuzz-cl: a launch that may be
 * valid really runs, so it is kept tiny; huge values reach only launches
 * that must fail. Apart from fuzz-cl-kernel.c so that tests/icd can hold
 * the shapes it makes against what the ICD accepts (test-icd-fuzz-launch.c).
 */
#ifndef ACCEL_FUZZ_LAUNCH_H
#define ACCEL_FUZZ_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many work-items in a launch that may be valid. */
#define FZ_LAUNCH_MAX_ITEMS 512u

/* Bits of the selector: what the launch leaves out, and a local size fit. */
#define FZ_LAUNCH_NO_OFFSET 0x10
#define FZ_LAUNCH_NO_GLOBAL 0x08
#define FZ_LAUNCH_NO_LOCAL 0x04
#define FZ_LAUNCH_FIT_LOCAL 0x20

/*
 * Shape @off, @gs and @ls (the dimensions below @dim count) for a launch
 * with selector @sel on a device whose work-groups hold at most @max_wg
 * work-items. Returns true if the launch must fail: a global offset that
 * is passed plus the global size overflows. Only then do the sizes stay
 * huge: an offset left out (NULL) makes no launch fail, whatever the
 * unused values would add up to.
 */
static inline bool fz_launch_shape(uint8_t sel, uint32_t dim, size_t off[3],
				   size_t gs[3], size_t ls[3], size_t max_wg)
{
	/* products saturate at 2^64: never wrap back to a small count */
	const unsigned __int128 cap = (unsigned __int128)1 << 64;
	unsigned __int128 items = 1, group = 1;
	bool overflow = false;
	uint32_t i;

	for (i = 0; i < 3 && i < dim; i++) {
		if (!(sel & FZ_LAUNCH_NO_OFFSET) && off[i] + gs[i] < off[i])
			overflow = true;
		items = items * gs[i] > cap ? cap : items * gs[i];
		group = group * ls[i] > cap ? cap : group * ls[i];
	}
	if (!overflow && items > FZ_LAUNCH_MAX_ITEMS && dim >= 1 && dim <= 3)
		for (i = 0; i < dim; i++)
			gs[i] = gs[i] % 8 + 1;
	if (!overflow && (sel & FZ_LAUNCH_FIT_LOCAL) && group <= max_wg)
		for (i = 0; i < 3; i++)
			ls[i] = ls[i] % 8 + 1;
	return overflow;
}

#endif /* ACCEL_FUZZ_LAUNCH_H */
