/* SPDX-License-Identifier: MIT */
/*
 * Hot-plug against the umockdev testbed (udev-testbed.c): uevents through
 * the context's monitor, accel-info --watch, and the refresh of the device
 * list and candidates that accel_context_dispatch() does before handlers
 * run, including a device unplugged while in use (-ENODEV afterwards).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "udev-testbed.h"

static bool file_waits_for(const char *path, const char *needle)
{
	int i;

	for (i = 0; i < 50; i++) {
		gchar *text = NULL;
		bool found = false;

		if (g_file_get_contents(path, &text, NULL, NULL))
			found = strstr(text, needle) != NULL;
		g_free(text);
		if (found)
			return true;
		usleep(100 * 1000);
	}
	return file_contains(path, needle); /* says what was there */
}

static void test_accel_info_watch(void **state)
{
	const char *tool = getenv("ACCEL_INFO");
	char dir[] = "/tmp/accel-info-XXXXXX", *out, *pci, *node;
	int status, fd;
	pid_t pid;

	(void)state;
	if (!tool || access(tool, X_OK) < 0) {
		printf("# ACCEL_INFO not set: accel-info --watch not checked\n");
		return;
	}
	assert_non_null(mkdtemp(dir));
	out = g_build_filename(dir, "out", NULL);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		/*
		 * Should an assertion end the test first: the watcher dies
		 * with it and holds no pipe of ctest's open.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		execl(tool, tool, "--watch", "--json", (char *)NULL);
		_exit(127);
	}
	/* The monitor exists before the listing is printed. */
	assert_true(file_waits_for(out, "\"candidates\": ["));
	assert_true(file_waits_for(out, "]\n}\n"));

	pci = add_pci(testbed, "0000:08:00.0", "0x8086", "0x643e", "0",
		      "intel_vpu");
	assert_non_null(pci);
	node = umockdev_testbed_add_device(testbed, "accel", "accel4", pci,
		"dev", "261:4", NULL,
		"DEVNAME", "/dev/accel/accel4", "DEVTYPE", "accel_minor",
		"MAJOR", "261", "MINOR", "4", NULL);
	assert_non_null(node);
	assert_true(file_waits_for(out,
		"{\"event\": \"add\", \"subsystem\": \"accel\", "
		"\"sysname\": \"accel4\", \"devnode\": \"/dev/accel/accel4\"}\n"));
	umockdev_testbed_uevent(testbed, node, "remove");
	assert_true(file_waits_for(out,
		"{\"event\": \"remove\", \"subsystem\": \"accel\", "
		"\"sysname\": \"accel4\""));

	/* Still watching: it runs until killed. */
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);

	umockdev_testbed_remove_device(testbed, node);
	umockdev_testbed_remove_device(testbed, pci);
	g_free(node);
	g_free(pci);
	unlink(out);
	g_free(out);
	rmdir(dir);
}


/* ---- hot-plug: umockdev uevents through the monitor ------------------ */

struct hotplug_seen {
	unsigned n;
	int events[8];
	char sysnames[8][32], devnodes[8][64], subsystems[8][16];
	struct accel_context *ctx;
};

static void hotplug_cb(struct accel_context *ctx,
		       enum accel_hotplug_event event, const char *subsystem,
		       const char *sysname, const char *devnode,
		       void *user_data)
{
	struct hotplug_seen *h = user_data;

	assert_ptr_equal(ctx, h->ctx);
	if (h->n >= TEST_ARRAY_SIZE(h->events))
		return;
	h->events[h->n] = (int)event;
	snprintf(h->sysnames[h->n], sizeof(h->sysnames[0]), "%s", sysname);
	snprintf(h->devnodes[h->n], sizeof(h->devnodes[0]), "%s", devnode);
	snprintf(h->subsystems[h->n], sizeof(h->subsystems[0]), "%s",
		 subsystem);
	h->n++;
	/* Handlers may query the context (no lock is held). */
	assert_true(accel_context_get_candidate_count(ctx) >= 0);
}

/* Poll and dispatch until @want events arrived or 5 s passed. */
static void wait_events(struct accel_context *ctx, int fd,
			struct hotplug_seen *h, unsigned want)
{
	int i;

	for (i = 0; i < 50 && h->n < want; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) > 0)
			assert_true(accel_context_dispatch(ctx) >= 0);
	}
	assert_int_equal(h->n, want);
}

static void test_hotplug(void **state)
{
	struct fixture *f = *state;
	struct hotplug_seen h = { .ctx = f->ctx };
	char *pci, *node;
	int fd, fd2;

	assert_int_equal(accel_context_dispatch(NULL), -EINVAL);
	assert_int_equal(accel_context_get_monitor_fd(NULL), -EINVAL);
	assert_int_equal(accel_context_set_hotplug_fn(NULL, hotplug_cb, &h),
			 -EINVAL);
	/* No monitor yet: nothing to dispatch. */
	assert_int_equal(accel_context_dispatch(f->ctx), -ENODEV);
	assert_int_equal(accel_context_set_hotplug_fn(f->ctx, hotplug_cb, &h),
			 0);
	fd = accel_context_get_monitor_fd(f->ctx);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* Every call: a new fd of the caller's onto the same monitor. */
	fd2 = accel_context_get_monitor_fd(f->ctx);
	assert_true(fd2 >= 0 && fd2 != fd);
	close(fd2);
	assert_int_equal(accel_context_dispatch(f->ctx), 0);

	/* An NPU appears: its PCI parent's event is not ours. */
	pci = add_pci(testbed, "0000:07:00.0", "0x8086", "0x643e", "0",
		      "intel_vpu");
	assert_non_null(pci);
	node = umockdev_testbed_add_device(testbed, "accel", "accel3", pci,
		"dev", "261:3", NULL,
		"DEVNAME", "/dev/accel/accel3", "DEVTYPE", "accel_minor",
		"MAJOR", "261", "MINOR", "3", NULL);
	assert_non_null(node);
	wait_events(f->ctx, fd, &h, 1);
	assert_int_equal(h.events[0], ACCEL_HOTPLUG_ADD);
	assert_string_equal(h.sysnames[0], "accel3");
	assert_string_equal(h.subsystems[0], "accel");
	assert_string_equal(h.devnodes[0], "/dev/accel/accel3");

	/* The node going away. */
	umockdev_testbed_uevent(testbed, node, "remove");
	wait_events(f->ctx, fd, &h, 2);
	assert_int_equal(h.events[1], ACCEL_HOTPLUG_REMOVE);
	assert_string_equal(h.sysnames[1], "accel3");

	/* Without a handler events are drained and still counted. */
	assert_int_equal(accel_context_set_hotplug_fn(f->ctx, NULL, NULL), 0);
	umockdev_testbed_uevent(testbed, node, "add");
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int i, got = 0;

		for (i = 0; i < 50 && !got; i++)
			if (poll(&p, 1, 100) > 0)
				got = accel_context_dispatch(f->ctx);
		assert_int_equal(got, 1);
	}
	assert_int_equal(h.n, 2);

	umockdev_testbed_remove_device(testbed, node);
	umockdev_testbed_remove_device(testbed, pci);
	g_free(node);
	g_free(pci);
	close(fd);
}


/* ---- refresh: the lists follow the machine ---------------------------- */

struct refresh_seen {
	struct accel_context *ctx;
	unsigned n;
	int candidates;     /* the count the handler saw */
	int devices;
};

static void refresh_cb(struct accel_context *ctx,
		       enum accel_hotplug_event event _unused_,
		       const char *subsystem _unused_,
		       const char *sysname _unused_,
		       const char *devnode _unused_, void *user_data)
{
	struct refresh_seen *r = user_data;

	assert_ptr_equal(ctx, r->ctx);
	r->n++;
	r->candidates = accel_context_get_candidate_count(ctx);
	r->devices = accel_context_get_devices(ctx, NULL, 0);
}

static void wait_refresh(struct accel_context *ctx, int fd,
			 struct refresh_seen *r, unsigned want)
{
	int i;

	for (i = 0; i < 50 && r->n < want; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) > 0)
			assert_true(accel_context_dispatch(ctx) >= 0);
	}
	assert_int_equal(r->n, want);
}

/*
 * umockdev answers opens of its nodes on sockets it serves from its own
 * thread and closes some time after ours (so the count may even have been
 * one higher when @want was taken): wait until no more than @want fds are
 * open (a real leak still fails, after 5 s).
 */
static void wait_fds(int want)
{
	int i;

	for (i = 0; i < 500 && test_count_fds() > want; i++)
		usleep(10 * 1000);
	if (test_count_fds() > want) {
		char path[64], target[256];
		ssize_t n;

		for (i = 0; i < 64; i++) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", i);
			n = readlink(path, target, sizeof(target) - 1);
			if (n > 0)
				printf("# fd %d -> %.*s\n", i, (int)n, target);
		}
	}
	assert_true(test_count_fds() <= want);
}

/* A PCI accelerator with node accel@minor, added to the testbed. */
static void plug(const char *slot, unsigned minor, char **pci, char **node)
{
	char name[16], devname[32], num[8], dev[16];

	snprintf(name, sizeof(name), "accel%u", minor);
	snprintf(devname, sizeof(devname), "/dev/accel/accel%u", minor);
	snprintf(num, sizeof(num), "%u", minor);
	snprintf(dev, sizeof(dev), "261:%u", minor);
	*pci = add_pci(testbed, slot, "0x8086", "0x643e", "0", "intel_vpu");
	assert_non_null(*pci);
	*node = umockdev_testbed_add_device(testbed, "accel", name, *pci,
		"dev", dev, NULL, "DEVNAME", devname, "DEVTYPE", "accel_minor",
		"MAJOR", "261", "MINOR", num, NULL);
	assert_non_null(*node);
}

/* The remove event first, then the sysfs entries: as the kernel does. */
static void unplug(char *pci, char *node)
{
	umockdev_testbed_uevent(testbed, node, "remove");
	umockdev_testbed_remove_device(testbed, node);
	umockdev_testbed_remove_device(testbed, pci);
	g_free(node);
	g_free(pci);
}

static void test_refresh_candidates(void **state)
{
	struct fixture *f = *state;
	struct refresh_seen r = { .ctx = f->ctx };
	char *pci, *node;
	int n0, fd, fds;

	n0 = accel_context_get_candidate_count(f->ctx);
	assert_true(n0 > 0);
	assert_int_equal(candidate_find(f->ctx, "accel5"), -1);
	assert_int_equal(accel_context_set_hotplug_fn(f->ctx, refresh_cb, &r),
			 0);
	fd = accel_context_get_monitor_fd(f->ctx);
	assert_true(fd >= 0);
	/* The context's own monitor socket stays: count from here. */
	fds = test_count_fds();

	/* The handler already sees the new candidate. */
	plug("0000:09:00.0", 5, &pci, &node);
	wait_refresh(f->ctx, fd, &r, 1);
	assert_int_equal(r.candidates, n0 + 1);
	assert_int_equal(r.devices, 1); /* a plain file: nobody claims it */
	assert_true(candidate_find(f->ctx, "accel5") >= 0);

	unplug(pci, node);
	wait_refresh(f->ctx, fd, &r, 2);
	assert_int_equal(r.candidates, n0);
	assert_int_equal(candidate_find(f->ctx, "accel5"), -1);
	close(fd);
	wait_fds(fds - 1);
}

/*
 * A stand-in backend for a device "claimed" from the testbed (plain-file
 * nodes cannot be claimed by a real one): host memory, instant commands.
 */
static int fake_buffer_alloc(struct accel_buffer *buf)
{
	buf->host_ptr = calloc(1, buf->size);
	return buf->host_ptr ? 0 : -ENOMEM;
}

static void fake_buffer_free(struct accel_buffer *buf)
{
	free(buf->host_ptr);
}

static int fake_execute(struct accel_queue *queue _unused_,
			struct accel_cmd *cmd)
{
	accel_cmd_complete(cmd, 0);
	return 0;
}

static void nop_wg(void **args _unused_,
		   const struct accel_wg_ctx *ctx _unused_)
{
}

static const struct accel_backend_ops fake_ops = {
	.name = "fake",
	.buffer_alloc = fake_buffer_alloc,
	.buffer_free = fake_buffer_free,
	.execute = fake_execute,
};

/* A device of fake_ops standing for candidate @sysname's node. */
static void claim(struct accel_context *ctx, const char *sysname)
{
	struct accel_device *dev;
	const char *syspath, *devnode;
	int idx = candidate_find(ctx, sysname);

	assert_true(idx >= 0);
	assert_int_equal(accel_context_get_candidate_string(ctx, (size_t)idx,
		ACCEL_CANDIDATE_STRING_SYSPATH, &syspath), 0);
	assert_int_equal(accel_context_get_candidate_string(ctx, (size_t)idx,
		ACCEL_CANDIDATE_STRING_DEVNODE, &devnode), 0);
	assert_int_equal(accel_device_alloc(ctx, &fake_ops, &dev), 0);
	assert_int_equal(accel_device_set_string(dev,
		ACCEL_DEVICE_STRING_SYSPATH, syspath), 0);
	assert_int_equal(accel_device_set_string(dev,
		ACCEL_DEVICE_STRING_DEVNODE, devnode), 0);
	dev->u64[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE] = 1 << 20;
	dev->u64[ACCEL_DEVICE_U64_CAPS] = ACCEL_DEVICE_CAP_NATIVE_KERNELS;
	assert_int_equal(accel_context_add_device(ctx, dev), 0);
}

static void test_unplug_in_use(void **state)
{
	struct fixture *f = *state;
	struct refresh_seen r = { .ctx = f->ctx };
	struct accel_device *devs[4], *dev;
	struct accel_buffer *buf, *other;
	struct accel_queue *q, *q2;
	uint32_t word = 7;
	char *pci, *node;
	void *ptr;
	int fd, n, fds;

	assert_int_equal(accel_context_set_hotplug_fn(f->ctx, refresh_cb, &r),
			 0);
	fd = accel_context_get_monitor_fd(f->ctx);
	assert_true(fd >= 0);
	/* The context's own monitor socket stays: count from here. */
	fds = test_count_fds();
	plug("0000:0a:00.0", 6, &pci, &node);
	wait_refresh(f->ctx, fd, &r, 1);
	claim(f->ctx, "accel6");

	n = accel_context_get_devices(f->ctx, devs, TEST_ARRAY_SIZE(devs));
	assert_int_equal(n, 2);
	dev = devs[1];
	accel_device_unref(devs[0]);
	assert_int_equal(accel_device_get_status(dev), 0);
	assert_int_equal(accel_buffer_new(dev, 4096, 0, &buf), 0);
	assert_int_equal(accel_queue_new(dev, 0, &q), 0);
	assert_int_equal(accel_queue_write(q, buf, 0, sizeof(word), &word, 0,
					   NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(q), 0);

	/* Gone: out of the list before the handler runs, objects refuse work. */
	unplug(pci, node);
	wait_refresh(f->ctx, fd, &r, 2);
	assert_int_equal(r.devices, 1);
	assert_int_equal(accel_context_get_devices(f->ctx, NULL, 0), 1);
	assert_int_equal(accel_device_get_status(dev), -ENODEV);
	assert_int_equal(accel_device_get_status(NULL), -EINVAL);
	other = (struct accel_buffer *)&word;
	assert_int_equal(accel_buffer_new(dev, 4096, 0, &other), -ENODEV);
	assert_ptr_equal(other, (struct accel_buffer *)&word);
	assert_int_equal(accel_buffer_new_sub(buf, 0, 64, 0, &other), -ENODEV);
	assert_int_equal(accel_queue_new(dev, 0, &q2), -ENODEV);
	{
		const struct accel_native_kernel_desc k = {
			.struct_size = sizeof(k), .name = "nop", .fn = nop_wg,
		};
		struct accel_program *prog = TEST_SENTINEL_PTR;

		assert_int_equal(accel_program_new_native(dev, &k, 1, &prog),
				 -ENODEV);
		assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	}
	assert_int_equal(accel_queue_write(q, buf, 0, sizeof(word), &word, 0,
					   NULL, NULL), -ENODEV);
	assert_int_equal(accel_buffer_map(buf, 0, 64, ACCEL_MAP_READ, &ptr),
			 -ENODEV);
	/* Draining still works, and queries and releases stay safe. */
	assert_int_equal(accel_queue_finish(q), 0);
	assert_int_equal(accel_buffer_get_size(buf), 4096);
	assert_ptr_equal(accel_buffer_get_device(buf), dev);
	accel_queue_unref(q);
	accel_buffer_unref(buf);
	accel_device_unref(dev);
	close(fd);
	wait_fds(fds - 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hotplug, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_accel_info_watch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refresh_candidates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unplug_in_use, setup,
						teardown),
		cmocka_unit_test(udev_testbed_settle),
	};

	return udev_testbed_main(argc, argv, "udev-hotplug", tests,
				 TEST_ARRAY_SIZE(tests));
}
