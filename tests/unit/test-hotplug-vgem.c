/* SPDX-License-Identifier: MIT */
/*
 * Hot-plug on a real kernel: unloading and reloading the vgem module makes
 * the kernel remove and add its card and render nodes, and the context's
 * monitor must report both. Meant for the kernel test tier (vgem loaded
 * by the guest's init, run as root, no udevd). It unloads a module, so it
 * skips (77) outside the VM (ACCEL_KERNEL_VM unset) and where discovery
 * finds no vgem card.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test-common.h"

#define MAX_EVENTS 32
#define NAME_LEN 64

struct event {
	int type;
	char subsystem[NAME_LEN];
	char sysname[NAME_LEN];
	char devnode[NAME_LEN];
};

struct events {
	struct event v[MAX_EVENTS];
	unsigned n;
};

/* The vgem card as discovery saw it before the module went away. */
struct vgem_nodes {
	char card[NAME_LEN];         /* "card0" */
	char card_devnode[NAME_LEN]; /* "/dev/dri/card0" */
	char render_devnode[NAME_LEN]; /* "/dev/dri/renderD128" or "" */
};

static void on_hotplug(struct accel_context *ctx,
		       enum accel_hotplug_event type, const char *subsystem,
		       const char *sysname, const char *devnode, void *data)
{
	struct events *ev = data;
	struct event *e;

	(void)ctx;
	printf("# hot-plug: %s %s %s %s\n",
	       type == ACCEL_HOTPLUG_ADD ? "add" : "remove", subsystem,
	       sysname, devnode);
	if (ev->n >= MAX_EVENTS)
		return;
	e = &ev->v[ev->n++];
	e->type = type;
	snprintf(e->subsystem, sizeof(e->subsystem), "%s", subsystem);
	snprintf(e->sysname, sizeof(e->sysname), "%s", sysname);
	snprintf(e->devnode, sizeof(e->devnode), "%s", devnode);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Index of the candidate of vgem's card node, or -1. */
static int find_vgem_card(struct accel_context *ctx)
{
	int n = accel_context_get_candidate_count(ctx), i;

	for (i = 0; i < n; i++) {
		const char *syspath;

		/* vgem's platform device has no driver bound: go by path. */
		if (accel_context_get_candidate_string(ctx, (size_t)i,
				ACCEL_CANDIDATE_STRING_SYSPATH, &syspath))
			continue;
		if (strstr(syspath, "/vgem/drm/card"))
			return i;
	}
	return -1;
}

/* Discovery claims the vgem card for the DRM backend; note its nodes. */
static void assert_vgem_claimed(struct vgem_nodes *nodes)
{
	struct accel_context *ctx;
	struct test_log log;
	const char *s;
	uint64_t v;
	int idx, n;

	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	idx = find_vgem_card(ctx);
	assert_true(idx >= 0);
	assert_int_equal(accel_context_get_candidate_u64(ctx, (size_t)idx,
			ACCEL_CANDIDATE_U64_REASON, &v), 0);
	assert_int_equal(v, ACCEL_CANDIDATE_OK);
	assert_int_equal(accel_context_get_candidate_u64(ctx, (size_t)idx,
			ACCEL_CANDIDATE_U64_DEVICE_INDEX, &v), 0);
	assert_true(v != ACCEL_CANDIDATE_NONE);
	n = accel_context_get_devices(ctx, NULL, 0);
	assert_true(n > 0 && v < (uint64_t)n);
	assert_int_equal(accel_context_get_candidate_string(ctx, (size_t)idx,
			ACCEL_CANDIDATE_STRING_BACKEND, &s), 0);
	assert_string_equal(s, "drm");
	if (nodes) {
		assert_int_equal(accel_context_get_candidate_string(ctx,
				(size_t)idx, ACCEL_CANDIDATE_STRING_SYSNAME,
				&s), 0);
		snprintf(nodes->card, sizeof(nodes->card), "%s", s);
		assert_int_equal(accel_context_get_candidate_string(ctx,
				(size_t)idx, ACCEL_CANDIDATE_STRING_DEVNODE,
				&s), 0);
		snprintf(nodes->card_devnode, sizeof(nodes->card_devnode),
			 "%s", s);
		assert_int_equal(accel_context_get_candidate_string(ctx,
				(size_t)idx,
				ACCEL_CANDIDATE_STRING_RENDER_DEVNODE, &s), 0);
		snprintf(nodes->render_devnode, sizeof(nodes->render_devnode),
			 "%s", s);
	}
	/* Closes the card again: a module with open files cannot go. */
	accel_context_unref(ctx);
	test_log_fini(&log);
}

/* Run @argv[0] (an absolute path) and return its exit status, or -1. */
static int run(char *const argv[])
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static const char *find_tool(const char *name)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin",
					    "/bin" };
	static char path[128];
	size_t i;

	for (i = 0; i < TEST_ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (access(path, X_OK) == 0)
			return path;
	}
	return NULL;
}

static int modprobe(bool remove)
{
	const char *tool = find_tool("modprobe");
	char *argv[] = { (char *)tool, (char *)"-r", (char *)"vgem", NULL };
	uint64_t t0 = now_ms();
	int r;

	if (!tool)
		return -1;
	if (!remove) {
		argv[1] = (char *)"vgem";
		argv[2] = NULL;
	}
	/* A just-closed card may still hold the module for a moment. */
	while ((r = run(argv)) != 0 && remove && now_ms() - t0 < 3000)
		usleep(100 * 1000);
	return r;
}

static const struct event *find_event(const struct events *ev, int type,
				      const char *devnode)
{
	unsigned i;

	for (i = 0; i < ev->n; i++)
		if (ev->v[i].type == type &&
		    !strcmp(ev->v[i].devnode, devnode))
			return &ev->v[i];
	return NULL;
}

/* Poll and dispatch until @type was seen for the card and render nodes. */
static void wait_events(struct accel_context *ctx, int fd,
			struct events *ev, int type,
			const struct vgem_nodes *nodes)
{
	uint64_t t0 = now_ms();

	while (now_ms() - t0 < 10000) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r;

		if (find_event(ev, type, nodes->card_devnode) &&
		    (!*nodes->render_devnode ||
		     find_event(ev, type, nodes->render_devnode)))
			break;
		r = poll(&pfd, 1, 500);
		assert_true(r >= 0 || errno == EINTR);
		if (r > 0)
			assert_true(accel_context_dispatch(ctx) >= 0);
	}
}

static void check_event(const struct events *ev, int type,
			const char *devnode, const char *sysname)
{
	const struct event *e = find_event(ev, type, devnode);

	if (!e)
		fail_msg("no %s event for %s",
			 type == ACCEL_HOTPLUG_ADD ? "add" : "remove", devnode);
	assert_string_equal(e->subsystem, "drm");
	if (sysname)
		assert_string_equal(e->sysname, sysname);
}

static void test_unload_reload(void **state)
{
	struct vgem_nodes nodes = { 0 };
	struct events ev = { 0 };
	struct accel_context *ctx;
	struct test_log log;
	int fd;

	(void)state;
	assert_vgem_claimed(&nodes);
	printf("# vgem: %s %s %s\n", nodes.card, nodes.card_devnode,
	       nodes.render_devnode);

	/* A context that only watches: it never opens the card. */
	test_log_init(&log);
	assert_int_equal(test_context_new(&log, &ctx), 0);
	assert_int_equal(accel_context_set_hotplug_fn(ctx, on_hotplug, &ev),
			 0);
	fd = accel_context_get_monitor_fd(ctx);
	assert_true(fd >= 0);
	/* Nothing pending yet. */
	assert_int_equal(accel_context_dispatch(ctx), 0);
	assert_int_equal(ev.n, 0);

	assert_int_equal(modprobe(true), 0);
	wait_events(ctx, fd, &ev, ACCEL_HOTPLUG_REMOVE, &nodes);
	check_event(&ev, ACCEL_HOTPLUG_REMOVE, nodes.card_devnode,
		    nodes.card);
	if (*nodes.render_devnode)
		check_event(&ev, ACCEL_HOTPLUG_REMOVE, nodes.render_devnode,
			    NULL);
	assert_null(find_event(&ev, ACCEL_HOTPLUG_ADD, nodes.card_devnode));

	/* Nothing else minted the same minors meanwhile: same nodes back. */
	assert_int_equal(modprobe(false), 0);
	wait_events(ctx, fd, &ev, ACCEL_HOTPLUG_ADD, &nodes);
	check_event(&ev, ACCEL_HOTPLUG_ADD, nodes.card_devnode, nodes.card);
	if (*nodes.render_devnode)
		check_event(&ev, ACCEL_HOTPLUG_ADD, nodes.render_devnode,
			    NULL);

	close(fd);
	accel_context_unref(ctx);
	test_log_fini(&log);

	/* A fresh context claims the reloaded card again. */
	assert_vgem_claimed(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unload_reload),
	};
	struct accel_context *ctx;
	const char *vm = getenv("ACCEL_KERNEL_VM");
	int idx;

	if (!vm || strcmp(vm, "1")) {
		printf("# SKIP: it unloads vgem: kernel test tier only\n");
		return TEST_EXIT_SKIP;
	}
	if (accel_context_new(0, &ctx) < 0)
		return 1;
	idx = find_vgem_card(ctx);
	accel_context_unref(ctx);
	if (idx < 0) {
		printf("# SKIP: no vgem card (ACCEL_LOG=debug says why)\n");
		return TEST_EXIT_SKIP;
	}
	if (!find_tool("modprobe")) {
		printf("# SKIP: no modprobe\n");
		return TEST_EXIT_SKIP;
	}
	return TEST_RUN_GROUP("hotplug-vgem", tests);
}
