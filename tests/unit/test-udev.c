/* SPDX-License-Identifier: MIT */
/*
 * Discovery (libaccel/platform/udev.c), the DRM backend's probe,
 * diagnostics and accel-info against the umockdev testbed
 * (udev-testbed.c).
 *
 * The fake device nodes are plain files: no DRM ioctl works on them, so
 * the DRM backend must decline every device here and say why in the log.
 */
#define _GNU_SOURCE /* asprintf */
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "udev-testbed.h"

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
	assert_int_equal(accel_udev_enumerate(accel_context_env(f->ctx),
						      collect_cb, c), 0);

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
	assert_int_equal(accel_udev_enumerate(accel_context_env(f->ctx),
						      collect_cb, c), -E2BIG);
	assert_int_equal(c->n, 1);
	/* A positive return is no stop. */
	memset(c, 0, sizeof(*c));
	c->stop_with = 1;
	assert_int_equal(accel_udev_enumerate(accel_context_env(f->ctx),
						      collect_cb, c), 0);
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
	assert_int_equal(accel_udev_enumerate(accel_context_env(f->ctx),
						      collect_cb, c), 0);
	assert_int_equal(c->n, 0);
	free(c);
	assert_cpu_only(f);
	/* No accel class at all: said at the context level. */
	assert_int_equal(accel_context_get_candidate_count(f->ctx), 0);
	assert_int_equal(accel_context_get_discovery_status(f->ctx, NULL),
			 ACCEL_CANDIDATE_NO_ACCEL_CLASS);
}

static void test_enumerate_no_sysfs(void **state)
{
	struct fixture *f = *state;
	struct collect *c = calloc(1, sizeof(*c));
	const char *msg = NULL;

	assert_non_null(c);
	/* No /sys/class at all (some containers): said, not fatal. */
	umockdev_testbed_clear(testbed);
	assert_int_equal(accel_udev_enumerate(accel_context_env(f->ctx),
						      collect_cb, c),
			 -EOPNOTSUPP);
	assert_int_equal(c->n, 0);
	free(c);
	assert_cpu_only(f);
	assert_int_equal(accel_context_get_candidate_count(f->ctx), 0);
	assert_int_equal(accel_context_get_discovery_status(f->ctx, &msg),
			 ACCEL_CANDIDATE_NO_SYSFS);
	assert_non_null(strstr(msg, "no /sys/class"));
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

/*
 * On a kernel without the accel subsystem (CONFIG_DRM_ACCEL unset), an
 * accel driver (refaccel) registers a DRM card and render node instead:
 * the accel-node backend takes it by driver name and opens the render
 * node, never the primary one. (Plain files answer no ioctl: the device
 * is then declined.) Names not used elsewhere: a removed device leaves
 * its class link behind.
 */
static void test_probe_render_accel(void **state)
{
	struct fixture *f = *state;
	struct opens o = { 0 };
	bool render = false;
	char *ra;
	unsigned i;

	ra = umockdev_testbed_add_device(testbed, "platform", "refaccel", NULL,
					 NULL, "MODALIAS", "platform:refaccel",
					 NULL);
	assert_non_null(ra);
	umockdev_testbed_set_attribute_link(testbed, ra, "driver",
					    "../../../bus/platform/drivers/refaccel");
	assert_true(add_node(testbed, "drm", "card3", ra, "/dev/dri/card3",
			     "drm_minor", "226", "3"));
	assert_true(add_node(testbed, "drm", "renderD131", ra,
			     "/dev/dri/renderD131", "drm_minor", "226", "131"));

	assert_int_equal(probe_all(f, &o), 1);
	/* vgem's primary node (the DRM backend) and refaccel's render node. */
	assert_int_equal(o.n, 2);
	for (i = 0; i < o.n; i++) {
		assert_string_not_equal(o.paths[i], "/dev/dri/card3");
		render |= !strcmp(o.paths[i], "/dev/dri/renderD131");
	}
	assert_true(render);
	assert_true(test_log_contains(&f->log,
		"card3: driver 'refaccel' is not one the drm backend knows"));
	assert_true(test_log_contains(&f->log,
		"card3: /dev/dri/renderD131 reports driver"));
	assert_int_equal(test_log_count(&f->log, ACCEL_LOG_ERR), 0);

	umockdev_testbed_remove_device(testbed, ra);
	g_free(ra);
}


/* ---- diagnostics: every candidate and why it is not usable ---------- */

static uint64_t cand_u64(struct accel_context *ctx, int idx,
			 enum accel_candidate_u64 prop)
{
	uint64_t v = 0;

	assert_true(idx >= 0);
	assert_int_equal(accel_context_get_candidate_u64(ctx, (size_t)idx,
							 prop, &v), 0);
	return v;
}

static const char *cand_str(struct accel_context *ctx, int idx,
			    enum accel_candidate_string prop)
{
	const char *s = NULL;

	assert_true(idx >= 0);
	assert_int_equal(accel_context_get_candidate_string(ctx, (size_t)idx,
							    prop, &s), 0);
	assert_non_null(s);
	return s;
}

static void assert_reason(struct accel_context *ctx, const char *sysname,
			  enum accel_candidate_reason reason,
			  const char *needle)
{
	int idx = candidate_find(ctx, sysname);
	const char *msg;

	assert_true(idx >= 0);
	msg = cand_str(ctx, idx, ACCEL_CANDIDATE_STRING_REASON_MESSAGE);
	if (cand_u64(ctx, idx, ACCEL_CANDIDATE_U64_REASON) != reason ||
	    !strstr(msg, needle))
		fail_msg("%s: reason %s, message '%s'; want %s, '%s'", sysname,
			 accel_candidate_reason_name((enum accel_candidate_reason)
				cand_u64(ctx, idx, ACCEL_CANDIDATE_U64_REASON)),
			 msg, accel_candidate_reason_name(reason), needle);
}

static void test_candidates_listed(void **state)
{
	struct fixture *f = *state;
	const char *msg = NULL;
	int i, idx;

	/* Every device discovery saw, none claimed (plain-file nodes). */
	assert_int_equal(accel_context_get_candidate_count(f->ctx), 5);
	for (i = 0; i < 5; i++)
		assert_true(cand_u64(f->ctx, i,
				     ACCEL_CANDIDATE_U64_DEVICE_INDEX) ==
			    ACCEL_CANDIDATE_NONE);

	idx = candidate_find(f->ctx, "card0");
	assert_string_equal(cand_str(f->ctx, idx,
				     ACCEL_CANDIDATE_STRING_DEVNODE),
			    "/dev/dri/card0");
	assert_string_equal(cand_str(f->ctx, idx,
				     ACCEL_CANDIDATE_STRING_RENDER_DEVNODE),
			    "/dev/dri/renderD128");
	assert_string_equal(cand_str(f->ctx, idx,
				     ACCEL_CANDIDATE_STRING_DRIVER), "i915");
	assert_string_equal(cand_str(f->ctx, idx,
				     ACCEL_CANDIDATE_STRING_PCI_SLOT),
			    "0000:00:02.0");
	assert_string_equal(cand_str(f->ctx, idx,
				     ACCEL_CANDIDATE_STRING_BACKEND), "");
	assert_int_equal(cand_u64(f->ctx, idx, ACCEL_CANDIDATE_U64_VENDOR_ID),
			 0x8086);
	assert_int_equal(cand_u64(f->ctx, idx, ACCEL_CANDIDATE_U64_NUMA_NODE),
			 0);
	assert_true(cand_u64(f->ctx, idx, ACCEL_CANDIDATE_U64_DEVNUM) ==
		    makedev(226, 0));
	assert_true(cand_u64(f->ctx, candidate_find(f->ctx, "accel0"),
			     ACCEL_CANDIDATE_U64_NUMA_NODE) ==
		    ACCEL_CANDIDATE_NONE);

	/* Driver bound, node opens, but no backend takes it. */
	assert_reason(f->ctx, "card0", ACCEL_CANDIDATE_NO_BACKEND,
		      "driver 'i915' is bound and /dev/dri/renderD128 opens");
	assert_reason(f->ctx, "accel0", ACCEL_CANDIDATE_NO_BACKEND,
		      "driver 'intel_vpu'");
	/* Nothing bound to the AMD card (nor to the testbed's vgem). */
	assert_reason(f->ctx, "card2", ACCEL_CANDIDATE_NO_DRIVER,
		      "no kernel driver is bound");
	assert_reason(f->ctx, "renderD130", ACCEL_CANDIDATE_NO_DRIVER,
		      "/dev/dri/renderD130");

	assert_int_equal(accel_context_get_discovery_status(f->ctx, &msg),
			 ACCEL_CANDIDATE_OK);
	assert_non_null(msg);
	assert_int_equal(test_log_count(&f->log, ACCEL_LOG_WARNING), 0);
}

static void test_candidates_args(void **state)
{
	struct fixture *f = *state;
	const char *s = "untouched";
	uint64_t v = 42;

	assert_int_equal(accel_context_get_candidate_count(NULL), -EINVAL);
	assert_int_equal(accel_context_get_candidate_string(NULL, 0,
		ACCEL_CANDIDATE_STRING_DEVNODE, &s), -EINVAL);
	assert_int_equal(accel_context_get_candidate_string(f->ctx, 0,
		ACCEL_CANDIDATE_STRING_COUNT, &s), -EINVAL);
	assert_int_equal(accel_context_get_candidate_string(f->ctx, 0,
		ACCEL_CANDIDATE_STRING_DEVNODE, NULL), -EINVAL);
	assert_int_equal(accel_context_get_candidate_string(f->ctx, 5,
		ACCEL_CANDIDATE_STRING_DEVNODE, &s), -ENOENT);
	assert_string_equal(s, "untouched");
	assert_int_equal(accel_context_get_candidate_u64(f->ctx, 0,
		ACCEL_CANDIDATE_U64_COUNT, &v), -EINVAL);
	assert_int_equal(accel_context_get_candidate_u64(f->ctx, 99,
		ACCEL_CANDIDATE_U64_REASON, &v), -ENOENT);
	assert_int_equal(v, 42);
	assert_int_equal(accel_context_get_discovery_status(NULL, NULL),
			 -EINVAL);
	assert_string_equal(accel_candidate_reason_name(
		ACCEL_CANDIDATE_PERMISSION_DENIED), "permission-denied");
	assert_null(accel_candidate_reason_name(
		(enum accel_candidate_reason)99));
}

/* The node's group is 'video', and root is not in it. */
static void test_candidates_permission(void **state)
{
	struct fixture *f = *state;
	struct opens o = { .result = -EACCES };
	struct group *video = getgrnam("video");
	char *file;

	if (!video) {
		printf("# no group 'video' here: permission test skipped\n");
		return;
	}
	file = testbed_file("/dev/dri/renderD128");
	assert_int_equal(chown(file, 0, video->gr_gid), 0);
	assert_int_equal(chmod(file, 0660), 0);
	assert_int_equal(probe_all(f, &o), 1);
	assert_reason(f->ctx, "card0", ACCEL_CANDIDATE_PERMISSION_DENIED,
		      "/dev/dri/renderD128 (mode 0660, group 'video'): permission denied");
	assert_reason(f->ctx, "card0", ACCEL_CANDIDATE_PERMISSION_DENIED,
		      "add yourself to group 'video'");
	assert_string_equal(cand_str(f->ctx, candidate_find(f->ctx, "card0"),
				     ACCEL_CANDIDATE_STRING_NODE_GROUP),
			    "video");
	assert_int_equal(cand_u64(f->ctx, candidate_find(f->ctx, "card0"),
				  ACCEL_CANDIDATE_U64_OPEN_ERRNO),
			 EACCES);
	/* Diagnosis opened the render node, never card0 (DRM master). */
	assert_string_equal(o.paths[o.n - 1], "/dev/accel/accel0");
	assert_reason(f->ctx, "accel0", ACCEL_CANDIDATE_PERMISSION_DENIED,
		      "/dev/accel/accel0");
	/* Driverless devices are not opened at all. */
	assert_reason(f->ctx, "card2", ACCEL_CANDIDATE_NO_DRIVER, "");
	assert_int_equal(chown(file, 0, 0), 0);
	assert_int_equal(chmod(file, 0644), 0);
	g_free(file);
}

static void test_candidates_cgroup(void **state)
{
	struct fixture *f = *state;
	struct opens o = { .result = -EPERM };

	/* Mode bits allow it (root), yet EPERM: the device cgroup. */
	assert_int_equal(probe_all(f, &o), 1);
	assert_reason(f->ctx, "accel0", ACCEL_CANDIDATE_CGROUP_DENIED,
		      "cgroup device controller");
	assert_reason(f->ctx, "card0", ACCEL_CANDIDATE_CGROUP_DENIED,
		      "--device /dev/dri/renderD128");
	assert_int_equal(cand_u64(f->ctx, candidate_find(f->ctx, "accel0"),
				  ACCEL_CANDIDATE_U64_OPEN_ERRNO),
			 EPERM);
}

static void test_candidates_node_missing(void **state)
{
	struct fixture *f = *state;
	char *hl, *file;
	bool ok;

	/* sysfs lists accel1 but /dev has no node (a container, say). */
	hl = add_pci(testbed, "0000:05:00.0", "0x1da3", "0x1020", "0",
		     "habanalabs");
	ok = add_node(testbed, "accel", "accel1", hl, "/dev/accel/accel1",
		      "accel_minor", "261", "1");
	assert_true(ok);
	file = testbed_file("/dev/accel/accel1");
	assert_int_equal(unlink(file), 0);
	g_free(file);

	assert_int_equal(accel_context_get_candidate_count(f->ctx), 6);
	assert_reason(f->ctx, "accel1", ACCEL_CANDIDATE_NODE_MISSING,
		      "/dev/accel/accel1 is listed in sysfs but the node does not exist");
	assert_int_equal(cand_u64(f->ctx, candidate_find(f->ctx, "accel1"),
				  ACCEL_CANDIDATE_U64_OPEN_ERRNO),
			 ENOENT);
	assert_string_equal(cand_str(f->ctx, candidate_find(f->ctx, "accel1"),
				     ACCEL_CANDIDATE_STRING_DRIVER),
			    "habanalabs");
	/* Leave the testbed as the other tests know it. */
	umockdev_testbed_remove_device(testbed, hl);
	g_free(hl);
}


/* ---- accel-info against the testbed --------------------------------- */

/*
 * Run accel-info (ACCEL_INFO, set by udev.cmake) with @arg (or none if
 * NULL), its stdout in
 * @out; returns its exit status, or -1 when it cannot be run. The child
 * inherits the preload and UMOCKDEV_DIR, so it sees the same testbed.
 */
static int run_accel_info(const char *arg, const char *out)
{
	const char *tool = getenv("ACCEL_INFO");
	int status, fd;
	pid_t pid;

	if (!tool || access(tool, X_OK) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		execl(tool, tool, arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Validate with python3-jsonschema when there is one (else just say so). */
static void assert_schema_valid(const char *json)
{
	const char *schema = getenv("ACCEL_INFO_SCHEMA");
	char *cmd;
	int r;

	if (!schema || system("python3 -c 'import jsonschema' 2>/dev/null")) {
		printf("# no python3-jsonschema: schema not checked\n");
		return;
	}
	assert_true(asprintf(&cmd,
		"python3 -c 'import json,sys,jsonschema; "
		"jsonschema.validate(json.load(open(sys.argv[1])), "
		"json.load(open(sys.argv[2])))' '%s' '%s'", json, schema) > 0);
	r = system(cmd);
	free(cmd);
	assert_int_equal(r, 0);
}

/*
 * accel-info -L's output in @path: a "Device N:" line for each device of
 * @ctx (which sees the same testbed), a "Not usable:" line for each of its
 * candidates no backend claimed, nothing else; the CPU device's among them.
 */
static void assert_list_lines(struct accel_context *ctx, const char *path)
{
	int n_dev = accel_context_get_devices(ctx, NULL, 0);
	int n_cand = accel_context_get_candidate_count(ctx);
	int unusable = 0, devs = 0, not_usable = 0, others = 0, i, n;
	gchar *text = NULL, **lines;

	assert_true(n_dev >= 1 && n_cand >= 0);
	for (i = 0; i < n_cand; i++)
		if (cand_u64(ctx, i, ACCEL_CANDIDATE_U64_REASON) !=
		    ACCEL_CANDIDATE_OK)
			unusable++;
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	lines = g_strsplit(text, "\n", -1);
	/* Every line ends in a newline: the last piece is empty. */
	n = (int)g_strv_length(lines);
	assert_true(n >= 1 && !*lines[n - 1]);
	for (i = 0; i + 1 < n; i++) {
		if (g_str_has_prefix(lines[i], "Device "))
			devs++;
		else if (g_str_has_prefix(lines[i], "Not usable: "))
			not_usable++;
		else
			others++;
	}
	if (devs != n_dev || not_usable != unusable || others)
		printf("# %d devices, %d not usable; accel-info -L printed:\n%s",
		       n_dev, unusable, text);
	assert_int_equal(devs, n_dev);
	assert_int_equal(not_usable, unusable);
	assert_int_equal(others, 0);
	assert_non_null(strstr(text,
		"(cpu, builtin) usable  [CPU reference device]\n"));
	g_strfreev(lines);
	g_free(text);
}

static void test_accel_info(void **state)
{
	struct fixture *f = *state;
	char dir[] = "/tmp/accel-info-XXXXXX", *out, *hl, *file;
	int r;

	if (!getenv("ACCEL_INFO")) {
		printf("# ACCEL_INFO not set: accel-info not checked\n");
		return;
	}
	assert_non_null(mkdtemp(dir));
	out = g_build_filename(dir, "out", NULL);

	/* Nothing blocked: no driver / no backend do not fail scripts. */
	r = run_accel_info("--json", out);
	assert_int_equal(r, 0);
	assert_schema_valid(out);
	assert_true(file_contains(out, "\"discovery\": {\"status\": \"ok\""));
	assert_true(file_contains(out, "\"sysname\": \"card2\""));
	assert_true(file_contains(out, "\"reason\": \"no-driver\""));
	assert_true(file_contains(out, "\"reason\": \"no-backend\""));

	/*
	 * A node missing: exit status 3, in both outputs. (accel2: removing
	 * a device leaves its class link, so names are not reused.)
	 */
	hl = add_pci(testbed, "0000:06:00.0", "0x1da3", "0x1020", "0",
		     "habanalabs");
	assert_true(add_node(testbed, "accel", "accel2", hl,
			     "/dev/accel/accel2", "accel_minor", "261", "2"));
	file = testbed_file("/dev/accel/accel2");
	assert_int_equal(unlink(file), 0);
	g_free(file);

	r = run_accel_info("--json", out);
	assert_int_equal(r, 3);
	assert_schema_valid(out);
	assert_true(file_contains(out, "\"reason\": \"node-missing\""));
	assert_true(file_contains(out, "\"driver\": \"habanalabs\""));
	r = run_accel_info("--verbose", out);
	assert_int_equal(r, 3);
	assert_true(file_contains(out, "Discovered devices:"));
	assert_true(file_contains(out, "node-missing"));
	r = run_accel_info("--version", out); /* no listing, no diagnosis */
	assert_int_equal(r, 0);
	r = run_accel_info("", out);
	assert_int_equal(r, 2);
	/* The default text: only what is not usable, with the reason. */
	r = run_accel_info(NULL, out);
	assert_int_equal(r, 3);
	assert_true(file_contains(out, "Not usable:"));
	assert_true(file_contains(out, "accel2 (/dev/accel/accel2): not usable"));
	assert_true(file_contains(out,
		"/dev/accel/accel2 is listed in sysfs but the node does not exist"));
	/* --list: the same devices and status, a line each. */
	r = run_accel_info("-L", out);
	assert_int_equal(r, 3);
	assert_list_lines(f->ctx, out);
	assert_true(file_contains(out,
		"Not usable: accel2 (habanalabs, /dev/accel/accel2) node-missing\n"));
	assert_true(file_contains(out,
		"Not usable: card2 (no driver, /dev/dri/card2) no-driver\n"));
	umockdev_testbed_remove_device(testbed, hl);
	g_free(hl);

	unlink(out);
	g_free(out);
	rmdir(dir);
}



/* Wait up to 5 s for @needle in @path (written by a running child). */

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
		cmocka_unit_test_setup_teardown(test_candidates_listed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_candidates_args, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_candidates_permission,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_candidates_cgroup, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_candidates_node_missing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_accel_info, setup,
						teardown),
		/* After the tests that count candidates: it adds one. */
		cmocka_unit_test_setup_teardown(test_probe_render_accel, setup,
						teardown),
		/* Last: they empty the testbed. */
		cmocka_unit_test_setup_teardown(test_enumerate_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enumerate_no_sysfs, setup,
						teardown),
		cmocka_unit_test(udev_testbed_settle),
	};

	return udev_testbed_main(argc, argv, "udev", tests,
				 TEST_ARRAY_SIZE(tests));
}
