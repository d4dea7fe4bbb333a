/* SPDX-License-Identifier: MIT */
/*
 * Target feature strings as LLVM spells them ("+avx2,-avx512f,..."):
 * the compiler's targets, its libmvec table and the program binary's CPU
 * check all ask whether one is on. Inline: the binary parser is also
 * built alone (its fuzzer).
 */
#ifndef ACCELC_FEATURE_LIST_H
#define ACCELC_FEATURE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Is "+@p feat" (its first @p n bytes) in the comma-separated @p list? */
static inline bool accelc_feature_listed(const char *list, const char *feat,
					 size_t n)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == n + 1 && *p == '+' &&
		    !memcmp(p + 1, feat, n))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

#endif
