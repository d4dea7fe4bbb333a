/* SPDX-License-Identifier: MIT */
/*
 * accel-info: list libaccel's devices and their properties.
 *
 * Uses the public API only. The work is split in three steps so later
 * features (udev discovery details, "why is my device missing"
 * diagnostics, --watch) can reuse them: collect a snapshot of each device
 * (struct dev_info), then hand the snapshots to an output (struct output:
 * text or JSON), then decide the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libaccel/libaccel.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses (documented in --help and docs/accel-info-json.md). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_BLOCKED 3 /* a device is there but this environment blocks it */

/* Version of the JSON layout; bumped only for incompatible changes. */
#define JSON_SCHEMA_VERSION 1

struct options {
	bool json;
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
};

/*
 * Scalar u64 properties in output order. The vector widths and the
 * work-item sizes are grouped (arrays/objects) and listed separately.
 * A property is only in one table, so every ACCEL_DEVICE_U64_* appears
 * exactly once in the output.
 */
static const struct u64_prop {
	enum accel_device_u64 prop;
	const char *key;   /* JSON member name */
	const char *label; /* text label */
	enum fmt fmt;
} u64_props[] = {
	{ ACCEL_DEVICE_U64_VENDOR_ID, "vendor_id", "Vendor ID", FMT_HEX16 },
	{ ACCEL_DEVICE_U64_DEVICE_ID, "device_id", "Device ID", FMT_HEX16 },
	{ ACCEL_DEVICE_U64_COMPUTE_UNITS, "compute_units", "Compute units",
	  FMT_NUM },
	{ ACCEL_DEVICE_U64_CLOCK_MHZ, "clock_mhz", "Max clock", FMT_MHZ },
	{ ACCEL_DEVICE_U64_NUMA_NODE, "numa_node", "NUMA node", FMT_NUMA },
	{ ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE, "global_mem_size", "Global memory",
	  FMT_BYTES },
	{ ACCEL_DEVICE_U64_LOCAL_MEM_SIZE, "local_mem_size",
	  "Local memory per work-group", FMT_BYTES },
	{ ACCEL_DEVICE_U64_MAX_ALLOC_SIZE, "max_alloc_size",
	  "Max buffer size", FMT_BYTES },
	{ ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN, "mem_base_addr_align",
	  "Sub-buffer alignment", FMT_BYTES },
	{ ACCEL_DEVICE_U64_CACHE_LINE_SIZE, "cache_line_size",
	  "Cache line", FMT_BYTES },
	{ ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE, "max_work_group_size",
	  "Max work-group size", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS, "max_work_item_dims",
	  "Max work-item dimensions", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_KERNEL_ARGS, "max_kernel_args",
	  "Max kernel arguments", FMT_NUM },
	{ ACCEL_DEVICE_U64_MAX_ARG_BYTES, "max_arg_bytes",
	  "Max argument bytes", FMT_BYTES },
	{ ACCEL_DEVICE_U64_TIMER_RESOLUTION_NS, "timer_resolution_ns",
	  "Timer resolution", FMT_NS },
};

static const enum accel_device_u64 work_item_props[3] = {
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X,
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y,
	ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z,
};

static const char *const vector_types[] = {
	"char", "short", "int", "long", "float", "double", "half",
};

static const enum accel_device_u64 preferred_width_props[] = {
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_CHAR,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_SHORT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_INT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_LONG,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_FLOAT,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_DOUBLE,
	ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_HALF,
};

static const enum accel_device_u64 native_width_props[] = {
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_CHAR,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_SHORT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_INT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_LONG,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_FLOAT,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_DOUBLE,
	ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_HALF,
};

_Static_assert(ARRAY_SIZE(vector_types) == ARRAY_SIZE(preferred_width_props),
	       "one preferred width per vector type");
_Static_assert(ARRAY_SIZE(vector_types) == ARRAY_SIZE(native_width_props),
	       "one native width per vector type");

/* String properties in output order (BUILT_IN_KERNELS is a list, below). */
static const struct string_prop {
	enum accel_device_string prop;
	const char *key;
	const char *label;
} string_props[] = {
	{ ACCEL_DEVICE_STRING_NAME, "name", "Name" },
	{ ACCEL_DEVICE_STRING_VENDOR, "vendor", "Vendor" },
	{ ACCEL_DEVICE_STRING_DRIVER, "driver", "Driver" },
	{ ACCEL_DEVICE_STRING_DRIVER_VERSION, "driver_version",
	  "Driver version" },
	{ ACCEL_DEVICE_STRING_BACKEND, "backend", "Backend" },
	{ ACCEL_DEVICE_STRING_DEVNODE, "devnode", "Device node" },
	{ ACCEL_DEVICE_STRING_SYSPATH, "syspath", "Sysfs path" },
};

/* Capability names; stable, they are part of the JSON schema. */
static const char *const cap_names[] = {
	[0] = "dmabuf_export",
	[1] = "dmabuf_import",
	[2] = "sync_file_export",
	[3] = "sync_file_import",
	[4] = "compiler",
	[5] = "native_kernels",
	[6] = "built_in_kernels",
	[7] = "fp64",
	[8] = "host_unified_memory",
	[9] = "user_ptr",
};

_Static_assert(ACCEL_DEVICE_CAP_USER_PTR == 1u << 9,
	       "cap_names[] follows the ACCEL_DEVICE_CAP_* bits");

static const char *type_name(uint64_t type)
{
	switch (type) {
	case ACCEL_DEVICE_TYPE_CPU:
		return "cpu";
	case ACCEL_DEVICE_TYPE_ACCELERATOR:
		return "accelerator";
	case ACCEL_DEVICE_TYPE_GPU:
		return "gpu";
	default:
		return "unknown";
	}
}

/* ---- device snapshot ----------------------------------------------------- */

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

static void dev_info_collect(struct accel_device *dev, unsigned index,
			     struct dev_info *info)
{
	int i;

	memset(info, 0, sizeof(*info));
	info->index = index;
	for (i = 0; i < ACCEL_DEVICE_U64_COUNT; i++)
		info->u64_err[i] = accel_device_query_u64(
			dev, (enum accel_device_u64)i, &info->u64[i]);
	for (i = 0; i < ACCEL_DEVICE_STRING_COUNT; i++) {
		info->str_err[i] = accel_device_query_string(
			dev, (enum accel_device_string)i, &info->str[i]);
		if (info->str_err[i] < 0)
			info->str[i] = NULL;
	}
	info->is_reference = !info->u64_err[ACCEL_DEVICE_U64_TYPE] &&
			     info->u64[ACCEL_DEVICE_U64_TYPE] ==
				     ACCEL_DEVICE_TYPE_CPU;
	info->usable = !info->u64_err[ACCEL_DEVICE_U64_TYPE] &&
		       !info->str_err[ACCEL_DEVICE_STRING_NAME];
}

/*
 * Walk a ';'-separated list: returns the next non-empty item (not
 * NUL-terminated, *len bytes) or NULL at the end.
 */
static const char *list_next(const char **cursor, size_t *len)
{
	const char *p = *cursor;

	while (p && *p == ';')
		p++;
	if (!p || !*p)
		return NULL;
	*len = strcspn(p, ";");
	*cursor = p + *len;
	return p;
}

/* ---- text output --------------------------------------------------------- */

/* "64 B", "32 KiB", "1.5 MiB", "15.6 GiB": one decimal unless exact. */
static void format_bytes(uint64_t v, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	unsigned u = 0;
	uint64_t div = 1;

	while (u + 1 < ARRAY_SIZE(units) && v / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (v % div == 0)
		snprintf(buf, size, "%" PRIu64 " %s", v / div, units[u]);
	else
		snprintf(buf, size, "%.1f %s", (double)v / (double)div,
			 units[u]);
}

static void format_caps(uint64_t caps, char *buf, size_t size)
{
	size_t off = 0;
	unsigned bit;

	buf[0] = '\0';
	for (bit = 0; bit < 64 && off < size; bit++) {
		if (!(caps & (UINT64_C(1) << bit)))
			continue;
		if (bit < ARRAY_SIZE(cap_names) && cap_names[bit])
			off += (size_t)snprintf(buf + off, size - off, "%s%s",
						off ? " " : "", cap_names[bit]);
		else
			off += (size_t)snprintf(buf + off, size - off,
						"%sbit%u", off ? " " : "", bit);
	}
	if (!caps)
		snprintf(buf, size, "(none)");
}

static void text_u64(const struct listing *l, const struct dev_info *info,
		     enum accel_device_u64 prop, const char *label,
		     enum fmt fmt)
{
	uint64_t v = info->u64[prop];
	char buf[512];

	if (info->u64_err[prop] < 0) {
		printf("  %-28s (error: %s)\n", label,
		       strerror(-info->u64_err[prop]));
		return;
	}
	switch (fmt) {
	case FMT_BYTES:
		format_bytes(v, buf, sizeof(buf));
		if (l->opts->verbose && v >= 1024)
			printf("  %-28s %s (%" PRIu64 " bytes)\n", label, buf,
			       v);
		else
			printf("  %-28s %s\n", label, buf);
		return;
	case FMT_HEX16:
		if (v)
			printf("  %-28s 0x%04" PRIx64 "\n", label, v);
		else
			printf("  %-28s (none)\n", label);
		return;
	case FMT_TYPE:
		printf("  %-28s %s\n", label, type_name(v));
		return;
	case FMT_CAPS:
		format_caps(v, buf, sizeof(buf));
		if (l->opts->verbose)
			printf("  %-28s %s (0x%" PRIx64 ")\n", label, buf, v);
		else
			printf("  %-28s %s\n", label, buf);
		return;
	case FMT_NUMA:
		if (v == UINT64_MAX)
			printf("  %-28s (none)\n", label);
		else
			printf("  %-28s %" PRIu64 "\n", label, v);
		return;
	case FMT_MHZ:
		if (v)
			printf("  %-28s %" PRIu64 " MHz\n", label, v);
		else
			printf("  %-28s (unknown)\n", label);
		return;
	case FMT_NS:
		printf("  %-28s %" PRIu64 " ns\n", label, v);
		return;
	case FMT_NUM:
		break;
	}
	printf("  %-28s %" PRIu64 "\n", label, v);
}

/* "  Label  v0 / v1 / v2" for a group of u64 properties. */
static void text_u64_group(const struct dev_info *info, const char *label,
			   const enum accel_device_u64 *props, size_t n,
			   const char *const *names)
{
	size_t i;

	printf("  %-28s", label);
	for (i = 0; i < n; i++) {
		const char *sep = i ? (names ? " " : " x ") : " ";

		if (info->u64_err[props[i]] < 0)
			printf("%s%s%s?", sep, names ? names[i] : "",
			       names ? "=" : "");
		else
			printf("%s%s%s%" PRIu64, sep, names ? names[i] : "",
			       names ? "=" : "", info->u64[props[i]]);
	}
	printf("\n");
}

static void text_begin(struct listing *l, unsigned n_devices)
{
	(void)l;
	printf("libaccel %s: %u device%s\n", accel_get_version(), n_devices,
	       n_devices == 1 ? "" : "s");
}

static void text_device(struct listing *l, const struct dev_info *info)
{
	const char *name = info->str[ACCEL_DEVICE_STRING_NAME];
	const enum accel_device_string bik =
		ACCEL_DEVICE_STRING_BUILT_IN_KERNELS;
	const char *kernels = info->str[bik];
	const char *item;
	size_t i, len;
	bool first = true;

	printf("\nDevice %u: %s%s\n", info->index, name ? name : "(unnamed)",
	       info->is_reference ? "  [CPU reference device]" : "");
	text_u64(l, info, ACCEL_DEVICE_U64_TYPE, "Type", FMT_TYPE);
	for (i = 0; i < ARRAY_SIZE(string_props); i++) {
		const struct string_prop *p = &string_props[i];
		const char *s = info->str[p->prop];

		if (info->str_err[p->prop] < 0)
			printf("  %-28s (error: %s)\n", p->label,
			       strerror(-info->str_err[p->prop]));
		else
			printf("  %-28s %s\n", p->label,
			       *s ? s : "(none)");
	}
	text_u64(l, info, ACCEL_DEVICE_U64_CAPS, "Capabilities", FMT_CAPS);
	for (i = 0; i < ARRAY_SIZE(u64_props); i++)
		text_u64(l, info, u64_props[i].prop, u64_props[i].label,
			 u64_props[i].fmt);
	text_u64_group(info, "Max work-item sizes", work_item_props,
		       ARRAY_SIZE(work_item_props), NULL);
	text_u64_group(info, "Preferred vector widths",
		       preferred_width_props,
		       ARRAY_SIZE(preferred_width_props), vector_types);
	text_u64_group(info, "Native vector widths", native_width_props,
		       ARRAY_SIZE(native_width_props), vector_types);

	printf("  %-28s", "Built-in kernels");
	if (!kernels) {
		printf(" (error: %s)\n", strerror(-info->str_err[bik]));
		return;
	}
	while ((item = list_next(&kernels, &len))) {
		printf("%s%.*s", first ? " " : ", ", (int)len, item);
		first = false;
	}
	printf("%s\n", first ? " (none)" : "");
}

static void text_end(struct listing *l)
{
	(void)l;
}

/* ---- JSON output --------------------------------------------------------- */

/*
 * Length of the valid UTF-8 sequence at @s (1-4), or 0 if it is not one.
 * Overlong forms, surrogates and code points above U+10FFFF are invalid.
 */
static size_t utf8_seq_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * Print @len bytes of @s as a JSON string. Device strings come from sysfs
 * and drivers, so anything may be in them: control characters are
 * escaped and invalid UTF-8 becomes U+FFFD, keeping the output valid JSON.
 */
static void json_string_n(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;

	putchar('"');
	while (p < end) {
		size_t n;

		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			p++;
			continue;
		case '\\':
			fputs("\\\\", stdout);
			p++;
			continue;
		case '\b':
			fputs("\\b", stdout);
			p++;
			continue;
		case '\f':
			fputs("\\f", stdout);
			p++;
			continue;
		case '\n':
			fputs("\\n", stdout);
			p++;
			continue;
		case '\r':
			fputs("\\r", stdout);
			p++;
			continue;
		case '\t':
			fputs("\\t", stdout);
			p++;
			continue;
		default:
			break;
		}
		if (*p < 0x20) {
			printf("\\u%04x", *p);
			p++;
			continue;
		}
		n = utf8_seq_len(p);
		if (n == 0 || n > (size_t)(end - p)) {
			fputs("\\ufffd", stdout);
			p++;
			continue;
		}
		fwrite(p, 1, n, stdout);
		p += n;
	}
	putchar('"');
}

static void json_string(const char *s)
{
	json_string_n(s, strlen(s));
}

/* A property that could not be read is null (documented in the schema). */
static void json_u64(const struct dev_info *info, enum accel_device_u64 prop)
{
	if (info->u64_err[prop] < 0)
		fputs("null", stdout);
	else
		printf("%" PRIu64, info->u64[prop]);
}

static void json_u64_member(const struct dev_info *info, const char *key,
			    enum accel_device_u64 prop, enum fmt fmt)
{
	printf(",\n      \"%s\": ", key);
	if (fmt == FMT_NUMA && !info->u64_err[prop] &&
	    info->u64[prop] == UINT64_MAX)
		fputs("null", stdout);
	else
		json_u64(info, prop);
}

static void json_width_object(const struct dev_info *info, const char *key,
			      const enum accel_device_u64 *props)
{
	size_t i;

	printf(",\n      \"%s\": {", key);
	for (i = 0; i < ARRAY_SIZE(vector_types); i++) {
		printf("%s\"%s\": ", i ? ", " : "", vector_types[i]);
		json_u64(info, props[i]);
	}
	putchar('}');
}

static void json_begin(struct listing *l, unsigned n_devices)
{
	(void)l;
	(void)n_devices;
	printf("{\n  \"schema_version\": %d,\n  \"libaccel_version\": ",
	       JSON_SCHEMA_VERSION);
	json_string(accel_get_version());
	fputs(",\n  \"devices\": [", stdout);
}

static void json_device(struct listing *l, const struct dev_info *info)
{
	const char *kernels = info->str[ACCEL_DEVICE_STRING_BUILT_IN_KERNELS];
	const char *item;
	uint64_t caps = info->u64[ACCEL_DEVICE_U64_CAPS];
	size_t i, len;
	bool first;

	printf("%s\n    {\n      \"index\": %u", l->n_printed ? "," : "",
	       info->index);

	fputs(",\n      \"type\": ", stdout);
	if (info->u64_err[ACCEL_DEVICE_U64_TYPE] < 0)
		fputs("null", stdout);
	else
		json_string(type_name(info->u64[ACCEL_DEVICE_U64_TYPE]));
	printf(",\n      \"reference\": %s",
	       info->is_reference ? "true" : "false");

	for (i = 0; i < ARRAY_SIZE(string_props); i++) {
		const struct string_prop *p = &string_props[i];

		printf(",\n      \"%s\": ", p->key);
		if (info->str[p->prop])
			json_string(info->str[p->prop]);
		else
			fputs("null", stdout);
	}

	for (i = 0; i < ARRAY_SIZE(u64_props); i++)
		json_u64_member(info, u64_props[i].key, u64_props[i].prop,
				u64_props[i].fmt);

	fputs(",\n      \"max_work_item_sizes\": [", stdout);
	for (i = 0; i < ARRAY_SIZE(work_item_props); i++) {
		fputs(i ? ", " : "", stdout);
		json_u64(info, work_item_props[i]);
	}
	putchar(']');
	json_width_object(info, "preferred_vector_width",
			  preferred_width_props);
	json_width_object(info, "native_vector_width", native_width_props);

	fputs(",\n      \"caps_mask\": ", stdout);
	json_u64(info, ACCEL_DEVICE_U64_CAPS);
	fputs(",\n      \"caps\": ", stdout);
	if (info->u64_err[ACCEL_DEVICE_U64_CAPS] < 0) {
		fputs("null", stdout);
	} else {
		putchar('[');
		first = true;
		for (i = 0; i < 64; i++) {
			if (!(caps & (UINT64_C(1) << i)))
				continue;
			fputs(first ? "" : ", ", stdout);
			first = false;
			if (i < ARRAY_SIZE(cap_names) && cap_names[i])
				printf("\"%s\"", cap_names[i]);
			else
				printf("\"bit%zu\"", i);
		}
		putchar(']');
	}

	fputs(",\n      \"built_in_kernels\": ", stdout);
	if (!kernels) {
		fputs("null", stdout);
	} else {
		putchar('[');
		first = true;
		while ((item = list_next(&kernels, &len))) {
			fputs(first ? "" : ", ", stdout);
			first = false;
			json_string_n(item, len);
		}
		putchar(']');
	}
	fputs("\n    }", stdout);
}

static void json_devices_end(struct listing *l)
{
	printf("%s]", l->n_printed ? "\n  " : "");
}

static void json_end(struct listing *l)
{
	printf("%s]\n}\n", l->n_cand_printed ? "\n  " : "");
}

/* ---- candidates: devices discovery saw, usable or not --------------- */

/* Candidate string properties in output order, with their JSON keys. */
static const struct cand_string_prop {
	enum accel_candidate_string prop;
	const char *key;
	const char *label;
} cand_string_props[] = {
	{ ACCEL_CANDIDATE_STRING_SYSNAME, "sysname", "Name" },
	{ ACCEL_CANDIDATE_STRING_SUBSYSTEM, "subsystem", "Subsystem" },
	{ ACCEL_CANDIDATE_STRING_DEVNODE, "devnode", "Device node" },
	{ ACCEL_CANDIDATE_STRING_RENDER_DEVNODE, "render_devnode",
	  "Render node" },
	{ ACCEL_CANDIDATE_STRING_DRIVER, "driver", "Driver" },
	{ ACCEL_CANDIDATE_STRING_BUS, "bus", "Bus" },
	{ ACCEL_CANDIDATE_STRING_PCI_SLOT, "pci_slot", "PCI slot" },
	{ ACCEL_CANDIDATE_STRING_SYSPATH, "syspath", "Sysfs path" },
	{ ACCEL_CANDIDATE_STRING_BACKEND, "backend", "Backend" },
	{ ACCEL_CANDIDATE_STRING_NODE_GROUP, "node_group", "Node group" },
	{ ACCEL_CANDIDATE_STRING_REASON_MESSAGE, "message", "Diagnosis" },
};

struct cand_info {
	unsigned index;
	const char *str[ACCEL_CANDIDATE_STRING_COUNT]; /* live with ctx */
	uint64_t u64[ACCEL_CANDIDATE_U64_COUNT];
	int err;        /* first failed query, 0 if none */
};

static void cand_info_collect(struct accel_context *ctx, unsigned index,
			      struct cand_info *c)
{
	int i, r;

	memset(c, 0, sizeof(*c));
	c->index = index;
	for (i = 0; i < ACCEL_CANDIDATE_STRING_COUNT; i++) {
		r = accel_context_get_candidate_string(
			ctx, index, (enum accel_candidate_string)i, &c->str[i]);
		if (r < 0) {
			c->str[i] = "";
			c->err = c->err ? c->err : r;
		}
	}
	for (i = 0; i < ACCEL_CANDIDATE_U64_COUNT; i++) {
		r = accel_context_get_candidate_u64(
			ctx, index, (enum accel_candidate_u64)i, &c->u64[i]);
		if (r < 0)
			c->err = c->err ? c->err : r;
	}
}

static const char *cand_reason(const struct cand_info *c)
{
	const char *name = accel_candidate_reason_name(
		(enum accel_candidate_reason)c->u64[ACCEL_CANDIDATE_U64_REASON]);

	return name ? name : "unknown";
}

static bool cand_usable(const struct cand_info *c)
{
	return c->u64[ACCEL_CANDIDATE_U64_REASON] == ACCEL_CANDIDATE_OK;
}

/*
 * The environment keeps a present device from being used (fixable by
 * the user), as opposed to "not supported" (no driver, no backend).
 */
static bool cand_blocked(const struct cand_info *c)
{
	switch (c->u64[ACCEL_CANDIDATE_U64_REASON]) {
	case ACCEL_CANDIDATE_NODE_MISSING:
	case ACCEL_CANDIDATE_PERMISSION_DENIED:
	case ACCEL_CANDIDATE_CGROUP_DENIED:
	case ACCEL_CANDIDATE_OPEN_FAILED:
		return true;
	default:
		return false;
	}
}

static void text_discovery(struct listing *l, int status, const char *msg)
{
	(void)l;
	if (status != ACCEL_CANDIDATE_OK)
		printf("\nDiscovery: %s\n", msg ? msg : "(no message)");
}

static void text_candidate(struct listing *l, const struct cand_info *c)
{
	uint64_t v;
	size_t i;

	if (cand_usable(c) && !l->opts->verbose)
		return;
	if (!l->n_cand_printed)
		printf("\n%s\n", l->opts->verbose ? "Discovered devices:" :
						      "Not usable:");
	l->n_cand_printed++;
	printf("  %s (%s): %s\n", *c->str[ACCEL_CANDIDATE_STRING_SYSNAME] ?
		       c->str[ACCEL_CANDIDATE_STRING_SYSNAME] : "?",
	       *c->str[ACCEL_CANDIDATE_STRING_DEVNODE] ?
		       c->str[ACCEL_CANDIDATE_STRING_DEVNODE] : "no node",
	       cand_usable(c) ? "usable" : "not usable");
	printf("    %s\n", c->str[ACCEL_CANDIDATE_STRING_REASON_MESSAGE]);
	if (!l->opts->verbose)
		return;
	printf("    %-26s %s\n", "Reason", cand_reason(c));
	for (i = 0; i < ARRAY_SIZE(cand_string_props); i++) {
		const struct cand_string_prop *p = &cand_string_props[i];

		if (p->prop == ACCEL_CANDIDATE_STRING_SYSNAME ||
		    p->prop == ACCEL_CANDIDATE_STRING_REASON_MESSAGE)
			continue;
		printf("    %-26s %s\n", p->label,
		       *c->str[p->prop] ? c->str[p->prop] : "(none)");
	}
	if (c->u64[ACCEL_CANDIDATE_U64_VENDOR_ID])
		printf("    %-26s %04" PRIx64 ":%04" PRIx64 " (subsystem %04"
		       PRIx64 ":%04" PRIx64 ")\n", "PCI ids",
		       c->u64[ACCEL_CANDIDATE_U64_VENDOR_ID],
		       c->u64[ACCEL_CANDIDATE_U64_DEVICE_ID],
		       c->u64[ACCEL_CANDIDATE_U64_SUBSYSTEM_VENDOR_ID],
		       c->u64[ACCEL_CANDIDATE_U64_SUBSYSTEM_DEVICE_ID]);
	v = c->u64[ACCEL_CANDIDATE_U64_NUMA_NODE];
	if (v == ACCEL_CANDIDATE_NONE)
		printf("    %-26s (none)\n", "NUMA node");
	else
		printf("    %-26s %" PRIu64 "\n", "NUMA node", v);
	v = c->u64[ACCEL_CANDIDATE_U64_DEVICE_INDEX];
	if (v != ACCEL_CANDIDATE_NONE)
		printf("    %-26s %" PRIu64 "\n", "Device index", v);
	v = c->u64[ACCEL_CANDIDATE_U64_OPEN_ERRNO];
	if (v)
		printf("    %-26s %s\n", "Open error", strerror((int)v));
	if (c->err)
		printf("    %-26s %s\n", "Query error", strerror(-c->err));
}

static void json_discovery(struct listing *l, int status, const char *msg)
{
	const char *name = status >= 0 ? accel_candidate_reason_name(
		(enum accel_candidate_reason)status) : NULL;

	(void)l;
	fputs(",\n  \"discovery\": {\"status\": ", stdout);
	json_string(name ? name : "unknown");
	fputs(", \"message\": ", stdout);
	if (msg)
		json_string(msg);
	else
		fputs("null", stdout);
	fputs("},\n  \"candidates\": [", stdout);
}

static void json_candidate(struct listing *l, const struct cand_info *c)
{
	static const struct {
		enum accel_candidate_u64 prop;
		const char *key;
	} ids[] = {
		{ ACCEL_CANDIDATE_U64_VENDOR_ID, "vendor_id" },
		{ ACCEL_CANDIDATE_U64_DEVICE_ID, "device_id" },
		{ ACCEL_CANDIDATE_U64_SUBSYSTEM_VENDOR_ID,
		  "subsystem_vendor_id" },
		{ ACCEL_CANDIDATE_U64_SUBSYSTEM_DEVICE_ID,
		  "subsystem_device_id" },
		{ ACCEL_CANDIDATE_U64_DEVNUM, "devnum" },
		{ ACCEL_CANDIDATE_U64_OPEN_ERRNO, "open_errno" },
	};
	uint64_t v;
	size_t i;

	printf("%s\n    {\n      \"index\": %u", l->n_cand_printed ? "," : "",
	       c->index);
	l->n_cand_printed++;
	printf(",\n      \"usable\": %s", cand_usable(c) ? "true" : "false");
	fputs(",\n      \"reason\": ", stdout);
	json_string(cand_reason(c));
	for (i = 0; i < ARRAY_SIZE(cand_string_props); i++) {
		printf(",\n      \"%s\": ", cand_string_props[i].key);
		json_string(c->str[cand_string_props[i].prop]);
	}
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		printf(",\n      \"%s\": %" PRIu64, ids[i].key,
		       c->u64[ids[i].prop]);
	v = c->u64[ACCEL_CANDIDATE_U64_NUMA_NODE];
	if (v == ACCEL_CANDIDATE_NONE)
		fputs(",\n      \"numa_node\": null", stdout);
	else
		printf(",\n      \"numa_node\": %" PRIu64, v);
	v = c->u64[ACCEL_CANDIDATE_U64_DEVICE_INDEX];
	if (v == ACCEL_CANDIDATE_NONE)
		fputs(",\n      \"device_index\": null", stdout);
	else
		printf(",\n      \"device_index\": %" PRIu64, v);
	fputs("\n    }", stdout);
}

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

static const struct output text_output = {
	.begin = text_begin,
	.device = text_device,
	.devices_end = text_end,
	.discovery = text_discovery,
	.candidate = text_candidate,
	.end = text_end,
};

static const struct output json_output = {
	.begin = json_begin,
	.device = json_device,
	.devices_end = json_devices_end,
	.discovery = json_discovery,
	.candidate = json_candidate,
	.end = json_end,
};

/* ---- main ---------------------------------------------------------------- */

static const char *prio_name(int priority)
{
	switch (priority) {
	case ACCEL_LOG_ERR:
		return "error";
	case ACCEL_LOG_WARNING:
		return "warning";
	case ACCEL_LOG_INFO:
		return "info";
	case ACCEL_LOG_DEBUG:
		return "debug";
	default:
		return "log";
	}
}

/* libaccel's messages go to stderr so they never corrupt --json output. */
__attribute__((format(printf, 6, 0))) static void
log_handler(struct accel_context *ctx, int priority, const char *file,
	    int line, const char *fn, const char *format, va_list args,
	    void *user_data)
{
	(void)ctx;
	(void)user_data;
	fprintf(stderr, "accel-info: libaccel %s: ", prio_name(priority));
	if (priority >= ACCEL_LOG_DEBUG)
		fprintf(stderr, "%s:%d %s(): ", file, line, fn);
	vfprintf(stderr, format, args);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: accel-info [OPTION]...\n"
		"List the devices libaccel can use and their properties.\n"
		"\n"
		"  -j, --json      machine-readable output (see "
		"docs/accel-info-json.md)\n"
		"  -v, --verbose   exact byte counts and raw capability "
		"bits; every\n"
		"                  discovered device with its attributes; "
		"libaccel's\n"
		"                  informational messages on stderr\n"
		"  -w, --watch     after the listing, print hot-plug events "
		"until killed\n"
		"                  (with --json: one JSON object per line)\n"
		"  -h, --help      show this help and exit\n"
		"  -V, --version   show the version and exit\n"
		"\n"
		"The environment variable ACCEL_LOG (err, warning, info, "
		"debug) sets\n"
		"libaccel's log level; --verbose raises it to at least "
		"info.\n"
		"\n"
		"Devices that discovery found but cannot use are listed "
		"under \"Not usable\"\n"
		"with the reason (permissions, cgroup, missing node, no "
		"driver or backend).\n"
		"\n"
		"Exit status: 0 if at least one usable device was listed "
		"and nothing\n"
		"blocks the others; 1 on error or without a usable device; "
		"2 on bad usage;\n"
		"3 if a discovered device is present but this environment "
		"keeps it from\n"
		"being used (missing node, permission, cgroup, open "
		"failure). --watch\n"
		"runs until killed; it exits 1 if watching fails.\n");
}

static int parse_options(int argc, char **argv, struct options *opts)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "watch", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jvwhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts->json = true;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case 'w':
			opts->watch = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("accel-info (libaccel) %s\n",
			       accel_get_version());
			exit(EXIT_OK);
		default:
			/* getopt_long already said what was wrong. */
			fprintf(stderr, "Try 'accel-info --help'.\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "accel-info: unexpected argument '%s'\n"
			"Try 'accel-info --help'.\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Lists the candidates; returns how many are blocked by the environment
 * (cand_blocked()) or a negative errno.
 */
static int list_candidates(struct accel_context *ctx, struct listing *l,
			   const struct output *out)
{
	struct cand_info c;
	const char *msg = NULL;
	int status, n, i, blocked = 0;

	status = accel_context_get_discovery_status(ctx, &msg);
	if (status < 0)
		return status;
	n = accel_context_get_candidate_count(ctx);
	if (n < 0)
		return n;
	out->discovery(l, status, msg);
	for (i = 0; i < n; i++) {
		cand_info_collect(ctx, (unsigned)i, &c);
		out->candidate(l, &c);
		if (cand_blocked(&c))
			blocked++;
	}
	return blocked;
}

/*
 * Lists the devices, then the candidates; returns the number of usable
 * devices or a negative errno, and in *blocked the candidates the
 * environment keeps from being used.
 */
static int list_devices(struct accel_context *ctx, const struct options *opts,
			const struct output *out, int *blocked)
{
	struct accel_device **devs;
	struct listing l = { .opts = opts };
	struct dev_info info;
	int n, got, i, r, usable = 0;

	n = accel_context_get_devices(ctx, NULL, 0);
	if (n < 0)
		return n;
	devs = calloc((size_t)n, sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	got = accel_context_get_devices(ctx, devs, (size_t)n);
	if (got < 0) {
		free(devs);
		return got;
	}
	/* The list is fixed per context; never trust more than we asked for. */
	if (got > n)
		got = n;

	out->begin(&l, (unsigned)got);
	for (i = 0; i < got; i++) {
		dev_info_collect(devs[i], (unsigned)i, &info);
		out->device(&l, &info);
		l.n_printed++;
		if (info.usable)
			usable++;
	}
	out->devices_end(&l);
	r = list_candidates(ctx, &l, out);
	out->end(&l);
	fflush(stdout);

	for (i = 0; i < got; i++)
		accel_device_unref(devs[i]);
	free(devs);
	if (r < 0)
		return r;
	*blocked = r;
	return usable;
}

/* ---- --watch -------------------------------------------------------------- */

static void print_event(struct accel_context *ctx,
			enum accel_hotplug_event event, const char *subsystem,
			const char *sysname, const char *devnode,
			void *user_data)
{
	const struct options *opts = user_data;
	const char *what = event == ACCEL_HOTPLUG_ADD ? "add" :
			   event == ACCEL_HOTPLUG_REMOVE ? "remove" :
							   "unknown";

	(void)ctx;
	if (opts->json) {
		fputs("{\"event\": ", stdout);
		json_string(what);
		fputs(", \"subsystem\": ", stdout);
		json_string(subsystem);
		fputs(", \"sysname\": ", stdout);
		json_string(sysname);
		fputs(", \"devnode\": ", stdout);
		json_string(devnode);
		fputs("}\n", stdout);
	} else {
		printf("%-6s %-6s %-12s %s\n", what, subsystem, sysname,
		       *devnode ? devnode : "(no node)");
	}
	fflush(stdout);
}

/* Runs until killed or an error; returns a negative errno. */
static int watch(struct accel_context *ctx, int fd)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		r = accel_context_dispatch(ctx);
		if (r < 0)
			return r;
	}
}

int main(int argc, char **argv)
{
	struct options opts = { 0 };
	struct accel_context *ctx = NULL;
	int r, blocked = 0, watch_fd = -1;

	if (parse_options(argc, argv, &opts) < 0)
		return EXIT_USAGE;

	r = accel_context_new(0, &ctx);
	if (r < 0) {
		fprintf(stderr, "accel-info: cannot create a libaccel "
			"context: %s\n", strerror(-r));
		return EXIT_ERROR;
	}
	accel_context_set_log_fn(ctx, log_handler, NULL);
	if (opts.verbose &&
	    accel_context_get_log_priority(ctx) < ACCEL_LOG_INFO)
		accel_context_set_log_priority(ctx, ACCEL_LOG_INFO);

	if (opts.watch) {
		/* Before the listing: no event falls between the two. */
		accel_context_set_hotplug_fn(ctx, print_event, &opts);
		watch_fd = accel_context_get_monitor_fd(ctx);
		if (watch_fd < 0) {
			fprintf(stderr, "accel-info: cannot watch for hot-plug "
				"events: %s\n", strerror(-watch_fd));
			accel_context_unref(ctx);
			return EXIT_ERROR;
		}
	}

	r = list_devices(ctx, &opts, opts.json ? &json_output : &text_output,
			 &blocked);
	if (r >= 0 && opts.watch) {
		if (!opts.json)
			printf("\nWatching for hot-plug events "
			       "(event subsystem name node):\n");
		fflush(stdout);
		r = watch(ctx, watch_fd);
		fprintf(stderr, "accel-info: watching failed: %s\n",
			strerror(-r));
		close(watch_fd);
		accel_context_unref(ctx);
		return EXIT_ERROR;
	}
	if (watch_fd >= 0)
		close(watch_fd);
	accel_context_unref(ctx);
	if (r < 0) {
		fprintf(stderr, "accel-info: cannot list devices: %s\n",
			strerror(-r));
		return EXIT_ERROR;
	}
	if (r == 0) {
		fprintf(stderr, "accel-info: no usable device\n");
		return EXIT_ERROR;
	}
	if (blocked) {
		fprintf(stderr, "accel-info: %d device%s present but not usable here (see \"Not usable\")\n",
			blocked, blocked == 1 ? " is" : "s are");
		return EXIT_BLOCKED;
	}
	return EXIT_OK;
}
