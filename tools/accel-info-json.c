/* SPDX-License-Identifier: MIT */
/*
 * accel-info's JSON output (docs/accel-info-json.md), including string
 * escaping that keeps the output valid whatever the device strings hold.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "accel-info.h"

/* Version of the JSON layout; bumped only for incompatible changes. */
#define JSON_SCHEMA_VERSION 1

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

void json_string(const char *s)
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
	for (i = 0; i < n_vector_types; i++) {
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
		json_string(info_type_name(info->u64[ACCEL_DEVICE_U64_TYPE]));
	printf(",\n      \"reference\": %s",
	       info->is_reference ? "true" : "false");

	for (i = 0; i < n_string_props; i++) {
		const struct string_prop *p = &string_props[i];

		printf(",\n      \"%s\": ", p->key);
		if (info->str[p->prop])
			json_string(info->str[p->prop]);
		else
			fputs("null", stdout);
	}

	for (i = 0; i < n_u64_props; i++)
		json_u64_member(info, u64_props[i].key, u64_props[i].prop,
				u64_props[i].fmt);

	fputs(",\n      \"max_work_item_sizes\": [", stdout);
	for (i = 0; i < n_work_item_props; i++) {
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
			if (i < n_cap_names && cap_names[i])
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
		while ((item = info_list_next(&kernels, &len))) {
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
	for (i = 0; i < n_cand_string_props; i++) {
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

const struct output json_output = {
	.begin = json_begin,
	.device = json_device,
	.devices_end = json_devices_end,
	.discovery = json_discovery,
	.candidate = json_candidate,
	.end = json_end,
};
