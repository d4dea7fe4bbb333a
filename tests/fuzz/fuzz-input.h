/* SPDX-License-Identifier: MIT */
/*
 * Reading a fuzz input as a program: one byte picks an operation, the
 * bytes after it its operands. Past the end every read returns zeros, so
 * each input is a complete program.
 */
#ifndef ACCEL_FUZZ_INPUT_H
#define ACCEL_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline int fz_more(const struct fz *f)
{
	return f->n > 0;
}

static inline void fz_bytes(struct fz *f, void *out, size_t size)
{
	size_t k = size < f->n ? size : f->n;

	memcpy(out, f->p, k);
	memset((uint8_t *)out + k, 0, size - k);
	f->p += k;
	f->n -= k;
}

static inline uint8_t fz_u8(struct fz *f)
{
	uint8_t v;

	fz_bytes(f, &v, 1);
	return v;
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t v;

	fz_bytes(f, &v, sizeof(v));
	return v;
}

static inline uint64_t fz_u64(struct fz *f)
{
	uint64_t v;

	fz_bytes(f, &v, sizeof(v));
	return v;
}

/* An index into a table of @n slots (n > 0). */
static inline unsigned fz_pick(struct fz *f, unsigned n)
{
	return fz_u8(f) % n;
}

/*
 * A size, offset, pitch or count: mostly small, but also powers of two
 * and their neighbours, values near SIZE_MAX and raw 64-bit values, where
 * overflow checks live.
 */
static inline uint64_t fz_size(struct fz *f)
{
	uint8_t sel = fz_u8(f);
	uint64_t v;

	switch (sel >> 5) {
	case 0:
	case 1:
	case 2:
		return sel & 0x3f;                  /* 0..63 */
	case 3:
		return fz_u8(f) * (uint64_t)((sel & 0x1f) + 1); /* < 8 KiB */
	case 4:                                     /* 2^k - 1, 2^k, 2^k + 1 */
		v = 1ull << (fz_u8(f) % 64);
		return v + (sel & 3) - 1;
	case 5:
		return UINT64_MAX - (sel & 0x1f);   /* near SIZE_MAX */
	case 6:
		return (UINT64_MAX >> 1) + (sel & 0xf) - 7;
	default:
		return fz_u64(f);
	}
}

#endif /* ACCEL_FUZZ_INPUT_H */
