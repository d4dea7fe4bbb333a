/* SPDX-License-Identifier: MIT */
/*
 * printf() in kernels: what the compiler (lower/printf-lower.c) and the
 * CPU backend (libaccel/backends/cpu/cpu-printf.c) agree on. Header-only,
 * so that both parse a format the same way.
 *
 * A launch of a kernel that prints gets a buffer (struct
 * accelc_printf_buffer, at accel_wg_ctx.printf_buffer). Each printf()
 * call claims one record with an atomic add on `used`, and writes it when
 * it fits; a call that does not fit lowers `limit` to its offset and
 * returns -1. Records below min(used, limit) are therefore complete.
 *
 * A record is a struct accelc_printf_record, then one payload item per
 * conversion of its format, in order, each a multiple of 8 bytes:
 *  - a '*' width or precision: int64;
 *  - a scalar: int64 (integers, %c, %p) or double (a, e, f, g);
 *  - %s: uint64 length (ACCELC_PRINTF_NULL_STR for a NULL pointer), then
 *    the bytes (no NUL), padded to 8;
 *  - a vector: its elements, element size from the length modifier
 *    (the compiler writes one into formats that had none), padded to 8.
 * The formats are a NULL-terminated table of strings exported by the
 * program as ACCELC_PRINTF_TABLE; a record names its format by index.
 */
#ifndef ACCELC_PRINTF_H
#define ACCELC_PRINTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACCELC_PRINTF_TABLE "__accelc_printf_formats"
#define ACCELC_PRINTF_NULL_STR UINT64_MAX
/* %s strings are cut at this many bytes */
#define ACCELC_PRINTF_STR_MAX 65536u
/* widths and precisions beyond this are clamped when formatting */
#define ACCELC_PRINTF_WIDTH_MAX 4096

struct accelc_printf_buffer {
	uint64_t used;     /* bytes claimed, may exceed capacity */
	uint64_t limit;    /* first record that did not fit, else capacity */
	uint64_t capacity; /* bytes at data */
	uint8_t *data;
};

struct accelc_printf_record {
	uint32_t size;   /* bytes, header included, a multiple of 8 */
	uint32_t format; /* index in the format table */
};

enum accelc_pf_len {
	ACCELC_PF_LEN_NONE = 0,
	ACCELC_PF_LEN_HH,
	ACCELC_PF_LEN_H,
	ACCELC_PF_LEN_HL,
	ACCELC_PF_LEN_L,
};

#define ACCELC_PF_MINUS (1u << 0)
#define ACCELC_PF_PLUS (1u << 1)
#define ACCELC_PF_SPACE (1u << 2)
#define ACCELC_PF_HASH (1u << 3)
#define ACCELC_PF_ZERO (1u << 4)

#define ACCELC_PF_NONE (-1)
#define ACCELC_PF_STAR (-2)

/* One conversion specification. */
struct accelc_pf_spec {
	uint32_t len;       /* characters, '%' included */
	uint32_t len_pos;   /* offset where a length modifier goes */
	char conv;          /* diouxXcspaAeEfFgG or % */
	uint8_t flags;      /* ACCELC_PF_* */
	uint8_t vec;        /* 0 (scalar) or 2, 3, 4, 8, 16 */
	uint8_t lenmod;     /* enum accelc_pf_len */
	int32_t width;      /* >= 0, ACCELC_PF_NONE or ACCELC_PF_STAR */
	int32_t prec;
};

static inline bool accelc_pf_is_float(char c)
{
	return c && __builtin_strchr("aAeEfFgG", c);
}

static inline bool accelc_pf_is_int(char c)
{
	return c && __builtin_strchr("diouxX", c);
}

static inline bool accelc_pf_is_signed(char c)
{
	return c == 'd' || c == 'i';
}

/* Bytes of one vector element, 0 if the length modifier does not say. */
static inline unsigned accelc_pf_elem_size(const struct accelc_pf_spec *sp)
{
	static const unsigned sz[] = { 0, 1, 2, 4, 8 };

	return sp->lenmod <= ACCELC_PF_LEN_L ? sz[sp->lenmod] : 0;
}

static inline int32_t accelc_pf_number(const char *s, size_t n, size_t *i)
{
	int32_t v = 0;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		/* saturate: the formatter clamps anyway */
		if (v < 100000000)
			v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	return v;
}

/*
 * Parse the conversion at @s (s[0] == '%', @n characters available) as
 * OpenCL C 3.0 6.15.14.2 allows it: flags, width, precision, vector
 * specifier, length modifier, conversion. @return 0, or -1 if malformed
 * or not allowed (e.g. %n, %ls, a vector %s, hl without a vector).
 */
static inline int accelc_pf_parse(const char *s, size_t n,
				  struct accelc_pf_spec *sp)
{
	size_t i = 1;
	char c;

	*sp = (struct accelc_pf_spec){ .width = ACCELC_PF_NONE,
				       .prec = ACCELC_PF_NONE };
	for (; i < n; i++) {
		const char *f = __builtin_strchr("-+ #0", s[i]);

		if (!s[i] || !f)
			break;
		sp->flags |= (uint8_t)(1u << (f - "-+ #0"));
	}
	if (i < n && s[i] == '*') {
		sp->width = ACCELC_PF_STAR;
		i++;
	} else if (i < n && s[i] >= '1' && s[i] <= '9') {
		sp->width = accelc_pf_number(s, n, &i);
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i < n && s[i] == '*') {
			sp->prec = ACCELC_PF_STAR;
			i++;
		} else {
			sp->prec = accelc_pf_number(s, n, &i);
		}
	}
	if (i < n && s[i] == 'v') {
		i++;
		sp->vec = (uint8_t)accelc_pf_number(s, n, &i);
		if (sp->vec != 2 && sp->vec != 3 && sp->vec != 4 &&
		    sp->vec != 8 && sp->vec != 16)
			return -1;
	}
	sp->len_pos = (uint32_t)i;
	if (i + 1 < n && s[i] == 'h' && s[i + 1] == 'h') {
		sp->lenmod = ACCELC_PF_LEN_HH;
		i += 2;
	} else if (i + 1 < n && s[i] == 'h' && s[i + 1] == 'l') {
		sp->lenmod = ACCELC_PF_LEN_HL;
		i += 2;
	} else if (i < n && s[i] == 'h') {
		sp->lenmod = ACCELC_PF_LEN_H;
		i++;
	} else if (i < n && s[i] == 'l') {
		sp->lenmod = ACCELC_PF_LEN_L;
		i++;
	}
	if (i >= n || !s[i])
		return -1;
	c = s[i++];
	sp->conv = c;
	sp->len = (uint32_t)i;
	if (c == '%')
		return i == 2 ? 0 : -1;
	if (c == 'c' || c == 's' || c == 'p')
		return sp->vec || sp->lenmod ? -1 : 0;
	if (!accelc_pf_is_int(c) && !accelc_pf_is_float(c))
		return -1;
	if (sp->lenmod == ACCELC_PF_LEN_HL && !sp->vec)
		return -1;
	/* scalar floats are doubles: %hf and %hhf mean nothing */
	if (accelc_pf_is_float(c) &&
	    (sp->lenmod == ACCELC_PF_LEN_HH ||
	     (!sp->vec && sp->lenmod == ACCELC_PF_LEN_H)))
		return -1;
	return 0;
}

#endif /* ACCELC_PRINTF_H */
