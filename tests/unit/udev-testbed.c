/* SPDX-License-Identifier: MIT */
/*
 * The umockdev testbed shared by the discovery tests (test-udev.c,
 * test-udev-hotplug.c): a fake sysfs tree that plain libudev enumeration
 * sees when libumockdev-preload is loaded. Each test re-executes itself
 * under umockdev-wrapper when needed, so ctest runs it like any other.
 */
#define _GNU_SOURCE /* asprintf */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udev-testbed.h"

/* ---- the testbed --------------------------------------------------------- */

/*
 * One testbed for the whole run, made before the group's fd snapshot:
 * umockdev keeps a few sockets and eventfds of its own per testbed, which
 * the fd-leak check must not blame on libaccel.
 */
UMockdevTestbed *testbed;

char *add_pci(UMockdevTestbed *tb, const char *slot, const char *vendor,
		     const char *device, const char *numa, const char *driver)
{
	char *path;

	path = umockdev_testbed_add_device(tb, "pci", slot, NULL,
		/* attributes */
		"vendor", vendor, "device", device,
		"subsystem_vendor", "0x1028", "subsystem_device", "0x0b1a",
		"numa_node", numa, NULL,
		/* properties */
		"PCI_SLOT_NAME", slot, NULL);
	if (path && driver) {
		char link[PATH_MAX];

		snprintf(link, sizeof(link), "../../bus/pci/drivers/%s", driver);
		umockdev_testbed_set_attribute_link(tb, path, "driver", link);
	}
	return path;
}

bool add_node(UMockdevTestbed *tb, const char *subsystem,
		     const char *name, const char *parent, const char *devname,
		     const char *devtype, const char *major, const char *minor)
{
	char *path, dev[32];

	if (!parent)
		return false;
	/* With "dev" (major:minor) umockdev also makes the node. */
	snprintf(dev, sizeof(dev), "%s:%s", major, minor);
	if (devname)
		path = umockdev_testbed_add_device(tb, subsystem, name, parent,
			"dev", dev, NULL,
			"DEVNAME", devname, "DEVTYPE", devtype,
			"MAJOR", major, "MINOR", minor, NULL);
	else
		path = umockdev_testbed_add_device(tb, subsystem, name, parent,
			NULL, "DEVTYPE", devtype, NULL);
	if (path && devname) {
		/* The node itself: an empty file the preload redirects to. */
		char *root = umockdev_testbed_get_root_dir(tb);
		char *file = g_build_filename(root, devname, NULL);
		char *dir = g_path_get_dirname(file);

		if (g_mkdir_with_parents(dir, 0755) < 0 ||
		    !g_file_set_contents(file, "", 0, NULL)) {
			g_free(path);
			path = NULL;
		}
		g_free(dir);
		g_free(file);
		g_free(root);
	}
	g_free(path);
	return path != NULL;
}

/*
 * An Intel GPU (card0 + renderD128, a connector, a control node), an
 * Intel NPU behind /dev/accel/accel0, a driverless AMD card2, vgem
 * (card1 + renderD129 on a bare platform device) and a second vgem-like
 * platform device that only has a render node.
 */
static bool build_testbed(UMockdevTestbed *tb)
{
	char *gpu, *npu, *amd, *vgem, *vgem1;
	bool ok;

	gpu = add_pci(tb, "0000:00:02.0", "0x8086", "0x46a6", "0", "i915");
	npu = add_pci(tb, "0000:00:0b.0", "0x8086", "0x7d1d", "-1",
		      "intel_vpu");
	amd = add_pci(tb, "0000:03:00.0", "0x1002", "0x744c", "1", NULL);
	vgem = umockdev_testbed_add_device(tb, "platform", "vgem", NULL, NULL,
					   "MODALIAS", "platform:vgem", NULL);
	vgem1 = umockdev_testbed_add_device(tb, "platform", "vgem.1", NULL,
					    NULL, "MODALIAS", "platform:vgem",
					    NULL);
	ok = add_node(tb, "drm", "card0", gpu, "/dev/dri/card0", "drm_minor",
		      "226", "0") &&
	     add_node(tb, "drm", "card0-HDMI-A-1", gpu, NULL, "drm_connector",
		      NULL, NULL) &&
	     add_node(tb, "drm", "controlD64", gpu, "/dev/dri/controlD64",
		      "drm_minor", "226", "64") &&
	     add_node(tb, "drm", "renderD128", gpu, "/dev/dri/renderD128",
		      "drm_minor", "226", "128") &&
	     add_node(tb, "accel", "accel0", npu, "/dev/accel/accel0",
		      "accel_minor", "261", "0") &&
	     add_node(tb, "drm", "card2", amd, "/dev/dri/card2", "drm_minor",
		      "226", "2") &&
	     add_node(tb, "drm", "card1", vgem, "/dev/dri/card1", "drm_minor",
		      "226", "1") &&
	     add_node(tb, "drm", "renderD129", vgem, "/dev/dri/renderD129",
		      "drm_minor", "226", "129") &&
	     add_node(tb, "drm", "renderD130", vgem1, "/dev/dri/renderD130",
		      "drm_minor", "226", "130");
	g_free(gpu);
	g_free(npu);
	g_free(amd);
	g_free(vgem);
	g_free(vgem1);
	return ok;
}

int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	test_log_init(&f->log);
	if (test_context_new(&f->log, &f->ctx) < 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

int teardown(void **state)
{
	struct fixture *f = *state;

	accel_context_unref(f->ctx);
	test_log_fini(&f->log);
	free(f);
	return 0;
}


char *testbed_file(const char *devnode)
{
	char *root = umockdev_testbed_get_root_dir(testbed);
	char *file = g_build_filename(root, devnode, NULL);

	g_free(root);
	return file;
}


bool file_contains(const char *path, const char *needle)
{
	gchar *text = NULL;
	bool found;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return false;
	found = strstr(text, needle) != NULL;
	if (!found)
		printf("# '%s' not in:\n%s\n", needle, text);
	g_free(text);
	return found;
}


/* The index of the candidate named @sysname, or -1. */
int candidate_find(struct accel_context *ctx, const char *sysname)
{
	int i, n = accel_context_get_candidate_count(ctx);
	const char *s;

	for (i = 0; i < n; i++) {
		assert_int_equal(accel_context_get_candidate_string(ctx,
			(size_t)i, ACCEL_CANDIDATE_STRING_SYSNAME, &s), 0);
		if (!strcmp(s, sysname))
			return i;
	}
	return -1;
}

/* ---- re-running under umockdev-wrapper -------------------------------- */

#define REEXEC_ENV "ACCEL_TEST_UDEV_REEXEC"

static void append_env(const char *name, const char *value)
{
	const char *old = getenv(name);
	char *s;

	if (old && *old) {
		if (asprintf(&s, "%s:%s", old, value) < 0)
			return;
		setenv(name, s, 1);
		free(s);
	} else {
		setenv(name, value, 1);
	}
}

/*
 * umockdev_in_mock_environment() answers only once a testbed exists (it
 * looks whether /sys is redirected) and caches that first answer: ask the
 * dynamic linker whether the preload library is there instead.
 */
static bool preloaded(void)
{
	void *h = dlopen("libumockdev-preload.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (!h)
		return false;
	dlclose(h);
	return true;
}

/* Returns only on failure (the caller skips). */
static void reexec_under_umockdev(int argc, char **argv)
{
	char exe[PATH_MAX];
	char **args;
	ssize_t len;
	int i;

	if (getenv(REEXEC_ENV)) {
		printf("# umockdev-wrapper did not preload libumockdev\n");
		return;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return;
	exe[len] = '\0';
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return;
	args[0] = (char *)"umockdev-wrapper";
	args[1] = exe;
	for (i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	setenv(REEXEC_ENV, "1", 1);
	/* The preload comes before the sanitizer runtime: let ASan accept it. */
	append_env("ASAN_OPTIONS", "verify_asan_link_order=0");
	execvp(args[0], args);
	printf("# cannot run umockdev-wrapper: %s\n", strerror(errno));
	free(args);
}


void udev_testbed_settle(void **state)
{
	(void)state;
	/* a leak of ours stays: the group's fd check still reports it */
	if (!test_group_fds_settle(5000))
		printf("# fds still differ from the group's start\n");
}

int udev_testbed_main(int argc, char **argv, const char *name,
		      const struct CMUnitTest *tests, size_t n)
{
	int r;

	if (!preloaded()) {
		reexec_under_umockdev(argc, argv);
		printf("# SKIP: needs umockdev (Debian package umockdev)\n");
		return TEST_EXIT_SKIP;
	}
	/*
	 * umockdev's worker thread makes GLib's default main context and,
	 * through GTask, GLib's worker context when it first runs: each
	 * brings an eventfd, late enough to land after the group's fd
	 * snapshot. Make both here, before the snapshot, so they are not
	 * taken for leaks.
	 */
	(void)g_main_context_default();
	g_type_ensure(G_TYPE_TASK);
	testbed = umockdev_testbed_new();
	if (!testbed || !build_testbed(testbed)) {
		printf("# umockdev testbed setup failed\n");
		return 1;
	}
	r = test_run_group(name, tests, n);
	g_object_unref(testbed);
	return r;
}
