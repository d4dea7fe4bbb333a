/* SPDX-License-Identifier: MIT */
/*
 * accel-info's shared pieces: the device and candidate snapshots, the
 * listing state, the output interface (text or JSON) and the property
 * tables both outputs walk.
 */
#ifndef ACCEL_INFO_H
#define ACCEL_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libaccel/libaccel.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct options {
	bool json;
	bool list; /* one line per device (--list) */
	bool verbose;
	bool watch;
};

/* State of one listing, handed to every output callback. */
struct listing {
	const struct options *opts;
	unsigned n_printed; /* devices printed so far */
	unsigned n_cand_printed; /* candidates printed so far */
};

/* ---- property tables ----------------------------------------------------- */

/* How a u64 property is shown. */
enum fmt {
	FMT_NUM,   /* plain decimal */
	FMT_BYTES, /* a size: MiB/KiB in text, bytes in JSON */
	FMT_HEX16, /* a PCI id */
	FMT_TYPE,  /* enum accel_device_type */
	FMT_CAPS,  /* ACCEL_DEVICE_CAP_* bits */
	FMT_NUMA,  /* UINT64_MAX means "none" */
	FMT_MHZ,   /* 0 means "unknown" */
	FMT_NS,
	FMT_POW2S, /* bit n: 2^n is one of the values */
};

struct u64_prop {
	enum accel_device_u64 prop;
	const char *key;   /* JSON member name */
	const char *label; /* text label */
	enum fmt fmt;
};

struct string_prop {
	enum accel_device_string prop;
	const char *key;
	const char *label;
};

struct cand_string_prop {
	enum accel_candidate_string prop;
	const char *key;
	const char *label;
};

/*
 * The tables (accel-info-props.c) with their entry counts: the counts are
 * computed where the definitions are, so the tables' static checks there
 * see their real sizes.
 */
extern const struct u64_prop u64_props[];
extern const enum accel_device_u64 work_item_props[];
extern const char *const vector_types[];
extern const enum accel_device_u64 preferred_width_props[];
extern const enum accel_device_u64 native_width_props[];
extern const struct string_prop string_props[];
extern const char *const cap_names[];
extern const struct cand_string_prop cand_string_props[];
extern const size_t n_u64_props, n_work_item_props, n_vector_types,
	n_preferred_width_props, n_native_width_props, n_string_props,
	n_cap_names, n_cand_string_props;

const char *info_type_name(uint64_t type);
const char *info_list_next(const char **cursor, size_t *len);

/* ---- snapshots ----------------------------------------------------------- */

/*
 * Everything the outputs show about one device. A failed query is kept
 * as its negative errno so an output can say which property failed.
 */
struct dev_info {
	unsigned index;
	uint64_t u64[ACCEL_DEVICE_U64_COUNT];
	int u64_err[ACCEL_DEVICE_U64_COUNT];
	const char *str[ACCEL_DEVICE_STRING_COUNT]; /* live as long as dev */
	int str_err[ACCEL_DEVICE_STRING_COUNT];
	/* The CPU device is libaccel's own; users should know it is not HW. */
	bool is_reference;
	/* Type and name could be read: the device can be worked with. */
	bool usable;
};

struct cand_info {
	unsigned index;
	const char *str[ACCEL_CANDIDATE_STRING_COUNT]; /* live with ctx */
	uint64_t u64[ACCEL_CANDIDATE_U64_COUNT];
	int err;        /* first failed query, 0 if none */
};

const char *cand_reason(const struct cand_info *c);
bool cand_usable(const struct cand_info *c);

/* ---- outputs ------------------------------------------------------------- */

struct output {
	void (*begin)(struct listing *l, unsigned n_devices);
	/* Prints one device; the caller then counts it in l->n_printed. */
	void (*device)(struct listing *l, const struct dev_info *info);
	void (*devices_end)(struct listing *l);
	/* Discovery as a whole, then every candidate device. */
	void (*discovery)(struct listing *l, int status, const char *msg);
	/* Prints (or skips) one candidate, counting it in n_cand_printed. */
	void (*candidate)(struct listing *l, const struct cand_info *c);
	void (*end)(struct listing *l);
};

extern const struct output text_output;
extern const struct output json_output;
extern const struct output list_output;

void json_string(const char *s);

#endif
