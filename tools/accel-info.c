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

#include "accel-info-usage.h"
#include "accel-info.h"

/* Exit statuses (documented in --help and docs/accel-info-json.md). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_BLOCKED 3 /* a device is there but this environment blocks it */

/* ---- device snapshot ----------------------------------------------------- */

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

const char *cand_reason(const struct cand_info *c)
{
	const char *name = accel_candidate_reason_name(
		(enum accel_candidate_reason)c->u64[ACCEL_CANDIDATE_U64_REASON]);

	return name ? name : "unknown";
}

bool cand_usable(const struct cand_info *c)
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
		"       accel-info top [OPTION]...\n"
		"List the devices libaccel can use and their properties; "
		"with top, show\n"
		"what each process does on them (accel-info top --help).\n"
		"\n"
		"  -j, --json      machine-readable output (see "
		"docs/accel-info-json.md)\n"
		"  -L, --list      one line per device: \"Device N: NAME "
		"(BACKEND, NODE)\n"
		"                  usable\", and \"Not usable: NAME (DRIVER, "
		"NODE) REASON\"\n"
		"                  for a device discovery saw but cannot use; "
		"not with --json\n"
		"  -v, --verbose   exact byte counts and raw capability "
		"bits; every\n"
		"                  discovered device with its attributes; "
		"libaccel's\n"
		"                  informational messages on stderr (with "
		"--list: only\n"
		"                  the messages)\n"
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
		{ "list", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "watch", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jLvwhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts->json = true;
			break;
		case 'L':
			opts->list = true;
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
	/*
	 * Refused rather than ignored: --json already lists every device,
	 * and a compact JSON form can still be given to the pair later.
	 */
	if (opts->list && opts->json) {
		fprintf(stderr, "accel-info: --list and --json cannot be "
			"combined\nTry 'accel-info --help'.\n");
		return -EINVAL;
	}
	return 0;
}

static const struct output *pick_output(const struct options *opts)
{
	if (opts->json)
		return &json_output;
	return opts->list ? &list_output : &text_output;
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

	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);
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

	r = list_devices(ctx, &opts, pick_output(&opts), &blocked);
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
