/* SPDX-License-Identifier: MIT */
/*
 * accel-info top: a live view of what each process does on each device,
 * from the kernel's DRM fdinfo (accel and render nodes) and libaccel's
 * usage pages (the CPU device and every other device a libaccel context
 * uses). Rates come from two samples an interval apart.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libaccel/libaccel.h>

#include "accel-info-usage.h"
#include "accel-info.h"

struct top_options {
	double delay;        /* seconds between samples */
	unsigned long count; /* views to print, 0: until killed */
	bool json;
};

static void top_usage(FILE *f)
{
	fprintf(f,
		"Usage: accel-info top [OPTION]...\n"
		"Show, per process and device, engine busy time, memory "
		"and commands.\n"
		"\n"
		"  -d, --delay SECONDS   time between views (default 1, "
		"0.05 to 3600)\n"
		"  -n, --iterations N    print N views and exit (default: "
		"until killed)\n"
		"  -j, --json            one JSON object per view and line "
		"(see\n"
		"                        docs/accel-info-json.md)\n"
		"  -h, --help            show this help and exit\n"
		"\n"
		"Accel and DRM render nodes report through the kernel's "
		"fdinfo\n"
		"(drm-engine-*, drm-total-*, ...); libaccel contexts through "
		"their usage\n"
		"page, which also covers the CPU reference device. Busy time "
		"of a\n"
		"libaccel context is measured from the first view on. Other "
		"users'\n"
		"processes need root (or CAP_SYS_PTRACE).\n");
}

static int parse_top_options(int argc, char **argv, struct top_options *o)
{
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	o->delay = 1.0;
	o->count = 0;
	o->json = false;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			o->delay = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o->delay >= 0.05 && o->delay <= 3600)) {
				fprintf(stderr, "accel-info top: bad delay "
					"'%s' (seconds, 0.05 to 3600)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'n':
			errno = 0;
			o->count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' ||
			    o->count == 0) {
				fprintf(stderr, "accel-info top: bad iteration "
					"count '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			top_usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try 'accel-info top --help'.\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "accel-info top: unexpected argument '%s'\n"
			"Try 'accel-info top --help'.\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* Busy share of @e over the interval, in percent, or NAN if unknown. */
static double busy_percent(const struct usage_engine *e,
			   const struct usage_client *prev,
			   const struct usage_engine *pe, uint64_t dt_ns)
{
	double v;

	if (!prev || !pe)
		return NAN;
	if (e->has_cycles && e->has_total_cycles && pe->has_cycles &&
	    pe->has_total_cycles && e->total_cycles > pe->total_cycles &&
	    e->cycles >= pe->cycles)
		v = 100.0 * (double)(e->cycles - pe->cycles) /
		    (double)(e->total_cycles - pe->total_cycles);
	else if (e->has_busy && pe->has_busy && e->busy_ns >= pe->busy_ns &&
		 dt_ns)
		v = 100.0 * (double)(e->busy_ns - pe->busy_ns) /
		    (double)dt_ns / (double)e->capacity;
	else
		return NAN;
	/* Samples are not atomic snapshots; keep the share a share. */
	return v > 100.0 ? 100.0 : v;
}

static const struct usage_engine *prev_engine(const struct usage_client *p,
					      const char *name)
{
	unsigned i;

	for (i = 0; p && i < p->n_engines; i++)
		if (!strcmp(p->engines[i].name, name))
			return &p->engines[i];
	return NULL;
}

/* Memory of all regions: total if given, else resident. */
static uint64_t memory_of(const struct usage_client *c)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < c->n_regions; i++)
		sum += c->regions[i].has_total ? c->regions[i].total :
						 c->regions[i].resident;
	return sum;
}

static void human_bytes(uint64_t v, char *buf, size_t size)
{
	static const char units[] = "BKMGT";
	double d = (double)v;
	unsigned u = 0;

	while (d >= 1024 && u < sizeof(units) - 2) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 "B", v);
	else
		snprintf(buf, size, "%.1f%c", d, units[u]);
}

static double per_second(uint64_t now, uint64_t before, uint64_t dt_ns)
{
	if (now < before || !dt_ns)
		return NAN;
	return (double)(now - before) * 1e9 / (double)dt_ns;
}

/* Submitted, neither finished nor running (counters read one by one). */
static uint64_t queued_of(const struct usage_client *c)
{
	uint64_t pending = c->submitted - c->completed;

	if (c->submitted < c->completed || pending < c->running)
		return 0;
	return pending - c->running;
}

/*
 * A libaccel context lists every device it has, used or not; the text
 * view leaves out those it never used (JSON has them all).
 */
static bool idle(const struct usage_client *c)
{
	unsigned j;

	if (!c->has_commands || c->submitted || c->buffers)
		return false;
	for (j = 0; j < c->n_engines; j++)
		if (c->engines[j].busy_ns)
			return false;
	return true;
}

static void print_text(const struct usage_sample *cur,
		       const struct usage_sample *prev, bool tty)
{
	uint64_t dt = cur->time_ns - prev->time_ns;
	size_t i;
	unsigned j;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	printf("accel-info top: interval %.2f s\n", (double)dt / 1e9);
	printf("%-8s %-15s %-22s %-8s %9s %6s %6s %9s  %s\n", "PID", "COMMAND",
	       "DEVICE", "SOURCE", "MEMORY", "QUEUED", "RUN", "DONE/s",
	       "ENGINES (busy)");
	for (i = 0; i < cur->n_clients; i++) {
		const struct usage_client *c = &cur->clients[i];
		const struct usage_client *p = usage_find(prev, c);
		char mem[16], queued[16] = "-", run[16] = "-", done[16] = "-";

		if (idle(c))
			continue;

		human_bytes(memory_of(c), mem, sizeof(mem));
		if (c->has_commands) {
			double rate = p ? per_second(c->completed, p->completed,
						     dt) :
					  NAN;

			snprintf(queued, sizeof(queued), "%" PRIu64,
				 queued_of(c));
			snprintf(run, sizeof(run), "%" PRIu64, c->running);
			if (!isnan(rate))
				snprintf(done, sizeof(done), "%.1f", rate);
		}
		printf("%-8d %-15.15s %-22.22s %-8s %9s %6s %6s %9s ", c->pid,
		       c->command, c->device,
		       c->source == USAGE_KERNEL ? c->driver : "libaccel", mem,
		       queued, run, done);
		for (j = 0; j < c->n_engines; j++) {
			const struct usage_engine *e = &c->engines[j];
			double b = busy_percent(e, p, prev_engine(p, e->name),
						dt);

			if (isnan(b))
				printf(" %s -", e->name);
			else
				printf(" %s %.1f%%", e->name, b);
		}
		putchar('\n');
	}
	if (cur->n_denied)
		printf("(%u process%s not readable: another user's; run as "
		       "root to see them)\n",
		       cur->n_denied, cur->n_denied == 1 ? "" : "es");
	fflush(stdout);
}

static void json_u64(const char *key, uint64_t v, bool comma)
{
	printf("%s\"%s\": %" PRIu64, comma ? ", " : "", key, v);
}

static void json_double(const char *key, double v)
{
	if (isnan(v))
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %.3f", key, v);
}

static void print_json_client(const struct usage_client *c,
			      const struct usage_client *p, uint64_t dt)
{
	unsigned j;

	printf("{\"pid\": %d, \"command\": ", c->pid);
	json_string(c->command);
	printf(", \"source\": \"%s\", \"driver\": ",
	       c->source == USAGE_KERNEL ? "kernel" : "libaccel");
	json_string(c->driver);
	fputs(", \"device\": ", stdout);
	json_string(c->device);
	fputs(", \"pdev\": ", stdout);
	json_string(c->pdev);
	json_u64("client_id", c->client_id, true);
	fputs(", \"engines\": [", stdout);
	for (j = 0; j < c->n_engines; j++) {
		const struct usage_engine *e = &c->engines[j];

		printf("%s{\"name\": ", j ? ", " : "");
		json_string(e->name);
		if (e->has_busy)
			json_u64("busy_ns", e->busy_ns, true);
		json_u64("capacity", e->capacity, true);
		if (e->has_cycles)
			json_u64("cycles", e->cycles, true);
		if (e->has_total_cycles)
			json_u64("total_cycles", e->total_cycles, true);
		json_double("busy_percent",
			    busy_percent(e, p, prev_engine(p, e->name), dt));
		putchar('}');
	}
	fputs("], \"memory\": [", stdout);
	for (j = 0; j < c->n_regions; j++) {
		const struct usage_region *r = &c->regions[j];

		printf("%s{\"region\": ", j ? ", " : "");
		json_string(r->name);
		if (r->has_total)
			json_u64("total", r->total, true);
		if (r->has_shared)
			json_u64("shared", r->shared, true);
		if (r->has_resident)
			json_u64("resident", r->resident, true);
		if (r->has_purgeable)
			json_u64("purgeable", r->purgeable, true);
		if (r->has_active)
			json_u64("active", r->active, true);
		putchar('}');
	}
	putchar(']');
	if (c->has_commands) {
		fputs(", \"commands\": {", stdout);
		json_u64("submitted", c->submitted, false);
		json_u64("completed", c->completed, true);
		json_u64("failed", c->failed, true);
		json_u64("running", c->running, true);
		json_u64("queued", queued_of(c), true);
		json_double("completed_per_s",
			    p ? per_second(c->completed, p->completed, dt) :
				NAN);
		putchar('}');
		json_u64("buffers", c->buffers, true);
	}
	putchar('}');
}

static void print_json(const struct usage_sample *cur,
		       const struct usage_sample *prev)
{
	uint64_t dt = cur->time_ns - prev->time_ns;
	size_t i;

	printf("{\"time_ns\": %" PRIu64 ", \"interval_ns\": %" PRIu64
	       ", \"denied_processes\": %u, \"clients\": [",
	       cur->time_ns, dt, cur->n_denied);
	for (i = 0; i < cur->n_clients; i++) {
		if (i)
			fputs(", ", stdout);
		print_json_client(&cur->clients[i],
				  usage_find(prev, &cur->clients[i]), dt);
	}
	fputs("]}\n", stdout);
	fflush(stdout);
}

static void sleep_seconds(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - (double)(time_t)s) * 1e9),
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int top_main(int argc, char **argv)
{
	struct usage_sample prev, cur;
	struct top_options o;
	unsigned long shown = 0;
	bool tty = isatty(STDOUT_FILENO);
	int self = (int)getpid(), r;

	if (parse_top_options(argc, argv, &o) < 0)
		return 2;
	r = usage_sample_collect("/proc", self, true, &prev);
	while (r == 0) {
		sleep_seconds(o.delay);
		r = usage_sample_collect("/proc", self, true, &cur);
		if (r < 0)
			break;
		if (o.json)
			print_json(&cur, &prev);
		else
			print_text(&cur, &prev, tty && !o.count);
		usage_sample_clear(&prev);
		prev = cur;
		if (o.count && ++shown == o.count)
			break;
	}
	usage_sample_clear(&prev);
	if (r < 0) {
		fprintf(stderr, "accel-info top: cannot read /proc: %s\n",
			strerror(-r));
		return 1;
	}
	return 0;
}
