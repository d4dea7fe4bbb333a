/* SPDX-License-Identifier: MIT */
/*
 * Collects per-client usage for `accel-info top` from /proc: the fdinfo
 * of every open accel or DRM node (the kernel's drm-usage-stats keys) and
 * every libaccel usage page (a memfd, include/libaccel/accel-stats.h).
 * Everything read is another process's and is parsed defensively.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libaccel/accel-stats.h>

#include "accel-info-usage.h"

#define PAGE_LINK "/memfd:" ACCEL_STATS_MEMFD_NAME " (deleted)"

static void copy_str(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static struct usage_engine *engine(struct usage_client *c, const char *name)
{
	struct usage_engine *e;
	unsigned i;

	for (i = 0; i < c->n_engines; i++)
		if (!strcmp(c->engines[i].name, name))
			return &c->engines[i];
	if (c->n_engines == USAGE_MAX_ENGINES)
		return NULL;
	e = &c->engines[c->n_engines++];
	memset(e, 0, sizeof(*e));
	copy_str(e->name, sizeof(e->name), name, strlen(name));
	e->capacity = 1;
	return e;
}

static struct usage_region *region(struct usage_client *c, const char *name)
{
	struct usage_region *r;
	unsigned i;

	for (i = 0; i < c->n_regions; i++)
		if (!strcmp(c->regions[i].name, name))
			return &c->regions[i];
	if (c->n_regions == USAGE_MAX_REGIONS)
		return NULL;
	r = &c->regions[c->n_regions++];
	memset(r, 0, sizeof(*r));
	copy_str(r->name, sizeof(r->name), name, strlen(name));
	return r;
}

/* "<uint>" with an optional unit: " ns" for times, KiB/MiB/GiB sizes. */
static int parse_value(const char *s, bool size, uint64_t *ret)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = { { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 } };
	char *end;
	uint64_t v;
	size_t i;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (size) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].unit);

			if (strncmp(end, units[i].unit, n))
				continue;
			if (v > UINT64_MAX >> units[i].shift)
				return -EINVAL;
			v <<= units[i].shift;
			end += n;
			break;
		}
	} else if (!strncmp(end, "ns", 2)) {
		end += 2;
	}
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* A key with a name after @prefix; the name is copied to @name. */
static bool keyed(const char *key, const char *prefix, char *name,
		  size_t size)
{
	size_t n = strlen(prefix);

	if (strncmp(key, prefix, n) || !key[n])
		return false;
	copy_str(name, size, key + n, strlen(key + n));
	return true;
}

static void parse_line(char *key, const char *value, struct usage_client *c)
{
	static const char *const mem_keys[] = {
		"drm-total-", "drm-shared-", "drm-resident-",
		"drm-purgeable-", "drm-active-", "drm-memory-",
	};
	struct usage_engine *e;
	struct usage_region *r;
	char name[32];
	uint64_t v;
	size_t i;

	if (!strcmp(key, "drm-driver")) {
		copy_str(c->driver, sizeof(c->driver), value, strlen(value));
		return;
	}
	if (!strcmp(key, "drm-pdev")) {
		copy_str(c->pdev, sizeof(c->pdev), value, strlen(value));
		return;
	}
	if (!strcmp(key, "drm-client-id")) {
		if (parse_value(value, false, &v) == 0)
			c->client_id = v;
		return;
	}
	/* Before drm-engine-: it starts the same way. */
	if (keyed(key, "drm-engine-capacity-", name, sizeof(name))) {
		if (parse_value(value, false, &v) == 0 && v > 0 &&
		    (e = engine(c, name)))
			e->capacity = v;
		return;
	}
	if (keyed(key, "drm-engine-", name, sizeof(name))) {
		if (parse_value(value, false, &v) == 0 &&
		    (e = engine(c, name))) {
			e->busy_ns = v;
			e->has_busy = true;
		}
		return;
	}
	if (keyed(key, "drm-total-cycles-", name, sizeof(name))) {
		if (parse_value(value, false, &v) == 0 &&
		    (e = engine(c, name))) {
			e->total_cycles = v;
			e->has_total_cycles = true;
		}
		return;
	}
	if (keyed(key, "drm-cycles-", name, sizeof(name))) {
		if (parse_value(value, false, &v) == 0 &&
		    (e = engine(c, name))) {
			e->cycles = v;
			e->has_cycles = true;
		}
		return;
	}
	for (i = 0; i < sizeof(mem_keys) / sizeof(mem_keys[0]); i++) {
		if (!keyed(key, mem_keys[i], name, sizeof(name)))
			continue;
		if (parse_value(value, true, &v) < 0 || !(r = region(c, name)))
			return;
		switch (i) {
		case 0:
			r->total = v;
			r->has_total = true;
			break;
		case 1:
			r->shared = v;
			r->has_shared = true;
			break;
		case 2:
		case 5: /* the older name of resident */
			r->resident = v;
			r->has_resident = true;
			break;
		case 3:
			r->purgeable = v;
			r->has_purgeable = true;
			break;
		default:
			r->active = v;
			r->has_active = true;
			break;
		}
		return;
	}
}

int usage_parse_fdinfo(const char *text, struct usage_client *c)
{
	char line[256];
	const char *p = text, *nl;

	c->driver[0] = c->pdev[0] = '\0';
	c->client_id = 0;
	c->n_engines = c->n_regions = 0;
	c->has_commands = false;
	while (*p) {
		char *colon, *value;
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		copy_str(line, sizeof(line), p, len);
		p += len + (nl != NULL);
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		value = colon + 1;
		while (*value == ' ' || *value == '\t')
			value++;
		parse_line(line, value, c);
	}
	return c->driver[0] ? 0 : -ENOENT;
}

int usage_parse_page(const void *buf, size_t len, unsigned i,
		     uint64_t now_ns, struct usage_client *c)
{
	struct accel_stats_page hdr;
	struct accel_stats_device d;
	struct usage_engine *e;
	struct usage_region *r;
	size_t off, n;

	if (len < offsetof(struct accel_stats_page, devices))
		return -EINVAL;
	memcpy(&hdr, buf, offsetof(struct accel_stats_page, devices));
	if (hdr.magic != ACCEL_STATS_MAGIC ||
	    hdr.version != ACCEL_STATS_VERSION ||
	    hdr.header_size < offsetof(struct accel_stats_page, devices) ||
	    hdr.device_size < sizeof(d) || hdr.header_size > len)
		return -EINVAL;
	if (i >= hdr.n_devices ||
	    (len - hdr.header_size) / hdr.device_size <= i)
		return -ENOENT;
	off = hdr.header_size + (size_t)i * hdr.device_size;
	memcpy(&d, (const char *)buf + off, sizeof(d));

	c->source = USAGE_LIBACCEL;
	copy_str(c->driver, sizeof(c->driver), "libaccel", 8);
	c->pdev[0] = '\0';
	n = strnlen(d.node, sizeof(d.node));
	if (n)
		copy_str(c->device, sizeof(c->device), d.node, n);
	else
		copy_str(c->device, sizeof(c->device), d.name,
			 strnlen(d.name, sizeof(d.name)));
	c->n_engines = c->n_regions = 0;
	e = engine(c, "compute");
	e->busy_ns = d.busy_ns;
	/* The current busy period, not yet added (now may be earlier when
	 * read racing its end: then it is counted already). */
	if (d.busy_since && now_ns > d.busy_since)
		e->busy_ns += now_ns - d.busy_since;
	e->has_busy = hdr.watched != 0;
	r = region(c, "memory");
	r->total = d.memory_bytes + d.imported_bytes;
	r->shared = d.imported_bytes;
	r->has_total = r->has_shared = true;
	c->has_commands = true;
	c->submitted = d.submitted;
	c->completed = d.completed;
	c->failed = d.failed;
	c->running = d.running;
	c->buffers = d.buffers;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int add_client(struct usage_sample *s, size_t *cap,
		      const struct usage_client *c)
{
	if (s->n_clients == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct usage_client *v = reallocarray(s->clients, n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->clients = v;
		*cap = n;
	}
	s->clients[s->n_clients++] = *c;
	return 0;
}

/* Read a small /proc file whole; NUL-terminated. */
static ssize_t read_small(int dirfd, const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* A DRM client seen through another fd already (dup, fork). */
static bool seen(const struct usage_sample *s, const struct usage_client *c)
{
	size_t i;

	for (i = 0; i < s->n_clients; i++) {
		const struct usage_client *o = &s->clients[i];

		if (o->source == USAGE_KERNEL && o->client_id == c->client_id &&
		    !strcmp(o->driver, c->driver) && !strcmp(o->pdev, c->pdev))
			return true;
	}
	return false;
}

static int read_node(struct usage_sample *s, size_t *cap, int pid_dir,
		     const char *fd_name, struct usage_client *c)
{
	char path[300], text[4096];

	snprintf(path, sizeof(path), "fdinfo/%s", fd_name);
	if (read_small(pid_dir, path, text, sizeof(text)) < 0)
		return 0; /* closed meanwhile */
	c->source = USAGE_KERNEL;
	if (usage_parse_fdinfo(text, c) < 0 || seen(s, c))
		return 0;
	return add_client(s, cap, c);
}

static int read_page(struct usage_sample *s, size_t *cap, int pid_dir,
		     const char *fd_name, bool watch, struct usage_client *c)
{
	struct accel_stats_page page;
	char path[300];
	struct stat st;
	size_t i;
	ssize_t n;
	int fd, r = 0;

	snprintf(path, sizeof(path), "fd/%s", fd_name);
	fd = openat(pid_dir, path, (watch ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0 && watch)
		fd = openat(pid_dir, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, &page, sizeof(page), 0);
	if (n > 0 && watch && (size_t)n >= sizeof(page) && !page.watched) {
		uint32_t one = 1;

		/* Best effort: read-only access just shows no busy time. */
		if (pwrite(fd, &one, sizeof(one),
			   offsetof(struct accel_stats_page, watched)) < 0)
			errno = 0;
	}
	if (fstat(fd, &st) < 0)
		st.st_ino = 0;
	close(fd);
	if (n <= 0)
		return 0;
	c->client_id = (uint64_t)st.st_ino;
	/* Inherited over fork or dup'ed: one context, listed once. */
	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i].source == USAGE_LIBACCEL &&
		    s->clients[i].client_id == c->client_id && st.st_ino)
			return 0;
	for (i = 0; r == 0; i++) {
		r = usage_parse_page(&page, (size_t)n, (unsigned)i, s->time_ns, c);
		if (r == 0)
			r = add_client(s, cap, c);
	}
	return r == -ENOMEM ? r : 0;
}

static int read_process(struct usage_sample *s, size_t *cap, int proc_dir,
			const char *pid_name, bool watch)
{
	struct usage_client c;
	struct dirent *de;
	char link[128];
	int pid_dir, fd_dir, r = 0;
	ssize_t n;
	DIR *d;

	pid_dir = openat(proc_dir, pid_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pid_dir < 0)
		return 0; /* exited */
	fd_dir = openat(pid_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd_dir < 0) {
		if (errno == EACCES || errno == EPERM)
			s->n_denied++;
		close(pid_dir);
		return 0;
	}
	d = fdopendir(fd_dir);
	if (!d) {
		close(fd_dir);
		close(pid_dir);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.pid = atoi(pid_name);
	n = read_small(pid_dir, "comm", c.command, sizeof(c.command));
	if (n > 0 && c.command[n - 1] == '\n')
		c.command[n - 1] = '\0';
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(fd_dir, de->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strncmp(link, "/dev/accel/accel", 16) ||
		    !strncmp(link, "/dev/dri/", 9)) {
			copy_str(c.device, sizeof(c.device), link, (size_t)n);
			r = read_node(s, cap, pid_dir, de->d_name, &c);
		} else if (!strcmp(link, PAGE_LINK)) {
			r = read_page(s, cap, pid_dir, de->d_name, watch, &c);
		}
	}
	closedir(d);
	close(pid_dir);
	return r;
}

int usage_sample_collect(const char *proc, int self_pid, bool watch,
			 struct usage_sample *s)
{
	struct dirent *de;
	size_t cap = 0;
	int proc_dir, r = 0;
	DIR *d;

	memset(s, 0, sizeof(*s));
	proc_dir = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_dir < 0)
		return -errno;
	d = fdopendir(proc_dir);
	if (!d) {
		r = -errno;
		close(proc_dir);
		return r;
	}
	s->time_ns = now_ns();
	while (r == 0 && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    atoi(de->d_name) == self_pid)
			continue;
		r = read_process(s, &cap, proc_dir, de->d_name, watch);
	}
	closedir(d);
	if (r < 0)
		usage_sample_clear(s);
	return r;
}

void usage_sample_clear(struct usage_sample *s)
{
	free(s->clients);
	memset(s, 0, sizeof(*s));
}

const struct usage_client *usage_find(const struct usage_sample *s,
				      const struct usage_client *c)
{
	size_t i;

	for (i = 0; i < s->n_clients; i++) {
		const struct usage_client *o = &s->clients[i];

		if (o->source == c->source && o->pid == c->pid &&
		    o->client_id == c->client_id &&
		    !strcmp(o->device, c->device) &&
		    !strcmp(o->driver, c->driver))
			return o;
	}
	return NULL;
}
