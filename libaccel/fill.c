/* SPDX-License-Identifier: MIT */
/*
 * Pattern fills done by the host, shared by backends that run transfers
 * on the CPU.
 */
#include <string.h>

#include "accel-private.h"

void accel_fill_pattern(uint8_t *dst, uint64_t len, const uint8_t *pattern,
			uint32_t psize)
{
	uint64_t done;

	if (psize == 1) {
		memset(dst, pattern[0], len);
		return;
	}
	memcpy(dst, pattern, psize);
	/* Double what is there: few, growing memcpy calls. */
	for (done = psize; done < len;) {
		uint64_t n = MIN(done, len - done);

		memcpy(dst + done, dst, n);
		done += n;
	}
}
