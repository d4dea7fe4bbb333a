/* SPDX-License-Identifier: MIT */
/*
 * SPIR-V modules: what the core reads of them without the compiler, the
 * specialization constants' sizes (clSetProgramSpecializationConstant
 * checks ids and sizes before the build).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libaccel/accel-program.h>

#include "accel-private.h"

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_HEADER_WORDS 5u

enum {
	OP_DECORATE = 71,
	OP_TYPE_BOOL = 20,
	OP_TYPE_INT = 21,
	OP_TYPE_FLOAT = 22,
	OP_SPEC_CONSTANT_TRUE = 48,
	OP_SPEC_CONSTANT_FALSE = 49,
	OP_SPEC_CONSTANT = 50,
	DECORATION_SPEC_ID = 1,
};

static uint32_t word(const unsigned char *p, size_t i)
{
	uint32_t w;

	memcpy(&w, p + i * 4, 4);
	return w;
}

/*
 * Find an instruction by opcode and the word at @p at (1-based), from
 * word @p from on. @return its index, 0 if none, SIZE_MAX if malformed.
 */
static size_t find(const unsigned char *p, size_t n, unsigned op,
		   size_t at, uint32_t value)
{
	for (size_t i = SPIRV_HEADER_WORDS; i < n;) {
		uint32_t w = word(p, i), len = w >> 16;

		if (!len || len > n - i)
			return SIZE_MAX;
		if ((w & 0xffff) == op && at < len && word(p, i + at) == value)
			return i;
		i += len;
	}
	return 0;
}

ACCEL_EXPORT int accel_il_get_spec_constant_size(const void *il, size_t size,
						 uint32_t spec_id,
						 uint32_t *ret_size)
{
	const unsigned char *p = il;
	size_t n = size / 4, i, c, t;
	uint32_t id, op;

	if (!il || !ret_size || size % 4 || n < SPIRV_HEADER_WORDS ||
	    word(p, 0) != SPIRV_MAGIC)
		return -EINVAL;
	/* OpDecorate %id SpecId N: walk all, an id may be decorated twice */
	for (i = SPIRV_HEADER_WORDS; i < n; i += word(p, i) >> 16) {
		uint32_t w = word(p, i), len = w >> 16;

		if (!len || len > n - i)
			return -EINVAL;
		if ((w & 0xffff) != OP_DECORATE || len < 4 ||
		    word(p, i + 2) != DECORATION_SPEC_ID ||
		    word(p, i + 3) != spec_id)
			continue;
		id = word(p, i + 1);
		/* the constant: result type at word 1, result id at 2 */
		for (op = OP_SPEC_CONSTANT_TRUE; op <= OP_SPEC_CONSTANT; op++) {
			c = find(p, n, op, 2, id);
			if (c == SIZE_MAX)
				return -EINVAL;
			if (c)
				break;
		}
		if (!c)
			continue;
		if (op != OP_SPEC_CONSTANT) {
			*ret_size = 1;
			return 0;
		}
		t = find(p, n, OP_TYPE_INT, 1, word(p, c + 1));
		if (!t)
			t = find(p, n, OP_TYPE_FLOAT, 1, word(p, c + 1));
		if (!t || t == SIZE_MAX || (word(p, t) >> 16) < 3)
			return -EINVAL;
		*ret_size = word(p, t + 2) / 8;
		return 0;
	}
	return -ENOENT;
}
