/* SPDX-License-Identifier: MIT */
/*
 * Discovery (libaccel/platform/udev.c) and the DRM backend's probe against
 * umockdev testbeds: fake sysfs trees that plain libudev enumeration sees
 * when libumockdev-preload is loaded. The test re-executes itself under
 * umockdev-wrapper when needed, so ctest runs it like any other.
 *
 * The fake device nodes are plain files: no DRM ioctl works on them, so
 * the DRM backend must decline every device here and say why in the log.
 */
#define _GNU_SOURCE /* asprintf */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test-common.h"

#include "backend.h"

/* After libaccel's macros: GLib redefines MIN and MAX its own way. */
#include <umockdev.h>

/* ---- the testbed --------------------------------------------------------- */

/*
 * One testbed for the whole run, made before the group's fd snapshot:
 * umockdev keeps a few sockets and eventfds of its own per testbed, which
 * the fd-leak check must not blame on libaccel.
 */
static UMockdevTestbed *testbed;

struct fixture {
	struct test_log log;
	struct accel_context *ctx;
};

static char *add_pci(UMockdevTestbed *tb, const char *slot, const char *vendor,
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

static bool add_node(UMockdevTestbed *tb, const char *subsystem,
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

static int setup(void **state)
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

static int teardown(void **state)
{
	struct fixture *f = *state;

	accel_context_unref(f->ctx);
	test_log_fini(&f->log);
	free(f);
	return 0;
}

/* ---- a copy of what the callback saw ---------------------------------- */

struct seen {
	char subsystem[16], syspath[256], sysname[64], devnode[64];
	char render_devnode[64], driver[64], parent_syspath[256], bus[32];
	char pci_slot[32];
	uint32_t vendor_id, device_id, subsystem_vendor_id, subsystem_device_id;
	int numa_node;
	dev_t devnum;
};

struct collect {
	struct seen v[16];
	unsigned n;
	int stop_with; /* returned by the callback when non-zero */
};

#define COPY(dst, src)                                                         \
	do {                                                                   \
		assert_non_null(src);                                          \
		assert_true(strlen(src) < sizeof(dst));                        \
		strcpy(dst, src);                                              \
	} while (0)

static int collect_cb(const struct accel_udev_info *info, void *data)
{
	struct collect *c = data;
	struct seen *s;

	assert_true(c->n < TEST_ARRAY_SIZE(c->v));
	s = &c->v[c->n++];
	COPY(s->subsystem, info->subsystem);
	COPY(s->syspath, info->syspath);
	COPY(s->sysname, info->sysname);
	COPY(s->devnode, info->devnode);
	COPY(s->render_devnode, info->render_devnode);
	COPY(s->driver, info->driver);
	COPY(s->parent_syspath, info->parent_syspath);
	COPY(s->bus, info->bus);
	COPY(s->pci_slot, info->pci_slot);
	s->vendor_id = info->vendor_id;
	s->device_id = info->device_id;
	s->subsystem_vendor_id = info->subsystem_vendor_id;
	s->subsystem_device_id = info->subsystem_device_id;
	s->numa_node = info->numa_node;
	s->devnum = info->devnum;
	return c->stop_with;
}

static const struct seen *find(const struct collect *c, const char *sysname)
{
	unsigned i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].sysname, sysname))
			return &c->v[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* ---- enumeration ------------------------------------------------------ */

static void test_enumerate_entries(void **state)
{
	struct fixture *f = *state;
	struct collect *c = calloc(1, sizeof(*c));
	const struct seen *s;
	unsigned i;

	assert_non_null(c);
	assert_int_equal(accel_udev_enumerate(f->ctx, collect_cb, c), 0);

	/* card0+renderD128, accel0, card2, card1+renderD129, renderD130 */
	assert_int_equal(c->n, 5);
	for (i = 0; i < c->n; i++) {
		/* No connector, no control node, no render node twice. */
		assert_null(strchr(c->v[i].sysname, '-'));
		assert_null(strstr(c->v[i].sysname, "control"));
		assert_string_not_equal(c->v[i].sysname, "renderD128");
		assert_string_not_equal(c->v[i].sysname, "renderD129");
	}

	s = find(c, "card0");
	assert_non_null(s);
	assert_string_equal(s->subsystem, "drm");
	assert_string_equal(s->devnode, "/dev/dri/card0");
	assert_string_equal(s->render_devnode, "/dev/dri/renderD128");
	assert_string_equal(s->driver, "i915");
	assert_string_equal(s->bus, "pci");
	assert_string_equal(s->pci_slot, "0000:00:02.0");
	assert_true(ends_with(s->syspath, "/0000:00:02.0/card0"));
	assert_true(ends_with(s->parent_syspath, "/0000:00:02.0"));
	assert_int_equal(s->vendor_id, 0x8086);
	assert_int_equal(s->device_id, 0x46a6);
	assert_int_equal(s->subsystem_vendor_id, 0x1028);
	assert_int_equal(s->subsystem_device_id, 0x0b1a);
	assert_int_equal(s->numa_node, 0);
	assert_true(s->devnum == makedev(226, 0));

	s = find(c, "accel0");
	assert_non_null(s);
	assert_string_equal(s->subsystem, "accel");
	assert_string_equal(s->devnode, "/dev/accel/accel0");
	assert_string_equal(s->render_devnode, "");
	assert_string_equal(s->driver, "intel_vpu");
	assert_string_equal(s->bus, "pci");
	assert_int_equal(s->device_id, 0x7d1d);
	assert_int_equal(s->numa_node, -1);
	assert_true(s->devnum == makedev(261, 0));

	s = find(c, "card2");
	assert_non_null(s);
	assert_string_equal(s->driver, ""); /* nothing bound */
	assert_string_equal(s->render_devnode, "");
	assert_int_equal(s->vendor_id, 0x1002);
	assert_int_equal(s->numa_node, 1);

	s = find(c, "card1");
	assert_non_null(s);
	assert_string_equal(s->devnode, "/dev/dri/card1");
	assert_string_equal(s->render_devnode, "/dev/dri/renderD129");
	assert_string_equal(s->driver, "");
	assert_string_equal(s->bus, "platform");
	assert_true(ends_with(s->parent_syspath, "/vgem"));
	assert_string_equal(s->pci_slot, "");
	assert_int_equal(s->vendor_id, 0);
	assert_int_equal(s->device_id, 0);
	assert_int_equal(s->numa_node, -1);

	/* A lone render node stands for its device in both fields. */
	s = find(c, "renderD130");
	assert_non_null(s);
	assert_string_equal(s->devnode, "/dev/dri/renderD130");
	assert_string_equal(s->render_devnode, "/dev/dri/renderD130");
	free(c);
}

static void test_enumerate_stops(void **state)
{
	struct fixture *f = *state;
	struct collect *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->stop_with = -E2BIG;
	assert_int_equal(accel_udev_enumerate(f->ctx, collect_cb, c), -E2BIG);
	assert_int_equal(c->n, 1);
	/* A positive return is no stop. */
	memset(c, 0, sizeof(*c));
	c->stop_with = 1;
	assert_int_equal(accel_udev_enumerate(f->ctx, collect_cb, c), 0);
	assert_int_equal(c->n, 5);
	free(c);
}

/* Only the CPU device, and no complaint above INFO. */
static void assert_cpu_only(struct fixture *f)
{
	struct accel_device *dev;

	assert_int_equal(accel_context_get_devices(f->ctx, &dev, 1), 1);
	assert_int_equal(test_dev_u64(dev, ACCEL_DEVICE_U64_TYPE),
			 ACCEL_DEVICE_TYPE_CPU);
	accel_device_unref(dev);
	assert_int_equal(test_log_count(&f->log, ACCEL_LOG_WARNING), 0);
}

/* The last tests: they empty the testbed the others need. */
static void test_enumerate_nothing(void **state)
{
	struct fixture *f = *state;
	struct collect *c = calloc(1, sizeof(*c));
	char *net;

	assert_non_null(c);
	/* A sysfs without DRM or accel devices (like this build host). */
	umockdev_testbed_clear(testbed);
	net = umockdev_testbed_add_device(testbed, "net", "eth0", NULL, NULL,
					  "INTERFACE", "eth0", NULL);
	assert_non_null(net);
	g_free(net);
	assert_int_equal(accel_udev_enumerate(f->ctx, collect_cb, c), 0);
	assert_int_equal(c->n, 0);
	free(c);
	assert_cpu_only(f);
}

static void test_enumerate_no_sysfs(void **state)
{
	struct fixture *f = *state;
	struct collect *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	/* No /sys/class at all (some containers): said, not fatal. */
	umockdev_testbed_clear(testbed);
	assert_int_equal(accel_udev_enumerate(f->ctx, collect_cb, c),
			 -EOPNOTSUPP);
	assert_int_equal(c->n, 0);
	free(c);
	assert_cpu_only(f);
}

/* ---- the DRM backend's probe ---------------------------------------- */

struct opens {
	int result;      /* 0: really open; else returned as is */
	unsigned n;
	char paths[8][64];
};

static int open_counted(const char *path, int flags, void *data)
{
	struct opens *o = data;
	int fd;

	if (o->n < TEST_ARRAY_SIZE(o->paths))
		snprintf(o->paths[o->n], sizeof(o->paths[0]), "%s", path);
	o->n++;
	if (o->result)
		return o->result;
	fd = open(path, flags);
	return fd < 0 ? -errno : fd;
}

static void close_counted(int fd, void *data _unused_)
{
	close(fd);
}

static const struct accel_open_interface open_iface = {
	.struct_size = sizeof(open_iface),
	.open_restricted = open_counted,
	.close_restricted = close_counted,
};

/* Probe every testbed device; returns how many devices the context has. */
static int probe_all(struct fixture *f, struct opens *o)
{
	struct accel_device *devs[4];
	int n, i;

	assert_int_equal(accel_context_set_open_interface(f->ctx, &open_iface,
							  o),
			 0);
	n = accel_context_get_devices(f->ctx, devs, TEST_ARRAY_SIZE(devs));
	assert_true(n >= 1);
	for (i = 0; i < n && i < (int)TEST_ARRAY_SIZE(devs); i++)
		accel_device_unref(devs[i]);
	return n;
}

static void test_probe_fake_node(void **state)
{
	struct fixture *f = *state;
	struct opens o = { 0 };

	/* Plain files answer no DRM ioctl: vgem is found, then declined. */
	assert_int_equal(probe_all(f, &o), 1);
	/* Only vgem's primary node was opened: i915, amdgpu, accel are not ours. */
	assert_int_equal(o.n, 1);
	assert_string_equal(o.paths[0], "/dev/dri/card1");
	assert_true(test_log_contains(&f->log,
		"card1 (vgem): /dev/dri/card1 offers no dumb buffers"));
	assert_true(test_log_contains(&f->log, "not used"));
	/* The render-only one cannot hold dumb buffers. */
	assert_true(test_log_contains(&f->log,
		"renderD130 (vgem): no primary node"));
	assert_true(test_log_contains(&f->log,
		"card0: driver 'i915' is not one the drm backend knows"));
	/* Declining is no error. */
	assert_int_equal(test_log_count(&f->log, ACCEL_LOG_ERR), 0);
}

static void test_probe_eacces(void **state)
{
	struct fixture *f = *state;
	struct opens o = { .result = -EACCES };

	assert_int_equal(probe_all(f, &o), 1);
	assert_int_equal(o.n, 1);
	assert_true(test_log_contains(&f->log,
		"card1 (vgem): cannot open /dev/dri/card1: Permission denied"));
	assert_true(test_log_contains(&f->log, "not in the group"));
	assert_int_equal(test_log_count(&f->log, ACCEL_LOG_ERR), 0);
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enumerate_entries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enumerate_stops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe_fake_node, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_probe_eacces, setup,
						teardown),
		/* Last: they empty the testbed. */
		cmocka_unit_test_setup_teardown(test_enumerate_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enumerate_no_sysfs, setup,
						teardown),
	};
	int r;

	if (!preloaded()) {
		reexec_under_umockdev(argc, argv);
		printf("# SKIP: needs umockdev (Debian package umockdev)\n");
		return TEST_EXIT_SKIP;
	}
	testbed = umockdev_testbed_new();
	if (!testbed || !build_testbed(testbed)) {
		printf("# umockdev testbed setup failed\n");
		return 1;
	}
	r = TEST_RUN_GROUP("udev", tests);
	g_object_unref(testbed);
	return r;
}
