/* SPDX-License-Identifier: MIT */
/* accel-info's text output: one block per device, then the candidates. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "accel-info.h"

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
		if (bit < n_cap_names && cap_names[bit])
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
		printf("  %-28s %s\n", label, info_type_name(v));
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
	case FMT_POW2S:
		if (!v) {
			printf("  %-28s (none)\n", label);
			return;
		}
		printf("  %-28s", label);
		for (unsigned b = 0; b < 64; b++)
			if (v >> b & 1)
				printf(" %llu", 1ull << b);
		printf("\n");
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
	for (i = 0; i < n_string_props; i++) {
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
	for (i = 0; i < n_u64_props; i++)
		text_u64(l, info, u64_props[i].prop, u64_props[i].label,
			 u64_props[i].fmt);
	text_u64_group(info, "Max work-item sizes", work_item_props,
		       n_work_item_props, NULL);
	text_u64_group(info, "Preferred vector widths",
		       preferred_width_props,
		       n_preferred_width_props, vector_types);
	text_u64_group(info, "Native vector widths", native_width_props,
		       n_native_width_props, vector_types);

	printf("  %-28s", "Built-in kernels");
	if (!kernels) {
		printf(" (error: %s)\n", strerror(-info->str_err[bik]));
		return;
	}
	while ((item = info_list_next(&kernels, &len))) {
		printf("%s%.*s", first ? " " : ", ", (int)len, item);
		first = false;
	}
	printf("%s\n", first ? " (none)" : "");
}

static void text_end(struct listing *l)
{
	(void)l;
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
	for (i = 0; i < n_cand_string_props; i++) {
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

const struct output text_output = {
	.begin = text_begin,
	.device = text_device,
	.devices_end = text_end,
	.discovery = text_discovery,
	.candidate = text_candidate,
	.end = text_end,
};
