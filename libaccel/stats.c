/* SPDX-License-Identifier: MIT */
/*
 * The usage page (include/libaccel/accel-stats.h): one memfd per context,
 * made when its first device is added, so that `accel-info top` can show
 * what the CPU device (which has no DRM fdinfo) does for each process.
 *
 * Counters are relaxed atomic adds on the shared page: a few nanoseconds
 * per command. Busy time needs the clock twice per command, so it runs
 * only once a viewer has set `watched`. The page is only ever written
 * here and never read back but for `watched`: a viewer with write access
 * could scribble on it, and that can only make the numbers wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "accel-private.h"

#include <libaccel/accel-stats.h>

_Static_assert(sizeof(struct accel_stats_page) <= 4096,
	       "the usage page is one page");
_Static_assert(sizeof(struct accel_stats_device) % 8 == 0 &&
		       offsetof(struct accel_stats_page, devices) % 8 == 0,
	       "slots keep 64-bit fields aligned");

#define STATS_SIZE 4096

struct accel_stats {
	int fd;
	struct accel_stats_page *page;
	uint32_t n_devices; /* slots given out (the page's copy is shown) */
	/* Busy-time bookkeeping per slot: timed commands running, since. */
	pthread_mutex_t lock;
	uint32_t active[ACCEL_STATS_MAX_DEVICES];
	uint64_t since[ACCEL_STATS_MAX_DEVICES];
};

static void add(uint64_t *field, uint64_t v)
{
	__atomic_fetch_add(field, v, __ATOMIC_RELAXED);
}

static void sub(uint64_t *field, uint64_t v)
{
	__atomic_fetch_sub(field, v, __ATOMIC_RELAXED);
}

static void set(uint64_t *field, uint64_t v)
{
	__atomic_store_n(field, v, __ATOMIC_RELAXED);
}

static int stats_new(struct accel_stats **ret)
{
	struct accel_stats *s;
	struct accel_stats_page *page;
	int fd, r;

	fd = memfd_create(ACCEL_STATS_MEMFD_NAME, MFD_CLOEXEC |
							  MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, STATS_SIZE) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	/* A viewer opens it read-write (for `watched`): it must not resize
	 * the page under our mapping. */
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	page = mmap(NULL, STATS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	if (page == MAP_FAILED) {
		r = -errno;
		close(fd);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		munmap(page, STATS_SIZE);
		close(fd);
		return -ENOMEM;
	}
	s->fd = fd;
	s->page = page;
	pthread_mutex_init(&s->lock, NULL);
	page->version = ACCEL_STATS_VERSION;
	page->header_size = offsetof(struct accel_stats_page, devices);
	page->device_size = sizeof(struct accel_stats_device);
	page->pid = (uint32_t)getpid();
	page->created_ns = accel_now_ns();
	/* Last: a viewer that sees the magic sees the header. */
	__atomic_store_n(&page->magic, ACCEL_STATS_MAGIC, __ATOMIC_RELEASE);
	*ret = s;
	return 0;
}

void accel_stats_free(struct accel_stats *s)
{
	if (!s)
		return;
	munmap(s->page, STATS_SIZE);
	close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static void copy_string(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

void accel_stats_add_device(struct accel_context *ctx,
			    struct accel_device *dev)
{
	struct accel_stats_device *slot;
	struct accel_stats *s;
	uint32_t i;
	int r = 1;

	dev->stats_slot = -1;
	pthread_mutex_lock(&ctx->lock);
	if (!ctx->stats && !ctx->stats_failed) {
		r = stats_new(&ctx->stats);
		/* Usage is then not shown; nothing else changes. */
		ctx->stats_failed = r < 0;
	}
	s = ctx->stats;
	if (!s || s->n_devices == ACCEL_STATS_MAX_DEVICES) {
		pthread_mutex_unlock(&ctx->lock);
		/* Logging takes the context's lock. */
		if (r < 0)
			log_dbg(ctx, "no usage page: %s\n", strerror(-r));
		return;
	}
	i = s->n_devices++;
	slot = &s->page->devices[i];
	copy_string(slot->name, sizeof(slot->name),
		    dev->strings[ACCEL_DEVICE_STRING_NAME]);
	copy_string(slot->node, sizeof(slot->node),
		    dev->strings[ACCEL_DEVICE_STRING_DEVNODE]);
	dev->stats_slot = (int)i;
	__atomic_store_n(&s->page->n_devices, i + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);
	if (r == 0)
		log_dbg(ctx, "usage page: memfd %d\n", s->fd);
}

static struct accel_stats_device *slot_of(struct accel_device *dev)
{
	/* The page outlives every device: both go with the context. */
	if (dev->stats_slot < 0)
		return NULL;
	return &dev->ctx->stats->page->devices[dev->stats_slot];
}

/* Markers and host functions do no device work. */
static bool counted(const struct accel_cmd *cmd)
{
	return cmd->type != ACCEL_CMD_MARKER && cmd->type != ACCEL_CMD_HOST;
}

/*
 * The commands @cmd stands for: a chain runs a list's launches as one
 * command, counted as the launches it runs (one running at a time).
 */
static uint64_t n_cmds(const struct accel_cmd *cmd)
{
	if (cmd->type == ACCEL_CMD_CHAIN)
		return cmd->u.chain.end - cmd->u.chain.begin;
	return 1;
}

void accel_stats_cmd_submitted(struct accel_cmd *cmd)
{
	struct accel_stats_device *slot = slot_of(cmd->queue->dev);

	if (slot && counted(cmd))
		add(&slot->submitted, n_cmds(cmd));
}

void accel_stats_cmd_started(struct accel_cmd *cmd)
{
	struct accel_device *dev = cmd->queue->dev;
	struct accel_stats_device *slot = slot_of(dev);
	struct accel_stats *s;

	if (!slot || !counted(cmd))
		return;
	add(&slot->running, 1);
	cmd->stats_started = true;
	s = dev->ctx->stats;
	if (!__atomic_load_n(&s->page->watched, __ATOMIC_RELAXED))
		return;
	/* Busy is the union of the running commands' times. */
	cmd->stats_timed = true;
	pthread_mutex_lock(&s->lock);
	if (s->active[dev->stats_slot]++ == 0) {
		s->since[dev->stats_slot] = accel_now_ns();
		set(&slot->busy_since, s->since[dev->stats_slot]);
	}
	pthread_mutex_unlock(&s->lock);
}

void accel_stats_cmd_completed(struct accel_cmd *cmd, int status)
{
	struct accel_device *dev = cmd->queue->dev;
	struct accel_stats_device *slot = slot_of(dev);
	struct accel_stats *s;

	if (!slot || !counted(cmd))
		return;
	if (cmd->stats_timed) {
		s = dev->ctx->stats;
		pthread_mutex_lock(&s->lock);
		if (--s->active[dev->stats_slot] == 0) {
			add(&slot->busy_ns,
			    accel_now_ns() - s->since[dev->stats_slot]);
			set(&slot->busy_since, 0);
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (cmd->stats_started)
		sub(&slot->running, 1);
	if (status < 0)
		/* a chain that never ran (failed wait list): all of it */
		add(&slot->failed, cmd->type == ACCEL_CMD_CHAIN &&
						   cmd->u.chain.n_failed ?
					   cmd->u.chain.n_failed :
					   n_cmds(cmd));
	add(&slot->completed, n_cmds(cmd));
}

void accel_stats_buffer(struct accel_buffer *buf, bool alive)
{
	struct accel_stats_device *slot = slot_of(buf->dev);
	uint64_t *bytes;

	if (!slot)
		return;
	bytes = buf->imported || buf->user_ptr ? &slot->imported_bytes :
						 &slot->memory_bytes;
	if (alive) {
		add(bytes, buf->size);
		add(&slot->buffers, 1);
	} else {
		sub(bytes, buf->size);
		sub(&slot->buffers, 1);
	}
}
